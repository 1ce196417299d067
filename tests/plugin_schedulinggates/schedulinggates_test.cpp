#include "scheduler/plugins/schedulinggates/schedulinggates.h"

#include <gtest/gtest.h>

#include "scheduler_testing/builders.h"

namespace ksched::scheduler::plugins::schedulinggates {
namespace {

using framework::Code;
using testing::MakePod;

TEST(SchedulingGates, PreEnqueue) {
  SchedulingGates pl;
  EXPECT_TRUE(pl.pre_enqueue(MakePod().Name("p").Obj()).is_success());

  auto one = pl.pre_enqueue(MakePod().Name("p").SchedulingGates({"foo"}).Obj());
  EXPECT_EQ(one.code(), Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(one.message(), "waiting for scheduling gates: [foo]");

  // Go's %v of a []string: space separated, in spec order.
  auto two = pl.pre_enqueue(MakePod().Name("p").SchedulingGates({"foo", "bar"}).Obj());
  EXPECT_EQ(two.code(), Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(two.message(), "waiting for scheduling gates: [foo bar]");
}

TEST(SchedulingGates, EventsAndHint) {
  SchedulingGates pl;
  auto events = pl.events_to_register();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::Pod);
  EXPECT_EQ(events[0].event.actionType, framework::kUpdatePodSchedulingGatesEliminated);
  ASSERT_TRUE(events[0].hint);

  auto gated = MakePod().Name("p").UID("uid-p").SchedulingGates({"g"});
  auto self_after = std::make_shared<const api::Pod>(MakePod().Name("p").UID("uid-p").Obj());
  auto other = std::make_shared<const api::Pod>(MakePod().Name("q").UID("uid-q").Obj());
  EXPECT_EQ(events[0].hint(gated.Obj(), gated.Ptr(), self_after), framework::QueueingHint::Queue);
  EXPECT_EQ(events[0].hint(gated.Obj(), other, other), framework::QueueingHint::Skip);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::schedulinggates
