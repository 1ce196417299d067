// Plugin extension points and the Handle plugins use to reach the framework and the cluster
// (pkg/scheduler/framework/interface.go). One framework instance per profile.
//
// Threads, for every plugin: one plugin object serves every pod of its profile for the
// scheduler's life. The scheduling cycle (PreFilter to Permit) runs on one scheduling thread, a
// pod at a time, but Filter and Score fan out over a pool, and binding cycles (WaitOnPermit to
// PostBind) run on binding workers, several pods at once and alongside the next scheduling
// cycles. What belongs to one pod's attempt goes in its CycleState; what a plugin keeps across
// pods it must guard itself.
#pragma once
#include <any>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/helpers.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/signature.h"
#include "scheduler/framework/status.h"
#include "scheduler/framework/types.h"
#include "util/result.h"
#include "util/stop_signal.h"

namespace ksched::api {
struct Namespace;
struct Service;
struct ReplicationController;
struct ReplicaSet;
struct StatefulSet;
struct PodDisruptionBudget;
struct PersistentVolume;
struct PersistentVolumeClaim;
struct StorageClass;
struct CSINode;
struct CSIDriver;
struct CSIStorageCapacity;
namespace resourcev1 {
struct ResourceClaim;
}
namespace schedulingv1beta1 {
struct PodGroup;
}
namespace schedulingv1alpha3 {
struct CompositePodGroup;
}
}  // namespace ksched::api

namespace ksched::scheduler::dra {
class Manager;  // scheduler/dra/manager.h
}
namespace ksched::scheduler::podgroup {
class Manager;  // scheduler/podgroup/manager.h
}

namespace ksched::scheduler::framework {

class Handle;
class Extender;  // scheduler/framework/extender.h

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string_view name() const = 0;
};

class PreEnqueuePlugin : public virtual Plugin {
 public:
  // Called by the queue before a pod enters activeQ or backoffQ (from event handlers and
  // requeues, inside the queue's lock): Success lets it in, a rejection keeps it gated until an
  // event it registered moves it again. Must be cheap: no API calls, no waiting.
  virtual Status pre_enqueue(const api::Pod& pod) = 0;
};

class QueueSortPlugin : public virtual Plugin {
 public:
  // Orders activeQ (inside the queue's lock): a strict weak ordering, stable for a pod while it
  // is queued. Only one QueueSort plugin is enabled, and every profile must use the same.
  virtual bool less(const QueuedPodInfo& a, const QueuedPodInfo& b) const = 0;
};

// Events after which a pod rejected by this plugin may become schedulable. Every plugin that can
// reject a pod (PreEnqueue, PreFilter, Filter, Reserve, Permit) should say: one that does not is
// given the wildcard event, so its pods are retried after any change. Asked once, at start-up;
// the answer must not depend on the cluster. An empty list means its pods wait for the periodic
// flush of unschedulable pods.
class EnqueueExtensions : public virtual Plugin {
 public:
  virtual std::vector<ClusterEventWithHint> events_to_register() const = 0;
};

// Node subset from PreFilter: nullopt = all nodes.
struct PreFilterResult {
  std::optional<std::set<std::string>> nodeNames;
  bool all_nodes() const { return !nodeNames.has_value(); }
  // Intersection (upstream Merge).
  PreFilterResult merge(const PreFilterResult& other) const;
};

// Incremental updates of what a plugin's PreFilter computed, for "what if this pod were (not) on
// that node": nominated pods in Filter and preemption's dry runs. Called only after the plugin's
// PreFilter succeeded for the pod, possibly on a clone of the cycle state, possibly several times
// before the next Filter on a node, and concurrently on different clones (preemption tries
// candidate nodes in parallel). Never called when the plugin's PreFilter returned Skip.
class PreFilterExtensions {
 public:
  virtual ~PreFilterExtensions() = default;
  virtual Status add_pod(CycleState& state, const api::Pod& pod_to_schedule, const PodInfoPtr& pod_to_add,
                         const NodeInfo& node_info) = 0;
  virtual Status remove_pod(CycleState& state, const api::Pod& pod_to_schedule, const PodInfoPtr& pod_to_remove,
                            const NodeInfo& node_info) = 0;
};

