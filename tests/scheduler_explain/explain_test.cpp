// explain(): one cycle's full record over the in-tree plugins, on a scheduler fed like the real one
// (event handlers, cache, snapshot), with nothing assumed or bound.
#include "scheduler/explain/explain.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include <boost/json.hpp>

#include "api/codec.h"
#include "scheduler/config/defaults.h"
#include "scheduler/eventhandlers.h"
#include "scheduler/in_tree_registry.h"
#include "scheduler/scheduler.h"
#include "scheduler/test_options.h"
#include "scheduler_testing/testing.h"
#include "scheduler_testing/workloads.h"
#include "scheduler/config/features.h"

namespace ksched::scheduler::explain {
namespace {
using namespace std::chrono_literals;
using ksched::scheduler::testing::MakeNode;
using ksched::scheduler::testing::MakePod;

class ExplainTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto o = test_scheduler_options(clock, metrics, /*seed=*/7, /*binding_workers=*/1);
    auto s = Scheduler::create(config::default_configuration(), new_in_tree_registry(), client, lister, o);
    ASSERT_TRUE(s.ok()) << s.error();
    sched = std::move(*s);
    // n1 empty, n2 mostly taken, n3 tainted.
    add_node(MakeNode().Name("n1").Label("kubernetes.io/hostname", "n1").Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}}).Obj());
    add_node(MakeNode().Name("n2").Label("kubernetes.io/hostname", "n2").Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}}).Obj());
    add_node(MakeNode()
                 .Name("n3")
                 .Label("kubernetes.io/hostname", "n3")
                 .Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}})
                 .Taint("dedicated", "infra", "NoSchedule")
                 .Obj());
    add_pod(MakePod().Name("busy").Node("n2").Req({{"cpu", "3"}, {"memory", "1Gi"}}).Obj());
  }
  void add_node(const api::Node& n) { sched->on_node_add(std::make_shared<const api::Node>(n)); }
  framework::PodPtr add_pod(api::Pod p) {
    p.spec.schedulerName = "default-scheduler";
    auto ptr = std::make_shared<const api::Pod>(std::move(p));
    lister.add_pod(ptr);
    sched->on_pod_add(ptr);
    return ptr;
  }
  Explanation run(const api::Pod& pod) {
    EXPECT_TRUE(sched->refresh_snapshot().ok());
    auto e = explain(*sched->profile("default-scheduler"), pod);
    EXPECT_TRUE(e.ok()) << e.error();
    return e.ok() ? *e : Explanation{};
  }
  static const NodeExplanation& node(const Explanation& e, const std::string& name) {
    for (const auto& n : e.nodes) {
      if (n.name == name) return n;
    }
    ADD_FAILURE() << "no node " << name;
    static const NodeExplanation none;
    return none;
  }

  util::FakeClock clock;
  ksched::scheduler::testing::FakeClusterLister lister;
  ksched::scheduler::testing::FakeClusterClient client;
  metrics::Registry registry;
  metrics::SchedulerMetrics metrics{registry};
  std::unique_ptr<Scheduler> sched;
};

