// NodeName: a pod with spec.nodeName only fits that node.
#pragma once
#include <memory>
#include <string_view>

#include "scheduler/framework/interface.h"

namespace ksched::scheduler::plugins::nodename {

inline constexpr std::string_view kName = "NodeName";
inline constexpr std::string_view kErrReason = "node(s) didn't match the requested node name";

class NodeName final : public framework::SignPlugin,
                       public framework::FilterPlugin, public framework::EnqueueExtensions {
 public:
  std::string_view name() const override { return kName; }
  void sign_pod(const api::Pod& pod, framework::PodSignature& sig) const override;
  framework::Status filter(const framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info) override;
  // Its Filter errors only on a missing PreFilter state or node object: the same for every node.
  bool filter_error_depends_on_node() const override { return false; }
  // Node/Add, queueing only when the added node is the requested one.
  std::vector<framework::ClusterEventWithHint> events_to_register() const override;
};

// Upstream nodename.Fits: no nodeName, or equal to the node's name.
inline bool fits(const api::Pod& pod, const api::Node& node) {
  return pod.spec.nodeName.empty() || pod.spec.nodeName == node.metadata.name;
}

util::Result<std::shared_ptr<framework::Plugin>> make_node_name(const framework::PluginArgs& args,
                                                                framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::nodename
