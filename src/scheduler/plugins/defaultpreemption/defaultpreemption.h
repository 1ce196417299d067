// DefaultPreemption (upstream framework/plugins/defaultpreemption, v1.35): the PostFilter plugin
// driving the preemption Evaluator with the default victim selection, and, with
// SchedulerAsyncPreemption (beta, on), the PreEnqueue plugin that keeps a preemptor out of
// activeQ while its victims are being evicted.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "scheduler/framework/interface.h"
#include "scheduler/framework/preemption/preemption.h"

namespace ksched::scheduler::plugins::defaultpreemption {

inline constexpr std::string_view kName = "DefaultPreemption";
inline constexpr std::string_view kNoVictims = "No preemption victims found for incoming pod";
inline constexpr std::string_view kWaitingForPreemption = "waiting for the preemption for this pod to be finished";

class DefaultPreemption final : public framework::PreEnqueuePlugin,
                                public framework::PostFilterPlugin,
                                public framework::EnqueueExtensions,
                                public framework::preemption::Interface {
 public:
  DefaultPreemption(framework::Handle& handle, std::int32_t min_candidate_nodes_percentage,
                    std::int32_t min_candidate_nodes_absolute);

  std::string_view name() const override { return kName; }

  framework::Status post_filter(framework::CycleState& state, const api::Pod& pod,
                                const framework::NodeToStatus& filtered, framework::PostFilterResult& result) override;

  // With async preemption: UnschedulableAndUnresolvable while the pod's preemption is running
  // (Evaluator::is_pod_running_preemption); always Success without it.
  framework::Status pre_enqueue(const api::Pod& pod) override;

  // With async preemption, pod deletions, whose hint always says Skip: they only let the queue
  // reconsider a pod this plugin gated, and the plugins that rejected the pod in its cycle decide
  // whether it moves. Nothing without it: the plugin then never rejects a pod.
  std::vector<framework::ClusterEventWithHint> events_to_register() const override;

  // preemption::Interface
  std::pair<int, int> get_offset_and_num_candidates(int num_nodes) override;
  std::string pod_eligible_to_preempt_others(const api::Pod& pod, const framework::Status& nominated_node_status) override;
  framework::Status select_victims_on_node(framework::CycleState& state, const api::Pod& pod,
                                           framework::NodeInfo& node_info,
                                           const framework::preemption::PdbCache& pdbs,
                                           std::vector<framework::PodPtr>& victims,
                                           int& num_pdb_violations) override;

  // k = min(max(n·pct/100, abs), n).
  int calculate_num_candidates(int num_nodes) const;

  framework::preemption::Evaluator& evaluator() { return evaluator_; }
  // Random offset source in [0, n) (replaceable so tests are deterministic).
  std::function<int(int n)> offset_rand;

 private:
  framework::Handle& handle_;
  std::int32_t pct_;
  std::int32_t abs_;
  framework::preemption::Evaluator evaluator_;
};

// Args: config::DefaultPreemptionArgs (nullptr → defaults 10 % / 100).
util::Result<std::shared_ptr<framework::Plugin>> make_default_preemption(const framework::PluginArgs& args,
                                                                         framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::defaultpreemption
