// Workload-aware preemption's victim units and their order (upstream podgrouppreemption.go's
// moreImportantVictim and types.go's getWorkloadPreemptionVictims, v1.36). The end-to-end
// behaviour (placement, reprieval, eviction, binding) is tested through the pod-group cycle in
// tests/scheduler/pod_group_cycle_test.cpp.
#include "scheduler/framework/preemption/pod_group_preemption.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "scheduler_testing/testing.h"

namespace ksched::scheduler::framework::preemption {
namespace {

using testing::MakeNode;
using testing::MakePod;

PodInfoPtr pod_info(const std::string& name, std::int32_t priority, std::int64_t start_s) {
  api::Pod p = MakePod().Name(name).UID(name).Priority(priority).StartTime(api::Time{start_s * 1'000'000'000}).Obj();
  return PodInfo::make(std::make_shared<const api::Pod>(std::move(p)));
}

VictimUnit single(const std::string& name, std::int32_t priority, std::int64_t start_s) {
  return VictimUnit{{pod_info(name, priority, start_s)}, priority, false, start_s};
}

VictimUnit group(const std::string& name, int size, std::int32_t priority, std::int64_t start_s) {
  VictimUnit u{{}, priority, true, start_s};
  for (int i = 0; i < size; ++i) u.pods.push_back(pod_info(name + "-" + std::to_string(i), priority, start_s));
  return u;
}

// Upstream moreImportantVictim's rules, one per test.
TEST(MoreImportantVictim, HigherPriorityFirst) {
  EXPECT_TRUE(more_important_victim(single("a", 10, 5), single("b", 5, 1)));
  EXPECT_FALSE(more_important_victim(single("b", 5, 1), single("a", 10, 5)));
  EXPECT_TRUE(more_important_victim(single("a", 10, 5), group("g", 4, 5, 1)));
}

TEST(MoreImportantVictim, AtEqualPriorityAGroupBeforeASinglePod) {
  // Upstream "Priority: mix of no groups and pod groups": the single pod is the victim.
  EXPECT_TRUE(more_important_victim(group("g", 1, 5, 9), single("p", 5, 0)));
  EXPECT_FALSE(more_important_victim(single("p", 5, 0), group("g", 1, 5, 9)));
}

TEST(MoreImportantVictim, TwoSinglePodsByStartTime) {
  EXPECT_TRUE(more_important_victim(single("old", 5, 1), single("new", 5, 2)));
  EXPECT_FALSE(more_important_victim(single("new", 5, 2), single("old", 5, 1)));
}

TEST(MoreImportantVictim, TwoGroupsBySizeThenStartTime) {
  EXPECT_TRUE(more_important_victim(group("big", 4, 5, 9), group("small", 2, 5, 1)));
  EXPECT_TRUE(more_important_victim(group("old", 2, 5, 1), group("new", 2, 5, 2)));
  EXPECT_FALSE(more_important_victim(group("new", 2, 5, 2), group("old", 2, 5, 1)));
}

// getCrossNodesVictims: a gang's pods on every node are one unit (priority: its members' highest
// here, v1.35 having no PodGroup priority), every other pod a unit of its own.
TEST(CollectVictimUnits, AGangAcrossNodesIsOneUnitOtherPodsAreSingle) {
  std::vector<api::Pod> pods = {
      MakePod().Name("g-0").UID("g-0").Node("n1").Priority(3).StartTime(api::Time{7'000'000'000}).Obj(),
      MakePod().Name("p").UID("p").Node("n1").Priority(4).Obj(),
      MakePod().Name("g-1").UID("g-1").Node("n2").Priority(5).StartTime(api::Time{2'000'000'000}).Obj(),
      MakePod().Name("basic").UID("basic").Node("n2").Priority(1).Obj(),
  };
  testing::FakeSnapshot snap(pods, {MakeNode().Name("n1").Obj(), MakeNode().Name("n2").Obj()});
  auto unit_of = [](const api::Pod& p) {
    return p.metadata.name.view().substr(0, 2) == "g-" ? std::string("default/g") : std::string();
  };
  auto units = collect_victim_units(snap, unit_of, /*now_nanos=*/100'000'000'000);
  ASSERT_EQ(units.size(), 3u);
  auto gang = std::find_if(units.begin(), units.end(), [](const VictimUnit& u) { return u.is_group; });
  ASSERT_NE(gang, units.end());
  EXPECT_EQ(gang->pods.size(), 2u);
  EXPECT_EQ(gang->priority, 5);
  EXPECT_EQ(gang->earliest_start, 2'000'000'000);
  for (const auto& u : units) {
    if (!u.is_group) {
      EXPECT_EQ(u.pods.size(), 1u);
    }
  }
}

TEST(GroupPreemptor, PriorityIsTheLowestMembersAndNeverIfAnyMemberSaysSo) {
  std::vector<PodPtr> members = {
      std::make_shared<const api::Pod>(MakePod().Name("a").Priority(100).Obj()),
      std::make_shared<const api::Pod>(MakePod().Name("b").Priority(50).Obj()),
  };
  EXPECT_EQ(GroupPreemptor::priority_of(members), 50);
  EXPECT_FALSE(GroupPreemptor::never_preempts(members));
  members.push_back(std::make_shared<const api::Pod>(MakePod().Name("c").Priority(100).PreemptionPolicy("Never").Obj()));
  EXPECT_TRUE(GroupPreemptor::never_preempts(members));
}


// Upstream's newest MoreImportantVictim (victimRank) with NewPodVictim's typing: a PodGroup's pod
// going alone (disruptionMode single) ranks as a PodGroup, above a plain pod of equal priority
// even when the plain pod started earlier; against a whole group the larger unit wins.
TEST(MoreImportantVictim, APodGroupsSinglePodRanksAboveAPlainPod) {
  VictimUnit member = single("m", 5, 9);
  member.podGroupMember = true;
  EXPECT_TRUE(more_important_victim(member, single("p", 5, 0)));
  EXPECT_FALSE(more_important_victim(single("p", 5, 0), member));
  EXPECT_TRUE(more_important_victim(group("g", 2, 5, 9), member));
}

// getCrossNodesVictims with a PodGroup's fields: a group with its own priority is one unit at
// that priority whatever its pods say; a PodGroup's pod going alone keeps its group's priority.
TEST(CollectVictimUnits, AGroupsOwnPriorityIsTheUnitsAndASinglePodKeepsItsGroups) {
  std::vector<api::Pod> pods = {
      MakePod().Name("all-0").UID("all-0").Node("n1").Priority(900).Obj(),
      MakePod().Name("all-1").UID("all-1").Node("n2").Priority(1).Obj(),
      MakePod().Name("one-0").UID("one-0").Node("n2").Priority(900).Obj(),
  };
  testing::FakeSnapshot snap(pods, {MakeNode().Name("n1").Obj(), MakeNode().Name("n2").Obj()});
  VictimOfFn victim_of = [](const api::Pod& p) {
    if (p.metadata.name.view().substr(0, 4) == "all-") return VictimOf{"default/all", 7, true};
    return VictimOf{"", 3, true};
  };
  auto units = collect_victim_units(snap, victim_of, /*now_nanos=*/100'000'000'000);
  ASSERT_EQ(units.size(), 2u);
  auto whole = std::find_if(units.begin(), units.end(), [](const VictimUnit& u) { return u.is_group; });
  ASSERT_NE(whole, units.end());
  EXPECT_EQ(whole->pods.size(), 2u);
  EXPECT_EQ(whole->priority, 7);
  auto alone = std::find_if(units.begin(), units.end(), [](const VictimUnit& u) { return !u.is_group; });
  ASSERT_NE(alone, units.end());
  EXPECT_EQ(alone->priority, 3);
  EXPECT_TRUE(alone->podGroupMember);
}

// Upstream's TestMoreImportantVictim (util_test.go at 07e8c0a6): "CPG vs PG, same priority (CPG
// wins)", "CPG vs Pod, same priority (CPG wins)" and "CPG vs PG, PG higher priority (higher priority
// wins)". The rank comes before the size: a composite unit of one pod outranks a PodGroup of three.
TEST(MoreImportantVictim, ACompositePodGroupUnitRanksAboveAPodGroupUnitAndAPod) {
  VictimUnit cpg = group("c", 1, 10, 9);
  cpg.composite = true;
  EXPECT_TRUE(more_important_victim(cpg, group("g", 3, 10, 1)));
  EXPECT_FALSE(more_important_victim(group("g", 3, 10, 1), cpg));
  EXPECT_TRUE(more_important_victim(cpg, single("p", 10, 0)));
  VictimUnit member = single("m", 10, 0);
  member.podGroupMember = true;
  EXPECT_TRUE(more_important_victim(cpg, member));
  EXPECT_FALSE(more_important_victim(cpg, group("g", 1, 20, 9)));
  EXPECT_TRUE(more_important_victim(group("g", 1, 20, 9), cpg));
}

// getCrossNodesVictims / searchCrossNodesVictimPods: the unit of a composite with disruptionMode all
// (VictimOf::composite) gathers its pods across nodes and is typed CompositePodGroup.
TEST(CollectVictimUnits, ACompositesUnitIsTypedComposite) {
  std::vector<api::Pod> pods = {
      MakePod().Name("c-0").UID("c-0").Node("n1").Obj(),
      MakePod().Name("c-1").UID("c-1").Node("n2").Obj(),
      MakePod().Name("g-0").UID("g-0").Node("n2").Obj(),
  };
  testing::FakeSnapshot snap(pods, {MakeNode().Name("n1").Obj(), MakeNode().Name("n2").Obj()});
  VictimOfFn victim_of = [](const api::Pod& p) {
    if (p.metadata.name.view().substr(0, 2) == "c-") return VictimOf{"composite:default/c", 5, true, true};
    return VictimOf{"default/g", 5, true, false};
  };
  auto units = collect_victim_units(snap, victim_of, /*now_nanos=*/100'000'000'000);
  ASSERT_EQ(units.size(), 2u);
  auto c = std::find_if(units.begin(), units.end(), [](const VictimUnit& u) { return u.composite; });
  ASSERT_NE(c, units.end());
  EXPECT_EQ(c->pods.size(), 2u);
  EXPECT_TRUE(c->is_group);
  auto g = std::find_if(units.begin(), units.end(), [](const VictimUnit& u) { return !u.composite; });
  ASSERT_NE(g, units.end());
  EXPECT_EQ(g->pods.size(), 1u);
}

}  // namespace
}  // namespace ksched::scheduler::framework::preemption
