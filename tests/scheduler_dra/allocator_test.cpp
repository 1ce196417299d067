// The structured allocator against the rules of upstream's allocator (structured/internal/stable,
// allocator_test.go at v1.35): each test names the rule it checks.
#include "scheduler/dra/allocator.h"
#include "scheduler/dra/pools.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <thread>

#include "api/codec.h"
#include "api/yaml_json.h"

namespace ksched::scheduler::dra {
namespace {

template <class T>
std::shared_ptr<const T> obj(std::string_view yaml) {
  auto json = api::yaml_text_to_json(yaml);
  EXPECT_TRUE(json.ok()) << json.error();
  auto o = api::decode<T>(api::to_json_text(*json));
  EXPECT_TRUE(o.ok()) << o.error() << "\n" << yaml;
  return std::make_shared<const T>(o.ok() ? std::move(*o) : T{});
}

api::Node node(const std::string& name, std::map<std::string, std::string> labels = {}) {
  api::Node n;
  n.metadata.name = name;
  for (const auto& [k, v] : labels) n.metadata.labels.set(k, v);
  return n;
}

// A slice of `devices` GPUs on `node_name` in pool `pool` (generation 1, one slice), with a
// "model" and a "numa" attribute per device from the given lists (cycled).
std::shared_ptr<const resourceapi::ResourceSlice> gpu_slice(const std::string& node_name, const std::string& pool, int devices,
                                                            std::vector<std::string> models = {"a100"},
                                                            std::vector<int> numa = {0}, const std::string& extra_spec = "") {
  std::string y = "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: " + pool + "-slice}\nspec:\n"
                  "  driver: gpu.example.com\n  pool: {name: " + pool + ", generation: 1, resourceSliceCount: 1}\n" +
                  (node_name.empty() ? std::string("  allNodes: true\n") : "  nodeName: " + node_name + "\n") + extra_spec +
                  "  devices:\n";
  for (int i = 0; i < devices; ++i) {
    y += "  - name: gpu-" + std::to_string(i) + "\n    attributes:\n      model: {string: " + models[i % models.size()] +
         "}\n      numa: {int: " + std::to_string(numa[i % numa.size()]) + "}\n    capacity:\n      memory: {value: 40Gi}\n";
  }
  return obj<resourceapi::ResourceSlice>(y);
}

std::shared_ptr<const resourceapi::DeviceClass> gpu_class(const std::string& selector = "", const std::string& name = "gpu") {
  std::string y = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: " + name + "}\nspec:\n";
  y += selector.empty() ? "  selectors: [{cel: {expression: 'device.driver == \"gpu.example.com\"'}}]\n"
                        : "  selectors: [{cel: {expression: '" + selector + "'}}]\n";
  return obj<resourceapi::DeviceClass>(y);
}

// A claim with the given requests (YAML list items under spec.devices.requests) and optional
// constraints/config.
std::shared_ptr<const resourceapi::ResourceClaim> claim(const std::string& name, const std::string& requests,
                                                        const std::string& rest = "") {
  return obj<resourceapi::ResourceClaim>("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: " + name +
                                         ", namespace: default}\nspec:\n  devices:\n    requests:\n" + requests + rest);
}

std::string exact(const std::string& req, int count, const std::string& cls = "gpu", const std::string& more = "") {
  return "    - name: " + req + "\n      exactly: {deviceClassName: " + cls + ", allocationMode: ExactCount, count: " +
         std::to_string(count) + more + "}\n";
}

class AllocatorTest : public ::testing::Test {
 protected:
  util::Result<Allocation, AllocateError> allocate(const api::Node& n,
                                                   std::vector<std::shared_ptr<const resourceapi::ResourceClaim>> claims,
                                                   DeviceIdSet allocated = {}, bool build_results = true) {
    Allocator a(features, std::move(allocated),
                [this](std::string_view name) -> std::shared_ptr<const resourceapi::DeviceClass> {
                  for (const auto& c : classes) {
                    if (std::string_view(c->metadata.name) == name) return c;
                  }
                  return nullptr;
                },
                slices, cache, results);
    std::vector<const resourceapi::ResourceClaim*> ptrs;
    for (const auto& c : claims) ptrs.push_back(c.get());
    return a.allocate(n, ptrs, build_results);
  }
  static std::vector<std::string> devices(const resourceapi::AllocationResult& r) {
    std::vector<std::string> out;
    for (const auto& d : r.devices.results) {
      out.push_back(std::string(d.request) + ":" + std::string(d.driver) + "/" + std::string(d.pool) + "/" +
                    std::string(d.device));
    }
    return out;
  }

