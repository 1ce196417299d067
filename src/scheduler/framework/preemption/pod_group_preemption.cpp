#include "scheduler/framework/preemption/pod_group_preemption.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <mutex>
#include <set>
#include <unordered_map>

#include "api/helpers.h"
#include "util/log.h"

namespace ksched::scheduler::framework::preemption {

namespace {

// The nodes as the simulation edits them: clones of the snapshot's NodeInfos (the snapshot itself
// is the cache's and must not change). The affinity lists are rebuilt when read after an edit:
// only PreFilter reads them, and the reprieve loop edits many times between two PreFilters.
class SimulatedNodes final : public NodeInfoLister, public StorageInfoLister {
 public:
  SimulatedNodes(const NodeInfoLister& from, const StorageInfoLister& storage) : storage_(storage) {
    const auto& src = from.list();
    list_.reserve(src.size());
    for (const auto& ni : src) {
      auto c = ni->clone();
      c->set_list_position(static_cast<std::uint32_t>(list_.size()));
      by_name_.emplace(std::string(c->name_view()), c);
      list_.push_back(std::move(c));
    }
  }
  const std::vector<NodeInfoPtr>& list() const override { return list_; }
  const std::vector<NodeInfoPtr>& have_pods_with_affinity_list() const override {
    refresh();
    return with_affinity_;
  }
  const std::vector<NodeInfoPtr>& have_pods_with_required_anti_affinity_list() const override {
    refresh();
    return with_anti_affinity_;
  }
  NodeInfoPtr get(std::string_view name) const override {
    auto it = by_name_.find(std::string(name));
    return it == by_name_.end() ? nullptr : it->second;
  }
  bool is_pvc_used_by_pods(std::string_view key) const override { return storage_.is_pvc_used_by_pods(key); }

  bool add_pod(const PodInfoPtr& pi, std::string_view node) {
    auto ni = get(node);
    if (!ni) return false;
    ni->add_pod(pi);
    dirty_ = true;
    return true;
  }
  bool remove_pod(const api::Pod& pod, std::string_view node) {
    auto ni = get(node);
    if (!ni || !ni->remove_pod(pod)) return false;
    dirty_ = true;
    return true;
  }

 private:
  void refresh() const {
    if (!dirty_) return;
    with_affinity_.clear();
    with_anti_affinity_.clear();
    for (const auto& ni : list_) {
      if (!ni->podsWithAffinity.empty()) with_affinity_.push_back(ni);
      if (!ni->podsWithRequiredAntiAffinity.empty()) with_anti_affinity_.push_back(ni);
    }
    dirty_ = false;
  }

  const StorageInfoLister& storage_;
  std::vector<NodeInfoPtr> list_;
  std::unordered_map<std::string, NodeInfoPtr> by_name_;
  mutable std::vector<NodeInfoPtr> with_affinity_, with_anti_affinity_;
  mutable bool dirty_ = true;
};

// Points the framework's snapshot at `sim` for the lifetime of the guard.
class SnapshotSwap {
 public:
  SnapshotSwap(Framework& fwk, const SimulatedNodes& sim)
      : fwk_(fwk), nodes_(&fwk.snapshot_node_infos()), storage_(&fwk.snapshot_storage_infos()) {
    fwk_.set_snapshot(&sim, &sim);
  }
  ~SnapshotSwap() { fwk_.set_snapshot(nodes_, storage_); }
  SnapshotSwap(const SnapshotSwap&) = delete;
  SnapshotSwap& operator=(const SnapshotSwap&) = delete;

 private:
  Framework& fwk_;
  const NodeInfoLister* nodes_;
  const StorageInfoLister* storage_;
};

// Upstream PodTerminatingByPreemption.
bool terminating_by_preemption(const api::Pod& p) {
  if (!p.metadata.deletionTimestamp) return false;
  for (const auto& c : p.status.conditions) {
    if (c.type == "DisruptionTarget") return c.status == "True" && c.reason == "PreemptionByScheduler";
  }
  return false;
}

// One member's place in the simulated placement.
struct Assignment {
  std::size_t member = 0;  // index into GroupPreemptor::members
  std::string node;
  std::shared_ptr<CycleState> state;  // PreFilter's, with the members placed before it present
  PodInfoPtr placed;                  // the member with spec.nodeName set
};

bool stops(const Status& s) { return !s.is_success() && !s.is_wait(); }

// Places the preemptor on `sim` as the cycles place it, without Reserve, Permit or the cache. Placed
// members stay on `sim` (the next see them) until `remove_all`; a group undone leaves `out` with it.
class SimulatedPlacement {
 public:
  SimulatedPlacement(Framework& fwk, SimulatedNodes& sim, const GroupPreemptor& g, std::vector<Assignment>& out)
      : fwk_(fwk), sim_(sim), g_(g), out_(out) {}

