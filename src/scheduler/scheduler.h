// The scheduler proper (upstream pkg/scheduler/scheduler.go, schedule_one.go, eventhandlers.go):
// profiles (one Framework per schedulerName), the scheduling queue, the cache and its snapshot,
// and the two cycles a pod goes through.
//
//   schedule_one.cpp     ScheduleOne: pop a pod, run its scheduling cycle (scheduling_cycle:
//                        the algorithm, PostFilter, assume, Reserve, Permit), hand it to a
//                        binding worker, or to the failure handler.
//   schedule_pod.{h,cpp} the algorithm (SchedulingAlgorithm: snapshot, PreFilter, Filter,
//                        extenders, Score, selectHost), replaceable as upstream's SchedulePod.
//   filter_pass.{h,cpp}  one Filter pass of an attempt, with its rejections.
//   binding_cycle.{h,cpp} the one binding path (BindingCycle): WaitOnPermit, PreBind, Bind for
//                        a batch of pods at once, FinishBinding, PostBind.
//   binding_pool.{h,cpp} the binding workers and their batching.
//   eventhandlers.cpp    informer callbacks: cache updates and queue moves.
//
// Threads: the scheduling cycle runs on one scheduling thread (run()); binding cycles run on the
// binding pool; event handlers may be called from informer threads at any time.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "scheduler/apidispatcher/async_client.h"
#include "scheduler/binding_cycle.h"
#include "scheduler/binding_pool.h"
#include "scheduler/cache/cache.h"
#include "scheduler/config/types.h"
#include "scheduler/dra/manager.h"
#include "scheduler/framework/extender.h"
#include "scheduler/framework/runtime.h"
#include "scheduler/metrics.h"
#include "scheduler/podgroup/manager.h"
#include "scheduler/queue/scheduling_queue.h"
#include "scheduler/schedule_pod.h"
#include "util/clock.h"
#include "util/result.h"
#include "util/stop_signal.h"

namespace ksched::informer {
template <class T>
class ResourceEventHandler;
}  // namespace ksched::informer
namespace ksched::scheduler::podgroup {
struct PodGroupMetrics;  // scheduler/podgroup/metrics.h
struct PlacementMetrics;  // scheduler/podgroup/metrics.h
}  // namespace ksched::scheduler::podgroup

