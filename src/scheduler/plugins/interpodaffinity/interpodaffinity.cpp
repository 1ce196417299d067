#include "scheduler/plugins/interpodaffinity/interpodaffinity.h"

#include <algorithm>
#include <limits>

#include "api/core.h"
#include "scheduler/config/types.h"
#include "scheduler/framework/topology_counts.h"

namespace ksched::scheduler::plugins::interpodaffinity {

using framework::AffinityTerm;
using framework::CycleState;
using framework::NodeInfo;
using framework::NodeInfoPtr;
using framework::Status;

// Rejections shared by every node a pod is rejected on (see FixedReasons).
const framework::FixedReasons kFixedErrReasonAffinityRulesNotMatch{std::string(kErrReasonAffinityRulesNotMatch)};
const framework::FixedReasons kFixedErrReasonAntiAffinityRulesNotMatch{std::string(kErrReasonAntiAffinityRulesNotMatch)};
const framework::FixedReasons kFixedErrReasonExistingAntiAffinityRulesNotMatch{std::string(kErrReasonExistingAntiAffinityRulesNotMatch)};
using framework::TopologyCounts;

namespace {

constexpr std::string_view kPreFilterStateKey = "PreFilterInterPodAffinity";
constexpr std::string_view kPreScoreStateKey = "PreScoreInterPodAffinity";

// Upstream podMatchesAllAffinityTerms: false for no terms.
bool pod_matches_all_terms(const std::vector<AffinityTerm>& terms, const api::Pod& pod) {
  if (terms.empty()) return false;
  for (const auto& t : terms) {
    if (!t.matches(pod, nullptr)) return false;
  }
  return true;
}

// A PodInfo over a pod the caller keeps alive (aliasing pointer, no ownership), to reuse the
// framework's term parsing.
framework::PodInfoPtr borrowed_pod_info(const api::Pod& pod) {
  return framework::PodInfo::make(framework::PodPtr(std::shared_ptr<const api::Pod>(), &pod));
}

api::StringMap namespace_labels(const framework::ClusterLister& lister, const std::string& ns) {
  auto n = lister.get_namespace(ns);
  return n ? n->metadata.labels : api::StringMap{};
}

const std::shared_ptr<const TopologyCounts>& empty_counts() {
  static const std::shared_ptr<const TopologyCounts> empty = std::make_shared<TopologyCounts>();
  return empty;
}

struct PreFilterState final : framework::StateData {
  std::vector<AffinityTerm> affinityTerms;      // incoming pod's required affinity (namespaces merged)
  std::vector<AffinityTerm> antiAffinityTerms;  // incoming pod's required anti-affinity
  bool podMatchesOwnAffinity = false;           // the "first pod of a group" exception
  api::StringMap namespaceLabels;               // labels of the incoming pod's namespace
  std::shared_ptr<const TopologyCounts> existingAntiAffinityCounts;
  std::shared_ptr<const TopologyCounts> affinityCounts;
  std::shared_ptr<const TopologyCounts> antiAffinityCounts;

  std::shared_ptr<framework::StateData> clone() const override { return std::make_shared<PreFilterState>(*this); }
  bool read_after_scheduling() const override { return false; }

