#include "scheduler/plugins/noderesources/fit.h"

#include <gtest/gtest.h>

#include "scheduler/config/features.h"
#include "scheduler/dra/manager.h"
#include "scheduler_testing/testing.h"

namespace ksched::scheduler::plugins::noderesources {
namespace {

using framework::Code;
using testing::MakeNode;
using testing::MakePod;
using testing::ResourceMap;

constexpr std::int64_t kMi = 1024 * 1024;
constexpr std::int64_t kGi = 1024 * kMi;

// A node with `alloc` allocatable hosting pods with the given requests.
framework::NodeInfo node_with(const ResourceMap& alloc, const std::vector<ResourceMap>& pods = {}) {
  framework::NodeInfo ni(MakeNode().Name("n").Capacity(alloc).Ptr());
  int i = 0;
  for (const auto& r : pods) ni.add_pod(MakePod().Name("existing" + std::to_string(i++)).Node("n").Req(r).Info());
  return ni;
}

std::shared_ptr<Fit> make_fit(config::NodeResourcesFitArgs args = {}) {
  auto f = Fit::create(args);
  EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error());
  return f.value();
}

framework::Status run_filter(Fit& fit, const api::Pod& pod, const framework::NodeInfo& ni) {
  framework::CycleState state;
  framework::PreFilterResult r;
  auto pre = fit.pre_filter(state, pod, {}, r);
  EXPECT_TRUE(pre.is_success());
  return fit.filter(state, pod, ni);
}

TEST(NodeResourcesFit, Filter) {
  auto fit = make_fit();
  const ResourceMap alloc = {{"cpu", "10"}, {"memory", "20"}, {"pods", "32"}, {"example.com/foo", "5"},
                             {"ephemeral-storage", "20"}};
  struct Case {
    const char* name;
    api::Pod pod;
    std::vector<ResourceMap> existing;
    std::vector<std::string> reasons;  // empty = fits
  };
  const Case cases[] = {
      {"zero requests fit a full node", MakePod().Name("p").Obj(), {{{"cpu", "10"}, {"memory", "20"}}}, {}},
      {"fits", MakePod().Name("p").Req({{"cpu", "1"}, {"memory", "1"}}).Obj(), {{{"cpu", "5"}, {"memory", "5"}}}, {}},
      {"insufficient cpu", MakePod().Name("p").Req({{"cpu", "1"}, {"memory", "1"}}).Obj(),
       {{{"cpu", "10"}, {"memory", "5"}}}, {"Insufficient cpu"}},
      // Every shortfall is reported, in cpu, memory, ephemeral-storage, scalar order.
      {"all insufficient", MakePod().Name("p").Req({{"cpu", "3"}, {"memory", "3"}, {"ephemeral-storage", "30"}}).Obj(),
       {{{"cpu", "8"}, {"memory", "19"}}}, {"Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage"}},
      {"exactly full fits", MakePod().Name("p").Req({{"cpu", "2"}, {"memory", "1"}}).Obj(),
       {{{"cpu", "8"}, {"memory", "19"}}}, {}},
      // Init container peak (max with the sum of regular containers).
      {"init container peak", MakePod().Name("p").Req({{"cpu", "1"}}).InitReq({{"cpu", "3"}}).Obj(),
       {{{"cpu", "8"}}}, {"Insufficient cpu"}},
      {"init container below sum", MakePod().Name("p").Req({{"cpu", "1"}}).Req({{"cpu", "1"}}).InitReq({{"cpu", "2"}}).Obj(),
       {{{"cpu", "8"}}}, {}},
      // A sidecar (restartable init container) adds to the regular containers: 1 + 1.5 > 2.
      {"sidecar adds", MakePod().Name("p").SidecarReq({{"cpu", "1500m"}}).Req({{"cpu", "1"}}).Obj(), {{{"cpu", "8"}}},
       {"Insufficient cpu"}},
      {"overhead counts", MakePod().Name("p").Req({{"cpu", "1"}}).Overhead({{"cpu", "1500m"}}).Obj(), {{{"cpu", "8"}}},
       {"Insufficient cpu"}},
      {"extended fits", MakePod().Name("p").Req({{"example.com/foo", "2"}}).Obj(), {{{"example.com/foo", "3"}}}, {}},
      {"extended insufficient", MakePod().Name("p").Req({{"example.com/foo", "3"}}).Obj(), {{{"example.com/foo", "3"}}},
       {"Insufficient example.com/foo"}},
      {"extended missing on node", MakePod().Name("p").Req({{"example.com/bar", "1"}}).Obj(), {},
       {"Insufficient example.com/bar"}},
      {"hugepages", MakePod().Name("p").Req({{"hugepages-2Mi", "2Mi"}}).Obj(), {}, {"Insufficient hugepages-2Mi"}},
  };
  for (const auto& c : cases) {
    auto s = run_filter(*fit, c.pod, node_with(alloc, c.existing));
    if (c.reasons.empty()) {
      EXPECT_TRUE(s.is_success()) << c.name << ": " << s.message();
    } else {
      EXPECT_EQ(s.code(), Code::Unschedulable) << c.name;
      EXPECT_EQ(s.reasons(), c.reasons) << c.name;
    }
  }
}

// A pod with a negative request (the API server refuses one, but a cache is fed by any server)
// must not make room on its node: its request counts as zero, so two pods of 30 CPUs still do
// not fit a 32-CPU node next to it. Upstream would add -1000 CPUs to the node's requests.
TEST(NodeResourcesFit, NegativeRequestOfACachedPodDoesNotFreeItsNode) {
  auto fit = make_fit();
  const ResourceMap alloc = {{"cpu", "32"}, {"memory", "64Gi"}, {"pods", "110"}};
  framework::NodeInfo ni = node_with(alloc, {{{"cpu", "-1000"}, {"memory", "-1Gi"}}, {{"cpu", "30"}}});
  EXPECT_EQ(ni.requested.milliCPU, 30000);
  EXPECT_EQ(ni.requested.memory, 0);
  auto s = run_filter(*fit, MakePod().Name("p").Req({{"cpu", "30"}}).Obj(), ni);
  EXPECT_EQ(s.code(), Code::Unschedulable);
  EXPECT_EQ(s.reasons(), (std::vector<std::string>{"Insufficient cpu"}));
  // Its own negative request is no credit either: it asks for nothing, and fits as such.
  auto own = framework::compute_pod_requests(MakePod().Name("q").Req({{"cpu", "-5"}}).Req({{"cpu", "2"}}).Obj());
  EXPECT_EQ(own.milliCPU, 2000);
  EXPECT_TRUE(run_filter(*fit, MakePod().Name("q").Req({{"cpu", "-5"}}).Obj(), ni).is_success());
}

TEST(NodeResourcesFit, TooManyPods) {
  auto fit = make_fit();
  const ResourceMap alloc = {{"cpu", "10"}, {"memory", "20"}, {"pods", "1"}};
  // pods+1 > allowed, even with zero requests.
  auto s = run_filter(*fit, MakePod().Name("p").Obj(), node_with(alloc, {{}}));
  EXPECT_EQ(s.code(), Code::Unschedulable);
  EXPECT_EQ(s.reasons(), (std::vector<std::string>{"Too many pods"}));
  // Collected together with resource shortfalls.
  s = run_filter(*fit, MakePod().Name("p").Req({{"cpu", "11"}}).Obj(), node_with(alloc, {{}}));
  EXPECT_EQ(s.reasons(), (std::vector<std::string>{"Too many pods", "Insufficient cpu"}));
  EXPECT_TRUE(run_filter(*fit, MakePod().Name("p").Obj(), node_with(alloc)).is_success());
}

TEST(NodeResourcesFit, IgnoredResources) {
  const ResourceMap alloc = {{"cpu", "10"}, {"memory", "20"}, {"pods", "32"}};
  auto pod = MakePod().Name("p").Req({{"example.com/aaa", "1"}, {"example.org/bbb", "1"}}).Obj();

  config::NodeResourcesFitArgs args;
  args.ignoredResources = {"example.com/aaa"};
  auto s = run_filter(*make_fit(args), pod, node_with(alloc));
  EXPECT_EQ(s.reasons(), (std::vector<std::string>{"Insufficient example.org/bbb"}));

  config::NodeResourcesFitArgs groups;
  groups.ignoredResourceGroups = {"example.org", "example.com"};
  EXPECT_TRUE(run_filter(*make_fit(groups), pod, node_with(alloc)).is_success());

  // Only extended resources can be ignored: hugepages stays checked.
  config::NodeResourcesFitArgs native;
  native.ignoredResources = {"hugepages-2Mi"};
  s = run_filter(*make_fit(native), MakePod().Name("p").Req({{"hugepages-2Mi", "2Mi"}}).Obj(), node_with(alloc));
  EXPECT_EQ(s.reasons(), (std::vector<std::string>{"Insufficient hugepages-2Mi"}));

  // fits() helper returns the details.
  auto insufficient = fits(pod, node_with(alloc));
  ASSERT_EQ(insufficient.size(), 2u);
  EXPECT_EQ(insufficient[0].resourceName, "example.com/aaa");
  EXPECT_EQ(insufficient[0].requested, 1);
  EXPECT_EQ(insufficient[0].capacity, 0);
}

TEST(NodeResourcesFit, FilterWithoutPreFilterIsError) {
  auto fit = make_fit();
  framework::CycleState state;
  EXPECT_EQ(fit->filter(state, MakePod().Name("p").Obj(), node_with({{"cpu", "1"}})).code(), Code::Error);
}

std::int64_t run_score(Fit& fit, const api::Pod& pod, const framework::NodeInfo& ni) {
  framework::CycleState state;
  auto nodes = std::vector<framework::NodeInfoPtr>{};
  EXPECT_TRUE(fit.pre_score(state, pod, nodes).is_success());
  std::int64_t s = -1;
  EXPECT_TRUE(fit.score(state, pod, ni, s).is_success());
  return s;
}

config::NodeResourcesFitArgs strategy(std::string_view type, std::vector<config::ResourceSpec> res = config::default_resource_spec()) {
  config::NodeResourcesFitArgs a;
  a.scoringStrategy.type = std::string(type);
  a.scoringStrategy.resources = std::move(res);
  if (type == config::kRequestedToCapacityRatio) {
    a.scoringStrategy.requestedToCapacityRatio.emplace();
    a.scoringStrategy.requestedToCapacityRatio->shape = {{0, 0}, {100, 10}};
  }
  return a;
}

// Reference check values: node alloc 4000m/8Gi, non-zero requested + pod = 1000m/2Gi.
TEST(NodeResourcesFit, ScoreCheckValues) {
  const ResourceMap alloc = {{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}};
  auto pod = MakePod().Name("p").Req({{"cpu", "1"}, {"memory", "2Gi"}}).Obj();
  // Least: (4000−1000)·100/4000 = 75 and (8−2)·100/8 = 75 → 75.
  EXPECT_EQ(run_score(*make_fit(strategy(config::kLeastAllocated)), pod, node_with(alloc)), 75);
  // Most: 1000·100/4000 = 25, 2·100/8 = 25 → 25.
  EXPECT_EQ(run_score(*make_fit(strategy(config::kMostAllocated)), pod, node_with(alloc)), 25);
  // RTCR with [{0,0},{100,10}] → shape scores ×10; u = 25 → 0 + 100·25/100 = 25.
  EXPECT_EQ(run_score(*make_fit(strategy(config::kRequestedToCapacityRatio)), pod, node_with(alloc)), 25);

  // Same totals reached through existing pods: 500m/1Gi already there + pod 500m/1Gi.
  auto half = MakePod().Name("p").Req({{"cpu", "500m"}, {"memory", "1Gi"}}).Obj();
  EXPECT_EQ(run_score(*make_fit(), half, node_with(alloc, {{{"cpu", "500m"}, {"memory", "1Gi"}}})), 75);
}

TEST(NodeResourcesFit, ScoreEdgeCases) {
  const ResourceMap alloc = {{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}, {"example.com/gpu", "4"}};
  // A container without requests: scoring uses the 100m / 200Mi defaults.
  // cpu (4000−100)·100/4000 = 97; memory (8192−200)·100/8192 = 97 (97.55 truncated) → 97.
  EXPECT_EQ(run_score(*make_fit(), MakePod().Name("p").Container("busybox").Obj(), node_with(alloc)), 97);
  // No containers at all: nothing to default → 100.
  EXPECT_EQ(run_score(*make_fit(), MakePod().Name("p").Obj(), node_with(alloc)), 100);
  // Explicit zero is kept: cpu 100, memory (8192−200)·100/8192 = 97 → (100+97)/2 = 98.
  EXPECT_EQ(run_score(*make_fit(), MakePod().Name("p").Req({{"cpu", "0"}}).Obj(), node_with(alloc)), 98);

  // Weights: cpu weight 3 at 75, memory weight 1 at 50 → (225+50)/4 = 68.
  auto weighted = strategy(config::kLeastAllocated, {{"cpu", 3}, {"memory", 1}});
  auto pod = MakePod().Name("p").Req({{"cpu", "1"}, {"memory", "4Gi"}}).Obj();
  EXPECT_EQ(run_score(*make_fit(weighted), pod, node_with(alloc)), 68);

  // Extended resource scored only when requested: gpu 1 of 4 → least 75; with cpu 75 / memory 75 → 75.
  auto with_gpu = strategy(config::kLeastAllocated, {{"cpu", 1}, {"memory", 1}, {"example.com/gpu", 2}});
  EXPECT_EQ(run_score(*make_fit(with_gpu),
                      MakePod().Name("p").Req({{"cpu", "1"}, {"memory", "2Gi"}, {"example.com/gpu", "3"}}).Obj(),
                      node_with(alloc)),
            // (75 + 75 + 25·2) / 4 = 50
            50);
  // Not requested → left out: (75+75)/2.
  EXPECT_EQ(run_score(*make_fit(with_gpu), MakePod().Name("p").Req({{"cpu", "1"}, {"memory", "2Gi"}}).Obj(),
                      node_with(alloc)),
            75);

  // Over-committed: Least gives 0, Most clamps to 100.
  auto big = MakePod().Name("p").Req({{"cpu", "8"}, {"memory", "16Gi"}}).Obj();
  EXPECT_EQ(run_score(*make_fit(), big, node_with(alloc)), 0);
  EXPECT_EQ(run_score(*make_fit(strategy(config::kMostAllocated)), big, node_with(alloc)), 100);
}

TEST(NodeResourcesFit, RequestedToCapacityRatioShape) {
  const ResourceMap alloc = {{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}};
  // Decreasing shape (bin packing off): [{0,10},{100,0}] → u=25 → 100 + (0−100)·25/100 = 75.
  auto a = strategy(config::kRequestedToCapacityRatio);
  a.scoringStrategy.requestedToCapacityRatio->shape = {{0, 10}, {100, 0}};
  auto pod = MakePod().Name("p").Req({{"cpu", "1"}, {"memory", "2Gi"}}).Obj();
  EXPECT_EQ(run_score(*make_fit(a), pod, node_with(alloc)), 75);

  // Resources scoring 0 are left out: shape [{50,0},{100,10}]: cpu u=25 → 0 (dropped),
  // memory u=75 → 0 + 100·25/50 = 50 → round(50/1) = 50.
  auto b = strategy(config::kRequestedToCapacityRatio);
  b.scoringStrategy.requestedToCapacityRatio->shape = {{50, 0}, {100, 10}};
  auto skewed = MakePod().Name("p").Req({{"cpu", "1"}, {"memory", "6Gi"}}).Obj();
  EXPECT_EQ(run_score(*make_fit(b), skewed, node_with(alloc)), 50);

  // Result is round(Σf·w/Σw). Shape [{0,0},{100,10}]: cpu 1 (u=25 → 25), memory 3Gi
  // (u=37 → 37): 62/2 = 31.
  auto c = strategy(config::kRequestedToCapacityRatio);
  auto round_pod = MakePod().Name("p").Req({{"cpu", "1"}, {"memory", "3Gi"}}).Obj();
  EXPECT_EQ(run_score(*make_fit(c), round_pod, node_with(alloc)), 31);
  // cpu 1 (25) and memory 2304Mi: u = 2304·100/8192 = 28 → 28: (25+28)/2 = 26.5 → 27.
  auto half_pod = MakePod().Name("p").Req({{"cpu", "1"}, {"memory", "2304Mi"}}).Obj();
  EXPECT_EQ(run_score(*make_fit(c), half_pod, node_with(alloc)), 27);

  // Past the last point: last score. Shape [{0,0},{50,5}]: u=75 → 50.
  auto d = strategy(config::kRequestedToCapacityRatio, {{"memory", 1}});
  d.scoringStrategy.requestedToCapacityRatio->shape = {{0, 0}, {50, 5}};
  EXPECT_EQ(run_score(*make_fit(d), skewed, node_with(alloc)), 50);
}

TEST(NodeResourcesFit, InvalidArgs) {
  config::NodeResourcesFitArgs a;
  a.scoringStrategy.type = "Bogus";
  EXPECT_FALSE(Fit::create(a).ok());
  config::NodeResourcesFitArgs b;
  b.scoringStrategy.type = std::string(config::kRequestedToCapacityRatio);
  EXPECT_FALSE(Fit::create(b).ok());
}

TEST(NodeResourcesFit, FactoryAndEvents) {
  testing::FakeHandle handle;
  config::NodeResourcesFitArgs args = strategy(config::kMostAllocated);
  auto made = make_node_resources_fit(framework::PluginArgs{args}, handle);
  ASSERT_TRUE(made.ok());
  auto fit = std::dynamic_pointer_cast<Fit>(made.value());
  ASSERT_NE(fit, nullptr);
  EXPECT_EQ(fit->name(), "NodeResourcesFit");
  EXPECT_TRUE(make_node_resources_fit({}, handle).ok());  // no args → defaults

  auto events = fit->events_to_register();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::Pod);
  EXPECT_EQ(events[0].event.actionType, framework::kDelete);
  EXPECT_EQ(events[1].event.resource, framework::EventResource::Node);
  EXPECT_EQ(events[1].event.actionType, framework::kAdd | framework::kUpdateNodeAllocatable);

