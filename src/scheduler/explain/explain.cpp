#include "scheduler/explain/explain.h"

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <set>

#include "api/quantity.h"
#include "util/natural_order.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/explain/dra_detail.h"
#include "scheduler/framework/plugin_helper.h"
#include "scheduler/plugins/dynamicresources/dynamicresources.h"
#include "scheduler/plugins/noderesources/fit.h"
#include "scheduler/plugins/tainttoleration/tainttoleration.h"
#include "scheduler/podgroup/manager.h"

namespace ksched::scheduler::explain {
namespace fw = framework;

namespace {

// The pod's group as the scheduler's pod-group state holds it (GangScheduling gate: otherwise the
// scheduler keeps none, and a workloadRef means nothing to it). Placed members are those in the
// snapshot's nodes: bound (spec.nodeName) or assumed (the scheduler placed them, binding runs).
std::optional<PodGroupState> pod_group_state(fw::Framework& fwk, const api::Pod& pod) {
  podgroup::Manager* groups = fwk.pod_group_manager();
  if (groups == nullptr || !podgroup::has_group(pod)) return std::nullopt;
  PodGroupState g;
  const std::string* pod_group_name = podgroup::pod_group_name(pod);
  if (pod_group_name) {
    g.podGroup = *pod_group_name;  // a PodGroup object: no Workload named by the pod
  } else {
    g.workload = pod.spec.workloadRef->name;
    g.podGroup = pod.spec.workloadRef->podGroup;
  }
  const podgroup::Policy policy = groups->policy(pod);
  switch (policy.kind) {
    case podgroup::Policy::Kind::NoWorkload: g.policy = pod_group_name ? "no PodGroup" : "no Workload"; break;
    case podgroup::Policy::Kind::NoPodGroup: g.policy = "no such pod group"; break;
    case podgroup::Policy::Kind::Basic: g.policy = "basic"; break;
    case podgroup::Policy::Kind::Gang:
      g.policy = "gang";
      g.minCount = policy.minCount;
      break;
  }
  const auto members = groups->pods(podgroup::group_key(pod));
  g.members = members.size();
  std::set<std::string_view> unbound;
  for (const auto& m : members) {
    if (!m->spec.nodeName.empty()) {
      ++g.bound;
    } else {
      unbound.insert(m->metadata.uid);
    }
  }
  if (!unbound.empty()) {
    for (const auto& ni : fwk.snapshot_node_infos().list()) {
      for (const auto& pi : ni->pods) {
        if (unbound.count(pi->pod->metadata.uid)) ++g.assumed;
      }
    }
  }
  return g;
}

Verdict verdict(std::string plugin, const fw::Status& s) {
  return Verdict{std::move(plugin), fw::code_name(s.code()), s.is_success() ? std::string() : s.message()};
}

std::vector<std::string> plugins_at(const fw::Framework& fwk, const char* point) {
  auto all = fwk.list_plugins();
  auto it = all.find(point);
  return it == all.end() ? std::vector<std::string>{} : it->second;
}


// "NodeResourcesFit +12, TaintToleration -3": the plugins that separate two nodes, largest first.
std::string margin(const NodeExplanation& a, const NodeExplanation& b) {
  std::map<std::string, std::int64_t> diff;
  for (const auto& s : a.scores) diff[s.plugin] += s.weighted;
  for (const auto& s : b.scores) diff[s.plugin] -= s.weighted;
  std::vector<std::pair<std::string, std::int64_t>> parts;
  for (auto& [p, d] : diff) {
    if (d != 0) parts.emplace_back(p, d);
  }
  std::stable_sort(parts.begin(), parts.end(), [](const auto& x, const auto& y) {
    return std::llabs(x.second) > std::llabs(y.second);
  });
  std::string out;
  for (const auto& [p, d] : parts) {
    if (!out.empty()) out += ", ";
    out += p + (d > 0 ? " +" : " ") + std::to_string(d);
  }
  return out.empty() ? "no plugin separates them" : out;
}

// A quantity in the form kubectl shows: CPU from millicores, byte sizes in binary units.
std::string quantity(std::string_view resource, std::int64_t v) {
  if (resource == "cpu") return api::Quantity::from_milli(v).to_string();
  if (resource == "memory" || resource == "ephemeral-storage" || resource.rfind("hugepages-", 0) == 0) {
    return api::Quantity::from_int(v, api::Quantity::Format::BinarySI).to_string();
  }
  return std::to_string(v);
}

// NodeResourcesFit's shortfalls with their numbers (its Filter reports only "Insufficient cpu").
// The plugin's ignoredResources are not applied: an ignored resource never rejects a node, so a
// node it rejected lacks at least one resource shown here.
std::vector<Shortfall> shortfalls(const api::Pod& pod, const fw::NodeInfo& ni) {
  std::vector<Shortfall> out;
  for (const auto& r : plugins::noderesources::fits(pod, ni)) {
    out.push_back(Shortfall{r.resourceName, quantity(r.resourceName, r.requested), quantity(r.resourceName, r.used),
                            quantity(r.resourceName, r.capacity)});
  }
  return out;
}

}  // namespace

bool natural_less(std::string_view a, std::string_view b) { return util::natural_less(a, b); }

util::Result<Explanation> explain(fw::Framework& fwk, const api::Pod& given) {
  Explanation e;
  e.pod = api::key_of(given);
  // A bound pod would only ever fit its own node (NodeName): ask where it would go if pending.
  api::Pod unbound;
  if (!given.spec.nodeName.empty()) {
    e.boundTo = std::string(given.spec.nodeName);
    unbound = given;
    unbound.spec.nodeName = "";
  }
  const api::Pod& pod = e.boundTo.empty() ? given : unbound;
  e.profile = std::string(fwk.profile_name());
  const auto& all_nodes = fwk.snapshot_node_infos().list();

  // PreFilter, as the cycle runs it; each plugin's part read back from the state it left.
  fw::CycleState state;
  fw::PreFilterResult pre_result;
  std::set<std::string> plugins_with_nodes;
  const fw::Status pre = fwk.run_pre_filter_plugins(state, pod, pre_result, plugins_with_nodes);
  if (pre.is_error()) return util::make_error(pre.message());
  for (const auto& name : plugins_at(fwk, "PreFilter")) {
    if (state.skip_filter_plugins.count(name) != 0) {
      e.preFilter.push_back(Verdict{name, "Skip", ""});
    } else if (!pre.is_success() && pre.plugin() == name) {
      e.preFilter.push_back(verdict(name, pre));
    } else {
      e.preFilter.push_back(Verdict{name, "Success", ""});
    }
  }
  if (!pre.is_success()) {
    // Nothing was filtered: the pod fits nowhere for a reason that holds on every node.
    fw::FitError fit;
    fit.numAllNodes = static_cast<int>(all_nodes.size());
    fit.diagnosis.preFilterMsg = pre.message();
    e.summary = fit.error();
    for (const auto& ni : all_nodes) {
      NodeExplanation n;
      n.name = std::string(ni->name_view());
      n.rejected = (pre.plugin().empty() ? std::string("PreFilter") : pre.plugin()) + ": " + pre.message();
      e.nodes.push_back(std::move(n));
    }
    std::sort(e.nodes.begin(), e.nodes.end(), [](const auto& a, const auto& b) { return natural_less(a.name, b.name); });
    e.podGroup = pod_group_state(fwk, given);
    return e;
  }

  // Filter: every plugin on every node, plus the verdict the scheduler itself would record.
  std::vector<std::pair<std::string, std::shared_ptr<fw::FilterPlugin>>> filters;
  for (const auto& name : plugins_at(fwk, "Filter")) {
    if (state.skip_filter_plugins.count(name) != 0) continue;
    if (auto p = std::dynamic_pointer_cast<fw::FilterPlugin>(fwk.plugin(name))) filters.emplace_back(name, p);
  }
  fw::FitError fit;
  fit.numAllNodes = static_cast<int>(all_nodes.size());
  std::vector<fw::NodeInfoPtr> feasible;
  std::vector<NodeExplanation> rejected;
  for (const auto& ni : all_nodes) {
    NodeExplanation n;
    n.name = std::string(ni->name_view());
    if (!pre_result.all_nodes() && pre_result.nodeNames->count(n.name) == 0) {
      const fw::Status s = fw::prefilter_result_rejection(plugins_with_nodes);
      n.rejected = "PreFilter: " + s.message();
      fit.diagnosis.nodeToStatus.set(n.name, s);
      rejected.push_back(std::move(n));
      continue;
    }
    for (const auto& [name, p] : filters) n.filters.push_back(verdict(name, p->filter(state, pod, *ni)));
    fw::Status s = fwk.run_filter_plugins_with_nominated_pods(state, pod, *ni);
    if (s.is_error()) return util::make_error(s.message());
    if (!s.is_success()) {
      n.rejected = s.plugin() + ": " + s.message();
      if (s.plugin() == plugins::noderesources::kFitName) n.shortfalls = shortfalls(pod, *ni);
      if (s.plugin() == plugins::tainttoleration::kName && ni->node() != nullptr) {
        if (const api::Taint* t = fw::find_matching_untolerated_taint(ni->node()->spec.taints, pod.spec.tolerations,
                                                                      fw::is_do_not_schedule_taint)) {
          n.detail = "untolerated taint " + t->key + (t->value.empty() ? "" : "=" + t->value) + ":" + t->effect;
        }
      }
      if (s.plugin() == plugins::dynamicresources::kName && ni->node() != nullptr && fwk.dra_manager() != nullptr) {
        n.detail = dra_rejection_detail(*fwk.dra_manager(), pod, *ni->node());
      }
      fit.diagnosis.nodeToStatus.set(n.name, s);
      rejected.push_back(std::move(n));
      continue;
    }
    feasible.push_back(ni);
    e.nodes.push_back(std::move(n));
  }
  e.feasible = feasible.size();
  std::sort(rejected.begin(), rejected.end(), [](const auto& a, const auto& b) { return natural_less(a.name, b.name); });

  if (feasible.empty()) {
    e.summary = fit.error();
    e.nodes = std::move(rejected);
    e.podGroup = pod_group_state(fwk, given);
    return e;
  }

  // PreScore and Score over every feasible node.
  const fw::Status pre_score = fwk.run_pre_score_plugins(state, pod, feasible);
  if (pre_score.is_error()) return util::make_error(pre_score.message());
  for (const auto& name : plugins_at(fwk, "PreScore")) {
    e.preScore.push_back(state.skip_score_plugins.count(name) != 0 ? Verdict{name, "Skip", ""}
                                                                    : Verdict{name, "Success", ""});
  }
  std::vector<fw::NodePluginScores> scores;
  fw::RawScores raw;
  const fw::Status scored = fwk.run_score_plugins(state, pod, feasible, scores, &raw);
  if (!scored.is_success()) return util::make_error(scored.message());
  const auto& weights = fwk.score_weights();
  for (std::size_t i = 0; i < feasible.size(); ++i) {
    NodeExplanation& n = e.nodes[i];
    n.total = scores[i].totalScore;
    for (std::size_t k = 0; k < scores[i].scores.size(); ++k) {
      ScoreLine line;
      line.plugin = std::string(scores[i].scores[k].first);
      line.weighted = scores[i].scores[k].second;
      auto w = weights.find(line.plugin);
      line.weight = w == weights.end() ? 1 : w->second;
      line.normalized = line.weight != 0 ? line.weighted / line.weight : 0;
      line.raw = k < raw.rows.size() ? raw.rows[k][i] : line.normalized;
      n.scores.push_back(std::move(line));
    }
  }
  std::sort(e.nodes.begin(), e.nodes.end(), [](const auto& a, const auto& b) {
    return a.total != b.total ? a.total > b.total : natural_less(a.name, b.name);
  });
  e.chosen = e.nodes.front().name;
  if (e.nodes.size() > 1) {
    const auto& a = e.nodes[0];
    const auto& b = e.nodes[1];
    e.runnerUp = b.name;
    e.summary = a.name + " scores " + std::to_string(a.total) + ", " + b.name + " (runner-up) " +
                std::to_string(b.total) + ": " + margin(a, b);
    if (a.total == b.total) e.summary += " (a tie: the scheduler picks one of the tied nodes at random)";
  } else {
    e.summary = e.chosen + " is the only node that fits (" + std::to_string(rejected.size()) + " rejected)";
  }
  for (auto& n : rejected) e.nodes.push_back(std::move(n));
  e.podGroup = pod_group_state(fwk, given);
  return e;
}

namespace {
// How many unplaced members a gang's explanation names with their reasons.
constexpr std::size_t kListedUnplaced = 3;
}  // namespace

util::Result<Explanation> explain_with_group(Scheduler& sched, fw::Framework& fwk, const api::Pod& pod) {
  auto e = explain(fwk, pod);
  if (!e.ok() || !e->podGroup || e->podGroup->policy != "gang") return e;
  const PodGroupState& g = *e->podGroup;
  // Below the quorum PreEnqueue holds every member: there is no cycle to try.
  if (g.members < static_cast<std::size_t>(g.minCount)) return e;
  GangPlacement gang;
  gang.minCount = g.minCount;
  bool blocking_explained = false;
  auto run = sched.dry_run_pod_group(fwk, pod, [&](const api::Pod& member) {
    // The members before it are assumed: its reasons are those of the cycle's attempt.
    auto be = explain(fwk, member);
    if (!be.ok()) return;
    blocking_explained = true;
    gang.blockingWhy = be->summary;
    for (auto& n : be->nodes) {
      if (!n.rejected.empty()) gang.blockingNodes.push_back(std::move(n));
    }
  });
  if (!run.ok()) return util::make_error(run.error());
  if (run->members.empty()) return e;  // every member placed already: no cycle to try
  gang.scheduled = static_cast<std::size_t>(run->scheduled);
  gang.pending = run->members.size();
  std::map<std::string, std::size_t> per_node;
  const std::string self = api::key_of(pod);
  for (const auto& m : run->members) {
    GangMember gm;
    gm.pod = api::key_of(*m.pod);
    gm.tried = m.tried;
    gm.node = m.node;
    if (!m.node.empty()) {
      ++gang.placed;
      ++per_node[m.node];
    } else if (m.tried) {
      if (gang.unplaced < kListedUnplaced) gm.reason = m.status.message();
      if (gang.blocking.empty()) {
        gang.blocking = gm.pod;
        gang.placedBeforeBlocking = gang.scheduled + gang.placed;
        if (!blocking_explained) gang.blockingWhy = m.status.message();
      }
      ++gang.unplaced;
    }
    if (gm.pod == self) gang.thisPod = gm.node;
    gang.members.push_back(std::move(gm));
  }
  gang.perNode.assign(per_node.begin(), per_node.end());
  std::sort(gang.perNode.begin(), gang.perNode.end(),
            [](const auto& a, const auto& b) { return natural_less(a.first, b.first); });
  if (!run->error.is_success()) {
    gang.verdict = run->error.message();
  } else if (run->feasible.is_success()) {
    gang.wouldBind = true;
  } else {
    gang.verdict = run->feasible.message();
  }
  e->gang = std::move(gang);
  return e;
}

namespace {

std::string pad(std::string s, std::size_t w) {
  if (s.size() < w) s.append(w - s.size(), ' ');
  return s;
}

}  // namespace

namespace {

// "a, b, c and 7 more" (all of them when limit is 0).
std::string name_list(const std::vector<const NodeExplanation*>& nodes, std::size_t limit) {
  std::string out;
  const std::size_t shown = limit == 0 ? nodes.size() : std::min(limit, nodes.size());
  for (std::size_t i = 0; i < shown; ++i) {
    if (i != 0) out += ", ";
    out += nodes[i]->name;
  }
  if (shown < nodes.size()) out += " and " + std::to_string(nodes.size() - shown) + " more";
  return out;
}

std::string shortfall_text(const std::vector<Shortfall>& sf) {
  std::string out;
  for (const auto& s : sf) {
    if (!out.empty()) out += "; ";
    out += s.resource + ": the pod requests " + s.requested + ", " + s.used + " of " + s.allocatable + " in use";
  }
  return out;
}

// Rejected nodes grouped by the scheduler's reason, then by their numbers, a few names per group
// (every one with wide); `indent` before each reason line.
void append_rejected(std::string& out, const std::vector<const NodeExplanation*>& rejected, bool wide,
                     const std::string& indent) {
  std::vector<std::pair<std::string, std::vector<const NodeExplanation*>>> groups;
  for (const auto* n : rejected) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == n->rejected; });
    if (it == groups.end()) {
      groups.emplace_back(n->rejected, std::vector<const NodeExplanation*>{});
      it = std::prev(groups.end());
    }
    it->second.push_back(n);
  }
  std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  const std::size_t limit = wide ? 0 : 6;
  for (const auto& [reason, nodes] : groups) {
    out += indent + reason + "  (" + std::to_string(nodes.size()) + (nodes.size() == 1 ? " node)\n" : " nodes)\n");
    // Nodes with the same numbers together, the largest set first.
    std::vector<std::pair<std::string, std::vector<const NodeExplanation*>>> by_numbers;
    for (const auto* n : nodes) {
      const std::string numbers = n->detail.empty() ? shortfall_text(n->shortfalls) : n->detail;
      auto it = std::find_if(by_numbers.begin(), by_numbers.end(), [&](const auto& g) { return g.first == numbers; });
      if (it == by_numbers.end()) {
        by_numbers.emplace_back(numbers, std::vector<const NodeExplanation*>{});
        it = std::prev(by_numbers.end());
      }
      it->second.push_back(n);
    }
    std::stable_sort(by_numbers.begin(), by_numbers.end(),
                     [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
    const std::size_t groups_shown = wide ? by_numbers.size() : std::min<std::size_t>(by_numbers.size(), 5);
    for (std::size_t g = 0; g < groups_shown; ++g) {
      const auto& [numbers, members] = by_numbers[g];
      out += indent + "  " + name_list(members, limit) + (numbers.empty() ? "" : ": " + numbers) + "\n";
    }
    if (groups_shown < by_numbers.size()) {
      std::size_t rest = 0;
      for (std::size_t g = groups_shown; g < by_numbers.size(); ++g) rest += by_numbers[g].second.size();
      out += indent + "  and " + std::to_string(rest) + " more nodes with other figures (-o wide lists them)\n";
    }
  }
}

// "n1 2, n2 1, ... and 7 more nodes": where a gang's members would go.
std::string per_node_text(const std::vector<std::pair<std::string, std::size_t>>& per_node, std::size_t limit) {
  std::string out;
  const std::size_t shown = std::min(limit, per_node.size());
  for (std::size_t i = 0; i < shown; ++i) {
    if (i != 0) out += ", ";
    out += per_node[i].first + " " + std::to_string(per_node[i].second);
  }
  if (shown < per_node.size()) out += " and " + std::to_string(per_node.size() - shown) + " more nodes";
  return out;
}

// The gang's placement: the outcome, where members go, and the member that blocks the group.
void append_gang(std::string& out, const GangPlacement& g, bool wide) {
  const std::size_t min = static_cast<std::size_t>(g.minCount);
  out += "\nGang placement (the pod-group cycle tried now, nothing kept): " + std::to_string(g.placed) + " of " +
         std::to_string(g.pending) + " pending members placed";
  if (g.scheduled != 0) out += ", " + std::to_string(g.scheduled) + " placed before";
  out += ", minCount " + std::to_string(min) + ": ";
  out += g.wouldBind ? "the group would be bound\n" : "the group stays pending\n";
  if (!g.verdict.empty()) out += "  " + g.verdict + "\n";
  const std::size_t small = 8;
  if (g.members.size() <= small || wide) {
    for (const auto& m : g.members) {
      out += "  " + m.pod + ": ";
      out += !m.node.empty() ? "-> " + m.node : (m.tried ? std::string("fits nowhere") : std::string("not tried"));
      out += "\n";
    }
  } else if (!g.perNode.empty()) {
    out += "  placed per node: " + per_node_text(g.perNode, 10) + "\n";
  }
  if (!g.blocking.empty()) {
    out += "  Blocking member: " + g.blocking + ", the first that fits nowhere";
    out += g.placedBeforeBlocking > 0 ? " with the " + std::to_string(g.placedBeforeBlocking) + " placed before it\n"
                                      : "\n";
    if (!g.blockingWhy.empty()) out += "    " + g.blockingWhy + "\n";
    std::vector<const NodeExplanation*> rejected;
    for (const auto& n : g.blockingNodes) rejected.push_back(&n);
    append_rejected(out, rejected, wide, "    ");
  }
  if (g.unplaced > 1 && g.members.size() > small && !wide) {
    std::string others;
    std::size_t listed = 0;
    for (const auto& m : g.members) {
      if (m.tried && m.node.empty() && m.pod != g.blocking && listed < 3) {
        others += (listed == 0 ? "" : ", ") + m.pod;
        ++listed;
      }
    }
    out += "  Also fitting nowhere: " + others;
    if (g.unplaced - 1 > listed) out += " and " + std::to_string(g.unplaced - 1 - listed) + " more";
    out += "\n";
  }
  std::size_t untried = 0;
  for (const auto& m : g.members) untried += m.tried ? 0 : 1;
  if (untried != 0 && (g.members.size() > small && !wide)) {
    out += "  Not tried: " + std::to_string(untried) + " members (PlacementFeasible stopped the group first)\n";
  }
}

void append_verdicts(std::string& out, const char* indent, const std::vector<Verdict>& vs) {
  for (const auto& v : vs) out += indent + pad(v.plugin, 32) + v.code + (v.reason.empty() ? "" : ": " + v.reason) + "\n";
}

void append_scores(std::string& out, const NodeExplanation& n, const std::string& chosen) {
  out += "  " + n.name + "  total " + std::to_string(n.total) + (n.name == chosen ? "  <- chosen" : "") + "\n";
  for (const auto& s : n.scores) {
    out += "    " + pad(s.plugin, 32) + std::to_string(s.raw) + " / " + std::to_string(s.normalized) + " x " +
           std::to_string(s.weight) + " = " + std::to_string(s.weighted) + "\n";
  }
}

}  // namespace

