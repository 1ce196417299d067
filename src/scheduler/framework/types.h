// Core scheduling types (pkg/scheduler/framework/types.go): Resource, PodInfo with pre-parsed
// affinity terms, NodeInfo with precomputed sums, QueuedPodInfo, FitError, cluster events.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/core.h"
#include "api/labels.h"
#include "scheduler/framework/status.h"

namespace ksched::scheduler::framework {

using PodPtr = std::shared_ptr<const api::Pod>;
using NodePtr = std::shared_ptr<const api::Node>;

inline constexpr std::int64_t kMaxNodeScore = 100;
inline constexpr std::int64_t kMinNodeScore = 0;
inline constexpr std::int64_t kDefaultMilliCPURequest = 100;               // 0.1 core
inline constexpr std::int64_t kDefaultMemoryRequest = 200LL * 1024 * 1024;  // 200 MiB

// Resources in scheduler units: CPU in millicores, everything else in value units.
struct Resource {
  std::int64_t milliCPU = 0;
  std::int64_t memory = 0;
  std::int64_t ephemeralStorage = 0;
  std::int64_t allowedPodNumber = 0;  // from allocatable "pods"
  api::FlatMap<std::int64_t> scalarResources;  // extended resources, hugepages-*, attachable-volumes-*

  void add(const api::ResourceList& rl);
  void add(const Resource& r);
  void sub(const Resource& r);
  void set_max(const Resource& r);  // per-resource max
  std::int64_t get(std::string_view name) const;  // "cpu" -> milliCPU, "memory", "ephemeral-storage", "pods", scalar
  static Resource from(const api::ResourceList& rl);
  bool operator==(const Resource&) const = default;
};

// Whether a resource name is tracked in Resource::scalarResources (extended resources,
// hugepages-*, attachable-volumes-*, kubernetes.io/-prefixed native names).
bool is_scalar_resource_name(std::string_view name);

// Pod requests as upstream's PodRequests (init containers, restartable sidecars, pod-level
// requests when the PodLevelResources gate is on, overhead). non_zero applies the scoring
// defaults (100m CPU / 200Mi memory) to containers lacking them, as upstream's
// resourceAllocationScorer does (pod-level requests still replace the sums they name).
Resource compute_pod_requests(const api::Pod& pod, bool non_zero = false);

// What a PodInfo caches (upstream PodInfo.CalculateResource): the requests, and the non-zero
// requests whose cpu and memory a NodeInfo sums. With pod-level requests, a default applies only
// to a resource that neither the pod level nor any container requests.
struct PodRequests {
  Resource requests;
  Resource nonZero;
};
PodRequests compute_pod_info_requests(const api::Pod& pod);

// Upstream resourcehelper: the resources a pod may set at pod level (cpu, memory, hugepages-*),
// and whether it sets any in spec.resources.requests (IsPodLevelRequestsSet) or in requests or
// limits (IsPodLevelResourcesSet). These read the pod only, not the gate.
bool is_supported_pod_level_resource(std::string_view name);
bool has_pod_level_requests(const api::Pod& pod);
bool has_pod_level_resources(const api::Pod& pod);

// A pod (anti-)affinity term with its selectors parsed once.
struct AffinityTerm {
  std::set<std::string, std::less<>> namespaces;
  labels::Selector selector;
  std::string topologyKey;
  labels::Selector namespaceSelector;  // "nothing" when absent
  // Upstream AffinityTerm.Matches: namespace in set or namespace labels match the selector,
  // and the pod's labels match.
  bool matches(const api::Pod& pod, const api::StringMap* namespace_labels) const;
};

struct WeightedAffinityTerm {
  AffinityTerm term;
  std::int32_t weight = 0;
};

// PodInfo: immutable pod + pre-parsed data, shared between the queue, cache and snapshot.
struct PodInfo {
  PodPtr pod;
  std::vector<AffinityTerm> requiredAffinityTerms;
  std::vector<AffinityTerm> requiredAntiAffinityTerms;
  std::vector<WeightedAffinityTerm> preferredAffinityTerms;
  std::vector<WeightedAffinityTerm> preferredAntiAffinityTerms;
  Resource requests;          // compute_pod_info_requests(pod).requests
  Resource nonZeroRequests;   // compute_pod_info_requests(pod).nonZero (cpu and memory are read)
  std::string parseError;     // non-empty when a selector failed to parse

