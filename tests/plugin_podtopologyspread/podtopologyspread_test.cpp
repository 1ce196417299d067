// PodTopologySpread: filter statuses and scores derived by hand from upstream's formulas
// (skew = count(domain) + selfMatch - min, min = 0 below minDomains; score
// round(Σ cnt·ln(domains+2) + maxSkew-1), normalised 100·(max+min-s)/max).
#include "scheduler/plugins/podtopologyspread/podtopologyspread.h"

#include <gtest/gtest.h>

#include <map>

#include "api/core.h"
#include "scheduler/config/types.h"
#include "scheduler_testing/testing.h"

namespace ksched::scheduler::plugins::podtopologyspread {
namespace {

namespace fw = framework;
using testing::MakeLabelSelector;
using testing::MakeNode;
using testing::MakePod;

constexpr const char* kZone = "topology.kubernetes.io/zone";
constexpr const char* kHost = "kubernetes.io/hostname";

enum class Want { Ok, Unsched, UU };

struct Env {
  testing::FakeHandle handle;
  std::shared_ptr<PodTopologySpread> plugin;

  explicit Env(const std::vector<api::Pod>& pods, const std::vector<api::Node>& nodes,
               const config::PodTopologySpreadArgs* args = nullptr) {
    handle.set_snapshot(pods, nodes);
    fw::PluginArgs pa;
    if (args) pa.value = *args;
    auto r = make_pod_topology_spread(pa, handle);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error());
    plugin = std::dynamic_pointer_cast<PodTopologySpread>(r.value());
  }

  fw::Status pre_filter(fw::CycleState& state, const api::Pod& pod) {
    fw::PreFilterResult res;
    return plugin->pre_filter(state, pod, handle.snapshot().list(), res);
  }

  std::map<std::string, fw::Status> filter_all(const fw::CycleState& state, const api::Pod& pod) {
    std::map<std::string, fw::Status> out;
    for (const auto& ni : handle.snapshot().list()) out[ni->name()] = plugin->filter(state, pod, *ni);
    return out;
  }

  // PreScore + Score + NormalizeScore over every snapshot node (all treated as feasible).
  std::map<std::string, std::int64_t> scores(const api::Pod& pod, fw::Status* pre_score_status = nullptr) {
    fw::CycleState state;
    const auto& nodes = handle.snapshot().list();
    fw::Status st = plugin->pre_score(state, pod, nodes);
    if (pre_score_status) *pre_score_status = st;
    std::map<std::string, std::int64_t> out;
    if (!st.is_success()) return out;
    fw::NodeScoreList list;
    for (const auto& ni : nodes) {
      std::int64_t s = -1;
      EXPECT_TRUE(plugin->score(state, pod, *ni, s).is_success());
      list.push_back({ni->name(), s});
    }
    EXPECT_TRUE(plugin->normalize_score(state, pod, list).is_success());
    for (const auto& ns : list) out[std::string(ns.name)] = ns.score;
    return out;
  }
};

void expect_filter(const std::map<std::string, fw::Status>& got, const std::map<std::string, Want>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [node, w] : want) {
    const fw::Status& s = got.at(node);
    switch (w) {
      case Want::Ok:
        EXPECT_TRUE(s.is_success()) << node << ": " << s.message();
        break;
      case Want::Unsched:
        EXPECT_EQ(s.code(), fw::Code::Unschedulable) << node << ": " << s.message();
        EXPECT_EQ(s.message(), kErrReasonConstraintsNotMatch) << node;
        break;
      case Want::UU:
        EXPECT_EQ(s.code(), fw::Code::UnschedulableAndUnresolvable) << node << ": " << s.message();
        EXPECT_EQ(s.message(), kErrReasonNodeLabelNotMatch) << node;
        break;
    }
  }
}

api::Node zone_node(const std::string& name, const std::string& zone) {
  return MakeNode().Name(name).Label(kZone, zone).Label(kHost, name).Obj();
}

api::Pod foo_pod(const std::string& name, const std::string& node) {
  return MakePod().Name(name).UID(name).Label("foo", "").Node(node).Obj();
}

api::LabelSelector foo_selector() { return MakeLabelSelector().Exists("foo").Obj(); }

std::vector<api::Node> four_nodes() {
  return {zone_node("node-a", "zone1"), zone_node("node-b", "zone1"), zone_node("node-x", "zone2"),
          zone_node("node-y", "zone2")};
}

