// The scheduler proper (upstream pkg/scheduler/scheduler.go, schedule_one.go, eventhandlers.go):
// profiles (one Framework per schedulerName), the scheduling queue, the cache and its snapshot,
// the scheduling cycle and the asynchronous binding cycle, and the informer event handlers.
//
// Threads: schedule_one() runs on one scheduling thread (run()); binding cycles run on a small
// worker pool; event handlers may be called from informer threads at any time.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "scheduler/batch.h"
#include "scheduler/cache/cache.h"
#include "scheduler/config/types.h"
#include "scheduler/framework/extender.h"
#include "scheduler/framework/runtime.h"
#include "scheduler/metrics.h"
#include "scheduler/queue/scheduling_queue.h"
#include "util/clock.h"
#include "util/result.h"

namespace ksched::scheduler {

inline constexpr const char* kErrNoNodesAvailable = "no nodes available to schedule pods";
inline constexpr std::size_t kNoteLengthLimit = 1024;  // events.k8s.io note limit

// Upstream truncateMessage: longer than 1024 bytes → first 1020 bytes + " ...".
std::string truncate_message(const std::string& msg);

// Upstream numFeasibleNodesToFind (min 100 nodes, adaptive percentage floor 5 %).
std::int32_t num_feasible_nodes_to_find(std::optional<std::int32_t> profile_pct, std::int32_t global_pct,
                                        std::int32_t num_all_nodes);

// Node update → the ClusterEvents it represents, in upstream order.
std::vector<framework::ClusterEvent> node_scheduling_property_change(const api::Node& new_node,
                                                                     const api::Node& old_node);

struct SchedulerOptions {
  util::Clock* clock = &util::RealClock::instance();
  bool queueingHints = true;           // SchedulerQueueingHints (on in v1.32)
  // Concurrent binding cycles (upstream: a goroutine each, unbounded). Their bind requests share
  // pipelined connections, so more at once make bigger batches: 32 cost 10 % less CPU per pod than
  // 16 at 10,000 pods/s; 48 and 64 cost more again (more threads to wake and keep).
  int bindingWorkers = 32;
  std::chrono::nanoseconds podMaxInUnschedulablePodsDuration = std::chrono::minutes(5);
  metrics::SchedulerMetrics* metrics = nullptr;  // optional, not owned
  // Parallelizer shared by all profiles; default: a thread pool of `parallelism` (tests pass an
  // inline one).
  std::shared_ptr<framework::Parallelizer> parallelizer;
  std::uint64_t seed = 0;  // for selectHost/percentage sampling; 0 = random
  // Share of cycles whose plugins are timed (upstream's pluginMetricsSamplePercent).
  int pluginMetricsSamplePercent = 10;
  // On those cycles, one node visit in this many has its Filter calls timed, each observation
  // counted this many times (framework::FrameworkDeps::filterTimingStride).
  int filterTimingStride = 8;
  // Filter plugins' quick rejections (framework::FilterPlugin::quick_reject); off, every node
  // visit runs the Filter plugins in order. Placement is the same either way.
  bool quickRejection = true;
  // OpportunisticBatching (KEP-5598; beta and on by default upstream since v1.35): see batch.h.
  bool opportunisticBatching = true;
  // Called on the scheduling thread after each cycle's Filter and Score, before the pod is
  // assumed, while the snapshot is still the cycle's: tools that record why a pod went where it
  // went (explain::DecisionLog) look there. `node` is the cycle's choice, empty when none.
  std::function<void(framework::Framework& fwk, const api::Pod& pod, const std::string& node)> cycleObserver;
};

struct ScheduleResult {
  std::string suggestedHost;
  int evaluatedNodes = 0;
  int feasibleNodes = 0;
  std::optional<framework::NominatingInfo> nominatingInfo;
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
  void on_pod_add(const framework::PodPtr& pod);
  void on_pod_update(const framework::PodPtr& old_pod, const framework::PodPtr& new_pod);
  void on_pod_delete(const framework::PodPtr& pod);
  void on_node_add(const framework::NodePtr& node);
  void on_node_update(const framework::NodePtr& old_node, const framework::NodePtr& new_node);
  void on_node_delete(const framework::NodePtr& node);
  // Storage and CSI objects only trigger queue moves; objects are passed to queueing hints.
  void on_pv_add(std::shared_ptr<const api::PersistentVolume> pv);
  void on_pv_update(std::shared_ptr<const api::PersistentVolume> old_pv, std::shared_ptr<const api::PersistentVolume> pv);
  void on_pvc_add(std::shared_ptr<const api::PersistentVolumeClaim> pvc);
  void on_pvc_update(std::shared_ptr<const api::PersistentVolumeClaim> old_pvc,
                     std::shared_ptr<const api::PersistentVolumeClaim> pvc);
  void on_storage_class_add(std::shared_ptr<const api::StorageClass> sc);
  void on_storage_class_update(std::shared_ptr<const api::StorageClass> old_sc, std::shared_ptr<const api::StorageClass> sc);
  void on_csi_node_add(std::shared_ptr<const api::CSINode> n);
  void on_csi_node_update(std::shared_ptr<const api::CSINode> old_n, std::shared_ptr<const api::CSINode> n);
  void on_csi_driver_add(std::shared_ptr<const api::CSIDriver> d);
  void on_csi_driver_update(std::shared_ptr<const api::CSIDriver> old_d, std::shared_ptr<const api::CSIDriver> d);
  void on_csi_storage_capacity_add(std::shared_ptr<const api::CSIStorageCapacity> c);
  void on_csi_storage_capacity_update(std::shared_ptr<const api::CSIStorageCapacity> old_c,
                                      std::shared_ptr<const api::CSIStorageCapacity> c);

