#include "scheduler/plugins/schedulinggates/schedulinggates.h"

namespace ksched::scheduler::plugins::schedulinggates {

using framework::ClusterEvent;
using framework::ClusterEventWithHint;
using framework::QueueingHint;
using framework::Status;

Status SchedulingGates::pre_enqueue(const api::Pod& pod) {
  const auto& gates = pod.spec.schedulingGates;
  if (gates.empty()) return {};
  std::string msg = "waiting for scheduling gates: [";
  for (std::size_t i = 0; i < gates.size(); ++i) {
    if (i) msg += ' ';
    msg += gates[i].name;
  }
  msg += ']';
  return Status::unresolvable(std::move(msg));
}

std::vector<ClusterEventWithHint> SchedulingGates::events_to_register() const {
  ClusterEventWithHint e;
  e.event = ClusterEvent{framework::EventResource::Pod, framework::kUpdatePodSchedulingGatesEliminated, {}};
  e.hint = [](const api::Pod& pod, const std::shared_ptr<const void>&, const std::shared_ptr<const void>& newObj) {
    // Only the gated pod's own update can lift its gates.
    const auto* modified = static_cast<const api::Pod*>(newObj.get());
    if (modified == nullptr || modified->metadata.uid != pod.metadata.uid) return QueueingHint::Skip;
    return QueueingHint::Queue;
  };
  return {std::move(e)};
}

util::Result<std::shared_ptr<framework::Plugin>> make_scheduling_gates(const framework::PluginArgs&,
                                                                       framework::Handle&) {
  return std::shared_ptr<framework::Plugin>(std::make_shared<SchedulingGates>());
}

}  // namespace ksched::scheduler::plugins::schedulinggates