  void update_with_pod(const framework::PodInfo& updated, const api::Pod& incoming, const api::Node* node,
                       std::int64_t mult) {
    if (node == nullptr) return;
    const auto& nl = node->metadata.labels;
    for (const auto& t : updated.requiredAntiAffinityTerms) {
      if (!t.matches(incoming, &namespaceLabels)) continue;
      if (const auto* v = nl.find(t.topologyKey)) TopologyCounts::writable(existingAntiAffinityCounts).add(t.topologyKey, *v, mult);
    }
    const api::Pod& up = *updated.pod;
    if (pod_matches_all_terms(affinityTerms, up)) {
      for (const auto& t : affinityTerms) {
        if (const auto* v = nl.find(t.topologyKey)) TopologyCounts::writable(affinityCounts).add(t.topologyKey, *v, mult);
      }
    }
    // The incoming pod's terms have their namespaceSelector merged, so no namespace labels needed.
    for (const auto& t : antiAffinityTerms) {
      if (!t.matches(up, nullptr)) continue;
      if (const auto* v = nl.find(t.topologyKey)) TopologyCounts::writable(antiAffinityCounts).add(t.topologyKey, *v, mult);
    }
  }
};

struct PreScoreState final : framework::StateData {
  std::shared_ptr<const TopologyCounts> topologyScore;
  std::shared_ptr<framework::StateData> clone() const override { return std::make_shared<PreScoreState>(*this); }
  bool read_after_scheduling() const override { return false; }
};

using Contribution = framework::TopologyCountsCache::Contribution;

// Cache keys: every input the per-node counting reads besides the node and its pods.
void append_labels(std::string& out, const api::StringMap& labels) {
  for (const auto& [k, v] : labels) {
    out.append(k);
    out.push_back('=');
    out.append(v);
    out.push_back('\0');
  }
  out.push_back('\1');
}

// What existing pods' terms are matched against: the incoming pod's namespace, labels and
// namespace labels.
void append_incoming(std::string& out, const api::Pod& pod, const api::StringMap& namespace_labels) {
  out.append(pod.metadata.namespace_);
  out.push_back('\1');
  append_labels(out, pod.metadata.labels);
  append_labels(out, namespace_labels);
}

void append_term(std::string& out, const AffinityTerm& t, std::int64_t weight) {
  out.append(std::to_string(weight));
  out.push_back('\0');
  for (const auto& ns : t.namespaces) {
    out.append(ns);
    out.push_back(',');
  }
  out.push_back('\0');
  out.push_back(t.selector.is_nothing() ? 'N' : 'S');
  out.append(t.selector.to_string());
  out.push_back('\0');
  out.push_back(t.namespaceSelector.is_nothing() ? 'N' : 'S');
  out.append(t.namespaceSelector.to_string());
  out.push_back('\0');
  out.append(t.topologyKey);
  out.push_back('\1');
}

}  // namespace

void InterPodAffinity::merge_namespaces(std::vector<AffinityTerm*>& terms) const {
  std::vector<std::shared_ptr<const api::Namespace>> all;
  bool listed = false;
  for (AffinityTerm* t : terms) {
    // Empty selector = all namespaces, kept as is; "nothing" adds nothing.
    if (t->namespaceSelector.empty() || t->namespaceSelector.is_nothing()) continue;
    if (!listed) {
      all = handle_.lister().list_namespaces();
      listed = true;
    }
    for (const auto& ns : all) {
      if (t->namespaceSelector.matches(ns->metadata.labels)) t->namespaces.insert(ns->metadata.name);
    }
    t->namespaceSelector = labels::Selector::nothing();
  }
}

// ---------------------------------------------------------------- PreFilter / Filter

Status InterPodAffinity::pre_filter(CycleState& state, const api::Pod& pod, const std::vector<NodeInfoPtr>& nodes,
                                    framework::PreFilterResult&) {
  auto pi = borrowed_pod_info(pod);
  if (!pi->parseError.empty()) return Status::unresolvable("parsing pod: " + pi->parseError);
  auto s = std::make_shared<PreFilterState>();
  s->affinityTerms = pi->requiredAffinityTerms;
  s->antiAffinityTerms = pi->requiredAntiAffinityTerms;
  {
    std::vector<AffinityTerm*> ts;
    for (auto& t : s->affinityTerms) ts.push_back(&t);
    for (auto& t : s->antiAffinityTerms) ts.push_back(&t);
    merge_namespaces(ts);
  }
  s->podMatchesOwnAffinity = pod_matches_all_terms(s->affinityTerms, pod);
  s->namespaceLabels = namespace_labels(handle_.lister(), pod.metadata.namespace_);
  const auto& lister = handle_.snapshot_node_infos();
  std::string key;

  // Existing pods whose required anti-affinity matches the incoming pod: only nodes hosting such pods.
  const auto& with_anti = lister.have_pods_with_required_anti_affinity_list();
  if (with_anti.empty()) {
    s->existingAntiAffinityCounts = empty_counts();
  } else {
    append_incoming(key, pod, s->namespaceLabels);
    auto count = [&](const NodeInfo& ni, std::vector<Contribution>& out) {
      const api::Node* node = ni.node();
      if (node == nullptr) return;
      for (const auto& existing : ni.podsWithRequiredAntiAffinity) {
        for (const auto& t : existing->requiredAntiAffinityTerms) {
          if (!t.matches(pod, &s->namespaceLabels)) continue;
          if (const auto* v = node->metadata.labels.find(t.topologyKey)) out.push_back({&t.topologyKey, *v, 1});
        }
      }
    };
    s->existingAntiAffinityCounts =
        existing_anti_affinity_cache_.get(key, lister, with_anti, handle_.parallelizer(), count);
  }

  // Existing pods matching the incoming pod's own required terms: every pod on every node.
  const std::size_t na = s->affinityTerms.size();
  const std::size_t nb = s->antiAffinityTerms.size();
  if (na == 0) {
    s->affinityCounts = empty_counts();
  } else {
    key.clear();
    for (const auto& t : s->affinityTerms) append_term(key, t, 0);
    auto count = [&](const NodeInfo& ni, std::vector<Contribution>& out) {
      const api::Node* node = ni.node();
      if (node == nullptr) return;
      std::int64_t matching_all = 0;
      for (const auto& existing : ni.pods) {
        if (pod_matches_all_terms(s->affinityTerms, *existing->pod)) ++matching_all;
      }
      if (matching_all == 0) return;
      for (const auto& t : s->affinityTerms) {
        if (const auto* v = node->metadata.labels.find(t.topologyKey)) out.push_back({&t.topologyKey, *v, matching_all});
      }
    };
    s->affinityCounts = affinity_cache_.get(key, lister, nodes, handle_.parallelizer(), count);
  }
  if (nb == 0) {
    s->antiAffinityCounts = empty_counts();
  } else {
    key.clear();
    for (const auto& t : s->antiAffinityTerms) append_term(key, t, 0);
    auto count = [&](const NodeInfo& ni, std::vector<Contribution>& out) {
      const api::Node* node = ni.node();
      if (node == nullptr) return;
      for (const auto& t : s->antiAffinityTerms) {
        const std::string* v = node->metadata.labels.find(t.topologyKey);
        if (v == nullptr) continue;
        std::int64_t matching = 0;
        for (const auto& existing : ni.pods) {
          if (t.matches(*existing->pod, nullptr)) ++matching;
        }
        if (matching > 0) out.push_back({&t.topologyKey, *v, matching});
      }
    };
    s->antiAffinityCounts = anti_affinity_cache_.get(key, lister, nodes, handle_.parallelizer(), count);
  }

  if (s->existingAntiAffinityCounts->empty() && na == 0 && nb == 0) return Status::skip();
  state.write(std::string(kPreFilterStateKey), std::move(s));
  return {};
}

Status InterPodAffinity::add_pod(CycleState& state, const api::Pod& pod_to_schedule,
                                 const framework::PodInfoPtr& pod_to_add, const NodeInfo& node_info) {
  auto* s = state.read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) return Status::error("error reading \"PreFilterInterPodAffinity\" from cycleState: not found");
  s->update_with_pod(*pod_to_add, pod_to_schedule, node_info.node(), 1);
  return {};
}

