// Topology-aware placement of a CompositePodGroup tree (gates GangScheduling, CompositePodGroup and
// TopologyAwareWorkloadScheduling), as upstream's compositePodGroupSchedulingPlacementAlgorithm in
// algorithm_podgroup.go (kubernetes/kubernetes 1ff291df) does it: a composite's
// schedulingConstraints.topology cuts the nodes into one placement per domain, the whole tree under
// it is evaluated in each, and it lands in a feasible one; a tree that fits only across domains
// stays pending with upstream's "0/N placements are available" message; a PodGroup under a composite
// keeps its own constraint within its parent's placement; without the gate the constraint is not
// read.
#include <gtest/gtest.h>

#include <map>
#include <optional>
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
namespace sa3 = api::schedulingv1alpha3;
namespace sb1 = api::schedulingv1beta1;

constexpr const char* kRack = "topology.kubernetes.io/rack";

config::Features tree_features(bool topology) {
  config::Features f = config::features();
  f.gangScheduling = true;
  f.compositePodGroup = true;
  f.topologyAwareWorkloadScheduling = topology;
  return f;
}

class CompositePodGroupTopologyTest : public ::testing::Test {
 protected:
  void start(bool topology_gate) {
    sched.reset();
    gates.reset();
    gates.emplace(tree_features(topology_gate));
    client_ = std::make_unique<testing::FakeClusterClient>();
    lister_ = std::make_unique<testing::FakeClusterLister>();
    rack_of.clear();
    pod_group_of.clear();
    placement_metrics.reset();
    placement_registry = std::make_unique<metrics::Registry>();
    placement_metrics = std::make_unique<podgroup::PlacementMetrics>(*placement_registry);
    auto o = test_scheduler_options(clock, metrics, /*seed=*/7, /*binding_workers=*/2);
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
  // A gang CompositePodGroup in "default", with a rack constraint when `constrained`.
  void add_composite(const std::string& name, int min_group_count, bool constrained) {
    auto c = std::make_shared<sa3::CompositePodGroup>();
    c->metadata.namespace_ = "default";
    c->metadata.name = name;
    c->metadata.uid = "uid-" + name;
    c->spec.schedulingPolicy.gang.emplace().minGroupCount = min_group_count;
    if (constrained) c->spec.schedulingConstraints.emplace().topology.push_back({kRack, {}});
    sched->on_composite_pod_group_add(c);
  }
  void add_pod_group(const std::string& name, const std::string& parent, int min_count, bool constrained) {
    auto pg = std::make_shared<sb1::PodGroup>(*testing::MakePodGroup(name, min_count));
    pg->spec.parentCompositePodGroupName = parent;
    if (constrained) pg->spec.schedulingConstraints.emplace().topology.push_back({kRack, {}});
    sched->on_pod_group_add(pg);
  }
  void add_member(const std::string& name, const std::string& pod_group, const std::string& cpu) {
    api::Pod p = MakePod().Name(name).UID(name).Req({{"cpu", cpu}}).PodGroupName(pod_group).Obj();
    p.spec.schedulerName = "default-scheduler";
    auto ptr = std::make_shared<const api::Pod>(std::move(p));
    pod_group_of["default/" + name] = pod_group;
    lister_->add_pod(ptr);
    sched->on_pod_add(ptr);
  }
  void run_cycles() {
    for (int i = 0; i < 100 && sched->schedule_one_if_pending(); ++i) {
    }
    ASSERT_TRUE(sched->wait_for_bindings(10s));
  }
  // The racks the binds went to, of every pod or of one PodGroup's.
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

// Rack a: one node of 8 CPUs; rack b: one of 4. A composite of two gangs of 2 x 2 CPUs fits whole
// only in rack a. Per pod, the default scoring (least allocated) would spread the members over
// both nodes, and does without the gate; with it, the composite's rack constraint keeps the whole
// tree in rack a. Generated placements: the root's two racks, then in each evaluation and in the
// final placement one (unchanged) placement per PodGroup.
TEST_F(CompositePodGroupTopologyTest, ACompositeWithATopologyConstraintPlacesItsWholeTreeInOneRack) {
  for (bool gate : {false, true}) {
    SCOPED_TRACE(gate);
    start(gate);
    add_node("a1", "rack-a", "8");
    add_node("b1", "rack-b", "4");
    add_composite("train", 2, /*constrained=*/true);
    add_pod_group("pg1", "train", 2, false);
    add_pod_group("pg2", "train", 2, false);
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
TEST_F(CompositePodGroupTopologyTest, ATreeThatFitsOnlyAcrossRacksStaysPendingWithUpstreamsMessage) {
  start(true);
  add_node("a1", "rack-a", "4");
  add_node("b1", "rack-b", "4");
  add_composite("train", 2, /*constrained=*/true);
  add_pod_group("pg1", "train", 2, false);
  add_pod_group("pg2", "train", 2, false);
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
TEST_F(CompositePodGroupTopologyTest, APodGroupUnderACompositeKeepsItsOwnDomain) {
  start(true);
  add_node("a1", "rack-a", "2");
  add_node("a2", "rack-a", "2");
  add_node("b1", "rack-b", "4");
  add_node("b2", "rack-b", "2");
  add_composite("train", 2, /*constrained=*/false);
  add_pod_group("pg1", "train", 2, /*constrained=*/true);
  add_pod_group("pg2", "train", 2, false);
  for (const char* n : {"p1-0", "p1-1"}) add_member(n, "pg1", "2");
  for (const char* n : {"p2-0", "p2-1"}) add_member(n, "pg2", "2");
  run_cycles();
  ASSERT_EQ(client_->binds().size(), 4u);
  EXPECT_EQ(racks_bound("pg1").size(), 1u);
}

}  // namespace
}  // namespace ksched::scheduler
