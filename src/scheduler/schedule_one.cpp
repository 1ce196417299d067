// The scheduling cycle and the binding cycle (upstream pkg/scheduler/schedule_one.go, v1.32).
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>

#include "scheduler/queue/events.h"
#include "scheduler/scheduler.h"
#include "util/log.h"

namespace ksched::scheduler {

using framework::Code;
using framework::Status;

namespace {

std::string pod_key(const api::Pod& p) { return p.metadata.namespace_ + "/" + p.metadata.name; }

// Upstream Diagnosis.AddPluginStatus: remember which plugin rejected the pod.
void add_plugin_status(framework::Diagnosis& d, const Status& s) {
  if (s.plugin().empty() || !s.is_rejected()) return;
  if (s.code() == Code::Pending) {
    d.pendingPlugins.insert(s.plugin());
  } else {
    d.unschedulablePlugins.insert(s.plugin());
  }
}

const framework::NominatingInfo kClearNominatedNode{framework::NominatingInfo::Mode::Override, ""};

// A rejection from Reserve/Permit/PreBind/WaitOnPermit on the chosen node, as a FitError over one node.
framework::FitError single_node_fit_error(const framework::PodPtr& pod, const std::string& node, const Status& s) {
  framework::FitError fe;
  fe.pod = pod;
  fe.numAllNodes = 1;
  fe.diagnosis.nodeToStatus.set(node, s);
  add_plugin_status(fe.diagnosis, s);
  return fe;
}

}  // namespace

bool Scheduler::schedule_one() {
  auto pinfo = queue_->pop();
  if (!pinfo) return false;
  schedule_pod_info(pinfo);
  return true;
}

bool Scheduler::schedule_one_if_pending() {
  auto pinfo = queue_->try_pop();
  if (!pinfo) return false;
  schedule_pod_info(pinfo);
  return true;
}

bool Scheduler::skip_pod_schedule(framework::Framework& fwk, const api::Pod& pod) {
  (void)fwk;
  if (pod.metadata.deletionTimestamp) {
    client_->event(pod, "Warning", "FailedScheduling", "Scheduling",
                   "skip schedule deleting pod: " + pod_key(pod));
    return true;
  }
  // An update of an assumed pod can re-add it to the queue (handler B drops most of them; this
  // catches the rest).
  if (cache_->is_assumed_pod(pod)) return true;
  return false;
}

bool Scheduler::schedule_pod_info(const queue::QueuedPodInfoPtr& pinfo) {
  const framework::PodPtr pod = pinfo->podInfo->pod;
  framework::Framework* fwk = profile(pod->spec.schedulerName);
  if (!fwk) {
    log::error("Error occurred", {{"err", "profile not found for scheduler name " + pod->spec.schedulerName}});
    queue_->done(pod->metadata.uid);
    return false;
  }
  if (skip_pod_schedule(*fwk, *pod)) {
    queue_->done(pod->metadata.uid);
    return false;
  }
  if (auto v = log::V(3); v.enabled()) v.info("Attempting to schedule pod", {{"pod", pod_key(*pod)}});

  const auto start = clock_->now();
  auto state = std::make_shared<framework::CycleState>();
  state->record_plugin_metrics = std::uniform_int_distribution<int>(0, 99)(rng_) < opts_.pluginMetricsSamplePercent;
  auto pods_to_activate = std::make_shared<framework::PodsToActivate>();
  state->write(std::string(framework::kPodsToActivateKey), pods_to_activate);

  // ---- scheduling cycle
  ScheduleResult result;
  std::optional<framework::FitError> fit;
  Status status = schedule_pod(*fwk, *state, *pod, result, fit);
  if (opts_.cycleObserver) opts_.cycleObserver(*fwk, *pod, status.is_success() ? result.suggestedHost : std::string());
  if (!status.is_success()) {
    clear_batch(*fwk, OpportunisticBatch::Flush::PodFailed);
    if (opts_.metrics) {
      opts_.metrics->schedulingAlgorithmDuration.get().observe(metrics::seconds_since(start, clock_->now()));
    }
    std::optional<framework::NominatingInfo> nominating;
    if (fit) {
      if (fwk->has_post_filter_plugins()) {
        // Preemption may make room for a later attempt.
        framework::PostFilterResult pfr;
        auto pf_start = clock_->now();
        Status pfs = fwk->run_post_filter_plugins(*state, *pod, fit->diagnosis.nodeToStatus, pfr);
        observe_extension_point("PostFilter", pfs, fwk->profile_name(), pf_start);
        // Upstream's DefaultPreemption counts every PostFilter run as an attempt.
        if (opts_.metrics) opts_.metrics->preemptionAttempts.get().inc();
        fit->diagnosis.postFilterMsg = pfs.message();
        if (pfs.is_error()) {
          log::error("Status after running PostFilter plugins for pod",
                     {{"pod", pod_key(*pod)}, {"status", pfs.message()}});
        }
        nominating = pfr.nominatingInfo;
      } else {
        log::V(3).info("No PostFilter plugins are registered, so no preemption will be performed");
      }
    } else {
      nominating = kClearNominatedNode;
    }
    handle_scheduling_failure(*fwk, pinfo, status, fit, nominating, start);
    return false;
  }
  if (opts_.metrics) {
    opts_.metrics->schedulingAlgorithmDuration.get().observe(metrics::seconds_since(start, clock_->now()));
  }

  // Assume: the cache counts the pod on the node before binding finishes.
  auto assumed_pod = std::make_shared<api::Pod>(*pod);
  assumed_pod->spec.nodeName = result.suggestedHost;
  auto assumed_info = std::make_shared<framework::QueuedPodInfo>(*pinfo);
  assumed_info->podInfo = framework::PodInfo::make(assumed_pod);
  const api::Pod& assumed = *assumed_pod;
  if (auto r = cache_->assume_pod(assumed_info->podInfo); !r.ok()) {
    clear_batch(*fwk, OpportunisticBatch::Flush::PodFailed);
    // Most likely a bug in retrying logic.
    handle_scheduling_failure(*fwk, assumed_info, Status::error(r.error()), std::nullopt, kClearNominatedNode, start);
    return false;
  }
  queue_->nominator().delete_nominated_pod_if_exists(assumed);

  auto fail_after_assume = [&](const Status& s) {
    clear_batch(*fwk, OpportunisticBatch::Flush::PodFailed);
    fwk->run_reserve_plugins_unreserve(*state, assumed, result.suggestedHost);
    if (auto fr = cache_->forget_pod(assumed); !fr.ok()) {
      log::error("Scheduler cache ForgetPod failed", {{"err", fr.error()}});
    }
    std::optional<framework::FitError> fe;
    Status st = s;
    if (s.is_rejected()) {
      fe = single_node_fit_error(pod, result.suggestedHost, s);
      st = Status(s.code(), fe->error());
    }
    handle_scheduling_failure(*fwk, assumed_info, st, fe, kClearNominatedNode, start);
  };

  auto t = clock_->now();
  Status rs = fwk->run_reserve_plugins_reserve(*state, assumed, result.suggestedHost);
  observe_extension_point("Reserve", rs, fwk->profile_name(), t);
  if (!rs.is_success()) {
    fail_after_assume(rs);
    return false;
  }
  t = clock_->now();
  Status ps = fwk->run_permit_plugins(*state, assumed, result.suggestedHost);
  observe_extension_point("Permit", ps, fwk->profile_name(), t);
  if (!ps.is_success() && !ps.is_wait()) {
    fail_after_assume(ps);
    return false;
  }
  // At the end of a successful scheduling cycle, move up the pods plugins asked for.
  if (auto pods = pods_to_activate->take(); !pods.empty()) queue_->activate(pods);

  // ---- binding cycle, asynchronously
  // What only Filter and Score read is let go now: kept by the binding, counts shared with a
  // plugin's cache would be copied by the next cycle instead of updated in place.
  state->drop_scheduling_only();
  if (opts_.metrics) opts_.metrics->goroutines.with({"binding"}).inc();
  const bool batchable =
      !ps.is_wait() && std::none_of(extenders_.begin(), extenders_.end(), [](const auto& x) { return x->is_binder(); }) &&
      fwk->binds_in_batches(*state, assumed);
  submit_binding(BindingJob{fwk, std::move(state), std::move(result), std::move(assumed_info), start,
                            std::move(pods_to_activate), batchable});
  return true;
}

// ---------------------------------------------------------------- algorithm

Status Scheduler::schedule_pod(framework::Framework& fwk, framework::CycleState& state, const api::Pod& pod,
                               ScheduleResult& result, std::optional<framework::FitError>& fit) {
  if (auto r = cache_->update_snapshot(*snapshot_); !r.ok()) return Status::error(r.error());
  if (opts_.metrics) {
    opts_.metrics->cacheSize.with({"nodes"}).set(cache_->node_count());
    opts_.metrics->cacheSize.with({"pods"}).set(cache_->pod_count());
    opts_.metrics->cacheSize.with({"assumed_pods"}).set(cache_->assumed_pod_count());
  }
  if (opts_.opportunisticBatching) batch_.note_snapshot_delta(snapshot_->last_delta());
  const auto& all_nodes = snapshot_->list();
  if (all_nodes.empty()) return Status(Code::UnschedulableAndUnresolvable, kErrNoNodesAvailable);
  tie_key_ = rng_();

  std::optional<std::string> signature;
  if (opts_.opportunisticBatching) {
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
  Status s = find_nodes_that_fit_pod(fwk, state, pod, diagnosis, feasible);
  if (!s.is_success()) return s;

  if (feasible.empty()) {
    fit.emplace();
    fit->pod = std::make_shared<api::Pod>(pod);
    fit->numAllNodes = static_cast<int>(all_nodes.size());
    fit->diagnosis = std::move(diagnosis);
    return Status(Code::Unschedulable, fit->error());
  }

  const int evaluated = static_cast<int>(feasible.size() + evaluated_rejections(diagnosis));
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
    batch_.start(&fwk, std::move(*signature), std::move(feasible), std::move(raw_scores_), complete, clock_->now(),
                 *snapshot_);
  }
  return {};
}

std::optional<std::string> Scheduler::batch_signature(const framework::Framework& fwk, const api::Pod& pod) const {
  // Extenders and nominated pods change verdicts in ways the batch does not follow.
  if (!extenders_.empty() || !fwk.signs_pods() || !pod.status.nominatedNodeName.empty() ||
      queue_->nominator().has_nominated_pods()) {
    return std::nullopt;
  }
  return fwk.sign_pod(pod);
}

Status Scheduler::place_from_batch(framework::Framework& fwk, framework::CycleState& state, const api::Pod& pod,
                                   const std::string& signature, ScheduleResult& result) {
  std::optional<OpportunisticBatch::Flush> flushed;
  const bool usable = batch_.usable(&fwk, signature, clock_->now(), flushed);
  record_batch_flush(fwk, flushed);
  std::string host;
  if (usable) {
    // Filter reads what PreFilter wrote in the cycle state. When the batch cannot decide, the
    // full cycle runs PreFilter again on the same state.
    framework::PreFilterResult pre_res;
    std::set<std::string> set_plugins;
    auto t = clock_->now();
    Status s = fwk.run_pre_filter_plugins(state, pod, pre_res, set_plugins);
    observe_extension_point("PreFilter", s, fwk.profile_name(), t);
    if (s.is_success() && pre_res.all_nodes()) {
      if (opts_.metrics) opts_.metrics->batchRescoreAttempts.with({fwk.profile_name()}).inc();
      Status err;
      host = batch_.place(fwk, state, pod, tie_key_, flushed, err);
      record_batch_flush(fwk, flushed);
      if (!err.is_success()) return err;
    } else {
      clear_batch(fwk, OpportunisticBatch::Flush::PodFailed);
    }
  }
  if (opts_.metrics) {
    opts_.metrics->batchAttempts.with({fwk.profile_name(), host.empty() ? "no_hint" : "hint_used"}).inc();
  }
  if (!host.empty()) {
    result.suggestedHost = std::move(host);
    result.evaluatedNodes = 1;
    result.feasibleNodes = 1;
  }
  return {};
}

void Scheduler::record_batch_flush(const framework::Framework& fwk, std::optional<OpportunisticBatch::Flush> flushed) {
  if (flushed && opts_.metrics) {
    opts_.metrics->batchCacheFlushed.with({fwk.profile_name(), OpportunisticBatch::flush_reason(*flushed)}).inc();
  }
}

void Scheduler::clear_batch(const framework::Framework& fwk, OpportunisticBatch::Flush why) {
  if (!batch_.active()) return;
  batch_.clear();
  record_batch_flush(fwk, why);
}

Status Scheduler::find_nodes_that_fit_pod(framework::Framework& fwk, framework::CycleState& state, const api::Pod& pod,
                                          framework::Diagnosis& diagnosis,
                                          std::vector<framework::NodeInfoPtr>& feasible) {
  const auto& all_nodes = snapshot_->list();
  framework::PreFilterResult pre_res;
  std::set<std::string> set_plugins;
  auto t = clock_->now();
  Status s = fwk.run_pre_filter_plugins(state, pod, pre_res, set_plugins);
  observe_extension_point("PreFilter", s, fwk.profile_name(), t);
  // The plugins whose node sets left nodes out reject those nodes (upstream assigns them first).
  diagnosis.unschedulablePlugins.insert(set_plugins.begin(), set_plugins.end());
  if (!s.is_success()) {
    if (!s.is_rejected()) return s;
    // A PreFilter rejection applies to every node.
    diagnosis.nodeToStatus.set_absent(s);
    diagnosis.preFilterMsg = s.message();
    log::V(5).info("Status after running PreFilter plugins for pod", {{"pod", pod_key(pod)}, {"status", s.message()}});
    add_plugin_status(diagnosis, s);
    return {};
  }

  // The nominated node (set by an earlier preemption) is tried first.
  if (!pod.status.nominatedNodeName.empty()) {
    if (auto ni = snapshot_->get(pod.status.nominatedNodeName); ni && ni->node()) {
      std::vector<framework::NodeInfoPtr> one{ni};
      Status ns = find_nodes_that_pass_filters(fwk, state, pod, one, feasible);
      record_rejections(diagnosis);
      if (ns.is_success()) ns = find_nodes_that_pass_extenders(pod, diagnosis.nodeToStatus, feasible);
      if (!ns.is_success()) {
        log::error("Evaluation failed on nominated node",
                   {{"pod", pod_key(pod)}, {"node", pod.status.nominatedNodeName}, {"err", ns.message()}});
      } else if (!feasible.empty()) {
        return {};
      }
    } else {
      log::error("Evaluation failed on nominated node",
                 {{"pod", pod_key(pod)}, {"node", pod.status.nominatedNodeName}, {"err", "nodeinfo not found"}});
    }
    feasible.clear();
  }

  const std::vector<framework::NodeInfoPtr>* nodes = &all_nodes;
  std::vector<framework::NodeInfoPtr> subset;
  if (!pre_res.all_nodes()) {
    for (const auto& name : *pre_res.nodeNames) {
      // PreFilter may name nodes that do not exist.
      if (auto ni = snapshot_->get(name); ni && ni->node()) subset.push_back(ni);
    }
    nodes = &subset;
    diagnosis.nodeToStatus.set_absent(framework::prefilter_result_rejection(set_plugins));
  }
  s = find_nodes_that_pass_filters(fwk, state, pod, *nodes, feasible);
  // The nominated node may have been rejected again: record now so that it counts once.
  if (diagnosis.nodeToStatus.size() != 0 || feasible.empty()) record_rejections(diagnosis);
  // Rotate the start so that successive pods spread their search over all nodes.
  const std::size_t processed = feasible.size() + evaluated_rejections(diagnosis);
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
  if (feasible.empty()) record_rejections(diagnosis);
  return {};
}

Status Scheduler::find_nodes_that_pass_extenders(const api::Pod& pod, framework::NodeToStatus& statuses,
                                                 std::vector<framework::NodeInfoPtr>& feasible) {
  // Sequential: each extender sees what the previous ones left.
  for (const auto& x : extenders_) {
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

bool Scheduler::has_extender_filters() const {
  return std::any_of(extenders_.begin(), extenders_.end(), [](const auto& x) { return x->is_filter(); });
}

bool Scheduler::has_scoring(const framework::Framework& fwk) const {
  return fwk.has_score_plugins() ||
         std::any_of(extenders_.begin(), extenders_.end(), [](const auto& x) { return x->is_prioritizer(); });
}

Status Scheduler::find_nodes_that_pass_filters(framework::Framework& fwk, framework::CycleState& state,
                                               const api::Pod& pod, const std::vector<framework::NodeInfoPtr>& nodes,
                                               std::vector<framework::NodeInfoPtr>& feasible) {
  Rejections& rj = rejections_;
  rj.nodes = &nodes;
  rj.start = next_start_node_index_;
  rj.count = 0;
  rj.scanned = 0;
  rj.recorded = false;
  rj.fwk = &fwk;
  rj.state = &state;
  rj.pod = &pod;
  ++rj.pass;
  const int n = static_cast<int>(nodes.size());
  if (n == 0) return {};
  int to_find = num_feasible_nodes_to_find(fwk.percentage_of_nodes_to_score(), percentage_of_nodes_to_score_, n);
  // Nothing ranks or re-filters the feasible nodes: the first one found will do.
  if (!has_extender_filters() && !has_scoring(fwk)) to_find = 1;
  const std::size_t start_index = rj.start;

  if (!fwk.has_filter_plugins()) {
    for (int i = 0; i < to_find; ++i) feasible.push_back(nodes[(start_index + i) % n]);
    return {};
  }

  if (rj.slots.size() < nodes.size()) rj.slots.resize(nodes.size());
  std::vector<framework::NodeInfoPtr> found(to_find);
  std::atomic<int> feasible_count{0};
  std::atomic<std::size_t> rejected{0};
  std::atomic<std::size_t> quick_rejected{0};
  std::atomic<int> scanned{0};
  std::atomic<bool> failed{false};
  std::mutex err_mu;
  Status first_error;
  const std::uint64_t pass = rj.pass;
  const framework::Framework::QuickRejecter quick = fwk.quick_rejecter(state, pod);
  // Positions in `nodes` are list positions when it is the snapshot's list.
  const bool quick_by_position = quick.test.rejects_at != nullptr && &nodes == &snapshot_->list();

  auto t = clock_->now();
  // Counts are summed per chunk: a counter shared per node bounces between the cores.
  auto check = [&](int begin, int end) {
    std::size_t rejected_here = 0;
    std::size_t quick_here = 0;
    int i = begin;
    bool go_on = true;
    for (; i < end; ++i) {
      if (failed.load(std::memory_order_relaxed) || feasible_count.load(std::memory_order_relaxed) >= to_find) {
        go_on = false;
        break;
      }
      const std::size_t at = (start_index + i) % n;
      const auto& ni = nodes[at];
      const bool passed_over =
          quick_by_position ? quick.test.rejects_at(quick.test.data, static_cast<std::uint32_t>(at))
                            : quick.test && quick.test.rejects(quick.test.data, *ni);
      if (passed_over) {
        auto& slot = rj.slots[i];
        slot.pass = pass;
        slot.quick = true;
        ++quick_here;
        continue;
      }
      Status s = fwk.run_filter_plugins_with_nominated_pods(state, pod, *ni);
      if (s.is_error()) {
        std::lock_guard l(err_mu);
        if (!failed.exchange(true)) first_error = s;
        go_on = false;
        break;
      }
      if (s.is_success()) {
        int len = feasible_count.fetch_add(1) + 1;
        if (len > to_find) {
          feasible_count.fetch_sub(1);
          continue;
        }
        found[len - 1] = ni;
      } else {
        auto& slot = rj.slots[i];
        slot.pass = pass;
        slot.status = std::move(s);
        slot.quick = false;
        ++rejected_here;
      }
    }
    if (rejected_here != 0) rejected.fetch_add(rejected_here, std::memory_order_relaxed);
    if (quick_here != 0) {
      quick_rejected.fetch_add(quick_here, std::memory_order_relaxed);
      fwk.count_quick_rejections(quick.filter_index, quick_here);
    }
    for (int seen = scanned.load(std::memory_order_relaxed);
         seen < i && !scanned.compare_exchange_weak(seen, i, std::memory_order_relaxed);) {
    }
    return go_on;
  };
  fwk.parallelizer().chunks(n, check);
  observe_extension_point("Filter", failed ? first_error : Status(), fwk.profile_name(), t);
  rj.count = rejected.load() + quick_rejected.load();
  rj.scanned = static_cast<std::size_t>(scanned.load());
  if (!failed && feasible_count.load() == 0 && quick_rejected.load() != 0) {
    // No node passed, so a diagnosis follows: every quickly rejected node gets its exact status
    // now, and an Error that a plugin skipped on it would have returned ends the attempt, as the
    // plain walk would have.
    std::vector<std::size_t> quick_slots;
    quick_slots.reserve(quick_rejected.load());
    for (std::size_t i = 0; i < rj.scanned; ++i) {
      if (rj.slots[i].pass == pass && rj.slots[i].quick) quick_slots.push_back(i);
    }
    fwk.parallelizer().until(static_cast<int>(quick_slots.size()), [&](int k) {
      const std::size_t i = quick_slots[static_cast<std::size_t>(k)];
      Status s = exact_rejection(i);
      if (s.is_error()) {
        std::lock_guard l(err_mu);
        if (!failed.exchange(true)) first_error = s;
      }
    });
    // A quick test that rejected a node its Filter plugins pass is a plugin bug; the node is
    // feasible all the same (exact_rejection left its slot empty).
    for (const std::size_t i : quick_slots) {
      if (rj.slots[i].pass != pass && feasible_count.load() < to_find) {
        found[static_cast<std::size_t>(feasible_count.fetch_add(1))] = nodes[(start_index + i) % n];
        --rj.count;
      }
    }
  }
  if (failed) {
    rj.recorded = true;  // an error ends the attempt; its rejections say nothing
    return first_error;
  }
  const int count = std::min(feasible_count.load(), to_find);
  for (int i = 0; i < count; ++i) feasible.push_back(std::move(found[i]));
  return {};
}

Status Scheduler::exact_rejection(std::size_t i) {
  Rejections& rj = rejections_;
  auto& slot = rj.slots[i];
  const auto& nodes = *rj.nodes;
  const auto& ni = nodes[(rj.start + i) % nodes.size()];
  Status s = rj.fwk->run_filter_plugins_with_nominated_pods(*rj.state, *rj.pod, *ni);
  slot.quick = false;
  if (s.is_success()) {
    log::error("A Filter plugin's quick test rejected a node its Filter passes",
               {{"pod", pod_key(*rj.pod)}, {"node", std::string(ni->name_view())}});
    slot.pass = 0;
    return s;
  }
  slot.status = s;
  return s;
}

void Scheduler::record_rejections(framework::Diagnosis& diagnosis) {
  Rejections& rj = rejections_;
  if (rj.recorded) return;
  rj.recorded = true;
  if (rj.count == 0) return;
  const auto& nodes = *rj.nodes;
  const std::size_t n = nodes.size();
  diagnosis.nodeToStatus.reserve(diagnosis.nodeToStatus.size() + rj.count);
  // In node order, as a serial walk would have recorded them. Consecutive nodes are mostly
  // rejected by the same plugin: its name is added to the diagnosis once per run.
  const std::string* last_plugin = nullptr;
  Code last_code = Code::Success;
  for (std::size_t i = 0; i < rj.scanned; ++i) {
    auto& slot = rj.slots[i];
    if (slot.pass != rj.pass) continue;
    if (slot.quick && exact_rejection(i).is_success()) continue;
    Status& st = slot.status;
    if (&st.plugin() != last_plugin || st.code() != last_code) {
      add_plugin_status(diagnosis, st);
      last_plugin = &st.plugin();
      last_code = st.code();
    }
    diagnosis.nodeToStatus.set(nodes[(rj.start + i) % n]->name(), std::move(st));
  }
}

Status Scheduler::prioritize_nodes(framework::Framework& fwk, framework::CycleState& state, const api::Pod& pod,
                                   const std::vector<framework::NodeInfoPtr>& feasible,
                                   std::vector<framework::NodePluginScores>& out, framework::RawScores* raw) {
  if (extenders_.empty() && !fwk.has_score_plugins()) {
    out.clear();
    for (const auto& ni : feasible) out.push_back(framework::NodePluginScores{ni->name(), {}, 1});
    return {};
  }
  auto t = clock_->now();
  Status s = fwk.run_pre_score_plugins(state, pod, feasible);
  observe_extension_point("PreScore", s, fwk.profile_name(), t);
  if (!s.is_success()) return s;
  t = clock_->now();
  s = fwk.run_score_plugins(state, pod, feasible, out, raw);
  observe_extension_point("Score", s, fwk.profile_name(), t);
  if (!s.is_success() || extenders_.empty()) return s;

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
  std::vector<Answer> answers(extenders_.size());
  auto ask = [&](std::size_t i) {
    const auto& x = extenders_[i];
    if (!x->is_interested(pod)) return;
    Answer& a = answers[i];
    if (auto r = x->prioritize(pod, feasible, a.prios, a.weight); !r.ok()) {
      log::V(5).info("Failed to run extender's priority function. No score given by this extender.",
                     {{"error", r.error()}, {"pod", pod_key(pod)}, {"extender", x->name()}});
      return;
    }
    a.ok = true;
  };
  std::vector<std::thread> others;
  for (std::size_t i = 1; i < extenders_.size(); ++i) {
    if (extenders_[i]->is_interested(pod)) others.emplace_back(ask, i);
  }
  ask(0);
  for (auto& t : others) t.join();
  std::map<std::string, framework::NodePluginScores, std::less<>> extra;
  for (std::size_t i = 0; i < extenders_.size(); ++i) {
    if (!answers[i].ok) continue;
    const auto& x = extenders_[i];
    const auto& prios = answers[i].prios;
    const std::int64_t weight = answers[i].weight;
    for (const auto& hp : prios) {
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
  return {};
}

std::string Scheduler::select_host(const std::vector<framework::NodePluginScores>& scores,
                                   const std::vector<framework::NodeInfoPtr>& feasible) const {
  if (scores.empty()) return {};
  const bool paired = feasible.size() == scores.size();
  // Among the nodes tied at the top score, the one ranked first by the cycle's random key: each
  // tied node is equally likely, whatever order the nodes were scored in.
  const std::size_t pick = best_node(
      scores.size(), [&](std::size_t i) { return scores[i].totalScore; },
      [&](std::size_t i) {
        return paired ? tie_break_rank_of_hash(feasible[i]->name_hash(), tie_key_) : tie_break_rank(scores[i].name, tie_key_);
      });
  return std::string(scores[pick].name);
}

// ---------------------------------------------------------------- binding

void Scheduler::run_bindings(std::vector<BindingJob>& jobs) {
  if (jobs.size() == 1) {
    Status s = binding_cycle(jobs.front());
    finish_binding_job(jobs.front(), s);
    return;
  }
  std::vector<Status> statuses(jobs.size());
  std::vector<char> reached_bind(jobs.size(), 0);
  // Bind through the plugins, per profile; extender binders take their pods one by one.
  std::map<framework::Framework*, std::vector<std::size_t>> by_profile;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    auto& job = jobs[i];
    statuses[i] = bind_prologue(job);
    if (!statuses[i].is_success()) continue;
    reached_bind[i] = 1;
    if (!extenders_binding(job.assumed_info->pod(), job.result.suggestedHost, statuses[i])) {
      by_profile[job.fwk].push_back(i);
    }
  }
  for (const auto& [fwk, idx] : by_profile) {
    std::vector<framework::Framework::BindItem> items;
    items.reserve(idx.size());
    for (std::size_t i : idx) {
      items.push_back({jobs[i].state.get(), &jobs[i].assumed_info->pod(), &jobs[i].result.suggestedHost});
    }
    const auto t = clock_->now();
    auto bound = fwk->run_bind_plugins_all(items);  // one status per item
    for (std::size_t k = 0; k < idx.size(); ++k) {
      statuses[idx[k]] = std::move(bound[k]);
      observe_extension_point("Bind", statuses[idx[k]], fwk->profile_name(), t);
    }
  }
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (reached_bind[i]) statuses[i] = bind_epilogue(jobs[i], std::move(statuses[i]));
    finish_binding_job(jobs[i], statuses[i]);
  }
}

void Scheduler::finish_binding_job(BindingJob& job, const Status& s) {
  if (s.is_success()) {
    // And again after a successful binding cycle (PreBind/PostBind may have added some).
    if (auto pods = job.pods_to_activate->take(); !pods.empty()) queue_->activate(pods);
  } else {
    std::optional<framework::FitError> fe;
    if (s.is_rejected()) fe = single_node_fit_error(job.assumed_info->podInfo->pod, job.result.suggestedHost, s);
    handle_binding_cycle_error(*job.fwk, *job.state, job.assumed_info, job.start, job.result,
                               fe ? Status(s.code(), fe->error()) : s, fe);
  }
  if (opts_.metrics) opts_.metrics->goroutines.with({"binding"}).dec();
}

Status Scheduler::binding_cycle(BindingJob& job) {
  Status s = bind_prologue(job);
  if (!s.is_success()) return s;
  if (!extenders_binding(job.assumed_info->pod(), job.result.suggestedHost, s)) {
    const auto t = clock_->now();
    s = job.fwk->run_bind_plugins(*job.state, job.assumed_info->pod(), job.result.suggestedHost);
    observe_extension_point("Bind", s, job.fwk->profile_name(), t);
  }
  return bind_epilogue(job, std::move(s));
}

Status Scheduler::bind_prologue(BindingJob& job) {
  framework::Framework& fwk = *job.fwk;
  const api::Pod& assumed = job.assumed_info->pod();
  auto t = clock_->now();
  Status s = fwk.wait_on_permit(assumed);
  if (opts_.metrics && !s.is_success()) {
    opts_.metrics->permitWaitDuration.with({framework::code_name(s.code())})
        .observe(metrics::seconds_since(t, clock_->now()));
  }
  if (!s.is_success()) return s;
  // Past Permit: events from now on cannot change this attempt's outcome.
  queue_->done(assumed.metadata.uid);

  t = clock_->now();
  s = fwk.run_pre_bind_plugins(*job.state, assumed, job.result.suggestedHost);
  observe_extension_point("PreBind", s, fwk.profile_name(), t);
  return s;
}

Status Scheduler::bind_epilogue(BindingJob& job, Status s) {
  framework::Framework& fwk = *job.fwk;
  framework::CycleState& state = *job.state;
  const ScheduleResult& result = job.result;
  const queue::QueuedPodInfoPtr& assumed_info = job.assumed_info;
  const api::Pod& assumed = assumed_info->pod();
  const auto start = job.start;
  if (auto fr = cache_->finish_binding(assumed); !fr.ok()) {
    log::error("Scheduler cache FinishBinding failed", {{"err", fr.error()}});
  }
  if (!s.is_success()) {
    log::V(1).info("Failed to bind pod", {{"pod", pod_key(assumed)}});
    return s;
  }
  client_->event(assumed, "Normal", "Scheduled", "Binding",
                 fmt::format("Successfully assigned {}/{} to {}", assumed.metadata.namespace_, assumed.metadata.name,
                             result.suggestedHost));
  if (auto v = log::V(2); v.enabled()) {
    v.info("Successfully bound pod to node", {{"pod", pod_key(assumed)},
                                              {"node", result.suggestedHost},
                                              {"evaluatedNodes", result.evaluatedNodes},
                                              {"feasibleNodes", result.feasibleNodes}});
  }
  if (opts_.metrics) {
    const auto now = clock_->now();
    opts_.metrics->pod_scheduled(fwk.profile_name(), metrics::seconds_since(start, now));
    opts_.metrics->podSchedulingAttempts.get().observe(assumed_info->attempts);
    if (assumed_info->initialAttemptTimestamp) {
      opts_.metrics->podSchedulingSLIDuration.with({metrics::SchedulerMetrics::attempts_label(assumed_info->attempts)})
          .observe(metrics::seconds_since(*assumed_info->initialAttemptTimestamp, now));
    }
  }
  const auto t = clock_->now();
  fwk.run_post_bind_plugins(state, assumed, result.suggestedHost);
  observe_extension_point("PostBind", Status(), fwk.profile_name(), t);
  return {};
}

bool Scheduler::extenders_binding(const api::Pod& pod, const std::string& node, Status& status) {
  for (const auto& x : extenders_) {
    if (!x->is_binder() || !x->is_interested(pod)) continue;
    auto r = x->bind(pod, node);
    if (!r.ok() && x->is_ignorable()) {
      log::info("Skipping extender in bind as it returned error and has ignorable flag set",
                {{"extender", x->name()}, {"err", r.error()}});
      continue;
    }
    status = r.ok() ? Status() : Status::error(r.error());
    return true;
  }
  return false;
}

void Scheduler::handle_binding_cycle_error(framework::Framework& fwk, framework::CycleState& state,
                                           const queue::QueuedPodInfoPtr& assumed_info,
                                           std::chrono::steady_clock::time_point start, const ScheduleResult& result,
                                           const Status& status, const std::optional<framework::FitError>& fit) {
  const framework::PodPtr assumed = assumed_info->podInfo->pod;
  fwk.run_reserve_plugins_unreserve(state, *assumed, result.suggestedHost);
  if (auto fr = cache_->forget_pod(*assumed); !fr.ok()) {
    log::error("scheduler cache ForgetPod failed", {{"err", fr.error()}});
  } else {
    // Forgetting frees what the assumed pod held, like a delete of an assigned pod. A pod that was
    // rejected stays out of that move: it would only fail again for the same reason.
    std::string uid = assumed->metadata.uid;
    if (status.is_rejected()) {
      queue_->move_all_to_active_or_backoff_queue(queue::event_assigned_pod_delete(), assumed, nullptr,
                                                  [uid](const api::Pod& p) { return p.metadata.uid != uid; });
    } else {
      queue_->move_all_to_active_or_backoff_queue(queue::event_assigned_pod_delete(), assumed, nullptr);
    }
  }
  handle_scheduling_failure(fwk, assumed_info, status, fit, kClearNominatedNode, start);
}

void Scheduler::handle_scheduling_failure(framework::Framework& fwk, const queue::QueuedPodInfoPtr& pinfo,
                                          const Status& status, const std::optional<framework::FitError>& fit,
                                          const std::optional<framework::NominatingInfo>& nominating,
                                          std::chrono::steady_clock::time_point start) {
  bool called_done = false;
  const bool rejected = status.is_rejected();
  const std::string reason = rejected ? "Unschedulable" : "SchedulerError";
  if (opts_.metrics) {
    const double secs = metrics::seconds_since(start, clock_->now());
    if (rejected) {
      opts_.metrics->pod_unschedulable(fwk.profile_name(), secs);
    } else {
      opts_.metrics->pod_schedule_error(fwk.profile_name(), secs);
    }
  }
  const framework::PodPtr pod = pinfo->podInfo->pod;
  const std::string err_msg = fit ? fit->error() : status.message();
  if (err_msg == kErrNoNodesAvailable) {
    log::V(2).info("Unable to schedule pod; no nodes are registered to the cluster; waiting", {{"pod", pod_key(*pod)}});
  } else if (fit) {
    // The rejectors decide which cluster events can requeue this pod.
    pinfo->unschedulablePlugins = fit->diagnosis.unschedulablePlugins;
    pinfo->pendingPlugins = fit->diagnosis.pendingPlugins;
    log::V(2).info("Unable to schedule pod; no fit; waiting", {{"pod", pod_key(*pod)}, {"err", err_msg}});
  } else {
    log::error("Error scheduling pod; retrying", {{"pod", pod_key(*pod)}, {"err", err_msg}});
  }

  // Requeue the informer's current version, unless the pod is gone or already bound.
  framework::PodPtr cached = lister_->get_pod(pod->metadata.namespace_, pod->metadata.name);
  framework::PodPtr status_pod = pod;
  if (!cached) {
    log::info("Pod doesn't exist in informer cache", {{"pod", pod_key(*pod)}});
  } else if (!cached->spec.nodeName.empty()) {
    log::info("Pod has been assigned to node. Abort adding it back to queue.",
              {{"pod", pod_key(*pod)}, {"node", cached->spec.nodeName}});
  } else {
    pinfo->podInfo = framework::PodInfo::make(cached);
    status_pod = cached;
    if (auto r = queue_->add_unschedulable_if_not_present(pinfo, queue_->scheduling_cycle()); !r.ok()) {
      log::error("Error occurred", {{"err", r.error()}});
    }
    called_done = true;
  }
  queue_->nominator().add_nominated_pod(pinfo->podInfo, nominating);
  if (!called_done) queue_->done(pod->metadata.uid);

  client_->event(*status_pod, "Warning", "FailedScheduling", "Scheduling", truncate_message(err_msg));
  api::PodCondition cond;
  cond.type = "PodScheduled";
  cond.status = "False";
  cond.reason = reason;
  cond.message = err_msg;
  update_pod_status(*status_pod, cond, nominating);
}

void Scheduler::update_pod_status(const api::Pod& pod, const api::PodCondition& cond,
                                  const std::optional<framework::NominatingInfo>& nominating) {
  // nominatedNodeName is written only when set to a new value; the condition only when it changed.
  const bool nnn_needs_update = nominating && nominating->mode == framework::NominatingInfo::Mode::Override &&
                                pod.status.nominatedNodeName != nominating->nominatedNodeName;
  bool cond_changed = true;
  for (const auto& c : pod.status.conditions) {
    if (c.type != cond.type) continue;
    cond_changed = !(c.status == cond.status && c.reason == cond.reason && c.message == cond.message &&
                     !c.lastProbeTime);
    break;
  }
  if (!cond_changed && !nnn_needs_update) return;
  std::optional<api::PodCondition> c;
  if (cond_changed) {
    c = cond;
    // lastTransitionTime moves only when the status flips (upstream UpdatePodCondition).
    const api::PodCondition* old = nullptr;
    for (const auto& oc : pod.status.conditions)
      if (oc.type == cond.type) old = &oc;
    if (old && old->status == cond.status) {
      c->lastTransitionTime = old->lastTransitionTime;
    } else {
      c->lastTransitionTime = api::Time{std::chrono::duration_cast<std::chrono::nanoseconds>(
                                            clock_->wall_now().time_since_epoch())
                                            .count() /
                                        1'000'000'000 * 1'000'000'000};
    }
  }
  std::optional<std::string> nnn;
  if (nnn_needs_update) nnn = nominating->nominatedNodeName;
  Status s = client_->patch_pod_status(pod, c, nnn);
  if (!s.is_success()) log::error("Error updating pod", {{"pod", pod_key(pod)}, {"err", s.message()}});
}

}  // namespace ksched::scheduler
