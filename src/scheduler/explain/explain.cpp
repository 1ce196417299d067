#include "scheduler/explain/explain.h"

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <set>

#include "scheduler/framework/cycle_state.h"

namespace ksched::scheduler::explain {
namespace fw = framework;

namespace {

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

}  // namespace

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
      fit.diagnosis.nodeToStatus.set(n.name, s);
      rejected.push_back(std::move(n));
      continue;
    }
    feasible.push_back(ni);
    e.nodes.push_back(std::move(n));
  }
  e.feasible = feasible.size();
  std::sort(rejected.begin(), rejected.end(), [](const auto& a, const auto& b) { return a.name < b.name; });

  if (feasible.empty()) {
    e.summary = fit.error();
    e.nodes = std::move(rejected);
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
    return a.total != b.total ? a.total > b.total : a.name < b.name;
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
  return e;
}

namespace {

std::string pad(std::string s, std::size_t w) {
  if (s.size() < w) s.append(w - s.size(), ' ');
  return s;
}

}  // namespace

std::string to_text(const Explanation& e) {
  std::string out;
  out += "Pod:      " + e.pod + "\n";
  out += "Profile:  " + e.profile + "\n";
  if (!e.boundTo.empty()) out += "Bound to: " + e.boundTo + " (explained as if pending now; still counted there)\n";
  out += "Result:   " + (e.chosen.empty() ? std::string("unschedulable") : "would be placed on " + e.chosen) + "\n";
  out += "Why:      " + e.summary + "\n";
  out += "Feasible: " + std::to_string(e.feasible) + " of " + std::to_string(e.nodes.size()) + " nodes\n";
  auto verdicts = [&](const char* title, const std::vector<Verdict>& vs) {
    if (vs.empty()) return;
    out += "\n";
    out += title;
    out += ":\n";
    for (const auto& v : vs) out += "  " + pad(v.plugin, 32) + v.code + (v.reason.empty() ? "" : ": " + v.reason) + "\n";
  };
  verdicts("PreFilter", e.preFilter);
  verdicts("PreScore", e.preScore);
  bool scored = false;
  for (const auto& n : e.nodes) {
    if (n.scores.empty()) continue;
    if (!scored) {
      out += "\nScores (raw / normalized x weight = weighted), best first:\n";
      scored = true;
    }
    out += "  " + n.name + "  total " + std::to_string(n.total) + (n.name == e.chosen ? "  <- chosen" : "") + "\n";
    for (const auto& s : n.scores) {
      out += "    " + pad(s.plugin, 32) + std::to_string(s.raw) + " / " + std::to_string(s.normalized) + " x " +
             std::to_string(s.weight) + " = " + std::to_string(s.weighted) + "\n";
    }
  }
  out += "\nFilters per node:\n";
  for (const auto& n : e.nodes) {
    out += "  " + n.name + (n.rejected.empty() ? "  fits" : "  rejected by " + n.rejected) + "\n";
    for (const auto& v : n.filters) {
      out += "    " + pad(v.plugin, 32) + v.code + (v.reason.empty() ? "" : ": " + v.reason) + "\n";
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
  json::array nodes;
  for (const auto& n : e.nodes) {
    json::object o{{"name", n.name}, {"feasible", n.rejected.empty()}, {"filters", verdicts(n.filters)}};
    if (!n.rejected.empty()) o["rejected"] = n.rejected;
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
  json::object root{{"pod", e.pod},
                    {"profile", e.profile},
                    {"boundTo", e.boundTo},
                    {"feasible", e.feasible},
                    {"chosen", e.chosen},
                    {"runnerUp", e.runnerUp},
                    {"summary", e.summary},
                    {"preFilter", verdicts(e.preFilter)},
                    {"preScore", verdicts(e.preScore)},
                    {"nodes", std::move(nodes)}};
  return root;
}

}  // namespace ksched::scheduler::explain