// ---------------------------------------------------------------- Filter

struct FilterCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Pod> existing;
  std::vector<api::Node> nodes;
  std::map<std::string, Want> want;
};

TEST(PodTopologySpreadFilter, Table) {
  std::vector<FilterCase> cases;
  {
    // zone1 = 3, zone2 = 1, min 1: zone1 nodes 3+1-1 = 3 > 1; zone2 nodes 1+1-1 = 1.
    cases.push_back({"spread 3/1 by zone, maxSkew 1",
                     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, kZone, "DoNotSchedule", foo_selector()).Obj(),
                     {foo_pod("p-a1", "node-a"), foo_pod("p-a2", "node-a"), foo_pod("p-b1", "node-b"),
                      foo_pod("p-y1", "node-y")},
                     four_nodes(),
                     {{"node-a", Want::Unsched}, {"node-b", Want::Unsched}, {"node-x", Want::Ok}, {"node-y", Want::Ok}}});
  }
  {
    // The incoming pod does not match its own selector: selfMatch 0, so zone1 gives 3-1 = 2 > 1,
    // but with maxSkew 2 every node fits.
    cases.push_back({"no self match, maxSkew 2",
                     MakePod().Name("p").SpreadConstraint(2, kZone, "DoNotSchedule", foo_selector()).Obj(),
                     {foo_pod("p-a1", "node-a"), foo_pod("p-a2", "node-a"), foo_pod("p-b1", "node-b"),
                      foo_pod("p-y1", "node-y")},
                     four_nodes(),
                     {{"node-a", Want::Ok}, {"node-b", Want::Ok}, {"node-x", Want::Ok}, {"node-y", Want::Ok}}});
  }
  {
    // Counts 1/1 but minDomains 3 > 2 domains: min = 0, so every node gives 1+1-0 = 2 > 1.
    cases.push_back({"minDomains above domain count",
                     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, kZone, "DoNotSchedule", foo_selector(), 3).Obj(),
                     {foo_pod("p-a1", "node-a"), foo_pod("p-x1", "node-x")},
                     four_nodes(),
                     {{"node-a", Want::Unsched}, {"node-b", Want::Unsched}, {"node-x", Want::Unsched},
                      {"node-y", Want::Unsched}}});
    // Same with minDomains 2 (= domains): min = 1, 1+1-1 = 1 fits.
    cases.push_back({"minDomains met",
                     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, kZone, "DoNotSchedule", foo_selector(), 2).Obj(),
                     {foo_pod("p-a1", "node-a"), foo_pod("p-x1", "node-x")},
                     four_nodes(),
                     {{"node-a", Want::Ok}, {"node-b", Want::Ok}, {"node-x", Want::Ok}, {"node-y", Want::Ok}}});
  }
  {
    // A node without the topology key is U&U; it is not counted as a domain either.
    auto nodes = four_nodes();
    nodes.push_back(MakeNode().Name("node-z").Label(kHost, "node-z").Obj());
    cases.push_back({"missing topology label",
                     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, kZone, "DoNotSchedule", foo_selector()).Obj(),
                     {foo_pod("p-a1", "node-a"), foo_pod("p-z1", "node-z"), foo_pod("p-z2", "node-z")},
                     nodes,
                     {{"node-a", Want::Unsched},
                      {"node-b", Want::Unsched},
                      {"node-x", Want::Ok},
                      {"node-y", Want::Ok},
                      {"node-z", Want::UU}}});
  }
  {
    // Terminating pods and pods of other namespaces are not counted: zone1 = 1, zone2 = 1.
    auto other_ns = foo_pod("p-a3", "node-a");
    other_ns.metadata.namespace_ = "other";
    auto terminating = foo_pod("p-a2", "node-a");
    terminating.metadata.deletionTimestamp = api::Time{1};
    cases.push_back({"terminating and other-namespace pods ignored",
                     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, kZone, "DoNotSchedule", foo_selector()).Obj(),
                     {foo_pod("p-a1", "node-a"), terminating, other_ns, foo_pod("p-y1", "node-y")},
                     four_nodes(),
                     {{"node-a", Want::Ok}, {"node-b", Want::Ok}, {"node-x", Want::Ok}, {"node-y", Want::Ok}}});
  }
  {
    // Hostname spreading: a = 2, b = 0, x = 1, y = 1; min 0: a 2+1 = 3 > 1, x/y 1+1 = 2 > 1, b 1.
    cases.push_back({"hostname spreading",
                     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, kHost, "DoNotSchedule", foo_selector()).Obj(),
                     {foo_pod("p-a1", "node-a"), foo_pod("p-a2", "node-a"), foo_pod("p-x1", "node-x"),
                      foo_pod("p-y1", "node-y")},
                     four_nodes(),
                     {{"node-a", Want::Unsched}, {"node-b", Want::Ok}, {"node-x", Want::Unsched}, {"node-y", Want::Unsched}}});
  }
  {
    // Two constraints: zone (maxSkew 1) and hostname (maxSkew 1). zone1 = 1 (a), zone2 = 2 (x, y):
    // zone-wise zone1 fits (1+1-1 = 1), zone2 does not (2+1-1 = 2). Host-wise b: 0+1-0 fits, a: 2.
    cases.push_back({"zone and hostname constraints",
                     MakePod()
                         .Name("p")
                         .Label("foo", "")
                         .SpreadConstraint(1, kZone, "DoNotSchedule", foo_selector())
                         .SpreadConstraint(1, kHost, "DoNotSchedule", foo_selector())
                         .Obj(),
                     {foo_pod("p-a1", "node-a"), foo_pod("p-x1", "node-x"), foo_pod("p-y1", "node-y")},
                     four_nodes(),
                     {{"node-a", Want::Unsched}, {"node-b", Want::Ok}, {"node-x", Want::Unsched}, {"node-y", Want::Unsched}}});
  }
  {
    // matchLabelKeys [rev] ANDs rev=2 into the selector: zone1 (rev=1 pods) = 0, zone2 = 1; min 0:
    // zone1 nodes 0+1 = 1 fit, zone2 nodes 1+1 = 2 do not.
    auto rev1a = MakePod().Name("r1a").Labels({{"foo", ""}, {"rev", "1"}}).Node("node-a").Obj();
    auto rev1b = MakePod().Name("r1b").Labels({{"foo", ""}, {"rev", "1"}}).Node("node-b").Obj();
    auto rev2x = MakePod().Name("r2x").Labels({{"foo", ""}, {"rev", "2"}}).Node("node-x").Obj();
    cases.push_back({"matchLabelKeys",
                     MakePod()
                         .Name("p")
                         .Labels({{"foo", ""}, {"rev", "2"}})
                         .SpreadConstraint(1, kZone, "DoNotSchedule", foo_selector(), std::nullopt, std::nullopt,
                                           std::nullopt, {"rev"})
                         .Obj(),
                     {rev1a, rev1b, rev2x},
                     four_nodes(),
                     {{"node-a", Want::Ok}, {"node-b", Want::Ok}, {"node-x", Want::Unsched}, {"node-y", Want::Unsched}}});
    // Without matchLabelKeys: zone1 = 2, zone2 = 1: zone1 2+1-1 = 2 > 1.
    cases.push_back({"without matchLabelKeys",
                     MakePod()
                         .Name("p")
                         .Labels({{"foo", ""}, {"rev", "2"}})
                         .SpreadConstraint(1, kZone, "DoNotSchedule", foo_selector())
                         .Obj(),
                     {rev1a, rev1b, rev2x},
                     four_nodes(),
                     {{"node-a", Want::Unsched}, {"node-b", Want::Unsched}, {"node-x", Want::Ok}, {"node-y", Want::Ok}}});
  }
  {
    // nodeAffinityPolicy: the pod requires zone in [zone1, zone2]; node-c (zone3) has no pods.
    // Honor (default): zone3 is not a domain, min = 1: a 1+1-1 = 1 fits. Ignore: min = 0, a gives 2.
    std::vector<api::Node> nodes{zone_node("node-a", "zone1"), zone_node("node-x", "zone2"),
                                 zone_node("node-c", "zone3")};
    std::vector<api::Pod> existing{foo_pod("p-a1", "node-a"), foo_pod("p-x1", "node-x")};
    cases.push_back({"nodeAffinityPolicy Honor",
                     MakePod()
                         .Name("p")
                         .Label("foo", "")
                         .NodeAffinityIn(kZone, {"zone1", "zone2"})
                         .SpreadConstraint(1, kZone, "DoNotSchedule", foo_selector())
                         .Obj(),
                     existing, nodes, {{"node-a", Want::Ok}, {"node-x", Want::Ok}, {"node-c", Want::Ok}}});
    cases.push_back({"nodeAffinityPolicy Ignore",
                     MakePod()
                         .Name("p")
                         .Label("foo", "")
                         .NodeAffinityIn(kZone, {"zone1", "zone2"})
                         .SpreadConstraint(1, kZone, "DoNotSchedule", foo_selector(), std::nullopt, "Ignore")
                         .Obj(),
                     existing, nodes, {{"node-a", Want::Unsched}, {"node-x", Want::Unsched}, {"node-c", Want::Ok}}});
    // nodeTaintsPolicy: node-c carries an untolerated NoSchedule taint. Ignore (default) counts it
    // (min 0); Honor drops it (min 1).
    std::vector<api::Node> tainted{zone_node("node-a", "zone1"), zone_node("node-x", "zone2"),
                                   MakeNode().Name("node-c").Label(kZone, "zone3").Taint("k", "v", "NoSchedule").Obj()};
    cases.push_back({"nodeTaintsPolicy Ignore",
                     MakePod().Name("p").Label("foo", "").SpreadConstraint(1, kZone, "DoNotSchedule", foo_selector()).Obj(),
                     existing, tainted, {{"node-a", Want::Unsched}, {"node-x", Want::Unsched}, {"node-c", Want::Ok}}});
    cases.push_back({"nodeTaintsPolicy Honor",
                     MakePod()
                         .Name("p")
                         .Label("foo", "")
                         .SpreadConstraint(1, kZone, "DoNotSchedule", foo_selector(), std::nullopt, std::nullopt, "Honor")
                         .Obj(),
                     existing, tainted, {{"node-a", Want::Ok}, {"node-x", Want::Ok}, {"node-c", Want::Ok}}});
    // A tolerated taint keeps the node counted even with Honor.
    cases.push_back({"nodeTaintsPolicy Honor, tolerated",
                     MakePod()
                         .Name("p")
                         .Label("foo", "")
                         .Toleration("k", "Exists", "", "NoSchedule")
                         .SpreadConstraint(1, kZone, "DoNotSchedule", foo_selector(), std::nullopt, std::nullopt, "Honor")
                         .Obj(),
                     existing, tainted, {{"node-a", Want::Unsched}, {"node-x", Want::Unsched}, {"node-c", Want::Ok}}});
  }

  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    Env env(tc.existing, tc.nodes);
    fw::CycleState state;
    auto st = env.pre_filter(state, tc.pod);
    ASSERT_TRUE(st.is_success()) << st.message();
    expect_filter(env.filter_all(state, tc.pod), tc.want);
  }
}

