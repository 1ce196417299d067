// Topology-aware placement of a gang (TopologyAwareWorkloadScheduling, KEP-5732) through the
// pod-group cycle, as upstream's algorithm_podgroup_test.go placement cases
// (podGroupSchedulingPlacementAlgorithm) and the scheduler_perf/integration TAS cases do it: two
// racks; a gang that fits only within one rack is placed entirely in it; a gang that fits in
// neither rack (only across both) stays pending with upstream's "0/N placements are available"
// message; among feasible racks the PlacementScore plugins pick the fuller one (bin packing),
// unless the members are nominated into one (upstream's nominatedPlacement fast path); a gang
// without a constraint takes the root placement of every node (with the gate, upstream's single
// placement and its "0/1 placements" message); the placement metrics count what was generated and
// evaluated; a CompositePodGroup's constraint keeps its whole tree in one domain, a PodGroup under
// a composite keeps its own.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "scheduler/config/defaults.h"
#include "scheduler/config/features.h"
#include "scheduler/in_tree_registry.h"
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
using testing::MakePodGroup;

constexpr const char* kRack = "topology.kubernetes.io/rack";

config::Features topology_features(bool topology, bool composite) {
  config::Features f = config::features();
  f.gangScheduling = true;
  f.topologyAwareWorkloadScheduling = topology;
  f.compositePodGroup = composite;
  return f;
}

class PodGroupTopologyTest : public ::testing::Test {
 protected:
  void start(bool topology_gate, std::uint64_t seed = 7, bool composite_gate = false) {
    sched.reset();
    gates.reset();
    gates.emplace(topology_features(topology_gate, composite_gate));
    client_ = std::make_unique<testing::FakeClusterClient>();
    lister_ = std::make_unique<testing::FakeClusterLister>();
    rack_of.clear();
    pod_group_of.clear();
    placement_metrics.reset();
    placement_registry.reset();
    placement_registry = std::make_unique<metrics::Registry>();
    placement_metrics = std::make_unique<podgroup::PlacementMetrics>(*placement_registry);
    auto o = test_scheduler_options(clock, metrics, seed, /*binding_workers=*/2);
    o.placement_metrics = placement_metrics.get();
    auto s = Scheduler::create(config::default_configuration(), new_in_tree_registry(), *client_, *lister_, o);
    ASSERT_TRUE(s.ok()) << s.error();
    sched = std::move(*s);
  }
  void add_node(const std::string& name, const std::string& rack, const std::string& cpu) {
    auto n = std::make_shared<const api::Node>(
        MakeNode().Name(name).Label(kRack, rack).Capacity({{"cpu", cpu}, {"pods", "100"}}).Obj());
    rack_of[name] = rack;
    sched->on_node_add(n);
  }
  void add_pod_group(const std::string& name, int min_count, const std::string& key, const std::string& parent = {}) {
    auto pg = std::make_shared<api::schedulingv1beta1::PodGroup>(*MakePodGroup(name, min_count));
    if (!key.empty()) pg->spec.schedulingConstraints.emplace().topology.push_back({key, {}});
    if (!parent.empty()) pg->spec.parentCompositePodGroupName = parent;
    sched->on_pod_group_add(pg);
  }
  // A gang CompositePodGroup in "default" (CompositePodGroup gate), asking one domain of `key` if set.
  void add_composite(const std::string& name, int min_group_count, const std::string& key) {
    auto c = std::make_shared<api::schedulingv1alpha3::CompositePodGroup>();
    c->metadata.namespace_ = "default";
    c->metadata.name = name;
    c->metadata.uid = "uid-" + name;
    c->spec.schedulingPolicy.gang.emplace().minGroupCount = min_group_count;
    if (!key.empty()) c->spec.schedulingConstraints.emplace().topology.push_back({key, {}});
    sched->on_composite_pod_group_add(c);
  }
  void add_member(const std::string& name, const std::string& pod_group, const std::string& cpu,
                  const std::string& nominated_node = {}) {
    api::Pod p = MakePod().Name(name).UID(name).Req({{"cpu", cpu}}).PodGroupName(pod_group).Obj();
    p.spec.schedulerName = "default-scheduler";
    p.status.nominatedNodeName = nominated_node;
    auto ptr = std::make_shared<const api::Pod>(std::move(p));
    pod_group_of["default/" + name] = pod_group;
    lister_->add_pod(ptr);
    sched->on_pod_add(ptr);
  }
  void add_running(const std::string& name, const std::string& node, const std::string& cpu) {
    api::Pod p = MakePod().Name(name).UID(name).Req({{"cpu", cpu}}).Node(node).Obj();
    p.spec.schedulerName = "default-scheduler";
    auto ptr = std::make_shared<const api::Pod>(std::move(p));
    lister_->add_pod(ptr);
    sched->on_pod_add(ptr);
  }
  void run_cycles() {
    for (int i = 0; i < 100 && sched->schedule_one_if_pending(); ++i) {
    }
    ASSERT_TRUE(sched->wait_for_bindings(10s));
  }
  // The racks the binds went to, of every pod or of one PodGroup's members.
  std::set<std::string> racks_bound(const std::string& pod_group = {}) {
    std::set<std::string> out;
    for (const auto& b : client_->binds()) {
      if (pod_group.empty() || pod_group_of.at(b.pod) == pod_group) out.insert(rack_of.at(b.node));
    }
    return out;
  }
  std::string last_condition_message(const std::string& pod) {
    std::string msg;
    for (const auto& p : client_->patches()) {
      if (p.pod == pod && p.condition) msg = p.condition->message;
    }
    return msg;
  }