  static std::shared_ptr<const PodInfo> make(PodPtr pod);
};
using PodInfoPtr = std::shared_ptr<const PodInfo>;

// The PodGroup a queued pod belongs to, as the queue orders it. Upstream's newest queue queues a
// PodGroup as one entity (QueuedPodGroupInfo: the PodGroup's priority, its own timestamp and backoff);
// ksched keeps queuing the members one by one and has them share this record, so that the queue sort
// and the backoff read the group's values. Made by the queue for pods naming a PodGroup (only with
// GangScheduling), shared by the group's queued and in-flight members, written only under the
// queue's lock.
struct QueuedGroupInfo {
  std::uint64_t seq = 0;       // creation order: breaks a tie between two groups
  std::int32_t priority = 0;   // the PodGroup's spec.priority, 0 when unset
  bool priorityKnown = false;  // false while the PodGroup is not known (priority is then 0)
  // The first member's enqueue time; set again when the group comes back after a failed cycle.
  std::chrono::steady_clock::time_point timestamp;
  // The group's backoff (upstream counts a group's attempts, not its members'): one failed cycle is
  // one count, an unschedulable one if any member was rejected by a plugin, else an error.
  int unschedulableCount = 0;
  int consecutiveErrorsCount = 0;
  std::optional<std::chrono::steady_clock::time_point> backoffExpiration;
  // Whether a member's requeue has already recorded the cycle that popped the group last, and
  // whether it counted that cycle as an error (a later member rejected by a plugin turns it into an
  // unschedulable attempt, which resets the error count, as upstream).
  bool requeuedSincePop = true;
  bool cycleCountedAsError = false;
};

// A pod waiting in the scheduling queue.
struct QueuedPodInfo {
  PodInfoPtr podInfo;
  std::chrono::steady_clock::time_point timestamp;                 // last enqueue
  std::optional<std::chrono::steady_clock::time_point> initialAttemptTimestamp;
  int attempts = 0;
  // Backoff counts (v1.33+): failures with a rejecting plugin, and consecutive failures without
  // one (errors); the latter, when non-zero, decides the backoff. Set when the pod is requeued.
  int unschedulableCount = 0;
  int consecutiveErrorsCount = 0;
  // When the backoff ends (aligned to the backoff queue's 1 s ordering window), computed on first
  // use after a requeue and cached, so two pods in the same window compare by priority.
  std::optional<std::chrono::steady_clock::time_point> backoffExpiration;
  std::set<std::string> unschedulablePlugins;
  std::set<std::string> pendingPlugins;
  bool gated = false;
  // The pod's PodGroup as the queue orders it; null for a pod naming none (and without GangScheduling).
  std::shared_ptr<QueuedGroupInfo> group;
  const api::Pod& pod() const { return *podInfo->pod; }
};

// PrioritySort's order (upstream's newest Less on QueuedEntityInfo): higher priority first, then the
// earlier timestamp, where a PodGroup member counts with its group's priority and timestamp (so a
// group is one entity among plain pods), two groups that still tie by their creation order, and two
// members of one group by their own pod's priority and enqueue time (the order the cycle tries them).
// A strict weak order: entities compare by (priority, timestamp, group), members within one by their own.
bool priority_sort_less(const QueuedPodInfo& a, const QueuedPodInfo& b);

struct ImageStateSummary {
  std::int64_t size = 0;
  int numNodes = 0;
};

// Host ports in use on a node: ip -> set of (protocol, port).
class HostPortInfo {
 public:
  void add(std::string ip, std::string protocol, std::int32_t port);
  void remove(std::string ip, std::string protocol, std::int32_t port);
  // Upstream CheckConflict: 0.0.0.0 conflicts with any IP on the same protocol/port.
  bool check_conflict(std::string ip, std::string protocol, std::int32_t port) const;
  std::size_t size() const;

