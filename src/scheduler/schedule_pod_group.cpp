// The pod-group scheduling cycle (workload-aware scheduling, issue #44).
//
// Upstream v1.36+: pkg/scheduler/schedule_one_podgroup.go and algorithm_podgroup.go
// (PodGroupSchedulingAlgorithm, podGroupSchedulingDefaultAlgorithm). When the queue hands out a
// member of a gang, the gang's other queued members come with it (PriorityQueue::
// pop_group_members); each member in turn is filtered and scored against the snapshot and, if it
// fits, assumed and reserved, so that the next members see it; PlacementFeasible (GangScheduling)
// is asked before the first member and after each, and stops the loop as soon as the members
// left cannot bring the group to minCount. Only if the group's minimum is met is the placement
// committed: Permit and a binding cycle for every placed member. Otherwise every assumption and
// reservation is undone and every member goes back to the queue as unschedulable with the group's
// message (the PlacementFeasible status's, as upstream's podGroupFitError).
//
// Where ksched chose: upstream assumes members in the snapshot and commits them to the cache
// afterwards; here a member is assumed in the cache at once (the next member's snapshot update
// brings it in) and forgotten on revert. Both happen on the scheduling thread before any binding
// starts, so no other cycle sees a tentative member. Only gang groups take this cycle; pods of a
// basic group, and pods without one, take the single-pod cycle exactly as before.
//
// When the group is rejected as Unschedulable, workload-aware preemption runs for the whole group
// (upstream v1.36+'s runWorkloadAwarePreemption; framework/preemption/pod_group_preemption.h): on
// success its victims are deleted and every member it placed goes back to the queue nominated to
// its node, to be placed whole by a later cycle once the victims are gone. Members run no
// PostFilter of their own, as upstream's group cycle.
//
// Topology-aware placement (TopologyAwareWorkloadScheduling, KEP-5732): a gang whose PodGroup has
// schedulingConstraints.topology is tried in each placement the PlacementGenerate plugins make
// (place_group_in_placements, upstream podGroupSchedulingPlacementAlgorithm) and committed in the
// best feasible one.
//
// Not done (see docs/architecture.md): composite groups, and basic groups in the group cycle.
#include <algorithm>
#include <random>
#include <set>

#include "api/helpers.h"
#include "scheduler/config/features.h"
#include "scheduler/initially_scheduled_condition.h"
#include "scheduler/pod_group_preemption_run.h"
#include "scheduler/podgroup/metrics.h"
#include "scheduler/scheduler.h"
#include "util/log.h"
#include "util/natural_order.h"