class PreFilterPlugin : public virtual Plugin {
 public:
  // Called once per scheduling attempt on the scheduling thread, before any Filter, with the
  // snapshot's nodes; writes what Filter will read into `state` (the batch path and explain may
  // run it again on the same state, so it must overwrite, not accumulate). Returns:
  //  - Success, optionally narrowing `result` to the nodes worth filtering (the others count as
  //    UnschedulableAndUnresolvable, out of preemption's reach);
  //  - Skip: this plugin's Filter and PreFilterExtensions do not run for this pod;
  //  - a rejection: the pod fits no node (PostFilter still runs);
  //  - Error: the attempt ends and the pod is retried after backoff.
  // A PreFilter plugin should also implement SignPlugin, or its profile never batches.
  virtual Status pre_filter(CycleState& state, const api::Pod& pod, const std::vector<NodeInfoPtr>& nodes,
                            PreFilterResult& result) = 0;
  // The plugin's PreFilterExtensions, or nullptr when what it computed does not depend on other
  // pods.
  virtual PreFilterExtensions* pre_filter_extensions() { return nullptr; }
};

// A cycle's cheap test that a Filter plugin rejects a node (FilterPlugin::quick_reject): a plain
// function over data the plugin resolved once for the cycle, so that a node visit makes no
// virtual call and no CycleState lookup.
struct QuickReject {
  bool (*rejects)(const void* data, const NodeInfo& node) = nullptr;
  const void* data = nullptr;
  // Optional: the same test for the node at `position` of the snapshot's list (its
  // NodeInfo::list_position), answered without reading the NodeInfo: a rejected node then costs
  // no cache miss on its NodeInfo. Used while the walk is over that list.
  bool (*rejects_at)(const void* data, std::uint32_t position) = nullptr;
  explicit operator bool() const { return rejects != nullptr; }
};

class FilterPlugin : public virtual Plugin {
 public:
  // Whether the pod fits `node_info`: Success, or a rejection (Unschedulable: preemption may
  // help; UnschedulableAndUnresolvable: it cannot), or Error, which ends the attempt. Called
  // concurrently for different nodes, so it must not write shared state; it reads `node_info`,
  // never the snapshot's copy of that node (preemption passes modified copies). It may be called
  // several times per node and attempt (nominated pods, preemption's dry runs).
  virtual Status filter(const CycleState& state, const api::Pod& pod, const NodeInfo& node_info) = 0;

  // Optional, asked once per scheduling cycle after PreFilter: a test that is true only for nodes
  // that filter(state, pod, node) rejects, at a fraction of a Filter visit's cost. The scheduler
  // asks it first on each node and passes over the nodes it rejects without running any Filter
  // plugin; their exact statuses (the first rejecting plugin in the configured order) are worked
  // out only when a diagnosis needs them. It must stay valid while `state` is not written, and may
  // say false whenever it is unsure.
  virtual QuickReject quick_reject(const CycleState& /*state*/, const api::Pod& /*pod*/) const { return {}; }
  // Whether filter() can return an Error for some nodes and not others. A quick rejection by a
  // later plugin skips this one on the nodes it rejects, which must not hide such an error.
  virtual bool filter_error_depends_on_node() const { return true; }
};

struct NominatingInfo {
  enum class Mode { Noop, Override } mode = Mode::Noop;
  std::string nominatedNodeName;
  // Clears the pod's nominated node (upstream clearNominatedNode).
  static NominatingInfo cleared() { return {Mode::Override, ""}; }
};
struct PostFilterResult {
  NominatingInfo nominatingInfo;
};

class PostFilterPlugin : public virtual Plugin {
 public:
  // Called on the scheduling thread when PreFilter or Filter left the pod no node, with every
  // node's status (`filtered`; nodes may all be UnschedulableAndUnresolvable, which a preemption
  // plugin must skip itself). Plugins run in order until one returns Success (or
  // UnschedulableAndUnresolvable, which stops the rest). Returns Success when it made the pod
  // schedulable later (a preemption sets `result.nominatingInfo`, which the scheduler writes to
  // the pod's status), Unschedulable when it could not, Error on failure.
  // Its message becomes part of the pod's FailedScheduling reason. Either way this attempt fails.
  virtual Status post_filter(CycleState& state, const api::Pod& pod, const NodeToStatus& filtered,
                             PostFilterResult& result) = 0;
};