  Features features;
  cel::Cache cache{64};
  SelectorCache* results = nullptr;  // selector results shared between allocators, when set
  std::vector<std::shared_ptr<const resourceapi::DeviceClass>> classes{gpu_class()};
  std::vector<std::shared_ptr<const resourceapi::ResourceSlice>> slices;
};

using V = std::vector<std::string>;

// "simple": the first free device of the node's pool, and a node selector naming the node.
TEST_F(AllocatorTest, OneDeviceFromTheNodesSlice) {
  slices = {gpu_slice("node-1", "node-1", 2), gpu_slice("node-2", "node-2", 2)};
  auto r = allocate(node("node-1"), {claim("c", exact("req", 1))});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->found());
  EXPECT_EQ(devices(r->results[0]), V{"req:gpu.example.com/node-1/gpu-0"});
  ASSERT_TRUE(r->results[0].nodeSelector);
  const auto& term = r->results[0].nodeSelector->nodeSelectorTerms.at(0);
  ASSERT_EQ(term.matchFields.size(), 1u);
  EXPECT_EQ(term.matchFields[0].key, "metadata.name");
  EXPECT_EQ(term.matchFields[0].values, std::vector<std::string>{"node-1"});
}

// "too-many-devices-single-request" and "already-allocated-devices".
TEST_F(AllocatorTest, AllocatedDevicesAreSkippedAndTooFewMeansNoResult) {
  slices = {gpu_slice("node-1", "node-1", 2)};
  DeviceIdSet taken{{"gpu.example.com", "node-1", "gpu-0"}};
  auto r = allocate(node("node-1"), {claim("c", exact("req", 1))}, taken);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(devices(r->results.at(0)), V{"req:gpu.example.com/node-1/gpu-1"});
  r = allocate(node("node-1"), {claim("c", exact("req", 2))}, taken);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->found());
  r = allocate(node("node-1"), {claim("c", exact("req", 3))});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->found());
}

// "other-node": a slice for another node offers nothing; an allNodes slice gives no node selector.
TEST_F(AllocatorTest, OtherNodesSlicesAreNotUsedAndAllNodesNeedsNoSelector) {
  slices = {gpu_slice("node-2", "node-2", 2)};
  auto r = allocate(node("node-1"), {claim("c", exact("req", 1))});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->found());
  slices = {gpu_slice("", "network", 1)};
  r = allocate(node("node-1"), {claim("c", exact("req", 1))});
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->found());
  EXPECT_FALSE(r->results[0].nodeSelector);
}

// Several claims of one pod never share a device (allocatingDevices).
TEST_F(AllocatorTest, TwoClaimsNeverGetTheSameDevice) {
  slices = {gpu_slice("node-1", "node-1", 2)};
  auto r = allocate(node("node-1"), {claim("a", exact("req", 1)), claim("b", exact("req", 1))});
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->found());
  EXPECT_EQ(devices(r->results[0]), V{"req:gpu.example.com/node-1/gpu-0"});
  EXPECT_EQ(devices(r->results[1]), V{"req:gpu.example.com/node-1/gpu-1"});
  r = allocate(node("node-1"), {claim("a", exact("req", 1)), claim("b", exact("req", 2))});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->found());
}

// Class selectors and request selectors both apply ("with-class-selector", "with-request-selector").
TEST_F(AllocatorTest, ClassAndRequestSelectorsBothApply) {
  slices = {gpu_slice("node-1", "node-1", 4, {"a100", "h100"})};
  classes = {gpu_class("device.attributes[\"gpu.example.com\"].model == \"h100\"", "h100")};
  auto r = allocate(node("node-1"), {claim("c", exact("req", 1, "h100"))});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(devices(r->results.at(0)), V{"req:gpu.example.com/node-1/gpu-1"});
  // Request selector: the unqualified attribute name takes the driver's domain.
  r = allocate(node("node-1"), {claim("c", exact("req", 2, "h100",
                                                   ", selectors: [{cel: {expression: 'device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\"40Gi\")) >= 0'}}]"))});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(devices(r->results.at(0)), (V{"req:gpu.example.com/node-1/gpu-1", "req:gpu.example.com/node-1/gpu-3"}));
}

// Selector errors are upstream's: compile errors and runtime errors stop allocation.
TEST_F(AllocatorTest, SelectorErrorsStopAllocation) {
  slices = {gpu_slice("node-1", "node-1", 1)};
  auto r = allocate(node("node-1"), {claim("c", exact("req", 1, "gpu", ", selectors: [{cel: {expression: 'device.attributes[\"gpu.example.com\"].nosuch == 1'}}]"))});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("claim default/c: selector #0: CEL runtime error: no such key: nosuch", 0), 0u)
      << r.error().message;
  classes = {gpu_class("device.driver ==", "gpu")};
  r = allocate(node("node-1"), {claim("c", exact("req", 1))});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("class gpu: selector #0: CEL compile error: ", 0), 0u) << r.error().message;
}