  const auto pod = MakePod().Name("p").Req({{"cpu", "2"}}).Obj();
  EXPECT_EQ(events[0].hint(pod, MakePod().Name("q").Node("n").Ptr(), nullptr), framework::QueueingHint::Queue);
  EXPECT_EQ(events[0].hint(pod, MakePod().Name("q").Ptr(), nullptr), framework::QueueingHint::Skip);

  auto small = MakeNode().Name("n").Capacity({{"cpu", "1"}, {"pods", "10"}}).Ptr();
  auto large = MakeNode().Name("n").Capacity({{"cpu", "4"}, {"pods", "10"}}).Ptr();
  auto larger_mem = MakeNode().Name("n").Capacity({{"cpu", "4"}, {"memory", "1Gi"}, {"pods", "10"}}).Ptr();
  EXPECT_EQ(events[1].hint(pod, nullptr, small), framework::QueueingHint::Skip);   // still too small
  EXPECT_EQ(events[1].hint(pod, nullptr, large), framework::QueueingHint::Queue);  // added and fits
  EXPECT_EQ(events[1].hint(pod, small, large), framework::QueueingHint::Queue);    // cpu grew
  EXPECT_EQ(events[1].hint(pod, large, larger_mem), framework::QueueingHint::Skip);  // unrelated growth
}