TEST(PodTopologySpreadFilter, PreFilterSkipsWithoutHardConstraints) {
  Env env({}, four_nodes());
  fw::CycleState state;
  // Only a ScheduleAnyway constraint: nothing for Filter to do.
  auto pod = MakePod().Name("p").Label("foo", "").SpreadConstraint(1, kZone, "ScheduleAnyway", foo_selector()).Obj();
  EXPECT_TRUE(env.pre_filter(state, pod).is_skip());
  // No constraints and the System defaults (all ScheduleAnyway): Skip too.
  auto plain = MakePod().Name("q").Label("foo", "").Obj();
  EXPECT_TRUE(env.pre_filter(state, plain).is_skip());
}

TEST(PodTopologySpreadFilter, InvalidSelectorIsError) {
  Env env({}, four_nodes());
  api::LabelSelector bad;
  api::LabelSelectorRequirement r;
  r.key = "foo";
  r.operator_ = "Bogus";
  bad.matchExpressions.push_back(r);
  auto pod = MakePod().Name("p").SpreadConstraint(1, kZone, "DoNotSchedule", bad).Obj();
  fw::CycleState state;
  auto st = env.pre_filter(state, pod);
  EXPECT_EQ(st.code(), fw::Code::Error);
  EXPECT_TRUE(st.message().starts_with("get constraints from pod: obtaining pod's hard topology spread constraints: "))
      << st.message();
}