namespace ksched::scheduler {

inline constexpr std::size_t kNoteLengthLimit = 1024;  // events.k8s.io note limit

// Upstream truncateMessage: longer than 1024 bytes → first 1020 bytes + " ...".
std::string truncate_message(const std::string& msg);

// Node update → the ClusterEvents it represents, in upstream order.
std::vector<framework::ClusterEvent> node_scheduling_property_change(const api::Node& new_node,
                                                                     const api::Node& old_node);

struct SchedulerOptions {
  util::Clock* clock = &util::RealClock::instance();
  bool pop_from_backoff_q = true;  // SchedulerPopFromBackoffQ (beta, on since v1.33)
  // Concurrent binding cycles (upstream: a goroutine each, unbounded). Their bind requests share
  // pipelined connections, so more at once make bigger batches: 32 cost 10 % less CPU per pod than
  // 16 at 10,000 pods/s; 48 and 64 cost more again (more threads to wake and keep).
  int binding_workers = 32;
  std::chrono::nanoseconds pod_max_in_unschedulable_pods_duration = std::chrono::minutes(5);
  // Where the scheduler's metrics go (not owned); without one it keeps its own, unexposed.
  metrics::SchedulerMetrics* metrics = nullptr;
  // The pod-group cycle's metrics (not owned; podgroup/metrics.h); without them it records none.
  podgroup::PodGroupMetrics* pod_group_metrics = nullptr;
  // Topology-aware placement's metrics (not owned); without them it records none.
  podgroup::PlacementMetrics* placement_metrics = nullptr;
  // Parallelizer shared by all profiles; default: a thread pool of `parallelism` (tests pass an
  // inline one).
  std::shared_ptr<framework::Parallelizer> parallelizer;
  std::uint64_t seed = 0;  // for selectHost/percentage sampling; 0 = random
  // Share of cycles whose plugins are timed (upstream's pluginMetricsSamplePercent).
  int plugin_metrics_sample_percent = 10;
  // On those cycles, one node visit in this many has its Filter calls timed, each observation
  // counted this many times (framework::FrameworkDeps::filter_timing_stride).
  int filter_timing_stride = 8;
  // Filter plugins' quick rejections (framework::FilterPlugin::quick_reject); off, every node
  // visit runs the Filter plugins in order. Placement is the same either way.
  bool quick_rejection = true;
  // OpportunisticBatching (KEP-5598; beta and on by default upstream since v1.35): see batch.h.
  bool opportunistic_batching = true;
  // Called on the scheduling thread after each cycle's Filter and Score, before the pod is
  // assumed, while the snapshot is still the cycle's: tools that record why a pod went where it
  // went (explain::DecisionLog) look there. `node` is the cycle's choice, empty when none.
  std::function<void(framework::Framework& fwk, const api::Pod& pod, const std::string& node)> cycle_observer;
  // Replaces the scheduling algorithm (upstream's SchedulePod); empty: SchedulingAlgorithm.
  SchedulePodFn schedule_pod;
};

class Scheduler {
 public:
  // `cfg` must be defaulted (config::set_defaults). client/lister must outlive the scheduler.
  static util::Result<std::unique_ptr<Scheduler>> create(const config::KubeSchedulerConfiguration& cfg,
                                                         const framework::Registry& registry,
                                                         framework::ClusterClient& client,
                                                         const framework::ClusterLister& lister,
                                                         SchedulerOptions opts = {});
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // ---- event handlers (informer callbacks; also driven directly by tests)
  // Pods pass two filtered handlers, as upstream's: assigned pods feed the cache, unassigned pods
  // of our profiles the queue; an update that crosses a filter is an add or a delete there.
  // The two as one handler for the pod informer (add_all_event_handlers).
  const std::shared_ptr<informer::ResourceEventHandler<api::Pod>>& pod_event_handler() const { return pod_handler_; }
  void on_pod_add(const framework::PodPtr& pod);
  void on_pod_update(const framework::PodPtr& old_pod, const framework::PodPtr& new_pod);
  void on_pod_delete(const framework::PodPtr& pod);
  void on_node_add(const framework::NodePtr& node);
  void on_node_update(const framework::NodePtr& old_node, const framework::NodePtr& new_node);
  void on_node_delete(const framework::NodePtr& node);
  // scheduling.k8s.io Workloads (only with GangScheduling: they feed the pod-group state, then
  // move the pods GangScheduling holds).
  void on_workload_add(const std::shared_ptr<const api::schedulingv1alpha1::Workload>& w);
  void on_workload_update(const std::shared_ptr<const api::schedulingv1alpha1::Workload>& old_w,
                          const std::shared_ptr<const api::schedulingv1alpha1::Workload>& new_w);
  void on_workload_delete(const std::shared_ptr<const api::schedulingv1alpha1::Workload>& w);
  // scheduling.k8s.io/v1beta1 PodGroups (the same, for pods naming one in spec.schedulingGroup).
  void on_pod_group_add(const std::shared_ptr<const api::schedulingv1beta1::PodGroup>& pg);
  void on_pod_group_update(const std::shared_ptr<const api::schedulingv1beta1::PodGroup>& old_pg,
                           const std::shared_ptr<const api::schedulingv1beta1::PodGroup>& new_pg);
  void on_pod_group_delete(const std::shared_ptr<const api::schedulingv1beta1::PodGroup>& pg);
  // scheduling.k8s.io/v1alpha3 CompositePodGroups (gate CompositePodGroup): the hierarchy state,
  // then a CompositePodGroup/Add or /Update queue move.
  void on_composite_pod_group_add(const std::shared_ptr<const api::schedulingv1alpha3::CompositePodGroup>& cpg);
  void on_composite_pod_group_update(const std::shared_ptr<const api::schedulingv1alpha3::CompositePodGroup>& old_cpg,
                                     const std::shared_ptr<const api::schedulingv1alpha3::CompositePodGroup>& new_cpg);
  void on_composite_pod_group_delete(const std::shared_ptr<const api::schedulingv1alpha3::CompositePodGroup>& cpg);
  // Moves the pods waiting in backoffQ or unschedulablePods that `e` may help (by the events
  // their rejectors registered, and those plugins' queueing hints over the old and new object)
  // to activeQ or backoffQ. Storage and CSI objects only do this.
  void requeue_on(const framework::ClusterEvent& e, std::shared_ptr<const void> old_obj,
                  std::shared_ptr<const void> new_obj);

