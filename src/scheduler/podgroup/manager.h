// The scheduler's pod-group state (workload-aware scheduling, issue #44): which Workloads exist,
// which pods belong to each pod group, and what a group's policy asks. The queue's PreEnqueue
// (GangScheduling), the pod-group cycle (Scheduler::schedule_pod_group) and its PlacementFeasible
// check read it; the informers' handlers feed it.
//
// Upstream: v1.35's backend/workloadmanager (PodGroupInfo: all pods of a group, keyed by the pod's
// workloadRef), and v1.36+'s backend/cache/podgroupstate.go (a group's pods and how many are
// scheduled). A pod names its group one of two ways:
//  - v1.37's spec.schedulingGroup.podGroupName: the scheduling.k8s.io/v1beta1 PodGroup of that name
//    in the pod's namespace, whose spec.schedulingPolicy is the group's policy (key "<ns>/<name>");
//  - v1.35's spec.workloadRef: the Workload, its pod group and replica key; the policy is the
//    Workload's spec.podGroups entry (key "<ns>/<workload>/<podGroup>/<replicaKey>").
// A pod with both belongs to its PodGroup: upstream v1.36+ reads only schedulingGroup (workloadRef
// is gone from its pod), so the newer field wins. The two key shapes never collide (names hold no
// '/').
//
// Thread-safe: the handlers run on informer threads, PreEnqueue inside the queue's lock, the
// pod-group cycle on the scheduling thread. Lock order: the queue's lock, then this one (never
// call into the queue while holding it).
#pragma once
#include <atomic>
#include <cstdint>
#include <map>
#include <set>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/core.h"
#include "api/scheduling.h"
#include "scheduler/podgroup/hierarchy.h"

