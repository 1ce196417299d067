#include "scheduler/framework/plugin_helper.h"

#include <gtest/gtest.h>

#include "scheduler_testing/testing.h"

namespace ksched::scheduler::framework {
namespace {
using testing::MakeNode;
using testing::MakePod;

TEST(DefaultNormalizeScore, ScalesAndReverses) {
  NodeScoreList s{{"a", 10}, {"b", 20}, {"c", 5}};
  EXPECT_TRUE(default_normalize_score(100, false, s).is_success());
  EXPECT_EQ(s[0].score, 50);
  EXPECT_EQ(s[1].score, 100);
  EXPECT_EQ(s[2].score, 25);
  NodeScoreList r{{"a", 10}, {"b", 20}, {"c", 5}};
  (void)default_normalize_score(100, true, r);
  EXPECT_EQ(r[0].score, 50);
  EXPECT_EQ(r[1].score, 0);
  EXPECT_EQ(r[2].score, 75);
  NodeScoreList z{{"a", 0}, {"b", 0}};
  (void)default_normalize_score(100, false, z);
  EXPECT_EQ(z[0].score, 0);
  (void)default_normalize_score(100, true, z);
  EXPECT_EQ(z[1].score, 100);
  NodeScoreList t{{"a", 1}, {"b", 3}};  // 100*1/3 = 33 (truncating)
  (void)default_normalize_score(100, false, t);
  EXPECT_EQ(t[0].score, 33);
}

TEST(RequiredNodeAffinity, SelectorAndTerms) {
  auto node = MakeNode().Name("n1").Label("zone", "a").Label("cores", "8").Obj();
  EXPECT_TRUE(required_node_affinity_matches(MakePod().Name("p").Obj(), node));
  EXPECT_TRUE(required_node_affinity_matches(MakePod().Name("p").NodeSelector({{"zone", "a"}}).Obj(), node));
  EXPECT_FALSE(required_node_affinity_matches(MakePod().Name("p").NodeSelector({{"zone", "b"}}).Obj(), node));
  EXPECT_TRUE(required_node_affinity_matches(MakePod().Name("p").NodeAffinityIn("zone", {"a", "b"}).Obj(), node));
  EXPECT_FALSE(required_node_affinity_matches(MakePod().Name("p").NodeAffinityNotIn("zone", {"a"}).Obj(), node));
  EXPECT_TRUE(required_node_affinity_matches(MakePod().Name("p").NodeAffinityNotIn("absent", {"a"}).Obj(), node));

  auto with_expr = [&](std::string key, std::string op, std::vector<std::string> vals) {
    api::NodeSelectorRequirement r{key, op, vals};
    api::NodeSelectorTerm t;
    t.matchExpressions.push_back(r);
    return CompiledNodeSelectorTerm(t).matches(node);
  };
  EXPECT_TRUE(with_expr("cores", "Gt", {"4"}));
  EXPECT_FALSE(with_expr("cores", "Gt", {"8"}));
  EXPECT_TRUE(with_expr("cores", "Lt", {"9"}));
  EXPECT_FALSE(with_expr("zone", "Gt", {"1"}));     // non-integer label
  EXPECT_FALSE(with_expr("cores", "Gt", {"x"}));    // invalid requirement
  EXPECT_FALSE(with_expr("cores", "Gt", {"1", "2"}));
  EXPECT_FALSE(with_expr("zone", "Exists", {"a"}));  // values must be empty
  EXPECT_TRUE(with_expr("zone", "Exists", {}));
  EXPECT_TRUE(with_expr("gpu", "DoesNotExist", {}));
  EXPECT_FALSE(with_expr("zone", "Foo", {"a"}));
  EXPECT_FALSE(CompiledNodeSelectorTerm(api::NodeSelectorTerm{}).matches(node));  // empty term

  api::NodeSelectorTerm fields;
  fields.matchFields.push_back(api::NodeSelectorRequirement{"metadata.name", "In", {"n1"}});
  EXPECT_TRUE(CompiledNodeSelectorTerm(fields).matches(node));
  fields.matchFields[0].operator_ = "NotIn";
  EXPECT_FALSE(CompiledNodeSelectorTerm(fields).matches(node));
  fields.matchFields[0].values = {"n1", "n2"};
  EXPECT_FALSE(CompiledNodeSelectorTerm(fields).valid());

  // Terms are ORed; a broken term does not stop another from matching.
  api::NodeSelector ns;
  api::NodeSelectorTerm bad;
  bad.matchExpressions.push_back(api::NodeSelectorRequirement{"zone", "Bogus", {}});
  api::NodeSelectorTerm good;
  good.matchExpressions.push_back(api::NodeSelectorRequirement{"zone", "In", {"a"}});
  ns.nodeSelectorTerms = {bad, good};
  EXPECT_TRUE(NodeSelectorMatcher(ns).matches(node));
  EXPECT_FALSE(NodeSelectorMatcher(api::NodeSelector{}).matches(node));
}

// Cases where the two former node selector copies disagreed, pinned to upstream v1.32
// (component-helpers nodeaffinity + labels.NewRequirement).
TEST(NodeSelector, UpstreamParseAndMatchRules) {
  auto node = MakeNode().Name("n1").Label("cores", "8").Obj();
  auto expr_term = [](std::string key, std::string op, std::vector<std::string> vals) {
    api::NodeSelectorTerm t;
    t.matchExpressions.push_back(api::NodeSelectorRequirement{std::move(key), std::move(op), std::move(vals)});
    return t;
  };
  // NewRequirement validates every value as a label value, Gt/Lt included: "-1" parses as an
  // integer but is not a label value, so the term is invalid and never matches.
  CompiledNodeSelectorTerm negative(expr_term("cores", "Gt", {"-1"}));
  EXPECT_FALSE(negative.valid());
  EXPECT_FALSE(negative.matches(node));
  EXPECT_TRUE(CompiledNodeSelectorTerm(expr_term("cores", "Gt", {"7"})).matches(node));

  // A nameless node has no fields: matchFields are skipped (upstream extractNodeFields), as for
  // PV node affinity checked against node labels alone.
  api::NodeSelectorTerm by_name = expr_term("cores", "Exists", {});
  by_name.matchFields.push_back(api::NodeSelectorRequirement{"metadata.name", "In", {"other"}});
  CompiledNodeSelectorTerm pinned(by_name);
  EXPECT_FALSE(pinned.matches(node));
  EXPECT_TRUE(pinned.matches(node.metadata.labels, ""));
  api::NodeSelector ns;
  ns.nodeSelectorTerms = {by_name};
  EXPECT_TRUE(NodeSelectorMatcher(ns).matches(node.metadata.labels));
  EXPECT_FALSE(NodeSelectorMatcher(ns).matches(node));

  // Every error of a term is kept, with its field path; invalid terms are reported, empty ones not.
  api::NodeSelectorTerm two_bad = expr_term("cores", "Gt", {"x"});
  two_bad.matchFields.push_back(api::NodeSelectorRequirement{"metadata.name", "Exists", {}});
  ns.nodeSelectorTerms = {api::NodeSelectorTerm{}, two_bad};
  NodeSelectorMatcher m(ns);
  ASSERT_EQ(m.errors().size(), 2u) << m.error_string();
  EXPECT_EQ(m.errors()[0].rfind("nodeSelectorTerms[1].matchExpressions[0].values[0]: Invalid value: ", 0), 0u)
      << m.errors()[0];
  EXPECT_EQ(m.errors()[1].rfind("nodeSelectorTerms[1].matchFields[0].operator: Unsupported value: ", 0), 0u)
      << m.errors()[1];
  EXPECT_FALSE(m.matches(node));
}

TEST(NodeSelector, PreferredSchedulingTerms) {
  auto node = MakeNode().Name("n1").Label("zone", "a").Obj();
  auto pref = [](std::int32_t w, std::string key, std::string op, std::vector<std::string> vals) {
    api::PreferredSchedulingTerm p;
    p.weight = w;
    p.preference.matchExpressions.push_back(api::NodeSelectorRequirement{std::move(key), std::move(op), std::move(vals)});
    return p;
  };
  PreferredSchedulingTerms terms({pref(3, "zone", "In", {"a"}), pref(5, "zone", "Exists", {}),
                                  pref(0, "zone", "Bogus", {}), pref(7, "zone", "In", {"b"})});
  EXPECT_TRUE(terms.errors().empty());  // the weight-0 term is dropped unparsed
  EXPECT_EQ(terms.score(node), 8);
  PreferredSchedulingTerms bad({pref(1, "zone", "Bogus", {})}, "p");
  ASSERT_EQ(bad.errors().size(), 1u);
  EXPECT_EQ(bad.errors()[0].rfind("p[0].preference.matchExpressions[0].operator: Unsupported value: ", 0), 0u)
      << bad.errors()[0];
}

TEST(Taints, FindMatchingUntolerated) {
  api::Taint t1{"k1", "v1", "NoSchedule"};
  api::Taint t2{"k2", "", "PreferNoSchedule"};
  std::vector<api::Taint> taints{t1, t2};
  std::vector<api::Toleration> none;
  EXPECT_EQ(find_matching_untolerated_taint(taints, none), &taints[0]);
  std::vector<api::Toleration> tol{api::Toleration{"k1", "Equal", "v1", "NoSchedule"}};
  EXPECT_EQ(find_matching_untolerated_taint(taints, tol, is_do_not_schedule_taint), nullptr);
  EXPECT_TRUE(is_do_not_schedule_taint(api::Taint{"k", "", "NoExecute"}));
  EXPECT_FALSE(is_do_not_schedule_taint(api::Taint{"k", "", "PreferNoSchedule"}));
  EXPECT_EQ(find_matching_untolerated_taint(taints, tol), &taints[1]);
  EXPECT_TRUE(tolerates_taint(api::Toleration{"", "Exists", "", ""}, t1));
  EXPECT_FALSE(tolerates_taint(api::Toleration{"k1", "", "v2", ""}, t1));
  EXPECT_TRUE(tolerates_taint(api::Toleration{"k1", "", "v1", ""}, t1));
  EXPECT_FALSE(tolerates_taint(api::Toleration{"k1", "Exists", "", "NoExecute"}, t1));
}

TEST(Taints, Equality) {
  std::vector<api::Taint> a{api::Taint{"k", "v", "NoSchedule"}};
  auto b = a;
  EXPECT_TRUE(taints_equal(a, b));
  b[0].effect = "NoExecute";
  EXPECT_FALSE(taints_equal(a, b));
  EXPECT_FALSE(taints_equal(a, {}));
  std::vector<api::Toleration> t{api::Toleration{"k", "Exists", "", "NoExecute"}};
  auto u = t;
  EXPECT_TRUE(tolerations_equal(t, u));
  u[0].tolerationSeconds = 30;
  EXPECT_FALSE(tolerations_equal(t, u));
}

TEST(DefaultSelector, ServicesAndReplicationController) {
  testing::FakeClusterLister lister;
  auto svc = std::make_shared<api::Service>();
  svc->metadata.name = "s";
  svc->metadata.namespace_ = "default";
  svc->spec.selector.set("app", "web");
  lister.add_service(svc);
  auto other = std::make_shared<api::Service>();
  other->metadata.name = "o";
  other->metadata.namespace_ = "default";
  other->spec.selector.set("app", "db");
  lister.add_service(other);
  auto rc = std::make_shared<api::ReplicationController>();
  rc->metadata.name = "rc";
  rc->metadata.namespace_ = "default";
  rc->spec.selector.set("tier", "front");
  lister.add_replication_controller(rc);

  auto pod = MakePod().Name("p").Label("app", "web").Label("tier", "front").Obj();
  auto sel = default_selector(pod, lister);
  EXPECT_EQ(sel.to_string(), "app=web");
  auto owned = MakePod().Name("p").Label("app", "web").OwnerReference("rc", "ReplicationController", "v1").Obj();
  EXPECT_EQ(default_selector(owned, lister).to_string(), "app=web,tier=front");
  EXPECT_TRUE(default_selector(MakePod().Name("lonely").Obj(), lister).empty());
}

}  // namespace
}  // namespace ksched::scheduler::framework