TEST_F(ExplainTest, NamesTheWinnerTheRunnerUpAndEveryVerdictWithoutBinding) {
  auto pod = add_pod(MakePod().Name("web").Req({{"cpu", "500m"}, {"memory", "256Mi"}}).Obj());
  const Explanation e = run(*pod);
  EXPECT_EQ(e.pod, "default/web");
  EXPECT_EQ(e.profile, "default-scheduler");
  EXPECT_EQ(e.chosen, "n1");
  EXPECT_EQ(e.runnerUp, "n2");
  EXPECT_EQ(e.feasible, 2u);
  ASSERT_EQ(e.nodes.size(), 3u);
  EXPECT_EQ(e.nodes[0].name, "n1");  // feasible by score, then rejected
  EXPECT_EQ(e.nodes[2].name, "n3");

  // The tainted node: rejected by TaintToleration in upstream's words, and every later Filter
  // plugin still gave its verdict.
  const auto& n3 = node(e, "n3");
  EXPECT_EQ(n3.rejected, "TaintToleration: node(s) had untolerated taint(s)");
  EXPECT_EQ(n3.detail, "untolerated taint dedicated=infra:NoSchedule");
  bool taint_seen = false, fit_after = false;
  for (const auto& v : n3.filters) {
    if (v.plugin == "TaintToleration") {
      taint_seen = true;
      EXPECT_EQ(v.code, "UnschedulableAndUnresolvable");
    } else if (taint_seen && v.plugin == "NodeResourcesFit") {
      fit_after = true;
      EXPECT_EQ(v.code, "Success");
    }
  }
  EXPECT_TRUE(fit_after);
  EXPECT_TRUE(n3.scores.empty());

  // Scores: weighted = normalized x weight, and the total is their sum; n1 wins on the resource plugins.
  const auto& n1 = node(e, "n1");
  const auto& n2 = node(e, "n2");
  std::int64_t sum = 0;
  for (const auto& s : n1.scores) {
    EXPECT_EQ(s.weighted, s.normalized * s.weight) << s.plugin;
    sum += s.weighted;
  }
  EXPECT_EQ(sum, n1.total);
  EXPECT_GT(n1.total, n2.total);
  EXPECT_NE(e.summary.find("NodeResourcesFit +"), std::string::npos) << e.summary;
  EXPECT_EQ(e.summary.rfind("n1 scores " + std::to_string(n1.total) + ", n2 (runner-up) " + std::to_string(n2.total), 0),
            0u)
      << e.summary;
  const auto tt = std::find_if(n1.scores.begin(), n1.scores.end(), [](const auto& s) { return s.plugin == "TaintToleration"; });
  ASSERT_NE(tt, n1.scores.end());
  EXPECT_EQ(tt->raw, 0);           // no intolerable PreferNoSchedule taints...
  EXPECT_EQ(tt->normalized, 100);  // ...is the best score once normalized
  EXPECT_EQ(tt->weight, 3);

  // Nothing was assumed or bound: the same question gets the same answer, and the cycle still binds.
  EXPECT_TRUE(client.binds().empty());
  EXPECT_EQ(run(*pod).chosen, "n1");
  ASSERT_TRUE(sched->schedule_one_if_pending());
  ASSERT_TRUE(sched->wait_for_bindings(10s));
  ASSERT_EQ(client.binds().size(), 1u);
  EXPECT_EQ(client.binds()[0].node, "n1");
}

TEST_F(ExplainTest, AnUnplaceablePodGetsTheSchedulersOwnMessage) {
  auto pod = add_pod(MakePod().Name("huge").Req({{"cpu", "16"}}).Obj());
  const Explanation e = run(*pod);
  EXPECT_TRUE(e.chosen.empty());
  EXPECT_EQ(e.feasible, 0u);
  EXPECT_EQ(e.summary, "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu.");
  EXPECT_EQ(node(e, "n1").rejected, "NodeResourcesFit: Insufficient cpu");
  // The real cycle says the same before its preemption part.
  ASSERT_TRUE(sched->schedule_one_if_pending());
  ASSERT_TRUE(sched->wait_for_bindings(10s));
  bool seen = false;
  for (const auto& ev : client.events()) {
    if (ev.reason != "FailedScheduling") continue;
    seen = true;
    EXPECT_EQ(ev.note.rfind(e.summary, 0), 0u) << ev.note;
  }
  EXPECT_TRUE(seen);
}

// A bound pod is explained as if pending now: its node still counts it, so there it no longer fits.
TEST_F(ExplainTest, ABoundPodIsExplainedAsIfPendingNow) {
  auto busy = lister.get_pod("default", "busy");
  ASSERT_NE(busy, nullptr);
  const Explanation e = run(*busy);
  EXPECT_EQ(e.boundTo, "n2");
  EXPECT_EQ(e.chosen, "n1");
  EXPECT_EQ(node(e, "n2").rejected, "NodeResourcesFit: Insufficient cpu");
}