 private:
  std::map<std::string, std::set<std::pair<std::string, std::int32_t>>> ports_;
};

inline constexpr std::string_view kLabelHostname = "kubernetes.io/hostname";

// NodeInfo: a node plus aggregated information about the pods on it.
class NodeInfo {
 public:
  NodeInfo() = default;
  explicit NodeInfo(NodePtr n) { set_node(std::move(n)); }

  const api::Node* node() const { return node_.get(); }
  const NodePtr& node_ptr() const { return node_; }
  const api::CompactString& name() const;  // "" when the node object is gone
  // The same name as a view kept in the NodeInfo: reading it does not touch the Node object. Valid
  // while this NodeInfo (or a clone) holds the node.
  std::string_view name_view() const { return name_view_; }
  // std::hash of the name, made once: selectHost ranks tied nodes by it every cycle (tie_break_rank).
  std::size_t name_hash() const { return name_hash_; }
  // Copies of the node's spec.unschedulable and whether it has taints, kept beside the resources
  // that Filter reads anyway: for the common untainted, schedulable node, the plugins that ask
  // need not touch the Node object (a cache miss per node per cycle on a large cluster).
  bool unschedulable() const { return unschedulable_; }
  bool has_taints() const { return has_taints_; }
  // The node's kubernetes.io/hostname label (kLabelHostname), the usual topology key of pod
  // anti-affinity, with its hash: counts by topology domain are read for every node of a cycle,
  // and this spares them a search of the node's labels. data() == nullptr: no such label.
  std::string_view hostname_label() const { return hostname_label_; }
  std::size_t hostname_label_hash() const { return hostname_label_hash_; }
  // The node's place in its snapshot's list() (set by the snapshot; copies keep it), so that
  // counts kept by node can be read from a flat array (NodeInfoLister::hostnames_by_position).
  // kNoPosition outside a snapshot that sets it.
  static constexpr std::uint32_t kNoPosition = UINT32_MAX;
  std::uint32_t list_position() const { return list_position_; }
  void set_list_position(std::uint32_t p) { list_position_ = p; }
  void set_node(NodePtr n);
  void remove_node();  // drops the node object, keeps pods; bumps generation

  void add_pod(PodInfoPtr p);
  // Returns false when the pod (by uid) is not on this node.
  bool remove_pod(const api::Pod& pod);

  std::shared_ptr<NodeInfo> clone() const;

  std::vector<PodInfoPtr> pods;
  std::vector<PodInfoPtr> podsWithAffinity;
  std::vector<PodInfoPtr> podsWithRequiredAntiAffinity;
  HostPortInfo usedPorts;
  Resource requested;
  Resource nonZeroRequested;
  Resource allocatable;
  api::FlatMap<ImageStateSummary> imageStates;  // image name -> summary (set by the cache)
  api::FlatMap<int> pvcRefCounts;               // "ns/claim" -> pods using it
  std::int64_t generation = 0;