Status InterPodAffinity::remove_pod(CycleState& state, const api::Pod& pod_to_schedule,
                                    const framework::PodInfoPtr& pod_to_remove, const NodeInfo& node_info) {
  auto* s = state.read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) return Status::error("error reading \"PreFilterInterPodAffinity\" from cycleState: not found");
  s->update_with_pod(*pod_to_remove, pod_to_schedule, node_info.node(), -1);
  return {};
}

namespace {

enum class Verdict { Fits, AffinityNotMatch, AntiAffinityNotMatch, ExistingAntiAffinityNotMatch };

// Filter's decision for a node that has its Node object.
Verdict verdict(const PreFilterState& s, const NodeInfo& node_info, const api::Node& node) {
  // Incoming pod's affinity: every term's key on the node and a matching pod in that domain.
  if (!s.affinityTerms.empty()) {
    const auto& nl = node.metadata.labels;
    bool pods_exist = true;
    for (const auto& t : s.affinityTerms) {
      const std::string* v = nl.find(t.topologyKey);
      if (v == nullptr) return Verdict::AffinityNotMatch;
      if (s.affinityCounts->get(t.topologyKey, *v) <= 0) pods_exist = false;
    }
    // The first pod of a group with affinity to itself: allowed when no pod matches anywhere and
    // the pod matches its own terms.
    if (!pods_exist && !(s.affinityCounts->empty() && s.podMatchesOwnAffinity)) return Verdict::AffinityNotMatch;
  }
  // The counts hold exactly the terms' topology keys, so "some term's domain holds a matching
  // pod" is one lookup per distinct key.
  if (!s.antiAffinityCounts->empty() && s.antiAffinityCounts->any_positive_for(node_info)) {
    return Verdict::AntiAffinityNotMatch;
  }
  if (!s.existingAntiAffinityCounts->empty() && s.existingAntiAffinityCounts->any_positive_for(node_info)) {
    return Verdict::ExistingAntiAffinityNotMatch;
  }
  return Verdict::Fits;
}

bool quick_rejects(const void* data, const NodeInfo& node_info) {
  const api::Node* node = node_info.node();
  return node != nullptr && verdict(*static_cast<const PreFilterState*>(data), node_info, *node) != Verdict::Fits;
}

// The verdict by position, for a state that answers by position (answers_by_position below).
bool quick_rejects_at(const void* data, std::uint32_t position) {
  const auto& s = *static_cast<const PreFilterState*>(data);
  return (!s.antiAffinityCounts->empty() && s.antiAffinityCounts->any_positive_at(position)) ||
         (!s.existingAntiAffinityCounts->empty() && s.existingAntiAffinityCounts->any_positive_at(position));
}

// No required affinity, and both anti-affinity counts empty or kept by position for hostnames only.
bool answers_by_position(const PreFilterState& s) {
  return s.affinityTerms.empty() && (s.antiAffinityCounts->empty() || s.antiAffinityCounts->answers_by_position()) &&
         (s.existingAntiAffinityCounts->empty() || s.existingAntiAffinityCounts->answers_by_position());
}

}  // namespace

