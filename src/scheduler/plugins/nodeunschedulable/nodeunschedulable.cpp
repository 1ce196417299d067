#include "scheduler/plugins/nodeunschedulable/nodeunschedulable.h"

#include "scheduler/framework/plugin_helper.h"

namespace ksched::scheduler::plugins::nodeunschedulable {

using framework::ClusterEvent;
using framework::ClusterEventWithHint;
using framework::EventResource;
using framework::QueueingHint;
using framework::Status;

// Rejections shared by every node a pod is rejected on (see FixedReasons).
const framework::FixedReasons kFixedErrReasonUnknownCondition{std::string(kErrReasonUnknownCondition)};
const framework::FixedReasons kFixedErrReasonUnschedulable{std::string(kErrReasonUnschedulable)};

bool pod_tolerates_unschedulable(const api::Pod& pod) {
  static const api::Taint kTaint = [] {
    api::Taint t;
    t.key = std::string(kTaintNodeUnschedulable);
    t.effect = std::string(framework::kTaintEffectNoSchedule);
    return t;
  }();
  return framework::taint_tolerated_by_tolerations(kTaint, pod.spec.tolerations);
}

Status NodeUnschedulable::filter(const framework::CycleState&, const api::Pod& pod,
                                 const framework::NodeInfo& node_info) {
  if (node_info.node() == nullptr) return Status(framework::Code::UnschedulableAndUnresolvable, kFixedErrReasonUnknownCondition);
  if (node_info.unschedulable() && !pod_tolerates_unschedulable(pod)) {
    return Status(framework::Code::UnschedulableAndUnresolvable, kFixedErrReasonUnschedulable);
  }
  return {};
}

std::vector<ClusterEventWithHint> NodeUnschedulable::events_to_register() const {
  ClusterEventWithHint node_event;
  node_event.event = ClusterEvent{EventResource::Node, framework::kAdd | framework::kUpdateNodeTaint, {}};
  node_event.hint = [](const api::Pod& pod, const std::shared_ptr<const void>& oldObj,
                       const std::shared_ptr<const void>& newObj) {
    if (pod_tolerates_unschedulable(pod)) return QueueingHint::Queue;
    const auto* modified = static_cast<const api::Node*>(newObj.get());
    if (modified == nullptr) return QueueingHint::Skip;
    const auto* original = static_cast<const api::Node*>(oldObj.get());
    const bool was_schedulable = original != nullptr && !original->spec.unschedulable;
    // Only a node that is (or became) schedulable can change this plugin's verdict.
    return (!was_schedulable && !modified->spec.unschedulable) ? QueueingHint::Queue : QueueingHint::Skip;
  };
  ClusterEventWithHint pod_event;
  pod_event.event = ClusterEvent{EventResource::Pod, framework::kUpdatePodTolerations, {}};
  pod_event.hint = [](const api::Pod& pod, const std::shared_ptr<const void>&, const std::shared_ptr<const void>& newObj) {
    const auto* modified = static_cast<const api::Pod*>(newObj.get());
    if (modified == nullptr || modified->metadata.uid != pod.metadata.uid) return QueueingHint::Skip;
    return pod_tolerates_unschedulable(*modified) ? QueueingHint::Queue : QueueingHint::Skip;
  };
  return {std::move(node_event), std::move(pod_event)};
}

util::Result<std::shared_ptr<framework::Plugin>> make_node_unschedulable(const framework::PluginArgs&,
                                                                         framework::Handle&) {
  return std::shared_ptr<framework::Plugin>(std::make_shared<NodeUnschedulable>());
}

void NodeUnschedulable::sign_pod(const api::Pod& pod, framework::PodSignature& sig) const {
  framework::sign_tolerations(pod, kName, sig);
}

}  // namespace ksched::scheduler::plugins::nodeunschedulable