  // ---- scheduling
  // One pod's scheduling cycle: blocks in Pop. Returns false once the queue is closed.
  bool schedule_one();
  // Like schedule_one but returns false at once when activeQ is empty (tests).
  bool schedule_one_if_pending();
  // queue.run() + a scheduling thread looping schedule_one; stop() closes the queue and joins.
  void run();
  void stop();
  // Blocks until no binding cycle is running (bounded by timeout). True when idle.
  bool wait_for_bindings(std::chrono::milliseconds timeout);
  // With SchedulerAsyncAPICalls: blocks until the dispatcher has no call left (bounded). True at
  // once without the gate (every call was made synchronously).
  bool wait_for_api_calls(std::chrono::milliseconds timeout) {
    return !api_dispatcher_ || api_dispatcher_->wait_idle(timeout);
  }
  // Blocks until the asynchronous preemptions started so far have finished (tests, stop).
  void wait_for_preemptions();

  // Brings the profiles' snapshot up to date with the cache, as a cycle does first. For tools that
  // run extension points outside the loop (explain): only while run() is not looping.
  util::Result<void> refresh_snapshot();

  // ---- the pod-group cycle as a dry run (explain)
  struct PodGroupDryRunMember {
    framework::PodPtr pod;
    bool tried = false;           // false: PlacementFeasible stopped the group before this member
    std::string node;             // where it would go; empty when it was not placed
    framework::Status status;     // its own attempt's (a FitError's message when it fits nowhere)
    std::optional<framework::FitError> fit;
  };
  struct PodGroupDryRun {
    std::vector<PodGroupDryRunMember> members;  // the group's pending members, in the cycle's order
    int scheduled = 0;            // members placed before the cycle: bound, or assumed and binding
    // PlacementFeasible's last verdict: success when the cycle would commit the group, Wait or
    // Unschedulable (upstream's "minCount (4) cannot be satisfied: ...") when it would not.
    framework::Status feasible;
    framework::Status error;      // set when a member's attempt failed with an error
  };
  // What the pod-group cycle would do now for the gang of `pod`, through the cycle's own placement
  // loop (place_group_members): the group's pending members of this profile (unbound, not assumed,
  // not being deleted) in queue order (priority, then creation time, then name in natural order:
  // the queue's own enqueue times are not the pods'), each placed, assumed and reserved so the next sees it, then all
  // undone, nominations restored and the snapshot refreshed. Records no metric and calls no
  // cycle_observer. `on_first_unplaced` is called right after the first member that fits nowhere,
  // while the members before it are still assumed and the snapshot is the one it was tried
  // against. Only while run() is not looping (the inspector).
  util::Result<PodGroupDryRun> dry_run_pod_group(framework::Framework& fwk, const api::Pod& pod,
                                                 const std::function<void(const api::Pod&)>& on_first_unplaced = {});