Status InterPodAffinity::filter(const CycleState& state, const api::Pod&, const NodeInfo& node_info) {
  const auto* s = state.read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) return Status::error("error reading \"PreFilterInterPodAffinity\" from cycleState: not found");
  const api::Node* node = node_info.node();
  if (node == nullptr) return Status::error("node not found");
  switch (verdict(*s, node_info, *node)) {
    case Verdict::Fits:
      return {};
    case Verdict::AffinityNotMatch:
      return Status(framework::Code::UnschedulableAndUnresolvable, kFixedErrReasonAffinityRulesNotMatch);
    case Verdict::AntiAffinityNotMatch:
      return Status(framework::Code::Unschedulable, kFixedErrReasonAntiAffinityRulesNotMatch);
    case Verdict::ExistingAntiAffinityNotMatch:
      return Status(framework::Code::Unschedulable, kFixedErrReasonExistingAntiAffinityRulesNotMatch);
  }
  return {};
}

framework::QuickReject InterPodAffinity::quick_reject(const CycleState& state, const api::Pod&) const {
  const auto* s = state.read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) return {};  // skipped, or Filter will report the missing state
  return {&quick_rejects, s, answers_by_position(*s) ? &quick_rejects_at : nullptr};
}

// ---------------------------------------------------------------- PreScore / Score

