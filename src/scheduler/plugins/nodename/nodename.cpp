#include "scheduler/plugins/nodename/nodename.h"

namespace ksched::scheduler::plugins::nodename {

using framework::Status;

// Rejections shared by every node a pod is rejected on (see FixedReasons).
const framework::FixedReasons kFixedErrReason{std::string(kErrReason)};

Status NodeName::filter(const framework::CycleState&, const api::Pod& pod, const framework::NodeInfo& node_info) {
  const api::Node* node = node_info.node();
  if (node == nullptr || !fits(pod, *node)) return Status(framework::Code::UnschedulableAndUnresolvable, kFixedErrReason);
  return {};
}

std::vector<framework::ClusterEventWithHint> NodeName::events_to_register() const {
  framework::ClusterEventWithHint e;
  e.event = framework::ClusterEvent{framework::EventResource::Node, framework::kAdd, {}};
  e.hint = [](const api::Pod& pod, const std::shared_ptr<const void>&, const std::shared_ptr<const void>& newObj) {
    const auto* node = static_cast<const api::Node*>(newObj.get());
    if (node == nullptr || !fits(pod, *node)) return framework::QueueingHint::Skip;
    return framework::QueueingHint::Queue;
  };
  return {std::move(e)};
}

util::Result<std::shared_ptr<framework::Plugin>> make_node_name(const framework::PluginArgs&, framework::Handle&) {
  return std::shared_ptr<framework::Plugin>(std::make_shared<NodeName>());
}

void NodeName::sign_pod(const api::Pod& pod, framework::PodSignature& sig) const {
  sig.add(kName, std::string_view(pod.spec.nodeName));
}

}  // namespace ksched::scheduler::plugins::nodename
