#include "scheduler/plugins/podgrouppodscount/podgrouppodscount.h"

#include <algorithm>

namespace ksched::scheduler::plugins::podgrouppodscount {

using framework::Status;

Status PodGroupPodsCount::score_placement(const framework::PodGroupInfo& group,
                                          const framework::PodGroupAssignments& assignments, std::int64_t& score) {
  score = static_cast<std::int64_t>(group.scheduledNodes.size() + assignments.proposed.size());
  return {};
}

Status PodGroupPodsCount::normalize_placement_score(const framework::PodGroupInfo& /*group*/,
                                                    std::vector<framework::PlacementScore>& scores) {
  std::int64_t max_count = 0;
  for (const auto& s : scores) max_count = std::max(max_count, s.score);
  if (max_count == 0) return Status::error("no pods from pod group are assigned to any of the candidate placements");
  for (auto& s : scores) {
    s.score = framework::kMinNodeScore + s.score * (framework::kMaxNodeScore - framework::kMinNodeScore) / max_count;
  }
  return {};
}

util::Result<std::shared_ptr<framework::Plugin>> make_pod_group_pods_count(const framework::PluginArgs& /*args*/,
                                                                           framework::Handle& /*handle*/) {
  return std::shared_ptr<framework::Plugin>(std::make_shared<PodGroupPodsCount>());
}

}  // namespace ksched::scheduler::plugins::podgrouppodscount
