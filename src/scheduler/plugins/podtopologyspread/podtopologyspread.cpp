#include "scheduler/plugins/podtopologyspread/podtopologyspread.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <unordered_set>

#include "scheduler/config/types.h"
#include "scheduler/framework/plugin_helper.h"
#include "scheduler/framework/topology_counts.h"

namespace ksched::scheduler::plugins::podtopologyspread {

using framework::CycleState;
using framework::NodeInfo;
using framework::NodeInfoPtr;
using framework::Status;

// Rejections shared by every node a pod is rejected on (see FixedReasons).
const framework::FixedReasons kFixedErrReasonNodeLabelNotMatch{std::string(kErrReasonNodeLabelNotMatch)};
const framework::FixedReasons kFixedErrReasonConstraintsNotMatch{std::string(kErrReasonConstraintsNotMatch)};

namespace {

constexpr std::string_view kPreFilterStateKey = "PreFilterPodTopologySpread";
constexpr std::string_view kPreScoreStateKey = "PreScorePodTopologySpread";
constexpr std::string_view kDoNotSchedule = "DoNotSchedule";
constexpr std::string_view kScheduleAnyway = "ScheduleAnyway";

// Heterogeneous lookup so Filter/Score can probe with the node's label value without copying it.
struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
using NameSet = std::unordered_set<std::string, StringHash, std::equal_to<>>;

bool node_has_all_keys(const api::StringMap& node_labels, const std::vector<Constraint>& constraints) {
  for (const auto& c : constraints) {
    if (!node_labels.contains(c.topologyKey)) return false;
  }
  return true;
}

// Evaluates node inclusion policies lazily: node affinity and taints are per pod, not per constraint.
class NodeInclusion {
 public:
  NodeInclusion(const api::Pod& pod, const api::Node& node, const framework::RequiredNodeAffinity& required)
      : pod_(pod), node_(node), required_(required) {}
  bool matches(const Constraint& c) {
    if (c.honorNodeAffinity) {
      if (affinity_ < 0) affinity_ = required_.matches(node_) ? 1 : 0;
      if (affinity_ == 0) return false;
    }
    if (c.honorNodeTaints) {
      if (taints_ < 0) {
        taints_ = framework::find_matching_untolerated_taint(node_.spec.taints, pod_.spec.tolerations,
                                                             framework::is_do_not_schedule_taint) == nullptr;
      }
      if (taints_ == 0) return false;
    }
    return true;
  }

 private:
  const api::Pod& pod_;
  const api::Node& node_;
  const framework::RequiredNodeAffinity& required_;
  int affinity_ = -1;
  int taints_ = -1;
};

std::int64_t count_pods_match_selector(const std::vector<framework::PodInfoPtr>& pods, const labels::Selector& selector,
                                       const std::string& ns) {
  std::int64_t n = 0;
  for (const auto& pi : pods) {
    const api::Pod& p = *pi->pod;
    // Terminating pods are not counted (upstream #87621).
    if (p.metadata.deletionTimestamp || p.metadata.namespace_ != ns) continue;
    if (selector.matches(p.metadata.labels)) ++n;
  }
  return n;
}

// The two domains with the fewest matching pods; [0] always holds the minimum. Values are views
// of node labels, alive as long as the cycle's snapshot.
struct CriticalPaths {
  struct Path {
    std::string_view value;
    std::int64_t matchNum = INT32_MAX;
  };
  Path p[2];
  void update(std::string_view value, std::int64_t num) {
    int i = -1;
    if (value == p[0].value) {
      i = 0;
    } else if (value == p[1].value) {
      i = 1;
    }
    if (i >= 0) {
      p[i].matchNum = num;
      if (p[0].matchNum > p[1].matchNum) std::swap(p[0], p[1]);
    } else if (num < p[0].matchNum) {
      p[1] = p[0];
      p[0].value = value;
      p[0].matchNum = num;
    } else if (num < p[1].matchNum) {
      p[1].value = value;
      p[1].matchNum = num;
    }
  }
};

// Names of the counts kept per constraint i: the matching pods per domain, and the included
// nodes per domain (a domain exists, with possibly zero matching pods, while it has one).
std::string match_key(std::size_t i) { return "match/" + std::to_string(i); }
std::string score_key(std::size_t i) { return "score/" + std::to_string(i); }
std::string domain_key(std::size_t i) { return "domain/" + std::to_string(i); }

struct PreFilterState final : framework::StateData {
  std::shared_ptr<const std::vector<Constraint>> constraints;
  std::shared_ptr<const framework::RequiredNodeAffinity> requiredAffinity;
  std::vector<char> selfMatch;  // the pod being scheduled matches constraint i's selector
  std::vector<CriticalPaths> paths;
  // Upstream TpValueToMatchNum, for every constraint: match_key(i) and domain_key(i) counts,
  // shared with the plugin's cache until the PreFilter extensions change them.
  std::shared_ptr<const framework::TopologyCounts> counts;
  std::vector<std::uint32_t> matchIdx, domainIdx;

