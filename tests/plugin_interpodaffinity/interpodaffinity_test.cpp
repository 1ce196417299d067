// InterPodAffinity: filter statuses and normalised scores derived by hand from upstream's rules
// (per (topologyKey, value) counts; score = Σ weights over the node's labels, normalised
// int(100·(s−min)/(max−min))).
#include "scheduler/plugins/interpodaffinity/interpodaffinity.h"

#include <gtest/gtest.h>

#include <map>

#include "api/core.h"
#include "scheduler/config/types.h"
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

enum class Want { Ok, AffinityUU, AntiUnsched, ExistingUnsched };

api::Node node(const std::string& name, const std::string& zone) {
  auto w = MakeNode().Name(name).Label(kHost, name);
  if (!zone.empty()) w.Label(kZone, zone);
  return w.Obj();
}

std::vector<api::Node> three_nodes() { return {node("n1", "z1"), node("n2", "z1"), node("n3", "z2")}; }

std::shared_ptr<const api::Namespace> ns(const std::string& name, std::vector<std::pair<std::string, std::string>> l) {
  auto n = std::make_shared<api::Namespace>();
  n->metadata.name = name;
  for (auto& [k, v] : l) n->metadata.labels.set(k, v);
  return n;
}

struct Env {
  testing::FakeHandle handle;
  std::shared_ptr<InterPodAffinity> plugin;

  Env(const std::vector<api::Pod>& pods, const std::vector<api::Node>& nodes,
      const config::InterPodAffinityArgs* args = nullptr) {
    handle.set_snapshot(pods, nodes);
    fw::PluginArgs pa;
    if (args) pa.value = *args;
    auto r = make_inter_pod_affinity(pa, handle);
    EXPECT_TRUE(r.ok());
    plugin = std::dynamic_pointer_cast<InterPodAffinity>(r.value());
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
  std::map<std::string, std::int64_t> scores(const api::Pod& pod, fw::Status* pre_score_status = nullptr) {
    fw::CycleState state;
    const auto& nodes = handle.snapshot().list();
    fw::Status st = plugin->pre_score(state, pod, nodes);
    if (pre_score_status) *pre_score_status = st;
    std::map<std::string, std::int64_t> out;
    if (!st.is_success()) return out;
    fw::NodeScoreList list;
    for (const auto& ni : nodes) {
      std::int64_t s = 0;
      EXPECT_TRUE(plugin->score(state, pod, *ni, s).is_success());
      list.push_back({ni->name(), s});
    }
    EXPECT_TRUE(plugin->normalize_score(state, pod, list).is_success());
    for (const auto& n : list) out[std::string(n.name)] = n.score;
    return out;
  }
};

void expect_filter(const std::map<std::string, fw::Status>& got, const std::map<std::string, Want>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [n, w] : want) {
    const auto& s = got.at(n);
    switch (w) {
      case Want::Ok:
        EXPECT_TRUE(s.is_success()) << n << ": " << s.message();
        break;
      case Want::AffinityUU:
        EXPECT_EQ(s.code(), fw::Code::UnschedulableAndUnresolvable) << n;
        EXPECT_EQ(s.message(), kErrReasonAffinityRulesNotMatch) << n;
        break;
      case Want::AntiUnsched:
        EXPECT_EQ(s.code(), fw::Code::Unschedulable) << n;
        EXPECT_EQ(s.message(), kErrReasonAntiAffinityRulesNotMatch) << n;
        break;
      case Want::ExistingUnsched:
        EXPECT_EQ(s.code(), fw::Code::Unschedulable) << n;
        EXPECT_EQ(s.message(), kErrReasonExistingAntiAffinityRulesNotMatch) << n;
        break;
    }
  }
}

struct FilterCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Pod> existing;
  std::vector<api::Node> nodes;
  std::map<std::string, Want> want;
  std::vector<std::shared_ptr<const api::Namespace>> namespaces = {};
};

api::Pod sec_pod(const std::string& name, const std::string& node_name, const std::string& nsname = "default") {
  return MakePod().Name(name).Namespace(nsname).Label("service", "securityscan").Node(node_name).Obj();
}