// ---- pod-level resources (upstream fit_test.go TestEnoughRequests, the "pod-level resources"
// cases, and TestFitScore's pod-level cases)

// "pod-level cpu request higher than the containers' sum": pod level 2 cpu, containers 1 → needs 2.
TEST(NodeResourcesFit, PodLevelRequestsDecideTheFit) {
  auto fit = make_fit();
  const ResourceMap alloc = {{"cpu", "4"}, {"memory", "4Gi"}, {"pods", "32"}};
  auto pod = MakePod().Name("p").Req({{"cpu", "500m"}}).Req({{"cpu", "500m"}}).PodLevelReq({{"cpu", "2"}}).Obj();
  EXPECT_TRUE(run_filter(*fit, pod, node_with(alloc, {{{"cpu", "2"}}})).is_success());
  auto s = run_filter(*fit, pod, node_with(alloc, {{{"cpu", "2500m"}}}));
  EXPECT_EQ(s.code(), Code::Unschedulable);
  EXPECT_EQ(s.reasons(), std::vector<std::string>{"Insufficient cpu"});
  // Memory from the pod level only, cpu from the containers.
  auto mem = MakePod().Name("m").Req({{"cpu", "1"}, {"memory", "1Gi"}}).PodLevelReq({{"memory", "3Gi"}}).Obj();
  auto sm = run_filter(*fit, mem, node_with(alloc, {{{"cpu", "3500m"}, {"memory", "2Gi"}}}));
  EXPECT_EQ(sm.reasons(), (std::vector<std::string>{"Insufficient cpu", "Insufficient memory"}));
  // Overhead on top of the pod level: 2 + 1 > 4 - 1.5.
  auto over = MakePod().Name("o").Req({{"cpu", "1"}}).PodLevelReq({{"cpu", "2"}}).Overhead({{"cpu", "1"}}).Obj();
  EXPECT_EQ(run_filter(*fit, over, node_with(alloc, {{{"cpu", "1500m"}}})).reasons(),
            std::vector<std::string>{"Insufficient cpu"});
}