class PreScorePlugin : public virtual Plugin {
 public:
  // Called on the scheduling thread with the nodes that passed Filter, when there is more than
  // one: what Score reads goes into `state`. Skip: this plugin's Score does not run for this pod.
  // Any other failure ends the attempt.
  virtual Status pre_score(CycleState& state, const api::Pod& pod, const std::vector<NodeInfoPtr>& nodes) = 0;
};

class ScorePlugin : public virtual Plugin {
 public:
  // Ranks one feasible node; called concurrently for different nodes, so it must not write
  // shared state. Must return Success (anything else ends the attempt) and, unless the plugin
  // normalizes, a score in [kMinNodeScore, kMaxNodeScore]. normalize_score then runs once over
  // every node's score, on the scheduling thread; the profile's weight is applied after it.
  virtual Status score(const CycleState& state, const api::Pod& pod, const NodeInfo& node_info,
                       std::int64_t& score) = 0;
  virtual bool has_normalize_score() const { return false; }
  virtual Status normalize_score(const CycleState& /*state*/, const api::Pod& /*pod*/, NodeScoreList& /*scores*/) {
    return {};
  }
  // True only when, for this pod, score() gives 0 on every node and normalize_score keeps zeros:
  // the framework then skips both, as for a PreScore Skip (same totals, none of the per-node
  // calls). Asked on the scheduling thread after PreScore. Not an extension point of upstream's:
  // a plugin without PreScore (DynamicResources) keeps upstream's extension points this way.
  virtual bool scores_nothing(const CycleState& /*state*/, const api::Pod& /*pod*/) const { return false; }
};

// Opportunistic batching (KEP-5598): a PreFilter, Filter, PreScore or Score plugin adds what of the
// pod it reads to the signature, or marks the pod unsignable. A profile with such a plugin that
// does not implement this never batches.
class SignPlugin : public virtual Plugin {
 public:
  virtual void sign_pod(const api::Pod& pod, PodSignature& signature) const = 0;
};

class ReservePlugin : public virtual Plugin {
 public:
  // Called on the scheduling thread once the pod is assumed on `node_name` in the scheduler's
  // cache: the place to claim what the plugin hands out per node (volumes, devices) before the
  // next pod is scheduled. A failure (a rejection, or Error) ends the attempt, and every Reserve
  // plugin's unreserve runs.
  virtual Status reserve(CycleState& state, const api::Pod& pod, const std::string& node_name) = 0;
  // Undoes reserve when the pod will not be bound there: a later Reserve or Permit plugin
  // failed (on the scheduling thread), or WaitOnPermit, PreBind or Bind failed (on a binding
  // worker). Runs for every Reserve plugin, in reverse order, so it may be called without this
  // plugin's reserve having run for the pod, and must be idempotent. It cannot fail.
  virtual void unreserve(CycleState& state, const api::Pod& pod, const std::string& node_name) = 0;
};

class PermitPlugin : public virtual Plugin {
 public:
  // Called on the scheduling thread after Reserve: Success lets the pod go on to binding; Wait
  // with a `timeout` (at most 15 minutes) parks it as a WaitingPod, and its binding worker
  // waits until every waiting plugin allowed it, one rejected it or the time ran out (a
  // rejection); a rejection or Error ends the attempt (Unreserve runs). Another plugin or
  // thread may allow or reject a waiting pod through Handle::get_waiting_pod.
  virtual Status permit(CycleState& state, const api::Pod& pod, const std::string& node_name,
                        std::chrono::milliseconds& timeout) = 0;
};

// How far a pod-group cycle got (upstream v1.36+ framework.PlacementProgress): members still to
// try, and members placed (assigned before the cycle, or assumed in it).
struct PlacementProgress {
  int remaining = 0;
  int scheduled = 0;
};

class PlacementFeasiblePlugin : public virtual Plugin {
 public:
  // Asked by the pod-group cycle (Scheduler::schedule_pod_group) before the first member and after
  // each (upstream v1.36+ PlacementFeasible): Success, the group's constraints are met; Wait, they
  // may be once more members are tried; Unschedulable, they cannot be, stop now. `member` is one
  // of the group's pods (the plugin finds the group through it). Every instantiated plugin that
  // implements this runs, in name order (ksched: not a configurable extension point yet).
  virtual Status placement_feasible(const api::Pod& member, const PlacementProgress& progress) = 0;
};