TEST(InterPodAffinityFilter, Table) {
  std::vector<FilterCase> cases;
  // Required affinity to service=securityscan in the zone: the matching pod on n1 makes zone z1 feasible.
  cases.push_back({"affinity satisfied in zone",
                   MakePod().Name("p").PodAffinityIn("service", kZone, {"securityscan"}, AffinityKind::Required).Obj(),
                   {sec_pod("s1", "n1")},
                   three_nodes(),
                   {{"n1", Want::Ok}, {"n2", Want::Ok}, {"n3", Want::AffinityUU}}});
  // No pod matches anywhere, and the pod matches its own term: the first pod of the group may go
  // anywhere the topology key exists (n4 lacks the zone label).
  {
    auto nodes = three_nodes();
    nodes.push_back(node("n4", ""));
    cases.push_back({"first pod of a group",
                     MakePod()
                         .Name("p")
                         .Label("service", "securityscan")
                         .PodAffinityIn("service", kZone, {"securityscan"}, AffinityKind::Required)
                         .Obj(),
                     {},
                     nodes,
                     {{"n1", Want::Ok}, {"n2", Want::Ok}, {"n3", Want::Ok}, {"n4", Want::AffinityUU}}});
    // Same, but the pod does not match its own term: nowhere.
    cases.push_back({"no match and no self match",
                     MakePod().Name("p").PodAffinityIn("service", kZone, {"securityscan"}, AffinityKind::Required).Obj(),
                     {MakePod().Name("o").Label("service", "other").Node("n1").Obj()},
                     nodes,
                     {{"n1", Want::AffinityUU}, {"n2", Want::AffinityUU}, {"n3", Want::AffinityUU}, {"n4", Want::AffinityUU}}});
  }
  // A pod in another namespace does not satisfy a term limited to the pod's own namespace.
  cases.push_back({"affinity ignores other namespaces",
                   MakePod().Name("p").PodAffinityIn("service", kZone, {"securityscan"}, AffinityKind::Required).Obj(),
                   {sec_pod("s1", "n1", "other"), sec_pod("s2", "n3")},
                   three_nodes(),
                   {{"n1", Want::AffinityUU}, {"n2", Want::AffinityUU}, {"n3", Want::Ok}}});
  // Two affinity terms: one existing pod must match both.
  cases.push_back({"two terms matched by one pod",
                   MakePod()
                       .Name("p")
                       .PodAffinityIn("service", kZone, {"securityscan"}, AffinityKind::Required)
                       .PodAffinityExists("tier", kHost, AffinityKind::Required)
                       .Obj(),
                   {MakePod().Name("s").Labels({{"service", "securityscan"}, {"tier", "x"}}).Node("n2").Obj()},
                   three_nodes(),
                   // zone z1 has the pod, but for the hostname term only n2 holds it.
                   {{"n1", Want::AffinityUU}, {"n2", Want::Ok}, {"n3", Want::AffinityUU}}});
  // Incoming anti-affinity by hostname and by zone.
  cases.push_back({"anti-affinity by hostname",
                   MakePod().Name("p").PodAntiAffinityIn("service", kHost, {"securityscan"}, AffinityKind::Required).Obj(),
                   {sec_pod("s1", "n1")},
                   three_nodes(),
                   {{"n1", Want::AntiUnsched}, {"n2", Want::Ok}, {"n3", Want::Ok}}});
  cases.push_back({"anti-affinity by zone",
                   MakePod().Name("p").PodAntiAffinityIn("service", kZone, {"securityscan"}, AffinityKind::Required).Obj(),
                   {sec_pod("s1", "n1")},
                   three_nodes(),
                   {{"n1", Want::AntiUnsched}, {"n2", Want::AntiUnsched}, {"n3", Want::Ok}}});
  // An existing pod's anti-affinity (zone) against pods labelled foo: the incoming foo pod must
  // avoid zone z2.
  cases.push_back({"existing pod anti-affinity",
                   MakePod().Name("p").Label("foo", "bar").Obj(),
                   {MakePod().Name("e").Node("n3").PodAntiAffinityExists("foo", kZone, AffinityKind::Required).Obj()},
                   three_nodes(),
                   {{"n1", Want::Ok}, {"n2", Want::Ok}, {"n3", Want::ExistingUnsched}}});
  // namespaceSelector on the incoming pod's term: only pods in namespaces labelled team=a count.
  {
    auto pod = MakePod()
                   .Name("p")
                   .PodAffinity(kZone, MakeLabelSelector().Label("service", "securityscan").Obj(), AffinityKind::Required,
                                1, {}, MakeLabelSelector().Label("team", "a").Obj())
                   .Obj();
    cases.push_back({"namespaceSelector on incoming affinity",
                     pod,
                     {sec_pod("s-b", "n1", "ns-b"), sec_pod("s-a", "n3", "ns-a")},
                     three_nodes(),
                     {{"n1", Want::AffinityUU}, {"n2", Want::AffinityUU}, {"n3", Want::Ok}},
                     {ns("ns-a", {{"team", "a"}}), ns("ns-b", {{"team", "b"}})}});
    // Explicit namespaces are ORed with the selector's namespaces.
    auto pod2 = MakePod()
                    .Name("p")
                    .PodAffinity(kZone, MakeLabelSelector().Label("service", "securityscan").Obj(),
                                 AffinityKind::Required, 1, {"ns-b"}, MakeLabelSelector().Label("team", "a").Obj())
                    .Obj();
    cases.push_back({"namespaces plus namespaceSelector",
                     pod2,
                     {sec_pod("s-b", "n1", "ns-b"), sec_pod("s-c", "n3", "ns-c")},
                     three_nodes(),
                     {{"n1", Want::Ok}, {"n2", Want::Ok}, {"n3", Want::AffinityUU}},
                     {ns("ns-a", {{"team", "a"}}), ns("ns-b", {{"team", "b"}}), ns("ns-c", {{"team", "c"}})}});
    // An empty namespaceSelector selects every namespace.
    auto pod3 = MakePod()
                    .Name("p")
                    .PodAffinity(kZone, MakeLabelSelector().Label("service", "securityscan").Obj(),
                                 AffinityKind::Required, 1, {}, api::LabelSelector{})
                    .Obj();
    cases.push_back({"empty namespaceSelector = all namespaces",
                     pod3,
                     {sec_pod("s-c", "n3", "ns-c")},
                     three_nodes(),
                     {{"n1", Want::AffinityUU}, {"n2", Want::AffinityUU}, {"n3", Want::Ok}},
                     {}});
  }
  // An existing pod's anti-affinity with a namespaceSelector is matched against the labels of
  // the incoming pod's namespace.
  {
    auto existing = MakePod()
                        .Name("e")
                        .Namespace("other")
                        .Node("n1")
                        .PodAntiAffinity(kHost, MakeLabelSelector().Exists("foo").Obj(), AffinityKind::Required, 1, {},
                                         MakeLabelSelector().Label("env", "prod").Obj())
                        .Obj();
    auto incoming = MakePod().Name("p").Namespace("default").Label("foo", "").Obj();
    cases.push_back({"existing anti-affinity, namespace labels match",
                     incoming,
                     {existing},
                     three_nodes(),
                     {{"n1", Want::ExistingUnsched}, {"n2", Want::Ok}, {"n3", Want::Ok}},
                     {ns("default", {{"env", "prod"}})}});
    cases.push_back({"existing anti-affinity, namespace labels differ",
                     incoming,
                     {existing},
                     three_nodes(),
                     {{"n1", Want::Ok}, {"n2", Want::Ok}, {"n3", Want::Ok}},
                     {ns("default", {{"env", "dev"}})}});
  }

  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    Env env(tc.existing, tc.nodes);
    for (const auto& n : tc.namespaces) env.handle.fake_lister().add_namespace(n);
    fw::CycleState state;
    auto st = env.pre_filter(state, tc.pod);
    if (st.is_skip()) {
      // Nothing to check: Filter does not run, so every node passes this plugin.
      for (const auto& [n, w] : tc.want) EXPECT_EQ(w, Want::Ok) << n;
      continue;
    }
    ASSERT_TRUE(st.is_success()) << st.message();
    expect_filter(env.filter_all(state, tc.pod), tc.want);
  }
}