TEST(NodeResourcesFit, PodLevelRequestsIgnoredWithTheGateOff) {
  config::ScopedFeatures off(config::Features{.podLevelResources = false});
  auto fit = make_fit();
  const ResourceMap alloc = {{"cpu", "4"}, {"memory", "4Gi"}, {"pods", "32"}};
  auto pod = MakePod().Name("p").Req({{"cpu", "500m"}}).Req({{"cpu", "500m"}}).PodLevelReq({{"cpu", "2"}}).Obj();
  EXPECT_TRUE(run_filter(*fit, pod, node_with(alloc, {{{"cpu", "2500m"}}})).is_success());
}

// Scoring takes the pod-level requests too: pod level 1 cpu / 2Gi with containers of 100m / 100Mi
// scores as the 1 cpu / 2Gi pod of ScoreCheckValues.
TEST(NodeResourcesFit, ScoreWithPodLevelRequests) {
  const ResourceMap alloc = {{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}};
  auto pod = MakePod().Name("p").Req({{"cpu", "100m"}, {"memory", "100Mi"}}).PodLevelReq({{"cpu", "1"}, {"memory", "2Gi"}}).Obj();
  EXPECT_EQ(run_score(*make_fit(strategy(config::kLeastAllocated)), pod, node_with(alloc)), 75);
  EXPECT_EQ(run_score(*make_fit(strategy(config::kMostAllocated)), pod, node_with(alloc)), 25);
  // An existing pod's pod-level requests count in the node's non-zero sum: 500m/1Gi at pod level.
  framework::NodeInfo ni(MakeNode().Name("n").Capacity(alloc).Ptr());
  ni.add_pod(MakePod().Name("e").Node("n").Container("x").PodLevelReq({{"cpu", "500m"}, {"memory", "1Gi"}}).Info());
  auto half = MakePod().Name("h").Container("y").PodLevelReq({{"cpu", "500m"}, {"memory", "1Gi"}}).Obj();
  EXPECT_EQ(run_score(*make_fit(), half, ni), 75);
}