util::Result<std::string> to_text(const Explanation& e, const TextOptions& o) {
  std::vector<const NodeExplanation*> named;
  for (const auto& want : o.nodes) {
    auto it = std::find_if(e.nodes.begin(), e.nodes.end(), [&](const auto& n) { return n.name == want; });
    if (it == e.nodes.end()) return util::make_error("node \"" + want + "\" is not in the scheduler's snapshot");
    named.push_back(&*it);
  }
  std::string out;
  out += "Pod:      " + e.pod + "\n";
  out += "Profile:  " + e.profile + "\n";
  if (!e.boundTo.empty()) out += "Bound to: " + e.boundTo + " (explained as if pending now; still counted there)\n";
  out += "Result:   " + (e.chosen.empty() ? std::string("unschedulable") : "would be placed on " + e.chosen) + "\n";
  out += "Why:      " + e.summary + "\n";
  out += "Feasible: " + std::to_string(e.feasible) + " of " + std::to_string(e.nodes.size()) + " nodes\n";
  if (const auto& g = e.podGroup) {
    out += g->workload.empty() ? "Group:    PodGroup " + g->podGroup + " (" + g->policy
                               : "Group:    Workload " + g->workload + ", pod group " + g->podGroup + " (" + g->policy;
    if (g->policy == "gang") out += ", minCount " + std::to_string(g->minCount);
    out += "): " + std::to_string(g->members) + " members exist, " + std::to_string(g->bound) + " bound, " +
           std::to_string(g->assumed) + " assumed\n";
    if (g->policy == "gang") {
      const std::size_t min = static_cast<std::size_t>(g->minCount);
      if (g->members < min) {
        out += "          waiting for minCount pods: " + std::to_string(g->members) + " of " + std::to_string(min) +
               " exist (PreEnqueue holds the members until then)\n";
      } else if (g->bound + g->assumed >= min) {
        out += "          the group's minimum is placed; this pod is placed on its own merits\n";
      } else {
        out += "          placed all or nothing: this pod is bound only in a cycle that places at least " +
               std::to_string(min - g->bound - g->assumed) + " pending members (this one's fit above is only its part)\n";
      }
    }
  }
  if (e.gang) {
    out += "          in the cycle this pod " +
           (e.gang->thisPod.empty() ? std::string("is not placed") : "goes to " + e.gang->thisPod) +
           " (Gang placement below)\n";
  }
  auto verdicts = [&](const char* title, const std::vector<Verdict>& vs) {
    if (vs.empty()) return;
    out += "\n";
    out += title;
    out += ":\n";
    append_verdicts(out, "  ", vs);
  };
  verdicts("PreFilter", e.preFilter);
  verdicts("PreScore", e.preScore);

  // Scores: the best few feasible nodes (all with wide); feasible nodes come first in e.nodes.
  const std::size_t top = o.wide ? e.feasible : std::min(o.top, e.feasible);
  if (top > 0) {
    out += "\nScores (raw / normalized x weight = weighted), best first";
    out += top < e.feasible ? ", " + std::to_string(top) + " of " + std::to_string(e.feasible) + " feasible nodes:\n" : ":\n";
    for (std::size_t i = 0; i < top; ++i) append_scores(out, e.nodes[i], e.chosen);
    if (top < e.feasible) out += "  (--node NAME or -o wide shows the others)\n";
  }

  // Rejected nodes: grouped by the scheduler's reason, then by their numbers.
  {
    std::vector<const NodeExplanation*> rejected;
    for (const auto& n : e.nodes) {
      if (!n.rejected.empty()) rejected.push_back(&n);
    }
    if (!rejected.empty()) {
      out += "\nRejected: " + std::to_string(rejected.size()) + (rejected.size() == 1 ? " node" : " nodes") + ", by reason:\n";
      append_rejected(out, rejected, o.wide, "  ");
    }
  }

  if (e.gang) append_gang(out, *e.gang, o.wide);

  // Every verdict of the named nodes (of every node with wide).
  std::vector<const NodeExplanation*> detailed = named;
  if (o.wide) {
    detailed.clear();
    for (const auto& n : e.nodes) detailed.push_back(&n);
  }
  for (const auto* n : detailed) {
    out += "\nNode " + n->name + ": " + (n->rejected.empty() ? std::string("fits") : "rejected by " + n->rejected) + "\n";
    if (!n->shortfalls.empty()) out += "  " + shortfall_text(n->shortfalls) + "\n";
    if (!n->detail.empty()) out += "  " + n->detail + "\n";
    if (!n->filters.empty()) {
      out += "  Filter:\n";
      append_verdicts(out, "    ", n->filters);
    }
    if (!n->scores.empty()) {
      out += "  Score:\n";
      std::string scores;
      append_scores(scores, *n, e.chosen);
      // Indent the node's score block under its heading.
      std::size_t at = 0;
      while (at < scores.size()) {
        const std::size_t end = scores.find('\n', at);
        out += "  " + scores.substr(at, end - at + 1);
        at = end + 1;
      }
    }
  }
  return out;
}