// "unknown-class".
TEST_F(AllocatorTest, AMissingClassIsAnError) {
  slices = {gpu_slice("node-1", "node-1", 1)};
  auto r = allocate(node("node-1"), {claim("c", exact("req", 1, "nosuch"))});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "claim default/c, request req: could not retrieve device class nosuch: deviceclass.resource.k8s.io \"nosuch\" not found");
}

// allocationMode All: every matching device, none when a pool is incomplete ("all-devices-*").
TEST_F(AllocatorTest, AllTakesEveryMatchingDeviceOfCompletePools) {
  slices = {gpu_slice("node-1", "node-1", 3)};
  auto r = allocate(node("node-1"),
                    {claim("c", "    - name: req\n      exactly: {deviceClassName: gpu, allocationMode: All}\n")});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(devices(r->results.at(0)).size(), 3u);
  // One device taken: All cannot be satisfied.
  r = allocate(node("node-1"), {claim("c", "    - name: req\n      exactly: {deviceClassName: gpu, allocationMode: All}\n")},
               DeviceIdSet{{"gpu.example.com", "node-1", "gpu-2"}});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->found());
  // A pool that says it has two slices but shows one: being updated.
  slices = {obj<resourceapi::ResourceSlice>(
      "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: gpu.example.com\n"
      "  pool: {name: p, generation: 1, resourceSliceCount: 2}\n  nodeName: node-1\n  devices: [{name: d}]\n")};
  r = allocate(node("node-1"), {claim("c", "    - name: req\n      exactly: {deviceClassName: gpu, allocationMode: All}\n")});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "claim default/c, request req: asks for all devices, but resource pool gpu.example.com/p is currently being updated");
  // An incomplete pool offers no candidates to ExactCount requests either.
  r = allocate(node("node-1"), {claim("c", exact("req", 1))});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->found());
}

// Only the newest generation of a pool counts ("old-generation").
TEST_F(AllocatorTest, OnlyTheNewestGenerationOfAPoolIsUsed) {
  auto old_slice = obj<resourceapi::ResourceSlice>(
      "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: old}\nspec:\n  driver: gpu.example.com\n"
      "  pool: {name: p, generation: 1, resourceSliceCount: 1}\n  nodeName: node-1\n  devices: [{name: old-gpu}]\n");
  auto new_slice = obj<resourceapi::ResourceSlice>(
      "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: new}\nspec:\n  driver: gpu.example.com\n"
      "  pool: {name: p, generation: 2, resourceSliceCount: 1}\n  nodeName: node-1\n  devices: [{name: new-gpu}]\n");
  slices = {old_slice, new_slice};
  auto r = allocate(node("node-1"), {claim("c", exact("req", 1))});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(devices(r->results.at(0)), V{"req:gpu.example.com/p/new-gpu"});
  slices = {new_slice, old_slice};
  r = allocate(node("node-1"), {claim("c", exact("req", 2))});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->found());
}

// A pool with one device name twice is invalid: never used, and reported only when nothing fits.
TEST_F(AllocatorTest, AnInvalidPoolIsANodeOnlyError) {
  slices = {obj<resourceapi::ResourceSlice>(
      "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: gpu.example.com\n"
      "  pool: {name: p, generation: 1, resourceSliceCount: 1}\n  nodeName: node-1\n  devices: [{name: d}, {name: d}]\n")};
  auto r = allocate(node("node-1"), {claim("c", exact("req", 1))});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().node_only);
  EXPECT_EQ(r.error().message, "invalid resource pools were encountered");
  // Long names, the same one in two slices of the pool; names that differ in one byte are fine.
  auto two_slices = [](const std::string& a, const std::string& b) {
    auto slice = [](const std::string& name, const std::string& device) {
      return obj<resourceapi::ResourceSlice>(
          "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: " + name +
          "}\nspec:\n  driver: gpu.example.com\n"
          "  pool: {name: p, generation: 1, resourceSliceCount: 2}\n  nodeName: node-1\n  devices: [{name: " +
          device + "}]\n");
    };
    return std::vector<std::shared_ptr<const resourceapi::ResourceSlice>>{slice("s1", a), slice("s2", b)};
  };
  slices = two_slices("accelerator-card-0001", "accelerator-card-0001");
  r = allocate(node("node-1"), {claim("c", exact("req", 1))});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().node_only);
  slices = two_slices("accelerator-card-0001", "bccelerator-card-0001");
  r = allocate(node("node-1"), {claim("c", exact("req", 2))});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->found());
}