// ---- DRAExtendedResource (upstream fit_test.go TestEnoughRequests, the "extended resource ..."
// cases; alpha at v1.35, off by default)

std::shared_ptr<const api::resourcev1::DeviceClass> device_class(const std::string& name,
                                                                 const std::string& resource) {
  auto c = std::make_shared<api::resourcev1::DeviceClass>();
  c->metadata.name = name;
  if (!resource.empty()) c->spec.extendedResourceName = resource;
  return c;
}

config::Features with_extended_resources(bool on) {
  config::Features f = config::features();
  f.draExtendedResource = on;
  return f;
}

TEST(NodeResourcesFit, ExtendedResourceBackedByDRA) {
  dra::Manager m;
  m.on_class_add(device_class("dra-class", "extended.resource.dra.io/something"));
  const ResourceMap alloc = {{"cpu", "10"}, {"memory", "20"}, {"pods", "32"}, {"example.com/aaa", "5"}};
  const auto dra_pod =
      MakePod().Name("p").Req({{"cpu", "1"}, {"extended.resource.dra.io/something", "1"}}).Obj();
  {
    config::ScopedFeatures on(with_extended_resources(true));
    auto fit = Fit::create(config::NodeResourcesFitArgs{}, &m).value();
    // "extended resource backed by DRA": the node lacks it, DynamicResources allocates it.
    EXPECT_TRUE(run_filter(*fit, dra_pod, node_with(alloc)).is_success());
    EXPECT_TRUE(fits(dra_pod, node_with(alloc), {}, {}, &m).empty());
    // "extended resource was backed by Device Plugin (Allocatable: 0)".
    ResourceMap zero = alloc;
    zero.emplace_back("extended.resource.dra.io/something", "0");
    EXPECT_TRUE(run_filter(*fit, dra_pod, node_with(zero)).is_success());
    // The node advertises it itself (a device plugin): checked here as any extended resource.
    ResourceMap native = alloc;
    native.emplace_back("extended.resource.dra.io/something", "2");
    const auto three = MakePod().Name("t").Req({{"extended.resource.dra.io/something", "3"}}).Obj();
    EXPECT_EQ(run_filter(*fit, three, node_with(native)).reasons(),
              std::vector<std::string>{"Insufficient extended.resource.dra.io/something"});
    EXPECT_TRUE(run_filter(*fit, dra_pod, node_with(native)).is_success());
    // "extended resource NOT backed by DRA".
    const auto other = MakePod().Name("o").Req({{"example.com/bbb", "1"}}).Obj();
    EXPECT_EQ(run_filter(*fit, other, node_with(alloc)).reasons(),
              std::vector<std::string>{"Insufficient example.com/bbb"});
    // "extended resource backed by device plugin".
    EXPECT_TRUE(run_filter(*fit, MakePod().Name("a").Req({{"example.com/aaa", "1"}}).Obj(), node_with(alloc))
                    .is_success());
    // The implicit name of any class.
    const auto implicit =
        MakePod().Name("i").Req({{"deviceclass.resource.kubernetes.io/dra-class", "1"}}).Obj();
    EXPECT_TRUE(run_filter(*fit, implicit, node_with(alloc)).is_success());
    // Upstream SignPod: "signature disabled when dra extended resources enabled".
    framework::PodSignature sig;
    fit->sign_pod(dra_pod, sig);
    EXPECT_FALSE(sig.signable());
  }
  // "extended resource backed by DRA not enabled": as before the feature.
  config::ScopedFeatures off(with_extended_resources(false));
  auto fit = Fit::create(config::NodeResourcesFitArgs{}, &m).value();
  EXPECT_EQ(run_filter(*fit, dra_pod, node_with(alloc)).reasons(),
            std::vector<std::string>{"Insufficient extended.resource.dra.io/something"});
  framework::PodSignature sig;
  fit->sign_pod(dra_pod, sig);
  EXPECT_TRUE(sig.signable());
}