// ---------------------------------------------------------------- placements (KEP-5732)
// The pod-group cycle's topology-aware placement (upstream v1.36+ framework/interface.go and
// types.go, TopologyAwareWorkloadScheduling, alpha): PlacementGenerate plugins split the nodes into
// candidate placements, the group is tried in each, and PlacementScore plugins rank the ones where
// it is feasible. Only the scheduling thread calls these, during one group's cycle.

// A candidate set of nodes for a pod group (upstream fwk.Placement). `name` identifies it in
// messages and logs (TopologyPlacement: the domain's label value).
//
// The node list is shared and read-only: a placement that keeps its parent's nodes (a group
// without a topology constraint, or whose one domain is the whole parent) holds the parent's list
// rather than a copy, so a tree's placements cost the domains cut, not the parent's size at every
// level. Copying a Placement copies a name and a pointer. The cycle's root placement views the
// snapshot's own list (no copy of every node), which a snapshot refresh during the cycle rebuilds
// in place; plugins read a placement only while the cycle runs.
struct Placement {
  using NodeList = std::vector<NodeInfoPtr>;

  Placement() = default;
  // Owns `nodes` (shared by the copies made of it).
  Placement(std::string name, NodeList nodes)
      : name(std::move(name)), node_list(std::make_shared<const NodeList>(std::move(nodes))) {}
  // Shares another placement's list (e.g. `parent.node_list`).
  Placement(std::string name, std::shared_ptr<const NodeList> nodes)
      : name(std::move(name)), node_list(std::move(nodes)) {}

  // The nodes, in the order they were given (empty for a default-made placement).
  const NodeList& nodes() const { return node_list ? *node_list : empty_list(); }
  // Whether both hold the very same list (one was made from the other): then their nodes are
  // equal without comparing them.
  bool shares_nodes_with(const Placement& other) const { return node_list && node_list == other.node_list; }

  std::string name;
  std::shared_ptr<const NodeList> node_list;

 private:
  static const NodeList& empty_list() {
    static const NodeList empty;
    return empty;
  }
};

// The group a placement plugin is asked about (upstream fwk.PodGroupInfo, reduced to what the
// in-tree plugins read). `podGroup` is the v1beta1 PodGroup object, null for a workloadRef group;
// for a CompositePodGroup of a tree (CompositePodGroup gate) `compositePodGroup` is set instead and
// the pods are those of every PodGroup under it.
struct PodGroupInfo {
  std::string ns;
  std::string name;
  std::string key;  // "<ns>/<name>"
  std::shared_ptr<const api::schedulingv1beta1::PodGroup> podGroup;
  std::shared_ptr<const api::schedulingv1alpha3::CompositePodGroup> compositePodGroup;
  std::vector<PodPtr> unscheduledPods;  // the members this cycle tries, in order
  // The nodes of the members placed before this cycle (bound, or assumed and binding), one entry
  // per member: upstream reads them from the snapshot's PodGroupState.
  std::vector<std::string> scheduledNodes;
};

// One member's node in a placement's simulated result (upstream fwk.ProposedAssignment).
struct ProposedAssignment {
  PodPtr pod;
  std::string nodeName;
};

// A feasible placement and where the members went in it (upstream fwk.PodGroupAssignments).
struct PodGroupAssignments {
  const Placement* placement = nullptr;
  std::vector<ProposedAssignment> proposed;
};

// A placement score plugin's result for one placement, before and after normalization.
struct PlacementScore {
  const Placement* placement = nullptr;
  std::int64_t score = 0;
};

class PlacementGeneratePlugin : public virtual Plugin {
 public:
  // The placements of `group` within `parent` (the cycle's root placement holds every node).
  // Appends them to `out`; may append `parent` itself when it has nothing to split by (upstream:
  // no topology constraint). Placements may overlap. A non-success status ends the cycle with it.
  virtual Status generate_placements(const PodGroupInfo& group, const Placement& parent,
                                     std::vector<Placement>& out) = 0;
};