// matchAttribute across requests: both devices on one NUMA node ("with-constraint").
TEST_F(AllocatorTest, MatchAttributeKeepsRequestsOnOneValue) {
  // gpu-0: numa 0, gpu-1: numa 1, gpu-2: numa 1.
  slices = {gpu_slice("node-1", "node-1", 3, {"a100"}, {0, 1, 1})};
  const std::string constraint = "    constraints: [{requests: [a, b], matchAttribute: gpu.example.com/numa}]\n";
  auto r = allocate(node("node-1"), {claim("c", exact("a", 1) + exact("b", 1), constraint)});
  ASSERT_TRUE(r.ok()) << r.error().message;
  // a first takes gpu-0 (numa 0), b finds no other numa-0 device: the search backtracks to gpu-1.
  EXPECT_EQ(devices(r->results.at(0)), (V{"a:gpu.example.com/node-1/gpu-1", "b:gpu.example.com/node-1/gpu-2"}));
  // Without a common value, nothing.
  slices = {gpu_slice("node-1", "node-1", 2, {"a100"}, {0, 1})};
  r = allocate(node("node-1"), {claim("c", exact("a", 1) + exact("b", 1), constraint)});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->found());
  // An attribute no device has: nothing.
  r = allocate(node("node-1"),
               {claim("c", exact("a", 1), "    constraints: [{matchAttribute: gpu.example.com/nosuch}]\n")});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->found());
}

// firstAvailable: the first subrequest that can be satisfied, named "request/subrequest", with the
// claim's config for that subrequest ("prioritized-list-*").
TEST_F(AllocatorTest, FirstAvailableTakesTheFirstSubrequestThatFits) {
  slices = {gpu_slice("node-1", "node-1", 2)};
  const std::string req =
      "    - name: req\n      firstAvailable:\n"
      "      - {name: four, deviceClassName: gpu, allocationMode: ExactCount, count: 4}\n"
      "      - {name: two, deviceClassName: gpu, allocationMode: ExactCount, count: 2}\n";
  const std::string config =
      "    config:\n    - requests: [req/two]\n      opaque: {driver: gpu.example.com, parameters: {mode: shared}}\n"
      "    - requests: [req/four]\n      opaque: {driver: gpu.example.com, parameters: {mode: exclusive}}\n";
  auto r = allocate(node("node-1"), {claim("c", req, config)});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->found());
  EXPECT_EQ(devices(r->results[0]), (V{"req/two:gpu.example.com/node-1/gpu-0", "req/two:gpu.example.com/node-1/gpu-1"}));
  ASSERT_EQ(r->results[0].devices.config.size(), 1u);
  EXPECT_EQ(std::string_view(r->results[0].devices.config[0].source), "FromClaim");
  EXPECT_EQ(r->results[0].devices.config[0].requests, std::vector<std::string>{"req/two"});
  // Without DRAPrioritizedList a request with subrequests is refused.
  features.prioritizedList = false;
  r = allocate(node("node-1"), {claim("c", req)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "claim default/c, request req: has subrequests, but the DRAPrioritizedList feature is disabled");
}

// Admin access: a device in use is still available, once per claim ("admin-access-*").
TEST_F(AllocatorTest, AdminAccessUsesAllocatedDevices) {
  slices = {gpu_slice("node-1", "node-1", 1)};
  DeviceIdSet taken{{"gpu.example.com", "node-1", "gpu-0"}};
  auto r = allocate(node("node-1"), {claim("c", exact("req", 1, "gpu", ", adminAccess: true"))}, taken);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->found());
  EXPECT_EQ(r->results[0].devices.results.at(0).adminAccess, std::optional<bool>(true));
  r = allocate(node("node-1"), {claim("c", exact("req", 2, "gpu", ", adminAccess: true"))}, taken);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->found());
  features.adminAccess = false;
  r = allocate(node("node-1"), {claim("c", exact("req", 1, "gpu", ", adminAccess: true"))}, taken);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "claim default/c, request req: admin access is requested, but the feature is disabled");
}

// The class's configuration comes first, once per class, then the claim's.
TEST_F(AllocatorTest, ClassConfigurationThenClaimConfiguration) {
  slices = {gpu_slice("node-1", "node-1", 2)};
  classes = {obj<resourceapi::DeviceClass>(
      "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec:\n"
      "  config: [{opaque: {driver: gpu.example.com, parameters: {sharing: none}}}]\n")};
  auto r = allocate(node("node-1"),
                    {claim("c", exact("a", 1) + exact("b", 1),
                           "    config: [{opaque: {driver: gpu.example.com, parameters: {x: 1}}}]\n")});
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto& cfg = r->results.at(0).devices.config;
  ASSERT_EQ(cfg.size(), 2u);
  EXPECT_EQ(std::string_view(cfg[0].source), "FromClass");
  EXPECT_EQ(cfg[0].requests, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(std::string_view(cfg[1].source), "FromClaim");
  EXPECT_TRUE(cfg[1].requests.empty());
}

// More than 32 devices in one claim is refused up front.
TEST_F(AllocatorTest, TooManyDevicesForOneClaim) {
  slices = {gpu_slice("node-1", "node-1", 2)};
  auto r = allocate(node("node-1"), {claim("c", exact("req", 33))});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "claim default/c: number of requested devices 33 exceeds the claim limit of 32");
}