// Upstream EventsToRegister with DRAExtendedResource (DeviceClass Add|Update) and
// isSchedulableAfterDeviceClassEvent; the node hint counts a resource DRA provides.
TEST(NodeResourcesFit, DeviceClassEventsWithExtendedResources) {
  dra::Manager m;
  auto mapped = device_class("gpu", "example.com/gpu");
  m.on_class_add(mapped);
  const auto pod = MakePod().Name("p").Req({{"example.com/gpu", "2"}}).Obj();
  {
    config::ScopedFeatures off(with_extended_resources(false));
    EXPECT_EQ(Fit::create(config::NodeResourcesFitArgs{}, &m).value()->events_to_register().size(), 2u);
  }
  config::ScopedFeatures on(with_extended_resources(true));
  auto fit = Fit::create(config::NodeResourcesFitArgs{}, &m).value();
  auto events = fit->events_to_register();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[2].event.resource, framework::EventResource::DeviceClass);
  EXPECT_EQ(events[2].event.actionType, framework::kAdd | framework::kUpdate);
  const auto& hint = events[2].hint;
  using framework::QueueingHint;
  EXPECT_EQ(hint(pod, nullptr, mapped), QueueingHint::Queue);  // maps the resource
  EXPECT_EQ(hint(pod, nullptr, device_class("other", "example.com/other")),
            QueueingHint::Skip);                                               // another one
  EXPECT_EQ(hint(pod, mapped, mapped), QueueingHint::Skip);                    // name unchanged
  EXPECT_EQ(hint(pod, device_class("gpu", ""), mapped), QueueingHint::Queue);  // name added
  const auto implicit = MakePod().Name("i").Req({{"deviceclass.resource.kubernetes.io/gpu", "1"}}).Obj();
  EXPECT_EQ(hint(implicit, nullptr, device_class("gpu", "")),
            QueueingHint::Queue);  // implicit name, on Add only
  EXPECT_EQ(hint(implicit, device_class("gpu", "example.com/x"), device_class("gpu", "")),
            QueueingHint::Skip);
  // A node added without the resource fits now: DRA provides it.
  auto bare = MakeNode().Name("n").Capacity({{"cpu", "4"}, {"pods", "10"}}).Ptr();
  EXPECT_EQ(events[1].hint(pod, nullptr, bare), QueueingHint::Queue);
}

