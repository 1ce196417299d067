// Framework runtime (upstream framework/runtime/framework.go): one instance per profile. Builds
// the plugins a profile enables (with multiPoint expansion and score weights), implements Handle
// for them, and runs every extension point with upstream's semantics.
#pragma once
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
#include <vector>

#include "scheduler/config/types.h"
#include "scheduler/framework/async_tasks.h"
#include "scheduler/framework/evaluation_counter.h"
#include "scheduler/framework/filter_durations.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/registry.h"
#include "util/clock.h"

namespace ksched::scheduler::framework {

inline constexpr std::chrono::minutes kMaxPermitTimeout{15};

// Go's time.Duration.String() ("1.5s", "10m0s", "100ms"), used in upstream messages.


// config::PluginArgs (variant) -> type-erased PluginArgs (monostate -> empty).
PluginArgs to_plugin_args(const config::PluginArgs& args);

// What a Framework needs from the scheduler. Pointers must outlive the framework; nullptr
// listers/nominator mean "empty".
struct FrameworkDeps {
  ClusterClient* client = nullptr;
  const ClusterLister* lister = nullptr;
  const PodNominator* nominator = nullptr;
  const NodeInfoLister* node_infos = nullptr;         // the snapshot (can be set later)
  const StorageInfoLister* storage_infos = nullptr;
  int parallelism = 16;
  std::shared_ptr<Parallelizer> parallelizer;  // default: ThreadPoolParallelizer(parallelism)
  const util::Clock* clock = nullptr;          // permit timeouts; default RealClock
  // Per-plugin timing on cycles whose CycleState has record_plugin_metrics set (upstream samples
  // 10 % of cycles for scheduler_plugin_execution_duration_seconds). Arguments: plugin, extension
  // point ("Filter", "Score", "ScoreExtensionNormalize", ...), status, duration. Called
  // concurrently from parallelizer workers during Filter and Score.
  std::function<void(std::string_view plugin, std::string_view extension_point, const Status& status,
                     std::chrono::nanoseconds duration)>
      plugin_observer;
  // Upper bounds (seconds) of the histogram pluginObserver feeds. Given, Filter's per-node timings
  // are counted per thread in those buckets (FilterDurations) instead of one pluginObserver call
  // each, and reach the histogram through Framework::flush_filter_durations.
  std::vector<double> plugin_duration_bounds;
  // With pluginDurationBounds: on a sampled cycle, one node visit in this many has its Filter
  // calls timed, each observation counted this many times. A sampled cycle at 5,000 nodes would
  // otherwise read the clock 100,000 times; the histogram's counts keep their rate and its
  // distribution stays an unbiased sample. 1 times every visit.
  int filter_timing_stride = 8;
  // Whether quick_rejecter offers the Filter plugins' quick rejections (SchedulerOptions::quick_rejection).
  bool quick_rejection = true;
  // scheduler_preemption_victims (Handle::record_preemption_victims).
  std::function<void(std::size_t victims)> preemption_victims_observer;
  // Handle::record_preemption_goroutine and Handle::activate.
  std::function<void(std::string_view result, double seconds)> preemption_goroutine_observer;
  std::function<void(const std::vector<PodPtr>& pods)> activate;
  std::vector<std::shared_ptr<Extender>> extenders;  // Handle::extenders()
  dra::Manager* dra = nullptr;                       // Handle::dra_manager()
  podgroup::Manager* pod_groups = nullptr;           // Handle::pod_group_manager()
  const util::StopSignal* stop = nullptr;            // Handle::stop_signal(); none: never set
};

// The status of every node outside a PreFilter result: "node(s) didn't satisfy plugin(s) [P Q]",
// naming the plugins that returned node sets.
Status prefilter_result_rejection(const std::set<std::string>& plugins_with_nodes);

// Score plugins' scores before NormalizeScore, kept by opportunistic batching so that it can
// rescore the nodes that changed and normalize and weigh again without scoring every node.
struct RawScores {
  std::vector<std::size_t> plugins;             // the Score plugins that ran (not skipped), by index
  std::vector<std::vector<std::int64_t>> rows;  // rows[k][i]: plugin plugins[k] on node i
};

class Framework final : public Handle {
 public:
  // `profile` must be defaulted (config::set_profile_defaults) so multiPoint holds the defaults.
  static util::Result<std::unique_ptr<Framework>> create(const config::KubeSchedulerProfile& profile,
                                                        const Registry& registry, FrameworkDeps deps);
  ~Framework() override;