  double generated() { return placement_metrics->generated.with({"default-scheduler"}).value(); }
  double evaluated(const char* result) {
    return placement_metrics->evaluations.with({result, "default-scheduler"}).value();
  }

  std::optional<config::ScopedFeatures> gates;
  util::FakeClock clock;
  std::unique_ptr<testing::FakeClusterClient> client_;
  std::unique_ptr<testing::FakeClusterLister> lister_;
  metrics::Registry registry;
  metrics::SchedulerMetrics metrics{registry};
  std::unique_ptr<metrics::Registry> placement_registry;
  std::unique_ptr<podgroup::PlacementMetrics> placement_metrics;
  std::unique_ptr<Scheduler> sched;  // after the client and lister it uses: destroyed first
  std::map<std::string, std::string> rack_of;
  std::map<std::string, std::string> pod_group_of;  // "default/<pod>" -> its PodGroup
};

// Rack a: two nodes of 2 CPUs; rack b: two of 4. A gang of 4 x 2 CPUs fits only in rack b (on
// its own, the per-pod scores would spread it over both racks once rack b's nodes are half full).
TEST_F(PodGroupTopologyTest, AGangThatFitsInOnlyOneRackIsPlacedEntirelyInThatRack) {
  start(true);
  add_node("a1", "rack-a", "2");
  add_node("a2", "rack-a", "2");
  add_node("b1", "rack-b", "4");
  add_node("b2", "rack-b", "4");
  add_pod_group("pg", 4, kRack);
  for (const char* n : {"m0", "m1", "m2", "m3"}) add_member(n, "pg", "2");
  run_cycles();
  ASSERT_EQ(client_->binds().size(), 4u);
  EXPECT_EQ(racks_bound(), (std::set<std::string>{"rack-b"}));
  auto patches = client_->pod_group_patches();
  ASSERT_EQ(patches.size(), 1u);
  EXPECT_EQ(patches[0].condition.status, "True");
}

// One node of 4 CPUs per rack: a gang of 4 x 2 CPUs would fit across the racks, in neither alone.
// Every member stays pending with upstream's placement message and the PodGroup says so.
TEST_F(PodGroupTopologyTest, AGangThatFitsOnlyAcrossRacksStaysPendingWithUpstreamsMessage) {
  start(true);
  add_node("a1", "rack-a", "4");
  add_node("b1", "rack-b", "4");
  add_pod_group("pg", 4, kRack);
  for (const char* n : {"m0", "m1", "m2", "m3"}) add_member(n, "pg", "2");
  run_cycles();
  EXPECT_EQ(client_->binds().size(), 0u);
  EXPECT_EQ(sched->cache().assumed_pod_count(), 0);
  EXPECT_TRUE(client_->deletes().empty());
  const std::string why =
      "0/2 placements are available, first placement status: minCount (4) cannot be satisfied: 2 scheduled, 1 remaining";
  for (const char* n : {"default/m0", "default/m3"}) EXPECT_EQ(last_condition_message(n), why) << n;
  auto patches = client_->pod_group_patches();
  ASSERT_EQ(patches.size(), 1u);
  EXPECT_EQ(patches[0].condition.status, "False");
  EXPECT_EQ(patches[0].condition.reason, "Unschedulable");
  EXPECT_EQ(patches[0].condition.message, why);
}

