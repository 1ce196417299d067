// InterPodAffinity keeps its per-topology counts across cycles and updates them from the nodes the
// snapshot says changed. These tests drive a real cache through random pod and node changes and
// check, every cycle, that the long-lived plugin decides exactly as a fresh instance that counts
// every pod from scratch.
#include <gtest/gtest.h>

#include <random>

#include "api/core.h"
#include "scheduler/cache/cache.h"
#include "scheduler/plugins/interpodaffinity/interpodaffinity.h"
#include "scheduler_testing/testing.h"

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

fw::NodePtr make_node(int i, int zone_variant) {
  const std::string name = "n" + std::to_string(i);
  auto w = MakeNode().Name(name).Label(kHost, name);
  // The last node has no zone: zone terms neither count nor match there.
  if (i != 9) w.Label(kZone, "z" + std::to_string((i + zone_variant) % 3));
  return std::make_shared<const api::Node>(w.Obj());
}

struct Decision {
  std::map<std::string, std::pair<fw::Code, std::string>> filter;
  fw::Code pre_filter = fw::Code::Success;
  fw::Code pre_score = fw::Code::Success;
  std::map<std::string, std::int64_t> scores;
  bool operator==(const Decision&) const = default;
};

std::string describe(const Decision& d) {
  std::string s = "pre_filter=" + std::to_string(static_cast<int>(d.pre_filter)) + " filter{";
  for (const auto& [n, st] : d.filter) s += n + ":" + std::to_string(static_cast<int>(st.first)) + " ";
  s += "} pre_score=" + std::to_string(static_cast<int>(d.pre_score)) + " scores{";
  for (const auto& [n, v] : d.scores) s += n + ":" + std::to_string(v) + " ";
  return s + "}";
}

// One cycle as the framework runs it; `nominated` (optional) is added to the state of the first
// node through the PreFilter extension, as preemption and nominated pods do.
Decision decide(InterPodAffinity& plugin, const testing::FakeSnapshot& snap, const api::Pod& pod,
                const fw::PodInfoPtr& nominated) {
  Decision d;
  const auto& nodes = snap.list();
  fw::CycleState state;
  fw::PreFilterResult res;
  d.pre_filter = plugin.pre_filter(state, pod, nodes, res).code();
  if (d.pre_filter == fw::Code::Success) {
    std::unique_ptr<fw::CycleState> extended;
    if (nominated && !nodes.empty()) {
      extended = state.clone();
      EXPECT_TRUE(plugin.add_pod(*extended, pod, nominated, *nodes.front()).is_success());
    }
    for (const auto& ni : nodes) {
      const fw::CycleState& use = extended && ni == nodes.front() ? *extended : state;
      auto st = plugin.filter(use, pod, *ni);
      d.filter[std::string(ni->name())] = {st.code(), st.message()};
    }
  }
  fw::CycleState score_state;
  d.pre_score = plugin.pre_score(score_state, pod, nodes).code();
  if (d.pre_score == fw::Code::Success) {
    fw::NodeScoreList list;
    for (const auto& ni : nodes) {
      std::int64_t s = 0;
      EXPECT_TRUE(plugin.score(score_state, pod, *ni, s).is_success());
      list.push_back({ni->name(), s});
    }
    EXPECT_TRUE(plugin.normalize_score(score_state, pod, list).is_success());
    for (const auto& n : list) d.scores[std::string(n.name)] = n.score;
  }
  return d;
}

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
    snap = std::make_shared<testing::FakeSnapshot>();
    handle.set_snapshot(snap);
    for (int i = 0; i < 10; ++i) {
      nodes.push_back(make_node(i, 0));
      cache.add_node(nodes.back());
    }
    kept = new_plugin(handle);
  }

  void add_random_pod() {
    auto pod = shaped_pod(static_cast<int>(rng() % kShapes), "p" + std::to_string(next_pod++));
    pod.spec.nodeName = "n" + std::to_string(rng() % nodes.size());
    auto ptr = std::make_shared<const api::Pod>(std::move(pod));
    // Assumed pods count like bound ones; some stay assumed, the rest are confirmed.
    if (rng() % 3 == 0) {
      ASSERT_TRUE(cache.assume_pod(ptr).ok());
    } else {
      ASSERT_TRUE(cache.add_pod(ptr).ok());
    }
    pods.push_back(ptr);
  }
  void remove_random_pod() {
    if (pods.empty()) return;
    const std::size_t i = rng() % pods.size();
    if (cache.is_assumed_pod(*pods[i])) {
      ASSERT_TRUE(cache.forget_pod(*pods[i]).ok());
    } else {
      ASSERT_TRUE(cache.remove_pod(*pods[i]).ok());
    }
    pods.erase(pods.begin() + static_cast<std::ptrdiff_t>(i));
  }
  // A relabelled node: every count that used its old labels must be made again.
  void relabel_random_node() {
    const std::size_t i = rng() % nodes.size();
    auto fresh = make_node(static_cast<int>(i), static_cast<int>(rng() % 3));
    cache.update_node(nodes[i], fresh);
    nodes[i] = fresh;
  }
  void mutate() {
    const auto r = rng() % 10;
    if (r < 6) {
      add_random_pod();
    } else if (r < 9) {
      remove_random_pod();
    } else {
      relabel_random_node();
    }
  }
  void check_cycle(int step, int shape = -1) {
    auto pod = shaped_pod(shape >= 0 ? shape : static_cast<int>(rng() % kShapes), "incoming");
    fw::PodInfoPtr nominated;
    if (rng() % 4 == 0) {
      auto n = shaped_pod(static_cast<int>(rng() % kShapes), "nominated");
      if (!snap->list().empty()) n.spec.nodeName = std::string(snap->list().front()->name());
      nominated = fw::PodInfo::make(std::make_shared<const api::Pod>(std::move(n)));
    }
    auto fresh = new_plugin(handle);
    const Decision want = decide(*fresh, *snap, pod, nominated);
    const Decision got = decide(*kept, *snap, pod, nominated);
    ASSERT_EQ(got, want) << "step " << step << "\n got: " << describe(got) << "\nwant: " << describe(want);
  }

  std::mt19937 rng{12345};
  cache::Cache cache;
  testing::FakeHandle handle;
  std::shared_ptr<testing::FakeSnapshot> snap;
  std::shared_ptr<InterPodAffinity> kept;
  std::vector<fw::NodePtr> nodes;
  std::vector<fw::PodPtr> pods;
  int next_pod = 0;
};