  std::shared_ptr<framework::StateData> clone() const override { return std::make_shared<PreFilterState>(*this); }
  bool read_after_scheduling() const override { return false; }

  std::int64_t min_match_num(std::size_t i, std::int32_t min_domains) const {
    // Fewer eligible domains than minDomains: the global minimum is treated as 0.
    if (static_cast<std::int64_t>(counts->size(domainIdx[i])) < min_domains) return 0;
    return paths[i].p[0].matchNum;
  }
  std::int64_t match_num(std::size_t i, std::string_view value) const { return counts->get(matchIdx[i], value); }

  void update_with_pod(const api::Pod& updated, const api::Pod& preemptor, const api::Node* node, int delta) {
    if (updated.metadata.namespace_ != preemptor.metadata.namespace_ || node == nullptr) return;
    const auto& cs = *constraints;
    if (!node_has_all_keys(node->metadata.labels, cs)) return;
    NodeInclusion inclusion(preemptor, *node, *requiredAffinity);
    for (std::size_t i = 0; i < cs.size(); ++i) {
      if (!cs[i].selector.matches(updated.metadata.labels)) continue;
      if (!inclusion.matches(cs[i])) continue;
      const std::string& v = *node->metadata.labels.find(cs[i].topologyKey);
      framework::TopologyCounts& c = framework::TopologyCounts::writable(counts);
      if (matchIdx[i] == framework::TopologyCounts::npos) matchIdx[i] = c.key_index(match_key(i));
      if (domainIdx[i] == framework::TopologyCounts::npos) domainIdx[i] = c.key_index(domain_key(i));
      // Upstream's map entry springs into being here if the domain had none.
      if (c.get(domainIdx[i], v) == 0) c.add(domainIdx[i], v, 1);
      c.add(matchIdx[i], v, delta);
      paths[i].update(v, c.get(matchIdx[i], v));
    }
  }
};

void append_node_selector_term(std::string& out, const api::NodeSelectorTerm& t) {
  for (const auto* reqs : {&t.matchExpressions, &t.matchFields}) {
    for (const auto& r : *reqs) {
      out.append(r.key).push_back('\0');
      out.append(r.operator_).push_back('\0');
      for (const auto& v : r.values) out.append(v).push_back(',');
      out.push_back('\1');
    }
    out.push_back('\2');
  }
}

// What decides which nodes count for the pod's constraints beyond the nodes themselves: the
// namespace, each constraint's key, selector and policies, and, where a policy honours them,
// the pod's required node affinity and its tolerations.
std::string inclusion_key(const api::Pod& pod, const std::vector<Constraint>& cs) {
  std::string key = pod.metadata.namespace_;
  key.push_back('\1');
  bool affinity = false, taints = false;
  for (const auto& c : cs) {
    key.append(c.topologyKey).push_back('\0');
    key.push_back(c.selector.is_nothing() ? 'N' : 'S');
    key.append(c.selector.to_string()).push_back('\0');
    key.push_back(c.honorNodeAffinity ? 'A' : '-');
    key.push_back(c.honorNodeTaints ? 'T' : '-');
    key.push_back('\1');
    affinity = affinity || c.honorNodeAffinity;
    taints = taints || c.honorNodeTaints;
  }
  if (affinity) {
    key.push_back('\3');
    for (const auto& [k, v] : pod.spec.nodeSelector) key.append(k).append("=").append(v).push_back('\0');
    const auto& a = pod.spec.affinity;
    if (a && a->nodeAffinity && a->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution) {
      for (const auto& t : a->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution->nodeSelectorTerms) {
        append_node_selector_term(key, t);
      }
    }
  }
  if (taints) {
    key.push_back('\4');
    for (const auto& t : pod.spec.tolerations) {
      key.append(t.key).push_back('\0');
      key.append(t.operator_).push_back('\0');
      key.append(t.value).push_back('\0');
      key.append(t.effect).push_back('\1');
    }
  }
  return key;
}

struct PreScoreState final : framework::StateData {
  std::vector<Constraint> constraints;
  NameSet ignoredNodes;  // nodes missing a required topology key
  // Matching pods per domain (hostname: per node, by node name) under score_key(i), shared with
  // the plugin's cache.
  std::shared_ptr<const framework::TopologyCounts> counts;
  std::vector<std::uint32_t> countIdx;
  std::vector<double> weights;
  std::shared_ptr<framework::StateData> clone() const override { return std::make_shared<PreScoreState>(*this); }
  bool read_after_scheduling() const override { return false; }
};

// Upstream topologyNormalizingWeight: ln(size + 2).
double topology_normalizing_weight(std::size_t size) { return std::log(static_cast<double>(size + 2)); }

double score_for_count(std::int64_t cnt, std::int32_t max_skew, double weight) {
  return static_cast<double>(cnt) * weight + static_cast<double>(max_skew - 1);
}

}  // namespace

std::vector<api::TopologySpreadConstraint> system_default_constraints() {
  std::vector<api::TopologySpreadConstraint> out(2);
  out[0].topologyKey = std::string(kLabelHostname);
  out[0].whenUnsatisfiable = std::string(kScheduleAnyway);
  out[0].maxSkew = 3;
  out[1].topologyKey = std::string(kLabelTopologyZone);
  out[1].whenUnsatisfiable = std::string(kScheduleAnyway);
  out[1].maxSkew = 5;
  return out;
}

PodTopologySpread::PodTopologySpread(framework::Handle& handle,
                                     std::vector<api::TopologySpreadConstraint> default_constraints,
                                     bool system_defaulted)
    : handle_(handle), default_constraints_(std::move(default_constraints)), system_defaulted_(system_defaulted) {}

util::Result<std::vector<Constraint>> PodTopologySpread::filter_constraints(
    const std::vector<api::TopologySpreadConstraint>& in, const api::StringMap& pod_labels,
    std::string_view action) const {
  std::vector<Constraint> out;
  for (const auto& c : in) {
    if (c.whenUnsatisfiable != action) continue;
    auto sel = labels::from_label_selector(c.labelSelector ? &*c.labelSelector : nullptr);
    if (!sel) return util::make_error(sel.error());
    labels::Selector selector = std::move(sel.value());
    if (!c.matchLabelKeys.empty()) {
      api::StringMap match;
      for (const auto& k : c.matchLabelKeys) {
        if (const auto* v = pod_labels.find(k)) match.set(k, *v);
      }
      if (!match.empty()) {
        // Upstream mergeLabelSetWithSelector: the set's requirements plus the selector's (a
        // "nothing" selector contributes no requirements).
        labels::Selector merged = labels::from_set(match);
        if (!selector.is_nothing()) {
          for (const auto& r : selector.requirements()) merged.add(r);
        }
        selector = std::move(merged);
      }
    }
    Constraint tsc;
    tsc.maxSkew = c.maxSkew;
    tsc.topologyKey = c.topologyKey;
    tsc.selector = std::move(selector);
    tsc.minDomains = c.minDomains.value_or(1);
    tsc.honorNodeAffinity = !c.nodeAffinityPolicy || *c.nodeAffinityPolicy == "Honor";
    tsc.honorNodeTaints = c.nodeTaintsPolicy && *c.nodeTaintsPolicy == "Honor";
    out.push_back(std::move(tsc));
  }
  return out;
}

util::Result<std::vector<Constraint>> PodTopologySpread::constraints_for(const api::Pod& pod,
                                                                        std::string_view action) const {
  const std::string_view hardness = action == kDoNotSchedule ? "hard" : "soft";
  if (!pod.spec.topologySpreadConstraints.empty()) {
    auto r = filter_constraints(pod.spec.topologySpreadConstraints, pod.metadata.labels, action);
    if (!r) return util::make_error("obtaining pod's " + std::string(hardness) + " topology spread constraints: " + r.error());
    return r;
  }
  // Defaults apply only to pods declaring no constraints, with the selector of the workload.
  auto r = filter_constraints(default_constraints_, pod.metadata.labels, action);
  if (!r) return util::make_error("setting default " + std::string(hardness) + " topology spread constraints: " + r.error());
  if (r->empty()) return r;
  labels::Selector selector = framework::default_selector(pod, handle_.lister());
  if (selector.empty()) return std::vector<Constraint>{};
  for (auto& c : *r) c.selector = selector;
  return r;
}

// ---------------------------------------------------------------- PreFilter / Filter

Status PodTopologySpread::pre_filter(CycleState& state, const api::Pod& pod, const std::vector<NodeInfoPtr>& nodes,
                                     framework::PreFilterResult&) {
  auto constraints_r = constraints_for(pod, kDoNotSchedule);
  if (!constraints_r) return Status::error("get constraints from pod: " + constraints_r.error());
  if (constraints_r->empty()) return Status::skip();

  auto s = std::make_shared<PreFilterState>();
  s->constraints = std::make_shared<const std::vector<Constraint>>(std::move(constraints_r.value()));
  s->requiredAffinity = std::make_shared<const framework::RequiredNodeAffinity>(pod);
  const auto& cs = *s->constraints;
  const std::size_t nc = cs.size();
  s->selfMatch.resize(nc);
  for (std::size_t i = 0; i < nc; ++i) s->selfMatch[i] = cs[i].selector.matches(pod.metadata.labels) ? 1 : 0;
  s->paths.resize(nc);

  // Per node: for each constraint that counts the node, the node's domain and its matching pods.
  // Kept across cycles by inclusion_key, so a cycle matches only the pods of changed nodes.
  const auto& required = *s->requiredAffinity;
  std::vector<std::string> match_keys, domain_keys;
  for (std::size_t i = 0; i < nc; ++i) {
    match_keys.push_back(match_key(i));
    domain_keys.push_back(domain_key(i));
  }
  auto count = [&](const NodeInfo& ni, std::vector<framework::TopologyCountsCache::Contribution>& out) {
    const api::Node* node = ni.node();
    if (node == nullptr) return;
    if (!node_has_all_keys(node->metadata.labels, cs)) return;
    NodeInclusion inclusion(pod, *node, required);
    for (std::size_t i = 0; i < nc; ++i) {
      if (!inclusion.matches(cs[i])) continue;
      const std::string* v = node->metadata.labels.find(cs[i].topologyKey);
      out.push_back({&domain_keys[i], *v, 1});
      const std::int64_t matching = count_pods_match_selector(ni.pods, cs[i].selector, pod.metadata.namespace_);
      if (matching != 0) out.push_back({&match_keys[i], *v, matching});
    }
  };
  s->counts = match_cache_.get(inclusion_key(pod, cs), handle_.snapshot_node_infos(), nodes, handle_.parallelizer(),
                               count);
  s->matchIdx.resize(nc);
  s->domainIdx.resize(nc);
  for (std::size_t i = 0; i < nc; ++i) {
    s->matchIdx[i] = s->counts->find_key(match_keys[i]);
    s->domainIdx[i] = s->counts->find_key(domain_keys[i]);
    s->counts->for_each(s->domainIdx[i], [&](std::string_view value, std::int64_t) {
      s->paths[i].update(value, s->match_num(i, value));
    });
  }
  state.write(std::string(kPreFilterStateKey), std::move(s));
  return {};
}

Status PodTopologySpread::add_pod(CycleState& state, const api::Pod& pod_to_schedule,
                                  const framework::PodInfoPtr& pod_to_add, const NodeInfo& node_info) {
  auto* s = state.read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) return Status::error("reading \"PreFilterPodTopologySpread\" from cycleState: not found");
  s->update_with_pod(*pod_to_add->pod, pod_to_schedule, node_info.node(), 1);
  return {};
}