// Both racks can take the gang; PodGroupPodsCount ties (both take all), NodeResourcesFit's
// placement score prefers rack a, where the gang fills the node another pod already half uses
// (200 against 125). Several seeds: equal totals would be broken by a random draw.
TEST_F(PodGroupTopologyTest, AmongFeasibleRacksTheFullerOneIsChosen) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE(seed);
    start(true, seed);
    add_node("a1", "rack-a", "4");
    add_node("b1", "rack-b", "8");
    add_running("busy", "a1", "2");
    add_pod_group("pg", 2, kRack);
    for (const char* n : {"m0", "m1"}) add_member(n, "pg", "1");
    run_cycles();
    ASSERT_EQ(client_->binds().size(), 2u);
    EXPECT_EQ(racks_bound(), (std::set<std::string>{"rack-a"}));
    EXPECT_EQ(generated(), 2);
    EXPECT_EQ(evaluated("feasible"), 2);
    EXPECT_EQ(evaluated("infeasible"), 0);
  }
}

// The same racks, the members nominated to b1 (a previous preemption's choice): the placement
// holding it is evaluated first and, feasible, taken without trying or scoring rack a (upstream's
// nominatedPlacement and its TestPodGroupSchedulingPlacementAlgorithm nominated cases).
TEST_F(PodGroupTopologyTest, ThePlacementHoldingTheNominatedNodesIsTakenFirst) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE(seed);
    start(true, seed);
    add_node("a1", "rack-a", "4");
    add_node("b1", "rack-b", "8");
    add_running("busy", "a1", "2");
    add_pod_group("pg", 2, kRack);
    for (const char* n : {"m0", "m1"}) add_member(n, "pg", "1", "b1");
    run_cycles();
    ASSERT_EQ(client_->binds().size(), 2u);
    EXPECT_EQ(racks_bound(), (std::set<std::string>{"rack-b"}));
    EXPECT_EQ(generated(), 2);
    EXPECT_EQ(evaluated("feasible"), 1);
    EXPECT_EQ(evaluated("infeasible"), 0);
  }
}

// Nominated to a rack the gang does not fit in (b1 has 1 CPU): that placement is tried first,
// fails, and the others are tried as usual; the gang lands in rack a.
TEST_F(PodGroupTopologyTest, AnInfeasibleNominatedPlacementFallsBackToTheOthers) {
  start(true);
  add_node("a1", "rack-a", "4");
  add_node("b1", "rack-b", "1");
  add_pod_group("pg", 2, kRack);
  for (const char* n : {"m0", "m1"}) add_member(n, "pg", "1", "b1");
  run_cycles();
  ASSERT_EQ(client_->binds().size(), 2u);
  EXPECT_EQ(racks_bound(), (std::set<std::string>{"rack-a"}));
  EXPECT_EQ(evaluated("infeasible"), 1);
  EXPECT_EQ(evaluated("feasible"), 1);
}

// Without the gate, or without a constraint, the plain cycle: the same gang binds across racks.
TEST_F(PodGroupTopologyTest, WithoutTheGateOrAConstraintTheGangMayCrossRacks) {
  for (bool gate : {false, true}) {
    SCOPED_TRACE(gate);
    start(gate);
    add_node("a1", "rack-a", "4");
    add_node("b1", "rack-b", "4");
    add_pod_group("pg", 4, gate ? "" : kRack);
    for (const char* n : {"m0", "m1", "m2", "m3"}) add_member(n, "pg", "2");
    run_cycles();
    EXPECT_EQ(client_->binds().size(), 4u);
    EXPECT_EQ(racks_bound(), (std::set<std::string>{"rack-a", "rack-b"}));
    // With the gate the group took the one placement of every node (placed at once).
    EXPECT_EQ(generated(), gate ? 1 : 0);
    EXPECT_EQ(evaluated("feasible"), gate ? 1 : 0);
  }
}

// With the gate, a gang without a constraint that does not fit: upstream's single placement, so
// its message carries the "0/1 placements" prefix, and nothing is assumed or bound. Workload-aware
// preemption still runs for it (it asks no domain), and says it found no victims.
TEST_F(PodGroupTopologyTest, AnUnconstrainedGangThatDoesNotFitReportsItsOnePlacement) {
  start(true);
  add_node("a1", "rack-a", "4");
  add_pod_group("pg", 4, "");
  for (const char* n : {"m0", "m1", "m2", "m3"}) add_member(n, "pg", "2");
  run_cycles();
  EXPECT_EQ(client_->binds().size(), 0u);
  EXPECT_EQ(sched->cache().assumed_pod_count(), 0);
  const std::string why =
      "0/1 placements are available, first placement status: minCount (4) cannot be satisfied: 2 scheduled, 1 "
      "remaining, No preemption victims found for incoming preemptor";
  for (const char* n : {"default/m0", "default/m3"}) EXPECT_EQ(last_condition_message(n), why) << n;
  EXPECT_EQ(generated(), 1);
  EXPECT_EQ(evaluated("infeasible"), 1);
}

