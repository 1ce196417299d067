#include "scheduler/plugins/defaultbinder/defaultbinder.h"

#include <gtest/gtest.h>

#include "scheduler_testing/testing.h"

namespace ksched::scheduler::plugins::defaultbinder {
namespace {

using testing::FakeHandle;
using testing::MakePod;

TEST(DefaultBinder, BindsThroughClient) {
  FakeHandle handle;
  auto made = make_default_binder({}, handle);
  ASSERT_TRUE(made.ok());
  auto binder = std::dynamic_pointer_cast<framework::BindPlugin>(made.value());
  ASSERT_NE(binder, nullptr);
  EXPECT_EQ(binder->name(), "DefaultBinder");

  framework::CycleState state;
  auto pod = MakePod().Namespace("ns").Name("foo").UID("uid-foo").Obj();
  ASSERT_TRUE(binder->bind(state, pod, "node-1").is_success());
  auto binds = handle.fake_client().binds();
  ASSERT_EQ(binds.size(), 1u);
  EXPECT_EQ(binds[0].pod, "ns/foo");
  EXPECT_EQ(binds[0].uid, "uid-foo");
  EXPECT_EQ(binds[0].node, "node-1");
}

TEST(DefaultBinder, ClientFailureIsError) {
  FakeHandle handle;
  handle.fake_client().bind_error = framework::Status::unschedulable("pods \"foo\" not found");
  DefaultBinder binder(handle);
  framework::CycleState state;
  auto s = binder.bind(state, MakePod().Name("foo").Obj(), "node-1");
  EXPECT_EQ(s.code(), framework::Code::Error);
  EXPECT_EQ(s.message(), "pods \"foo\" not found");
  EXPECT_TRUE(handle.fake_client().binds().empty());
}

// DefaultBinder's bind is the client's bind and nothing more, so the framework may batch it; an
// answer handed to bound_through_client becomes what bind returns on it.
TEST(DefaultBinder, BindsThroughTheClientOnlyAndMapsItsAnswersAsBindDoes) {
  FakeHandle handle;
  DefaultBinder binder(handle);
  EXPECT_TRUE(binder.binds_through_client());
  EXPECT_TRUE(binder.bound_through_client(framework::Status()).is_success());
  auto rejected = binder.bound_through_client(framework::Status::unschedulable("pods \"foo\" not found"));
  EXPECT_EQ(rejected.code(), framework::Code::Error);
  EXPECT_EQ(rejected.message(), "pods \"foo\" not found");
  auto err = binder.bound_through_client(framework::Status::error("connection refused"));
  EXPECT_EQ(err.code(), framework::Code::Error);
  EXPECT_EQ(err.message(), "connection refused");
}

}  // namespace
}  // namespace ksched::scheduler::plugins::defaultbinder