Status PodTopologySpread::remove_pod(CycleState& state, const api::Pod& pod_to_schedule,
                                     const framework::PodInfoPtr& pod_to_remove, const NodeInfo& node_info) {
  auto* s = state.read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) return Status::error("reading \"PreFilterPodTopologySpread\" from cycleState: not found");
  s->update_with_pod(*pod_to_remove->pod, pod_to_schedule, node_info.node(), -1);
  return {};
}

Status PodTopologySpread::filter(const CycleState& state, const api::Pod&, const NodeInfo& node_info) {
  const auto* s = state.read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) return Status::error("reading \"PreFilterPodTopologySpread\" from cycleState: not found");
  const api::Node* node = node_info.node();
  if (node == nullptr) return Status::error("node not found");
  const auto& cs = *s->constraints;
  for (std::size_t i = 0; i < cs.size(); ++i) {
    const std::string* value = node->metadata.labels.find(cs[i].topologyKey);
    if (value == nullptr) return Status(framework::Code::UnschedulableAndUnresolvable, kFixedErrReasonNodeLabelNotMatch);
    const std::int64_t min_match = s->min_match_num(i, cs[i].minDomains);
    const std::int64_t match_num = s->match_num(i, *value);
    const std::int64_t skew = match_num + s->selfMatch[i] - min_match;
    if (skew > cs[i].maxSkew) return Status(framework::Code::Unschedulable, kFixedErrReasonConstraintsNotMatch);
  }
  return {};
}