  // ---- profile information
  const std::string& profile_name_str() const { return profile_name_; }
  std::optional<std::int32_t> percentage_of_nodes_to_score() const { return percentage_of_nodes_to_score_; }
  // Extension point ("PreFilter", "Filter", ...) -> plugin names in run order (upstream ListPlugins).
  std::map<std::string, std::vector<std::string>> list_plugins() const;
  const std::map<std::string, std::int32_t>& score_weights() const { return score_weights_; }
  std::shared_ptr<Plugin> plugin(std::string_view name) const;
  bool has_filter_plugins() const { return !filter_.empty(); }
  bool has_score_plugins() const { return !score_.empty(); }
  bool has_post_filter_plugins() const { return !post_filter_.empty(); }

  // scheduler_plugin_evaluation_total: how often each PreFilter/PreScore plugin ran without
  // returning Skip, and each Filter/Score plugin ran (per node), since the framework was built.
  struct PluginEvaluations {
    std::string plugin;
    const char* extensionPoint;
    std::uint64_t count;
  };
  std::vector<PluginEvaluations> plugin_evaluations() const;
  // Filter timings of sampled cycles counted since the last call (FrameworkDeps::
  // pluginDurationBounds given): fn(plugin, status code, non-cumulative bucket counts, count, sum
  // in seconds) per plugin and code with any. Called by the metrics' collector before a scrape.
  using FilterDurationsFn = std::function<void(std::string_view plugin, Code code, std::span<const std::uint64_t> buckets,
                                               std::uint64_t count, double sum_seconds)>;
  void flush_filter_durations(const FilterDurationsFn& fn);
  const std::vector<std::shared_ptr<PreEnqueuePlugin>>& pre_enqueue_plugins() const { return pre_enqueue_; }
  const std::shared_ptr<QueueSortPlugin>& queue_sort_plugin() const { return queue_sort_; }
  // Plugin name -> events it registered (EnqueueExtensions; plugins without it get the wildcard
  // event, as upstream). Only plugins that can reject a pod (PreEnqueue, PreFilter, Filter,
  // Reserve, Permit) are listed, since only they can appear among a pod's rejectors.
  std::map<std::string, std::vector<ClusterEventWithHint>> events_to_register() const;

  void set_snapshot(const NodeInfoLister* node_infos, const StorageInfoLister* storage_infos) {
    node_infos_ = node_infos;
    storage_infos_ = storage_infos;
  }

  // ---- extension points
  Status run_pre_enqueue_plugins(const api::Pod& pod);
  // The pod-group cycle's check (PlacementFeasiblePlugin): the first status that is not Success,
  // else Success. Wait from one plugin does not hide an Unschedulable from a later one.
  Status run_placement_feasible_plugins(const api::Pod& member, const PlacementProgress& progress);
  // PlacementGenerate (upstream RunPlacementGeneratePlugins): the plugins in their configured
  // order, each splitting every placement the previous one produced (the first splits `root`).
  // The first non-success status is returned with its plugin. No plugin configured: `root` alone.
  Status run_placement_generate_plugins(const PodGroupInfo& group, const Placement& root,
                                        std::vector<Placement>& out);
  bool has_placement_generate_plugins() const { return !placement_generate_.empty(); }
  // PlacementScore (upstream RunPlacementScorePlugins): every plugin scores every placement,
  // normalizes if it can, and its scores times its weight are summed per placement into `totals`
  // (parallel to `assignments`). A plugin's failure is returned as an error naming it.
  Status run_placement_score_plugins(const PodGroupInfo& group, const std::vector<PodGroupAssignments>& assignments,
                                     std::vector<std::int64_t>& totals);
  bool has_placement_feasible_plugins() const { return !placement_feasible_.empty(); }
  bool queue_sort_less(const QueuedPodInfo& a, const QueuedPodInfo& b) const { return queue_sort_->less(a, b); }
  // `plugins_with_nodes` gets the plugins that returned node sets (upstream's third result; empty
  // when a plugin's own rejection or error ended the run): the pod's rejectors for every node
  // outside `result` (prefilter_result_rejection).
  Status run_pre_filter_plugins(CycleState& state, const api::Pod& pod, PreFilterResult& result,
                                std::set<std::string>& plugins_with_nodes);
  Status run_filter_plugins(const CycleState& state, const api::Pod& pod, const NodeInfo& node_info) override;
  Status run_filter_plugins_with_nominated_pods(CycleState& state, const api::Pod& pod,
                                                const NodeInfo& node_info) override;
  // The cycle's quick rejection (FilterPlugin::quick_reject): that of the first Filter plugin in
  // run order offering one, if no plugin that runs before it can return an Error that depends on
  // the node. Empty when PreFilter did not fix the plugins that run.
  struct QuickRejecter {
    QuickReject test;
    std::size_t filter_index = 0;  // the plugin's place among the Filter plugins
  };
  QuickRejecter quick_rejecter(const CycleState& state, const api::Pod& pod) const;
  // Counts `n` quick rejections as evaluations of the plugin's Filter (scheduler_plugin_evaluation_total).
  void count_quick_rejections(std::size_t filter_index, std::uint64_t n) {
    EvaluationCounter::add(evaluations_->local(), filter_slot(filter_index), n);
  }
  Status run_pre_filter_extension_add_pod(CycleState& state, const api::Pod& pod_to_schedule,
                                          const PodInfoPtr& pod_to_add, const NodeInfo& node_info) override;
  Status run_pre_filter_extension_remove_pod(CycleState& state, const api::Pod& pod_to_schedule,
                                             const PodInfoPtr& pod_to_remove, const NodeInfo& node_info) override;
  Status run_post_filter_plugins(CycleState& state, const api::Pod& pod, const NodeToStatus& filtered,
                                 PostFilterResult& result);
  Status run_pre_score_plugins(CycleState& state, const api::Pod& pod, const std::vector<NodeInfoPtr>& nodes);
  // `out` is resized to nodes.size(); each entry holds per-plugin weighted scores and the total.
  // `raw`, when given, receives the scores before NormalizeScore.
  Status run_score_plugins(const CycleState& state, const api::Pod& pod, const std::vector<NodeInfoPtr>& nodes,
                           std::vector<NodePluginScores>& out, RawScores* raw = nullptr);
  // Score of the not-skipped Score plugins for a few nodes, on the calling thread, before
  // NormalizeScore: raw.rows[k][first + i] for nodes[i] (rows must be large enough).
  Status run_score_plugins_raw(const CycleState& state, const api::Pod& pod, const std::vector<NodeInfoPtr>& nodes,
                               RawScores& raw, std::size_t first);
  // NormalizeScore over every node of `raw` (nodes[i] is column i), then weights: totals[i].
  Status weigh_raw_scores(const CycleState& state, const api::Pod& pod, const std::vector<NodeInfoPtr>& nodes,
                          const RawScores& raw, std::vector<std::int64_t>& totals);
  // The Score plugins that PreScore did not skip, by index (what RawScores::plugins records).
  std::vector<std::size_t> active_score_plugins(const CycleState& state) const;

