// GangScheduling: PreEnqueue's quorum gate and messages (v1.35's), PlacementFeasible (v1.36+'s),
// and the queueing hints of its two events.
#include <gtest/gtest.h>

#include <algorithm>

#include "scheduler/plugins/gangscheduling/gangscheduling.h"
#include "scheduler/podgroup/manager.h"
#include "scheduler_testing/builders.h"
#include "scheduler_testing/workloads.h"

namespace ksched::scheduler::plugins::gangscheduling {
namespace {

namespace s1 = api::schedulingv1alpha1;
using framework::Code;
using framework::QueueingHint;

std::shared_ptr<const api::Pod> member(const std::string& name, const std::string& workload = "job",
                                       const std::string& group = "workers") {
  return std::make_shared<const api::Pod>(testing::MakePod().Name(name).WorkloadRef(workload, group).Obj());
}

std::shared_ptr<const s1::Workload> workload(const std::string& name, int min_count) {
  return testing::MakeGangWorkload(name, min_count, /*with_basic_driver=*/true);
}

TEST(GangScheduling, PreEnqueueWaitsForTheWorkloadThePodGroupAndTheQuorum) {
  podgroup::Manager groups;
  GangScheduling pl(groups);
  api::Pod plain;
  EXPECT_TRUE(pl.pre_enqueue(plain).is_success());

  auto a = member("a");
  groups.on_pod_add(a);
  auto s = pl.pre_enqueue(*a);
  EXPECT_EQ(s.code(), Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(s.message(), "waiting for pods's workload \"job\" to appear in scheduling queue");

  groups.on_workload_add(workload("job", 2));
  s = pl.pre_enqueue(*member("x", "job", "ps"));
  EXPECT_EQ(s.code(), Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(s.message(), "pod group \"ps\" doesn't exist for a workload \"job\"");
  EXPECT_TRUE(pl.pre_enqueue(*member("d", "job", "driver")).is_success());  // basic: no gate

  s = pl.pre_enqueue(*a);
  EXPECT_EQ(s.code(), Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(s.message(), "waiting for minCount pods from a gang to appear in scheduling queue");
  auto b = member("b");
  groups.on_pod_add(b);
  EXPECT_TRUE(pl.pre_enqueue(*a).is_success());
  EXPECT_TRUE(pl.pre_enqueue(*b).is_success());
}

TEST(GangScheduling, PlacementFeasibleStopsWhenTheRestCannotReachMinCount) {
  podgroup::Manager groups;
  GangScheduling pl(groups);
  groups.on_workload_add(workload("job", 4));
  auto a = member("a");
  auto s = pl.placement_feasible(*a, {.remaining = 4, .scheduled = 0});
  EXPECT_EQ(s.code(), Code::Wait);
  EXPECT_EQ(s.message(), "minCount (4) is not yet satisfied: 0 scheduled, 4 remaining");
  s = pl.placement_feasible(*a, {.remaining = 1, .scheduled = 2});
  EXPECT_EQ(s.code(), Code::Unschedulable);
  EXPECT_EQ(s.message(), "minCount (4) cannot be satisfied: 2 scheduled, 1 remaining");
  EXPECT_TRUE(pl.placement_feasible(*a, {.remaining = 0, .scheduled = 4}).is_success());
  EXPECT_TRUE(pl.placement_feasible(*a, {.remaining = 3, .scheduled = 5}).is_success());
  // Not a gang: a minimum of one.
  EXPECT_TRUE(pl.placement_feasible(*member("d", "job", "driver"), {.remaining = 0, .scheduled = 1}).is_success());
}

TEST(GangScheduling, HintsQueueOnlyForTheSameGroupOrWorkload) {
  podgroup::Manager groups;
  GangScheduling pl(groups);
  auto events = pl.events_to_register();
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::Pod);
  EXPECT_EQ(events[0].event.actionType, framework::kAdd);
  EXPECT_EQ(events[1].event.resource, framework::EventResource::Workload);
  auto a = member("a");
  EXPECT_EQ(events[0].hint(*a, nullptr, member("b")), QueueingHint::Queue);
  EXPECT_EQ(events[0].hint(*a, nullptr, member("b", "other")), QueueingHint::Skip);
  EXPECT_EQ(events[0].hint(*a, nullptr, member("b", "job", "driver")), QueueingHint::Skip);
  EXPECT_EQ(events[0].hint(*a, nullptr, std::make_shared<api::Pod>()), QueueingHint::Skip);
  EXPECT_EQ(events[1].hint(*a, nullptr, workload("job", 2)), QueueingHint::Queue);
  EXPECT_EQ(events[1].hint(*a, nullptr, workload("other", 2)), QueueingHint::Skip);
}

// A member's arrival queues the gang's waiting members only once the group has minCount pods
// (below it PreEnqueue would gate them again); the answer follows the group's membership, not a
// remembered one.
TEST(GangScheduling, PodAddHintQueuesOnceTheQuorumIsThere) {
  podgroup::Manager groups;
  GangScheduling pl(groups);
  auto hint = pl.events_to_register()[0].hint;
  groups.on_workload_add(workload("job", 3));
  auto a = member("a"), b = member("b"), c = member("c");
  groups.on_pod_add(a);
  groups.on_pod_add(b);
  EXPECT_EQ(hint(*a, nullptr, b), QueueingHint::Skip);  // 2 of 3
  EXPECT_EQ(hint(*a, nullptr, b), QueueingHint::Skip);  // asked again for the same event
  groups.on_pod_add(c);
  EXPECT_EQ(hint(*a, nullptr, c), QueueingHint::Queue);  // 3 of 3
  // The same added pod asked about later (an in-flight pod's events are replayed) sees the group
  // as it is then.
  groups.on_pod_delete(a);
  EXPECT_EQ(hint(*b, nullptr, c), QueueingHint::Skip);
  EXPECT_EQ(hint(*a, nullptr, member("d", "other")), QueueingHint::Skip);
}

std::shared_ptr<const api::Pod> pg_member(const std::string& name, const std::string& pod_group = "pg") {
  return std::make_shared<const api::Pod>(testing::MakePod().Name(name).UID(name).PodGroupName(pod_group).Obj());
}

// Upstream v1.37 TestGangSchedulingPreEnqueue's rules for a pod with spec.schedulingGroup: U&U
// until its PodGroup exists ("waiting for pod's pod group ..."), a basic PodGroup lets the pod
// through, a gang until minCount pods exist.
TEST(GangScheduling, PreEnqueueWaitsForThePodGroupObjectAndTheQuorum) {
  podgroup::Manager groups;
  GangScheduling pl(groups);
  auto a = pg_member("a");
  groups.on_pod_add(a);
  auto s = pl.pre_enqueue(*a);
  EXPECT_EQ(s.code(), Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(s.message(), "waiting for pod's pod group \"pg\" to appear in scheduling queue");
  groups.on_pod_group_add(testing::MakePodGroup("pg", 2));
  s = pl.pre_enqueue(*a);
  EXPECT_EQ(s.code(), Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(s.message(), "waiting for minCount pods from a gang to appear in scheduling queue");
  auto b = pg_member("b");
  groups.on_pod_add(b);
  EXPECT_TRUE(pl.pre_enqueue(*a).is_success());
  groups.on_pod_group_add(testing::MakePodGroup("basic", 0));
  EXPECT_TRUE(pl.pre_enqueue(*pg_member("c", "basic")).is_success());
  // PlacementFeasible takes the PodGroup's minCount (upstream getMinCount).
  s = pl.placement_feasible(*a, {.remaining = 1, .scheduled = 0});
  EXPECT_EQ(s.message(), "minCount (2) cannot be satisfied: 0 scheduled, 1 remaining");
}

// Upstream v1.37 isSchedulableAfterPodGroupAdded / isSchedulableAfterPodGroupUpdated and
// isSchedulableAfterPodAdded for PodGroup members.
TEST(GangScheduling, PodGroupHintsQueueOnTheirPodGroupAndALowerMinCount) {
  podgroup::Manager groups;
  GangScheduling pl(groups);
  auto events = pl.events_to_register();
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[2].event.resource, framework::EventResource::PodGroup);
  EXPECT_EQ(events[2].event.actionType, framework::kAdd);
  EXPECT_EQ(events[3].event.resource, framework::EventResource::PodGroup);
  EXPECT_TRUE(events[3].event.actionType & framework::kUpdateOther);
  auto a = pg_member("a");
  EXPECT_EQ(events[2].hint(*a, nullptr, testing::MakePodGroup("pg", 2)), QueueingHint::Queue);
  EXPECT_EQ(events[2].hint(*a, nullptr, testing::MakePodGroup("pg2", 2)), QueueingHint::Skip);
  EXPECT_EQ(events[2].hint(*member("w"), nullptr, testing::MakePodGroup("pg", 2)), QueueingHint::Skip);
  auto pg4 = testing::MakePodGroup("pg", 4), pg3 = testing::MakePodGroup("pg", 3);
  EXPECT_EQ(events[3].hint(*a, pg4, pg3), QueueingHint::Queue);  // minCount decreased
  EXPECT_EQ(events[3].hint(*a, pg3, pg4), QueueingHint::Skip);   // increased
  EXPECT_EQ(events[3].hint(*a, pg3, pg3), QueueingHint::Skip);   // unchanged
  EXPECT_EQ(events[3].hint(*pg_member("b", "pg2"), pg4, pg3), QueueingHint::Skip);  // another PodGroup
  EXPECT_EQ(events[3].hint(*a, testing::MakePodGroup("pg", 0), testing::MakePodGroup("pg", 0)), QueueingHint::Skip);
  // A Workload's add concerns no PodGroup member; a PodGroup member's add concerns its own group.
  EXPECT_EQ(events[1].hint(*a, nullptr, workload("pg", 2)), QueueingHint::Skip);
  groups.on_pod_group_add(testing::MakePodGroup("pg", 2));
  auto b = pg_member("b");
  groups.on_pod_add(a);
  groups.on_pod_add(b);
  EXPECT_EQ(events[0].hint(*a, nullptr, b), QueueingHint::Queue);
  EXPECT_EQ(events[0].hint(*a, nullptr, pg_member("c", "pg2")), QueueingHint::Skip);
  // The queue's PodGroup index: a PodGroup event concerns the pods naming it, no others.
  std::vector<std::string> keys;
  pod_group_keys_of_pod(*a, keys);
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(keys[0], pod_group_key_of_event(nullptr, testing::MakePodGroup("pg", 2)));
  keys.clear();
  pod_group_keys_of_pod(*member("w"), keys);
  EXPECT_TRUE(keys.empty());
  EXPECT_EQ(group_key_of_event(groups, nullptr, b), "default/pg");
}

}  // namespace
}  // namespace ksched::scheduler::plugins::gangscheduling

namespace ksched::scheduler::plugins::gangscheduling {
namespace {

// The queue's indexes (queue::UnschedulablePodIndex) may leave out a pod whose keys lack the event's
// key only because the hint Skips it: checked here over pods of several groups, workloads and none.
TEST(GangScheduling, QueueIndexKeysRuleOutOnlyPodsTheHintsSkip) {
  podgroup::Manager groups;
  GangScheduling pl(groups);
  groups.on_workload_add(workload("job", 1));
  groups.on_workload_add(workload("other", 1));
  auto events = pl.events_to_register();
  ASSERT_EQ(events.size(), 4u);
  std::vector<std::shared_ptr<const api::Pod>> pods = {
      member("a"), member("b", "job", "ps"), member("c", "other"), member("d", "other", "ps"),
      std::make_shared<const api::Pod>(testing::MakePod().Name("plain").Obj())};
  for (const auto& p : pods) groups.on_pod_add(p);
  std::vector<std::shared_ptr<const s1::Workload>> workloads = {workload("job", 1), workload("other", 1),
                                                                workload("third", 1)};
  auto has = [](const std::vector<std::string>& keys, const std::optional<std::string>& key) {
    return !key || std::find(keys.begin(), keys.end(), *key) != keys.end();
  };
  int asked = 0;
  for (const auto& waiting : pods) {
    std::vector<std::string> group_keys, workload_keys;
    group_keys_of_pod(*waiting, group_keys);
    workload_keys_of_pod(*waiting, workload_keys);
    for (const auto& added : pods) {
      const auto key = group_key_of_event(groups, nullptr, added);
      ASSERT_TRUE(key.has_value());
      if (has(group_keys, key)) {
        ++asked;
        continue;
      }
      EXPECT_EQ(events[0].hint(*waiting, nullptr, added), QueueingHint::Skip)
          << waiting->metadata.name.view() << " on " << added->metadata.name.view();
    }
    for (const auto& w : workloads) {
      const auto key = workload_key_of_event(nullptr, w);
      if (has(workload_keys, key)) continue;
      EXPECT_EQ(events[1].hint(*waiting, nullptr, w), QueueingHint::Skip) << waiting->metadata.name.view();
    }
  }
  // Each group member is asked on its own group's pods only; the plain pod on none.
  EXPECT_EQ(asked, 4);
  // A deleted pod's event names the old object; an event without one rules nothing out.
  EXPECT_EQ(group_key_of_event(groups, member("a"), nullptr), podgroup::group_key(*member("a")));
  EXPECT_FALSE(group_key_of_event(groups, nullptr, nullptr).has_value());

  // A gang short of its quorum: its members' adds concern no pod, as the hint Skips every one.
  groups.on_workload_add(workload("big", 3));
  auto b0 = member("b0", "big"), b1 = member("b1", "big");
  groups.on_pod_add(b0);
  groups.on_pod_add(b1);
  EXPECT_EQ(group_key_of_event(groups, nullptr, b1), "");
  EXPECT_EQ(events[0].hint(*b0, nullptr, b1), QueueingHint::Skip);
  auto b2 = member("b2", "big");
  groups.on_pod_add(b2);
  EXPECT_EQ(group_key_of_event(groups, nullptr, b2), podgroup::group_key(*b0));
  EXPECT_EQ(events[0].hint(*b0, nullptr, b2), QueueingHint::Queue);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::gangscheduling

namespace ksched::scheduler::plugins::gangscheduling {
namespace {

// ---- CompositePodGroups (gate CompositePodGroup; podgroup::Manager with hierarchies)

namespace sa3 = api::schedulingv1alpha3;
namespace sb1 = api::schedulingv1beta1;

// In "default": a gang of min_group_count, or basic when it is 0.
std::shared_ptr<const sa3::CompositePodGroup> composite(const std::string& name, const std::string& parent,
                                                        int min_group_count) {
  auto c = std::make_shared<sa3::CompositePodGroup>();
  c->metadata.namespace_ = "default";
  c->metadata.name = name;
  if (!parent.empty()) c->spec.parentCompositePodGroupName = parent;
  if (min_group_count > 0) {
    c->spec.schedulingPolicy.gang.emplace().minGroupCount = min_group_count;
  } else {
    c->spec.schedulingPolicy.basic.emplace();
  }
  return c;
}

std::shared_ptr<const sb1::PodGroup> child_pod_group(const std::string& name, const std::string& parent, int min_count) {
  auto pg = std::make_shared<sb1::PodGroup>(*testing::MakePodGroup(name, min_count));
  pg->spec.parentCompositePodGroupName = parent;
  return pg;
}

// The tree of upstream's TestGangSchedulingPreEnqueue "CPG Hierarchical" cases: cpg-root (gang 2)
// over cpg-sub1 (gang 2: pg1..pg3, gangs of 1), cpg-sub2 (basic: pg4 basic, pg5 gang of 1) and
// cpg-sub3 (gang 2: pg6, pg7, gangs of 1).
void add_upstream_tree(podgroup::Manager& groups) {
  groups.on_composite_add(composite("cpg-root", "", 2));
  groups.on_composite_add(composite("cpg-sub1", "cpg-root", 2));
  groups.on_composite_add(composite("cpg-sub2", "cpg-root", 0));
  groups.on_composite_add(composite("cpg-sub3", "cpg-root", 2));
  for (const char* pg : {"pg1-cpg", "pg2-cpg", "pg3-cpg"}) groups.on_pod_group_add(child_pod_group(pg, "cpg-sub1", 1));
  groups.on_pod_group_add(child_pod_group("pg4-cpg", "cpg-sub2", 0));
  groups.on_pod_group_add(child_pod_group("pg5-cpg", "cpg-sub2", 1));
  for (const char* pg : {"pg6-cpg", "pg7-cpg"}) groups.on_pod_group_add(child_pod_group(pg, "cpg-sub3", 1));
}

// Upstream TestGangSchedulingPreEnqueue, "CPG Hierarchical Stage 1..3" (CPG enabled and not): with
// the gate a member waits until the root's minGroupCount children are ready across the tree;
// without it the composites are ignored and each PodGroup gates on its own minCount.
TEST(GangScheduling, PreEnqueueWithCompositePodGroupsWaitsForTheRootsQuorum) {
  for (bool enabled : {true, false}) {
    SCOPED_TRACE(enabled ? "CompositePodGroup on" : "CompositePodGroup off");
    podgroup::Manager groups(/*hierarchies=*/enabled);
    GangScheduling pl(groups);
    add_upstream_tree(groups);
    const std::string waiting = "waiting for composite pod group \"cpg-root\" tree to meet quorum";
    // Stage 1: no pods.
    auto p1 = pg_member("p1-cpg", "pg1-cpg");
    groups.on_pod_add(p1);
    auto s = pl.pre_enqueue(*p1);
    if (enabled) {
      EXPECT_EQ(s.code(), Code::UnschedulableAndUnresolvable);
      EXPECT_EQ(s.message(), waiting);
    } else {
      EXPECT_TRUE(s.is_success());
    }
    // Stage 2: p1, p2 and p6: cpg-sub1 is ready (2 of its 3 gangs), the root is not (1 of 2).
    groups.on_pod_add(pg_member("p2-cpg", "pg2-cpg"));
    auto p6 = pg_member("p6-cpg", "pg6-cpg");
    groups.on_pod_add(p6);
    s = pl.pre_enqueue(*p6);
    EXPECT_EQ(s.is_success(), !enabled);
    if (enabled) {
      EXPECT_EQ(s.message(), waiting);
    }
    // Stage 3: p4 makes cpg-sub2 (basic) ready, and with it the root.
    auto p4 = pg_member("p4-cpg", "pg4-cpg");
    groups.on_pod_add(p4);
    EXPECT_TRUE(pl.pre_enqueue(*p4).is_success());
    EXPECT_TRUE(pl.pre_enqueue(*p6).is_success());  // its own cpg-sub3 is still short: the root decides
    EXPECT_TRUE(pl.pre_enqueue(*p1).is_success());
  }
}

// Upstream "CPG Basic With Gang Stage 1": a basic root with one ready gang lets a member of its
// other, short gang in (with the gate); without the gate that gang waits for its own minCount.
TEST(GangScheduling, PreEnqueueUnderABasicRootNeedsOneReadyChild) {
  for (bool enabled : {true, false}) {
    SCOPED_TRACE(enabled ? "CompositePodGroup on" : "CompositePodGroup off");
    podgroup::Manager groups(/*hierarchies=*/enabled);
    GangScheduling pl(groups);
    groups.on_composite_add(composite("cpg-basic-root", "", 0));
    groups.on_pod_group_add(child_pod_group("pg-basic-1", "cpg-basic-root", 2));
    groups.on_pod_group_add(child_pod_group("pg-basic-2", "cpg-basic-root", 2));
    groups.on_pod_add(pg_member("p1_1", "pg-basic-1"));
    groups.on_pod_add(pg_member("p1_2", "pg-basic-1"));
    auto p21 = pg_member("p2_1", "pg-basic-2");
    groups.on_pod_add(p21);
    auto s = pl.pre_enqueue(*p21);
    if (enabled) {
      EXPECT_TRUE(s.is_success());
    } else {
      EXPECT_EQ(s.message(), "waiting for minCount pods from a gang to appear in scheduling queue");
    }
  }
}

// A parent that has not arrived (upstream: the root cannot be resolved): the member waits, named
// by its PodGroup's parent, and the composite's arrival is an event for it
// (isSchedulableAfterCompositePodGroupAdded, areSameHierarchy).
TEST(GangScheduling, CompositePodGroupAddQueuesPodsOfItsTreeOnly) {
  podgroup::Manager groups(/*hierarchies=*/true);
  GangScheduling pl(groups);
  groups.on_pod_group_add(child_pod_group("a", "root", 1));
  groups.on_pod_group_add(child_pod_group("b", "root", 1));
  groups.on_pod_group_add(child_pod_group("x", "other-root", 1));
  auto pa = pg_member("pa", "a");
  auto px = pg_member("px", "x");
  groups.on_pod_add(pa);
  groups.on_pod_add(px);
  auto s = pl.pre_enqueue(*pa);
  EXPECT_EQ(s.code(), Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(s.message(), "waiting for composite pod group \"root\" tree to meet quorum");

  auto events = pl.events_to_register();
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(events[4].event.resource, framework::EventResource::CompositePodGroup);
  EXPECT_EQ(events[4].event.actionType, framework::kAdd);
  auto root = composite("root", "", 2);
  groups.on_composite_add(root);
  EXPECT_EQ(events[4].hint(*pa, nullptr, root), QueueingHint::Queue);
  EXPECT_EQ(events[4].hint(*px, nullptr, root), QueueingHint::Skip);
  // 1 of 2 children ready.
  s = pl.pre_enqueue(*pa);
  EXPECT_EQ(s.message(), "waiting for composite pod group \"root\" tree to meet quorum");

  // Pod/Add of a sibling's pod (isSchedulableAfterPodAdded, areSameHierarchy): it completes the
  // root's quorum, so a's member is queued; x's (another tree) is not.
  auto pb = pg_member("pb", "b");
  groups.on_pod_add(pb);
  EXPECT_TRUE(pl.pre_enqueue(*pa).is_success());
  EXPECT_EQ(events[0].hint(*pa, nullptr, pb), QueueingHint::Queue);
  EXPECT_EQ(events[0].hint(*px, nullptr, pb), QueueingHint::Skip);
  // PodGroup/Add of a sibling is an event for the tree (isSchedulableAfterPodGroupAdded).
  EXPECT_EQ(events[2].hint(*pa, nullptr, child_pod_group("b", "root", 1)), QueueingHint::Queue);
  EXPECT_EQ(events[2].hint(*px, nullptr, child_pod_group("b", "root", 1)), QueueingHint::Skip);
}

// Without the gate the plugin registers no CompositePodGroup event (upstream EventsToRegister).
TEST(GangScheduling, NoCompositePodGroupEventWithoutTheGate) {
  podgroup::Manager groups;
  GangScheduling pl(groups);
  EXPECT_EQ(pl.events_to_register().size(), 4u);
  groups.on_composite_add(composite("root", "", 1));  // ignored without hierarchies
  EXPECT_EQ(groups.composite("default", "root"), nullptr);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::gangscheduling
