// Workload-aware preemption for a gang (KEP-5710; upstream v1.36's podgrouppreemption.go and
// types.go, gate WorkloadAwarePreemption, merged into GenericWorkload in v1.37). ksched runs it
// whenever the pod-group cycle runs (GangScheduling + GenericWorkload); there is no gate of its own.
//
// The preemptor is a whole group and the domain the whole cluster. Victims are units: a pod alone,
// or a gang with every one of its scheduled pods (a gang is never preempted below its minimum: it
// goes whole or not at all). Every unit of lower priority than the group is taken off a private
// copy of the nodes; the group is placed there (PreFilter, Filter, Score per member in the cycle's
// order, each placed member seen by the next, PlacementFeasible after each); if it cannot reach its
// minimum even then, preemption does not help. Otherwise units are reprieved one at a time, PDB-
// violating units first, each list most important first (more_important_victim), a unit staying
// only if every placed member still passes Filter on its node with it back. What is left is evicted.
//
// A CompositePodGroup tree preempts as one preemptor (GroupPreemptor::tree): it "fits" when the
// simulated tree placement makes its root feasible (every composite's minGroupCount of feasible
// children, every PodGroup's minCount), and only the members of that placement are nominated.
//
// Who is a unit, at what priority, and the preemptor's priority and policy come from the caller
// (scheduler/podgroup's VictimView and PreemptorView): for a PodGroup (v1.37's spec.schedulingGroup)
// its own priority, preemptionPolicy and disruptionMode, as upstream's newest code reads them; for a
// v1.35 workloadRef group, which has no such fields, ksched's choices (docs/architecture.md, "Gang
// scheduling in the scheduler"): the preemptor's priority is its members' lowest, a gang victim's
// its members' highest, Never when any member says so, every gang an evict-whole unit. When the
// caller gives nothing, those v1.35 choices apply (priority_of, never_preempts below).
// Not done: Reserve is not run for placed members in the simulation (stateful plugins such as DRA
// see each member alone), and the affinity lists of the private nodes are recomputed, not kept
// incrementally.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/framework/preemption/preemption.h"
#include "scheduler/framework/runtime.h"

