#include "scheduler/plugins/nodedeclaredfeatures/nodedeclaredfeatures.h"

#include <algorithm>

#include <boost/json.hpp>

#include "scheduler/config/features.h"

namespace ksched::scheduler::plugins::nodedeclaredfeatures {

using framework::ClusterEvent;
using framework::ClusterEventWithHint;
using framework::QueueingHint;
using framework::Status;

namespace {

constexpr std::string_view kPreFilterStateKey = "PreFilterNodeDeclaredFeatures";
constexpr std::string_view kRestartAllContainers = "RestartAllContainers";

struct PreFilterState final : framework::StateData {
  std::vector<std::string> required;
  std::shared_ptr<framework::StateData> clone() const override { return std::make_shared<PreFilterState>(*this); }
  bool read_after_scheduling() const override { return false; }  // Filter only
};

// restartPolicyRules is not modelled in api::Container (it is alpha, and rare): read it from the
// container's unmodelled members. A rule is {"action": ..., "exitCodes": {...}}.
bool restarts_all_containers(const api::Container& c) {
  for (auto [key, raw] : c.extra.fields) {
    if (key != "restartPolicyRules") continue;
    boost::system::error_code ec;
    auto v = boost::json::parse(raw, ec);
    if (ec || !v.is_array()) return false;
    for (const auto& rule : v.as_array()) {
      if (!rule.is_object()) continue;
      const auto* action = rule.as_object().if_contains("action");
      if (action != nullptr && action->is_string() && action->as_string() == kRestartAllContainers) return true;
    }
    return false;
  }
  return false;
}

bool requires_restart_all_containers(const api::Pod& pod) {
  return std::any_of(pod.spec.containers.begin(), pod.spec.containers.end(), restarts_all_containers) ||
         std::any_of(pod.spec.initContainers.begin(), pod.spec.initContainers.end(), restarts_all_containers);
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) {
    if (!out.empty()) out += ", ";
    out += s;
  }
  return out;
}

}  // namespace

std::vector<std::string> infer_for_pod_scheduling(const api::Pod& pod) {
  std::vector<std::string> out;
  if (requires_restart_all_containers(pod)) out.emplace_back(kRestartAllContainersOnContainerExits);
  return out;
}

std::vector<std::string> unsatisfied(const std::vector<std::string>& required, const std::vector<std::string>& declared) {
  std::vector<std::string> out;
  for (const auto& r : required) {
    if (std::find(declared.begin(), declared.end(), r) == declared.end()) out.push_back(r);
  }
  return out;
}

void NodeDeclaredFeatures::sign_pod(const api::Pod& pod, framework::PodSignature& sig) const {
  if (!enabled_) return;
  std::string text;
  for (const auto& f : infer_for_pod_scheduling(pod)) {
    text.append(f);
    text.push_back('\0');
  }
  sig.add(kName, text);
}

Status NodeDeclaredFeatures::pre_filter(framework::CycleState& state, const api::Pod& pod,
                                        const std::vector<framework::NodeInfoPtr>&, framework::PreFilterResult&) {
  if (!enabled_) return Status::skip();
  auto s = std::make_shared<PreFilterState>();
  s->required = infer_for_pod_scheduling(pod);
  if (s->required.empty()) return Status::skip();
  state.write(std::string(kPreFilterStateKey), std::move(s));
  return {};
}

Status NodeDeclaredFeatures::filter(const framework::CycleState& state, const api::Pod&,
                                    const framework::NodeInfo& node_info) {
  if (!enabled_) return {};
  const auto* s = state.read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) return Status::error("error reading \"PreFilterNodeDeclaredFeatures\" from cycle-state: not found");
  static const std::vector<std::string> kNone;
  const auto missing = unsatisfied(s->required, node_info.node() ? node_info.node()->status.declaredFeatures : kNone);
  if (missing.empty()) return {};
  return Status::unresolvable("node declared features check failed - unsatisfied requirements: " + join(missing));
}

std::vector<ClusterEventWithHint> NodeDeclaredFeatures::events_to_register() const {
  if (!enabled_) return {};
  ClusterEventWithHint node_changed;
  node_changed.event =
      ClusterEvent{framework::EventResource::Node, framework::kAdd | framework::kUpdateNodeDeclaredFeature, {}};
  node_changed.hint = [](const api::Pod&, const std::shared_ptr<const void>& oldObj,
                         const std::shared_ptr<const void>& newObj) {
    const auto* before = static_cast<const api::Node*>(oldObj.get());
    const auto* after = static_cast<const api::Node*>(newObj.get());
    if (before != nullptr && after != nullptr && before->status.declaredFeatures == after->status.declaredFeatures) {
      return QueueingHint::Skip;
    }
    return QueueingHint::Queue;
  };
  ClusterEventWithHint pod_updated;
  pod_updated.event = ClusterEvent{framework::EventResource::Pod, framework::kUpdate, {}};
  pod_updated.hint = [](const api::Pod& pod, const std::shared_ptr<const void>& oldObj,
                        const std::shared_ptr<const void>& newObj) {
    const auto* before = static_cast<const api::Pod*>(oldObj.get());
    const auto* after = static_cast<const api::Pod*>(newObj.get());
    if (after == nullptr || after->metadata.uid != pod.metadata.uid) return QueueingHint::Skip;  // another pod
    if (before == nullptr) return QueueingHint::Queue;
    return infer_for_pod_scheduling(*before) == infer_for_pod_scheduling(*after) ? QueueingHint::Skip
                                                                                   : QueueingHint::Queue;
  };
  return {std::move(node_changed), std::move(pod_updated)};
}

util::Result<std::shared_ptr<framework::Plugin>> make_node_declared_features(const framework::PluginArgs&,
                                                                             framework::Handle&) {
  return std::shared_ptr<framework::Plugin>(
      std::make_shared<NodeDeclaredFeatures>(config::features().nodeDeclaredFeatures));
}

}  // namespace ksched::scheduler::plugins::nodedeclaredfeatures