TEST(PodTopologySpreadFilter, AddAndRemovePodUpdateCounts) {
  // Start from zone1 = 3, zone2 = 1 (zone1 nodes rejected), then simulate preemption.
  std::vector<api::Pod> existing{foo_pod("p-a1", "node-a"), foo_pod("p-a2", "node-a"), foo_pod("p-b1", "node-b"),
                                 foo_pod("p-y1", "node-y")};
  Env env(existing, four_nodes());
  auto pod = MakePod().Name("p").Label("foo", "").SpreadConstraint(1, kZone, "DoNotSchedule", foo_selector()).Obj();
  fw::CycleState state;
  ASSERT_TRUE(env.pre_filter(state, pod).is_success());
  auto node_a = env.handle.snapshot().get("node-a");
  auto node_b = env.handle.snapshot().get("node-b");

  // Removing two zone1 pods on a clone: zone1 = 1, zone2 = 1 → everything fits there.
  auto clone = state.clone();
  ASSERT_TRUE(env.plugin->remove_pod(*clone, pod, node_a->pods[0], *node_a).is_success());
  ASSERT_TRUE(env.plugin->remove_pod(*clone, pod, node_b->pods[0], *node_b).is_success());
  expect_filter(env.filter_all(*clone, pod),
                {{"node-a", Want::Ok}, {"node-b", Want::Ok}, {"node-x", Want::Ok}, {"node-y", Want::Ok}});
  // The original state is untouched.
  expect_filter(env.filter_all(state, pod),
                {{"node-a", Want::Unsched}, {"node-b", Want::Unsched}, {"node-x", Want::Ok}, {"node-y", Want::Ok}});

  // Adding two matching pods in zone2: zone1 = 3, zone2 = 3 → all fit (3+1-3 = 1).
  auto clone2 = state.clone();
  auto node_x = env.handle.snapshot().get("node-x");
  ASSERT_TRUE(env.plugin->add_pod(*clone2, pod, MakePod().Name("n1").Label("foo", "").Node("node-x").Info(), *node_x)
                  .is_success());
  ASSERT_TRUE(env.plugin->add_pod(*clone2, pod, MakePod().Name("n2").Label("foo", "").Node("node-x").Info(), *node_x)
                  .is_success());
  // A pod in another namespace or not matching the selector changes nothing.
  auto other = MakePod().Name("n3").Namespace("other").Label("foo", "").Node("node-x").Info();
  ASSERT_TRUE(env.plugin->add_pod(*clone2, pod, other, *node_x).is_success());
  expect_filter(env.filter_all(*clone2, pod),
                {{"node-a", Want::Ok}, {"node-b", Want::Ok}, {"node-x", Want::Ok}, {"node-y", Want::Ok}});
}