namespace ksched::scheduler::podgroup {

using PodPtr = std::shared_ptr<const api::Pod>;
using WorkloadPtr = std::shared_ptr<const api::schedulingv1alpha1::Workload>;
using PodGroupPtr = std::shared_ptr<const api::schedulingv1beta1::PodGroup>;
using CompositePodGroupPtr = std::shared_ptr<const api::schedulingv1alpha3::CompositePodGroup>;

// A CompositePodGroup hierarchy as the pod-group cycle walks it (gate CompositePodGroup): the root
// composite first, then breadth-first every group whose parent is in the tree, in one namespace.
// A node's minimum is its gang's minCount (PodGroup) or minGroupCount (CompositePodGroup), 1 for a
// basic policy (upstream getMinCount).
struct TreeNode {
  HierarchyKey key;
  int parent = -1;  // index into Tree::nodes; -1 for the root
  std::vector<int> children;
  int min = 1;
  PodGroupPtr podGroup;             // Kind::PodGroup
  CompositePodGroupPtr composite;   // Kind::CompositePodGroup
};
struct Tree {
  std::vector<TreeNode> nodes;  // nodes[0] is the root
};

// The PodGroup object the pod names (spec.schedulingGroup.podGroupName), or null.
const std::string* pod_group_name(const api::Pod& pod);
// Whether the pod names a group at all (schedulingGroup or workloadRef): two null checks.
bool has_group(const api::Pod& pod);
// The group a pod belongs to: "<namespace>/<podGroupName>" or
// "<namespace>/<workload>/<podGroup>/<replicaKey>", or empty for a pod naming no group (the
// common case: null checks, no allocation).
std::string group_key(const api::Pod& pod);
// The group_key of the pods naming PodGroup `name` in namespace `ns` (spec.schedulingGroup).
std::string pod_group_key(std::string_view ns, std::string_view name);
// Whether two pods belong to one group (group_key(a) == group_key(b), both non-empty), without
// building the keys.
bool same_group(const api::Pod& a, const api::Pod& b);

// What the pod's group asks for, from its PodGroup or its Workload. NoWorkload: the object the
// pod names (its PodGroup, or its Workload) is not known; NoPodGroup: the Workload has no pod
// group of that name (workloadRef only).
struct Policy {
  enum class Kind { NoWorkload, NoPodGroup, Basic, Gang } kind = Kind::NoWorkload;
  std::int32_t minCount = 0;  // Gang only
};

// Workload-aware preemption's reading of a scheduled pod as a possible victim. For a PodGroup
// member it follows upstream's newest framework/preemption (types.go getHighestAllAncestor and
// NewPodVictim, util.go getPodPriority, GenericPodGroup's GetPriority and HasDisruptionModeAll,
// util.PodGroupPriority), for a PodGroup without a parent (no CompositePodGroups here):
//  - priority: the PodGroup's spec.priority, 0 when unset; the pod's own while the PodGroup is
//    not known (upstream falls back to the pod's when the lister has no such PodGroup);
//  - unit: "<ns>/<name>" (every scheduled pod of the group together) when spec.disruptionMode is
//    `all`, else the pod alone (`single`, the API's default, or the PodGroup not known);
//  - groupMember: true (upstream types any pod with spec.schedulingGroup as a PodGroup victim, which
//    ranks it above a plain pod of equal priority, even when it goes alone).
// With hierarchies (gate CompositePodGroup) a PodGroup under CompositePodGroups takes, as upstream's
// getPodPriority and getHighestAllAncestor (traverseHierarchyUp, at most WorkloadMaxTreeDepth
// levels, stopping at a missing parent): the priority of the highest group reached, and as unit
// the highest group with disruptionMode all ("composite:<ns>/<name>" for a CompositePodGroup: all
// of its tree's scheduled pods together), `composite` set: it ranks above a PodGroup's unit
// (upstream victimRank, util.go at 1d54bff3).
// A workloadRef member keeps v1.35's choices (no PodGroup object): a gang's scheduled pods are one
// unit whose priority is its members' highest (priority unset here), a basic group's pods go
// alone; groupMember false. A pod naming no group: all empty.
struct VictimView {
  std::string unit;
  std::optional<std::int32_t> priority;
  bool groupMember = false;
  bool composite = false;  // `unit` is a CompositePodGroup's
};

// The preemptor's side (upstream newPodGroupPreemptor / resolvePreemptionPolicy). For a group whose
// members name a known PodGroup: its priority (0 when unset); preemptionPolicy Never from the
// PodGroup's spec.preemptionPolicy when the PodGroupPreemptionPolicy gate is on (unset means
// PreemptLowerPriority), else when any member's spec.preemptionPolicy is Never. For a workloadRef
// group (or a PodGroup not known): v1.35's choices, the members' lowest priority and Never when
// any member says so.
// With hierarchies (gate CompositePodGroup) and the PodGroup under CompositePodGroups, the group that
// preempts is the highest reached going up (the root of the tree the cycle places; upstream's
// newPodGroupPreemptor over the composite's PodGroupInfo, CompositePodGroupPriority and
// resolveCompositePreemptionPolicy, the same walk as getPodPriority's): its priority (0 when unset)
// and, with PodGroupPreemptionPolicy, its preemptionPolicy (Never only when it says Never); without
// the gate any member's Never, as for a PodGroup.
struct PreemptorView {
  std::int32_t priority = 0;
  bool never = false;
};

class Manager {
 public:
  // `hierarchies`: the CompositePodGroup gate; with it the manager keeps the CompositePodGroups and
  // a HierarchyTracker fed from every pod, PodGroup and CompositePodGroup event.
  explicit Manager(bool hierarchies = false) : hierarchies_(hierarchies) {}
  bool hierarchies() const { return hierarchies_; }

  // ---- fed by the informers (any thread)
  void on_composite_add(const CompositePodGroupPtr& cpg);
  void on_composite_update(const CompositePodGroupPtr& cpg) { on_composite_add(cpg); }
  void on_composite_delete(const CompositePodGroupPtr& cpg);
  void on_workload_add(const WorkloadPtr& w);
  void on_workload_update(const WorkloadPtr& w);
  void on_workload_delete(const WorkloadPtr& w);
  void on_pod_group_add(const PodGroupPtr& pg);
  void on_pod_group_update(const PodGroupPtr& pg);
  void on_pod_group_delete(const PodGroupPtr& pg);
  // Any pod naming a group (has_group), assigned or not (the pod informer's every event).
  void on_pod_add(const PodPtr& pod);
  void on_pod_update(const PodPtr& old_pod, const PodPtr& new_pod);
  void on_pod_delete(const PodPtr& pod);