// ---------------------------------------------------------------- PreScore / Score

Status PodTopologySpread::pre_score(CycleState& state, const api::Pod& pod, const std::vector<NodeInfoPtr>& filtered) {
  const auto& all_nodes = handle_.snapshot_node_infos().list();
  if (all_nodes.empty()) return Status::skip();

  auto s = std::make_shared<PreScoreState>();
  // Only non-system-default rules require every topology key on a node, so nodes without a zone
  // label still get hostname spreading.
  const bool require_all = !pod.spec.topologySpreadConstraints.empty() || !system_defaulted_;
  auto constraints_r = constraints_for(pod, kScheduleAnyway);
  if (!constraints_r) return Status::error("calculating preScoreState: " + constraints_r.error());
  if (constraints_r->empty()) return Status::skip();
  s->constraints = std::move(constraints_r.value());
  const auto& cs = s->constraints;
  const std::size_t nc = cs.size();
  // Domains among the candidate nodes set each constraint's weight.
  std::vector<std::unordered_set<std::string_view>> domains(nc);
  for (const auto& ni : filtered) {
    const api::Node* node = ni->node();
    if (node == nullptr) continue;
    if (require_all && !node_has_all_keys(node->metadata.labels, cs)) {
      s->ignoredNodes.insert(node->metadata.name);
      continue;
    }
    for (std::size_t i = 0; i < nc; ++i) {
      // A missing key counts as the "" domain, as upstream's map lookup does.
      if (cs[i].topologyKey != kLabelHostname) domains[i].insert(node->metadata.labels.get(cs[i].topologyKey));
    }
  }
  s->weights.resize(nc);
  for (std::size_t i = 0; i < nc; ++i) {
    std::size_t sz = domains[i].size();
    if (cs[i].topologyKey == kLabelHostname) sz = filtered.size() - s->ignoredNodes.size();
    s->weights[i] = topology_normalizing_weight(sz);
  }

  // Matching pods per domain over all nodes (Score reads only the candidates' domains), and per
  // node for hostname constraints (upstream counts those in Score, without inclusion policies).
  // Kept across cycles like PreFilter's counts.
  framework::RequiredNodeAffinity required(pod);
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < nc; ++i) keys.push_back(score_key(i));
  auto count = [&](const NodeInfo& ni, std::vector<framework::TopologyCountsCache::Contribution>& out) {
    const api::Node* node = ni.node();
    if (node == nullptr) return;
    for (std::size_t i = 0; i < nc; ++i) {
      if (cs[i].topologyKey != kLabelHostname) continue;
      const std::int64_t n = count_pods_match_selector(ni.pods, cs[i].selector, pod.metadata.namespace_);
      if (n != 0) out.push_back({&keys[i], std::string_view(node->metadata.name), n});
    }
    if (require_all && !node_has_all_keys(node->metadata.labels, cs)) return;
    NodeInclusion inclusion(pod, *node, required);
    for (std::size_t i = 0; i < nc; ++i) {
      if (cs[i].topologyKey == kLabelHostname || !inclusion.matches(cs[i])) continue;
      const std::int64_t n = count_pods_match_selector(ni.pods, cs[i].selector, pod.metadata.namespace_);
      const std::string* v = node->metadata.labels.find(cs[i].topologyKey);
      if (n != 0) out.push_back({&keys[i], v != nullptr ? std::string_view(*v) : std::string_view(""), n});
    }
  };
  std::string key(require_all ? "R" : "-");
  key += inclusion_key(pod, cs);
  s->counts = score_cache_.get(key, handle_.snapshot_node_infos(), all_nodes, handle_.parallelizer(), count);
  s->countIdx.resize(nc);
  for (std::size_t i = 0; i < nc; ++i) s->countIdx[i] = s->counts->find_key(keys[i]);
  state.write(std::string(kPreScoreStateKey), std::move(s));
  return {};
}