// NodeResourcesFit's placement score (v1.36.2's placementScorer; upstream's newest index has it as
// placement_bin_packing_test.go): MostAllocated over the placement as one node, with the proposed
// members' non-zero requests added to the nodes' requests, whatever the per-pod strategy.
TEST(Fit, ScorePlacementIsMostAllocatedOverThePlacementsNodes) {
  auto fit = make_fit();  // LeastAllocated per pod, cpu and memory weight 1
  auto node = [](const std::string& name, const ResourceMap& alloc, const std::vector<ResourceMap>& pods = {}) {
    auto ni = std::make_shared<framework::NodeInfo>(MakeNode().Name(name).Capacity(alloc).Ptr());
    int i = 0;
    for (const auto& r : pods) ni->add_pod(MakePod().Name(name + "-e" + std::to_string(i++)).Node(name).Req(r).Info());
    return ni;
  };
  auto member = [](const std::string& name) { return MakePod().Name(name).Req({{"cpu", "1"}, {"memory", "1Gi"}}).Ptr(); };
  framework::PodGroupAssignments a;
  a.proposed = {{member("m0"), "small"}, {member("m1"), "small"}};
  framework::Placement small{"small", {node("small", {{"cpu", "4"}, {"memory", "8Gi"}})}};
  a.placement = &small;
  std::int64_t score = -1;
  ASSERT_TRUE(fit->score_placement(framework::PodGroupInfo{}, a, score).is_success());
  EXPECT_EQ(score, (50 + 25) / 2);  // cpu 2/4, memory 2Gi/8Gi

  // Two nodes, one already half used: (2 + 2) of 8 cpu, (4Gi + 2Gi) of 16Gi.
  framework::Placement two{"two", {node("x", {{"cpu", "4"}, {"memory", "8Gi"}}, {{{"cpu", "2"}, {"memory", "4Gi"}}}),
                                   node("y", {{"cpu", "4"}, {"memory", "8Gi"}})}};
  a.placement = &two;
  ASSERT_TRUE(fit->score_placement(framework::PodGroupInfo{}, a, score).is_success());
  EXPECT_EQ(score, (50 + 37) / 2);

  // More than the placement holds counts as full.
  framework::Placement tiny{"tiny", {node("tiny", {{"cpu", "1"}, {"memory", "1Gi"}})}};
  a.placement = &tiny;
  ASSERT_TRUE(fit->score_placement(framework::PodGroupInfo{}, a, score).is_success());
  EXPECT_EQ(score, 100);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::noderesources