Status InterPodAffinity::pre_score(CycleState& state, const api::Pod& pod, const std::vector<NodeInfoPtr>& nodes) {
  if (nodes.empty()) return Status::skip();
  const auto& aff = pod.spec.affinity;
  const bool has_preferred_affinity =
      aff && aff->podAffinity && !aff->podAffinity->preferredDuringSchedulingIgnoredDuringExecution.empty();
  const bool has_preferred_anti =
      aff && aff->podAntiAffinity && !aff->podAntiAffinity->preferredDuringSchedulingIgnoredDuringExecution.empty();
  const bool has_constraints = has_preferred_affinity || has_preferred_anti;
  if (ignorePreferredTermsOfExistingPods_ && !has_constraints) return Status::skip();

  // Unless the pod has preferred terms, only nodes hosting pods with affinity matter.
  const auto& lister = handle_.snapshot_node_infos();
  const auto& all_nodes = has_constraints ? lister.list() : lister.have_pods_with_affinity_list();

  auto pi = borrowed_pod_info(pod);
  if (!pi->parseError.empty()) return Status::error("failed to parse pod: " + pi->parseError);
  std::vector<framework::WeightedAffinityTerm> preferred = pi->preferredAffinityTerms;
  std::vector<framework::WeightedAffinityTerm> preferred_anti = pi->preferredAntiAffinityTerms;
  {
    std::vector<AffinityTerm*> ts;
    for (auto& t : preferred) ts.push_back(&t.term);
    for (auto& t : preferred_anti) ts.push_back(&t.term);
    merge_namespaces(ts);
  }
  const api::StringMap ns_labels = namespace_labels(handle_.lister(), pod.metadata.namespace_);
  const std::int32_t hard_weight = hardPodAffinityWeight_;

  if (all_nodes.empty()) return Status::skip();

  std::string key(has_constraints ? "P" : "A");
  append_incoming(key, pod, ns_labels);
  for (const auto& wt : preferred) append_term(key, wt.term, wt.weight);
  key.push_back('\2');
  for (const auto& wt : preferred_anti) append_term(key, wt.term, wt.weight);
  auto count = [&](const NodeInfo& ni, std::vector<Contribution>& out) {
    const api::Node* node = ni.node();
    if (node == nullptr || node->metadata.labels.empty()) return;
    const auto& nl = node->metadata.labels;
    auto process = [&](const AffinityTerm& t, std::int64_t weight, const api::Pod& target,
                       const api::StringMap* target_ns_labels) {
      if (!t.matches(target, target_ns_labels)) return;
      if (const auto* v = nl.find(t.topologyKey)) out.push_back({&t.topologyKey, *v, weight});
    };
    const auto& pods = has_constraints ? ni.pods : ni.podsWithAffinity;
    for (const auto& existing : pods) {
      const api::Pod& ep = *existing->pod;
      // Incoming pod's preferred terms matched by the existing pod.
      for (const auto& wt : preferred) process(wt.term, wt.weight, ep, nullptr);
      for (const auto& wt : preferred_anti) process(wt.term, -static_cast<std::int64_t>(wt.weight), ep, nullptr);
      // Existing pod's terms matched by the incoming pod.
      if (hard_weight > 0) {
        for (const auto& t : existing->requiredAffinityTerms) process(t, hard_weight, pod, &ns_labels);
      }
      for (const auto& wt : existing->preferredAffinityTerms) process(wt.term, wt.weight, pod, &ns_labels);
      for (const auto& wt : existing->preferredAntiAffinityTerms) {
        process(wt.term, -static_cast<std::int64_t>(wt.weight), pod, &ns_labels);
      }
    }
  };
  auto s = std::make_shared<PreScoreState>();
  s->topologyScore = score_cache_.get(key, lister, all_nodes, handle_.parallelizer(), count);
  // No domain has a score: the plugin would score 0 everywhere.
  if (s->topologyScore->empty()) return Status::skip();
  state.write(std::string(kPreScoreStateKey), std::move(s));
  return {};
}

Status InterPodAffinity::score(const CycleState& state, const api::Pod&, const NodeInfo& node_info,
                               std::int64_t& out) {
  out = 0;
  const auto* s = state.read<PreScoreState>(kPreScoreStateKey);
  if (s == nullptr) return Status::error("error reading \"PreScoreInterPodAffinity\" from cycleState: not found");
  const api::Node* node = node_info.node();
  if (node == nullptr) return Status::error("node not found");
  out = s->topologyScore->sum_for(node_info);
  return {};
}

Status InterPodAffinity::normalize_score(const CycleState& state, const api::Pod&, framework::NodeScoreList& scores) {
  const auto* s = state.read<PreScoreState>(kPreScoreStateKey);
  if (s == nullptr) return Status::error("error reading \"PreScoreInterPodAffinity\" from cycleState: not found");
  if (s->topologyScore->empty()) return {};
  std::int64_t min_count = std::numeric_limits<std::int64_t>::max();
  std::int64_t max_count = std::numeric_limits<std::int64_t>::min();
  for (const auto& ns : scores) {
    min_count = std::min(min_count, ns.score);
    max_count = std::max(max_count, ns.score);
  }
  const std::int64_t diff = max_count - min_count;
  for (auto& ns : scores) {
    double f = 0;
    if (diff > 0) {
      f = static_cast<double>(framework::kMaxNodeScore) *
          (static_cast<double>(ns.score - min_count) / static_cast<double>(diff));
    }
    ns.score = static_cast<std::int64_t>(f);
  }
  return {};
}

// ---------------------------------------------------------------- queueing hints

