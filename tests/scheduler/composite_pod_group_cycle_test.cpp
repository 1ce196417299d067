// CompositePodGroups end to end in the scheduler (gates GangScheduling and CompositePodGroup): the
// tree's members wait for the root's quorum (upstream gangscheduling.go preEnqueueWithHierarchies),
// the first member's cycle takes the whole tree and places it all-or-nothing by the composites'
// minGroupCount (upstream getMinCount for a CompositePodGroup), and each PodGroup's and
// CompositePodGroup's InitiallyScheduled condition is written (upstream's CompositePodGroupStatus
// rules: True is terminal).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <optional>

#include "scheduler/config/defaults.h"
#include "scheduler/config/features.h"
#include "scheduler/in_tree_registry.h"
#include "scheduler/pod_group_fixture.h"
#include "scheduler/podgroup/metrics.h"
#include "scheduler/scheduler.h"
#include "scheduler/test_options.h"
#include "scheduler_testing/testing.h"
#include "scheduler_testing/workloads.h"

namespace ksched::scheduler {
namespace {

using namespace std::chrono_literals;
using testing::MakeNode;
using testing::MakePod;
namespace sa3 = api::schedulingv1alpha3;
namespace sb1 = api::schedulingv1beta1;

config::Features composite_features() {
  config::Features f = config::features();
  f.gangScheduling = true;
  f.compositePodGroup = true;
  return f;
}

class CompositePodGroupCycleTest : public PodGroupClusterFixture {
 protected:
  CompositePodGroupCycleTest() : PodGroupClusterFixture(composite_features()) {}
  void SetUp() override {
    auto o = test_scheduler_options(clock, metrics, /*seed=*/7, /*binding_workers=*/2);
    o.pod_group_metrics = &group_metrics;
    auto s = Scheduler::create(config::default_configuration(), new_in_tree_registry(), client, lister, o);
    ASSERT_TRUE(s.ok()) << s.error();
    sched = std::move(*s);
    ASSERT_NE(sched->pod_group_manager(), nullptr);
    ASSERT_TRUE(sched->pod_group_manager()->hierarchies());
  }
  // A CompositePodGroup in "default": a gang of min_group_count, basic when 0.
  void add_composite(const std::string& name, const std::string& parent, int min_group_count,
                     std::optional<std::int32_t> priority = std::nullopt, bool disrupt_all = false) {
    auto c = std::make_shared<sa3::CompositePodGroup>();
    c->metadata.namespace_ = "default";
    c->metadata.name = name;
    c->metadata.uid = "uid-" + name;
    if (!parent.empty()) c->spec.parentCompositePodGroupName = parent;
    if (min_group_count > 0) {
      c->spec.schedulingPolicy.gang.emplace().minGroupCount = min_group_count;
    } else {
      c->spec.schedulingPolicy.basic.emplace();
    }
    c->spec.priority = priority;
    if (disrupt_all) c->spec.disruptionMode.emplace().all.emplace();
    composites[name] = c;
    sched->on_composite_pod_group_add(c);
  }
  void add_pod_group(const std::string& name, const std::string& parent, int min_count,
                     std::optional<std::int32_t> priority = std::nullopt) {
    auto pg = std::make_shared<sb1::PodGroup>(*testing::MakePodGroup(name, min_count));
    if (!parent.empty()) pg->spec.parentCompositePodGroupName = parent;
    pg->spec.priority = priority;
    sched->on_pod_group_add(pg);
  }
  // A pod of no group, at `priority`.
  void add_plain(const std::string& name, const std::string& cpu, std::int32_t priority) {
    api::Pod p = MakePod().Name(name).UID(name).Req({{"cpu", cpu}}).Priority(priority).Obj();
    p.spec.schedulerName = "default-scheduler";
    add_pod(std::move(p));
  }
  int bound(const std::string& pod_group) {
    int n = 0;
    for (const auto& [name, p] : pods) {
      if (!p->spec.nodeName.empty() && p->spec.schedulingGroup && p->spec.schedulingGroup->podGroupName == pod_group) ++n;
    }
    return n;
  }
  // The last condition written on the CompositePodGroup, if any.
  std::optional<api::Condition> composite_condition(const std::string& name) {
    std::optional<api::Condition> c;
    for (const auto& p : client.composite_patches()) {
      if (p.podGroup == "default/" + name) c = p.condition;
    }
    return c;
  }
  std::optional<api::Condition> pod_group_condition(const std::string& name) {
    std::optional<api::Condition> c;
    for (const auto& p : client.pod_group_patches()) {
      if (p.podGroup == "default/" + name) c = p.condition;
    }
    return c;
  }
  // The composite's status patches applied, as the informer would show them after.
  void confirm_composite_status(const std::string& name) {
    auto old = composites.at(name);
    auto next = std::make_shared<sa3::CompositePodGroup>(*old);
    if (auto c = composite_condition(name)) next->status.conditions = {*c};
    composites[name] = next;
    sched->on_composite_pod_group_update(old, next);
  }