TEST(InterPodAffinityFilter, SkipWithoutAnyAffinity) {
  Env env({sec_pod("s1", "n1")}, three_nodes());
  fw::CycleState state;
  EXPECT_TRUE(env.pre_filter(state, MakePod().Name("p").Obj()).is_skip());
}

TEST(InterPodAffinityFilter, AddAndRemovePod) {
  auto pod = MakePod().Name("p").PodAntiAffinityIn("service", kZone, {"securityscan"}, AffinityKind::Required).Obj();
  Env env({sec_pod("s1", "n1")}, three_nodes());
  fw::CycleState state;
  ASSERT_TRUE(env.pre_filter(state, pod).is_success());
  auto n1 = env.handle.snapshot().get("n1");
  auto n3 = env.handle.snapshot().get("n3");
  // Removing the matching pod frees zone z1.
  auto removed = state.clone();
  ASSERT_TRUE(env.plugin->remove_pod(*removed, pod, n1->pods[0], *n1).is_success());
  expect_filter(env.filter_all(*removed, pod), {{"n1", Want::Ok}, {"n2", Want::Ok}, {"n3", Want::Ok}});
  // Adding a matching pod in z2 closes it.
  auto added = state.clone();
  ASSERT_TRUE(env.plugin->add_pod(*added, pod, MakePod().Name("s2").Label("service", "securityscan").Node("n3").Info(), *n3)
                  .is_success());
  expect_filter(env.filter_all(*added, pod),
                {{"n1", Want::AntiUnsched}, {"n2", Want::AntiUnsched}, {"n3", Want::AntiUnsched}});
  // Adding a pod whose own anti-affinity rejects the incoming pod (hostname on n3).
  auto added2 = state.clone();
  auto hater = MakePod().Name("h").Node("n3").PodAntiAffinityExists("role", kHost, AffinityKind::Required).Info();
  auto incoming = pod;
  incoming.metadata.labels.set("role", "x");
  ASSERT_TRUE(env.plugin->add_pod(*added2, incoming, hater, *n3).is_success());
  EXPECT_EQ(env.plugin->filter(*added2, incoming, *n3).message(), kErrReasonExistingAntiAffinityRulesNotMatch);
  // Untouched original.
  expect_filter(env.filter_all(state, pod), {{"n1", Want::AntiUnsched}, {"n2", Want::AntiUnsched}, {"n3", Want::Ok}});
}