// Nodes outside a PreFilter node set are rejected in the name of the plugins that returned it.
TEST_F(ExplainTest, NodesOutsideAPreFilterResultNameThePlugin) {
  api::NodeAffinity na;
  na.requiredDuringSchedulingIgnoredDuringExecution.emplace();
  api::NodeSelectorTerm term;
  term.matchFields.push_back(api::NodeSelectorRequirement{"metadata.name", "In", {"n1"}, {}, {}});
  na.requiredDuringSchedulingIgnoredDuringExecution->nodeSelectorTerms.push_back(term);
  auto pod = add_pod(MakePod().Name("pinned").Req({{"cpu", "1"}}).NodeAffinity(na).Obj());
  const Explanation e = run(*pod);
  EXPECT_EQ(e.chosen, "n1");
  EXPECT_EQ(e.feasible, 1u);
  EXPECT_EQ(node(e, "n2").rejected, "PreFilter: node(s) didn't satisfy plugin(s) [NodeAffinity]");
  EXPECT_TRUE(node(e, "n2").filters.empty());
}

TEST_F(ExplainTest, JsonCarriesEveryNodeAndScore) {
  auto pod = add_pod(MakePod().Name("web").Req({{"cpu", "500m"}}).Obj());
  const auto json = boost::json::parse(to_json(run(*pod))).as_object();
  EXPECT_EQ(json.at("chosen").as_string(), "n1");
  const auto& nodes = json.at("nodes").as_array();
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_TRUE(nodes[0].as_object().contains("scores"));
  EXPECT_FALSE(nodes[2].as_object().at("feasible").as_bool());
  EXPECT_FALSE(nodes[2].as_object().contains("scores"));
  auto text = to_text(run(*pod));
  ASSERT_TRUE(text.ok()) << text.error();
  EXPECT_NE(text->find("Result:   would be placed on n1"), std::string::npos) << *text;
  EXPECT_NE(text->find("  TaintToleration: node(s) had untolerated taint(s)  (1 node)\n    n3: untolerated taint dedicated=infra:NoSchedule\n"),
            std::string::npos)
      << *text;
}

TEST(NaturalLess, DigitRunsCompareAsNumbers) {
  EXPECT_TRUE(natural_less("node-2", "node-10"));
  EXPECT_FALSE(natural_less("node-10", "node-2"));
  EXPECT_TRUE(natural_less("node-9", "node-10"));
  EXPECT_TRUE(natural_less("a", "b"));
  EXPECT_TRUE(natural_less("node", "node-0"));
  EXPECT_FALSE(natural_less("node-1", "node-1"));
  EXPECT_TRUE(natural_less("rack1-node9", "rack2-node1"));
  EXPECT_TRUE(natural_less("n1", "n01"));  // equal numbers: fewer digits first, so the order is total
  EXPECT_FALSE(natural_less("n01", "n1"));
}