  std::map<std::string, std::shared_ptr<const sa3::CompositePodGroup>> composites;
};

// Upstream's preEnqueueWithHierarchies in the queue: the first gang's members are gated until the
// second gang's arrive (the root needs both), then the one cycle of the first popped member binds
// all four, and every group's condition is True.
TEST_F(CompositePodGroupCycleTest, ACompositeOfTwoGangsWaitsForBothAndBindsInOneCycle) {
  add_node("n1", "2");
  add_node("n2", "2");
  add_composite("root", "", 2);
  add_pod_group("a", "root", 2);
  add_pod_group("b", "root", 2);
  add_pg_member("a0", "a", "1");
  add_pg_member("a1", "a", "1");
  add_pg_member("b0", "b", "1");
  EXPECT_EQ(sched->queue().counts().gated, 3u);
  EXPECT_FALSE(sched->schedule_one_if_pending());
  add_pg_member("b1", "b", "1");  // b is ready: the root has its two children
  EXPECT_EQ(sched->queue().counts().active, 4u);
  EXPECT_EQ(run_cycles(), 1);
  EXPECT_EQ(bound("a"), 2);
  EXPECT_EQ(bound("b"), 2);
  ASSERT_TRUE(composite_condition("root"));
  EXPECT_EQ(composite_condition("root")->type, "CompositePodGroupInitiallyScheduled");
  EXPECT_EQ(composite_condition("root")->status, "True");
  EXPECT_EQ(composite_condition("root")->reason, "Scheduled");
  ASSERT_TRUE(pod_group_condition("a"));
  EXPECT_EQ(pod_group_condition("a")->status, "True");
  ASSERT_TRUE(pod_group_condition("b"));
  EXPECT_EQ(pod_group_condition("b")->status, "True");
}

// All or nothing: room for three of the four pods. Each gang alone would fit, but the root needs
// both, so nothing binds; the root's condition is False with upstream's PlacementFeasible words
// for a composite. A new node lets the whole tree bind, and the condition turns True.
TEST_F(CompositePodGroupCycleTest, ACompositeWhoseGangsDoNotAllFitBindsNothingUntilThereIsRoom) {
  add_node("n1", "3");
  add_composite("root", "", 2);
  add_pod_group("a", "root", 2);
  add_pod_group("b", "root", 2);
  for (const char* n : {"a0", "a1"}) add_pg_member(n, "a", "1");
  for (const char* n : {"b0", "b1"}) add_pg_member(n, "b", "1");
  run_cycles();
  EXPECT_TRUE(client.binds().empty());
  auto c = composite_condition("root");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->status, "False");
  EXPECT_EQ(c->reason, "Unschedulable");
  // The root's PlacementFeasible words, then the tree's preemption's reason (upstream AppendReason):
  // nothing runs that it could evict.
  EXPECT_EQ(c->message,
            "minCount (2) cannot be satisfied: 1 scheduled, 0 remaining, No preemption victims found for incoming preemptor");
  ASSERT_TRUE(pod_group_condition("a"));
  EXPECT_EQ(pod_group_condition("a")->status, "False");
  confirm_composite_status("root");
  // Nothing was left assumed: the cluster still has all three CPUs free.
  add_node("n2", "1");
  let_time_pass();
  run_cycles();
  EXPECT_EQ(bound("a"), 2);
  EXPECT_EQ(bound("b"), 2);
  EXPECT_EQ(composite_condition("root")->status, "True");
}

// A basic root needs one feasible child: the gang that fits binds, the one that does not stays
// pending (its own minCount message), and the root is True.
TEST_F(CompositePodGroupCycleTest, ABasicRootBindsTheChildThatFits) {
  add_node("n1", "2");
  add_composite("root", "", 0);
  add_pod_group("small", "root", 2);
  add_pod_group("big", "root", 2);
  for (const char* n : {"s0", "s1"}) add_pg_member(n, "small", "1");
  for (const char* n : {"b0", "b1"}) add_pg_member(n, "big", "2");
  run_cycles();
  EXPECT_EQ(bound("small") + bound("big"), 2);
  EXPECT_TRUE(bound("small") == 2 || bound("big") == 0);
  EXPECT_EQ(composite_condition("root")->status, "True");
  ASSERT_TRUE(pod_group_condition("big"));
  EXPECT_EQ(pod_group_condition("big")->status, "False");
}

// Nested: root (gang 2) over sub (gang 2 over x and y) and z. x and z fit, y does not: sub is not
// feasible, so the root has one of two and nothing binds, x's and z's placements undone.
TEST_F(CompositePodGroupCycleTest, ANestedCompositeThatFailsFailsTheWholeTree) {
  add_node("n1", "3");
  add_composite("root", "", 2);
  add_composite("sub", "root", 2);
  add_pod_group("x", "sub", 1);
  add_pod_group("y", "sub", 1);
  add_pod_group("z", "root", 1);
  add_pg_member("x0", "x", "1");
  add_pg_member("y0", "y", "4");
  add_pg_member("z0", "z", "1");
  run_cycles();
  EXPECT_TRUE(client.binds().empty());
  EXPECT_EQ(composite_condition("sub")->status, "False");
  EXPECT_EQ(composite_condition("root")->status, "False");
  // sub failed first: with only z left the root cannot reach two, so z is not even tried.
  EXPECT_EQ(composite_condition("root")->message,
            "minCount (2) cannot be satisfied: 0 scheduled, 1 remaining, No preemption victims found for incoming preemptor");
  // With room for y (8 CPUs: the members are placed one by one, x may land there first), the tree
  // binds whole.
  add_node("n2", "8");
  let_time_pass();  // y0 waits out its backoff
  run_cycles();
  EXPECT_EQ(bound("x") + bound("y") + bound("z"), 3);
  EXPECT_EQ(composite_condition("sub")->status, "True");
  EXPECT_EQ(composite_condition("root")->status, "True");
}

// Workload-aware preemption of a victim under a composite (upstream getPodPriority and
// getHighestAllAncestor): the victims' priority is the root composite's (10, though their PodGroups
// say 2000, above the preemptor), and the composite's disruptionMode all makes its two gangs one
// unit, so both go although one pod's room would do.
TEST_F(CompositePodGroupCycleTest, AVictimUnderACompositeWithDisruptionModeAllIsEvictedWithItsWholeTree) {
  add_node("n1", "4");
  add_composite("low", "", 2, /*priority=*/10, /*disrupt_all=*/true);
  add_pod_group("lo-a", "low", 1, /*priority=*/2000);
  add_pod_group("lo-b", "low", 1, /*priority=*/2000);
  add_pg_member("lo-a-0", "lo-a", "2");
  add_pg_member("lo-b-0", "lo-b", "2");
  run_cycles();
  ASSERT_EQ(bound("lo-a") + bound("lo-b"), 2);
  add_pod_group("high", "", 1, /*priority=*/1000);
  add_pg_member("high-0", "high", "2");
  run_cycles();
  auto d = client.deletes();
  EXPECT_EQ(std::set<std::string>(d.begin(), d.end()), (std::set<std::string>{"default/lo-a-0", "default/lo-b-0"}));
}

// Workload-aware preemption for a tree (upstream runWorkloadAwarePreemption for the root's
// PodGroupInfo, newPodGroupPreemptor with the composite: CompositePodGroupPriority): the tree's pods
// and PodGroups carry no priority, its root 100, so it preempts the plain pods of priority 0. It needs
// three of the four CPUs: reprieval keeps one plain pod; every member is nominated, the event names
// the composite, and once the victims are gone the tree binds whole.
TEST_F(CompositePodGroupCycleTest, AHighPriorityTreeThatDoesNotFitEvictsLowerPodsAndBindsWhole) {
  add_node("n1", "4");
  for (const char* n : {"lo-0", "lo-1", "lo-2", "lo-3"}) add_plain(n, "1", 0);
  run_cycles();
  ASSERT_EQ(client.binds().size(), 4u);
  add_composite("root", "", 2, /*priority=*/100);
  add_pod_group("a", "root", 2);
  add_pod_group("b", "root", 1);
  add_pg_member("a0", "a", "1");
  add_pg_member("a1", "a", "1");
  add_pg_member("b0", "b", "1");
  run_cycles();
  auto d = apply_deletes();
  EXPECT_EQ(d.size(), 3u);
  for (const auto& name : d) EXPECT_EQ(name.substr(0, 3), "lo-");
  EXPECT_TRUE(client.has_event_note("Preempted by compositepodgroup uid-root on node cluster"));
  EXPECT_EQ(client.last_nomination("default/a0"), "n1");
  EXPECT_EQ(client.last_nomination("default/b0"), "n1");
  settle();
  EXPECT_EQ(bound("a"), 2);
  EXPECT_EQ(bound("b"), 1);
  EXPECT_EQ(composite_condition("root")->status, "True");
}

// The tree's priority is its root's (upstream getPreemptorPriority: the composite's, not its
// PodGroups'): a root of 0 does not preempt pods of 10 although its PodGroups say 2000.
TEST_F(CompositePodGroupCycleTest, ATreesPriorityIsItsRootsNotItsPodGroups) {
  add_node("n1", "2");
  add_plain("lo-0", "2", 10);
  run_cycles();
  add_composite("root", "", 1, /*priority=*/0);
  add_pod_group("a", "root", 1, /*priority=*/2000);
  add_pg_member("a0", "a", "2");
  run_cycles();
  EXPECT_TRUE(client.deletes().empty());
  EXPECT_EQ(bound("a"), 0);
  // The same tree with its root at 100 preempts.
  auto higher = std::make_shared<sa3::CompositePodGroup>(*composites.at("root"));
  higher->spec.priority = 100;
  sched->on_composite_pod_group_update(composites.at("root"), higher);
  composites["root"] = higher;
  let_time_pass();
  settle();
  EXPECT_EQ(bound("a"), 1);
}

// A victim tree (composite with disruptionMode all) goes whole for a higher tree, never below its
// own minimum (upstream getHighestAllAncestor: one unit for the whole low tree), though one of its
// pods' room would do; the higher tree then binds.
TEST_F(CompositePodGroupCycleTest, ATreePreemptsALowerTreeWholeNeverBelowItsMinimum) {
  add_node("n1", "4");
  add_composite("low", "", 2, /*priority=*/10, /*disrupt_all=*/true);
  add_pod_group("lo-a", "low", 1);
  add_pod_group("lo-b", "low", 1);
  add_pg_member("lo-a-0", "lo-a", "2");
  add_pg_member("lo-b-0", "lo-b", "2");
  run_cycles();
  ASSERT_EQ(bound("lo-a") + bound("lo-b"), 2);
  add_composite("high", "", 1, /*priority=*/1000);
  add_pod_group("hi", "high", 1);
  add_pg_member("hi-0", "hi", "2");
  run_cycles();
  auto d = apply_deletes();
  EXPECT_EQ(std::set<std::string>(d.begin(), d.end()), (std::set<std::string>{"lo-a-0", "lo-b-0"}));
  settle();
  EXPECT_EQ(bound("hi"), 1);
  EXPECT_EQ(bound("lo-a") + bound("lo-b"), 0);
}

// The tree must fit whole even with every lower pod gone (the simulation places it by its own
// minGroupCount and minCounts): otherwise nothing is evicted and the root's message gets the reason.
TEST_F(CompositePodGroupCycleTest, ATreeThatCannotFitEvenWithoutTheLowerPodsEvictsNothing) {
  add_node("n1", "2");
  add_plain("lo-0", "1", 0);
  run_cycles();
  add_composite("root", "", 2, /*priority=*/100);
  add_pod_group("a", "root", 2);
  add_pod_group("b", "root", 1);
  add_pg_member("a0", "a", "1");
  add_pg_member("a1", "a", "1");
  add_pg_member("b0", "b", "1");
  run_cycles();
  EXPECT_TRUE(client.deletes().empty());
  EXPECT_EQ(bound("a") + bound("b"), 0);
  auto c = composite_condition("root");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->status, "False");
  // The cycle's verdict (a fails, so b cannot bring the root to two), then the simulation's with
  // lo-0 gone (a fits, b does not; upstream AppendReason).
  EXPECT_EQ(c->message.find("minCount (2) cannot be satisfied: 0 scheduled, 1 remaining"), 0u) << c->message;
  EXPECT_NE(c->message.find("minCount (2) cannot be satisfied: 1 scheduled, 0 remaining"), std::string::npos)
      << c->message;
}

