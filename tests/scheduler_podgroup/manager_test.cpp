// The pod-group state: group keys, membership through adds/updates/deletes, policy lookup.
#include <gtest/gtest.h>

#include "scheduler/podgroup/manager.h"
#include "scheduler_testing/builders.h"
#include "scheduler_testing/workloads.h"

namespace ksched::scheduler::podgroup {
namespace {

namespace s1 = api::schedulingv1alpha1;

PodPtr member(const std::string& name, const std::string& workload, const std::string& group,
              const std::string& replica = "", const std::string& ns = "default") {
  return std::make_shared<const api::Pod>(
      testing::MakePod().Name(name).UID(name + "-uid").Namespace(ns).WorkloadRef(workload, group, replica).Obj());
}

WorkloadPtr workload(const std::string& name) { return testing::MakeGangWorkload(name, 3, /*with_basic_driver=*/true); }

TEST(PodGroupKey, NamesNamespaceWorkloadGroupAndReplica) {
  EXPECT_EQ(group_key(*member("a", "job", "workers", "r1")), "default/job/workers/r1");
  api::Pod plain;
  EXPECT_EQ(group_key(plain), "");
  EXPECT_TRUE(same_group(*member("a", "job", "workers"), *member("b", "job", "workers")));
  EXPECT_FALSE(same_group(*member("a", "job", "workers", "r1"), *member("b", "job", "workers", "r2")));
  EXPECT_FALSE(same_group(*member("a", "job", "workers"), *member("b", "job", "workers", "", "other")));
  EXPECT_FALSE(same_group(*member("a", "job", "workers"), plain));
}

TEST(PodGroupManager, CountsMembersByGroupAcrossAddsUpdatesAndDeletes) {
  Manager m;
  auto a = member("a", "job", "workers");
  auto b = member("b", "job", "workers");
  auto other = member("c", "job", "workers", "r2");
  m.on_pod_add(a);
  m.on_pod_add(b);
  m.on_pod_add(other);
  const std::string key = group_key(*a);
  EXPECT_EQ(m.all_pods_count(key), 2u);
  EXPECT_EQ(m.all_pods_count(group_key(*other)), 1u);
  // An update (the binding) keeps the count and shows the new object.
  auto bound = std::make_shared<api::Pod>(*a);
  bound->spec.nodeName = "n1";
  m.on_pod_update(a, bound);
  EXPECT_EQ(m.all_pods_count(key), 2u);
  int assigned = 0;
  for (const auto& p : m.pods(key)) assigned += !p->spec.nodeName.empty();
  EXPECT_EQ(assigned, 1);
  m.on_pod_delete(bound);
  m.on_pod_delete(b);
  EXPECT_EQ(m.all_pods_count(key), 0u);
  EXPECT_EQ(m.group_count(), 1u);  // empty groups are dropped
}

TEST(PodGroupManager, PolicyComesFromTheWorkloadsPodGroup) {
  Manager m;
  EXPECT_EQ(m.policy(*member("a", "job", "workers")).kind, Policy::Kind::NoWorkload);
  m.on_workload_add(workload("job"));
  auto p = m.policy(*member("a", "job", "workers"));
  EXPECT_EQ(p.kind, Policy::Kind::Gang);
  EXPECT_EQ(p.minCount, 3);
  EXPECT_EQ(m.policy(*member("a", "job", "driver")).kind, Policy::Kind::Basic);
  EXPECT_EQ(m.policy(*member("a", "job", "nope")).kind, Policy::Kind::NoPodGroup);
  m.on_workload_delete(workload("job"));
  EXPECT_EQ(m.policy(*member("a", "job", "workers")).kind, Policy::Kind::NoWorkload);
}

PodPtr pg_member(const std::string& name, const std::string& pod_group, const std::string& ns = "default") {
  return std::make_shared<const api::Pod>(
      testing::MakePod().Name(name).UID(name + "-uid").Namespace(ns).PodGroupName(pod_group).Obj());
}

// v1.37: a pod names its PodGroup by spec.schedulingGroup.podGroupName, in its own namespace
// (upstream fwk.PodGroupKey(namespace, name)).
TEST(PodGroupKey, SchedulingGroupNamesNamespaceAndPodGroup) {
  EXPECT_EQ(group_key(*pg_member("a", "pg")), "default/pg");
  EXPECT_TRUE(has_group(*pg_member("a", "pg")));
  EXPECT_TRUE(same_group(*pg_member("a", "pg"), *pg_member("b", "pg")));
  EXPECT_FALSE(same_group(*pg_member("a", "pg"), *pg_member("b", "pg2")));
  EXPECT_FALSE(same_group(*pg_member("a", "pg"), *pg_member("b", "pg", "other")));
  // A PodGroup member and a workloadRef member are never one group.
  EXPECT_FALSE(same_group(*pg_member("a", "pg"), *member("b", "pg", "workers")));
  api::Pod plain;
  EXPECT_FALSE(has_group(plain));
  // schedulingGroup wins over workloadRef (upstream v1.36+ reads only schedulingGroup).
  api::Pod both = testing::MakePod().Name("x").WorkloadRef("job", "workers").PodGroupName("pg").Obj();
  EXPECT_EQ(group_key(both), "default/pg");
  EXPECT_TRUE(same_group(both, *pg_member("a", "pg")));
  EXPECT_FALSE(same_group(both, *member("a", "job", "workers")));
}

// v1.37's PodGroup policy (schedulingPolicy basic / gang{minCount}), minCount mutable by update.
TEST(PodGroupManager, PolicyComesFromThePodGroupObject) {
  Manager m;
  auto a = pg_member("a", "pg");
  EXPECT_EQ(m.policy(*a).kind, Policy::Kind::NoWorkload);  // no PodGroup yet
  m.on_pod_group_add(testing::MakePodGroup("pg", 4));
  auto p = m.policy(*a);
  EXPECT_EQ(p.kind, Policy::Kind::Gang);
  EXPECT_EQ(p.minCount, 4);
  m.on_pod_group_update(testing::MakePodGroup("pg", 2));
  EXPECT_EQ(m.policy(*a).minCount, 2);
  m.on_pod_group_add(testing::MakePodGroup("basic", 0));
  EXPECT_EQ(m.policy(*pg_member("b", "basic")).kind, Policy::Kind::Basic);
  // Another namespace's PodGroup of the same name is not the pod's.
  EXPECT_EQ(m.policy(*pg_member("c", "pg", "other")).kind, Policy::Kind::NoWorkload);
  ASSERT_NE(m.pod_group("default", "pg"), nullptr);
  m.on_pod_group_delete(testing::MakePodGroup("pg", 2));
  EXPECT_EQ(m.policy(*a).kind, Policy::Kind::NoWorkload);
  EXPECT_EQ(m.pod_group("default", "pg"), nullptr);
  // A pod with both fields takes its PodGroup's policy, not its Workload's.
  m.on_workload_add(workload("job"));  // workers: gang of 3
  m.on_pod_group_add(testing::MakePodGroup("pg", 5));
  api::Pod both = testing::MakePod().Name("x").WorkloadRef("job", "workers").PodGroupName("pg").Obj();
  EXPECT_EQ(m.policy(both).minCount, 5);
}

TEST(PodGroupManager, CountsPodGroupMembersAcrossAddsAndDeletes) {
  Manager m;
  auto a = pg_member("a", "pg"), b = pg_member("b", "pg"), c = pg_member("c", "pg", "other");
  m.on_pod_add(a);
  m.on_pod_add(b);
  m.on_pod_add(c);
  EXPECT_EQ(m.all_pods_count("default/pg"), 2u);
  EXPECT_EQ(m.all_pods_count("other/pg"), 1u);
  m.on_pod_delete(a);
  EXPECT_EQ(m.all_pods_count("default/pg"), 1u);
}


// Workload-aware preemption's reading of a PodGroup (upstream's newest getPodPriority,
// getHighestAllAncestor, NewPodVictim, util.PodGroupPriority): its priority (0 when unset), one
// unit with disruptionMode all, alone otherwise; the pod's own priority while the PodGroup is not
// known. A workloadRef gang keeps v1.35's reading.
TEST(PodGroupManager, VictimViewReadsThePodGroupsPriorityAndDisruptionMode) {
  Manager m;
  auto pg_member = [](const std::string& name, const std::string& pg) {
    return std::make_shared<const api::Pod>(testing::MakePod().Name(name).UID(name).PodGroupName(pg).Priority(42).Obj());
  };
  auto all = std::make_shared<api::schedulingv1beta1::PodGroup>(*testing::MakePodGroup("all", 2));
  all->spec.priority = 7;
  all->spec.disruptionMode.emplace().all.emplace();
  m.on_pod_group_add(all);
  auto single = std::make_shared<api::schedulingv1beta1::PodGroup>(*testing::MakePodGroup("single", 2));
  single->spec.disruptionMode.emplace().single.emplace();
  m.on_pod_group_add(single);

  VictimView v = m.victim_view(*pg_member("a", "all"));
  EXPECT_EQ(v.unit, "default/all");
  EXPECT_EQ(v.priority, 7);
  EXPECT_TRUE(v.groupMember);
  v = m.victim_view(*pg_member("s", "single"));
  EXPECT_EQ(v.unit, "");
  EXPECT_EQ(v.priority, 0);  // unset: util.PodGroupPriority's 0, not the pod's 42
  EXPECT_TRUE(v.groupMember);
  v = m.victim_view(*pg_member("x", "missing"));
  EXPECT_EQ(v.unit, "");
  EXPECT_FALSE(v.priority.has_value());  // the pod's own
  EXPECT_TRUE(v.groupMember);

  m.on_workload_add(workload("job"));
  v = m.victim_view(*member("w", "job", "workers"));
  EXPECT_EQ(v.unit, "default/job/workers/");
  EXPECT_FALSE(v.priority.has_value());
  EXPECT_FALSE(v.groupMember);
  EXPECT_EQ(m.victim_view(*member("d", "job", "driver")).unit, "");  // basic: alone
}

// newPodGroupPreemptor / resolvePreemptionPolicy: a PodGroup's priority; its preemptionPolicy with
// PodGroupPreemptionPolicy on (unset: PreemptLowerPriority), its members' Never with the gate off;
// a workloadRef group: its members' lowest priority and any member's Never.
TEST(PodGroupManager, PreemptorViewReadsThePodGroupsPriorityAndPolicy) {
  Manager m;
  auto pg = std::make_shared<api::schedulingv1beta1::PodGroup>(*testing::MakePodGroup("pg", 2));
  pg->spec.priority = 1000;
  pg->spec.preemptionPolicy = "Never";
  m.on_pod_group_add(pg);
  std::vector<PodPtr> members = {
      std::make_shared<const api::Pod>(testing::MakePod().Name("a").PodGroupName("pg").Priority(5).Obj()),
      std::make_shared<const api::Pod>(testing::MakePod().Name("b").PodGroupName("pg").Obj()),
  };
  PreemptorView v = m.preemptor_view(members, /*pod_group_preemption_policy=*/true);
  EXPECT_EQ(v.priority, 1000);
  EXPECT_TRUE(v.never);
  v = m.preemptor_view(members, false);
  EXPECT_EQ(v.priority, 1000);
  EXPECT_FALSE(v.never);  // the field is not read; no member says Never
  members.push_back(std::make_shared<const api::Pod>(
      testing::MakePod().Name("c").PodGroupName("pg").PreemptionPolicy("Never").Obj()));
  EXPECT_TRUE(m.preemptor_view(members, false).never);
  pg = std::make_shared<api::schedulingv1beta1::PodGroup>(*pg);
  pg->spec.preemptionPolicy.reset();
  m.on_pod_group_update(pg);
  EXPECT_FALSE(m.preemptor_view(members, true).never);  // unset: PreemptLowerPriority

  std::vector<PodPtr> wl = {
      std::make_shared<const api::Pod>(testing::MakePod().Name("x").WorkloadRef("job", "workers").Priority(30).Obj()),
      std::make_shared<const api::Pod>(testing::MakePod().Name("y").WorkloadRef("job", "workers").Priority(20).Obj()),
  };
  v = m.preemptor_view(wl, true);
  EXPECT_EQ(v.priority, 20);
  EXPECT_FALSE(v.never);
}

// ---- CompositePodGroups (Manager with hierarchies: gate CompositePodGroup)

namespace sa3 = api::schedulingv1alpha3;
namespace sb1 = api::schedulingv1beta1;

CompositePodGroupPtr composite(const std::string& name, const std::string& parent, int min_group_count,
                               std::optional<std::int32_t> priority = std::nullopt, bool disrupt_all = false) {
  auto c = std::make_shared<sa3::CompositePodGroup>();
  c->metadata.namespace_ = "default";
  c->metadata.name = name;
  if (!parent.empty()) c->spec.parentCompositePodGroupName = parent;
  if (min_group_count > 0) {
    c->spec.schedulingPolicy.gang.emplace().minGroupCount = min_group_count;
  } else {
    c->spec.schedulingPolicy.basic.emplace();
  }
  c->spec.priority = priority;
  if (disrupt_all) c->spec.disruptionMode.emplace().all.emplace();
  return c;
}

PodGroupPtr child(const std::string& name, const std::string& parent, int min_count,
                  std::optional<std::int32_t> priority = std::nullopt, bool disrupt_all = false) {
  auto pg = std::make_shared<sb1::PodGroup>(*testing::MakePodGroup(name, min_count));
  if (!parent.empty()) pg->spec.parentCompositePodGroupName = parent;
  pg->spec.priority = priority;
  if (disrupt_all) pg->spec.disruptionMode.emplace().all.emplace();
  return pg;
}

PodPtr pg_pod(const std::string& name, const std::string& pod_group) {
  return std::make_shared<const api::Pod>(testing::MakePod().Name(name).UID(name).PodGroupName(pod_group).Obj());
}

// The tree the pod-group cycle walks: the root first, every group whose parent is in it, a
// composite's minGroupCount and a PodGroup's minCount (1 for basic, upstream getMinCount); groups
// of another tree or namespace left out; nothing for a root that is not a known composite.
TEST(PodGroupManager, TreeListsEveryGroupUnderTheRoot) {
  Manager m(/*hierarchies=*/true);
  m.on_composite_add(composite("root", "", 2));
  m.on_composite_add(composite("sub", "root", 0));
  m.on_pod_group_add(child("a", "sub", 3));
  m.on_pod_group_add(child("b", "root", 0));
  m.on_pod_group_add(child("other", "elsewhere", 1));
  m.on_pod_group_add(child("alone", "", 1));
  auto t = m.tree(HierarchyKey::composite("default", "root"));
  ASSERT_TRUE(t);
  ASSERT_EQ(t->nodes.size(), 4u);
  EXPECT_EQ(t->nodes[0].key, HierarchyKey::composite("default", "root"));
  EXPECT_EQ(t->nodes[0].min, 2);
  EXPECT_EQ(t->nodes[0].parent, -1);
  ASSERT_EQ(t->nodes[0].children.size(), 2u);
  const auto& sub = t->nodes[static_cast<std::size_t>(t->nodes[0].children[0])];
  EXPECT_EQ(sub.key, HierarchyKey::composite("default", "sub"));
  EXPECT_EQ(sub.min, 1);
  const auto& b = t->nodes[static_cast<std::size_t>(t->nodes[0].children[1])];
  EXPECT_EQ(b.key, HierarchyKey::pod_group("default", "b"));
  EXPECT_EQ(b.min, 1);
  ASSERT_EQ(sub.children.size(), 1u);
  const auto& a = t->nodes[static_cast<std::size_t>(sub.children[0])];
  EXPECT_EQ(a.key, HierarchyKey::pod_group("default", "a"));
  EXPECT_EQ(a.min, 3);
  EXPECT_TRUE(a.podGroup);
  EXPECT_FALSE(m.tree(HierarchyKey::composite("default", "sub-missing")));
  EXPECT_FALSE(m.tree(HierarchyKey::pod_group("default", "a")));
}

// The tree follows its groups as they come and go (the manager keeps each composite's children
// indexed): a deleted PodGroup or composite leaves it, one added again (here in another parent)
// rejoins where it now belongs, and an update keeps one entry.
TEST(PodGroupManager, TreeFollowsGroupsAddedUpdatedAndDeleted) {
  Manager m(/*hierarchies=*/true);
  m.on_composite_add(composite("root", "", 1));
  m.on_composite_add(composite("sub", "root", 1));
  m.on_pod_group_add(child("a", "root", 1));
  m.on_pod_group_add(child("b", "sub", 1));
  auto names = [&] {
    std::vector<std::string> out;
    if (auto t = m.tree(HierarchyKey::composite("default", "root")))
      for (const auto& n : t->nodes) out.push_back(n.key.name);
    return out;
  };
  EXPECT_EQ(names(), (std::vector<std::string>{"root", "sub", "a", "b"}));
  m.on_pod_group_update(child("a", "root", 2));
  EXPECT_EQ(names(), (std::vector<std::string>{"root", "sub", "a", "b"}));
  m.on_pod_group_delete(child("a", "root", 2));
  EXPECT_EQ(names(), (std::vector<std::string>{"root", "sub", "b"}));
  m.on_pod_group_add(child("a", "sub", 1));
  EXPECT_EQ(names(), (std::vector<std::string>{"root", "sub", "a", "b"}));
  m.on_composite_delete(composite("sub", "root", 1));
  EXPECT_EQ(names(), (std::vector<std::string>{"root"}));
}

// hierarchy_of: a PodGroup under a composite resolves its root through the tracker (and whether
// the root's quorum is met); a PodGroup with no parent, or without the gate, is not in a hierarchy.
TEST(PodGroupManager, HierarchyOfFindsTheRootAndItsQuorum) {
  Manager m(/*hierarchies=*/true);
  m.on_pod_group_add(child("a", "root", 1));
  m.on_pod_group_add(child("alone", "", 1));
  auto pa = pg_pod("pa", "a");
  m.on_pod_add(pa);
  auto at = m.hierarchy_of(*pa);
  EXPECT_TRUE(at.in_hierarchy);
  EXPECT_FALSE(at.root);  // the parent has not arrived
  EXPECT_EQ(at.parent, "root");
  m.on_composite_add(composite("root", "", 1));
  at = m.hierarchy_of(*pa);
  ASSERT_TRUE(at.root);
  EXPECT_EQ(at.root->key, HierarchyKey::composite("default", "root"));
  EXPECT_TRUE(at.root->ready);
  EXPECT_FALSE(m.hierarchy_of(*pg_pod("x", "alone")).in_hierarchy);
  Manager off;
  off.on_pod_group_add(child("a", "root", 1));
  EXPECT_FALSE(off.hierarchy_of(*pa).in_hierarchy);
}

// Upstream getPodPriority and getHighestAllAncestor (framework/preemption util.go and types.go):
// a victim's priority is its root's, its unit the highest group with disruptionMode all.
TEST(PodGroupManager, VictimViewTakesPriorityAndDisruptionModeFromTheHighestAncestor) {
  Manager m(/*hierarchies=*/true);
  m.on_composite_add(composite("root", "", 1, 500, /*disrupt_all=*/false));
  m.on_composite_add(composite("mid", "root", 1, 300, /*disrupt_all=*/true));
  m.on_pod_group_add(child("leaf", "mid", 1, 100, /*disrupt_all=*/true));
  m.on_pod_group_add(child("single", "root", 1, 100, /*disrupt_all=*/false));
  auto v = m.victim_view(*pg_pod("p", "leaf"));
  EXPECT_EQ(v.priority, 500);
  EXPECT_EQ(v.unit, "composite:default/mid");  // mid is the highest with all (root is single)
  EXPECT_TRUE(v.composite);                     // upstream CompositePodGroupKeyType: victimRank 3
  EXPECT_TRUE(v.groupMember);
  v = m.victim_view(*pg_pod("q", "single"));
  EXPECT_EQ(v.priority, 500);
  EXPECT_EQ(v.unit, "");
  // A gap: the parent is not known, so the walk stops at the PodGroup (its own fields).
  m.on_pod_group_add(child("orphan", "missing", 1, 7, /*disrupt_all=*/true));
  v = m.victim_view(*pg_pod("r", "orphan"));
  EXPECT_EQ(v.priority, 7);
  EXPECT_EQ(v.unit, "default/orphan");
  EXPECT_FALSE(v.composite);  // a PodGroup's unit: PodGroupKeyType
  // Without the gate the composites are not read.
  Manager off;
  off.on_pod_group_add(child("leaf", "mid", 1, 100, /*disrupt_all=*/false));
  v = off.victim_view(*pg_pod("p", "leaf"));
  EXPECT_EQ(v.priority, 100);
  EXPECT_EQ(v.unit, "");
}

// The preemptor side under CompositePodGroups (upstream newPodGroupPreemptor over a composite's
// PodGroupInfo: CompositePodGroupPriority and resolveCompositePreemptionPolicy; the cases of
// TestNewPodGroupPreemptorResolvesPreemptionPolicy for a CompositePodGroup): the tree's root gives
// the priority (not the PodGroup's nor the pods'), and with PodGroupPreemptionPolicy its policy
// (unset: PreemptLowerPriority even when a pod says Never); without the gate any pod's Never.
TEST(PodGroupManager, PreemptorViewUnderACompositeTakesTheRootsPriorityAndPolicy) {
  Manager m(/*hierarchies=*/true);
  auto root = composite("root", "", 1, 700);
  m.on_composite_add(root);
  m.on_composite_add(composite("mid", "root", 1, 300));
  m.on_pod_group_add(child("leaf", "mid", 1, 2000));
  std::vector<PodPtr> members = {
      std::make_shared<const api::Pod>(testing::MakePod().Name("a").PodGroupName("leaf").Priority(5).Obj()),
      std::make_shared<const api::Pod>(
          testing::MakePod().Name("b").PodGroupName("leaf").PreemptionPolicy("Never").Obj()),
  };
  PreemptorView v = m.preemptor_view(members, /*pod_group_preemption_policy=*/true);
  EXPECT_EQ(v.priority, 700);
  EXPECT_FALSE(v.never);  // the root sets none: PreemptLowerPriority, the pod's Never not read
  EXPECT_TRUE(m.preemptor_view(members, false).never);  // gate off: any pod's Never
  auto never_root = std::make_shared<sa3::CompositePodGroup>(*root);
  never_root->spec.preemptionPolicy = "Never";
  m.on_composite_update(never_root);
  EXPECT_TRUE(m.preemptor_view(members, true).never);
  members.pop_back();
  EXPECT_FALSE(m.preemptor_view(members, false).never);  // gate off: the root's field is not read
  // A gap (the parent missing): the last group reached, here the PodGroup, preempts.
  m.on_pod_group_add(child("orphan", "missing", 1, 42));
  std::vector<PodPtr> orphans = {
      std::make_shared<const api::Pod>(testing::MakePod().Name("o").PodGroupName("orphan").Obj())};
  EXPECT_EQ(m.preemptor_view(orphans, true).priority, 42);
  // Without the gate the composites are not read: the PodGroup's own priority.
  Manager off;
  off.on_pod_group_add(child("leaf", "mid", 1, 2000));
  EXPECT_EQ(off.preemptor_view(members, true).priority, 2000);
}

}  // namespace
}  // namespace ksched::scheduler::podgroup