// ---------------------------------------------------------------- Score

TEST(InterPodAffinityScore, PreferredAffinityAndAntiAffinity) {
  // Preferred affinity (weight 5, zone) to foo: the foo pod on n1 gives z1 +5 → raw 5, 5, 0 → 100, 100, 0.
  {
    Env env({MakePod().Name("f").Label("foo", "").Node("n1").Obj()}, three_nodes());
    auto pod = MakePod()
                   .Name("p")
                   .PodAffinity(kZone, MakeLabelSelector().Exists("foo").Obj(), AffinityKind::Preferred, 5)
                   .Obj();
    EXPECT_EQ(env.scores(pod), (std::map<std::string, std::int64_t>{{"n1", 100}, {"n2", 100}, {"n3", 0}}));
  }
  // Preferred anti-affinity (weight 3, hostname): n1 −3 → min −3, max 0 → 0, 100, 100.
  {
    Env env({MakePod().Name("f").Label("foo", "").Node("n1").Obj()}, three_nodes());
    auto pod = MakePod()
                   .Name("p")
                   .PodAntiAffinity(kHost, MakeLabelSelector().Exists("foo").Obj(), AffinityKind::Preferred, 3)
                   .Obj();
    EXPECT_EQ(env.scores(pod), (std::map<std::string, std::int64_t>{{"n1", 0}, {"n2", 100}, {"n3", 100}}));
  }
}

TEST(InterPodAffinityScore, ExistingPodsTermsAndHardWeight) {
  // Incoming pod app=web with preferred affinity (5, zone) to foo; existing:
  //  f on n1 (foo)                                  → z1 +5
  //  b on n3: required affinity to app=web (zone)    → z2 +hardPodAffinityWeight (1)
  //           preferred anti-affinity (8, hostname)  → n3 −8
  // raw n1 5, n2 5, n3 1−8 = −7, n4 0 → min −7, max 5: n1 100, n2 100, n3 0, n4 int(100·7/12) = 58.
  auto nodes = three_nodes();
  nodes.push_back(node("n4", "z3"));
  auto b = MakePod()
               .Name("b")
               .Node("n3")
               .PodAffinity(kZone, MakeLabelSelector().Label("app", "web").Obj(), AffinityKind::Required)
               .PodAntiAffinity(kHost, MakeLabelSelector().Label("app", "web").Obj(), AffinityKind::Preferred, 8)
               .Obj();
  auto pod = MakePod()
                 .Name("p")
                 .Label("app", "web")
                 .PodAffinity(kZone, MakeLabelSelector().Exists("foo").Obj(), AffinityKind::Preferred, 5)
                 .Obj();
  {
    Env env({MakePod().Name("f").Label("foo", "").Node("n1").Obj(), b}, nodes);
    EXPECT_EQ(env.scores(pod), (std::map<std::string, std::int64_t>{{"n1", 100}, {"n2", 100}, {"n3", 0}, {"n4", 58}}));
  }
  // hardPodAffinityWeight 10: n3 = 10 − 8 = 2 → min 0, max 5: n1 100, n2 100, n3 40, n4 0.
  {
    config::InterPodAffinityArgs args;
    args.hardPodAffinityWeight = 10;
    Env env({MakePod().Name("f").Label("foo", "").Node("n1").Obj(), b}, nodes, &args);
    EXPECT_EQ(env.scores(pod), (std::map<std::string, std::int64_t>{{"n1", 100}, {"n2", 100}, {"n3", 40}, {"n4", 0}}));
  }
  // An incoming pod without preferred terms only sees existing pods' terms: n3 = 1 − 8 = −7,
  // others 0 → n3 0, others 100.
  {
    Env env({MakePod().Name("f").Label("foo", "").Node("n1").Obj(), b}, nodes);
    auto plain = MakePod().Name("q").Label("app", "web").Obj();
    EXPECT_EQ(env.scores(plain), (std::map<std::string, std::int64_t>{{"n1", 100}, {"n2", 100}, {"n3", 0}, {"n4", 100}}));
    // ignorePreferredTermsOfExistingPods: nothing to do for such a pod.
    config::InterPodAffinityArgs args;
    args.ignorePreferredTermsOfExistingPods = true;
    Env env2({MakePod().Name("f").Label("foo", "").Node("n1").Obj(), b}, nodes, &args);
    fw::Status st;
    env2.scores(plain, &st);
    EXPECT_TRUE(st.is_skip());
  }
}