class PlacementScorePlugin : public virtual Plugin {
 public:
  // The score of one feasible placement (upstream ScorePlacement): called only for placements
  // where the group met its minimum. Higher is better; after normalization in [0, 100].
  virtual Status score_placement(const PodGroupInfo& group, const PodGroupAssignments& assignments,
                                 std::int64_t& score) = 0;
  // Upstream PlacementScoreExtensions: rescales every placement's score of this plugin at once.
  virtual bool has_normalize_placement_score() const { return false; }
  virtual Status normalize_placement_score(const PodGroupInfo& /*group*/, std::vector<PlacementScore>& /*scores*/) {
    return {};
  }
};

class PreBindPlugin : public virtual Plugin {
 public:
  // Called on a binding worker after Permit allowed the pod, before Bind; may block (API
  // requests, waiting for a volume). Binding workers run many pods at once and the scheduling
  // thread goes on meanwhile. Anything but Success fails the binding cycle: Unreserve runs and
  // the pod is retried.
  virtual Status pre_bind(CycleState& state, const api::Pod& pod, const std::string& node_name) = 0;
  // True when pre_bind for this pod will return at once, with no request and no wait. Only then
  // may the scheduler run the pod's binding cycle in a batch with others (one slow PreBind would
  // hold up the whole batch).
  virtual bool pre_bind_is_quick(const CycleState& /*state*/, const api::Pod& /*pod*/) const { return false; }
  // Upstream PreBindPreFlight, before Permit's wait and PreBind: Success when pre_bind will do
  // something for the pod on that node, Skip when it will not, Error otherwise (no other code).
  // The binding cycle sets status.nominatedNodeName only when some plugin will work
  // (NominatedNodeNameForExpectation). By default: Skip exactly when pre_bind is quick.
  virtual Status pre_bind_pre_flight(const CycleState& state, const api::Pod& pod, const std::string& /*node_name*/) {
    return pre_bind_is_quick(state, pod) ? Status::skip() : Status();
  }
};

// One pod's binding, as the Bind plugins get it: the pod of a binding cycle and its node.
struct BindItem {
  CycleState* state = nullptr;
  const api::Pod* pod = nullptr;
  const std::string* node_name = nullptr;
};

class BindPlugin : public virtual Plugin {
 public:
  // Binds the pod to the node (upstream Bind). Skip = not this binder's pod: the next Bind
  // plugin is tried. Called on a binding worker, after PreBind; may block.
  virtual Status bind(CycleState& state, const api::Pod& pod, const std::string& node_name) = 0;
  // Binds the pods of binding cycles that run together (see binds_in_batches), one status per
  // item in `out`, each what bind() would have returned for that pod. The default binds them
  // one after another; a binder that can send them together overrides it (DefaultBinder: one
  // pipelined write).
  virtual void bind_all(std::span<const BindItem> items, std::span<Status> out) {
    for (std::size_t i = 0; i < items.size(); ++i) out[i] = bind(*items[i].state, *items[i].pod, *items[i].node_name);
  }
  // Whether bind_all for a batch of pods waits for nothing but the API server's answers. Only
  // then may the scheduler run binding cycles in batches (a slow binder would hold up a batch).
  virtual bool binds_in_batches() const { return false; }
};

class PostBindPlugin : public virtual Plugin {
 public:
  // Called on a binding worker after the pod was bound; informational (clean-up, metrics). It
  // cannot fail, and it holds the worker while it runs.
  virtual void post_bind(CycleState& state, const api::Pod& pod, const std::string& node_name) = 0;
};

// ---------------------------------------------------------------- what plugins reach through the Handle