TEST_F(Lockstep, KeptCountsDecideAsAFreshCountEveryCycle) {
  for (int step = 0; step < 400; ++step) {
    // Between cycles: usually a few changes, sometimes none, and now and then more snapshot
    // updates than the snapshot remembers (every count must then be made again).
    const auto r = rng() % 20;
    const int updates = r == 0 ? 70 : 1;
    for (int u = 0; u < updates; ++u) {
      const int changes = static_cast<int>(rng() % 4);
      for (int c = 0; c < changes; ++c) ASSERT_NO_FATAL_FAILURE(mutate());
      ASSERT_TRUE(cache.update_snapshot(snap->raw()).ok());
    }
    ASSERT_NO_FATAL_FAILURE(check_cycle(step));
  }
  // The run must have exercised both paths, or it proved nothing about the updates.
  EXPECT_GT(kept->counts_updated(), 200u);
  EXPECT_GT(kept->counts_recounted(), 10u);
}

// A PreFilter extension adds a pod to its own cycle's counts; the kept counts, which the next
// cycle reuses, must not see it.
TEST_F(Lockstep, ExtensionsDoNotLeakIntoKeptCounts) {
  for (int i = 0; i < 30; ++i) add_random_pod();
  ASSERT_TRUE(cache.update_snapshot(snap->raw()).ok());
  const auto pod = shaped_pod(1, "incoming");  // anti-affinity to app=b on the hostname
  const auto& list = snap->list();
  fw::CycleState state;
  fw::PreFilterResult res;
  ASSERT_TRUE(kept->pre_filter(state, pod, list, res).is_success());
  // Add app=b pods on every node through the extension: every node now fails for this cycle.
  for (const auto& ni : list) {
    auto b = shaped_pod(0, "b-on-" + ni->name());
    b.metadata.labels.set("app", "b");
    b.spec.nodeName = std::string(ni->name());
    ASSERT_TRUE(kept->add_pod(state, pod, fw::PodInfo::make(std::make_shared<const api::Pod>(b)), *ni).is_success());
  }
  for (const auto& ni : list) EXPECT_FALSE(kept->filter(state, pod, *ni).is_success()) << ni->name();
  // The next cycle, with no change to the cluster, decides as a fresh count does.
  ASSERT_TRUE(cache.update_snapshot(snap->raw()).ok());
  const auto updated_before = kept->counts_updated();
  ASSERT_NO_FATAL_FAILURE(check_cycle(0, 1));
  EXPECT_GT(kept->counts_updated(), updated_before);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::interpodaffinity