TEST(InterPodAffinityScore, SkipWhenNothingMatches) {
  // hardPodAffinityWeight 0 and no preferred terms anywhere: no entry, PreScore skips.
  config::InterPodAffinityArgs args;
  args.hardPodAffinityWeight = 0;
  auto b = MakePod()
               .Name("b")
               .Node("n3")
               .PodAffinity(kZone, MakeLabelSelector().Label("app", "web").Obj(), AffinityKind::Required)
               .Obj();
  Env env({b}, three_nodes(), &args);
  fw::Status st;
  env.scores(MakePod().Name("p").Label("app", "web").Obj(), &st);
  EXPECT_TRUE(st.is_skip());
}

TEST(InterPodAffinityArgs, Validation) {
  testing::FakeHandle h;
  config::InterPodAffinityArgs args;
  args.hardPodAffinityWeight = 101;
  fw::PluginArgs pa;
  pa.value = args;
  EXPECT_FALSE(make_inter_pod_affinity(pa, h).ok());
}

TEST(InterPodAffinityEvents, RegistrationsAndHints) {
  Env env({}, three_nodes());
  auto events = env.plugin->events_to_register();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.resource, fw::EventResource::Pod);
  EXPECT_EQ(events[0].event.actionType, fw::kAdd | fw::kUpdatePodLabel | fw::kDelete);
  EXPECT_EQ(events[1].event.resource, fw::EventResource::Node);
  EXPECT_EQ(events[1].event.actionType, fw::kAdd | fw::kUpdateNodeLabel);

  auto as = [](const auto& obj) { return std::shared_ptr<const void>(std::make_shared<std::decay_t<decltype(obj)>>(obj)); };
  auto pod = MakePod()
                 .Name("p")
                 .PodAffinityIn("service", kZone, {"securityscan"}, AffinityKind::Required)
                 .PodAntiAffinityExists("bad", kHost, AffinityKind::Required)
                 .Obj();
  const auto& ph = events[0].hint;
  EXPECT_EQ(ph(pod, nullptr, as(sec_pod("s", "n1"))), fw::QueueingHint::Queue);
  EXPECT_EQ(ph(pod, nullptr, as(MakePod().Name("s").Label("service", "securityscan").Obj())), fw::QueueingHint::Skip);
  EXPECT_EQ(ph(pod, nullptr, as(MakePod().Name("o").Node("n1").Obj())), fw::QueueingHint::Skip);
  EXPECT_EQ(ph(pod, as(MakePod().Name("b").Label("bad", "").Node("n1").Obj()), nullptr), fw::QueueingHint::Queue);
  EXPECT_EQ(ph(pod, as(MakePod().Name("g").Node("n1").Obj()), nullptr), fw::QueueingHint::Skip);
  const auto& nh = events[1].hint;
  EXPECT_EQ(nh(pod, nullptr, as(node("n9", "z9"))), fw::QueueingHint::Queue);
  EXPECT_EQ(nh(pod, nullptr, as(MakeNode().Name("n9").Obj())), fw::QueueingHint::Skip);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::interpodaffinity