Status PodTopologySpread::score(const CycleState& state, const api::Pod&, const NodeInfo& node_info,
                                std::int64_t& out) {
  out = 0;
  const auto* s = state.read<PreScoreState>(kPreScoreStateKey);
  if (s == nullptr) return Status::error("error reading \"PreScorePodTopologySpread\" from cycleState: not found");
  const api::Node* node = node_info.node();
  if (node == nullptr) return Status::error("node not found");
  if (!s->ignoredNodes.empty() && s->ignoredNodes.contains(std::string_view(node->metadata.name))) return {};
  double score = 0;
  for (std::size_t i = 0; i < s->constraints.size(); ++i) {
    const auto& c = s->constraints[i];
    const std::string* value = node->metadata.labels.find(c.topologyKey);
    if (value == nullptr) continue;
    const std::string_view domain = c.topologyKey == kLabelHostname ? std::string_view(node->metadata.name) : *value;
    const std::int64_t cnt = s->counts->get(s->countIdx[i], domain);
    score += score_for_count(cnt, c.maxSkew, s->weights[i]);
  }
  out = static_cast<std::int64_t>(std::round(score));
  return {};
}

Status PodTopologySpread::normalize_score(const CycleState& state, const api::Pod&, framework::NodeScoreList& scores) {
  const auto* s = state.read<PreScoreState>(kPreScoreStateKey);
  if (s == nullptr) return Status::error("error reading \"PreScorePodTopologySpread\" from cycleState: not found");
  constexpr std::int64_t kInvalid = -1;
  std::int64_t min_score = std::numeric_limits<std::int64_t>::max();
  std::int64_t max_score = 0;
  for (auto& ns : scores) {
    if (!s->ignoredNodes.empty() && s->ignoredNodes.contains(ns.name)) {
      ns.score = kInvalid;
      continue;
    }
    min_score = std::min(min_score, ns.score);
    max_score = std::max(max_score, ns.score);
  }
  for (auto& ns : scores) {
    if (ns.score == kInvalid) {
      ns.score = 0;
      continue;
    }
    if (max_score == 0) {
      ns.score = framework::kMaxNodeScore;
      continue;
    }
    ns.score = framework::kMaxNodeScore * (max_score + min_score - ns.score) / max_score;
  }
  return {};
}