 private:
  NodePtr node_;
  std::string_view name_view_;
  std::size_t name_hash_ = 0;
  std::string_view hostname_label_;
  std::size_t hostname_label_hash_ = 0;
  std::uint32_t list_position_ = kNoPosition;
  bool unschedulable_ = false;
  bool has_taints_ = false;
};
using NodeInfoPtr = std::shared_ptr<NodeInfo>;

// Process-wide increasing counter stamped on every NodeInfo mutation (upstream nextGeneration).
std::int64_t next_generation();

// Snapshot listers (pkg/scheduler/framework/listers.go).
class NodeInfoLister {
 public:
  virtual ~NodeInfoLister() = default;
  virtual const std::vector<NodeInfoPtr>& list() const = 0;
  // The nodes of list() whose podsWithAffinity (podsWithRequiredAntiAffinity) is not empty.
  virtual const std::vector<NodeInfoPtr>& have_pods_with_affinity_list() const = 0;
  virtual const std::vector<NodeInfoPtr>& have_pods_with_required_anti_affinity_list() const = 0;
  virtual NodeInfoPtr get(std::string_view node_name) const = 0;  // nullptr if absent
  // Whether list()[i]->list_position() == i for every node and no two nodes share a
  // kubernetes.io/hostname label value: a count by hostname is then a count by position.
  virtual bool hostnames_by_position() const { return false; }

  // For results kept across scheduling cycles and updated per changed node. A version names the
  // lister's content; `changed_since` gives the NodeInfos whose pods changed after version `v`, or
  // false when it cannot tell (another lister, a node added, removed or replaced, history
  // trimmed): the caller then recomputes from scratch. Only a changed node can have entered or
  // left the affinity lists. Listers that keep no history (the default) always say false.
  struct Version {
    std::uint64_t lister = 0;  // 0: a lister without history
    std::int64_t generation = 0;
    bool operator==(const Version&) const = default;
  };
  virtual Version version() const { return {}; }
  virtual bool changed_since(Version /*v*/, std::vector<const NodeInfo*>& /*out*/) const { return false; }
};
class StorageInfoLister {
 public:
  virtual ~StorageInfoLister() = default;
  virtual bool is_pvc_used_by_pods(std::string_view key) const = 0;  // "ns/claim"
};

// Node names in scores are views of the NodeInfo's own name: a cycle's NodeInfos outlive its
// score lists, and copying a name per node per plugin was the largest single cost of scoring.
struct NodeScore {
  std::string_view name;
  std::int64_t score = 0;
};
using NodeScoreList = std::vector<NodeScore>;

struct NodePluginScores {
  std::string_view name;  // as NodeScore::name
  // plugin (or extender) -> weighted score. Views of names owned by the framework's plugins and the
  // scheduler's extenders, which outlive every cycle: no string is built per node per plugin.
  std::vector<std::pair<std::string_view, std::int64_t>> scores;
  std::int64_t totalScore = 0;
};

// Node name -> status of the filter that rejected it, plus a shared status for nodes that were
// never evaluated (upstream NodeToStatus with its "absent nodes" status). Hashed, not ordered: a
// failed cycle on a large cluster records thousands, and nothing reads them in name order.
// Each rejected node's Status, in the order they were set. A cycle may record thousands, so the
// names are packed into one buffer and indexed by an open-addressing table: no allocation per node.
class NodeToStatus {
 public:
  void set(std::string_view node, Status s);
  void reserve(std::size_t n);
  const Status* get(std::string_view node) const;
  Status get_or_absent(std::string_view node) const {
    auto* s = get(node);
    return s ? *s : absent_;
  }
  void set_absent(Status s) { absent_ = std::move(s); }
  const Status& absent() const { return absent_; }
  std::size_t size() const { return entries_.size(); }
  // Calls fn(node, status) for every recorded node, in the order they were first set.
  template <class F>
  void for_each(F&& fn) const {
    for (const auto& e : entries_) fn(std::string_view(names_).substr(e.name_at, e.name_size), e.status);
  }

 private:
  struct Entry {
    std::uint32_t name_at = 0;
    std::uint32_t name_size = 0;
    std::size_t hash = 0;
    Status status;
  };
  std::string_view name_of(const Entry& e) const { return std::string_view(names_).substr(e.name_at, e.name_size); }
  // Slot of `node` in slots_, or of the free slot that ends its probe.
  std::size_t probe(std::string_view node, std::size_t hash) const;
  void rehash(std::size_t size);  // size: a power of two above twice the entries