  // The members g.members[idx...] as one gang, `scheduled` of it placed before: PlacementFeasible's
  // last verdict (Success, Wait, or why it stopped). A member's error stops it (error()).
  Status place_gang(const std::vector<std::size_t>& idx, int scheduled) {
    PlacementProgress progress{static_cast<int>(idx.size()), scheduled};
    const api::Pod& first = *g_.members[idx.front()];
    Status feasible = fwk_.run_placement_feasible_plugins(first, progress);
    for (std::size_t k = 0; k < idx.size() && !stops(feasible); ++k) {
      const Placed placed = place_member(idx[k]);
      if (placed == Placed::Error) return feasible;
      if (placed == Placed::Yes) ++progress.scheduled;
      --progress.remaining;
      feasible = fwk_.run_placement_feasible_plugins(first, progress);
    }
    return feasible;
  }

  // Tree node i (GroupPreemptor::tree) placed depth first as the tree's cycle places it: Success when
  // feasible, else why not (upstream PlacementFeasible's words, a composite's by getMinCount). A
  // node that is not feasible leaves nothing placed.
  Status place_tree_node(std::size_t i) {
    const PreemptorTreeNode& node = g_.tree[i];
    const std::size_t mark = out_.size();
    if (!node.composite) {
      if (node.members.empty()) return node.scheduled >= node.min ? Status{} : cannot_be_satisfied(node.min, node.scheduled, 0);
      Status s = place_gang(node.members, node.scheduled);
      if (s.is_success()) return s;
      undo_to(mark);
      return Status(Code::Unschedulable, s.message());
    }
    int scheduled = 0;
    int remaining = static_cast<int>(node.children.size());
    for (int c : node.children) {
      if (scheduled + remaining < node.min) break;
      const bool ok = place_tree_node(static_cast<std::size_t>(c)).is_success();
      if (!error_.is_success()) return error_;
      --remaining;
      if (ok) ++scheduled;
    }
    if (scheduled >= node.min) return {};
    undo_to(mark);
    return cannot_be_satisfied(node.min, scheduled, remaining);
  }

  // Every placed member off `sim` again: the reprieve loop adds them back one by one, as upstream's
  // revert does.
  void remove_all() { undo_to(0, /*keep=*/true); }
  const Status& error() const { return error_; }

 private:
  static Status cannot_be_satisfied(int min, int scheduled, int remaining) {
    return Status::unschedulable("minCount (" + std::to_string(min) + ") cannot be satisfied: " +
                                 std::to_string(scheduled) + " scheduled, " + std::to_string(remaining) + " remaining");
  }

  void undo_to(std::size_t mark, bool keep = false) {
    for (std::size_t k = out_.size(); k-- > mark;) sim_.remove_pod(*out_[k].placed->pod, out_[k].node);
    if (!keep) out_.resize(mark);
  }

  enum class Placed { Yes, No, Error };
  // PreFilter, Filter (with nominated pods), PreScore/Score over `sim`; the best node takes the member.
  // Error: error_ is set.
  Placed place_member(std::size_t i) {
    const api::Pod& pod = *g_.members[i];
    auto state = std::make_shared<CycleState>();
    PreFilterResult pre;
    std::set<std::string> plugins_with_nodes;
    Status s = fwk_.run_pre_filter_plugins(*state, pod, pre, plugins_with_nodes);
    feasible_nodes_.clear();
    if (s.is_error()) {
      error_ = s;
      return Placed::Error;
    }
    if (s.is_success()) {
      for (const auto& ni : sim_.list()) {
        if (!pre.all_nodes() && !pre.nodeNames->count(std::string(ni->name_view()))) continue;
        Status fs = fwk_.run_filter_plugins_with_nominated_pods(*state, pod, *ni);
        if (fs.is_success()) {
          feasible_nodes_.push_back(ni);
        } else if (fs.is_error()) {
          error_ = fs;
          return Placed::Error;
        }
      }
    }
    if (feasible_nodes_.empty()) return Placed::No;
    std::size_t best = 0;
    if (feasible_nodes_.size() > 1 && fwk_.has_score_plugins()) {
      Status ps = fwk_.run_pre_score_plugins(*state, pod, feasible_nodes_);
      if (ps.is_success() || ps.is_skip()) {
        if (fwk_.run_score_plugins(*state, pod, feasible_nodes_, scores_).is_success()) {
          for (std::size_t k = 1; k < scores_.size(); ++k) {
            if (scores_[k].totalScore > scores_[best].totalScore) best = k;
          }
        }
      }
    }
    Assignment a;
    a.member = i;
    a.node = std::string(feasible_nodes_[best]->name_view());
    a.state = std::move(state);
    auto placed = std::make_shared<api::Pod>(pod);
    placed->spec.nodeName = a.node;
    a.placed = PodInfo::make(std::move(placed));
    sim_.add_pod(a.placed, a.node);
    out_.push_back(std::move(a));
    return Placed::Yes;
  }