  // ---- opportunistic batching (KEP-5598)
  // Whether every PreFilter, Filter, PreScore and Score plugin of the profile signs pods.
  bool signs_pods() const { return signs_pods_; }
  // The pod's scheduling signature; nullopt when a plugin marked it unsignable or the profile
  // does not sign pods.
  std::optional<std::string> sign_pod(const api::Pod& pod) const;
  Status run_reserve_plugins_reserve(CycleState& state, const api::Pod& pod, const std::string& node_name);
  void run_reserve_plugins_unreserve(CycleState& state, const api::Pod& pod, const std::string& node_name);
  // Wait status: the pod is parked as a waiting pod; call wait_on_permit from the binding thread.
  Status run_permit_plugins(CycleState& state, const api::Pod& pod, const std::string& node_name);
  Status wait_on_permit(const api::Pod& pod);
  // Whether the pod is parked as a waiting pod (Permit said Wait; upstream WillWaitOnPermit).
  bool will_wait_on_permit(const api::Pod& pod) { return get_waiting_pod(pod.metadata.uid) != nullptr; }
  // Upstream RunPreBindPreFlights: Success when some PreBind plugin's pre-flight says Success,
  // Skip when all say Skip, an Error naming the plugin on an error or an unsupported code.
  Status run_pre_bind_pre_flights(CycleState& state, const api::Pod& pod, const std::string& node_name);
  Status run_pre_bind_plugins(CycleState& state, const api::Pod& pod, const std::string& node_name);
  // Binds each item through the Bind plugins in order (upstream RunBindPlugins): a plugin's
  // bind_all gets the items the plugins before it skipped. Skip when every plugin skipped.
  // `out` has one status per item. A sampled item's Bind is timed as the whole call: what its
  // binding waited for.
  void run_bind_plugins(std::span<const BindItem> items, std::span<Status> out);
  // The same for one pod.
  Status run_bind_plugins(CycleState& state, const api::Pod& pod, const std::string& node_name);
  // Whether the pod's binding cycle may run in a batch with others: every Bind plugin binds in
  // batches (BindPlugin::binds_in_batches) and every PreBind plugin is quick for the pod
  // (PreBindPlugin::pre_bind_is_quick).
  bool binds_in_batches(const CycleState& state, const api::Pod& pod) const;
  void run_post_bind_plugins(CycleState& state, const api::Pod& pod, const std::string& node_name);