  // ---- scheduling
  // One scheduling cycle: blocks in Pop. Returns false once the queue is closed.
  bool schedule_one();
  // Like schedule_one but returns false at once when activeQ is empty (tests).
  bool schedule_one_if_pending();
  // queue.run() + a scheduling thread looping schedule_one; stop() closes the queue and joins.
  void run();
  void stop();
  // Blocks until no binding cycle is running (bounded by timeout). True when idle.
  bool wait_for_bindings(std::chrono::milliseconds timeout);

  // Brings the profiles' snapshot up to date with the cache, as a cycle does first. For tools that
  // run extension points outside the loop (explain): only while run() is not looping.
  util::Result<void> refresh_snapshot();

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

 private:
  class NominatorProxy;
  class BindingPool;

  Scheduler() = default;
  util::Result<void> init(const config::KubeSchedulerConfiguration& cfg, const framework::Registry& registry);

  bool schedule_pod_info(const queue::QueuedPodInfoPtr& pinfo);
  bool skip_pod_schedule(framework::Framework& fwk, const api::Pod& pod);

  // Scheduling algorithm. On failure returns a non-success status; `fit` is set for FitErrors.
  framework::Status schedule_pod(framework::Framework& fwk, framework::CycleState& state, const api::Pod& pod,
                                 ScheduleResult& result, std::optional<framework::FitError>& fit);
  framework::Status find_nodes_that_fit_pod(framework::Framework& fwk, framework::CycleState& state,
                                            const api::Pod& pod, framework::Diagnosis& diagnosis,
                                            std::vector<framework::NodeInfoPtr>& feasible);
  // Leaves the nodes' rejections in rejections_; record_rejections moves them into a diagnosis.
  framework::Status find_nodes_that_pass_filters(framework::Framework& fwk, framework::CycleState& state,
                                                 const api::Pod& pod, const std::vector<framework::NodeInfoPtr>& nodes,
                                                 std::vector<framework::NodeInfoPtr>& feasible);
  void record_rejections(framework::Diagnosis& diagnosis);
  // The status of a quickly rejected node at scan position `i`, from its Filter plugins run in
  // order; clears the slot's mark.
  framework::Status exact_rejection(std::size_t i);
  // Nodes rejected this attempt, recorded or not.
  std::size_t evaluated_rejections(const framework::Diagnosis& diagnosis) const {
    return diagnosis.nodeToStatus.size() + (rejections_.recorded ? 0 : rejections_.count);
  }
  framework::Status prioritize_nodes(framework::Framework& fwk, framework::CycleState& state, const api::Pod& pod,
                                     const std::vector<framework::NodeInfoPtr>& feasible,
                                     std::vector<framework::NodePluginScores>& out, framework::RawScores* raw);
  // Best total; among equal totals the lowest tie_break_rank for the cycle's key. scores[i] is
  // feasible[i]'s, whose NodeInfo keeps its name's hash.
  std::string select_host(const std::vector<framework::NodePluginScores>& scores,
                          const std::vector<framework::NodeInfoPtr>& feasible) const;
  // Opportunistic batching: the pod's signature when it may take part (nullopt otherwise), and
  // an attempt to place it from the current batch (empty when the full cycle must run).
  std::optional<std::string> batch_signature(const framework::Framework& fwk, const api::Pod& pod) const;
  framework::Status place_from_batch(framework::Framework& fwk, framework::CycleState& state, const api::Pod& pod,
                                     const std::string& signature, ScheduleResult& result);
  void record_batch_flush(const framework::Framework& fwk, std::optional<OpportunisticBatch::Flush> flushed);
  void clear_batch(const framework::Framework& fwk, OpportunisticBatch::Flush why);
  // Extenders: filter after the plugins, and bind instead of the Bind plugins when one is a binder.
  framework::Status find_nodes_that_pass_extenders(const api::Pod& pod, framework::NodeToStatus& statuses,
                                                   std::vector<framework::NodeInfoPtr>& feasible);
  bool has_extender_filters() const;
  bool has_scoring(const framework::Framework& fwk) const;
  // True when an extender took the binding; `status` is then its outcome.
  bool extenders_binding(const api::Pod& pod, const std::string& node, framework::Status& status);