// Writes to the API server that plugins make (binding, preemption). The scheduler implements it
// over the REST client; tests use an in-memory fake.
class ClusterClient {
 public:
  virtual ~ClusterClient() = default;
  virtual Status bind(const api::Pod& pod, const std::string& node_name) = 0;
  // Several bindings at once; statuses in the same order. A client that can send them together
  // (one pipelined write) overrides this; the default binds one after another.
  struct Binding {
    const api::Pod* pod = nullptr;
    const std::string* node_name = nullptr;
  };
  virtual std::vector<Status> bind_all(const std::vector<Binding>& bindings) {
    std::vector<Status> out;
    out.reserve(bindings.size());
    for (const auto& b : bindings) out.push_back(bind(*b.pod, *b.node_name));
    return out;
  }
  virtual Status delete_pod(const api::Pod& pod) = 0;  // NotFound counts as success
  // Strategic-merge patch of pod status: set/replace one condition and optionally nominatedNodeName.
  virtual Status patch_pod_status(const api::Pod& pod, const std::optional<api::PodCondition>& condition,
                                  const std::optional<std::string>& nominated_node_name) = 0;
  // Event for an object (upstream events.k8s.io/v1 recorder). Never blocks.
  virtual void event(const api::Pod& regarding, const std::string& type, const std::string& reason,
                     const std::string& action, const std::string& note) = 0;
  // Full-object updates (PUT) of a PersistentVolume / PersistentVolumeClaim, used by VolumeBinding's
  // PreBind to set PV.spec.claimRef and the PVC selected-node annotation. Clients without volume
  // support keep these defaults, which fail.
  virtual Status update_pv(const api::PersistentVolume& /*pv*/) {
    return Status::error("updating PersistentVolumes is not supported by this client");
  }
  virtual Status update_pvc(const api::PersistentVolumeClaim& /*pvc*/) {
    return Status::error("updating PersistentVolumeClaims is not supported by this client");
  }
  // ResourceClaims (DynamicResources: PreBind's allocation and reservation, Unreserve, PostFilter's
  // deallocation): a GET, and a PUT of the object or of its status subresource. The answer is the
  // server's copy; `conflict` marks a 409 (stale resourceVersion), after which a caller GETs again.
  struct ClaimAnswer {
    std::shared_ptr<const api::resourcev1::ResourceClaim> claim;
    Status status;
    bool conflict = false;
  };
  virtual ClaimAnswer get_resource_claim(std::string_view /*ns*/, std::string_view /*name*/) {
    return {nullptr, Status::error("reading ResourceClaims is not supported by this client"), false};
  }
  virtual ClaimAnswer update_resource_claim(const api::resourcev1::ResourceClaim& /*claim*/, bool /*status*/) {
    return {nullptr, Status::error("updating ResourceClaims is not supported by this client"), false};
  }
  // DRAExtendedResource: PreBind creates the claim for a pod's extended resources (a POST; the
  // answer is the server's copy, with its generated name), PostFilter and Unreserve delete it, and
  // PreBind records it in the pod's status.extendedResourceClaimStatus (a strategic-merge patch of
  // pods/status).
  virtual ClaimAnswer create_resource_claim(const api::resourcev1::ResourceClaim& /*claim*/) {
    return {nullptr, Status::error("creating ResourceClaims is not supported by this client"), false};
  }
  virtual Status delete_resource_claim(std::string_view /*ns*/, std::string_view /*name*/) {
    return Status::error("deleting ResourceClaims is not supported by this client");
  }
  virtual Status patch_pod_extended_resource_claim_status(
      const api::Pod& /*pod*/, const api::PodExtendedResourceClaimStatus& /*status*/) {
    return Status::error("patching pod status is not supported by this client");
  }
  // The pod-group cycle's outcome on a scheduling.k8s.io/v1beta1 PodGroup: a strategic-merge
  // patch of podgroups/status setting one condition (keyed by type), as the pod's status patch.
  virtual Status patch_pod_group_status(std::string_view /*ns*/, std::string_view /*name*/,
                                        const api::Condition& /*condition*/) {
    return Status::error("patching PodGroup status is not supported by this client");
  }
  // The same for a scheduling.k8s.io/v1alpha3 CompositePodGroup (compositepodgroups/status).
  virtual Status patch_composite_pod_group_status(std::string_view /*ns*/, std::string_view /*name*/,
                                                  const api::Condition& /*condition*/) {
    return Status::error("patching CompositePodGroup status is not supported by this client");
  }
};

