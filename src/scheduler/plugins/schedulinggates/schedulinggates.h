// SchedulingGates: PreEnqueue keeps pods with spec.schedulingGates out of the active queue.
#pragma once
#include <memory>
#include <string_view>

#include "scheduler/framework/interface.h"

namespace ksched::scheduler::plugins::schedulinggates {

inline constexpr std::string_view kName = "SchedulingGates";

class SchedulingGates final : public framework::PreEnqueuePlugin, public framework::EnqueueExtensions {
 public:
  std::string_view name() const override { return kName; }
  // U&U "waiting for scheduling gates: [a b]" (Go's %v of the gate names) while gates remain.
  framework::Status pre_enqueue(const api::Pod& pod) override;
  // Pod/UpdatePodSchedulingGatesEliminated, queueing only the pod whose gates went away.
  std::vector<framework::ClusterEventWithHint> events_to_register() const override;
};

util::Result<std::shared_ptr<framework::Plugin>> make_scheduling_gates(const framework::PluginArgs& args,
                                                                       framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::schedulinggates
