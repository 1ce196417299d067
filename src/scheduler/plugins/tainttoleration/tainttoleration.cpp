#include "scheduler/plugins/tainttoleration/tainttoleration.h"

#include "api/helpers.h"
#include "scheduler/framework/plugin_helper.h"
#include "util/log.h"

namespace ksched::scheduler::plugins::tainttoleration {

using framework::ClusterEvent;
using framework::ClusterEventWithHint;
using framework::EventResource;
using framework::QueueingHint;
using framework::Status;
using framework::kTaintEffectPreferNoSchedule;

namespace {

constexpr std::string_view kPreScoreStateKey = "PreScoreTaintToleration";

struct PreScoreState final : framework::StateData {
  std::vector<api::Toleration> tolerationsPreferNoSchedule;
  std::shared_ptr<framework::StateData> clone() const override { return std::make_shared<PreScoreState>(*this); }
  bool read_after_scheduling() const override { return false; }  // Filter/Score only
};

std::vector<api::Toleration> prefer_no_schedule_tolerations(const std::vector<api::Toleration>& all) {
  std::vector<api::Toleration> out;
  for (const auto& t : all) {
    if (t.effect.empty() || t.effect == kTaintEffectPreferNoSchedule) out.push_back(t);
  }
  return out;
}

std::int64_t count_intolerable_prefer_no_schedule(const std::vector<api::Taint>& taints,
                                                  const std::vector<api::Toleration>& tolerations) {
  std::int64_t n = 0;
  for (const auto& taint : taints) {
    if (taint.effect != kTaintEffectPreferNoSchedule) continue;
    if (!framework::taint_tolerated_by_tolerations(taint, tolerations)) ++n;
  }
  return n;
}

// The taint Filter and its queueing hint test (NoSchedule/NoExecute only).
const api::Taint* untolerated_do_not_schedule_taint(const api::Node& node, const api::Pod& pod) {
  return framework::find_matching_untolerated_taint(node.spec.taints, pod.spec.tolerations,
                                                    framework::is_do_not_schedule_taint);
}

}  // namespace

Status TaintToleration::filter(const framework::CycleState&, const api::Pod& pod,
                               const framework::NodeInfo& node_info) {
  const api::Node* node = node_info.node();
  if (node == nullptr) return Status::error("node not found");
  if (!node_info.has_taints()) return {};
  const api::Taint* taint = untolerated_do_not_schedule_taint(*node, pod);
  if (taint == nullptr) return {};
  // Since v1.33 upstream names no taint in the status (one message for every node lets the
  // FitError group them); the taint goes to the V(4) log, and `ksched explain` shows it per node.
  if (auto v = log::V(4); v.enabled()) {
    v.info("node had untolerated taints", {{"node", node->metadata.name},
                                           {"pod", api::key_of(pod)},
                                           {"untoleratedTaint", taint->key + "=" + taint->value + ":" + taint->effect}});
  }
  return Status::unresolvable(std::string(kErrReasonUntolerated));
}

Status TaintToleration::pre_score(framework::CycleState& state, const api::Pod& pod,
                                  const std::vector<framework::NodeInfoPtr>& nodes) {
  if (nodes.empty()) return {};
  auto s = std::make_shared<PreScoreState>();
  s->tolerationsPreferNoSchedule = prefer_no_schedule_tolerations(pod.spec.tolerations);
  state.write(std::string(kPreScoreStateKey), std::move(s));
  return {};
}

Status TaintToleration::score(const framework::CycleState& state, const api::Pod& pod,
                              const framework::NodeInfo& node_info, std::int64_t& score) {
  const api::Node* node = node_info.node();
  if (node == nullptr) return Status::error("node not found");
  if (!node_info.has_taints()) {
    score = 0;
    return {};
  }
  if (const auto* s = state.read<PreScoreState>(kPreScoreStateKey)) {
    score = count_intolerable_prefer_no_schedule(node->spec.taints, s->tolerationsPreferNoSchedule);
    return {};
  }
  // PreScore did not run (e.g. called directly): same answer, computed here.
  score = count_intolerable_prefer_no_schedule(node->spec.taints, prefer_no_schedule_tolerations(pod.spec.tolerations));
  return {};
}

Status TaintToleration::normalize_score(const framework::CycleState&, const api::Pod&,
                                        framework::NodeScoreList& scores) {
  return framework::default_normalize_score(framework::kMaxNodeScore, true, scores);
}

std::vector<ClusterEventWithHint> TaintToleration::events_to_register() const {
  ClusterEventWithHint node_event;
  node_event.event = ClusterEvent{EventResource::Node, framework::kAdd | framework::kUpdateNodeTaint, {}};
  node_event.hint = [](const api::Pod& pod, const std::shared_ptr<const void>& oldObj,
                       const std::shared_ptr<const void>& newObj) {
    const auto* modified = static_cast<const api::Node*>(newObj.get());
    if (modified == nullptr) return QueueingHint::Skip;
    const auto* original = static_cast<const api::Node*>(oldObj.get());
    const bool was_untolerated = original == nullptr || untolerated_do_not_schedule_taint(*original, pod) != nullptr;
    const bool is_untolerated = untolerated_do_not_schedule_taint(*modified, pod) != nullptr;
    return (was_untolerated && !is_untolerated) ? QueueingHint::Queue : QueueingHint::Skip;
  };
  ClusterEventWithHint pod_event;
  pod_event.event = ClusterEvent{EventResource::Pod, framework::kUpdatePodTolerations, {}};
  pod_event.hint = [](const api::Pod& pod, const std::shared_ptr<const void>&, const std::shared_ptr<const void>& newObj) {
    // Tolerations can only be added to an existing pod, so its own update may help it.
    const auto* modified = static_cast<const api::Pod*>(newObj.get());
    if (modified == nullptr || modified->metadata.uid != pod.metadata.uid) return QueueingHint::Skip;
    return QueueingHint::Queue;
  };
  return {std::move(node_event), std::move(pod_event)};
}

util::Result<std::shared_ptr<framework::Plugin>> make_taint_toleration(const framework::PluginArgs&,
                                                                       framework::Handle&) {
  return std::shared_ptr<framework::Plugin>(std::make_shared<TaintToleration>());
}

void TaintToleration::sign_pod(const api::Pod& pod, framework::PodSignature& sig) const {
  framework::sign_tolerations(pod, kName, sig);
}

}  // namespace ksched::scheduler::plugins::tainttoleration
