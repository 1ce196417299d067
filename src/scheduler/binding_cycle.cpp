#include "scheduler/binding_cycle.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "api/helpers.h"
#include "scheduler/queue/events.h"
#include "util/log.h"

namespace ksched::scheduler {

using framework::Status;

void BindingCycle::run(std::vector<BindingJob>& jobs) {
  std::vector<Status> statuses(jobs.size());
  std::vector<char> reached_bind(jobs.size(), 0);
  // Bind through the plugins, per profile; extender binders take their pods one by one.
  std::map<framework::Framework*, std::vector<std::size_t>> by_profile;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    auto& job = jobs[i];
    statuses[i] = prologue(job);
    if (!statuses[i].is_success()) continue;
    reached_bind[i] = 1;
    if (!extenders_binding(job.assumed_info->pod(), job.result.suggestedHost, statuses[i])) {
      by_profile[job.fwk].push_back(i);
    }
  }
  std::vector<framework::BindItem> items;
  std::vector<Status> bound;
  for (const auto& [fwk, idx] : by_profile) {
    items.clear();
    for (std::size_t i : idx) {
      items.push_back({jobs[i].state.get(), &jobs[i].assumed_info->pod(), &jobs[i].result.suggestedHost});
    }
    bound.assign(items.size(), Status());
    const auto t = deps_.clock->now();
    fwk->run_bind_plugins(items, bound);
    for (std::size_t k = 0; k < idx.size(); ++k) {
      statuses[idx[k]] = std::move(bound[k]);
      observe("Bind", statuses[idx[k]], *fwk, t);
    }
  }
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (reached_bind[i]) statuses[i] = epilogue(jobs[i], std::move(statuses[i]));
    finish(jobs[i], statuses[i]);
  }
}

Status BindingCycle::nominate_for_expectation(BindingJob& job) {
  framework::Framework& fwk = *job.fwk;
  const api::Pod& assumed = job.assumed_info->pod();
  const std::string& node = job.result.suggestedHost;
  const auto t = deps_.clock->now();
  Status pf = fwk.run_pre_bind_pre_flights(*job.state, assumed, node);
  observe("PreBindPreFlight", pf, fwk, t);
  // Unschedulable is not a pre-flight answer: like an error, it fails the binding cycle.
  if (pf.code() == framework::Code::Error || pf.is_rejected()) return pf;
  // Only when PreBind will work or Permit will wait: otherwise the pod is bound right away, and
  // the patch would only cost a request. Others (the cluster autoscaler) then see where it goes.
  if ((pf.is_success() || fwk.will_wait_on_permit(assumed)) && assumed.status.nominatedNodeName != node) {
    if (Status s = deps_.client->patch_pod_status(assumed, std::nullopt, node); !s.is_success()) {
      // Not critical enough to stop the binding cycle.
      log::error("Failed to update the nominated node name in the binding cycle",
                 {{"pod", api::key_of(assumed)}, {"nominatedNodeName", node}, {"err", s.message()}});
    }
  }
  return {};
}

Status BindingCycle::prologue(BindingJob& job) {
  framework::Framework& fwk = *job.fwk;
  const api::Pod& assumed = job.assumed_info->pod();
  if (deps_.nominated_node_name_for_expectation) {
    if (Status s = nominate_for_expectation(job); !s.is_success()) return s;
  }
  auto t = deps_.clock->now();
  Status s = fwk.wait_on_permit(assumed);
  if (!s.is_success()) {
    deps_.metrics->set()
        .permitWaitDuration.with({framework::code_name(s.code())})
        .observe(metrics::seconds_since(t, deps_.clock->now()));
    return s;
  }
  // Past Permit: events from now on cannot change this attempt's outcome.
  deps_.queue->done(assumed.metadata.uid);

  t = deps_.clock->now();
  s = fwk.run_pre_bind_plugins(*job.state, assumed, job.result.suggestedHost);
  observe("PreBind", s, fwk, t);
  return s;
}

