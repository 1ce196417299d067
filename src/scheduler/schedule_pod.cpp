// The scheduling algorithm (upstream pkg/scheduler/schedule_one.go: schedulePod,
// findNodesThatFitPod, findNodesThatPassFilters, findNodesThatPassExtenders, prioritizeNodes,
// selectHost).
#include "scheduler/schedule_pod.h"

#include <algorithm>
#include <map>
#include <set>
#include <thread>

#include "api/helpers.h"
#include "util/log.h"

namespace ksched::scheduler {

using framework::Code;
using framework::Status;

std::int32_t num_feasible_nodes_to_find(std::optional<std::int32_t> profile_pct, std::int32_t global_pct,
                                        std::int32_t num_all_nodes) {
  constexpr std::int32_t kMinFeasibleNodesToFind = 100;
  constexpr std::int32_t kMinFeasibleNodesPercentageToFind = 5;
  if (num_all_nodes < kMinFeasibleNodesToFind) return num_all_nodes;
  std::int32_t pct = profile_pct ? *profile_pct : global_pct;
  if (pct == 0) {
    pct = 50 - num_all_nodes / 125;
    if (pct < kMinFeasibleNodesPercentageToFind) pct = kMinFeasibleNodesPercentageToFind;
  }
  std::int32_t n = static_cast<std::int32_t>(static_cast<std::int64_t>(num_all_nodes) * pct / 100);
  return std::max(n, kMinFeasibleNodesToFind);
}

SchedulingAlgorithm::SchedulingAlgorithm(Deps deps) : deps_(std::move(deps)) {}

Status SchedulingAlgorithm::schedule_pod(framework::Framework& fwk, framework::CycleState& state, const api::Pod& pod,
                                         ScheduleResult& result, std::optional<framework::FitError>& fit) {
  cache::Cache& cache = *deps_.cache;
  cache::Snapshot& snapshot = *deps_.snapshot;
  if (auto r = cache.update_snapshot(snapshot); !r.ok()) return Status::error(r.error());
  deps_.metrics->cache_size(cache.node_count(), cache.pod_count(), cache.assumed_pod_count());
  if (deps_.opportunistic_batching) batch_.note_snapshot_delta(snapshot.last_delta());
  const auto& all_nodes = candidate_nodes();
  if (all_nodes.empty()) return Status(Code::UnschedulableAndUnresolvable, kErrNoNodesAvailable);
  tie_key_ = (*deps_.rng)();

  std::optional<std::string> signature;
  // A batch spans all nodes: a placement's pods take the full path.
  if (placement_) clear_batch(fwk, OpportunisticBatch::Flush::NotBatchable);
  if (deps_.opportunistic_batching && !placement_) {
    signature = batch_signature(fwk, pod);
    if (!signature) {
      if (batch_.active()) clear_batch(fwk, OpportunisticBatch::Flush::NotBatchable);
    } else {
      Status bs = place_from_batch(fwk, state, pod, *signature, result);
      if (!bs.is_success()) return bs;
      if (!result.suggestedHost.empty()) return {};
    }
  }

  framework::Diagnosis diagnosis;
  std::vector<framework::NodeInfoPtr> feasible;
  int evaluated = 0;
  Status s = find_nodes_that_fit_pod(fwk, state, pod, diagnosis, feasible, evaluated);
  if (!s.is_success()) return s;

  if (feasible.empty()) {
    fit.emplace();
    fit->pod = std::make_shared<api::Pod>(pod);
    fit->numAllNodes = static_cast<int>(all_nodes.size());
    fit->diagnosis = std::move(diagnosis);
    return Status(Code::Unschedulable, fit->error());
  }

  // One feasible node: no scoring needed.
  if (feasible.size() == 1) {
    result.suggestedHost = feasible[0]->name();
    result.evaluatedNodes = evaluated;
    result.feasibleNodes = 1;
    return {};
  }

  s = prioritize_nodes(fwk, state, pod, feasible, scores_, signature ? &raw_scores_ : nullptr);
  if (!s.is_success()) return s;
  result.suggestedHost = select_host(scores_, feasible);
  result.evaluatedNodes = evaluated;
  result.feasibleNodes = static_cast<int>(feasible.size());
  if (signature) {
    const bool complete = evaluated == static_cast<int>(all_nodes.size());
    const auto t = deps_.clock->now();
    batch_.start(&fwk, std::move(*signature), std::move(feasible), std::move(raw_scores_), complete, t, snapshot);
    deps_.metrics->store_schedule_results(fwk.profile_name(), metrics::seconds_since(t, deps_.clock->now()));
  }
  return {};
}

const std::vector<framework::NodeInfoPtr>& SchedulingAlgorithm::candidate_nodes() {
  const auto& all = deps_.snapshot->list();
  if (!placement_) return all;
  placement_nodes_.clear();
  if (placement_order_) {
    for (const auto& ni : *placement_order_) {
      if (auto current = deps_.snapshot->get(ni->name().view())) placement_nodes_.push_back(std::move(current));
    }
    return placement_nodes_;
  }
  // The pod-group cycle tries every member in every placement: a lookup of each snapshot node
  // in the set per attempt would cost the whole cluster each time, the kept positions only the
  // placement's nodes (the NodeInfos there may be new copies, so they are read afresh).
  if (placement_list_size_ == all.size() && !placement_positions_.empty()) {
    bool same = true;
    for (std::size_t p : placement_positions_) {
      const auto& ni = all[p];
      if (!placement_->contains(ni->name().view())) {
        same = false;
        break;
      }
      placement_nodes_.push_back(ni);
    }
    if (same) return placement_nodes_;
    placement_nodes_.clear();
  }
  placement_positions_.clear();
  for (std::size_t p = 0; p < all.size(); ++p) {
    if (!placement_->contains(all[p]->name().view())) continue;
    placement_positions_.push_back(p);
    placement_nodes_.push_back(all[p]);
  }
  placement_list_size_ = all.size();
  return placement_nodes_;
}

// ---------------------------------------------------------------- opportunistic batching

std::optional<std::string> SchedulingAlgorithm::batch_signature(const framework::Framework& fwk,
                                                                const api::Pod& pod) const {
  // Extenders and nominated pods change verdicts in ways the batch does not follow.
  if (!extenders().empty() || !fwk.signs_pods() || !pod.status.nominatedNodeName.empty() ||
      deps_.nominator->has_nominated_pods()) {
    return std::nullopt;
  }
  return fwk.sign_pod(pod);
}

Status SchedulingAlgorithm::place_from_batch(framework::Framework& fwk, framework::CycleState& state,
                                             const api::Pod& pod, const std::string& signature,
                                             ScheduleResult& result) {
  const auto started = deps_.clock->now();
  std::optional<OpportunisticBatch::Flush> flushed;
  const bool usable = batch_.usable(&fwk, signature, deps_.clock->now(), flushed);
  record_batch_flush(fwk, flushed);
  std::string host;
  if (usable) {
    // Filter reads what PreFilter wrote in the cycle state. When the batch cannot decide, the
    // full path runs PreFilter again on the same state.
    framework::PreFilterResult pre_res;
    std::set<std::string> set_plugins;
    auto t = deps_.clock->now();
    Status s = fwk.run_pre_filter_plugins(state, pod, pre_res, set_plugins);
    observe("PreFilter", s, fwk, t);
    if (s.is_success() && pre_res.all_nodes()) {
      deps_.metrics->batch_rescore(fwk.profile_name());
      Status err;
      host = batch_.place(fwk, state, pod, tie_key_, flushed, err);
      record_batch_flush(fwk, flushed);
      if (!err.is_success()) return err;
    } else {
      clear_batch(fwk, OpportunisticBatch::Flush::PodFailed);
    }
  }
  deps_.metrics->batch_attempt(fwk.profile_name(), host.empty() ? "no_hint" : "hint_used");
  deps_.metrics->get_node_hint(fwk.profile_name(), !host.empty(), metrics::seconds_since(started, deps_.clock->now()));
  if (!host.empty()) {
    result.suggestedHost = std::move(host);
    result.evaluatedNodes = 1;
    result.feasibleNodes = 1;
  }
  return {};
}

void SchedulingAlgorithm::record_batch_flush(const framework::Framework& fwk,
                                             std::optional<OpportunisticBatch::Flush> flushed) {
  if (!flushed) return;
  deps_.metrics->set().batchCacheFlushed.with({fwk.profile_name(), OpportunisticBatch::flush_reason(*flushed)}).inc();
}

void SchedulingAlgorithm::clear_batch(const framework::Framework& fwk, OpportunisticBatch::Flush why) {
  if (!batch_.active()) return;
  batch_.clear();
  record_batch_flush(fwk, why);
}

// ---------------------------------------------------------------- filtering

Status SchedulingAlgorithm::find_nodes_that_fit_pod(framework::Framework& fwk, framework::CycleState& state,
                                                    const api::Pod& pod, framework::Diagnosis& diagnosis,
                                                    std::vector<framework::NodeInfoPtr>& feasible, int& evaluated) {
  const cache::Snapshot& snapshot = *deps_.snapshot;
  const auto& all_nodes = placement_ ? placement_nodes_ : snapshot.list();
  framework::PreFilterResult pre_res;
  std::set<std::string> set_plugins;
  auto t = deps_.clock->now();
  Status s = fwk.run_pre_filter_plugins(state, pod, pre_res, set_plugins);
  observe("PreFilter", s, fwk, t);
  // The plugins whose node sets left nodes out reject those nodes (upstream assigns them first).
  diagnosis.unschedulablePlugins.insert(set_plugins.begin(), set_plugins.end());
  if (!s.is_success()) {
    if (!s.is_rejected()) return s;
    // A PreFilter rejection applies to every node.
    diagnosis.nodeToStatus.set_absent(s);
    diagnosis.preFilterMsg = s.message();
    log::V(5).info("Status after running PreFilter plugins for pod",
                   {{"pod", api::key_of(pod)}, {"status", s.message()}});
    diagnosis.add_plugin_status(s);
    return {};
  }

  // The nominated node (set by an earlier preemption) is tried first.
  const bool nominated_in_placement = !placement_ || placement_->contains(pod.status.nominatedNodeName.view());
  if (!pod.status.nominatedNodeName.empty() && nominated_in_placement) {
    if (auto ni = snapshot.get(pod.status.nominatedNodeName); ni && ni->node()) {
      std::vector<framework::NodeInfoPtr> one{ni};
      FilterPass pass(fwk, state, pod, one, next_start_node_index_, false, rejections_);
      Status ns = find_nodes_that_pass_filters(pass, fwk, one, feasible);
      pass.record(diagnosis);
      if (ns.is_success()) ns = find_nodes_that_pass_extenders(pod, diagnosis.nodeToStatus, feasible);
      if (!ns.is_success()) {
        log::error("Evaluation failed on nominated node",
                   {{"pod", api::key_of(pod)}, {"node", pod.status.nominatedNodeName}, {"err", ns.message()}});
      } else if (!feasible.empty()) {
        evaluated = static_cast<int>(feasible.size() + diagnosis.nodeToStatus.size());
        return {};
      }
    } else {
      log::error("Evaluation failed on nominated node",
                 {{"pod", api::key_of(pod)}, {"node", pod.status.nominatedNodeName}, {"err", "nodeinfo not found"}});
    }
    feasible.clear();
  }

  const std::vector<framework::NodeInfoPtr>* nodes = &all_nodes;
  std::vector<framework::NodeInfoPtr> subset;
  if (!pre_res.all_nodes()) {
    for (const auto& name : *pre_res.nodeNames) {
      // PreFilter may name nodes that do not exist (or are outside the placement).
      if (placement_ && !placement_->contains(name)) continue;
      if (auto ni = snapshot.get(name); ni && ni->node()) subset.push_back(ni);
    }
    nodes = &subset;
    diagnosis.nodeToStatus.set_absent(framework::prefilter_result_rejection(set_plugins));
  }
  FilterPass pass(fwk, state, pod, *nodes, next_start_node_index_, nodes == &snapshot.list(), rejections_);
  s = find_nodes_that_pass_filters(pass, fwk, *nodes, feasible);
  // The nominated node may have been rejected again: record now so that it counts once.
  if (diagnosis.nodeToStatus.size() != 0 || feasible.empty()) pass.record(diagnosis);
  // Rotate the start so that successive pods spread their search over all nodes.
  const std::size_t processed = feasible.size() + diagnosis.nodeToStatus.size() + pass.unrecorded();
  if (!all_nodes.empty()) next_start_node_index_ = (next_start_node_index_ + processed) % all_nodes.size();
  if (!s.is_success()) return s;

  const std::size_t before_extenders = feasible.size();
  s = find_nodes_that_pass_extenders(pod, diagnosis.nodeToStatus, feasible);
  if (!s.is_success()) return s;
  // Extenders cannot say which events could help, so a pod they rejected nodes for is retried on
  // any cluster event (the "Extender" pseudo plugin registers the wildcard event).
  if (feasible.size() != before_extenders) {
    diagnosis.unschedulablePlugins.insert(std::string(framework::kExtenderName));
  }
  if (feasible.empty()) pass.record(diagnosis);
  evaluated = static_cast<int>(feasible.size() + diagnosis.nodeToStatus.size() + pass.unrecorded());
  return {};
}

Status SchedulingAlgorithm::find_nodes_that_pass_filters(FilterPass& pass, framework::Framework& fwk,
                                                         const std::vector<framework::NodeInfoPtr>& nodes,
                                                         std::vector<framework::NodeInfoPtr>& feasible) {
  const int n = static_cast<int>(nodes.size());
  int to_find = num_feasible_nodes_to_find(fwk.percentage_of_nodes_to_score(), deps_.percentage_of_nodes_to_score, n);
  // Nothing ranks or re-filters the feasible nodes: the first one found will do.
  if (!has_extender_filters() && !has_scoring(fwk)) to_find = 1;
  const bool timed = n != 0 && fwk.has_filter_plugins();
  const auto t = deps_.clock->now();
  Status s = pass.run(to_find, feasible);
  if (timed) observe("Filter", s, fwk, t);
  return s;
}

Status SchedulingAlgorithm::find_nodes_that_pass_extenders(const api::Pod& pod, framework::NodeToStatus& statuses,
                                                           std::vector<framework::NodeInfoPtr>& feasible) {
  for (const auto& x : extenders()) {
    if (feasible.empty()) break;
    if (!x->is_interested(pod)) continue;
    std::vector<framework::NodeInfoPtr> passed;
    framework::FailedNodesMap failed, unresolvable;
    auto r = x->filter(pod, feasible, passed, failed, unresolvable);
    if (!r.ok()) {
      if (x->is_ignorable()) {
        log::info("Skipping extender as it returned error and has ignorable flag set",
                  {{"extender", x->name()}, {"err", r.error()}});
        continue;
      }
      return Status::error(r.error());
    }
    for (auto& [node, msg] : unresolvable) {
      statuses.set(node, Status(Code::UnschedulableAndUnresolvable, msg));
    }
    for (auto& [node, msg] : failed) {
      if (unresolvable.count(node)) continue;  // the unresolvable verdict wins
      statuses.set(node, Status(Code::Unschedulable, msg));
    }
    feasible = std::move(passed);
  }
  return {};
}

bool SchedulingAlgorithm::has_extender_filters() const {
  return std::any_of(extenders().begin(), extenders().end(), [](const auto& x) { return x->is_filter(); });
}

bool SchedulingAlgorithm::has_scoring(const framework::Framework& fwk) const {
  return fwk.has_score_plugins() ||
         std::any_of(extenders().begin(), extenders().end(), [](const auto& x) { return x->is_prioritizer(); });
}

// ---------------------------------------------------------------- scoring

Status SchedulingAlgorithm::prioritize_nodes(framework::Framework& fwk, framework::CycleState& state,
                                             const api::Pod& pod, const std::vector<framework::NodeInfoPtr>& feasible,
                                             std::vector<framework::NodePluginScores>& out, framework::RawScores* raw) {
  if (extenders().empty() && !fwk.has_score_plugins()) {
    out.clear();
    for (const auto& ni : feasible) out.push_back(framework::NodePluginScores{ni->name(), {}, 1});
    return {};
  }
  auto t = deps_.clock->now();
  Status s = fwk.run_pre_score_plugins(state, pod, feasible);
  observe("PreScore", s, fwk, t);
  if (!s.is_success()) return s;
  t = deps_.clock->now();
  s = fwk.run_score_plugins(state, pod, feasible, out, raw);
  observe("Score", s, fwk, t);
  if (s.is_success() && !extenders().empty()) add_extender_scores(pod, feasible, out);
  return s;
}

void SchedulingAlgorithm::add_extender_scores(const api::Pod& pod, const std::vector<framework::NodeInfoPtr>& feasible,
                                              std::vector<framework::NodePluginScores>& out) {
  // Extender scores (0..MaxExtenderPriority) are scaled to the plugins' range, weighted and added
  // to the totals. A failing prioritizer only loses its say, ignorable or not. The extenders are
  // asked concurrently (upstream: one goroutine each), their answers added in extender order.
  struct Answer {
    bool ok = false;
    std::vector<framework::HostPriority> prios;
    std::int64_t weight = 0;
  };
  // A thread each, not the parallelizer: these calls wait on the network, and the parallelizer
  // runs short jobs on the calling thread alone.
  std::vector<Answer> answers(extenders().size());
  auto ask = [&](std::size_t i) {
    const auto& x = extenders()[i];
    if (!x->is_interested(pod)) return;
    Answer& a = answers[i];
    if (auto r = x->prioritize(pod, feasible, a.prios, a.weight); !r.ok()) {
      log::V(5).info("Failed to run extender's priority function. No score given by this extender.",
                     {{"error", r.error()}, {"pod", api::key_of(pod)}, {"extender", x->name()}});
      return;
    }
    a.ok = true;
  };
  std::vector<std::thread> others;
  for (std::size_t i = 1; i < extenders().size(); ++i) {
    if (extenders()[i]->is_interested(pod)) others.emplace_back(ask, i);
  }
  ask(0);
  for (auto& th : others) th.join();
  std::map<std::string, framework::NodePluginScores, std::less<>> extra;
  for (std::size_t i = 0; i < extenders().size(); ++i) {
    if (!answers[i].ok) continue;
    const auto& x = extenders()[i];
    const std::int64_t weight = answers[i].weight;
    for (const auto& hp : answers[i].prios) {
      const std::int64_t score = hp.score * weight * (framework::kMaxNodeScore / framework::kMaxExtenderPriority);
      auto& e = extra[hp.host];
      e.scores.emplace_back(x->name(), score);
      e.totalScore += score;
    }
  }
  for (auto& nps : out) {
    auto it = extra.find(nps.name);
    if (it == extra.end()) continue;
    for (auto& sc : it->second.scores) nps.scores.push_back(std::move(sc));
    nps.totalScore += it->second.totalScore;
  }
}

std::string SchedulingAlgorithm::select_host(const std::vector<framework::NodePluginScores>& scores,
                                             const std::vector<framework::NodeInfoPtr>& feasible) const {
  if (scores.empty()) return {};
  const bool paired = feasible.size() == scores.size();
  // Among the nodes tied at the top score, the one ranked first by the pod's random key: each
  // tied node is equally likely, whatever order the nodes were scored in.
  const std::size_t pick = best_node(
      scores.size(), [&](std::size_t i) { return scores[i].totalScore; },
      [&](std::size_t i) {
        return paired ? tie_break_rank_of_hash(feasible[i]->name_hash(), tie_key_)
                      : tie_break_rank(scores[i].name, tie_key_);
      });
  return std::string(scores[pick].name);
}

}  // namespace ksched::scheduler
