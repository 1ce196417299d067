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
// Where v1.35's API differs from upstream's PodGroup object (choices documented in
// docs/architecture.md, "Gang scheduling in the scheduler"):
//  - the preemptor's priority is its members' lowest pod priority (a member never preempts what it
//    could not preempt alone); a gang victim's priority is its members' highest (a gang is evicted
//    only if every member is below the preemptor). Upstream reads the PodGroup's priority.
//  - the preemptor's policy is Never when any member's spec.preemptionPolicy is Never.
//  - every gang-policy group is a PodGroup-disruption-mode unit (v1.35 has no disruptionMode);
//    basic-group pods and pods without a group are single units.
// Not done: Reserve is not run for placed members in the simulation (stateful plugins such as DRA
// see each member alone), and the affinity lists of the private nodes are recomputed, not kept
// incrementally.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "scheduler/framework/preemption/preemption.h"
#include "scheduler/framework/runtime.h"

namespace ksched::scheduler::framework::preemption {

// A preemption unit (upstream victim): evicting it evicts all its pods.
struct VictimUnit {
  std::vector<PodInfoPtr> pods;
  std::int32_t priority = 0;
  bool is_group = false;
  std::int64_t earliest_start = 0;  // unix nanos; `now` for a pod not started
};

// Upstream moreImportantVictim: higher priority; then a group above a single pod; two single pods:
// the earlier start; two groups: more pods, then the earlier start.
bool more_important_victim(const VictimUnit& a, const VictimUnit& b);

// The unit key of a scheduled pod: empty for a pod that is a unit alone, else its gang's key (all
// scheduled pods with that key form one unit).
using UnitKeyFn = std::function<std::string(const api::Pod&)>;

// Every scheduled pod in `nodes` as units, in node order (a gang at its first pod's place).
std::vector<VictimUnit> collect_victim_units(const NodeInfoLister& nodes, const UnitKeyFn& unit_of,
                                             std::int64_t now_nanos);

struct GroupPreemptor {
  std::string group;                // its unit key: its own pods are never victims
  std::vector<PodPtr> members;      // unscheduled members, in the cycle's order
  int scheduled = 0;                // members already bound or assumed
  // The group's priority (lowest member priority) and whether any member says Never.
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
  PodGroupEvaluator(Framework& fwk, UnitKeyFn unit_of) : fwk_(fwk), unit_of_(std::move(unit_of)) {}

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
  UnitKeyFn unit_of_;
};

}  // namespace ksched::scheduler::framework::preemption
