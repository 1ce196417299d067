// Plugin extension points and the Handle plugins use to reach the framework and the cluster
// (pkg/scheduler/framework/interface.go). One framework instance per profile.
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
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/signature.h"
#include "scheduler/framework/status.h"
#include "scheduler/framework/types.h"
#include "util/result.h"

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
}  // namespace ksched::api

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
  virtual Status pre_enqueue(const api::Pod& pod) = 0;
};

class QueueSortPlugin : public virtual Plugin {
 public:
  virtual bool less(const QueuedPodInfo& a, const QueuedPodInfo& b) const = 0;
};

// Events after which a pod rejected by this plugin may become schedulable.
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
  virtual Status pre_filter(CycleState& state, const api::Pod& pod, const std::vector<NodeInfoPtr>& nodes,
                            PreFilterResult& result) = 0;
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
  // Called concurrently for different nodes: must not write shared state.
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
};
struct PostFilterResult {
  NominatingInfo nominatingInfo;
};

class PostFilterPlugin : public virtual Plugin {
 public:
  virtual Status post_filter(CycleState& state, const api::Pod& pod, const NodeToStatus& filtered,
                             PostFilterResult& result) = 0;
};

class PreScorePlugin : public virtual Plugin {
 public:
  virtual Status pre_score(CycleState& state, const api::Pod& pod, const std::vector<NodeInfoPtr>& nodes) = 0;
};

class ScorePlugin : public virtual Plugin {
 public:
  // Called concurrently for different nodes.
  virtual Status score(const CycleState& state, const api::Pod& pod, const NodeInfo& node_info,
                       std::int64_t& score) = 0;
  virtual bool has_normalize_score() const { return false; }
  virtual Status normalize_score(const CycleState& /*state*/, const api::Pod& /*pod*/, NodeScoreList& /*scores*/) {
    return {};
  }
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
  virtual Status reserve(CycleState& state, const api::Pod& pod, const std::string& node_name) = 0;
  virtual void unreserve(CycleState& state, const api::Pod& pod, const std::string& node_name) = 0;
};

class PermitPlugin : public virtual Plugin {
 public:
  // Status Wait with a timeout parks the pod until allowed, rejected or timed out.
  virtual Status permit(CycleState& state, const api::Pod& pod, const std::string& node_name,
                        std::chrono::milliseconds& timeout) = 0;
};

class PreBindPlugin : public virtual Plugin {
 public:
  virtual Status pre_bind(CycleState& state, const api::Pod& pod, const std::string& node_name) = 0;
  // True when pre_bind for this pod will return at once, with no request and no wait. Only then
  // may the scheduler run the pod's binding cycle in a batch with others (one slow PreBind would
  // hold up the whole batch).
  virtual bool pre_bind_is_quick(const CycleState& /*state*/, const api::Pod& /*pod*/) const { return false; }
};

class BindPlugin : public virtual Plugin {
 public:
  // Skip = not this binder's pod; the next bind plugin is tried.
  virtual Status bind(CycleState& state, const api::Pod& pod, const std::string& node_name) = 0;
  // A binder whose bind is one ClusterClient::bind and nothing more says so; when it is a
  // profile's only Bind plugin, the framework may bind several pods with one
  // ClusterClient::bind_all and passes each pod's answer to bound_through_client, which must
  // return what bind would have returned on that answer.
  virtual bool binds_through_client() const { return false; }
  virtual Status bound_through_client(Status client_status) const { return client_status; }
};

class PostBindPlugin : public virtual Plugin {
 public:
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

  // scheduler_preemption_victims: called once per preemption that evicted its victims.
  virtual void record_preemption_victims(std::size_t /*victims*/) {}

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
    pods_[pod->metadata.namespace_ + "/" + pod->metadata.name] = pod;
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