  Framework& fwk_;
  SimulatedNodes& sim_;
  const GroupPreemptor& g_;
  std::vector<Assignment>& out_;
  Status error_;
  std::vector<NodeInfoPtr> feasible_nodes_;
  std::vector<NodePluginScores> scores_;
};

// The preemptor placed on `sim` (a gang, or a tree when g.tree is set). On return the members are
// off `sim` again; `out` holds where each placed member went, in placement order.
Status simulate_placement(Framework& fwk, SimulatedNodes& sim, const GroupPreemptor& g, std::vector<Assignment>& out) {
  out.clear();
  SimulatedPlacement placement(fwk, sim, g, out);
  Status feasible;
  if (g.tree.empty()) {
    std::vector<std::size_t> all(g.members.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    feasible = placement.place_gang(all, g.scheduled);
  } else {
    feasible = placement.place_tree_node(0);
  }
  placement.remove_all();
  if (!placement.error().is_success()) {
    return Status::error("failed to schedule other pod from a pod group: " + placement.error().message());
  }
  if (!feasible.is_success()) {
    return Status(feasible.code() == Code::Wait ? Code::Unschedulable : feasible.code(), feasible.message());
  }
  return {};
}

}  // namespace

bool more_important_victim(const VictimUnit& a, const VictimUnit& b) {
  if (a.priority != b.priority) return a.priority > b.priority;
  auto rank = [](const VictimUnit& u) { return u.composite ? 3 : (u.is_group || u.podGroupMember) ? 2 : 1; };
  const int rank_a = rank(a);
  const int rank_b = rank(b);
  if (rank_a != rank_b) return rank_a > rank_b;
  if (a.pods.size() != b.pods.size()) return a.pods.size() > b.pods.size();
  return a.earliest_start < b.earliest_start;
}

VictimOfFn victim_of_unit_key(UnitKeyFn unit_of) {
  if (!unit_of) return {};
  return [unit_of = std::move(unit_of)](const api::Pod& p) { return VictimOf{unit_of(p), std::nullopt, false, false}; };
}

std::vector<VictimUnit> collect_victim_units(const NodeInfoLister& nodes, const VictimOfFn& victim_of,
                                             std::int64_t now_nanos) {
  std::vector<VictimUnit> units;
  std::unordered_map<std::string, std::size_t> group_index;
  for (const auto& ni : nodes.list()) {
    for (const auto& pi : ni->pods) {
      const api::Pod& p = *pi->pod;
      VictimOf v = victim_of ? victim_of(p) : VictimOf{};
      const std::int32_t prio = v.priority.value_or(api::pod_priority(p));
      const std::int64_t start = pod_start_time(p, now_nanos);
      if (v.unit.empty()) {
        units.push_back(VictimUnit{{pi}, prio, false, start, v.podGroupMember, false});
        continue;
      }
      auto [it, fresh] = group_index.emplace(std::move(v.unit), units.size());
      if (fresh) {
        units.push_back(VictimUnit{{pi}, prio, true, start, v.podGroupMember, v.composite});
        continue;
      }
      VictimUnit& u = units[it->second];
      u.pods.push_back(pi);
      // A group's own priority is the same for every pod; without one, the members' highest.
      if (!v.priority) u.priority = std::max(u.priority, prio);
      u.earliest_start = std::min(u.earliest_start, start);
    }
  }
  return units;
}

std::int32_t GroupPreemptor::priority_of(const std::vector<PodPtr>& members) {
  std::int32_t p = std::numeric_limits<std::int32_t>::max();
  for (const auto& m : members) p = std::min(p, api::pod_priority(*m));
  return members.empty() ? 0 : p;
}

bool GroupPreemptor::never_preempts(const std::vector<PodPtr>& members) {
  return std::any_of(members.begin(), members.end(), [](const PodPtr& m) {
    return m->spec.preemptionPolicy && *m->spec.preemptionPolicy == "Never";
  });
}

GroupPreemptionResult PodGroupEvaluator::select_victims(const GroupPreemptor& g, const NodeInfoLister& nodes,
                                                        const StorageInfoLister& storage) {
  GroupPreemptionResult r;
  r.nodes.assign(g.members.size(), std::string());
  if (g.members.empty()) {
    r.status = Status::unresolvable(std::string(kNoVictims));
    return r;
  }
  const std::int32_t priority = g.priority ? *g.priority : GroupPreemptor::priority_of(g.members);
  const std::int64_t now = now_unix_nanos();
  auto victim_of = [&](const api::Pod& p) { return victim_of_ ? victim_of_(p) : VictimOf{}; };

  // Upstream preemptorEligibleToPreemptOthers.
  if (g.neverPreempts ? *g.neverPreempts : GroupPreemptor::never_preempts(g.members)) {
    r.status = Status::unschedulable("not eligible due to preemptionPolicy=Never.");
    return r;
  }
  std::vector<VictimUnit> all = collect_victim_units(nodes, victim_of_, now);
  {
    std::set<std::string, std::less<>> nominated;
    for (const auto& m : g.members) {
      if (!m->status.nominatedNodeName.empty()) nominated.insert(std::string(m->status.nominatedNodeName.view()));
    }
    if (!nominated.empty()) {
      // A pod's priority is its group's (upstream getPodPriority), or its gang's or its own.
      std::unordered_map<std::string, std::int32_t> unit_priority;
      for (const auto& u : all) {
        if (u.is_group) unit_priority[victim_of(*u.pods.front()->pod).unit] = u.priority;
      }
      for (const auto& name : nominated) {
        auto ni = nodes.get(name);
        if (!ni) continue;
        for (const auto& pi : ni->pods) {
          const VictimOf v = victim_of(*pi->pod);
          auto it = v.unit.empty() ? unit_priority.end() : unit_priority.find(v.unit);
          const std::int32_t p =
              it != unit_priority.end() ? it->second : v.priority.value_or(api::pod_priority(*pi->pod));
          if (p < priority && terminating_by_preemption(*pi->pod)) {
            r.status = Status::unschedulable("not eligible due to a terminating pod on the nominated node.");
            r.keepNominations = true;
            return r;
          }
        }
      }
    }
  }

  std::vector<VictimUnit> potential;
  for (auto& u : all) {
    if (u.priority >= priority) continue;
    if (u.is_group && victim_of(*u.pods.front()->pod).unit == g.group) continue;
    potential.push_back(std::move(u));
  }
  if (potential.empty()) {
    r.status = Status::unresolvable(std::string(kNoVictims));
    return r;
  }

  SimulatedNodes sim(nodes, storage);
  SnapshotSwap swap(fwk_, sim);
  for (const auto& u : potential) {
    for (const auto& pi : u.pods) sim.remove_pod(*pi->pod, pi->pod->spec.nodeName.view());
  }
  std::vector<Assignment> placed;
  if (Status s = simulate_placement(fwk_, sim, g, placed); !s.is_success()) {
    r.status = std::move(s);
    return r;
  }

  std::stable_sort(potential.begin(), potential.end(), more_important_victim);
  // Upstream filterVictimsWithPDBViolation: a unit violates when any of its pods does, budgets
  // being consumed in importance order.
  std::vector<PodInfoPtr> flat;
  for (const auto& u : potential) flat.insert(flat.end(), u.pods.begin(), u.pods.end());
  PdbCache pdbs(fwk_.lister());
  std::vector<PodInfoPtr> violating_pods, non_violating_pods;
  split_by_pdb_violation(flat, pdbs, violating_pods, non_violating_pods);
  std::set<const api::Pod*> violating_set;
  for (const auto& pi : violating_pods) violating_set.insert(pi->pod.get());
  std::vector<const VictimUnit*> violating, non_violating;
  for (const auto& u : potential) {
    const bool v = std::any_of(u.pods.begin(), u.pods.end(), [&](const PodInfoPtr& pi) { return violating_set.count(pi->pod.get()) > 0; });
    (v ? violating : non_violating).push_back(&u);
  }

  // Upstream reprieveVictim: the unit back on its nodes (and in every placed member's PreFilter
  // state), then each placed member in order on its node, added once it passes (its state already
  // counts the members before it). Returns whether the unit can stay.
  Status error;
  auto for_each_state_extension = [&](const VictimUnit& u, bool add) {
    for (const auto& pi : u.pods) {
      auto ni = sim.get(pi->pod->spec.nodeName.view());
      if (!ni) continue;
      for (auto& a : placed) {
        Status s = add ? fwk_.run_pre_filter_extension_add_pod(*a.state, *g.members[a.member], pi, *ni)
                       : fwk_.run_pre_filter_extension_remove_pod(*a.state, *g.members[a.member], pi, *ni);
        if (!s.is_success() && error.is_success()) error = s;
      }
    }
  };
  auto reprieve = [&](const VictimUnit& u) {
    for (const auto& pi : u.pods) sim.add_pod(pi, pi->pod->spec.nodeName.view());
    for_each_state_extension(u, true);
    std::size_t added = 0;
    bool fits = true;
    for (auto& a : placed) {
      auto ni = sim.get(a.node);
      if (!ni || !fwk_.run_filter_plugins_with_nominated_pods(*a.state, *g.members[a.member], *ni).is_success()) {
        fits = false;
        break;
      }
      sim.add_pod(a.placed, a.node);
      ++added;
    }
    for (std::size_t k = added; k-- > 0;) sim.remove_pod(*placed[k].placed->pod, placed[k].node);
    if (!fits) {
      for (const auto& pi : u.pods) sim.remove_pod(*pi->pod, pi->pod->spec.nodeName.view());
      for_each_state_extension(u, false);
      if (auto v = log::V(6); v.enabled()) {
        v.info("Pods are potential preemption victims on domain",
               {{"pods", std::to_string(u.pods.size())}, {"domain", "cluster-domain"}});
      }
    }
    return fits;
  };

  std::vector<const VictimUnit*> to_preempt;
  for (const VictimUnit* u : violating) {
    if (!reprieve(*u)) {
      to_preempt.push_back(u);
      ++r.pdbViolatingUnits;
    }
  }
  for (const VictimUnit* u : non_violating) {
    if (!reprieve(*u)) to_preempt.push_back(u);
  }
  if (!error.is_success()) {
    r.status = Status::error(error.message());
    return r;
  }
  std::stable_sort(to_preempt.begin(), to_preempt.end(),
                   [](const VictimUnit* a, const VictimUnit* b) { return more_important_victim(*a, *b); });
  for (const VictimUnit* u : to_preempt) {
    for (const auto& pi : u->pods) r.victims.push_back(pi->pod);
  }
  r.victimUnits = static_cast<int>(to_preempt.size());
  for (const auto& a : placed) r.nodes[a.member] = a.node;
  return r;
}

Status PodGroupEvaluator::actuate(const GroupPreemptionResult& r, const PreemptorRef& preemptor) {
  std::vector<const api::Pod*> to_delete;
  for (const auto& v : r.victims) {
    // Graceful deletion has started already: no second call.
    if (v->metadata.deletionTimestamp) continue;
    to_delete.push_back(v.get());
  }
  if (!r.victims.empty()) fwk_.record_preemption_victims(r.victims.size());
  if (to_delete.empty()) return {};
  static const std::string kPlugin = "DefaultPreemption";
  std::mutex mu;
  std::string first_error;
  std::atomic<bool> failed{false};
  fwk_.parallelizer().until(
      static_cast<int>(to_delete.size()),
      [&](int i) {
        if (failed.load()) return;
        const api::Pod& victim = *to_delete[static_cast<std::size_t>(i)];
        Status s = preempt_pod ? preempt_pod(preemptor, victim)
                               : preempt_victim(fwk_, kPlugin, preemptor, "cluster", victim);
        if (!s.is_success()) {
          std::lock_guard l(mu);
          if (!failed.exchange(true)) first_error = s.message().empty() ? "error" : s.message();
        }
      },
      [&] { return failed.load(); });
  if (failed.load()) return Status::error(first_error);
  return {};
}

}  // namespace ksched::scheduler::framework::preemption