// CompositePodGroup trees (gates CompositePodGroup too), as upstream's
// compositePodGroupSchedulingPlacementAlgorithm (algorithm_podgroup.go at 1ff291df).

// Rack a: one node of 8 CPUs; rack b: one of 4. A composite of two gangs of 2 x 2 CPUs fits whole
// only in rack a. Per pod, the default scoring (least allocated) would spread the members over
// both nodes, and does without the gate; with it, the composite's rack constraint keeps the whole
// tree in rack a. Generated placements: the root's two racks, then in each evaluation and in the
// final placement one (unchanged) placement per PodGroup.
TEST_F(PodGroupTopologyTest, ACompositeWithATopologyConstraintPlacesItsWholeTreeInOneRack) {
  for (bool gate : {false, true}) {
    SCOPED_TRACE(gate);
    start(gate, 7, /*composite_gate=*/true);
    add_node("a1", "rack-a", "8");
    add_node("b1", "rack-b", "4");
    add_composite("train", 2, kRack);
    add_pod_group("pg1", 2, "", "train");
    add_pod_group("pg2", 2, "", "train");
    for (const char* n : {"p1-0", "p1-1"}) add_member(n, "pg1", "2");
    for (const char* n : {"p2-0", "p2-1"}) add_member(n, "pg2", "2");
    run_cycles();
    ASSERT_EQ(client_->binds().size(), 4u);
    if (gate) {
      EXPECT_EQ(racks_bound(), (std::set<std::string>{"rack-a"}));
      EXPECT_GE(generated(), 2);
    } else {
      EXPECT_EQ(racks_bound(), (std::set<std::string>{"rack-a", "rack-b"}));
      EXPECT_EQ(generated(), 0);
    }
  }
}

// One node of 4 CPUs per rack: each rack takes one of the two gangs, neither takes both, so the
// composite (minGroupCount 2) is feasible in no rack although the tree would fit across them.
// Nothing binds and every member carries upstream's placement message with the first rack's verdict.
TEST_F(PodGroupTopologyTest, ATreeThatFitsOnlyAcrossRacksStaysPendingWithUpstreamsMessage) {
  start(true, 7, /*composite_gate=*/true);
  add_node("a1", "rack-a", "4");
  add_node("b1", "rack-b", "4");
  add_composite("train", 2, kRack);
  add_pod_group("pg1", 2, "", "train");
  add_pod_group("pg2", 2, "", "train");
  for (const char* n : {"p1-0", "p1-1"}) add_member(n, "pg1", "2");
  for (const char* n : {"p2-0", "p2-1"}) add_member(n, "pg2", "2");
  run_cycles();
  EXPECT_EQ(client_->binds().size(), 0u);
  EXPECT_EQ(sched->cache().assumed_pod_count(), 0);
  const std::string why =
      "0/2 placements are available, first placement status: minCount (2) cannot be satisfied: 1 scheduled, 0 remaining";
  for (const char* n : {"default/p1-0", "default/p2-1"}) EXPECT_EQ(last_condition_message(n), why) << n;
}

// A composite without a constraint over a PodGroup with one: the PodGroup's members share a rack
// (its own placements, cut from its parent's, here every node), the other gang goes where it fits.
// Rack a: two nodes of 2 CPUs; rack b: one of 4 and one of 2. pg1 (2 x 2 CPUs) fits in either
// rack; pg2 (2 x 2 CPUs) takes what is left.
TEST_F(PodGroupTopologyTest, APodGroupUnderACompositeKeepsItsOwnDomain) {
  start(true, 7, /*composite_gate=*/true);
  add_node("a1", "rack-a", "2");
  add_node("a2", "rack-a", "2");
  add_node("b1", "rack-b", "4");
  add_node("b2", "rack-b", "2");
  add_composite("train", 2, "");
  add_pod_group("pg1", 2, kRack, "train");
  add_pod_group("pg2", 2, "", "train");
  for (const char* n : {"p1-0", "p1-1"}) add_member(n, "pg1", "2");
  for (const char* n : {"p2-0", "p2-1"}) add_member(n, "pg2", "2");
  run_cycles();
  ASSERT_EQ(client_->binds().size(), 4u);
  EXPECT_EQ(racks_bound("pg1").size(), 1u);
}

}  // namespace
}  // namespace ksched::scheduler