  std::string names_;
  std::vector<Entry> entries_;
  std::vector<std::uint32_t> slots_;  // entry index + 1; 0: free. Power-of-two size, at most half used.
  Status absent_{Code::UnschedulableAndUnresolvable};
};

struct Diagnosis {
  NodeToStatus nodeToStatus;
  std::set<std::string> unschedulablePlugins;
  std::set<std::string> pendingPlugins;
  std::string preFilterMsg;
  std::string postFilterMsg;
  // Upstream AddPluginStatus: remembers the plugin of a rejection (Pending ones apart), which
  // decides the cluster events that may requeue the pod.
  void add_plugin_status(const Status& s);
};

// FitError: "0/N nodes are available: ..." (see error() for upstream's exact format).
struct FitError {
  PodPtr pod;
  int numAllNodes = 0;
  Diagnosis diagnosis;
  std::string error() const;
  // A rejection on the chosen node (Reserve, Permit, WaitOnPermit, PreBind, Bind), as a FitError
  // over that one node.
  static FitError on_node(PodPtr pod, const std::string& node, const Status& s);
};

// ---------------------------------------------------------------- cluster events and queueing hints
enum class EventResource : std::uint8_t {
  Pod, AssignedPod, UnscheduledPod, Node, PersistentVolume, PersistentVolumeClaim, CSINode, CSIDriver,
  CSIStorageCapacity, StorageClass, ResourceClaim, ResourceSlice, DeviceClass, Workload, PodGroup, WildCard
};
enum ActionType : std::uint32_t {
  kAdd = 1u << 0,
  kDelete = 1u << 1,
  kUpdateNodeAllocatable = 1u << 2,
  kUpdateNodeLabel = 1u << 3,
  kUpdateNodeTaint = 1u << 4,
  kUpdateNodeCondition = 1u << 5,
  kUpdateNodeAnnotation = 1u << 6,
  kUpdatePodLabel = 1u << 7,
  kUpdatePodScaleDown = 1u << 8,
  kUpdatePodTolerations = 1u << 9,
  kUpdatePodSchedulingGatesEliminated = 1u << 10,
  kUpdatePodGeneratedResourceClaim = 1u << 11,
  kUpdateOther = 1u << 12,  // any other update of the resource
  kUpdateNodeDeclaredFeature = 1u << 13,  // node.status.declaredFeatures (gate NodeDeclaredFeatures)
  kUpdate = kUpdateNodeAllocatable | kUpdateNodeLabel | kUpdateNodeTaint | kUpdateNodeCondition |
            kUpdateNodeAnnotation | kUpdateNodeDeclaredFeature | kUpdatePodLabel | kUpdatePodScaleDown | kUpdatePodTolerations |
            kUpdatePodSchedulingGatesEliminated | kUpdatePodGeneratedResourceClaim | kUpdateOther,
  kAll = kAdd | kDelete | kUpdate,
};

struct ClusterEvent {
  EventResource resource = EventResource::WildCard;
  std::uint32_t actionType = kAll;
  std::string label;  // for metrics/logs, e.g. "NodeAdd", "AssignedPodDelete"
  bool is_wildcard() const { return resource == EventResource::WildCard && actionType == kAll; }
  // Whether a registration `this` is interested in the concrete event `e`.
  bool match(const ClusterEvent& e) const;
};

enum class QueueingHint { Skip, Queue };

// Hint callback: old/new objects are type-erased (api::Pod / api::Node / ... as shared_ptr<const void>).
using QueueingHintFn = std::function<QueueingHint(const api::Pod& pod, const std::shared_ptr<const void>& oldObj,
                                                  const std::shared_ptr<const void>& newObj)>;
struct ClusterEventWithHint {
  ClusterEvent event;
  QueueingHintFn hint;  // empty = always Queue
};

}  // namespace ksched::scheduler::framework