std::vector<framework::ClusterEventWithHint> InterPodAffinity::events_to_register() const {
  using framework::QueueingHint;
  std::vector<framework::ClusterEventWithHint> out(2);
  out[0].event = framework::ClusterEvent{framework::EventResource::Pod,
                                         framework::kAdd | framework::kUpdatePodLabel | framework::kDelete, "Pod"};
  out[0].hint = [](const api::Pod& pod, const std::shared_ptr<const void>& oldObj,
                   const std::shared_ptr<const void>& newObj) {
    const auto* original = static_cast<const api::Pod*>(oldObj.get());
    const auto* modified = static_cast<const api::Pod*>(newObj.get());
    if ((modified && modified->spec.nodeName.empty()) || (original && original->spec.nodeName.empty())) {
      return QueueingHint::Skip;
    }
    auto pi = borrowed_pod_info(pod);
    if (!pi->parseError.empty()) return QueueingHint::Queue;
    const auto& terms = pi->requiredAffinityTerms;
    const auto& anti = pi->requiredAntiAffinityTerms;
    if (modified && original) {
      if (!pod_matches_all_terms(terms, *original) && pod_matches_all_terms(terms, *modified)) {
        return QueueingHint::Queue;
      }
      if (pod_matches_all_terms(anti, *original) && !pod_matches_all_terms(anti, *modified)) {
        return QueueingHint::Queue;
      }
      return QueueingHint::Skip;
    }
    if (modified) return pod_matches_all_terms(terms, *modified) ? QueueingHint::Queue : QueueingHint::Skip;
    if (original) return pod_matches_all_terms(anti, *original) ? QueueingHint::Queue : QueueingHint::Skip;
    return QueueingHint::Queue;
  };
  // With queueing hints on there is no preCheck, so node taint updates need not be registered.
  out[1].event =
      framework::ClusterEvent{framework::EventResource::Node, framework::kAdd | framework::kUpdateNodeLabel, "Node"};
  out[1].hint = [](const api::Pod& pod, const std::shared_ptr<const void>&, const std::shared_ptr<const void>& newObj) {
    const auto* modified = static_cast<const api::Node*>(newObj.get());
    if (modified == nullptr) return QueueingHint::Queue;
    auto pi = borrowed_pod_info(pod);
    if (!pi->parseError.empty()) return QueueingHint::Queue;
    for (const auto& t : pi->requiredAffinityTerms) {
      if (modified->metadata.labels.contains(t.topologyKey)) return QueueingHint::Queue;
    }
    for (const auto& t : pi->requiredAntiAffinityTerms) {
      if (modified->metadata.labels.contains(t.topologyKey)) return QueueingHint::Queue;
    }
    return QueueingHint::Skip;
  };
  return out;
}

util::Result<std::shared_ptr<framework::Plugin>> make_inter_pod_affinity(const framework::PluginArgs& args,
                                                                         framework::Handle& handle) {
  const auto* a = args.as<config::InterPodAffinityArgs>();
  config::InterPodAffinityArgs defaults;
  if (a == nullptr) a = &defaults;
  if (a->hardPodAffinityWeight < 0 || a->hardPodAffinityWeight > 100) {
    return util::make_error("hardPodAffinityWeight: Invalid value: " + std::to_string(a->hardPodAffinityWeight) +
                            ": not in valid range [0-100]");
  }
  return std::shared_ptr<framework::Plugin>(
      std::make_shared<InterPodAffinity>(handle, a->hardPodAffinityWeight, a->ignorePreferredTermsOfExistingPods));
}

// A pod with affinity terms of its own depends on where other pods are; without them, only on
// which existing pods' terms match its labels and namespace.
void InterPodAffinity::sign_pod(const api::Pod& pod, framework::PodSignature& sig) const {
  if (pod.spec.affinity && (pod.spec.affinity->podAffinity || pod.spec.affinity->podAntiAffinity)) {
    sig.set_unsignable();
    return;
  }
  std::string text(pod.metadata.namespace_);
  text.push_back('\0');
  for (const auto& [k, v] : pod.metadata.labels) {
    text.append(k);
    text.push_back('=');
    text.append(v);
    text.push_back('\0');
  }
  sig.add(kName, text);
}

}  // namespace ksched::scheduler::plugins::interpodaffinity
