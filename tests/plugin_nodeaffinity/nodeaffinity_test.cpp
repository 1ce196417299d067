#include "scheduler/plugins/nodeaffinity/nodeaffinity.h"

#include <gtest/gtest.h>

#include "scheduler/config/types.h"
#include "scheduler_testing/builders.h"

namespace ksched::scheduler::plugins::nodeaffinity {
namespace {

using framework::Code;
using testing::MakeNode;
using testing::MakePod;

api::NodeSelectorRequirement req(std::string key, std::string op, std::vector<std::string> vals) {
  api::NodeSelectorRequirement r;
  r.key = std::move(key);
  r.operator_ = std::move(op);
  r.values = std::move(vals);
  return r;
}
api::NodeSelectorTerm term(std::vector<api::NodeSelectorRequirement> exprs,
                           std::vector<api::NodeSelectorRequirement> fields = {}) {
  api::NodeSelectorTerm t;
  t.matchExpressions = std::move(exprs);
  t.matchFields = std::move(fields);
  return t;
}
api::NodeAffinity required(std::vector<api::NodeSelectorTerm> terms) {
  api::NodeAffinity na;
  na.requiredDuringSchedulingIgnoredDuringExecution.emplace();
  na.requiredDuringSchedulingIgnoredDuringExecution->nodeSelectorTerms = std::move(terms);
  return na;
}

std::shared_ptr<NodeAffinity> plugin(std::optional<api::NodeAffinity> added = std::nullopt) {
  auto p = NodeAffinity::create(added);
  EXPECT_TRUE(p.ok());
  return p.value();
}

// Runs PreFilter then (unless skipped) Filter, like the framework.
Code run_filter(NodeAffinity& pl, const api::Pod& pod, const api::Node& node, std::string* msg = nullptr) {
  framework::CycleState state;
  framework::PreFilterResult r;
  auto pre = pl.pre_filter(state, pod, {}, r);
  if (pre.is_skip()) return Code::Success;
  if (!pre.is_success()) {
    if (msg) *msg = pre.message();
    return pre.code();
  }
  framework::NodeInfo ni(std::make_shared<const api::Node>(node));
  auto s = pl.filter(state, pod, ni);
  if (msg) *msg = s.message();
  return s.code();
}

TEST(NodeAffinity, Filter) {
  auto pl = plugin();
  const auto U = Code::UnschedulableAndUnresolvable;
  struct Case {
    const char* name;
    api::Pod pod;
    api::Node node;
    Code want;
  };
  const Case cases[] = {
      {"no selector", MakePod().Name("p").Obj(), MakeNode().Name("n").Obj(), Code::Success},
      {"nodeSelector miss", MakePod().Name("p").NodeSelector({{"foo", "bar"}}).Obj(), MakeNode().Name("n").Obj(), U},
      {"nodeSelector hit", MakePod().Name("p").NodeSelector({{"foo", "bar"}}).Obj(),
       MakeNode().Name("n").Label("foo", "bar").Label("x", "y").Obj(), Code::Success},
      {"In hit", MakePod().Name("p").NodeAffinityIn("zone", {"a", "b"}).Obj(), MakeNode().Name("n").Label("zone", "b").Obj(),
       Code::Success},
      {"NotIn with key absent matches", MakePod().Name("p").NodeAffinityNotIn("zone", {"a"}).Obj(),
       MakeNode().Name("n").Obj(), Code::Success},
      {"DoesNotExist", MakePod().Name("p").NodeAffinity(required({term({req("gpu", "DoesNotExist", {})})})).Obj(),
       MakeNode().Name("n").Label("gpu", "1").Obj(), U},
      {"Gt hit", MakePod().Name("p").NodeAffinity(required({term({req("cores", "Gt", {"4"})})})).Obj(),
       MakeNode().Name("n").Label("cores", "8").Obj(), Code::Success},
      {"Gt equal misses", MakePod().Name("p").NodeAffinity(required({term({req("cores", "Gt", {"8"})})})).Obj(),
       MakeNode().Name("n").Label("cores", "8").Obj(), U},
      {"Lt hit", MakePod().Name("p").NodeAffinity(required({term({req("cores", "Lt", {"10"})})})).Obj(),
       MakeNode().Name("n").Label("cores", "8").Obj(), Code::Success},
      {"Gt non-integer label misses", MakePod().Name("p").NodeAffinity(required({term({req("cores", "Gt", {"1"})})})).Obj(),
       MakeNode().Name("n").Label("cores", "many").Obj(), U},
      // labels.NewRequirement checks Gt/Lt values as label values too: "-1" is not one, so the
      // term is invalid and misses although the label is greater (upstream v1.32).
      {"Gt negative value is an invalid term", MakePod().Name("p").NodeAffinity(required({term({req("cores", "Gt", {"-1"})})})).Obj(),
       MakeNode().Name("n").Label("cores", "8").Obj(), U},
      // A term with an invalid requirement is dropped; the other term still counts (ORed).
      {"invalid term ignored, other term hits",
       MakePod().Name("p").NodeAffinity(required({term({req("cores", "Gt", {"x"})}), term({req("a", "Exists", {})})})).Obj(),
       MakeNode().Name("n").Label("cores", "8").Label("a", "1").Obj(), Code::Success},
      {"empty term matches nothing", MakePod().Name("p").NodeAffinity(required({term({})})).Obj(),
       MakeNode().Name("n").Obj(), U},
      {"expressions ANDed within a term",
       MakePod().Name("p").NodeAffinity(required({term({req("a", "Exists", {}), req("b", "Exists", {})})})).Obj(),
       MakeNode().Name("n").Label("a", "1").Obj(), U},
      {"nodeSelector AND affinity",
       MakePod().Name("p").NodeSelector({{"x", "y"}}).NodeAffinityIn("a", {"1"}).Obj(),
       MakeNode().Name("n").Label("a", "1").Obj(), U},
      {"matchFields NotIn", MakePod().Name("p").NodeAffinity(required({term({}, {req("metadata.name", "NotIn", {"n"})})})).Obj(),
       MakeNode().Name("n").Obj(), U},
      {"matchFields and labels ANDed",
       MakePod().Name("p").NodeAffinity(required({term({req("a", "Exists", {})}, {req("metadata.name", "In", {"n"})})})).Obj(),
       MakeNode().Name("n").Label("a", "1").Obj(), Code::Success},
  };
  for (const auto& c : cases) {
    std::string msg;
    EXPECT_EQ(run_filter(*pl, c.pod, c.node, &msg), c.want) << c.name;
    if (c.want == U) {
      EXPECT_EQ(msg, "node(s) didn't match Pod's node affinity/selector") << c.name;
    }
  }
}

TEST(NodeAffinity, PreFilterNodeNames) {
  auto pl = plugin();
  framework::CycleState state;
  framework::PreFilterResult r;
  // No constraints at all → Skip.
  EXPECT_TRUE(pl->pre_filter(state, MakePod().Name("p").Obj(), {}, r).is_skip());

  // Two terms: {n1,n2}∩{n2,n3} = {n2}, union {n4} → {n2, n4}.
  auto pod = MakePod()
                 .Name("p")
                 .NodeAffinity(required({term({}, {req("metadata.name", "In", {"n1", "n2"}),
                                                   req("metadata.name", "In", {"n2", "n3"})}),
                                         term({}, {req("metadata.name", "In", {"n4"})})}))
                 .Obj();
  r = {};
  ASSERT_TRUE(pl->pre_filter(state, pod, {}, r).is_success());
  ASSERT_FALSE(r.all_nodes());
  EXPECT_EQ(*r.nodeNames, (std::set<std::string>{"n2", "n4"}));

  // One term without a name field: all nodes.
  auto open = MakePod()
                  .Name("p")
                  .NodeAffinity(required({term({}, {req("metadata.name", "In", {"n1"})}), term({req("a", "Exists", {})})}))
                  .Obj();
  r = {};
  ASSERT_TRUE(pl->pre_filter(state, open, {}, r).is_success());
  EXPECT_TRUE(r.all_nodes());

  // Disjoint name sets in one term: conflict.
  auto conflict = MakePod()
                      .Name("p")
                      .NodeAffinity(required({term({}, {req("metadata.name", "In", {"n1"}),
                                                        req("metadata.name", "In", {"n2"})})}))
                      .Obj();
  r = {};
  auto s = pl->pre_filter(state, conflict, {}, r);
  EXPECT_EQ(s.code(), Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(s.message(), "pod affinity terms conflict");
}

TEST(NodeAffinity, AddedAffinity) {
  config::NodeAffinityArgs args;
  args.addedAffinity = required({term({req("zone", "In", {"a"})})});
  api::PreferredSchedulingTerm pref;
  pref.weight = 5;
  pref.preference = term({req("disk", "In", {"ssd"})});
  args.addedAffinity->preferredDuringSchedulingIgnoredDuringExecution.push_back(pref);
  auto made = NodeAffinity::create(args.addedAffinity);
  ASSERT_TRUE(made.ok());
  auto* pl = made.value().get();

  std::string msg;
  // addedAffinity is enforced even for a pod without any selector (PreFilter does not Skip).
  EXPECT_EQ(run_filter(*pl, MakePod().Name("p").Obj(), MakeNode().Name("n").Label("zone", "b").Obj(), &msg),
            Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(msg, "node(s) didn't match scheduler-enforced node affinity");
  EXPECT_EQ(run_filter(*pl, MakePod().Name("p").Obj(), MakeNode().Name("n").Label("zone", "a").Obj()), Code::Success);
  // Both must hold: addedAffinity passes, pod selector fails.
  EXPECT_EQ(run_filter(*pl, MakePod().Name("p").NodeSelector({{"x", "y"}}).Obj(),
                       MakeNode().Name("n").Label("zone", "a").Obj(), &msg),
            Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(msg, "node(s) didn't match Pod's node affinity/selector");

  // Score: pod preferred (weight 2 on gpu) + added preferred (weight 5 on ssd).
  auto pod = MakePod().Name("p").PreferredNodeAffinity(2, term({req("gpu", "Exists", {})})).Obj();
  std::vector<framework::NodeInfoPtr> nodes = {
      std::make_shared<framework::NodeInfo>(MakeNode().Name("none").Ptr()),
      std::make_shared<framework::NodeInfo>(MakeNode().Name("gpu").Label("gpu", "1").Ptr()),
      std::make_shared<framework::NodeInfo>(MakeNode().Name("both").Label("gpu", "1").Label("disk", "ssd").Ptr()),
  };
  framework::CycleState state;
  ASSERT_TRUE(pl->pre_score(state, pod, nodes).is_success());
  framework::NodeScoreList scores;
  for (const auto& n : nodes) {
    std::int64_t s = 0;
    ASSERT_TRUE(pl->score(state, pod, *n, s).is_success());
    scores.push_back({n->name(), s});
  }
  EXPECT_EQ(scores[0].score, 0);
  EXPECT_EQ(scores[1].score, 2);
  EXPECT_EQ(scores[2].score, 7);
  ASSERT_TRUE(pl->normalize_score(state, pod, scores).is_success());
  // 100·s/max: 0, 200/7 = 28, 100.
  EXPECT_EQ(scores[0].score, 0);
  EXPECT_EQ(scores[1].score, 28);
  EXPECT_EQ(scores[2].score, 100);

  // Invalid addedAffinity is a construction error.
  config::NodeAffinityArgs bad;
  bad.addedAffinity = required({term({req("k", "Gt", {"notanumber"})})});
  auto bad_made = NodeAffinity::create(bad.addedAffinity);
  ASSERT_FALSE(bad_made.ok());
  EXPECT_EQ(bad_made.error().rfind("parsing addedAffinity.requiredDuringSchedulingIgnoredDuringExecution: ", 0), 0u)
      << bad_made.error();
}

TEST(NodeAffinity, PreScoreSkipAndWeights) {
  auto pl = plugin();
  framework::CycleState state;
  std::vector<framework::NodeInfoPtr> nodes = {std::make_shared<framework::NodeInfo>(MakeNode().Name("n").Ptr())};
  EXPECT_TRUE(pl->pre_score(state, MakePod().Name("p").Obj(), nodes).is_skip());

  // Weight-0 preferred terms are ignored; matching terms add up.
  auto pod = MakePod()
                 .Name("p")
                 .PreferredNodeAffinity(0, term({req("a", "Exists", {})}))
                 .PreferredNodeAffinity(3, term({req("a", "Exists", {})}))
                 .PreferredNodeAffinity(4, term({req("b", "In", {"x"})}))
                 .Obj();
  ASSERT_TRUE(pl->pre_score(state, pod, nodes).is_success());
  framework::NodeInfo ni(MakeNode().Name("n").Label("a", "1").Label("b", "x").Ptr());
  std::int64_t s = 0;
  ASSERT_TRUE(pl->score(state, pod, ni, s).is_success());
  EXPECT_EQ(s, 7);

  framework::NodeScoreList zeros = {{"a", 0}, {"b", 0}};
  ASSERT_TRUE(pl->normalize_score(state, pod, zeros).is_success());
  EXPECT_EQ(zeros[0].score, 0);  // not reversed: zeros stay zero
}

TEST(NodeAffinity, Hint) {
  auto pl = plugin();
  auto events = pl->events_to_register();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event.actionType, framework::kAdd | framework::kUpdateNodeLabel);
  const auto pod = MakePod().Name("p").NodeSelector({{"foo", "bar"}}).Obj();
  auto match = MakeNode().Name("n").Label("foo", "bar").Ptr();
  auto miss = MakeNode().Name("n").Ptr();
  EXPECT_EQ(events[0].hint(pod, nullptr, match), framework::QueueingHint::Queue);
  EXPECT_EQ(events[0].hint(pod, nullptr, miss), framework::QueueingHint::Skip);
  EXPECT_EQ(events[0].hint(pod, miss, match), framework::QueueingHint::Queue);
  EXPECT_EQ(events[0].hint(pod, match, match), framework::QueueingHint::Skip);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::nodeaffinity
