// PrioritySort: queue order by priority (higher first), then enqueue time (earlier first). As
// upstream's newest plugin, which sorts queued entities, a pod of a PodGroup counts with its
// PodGroup's priority and the group's queue timestamp (framework::priority_sort_less).
#pragma once
#include <memory>
#include <string_view>

#include "scheduler/framework/interface.h"

namespace ksched::scheduler::plugins::prioritysort {

inline constexpr std::string_view kName = "PrioritySort";

class PrioritySort final : public framework::QueueSortPlugin {
 public:
  std::string_view name() const override { return kName; }
  bool less(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const override;
};

util::Result<std::shared_ptr<framework::Plugin>> make_priority_sort(const framework::PluginArgs& args,
                                                                    framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::prioritysort