// Read access to informer caches for the objects plugins consult. Returned pointers are shared
// and immutable. Missing objects are nullptr / empty lists.
class ClusterLister {
 public:
  virtual ~ClusterLister() = default;
  virtual std::shared_ptr<const api::Namespace> get_namespace(std::string_view name) const = 0;
  virtual std::vector<std::shared_ptr<const api::Namespace>> list_namespaces() const = 0;
  virtual std::vector<std::shared_ptr<const api::Service>> list_services(std::string_view ns) const = 0;
  virtual std::vector<std::shared_ptr<const api::ReplicationController>> list_replication_controllers(
      std::string_view ns) const = 0;
  virtual std::vector<std::shared_ptr<const api::ReplicaSet>> list_replica_sets(std::string_view ns) const = 0;
  virtual std::vector<std::shared_ptr<const api::StatefulSet>> list_stateful_sets(std::string_view ns) const = 0;
  virtual std::vector<std::shared_ptr<const api::PodDisruptionBudget>> list_pdbs(std::string_view ns) const = 0;
  virtual std::shared_ptr<const api::PersistentVolume> get_pv(std::string_view name) const = 0;
  virtual std::vector<std::shared_ptr<const api::PersistentVolume>> list_pvs() const = 0;
  virtual std::shared_ptr<const api::PersistentVolumeClaim> get_pvc(std::string_view ns,
                                                                     std::string_view name) const = 0;
  virtual std::shared_ptr<const api::StorageClass> get_storage_class(std::string_view name) const = 0;
  virtual std::shared_ptr<const api::CSINode> get_csi_node(std::string_view name) const = 0;
  virtual std::shared_ptr<const api::CSIDriver> get_csi_driver(std::string_view name) const = 0;
  virtual std::vector<std::shared_ptr<const api::CSIStorageCapacity>> list_csi_storage_capacities() const = 0;
  // Non-terminal pods known to the informer (for PodTopologySpread defaulting, preemption checks).
  virtual PodPtr get_pod(std::string_view ns, std::string_view name) const = 0;
};

// Runs fn(i) for i in [0, n) on the framework's worker pool (chunked like upstream's
// parallelizer). `stop` lets fn end the loop early (e.g. enough feasible nodes found).
class Parallelizer {
 public:
  virtual ~Parallelizer() = default;
  virtual void until(int n, const std::function<void(int i)>& fn, const std::function<bool()>& stop = {}) = 0;
  // The same work in the same chunks, each handed over whole as [begin, end), so that a caller can
  // tally per chunk instead of sharing a counter per index; fn returns false to stop the job (no
  // chunk starts after that). By default each index is a chunk of its own.
  virtual void chunks(int n, const std::function<bool(int begin, int end)>& fn) {
    std::atomic<bool> stopped{false};
    until(
        n, [&](int i) { if (!fn(i, i + 1)) stopped.store(true); }, [&] { return stopped.load(); });
  }
  virtual int parallelism() const = 0;
};

class WaitingPod {
 public:
  virtual ~WaitingPod() = default;
  virtual const api::Pod& pod() const = 0;
  virtual std::vector<std::string> pending_plugins() const = 0;
  virtual void allow(const std::string& plugin) = 0;
  virtual void reject(const std::string& plugin, const std::string& msg) = 0;
};

class PodNominator {
 public:
  virtual ~PodNominator() = default;
  virtual std::vector<PodInfoPtr> nominated_pods_for_node(std::string_view node_name) const = 0;
  // False only when no pod is nominated anywhere. Filter asks this once per node before it reads
  // the node's name, which is a cache miss per node on a large cluster.
  virtual bool has_nominated_pods() const { return true; }
};

class Handle {
 public:
  virtual ~Handle() = default;
  virtual const NodeInfoLister& snapshot_node_infos() const = 0;
  virtual const StorageInfoLister& snapshot_storage_infos() const = 0;
  virtual ClusterClient& client() = 0;
  virtual const ClusterLister& lister() const = 0;
  virtual Parallelizer& parallelizer() = 0;
  virtual const PodNominator& nominator() const = 0;
  virtual std::string_view profile_name() const = 0;

  // Waiting pods (Permit).
  virtual std::shared_ptr<WaitingPod> get_waiting_pod(std::string_view uid) = 0;
  virtual void iterate_over_waiting_pods(const std::function<void(WaitingPod&)>& fn) = 0;
  virtual void reject_waiting_pod(std::string_view uid) = 0;

