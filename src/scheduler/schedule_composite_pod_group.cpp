// The pod-group cycle over a CompositePodGroup tree (gate CompositePodGroup, KEP-6012, v1.37 alpha).
//
// Upstream (kubernetes/kubernetes master as the search index holds it, July 2026): GangScheduling's
// preEnqueueWithHierarchies lets a tree's pods in only once the root composite has minGroupCount
// ready children (HierarchyTracker), and getMinCount makes a composite's PlacementFeasible count
// child groups against minGroupCount with the PodGroup's words ("minCount (2) cannot be satisfied:
// 1 scheduled, 0 remaining"). The queue's workload_forest pops a tree as one entity; here the
// popped member's cycle takes every queued member of every PodGroup under the root
// (PriorityQueue::pop_group_members with the tree's PodGroups, found through the queue's index).
//
// How the tree is placed (ksched's reading; upstream's tree algorithm was not in the sources at
// hand): depth first in the tree's order (Manager::tree: composites, then PodGroups, each by name),
// each PodGroup with place_group_members as a single gang (its members in queue order, its own
// minCount by PlacementFeasible; members placed before the cycle counted). A PodGroup that cannot
// reach its minimum is undone at once, so its siblings see the room it took; a composite that ends
// with fewer than minGroupCount feasible children has its whole subtree undone, and its parent
// counts it as not feasible. The root feasible: every member still assumed gets Permit and a
// binding, all the others go back to the queue; otherwise every member goes back Unschedulable with
// the root's message. A PodGroup with no queued member counts as feasible when minCount of its
// pods are already bound or assumed (a child placed by an earlier cycle).
//
// When the root is not feasible (a rejection, not an error), workload-aware preemption runs for the
// whole tree as one preemptor (pod_group_preemption_run.h; upstream's newPodGroupPreemptor over the
// composite's PodGroupInfo): at the root composite's priority and policy, the simulation placing the
// tree by the same rules; on success its victims are evicted and every member it placed goes back
// nominated to its node, the tree placed whole by a later cycle once the victims are gone. Not for a
// tree with a topology constraint anywhere (the simulation would place it across domains), as for a
// constrained gang.
//
// With TopologyAwareWorkloadScheduling each node of the tree is placed within the placements its
// PlacementGenerate plugins cut from its parent's (see `place` below).
//
// Not done: basic PodGroups of a tree are placed as gangs of minimum 1.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "scheduler/config/features.h"
#include "scheduler/initially_scheduled_condition.h"
#include "scheduler/pod_group_preemption_run.h"
#include "scheduler/plugins/gangscheduling/gangscheduling.h"
#include "scheduler/podgroup/metrics.h"
#include "scheduler/scheduler.h"
#include "util/log.h"

