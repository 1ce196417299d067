// The scheduling cycle (upstream pkg/scheduler/schedule_one.go: ScheduleOne, schedulingCycle,
// handleSchedulingFailure, updatePod).
#include <random>

#include "api/helpers.h"
#include "scheduler/scheduler.h"
#include "util/log.h"

namespace ksched::scheduler {

using framework::Status;

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

bool Scheduler::skip_pod_schedule(const api::Pod& pod) {
  if (pod.metadata.deletionTimestamp) {
    client_->event(pod, "Warning", "FailedScheduling", "Scheduling", "skip schedule deleting pod: " + api::key_of(pod));
    return true;
  }
  // An update of an assumed pod can re-add it to the queue (handler B drops most of them; this
  // catches the rest).
  return cache_->is_assumed_pod(pod);
}

void Scheduler::schedule_pod_info(const queue::QueuedPodInfoPtr& pinfo) {
  const framework::PodPtr pod = pinfo->podInfo->pod;
  framework::Framework* fwk = profile(pod->spec.schedulerName);
  if (!fwk) {
    log::error("Error occurred", {{"err", "profile not found for scheduler name " + pod->spec.schedulerName}});
    queue_->done(pod->metadata.uid);
    return;
  }
  if (skip_pod_schedule(*pod)) {
    queue_->done(pod->metadata.uid);
    return;
  }
  // A member of a PodGroup under a CompositePodGroup takes the tree's cycle (gate CompositePodGroup).
  if (pod_groups_ && pod_groups_->hierarchies() && podgroup::pod_group_name(*pod)) {
    if (auto at = pod_groups_->hierarchy_of(*pod); at.in_hierarchy && at.root) {
      schedule_pod_group_tree(*fwk, pinfo, at.root->key);
      return;
    }
  }
  // A gang's member takes the pod-group cycle (GangScheduling gate; a group is rare: two null checks).
  if (pod_groups_ && podgroup::has_group(*pod) && pod_groups_->policy(*pod).kind == podgroup::Policy::Kind::Gang) {
    schedule_pod_group(*fwk, pinfo, podgroup::group_key(*pod));
    return;
  }
  if (auto v = log::V(3); v.enabled()) v.info("Attempting to schedule pod", {{"pod", api::key_of(*pod)}});

  const auto start = clock_->now();
  auto state = std::make_shared<framework::CycleState>();
  state->record_plugin_metrics =
      std::uniform_int_distribution<int>(0, 99)(rng_) < opts_.plugin_metrics_sample_percent;
  auto pods_to_activate = std::make_shared<framework::PodsToActivate>();
  state->write(std::string(framework::kPodsToActivateKey), pods_to_activate);

  CycleOutcome cycle = scheduling_cycle(*fwk, *state, pinfo, start, *pods_to_activate);
  if (!cycle.status.is_success()) {
    handle_scheduling_failure(*fwk, cycle.pod_info, cycle.status, cycle.fit, cycle.result.nominatingInfo, start);
    return;
  }
  submit_binding(*fwk, std::move(state), std::move(cycle), start, std::move(pods_to_activate));
}

void Scheduler::submit_binding(framework::Framework& fwk, std::shared_ptr<framework::CycleState> state,
                               CycleOutcome cycle, std::chrono::steady_clock::time_point start,
                               std::shared_ptr<framework::PodsToActivate> pods_to_activate) {
  // The binding cycle, asynchronously. What only Filter and Score read is let go now: kept by
  // the binding, counts shared with a plugin's cache would be copied by the next cycle instead
  // of updated in place.
  state->drop_scheduling_only();
  metrics_->binding_started();
  const bool batchable =
      !cycle.waits_on_permit && !binding_cycle_->extender_binds() && fwk.binds_in_batches(*state, cycle.pod_info->pod());
  binding_pool_->submit(BindingJob{&fwk, std::move(state), std::move(cycle.result), std::move(cycle.pod_info), start,
                                   std::move(pods_to_activate), batchable});
}

Scheduler::CycleOutcome Scheduler::scheduling_cycle(framework::Framework& fwk, framework::CycleState& state,
                                                    const queue::QueuedPodInfoPtr& pinfo,
                                                    std::chrono::steady_clock::time_point start,
                                                    framework::PodsToActivate& pods_to_activate) {
  const framework::PodPtr pod = pinfo->podInfo->pod;
  CycleOutcome out;
  out.pod_info = pinfo;
  out.status = schedule_pod_(fwk, state, *pod, out.result, out.fit);
  if (opts_.cycle_observer) {
    opts_.cycle_observer(fwk, *pod, out.status.is_success() ? out.result.suggestedHost : std::string());
  }
  metrics_->algorithm_duration(metrics::seconds_since(start, clock_->now()));
  if (!out.status.is_success()) {
    algorithm_->pod_failed(fwk);
    if (!out.fit) {
      out.result.nominatingInfo = framework::NominatingInfo::cleared();
    } else if (fwk.has_post_filter_plugins()) {
      out.result.nominatingInfo = run_post_filter(fwk, state, *pod, *out.fit);
    } else {
      log::V(3).info("No PostFilter plugins are registered, so no preemption will be performed");
    }
    return out;
  }

  // Assume: the cache counts the pod on the node before binding finishes.
  const std::string& node = out.result.suggestedHost;
  auto assumed_pod = std::make_shared<api::Pod>(*pod);
  assumed_pod->spec.nodeName = node;
  out.pod_info = std::make_shared<framework::QueuedPodInfo>(*pinfo);
  out.pod_info->podInfo = framework::PodInfo::make(assumed_pod);
  const api::Pod& assumed = *assumed_pod;
  auto fail = [&](Status s) {
    out.status = std::move(s);
    out.result.nominatingInfo = framework::NominatingInfo::cleared();
    algorithm_->pod_failed(fwk);
    return std::move(out);
  };
  if (auto r = cache_->assume_pod(out.pod_info->podInfo); !r.ok()) {
    return fail(Status::error(r.error()));  // most likely a bug in retrying logic
  }
  queue_->nominator().delete_nominated_pod_if_exists(assumed);

  // Reserve and Permit; a failure undoes the reservation and the assumption.
  auto fail_after_assume = [&](const Status& s) {
    fwk.run_reserve_plugins_unreserve(state, assumed, node);
    if (auto fr = cache_->forget_pod(assumed); !fr.ok()) {
      log::error("Scheduler cache ForgetPod failed", {{"err", fr.error()}});
    }
    if (!s.is_rejected()) return fail(s);
    out.fit = framework::FitError::on_node(pod, node, s);
    return fail(Status(s.code(), out.fit->error()));
  };
  auto t = clock_->now();
  Status rs = fwk.run_reserve_plugins_reserve(state, assumed, node);
  observe("Reserve", rs, fwk, t);
  if (!rs.is_success()) return fail_after_assume(rs);
  t = clock_->now();
  Status ps = fwk.run_permit_plugins(state, assumed, node);
  observe("Permit", ps, fwk, t);
  if (!ps.is_success() && !ps.is_wait()) return fail_after_assume(ps);
  out.waits_on_permit = ps.is_wait();
  // At the end of a successful scheduling cycle, move up the pods plugins asked for.
  if (auto pods = pods_to_activate.take(); !pods.empty()) queue_->activate(pods);
  return out;
}

std::optional<framework::NominatingInfo> Scheduler::run_post_filter(framework::Framework& fwk,
                                                                    framework::CycleState& state, const api::Pod& pod,
                                                                    framework::FitError& fit) {
  // Preemption may make room for a later attempt.
  framework::PostFilterResult pfr;
  const auto t = clock_->now();
  Status pfs = fwk.run_post_filter_plugins(state, pod, fit.diagnosis.nodeToStatus, pfr);
  observe("PostFilter", pfs, fwk, t);
  // Upstream's DefaultPreemption counts every PostFilter run as an attempt.
  metrics_->set().preemptionAttempts.get().inc();
  fit.diagnosis.postFilterMsg = pfs.message();
  if (pfs.is_error()) {
    log::error("Status after running PostFilter plugins for pod", {{"pod", api::key_of(pod)}, {"status", pfs.message()}});
  }
  return pfr.nominatingInfo;
}

void Scheduler::handle_scheduling_failure(framework::Framework& fwk, const queue::QueuedPodInfoPtr& pinfo,
                                          const Status& status, const std::optional<framework::FitError>& fit,
                                          const std::optional<framework::NominatingInfo>& nominating,
                                          std::chrono::steady_clock::time_point start) {
  bool called_done = false;
  const bool rejected = status.is_rejected();
  const std::string reason = rejected ? "Unschedulable" : "SchedulerError";
  metrics_->attempt(rejected ? metrics::kUnschedulable : metrics::kError, fwk.profile_name(),
                    metrics::seconds_since(start, clock_->now()));
  const framework::PodPtr pod = pinfo->podInfo->pod;
  const std::string err_msg = fit ? fit->error() : status.message();
  if (err_msg == kErrNoNodesAvailable) {
    log::V(2).info("Unable to schedule pod; no nodes are registered to the cluster; waiting",
                   {{"pod", api::key_of(*pod)}});
  } else if (fit) {
    // The rejectors decide which cluster events can requeue this pod.
    pinfo->unschedulablePlugins = fit->diagnosis.unschedulablePlugins;
    pinfo->pendingPlugins = fit->diagnosis.pendingPlugins;
    log::V(2).info("Unable to schedule pod; no fit; waiting", {{"pod", api::key_of(*pod)}, {"err", err_msg}});
  } else if (rejected) {
    // A pod group's rejection (the pod-group cycle set the rejectors itself).
    log::V(2).info("Unable to schedule pod; no fit; waiting", {{"pod", api::key_of(*pod)}, {"err", err_msg}});
  } else {
    log::error("Error scheduling pod; retrying", {{"pod", api::key_of(*pod)}, {"err", err_msg}});
  }

  // Requeue the informer's current version, unless the pod is gone or already bound.
  framework::PodPtr cached = lister_->get_pod(pod->metadata.namespace_, pod->metadata.name);
  framework::PodPtr status_pod = pod;
  if (!cached) {
    log::info("Pod doesn't exist in informer cache", {{"pod", api::key_of(*pod)}});
  } else if (!cached->spec.nodeName.empty()) {
    log::info("Pod has been assigned to node. Abort adding it back to queue.",
              {{"pod", api::key_of(*pod)}, {"node", cached->spec.nodeName}});
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
  if (!s.is_success()) log::error("Error updating pod", {{"pod", api::key_of(pod)}, {"err", s.message()}});
}

}  // namespace ksched::scheduler
