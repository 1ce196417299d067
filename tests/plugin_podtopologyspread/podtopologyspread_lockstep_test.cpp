// PodTopologySpread keeps its PreFilter and PreScore counts across cycles and updates them from
// the nodes the snapshot says changed. This test drives a real cache through random pod and node
// changes and checks, every cycle, that the long-lived plugin filters and scores exactly as a
// fresh instance that counts every pod from scratch.
#include <gtest/gtest.h>

#include <random>

#include "api/core.h"
#include "scheduler/plugins/podtopologyspread/podtopologyspread.h"
#include "scheduler_testing/lockstep.h"

namespace ksched::scheduler::plugins::podtopologyspread {
namespace {

namespace fw = framework;
using testing::MakeLabelSelector;
using testing::MakeNode;
using testing::MakePod;

constexpr const char* kZone = "topology.kubernetes.io/zone";
constexpr const char* kHost = "kubernetes.io/hostname";

api::Pod existing_pod(std::mt19937& rng, const std::string& name) {
  auto w = MakePod().Name(name).Label("app", rng() % 3 == 0 ? "b" : "a");
  if (rng() % 5 == 0) w.Namespace("other");
  if (rng() % 10 == 0) w.Terminating();
  return w.Obj();
}

// Incoming pods covering what decides counting: plain hard constraints, minDomains, a node
// selector honoured or ignored, tolerations honoured against tainted nodes, two constraints.
api::Pod incoming_pod(int shape) {
  auto app_a = MakeLabelSelector().In("app", {"a"}).Obj();
  auto w = MakePod().Name("incoming").Label("app", "a");
  switch (shape) {
    case 0:
      w.SpreadConstraint(1, kZone, "DoNotSchedule", app_a);
      break;
    case 1:
      w.SpreadConstraint(2, kHost, "DoNotSchedule", app_a, 12);
      break;
    case 2:
      w.NodeSelector({{"disk", "ssd"}}).SpreadConstraint(1, kZone, "DoNotSchedule", app_a);
      break;
    case 3:
      w.NodeSelector({{"disk", "ssd"}}).SpreadConstraint(1, kZone, "DoNotSchedule", app_a, std::nullopt, "Ignore");
      break;
    case 4:
      w.Toleration("dedicated", "Equal", "x", "NoSchedule")
          .SpreadConstraint(1, kHost, "DoNotSchedule", app_a, std::nullopt, std::nullopt, "Honor");
      break;
    case 5:
      w.Namespace("other")
          .SpreadConstraint(1, kZone, "DoNotSchedule", MakeLabelSelector().Exists("app").Obj())
          .SpreadConstraint(3, kHost, "DoNotSchedule", app_a);
      break;
    case 6:
      w.SpreadConstraint(1, kZone, "ScheduleAnyway", app_a);
      break;
    case 7:
      w.NodeSelector({{"disk", "ssd"}})
          .SpreadConstraint(2, kHost, "ScheduleAnyway", app_a)
          .SpreadConstraint(1, kZone, "ScheduleAnyway", MakeLabelSelector().Exists("app").Obj());
      break;
    default:
      w.Toleration("dedicated", "Exists", "", "")
          .SpreadConstraint(1, kHost, "ScheduleAnyway", app_a, std::nullopt, std::nullopt, "Honor")
          .SpreadConstraint(1, kZone, "DoNotSchedule", app_a);
      break;
  }
  return w.Obj();
}
constexpr int kShapes = 9;

fw::NodePtr make_node(std::mt19937& rng, int i) {
  const std::string name = "n" + std::to_string(i);
  auto w = MakeNode().Name(name).Label(kHost, name);
  if (i != 9) w.Label(kZone, "z" + std::to_string(rng() % 3));  // n9 has no zone
  if (rng() % 2 == 0) w.Label("disk", "ssd");
  if (rng() % 4 == 0) w.Taint("dedicated", rng() % 2 == 0 ? "x" : "y", "NoSchedule");
  return std::make_shared<const api::Node>(w.Obj());
}

std::shared_ptr<PodTopologySpread> new_plugin(fw::Handle& handle) {
  fw::PluginArgs pa;
  auto r = make_pod_topology_spread(pa, handle);
  EXPECT_TRUE(r.ok());
  return std::dynamic_pointer_cast<PodTopologySpread>(r.value());
}

TEST(PodTopologySpreadLockstep, KeptCountsDecideAsAFreshCountEveryCycle) {
  std::mt19937 rng(4242);
  testing::RandomCluster cluster(
      rng, 10, [&](int i) { return make_node(rng, i); },
      [&](const std::string& name) { return existing_pod(rng, name); });
  testing::FakeHandle handle;
  handle.set_snapshot(cluster.snapshot());
  auto kept = new_plugin(handle);

  for (int step = 0; step < 400; ++step) {
    ASSERT_NO_FATAL_FAILURE(cluster.advance());
    const auto& list = cluster.snapshot()->list();
    const auto pod = incoming_pod(static_cast<int>(rng() % kShapes));
    fw::PodInfoPtr nominated;
    if (rng() % 4 == 0 && !list.empty()) {
      auto n = MakePod().Name("nominated").Label("app", "a").Node(std::string(list.front()->name())).Obj();
      nominated = fw::PodInfo::make(std::make_shared<const api::Pod>(std::move(n)));
    }
    auto fresh = new_plugin(handle);
    const auto want = testing::decide_cycle(*fresh, *cluster.snapshot(), pod, nominated);
    const auto got = testing::decide_cycle(*kept, *cluster.snapshot(), pod, nominated);
    ASSERT_EQ(got, want) << "step " << step << "\n got: " << got.describe() << "\nwant: " << want.describe();
  }
  // Both paths must have been exercised, or the run proved nothing about the updates.
  EXPECT_GT(kept->counts_updated(), 100u);
  EXPECT_GT(kept->counts_recounted(), 10u);
}

// The PreFilter extensions change their own cycle's counts; the kept counts, which the next cycle
// reuses, must not see it.
TEST(PodTopologySpreadLockstep, ExtensionsDoNotLeakIntoKeptCounts) {
  std::mt19937 rng(7);
  testing::RandomCluster cluster(
      rng, 10, [&](int i) { return make_node(rng, i); },
      [&](const std::string& name) { return existing_pod(rng, name); });
  for (int i = 0; i < 30; ++i) ASSERT_NO_FATAL_FAILURE(cluster.mutate());
  cluster.update_snapshot();
  testing::FakeHandle handle;
  handle.set_snapshot(cluster.snapshot());
  auto kept = new_plugin(handle);
  const auto pod = incoming_pod(0);  // zone, maxSkew 1, app=a
  const auto& list = cluster.snapshot()->list();
  fw::CycleState state;
  fw::PreFilterResult res;
  ASSERT_TRUE(kept->pre_filter(state, pod, list, res).is_success());
  // Five app=a pods on every node with a zone, through the extension.
  for (const auto& ni : list) {
    for (int k = 0; k < 5; ++k) {
      auto a = MakePod().Name("a" + std::to_string(k)).Label("app", "a").Node(std::string(ni->name())).Obj();
      ASSERT_TRUE(kept->add_pod(state, pod, fw::PodInfo::make(std::make_shared<const api::Pod>(a)), *ni).is_success());
    }
  }
  cluster.update_snapshot();
  const auto updated_before = kept->counts_updated();
  auto fresh = new_plugin(handle);
  const auto want = testing::decide_cycle(*fresh, *cluster.snapshot(), pod, nullptr);
  const auto got = testing::decide_cycle(*kept, *cluster.snapshot(), pod, nullptr);
  EXPECT_EQ(got, want) << "\n got: " << got.describe() << "\nwant: " << want.describe();
  EXPECT_GT(kept->counts_updated(), updated_before);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::podtopologyspread