  // ---- parts
  queue::PriorityQueue& queue() { return *queue_; }
  cache::Cache& cache() { return *cache_; }
  framework::Framework* profile(std::string_view scheduler_name) const;
  const std::map<std::string, std::unique_ptr<framework::Framework>, std::less<>>& profiles() const {
    return profiles_;
  }
  // Configured extenders in call order (ignorable ones last).
  const std::vector<std::shared_ptr<framework::Extender>>& extenders() const { return extenders_; }
  // Whether a pod is ours (its schedulerName names a profile).
  bool responsible_for(const api::Pod& pod) const { return profile(pod.spec.schedulerName) != nullptr; }
  // The DRA state every profile's DynamicResources reads (Handle::dra_manager); fed by the
  // resource.k8s.io informers, which add_all_event_handlers sets up only when uses_dra().
  dra::Manager& dra_manager() { return *dra_; }
  bool uses_dra() const { return uses_dra_; }
  // The pod-group state (workload-aware scheduling); null unless the GangScheduling gate is on.
  podgroup::Manager* pod_group_manager() { return pod_groups_.get(); }

 private:
  class NominatorProxy;

  Scheduler();
  util::Result<void> init(const config::KubeSchedulerConfiguration& cfg, const framework::Registry& registry);
  util::Result<void> init_profiles(const config::KubeSchedulerConfiguration& cfg, const framework::Registry& registry);
  void init_queue(const config::KubeSchedulerConfiguration& cfg);
  void init_pod_handler();

