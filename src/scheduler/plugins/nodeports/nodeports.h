// NodePorts: the pod's container hostPorts must be free on the node (same protocol and port, on
// the same IP or with 0.0.0.0 on either side).
#pragma once
#include <memory>
#include <string_view>

#include "scheduler/framework/interface.h"

namespace ksched::scheduler::plugins::nodeports {

inline constexpr std::string_view kName = "NodePorts";
inline constexpr std::string_view kErrReason = "node(s) didn't have free ports for the requested pod ports";

// A wanted host port with upstream's defaults applied (ip "" → 0.0.0.0, protocol "" → TCP).
struct WantedPort {
  std::string ip;
  std::string protocol;
  std::int32_t port = 0;
};

// hostPort > 0 ports of the pod's (regular) containers, sanitized.
std::vector<WantedPort> host_ports(const api::Pod& pod);
// Whether `a` and `b` clash: same protocol and port, and same IP or either is 0.0.0.0.
bool ports_conflict(const WantedPort& a, const WantedPort& b);
// Upstream nodeports.Fits: none of the pod's host ports is taken on the node.
bool fits(const api::Pod& pod, const framework::NodeInfo& node_info);

class NodePorts final : public framework::SignPlugin,
                        public framework::PreFilterPlugin,
                        public framework::FilterPlugin,
                        public framework::EnqueueExtensions {
 public:
  std::string_view name() const override { return kName; }
  void sign_pod(const api::Pod& pod, framework::PodSignature& sig) const override;
  // Skip when the pod wants no host port; otherwise stores them for Filter.
  framework::Status pre_filter(framework::CycleState& state, const api::Pod& pod,
                               const std::vector<framework::NodeInfoPtr>& nodes,
                               framework::PreFilterResult& result) override;
  framework::Status filter(const framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info) override;
  // Its Filter errors only on a missing PreFilter state or node object: the same for every node.
  bool filter_error_depends_on_node() const override { return false; }
  // Pod/Delete (an assigned pod with a clashing port went away) and Node/Add.
  std::vector<framework::ClusterEventWithHint> events_to_register() const override;
};

util::Result<std::shared_ptr<framework::Plugin>> make_node_ports(const framework::PluginArgs& args,
                                                                 framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::nodeports
