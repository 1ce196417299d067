#include "scheduler/plugins/nodeaffinity/nodeaffinity.h"

#include <algorithm>
#include <set>

#include "api/codec.h"
#include "scheduler/config/types.h"

namespace ksched::scheduler::plugins::nodeaffinity {

using framework::ClusterEvent;
using framework::ClusterEventWithHint;
using framework::QueueingHint;
using framework::NodeSelectorMatcher;
using framework::PreferredSchedulingTerms;
using framework::RequiredNodeAffinity;
using framework::Status;

// Rejections shared by every node a pod is rejected on (see FixedReasons).
const framework::FixedReasons kFixedErrReasonConflict{std::string(kErrReasonConflict)};
const framework::FixedReasons kFixedErrReasonEnforced{std::string(kErrReasonEnforced)};
const framework::FixedReasons kFixedErrReasonPod{std::string(kErrReasonPod)};

namespace {

constexpr std::string_view kPreFilterStateKey = "PreFilterNodeAffinity";
constexpr std::string_view kPreScoreStateKey = "PreScoreNodeAffinity";

struct PreFilterState final : framework::StateData {
  explicit PreFilterState(const api::Pod& pod) : required(pod) {}
  RequiredNodeAffinity required;
  std::shared_ptr<framework::StateData> clone() const override { return std::make_shared<PreFilterState>(*this); }
  bool read_after_scheduling() const override { return false; }  // Filter/Score only
};

struct PreScoreState final : framework::StateData {
  std::optional<PreferredSchedulingTerms> preferred;
  std::shared_ptr<framework::StateData> clone() const override { return std::make_shared<PreScoreState>(*this); }
  bool read_after_scheduling() const override { return false; }  // Filter/Score only
};

bool has_required_node_affinity(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  return a && a->nodeAffinity && a->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution;
}

// Pod's preferred terms, or nullopt when it has none. Parse errors become an Error status.
util::Result<std::optional<PreferredSchedulingTerms>> pod_preferred(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  if (!a || !a->nodeAffinity || a->nodeAffinity->preferredDuringSchedulingIgnoredDuringExecution.empty()) {
    return std::optional<PreferredSchedulingTerms>();
  }
  PreferredSchedulingTerms terms(a->nodeAffinity->preferredDuringSchedulingIgnoredDuringExecution,
                                 "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution");
  if (!terms.errors().empty()) return util::make_error(terms.error_string());
  return std::optional<PreferredSchedulingTerms>(std::move(terms));
}

}  // namespace

util::Result<std::shared_ptr<NodeAffinity>> NodeAffinity::create(const std::optional<api::NodeAffinity>& added) {
  auto pl = std::make_shared<NodeAffinity>();
  if (added) {
    if (added->requiredDuringSchedulingIgnoredDuringExecution) {
      NodeSelectorMatcher m(*added->requiredDuringSchedulingIgnoredDuringExecution);
      if (!m.errors().empty()) {
        return util::make_error("parsing addedAffinity.requiredDuringSchedulingIgnoredDuringExecution: " + m.error_string());
      }
      pl->addedNodeSelector_ = std::move(m);
    }
    if (!added->preferredDuringSchedulingIgnoredDuringExecution.empty()) {
      PreferredSchedulingTerms p(added->preferredDuringSchedulingIgnoredDuringExecution, "");
      if (!p.errors().empty()) {
        return util::make_error("parsing addedAffinity.preferredDuringSchedulingIgnoredDuringExecution: " + p.error_string());
      }
      pl->addedPrefSchedTerms_ = std::move(p);
    }
  }
  return pl;
}

Status NodeAffinity::pre_filter(framework::CycleState& state, const api::Pod& pod,
                                const std::vector<framework::NodeInfoPtr>&, framework::PreFilterResult& result) {
  const bool no_node_affinity = !has_required_node_affinity(pod);
  if (no_node_affinity && !addedNodeSelector_ && pod.spec.nodeSelector.empty()) return Status::skip();

  state.write(std::string(kPreFilterStateKey), std::make_shared<PreFilterState>(pod));
  if (no_node_affinity) return {};
  const auto& terms = pod.spec.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution->nodeSelectorTerms;
  if (terms.empty()) return {};

  // Terms are ORed: the node set is the union over terms, each term being the intersection of its
  // metadata.name In lists. One term without such a requirement allows every node.
  std::set<std::string> names;
  for (const auto& t : terms) {
    std::optional<std::set<std::string>> term_names;
    for (const auto& r : t.matchFields) {
      if (r.key != kObjectNameField || r.operator_ != "In") continue;
      std::set<std::string> s(r.values.begin(), r.values.end());
      if (!term_names) {
        term_names = std::move(s);
      } else {
        std::set<std::string> both;
        std::set_intersection(term_names->begin(), term_names->end(), s.begin(), s.end(),
                              std::inserter(both, both.begin()));
        term_names = std::move(both);
      }
    }
    if (!term_names) return {};
    names.insert(term_names->begin(), term_names->end());
  }
  if (names.empty()) return Status(framework::Code::UnschedulableAndUnresolvable, kFixedErrReasonConflict);
  result.nodeNames = std::move(names);
  return {};
}

Status NodeAffinity::filter(const framework::CycleState& state, const api::Pod& pod,
                            const framework::NodeInfo& node_info) {
  const api::Node* node = node_info.node();
  if (node == nullptr) return Status::error("node not found");
  if (addedNodeSelector_ && !addedNodeSelector_->matches(*node)) {
    return Status(framework::Code::UnschedulableAndUnresolvable, kFixedErrReasonEnforced);
  }
  bool match;
  if (const auto* s = state.read<PreFilterState>(kPreFilterStateKey)) {
    match = s->required.matches(*node);
  } else {
    // PreFilter disabled: compute here (parse errors are ignored, as upstream does).
    match = RequiredNodeAffinity(pod).matches(*node);
  }
  if (!match) return Status(framework::Code::UnschedulableAndUnresolvable, kFixedErrReasonPod);
  return {};
}

Status NodeAffinity::pre_score(framework::CycleState& state, const api::Pod& pod,
                               const std::vector<framework::NodeInfoPtr>& nodes) {
  if (nodes.empty()) return {};
  auto preferred = pod_preferred(pod);
  if (!preferred.ok()) return Status::error(preferred.error());
  if (!preferred->has_value() && !addedPrefSchedTerms_) return Status::skip();
  auto s = std::make_shared<PreScoreState>();
  s->preferred = std::move(*preferred);
  state.write(std::string(kPreScoreStateKey), std::move(s));
  return {};
}

Status NodeAffinity::score(const framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info, std::int64_t& score) {
  const api::Node* node = node_info.node();
  if (node == nullptr) return Status::error("node not found");
  std::int64_t count = 0;
  if (addedPrefSchedTerms_) count += addedPrefSchedTerms_->score(*node);
  if (const auto* s = state.read<PreScoreState>(kPreScoreStateKey)) {
    if (s->preferred) count += s->preferred->score(*node);
  } else {
    auto preferred = pod_preferred(pod);
    if (!preferred.ok()) return Status::error(preferred.error());
    if (preferred->has_value()) count += (*preferred)->score(*node);
  }
  score = count;
  return {};
}

Status NodeAffinity::normalize_score(const framework::CycleState&, const api::Pod&, framework::NodeScoreList& scores) {
  return framework::default_normalize_score(framework::kMaxNodeScore, false, scores);
}

std::vector<ClusterEventWithHint> NodeAffinity::events_to_register() const {
  ClusterEventWithHint e;
  e.event = ClusterEvent{framework::EventResource::Node, framework::kAdd | framework::kUpdateNodeLabel, {}};
  e.hint = [added = addedNodeSelector_](const api::Pod& pod, const std::shared_ptr<const void>& oldObj,
                                        const std::shared_ptr<const void>& newObj) {
    const auto* modified = static_cast<const api::Node*>(newObj.get());
    if (modified == nullptr) return QueueingHint::Skip;
    if (added && !added->matches(*modified)) return QueueingHint::Skip;
    RequiredNodeAffinity required(pod);
    if (!required.matches(*modified)) return QueueingHint::Skip;
    const auto* original = static_cast<const api::Node*>(oldObj.get());
    if (original == nullptr) return QueueingHint::Queue;
    // Matched before too: this update is not what was blocking the pod.
    return required.matches(*original) ? QueueingHint::Skip : QueueingHint::Queue;
  };
  return {std::move(e)};
}

util::Result<std::shared_ptr<framework::Plugin>> make_node_affinity(const framework::PluginArgs& args,
                                                                    framework::Handle&) {
  std::optional<api::NodeAffinity> added;
  if (const auto* a = args.as<config::NodeAffinityArgs>()) added = a->addedAffinity;
  auto pl = NodeAffinity::create(added);
  if (!pl.ok()) return util::make_error(pl.error());
  return std::shared_ptr<framework::Plugin>(std::move(pl.value()));
}

void NodeAffinity::sign_pod(const api::Pod& pod, framework::PodSignature& sig) const {
  std::string text;
  for (const auto& [k, v] : pod.spec.nodeSelector) {
    text.append(k);
    text.push_back('=');
    text.append(v);
    text.push_back('\0');
  }
  if (pod.spec.affinity && pod.spec.affinity->nodeAffinity) {
    api::Affinity only_node;
    only_node.nodeAffinity = pod.spec.affinity->nodeAffinity;
    api::encode_to(text, only_node);
  }
  sig.add(kName, text);
}

}  // namespace ksched::scheduler::plugins::nodeaffinity