TEST(PodTopologySpreadFilter, CriticalPathsFollowTheMinimum) {
  // z1 = 2 (a), z2 = 1 (x), z3 = 3 (c); maxSkew 1, min 1 (z2).
  std::vector<api::Node> nodes{zone_node("a", "z1"), zone_node("x", "z2"), zone_node("c", "z3")};
  std::vector<api::Pod> existing{foo_pod("a1", "a"), foo_pod("a2", "a"), foo_pod("x1", "x"),
                                 foo_pod("c1", "c"),  foo_pod("c2", "c"), foo_pod("c3", "c")};
  Env env(existing, nodes);
  auto pod = MakePod().Name("p").Label("foo", "").SpreadConstraint(1, kZone, "DoNotSchedule", foo_selector()).Obj();
  fw::CycleState state;
  ASSERT_TRUE(env.pre_filter(state, pod).is_success());
  expect_filter(env.filter_all(state, pod), {{"a", Want::Unsched}, {"x", Want::Ok}, {"c", Want::Unsched}});
  auto x = env.handle.snapshot().get("x");
  auto add_x = [&](fw::CycleState& s, const std::string& name) {
    ASSERT_TRUE(env.plugin->add_pod(s, pod, MakePod().Name(name).Label("foo", "").Node("x").Info(), *x).is_success());
  };
  // Removing z2's pod: min 0 → only z2 fits (0+1).
  auto removed = state.clone();
  ASSERT_TRUE(env.plugin->remove_pod(*removed, pod, x->pods[0], *x).is_success());
  expect_filter(env.filter_all(*removed, pod), {{"a", Want::Unsched}, {"x", Want::Ok}, {"c", Want::Unsched}});
  // z2 grows to 2: the minimum is now z1 = 2 → z1 and z2 fit (2+1-2), z3 does not (3+1-2).
  auto grown = state.clone();
  add_x(*grown, "n1");
  expect_filter(env.filter_all(*grown, pod), {{"a", Want::Ok}, {"x", Want::Ok}, {"c", Want::Unsched}});
  // z2 = 3: minimum still z1 = 2 → only z1 fits.
  add_x(*grown, "n2");
  expect_filter(env.filter_all(*grown, pod), {{"a", Want::Ok}, {"x", Want::Unsched}, {"c", Want::Unsched}});
}

