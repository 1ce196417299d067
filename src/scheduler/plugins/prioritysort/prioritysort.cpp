#include "scheduler/plugins/prioritysort/prioritysort.h"

namespace ksched::scheduler::plugins::prioritysort {

bool PrioritySort::less(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const {
  // spec.priority (0 when unset), then the enqueue time; a PodGroup member with its group's.
  return framework::priority_sort_less(a, b);
}

util::Result<std::shared_ptr<framework::Plugin>> make_priority_sort(const framework::PluginArgs&,
                                                                    framework::Handle&) {
  return std::shared_ptr<framework::Plugin>(std::make_shared<PrioritySort>());
}

}  // namespace ksched::scheduler::plugins::prioritysort
