#include "scheduler/framework/preemption/preemption.h"

#include <atomic>
#include <chrono>
#include <climits>
#include <limits>

#include "api/helpers.h"
#include "scheduler/framework/extender.h"
#include "util/log.h"

namespace ksched::scheduler::framework::preemption {

namespace {

// Upstream Evaluator.callExtenders: every interested extender that supports preemption narrows
// the candidates (and may change their victims) in turn. Errors of ignorable extenders, and
// nodes they return without victims, are skipped; any other failure aborts the preemption.
// Surviving candidates keep their original order.
Status call_extenders(Handle& handle, const api::Pod& pod, std::vector<Candidate>& candidates) {
  const auto& extenders = handle.extenders();
  if (extenders.empty()) return {};
  NodeToVictims victims;
  for (const auto& c : candidates) {
    victims[c.name] = ExtenderVictims{c.victims.pods, c.victims.numPDBViolations};
  }
  if (victims.empty()) return {};
  for (const auto& x : extenders) {
    if (!x->supports_preemption() || !x->is_interested(pod)) continue;
    auto r = x->process_preemption(pod, victims, handle.snapshot_node_infos());
    if (!r.ok()) {
      if (x->is_ignorable()) {
        log::info("Skipped extender as it returned error and has ignorable flag set",
                  {{"extender", x->name()}, {"err", r.error()}});
        continue;
      }
      return Status::error(r.error());
    }
    for (auto it = r->begin(); it != r->end();) {
      if (!it->second.pods.empty()) {
        ++it;
        continue;
      }
      if (!x->is_ignorable()) {
        return Status::error("expected at least one victim pod on node \"" + it->first + "\"");
      }
      log::info("Ignored node for which the extender didn't report victims",
                {{"node", it->first}, {"extender", x->name()}});
      it = r->erase(it);
    }
    victims = std::move(*r);
    // Nothing left: no later extender can bring a candidate back.
    if (victims.empty()) break;
  }
  std::vector<Candidate> out;
  out.reserve(victims.size());
  for (const auto& c : candidates) {
    auto it = victims.find(c.name);
    if (it == victims.end()) continue;
    out.push_back(Candidate{c.name, Victims{std::move(it->second.pods), it->second.numPDBViolations}});
    victims.erase(it);
  }
  // Nodes an extender added on its own (upstream accepts them too).
  for (auto& [name, v] : victims) {
    out.push_back(Candidate{name, Victims{std::move(v.pods), v.numPDBViolations}});
  }
  candidates = std::move(out);
  return {};
}

}  // namespace

// ---------------------------------------------------------------- helpers


std::int64_t pod_start_time(const api::Pod& pod, std::int64_t now_nanos) {
  return pod.status.startTime ? pod.status.startTime->unixNanos : now_nanos;
}

bool more_important_pod(const api::Pod& a, const api::Pod& b, std::int64_t now_nanos) {
  const auto pa = api::pod_priority(a);
  const auto pb = api::pod_priority(b);
  if (pa != pb) return pa > pb;
  return pod_start_time(a, now_nanos) < pod_start_time(b, now_nanos);
}

std::int64_t now_unix_nanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

const std::vector<PdbEntry>& PdbCache::in_namespace(const std::string& ns) const {
  std::lock_guard l(mu_);
  auto it = by_ns_.find(ns);
  if (it != by_ns_.end()) return it->second;
  std::vector<PdbEntry> entries;
  for (auto& pdb : lister_.list_pdbs(ns)) {
    if (!pdb || pdb->metadata.namespace_ != ns) continue;
    PdbEntry e;
    auto sel = labels::from_label_selector(pdb->spec.selector ? &*pdb->spec.selector : nullptr);
    // An invalid selector matches no pod.
    e.selector = sel ? std::move(sel.value()) : labels::Selector::nothing();
    e.pdb = std::move(pdb);
    entries.push_back(std::move(e));
  }
  return by_ns_.emplace(ns, std::move(entries)).first->second;
}

void split_by_pdb_violation(const std::vector<PodInfoPtr>& pods, const PdbCache& pdbs,
                            std::vector<PodInfoPtr>& violating, std::vector<PodInfoPtr>& non_violating) {
  // Remaining allowed disruptions per PDB, consumed pod by pod.
  std::map<const api::PodDisruptionBudget*, std::int64_t> allowed;
  for (const auto& pi : pods) {
    const api::Pod& pod = *pi->pod;
    bool violated = false;
    // A pod without labels matches no PDB.
    if (!pod.metadata.labels.empty()) {
      for (const auto& e : pdbs.in_namespace(pod.metadata.namespace_)) {
        // A nil or empty selector matches nothing.
        if (e.selector.empty() || !e.selector.matches(pod.metadata.labels)) continue;
        // Already processed by the API server (eviction recorded): does not consume the budget.
        if (e.pdb->status.disruptedPods.contains(pod.metadata.name)) continue;
        auto [it, _] = allowed.try_emplace(e.pdb.get(), e.pdb->status.disruptionsAllowed);
        if (--it->second < 0) violated = true;
      }
    }
    (violated ? violating : non_violating).push_back(pi);
  }
}

int pick_one_node_for_preemption(const std::vector<Candidate>& candidates, std::vector<NodeScoreFunc> score_funcs,
                                 std::int64_t now_nanos) {
  if (candidates.empty()) return -1;
  if (score_funcs.empty()) {
    score_funcs.push_back([](const Candidate& c) { return -c.victims.numPDBViolations; });
    // Victims are ordered most important first, so the first one has the highest priority.
    score_funcs.push_back([](const Candidate& c) {
      return c.victims.pods.empty() ? std::int64_t{0} : -static_cast<std::int64_t>(api::pod_priority(*c.victims.pods[0]));
    });
    score_funcs.push_back([](const Candidate& c) {
      // +2^31 keeps every term non-negative, so more victims never look cheaper.
      std::int64_t sum = 0;
      for (const auto& p : c.victims.pods) sum += static_cast<std::int64_t>(api::pod_priority(*p)) + (std::int64_t{1} << 31);
      return -sum;
    });
    score_funcs.push_back([](const Candidate& c) { return -static_cast<std::int64_t>(c.victims.pods.size()); });
    score_funcs.push_back([now_nanos](const Candidate& c) {
      // Earliest start time among the highest-priority victims; the later, the better.
      if (c.victims.pods.empty()) return std::numeric_limits<std::int64_t>::min();
      std::int32_t max_prio = api::pod_priority(*c.victims.pods[0]);
      std::int64_t earliest = pod_start_time(*c.victims.pods[0], now_nanos);
      for (const auto& p : c.victims.pods) {
        const auto prio = api::pod_priority(*p);
        const auto st = pod_start_time(*p, now_nanos);
        if (prio == max_prio) {
          earliest = std::min(earliest, st);
        } else if (prio > max_prio) {
          max_prio = prio;
          earliest = st;
        }
      }
      return earliest;
    });
  }
  std::vector<int> remaining(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i) remaining[i] = static_cast<int>(i);
  for (const auto& f : score_funcs) {
    std::vector<int> selected;
    std::int64_t best = std::numeric_limits<std::int64_t>::min();
    for (int i : remaining) {
      const std::int64_t s = f(candidates[i]);
      if (s > best) {
        best = s;
        selected.clear();
      }
      if (s == best) selected.push_back(i);
    }
    if (selected.size() == 1) return selected[0];
    remaining = std::move(selected);
  }
  return remaining.front();
}

// ---------------------------------------------------------------- Evaluator

Evaluator::Evaluator(std::string plugin_name, Handle& handle, Interface& iface, bool enable_async)
    : plugin_name_(std::move(plugin_name)), handle_(handle), iface_(iface), async_(enable_async) {
  preempt_pod = [this](const Candidate& c, const api::Pod& preemptor, const api::Pod& victim) {
    return default_preempt_pod(c, preemptor, victim);
  };
}

std::vector<NodeInfoPtr> Evaluator::potential_nodes(const NodeToStatus& m) const {
  std::vector<NodeInfoPtr> out;
  const bool absent_unschedulable = m.absent().code() == Code::Unschedulable;
  for (const auto& ni : handle_.snapshot_node_infos().list()) {
    if (ni->node() == nullptr) continue;
    const Status* s = m.get(ni->name());
    const bool unschedulable = s ? s->code() == Code::Unschedulable : absent_unschedulable;
    if (unschedulable) out.push_back(ni);
  }
  return out;
}

std::vector<Candidate> Evaluator::dry_run_preemption(CycleState& state, const api::Pod& pod,
                                                     const std::vector<NodeInfoPtr>& potential,
                                                     const PdbCache& pdbs, int offset, int num_candidates,
                                                     NodeToStatus& statuses, std::string& error) {
  std::mutex mu;
  std::vector<Candidate> non_violating;
  std::vector<Candidate> violating;
  std::atomic<bool> done{false};
  const int n = static_cast<int>(potential.size());
  const std::size_t cap = static_cast<std::size_t>(std::max(num_candidates, 0));
  handle_.parallelizer().until(
      n,
      [&](int i) {
        if (done.load(std::memory_order_relaxed)) return;
        const NodeInfoPtr& original = potential[static_cast<std::size_t>((offset + i) % n)];
        auto node_copy = original->clone();
        auto state_copy = state.clone();
        std::vector<PodPtr> victims;
        int violations = 0;
        Status st = iface_.select_victims_on_node(*state_copy, pod, *node_copy, pdbs, victims, violations);
        if (st.is_success() && !victims.empty()) {
          Candidate c{original->name(), Victims{std::move(victims), violations}};
          std::lock_guard l(mu);
          // Like upstream's fixed-size candidate lists, extra candidates are dropped.
          auto& list = violations == 0 ? non_violating : violating;
          if (list.size() < cap) list.push_back(std::move(c));
          if (!non_violating.empty() && non_violating.size() + violating.size() >= cap) done = true;
          return;
        }
        if (st.is_success()) {
          st = Status::error("expected at least one victim pod on node \"" + original->name() + "\"");
        }
        std::lock_guard l(mu);
        if (st.is_error()) {
          if (!error.empty()) error += ", ";
          error += st.message();
        }
        statuses.set(original->name(), std::move(st));
      },
      [&] { return done.load(std::memory_order_relaxed); });
  for (auto& c : violating) non_violating.push_back(std::move(c));
  return non_violating;
}

const Candidate* Evaluator::select_candidate(const std::vector<Candidate>& candidates) {
  if (candidates.empty()) return nullptr;
  if (candidates.size() == 1) return &candidates[0];
  int i = pick_one_node_for_preemption(candidates, iface_.ordered_score_funcs(candidates), now_unix_nanos());
  return i < 0 ? &candidates[0] : &candidates[static_cast<std::size_t>(i)];
}

Status preempt_victim(Handle& handle, const std::string& plugin_name, const PreemptorRef& preemptor,
                      const std::string& where, const api::Pod& victim) {
  if (auto wp = handle.get_waiting_pod(victim.metadata.uid)) {
    // A pod waiting on Permit is rejected rather than deleted.
    wp->reject(plugin_name, "preempted");
    log::V(2).info("Preemptor preempted a waiting pod", {{"preemptorType", std::string(preemptor.kind)},
                                                         {"preemptor", preemptor.name},
                                                         {"waitingPod", victim.metadata.name},
                                                         {"node", where}});
  } else {
    api::PodCondition cond;
    cond.type = "DisruptionTarget";
    cond.status = "True";
    cond.reason = "PreemptionByScheduler";
    cond.message = preemptor.schedulerName + ": preempting to accommodate a higher priority " + std::string(preemptor.kind);
    const api::PodCondition* existing = api::find_pod_condition(victim.status, cond.type);
    const bool unchanged = existing && existing->status == cond.status && existing->reason == cond.reason &&
                           existing->message == cond.message;
    if (!unchanged) {
      cond.lastTransitionTime = api::to_time(std::chrono::system_clock::now());
      Status s = handle.client().patch_pod_status(victim, cond, std::nullopt);
      if (!s.is_success()) {
        log::error("Could not add DisruptionTarget condition due to preemption",
                   {{"preemptor", preemptor.name}, {"victim", victim.metadata.name}, {"err", s.message()}});
        return Status::error(s.message());
      }
    }
    Status s = handle.client().delete_pod(victim);
    if (!s.is_success()) {
      log::error("Tried to preempted pod", {{"pod", victim.metadata.name}, {"preemptor", preemptor.name}});
      return Status::error(s.message());
    }
    log::V(2).info("Preemptor Pod preempted victim Pod",
                   {{"preemptor", preemptor.name}, {"victim", victim.metadata.name}, {"node", where}});
  }
  handle.client().event(victim, "Normal", "Preempted", "Preempting",
                        "Preempted by " + std::string(preemptor.kind) + " " + preemptor.uid + " on node " + where);
  return {};
}

Status Evaluator::default_preempt_pod(const Candidate& c, const api::Pod& preemptor, const api::Pod& victim) {
  const PreemptorRef ref{"pod", std::string(preemptor.metadata.uid.view()), std::string(preemptor.metadata.name.view()),
                        std::string(preemptor.spec.schedulerName.view())};
  return preempt_victim(handle_, plugin_name_, ref, c.name, victim);
}

namespace {

// Preempts victims [0, n) in parallel; the first failure's message, empty when all succeeded.
std::string preempt_in_parallel(Parallelizer& par, std::size_t n,
                                const std::function<Status(std::size_t)>& preempt_one) {
  std::mutex mu;
  std::string first_error;
  std::atomic<bool> failed{false};
  par.until(
      static_cast<int>(n),
      [&](int i) {
        if (failed.load()) return;
        Status s = preempt_one(static_cast<std::size_t>(i));
        if (!s.is_success()) {
          std::lock_guard l(mu);
          if (!failed.exchange(true)) first_error = s.message().empty() ? "error" : s.message();
        }
      },
      [&] { return failed.load(); });
  return first_error;
}

}  // namespace

bool Evaluator::clear_lower_priority_nominations(const std::string& node, const api::Pod& pod, const char* what) {
  // Lower-priority pods nominated to this node may no longer fit: clearing their nomination moves
  // them, so they are retried elsewhere sooner than after the preemption completes.
  bool ok = true;
  const auto prio = api::pod_priority(pod);
  for (const auto& pi : handle_.nominator().nominated_pods_for_node(node)) {
    const api::Pod& p = *pi->pod;
    if (api::pod_priority(p) >= prio || p.status.nominatedNodeName.empty()) continue;
    Status s = handle_.client().patch_pod_status(p, std::nullopt, std::string());
    if (!s.is_success()) {
      log::error(what, {{"pod", p.metadata.name}, {"node", node}, {"err", s.message()}});
      ok = false;
    }
  }
  return ok;
}

Status Evaluator::prepare_candidate(const Candidate& c, const api::Pod& pod) {
  std::string err = preempt_in_parallel(handle_.parallelizer(), c.victims.pods.size(), [&](std::size_t i) -> Status {
    const api::Pod& victim = *c.victims.pods[i];
    if (victim.metadata.deletionTimestamp) {
      // Graceful deletion already started: another call is unnecessary.
      log::V(2).info("Victim Pod is already being deleted, skipping the API call for it",
                     {{"preemptor", pod.metadata.name}, {"node", c.name}, {"victim", victim.metadata.name}});
      return {};
    }
    return preempt_pod(c, pod, victim);
  });
  if (!err.empty()) return Status::error(err);
  handle_.record_preemption_victims(c.victims.pods.size());
  if (observe_victims) observe_victims(c.victims.pods.size());
  // Not critical: a failure is only logged.
  clear_lower_priority_nominations(c.name, pod, "Cannot clear 'NominatedNodeName' field");
  return {};
}

void Evaluator::prepare_candidate_async(const Candidate& c, const PodPtr& pod) {
  handle_.record_preemption_victims(c.victims.pods.size());
  if (observe_victims) observe_victims(c.victims.pods.size());
  std::vector<PodPtr> victims;
  victims.reserve(c.victims.pods.size());
  for (const auto& v : c.victims.pods) {
    if (v->metadata.deletionTimestamp) {
      log::V(2).info("Victim Pod is already being deleted, skipping the API call for it",
                     {{"preemptor", pod->metadata.name}, {"node", c.name}, {"victim", v->metadata.name}});
      continue;
    }
    victims.push_back(v);
  }
  if (victims.empty()) return;
  const std::string uid = pod->metadata.uid;
  {
    std::lock_guard l(mu_);
    preempting_.insert(uid);
  }
  handle_.run_async([this, c, pod, uid, victims = std::move(victims)] {
    const auto start = std::chrono::steady_clock::now();
    bool failed = false;
    log::V(2).info("Start the preemption asynchronously",
                   {{"preemptor", pod->metadata.name},
                    {"node", c.name},
                    {"numVictims", std::to_string(c.victims.pods.size())},
                    {"numVictimsToDelete", std::to_string(victims.size())}});
    if (!clear_lower_priority_nominations(
            c.name, *pod, "Cannot clear 'NominatedNodeName' field from lower priority pods on the same target node")) {
      failed = true;  // not critical: the victims are still preempted
    }
    // Every victim but the last in parallel. The preemptor leaves the preempting set only once the
    // last victim's deletion has started (is_pod_running_preemption looks the victim up): were it
    // removed earlier, the deletion events could all be seen while it is still gated, and it would
    // wait in unschedulablePods with nothing left to move it.
    if (victims.size() > 1) {
      std::string err = preempt_in_parallel(handle_.parallelizer(), victims.size() - 1,
                                            [&](std::size_t i) { return preempt_pod(c, *pod, *victims[i]); });
      if (!err.empty()) {
        log::error("Error occurred during async preemption", {{"preemptor", pod->metadata.name}, {"err", err}});
        failed = true;
      }
    }
    const api::Pod& last = *victims.back();
    {
      std::lock_guard l(mu_);
      last_victims_pending_[uid] = PendingVictim{last.metadata.namespace_, last.metadata.name};
    }
    if (Status s = preempt_pod(c, *pod, last); !s.is_success()) {
      log::error("Error occurred during async preemption", {{"preemptor", pod->metadata.name}, {"err", s.message()}});
      failed = true;
    }
    {
      std::lock_guard l(mu_);
      preempting_.erase(uid);
      last_victims_pending_.erase(uid);
    }
    const char* result = failed ? "error" : "success";
    log::V(2).info("Async Preemption finished completely",
                   {{"preemptor", pod->metadata.name}, {"node", c.name}, {"result", result}});
    // A failed call may leave the preemptor in unschedulablePods with no event to move it.
    if (failed) handle_.activate({pod});
    handle_.record_preemption_goroutine(
        result, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  });
}

bool Evaluator::is_pod_running_preemption(std::string_view pod_uid) const {
  std::lock_guard l(mu_);
  if (preempting_.find(pod_uid) == preempting_.end()) return false;
  auto it = last_victims_pending_.find(pod_uid);
  // Still evicting the victims before the last one.
  if (it == last_victims_pending_.end()) return true;
  // Waiting only for the last victim: done once it is gone or being deleted.
  PodPtr victim = handle_.lister().get_pod(it->second.namespace_, it->second.name);
  return victim && !victim->metadata.deletionTimestamp;
}

Status Evaluator::preempt(CycleState& state, const api::Pod& pod_in, const NodeToStatus& m, PostFilterResult& result) {
  // The latest version of the preemptor from the informer cache.
  PodPtr pod = handle_.lister().get_pod(pod_in.metadata.namespace_, pod_in.metadata.name);
  if (!pod) return Status::error("pod \"" + pod_in.metadata.name + "\" not found");

  // 1) Eligibility.
  const Status nominated_status = m.get_or_absent(pod->status.nominatedNodeName);
  if (std::string why = iface_.pod_eligible_to_preempt_others(*pod, nominated_status); !why.empty()) {
    log::V(5).info("Pod is not eligible for preemption", {{"pod", pod->metadata.name}, {"reason", why}});
    return Status::unschedulable(std::move(why));
  }

  // 2) Candidates.
  const auto& all_nodes = handle_.snapshot_node_infos().list();
  if (all_nodes.empty()) return Status::error("no nodes available");
  NodeToStatus statuses;
  std::vector<Candidate> candidates;
  std::string error;
  auto potential = potential_nodes(m);
  if (potential.empty()) {
    log::V(3).info("Preemption will not help schedule pod on any node", {{"pod", pod->metadata.name}});
  } else {
    PdbCache pdbs(handle_.lister());
    auto [offset, num] = iface_.get_offset_and_num_candidates(static_cast<int>(potential.size()));
    candidates = dry_run_preemption(state, *pod, potential, pdbs, offset, num, statuses, error);
  }
  if (!error.empty() && candidates.empty()) return Status::error(error);

  if (candidates.empty()) {
    FitError fe;
    fe.pod = pod;
    fe.numAllNodes = static_cast<int>(all_nodes.size());
    fe.diagnosis.nodeToStatus = std::move(statuses);
    fe.diagnosis.nodeToStatus.set_absent(Status::unresolvable(std::string(kNotHelpful)));
    // Clear any nomination the pod has.
    result.nominatingInfo.mode = NominatingInfo::Mode::Override;
    result.nominatingInfo.nominatedNodeName.clear();
    return Status::unschedulable(fe.error());
  }

  // 3) Extenders may drop candidates or change their victims; 4) pick the best candidate.
  if (Status s = call_extenders(handle_, *pod, candidates); !s.is_success()) return s;
  const Candidate* best = select_candidate(candidates);
  if (best == nullptr || best->name.empty()) return Status::unschedulable("no candidate node for preemption");
  log::V(2).info("the target node for the preemption is determined",
                 {{"node", best->name}, {"pod", pod->metadata.name}});

  // 5) Evict victims (off the scheduling cycle with SchedulerAsyncPreemption), then nominate.
  if (async_) {
    prepare_candidate_async(*best, pod);
  } else if (Status s = prepare_candidate(*best, *pod); !s.is_success()) {
    return s;
  }
  result.nominatingInfo.mode = NominatingInfo::Mode::Override;
  result.nominatingInfo.nominatedNodeName = best->name;
  return {};
}

}  // namespace ksched::scheduler::framework::preemption