  // ---- the scheduling cycle (schedule_one.cpp)
  // What a scheduling cycle leaves: on success the assumed pod and its node, for the binding
  // cycle; on failure the status (and FitError) for the failure handler, with what the cycle
  // assumed or reserved already undone.
  struct CycleOutcome {
    framework::Status status;
    ScheduleResult result;  // on failure: result.nominatingInfo
    std::optional<framework::FitError> fit;
    queue::QueuedPodInfoPtr pod_info;  // the assumed pod's once assumed, the popped one before
    bool waits_on_permit = false;
  };
  // ScheduleOne after Pop: a cycle, then a binding job or the failure handler.
  void schedule_pod_info(const queue::QueuedPodInfoPtr& pinfo);
  // Hands a scheduled (assumed, reserved, permitted) pod to a binding worker.
  void submit_binding(framework::Framework& fwk, std::shared_ptr<framework::CycleState> state, CycleOutcome cycle,
                      std::chrono::steady_clock::time_point start,
                      std::shared_ptr<framework::PodsToActivate> pods_to_activate);
  // Upstream schedulingCycle.
  CycleOutcome scheduling_cycle(framework::Framework& fwk, framework::CycleState& state,
                                const queue::QueuedPodInfoPtr& pinfo, std::chrono::steady_clock::time_point start,
                                framework::PodsToActivate& pods_to_activate);
  // PostFilter after a FitError: what the pod's nominated node becomes.
  std::optional<framework::NominatingInfo> run_post_filter(framework::Framework& fwk, framework::CycleState& state,
                                                           const api::Pod& pod, framework::FitError& fit);
  bool skip_pod_schedule(const api::Pod& pod);
  // The pod-group cycle (schedule_pod_group.cpp): `first` and the group's other queued members
  // placed together, committed only if the group's PlacementFeasible plugins accept the result.
  void schedule_pod_group(framework::Framework& fwk, const queue::QueuedPodInfoPtr& first, const std::string& group);
  // The cycle's outcome on the PodGroup object `member` names (v1beta1, spec.schedulingGroup;
  // nothing for a workloadRef group): its PodGroupInitiallyScheduled condition, True "Scheduled"
  // on success, else False with reason Unschedulable or SchedulerError and the group's message.
  // Once True it is never changed (upstream: the condition is terminal); an unchanged condition is
  // not written again.
  void write_pod_group_condition(const api::Pod& member, const framework::Status& outcome);
  // CompositePodGroups (gate CompositePodGroup; schedule_composite_pod_group.cpp): the popped
  // member's whole tree under `root` in one cycle. Every PodGroup of the tree is placed as the
  // pod-group cycle places one (its own minCount by PlacementFeasible); a CompositePodGroup is
  // feasible when minGroupCount of its children are (1 for basic), and a composite that is not
  // has its whole subtree undone; the tree is committed only when the root is feasible, else
  // every member goes back Unschedulable with the root's message. Each PodGroup's and
  // CompositePodGroup's InitiallyScheduled condition is written as the plain cycle writes a
  // PodGroup's.
  void schedule_pod_group_tree(framework::Framework& fwk, const queue::QueuedPodInfoPtr& first,
                               const podgroup::HierarchyKey& root);
  void write_composite_pod_group_condition(const podgroup::CompositePodGroupPtr& cpg, const framework::Status& outcome);
  // One member of a pod-group cycle and what its attempt left.
  struct GroupMember {
    queue::QueuedPodInfoPtr popped;  // as the queue gave it
    std::shared_ptr<framework::CycleState> state;
    std::shared_ptr<framework::PodsToActivate> pods_to_activate;
    ScheduleResult result;
    std::optional<framework::FitError> fit;
    framework::Status status;
    bool tried = false;
    queue::QueuedPodInfoPtr assumed;  // set while the member is assumed and reserved
    std::string dropped_nomination;   // dry run: the nomination its assumption took away
  };
  struct GroupPlacement {
    framework::Status feasible;  // PlacementFeasible's last verdict
    framework::Status error;     // a member's attempt failed with an error: the group stops
  };
  // The cycle's placement loop (upstream podGroupSchedulingDefaultAlgorithm): members in order,
  // each through the algorithm, then assumed and reserved; PlacementFeasible before the first and
  // after each, stopping as soon as it rejects. `dry_run` records no metric, calls no observer and
  // remembers the nominations it drops (undo_group_members gives them back). `after_attempt` is
  // called after each tried member.
  GroupPlacement place_group_members(framework::Framework& fwk, std::vector<GroupMember>& members, int scheduled,
                                     bool dry_run, const std::function<void(const GroupMember&)>& after_attempt = {});
  // Every tentative assumption and reservation undone, last first.
  void undo_group_members(framework::Framework& fwk, std::vector<GroupMember>& members);
  // Commits one assumed member of a placed group: Permit, then its binding cycle; a Permit
  // rejection or error undoes its reservation and requeues it (the caller has nothing left to do).
  void commit_group_member(framework::Framework& fwk, GroupMember& m, std::chrono::steady_clock::time_point start);
  // The topology-aware cycle (upstream podGroupSchedulingPlacementAlgorithm; TopologyAware-
  // WorkloadScheduling, for every group with a PodGroup object): the PlacementGenerate plugins'
  // placements are each tried with place_group_members restricted to their nodes and undone (the
  // one holding the members' nominated nodes first, taken alone when feasible there); the feasible
  // ones (minimum met, a member placed) are ranked by the PlacementScore plugins and the best one
  // is placed again for real, its members left assumed as place_group_members leaves them. A
  // single placement (a group without a constraint gets every node) is placed for real at once.
  // None feasible: nothing assumed, the members' outcomes are the first evaluated placement's and
  // the group's status is upstream's "0/N placements are available, first placement status: ...".
  GroupPlacement place_group_in_placements(framework::Framework& fwk, std::vector<GroupMember>& members,
                                           int scheduled, const framework::PodGroupInfo& info);
  // The group's PodGroupInfo when its cycle is topology-aware (the gate, PlacementGenerate plugins
  // and a PodGroup object); nullopt otherwise: the plain cycle, at the cost of one PodGroup lookup.
  // The index of the best placement by the PlacementScore totals (equal ones by a random draw).
  std::size_t best_placement_score(const std::vector<std::int64_t>& totals);
  // Appends the nodes of `group`'s members placed before this cycle (bound, or assumed and binding).
  void add_scheduled_nodes(framework::PodGroupInfo& info, const std::string& group);
  std::optional<framework::PodGroupInfo> topology_aware_group(const framework::Framework& fwk,
                                                              const api::Pod& first, const std::string& group,
                                                              const std::vector<GroupMember>& members);
  void handle_scheduling_failure(framework::Framework& fwk, const queue::QueuedPodInfoPtr& pinfo,
                                 const framework::Status& status, const std::optional<framework::FitError>& fit,
                                 const std::optional<framework::NominatingInfo>& nominating,
                                 std::chrono::steady_clock::time_point start);
  void init_api_dispatcher(int parallelism);
  void update_pod_status(const api::Pod& pod, const api::PodCondition& cond,
                         const std::optional<framework::NominatingInfo>& nominating);

