// InterPodAffinity keeps its per-topology counts across cycles and updates them from the nodes the
// snapshot says changed. These tests drive a real cache through random pod and node changes and
// check, every cycle, that the long-lived plugin decides exactly as a fresh instance that counts
// every pod from scratch.
#include <gtest/gtest.h>

#include <random>

#include "api/core.h"
#include "scheduler/plugins/interpodaffinity/interpodaffinity.h"
#include "scheduler_testing/lockstep.h"

namespace ksched::scheduler::plugins::interpodaffinity {
namespace {

namespace fw = framework;
using testing::AffinityKind;
using testing::MakeLabelSelector;
using testing::MakeNode;
using testing::MakePod;

constexpr const char* kZone = "topology.kubernetes.io/zone";
constexpr const char* kHost = "kubernetes.io/hostname";

// Pod shapes covering every count the plugin keeps: required affinity and anti-affinity of the
// incoming pod, existing pods' anti-affinity, preferred terms both ways, explicit namespaces and
// a namespaceSelector.
api::Pod shaped_pod(int shape, const std::string& name) {
  auto w = MakePod().Name(name);
  switch (shape) {
    case 0:
      w.Label("app", "a");
      break;
    case 1:
      w.Label("app", "b").PodAntiAffinityIn("app", kHost, {"b"}, AffinityKind::Required);
      break;
    case 2:
      w.Label("app", "a").PodAffinityIn("app", kZone, {"a"}, AffinityKind::Required);
      break;
    case 3:
      w.Label("app", "c")
          .PodAffinity(kZone, MakeLabelSelector().In("app", {"a"}).Obj(), AffinityKind::Preferred, 5)
          .PodAntiAffinity(kHost, MakeLabelSelector().In("app", {"b"}).Obj(), AffinityKind::Preferred, 3);
      break;
    case 4:
      w.Label("app", "b").PodAntiAffinityIn("app", kZone, {"a"}, AffinityKind::Required);
      break;
    case 5:
      w.Namespace("other")
          .Label("app", "c")
          .PodAntiAffinity(kZone, MakeLabelSelector().In("app", {"c"}).Obj(), AffinityKind::Preferred, 7,
                           {"default", "other"});
      break;
    default:
      w.Label("app", "d").PodAffinity(kZone, MakeLabelSelector().Exists("app").Obj(), AffinityKind::Required, 1, {},
                                      MakeLabelSelector().In("team", {"x"}).Obj());
      break;
  }
  return w.Obj();
}
constexpr int kShapes = 7;

std::shared_ptr<InterPodAffinity> new_plugin(fw::Handle& handle) {
  fw::PluginArgs pa;
  auto r = make_inter_pod_affinity(pa, handle);
  EXPECT_TRUE(r.ok());
  return std::dynamic_pointer_cast<InterPodAffinity>(r.value());
}

class Lockstep : public ::testing::Test {
 protected:
  void SetUp() override {
    auto team_x = std::make_shared<api::Namespace>();
    team_x->metadata.name = "default";
    team_x->metadata.labels.set("team", "x");
    handle.fake_lister().add_namespace(std::shared_ptr<const api::Namespace>(team_x));
    auto other = std::make_shared<api::Namespace>();
    other->metadata.name = "other";
    handle.fake_lister().add_namespace(std::shared_ptr<const api::Namespace>(other));
    handle.set_snapshot(cluster.snapshot());
    kept = new_plugin(handle);
  }

  // Nodes n0..n9 in zones z0..z2 (a replaced node may move zone); n9 has no zone: zone terms
  // neither count nor match there.
  fw::NodePtr make_node(int i) {
    const std::string name = "n" + std::to_string(i);
    auto w = MakeNode().Name(name).Label(kHost, name);
    if (i != 9) w.Label(kZone, "z" + std::to_string((i + static_cast<int>(rng() % 3)) % 3));
    return std::make_shared<const api::Node>(w.Obj());
  }

  void check_cycle(int step, int shape = -1) {
    auto pod = shaped_pod(shape >= 0 ? shape : static_cast<int>(rng() % kShapes), "incoming");
    const auto& list = cluster.snapshot()->list();
    fw::PodInfoPtr nominated;
    if (rng() % 4 == 0 && !list.empty()) {
      auto n = shaped_pod(static_cast<int>(rng() % kShapes), "nominated");
      n.spec.nodeName = std::string(list.front()->name());
      nominated = fw::PodInfo::make(std::make_shared<const api::Pod>(std::move(n)));
    }
    auto fresh = new_plugin(handle);
    const auto want = testing::decide_cycle(*fresh, *cluster.snapshot(), pod, nominated);
    const auto got = testing::decide_cycle(*kept, *cluster.snapshot(), pod, nominated);
    ASSERT_EQ(got, want) << "step " << step << "\n got: " << got.describe() << "\nwant: " << want.describe();
  }

  std::mt19937 rng{12345};
  testing::RandomCluster cluster{rng, 10, [this](int i) { return make_node(i); },
                                 [this](const std::string& name) {
                                   return shaped_pod(static_cast<int>(rng() % kShapes), name);
                                 }};
  testing::FakeHandle handle;
  std::shared_ptr<InterPodAffinity> kept;
};

TEST_F(Lockstep, KeptCountsDecideAsAFreshCountEveryCycle) {
  for (int step = 0; step < 400; ++step) {
    ASSERT_NO_FATAL_FAILURE(cluster.advance());
    ASSERT_NO_FATAL_FAILURE(check_cycle(step));
  }
  // The run must have exercised both paths, or it proved nothing about the updates.
  EXPECT_GT(kept->counts_updated(), 200u);
  EXPECT_GT(kept->counts_recounted(), 10u);
}

// A PreFilter extension adds a pod to its own cycle's counts; the kept counts, which the next
// cycle reuses, must not see it.
TEST_F(Lockstep, ExtensionsDoNotLeakIntoKeptCounts) {
  for (int i = 0; i < 30; ++i) ASSERT_NO_FATAL_FAILURE(cluster.mutate());
  cluster.update_snapshot();
  const auto pod = shaped_pod(1, "incoming");  // anti-affinity to app=b on the hostname
  const auto& list = cluster.snapshot()->list();
  fw::CycleState state;
  fw::PreFilterResult res;
  ASSERT_TRUE(kept->pre_filter(state, pod, list, res).is_success());
  // Add app=b pods on every node through the extension: every node now fails for this cycle.
  for (const auto& ni : list) {
    auto b = shaped_pod(0, "b-on-" + std::string(ni->name()));
    b.metadata.labels.set("app", "b");
    b.spec.nodeName = std::string(ni->name());
    ASSERT_TRUE(kept->add_pod(state, pod, fw::PodInfo::make(std::make_shared<const api::Pod>(b)), *ni).is_success());
  }
  for (const auto& ni : list) EXPECT_FALSE(kept->filter(state, pod, *ni).is_success()) << ni->name();
  // The next cycle, with no change to the cluster, decides as a fresh count does.
  cluster.update_snapshot();
  const auto updated_before = kept->counts_updated();
  ASSERT_NO_FATAL_FAILURE(check_cycle(0, 1));
  EXPECT_GT(kept->counts_updated(), updated_before);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::interpodaffinity