// Twelve identical nodes that cannot take the pod: one group, the numbers once, a few names, in
// natural order; the scores of the best nodes only; every verdict of a node asked for by name.
TEST_F(ExplainTest, RejectionsAreGroupedByReasonWithTheirNumbers) {
  for (int i = 0; i < 12; ++i) {
    const std::string name = "node-" + std::to_string(i);
    add_node(MakeNode().Name(name).Label("kubernetes.io/hostname", name).Capacity({{"cpu", "2"}, {"memory", "4Gi"}, {"pods", "110"}}).Obj());
  }
  auto pod = add_pod(MakePod().Name("wide").Req({{"cpu", "3500m"}, {"memory", "1Gi"}}).Obj());
  const Explanation e = run(*pod);
  EXPECT_EQ(e.chosen, "n1");
  ASSERT_EQ(e.nodes.size(), 15u);
  // Rejected nodes in natural order: node-2 before node-10.
  std::vector<std::string> order;
  for (const auto& n : e.nodes) order.push_back(n.name);
  const auto pos = [&](const std::string& n) { return std::find(order.begin(), order.end(), n) - order.begin(); };
  EXPECT_LT(pos("node-2"), pos("node-10"));
  EXPECT_LT(pos("node-9"), pos("node-11"));
  const auto& n5 = node(e, "node-5");
  ASSERT_EQ(n5.shortfalls.size(), 1u);
  EXPECT_EQ(n5.shortfalls[0].resource, "cpu");
  EXPECT_EQ(n5.shortfalls[0].requested, "3500m");
  EXPECT_EQ(n5.shortfalls[0].used, "0");
  EXPECT_EQ(n5.shortfalls[0].allocatable, "2");
  EXPECT_EQ(node(e, "n2").shortfalls.at(0).used, "3");  // busy's 3 CPUs

  TextOptions o;
  o.top = 1;
  auto text = to_text(e, o);
  ASSERT_TRUE(text.ok()) << text.error();
  EXPECT_NE(text->find("NodeResourcesFit: Insufficient cpu  (13 nodes)\n"
                       "    node-0, node-1, node-2, node-3, node-4, node-5 and 6 more: cpu: the pod requests 3500m, 0 of 2 in use\n"
                       "    n2: cpu: the pod requests 3500m, 3 of 4 in use\n"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("best first:\n  n1  total "), std::string::npos) << *text;  // only n1 fits: nothing left out
  EXPECT_EQ(text->find("Node node-5:"), std::string::npos) << *text;

  o.nodes = {"node-5", "n1"};
  text = to_text(e, o);
  ASSERT_TRUE(text.ok()) << text.error();
  EXPECT_NE(text->find("Node node-5: rejected by NodeResourcesFit: Insufficient cpu\n"
                       "  cpu: the pod requests 3500m, 0 of 2 in use\n  Filter:\n"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("Node n1: fits\n"), std::string::npos) << *text;
  EXPECT_NE(text->find("  Score:\n    n1  total "), std::string::npos) << *text;

  o.nodes = {"nosuch"};
  text = to_text(e, o);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error(), "node \"nosuch\" is not in the scheduler's snapshot");

  TextOptions wide;
  wide.wide = true;
  text = to_text(e, wide);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("node-0, node-1, node-2, node-3, node-4, node-5, node-6, node-7, node-8, node-9, node-10, node-11:"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("Node node-11: rejected by NodeResourcesFit"), std::string::npos);
}

// The text shows the best `top` feasible nodes' scores and says how many it left out.
// DynamicResources says only "cannot allocate all claims"; explain says why on each node: the
// matching devices in use, their taints, or none matching at all.
TEST_F(ExplainTest, ADraRejectionSaysWhichRequestLacksWhatOnEachNode) {
  namespace r = api::resourcev1;
  auto put = [this]<class T>(const char* json) {
    auto o = api::decode<T>(json);
    ASSERT_TRUE(o.ok()) << o.error();
    on_dra_change(*sched, nullptr, std::make_shared<const T>(std::move(*o)));
  };
  put.operator()<r::DeviceClass>(R"({"metadata":{"name":"gpu"},
      "spec":{"selectors":[{"cel":{"expression":"device.driver == \"gpu.ksched.dev\""}}]}})");
  // n1: two GPUs, one held by another claim; n2: one GPU with a taint the claim does not tolerate.
  put.operator()<r::ResourceSlice>(R"({"metadata":{"name":"n1-gpus"},"spec":{"driver":"gpu.ksched.dev","nodeName":"n1",
      "pool":{"name":"n1","generation":1,"resourceSliceCount":1},"devices":[{"name":"gpu-0"},{"name":"gpu-1"}]}})");
  put.operator()<r::ResourceSlice>(R"({"metadata":{"name":"n2-gpus"},"spec":{"driver":"gpu.ksched.dev","nodeName":"n2",
      "pool":{"name":"n2","generation":1,"resourceSliceCount":1},
      "devices":[{"name":"gpu-0","taints":[{"key":"unhealthy","effect":"NoSchedule"}]}]}})");
  put.operator()<r::ResourceClaim>(R"({"metadata":{"name":"other","namespace":"default","uid":"u-other","resourceVersion":"5"},
      "spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu","allocationMode":"ExactCount","count":1}}]}},
      "status":{"allocation":{"devices":{"results":[{"request":"gpu","driver":"gpu.ksched.dev","pool":"n1","device":"gpu-0"}]}}}})");
  put.operator()<r::ResourceClaim>(R"({"metadata":{"name":"train","namespace":"default","uid":"u-train","resourceVersion":"6"},
      "spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu","allocationMode":"ExactCount","count":2}}]}}})");
  api::Pod p = MakePod().Name("trainer").Obj();
  api::PodResourceClaim pc;
  pc.name = "gpu";
  pc.resourceClaimName = "train";
  p.spec.resourceClaims.push_back(pc);
  auto pod = add_pod(std::move(p));
  const Explanation e = run(*pod);
  EXPECT_EQ(e.chosen, "");
  EXPECT_EQ(node(e, "n1").rejected, "DynamicResources: cannot allocate all claims");
  EXPECT_EQ(node(e, "n1").detail, "claim default/train, request gpu (2 of class gpu): 2 match, 1 free (1 in use)");
  EXPECT_EQ(node(e, "n2").detail,
            "claim default/train, request gpu (2 of class gpu): 1 match, 0 free (1 with untolerated taints)");
  // n3's node taint rejects it first; a node with no slices has nothing to match.
  EXPECT_EQ(node(e, "n3").rejected.rfind("TaintToleration:", 0), 0u) << node(e, "n3").rejected;
  auto text = to_text(e);
  ASSERT_TRUE(text.ok()) << text.error();
  EXPECT_NE(text->find("n1: claim default/train, request gpu (2 of class gpu): 2 match, 1 free (1 in use)"),
            std::string::npos)
      << *text;
}

