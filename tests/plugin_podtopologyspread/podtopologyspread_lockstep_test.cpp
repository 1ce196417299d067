// PodTopologySpread keeps its PreFilter and PreScore counts across cycles and updates them from
// the nodes the snapshot says changed. This test drives a real cache through random pod and node
// changes and checks, every cycle, that the long-lived plugin filters and scores exactly as a
// fresh instance that counts every pod from scratch.
#include <gtest/gtest.h>

#include <random>

#include "api/core.h"
#include "scheduler/cache/cache.h"
#include "scheduler/plugins/podtopologyspread/podtopologyspread.h"
#include "scheduler_testing/testing.h"

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

struct Decision {
  fw::Code pre_filter = fw::Code::Success;
  std::map<std::string, std::pair<fw::Code, std::string>> filter;
  fw::Code pre_score = fw::Code::Success;
  std::map<std::string, std::int64_t> raw_scores, scores;
  bool operator==(const Decision&) const = default;
};

std::string describe(const Decision& d) {
  std::string s = "pre_filter=" + std::to_string(static_cast<int>(d.pre_filter)) + " filter{";
  for (const auto& [n, st] : d.filter) s += n + ":" + std::to_string(static_cast<int>(st.first)) + " ";
  s += "} pre_score=" + std::to_string(static_cast<int>(d.pre_score)) + " raw{";
  for (const auto& [n, v] : d.raw_scores) s += n + ":" + std::to_string(v) + " ";
  return s + "}";
}

// PreFilter, then Filter on every node; `nominated` (optional) is added through the PreFilter
// extension to the state the first node is filtered with, as preemption does.
Decision decide(PodTopologySpread& plugin, const testing::FakeSnapshot& snap, const api::Pod& pod,
                const fw::PodInfoPtr& nominated) {
  Decision d;
  const auto& nodes = snap.list();
  // Scoring over every other node: the candidates' domains are a subset of the cluster's.
  std::vector<fw::NodeInfoPtr> candidates;
  for (std::size_t i = 0; i < nodes.size(); i += 2) candidates.push_back(nodes[i]);
  fw::CycleState score_state;
  d.pre_score = plugin.pre_score(score_state, pod, candidates).code();
  if (d.pre_score == fw::Code::Success) {
    fw::NodeScoreList list;
    for (const auto& ni : candidates) {
      std::int64_t s = 0;
      EXPECT_TRUE(plugin.score(score_state, pod, *ni, s).is_success());
      list.push_back({ni->name(), s});
      d.raw_scores[std::string(ni->name())] = s;
    }
    EXPECT_TRUE(plugin.normalize_score(score_state, pod, list).is_success());
    for (const auto& n : list) d.scores[std::string(n.name)] = n.score;
  }
  fw::CycleState state;
  fw::PreFilterResult res;
  d.pre_filter = plugin.pre_filter(state, pod, nodes, res).code();
  if (d.pre_filter != fw::Code::Success) return d;
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
  return d;
}

std::shared_ptr<PodTopologySpread> new_plugin(fw::Handle& handle) {
  fw::PluginArgs pa;
  auto r = make_pod_topology_spread(pa, handle);
  EXPECT_TRUE(r.ok());
  return std::dynamic_pointer_cast<PodTopologySpread>(r.value());
}

TEST(PodTopologySpreadLockstep, KeptCountsDecideAsAFreshCountEveryCycle) {
  std::mt19937 rng(4242);
  cache::Cache cache;
  testing::FakeHandle handle;
  auto snap = std::make_shared<testing::FakeSnapshot>();
  handle.set_snapshot(snap);
  std::vector<fw::NodePtr> nodes;
  for (int i = 0; i < 10; ++i) {
    nodes.push_back(make_node(rng, i));
    cache.add_node(nodes.back());
  }
  auto kept = new_plugin(handle);
  std::vector<fw::PodPtr> pods;
  int next_pod = 0;

  auto mutate = [&] {
    const auto r = rng() % 10;
    if (r < 6) {
      auto pod = existing_pod(rng, "p" + std::to_string(next_pod++));
      pod.spec.nodeName = "n" + std::to_string(rng() % nodes.size());
      auto ptr = std::make_shared<const api::Pod>(std::move(pod));
      ASSERT_TRUE((rng() % 3 == 0 ? cache.assume_pod(ptr) : cache.add_pod(ptr)).ok());
      pods.push_back(ptr);
    } else if (r < 9) {
      if (pods.empty()) return;
      const std::size_t i = rng() % pods.size();
      ASSERT_TRUE((cache.is_assumed_pod(*pods[i]) ? cache.forget_pod(*pods[i]) : cache.remove_pod(*pods[i])).ok());
      pods.erase(pods.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      // Relabelled or re-tainted: counts over its old labels must be made again.
      const std::size_t i = rng() % nodes.size();
      auto fresh = make_node(rng, static_cast<int>(i));
      cache.update_node(nodes[i], fresh);
      nodes[i] = fresh;
    }
  };

  for (int step = 0; step < 400; ++step) {
    const int updates = rng() % 20 == 0 ? 70 : 1;  // now and then more than the snapshot remembers
    for (int u = 0; u < updates; ++u) {
      const int changes = static_cast<int>(rng() % 4);
      for (int c = 0; c < changes; ++c) ASSERT_NO_FATAL_FAILURE(mutate());
      ASSERT_TRUE(cache.update_snapshot(snap->raw()).ok());
    }
    const auto pod = incoming_pod(static_cast<int>(rng() % kShapes));
    fw::PodInfoPtr nominated;
    if (rng() % 4 == 0 && !snap->list().empty()) {
      auto n = MakePod().Name("nominated").Label("app", "a").Node(std::string(snap->list().front()->name())).Obj();
      nominated = fw::PodInfo::make(std::make_shared<const api::Pod>(std::move(n)));
    }
    auto fresh = new_plugin(handle);
    const Decision want = decide(*fresh, *snap, pod, nominated);
    const Decision got = decide(*kept, *snap, pod, nominated);
    ASSERT_EQ(got, want) << "step " << step << "\n got: " << describe(got) << "\nwant: " << describe(want);
  }
  // Both paths must have been exercised, or the run proved nothing about the updates.
  EXPECT_GT(kept->counts_updated(), 100u);
  EXPECT_GT(kept->counts_recounted(), 10u);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::podtopologyspread
