// The structured allocator and device binding conditions (DRADeviceBindingConditions with
// DRAResourceClaimDeviceStatus; alpha and off in v1.35, where upstream's "experimental" allocator
// handles them and the stable one refuses such devices). Each test names the upstream rule it
// checks (structured/internal/{stable,experimental} at v1.35.4).
#include <gtest/gtest.h>

#include "api/codec.h"
#include "api/yaml_json.h"
#include "scheduler/dra/allocator.h"
#include "scheduler/dra/pools.h"

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

api::Node node(const std::string& name) {
  api::Node n;
  n.metadata.name = name;
  return n;
}

// One device "dev" in pool `pool`, offered to every node (allNodes); `device_spec` adds fields
// to the device (YAML at the device's indentation).
std::shared_ptr<const resourceapi::ResourceSlice> slice(const std::string& pool, const std::string& device_spec = "") {
  return obj<resourceapi::ResourceSlice>(
      "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: " + pool +
      "}\nspec:\n  driver: fabric.example.com\n  pool: {name: " + pool +
      ", generation: 1, resourceSliceCount: 1}\n  allNodes: true\n  devices:\n  - name: dev\n" + device_spec);
}

const std::string kBinding =
    "    bindingConditions: [Attached]\n    bindingFailureConditions: [AttachFailed]\n";

std::shared_ptr<const resourceapi::ResourceClaim> one_device_claim() {
  return obj<resourceapi::ResourceClaim>(
      "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: default}\nspec:\n"
      "  devices:\n    requests:\n    - name: req\n      exactly: {deviceClassName: fabric, allocationMode: "
      "ExactCount, count: 1}\n");
}

class BindingConditionsAllocatorTest : public ::testing::Test {
 protected:
  util::Result<Allocation, AllocateError> allocate(const std::string& node_name) {
    auto cls = obj<resourceapi::DeviceClass>(
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: fabric}\nspec:\n"
        "  selectors: [{cel: {expression: 'device.driver == \"fabric.example.com\"'}}]\n");
    Allocator a(features, DeviceIdSet{}, [cls](std::string_view) { return cls; }, slices, cache, nullptr);
    auto c = one_device_claim();
    const std::vector<const resourceapi::ResourceClaim*> claims{c.get()};
    return a.allocate(node(node_name), claims);
  }
  Features features;
  cel::Cache cache{16};
  std::vector<std::shared_ptr<const resourceapi::ResourceSlice>> slices;
};

// Stable/incubating/experimental isSelectable: "Devices with binding conditions are not
// supported, feature is off" — such a device is skipped, another one is taken.
TEST_F(BindingConditionsAllocatorTest, GateOffDevicesWithBindingConditionsAreNotAllocatable) {
  slices = {slice("pool-a", kBinding)};
  auto r = allocate("node-1");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->found());
  slices.push_back(slice("pool-b"));
  r = allocate("node-1");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->found());
  EXPECT_EQ(std::string(r->results[0].devices.results.at(0).pool), "pool-b");
  EXPECT_TRUE(r->results[0].devices.results[0].bindingConditions.empty());
}

// Experimental allocator's result: the device's bindingConditions and bindingFailureConditions
// are copied into the DeviceRequestAllocationResult when DeviceBindingAndStatus is on.
TEST_F(BindingConditionsAllocatorTest, GateOnTheResultCarriesTheDevicesConditions) {
  features.deviceBindingAndStatus = true;
  slices = {slice("pool-a", kBinding)};
  auto r = allocate("node-1");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->found());
  const auto& d = r->results[0].devices.results.at(0);
  EXPECT_EQ(d.bindingConditions.vec(), std::vector<std::string>{"Attached"});
  EXPECT_EQ(d.bindingFailureConditions.vec(), std::vector<std::string>{"AttachFailed"});
  // An allNodes device without bindsToNode: usable anywhere, no node selector.
  EXPECT_FALSE(r->results[0].nodeSelector);
}

// Experimental createNodeSelector: "nodeName != nil || result[i].BindsToNode" restricts the
// allocation to the node it was made for (metadata.name In [node]). The stable allocator ignores
// bindsToNode (gate off, such a device has binding conditions and is not picked anyway).
TEST_F(BindingConditionsAllocatorTest, BindsToNodePinsTheAllocationToTheNode) {
  features.deviceBindingAndStatus = true;
  slices = {slice("pool-a", kBinding + "    bindsToNode: true\n")};
  auto r = allocate("node-7");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->found());
  ASSERT_TRUE(r->results[0].nodeSelector);
  const auto& term = r->results[0].nodeSelector->nodeSelectorTerms.at(0);
  ASSERT_EQ(term.matchFields.size(), 1u);
  EXPECT_EQ(term.matchFields[0].key, "metadata.name");
  EXPECT_EQ(term.matchFields[0].operator_, "In");
  EXPECT_EQ(term.matchFields[0].values, std::vector<std::string>{"node-7"});
}

// Experimental GatherPools: slices and pools with binding conditions are sorted after the others,
// "because then the allocation is going to prefer the simpler devices without binding
// conditions". Here pool-a (with conditions) comes first by name, yet pool-b's device is taken.
TEST_F(BindingConditionsAllocatorTest, DevicesWithoutBindingConditionsArePreferred) {
  features.deviceBindingAndStatus = true;
  slices = {slice("pool-a", kBinding), slice("pool-b")};
  auto r = allocate("node-1");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->found());
  EXPECT_EQ(std::string(r->results[0].devices.results.at(0).pool), "pool-b");

  // gather_pools itself: the pool with binding conditions last, in (driver, pool) order otherwise.
  Pools pools;
  slices = {slice("pool-a", kBinding), slice("pool-c"), slice("pool-b")};
  ASSERT_TRUE(gather_pools(slices, node("node-1"), features, pools).ok());
  ASSERT_EQ(pools.pools.size(), 3u);
  EXPECT_EQ(pools.pools[0].pool, "pool-b");
  EXPECT_EQ(pools.pools[1].pool, "pool-c");
  EXPECT_EQ(pools.pools[2].pool, "pool-a");
  // Stable GatherPools (gate off, no consumable capacity): plain (driver, pool) order.
  ASSERT_TRUE(gather_pools(slices, node("node-1"), Features{}, pools).ok());
  EXPECT_EQ(pools.pools[0].pool, "pool-a");
}

}  // namespace
}  // namespace ksched::scheduler::dra
