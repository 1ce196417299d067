// PodGroupPodsCount (KEP-5732, TopologyAwareWorkloadScheduling, alpha): the PlacementScore plugin
// that prefers the placement taking more of the group's pods.
//
// Upstream: pkg/scheduler/framework/plugins/podgrouppodscount/podgroup_pods_count.go (newest in
// the index). The score is the members placed before the cycle plus the placement's proposed
// members; normalization divides by the largest score (not by minCount, so that close counts get
// close scores): score * 100 / max. All zero is an error with upstream's message.
#pragma once
#include <string_view>

#include "scheduler/framework/interface.h"

namespace ksched::scheduler::plugins::podgrouppodscount {

inline constexpr std::string_view kName = "PodGroupPodsCount";

class PodGroupPodsCount final : public framework::PlacementScorePlugin {
 public:
  std::string_view name() const override { return kName; }
  framework::Status score_placement(const framework::PodGroupInfo& group,
                                    const framework::PodGroupAssignments& assignments,
                                    std::int64_t& score) override;
  bool has_normalize_placement_score() const override { return true; }
  framework::Status normalize_placement_score(const framework::PodGroupInfo& group,
                                              std::vector<framework::PlacementScore>& scores) override;
};

util::Result<std::shared_ptr<framework::Plugin>> make_pod_group_pods_count(const framework::PluginArgs& args,
                                                                           framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::podgrouppodscount