TEST_F(ExplainTest, TextScoresOnlyTheBestFeasibleNodes) {
  for (int i = 0; i < 5; ++i) {
    const std::string name = "w" + std::to_string(i);
    add_node(MakeNode().Name(name).Label("kubernetes.io/hostname", name).Capacity({{"cpu", "8"}, {"memory", "8Gi"}, {"pods", "110"}}).Obj());
  }
  auto pod = add_pod(MakePod().Name("small").Req({{"cpu", "100m"}}).Obj());
  const Explanation e = run(*pod);
  ASSERT_EQ(e.feasible, 7u);
  TextOptions o;
  o.top = 2;
  auto text = to_text(e, o);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("best first, 2 of 7 feasible nodes:\n"), std::string::npos) << *text;
  EXPECT_NE(text->find("  " + e.nodes[1].name + "  total "), std::string::npos);
  EXPECT_EQ(text->find("  " + e.nodes[2].name + "  total "), std::string::npos) << *text;
}

// A gang member's explanation carries its group's state (GangScheduling gate): how many members
// exist against minCount, how many are bound; without the gate there is no pod-group state.
TEST(ExplainPodGroup, AGangMemberSaysItsGroupsState) {
  config::Features f = config::features();
  f.gangScheduling = true;
  config::ScopedFeatures gates(f);
  util::FakeClock clock;
  testing::FakeClusterLister lister;
  testing::FakeClusterClient client;
  metrics::Registry registry;
  metrics::SchedulerMetrics metrics{registry};
  auto s = Scheduler::create(config::default_configuration(), new_in_tree_registry(), client, lister,
                             test_scheduler_options(clock, metrics, 7, 1));
  ASSERT_TRUE(s.ok()) << s.error();
  auto& sched = **s;
  sched.on_node_add(std::make_shared<const api::Node>(
      MakeNode().Name("n1").Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}}).Obj()));
  sched.on_workload_add(testing::MakeGangWorkload("job", 3));
  auto member = [&](const std::string& name, const std::string& node) {
    api::Pod p = MakePod().Name(name).UID(name).Req({{"cpu", "1"}}).WorkloadRef("job", "workers").Obj();
    p.spec.schedulerName = "default-scheduler";
    p.spec.nodeName = node;
    auto ptr = std::make_shared<const api::Pod>(std::move(p));
    lister.add_pod(ptr);
    sched.on_pod_add(ptr);
    return ptr;
  };
  member("a", "n1");
  auto b = member("b", "");
  ASSERT_TRUE(sched.refresh_snapshot().ok());
  auto e = explain(*sched.profile("default-scheduler"), *b);
  ASSERT_TRUE(e.ok()) << e.error();
  ASSERT_TRUE(e->podGroup);
  EXPECT_EQ(e->podGroup->workload, "job");
  EXPECT_EQ(e->podGroup->policy, "gang");
  EXPECT_EQ(e->podGroup->minCount, 3);
  EXPECT_EQ(e->podGroup->members, 2u);
  EXPECT_EQ(e->podGroup->bound, 1u);
  EXPECT_EQ(e->podGroup->assumed, 0u);
  auto text = to_text(*e);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("Group:    Workload job, pod group workers (gang, minCount 3): 2 members exist, 1 bound, 0 assumed"),
            std::string::npos) << *text;
  EXPECT_NE(text->find("waiting for minCount pods: 2 of 3 exist"), std::string::npos) << *text;
  member("c", "");
  e = explain(*sched.profile("default-scheduler"), *b);
  ASSERT_TRUE(e.ok());
  text = to_text(*e);
  EXPECT_NE(text->find("placed all or nothing: this pod is bound only in a cycle that places at least 2 pending members"),
            std::string::npos) << *text;
  EXPECT_NE(to_json(*e).find("\"podGroup\":{\"workload\":\"job\""), std::string::npos);
}

