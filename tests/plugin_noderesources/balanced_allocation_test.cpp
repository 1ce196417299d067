#include "scheduler/plugins/noderesources/balanced_allocation.h"

#include <gtest/gtest.h>

#include "scheduler/config/features.h"
#include "scheduler_testing/testing.h"

namespace ksched::scheduler::plugins::noderesources {
namespace {

using testing::MakeNode;
using testing::MakePod;
using testing::ResourceMap;

framework::NodeInfo node_with(const ResourceMap& alloc, const std::vector<ResourceMap>& pods = {}) {
  framework::NodeInfo ni(MakeNode().Name("n").Capacity(alloc).Ptr());
  int i = 0;
  for (const auto& r : pods) ni.add_pod(MakePod().Name("e" + std::to_string(i++)).Node("n").Req(r).Info());
  return ni;
}

std::int64_t run_score(BalancedAllocation& pl, const api::Pod& pod, const framework::NodeInfo& ni) {
  framework::CycleState state;
  EXPECT_TRUE(pl.pre_score(state, pod, {}).is_success());
  std::int64_t s = -1;
  EXPECT_TRUE(pl.score(state, pod, ni, s).is_success());
  return s;
}

TEST(BalancedAllocation, Score) {
  BalancedAllocation pl(config::NodeResourcesBalancedAllocationArgs{});
  const ResourceMap alloc = {{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}};
  // Reference check value: fractions 0.25 / 0.5 → std 0.125 → int(87.5) = 87.
  EXPECT_EQ(run_score(pl, MakePod().Name("p").Req({{"cpu", "1"}, {"memory", "4Gi"}}).Obj(), node_with(alloc)), 87);
  // Existing pods count (raw Requested): 1/4 + 1/4 cpu = 0.5, memory 4Gi/8Gi = 0.5 → 100.
  EXPECT_EQ(run_score(pl, MakePod().Name("p").Req({{"cpu", "1"}, {"memory", "2Gi"}}).Obj(),
                      node_with(alloc, {{{"cpu", "1"}, {"memory", "2Gi"}}})),
            100);
  // Zero requests: raw requests (no 100m/200Mi defaults) → both fractions 0 → 100.
  EXPECT_EQ(run_score(pl, MakePod().Name("p").Obj(), node_with(alloc)), 100);
  // Fractions capped at 1: cpu 8/4 → 1, memory 0 → std 0.5 → 50.
  EXPECT_EQ(run_score(pl, MakePod().Name("p").Req({{"cpu", "8"}}).Obj(), node_with(alloc)), 50);
}

TEST(BalancedAllocation, ThreeResources) {
  config::NodeResourcesBalancedAllocationArgs args;
  args.resources = {{"cpu", 1}, {"memory", 1}, {"example.com/gpu", 1}};
  BalancedAllocation pl(args);
  const ResourceMap alloc = {{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}, {"example.com/gpu", "4"}};
  // Fractions 0.25, 0.5, 0.75: mean 0.5, population std = sqrt((0.0625+0+0.0625)/3) = 0.2041 → 79.
  EXPECT_EQ(run_score(pl, MakePod().Name("p").Req({{"cpu", "1"}, {"memory", "4Gi"}, {"example.com/gpu", "3"}}).Obj(),
                      node_with(alloc)),
            79);
  // gpu not requested → left out → two fractions 0.25/0.5 → 87.
  EXPECT_EQ(run_score(pl, MakePod().Name("p").Req({{"cpu", "1"}, {"memory", "4Gi"}}).Obj(), node_with(alloc)), 87);
  // Single resource with allocatable (node without memory/gpu) → std 0 → 100.
  EXPECT_EQ(run_score(pl, MakePod().Name("p").Req({{"cpu", "1"}}).Obj(), node_with({{"cpu", "4"}})), 100);
}

TEST(BalancedAllocation, Factory) {
  testing::FakeHandle handle;
  auto made = make_node_resources_balanced_allocation({}, handle);
  ASSERT_TRUE(made.ok());
  EXPECT_EQ(made.value()->name(), "NodeResourcesBalancedAllocation");
  auto* score = dynamic_cast<framework::ScorePlugin*>(made.value().get());
  ASSERT_NE(score, nullptr);
  EXPECT_FALSE(score->has_normalize_score());
}

// Upstream balanced_allocation_test.go's pod-level cases: the pod's pod-level requests, not its
// containers', are what is balanced. Pod level 1 cpu / 4Gi over containers of 100m / 100Mi on
// 4 cpu / 8Gi: fractions 0.25 / 0.5 → 87, as the container-level pod of Score.
TEST(BalancedAllocation, PodLevelRequests) {
  BalancedAllocation pl(config::NodeResourcesBalancedAllocationArgs{});
  const ResourceMap alloc = {{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}};
  auto pod = MakePod().Name("p").Req({{"cpu", "100m"}, {"memory", "100Mi"}}).PodLevelReq({{"cpu", "1"}, {"memory", "4Gi"}}).Obj();
  EXPECT_EQ(run_score(pl, pod, node_with(alloc)), 87);
  // Pod level cpu 2 only, memory from the container (2Gi): 0.5 / 0.25 → 87.
  auto cpu_only = MakePod().Name("c").Req({{"cpu", "100m"}, {"memory", "2Gi"}}).PodLevelReq({{"cpu", "2"}}).Obj();
  EXPECT_EQ(run_score(pl, cpu_only, node_with(alloc)), 87);
  // With the gate off the containers' 100m / 100Mi count: fractions 0.025 / 0.0122 → std 0.0064 → 99.
  config::ScopedFeatures off(config::Features{.podLevelResources = false});
  EXPECT_EQ(run_score(pl, pod, node_with(alloc)), 99);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::noderesources