namespace ksched::scheduler {

using framework::Status;

namespace {

// PlacementFeasible said stop: Unschedulable (the constraints cannot be met) or an error.
bool stops(const Status& s) { return !s.is_success() && !s.is_wait(); }

// Whether the group asks for one topology domain (its PodGroup's schedulingConstraints.topology).
bool has_topology_constraint(const framework::PodGroupInfo& info) {
  return info.podGroup && info.podGroup->spec.schedulingConstraints &&
         !info.podGroup->spec.schedulingConstraints->topology.empty();
}

Status run_pod_group_preemption(framework::Framework& fwk, framework::preemption::GroupPreemptor& preemptor,
                                const GroupPreemptorName& name, podgroup::Manager* groups,
                                const cache::Snapshot& snapshot, std::vector<std::string>& nominated,
                                bool& keep_nominations, podgroup::PodGroupMetrics* pm, util::Clock& clock) {
  namespace pre = framework::preemption;
  const std::string& group = preemptor.group;
  // Priorities, policy and victim units: a PodGroup's own fields (under composites the tree root's),
  // a workloadRef group's v1.35 choices (podgroup::PreemptorView and VictimView).
  if (groups) {
    const podgroup::PreemptorView pv = groups->preemptor_view(preemptor.members, config::features().podGroupPreemptionPolicy);
    preemptor.priority = pv.priority;
    preemptor.neverPreempts = pv.never;
  }
  pre::PodGroupEvaluator evaluator(fwk, pre::VictimOfFn([groups](const api::Pod& p) -> pre::VictimOf {
    if (!groups || !podgroup::has_group(p)) return {};
    podgroup::VictimView v = groups->victim_view(p);
    return {std::move(v.unit), v.priority, v.groupMember, v.composite};
  }));
  const auto evaluation_start = clock.now();
  pre::GroupPreemptionResult r = evaluator.select_victims(preemptor, snapshot, snapshot);
  const std::string_view preemptor_kind = podgroup::kPodGroupPreemptor;
  if (pm) {
    pm->preemptionEvaluationDuration.with({preemptor_kind, std::string_view(framework::code_name(r.status.code()))})
        .observe(metrics::seconds_since(evaluation_start, clock.now()));
  }
  if (!r.status.is_success()) {
    if (auto v = log::V(5); v.enabled()) {
      v.info("Pod group preemption did not help", {{"podGroup", group}, {"reason", r.status.message()}});
    }
    keep_nominations = r.keepNominations;
    return r.status;
  }
  const api::Pod& first = *preemptor.members.front();
  std::string uid = name.uid;
  if (uid.empty()) {
    uid = group;
    if (const std::string* pg_name = podgroup::pod_group_name(first); groups && pg_name) {
      if (auto pg = groups->pod_group(first.metadata.namespace_, *pg_name)) uid = std::string(pg->metadata.uid.view());
    } else if (groups && first.spec.workloadRef) {
      if (auto w = groups->workload(first.metadata.namespace_, first.spec.workloadRef->name)) uid = std::string(w->metadata.uid.view());
    }
  }
  const pre::PreemptorRef ref{name.kind, uid, group, std::string(first.spec.schedulerName.view())};
  const auto execution_start = clock.now();
  Status actuated = evaluator.actuate(r, ref);
  if (pm) {
    pm->preemptionExecutionDuration.with({preemptor_kind, std::string_view(framework::code_name(actuated.code()))})
        .observe(metrics::seconds_since(execution_start, clock.now()));
  }
  if (!actuated.is_success()) return actuated;
  if (pm && !r.victims.empty()) {
    pm->workloadPreemptionVictims.get().observe(static_cast<double>(r.victims.size()));
    pm->preemptionWorkloadDisruptions.with({preemptor_kind}).observe(static_cast<double>(r.victimUnits));
    if (r.pdbViolatingUnits > 0) pm->preemptionPDBViolations.with({preemptor_kind}).inc(r.pdbViolatingUnits);
  }
  log::V(2).info("Pod group preemption", {{"podGroup", group},
                                          {"victims", std::to_string(r.victims.size())},
                                          {"victimUnits", std::to_string(r.victimUnits)}});
  nominated = std::move(r.nodes);
  return {};
}

}  // namespace

Status preempt_for_pod_group(framework::Framework& fwk, framework::preemption::GroupPreemptor& preemptor,
                             const GroupPreemptorName& name, podgroup::Manager* groups, const cache::Snapshot& snapshot,
                             std::vector<std::string>& nominated, bool& keep_nominations,
                             podgroup::PodGroupMetrics* pm, util::Clock& clock) {
  if (!fwk.has_post_filter_plugins()) {
    return Status::unschedulable("default preemption plugin is not registered, workload aware preemption is disabled");
  }
  // Upstream counts every run of the group's preemption (PodGroupPostFilter) by its final code.
  Status s = run_pod_group_preemption(fwk, preemptor, name, groups, snapshot, nominated, keep_nominations, pm, clock);
  if (pm) pm->workloadPreemptionAttempts.with({std::string_view(framework::code_name(s.code()))}).inc();
  return s;
}

void Scheduler::schedule_pod_group(framework::Framework& fwk, const queue::QueuedPodInfoPtr& first,
                                   const std::string& group) {
  const auto start = clock_->now();
  const api::Pod& first_pod = first->pod();
  std::vector<GroupMember> members(1);
  members[0].popped = first;
  // Members created during this cycle are held by the queue; they re-enter with the cycle's outcome,
  // reported once every member is requeued or sent to binding (upstream
  // AddAttemptedPodGroupIfNotPresent at the end of the pod-group cycle).
  queue::PodGroupCycleReport outcome(*queue_, first);
  for (auto& q : queue_->pop_group_members(first, {group}, [&](const api::Pod& p) {
         return p.spec.schedulerName == first_pod.spec.schedulerName && podgroup::same_group(p, first_pod);
       })) {
    if (skip_pod_schedule(q->pod())) {
      queue_->done(q->pod().metadata.uid);
      continue;
    }
    members.emplace_back().popped = std::move(q);
  }
  // The first member is the queue's head; the others follow in the queue's order.
  std::sort(members.begin() + 1, members.end(), [&](const GroupMember& a, const GroupMember& b) {
    return fwk.queue_sort_less(*a.popped, *b.popped);
  });

  // Members placed before this cycle: bound, or assumed and still binding.
  int scheduled = 0;
  for (const auto& p : pod_groups_->pods(group)) {
    if (!p->spec.nodeName.empty() || cache_->is_assumed_pod(*p)) ++scheduled;
  }
  if (auto v = log::V(4); v.enabled()) {
    v.info("Attempting to schedule a pod group", {{"podGroup", group},
                                                  {"members", std::to_string(members.size())},
                                                  {"scheduled", std::to_string(scheduled)}});
  }

  const std::optional<framework::PodGroupInfo> topology = topology_aware_group(fwk, first_pod, group, members);
  const GroupPlacement placed = topology ? place_group_in_placements(fwk, members, scheduled, *topology)
                                         : place_group_members(fwk, members, scheduled, /*dry_run=*/false);
  const Status& feasible = placed.feasible;
  const Status& group_error = placed.error;

  podgroup::PodGroupMetrics* group_metrics = opts_.pod_group_metrics;
  if (group_metrics) group_metrics->algorithmDuration.get().observe(metrics::seconds_since(start, clock_->now()));
  auto record_attempt = [&](const char* result) {
    if (group_metrics) group_metrics->attempt(result, fwk.profile_name(), metrics::seconds_since(start, clock_->now()));
  };

  if (group_error.is_success() && feasible.is_success()) {
    record_attempt(metrics::kScheduled);
    // Commit: Permit, then a binding cycle, for every placed member; the members that did not fit
    // fail on their own (the group's minimum is met without them). PlacementFeasible stops only
    // on a rejection, so on success every member was tried.
    for (auto& m : members) {
      if (!m.assumed) continue;
      commit_group_member(fwk, m, start);
    }
    for (auto& m : members) {
      if (m.status.is_success()) continue;  // committed above, or failed at Permit
      handle_scheduling_failure(fwk, m.popped, m.status, m.fit, m.result.nominatingInfo, start);
    }
    write_pod_group_condition(first_pod, {});
    outcome.placed = true;
    return;
  }

  undo_group_members(fwk, members);
  algorithm_->pod_failed(fwk);
  record_attempt(group_error.is_success() ? metrics::kUnschedulable : metrics::kError);
  Status group_status = !group_error.is_success() ? group_error : Status(framework::Code::Unschedulable, feasible.message());
  const std::string gang_plugin(feasible.plugin());

  // Workload-aware preemption (upstream runWorkloadAwarePreemption): only when the group was
  // rejected as Unschedulable, not on an error or an unresolvable rejection.
  std::vector<std::string> nominated(members.size());
  bool keep_nominations = false;
  // Not for a group with a topology constraint: the evaluator places the group across the whole
  // cluster, which its constraint forbids (ksched has no per-placement preemption yet).
  const bool constrained = topology && has_topology_constraint(*topology);
  if (group_error.is_success() && feasible.code() == framework::Code::Unschedulable && !constrained) {
    // The members' tentative assumptions were just undone: the snapshot must not show them.
    Status ps;
    if (auto rs = refresh_snapshot(); !rs.ok()) {
      ps = Status::error(rs.error());
    } else {
      framework::preemption::GroupPreemptor preemptor;
      preemptor.group = group;
      preemptor.scheduled = scheduled;
      preemptor.members.reserve(members.size());
      for (const auto& m : members) preemptor.members.push_back(m.popped->podInfo->pod);
      ps = preempt_for_pod_group(fwk, preemptor, GroupPreemptorName{}, pod_groups_.get(), *snapshot_, nominated,
                                 keep_nominations, opts_.pod_group_metrics, *clock_);
    }
    if (ps.is_error()) {
      group_status = ps;
    } else if (!ps.is_success()) {
      group_status.append_reason(ps.message());
    }
  }
  for (std::size_t i = 0; i < members.size(); ++i) {
    auto& m = members[i];
    // The member's own rejectors (if it did not fit), and the plugin that stopped the group, decide
    // which events requeue it; any member that moves brings the others back with it.
    if (m.fit) {
      m.popped->unschedulablePlugins = m.fit->diagnosis.unschedulablePlugins;
      m.popped->pendingPlugins = m.fit->diagnosis.pendingPlugins;
    }
    if (!gang_plugin.empty() && group_error.is_success()) m.popped->unschedulablePlugins.insert(gang_plugin);
    // A member the preemption placed waits for its victims nominated to that node (ModeOverride);
    // the others lose any nomination, unless an earlier preemption's victims are still going.
    framework::NominatingInfo nominating = framework::NominatingInfo::cleared();
    if (!nominated[i].empty()) nominating = {framework::NominatingInfo::Mode::Override, nominated[i]};
    if (keep_nominations) nominating = {framework::NominatingInfo::Mode::Noop, {}};
    handle_scheduling_failure(fwk, m.popped, group_status, std::nullopt, nominating, start);
  }
  write_pod_group_condition(first_pod, group_status);
}

void Scheduler::write_pod_group_condition(const api::Pod& member, const Status& outcome) {
  namespace sb1 = api::schedulingv1beta1;
  const std::string* name = podgroup::pod_group_name(member);
  if (name == nullptr || !pod_groups_) return;
  const podgroup::PodGroupPtr pg = pod_groups_->pod_group(member.metadata.namespace_, *name);
  if (!pg) return;
  std::optional<api::Condition> c =
      initially_scheduled_condition(sb1::kPodGroupInitiallyScheduled, outcome, pg->status.conditions, clock_->wall_now());
  if (!c) return;
  if (Status s = client_->patch_pod_group_status(pg->metadata.namespace_, pg->metadata.name, *c); !s.is_success()) {
    log::error("Error updating PodGroup status", {{"podGroup", *name}, {"err", s.message()}});
  }
}


Scheduler::GroupPlacement Scheduler::place_group_members(framework::Framework& fwk, std::vector<GroupMember>& members,
                                                         int scheduled, bool dry_run,
                                                         const std::function<void(const GroupMember&)>& after_attempt) {
  GroupPlacement out;
  if (members.empty()) return out;
  const api::Pod& first_pod = members.front().popped->pod();
  framework::PlacementProgress progress{static_cast<int>(members.size()), scheduled};
  out.feasible = fwk.run_placement_feasible_plugins(first_pod, progress);
  for (auto& m : members) {
    if (stops(out.feasible)) break;
    const api::Pod& pod = m.popped->pod();
    m.tried = true;
    m.state = std::make_shared<framework::CycleState>();
    m.state->record_plugin_metrics =
        !dry_run && std::uniform_int_distribution<int>(0, 99)(rng_) < opts_.plugin_metrics_sample_percent;
    m.pods_to_activate = std::make_shared<framework::PodsToActivate>();
    m.state->write(std::string(framework::kPodsToActivateKey), m.pods_to_activate);
    const auto t0 = clock_->now();
    m.status = schedule_pod_(fwk, *m.state, pod, m.result, m.fit);
    if (!dry_run) {
      if (opts_.cycle_observer) opts_.cycle_observer(fwk, pod, m.status.is_success() ? m.result.suggestedHost : std::string());
      metrics_->algorithm_duration(metrics::seconds_since(t0, clock_->now()));
    }
    if (m.status.is_success()) {
      // Assume and reserve, tentatively: the next members are placed around it.
      const std::string& node = m.result.suggestedHost;
      auto assumed_pod = std::make_shared<api::Pod>(pod);
      assumed_pod->spec.nodeName = node;
      auto assumed = std::make_shared<framework::QueuedPodInfo>(*m.popped);
      assumed->podInfo = framework::PodInfo::make(assumed_pod);
      if (auto r = cache_->assume_pod(assumed->podInfo); !r.ok()) {
        m.status = Status::error(r.error());
      } else {
        Status rs = fwk.run_reserve_plugins_reserve(*m.state, *assumed_pod, node);
        if (!dry_run) observe("Reserve", rs, fwk, t0);
        if (rs.is_success()) {
          // As upstream's assume: a nominated member no longer holds its nomination, or the
          // members after it would count it twice on its node (assumed and nominated).
          if (dry_run) m.dropped_nomination = queue_->nominator().nominated_node_of(pod.metadata.uid);
          queue_->nominator().delete_nominated_pod_if_exists(*assumed_pod);
          m.assumed = std::move(assumed);
        } else {
          fwk.run_reserve_plugins_unreserve(*m.state, *assumed_pod, node);
          if (auto fr = cache_->forget_pod(*assumed_pod); !fr.ok()) {
            log::error("Scheduler cache ForgetPod failed", {{"err", fr.error()}});
          }
          if (rs.is_rejected()) {
            m.fit = framework::FitError::on_node(m.popped->podInfo->pod, node, rs);
            m.status = Status(rs.code(), m.fit->error());
          } else {
            m.status = rs;
          }
        }
      }
    }
    if (!m.assumed) {
      algorithm_->pod_failed(fwk);
      if (!m.fit) m.result.nominatingInfo = framework::NominatingInfo::cleared();
    }
    if (after_attempt) after_attempt(m);
    --progress.remaining;
    if (m.assumed) ++progress.scheduled;
    if (!m.status.is_success() && !m.status.is_rejected()) {
      out.error = Status::error("failed to schedule other pod from a pod group: " + m.status.message());
      break;
    }
    out.feasible = fwk.run_placement_feasible_plugins(first_pod, progress);
  }
  return out;
}

void Scheduler::commit_group_member(framework::Framework& fwk, GroupMember& m,
                                    std::chrono::steady_clock::time_point start) {
  const api::Pod& assumed = m.assumed->pod();
  const std::string& node = m.result.suggestedHost;
  queue_->nominator().delete_nominated_pod_if_exists(assumed);
  const auto t = clock_->now();
  Status ps = fwk.run_permit_plugins(*m.state, assumed, node);
  observe("Permit", ps, fwk, t);
  if (!ps.is_success() && !ps.is_wait()) {
    fwk.run_reserve_plugins_unreserve(*m.state, assumed, node);
    if (auto fr = cache_->forget_pod(assumed); !fr.ok()) log::error("Scheduler cache ForgetPod failed", {{"err", fr.error()}});
    algorithm_->pod_failed(fwk);
    std::optional<framework::FitError> fit;
    Status s = ps;
    if (ps.is_rejected()) {
      fit = framework::FitError::on_node(m.popped->podInfo->pod, node, ps);
      s = Status(ps.code(), fit->error());
    }
    handle_scheduling_failure(fwk, m.popped, s, fit, framework::NominatingInfo::cleared(), start);
    return;
  }
  if (auto pods = m.pods_to_activate->take(); !pods.empty()) queue_->activate(pods);
  CycleOutcome cycle;
  cycle.status = {};
  cycle.result = std::move(m.result);
  cycle.pod_info = std::move(m.assumed);
  cycle.waits_on_permit = ps.is_wait();
  submit_binding(fwk, std::move(m.state), std::move(cycle), start, std::move(m.pods_to_activate));
}

void Scheduler::undo_group_members(framework::Framework& fwk, std::vector<GroupMember>& members) {
  for (auto it = members.rbegin(); it != members.rend(); ++it) {
    if (!it->assumed) continue;
    const api::Pod& assumed = it->assumed->pod();
    fwk.run_reserve_plugins_unreserve(*it->state, assumed, it->result.suggestedHost);
    if (auto fr = cache_->forget_pod(assumed); !fr.ok()) log::error("Scheduler cache ForgetPod failed", {{"err", fr.error()}});
    if (!it->dropped_nomination.empty()) {
      queue_->nominator().add_nominated_pod(it->popped->podInfo,
                                            framework::NominatingInfo{framework::NominatingInfo::Mode::Override,
                                                                      it->dropped_nomination});
      it->dropped_nomination.clear();
    }
    it->assumed.reset();
  }
}

std::optional<framework::PodGroupInfo> Scheduler::topology_aware_group(const framework::Framework& fwk,
                                                                      const api::Pod& first, const std::string& group,
                                                                      const std::vector<GroupMember>& members) {
  if (!config::features().topologyAwareWorkloadScheduling || !fwk.has_placement_generate_plugins() || !pod_groups_) {
    return std::nullopt;
  }
  const std::string* name = podgroup::pod_group_name(first);
  if (!name) return std::nullopt;
  podgroup::PodGroupPtr pg = pod_groups_->pod_group(first.metadata.namespace_, *name);
  if (!pg) return std::nullopt;
  framework::PodGroupInfo info;
  info.ns = std::string(first.metadata.namespace_.view());
  info.name = *name;
  info.key = group;
  info.podGroup = std::move(pg);
  info.unscheduledPods.reserve(members.size());
  for (const auto& m : members) info.unscheduledPods.push_back(m.popped->podInfo->pod);
  add_scheduled_nodes(info, group);
  return info;
}

void Scheduler::add_scheduled_nodes(framework::PodGroupInfo& info, const std::string& group) {
  for (const auto& p : pod_groups_->pods(group)) {
    if (!p->spec.nodeName.empty()) {
      info.scheduledNodes.emplace_back(p->spec.nodeName.view());
    } else if (cache_->is_assumed_pod(*p)) {
      if (auto cached = cache_->get_pod(*p); cached.ok() && cached.value()) {
        info.scheduledNodes.emplace_back(cached.value()->spec.nodeName.view());
      }
    }
  }
}

Scheduler::GroupPlacement Scheduler::place_group_in_placements(framework::Framework& fwk,
                                                               std::vector<GroupMember>& members, int scheduled,
                                                               const framework::PodGroupInfo& info) {
  GroupPlacement out;
  // The placements are cut from the current nodes.
  if (auto rs = refresh_snapshot(); !rs.ok()) {
    out.error = Status::error(rs.error());
    return out;
  }
  // The root views the snapshot's list rather than copying every node: the snapshot outlives the
  // cycle, and a refresh during it (before scoring) rebuilds the list in place.
  framework::Placement root("", std::shared_ptr<const framework::Placement::NodeList>(std::shared_ptr<void>(), &snapshot_->list()));
  std::vector<framework::Placement> placements;
  if (Status gs = fwk.run_placement_generate_plugins(info, root, placements); !gs.is_success()) {
    if (gs.is_rejected()) {
      out.feasible = std::move(gs);
    } else {
      out.error = std::move(gs);
    }
    return out;
  }
  const int n = static_cast<int>(placements.size());
  podgroup::PlacementMetrics* pm = opts_.placement_metrics;
  if (pm) pm->generated.with({fwk.profile_name()}).inc(n);
  if (auto v = log::V(4); v.enabled()) {
    v.info("Generated placements for a pod group", {{"podGroup", info.key}, {"placements", std::to_string(n)}});
  }
  const auto no_placement = [&](const Status& first, std::string_view feasible_but_empty) {
    std::string reason = n == 0 ? std::string("no placement was generated") : first.message();
    if (n > 0 && first.is_success()) reason = feasible_but_empty;
    return Status(framework::Code::Unschedulable,
                  "0/" + std::to_string(n) + " placements are available, first placement status: " + reason)
        .with_plugin(first.plugin());
  };
  std::set<std::string, std::less<>> names;
  // Restricts the algorithm to the placement's nodes; the root (every node) needs no restriction.
  const auto restrict_to = [&](const framework::Placement& p) {
    names.clear();
    if (p.shares_nodes_with(root) || p.nodes().size() == root.nodes().size()) {
      algorithm_->set_placement(nullptr);
      return;
    }
    for (const auto& ni : p.nodes()) names.emplace(ni->name().view());
    algorithm_->set_placement(&names, &p.nodes());
  };
  const auto any_assumed = [](const std::vector<GroupMember>& ms) {
    return std::any_of(ms.begin(), ms.end(), [](const GroupMember& m) { return static_cast<bool>(m.assumed); });
  };

  // One placement (a group without a constraint gets the root alone): upstream evaluates it and,
  // as the only feasible one, takes it unscored; placing the members for real at once is the
  // same outcome without the simulated pass.
  if (n == 1) {
    restrict_to(placements[0]);
    const auto t0 = clock_->now();
    out = place_group_members(fwk, members, scheduled, /*dry_run=*/false);
    algorithm_->set_placement(nullptr);
    if (!out.error.is_success()) return out;
    const bool feasible = out.feasible.is_success() && any_assumed(members);
    if (pm) pm->evaluated(feasible, fwk.profile_name(), metrics::seconds_since(t0, clock_->now()));
    if (!feasible) out.feasible = no_placement(out.feasible, "no pods were schedulable");
    return out;
  }

  // Each member's attempt starts clean in every placement.
  auto reset = [](std::vector<GroupMember>& ms) {
    for (auto& m : ms) {
      GroupMember fresh;
      fresh.popped = std::move(m.popped);
      m = std::move(fresh);
    }
  };
  std::vector<GroupMember> first_outcome;  // the first evaluated placement's members, reported when none fits
  Status first_status;
  bool first_is_nominated = false;
  std::vector<std::size_t> feasible_index;
  std::vector<framework::PodGroupAssignments> assignments;
  // Tries placement k as a dry run and undoes it; true when feasible (minimum met, a member placed).
  const auto evaluate = [&](std::size_t k) -> std::optional<GroupPlacement> {
    restrict_to(placements[k]);
    reset(members);
    const auto t0 = clock_->now();
    GroupPlacement tried = place_group_members(fwk, members, scheduled, /*dry_run=*/true);
    if (!tried.error.is_success()) {
      undo_group_members(fwk, members);
      algorithm_->set_placement(nullptr);
      return tried;
    }
    framework::PodGroupAssignments a;
    a.placement = &placements[k];
    for (const auto& m : members) {
      if (m.assumed) a.proposed.push_back(framework::ProposedAssignment{m.popped->podInfo->pod, m.result.suggestedHost});
    }
    const bool feasible = tried.feasible.is_success() && !a.proposed.empty();
    if (pm) pm->evaluated(feasible, fwk.profile_name(), metrics::seconds_since(t0, clock_->now()));
    if (auto v = log::V(5); v.enabled()) {
      v.info("Evaluated placement", {{"podGroup", info.key}, {"placement", placements[k].name},
                                     {"feasible", feasible ? "true" : "false"}});
    }
    undo_group_members(fwk, members);
    if (first_outcome.empty()) {
      first_outcome = members;
      first_status = tried.feasible;
    }
    if (feasible) {
      feasible_index.push_back(k);
      assignments.push_back(std::move(a));
    }
    return std::nullopt;
  };

  // The placement holding the members' nominated nodes first (upstream nominatedPlacement: a
  // previous preemption's choice, taken without the others when the group is feasible there);
  // none, or several placements holding them, and every placement is tried and scored.
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::size_t nominated = kNone;
  {
    std::set<std::string_view> nominated_nodes;
    for (const auto& m : members) {
      if (const auto nnn = m.popped->pod().status.nominatedNodeName.view(); !nnn.empty()) nominated_nodes.insert(nnn);
    }
    for (std::size_t k = 0; k < placements.size() && !nominated_nodes.empty(); ++k) {
      const auto& nodes = placements[k].nodes();
      const bool holds = std::any_of(nodes.begin(), nodes.end(), [&](const auto& ni) {
        return nominated_nodes.contains(ni->name().view());
      });
      if (!holds) continue;
      if (nominated != kNone) {
        nominated = kNone;
        break;
      }
      nominated = k;
    }
  }
  if (nominated != kNone) {
    if (auto failed = evaluate(nominated)) return *failed;
    first_is_nominated = true;
  }
  if (feasible_index.empty()) {
    for (std::size_t k = 0; k < placements.size(); ++k) {
      if (k == nominated) continue;
      if (auto failed = evaluate(k)) return *failed;
    }
  }
  algorithm_->set_placement(nullptr);

  if (feasible_index.empty()) {
    if (!first_outcome.empty()) members = std::move(first_outcome);
    out.feasible = no_placement(first_status, first_is_nominated
                                                  ? "nominated placement is feasible but no pending pod was scheduled"
                                                  : "no pods were schedulable");
    return out;
  }

  std::size_t best = 0;
  if (assignments.size() > 1) {
    // The snapshot's NodeInfos (the placements' nodes, updated in place) without the undone
    // members: scorers add the proposed members themselves, as upstream's after its reverts.
    if (auto rs = refresh_snapshot(); !rs.ok()) {
      reset(members);
      out.error = Status::error(rs.error());
      return out;
    }
    std::vector<std::int64_t> totals;
    if (Status ss = fwk.run_placement_score_plugins(info, assignments, totals); !ss.is_success()) {
      reset(members);
      out.error = std::move(ss);
      return out;
    }
    best = best_placement_score(totals);
    if (auto v = log::V(4); v.enabled()) {
      v.info("Selected placement for a pod group", {{"podGroup", info.key},
                                                    {"placement", assignments[best].placement->name},
                                                    {"score", std::to_string(totals[best])}});
    }
  }
  restrict_to(placements[feasible_index[best]]);
  reset(members);
  out = place_group_members(fwk, members, scheduled, /*dry_run=*/false);
  algorithm_->set_placement(nullptr);
  return out;
}

std::size_t Scheduler::best_placement_score(const std::vector<std::int64_t>& totals) {
  // The highest total; equal totals by a random draw, as upstream's Randomizer.
  std::size_t best = 0;
  std::uint64_t best_draw = rng_();
  for (std::size_t i = 1; i < totals.size(); ++i) {
    const std::uint64_t draw = rng_();
    if (totals[i] > totals[best] || (totals[i] == totals[best] && draw > best_draw)) {
      best = i;
      best_draw = draw;
    }
  }
  return best;
}

util::Result<Scheduler::PodGroupDryRun> Scheduler::dry_run_pod_group(
    framework::Framework& fwk, const api::Pod& pod, const std::function<void(const api::Pod&)>& on_first_unplaced) {
  if (!pod_groups_ || !podgroup::has_group(pod) || pod_groups_->policy(pod).kind != podgroup::Policy::Kind::Gang) {
    return util::make_error("pod " + api::key_of(pod) + " is not a member of a gang");
  }
  const std::string group = podgroup::group_key(pod);
  PodGroupDryRun out;
  std::vector<framework::PodPtr> pending;
  for (const auto& p : pod_groups_->pods(group)) {
    if (!p->spec.nodeName.empty() || cache_->is_assumed_pod(*p)) {
      ++out.scheduled;
      continue;
    }
    if (p->metadata.deletionTimestamp || p->spec.schedulerName != pod.spec.schedulerName) continue;
    pending.push_back(p);
  }
  std::sort(pending.begin(), pending.end(), [](const framework::PodPtr& a, const framework::PodPtr& b) {
    if (a->metadata.creationTimestamp != b->metadata.creationTimestamp) {
      return a->metadata.creationTimestamp < b->metadata.creationTimestamp;
    }
    // kubectl apply creates a gang's members one by one within the same second: name-2 before name-10.
    const std::string_view ans = a->metadata.namespace_.view(), bns = b->metadata.namespace_.view();
    if (ans != bns) return ans < bns;
    return util::natural_less(a->metadata.name, b->metadata.name);
  });
  std::vector<GroupMember> members(pending.size());
  const auto now = clock_->now();
  for (std::size_t i = 0; i < pending.size(); ++i) {
    auto q = std::make_shared<framework::QueuedPodInfo>();
    q->podInfo = framework::PodInfo::make(pending[i]);
    q->timestamp = now;  // equal: the queue sort decides by priority, the order above breaks ties
    members[i].popped = std::move(q);
  }
  std::stable_sort(members.begin(), members.end(),
                   [&](const GroupMember& a, const GroupMember& b) { return fwk.queue_sort_less(*a.popped, *b.popped); });

  bool reported = false;
  const GroupPlacement placed = place_group_members(fwk, members, out.scheduled, /*dry_run=*/true, [&](const GroupMember& m) {
    if (!m.assumed && !reported) {
      reported = true;
      if (on_first_unplaced) on_first_unplaced(m.popped->pod());
    }
  });
  for (const auto& m : members) {
    PodGroupDryRunMember r;
    r.pod = m.popped->podInfo->pod;
    r.tried = m.tried;
    if (m.assumed) r.node = m.result.suggestedHost;
    r.status = m.status;
    r.fit = m.fit;
    out.members.push_back(std::move(r));
  }
  undo_group_members(fwk, members);
  algorithm_->pod_failed(fwk);
  out.feasible = placed.feasible;
  out.error = placed.error;
  if (auto r = refresh_snapshot(); !r.ok()) return util::make_error(r.error());
  return out;
}

}  // namespace ksched::scheduler