  // ---- read
  Policy policy(const api::Pod& pod) const;
  // The Workload the pod names, or null.
  WorkloadPtr workload(std::string_view ns, std::string_view name) const;
  // The PodGroup object of that name, or null.
  PodGroupPtr pod_group(std::string_view ns, std::string_view name) const;
  // The CompositePodGroup of that name, or null.
  CompositePodGroupPtr composite(std::string_view ns, std::string_view name) const;
  // Ready-children counts (hierarchies only; empty without them).
  const HierarchyTracker& hierarchy() const { return tracker_; }
  // The pod's place in a hierarchy (hierarchies on, the pod's PodGroup known and naming a parent):
  // the root group above it (upstream GetRootGroup), null while a group on the way is missing.
  // `in_hierarchy` false: the pod's PodGroup is not under a CompositePodGroup (or not known), and
  // the pod is a plain PodGroup member.
  struct HierarchyPosition {
    bool in_hierarchy = false;
    std::optional<HierarchyTracker::Root> root;
    std::string parent;  // the PodGroup's parentCompositePodGroupName
  };
  HierarchyPosition hierarchy_of(const api::Pod& pod) const;
  // The groups under the root composite `root` (HierarchyKey of a CompositePodGroup), at most
  // WorkloadMaxTreeDepth levels; nullopt when the root is not a known CompositePodGroup.
  std::optional<Tree> tree(const HierarchyKey& root) const;
  // The queue's order for the PodGroup's members (upstream util.PodGroupPriority): its spec.priority,
  // 0 when unset; nullopt while the PodGroup is not known.
  std::optional<std::int32_t> pod_group_priority(std::string_view ns, std::string_view name) const;
  // Workload-aware preemption's reading of a pod as a victim, and of a group as the preemptor
  // (VictimView, PreemptorView above).
  VictimView victim_view(const api::Pod& pod) const;
  PreemptorView preemptor_view(const std::vector<PodPtr>& members, bool pod_group_preemption_policy) const;
  // How many pods of the group exist (unscheduled and assigned): PreEnqueue's quorum.
  std::size_t all_pods_count(const std::string& key) const;
  // The group's pods as the informer last showed them (assigned ones have spec.nodeName).
  std::vector<PodPtr> pods(const std::string& key) const;
  std::size_t group_count() const;
  // Changes whenever a pod joins or leaves any group: what a caller derived from the counts above
  // is still true while it has not changed.
  std::uint64_t membership_version() const { return membership_version_.load(std::memory_order_acquire); }

 private:
  struct Group {
    std::unordered_map<std::string, PodPtr> pods;  // by uid
  };
  // Calls fn(key, spec) for each CompositePodGroup above the PodGroup `pg` (in namespace `ns`),
  // parent first, at most WorkloadMaxTreeDepth levels, stopping at a missing parent (upstream
  // traverseHierarchyUp above the PodGroup). Caller holds mu_.
  template <typename Fn>
  void walk_up_locked(std::string_view ns, const api::schedulingv1beta1::PodGroup& pg, Fn&& fn) const;
  mutable std::mutex mu_;
  std::map<std::string, WorkloadPtr, std::less<>> workloads_;  // "<ns>/<name>"
  std::map<std::string, PodGroupPtr, std::less<>> pod_groups_;  // "<ns>/<name>"
  std::unordered_map<std::string, Group> groups_;
  std::map<std::string, CompositePodGroupPtr, std::less<>> composites_;  // "<ns>/<name>"
  // With hierarchies: the children of each CompositePodGroup, "<ns>/<parent>" -> child keys in
  // name order, kept as objects come and go so that tree() reads only the tree's own groups.
  using ChildIndex = std::map<std::string, std::set<std::string, std::less<>>, std::less<>>;
  ChildIndex composite_children_, pod_group_children_;
  // Moves `key` from the child set of `old_parent` to that of `new_parent` (either may be null).
  static void reindex_child(ChildIndex& index, std::string_view ns, const std::string& key,
                            const std::optional<std::string>* old_parent, const std::optional<std::string>* new_parent);
  const bool hierarchies_ = false;
  HierarchyTracker tracker_;  // its own lock; fed only with hierarchies_
  std::atomic<std::uint64_t> membership_version_{0};
};

}  // namespace ksched::scheduler::podgroup
