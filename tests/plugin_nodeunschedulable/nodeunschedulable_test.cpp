#include "scheduler/plugins/nodeunschedulable/nodeunschedulable.h"

#include <gtest/gtest.h>

#include "scheduler_testing/builders.h"

namespace ksched::scheduler::plugins::nodeunschedulable {
namespace {

using framework::Code;
using testing::MakeNode;
using testing::MakePod;

TEST(NodeUnschedulable, Filter) {
  NodeUnschedulable pl;
  framework::CycleState state;
  struct Case {
    const char* name;
    api::Pod pod;
    bool unschedulable;
    Code want;
  };
  const Case cases[] = {
      {"schedulable node", MakePod().Name("p").Obj(), false, Code::Success},
      {"unschedulable node", MakePod().Name("p").Obj(), true, Code::UnschedulableAndUnresolvable},
      {"tolerates by key+effect",
       MakePod().Name("p").Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule").Obj(), true,
       Code::Success},
      {"tolerates everything (empty key, Exists)", MakePod().Name("p").Toleration("", "Exists", "", "").Obj(), true,
       Code::Success},
      // Effect must match: a NoExecute toleration does not cover the NoSchedule taint.
      {"wrong effect",
       MakePod().Name("p").Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoExecute").Obj(), true,
       Code::UnschedulableAndUnresolvable},
  };
  for (const auto& c : cases) {
    framework::NodeInfo ni(MakeNode().Name("n").Unschedulable(c.unschedulable).Ptr());
    auto s = pl.filter(state, c.pod, ni);
    EXPECT_EQ(s.code(), c.want) << c.name;
    if (c.want != Code::Success) {
      EXPECT_EQ(s.message(), "node(s) were unschedulable") << c.name;
    }
  }
  framework::NodeInfo no_node;
  auto s = pl.filter(state, MakePod().Name("p").Obj(), no_node);
  EXPECT_EQ(s.code(), Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(s.message(), "node(s) had unknown conditions");
}

TEST(NodeUnschedulable, Hints) {
  NodeUnschedulable pl;
  auto events = pl.events_to_register();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::Node);
  EXPECT_EQ(events[0].event.actionType, framework::kAdd | framework::kUpdateNodeTaint);
  EXPECT_EQ(events[1].event.resource, framework::EventResource::Pod);
  EXPECT_EQ(events[1].event.actionType, framework::kUpdatePodTolerations);

  const auto pod = MakePod().Name("p").Obj();
  auto unsched = MakeNode().Name("n").Unschedulable(true).Ptr();
  auto sched = MakeNode().Name("n").Ptr();
  auto& node_hint = events[0].hint;
  EXPECT_EQ(node_hint(pod, nullptr, sched), framework::QueueingHint::Queue);    // schedulable node added
  EXPECT_EQ(node_hint(pod, nullptr, unsched), framework::QueueingHint::Skip);   // unschedulable node added
  EXPECT_EQ(node_hint(pod, unsched, sched), framework::QueueingHint::Queue);    // became schedulable
  EXPECT_EQ(node_hint(pod, sched, sched), framework::QueueingHint::Skip);       // no change

  auto tolerant = MakePod().Name("p").Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule");
  auto plain = MakePod().Name("p");
  EXPECT_EQ(events[1].hint(pod, plain.Ptr(), tolerant.Ptr()), framework::QueueingHint::Queue);
  EXPECT_EQ(events[1].hint(pod, plain.Ptr(), plain.Ptr()), framework::QueueingHint::Skip);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::nodeunschedulable
