// NodeUnschedulable: rejects nodes with spec.unschedulable unless the pod tolerates
// node.kubernetes.io/unschedulable:NoSchedule.
#pragma once
#include <memory>
#include <string_view>

#include "scheduler/framework/interface.h"

namespace ksched::scheduler::plugins::nodeunschedulable {

inline constexpr std::string_view kName = "NodeUnschedulable";
inline constexpr std::string_view kErrReasonUnknownCondition = "node(s) had unknown conditions";
inline constexpr std::string_view kErrReasonUnschedulable = "node(s) were unschedulable";
inline constexpr std::string_view kTaintNodeUnschedulable = "node.kubernetes.io/unschedulable";

class NodeUnschedulable final : public framework::SignPlugin,
                                public framework::FilterPlugin, public framework::EnqueueExtensions {
 public:
  std::string_view name() const override { return kName; }
  void sign_pod(const api::Pod& pod, framework::PodSignature& sig) const override;
  framework::Status filter(const framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info) override;
  // Its Filter errors only on a missing PreFilter state or node object: the same for every node.
  bool filter_error_depends_on_node() const override { return false; }
  // Node/Add|UpdateNodeTaint (node became schedulable) and Pod/UpdatePodTolerations (QHint on).
  std::vector<framework::ClusterEventWithHint> events_to_register() const override;
};

bool pod_tolerates_unschedulable(const api::Pod& pod);

util::Result<std::shared_ptr<framework::Plugin>> make_node_unschedulable(const framework::PluginArgs& args,
                                                                         framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::nodeunschedulable