  // One pod's binding cycle, queued for the binding workers.
  struct BindingJob {
    framework::Framework* fwk = nullptr;
    std::shared_ptr<framework::CycleState> state;
    ScheduleResult result;
    queue::QueuedPodInfoPtr assumed_info;
    std::chrono::steady_clock::time_point start;
    std::shared_ptr<framework::PodsToActivate> pods_to_activate;
    // May run in a batch with others: Permit did not say Wait, no extender binds, and the profile
    // binds in batches for this pod (Framework::binds_in_batches). Otherwise it runs alone.
    bool batchable = false;
  };
  // Binding cycles (worker thread). run_bindings runs the jobs a worker took together: each
  // job's WaitOnPermit and PreBind, then every Bind at once (Framework::run_bind_plugins_all: one
  // pipelined write when the profile binds with DefaultBinder), then each job's end. A job alone
  // is binding_cycle, as upstream runs it.
  void run_bindings(std::vector<BindingJob>& jobs);
  framework::Status binding_cycle(BindingJob& job);
  framework::Status bind_prologue(BindingJob& job);  // WaitOnPermit, PreBind
  // After Bind (`bound`): FinishBinding, the Scheduled event, metrics, PostBind.
  framework::Status bind_epilogue(BindingJob& job, framework::Status bound);
  void finish_binding_job(BindingJob& job, const framework::Status& s);
  void handle_binding_cycle_error(framework::Framework& fwk, framework::CycleState& state,
                                  const queue::QueuedPodInfoPtr& assumed_info, std::chrono::steady_clock::time_point start,
                                  const ScheduleResult& result, const framework::Status& status,
                                  const std::optional<framework::FitError>& fit);
  void handle_scheduling_failure(framework::Framework& fwk, const queue::QueuedPodInfoPtr& pinfo,
                                 const framework::Status& status, const std::optional<framework::FitError>& fit,
                                 const std::optional<framework::NominatingInfo>& nominating,
                                 std::chrono::steady_clock::time_point start);
  void update_pod_status(const api::Pod& pod, const api::PodCondition& cond,
                         const std::optional<framework::NominatingInfo>& nominating);

