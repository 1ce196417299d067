#include "scheduler/plugins/tainttoleration/tainttoleration.h"

#include <gtest/gtest.h>

#include "scheduler_testing/builders.h"

namespace ksched::scheduler::plugins::tainttoleration {
namespace {

using framework::Code;
using testing::MakeNode;
using testing::MakePod;

TEST(TaintToleration, Filter) {
  TaintToleration pl;
  framework::CycleState state;
  struct Case {
    const char* name;
    api::Pod pod;
    api::Node node;
    Code want;
    std::string reason;
  };
  const Case cases[] = {
      {"no taints", MakePod().Name("p").Obj(), MakeNode().Name("n").Obj(), Code::Success, ""},
      {"untolerated NoSchedule", MakePod().Name("p").Obj(),
       MakeNode().Name("n").Taint("dedicated", "user1", "NoSchedule").Obj(), Code::UnschedulableAndUnresolvable,
       "node(s) had untolerated taint(s)"},
      {"tolerated with Equal", MakePod().Name("p").Toleration("dedicated", "Equal", "user1", "NoSchedule").Obj(),
       MakeNode().Name("n").Taint("dedicated", "user1", "NoSchedule").Obj(), Code::Success, ""},
      {"operator \"\" means Equal, value differs",
       MakePod().Name("p").Toleration("dedicated", "", "user2", "NoSchedule").Obj(),
       MakeNode().Name("n").Taint("dedicated", "user1", "NoSchedule").Obj(), Code::UnschedulableAndUnresolvable,
       "node(s) had untolerated taint(s)"},
      {"Exists ignores value", MakePod().Name("p").Toleration("foo", "Exists", "", "NoSchedule").Obj(),
       MakeNode().Name("n").Taint("foo", "bar", "NoSchedule").Obj(), Code::Success, ""},
      {"empty effect tolerates all effects", MakePod().Name("p").Toleration("foo", "Equal", "bar", "").Obj(),
       MakeNode().Name("n").Taint("foo", "bar", "NoExecute").Obj(), Code::Success, ""},
      {"PreferNoSchedule never filters", MakePod().Name("p").Obj(),
       MakeNode().Name("n").Taint("foo", "bar", "PreferNoSchedule").Obj(), Code::Success, ""},
      // The first untolerated NoSchedule/NoExecute taint is reported.
      {"first untolerated reported", MakePod().Name("p").Toleration("a", "Exists", "", "").Obj(),
       MakeNode().Name("n").Taint("a", "1", "NoSchedule").Taint("b", "", "NoExecute").Taint("c", "3", "NoSchedule").Obj(),
       Code::UnschedulableAndUnresolvable, "node(s) had untolerated taint(s)"},
  };
  for (const auto& c : cases) {
    framework::NodeInfo ni(std::make_shared<const api::Node>(c.node));
    auto s = pl.filter(state, c.pod, ni);
    EXPECT_EQ(s.code(), c.want) << c.name;
    if (!c.reason.empty()) {
      EXPECT_EQ(s.message(), c.reason) << c.name;
    }
  }
}

// Reference check values: untolerated PreferNoSchedule counts [0,1,2] → reverse-normalized [100,50,0].
TEST(TaintToleration, ScoreCheckValues) {
  TaintToleration pl;
  // Tolerates foo=bar only for PreferNoSchedule; a NoSchedule toleration must not count.
  auto pod = MakePod()
                 .Name("p")
                 .Toleration("foo", "Equal", "bar", "PreferNoSchedule")
                 .Toleration("cpu-type", "Equal", "arm64", "NoSchedule")
                 .Obj();
  std::vector<framework::NodeInfoPtr> nodes = {
      std::make_shared<framework::NodeInfo>(MakeNode().Name("n0").Taint("foo", "bar", "PreferNoSchedule").Ptr()),
      std::make_shared<framework::NodeInfo>(
          MakeNode().Name("n1").Taint("foo", "bar", "PreferNoSchedule").Taint("x", "y", "PreferNoSchedule").Ptr()),
      std::make_shared<framework::NodeInfo>(MakeNode()
                                                .Name("n2")
                                                .Taint("cpu-type", "arm64", "PreferNoSchedule")
                                                .Taint("x", "y", "PreferNoSchedule")
                                                .Taint("z", "w", "NoSchedule")
                                                .Ptr()),
  };
  framework::CycleState state;
  ASSERT_TRUE(pl.pre_score(state, pod, nodes).is_success());
  framework::NodeScoreList scores;
  for (const auto& n : nodes) {
    std::int64_t s = -1;
    ASSERT_TRUE(pl.score(state, pod, *n, s).is_success());
    scores.push_back({n->name(), s});
  }
  EXPECT_EQ(scores[0].score, 0);
  EXPECT_EQ(scores[1].score, 1);
  EXPECT_EQ(scores[2].score, 2);
  ASSERT_TRUE(pl.normalize_score(state, pod, scores).is_success());
  EXPECT_EQ(scores[0].score, 100);
  EXPECT_EQ(scores[1].score, 50);
  EXPECT_EQ(scores[2].score, 0);

  // All zero → all 100 when reversed.
  framework::NodeScoreList zeros = {{"a", 0}, {"b", 0}};
  ASSERT_TRUE(pl.normalize_score(state, pod, zeros).is_success());
  EXPECT_EQ(zeros[0].score, 100);
  EXPECT_EQ(zeros[1].score, 100);
}

TEST(TaintToleration, ScoreWithoutPreScore) {
  TaintToleration pl;
  framework::CycleState state;
  framework::NodeInfo ni(MakeNode().Name("n").Taint("a", "b", "PreferNoSchedule").Ptr());
  std::int64_t s = -1;
  ASSERT_TRUE(pl.score(state, MakePod().Name("p").Obj(), ni, s).is_success());
  EXPECT_EQ(s, 1);
}

TEST(TaintToleration, Hints) {
  TaintToleration pl;
  auto events = pl.events_to_register();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.actionType, framework::kAdd | framework::kUpdateNodeTaint);
  EXPECT_EQ(events[1].event.actionType, framework::kUpdatePodTolerations);
  const auto pod = MakePod().Name("p").Obj();
  auto tainted = MakeNode().Name("n").Taint("a", "b", "NoSchedule").Ptr();
  auto clean = MakeNode().Name("n").Ptr();
  EXPECT_EQ(events[0].hint(pod, nullptr, clean), framework::QueueingHint::Queue);
  EXPECT_EQ(events[0].hint(pod, nullptr, tainted), framework::QueueingHint::Skip);
  EXPECT_EQ(events[0].hint(pod, tainted, clean), framework::QueueingHint::Queue);
  EXPECT_EQ(events[0].hint(pod, clean, clean), framework::QueueingHint::Skip);
  EXPECT_EQ(events[1].hint(pod, MakePod().Name("p").Ptr(), MakePod().Name("p").Ptr()), framework::QueueingHint::Queue);
  EXPECT_EQ(events[1].hint(pod, MakePod().Name("q").Ptr(), MakePod().Name("q").Ptr()), framework::QueueingHint::Skip);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::tainttoleration