  // ---- Handle
  const NodeInfoLister& snapshot_node_infos() const override;
  const StorageInfoLister& snapshot_storage_infos() const override;
  ClusterClient& client() override;
  const ClusterLister& lister() const override;
  Parallelizer& parallelizer() override { return *parallelizer_; }
  const PodNominator& nominator() const override;
  std::string_view profile_name() const override { return profile_name_; }
  const std::vector<std::shared_ptr<Extender>>& extenders() const override { return deps_.extenders; }
  dra::Manager* dra_manager() const override { return deps_.dra; }
  const util::StopSignal& stop_signal() const override { return deps_.stop ? *deps_.stop : Handle::stop_signal(); }
  podgroup::Manager* pod_group_manager() const override { return deps_.pod_groups; }
  void record_preemption_victims(std::size_t victims) override {
    if (deps_.preemption_victims_observer) deps_.preemption_victims_observer(victims);
  }
  void record_preemption_goroutine(std::string_view result, double seconds) override {
    if (deps_.preemption_goroutine_observer) deps_.preemption_goroutine_observer(result, seconds);
  }
  void activate(const std::vector<PodPtr>& pods) override {
    if (deps_.activate) deps_.activate(pods);
  }
  void run_async(std::function<void()> fn) override { async_.run(std::move(fn)); }
  // Waits for the work plugins started with run_async (the scheduler's stop, before the queue and
  // the client go away).
  void wait_for_async() { async_.wait(); }
  std::shared_ptr<WaitingPod> get_waiting_pod(std::string_view uid) override;
  void iterate_over_waiting_pods(const std::function<void(WaitingPod&)>& fn) override;
  void reject_waiting_pod(std::string_view uid) override;

 private:
  // Runs the Filter plugins at `positions` (indexes into filter_, in run order).
  Status run_filter_plugins_at(const CycleState& state, const api::Pod& pod, const NodeInfo& node_info,
                               const std::uint16_t* positions, std::size_t count);
  class WaitingPodImpl;
  Framework() = default;
  util::Result<void> init(const config::KubeSchedulerProfile& profile, const Registry& registry);

  std::string profile_name_;
  std::optional<std::int32_t> percentage_of_nodes_to_score_;
  FrameworkDeps deps_;
  const NodeInfoLister* node_infos_ = nullptr;
  const StorageInfoLister* storage_infos_ = nullptr;
  std::shared_ptr<Parallelizer> parallelizer_;
  const util::Clock* clock_ = nullptr;

  std::map<std::string, std::shared_ptr<Plugin>, std::less<>> plugins_;
  std::vector<std::shared_ptr<PreEnqueuePlugin>> pre_enqueue_;
  std::vector<std::shared_ptr<PlacementFeasiblePlugin>> placement_feasible_;
  std::vector<std::shared_ptr<PlacementGeneratePlugin>> placement_generate_;
  std::vector<std::shared_ptr<PlacementScorePlugin>> placement_score_;
  std::vector<std::int64_t> placement_score_weights_;  // parallel to placement_score_
  std::shared_ptr<QueueSortPlugin> queue_sort_;
  std::vector<std::shared_ptr<PreFilterPlugin>> pre_filter_;
  std::vector<std::shared_ptr<FilterPlugin>> filter_;
  std::vector<const std::string*> filter_names_;  // interned, parallel to filter_
  std::vector<std::shared_ptr<PostFilterPlugin>> post_filter_;
  std::vector<std::shared_ptr<PreScorePlugin>> pre_score_;
  std::vector<std::shared_ptr<ScorePlugin>> score_;
  std::vector<std::int64_t> score_weight_by_index_;  // parallel to score_
  std::vector<const SignPlugin*> signers_;  // each signing plugin once, in extension-point order
  bool signs_pods_ = false;
  // Slots: PreFilter plugins, then Filter, PreScore and Score ones, in run order.
  std::unique_ptr<EvaluationCounter> evaluations_;
  std::unique_ptr<FilterDurations> filter_durations_;  // with FrameworkDeps::plugin_duration_bounds
  std::atomic<std::uint64_t> filter_timing_visits_{0};  // node visits of sampled cycles (filterTimingStride)
  std::size_t pre_filter_slot(std::size_t i) const { return i; }
  std::size_t filter_slot(std::size_t i) const { return pre_filter_.size() + i; }
  std::size_t pre_score_slot(std::size_t i) const { return pre_filter_.size() + filter_.size() + i; }
  std::size_t score_slot(std::size_t i) const { return pre_filter_.size() + filter_.size() + pre_score_.size() + i; }
  std::vector<std::shared_ptr<ReservePlugin>> reserve_;
  std::vector<std::shared_ptr<PermitPlugin>> permit_;
  std::vector<std::shared_ptr<PreBindPlugin>> pre_bind_;
  std::vector<std::shared_ptr<BindPlugin>> bind_;
  std::vector<std::shared_ptr<PostBindPlugin>> post_bind_;
  std::map<std::string, std::int32_t> score_weights_;

  mutable std::mutex waiting_mu_;
  std::map<std::string, std::shared_ptr<WaitingPodImpl>, std::less<>> waiting_pods_;
  // Last, so that it is destroyed first: its tasks use the plugins and deps_.
  AsyncTasks async_;
};

}  // namespace ksched::scheduler::framework
