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

// Several pods are bound with one ClusterClient::bind_all, each answer mapped as bind maps it;
// one pod alone goes through the client's bind.
TEST(DefaultBinder, BindsSeveralPodsWithOneClientCallAndMapsEachAnswerAsBindDoes) {
  FakeHandle handle;
  DefaultBinder binder(handle);
  EXPECT_TRUE(binder.binds_in_batches());
  framework::CycleState s0, s1, s2;
  auto p0 = MakePod().Namespace("ns").Name("a").UID("uid-a").Obj();
  auto p1 = MakePod().Namespace("ns").Name("b").UID("uid-b").Obj();
  auto p2 = MakePod().Namespace("ns").Name("c").UID("uid-c").Obj();
  const std::string n1 = "node-1", n2 = "node-2";
  std::vector<framework::BindItem> items{{&s0, &p0, &n1}, {&s1, &p1, &n2}, {&s2, &p2, &n1}};
  std::vector<framework::Status> out(items.size(), framework::Status::skip());
  binder.bind_all(items, out);
  for (const auto& s : out) EXPECT_TRUE(s.is_success()) << s.message();
  EXPECT_EQ(handle.fake_client().bind_all_sizes(), (std::vector<std::size_t>{3}));
  auto binds = handle.fake_client().binds();
  ASSERT_EQ(binds.size(), 3u);
  EXPECT_EQ(binds[1].pod, "ns/b");
  EXPECT_EQ(binds[1].node, "node-2");

  // A rejection from the API server is an Error, as bind() returns it.
  handle.fake_client().bind_error = framework::Status::unschedulable("pods \"a\" not found");
  binder.bind_all(items, out);
  for (const auto& s : out) {
    EXPECT_EQ(s.code(), framework::Code::Error);
    EXPECT_EQ(s.message(), "pods \"a\" not found");
  }
  EXPECT_EQ(handle.fake_client().bind_all_sizes(), (std::vector<std::size_t>{3, 3}));

  // One pod: the client's bind, no bind_all.
  handle.fake_client().bind_error = framework::Status();
  binder.bind_all(std::span<const framework::BindItem>(items.data(), 1), std::span<framework::Status>(out.data(), 1));
  EXPECT_TRUE(out[0].is_success()) << out[0].message();
  EXPECT_EQ(handle.fake_client().bind_all_sizes(), (std::vector<std::size_t>{3, 3}));
  EXPECT_EQ(handle.fake_client().binds().size(), 4u);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::defaultbinder