TEST_F(ExplainTest, NoPodGroupStateWithoutTheGate) {
  auto e = run(MakePod().Name("w").WorkloadRef("job", "workers").Req({{"cpu", "1"}}).Obj());
  EXPECT_FALSE(e.podGroup);
}

}  // namespace
}  // namespace ksched::scheduler::explain

namespace ksched::scheduler::explain {
namespace {

// A scheduler with the GangScheduling gate, fed like the real one, for explain_with_group: its gang
// placement is the pod-group cycle's loop run as a dry run (Scheduler::dry_run_pod_group).
class ExplainGangTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config::Features f = config::features();
    f.gangScheduling = true;
    gates.emplace(f);
    auto s = Scheduler::create(config::default_configuration(), new_in_tree_registry(), client, lister,
                               test_scheduler_options(clock, metrics, 7, 1));
    ASSERT_TRUE(s.ok()) << s.error();
    sched = std::move(*s);
  }
  void add_node(const std::string& name, const std::string& cpu) {
    sched->on_node_add(std::make_shared<const api::Node>(
        MakeNode().Name(name).Label("kubernetes.io/hostname", name).Capacity({{"cpu", cpu}, {"memory", "64Gi"}, {"pods", "110"}}).Obj()));
  }
  framework::PodPtr member(const std::string& name, const std::string& cpu) {
    api::Pod p = MakePod().Name(name).UID(name).Req({{"cpu", cpu}}).WorkloadRef("job", "workers").Obj();
    p.spec.schedulerName = "default-scheduler";
    auto ptr = std::make_shared<const api::Pod>(std::move(p));
    lister.add_pod(ptr);
    sched->on_pod_add(ptr);
    return ptr;
  }
  Explanation run(const api::Pod& pod) {
    EXPECT_TRUE(sched->refresh_snapshot().ok());
    auto e = explain_with_group(*sched, *sched->profile("default-scheduler"), pod);
    EXPECT_TRUE(e.ok()) << e.error();
    return e.ok() ? *e : Explanation{};
  }

  std::optional<config::ScopedFeatures> gates;
  util::FakeClock clock;
  ksched::scheduler::testing::FakeClusterLister lister;
  ksched::scheduler::testing::FakeClusterClient client;
  metrics::Registry registry;
  metrics::SchedulerMetrics metrics{registry};
  std::unique_ptr<Scheduler> sched;
};