// ---------------------------------------------------------------- Score

TEST(PodTopologySpreadScore, ZoneConstraint) {
  // a, b in zone1, x in zone2; counts zone1 = 2, zone2 = 1; 2 domains → weight ln(4).
  // raw a = b = round(2·1.386) = 3, x = round(1.386) = 1; normalised 100·(3+1-s)/3 → 33, 33, 100.
  std::vector<api::Node> nodes{zone_node("node-a", "zone1"), zone_node("node-b", "zone1"), zone_node("node-x", "zone2")};
  Env env({foo_pod("p1", "node-a"), foo_pod("p2", "node-a"), foo_pod("p3", "node-x")}, nodes);
  auto pod = MakePod().Name("p").Label("foo", "").SpreadConstraint(1, kZone, "ScheduleAnyway", foo_selector()).Obj();
  auto got = env.scores(pod);
  EXPECT_EQ(got, (std::map<std::string, std::int64_t>{{"node-a", 33}, {"node-b", 33}, {"node-x", 100}}));
}

TEST(PodTopologySpreadScore, HostnameConstraintAndIgnoredNode) {
  // Hostname counts a = 2, b = 0, x = 1; weight ln(3 candidates + 2) = 1.609.
  // raw a = round(3.219) = 3, b = 0, x = round(1.609) = 2; min 0, max 3 → 0, 100, 33.
  // node-n lacks the hostname label: ignored, normalised to 0, and not part of the candidate count.
  std::vector<api::Node> nodes{zone_node("node-a", "zone1"), zone_node("node-b", "zone1"), zone_node("node-x", "zone2"),
                               MakeNode().Name("node-n").Label(kZone, "zone2").Obj()};
  Env env({foo_pod("p1", "node-a"), foo_pod("p2", "node-a"), foo_pod("p3", "node-x")}, nodes);
  auto pod = MakePod().Name("p").Label("foo", "").SpreadConstraint(1, kHost, "ScheduleAnyway", foo_selector()).Obj();
  auto got = env.scores(pod);
  EXPECT_EQ(got, (std::map<std::string, std::int64_t>{{"node-a", 0}, {"node-b", 100}, {"node-x", 33}, {"node-n", 0}}));
}

TEST(PodTopologySpreadScore, NodeAffinityPolicyDecidesWhichNodesCount) {
  // node-b (zone1) lacks disk=ssd, which the pod's node selector requires: with the default
  // policy (Honor) its two pods do not count. Domains zone1, zone2 → weight ln(4) = 1.386.
  // Honor: zone1 = 0, zone2 = 1 → raw a = b = 0, x = 1; normalised 100·(1+0-s)/1 → 100, 100, 0.
  // Ignore: zone1 = 2, zone2 = 1 → raw 3, 3, 1 → 33, 33, 100.
  auto ssd = [](const std::string& n, const std::string& z, bool has) {
    auto w = MakeNode().Name(n).Label(kHost, n).Label(kZone, z);
    if (has) w.Label("disk", "ssd");
    return w.Obj();
  };
  std::vector<api::Node> nodes{ssd("node-a", "zone1", true), ssd("node-b", "zone1", false), ssd("node-x", "zone2", true)};
  Env env({foo_pod("p1", "node-b"), foo_pod("p2", "node-b"), foo_pod("p3", "node-x")}, nodes);
  auto honor = MakePod()
                   .Name("p")
                   .Label("foo", "")
                   .NodeSelector({{"disk", "ssd"}})
                   .SpreadConstraint(1, kZone, "ScheduleAnyway", foo_selector())
                   .Obj();
  EXPECT_EQ(env.scores(honor), (std::map<std::string, std::int64_t>{{"node-a", 100}, {"node-b", 100}, {"node-x", 0}}));
  auto ignore = MakePod()
                    .Name("p")
                    .Label("foo", "")
                    .NodeSelector({{"disk", "ssd"}})
                    .SpreadConstraint(1, kZone, "ScheduleAnyway", foo_selector(), std::nullopt, "Ignore")
                    .Obj();
  EXPECT_EQ(env.scores(ignore), (std::map<std::string, std::int64_t>{{"node-a", 33}, {"node-b", 33}, {"node-x", 100}}));
}