std::string to_json(const Explanation& e) { return boost::json::serialize(to_json_object(e)) + "\n"; }

boost::json::object to_json_object(const Explanation& e) {
  namespace json = boost::json;
  auto verdicts = [](const std::vector<Verdict>& vs) {
    json::array a;
    for (const auto& v : vs) {
      json::object o{{"plugin", v.plugin}, {"code", v.code}};
      if (!v.reason.empty()) o["reason"] = v.reason;
      a.push_back(std::move(o));
    }
    return a;
  };
  auto nodes_json = [&](const std::vector<NodeExplanation>& list) {
    json::array nodes;
    for (const auto& n : list) {
      json::object o{{"name", n.name}, {"feasible", n.rejected.empty()}, {"filters", verdicts(n.filters)}};
      if (!n.rejected.empty()) o["rejected"] = n.rejected;
      if (!n.detail.empty()) o["detail"] = n.detail;
      if (!n.shortfalls.empty()) {
        json::array sf;
        for (const auto& x : n.shortfalls) {
          sf.push_back(json::object{
              {"resource", x.resource}, {"requested", x.requested}, {"used", x.used}, {"allocatable", x.allocatable}});
        }
        o["shortfalls"] = std::move(sf);
      }
      if (!n.scores.empty()) {
        json::array scores;
        for (const auto& s : n.scores) {
          scores.push_back(json::object{{"plugin", s.plugin},
                                        {"raw", s.raw},
                                        {"normalized", s.normalized},
                                        {"weight", s.weight},
                                        {"weighted", s.weighted}});
        }
        o["scores"] = std::move(scores);
        o["total"] = n.total;
      }
      nodes.push_back(std::move(o));
    }
    return nodes;
  };
  json::array nodes = nodes_json(e.nodes);
  auto gang_json = [&](const GangPlacement& g) {
    json::array members;
    for (const auto& m : g.members) {
      json::object o{{"pod", m.pod}, {"tried", m.tried}, {"node", m.node}};
      if (!m.reason.empty()) o["reason"] = m.reason;
      members.push_back(std::move(o));
    }
    json::object per_node;
    for (const auto& [node, count] : g.perNode) per_node[node] = count;
    return json::object{{"minCount", g.minCount},
                        {"scheduled", g.scheduled},
                        {"pending", g.pending},
                        {"placed", g.placed},
                        {"unplaced", g.unplaced},
                        {"wouldBind", g.wouldBind},
                        {"verdict", g.verdict},
                        {"thisPod", g.thisPod},
                        {"perNode", std::move(per_node)},
                        {"blocking", g.blocking},
                        {"placedBeforeBlocking", g.placedBeforeBlocking},
                        {"blockingWhy", g.blockingWhy},
                        {"blockingNodes", nodes_json(g.blockingNodes)},
                        {"members", std::move(members)}};
  };
  json::object root{{"pod", e.pod},
                    {"profile", e.profile},
                    {"boundTo", e.boundTo},
                    {"feasible", e.feasible},
                    {"chosen", e.chosen},
                    {"runnerUp", e.runnerUp},
                    {"summary", e.summary},
                    {"podGroup", e.podGroup ? json::value(json::object{{"workload", e.podGroup->workload},
                                                                        {"podGroup", e.podGroup->podGroup},
                                                                        {"policy", e.podGroup->policy},
                                                                        {"minCount", e.podGroup->minCount},
                                                                        {"members", e.podGroup->members},
                                                                        {"bound", e.podGroup->bound},
                                                                        {"assumed", e.podGroup->assumed}})
                                            : json::value(nullptr)},
                    {"gang", e.gang ? json::value(gang_json(*e.gang)) : json::value(nullptr)},
                    {"preFilter", verdicts(e.preFilter)},
                    {"preScore", verdicts(e.preScore)},
                    {"nodes", std::move(nodes)}};
  return root;
}

}  // namespace ksched::scheduler::explain