// Device taints (DRADeviceTaints): an untolerated taint hides the device; a toleration admits it.
TEST_F(AllocatorTest, DeviceTaintsNeedTolerationsWhenTheFeatureIsOn) {
  slices = {obj<resourceapi::ResourceSlice>(
      "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: gpu.example.com\n"
      "  pool: {name: p, generation: 1, resourceSliceCount: 1}\n  nodeName: node-1\n"
      "  devices: [{name: d, taints: [{key: broken, value: ecc, effect: NoSchedule}]}]\n")};
  auto r = allocate(node("node-1"), {claim("c", exact("req", 1))});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->found());  // feature off: taints are not looked at
  features.deviceTaints = true;
  r = allocate(node("node-1"), {claim("c", exact("req", 1))});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->found());
  r = allocate(node("node-1"), {claim("c", exact("req", 1, "gpu", ", tolerations: [{key: broken, operator: Exists}]"))});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->found());
}

// Partitionable devices (DRAPartitionableDevices): devices drawing on one counter set fit only
// while the set lasts; the search backtracks from the whole GPU to its two halves.
TEST_F(AllocatorTest, SharedCountersLimitPartitions) {
  slices = {obj<resourceapi::ResourceSlice>(
      "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: gpu.example.com\n"
      "  pool: {name: p, generation: 1, resourceSliceCount: 1}\n  nodeName: node-1\n"
      "  sharedCounters: [{name: gpu-0, counters: {memory: {value: 40Gi}}}]\n"
      "  devices:\n"
      "  - {name: whole, consumesCounters: [{counterSet: gpu-0, counters: {memory: {value: 40Gi}}}]}\n"
      "  - {name: half-a, consumesCounters: [{counterSet: gpu-0, counters: {memory: {value: 20Gi}}}]}\n"
      "  - {name: half-b, consumesCounters: [{counterSet: gpu-0, counters: {memory: {value: 20Gi}}}]}\n")};
  auto r = allocate(node("node-1"), {claim("c", exact("req", 1))});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->found());  // feature off: devices that consume counters are not offered
  features.partitionableDevices = true;
  r = allocate(node("node-1"), {claim("c", exact("req", 2))});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(devices(r->results.at(0)), (V{"req:gpu.example.com/p/half-a", "req:gpu.example.com/p/half-b"}));
  // The whole GPU allocated before leaves nothing for the halves.
  r = allocate(node("node-1"), {claim("c", exact("req", 1))}, DeviceIdSet{{"gpu.example.com", "p", "whole"}});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->found());
  // One half allocated before: the other half still fits, the whole does not.
  r = allocate(node("node-1"), {claim("c", exact("req", 1))}, DeviceIdSet{{"gpu.example.com", "p", "half-a"}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(devices(r->results.at(0)), V{"req:gpu.example.com/p/half-b"});
}

// v1.35 publishes a pool's counter sets in a slice of their own: devices of the pool's other
// slices draw on them all the same.
TEST_F(AllocatorTest, SharedCountersInTheirOwnSliceOfThePool) {
  features.partitionableDevices = true;
  const std::string head =
      "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nspec:\n  driver: gpu.example.com\n"
      "  pool: {name: p, generation: 1, resourceSliceCount: 2}\n  nodeName: node-1\n";
  slices = {obj<resourceapi::ResourceSlice>(head + "  sharedCounters: [{name: gpu-0, counters: {memory: {value: 40Gi}}}]\n"),
            obj<resourceapi::ResourceSlice>(
                head + "  devices:\n"
                       "  - {name: whole, consumesCounters: [{counterSet: gpu-0, counters: {memory: {value: 40Gi}}}]}\n"
                       "  - {name: half-a, consumesCounters: [{counterSet: gpu-0, counters: {memory: {value: 20Gi}}}]}\n"
                       "  - {name: half-b, consumesCounters: [{counterSet: gpu-0, counters: {memory: {value: 20Gi}}}]}\n")};
  auto r = allocate(node("node-1"), {claim("c", exact("req", 2))});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(devices(r->results.at(0)), (V{"req:gpu.example.com/p/half-a", "req:gpu.example.com/p/half-b"}));
  r = allocate(node("node-1"), {claim("c", exact("req", 1))}, DeviceIdSet{{"gpu.example.com", "p", "half-a"}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(devices(r->results.at(0)), V{"req:gpu.example.com/p/half-b"});
  r = allocate(node("node-1"), {claim("c", exact("req", 2))}, DeviceIdSet{{"gpu.example.com", "p", "half-a"}});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->found());  // half-a's 20Gi are gone: neither whole nor both halves fit
}

TEST(Tolerates, UpstreamRules) {
  resourceapi::DeviceTaint taint;
  taint.key = "k";
  taint.value = "v";
  taint.effect = "NoSchedule";
  resourceapi::DeviceToleration t;
  t.key = "k";
  t.value = "v";
  EXPECT_TRUE(tolerates(t, taint));  // Equal by default, any effect
  t.value = "w";
  EXPECT_FALSE(tolerates(t, taint));
  t.operator_ = "Exists";
  EXPECT_TRUE(tolerates(t, taint));
  t.effect = "NoExecute";
  EXPECT_FALSE(tolerates(t, taint));
  resourceapi::DeviceToleration all;
  all.operator_ = "Exists";
  EXPECT_TRUE(tolerates(all, taint));
}

// Randomized: pods allocate one after the other on random nodes with random counts, selectors and
// constraints; no device is ever handed out twice, and every device satisfies its request. The
// same again with DRAConsumableCapacity on: devices without allowMultipleAllocations stay
// exclusive and get no shareID (consumable_capacity_test.cpp randomizes shared devices).
TEST_F(AllocatorTest, RandomAllocationsNeverShareADeviceAndAlwaysMatch) {
  for (const bool consumable_capacity : {false, true}) {
    SCOPED_TRACE(consumable_capacity ? "DRAConsumableCapacity on" : "DRAConsumableCapacity off");
    features.consumableCapacity = consumable_capacity;
    slices.clear();
    std::mt19937 rng(20261206);
    const int kNodes = 4;
    for (int n = 0; n < kNodes; ++n) {
      slices.push_back(gpu_slice("node-" + std::to_string(n), "pool-" + std::to_string(n), 8, {"a100", "h100", "l4"},
                                 {0, 0, 1, 1, 0, 1, 0, 1}));
    }
    classes = {gpu_class(), gpu_class("device.attributes[\"gpu.example.com\"].model == \"h100\"", "h100")};
    DeviceIdSet allocated;
    std::map<std::string, std::string> model_of;  // "pool/device" -> model
    std::map<std::string, std::int64_t> numa_of;
    for (const auto& s : slices) {
      for (const auto& d : s->spec.devices) {
        const std::string id = std::string(s->spec.pool.name) + "/" + std::string(d.name);
        model_of[id] = std::string(*d.attributes.find("model")->string);
        numa_of[id] = *d.attributes.find("numa")->int_;
      }
    }
    int found = 0, refused = 0;
    for (int pod = 0; pod < 200; ++pod) {
      const std::string node_name = "node-" + std::to_string(rng() % kNodes);
      const bool h100 = rng() % 3 == 0;
      const bool same_numa = rng() % 2 == 0;
      const int a = 1 + static_cast<int>(rng() % 2), b = static_cast<int>(rng() % 2);
      std::string reqs = exact("a", a, h100 ? "h100" : "gpu");
      if (b > 0) reqs += exact("b", b);
      auto c = claim("pod-" + std::to_string(pod), reqs,
                     same_numa ? "    constraints: [{matchAttribute: gpu.example.com/numa}]\n" : "");
      auto r = allocate(node(node_name), {c}, allocated);
      ASSERT_TRUE(r.ok()) << r.error().message;
      if (!r->found()) {
        ++refused;
        continue;
      }
      ++found;
      std::set<std::int64_t> numas;
      for (const auto& d : r->results[0].devices.results) {
        const std::string id = std::string(d.pool) + "/" + std::string(d.device);
        EXPECT_EQ(std::string(d.pool), "pool-" + node_name.substr(5)) << "a device of another node";
        EXPECT_TRUE(allocated.insert(DeviceId{std::string(d.driver), std::string(d.pool), std::string(d.device)}).second)
            << id << " allocated twice";
        if (std::string_view(d.request) == "a" && h100) {
          EXPECT_EQ(model_of[id], "h100") << id;
        }
        numas.insert(numa_of[id]);
        EXPECT_FALSE(d.shareID) << id;
      }
      if (same_numa) {
        EXPECT_EQ(numas.size(), 1u);
      }
      EXPECT_EQ(r->results[0].devices.results.size(), static_cast<std::size_t>(a + b));
    }
    EXPECT_GT(found, 10);
    EXPECT_GT(refused, 10);  // the cluster fills up: both outcomes are exercised
  }
}

// Asked only whether the claims fit, the allocator answers as the full allocation does (found or
// not, the same errors) and builds no result.
TEST_F(AllocatorTest, FitOnlyAgreesWithTheFullAllocation) {
  std::mt19937 rng(6122026);
  for (int n = 0; n < 3; ++n) slices.push_back(gpu_slice("node-" + std::to_string(n), "pool-" + std::to_string(n), 4));
  DeviceIdSet allocated;
  int found = 0, refused = 0;
  for (int pod = 0; pod < 60; ++pod) {
    const std::string node_name = "node-" + std::to_string(rng() % 3);
    auto c = claim("pod-" + std::to_string(pod), exact("a", 1 + static_cast<int>(rng() % 2)));
    auto fit = allocate(node(node_name), {c}, allocated, false);
    auto full = allocate(node(node_name), {c}, allocated, true);
    ASSERT_TRUE(fit.ok() && full.ok());
    ASSERT_EQ(fit->found(), full->found()) << "pod " << pod;
    EXPECT_TRUE(fit->results.empty());
    if (!full->found()) {
      ++refused;
      continue;
    }
    ++found;
    for (const auto& d : full->results[0].devices.results)
      allocated.insert(DeviceId{std::string(d.driver), std::string(d.pool), std::string(d.device)});
  }
  EXPECT_GT(found, 5);
  EXPECT_GT(refused, 5);

  // A slice whose node selector has two terms: the full allocation cannot express it, and the
  // fit-only answer reports the same error.
  slices = {obj<resourceapi::ResourceSlice>(
      "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: zoned}\nspec:\n"
      "  driver: gpu.example.com\n  pool: {name: zoned, generation: 1, resourceSliceCount: 1}\n"
      "  nodeSelector:\n    nodeSelectorTerms:\n"
      "    - matchExpressions: [{key: zone, operator: In, values: [a]}]\n"
      "    - matchExpressions: [{key: zone, operator: In, values: [b]}]\n"
      "  devices:\n  - name: gpu-0\n")};
  auto zoned = node("node-z", {{"zone", "a"}});
  auto fit = allocate(zoned, {claim("z", exact("a", 1))}, {}, false);
  auto full = allocate(zoned, {claim("z", exact("a", 1))}, {}, true);
  ASSERT_FALSE(full.ok());
  ASSERT_FALSE(fit.ok());
  EXPECT_EQ(fit.error().message, full.error().message);
  EXPECT_EQ(fit.error().node_only, full.error().node_only);
}

// The shared selector results give what evaluating every selector gives, also once a slice is
// replaced by an updated object (same name, other attributes): its old results are not used.
TEST_F(AllocatorTest, SelectorCacheGivesTheSameResultsAfterASliceUpdate) {
  classes = {gpu_class("device.attributes[\"gpu.example.com\"].model == \"a100\"")};
  SelectorCache shared;
  auto both = [&](const std::string& pool_devices_hint) {
    results = nullptr;
    auto plain = allocate(node("node-1"), {claim("c", exact("req", 1))});
    results = &shared;
    auto cached = allocate(node("node-1"), {claim("c", exact("req", 1))});
    results = nullptr;
    EXPECT_TRUE(plain.ok() && cached.ok()) << pool_devices_hint;
    EXPECT_EQ(plain->found(), cached->found()) << pool_devices_hint;
    return plain->found() ? std::make_pair(devices(plain->results[0]), devices(cached->results[0])) : std::make_pair(V{}, V{});
  };
  // gpu-0 h100, gpu-1 a100, gpu-2 h100.
  slices = {gpu_slice("node-1", "node-1", 3, {"h100", "a100"})};
  auto [p1, c1] = both("v1");
  EXPECT_EQ(p1, V{"req:gpu.example.com/node-1/gpu-1"});
  EXPECT_EQ(c1, p1);
  // A second allocator with the same slice object reads the remembered results: same answer.
  auto [p1b, c1b] = both("v1 again");
  EXPECT_EQ(c1b, p1);
  EXPECT_EQ(shared.slices(), 1u);
  // Updated slice: gpu-0 a100, gpu-1 h100, gpu-2 a100. The old object goes away first, as an
  // informer's update replaces it.
  slices.clear();
  slices = {gpu_slice("node-1", "node-1", 3, {"a100", "h100"})};
  auto [p2, c2] = both("v2");
  EXPECT_EQ(p2, V{"req:gpu.example.com/node-1/gpu-0"});
  EXPECT_EQ(c2, p2);
  // Taken devices and request selectors on top of the class's: still the same answers.
  DeviceIdSet taken{{"gpu.example.com", "node-1", "gpu-0"}};
  for (SelectorCache* r : {static_cast<SelectorCache*>(nullptr), &shared}) {
    results = r;
    auto a = allocate(node("node-1"), {claim("c", exact("req", 1))}, taken);
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE(a->found());
    EXPECT_EQ(devices(a->results[0]), V{"req:gpu.example.com/node-1/gpu-2"});
    a = allocate(node("node-1"),
                 {claim("c", exact("req", 1, "gpu",
                                   ", selectors: [{cel: {expression: 'device.attributes[\"gpu.example.com\"].numa == 0'}}]"))});
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE(a->found());
    EXPECT_EQ(devices(a->results[0]), V{"req:gpu.example.com/node-1/gpu-0"});
  }
  results = nullptr;
}

// Errors are not remembered: a selector that fails on a device fails every time, cache or not.
TEST_F(AllocatorTest, SelectorCacheDoesNotHideErrors) {
  classes = {gpu_class("device.attributes[\"gpu.example.com\"].nosuch == 1")};
  slices = {gpu_slice("node-1", "node-1", 2)};
  SelectorCache shared;
  results = &shared;
  for (int i = 0; i < 2; ++i) {
    auto r = allocate(node("node-1"), {claim("c", exact("req", 1))});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "class gpu: selector #0: CEL runtime error: no such key: nosuch");
  }
  results = nullptr;
}

// Several allocators on several threads share one SelectorCache (as concurrent Filter calls do):
// every answer is the one a lone allocator without the cache gives.
TEST_F(AllocatorTest, SelectorCacheSharedBetweenThreads) {
  classes = {gpu_class("device.attributes[\"gpu.example.com\"].model == \"l4\"")};
  for (int n = 0; n < 4; ++n) {
    slices.push_back(gpu_slice("node-" + std::to_string(n), "pool-" + std::to_string(n), 8, {"a100", "h100", "l4"}));
  }
  slices.push_back(gpu_slice("", "shared", 4, {"l4", "a100"}));  // node-less: every node sees it
  auto c = claim("c", exact("req", 3));
  std::vector<V> expected;
  for (int n = 0; n < 4; ++n) {
    auto r = allocate(node("node-" + std::to_string(n)), {c});
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_TRUE(r->found());
    expected.push_back(devices(r->results[0]));
  }
  SelectorCache shared;
  const DeviceClassLookup lookup = [this](std::string_view name) -> std::shared_ptr<const resourceapi::DeviceClass> {
    for (const auto& k : classes)
      if (std::string_view(k->metadata.name) == name) return k;
    return nullptr;
  };
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      const resourceapi::ResourceClaim* claims[] = {c.get()};
      for (int i = 0; i < 200; ++i) {
        const int n = (t + i) % 4;
        Allocator a(features, static_cast<const DeviceIdSet*>(nullptr), &lookup, slices, cache, &shared);
        auto r = a.allocate(node("node-" + std::to_string(n)), claims);
        if (!r.ok() || !r->found() || devices(r->results[0]) != expected[n]) ++mismatches[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches, (std::vector<int>{0, 0, 0, 0}));
  EXPECT_EQ(shared.slices(), 5u);
}

// The devices in use of a pool: names that share a fingerprint (same length and last seven
// bytes) are still told apart, duplicates count once, and past kIndexed names the hash index
// gives the same answers.
TEST(DeviceNameSet, LookupsSmallAndIndexed) {
  DeviceNameSet s{"xgpu-001", "gpu-0"};
  EXPECT_EQ(device_name_fingerprint("xgpu-001"), device_name_fingerprint("ygpu-001"));
  EXPECT_TRUE(s.contains("xgpu-001"));
  EXPECT_FALSE(s.contains("ygpu-001"));
  EXPECT_TRUE(s.contains("gpu-0"));
  EXPECT_FALSE(s.contains("gpu-00"));
  EXPECT_FALSE(s.contains(""));
  s.insert("gpu-0");
  EXPECT_EQ(s.size(), 2u);
  EXPECT_TRUE((s == DeviceNameSet{"gpu-0", "xgpu-001"}));
  EXPECT_FALSE((s == DeviceNameSet{"gpu-0", "ygpu-001"}));

  DeviceNameSet big;
  for (int i = 0; i < 200; i += 2) big.insert("device-" + std::to_string(i));
  big.insert("device-0");
  EXPECT_EQ(big.size(), 100u);
  for (int i = 0; i < 200; ++i) EXPECT_EQ(big.contains("device-" + std::to_string(i)), i % 2 == 0) << i;
  std::size_t n = 0;
  for (const auto& name : big) n += big.contains(name) ? 1 : 0;
  EXPECT_EQ(n, 100u);
}

}  // namespace
}  // namespace ksched::scheduler::dra