  // Event helpers.
  void add_pod_to_cache(const framework::PodPtr& pod);
  void update_pod_in_cache(const framework::PodPtr& old_pod, const framework::PodPtr& new_pod);
  void delete_pod_from_cache(const framework::PodPtr& pod);
  void add_pod_to_queue(const framework::PodPtr& pod);
  void update_pod_in_queue(const framework::PodPtr& old_pod, const framework::PodPtr& new_pod);
  void delete_pod_from_queue(const framework::PodPtr& pod);
  void move_all(const framework::ClusterEvent& e, std::shared_ptr<const void> old_obj,
                std::shared_ptr<const void> new_obj, const queue::PreEnqueueCheck& pre_check = {});
  // With SchedulerQueueingHints off: which unschedulable pods a node event may help (upstream
  // preCheckForNode); empty (every pod) with hints on.
  queue::PreEnqueueCheck pre_check_for_node(const framework::NodeInfoPtr& node_info) const;
  void submit_binding(BindingJob job);
  void observe_extension_point(std::string_view point, const framework::Status& s, std::string_view profile,
                               std::chrono::steady_clock::time_point since);

  SchedulerOptions opts_;
  util::Clock* clock_ = nullptr;
  framework::ClusterClient* client_ = nullptr;
  const framework::ClusterLister* lister_ = nullptr;
  std::int32_t percentage_of_nodes_to_score_ = 0;
  std::vector<std::shared_ptr<framework::Extender>> extenders_;

  std::unique_ptr<NominatorProxy> nominator_proxy_;
  std::map<std::string, std::unique_ptr<framework::Framework>, std::less<>> profiles_;
  int evaluations_collector_ = 0;  // Registry collector id for scheduler_plugin_evaluation_total
  std::unique_ptr<metrics::QueueMetricsAdapter> queue_metrics_;
  // scheduler_framework_extension_point_duration_seconds children by {point, status, profile}:
  // observed several times per cycle, with literals and profile names as labels.
  std::unique_ptr<metrics::ChildCache<metrics::HistogramChild, 3>> extension_point_durations_;
  std::unique_ptr<queue::PriorityQueue> queue_;
  std::unique_ptr<cache::Cache> cache_;
  std::unique_ptr<cache::Snapshot> snapshot_;

  // Scheduling-thread state.
  std::size_t next_start_node_index_ = 0;
  std::mt19937_64 rng_;
  std::uint64_t tie_key_ = 0;  // drawn once per cycle, see tie_break_rank
  OpportunisticBatch batch_;
  framework::RawScores raw_scores_;
  // Per-node score rows of the current cycle, kept between cycles so that each row's vector keeps
  // its capacity (one scheduling cycle runs at a time).
  std::vector<framework::NodePluginScores> scores_;
  // The last Filter pass's rejections, by position from its start node. A pod that finds a node
  // never needs them, so they become a NodeToStatus only when it does not (record_rejections).
  // Each slot is written by the thread that filtered that position, so the pass shares no
  // counter or lock per node; a slot is current when its pass equals `pass`.
  // A node passed over by the cycle's quick rejection (FilterPlugin::quick_reject) has no status
  // yet: `quick` marks it, and exact_rejection runs the Filter plugins on it when one is needed.
  struct Rejections {
    struct Slot {
      std::uint64_t pass = 0;
      framework::Status status;
      bool quick = false;
    };
    std::vector<Slot> slots;
    std::uint64_t pass = 0;
    const std::vector<framework::NodeInfoPtr>* nodes = nullptr;  // the pass's list (the attempt's to record)
    // The pass's cycle, for exact_rejection (valid until the attempt ends).
    framework::Framework* fwk = nullptr;
    framework::CycleState* state = nullptr;
    const api::Pod* pod = nullptr;
    std::size_t start = 0;
    std::size_t count = 0;      // rejected nodes
    std::size_t scanned = 0;    // positions below this may hold a rejection
    bool recorded = true;
  };
  Rejections rejections_;

  std::unique_ptr<BindingPool> binding_pool_;
  std::thread sched_thread_;
  std::atomic<bool> running_{false};
};

}  // namespace ksched::scheduler
