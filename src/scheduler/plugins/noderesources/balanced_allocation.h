// NodeResourcesBalancedAllocation: favours nodes whose resource fractions (after placing the pod)
// are close to each other: score = (1 − std of the fractions) × 100.
#pragma once
#include <memory>
#include <string_view>

#include "scheduler/config/types.h"
#include "scheduler/framework/interface.h"
#include "scheduler/plugins/noderesources/resource_allocation.h"

namespace ksched::scheduler::plugins::noderesources {

inline constexpr std::string_view kBalancedAllocationName = "NodeResourcesBalancedAllocation";

class BalancedAllocation final : public framework::SignPlugin,
                                 public framework::PreScorePlugin, public framework::ScorePlugin {
 public:
  explicit BalancedAllocation(const config::NodeResourcesBalancedAllocationArgs& args);
  std::string_view name() const override { return kBalancedAllocationName; }
  void sign_pod(const api::Pod& pod, framework::PodSignature& sig) const override;
  // Stores the pod's raw requests (no scoring defaults) per configured resource.
  framework::Status pre_score(framework::CycleState& state, const api::Pod& pod,
                              const std::vector<framework::NodeInfoPtr>& nodes) override;
  framework::Status score(const framework::CycleState& state, const api::Pod& pod,
                          const framework::NodeInfo& node_info, std::int64_t& score) override;

 private:
  std::int64_t score_node(const framework::NodeInfo& ni, const std::vector<std::int64_t>& pod_requests) const;
  std::vector<ScoredResource> resources_;
};

util::Result<std::shared_ptr<framework::Plugin>> make_node_resources_balanced_allocation(
    const framework::PluginArgs& args, framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::noderesources