TEST(PodTopologySpreadScore, MaxSkewRaisesFloor) {
  // Same zone layout with maxSkew 3: raw = cnt·ln4 + 2 → a = b = round(4.773) = 5, x = round(3.386) = 3;
  // normalised 100·(5+3-s)/5 → 60, 60, 100.
  std::vector<api::Node> nodes{zone_node("node-a", "zone1"), zone_node("node-b", "zone1"), zone_node("node-x", "zone2")};
  Env env({foo_pod("p1", "node-a"), foo_pod("p2", "node-a"), foo_pod("p3", "node-x")}, nodes);
  auto pod = MakePod().Name("p").Label("foo", "").SpreadConstraint(3, kZone, "ScheduleAnyway", foo_selector()).Obj();
  EXPECT_EQ(env.scores(pod), (std::map<std::string, std::int64_t>{{"node-a", 60}, {"node-b", 60}, {"node-x", 100}}));
}

TEST(PodTopologySpreadScore, SystemDefaultsWithServiceSelector) {
  // No constraints on the pod; a Service selecting app=web yields the system defaults
  // (hostname maxSkew 3, zone maxSkew 5) with selector app=web. node-c has no zone label but is
  // not ignored (system defaulting), and contributes the "" zone domain.
  // weights: hostname ln(3+2) = 1.6094, zone ln(2+2) = 1.3863 (domains zone1 and "").
  // zone counts: zone1 = 1 (a), "" = 2 (c).
  // a: 1·1.6094+2 + 1·1.3863+4 = 8.996 → 9; b: 0+2 + 1.3863+4 = 7.386 → 7; c: 2·1.6094+2 = 5.219 → 5 (no zone label).
  // normalised 100·(9+5-s)/9 → a 55, b 77, c 100.
  std::vector<api::Node> nodes{zone_node("node-a", "zone1"), zone_node("node-b", "zone1"),
                               MakeNode().Name("node-c").Label(kHost, "node-c").Obj()};
  auto web = [](const std::string& n, const std::string& node) {
    return MakePod().Name(n).Label("app", "web").Node(node).Obj();
  };
  Env env({web("w1", "node-a"), web("w2", "node-c"), web("w3", "node-c"),
           MakePod().Name("other").Label("app", "db").Node("node-b").Obj()},
          nodes);
  auto svc = std::make_shared<api::Service>();
  svc->metadata.name = "web";
  svc->metadata.namespace_ = "default";
  svc->spec.selector.set("app", "web");
  env.handle.fake_lister().add_service(std::shared_ptr<const api::Service>(svc));
  auto pod = MakePod().Name("p").Label("app", "web").Obj();
  EXPECT_EQ(env.scores(pod), (std::map<std::string, std::int64_t>{{"node-a", 55}, {"node-b", 77}, {"node-c", 100}}));

  // Without a selecting workload there are no default constraints: PreScore skips.
  fw::Status st;
  auto lonely = MakePod().Name("q").Label("app", "lonely").Obj();
  env.scores(lonely, &st);
  EXPECT_TRUE(st.is_skip());
}

TEST(PodTopologySpreadScore, ListDefaultingRequiresAllKeys) {
  // List defaulting with a zone DoNotSchedule default and a service selector: the pod gets the
  // hard default, so a node without the zone label is U&U.
  config::PodTopologySpreadArgs args;
  args.defaultingType = std::string(config::kListDefaulting);
  api::TopologySpreadConstraint c;
  c.maxSkew = 1;
  c.topologyKey = kZone;
  c.whenUnsatisfiable = "DoNotSchedule";
  args.defaultConstraints.push_back(c);
  std::vector<api::Node> nodes{zone_node("node-a", "zone1"), zone_node("node-x", "zone2"),
                               MakeNode().Name("node-n").Obj()};
  Env env({MakePod().Name("w1").Label("app", "web").Node("node-a").Obj()}, nodes, &args);
  auto svc = std::make_shared<api::Service>();
  svc->metadata.name = "web";
  svc->metadata.namespace_ = "default";
  svc->spec.selector.set("app", "web");
  env.handle.fake_lister().add_service(std::shared_ptr<const api::Service>(svc));
  auto pod = MakePod().Name("p").Label("app", "web").Obj();
  fw::CycleState state;
  ASSERT_TRUE(env.pre_filter(state, pod).is_success());
  // zone1 = 1, zone2 = 0: a 1+1-0 = 2 > 1, x 0+1 = 1.
  expect_filter(env.filter_all(state, pod), {{"node-a", Want::Unsched}, {"node-x", Want::Ok}, {"node-n", Want::UU}});
}