// Upstream's pod-group cycle (algorithm_podgroup.go): members placed in order, each seen by the
// next, PlacementFeasible (GangScheduling) rejecting with "minCount (4) cannot be satisfied: 3
// scheduled, 0 remaining" once the rest cannot reach minCount. Explain names the member that
// blocks the group, with its per-node reasons as the cycle saw them (the three placed before it),
// and keeps nothing.
TEST_F(ExplainGangTest, AGangOfFourWithRoomForThreeNamesTheMemberThatBlocks) {
  add_node("n1", "2");
  add_node("n2", "2");
  add_node("n3", "2");
  sched->on_workload_add(testing::MakeGangWorkload("job", 4));
  std::vector<framework::PodPtr> pods;
  for (int i = 0; i < 4; ++i) pods.push_back(member("g-" + std::to_string(i), "2"));

  const Explanation e = run(*pods[0]);
  ASSERT_TRUE(e.gang);
  const GangPlacement& g = *e.gang;
  EXPECT_EQ(g.minCount, 4);
  EXPECT_EQ(g.pending, 4u);
  EXPECT_EQ(g.placed, 3u);
  EXPECT_EQ(g.unplaced, 1u);
  EXPECT_FALSE(g.wouldBind);
  EXPECT_EQ(g.verdict, "minCount (4) cannot be satisfied: 3 scheduled, 0 remaining");
  EXPECT_EQ(g.blocking, "default/g-3");
  EXPECT_EQ(g.blockingWhy, "0/3 nodes are available: 3 Insufficient cpu.");
  ASSERT_EQ(g.blockingNodes.size(), 3u);
  for (const auto& n : g.blockingNodes) {
    EXPECT_EQ(n.rejected, "NodeResourcesFit: Insufficient cpu") << n.name;
    ASSERT_EQ(n.shortfalls.size(), 1u);
    EXPECT_EQ(n.shortfalls[0].requested, "2");
    EXPECT_EQ(n.shortfalls[0].used, "2");  // the member placed there before it
  }
  std::set<std::string> nodes;
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(g.members[i].pod, "default/g-" + std::to_string(i));
    EXPECT_TRUE(g.members[i].tried);
    nodes.insert(g.members[i].node);
  }
  EXPECT_EQ(nodes, (std::set<std::string>{"n1", "n2", "n3"}));
  EXPECT_TRUE(g.members[3].node.empty());
  EXPECT_EQ(g.members[3].reason, "0/3 nodes are available: 3 Insufficient cpu.");
  EXPECT_FALSE(g.thisPod.empty());  // g-0 is placed; the group is not

  auto text = to_text(e);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("Gang placement (the pod-group cycle tried now, nothing kept): 3 of 4 pending members placed, "
                       "minCount 4: the group stays pending\n  minCount (4) cannot be satisfied: 3 scheduled, 0 remaining\n"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("  default/g-3: fits nowhere\n"), std::string::npos) << *text;
  EXPECT_NE(text->find("  Blocking member: default/g-3, the first that fits nowhere with the 3 placed before it\n"
                       "    0/3 nodes are available: 3 Insufficient cpu.\n"
                       "    NodeResourcesFit: Insufficient cpu  (3 nodes)\n"
                       "      n1, n2, n3: cpu: the pod requests 2, 2 of 2 in use\n"),
            std::string::npos)
      << *text;
  const auto json = boost::json::parse(to_json(e)).as_object();
  EXPECT_EQ(json.at("gang").at("blocking").as_string(), "default/g-3");
  EXPECT_EQ(json.at("gang").at("verdict").as_string(), "minCount (4) cannot be satisfied: 3 scheduled, 0 remaining");
  EXPECT_EQ(json.at("gang").at("blockingNodes").as_array().size(), 3u);

  // Nothing kept: no member assumed, nothing bound, and the same answer again.
  for (const auto& p : pods) EXPECT_FALSE(sched->cache().is_assumed_pod(*p)) << p->metadata.name;
  EXPECT_TRUE(client.binds().empty());
  const Explanation again = run(*pods[3]);
  ASSERT_TRUE(again.gang);
  EXPECT_EQ(again.gang->blocking, "default/g-3");
  EXPECT_EQ(again.gang->placed, 3u);
  EXPECT_TRUE(again.gang->thisPod.empty());
}

// A gang that fits: every member's node, and the cycle would commit the group.
TEST_F(ExplainGangTest, AGangThatFitsSaysWhereEachMemberGoes) {
  add_node("n1", "2");
  add_node("n2", "2");
  sched->on_workload_add(testing::MakeGangWorkload("job", 4));
  std::vector<framework::PodPtr> pods;
  for (int i = 0; i < 4; ++i) pods.push_back(member("g-" + std::to_string(i), "1"));
  const Explanation e = run(*pods[2]);
  ASSERT_TRUE(e.gang);
  EXPECT_TRUE(e.gang->wouldBind);
  EXPECT_EQ(e.gang->verdict, "");
  EXPECT_EQ(e.gang->placed, 4u);
  EXPECT_EQ(e.gang->blocking, "");
  std::map<std::string, std::size_t> per_node(e.gang->perNode.begin(), e.gang->perNode.end());
  EXPECT_EQ(per_node, (std::map<std::string, std::size_t>{{"n1", 2}, {"n2", 2}}));
  for (const auto& m : e.gang->members) EXPECT_FALSE(m.node.empty()) << m.pod;
  EXPECT_EQ(e.gang->thisPod, e.gang->members[2].node);
  auto text = to_text(e);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("4 of 4 pending members placed, minCount 4: the group would be bound\n"), std::string::npos) << *text;
  for (const auto& m : e.gang->members) {
    EXPECT_NE(text->find("  " + m.pod + ": -> " + m.node + "\n"), std::string::npos) << *text;
  }
  EXPECT_NE(text->find("in the cycle this pod goes to " + e.gang->thisPod), std::string::npos) << *text;
  EXPECT_EQ(text->find("Blocking member"), std::string::npos) << *text;
  for (const auto& p : pods) EXPECT_FALSE(sched->cache().is_assumed_pod(*p));
}

