#include "scheduler/plugins/interpodaffinity/interpodaffinity.h"

#include <algorithm>
#include <limits>
#include <tuple>
#include <unordered_map>

#include "api/core.h"
#include "scheduler/config/types.h"

namespace ksched::scheduler::plugins::interpodaffinity {

using framework::AffinityTerm;
using framework::CycleState;
using framework::NodeInfo;
using framework::NodeInfoPtr;
using framework::Status;

namespace {

constexpr std::string_view kPreFilterStateKey = "PreFilterInterPodAffinity";
constexpr std::string_view kPreScoreStateKey = "PreScoreInterPodAffinity";

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
using ValueMap = std::unordered_map<std::string, std::int64_t, StringHash, std::equal_to<>>;

// topology key -> value -> number. Keys are few (one per distinct topologyKey), so they live in
// a vector searched linearly; values are hashed. Zero entries are erased so that emptiness means
// what upstream's map length means.
class TopologyCounts {
 public:
  void add(std::string_view key, std::string_view value, std::int64_t delta) {
    if (delta == 0) return;
    ValueMap& m = values_for(key);
    auto it = m.find(value);
    if (it == m.end()) {
      m.emplace(std::string(value), delta);
      ++entries_;
      return;
    }
    it->second += delta;
    if (it->second == 0) {
      m.erase(it);
      --entries_;
    }
  }
  std::int64_t get(std::string_view key, std::string_view value) const {
    for (const auto& [k, m] : keys_) {
      if (k != key) continue;
      auto it = m.find(value);
      return it == m.end() ? 0 : it->second;
    }
    return 0;
  }
  bool empty() const { return entries_ == 0; }
  const std::vector<std::pair<std::string, ValueMap>>& keys() const { return keys_; }

 private:
  ValueMap& values_for(std::string_view key) {
    for (auto& [k, m] : keys_) {
      if (k == key) return m;
    }
    keys_.emplace_back(std::string(key), ValueMap{});
    return keys_.back().second;
  }
  std::vector<std::pair<std::string, ValueMap>> keys_;
  std::size_t entries_ = 0;
};

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

struct PreFilterState final : framework::StateData {
  std::vector<AffinityTerm> affinityTerms;      // incoming pod's required affinity (namespaces merged)
  std::vector<AffinityTerm> antiAffinityTerms;  // incoming pod's required anti-affinity
  bool podMatchesOwnAffinity = false;           // the "first pod of a group" exception
  api::StringMap namespaceLabels;               // labels of the incoming pod's namespace
  TopologyCounts existingAntiAffinityCounts;
  TopologyCounts affinityCounts;
  TopologyCounts antiAffinityCounts;

  std::shared_ptr<framework::StateData> clone() const override { return std::make_shared<PreFilterState>(*this); }

  void update_with_pod(const framework::PodInfo& updated, const api::Pod& incoming, const api::Node* node,
                       std::int64_t mult) {
    if (node == nullptr) return;
    const auto& nl = node->metadata.labels;
    for (const auto& t : updated.requiredAntiAffinityTerms) {
      if (!t.matches(incoming, &namespaceLabels)) continue;
      if (const auto* v = nl.find(t.topologyKey)) existingAntiAffinityCounts.add(t.topologyKey, *v, mult);
    }
    const api::Pod& up = *updated.pod;
    if (pod_matches_all_terms(affinityTerms, up)) {
      for (const auto& t : affinityTerms) {
        if (const auto* v = nl.find(t.topologyKey)) affinityCounts.add(t.topologyKey, *v, mult);
      }
    }
    // The incoming pod's terms have their namespaceSelector merged, so no namespace labels needed.
    for (const auto& t : antiAffinityTerms) {
      if (!t.matches(up, nullptr)) continue;
      if (const auto* v = nl.find(t.topologyKey)) antiAffinityCounts.add(t.topologyKey, *v, mult);
    }
  }
};

struct PreScoreState final : framework::StateData {
  TopologyCounts topologyScore;
  std::shared_ptr<framework::StateData> clone() const override { return std::make_shared<PreScoreState>(*this); }
};

// One contribution to a (key, value) pair found while scanning a node.
struct Contribution {
  const std::string* key;
  const std::string* value;
  std::int64_t delta;
};

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

  // Existing pods whose required anti-affinity matches the incoming pod: only nodes hosting such pods.
  {
    const auto& with_anti = handle_.snapshot_node_infos().have_pods_with_required_anti_affinity_list();
    const int n = static_cast<int>(with_anti.size());
    std::vector<std::vector<Contribution>> per_node(with_anti.size());
    handle_.parallelizer().until(n, [&](int i) {
      const api::Node* node = with_anti[i]->node();
      if (node == nullptr) return;
      for (const auto& existing : with_anti[i]->podsWithRequiredAntiAffinity) {
        for (const auto& t : existing->requiredAntiAffinityTerms) {
          if (!t.matches(pod, &s->namespaceLabels)) continue;
          if (const auto* v = node->metadata.labels.find(t.topologyKey)) per_node[i].push_back({&t.topologyKey, v, 1});
        }
      }
    });
    for (const auto& cs : per_node) {
      for (const auto& c : cs) s->existingAntiAffinityCounts.add(*c.key, *c.value, c.delta);
    }
  }