TEST(PodTopologySpreadArgs, SystemDefaultingRejectsConstraints) {
  testing::FakeHandle h;
  config::PodTopologySpreadArgs args;
  args.defaultConstraints.push_back(api::TopologySpreadConstraint{});
  fw::PluginArgs pa;
  pa.value = args;
  EXPECT_FALSE(make_pod_topology_spread(pa, h).ok());
  auto defaults = system_default_constraints();
  ASSERT_EQ(defaults.size(), 2u);
  EXPECT_EQ(defaults[0].topologyKey, kHost);
  EXPECT_EQ(defaults[0].maxSkew, 3);
  EXPECT_EQ(defaults[1].topologyKey, kZone);
  EXPECT_EQ(defaults[1].maxSkew, 5);
}

// ---------------------------------------------------------------- events and hints

TEST(PodTopologySpreadEvents, RegistrationsAndHints) {
  Env env({}, four_nodes());
  auto events = env.plugin->events_to_register();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.resource, fw::EventResource::Pod);
  EXPECT_EQ(events[0].event.actionType,
            fw::kAdd | fw::kUpdatePodLabel | fw::kUpdatePodTolerations | fw::kDelete);
  EXPECT_EQ(events[1].event.resource, fw::EventResource::Node);
  EXPECT_EQ(events[1].event.actionType, fw::kAdd | fw::kDelete | fw::kUpdateNodeLabel | fw::kUpdateNodeTaint);

  auto pod = MakePod().Name("p").UID("p").Label("foo", "").SpreadConstraint(1, kZone, "DoNotSchedule", foo_selector()).Obj();
  auto as = [](const auto& obj) { return std::shared_ptr<const void>(std::make_shared<std::decay_t<decltype(obj)>>(obj)); };
  const auto& pod_hint = events[0].hint;
  // An assigned matching pod added in the same namespace: Queue; non-matching: Skip.
  EXPECT_EQ(pod_hint(pod, nullptr, as(foo_pod("x", "node-a"))), fw::QueueingHint::Queue);
  EXPECT_EQ(pod_hint(pod, nullptr, as(MakePod().Name("y").Node("node-a").Obj())), fw::QueueingHint::Skip);
  // Unassigned pods are not involved.
  EXPECT_EQ(pod_hint(pod, nullptr, as(MakePod().Name("z").Label("foo", "").Obj())), fw::QueueingHint::Skip);
  // Label update that changes the match: Queue; unrelated label change: Skip.
  auto before = foo_pod("u", "node-a");
  auto after = MakePod().Name("u").UID("u").Node("node-a").Label("bar", "").Obj();
  EXPECT_EQ(pod_hint(pod, as(before), as(after)), fw::QueueingHint::Queue);
  auto after2 = before;
  after2.metadata.labels.set("other", "1");
  EXPECT_EQ(pod_hint(pod, as(before), as(after2)), fw::QueueingHint::Skip);

  const auto& node_hint = events[1].hint;
  EXPECT_EQ(node_hint(pod, nullptr, as(zone_node("n", "zone9"))), fw::QueueingHint::Queue);
  EXPECT_EQ(node_hint(pod, nullptr, as(MakeNode().Name("n").Obj())), fw::QueueingHint::Skip);
  // Zone value change: Queue; unrelated label: Skip.
  EXPECT_EQ(node_hint(pod, as(zone_node("n", "zone1")), as(zone_node("n", "zone2"))), fw::QueueingHint::Queue);
  auto relabelled = zone_node("n", "zone1");
  relabelled.metadata.labels.set("x", "y");
  EXPECT_EQ(node_hint(pod, as(zone_node("n", "zone1")), as(relabelled)), fw::QueueingHint::Skip);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::podtopologyspread