  // Plugin runners that preemption needs on hypothetical states.
  virtual Status run_pre_filter_extension_add_pod(CycleState& state, const api::Pod& pod_to_schedule,
                                                  const PodInfoPtr& pod_to_add, const NodeInfo& node_info) = 0;
  virtual Status run_pre_filter_extension_remove_pod(CycleState& state, const api::Pod& pod_to_schedule,
                                                     const PodInfoPtr& pod_to_remove, const NodeInfo& node_info) = 0;
  virtual Status run_filter_plugins(const CycleState& state, const api::Pod& pod, const NodeInfo& node_info) = 0;
  virtual Status run_filter_plugins_with_nominated_pods(CycleState& state, const api::Pod& pod,
                                                        const NodeInfo& node_info) = 0;

  // The scheduler's DRA state (upstream SharedDRAManager); null when no profile enables
  // DynamicResources.
  virtual dra::Manager* dra_manager() const { return nullptr; }
  // The scheduler's pod-group state (workload-aware scheduling); null when none is kept.
  virtual podgroup::Manager* pod_group_manager() const { return nullptr; }

  // scheduler_preemption_victims: called once per preemption that evicted its victims.
  virtual void record_preemption_victims(std::size_t /*victims*/) {}
  // scheduler_preemption_goroutines_{duration_seconds,execution_total}{result="success|error"}:
  // one asynchronous preemption finished (SchedulerAsyncPreemption).
  virtual void record_preemption_goroutine(std::string_view /*result*/, double /*seconds*/) {}
  // Moves the pods from backoffQ or unschedulablePods to activeQ (upstream Handle.Activate); a
  // pod in flight is moved when its attempt ends. Callable from any thread.
  virtual void activate(const std::vector<PodPtr>& /*pods*/) {}
  // Runs `fn` off the calling thread (upstream: a goroutine); the handle's owner waits for it
  // before it stops. A handle that cannot run work in the background runs it at once.
  virtual void run_async(std::function<void()> fn) { fn(); }
  // Set when the scheduler stops (upstream cancels the binding cycles' context): a plugin that
  // waits in its binding cycle (PreBind polls) waits on this and gives up with "context canceled".
  // A handle with no owner that stops never sets it.
  virtual const util::StopSignal& stop_signal() const {
    static const util::StopSignal never;
    return never;
  }

  // The scheduler's extenders, in call order (preemption lets them veto candidates).
  virtual const std::vector<std::shared_ptr<Extender>>& extenders() const {
    static const std::vector<std::shared_ptr<Extender>> none;
    return none;
  }
};

// PodsToActivate (upstream framework.PodsToActivate): a plugin adds pods under this CycleState key
// during Reserve/Permit/PreBind/PostBind to move them from the unschedulable/backoff queues to
// activeQ at the end of a successful scheduling cycle and again after a successful binding cycle
// (e.g. the other members of a gang). Shared by clones of the state.
inline constexpr std::string_view kPodsToActivateKey = "kubernetes.io/pods-to-activate";
class PodsToActivate final : public StateData, public std::enable_shared_from_this<PodsToActivate> {
 public:
  void add(const PodPtr& pod) {
    std::lock_guard l(mu_);
    pods_[api::key_of(*pod)] = pod;
  }
  // Takes the pods added so far.
  std::vector<PodPtr> take() {
    std::lock_guard l(mu_);
    std::vector<PodPtr> out;
    out.reserve(pods_.size());
    for (auto& [k, p] : pods_) out.push_back(std::move(p));
    pods_.clear();
    return out;
  }
  // Upstream's Clone returns the same object: every copy of the cycle state feeds one set.
  std::shared_ptr<StateData> clone() const override {
    return std::const_pointer_cast<PodsToActivate>(shared_from_this());
  }

 private:
  std::mutex mu_;
  std::map<std::string, PodPtr> pods_;
};

// Type-erased plugin args: the runtime stores the typed config args struct (from
// scheduler/config/types.h, e.g. config::NodeResourcesFitArgs) here; a plugin fetches it with as<T>().
struct PluginArgs {
  std::any value;
  template <class T>
  const T* as() const {
    return std::any_cast<T>(&value);
  }
};

using PluginFactory = std::function<util::Result<std::shared_ptr<Plugin>>(const PluginArgs& args, Handle& handle)>;

}  // namespace ksched::scheduler::framework