// ---------------------------------------------------------------- queueing hints

std::vector<framework::ClusterEventWithHint> PodTopologySpread::events_to_register() const {
  using framework::QueueingHint;
  std::vector<framework::ClusterEventWithHint> out(2);
  // Pods: adding/deleting/relabelling assigned pods changes domain counts; a new toleration of the
  // pod itself matters for nodeTaintsPolicy: Honor.
  out[0].event = framework::ClusterEvent{
      framework::EventResource::Pod,
      framework::kAdd | framework::kUpdatePodLabel | framework::kUpdatePodTolerations | framework::kDelete,
      "Pod"};
  out[0].hint = [this](const api::Pod& pod, const std::shared_ptr<const void>& oldObj,
                       const std::shared_ptr<const void>& newObj) {
    const auto* original = static_cast<const api::Pod*>(oldObj.get());
    const auto* modified = static_cast<const api::Pod*>(newObj.get());
    auto involved = [&](const api::Pod& p) {
      return p.metadata.uid == pod.metadata.uid ||
             (!p.spec.nodeName.empty() && p.metadata.namespace_ == pod.metadata.namespace_);
    };
    if ((modified && !involved(*modified)) || (original && !involved(*original))) return QueueingHint::Skip;
    auto cr = constraints_for(pod, kDoNotSchedule);
    if (!cr) return QueueingHint::Queue;
    const auto& cs = *cr;
    auto any_match = [&](const api::StringMap& l) {
      for (const auto& c : cs) {
        if (c.selector.matches(l)) return true;
      }
      return false;
    };
    if (modified && original) {
      if (pod.metadata.uid == modified->metadata.uid &&
          !framework::tolerations_equal(modified->spec.tolerations, original->spec.tolerations)) {
        for (const auto& c : cs) {
          if (c.honorNodeTaints) return QueueingHint::Queue;
        }
      }
      if (modified->metadata.labels == original->metadata.labels) return QueueingHint::Skip;
      for (const auto& c : cs) {
        if (c.selector.matches(original->metadata.labels) != c.selector.matches(modified->metadata.labels)) {
          return QueueingHint::Queue;
        }
      }
      return QueueingHint::Skip;
    }
    if (modified) return any_match(modified->metadata.labels) ? QueueingHint::Queue : QueueingHint::Skip;
    if (original) return any_match(original->metadata.labels) ? QueueingHint::Queue : QueueingHint::Skip;
    return QueueingHint::Queue;
  };

  out[1].event = framework::ClusterEvent{
      framework::EventResource::Node,
      framework::kAdd | framework::kDelete | framework::kUpdateNodeLabel | framework::kUpdateNodeTaint, "Node"};
  out[1].hint = [this](const api::Pod& pod, const std::shared_ptr<const void>& oldObj,
                       const std::shared_ptr<const void>& newObj) {
    const auto* original = static_cast<const api::Node*>(oldObj.get());
    const auto* modified = static_cast<const api::Node*>(newObj.get());
    auto cr = constraints_for(pod, kDoNotSchedule);
    if (!cr) return QueueingHint::Queue;
    const auto& cs = *cr;
    const bool original_matching = original && node_has_all_keys(original->metadata.labels, cs);
    const bool modified_matching = modified && node_has_all_keys(modified->metadata.labels, cs);
    if (original && modified) {
      if (original_matching != modified_matching) return QueueingHint::Queue;
      if (modified_matching) {
        for (const auto& c : cs) {
          if (original->metadata.labels.get(c.topologyKey) != modified->metadata.labels.get(c.topologyKey)) {
            return QueueingHint::Queue;
          }
        }
        if (!framework::taints_equal(original->spec.taints, modified->spec.taints)) return QueueingHint::Queue;
      }
      return QueueingHint::Skip;
    }
    if (modified) return modified_matching ? QueueingHint::Queue : QueueingHint::Skip;
    return original_matching ? QueueingHint::Queue : QueueingHint::Skip;
  };
  return out;
}