namespace ksched::scheduler::framework::preemption {

// A preemption unit (upstream victim): evicting it evicts all its pods.
struct VictimUnit {
  std::vector<PodInfoPtr> pods;
  std::int32_t priority = 0;
  bool is_group = false;            // evicted whole (a gang, a PodGroup with disruptionMode all)
  std::int64_t earliest_start = 0;  // unix nanos; `now` for a pod not started
  bool podGroupMember = false;      // a PodGroup's pod going alone: ranks as a group (upstream)
  bool composite = false;           // a CompositePodGroup's unit (disruptionMode all above the PodGroups)
};

// Upstream's newest MoreImportantVictim (util.go at 1d54bff3, victimRank): higher priority; then the
// higher rank (a CompositePodGroup's unit 3, a PodGroup's unit or a PodGroup's pod going alone 2, a
// plain pod 1); then more pods; then the earlier start. (Upstream's last tie-break, the first pod's
// UID, is not applied: equal units keep their collection order.)
bool more_important_victim(const VictimUnit& a, const VictimUnit& b);

// How a scheduled pod is a victim: `unit` empty for a pod that is a unit alone, else its group's key
// (all scheduled pods with that key form one unit); `priority` the group's own priority when it has
// one (a PodGroup's), else unset: the pod's, or for a unit its pods' highest; `podGroupMember` as
// VictimUnit's; `composite` when `unit` is a CompositePodGroup's (ranks above a PodGroup's).
struct VictimOf {
  std::string unit;
  std::optional<std::int32_t> priority;
  bool podGroupMember = false;
  bool composite = false;
};
using VictimOfFn = std::function<VictimOf(const api::Pod&)>;
// The v1.35 form: only the unit key.
using UnitKeyFn = std::function<std::string(const api::Pod&)>;
VictimOfFn victim_of_unit_key(UnitKeyFn unit_of);

// Every scheduled pod in `nodes` as units, in node order (a gang at its first pod's place).
std::vector<VictimUnit> collect_victim_units(const NodeInfoLister& nodes, const VictimOfFn& victim_of,
                                             std::int64_t now_nanos);
inline std::vector<VictimUnit> collect_victim_units(const NodeInfoLister& nodes, const UnitKeyFn& unit_of,
                                                    std::int64_t now_nanos) {
  return collect_victim_units(nodes, victim_of_unit_key(unit_of), now_nanos);
}

// One group of a CompositePodGroup tree that preempts as a whole (gate CompositePodGroup; upstream's
// newPodGroupPreemptor over the composite's PodGroupInfo, whose feasibility is the tree's own
// placement): the simulation places the tree as the tree's cycle does (schedule_composite_pod_group.cpp),
// depth first, a PodGroup by PlacementFeasible over its members, a composite when `min` children are.
struct PreemptorTreeNode {
  int parent = -1;  // index into GroupPreemptor::tree; -1 for the root
  std::vector<int> children;
  bool composite = false;
  int min = 1;  // a composite's minGroupCount (1 for basic); a PodGroup's minCount (a PodGroup with
                // members asks PlacementFeasible instead)
  std::vector<std::size_t> members;  // a PodGroup's unscheduled members: indexes into GroupPreemptor::members
  int scheduled = 0;                 // a PodGroup's pods already bound or assumed
};

struct GroupPreemptor {
  std::string group;                // its unit key: its own pods are never victims
  std::vector<PodPtr> members;      // unscheduled members, in the cycle's order
  int scheduled = 0;                // members already bound or assumed (a single gang)
  // Empty: `members` are one gang. Otherwise the tree (nodes[0] its root) that must be feasible;
  // `scheduled` is then unused (each PodGroup node has its own).
  std::vector<PreemptorTreeNode> tree;
  // The group's priority and policy as the caller read them (a PodGroup's own); when unset, the
  // v1.35 choices below.
  std::optional<std::int32_t> priority;
  std::optional<bool> neverPreempts;
  // v1.35's choices: the lowest member priority, and Never when any member says so.
  static std::int32_t priority_of(const std::vector<PodPtr>& members);
  static bool never_preempts(const std::vector<PodPtr>& members);
};

struct GroupPreemptionResult {
  Status status;                   // Success: victims (maybe none needed) and nominations set
  std::vector<PodPtr> victims;     // most important unit first
  std::vector<std::string> nodes;  // per member (GroupPreemptor::members order), "" = not placed
  int victimUnits = 0;
  int pdbViolatingUnits = 0;
  // Not eligible because an earlier preemption's victim is still terminating on a member's
  // nominated node: the members keep their nominations (as a single pod's PostFilter leaves them).
  bool keepNominations = false;
};

inline constexpr std::string_view kNoVictims = "No preemption victims found for incoming preemptor";

class PodGroupEvaluator {
 public:
  PodGroupEvaluator(Framework& fwk, VictimOfFn victim_of) : fwk_(fwk), victim_of_(std::move(victim_of)) {}
  PodGroupEvaluator(Framework& fwk, UnitKeyFn unit_of) : fwk_(fwk), victim_of_(victim_of_unit_key(std::move(unit_of))) {}

  // Upstream selectVictimsOnDomain over `nodes` (the scheduler's up-to-date snapshot). The
  // framework's snapshot is pointed at a private copy while it runs and restored before it returns.
  GroupPreemptionResult select_victims(const GroupPreemptor& preemptor, const NodeInfoLister& nodes,
                                       const StorageInfoLister& storage);

  // Upstream actuatePodGroupPreemption (synchronous): every victim not already being deleted is
  // preempted (preempt_victim, kind "podgroup", node "cluster"), in parallel.
  Status actuate(const GroupPreemptionResult& r, const PreemptorRef& preemptor);

  // Replaceable in tests; defaults to preempt_victim.
  std::function<Status(const PreemptorRef&, const api::Pod& victim)> preempt_pod;

 private:
  Framework& fwk_;
  VictimOfFn victim_of_;
};

}  // namespace ksched::scheduler::framework::preemption