  // ---- event helpers (eventhandlers.cpp)
  void add_pod_to_cache(const framework::PodPtr& pod);
  void update_pod_in_cache(const framework::PodPtr& old_pod, const framework::PodPtr& new_pod);
  void delete_pod_from_cache(const framework::PodPtr& pod);
  void add_pod_to_queue(const framework::PodPtr& pod);
  void update_pod_in_queue(const framework::PodPtr& old_pod, const framework::PodPtr& new_pod);
  void delete_pod_from_queue(const framework::PodPtr& pod);

  void observe(std::string_view point, const framework::Status& s, const framework::Framework& fwk,
               std::chrono::steady_clock::time_point since) {
    metrics_->extension_point(point, s, fwk.profile_name(), since, clock_->now());
  }

  SchedulerOptions opts_;
  util::Clock* clock_ = nullptr;
  framework::ClusterClient* client_ = nullptr;  // the given client, or async_client_ over it
  // SchedulerAsyncAPICalls: bindings and status patches through the dispatcher (null when off).
  std::unique_ptr<apidispatcher::Dispatcher> api_dispatcher_;
  std::unique_ptr<apidispatcher::AsyncClusterClient> async_client_;
  const framework::ClusterLister* lister_ = nullptr;
  std::vector<std::shared_ptr<framework::Extender>> extenders_;
  std::unique_ptr<metrics::SchedulerRecorder> metrics_;
  int evaluations_collector_ = 0;  // Registry collector id for scheduler_plugin_evaluation_total
  std::unique_ptr<metrics::QueueMetricsAdapter> queue_metrics_;

  std::unique_ptr<NominatorProxy> nominator_proxy_;
  std::map<std::string, std::unique_ptr<framework::Framework>, std::less<>> profiles_;
  std::unique_ptr<dra::Manager> dra_;
  // Set by stop(): binding-cycle waits end (Handle::stop_signal).
  util::StopSignal binding_stop_;
  std::unique_ptr<podgroup::Manager> pod_groups_;  // with GangScheduling only
  bool uses_dra_ = false;  // some profile enables DynamicResources
  std::unique_ptr<queue::PriorityQueue> queue_;
  std::unique_ptr<cache::Cache> cache_;
  std::unique_ptr<cache::Snapshot> snapshot_;
  std::shared_ptr<informer::ResourceEventHandler<api::Pod>> pod_handler_;

  // Scheduling-thread state: one random source (plugin-metrics sampling, then the algorithm's
  // tie-break key, in that order per pod) and the algorithm.
  std::mt19937_64 rng_;
  std::unique_ptr<SchedulingAlgorithm> algorithm_;
  SchedulePodFn schedule_pod_;

  std::unique_ptr<BindingCycle> binding_cycle_;
  std::unique_ptr<BindingPool> binding_pool_;
  std::thread sched_thread_;
  std::atomic<bool> running_{false};
};

}  // namespace ksched::scheduler