util::Result<std::shared_ptr<framework::Plugin>> make_pod_topology_spread(const framework::PluginArgs& args,
                                                                          framework::Handle& handle) {
  const auto* a = args.as<config::PodTopologySpreadArgs>();
  config::PodTopologySpreadArgs defaults;
  if (a == nullptr) a = &defaults;
  std::vector<api::TopologySpreadConstraint> constraints = a->defaultConstraints;
  bool system_defaulted = false;
  if (a->defaultingType == config::kSystemDefaulting) {
    if (!a->defaultConstraints.empty()) {
      return util::make_error("defaultConstraints: Invalid value: when .defaultingType is \"System\"");
    }
    constraints = system_default_constraints();
    system_defaulted = true;
  } else if (a->defaultingType != config::kListDefaulting) {
    return util::make_error("defaultingType: Unsupported value: \"" + a->defaultingType +
                            "\": supported values: \"System\", \"List\"");
  }
  return std::shared_ptr<framework::Plugin>(
      std::make_shared<PodTopologySpread>(handle, std::move(constraints), system_defaulted));
}

// Spreading depends on where other pods are: a pod with constraints (its own or the defaults)
// is unsignable.
void PodTopologySpread::sign_pod(const api::Pod& pod, framework::PodSignature& sig) const {
  if (!pod.spec.topologySpreadConstraints.empty()) {
    sig.set_unsignable();
    return;
  }
  for (std::string_view action : {"DoNotSchedule", "ScheduleAnyway"}) {
    auto c = constraints_for(pod, action);
    if (!c.ok() || !c->empty()) {
      sig.set_unsignable();
      return;
    }
  }
}

}  // namespace ksched::scheduler::plugins::podtopologyspread