namespace ksched::scheduler {

using framework::Status;

namespace {

// A tree node's outcome in this cycle.
struct NodeOutcome {
  bool feasible = false;
  Status status;  // the node's own verdict (Unschedulable with its message when not feasible)
};

Status cannot_be_satisfied(int min, int scheduled, int remaining) {
  // Upstream's PlacementFeasible words, which getMinCount gives a composite too.
  return Status::unschedulable(
             fmt::format("minCount ({}) cannot be satisfied: {} scheduled, {} remaining", min, scheduled, remaining))
      .with_plugin(plugins::gangscheduling::kName);
}

}  // namespace

void Scheduler::schedule_pod_group_tree(framework::Framework& fwk, const queue::QueuedPodInfoPtr& first,
                                        const podgroup::HierarchyKey& root) {
  const auto start = clock_->now();
  const api::Pod& first_pod = first->pod();
  std::optional<podgroup::Tree> tree = pod_groups_->tree(root);
  if (!tree) {
    // The root left between PreEnqueue and now: wait for the tree again.
    Status s = Status::unresolvable(fmt::format("waiting for composite pod group \"{}\" tree to meet quorum", root.name))
                   .with_plugin(plugins::gangscheduling::kName);
    first->unschedulablePlugins.insert(std::string(plugins::gangscheduling::kName));
    handle_scheduling_failure(fwk, first, s, std::nullopt, framework::NominatingInfo::cleared(), start);
    return;
  }
  const std::size_t n = tree->nodes.size();
  // The tree's PodGroups by name (one namespace), and their group keys for the queue.
  std::unordered_map<std::string_view, std::size_t> pod_group_node;
  std::vector<std::string> pod_group_keys;
  for (std::size_t i = 0; i < n; ++i) {
    if (tree->nodes[i].key.kind != podgroup::HierarchyKey::Kind::PodGroup) continue;
    pod_group_node.emplace(tree->nodes[i].key.name, i);
    pod_group_keys.push_back(podgroup::pod_group_key(root.ns, tree->nodes[i].key.name));
  }
  auto node_of = [&](const api::Pod& p) -> std::optional<std::size_t> {
    const std::string* name = podgroup::pod_group_name(p);
    if (name == nullptr || p.metadata.namespace_.view() != root.ns) return std::nullopt;
    auto it = pod_group_node.find(*name);
    if (it == pod_group_node.end()) return std::nullopt;
    return it->second;
  };
  std::vector<std::vector<GroupMember>> members(n);
  if (auto i = node_of(first_pod)) {
    members[*i].emplace_back().popped = first;
  } else {
    // The popped pod's PodGroup moved out of the tree since PreEnqueue: retry it on its own.
    handle_scheduling_failure(fwk, first, Status::unschedulable("pod group moved out of its composite pod group tree"),
                              std::nullopt, framework::NominatingInfo::cleared(), start);
    return;
  }
  // Members of first's PodGroup created during this cycle are held by the queue until it ends
  // (schedule_pod_group.cpp); those of the tree's other PodGroups are queued and gathered by a later cycle.
  queue::PodGroupCycleReport report(*queue_, first);
  for (auto& q : queue_->pop_group_members(first, pod_group_keys, [&](const api::Pod& p) {
         return p.spec.schedulerName == first_pod.spec.schedulerName && node_of(p).has_value();
       })) {
    if (skip_pod_schedule(q->pod())) {
      queue_->done(q->pod().metadata.uid);
      continue;
    }
    members[*node_of(q->pod())].emplace_back().popped = std::move(q);
  }
  for (auto& ms : members) {
    // The first member stays at the head of its group; the others follow in the queue's order.
    const bool has_first = !ms.empty() && ms.front().popped == first;
    std::sort(ms.begin() + (has_first ? 1 : 0), ms.end(),
              [&](const GroupMember& a, const GroupMember& b) { return fwk.queue_sort_less(*a.popped, *b.popped); });
  }
  if (auto v = log::V(4); v.enabled()) {
    std::size_t total = 0;
    for (const auto& ms : members) total += ms.size();
    v.info("Attempting to schedule a composite pod group tree",
           {{"compositePodGroup", root.ns + "/" + root.name}, {"groups", std::to_string(n)}, {"members", std::to_string(total)}});
  }

  // Each PodGroup's pods placed before this cycle: bound, or assumed and still binding.
  std::vector<int> scheduled_before(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const podgroup::TreeNode& node = tree->nodes[i];
    if (node.key.kind != podgroup::HierarchyKey::Kind::PodGroup) continue;
    for (const auto& p : pod_groups_->pods(node.key.ns + "/" + node.key.name)) {
      if (!p->spec.nodeName.empty() || cache_->is_assumed_pod(*p)) ++scheduled_before[i];
    }
  }

  std::vector<NodeOutcome> outcome(n);
  Status error;  // a member's attempt failed with an error: the whole tree stops
  auto undo_subtree = [&](std::size_t i, auto& self) -> void {
    for (int c : tree->nodes[i].children) self(static_cast<std::size_t>(c), self);
    undo_group_members(fwk, members[i]);
  };

  // Topology-aware placement of the tree (TopologyAwareWorkloadScheduling; upstream
  // compositePodGroupSchedulingPlacementAlgorithm and podGroupSchedulingPlacementAlgorithm): every
  // node of the tree, composite or PodGroup, is placed within the placements its PlacementGenerate
  // plugins cut from its parent's placement (the root's from every node); a node without a
  // constraint gets its parent's placement unchanged.
  const bool topology_aware = config::features().topologyAwareWorkloadScheduling && fwk.has_placement_generate_plugins();
  podgroup::PlacementMetrics* pm = opts_.placement_metrics;
  framework::Placement root_placement;
  if (topology_aware) {
    if (auto rs = refresh_snapshot(); !rs.ok()) {
      error = Status::error(rs.error());
    } else {
      // A view of the snapshot's list, not a copy (as place_group_in_placements' root).
      root_placement = framework::Placement(
          "", std::shared_ptr<const framework::Placement::NodeList>(std::shared_ptr<void>(), &snapshot_->list()));
    }
  }
  // The placements entered, innermost last; the algorithm considers only the innermost's nodes.
  struct Scope {
    const framework::Placement* placement;
    std::set<std::string, std::less<>> own_names;
    // The placement's node names for the algorithm: own_names, or the enclosing scope's set when
    // the placement shares that scope's list (a child kept its parent's nodes); null for every node.
    const std::set<std::string, std::less<>>* names = nullptr;
  };
  std::vector<std::unique_ptr<Scope>> scopes;
  auto enter = [&](const framework::Placement& p) {
    auto sc = std::make_unique<Scope>();
    sc->placement = &p;
    if (!scopes.empty() && p.shares_nodes_with(*scopes.back()->placement)) {
      sc->names = scopes.back()->names;
    } else if (!p.shares_nodes_with(root_placement) && p.nodes().size() != root_placement.nodes().size()) {
      for (const auto& ni : p.nodes()) sc->own_names.emplace(ni->name().view());
      sc->names = &sc->own_names;
    }
    algorithm_->set_placement(sc->names, &p.nodes());
    scopes.push_back(std::move(sc));
  };
  auto leave = [&] {
    scopes.pop_back();
    const Scope* inner = scopes.empty() ? nullptr : scopes.back().get();
    algorithm_->set_placement(inner ? inner->names : nullptr, inner ? &inner->placement->nodes() : nullptr);
  };
  // The placement plugins' view of node i: its object, and the pods of every PodGroup under it.
  auto info_of = [&](std::size_t i) {
    const podgroup::TreeNode& node = tree->nodes[i];
    framework::PodGroupInfo info;
    info.ns = node.key.ns;
    info.name = node.key.name;
    info.key = node.key.ns + "/" + node.key.name;
    info.podGroup = node.podGroup;
    info.compositePodGroup = node.composite;
    auto walk = [&](std::size_t j, auto& self) -> void {
      const podgroup::TreeNode& t = tree->nodes[j];
      if (t.key.kind == podgroup::HierarchyKey::Kind::PodGroup) {
        for (const auto& m : members[j]) info.unscheduledPods.push_back(m.popped->podInfo->pod);
        add_scheduled_nodes(info, t.key.ns + "/" + t.key.name);
      }
      for (int c : t.children) self(static_cast<std::size_t>(c), self);
    };
    walk(i, walk);
    return info;
  };
  // Where the members of node i's subtree went (the assumed ones).
  auto proposed_of = [&](std::size_t i, framework::PodGroupAssignments& a) {
    auto walk = [&](std::size_t j, auto& self) -> void {
      for (const auto& m : members[j]) {
        if (m.assumed) a.proposed.push_back(framework::ProposedAssignment{m.popped->podInfo->pod, m.result.suggestedHost});
      }
      for (int c : tree->nodes[j].children) self(static_cast<std::size_t>(c), self);
    };
    walk(i, walk);
  };

  // Places node i; returns whether it is feasible. `dry`: a placement being evaluated (undone by
  // the caller); `direct`: within the placement already entered for it (no placements of its own).
  auto place = [&](std::size_t i, bool dry, bool direct, auto& self) -> bool {
    const podgroup::TreeNode& node = tree->nodes[i];
    if (!error.is_success()) return false;
    if (topology_aware && !direct) {
      const framework::PodGroupInfo info = info_of(i);
      const framework::Placement& parent = scopes.empty() ? root_placement : *scopes.back()->placement;
      std::vector<framework::Placement> placements;
      if (Status gs = fwk.run_placement_generate_plugins(info, parent, placements); !gs.is_success()) {
        if (!gs.is_rejected()) error = gs;
        outcome[i] = {false, std::move(gs)};
        return false;
      }
      const int np = static_cast<int>(placements.size());
      if (pm) pm->generated.with({fwk.profile_name()}).inc(np);
      auto no_placement = [&](const Status& first) {
        const std::string reason = np == 0 ? std::string("no placement was generated") : first.message();
        return Status(framework::Code::Unschedulable,
                      fmt::format("0/{} placements are available, first placement status: {}", np, reason))
            .with_plugin(first.plugin().empty() ? plugins::gangscheduling::kName : first.plugin());
      };
      // One placement: as the only feasible one it would be taken unscored, so the node is
      // placed in it at once.
      if (np == 1) {
        enter(placements[0]);
        const auto t0 = clock_->now();
        const bool ok = self(i, dry, true, self);
        leave();
        if (!error.is_success()) return false;
        if (pm) pm->evaluated(ok, fwk.profile_name(), metrics::seconds_since(t0, clock_->now()));
        if (!ok) outcome[i].status = no_placement(outcome[i].status);
        return ok;
      }
      // Several (or none): each evaluated as a dry run and undone; the feasible ones scored.
      Status first_status;
      bool have_first = false;
      std::vector<std::size_t> feasible;
      std::vector<framework::PodGroupAssignments> assignments;
      for (std::size_t k = 0; k < placements.size(); ++k) {
        enter(placements[k]);
        const auto t0 = clock_->now();
        const bool ok = self(i, /*dry=*/true, true, self);
        framework::PodGroupAssignments a;
        a.placement = &placements[k];
        if (ok) proposed_of(i, a);
        leave();
        undo_subtree(i, undo_subtree);
        if (!error.is_success()) return false;
        if (pm) pm->evaluated(ok, fwk.profile_name(), metrics::seconds_since(t0, clock_->now()));
        if (!have_first) {
          first_status = ok ? Status{} : outcome[i].status;
          have_first = true;
        }
        if (ok) {
          feasible.push_back(k);
          assignments.push_back(std::move(a));
        }
      }
      if (feasible.empty()) {
        outcome[i] = {false, no_placement(first_status)};
        return false;
      }
      std::size_t best = 0;
      if (assignments.size() > 1) {
        // Scorers see the nodes without the undone evaluations (as in place_group_in_placements).
        std::vector<std::int64_t> totals;
        Status ss;
        if (auto rs = refresh_snapshot(); !rs.ok()) {
          ss = Status::error(rs.error());
        } else {
          ss = fwk.run_placement_score_plugins(info, assignments, totals);
        }
        if (!ss.is_success()) {
          error = ss;
          outcome[i] = {false, std::move(ss)};
          return false;
        }
        best = best_placement_score(totals);
      }
      if (auto v = log::V(4); v.enabled()) {
        v.info("Selected placement for a pod group tree node",
               {{"group", info.key}, {"placement", placements[feasible[best]].name}});
      }
      enter(placements[feasible[best]]);
      const bool ok = self(i, dry, true, self);
      leave();
      return ok && error.is_success();
    }
    if (node.key.kind == podgroup::HierarchyKey::Kind::PodGroup) {
      const int scheduled = scheduled_before[i];
      if (members[i].empty()) {
        outcome[i].feasible = scheduled >= node.min;
        outcome[i].status = outcome[i].feasible ? Status{} : cannot_be_satisfied(node.min, scheduled, 0);
        return outcome[i].feasible;
      }
      // Each attempt starts clean (a placement evaluated before may have tried these members).
      for (auto& m : members[i]) {
        GroupMember fresh;
        fresh.popped = std::move(m.popped);
        m = std::move(fresh);
      }
      GroupPlacement placed = place_group_members(fwk, members[i], scheduled, dry);
      if (!placed.error.is_success()) {
        error = placed.error;
        outcome[i].status = placed.error;
        return false;
      }
      outcome[i].feasible = placed.feasible.is_success();
      outcome[i].status = placed.feasible;
      if (!outcome[i].feasible) undo_group_members(fwk, members[i]);
      return outcome[i].feasible;
    }
    // A CompositePodGroup: minGroupCount feasible children (upstream getMinCount), stopping as soon
    // as the children left cannot bring it there.
    const int total = static_cast<int>(node.children.size());
    int scheduled = 0;
    int remaining = total;
    outcome[i].status = {};
    for (int c : node.children) {
      if (scheduled + remaining < node.min) break;
      const bool ok = self(static_cast<std::size_t>(c), dry, false, self);
      if (!error.is_success()) return false;
      --remaining;
      if (ok) ++scheduled;
    }
    outcome[i].feasible = scheduled >= node.min;
    if (!outcome[i].feasible) {
      outcome[i].status = cannot_be_satisfied(node.min, scheduled, remaining);
      undo_subtree(i, undo_subtree);
    }
    return outcome[i].feasible;
  };
  bool root_feasible = error.is_success() && place(0, /*dry=*/false, /*direct=*/false, place);
  algorithm_->set_placement(nullptr);
  // A feasible root must have placed a member (upstream RunRootSchedulingAlgorithm).
  if (root_feasible && std::none_of(members.begin(), members.end(), [](const std::vector<GroupMember>& ms) {
        return std::any_of(ms.begin(), ms.end(), [](const GroupMember& m) { return static_cast<bool>(m.assumed); });
      })) {
    root_feasible = false;
    outcome[0] = {false, Status::unschedulable("no pods were schedulable").with_plugin(plugins::gangscheduling::kName)};
  }

  podgroup::PodGroupMetrics* group_metrics = opts_.pod_group_metrics;
  auto record_attempt = [&](const char* result) {
    if (group_metrics) group_metrics->attempt(result, fwk.profile_name(), metrics::seconds_since(start, clock_->now()));
  };

  // Why node i's members were not placed: its own verdict, or the nearest composite above it that
  // was not feasible (a child it never reached leaves no verdict of its own).
  auto why_not = [&](std::size_t i) -> Status {
    for (int a = static_cast<int>(i); a >= 0; a = tree->nodes[static_cast<std::size_t>(a)].parent) {
      const NodeOutcome& o = outcome[static_cast<std::size_t>(a)];
      if (!o.feasible && !o.status.is_success()) return o.status;
    }
    return Status::unschedulable("composite pod group tree not scheduled").with_plugin(plugins::gangscheduling::kName);
  };
  // Whether node i and every composite above it were feasible.
  auto placed = [&](std::size_t i) {
    for (int a = static_cast<int>(i); a >= 0; a = tree->nodes[static_cast<std::size_t>(a)].parent) {
      if (!outcome[static_cast<std::size_t>(a)].feasible) return false;
    }
    return true;
  };

  if (error.is_success() && root_feasible) {
    report.placed = true;
    record_attempt(metrics::kScheduled);
    for (std::size_t i = 0; i < n; ++i) {
      for (auto& m : members[i]) {
        if (!m.assumed) {
          // It did not fit (its group met its minimum without it), or its group or a composite
          // above it was undone: back to the queue, rejected by its own plugins or by the group's.
          if (m.fit) {
            handle_scheduling_failure(fwk, m.popped, m.status, m.fit, m.result.nominatingInfo, start);
          } else {
            m.popped->unschedulablePlugins.insert(std::string(plugins::gangscheduling::kName));
            handle_scheduling_failure(fwk, m.popped, Status(framework::Code::Unschedulable, why_not(i).message()),
                                      std::nullopt, framework::NominatingInfo::cleared(), start);
          }
          continue;
        }
        commit_group_member(fwk, m, start);
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      const Status s = placed(i) ? Status{} : why_not(i);
      if (tree->nodes[i].composite) {
        write_composite_pod_group_condition(tree->nodes[i].composite, s);
      } else if (!members[i].empty()) {
        // A PodGroup with no member in this cycle keeps what its own earlier cycle wrote.
        write_pod_group_condition(members[i].front().popped->pod(), s);
      }
    }
    return;
  }

  // Not feasible (or an error): nothing stays assumed, every member goes back.
  for (std::size_t i = 0; i < n; ++i) undo_group_members(fwk, members[i]);
  algorithm_->pod_failed(fwk);
  record_attempt(error.is_success() ? metrics::kUnschedulable : metrics::kError);
  Status tree_status = !error.is_success() ? error : Status(framework::Code::Unschedulable, outcome[0].status.message());

  // Workload-aware preemption for the whole tree (upstream runs it for the entity the cycle placed,
  // the root's PodGroupInfo: newPodGroupPreemptor with the composite, its unscheduled pods, and the
  // tree's own placement as what "fits" means), only on a rejection, not on an error.
  framework::preemption::GroupPreemptor preemptor;
  std::vector<std::string> nominated;
  bool keep_nominations = false;
  // A topology constraint anywhere in the tree: the simulation would place the tree across its
  // domains, which the constraint forbids (as for a constrained gang); the tree waits for room.
  const bool constrained = topology_aware && std::any_of(tree->nodes.begin(), tree->nodes.end(), [](const podgroup::TreeNode& t) {
    const auto has = [](const auto& c) { return c && !c->topology.empty(); };
    return (t.podGroup && has(t.podGroup->spec.schedulingConstraints)) ||
           (t.composite && has(t.composite->spec.schedulingConstraints));
  });
  if (error.is_success() && !constrained) {
    preemptor.group = "composite:" + root.ns + "/" + root.name;
    preemptor.tree.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const podgroup::TreeNode& node = tree->nodes[i];
      auto& t = preemptor.tree[i];
      t.parent = node.parent;
      t.children = node.children;
      t.composite = node.key.kind == podgroup::HierarchyKey::Kind::CompositePodGroup;
      t.min = node.min;
      t.scheduled = scheduled_before[i];
      for (const auto& m : members[i]) {
        t.members.push_back(preemptor.members.size());
        preemptor.members.push_back(m.popped->podInfo->pod);
      }
    }
    Status ps;
    if (auto rs = refresh_snapshot(); !rs.ok()) {
      ps = Status::error(rs.error());
    } else {
      GroupPreemptorName name{"compositepodgroup", tree->nodes[0].composite
                                                       ? std::string(tree->nodes[0].composite->metadata.uid.view())
                                                       : preemptor.group};
      ps = preempt_for_pod_group(fwk, preemptor, name, pod_groups_.get(), *snapshot_, nominated, keep_nominations,
                                 opts_.pod_group_metrics, *clock_);
    }
    if (ps.is_error()) {
      tree_status = ps;
    } else if (!ps.is_success()) {
      tree_status.append_reason(ps.message());
    }
  }
  std::size_t member_index = 0;  // the member's place in preemptor.members (the same order)
  for (std::size_t i = 0; i < n; ++i) {
    for (auto& m : members[i]) {
      if (m.fit) {
        m.popped->unschedulablePlugins = m.fit->diagnosis.unschedulablePlugins;
        m.popped->pendingPlugins = m.fit->diagnosis.pendingPlugins;
      }
      if (error.is_success()) m.popped->unschedulablePlugins.insert(std::string(plugins::gangscheduling::kName));
      // A member the preemption placed waits for its victims nominated to that node (ModeOverride);
      // the others lose any nomination, unless an earlier preemption's victims are still going.
      framework::NominatingInfo nominating = framework::NominatingInfo::cleared();
      if (member_index < nominated.size() && !nominated[member_index].empty()) {
        nominating = {framework::NominatingInfo::Mode::Override, nominated[member_index]};
      }
      if (keep_nominations) nominating = {framework::NominatingInfo::Mode::Noop, {}};
      ++member_index;
      handle_scheduling_failure(fwk, m.popped, tree_status, std::nullopt, nominating, start);
    }
    if (tree->nodes[i].composite) {
      write_composite_pod_group_condition(tree->nodes[i].composite, tree_status);
    } else if (!members[i].empty()) {
      write_pod_group_condition(members[i].front().popped->pod(), tree_status);
    }
  }
}

void Scheduler::write_composite_pod_group_condition(const podgroup::CompositePodGroupPtr& cpg, const Status& outcome) {
  namespace sb1 = api::schedulingv1beta1;
  if (!cpg) return;
  // The newest object the informer showed (the one in the tree may predate an earlier write).
  const podgroup::CompositePodGroupPtr current =
      pod_groups_ ? pod_groups_->composite(cpg->metadata.namespace_, cpg->metadata.name) : nullptr;
  const auto& obj = current ? *current : *cpg;
  std::optional<api::Condition> c =
      initially_scheduled_condition(sb1::kCompositePodGroupInitiallyScheduled, outcome, obj.status.conditions, clock_->wall_now());
  if (!c) return;
  if (Status s = client_->patch_composite_pod_group_status(obj.metadata.namespace_, obj.metadata.name, *c);
      !s.is_success()) {
    log::error("Error updating CompositePodGroup status",
               {{"compositePodGroup", std::string(obj.metadata.name.view())}, {"err", s.message()}});
  }
}

}  // namespace ksched::scheduler
