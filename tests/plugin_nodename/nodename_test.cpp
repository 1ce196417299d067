#include "scheduler/plugins/nodename/nodename.h"

#include <gtest/gtest.h>

#include "scheduler_testing/builders.h"

namespace ksched::scheduler::plugins::nodename {
namespace {

using framework::Code;
using testing::MakeNode;
using testing::MakePod;

TEST(NodeName, Filter) {
  NodeName pl;
  framework::CycleState state;
  framework::NodeInfo ni(MakeNode().Name("foo").Ptr());
  EXPECT_TRUE(pl.filter(state, MakePod().Name("p").Obj(), ni).is_success());          // no nodeName
  EXPECT_TRUE(pl.filter(state, MakePod().Name("p").Node("foo").Obj(), ni).is_success());
  auto s = pl.filter(state, MakePod().Name("p").Node("bar").Obj(), ni);
  EXPECT_EQ(s.code(), Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(s.message(), "node(s) didn't match the requested node name");
}

TEST(NodeName, Hint) {
  NodeName pl;
  auto events = pl.events_to_register();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event.actionType, framework::kAdd);
  const auto pod = MakePod().Name("p").Node("foo").Obj();
  EXPECT_EQ(events[0].hint(pod, nullptr, MakeNode().Name("foo").Ptr()), framework::QueueingHint::Queue);
  EXPECT_EQ(events[0].hint(pod, nullptr, MakeNode().Name("bar").Ptr()), framework::QueueingHint::Skip);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::nodename