// 1,000 members, room for 990: the text aggregates per node and names a few members only.
TEST_F(ExplainGangTest, AThousandMemberGangsOutputStaysShort) {
  for (int n = 1; n <= 10; ++n) add_node("n" + std::to_string(n), "99");
  sched->on_workload_add(testing::MakeGangWorkload("job", 1000));
  std::vector<framework::PodPtr> pods;
  for (int i = 0; i < 1000; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "g-%04d", i);
    pods.push_back(member(name, "1"));
  }
  const Explanation e = run(*pods[0]);
  ASSERT_TRUE(e.gang);
  EXPECT_EQ(e.gang->placed, 990u);
  EXPECT_EQ(e.gang->unplaced, 1u);  // PlacementFeasible stops the group at the first that fails
  EXPECT_EQ(e.gang->blocking, "default/g-0990");
  EXPECT_EQ(e.gang->verdict, "minCount (1000) cannot be satisfied: 990 scheduled, 9 remaining");
  ASSERT_EQ(e.gang->perNode.size(), 10u);
  for (const auto& [node, count] : e.gang->perNode) EXPECT_EQ(count, 99u) << node;
  auto text = to_text(e);
  ASSERT_TRUE(text.ok());
  // The gang's part is a few lines whatever its size (the rest is the pod's own explanation).
  const auto at = text->find("\nGang placement");
  ASSERT_NE(at, std::string::npos) << *text;
  EXPECT_LE(std::count(text->begin() + static_cast<std::ptrdiff_t>(at) + 1, text->end(), '\n'), 8) << *text;
  EXPECT_LT(text->size(), 4000u) << *text;
  EXPECT_NE(text->find("  placed per node: n1 99, n2 99, n3 99, n4 99, n5 99, n6 99, n7 99, n8 99, n9 99, n10 99\n"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("  Not tried: 9 members (PlacementFeasible stopped the group first)\n"), std::string::npos) << *text;
  EXPECT_EQ(text->find("g-0001"), std::string::npos) << "members are not listed one by one";
  for (const auto& p : pods) ASSERT_FALSE(sched->cache().is_assumed_pod(*p));
}

// Every member bound: no pending member, no cycle to try, no gang placement.
TEST_F(ExplainGangTest, NoGangPlacementWhenEveryMemberIsBound) {
  add_node("n1", "8");
  sched->on_workload_add(testing::MakeGangWorkload("job", 2));
  std::vector<framework::PodPtr> pods;
  for (const char* name : {"a", "b"}) {
    api::Pod p = MakePod().Name(name).UID(name).Node("n1").Req({{"cpu", "1"}}).WorkloadRef("job", "workers").Obj();
    p.spec.schedulerName = "default-scheduler";
    pods.push_back(std::make_shared<const api::Pod>(std::move(p)));
    lister.add_pod(pods.back());
    sched->on_pod_add(pods.back());
  }
  const Explanation e = run(*pods[0]);
  ASSERT_TRUE(e.podGroup);
  EXPECT_EQ(e.podGroup->bound, 2u);
  EXPECT_FALSE(e.gang);
}

// Below the quorum there is no cycle to try: no gang placement.
TEST_F(ExplainGangTest, NoGangPlacementBelowTheQuorum) {
  add_node("n1", "8");
  sched->on_workload_add(testing::MakeGangWorkload("job", 3));
  auto a = member("a", "1");
  member("b", "1");
  const Explanation e = run(*a);
  ASSERT_TRUE(e.podGroup);
  EXPECT_FALSE(e.gang);
}

}  // namespace
}  // namespace ksched::scheduler::explain
