#include "scheduler/plugins/prioritysort/prioritysort.h"

#include "api/helpers.h"

namespace ksched::scheduler::plugins::prioritysort {

bool PrioritySort::less(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const {
  // spec.priority, or 0 when unset.
  const auto pa = api::pod_priority(a.pod());
  const auto pb = api::pod_priority(b.pod());
  return pa > pb || (pa == pb && a.timestamp < b.timestamp);
}

util::Result<std::shared_ptr<framework::Plugin>> make_priority_sort(const framework::PluginArgs&,
                                                                    framework::Handle&) {
  return std::shared_ptr<framework::Plugin>(std::make_shared<PrioritySort>());
}

}  // namespace ksched::scheduler::plugins::prioritysort