  // Existing pods matching the incoming pod's own required terms: every pod on every node.
  const std::size_t na = s->affinityTerms.size();
  const std::size_t nb = s->antiAffinityTerms.size();
  if (na + nb > 0) {
    const int n = static_cast<int>(nodes.size());
    const std::size_t width = 1 + nb;  // [0]: pods matching all affinity terms; [1+j]: anti term j
    std::vector<std::int64_t> counts(nodes.size() * width, 0);
    handle_.parallelizer().until(n, [&](int i) {
      if (nodes[i]->node() == nullptr) return;
      std::int64_t* row = &counts[static_cast<std::size_t>(i) * width];
      for (const auto& existing : nodes[i]->pods) {
        const api::Pod& p = *existing->pod;
        if (na > 0 && pod_matches_all_terms(s->affinityTerms, p)) ++row[0];
        for (std::size_t j = 0; j < nb; ++j) {
          if (s->antiAffinityTerms[j].matches(p, nullptr)) ++row[1 + j];
        }
      }
    });
    for (int i = 0; i < n; ++i) {
      const std::int64_t* row = &counts[static_cast<std::size_t>(i) * width];
      const api::Node* node = nodes[i]->node();
      if (node == nullptr) continue;
      const auto& nl = node->metadata.labels;
      if (row[0] > 0) {
        for (const auto& t : s->affinityTerms) {
          if (const auto* v = nl.find(t.topologyKey)) s->affinityCounts.add(t.topologyKey, *v, row[0]);
        }
      }
      for (std::size_t j = 0; j < nb; ++j) {
        if (row[1 + j] == 0) continue;
        const auto& t = s->antiAffinityTerms[j];
        if (const auto* v = nl.find(t.topologyKey)) s->antiAffinityCounts.add(t.topologyKey, *v, row[1 + j]);
      }
    }
  }

  if (s->existingAntiAffinityCounts.empty() && na == 0 && nb == 0) return Status::skip();
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

Status InterPodAffinity::filter(const CycleState& state, const api::Pod&, const NodeInfo& node_info) {
  const auto* s = state.read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) return Status::error("error reading \"PreFilterInterPodAffinity\" from cycleState: not found");
  const api::Node* node = node_info.node();
  if (node == nullptr) return Status::error("node not found");
  const auto& nl = node->metadata.labels;

  // Incoming pod's affinity: every term's key on the node and a matching pod in that domain.
  bool pods_exist = true;
  for (const auto& t : s->affinityTerms) {
    const std::string* v = nl.find(t.topologyKey);
    if (v == nullptr) return Status::unresolvable(std::string(kErrReasonAffinityRulesNotMatch));
    if (s->affinityCounts.get(t.topologyKey, *v) <= 0) pods_exist = false;
  }
  // The first pod of a group with affinity to itself: allowed when no pod matches anywhere and the
  // pod matches its own terms.
  if (!pods_exist && !(s->affinityCounts.empty() && s->podMatchesOwnAffinity)) {
    return Status::unresolvable(std::string(kErrReasonAffinityRulesNotMatch));
  }

  if (!s->antiAffinityCounts.empty()) {
    for (const auto& t : s->antiAffinityTerms) {
      const std::string* v = nl.find(t.topologyKey);
      if (v != nullptr && s->antiAffinityCounts.get(t.topologyKey, *v) > 0) {
        return Status::unschedulable(std::string(kErrReasonAntiAffinityRulesNotMatch));
      }
    }
  }

  if (!s->existingAntiAffinityCounts.empty()) {
    for (const auto& [key, values] : s->existingAntiAffinityCounts.keys()) {
      if (values.empty()) continue;
      const std::string* v = nl.find(key);
      if (v == nullptr) continue;
      auto it = values.find(std::string_view(*v));
      if (it != values.end() && it->second > 0) {
        return Status::unschedulable(std::string(kErrReasonExistingAntiAffinityRulesNotMatch));
      }
    }
  }
  return {};
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

  const int n = static_cast<int>(all_nodes.size());
  std::vector<std::vector<Contribution>> per_node(all_nodes.size());
  handle_.parallelizer().until(n, [&](int i) {
    const NodeInfo& ni = *all_nodes[i];
    const api::Node* node = ni.node();
    if (node == nullptr || node->metadata.labels.empty()) return;
    const auto& nl = node->metadata.labels;
    auto& out = per_node[i];
    auto process = [&](const AffinityTerm& t, std::int64_t weight, const api::Pod& target,
                       const api::StringMap* target_ns_labels) {
      if (!t.matches(target, target_ns_labels)) return;
      if (const auto* v = nl.find(t.topologyKey)) out.push_back({&t.topologyKey, v, weight});
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
  });

  auto s = std::make_shared<PreScoreState>();
  bool any = false;
  for (const auto& cs : per_node) {
    if (cs.empty()) continue;
    any = true;
    for (const auto& c : cs) s->topologyScore.add(*c.key, *c.value, c.delta);
  }
  // No node produced an entry: the plugin would score 0 everywhere.
  if (!any) return Status::skip();
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
  for (const auto& [key, values] : s->topologyScore.keys()) {
    const std::string* v = node->metadata.labels.find(key);
    if (v == nullptr) continue;
    auto it = values.find(std::string_view(*v));
    if (it != values.end()) out += it->second;
  }
  return {};
}

Status InterPodAffinity::normalize_score(const CycleState& state, const api::Pod&, framework::NodeScoreList& scores) {
  const auto* s = state.read<PreScoreState>(kPreScoreStateKey);
  if (s == nullptr) return Status::error("error reading \"PreScoreInterPodAffinity\" from cycleState: not found");
  if (s->topologyScore.empty()) return {};
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
