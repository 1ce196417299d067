#include "scheduler/plugins/nodeports/nodeports.h"

namespace ksched::scheduler::plugins::nodeports {

using framework::ClusterEvent;
using framework::ClusterEventWithHint;
using framework::QueueingHint;
using framework::Status;

// Rejections shared by every node a pod is rejected on (see FixedReasons).
const framework::FixedReasons kFixedErrReason{std::string(kErrReason)};

namespace {

constexpr std::string_view kPreFilterStateKey = "PreFilterNodePorts";
constexpr std::string_view kDefaultIP = "0.0.0.0";
constexpr std::string_view kDefaultProtocol = "TCP";

struct PreFilterState final : framework::StateData {
  std::vector<WantedPort> ports;
  std::shared_ptr<framework::StateData> clone() const override { return std::make_shared<PreFilterState>(*this); }
  bool read_after_scheduling() const override { return false; }  // Filter/Score only
};

bool fits_ports(const std::vector<WantedPort>& wanted, const framework::NodeInfo& node_info) {
  for (const auto& p : wanted) {
    if (node_info.usedPorts.check_conflict(p.ip, p.protocol, p.port)) return false;
  }
  return true;
}

}  // namespace

bool fits(const api::Pod& pod, const framework::NodeInfo& node_info) { return fits_ports(host_ports(pod), node_info); }

std::vector<WantedPort> host_ports(const api::Pod& pod) {
  std::vector<WantedPort> out;
  for (const auto& c : pod.spec.containers) {
    for (const auto& p : c.ports) {
      if (p.hostPort <= 0) continue;
      out.push_back(WantedPort{p.hostIP.empty() ? std::string(kDefaultIP) : p.hostIP,
                               p.protocol.empty() ? std::string(kDefaultProtocol) : p.protocol, p.hostPort});
    }
  }
  return out;
}

bool ports_conflict(const WantedPort& a, const WantedPort& b) {
  if (a.port != b.port || a.protocol != b.protocol) return false;
  return a.ip == b.ip || a.ip == kDefaultIP || b.ip == kDefaultIP;
}

Status NodePorts::pre_filter(framework::CycleState& state, const api::Pod& pod,
                             const std::vector<framework::NodeInfoPtr>&, framework::PreFilterResult&) {
  auto s = std::make_shared<PreFilterState>();
  s->ports = host_ports(pod);
  if (s->ports.empty()) return Status::skip();
  state.write(std::string(kPreFilterStateKey), std::move(s));
  return {};
}

Status NodePorts::filter(const framework::CycleState& state, const api::Pod& pod,
                         const framework::NodeInfo& node_info) {
  const auto* s = state.read<PreFilterState>(kPreFilterStateKey);
  const bool fits = s ? fits_ports(s->ports, node_info) : fits_ports(host_ports(pod), node_info);
  if (!fits) return Status(framework::Code::Unschedulable, kFixedErrReason);
  return {};
}

std::vector<ClusterEventWithHint> NodePorts::events_to_register() const {
  ClusterEventWithHint pod_deleted;
  pod_deleted.event = ClusterEvent{framework::EventResource::Pod, framework::kDelete, {}};
  pod_deleted.hint = [](const api::Pod& pod, const std::shared_ptr<const void>& oldObj,
                        const std::shared_ptr<const void>&) {
    const auto* deleted = static_cast<const api::Pod*>(oldObj.get());
    // Only an assigned pod held ports on a node.
    if (deleted == nullptr || deleted->spec.nodeName.empty()) return QueueingHint::Skip;
    const auto freed = host_ports(*deleted);
    for (const auto& want : host_ports(pod)) {
      for (const auto& f : freed) {
        if (ports_conflict(want, f)) return QueueingHint::Queue;
      }
    }
    return QueueingHint::Skip;
  };
  ClusterEventWithHint node_added;
  node_added.event = ClusterEvent{framework::EventResource::Node, framework::kAdd, {}};
  return {std::move(pod_deleted), std::move(node_added)};
}

util::Result<std::shared_ptr<framework::Plugin>> make_node_ports(const framework::PluginArgs&, framework::Handle&) {
  return std::shared_ptr<framework::Plugin>(std::make_shared<NodePorts>());
}

void NodePorts::sign_pod(const api::Pod& pod, framework::PodSignature& sig) const {
  std::string text;
  for (const auto& p : host_ports(pod)) {
    text.append(p.ip);
    text.push_back('/');
    text.append(p.protocol);
    text.push_back('/');
    text.append(std::to_string(p.port));
    text.push_back('\0');
  }
  sig.add(kName, text);
}

}  // namespace ksched::scheduler::plugins::nodeports