// PodGroupPreemptionPolicy on (upstream resolveCompositePreemptionPolicy): the root's Never stops the
// tree from preempting although its pods say nothing.
TEST_F(CompositePodGroupCycleTest, ATreeWhoseRootSaysNeverDoesNotPreempt) {
  config::Features f = config::features();
  f.podGroupPreemptionPolicy = true;
  config::ScopedFeatures policy_gate(f);
  add_node("n1", "2");
  add_plain("lo-0", "2", 0);
  run_cycles();
  add_composite("root", "", 1, /*priority=*/100);
  auto never = std::make_shared<sa3::CompositePodGroup>(*composites.at("root"));
  never->spec.preemptionPolicy = "Never";
  sched->on_composite_pod_group_update(composites.at("root"), never);
  composites["root"] = never;
  add_pod_group("a", "root", 1);
  add_pg_member("a0", "a", "2");
  run_cycles();
  EXPECT_TRUE(client.deletes().empty());
  ASSERT_TRUE(composite_condition("root"));
  EXPECT_NE(composite_condition("root")->message.find("not eligible due to preemptionPolicy=Never."), std::string::npos);
}

// Without the gate the composites are not watched and each PodGroup is its own root: the gang that
// fits binds although the other does not.
TEST(CompositePodGroupGateOff, EachPodGroupIsItsOwnRoot) {
  config::Features f = config::features();
  f.gangScheduling = true;
  f.compositePodGroup = false;
  config::ScopedFeatures gates(f);
  util::FakeClock clock;
  testing::FakeClusterLister lister;
  testing::FakeClusterClient client;
  metrics::Registry registry;
  metrics::SchedulerMetrics metrics{registry};
  auto o = test_scheduler_options(clock, metrics, 7, 2);
  auto s = Scheduler::create(config::default_configuration(), new_in_tree_registry(), client, lister, o);
  ASSERT_TRUE(s.ok()) << s.error();
  auto& sched = *s;
  EXPECT_FALSE(sched->pod_group_manager()->hierarchies());
  sched->on_node_add(std::make_shared<const api::Node>(MakeNode().Name("n1").Capacity({{"cpu", "3"}, {"pods", "100"}}).Obj()));
  for (const char* g : {"a", "b"}) {
    auto pg = std::make_shared<sb1::PodGroup>(*testing::MakePodGroup(g, 2));
    pg->spec.parentCompositePodGroupName = "root";
    sched->on_pod_group_add(pg);
  }
  for (const char* n : {"a0", "a1", "b0", "b1"}) {
    api::Pod p = MakePod().Name(n).UID(n).Req({{"cpu", "1"}}).PodGroupName(std::string(1, n[0])).Obj();
    p.spec.schedulerName = "default-scheduler";
    auto ptr = std::make_shared<const api::Pod>(std::move(p));
    lister.add_pod(ptr);
    sched->on_pod_add(ptr);
  }
  for (int i = 0; i < 10 && sched->schedule_one_if_pending(); ++i) {
  }
  ASSERT_TRUE(sched->wait_for_bindings(10s));
  EXPECT_EQ(client.binds().size(), 2u);  // one gang of two, the other does not fit
}

}  // namespace
}  // namespace ksched::scheduler