Status BindingCycle::epilogue(BindingJob& job, Status s) {
  framework::Framework& fwk = *job.fwk;
  const ScheduleResult& result = job.result;
  const queue::QueuedPodInfoPtr& assumed_info = job.assumed_info;
  const api::Pod& assumed = assumed_info->pod();
  if (auto fr = deps_.cache->finish_binding(assumed); !fr.ok()) {
    log::error("Scheduler cache FinishBinding failed", {{"err", fr.error()}});
  }
  if (!s.is_success()) {
    log::V(1).info("Failed to bind pod", {{"pod", api::key_of(assumed)}});
    return s;
  }
  deps_.client->event(assumed, "Normal", "Scheduled", "Binding",
                 fmt::format("Successfully assigned {}/{} to {}", assumed.metadata.namespace_, assumed.metadata.name,
                             result.suggestedHost));
  if (auto v = log::V(2); v.enabled()) {
    v.info("Successfully bound pod to node", {{"pod", api::key_of(assumed)},
                                              {"node", result.suggestedHost},
                                              {"evaluatedNodes", result.evaluatedNodes},
                                              {"feasibleNodes", result.feasibleNodes}});
  }
  metrics::SchedulerRecorder& m = *deps_.metrics;
  const auto now = deps_.clock->now();
  m.attempt(metrics::kScheduled, fwk.profile_name(), metrics::seconds_since(job.start, now));
  m.pod_scheduling_attempts(assumed_info->attempts);
  if (assumed_info->initialAttemptTimestamp) {
    m.set()
        .podSchedulingSLIDuration.with({metrics::SchedulerMetrics::attempts_label(assumed_info->attempts)})
        .observe(metrics::seconds_since(*assumed_info->initialAttemptTimestamp, now));
  }
  const auto t = deps_.clock->now();
  fwk.run_post_bind_plugins(*job.state, assumed, result.suggestedHost);
  observe("PostBind", Status(), fwk, t);
  return {};
}

void BindingCycle::finish(BindingJob& job, const Status& s) {
  if (s.is_success()) {
    // And again after a successful binding cycle (PreBind/PostBind may have added some).
    if (auto pods = job.pods_to_activate->take(); !pods.empty()) deps_.queue->activate(pods);
  } else {
    // Upstream handleBindingCycleError: unreserve, forget the assumed pod, requeue it.
    const framework::PodPtr& assumed = job.assumed_info->podInfo->pod;
    const std::string& node = job.result.suggestedHost;
    std::optional<framework::FitError> fit;
    if (s.is_rejected()) fit = framework::FitError::on_node(assumed, node, s);
    job.fwk->run_reserve_plugins_unreserve(*job.state, *assumed, node);
    bool move_others_after_requeue = false;
    const framework::PodPtr forgotten = assumed;  // the requeue may replace the queued pod's info
    if (auto fr = deps_.cache->forget_pod(*assumed); !fr.ok()) {
      log::error("scheduler cache ForgetPod failed", {{"err", fr.error()}});
    } else if (s.is_rejected()) {
      // Forgetting frees what the assumed pod held, like a delete of an assigned pod. A pod that
      // was rejected (Permit) stays out of that move: it would only fail again for the same reason.
      // It is still in flight, so the move comes after its requeue, as upstream defers it: else
      // the event would be recorded for it and move it to backoffQ anyway.
      move_others_after_requeue = true;
    } else {
      deps_.queue->move_all_to_active_or_backoff_queue(queue::event_assigned_pod_delete(), assumed, nullptr);
    }
    deps_.on_failure(*job.fwk, job.assumed_info, fit ? Status(s.code(), fit->error()) : s, fit,
                     framework::NominatingInfo::cleared(), job.start);
    if (move_others_after_requeue) {
      deps_.queue->move_all_to_active_or_backoff_queue(
          queue::event_assigned_pod_delete(), forgotten, nullptr,
          [uid = forgotten->metadata.uid](const api::Pod& p) { return p.metadata.uid != uid; });
    }
  }
  deps_.metrics->binding_ended();
}

bool BindingCycle::extenders_binding(const api::Pod& pod, const std::string& node, Status& status) {
  for (const auto& x : *deps_.extenders) {
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

bool BindingCycle::extender_binds() const {
  return std::any_of(deps_.extenders->begin(), deps_.extenders->end(), [](const auto& x) { return x->is_binder(); });
}

}  // namespace ksched::scheduler
