// DRAConsumableCapacity in the structured allocator and the scheduler's DRA state, against
// upstream v1.35: structured/internal/experimental (allocator_experimental.go,
// consumable_capacity.go, constraint.go) and the scheduler's allocateddevices.go /
// dra_manager.go GatherAllocatedState. Each test names the upstream rule or test case it mirrors.
#include "scheduler/dra/allocator.h"
#include "scheduler/dra/capacity.h"
#include "scheduler/dra/manager.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <regex>
#include <set>

#include "api/codec.h"
#include "api/yaml_json.h"

namespace ksched::scheduler::dra {
namespace {

using api::Quantity;
using Q = api::Quantity;

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

// One device's YAML: `shared` sets allowMultipleAllocations; `capacity` is the YAML of its
// capacity map entries (one line each, indented by the caller's convention below).
std::string device_yaml(const std::string& name, bool shared, const std::string& capacity, int numa = 0) {
  std::string y = "  - name: " + name + "\n";
  if (shared) y += "    allowMultipleAllocations: true\n";
  y += "    attributes:\n      numa: {int: " + std::to_string(numa) + "}\n";
  if (!capacity.empty()) y += "    capacity:\n" + capacity;
  return y;
}

std::shared_ptr<const resourceapi::ResourceSlice> slice(const std::string& node_name, const std::string& pool,
                                                        const std::string& devices) {
  return obj<resourceapi::ResourceSlice>(
      "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: " + pool +
      "-slice}\nspec:\n  driver: gpu.example.com\n  pool: {name: " + pool +
      ", generation: 1, resourceSliceCount: 1}\n  nodeName: " + node_name + "\n  devices:\n" + devices);
}

// 40Gi of memory, consumed in steps of 10Gi from 10Gi (default 10Gi).
const std::string kSteppedMemory =
    "      memory:\n        value: 40Gi\n        requestPolicy: {default: 10Gi, validRange: {min: 10Gi, "
    "step: 10Gi}}\n";

std::string request(const std::string& name, int count, const std::string& capacity_requests = "") {
  std::string r =
      "    - name: " + name +
      "\n      exactly: {deviceClassName: gpu, allocationMode: ExactCount, count: " + std::to_string(count);
  if (!capacity_requests.empty()) r += ", capacity: {requests: {" + capacity_requests + "}}";
  return r + "}\n";
}

std::shared_ptr<const resourceapi::ResourceClaim> claim(const std::string& name, const std::string& requests,
                                                        const std::string& rest = "") {
  return obj<resourceapi::ResourceClaim>(
      "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: " + name +
      ", namespace: default, uid: uid-" + name +
      ", resourceVersion: \"1\"}\n"
      "spec:\n  devices:\n    requests:\n" +
      requests + rest);
}

// The claim with `allocation` as its status, as PreBind writes it.
std::shared_ptr<const resourceapi::ResourceClaim> allocated(const resourceapi::ResourceClaim& c,
                                                            const resourceapi::AllocationResult& allocation) {
  auto copy = std::make_shared<resourceapi::ResourceClaim>(c);
  copy->status.allocation = allocation;
  return copy;
}

class ConsumableCapacityTest : public ::testing::Test {
 protected:
  ConsumableCapacityTest() { features.consumableCapacity = true; }

  // Allocates with the manager's devices in use (allocated, assumed and in-flight claims).
  util::Result<Allocation, AllocateError> allocate(
      const std::vector<std::shared_ptr<const resourceapi::ResourceClaim>>& claims,
      const std::string& node_name = "node-0") {
    auto in_use = manager.allocated_devices();
    const DevicesInUse* u = in_use->empty() ? nullptr : in_use.get();
    Allocator a(features, u, &classes, slices, cache);
    std::vector<const resourceapi::ResourceClaim*> ptrs;
    for (const auto& c : claims) ptrs.push_back(c.get());
    return a.allocate(node(node_name), ptrs);
  }

  Features features;
  cel::Cache cache{64};
  Manager manager;
  std::shared_ptr<const resourceapi::DeviceClass> gpu = obj<resourceapi::DeviceClass>(
      "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec:\n"
      "  selectors: [{cel: {expression: 'device.driver == \"gpu.example.com\"'}}]\n");
  DeviceClassLookup classes = [this](std::string_view name) {
    return name == "gpu" ? gpu : std::shared_ptr<const resourceapi::DeviceClass>();
  };
  std::vector<std::shared_ptr<const resourceapi::ResourceSlice>> slices;
};

std::string device_of(const resourceapi::DeviceRequestAllocationResult& r) { return std::string(r.device); }

bool is_uuid(const std::string& s) {
  static const std::regex re("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
  return std::regex_match(s, re);
}

// ---------------------------------------------------------------- capacity rules

// consumable_capacity_test.go "calculate-consumed-capacity" (the cases v1.35's rules cover).
TEST(ConsumedCapacity, CalculateConsumedCapacityUpstreamCases) {
  auto cap = [](const char* value, std::optional<Q> def, std::optional<Q> min, std::optional<Q> step,
                std::vector<Q> valid = {}) {
    resourceapi::DeviceCapacity c;
    c.value = Q::must(value);
    resourceapi::CapacityRequestPolicy p;
    p.default_ = def;
    if (min) {
      resourceapi::CapacityRequestPolicyRange r;
      r.min = min;
      r.step = step;
      p.validRange = r;
    }
    p.validValues = std::move(valid);
    c.requestPolicy = p;
    return c;
  };
  const Q one = Q::must("1"), two = Q::must("2"), three = Q::must("3");
  // "empty": no request, no default: the whole value.
  resourceapi::DeviceCapacity empty;
  empty.value = one;
  empty.requestPolicy = resourceapi::CapacityRequestPolicy{};
  EXPECT_EQ(consumed_capacity(nullptr, empty), one);
  // "min in range": no request: the default.
  EXPECT_EQ(consumed_capacity(nullptr, cap("2", one, one, std::nullopt)), one);
  // "default in set".
  EXPECT_EQ(consumed_capacity(nullptr, cap("2", one, std::nullopt, std::nullopt, {one})), one);
  // "more than min in range".
  EXPECT_EQ(consumed_capacity(&two, cap("2", one, one, std::nullopt)), two);
  // "less than min in range": raised to min.
  EXPECT_EQ(consumed_capacity(&one, cap("2", one, two, std::nullopt)), two);
  // "with step (round up)": 2 from min 1 in steps of 2 is 3.
  EXPECT_EQ(consumed_capacity(&two, cap("3", one, one, two)), three);
  // "with step (no remaining)".
  EXPECT_EQ(consumed_capacity(&two, cap("2", one, one, one)), two);
  // "valid value in set", "set (round up)", "larger than set".
  EXPECT_EQ(consumed_capacity(&two, cap("3", one, std::nullopt, std::nullopt, {one, two, three})), two);
  EXPECT_EQ(consumed_capacity(&two, cap("3", one, std::nullopt, std::nullopt, {one, three})), three);
  EXPECT_EQ(consumed_capacity(&three, cap("3", one, std::nullopt, std::nullopt, {one, two})), three);
  // roundUpRange works in whole units (Value() rounds up) and gives a BinarySI quantity.
  const Q gi15 = Q::must("15Gi");
  const Q rounded = consumed_capacity(&gi15, cap("40Gi", Q::must("10Gi"), Q::must("10Gi"), Q::must("10Gi")));
  EXPECT_EQ(rounded, Q::must("20Gi"));
  EXPECT_EQ(rounded.to_string(), "20Gi");
  // No requestPolicy: the amount asked for.
  resourceapi::DeviceCapacity plain;
  plain.value = three;
  EXPECT_EQ(consumed_capacity(&two, plain), two);
}

// consumable_capacity_test.go "violate-capacity-sharing".
TEST(ConsumedCapacity, ViolatesPolicyUpstreamCases) {
  const Q one = Q::must("1"), two = Q::must("2");
  EXPECT_FALSE(violates_policy(one, nullptr));  // "no constraint"
  resourceapi::CapacityRequestPolicy range;
  range.default_ = one;
  range.validRange = resourceapi::CapacityRequestPolicyRange{};
  range.validRange->min = one;
  range.validRange->max = two;
  EXPECT_FALSE(violates_policy(one, &range));  // "less than maximum"
  range.validRange->max = one;
  EXPECT_TRUE(violates_policy(two, &range));  // "more than maximum"
  resourceapi::CapacityRequestPolicy set;
  set.default_ = one;
  set.validValues = {one};
  EXPECT_FALSE(violates_policy(one, &set));  // "in set"
  EXPECT_TRUE(violates_policy(two, &set));   // "not in set"
  // violateValidRange: off the step from min.
  resourceapi::CapacityRequestPolicy stepped;
  stepped.validRange = resourceapi::CapacityRequestPolicyRange{};
  stepped.validRange->min = Q::must("10Gi");
  stepped.validRange->step = Q::must("10Gi");
  EXPECT_TRUE(violates_policy(Q::must("15Gi"), &stepped));
  EXPECT_FALSE(violates_policy(Q::must("30Gi"), &stepped));
}

// CmpRequestOverCapacity: a request for a capacity the device does not define is refused
// ("some requested capacity has not been defined"); the sum of allocated, allocating and this
// request must stay within the value.
TEST(ConsumedCapacity, RequestFitsCapacity) {
  resourceapi::CapacityMap caps;
  resourceapi::DeviceCapacity mem;
  mem.value = Q::must("40Gi");
  caps.set("memory", mem);
  resourceapi::CapacityRequirements req;
  req.requests.set("memory", Q::must("10Gi"));
  EXPECT_EQ(request_fits_capacity(&req, caps, nullptr, nullptr), CapacityFit::Fits);
  api::ResourceList allocated, allocating;
  allocated.set("memory", Q::must("20Gi"));
  allocating.set("memory", Q::must("10Gi"));
  EXPECT_EQ(request_fits_capacity(&req, caps, &allocated, &allocating), CapacityFit::Fits);
  allocating.set("memory", Q::must("11Gi"));
  EXPECT_EQ(request_fits_capacity(&req, caps, &allocated, &allocating), CapacityFit::DoesNotFit);
  resourceapi::CapacityRequirements other;
  other.requests.set("cores", Q::must("1"));
  EXPECT_EQ(request_fits_capacity(&other, caps, nullptr, nullptr), CapacityFit::Undefined);
  // No request: the whole value is consumed (no default), so nothing else may be in use.
  EXPECT_EQ(request_fits_capacity(nullptr, caps, nullptr, nullptr), CapacityFit::Fits);
  EXPECT_EQ(request_fits_capacity(nullptr, caps, &allocated, nullptr), CapacityFit::DoesNotFit);
}

// internal.GenerateShareID: a random UUID per share.
TEST(ConsumedCapacity, ShareIdsAreDistinctUuids) {
  std::set<std::string> ids;
  for (int i = 0; i < 100; ++i) {
    const std::string id = new_share_id();
    EXPECT_TRUE(is_uuid(id)) << id;
    ids.insert(id);
  }
  EXPECT_EQ(ids.size(), 100u);
}

// ---------------------------------------------------------------- the allocator

// allocateDevice with allowMultipleAllocations: one device serves two claims, each result a
// share with its own shareID and the consumedCapacity its request works out to.
TEST_F(ConsumableCapacityTest, SharedDeviceServesTwoClaimsWithDistinctShareIds) {
  slices = {slice("node-0", "pool-0", device_yaml("gpu-0", true, kSteppedMemory))};
  auto a = claim("a", request("r", 1, "memory: 10Gi"));
  auto b = claim("b", request("r", 1, "memory: 10Gi"));
  auto r = allocate({a, b});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->found());
  ASSERT_EQ(r->results.size(), 2u);
  std::set<std::string> share_ids;
  for (const auto& res : r->results) {
    ASSERT_EQ(res.devices.results.size(), 1u);
    const auto& d = res.devices.results[0];
    EXPECT_EQ(device_of(d), "gpu-0");
    ASSERT_TRUE(d.shareID);
    EXPECT_TRUE(is_uuid(*d.shareID)) << *d.shareID;
    share_ids.insert(*d.shareID);
    ASSERT_NE(d.consumedCapacity.find("memory"), nullptr);
    EXPECT_EQ(d.consumedCapacity.find("memory")->to_string(), "10Gi");
  }
  EXPECT_EQ(share_ids.size(), 2u);
}

// CmpRequestOverCapacity over this search's shares (allocatingCapacity): four claims of 10Gi fill
// a 40Gi device; a fifth finds no room, so the claims together do not fit.
TEST_F(ConsumableCapacityTest, CapacityExhaustedRefusesTheNextClaim) {
  slices = {slice("node-0", "pool-0", device_yaml("gpu-0", true, kSteppedMemory))};
  std::vector<std::shared_ptr<const resourceapi::ResourceClaim>> claims;
  for (int i = 0; i < 4; ++i)
    claims.push_back(claim("c" + std::to_string(i), request("r", 1, "memory: 10Gi")));
  auto four = allocate(claims);
  ASSERT_TRUE(four.ok()) << four.error().message;
  EXPECT_TRUE(four->found());
  claims.push_back(claim("c4", request("r", 1, "memory: 10Gi")));
  auto five = allocate(claims);
  ASSERT_TRUE(five.ok()) << five.error().message;
  EXPECT_FALSE(five->found());
}

// calculateConsumedCapacity in the allocator: validRange rounds 15Gi up to the next step (20Gi);
// validValues rounds 9Gi up to 16Gi; a request above the range's max fits no device.
TEST_F(ConsumableCapacityTest, RequestPolicyRoundsTheConsumedAmount) {
  slices = {
      slice("node-0", "pool-0",
            device_yaml("stepped", true, kSteppedMemory) +
                device_yaml("valued", true,
                            "      memory:\n        value: 40Gi\n        requestPolicy: {default: 8Gi, "
                            "validValues: [8Gi, 16Gi, 40Gi]}\n") +
                device_yaml("capped", true,
                            "      memory:\n        value: 40Gi\n        requestPolicy: {default: 10Gi, "
                            "validRange: {min: 10Gi, max: 20Gi}}\n"))};
  auto r = allocate({claim("a", request("r", 1, "memory: 15Gi"))});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->found());
  EXPECT_EQ(device_of(r->results[0].devices.results[0]), "stepped");
  EXPECT_EQ(r->results[0].devices.results[0].consumedCapacity.find("memory")->to_string(), "20Gi");

  // With "stepped" filled by an allocated claim's shares, the next 9Gi goes to "valued" as 16Gi.
  manager.on_claim_add(allocated(*claim("full", request("r", 1, "memory: 40Gi")), [&] {
    resourceapi::AllocationResult a;
    resourceapi::DeviceRequestAllocationResult d;
    d.request = "r";
    d.driver = "gpu.example.com";
    d.pool = "pool-0";
    d.device = "stepped";
    d.shareID = new_share_id();
    d.consumedCapacity.set("memory", Q::must("40Gi"));
    a.devices.results.push_back(d);
    return a;
  }()));
  auto v = allocate({claim("b", request("r", 1, "memory: 9Gi"))});
  ASSERT_TRUE(v.ok()) << v.error().message;
  ASSERT_TRUE(v->found());
  EXPECT_EQ(device_of(v->results[0].devices.results[0]), "valued");
  EXPECT_EQ(v->results[0].devices.results[0].consumedCapacity.find("memory")->to_string(), "16Gi");

  // 30Gi: "valued" rounds it to 40Gi (fits), "capped" refuses it (above max 20Gi).
  auto big = allocate({claim("c", request("r", 1, "memory: 30Gi"))});
  ASSERT_TRUE(big.ok());
  ASSERT_TRUE(big->found());
  EXPECT_EQ(device_of(big->results[0].devices.results[0]), "valued");
  EXPECT_EQ(big->results[0].devices.results[0].consumedCapacity.find("memory")->to_string(), "40Gi");
  // 41Gi fits nowhere: above every value and capped's max.
  auto none = allocate({claim("d", request("r", 1, "memory: 41Gi"))});
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->found());
}

// GatherAllocatedState: the shares of allocated claims and of in-flight allocations both count
// against the device's capacity; ending the in-flight allocation gives its share back.
TEST_F(ConsumableCapacityTest, InFlightAndAllocatedSharesCountAgainstCapacity) {
  slices = {slice("node-0", "pool-0", device_yaml("gpu-0", true, kSteppedMemory))};
  auto first = claim("first", request("r", 1, "memory: 20Gi"));
  auto r1 = allocate({first});
  ASSERT_TRUE(r1.ok() && r1->found());
  manager.on_claim_add(allocated(*first, r1->results[0]));  // allocated, seen by the informer

  auto second = claim("second", request("r", 1, "memory: 10Gi"));
  auto r2 = allocate({second});
  ASSERT_TRUE(r2.ok() && r2->found());
  manager.on_claim_add(second);
  manager.signal_claim_pending_allocation("uid-second", allocated(*second, r2->results[0]));  // Reserve

  // 30Gi in use: 20Gi more does not fit, 10Gi does.
  auto third = allocate({claim("third", request("r", 1, "memory: 20Gi"))});
  ASSERT_TRUE(third.ok());
  EXPECT_FALSE(third->found());
  auto small = allocate({claim("small", request("r", 1, "memory: 10Gi"))});
  ASSERT_TRUE(small.ok());
  EXPECT_TRUE(small->found());

  // Unreserve: the in-flight share is gone, 20Gi fit again.
  EXPECT_TRUE(manager.remove_claim_pending_allocation("uid-second"));
  auto again = allocate({claim("third", request("r", 1, "memory: 20Gi"))});
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->found());

  // The device is held by shares only: not in use for the allocator with the feature on.
  auto in_use = manager.allocated_devices();
  const SharedDevices* shared = in_use->shared_in_pool("gpu.example.com", "pool-0");
  ASSERT_NE(shared, nullptr);
  EXPECT_TRUE(shared->only_shared.contains("gpu-0"));
  ASSERT_NE(shared->consumed_by("gpu-0"), nullptr);
  EXPECT_EQ(shared->consumed_by("gpu-0")->find("memory")->to_string(), "20Gi");
}

// A device without allowMultipleAllocations stays exclusive with the feature on, and its
// capacity is checked all the same (CmpRequestOverCapacity runs for every device).
TEST_F(ConsumableCapacityTest, ExclusiveDevicesStayExclusiveAndTheirCapacityIsChecked) {
  slices = {slice("node-0", "pool-0",
                  device_yaml("small", false, "      memory: {value: 10Gi}\n") +
                      device_yaml("big", false, "      memory: {value: 40Gi}\n"))};
  auto r = allocate({claim("a", request("r", 1, "memory: 20Gi")), claim("b", request("r", 1))});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->found());
  EXPECT_EQ(device_of(r->results[0].devices.results[0]), "big");
  EXPECT_EQ(device_of(r->results[1].devices.results[0]), "small");
  for (const auto& res : r->results) {
    EXPECT_FALSE(res.devices.results[0].shareID);
    EXPECT_TRUE(res.devices.results[0].consumedCapacity.empty());
  }
  // A capacity the devices do not define: no device ("some requested capacity has not been defined").
  auto undefined = allocate({claim("c", request("r", 1, "cores: 1"))});
  ASSERT_TRUE(undefined.ok());
  EXPECT_FALSE(undefined->found());
}

// Upstream lets one request take several shares of one device (shares are not "in use").
TEST_F(ConsumableCapacityTest, OneRequestMayTakeSeveralSharesOfADevice) {
  slices = {slice("node-0", "pool-0", device_yaml("gpu-0", true, kSteppedMemory))};
  auto r = allocate({claim("a", request("r", 3, "memory: 10Gi"))});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->found());
  ASSERT_EQ(r->results[0].devices.results.size(), 3u);
  std::set<std::string> ids;
  for (const auto& d : r->results[0].devices.results) {
    EXPECT_EQ(device_of(d), "gpu-0");
    ids.insert(*d.shareID);
  }
  EXPECT_EQ(ids.size(), 3u);
  auto five = allocate({claim("b", request("r", 5, "memory: 10Gi"))});
  ASSERT_TRUE(five.ok());
  EXPECT_FALSE(five->found());
}

// constraint.go distinctAttribute: the requests' devices differ in the attribute.
TEST_F(ConsumableCapacityTest, DistinctAttributeKeepsRequestsOnDifferentValues) {
  slices = {slice("node-0", "pool-0",
                  device_yaml("gpu-0", false, "", 0) + device_yaml("gpu-1", false, "", 0) +
                      device_yaml("gpu-2", false, "", 1))};
  auto c = claim("a", request("one", 1) + request("two", 1),
                 "    constraints: [{requests: [one, two], distinctAttribute: gpu.example.com/numa}]\n");
  auto r = allocate({c});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->found());
  EXPECT_EQ(device_of(r->results[0].devices.results[0]), "gpu-0");
  EXPECT_EQ(device_of(r->results[0].devices.results[1]), "gpu-2");  // gpu-1 shares numa 0
  // A third request cannot find a third numa.
  auto c3 = claim("b", request("one", 1) + request("two", 1) + request("three", 1),
                  "    constraints: [{distinctAttribute: gpu.example.com/numa}]\n");
  auto r3 = allocate({c3});
  ASSERT_TRUE(r3.ok()) << r3.error().message;
  EXPECT_FALSE(r3->found());

  // Without the feature (the "incubating" allocator), the constraint is unknown.
  features.consumableCapacity = false;
  auto off = allocate({c});
  ASSERT_FALSE(off.ok());
  EXPECT_EQ(off.error().message,
            "claim default/a, constraint #0: empty constraint (unsupported constraint type?)");
}

// allocator_experimental.go: with the experimental allocator running for another feature, capacity
// requests without DRAConsumableCapacity are an error; the incubating allocator ignores them.
TEST_F(ConsumableCapacityTest, CapacityRequestsWithoutTheFeature) {
  slices = {slice("node-0", "pool-0", device_yaml("gpu-0", true, kSteppedMemory))};
  features.consumableCapacity = false;
  features.deviceBindingAndStatus = true;
  auto c = claim("a", request("r", 1, "memory: 10Gi"));
  auto r = allocate({c});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(
      r.error().message,
      "claim default/a, request r: has capacity requests, but the DRAConsumableCapacity feature is disabled");
  features.deviceBindingAndStatus = false;
  auto ignored = allocate({c});
  ASSERT_TRUE(ignored.ok()) << ignored.error().message;
  EXPECT_TRUE(ignored->found());
}

// Gate off (v1.35's default): a multi-allocatable device is an ordinary exclusive device, no
// result carries a shareID or consumedCapacity, and a device held by shares (allocated while the
// gate was on) counts as in use (foreachAllocatedDevice puts every result among the dedicated ones).
TEST_F(ConsumableCapacityTest, GateOffTreatsMultiAllocatableDevicesAsExclusive) {
  features.consumableCapacity = false;
  slices = {slice("node-0", "pool-0",
                  device_yaml("gpu-0", true, kSteppedMemory) + device_yaml("gpu-1", true, kSteppedMemory))};
  auto r = allocate({claim("a", request("r", 1)), claim("b", request("r", 1))});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->found());
  EXPECT_EQ(device_of(r->results[0].devices.results[0]), "gpu-0");
  EXPECT_EQ(device_of(r->results[1].devices.results[0]), "gpu-1");
  for (const auto& res : r->results) {
    EXPECT_FALSE(res.devices.results[0].shareID);
    EXPECT_TRUE(res.devices.results[0].consumedCapacity.empty());
  }
  auto three =
      allocate({claim("a", request("r", 1)), claim("b", request("r", 1)), claim("c", request("r", 1))});
  ASSERT_TRUE(three.ok());
  EXPECT_FALSE(three->found());

  // gpu-0 held by one 10Gi share: in use with the gate off, shareable with it on.
  features.consumableCapacity = true;
  auto on = allocate({claim("s", request("r", 1, "memory: 10Gi"))});
  ASSERT_TRUE(on.ok() && on->found());
  manager.on_claim_add(allocated(*claim("s", request("r", 1, "memory: 10Gi")), on->results[0]));
  features.consumableCapacity = false;
  auto off = allocate({claim("a", request("r", 1)), claim("b", request("r", 1))});
  ASSERT_TRUE(off.ok());
  EXPECT_FALSE(off->found());
  features.consumableCapacity = true;
  auto shared =
      allocate({claim("a", request("r", 1, "memory: 10Gi")), claim("b", request("r", 1, "memory: 10Gi"))});
  ASSERT_TRUE(shared.ok());
  EXPECT_TRUE(shared->found());
}

// Randomized, through the scheduler's DRA state: pods allocate one after the other (as Reserve
// does: in flight, then allocated; some claims are deleted later), with shareable and exclusive
// devices and random capacity requests. No device's capacity is ever exceeded by its shares, no
// exclusive device is handed out twice, and no device is both shared and dedicated.
TEST_F(ConsumableCapacityTest, RandomAllocationsNeverExceedCapacityNorShareExclusiveDevices) {
  std::mt19937 rng(7122026);
  std::string devices;
  for (int i = 0; i < 6; ++i) {
    const bool shared = i % 2 == 0;
    devices +=
        device_yaml("gpu-" + std::to_string(i), shared,
                    i % 3 == 0 ? kSteppedMemory
                               : "      memory:\n        value: 24Gi\n        requestPolicy: {default: 4Gi, "
                                 "validValues: [4Gi, 8Gi, 12Gi, 24Gi]}\n",
                    i % 2);
  }
  slices = {slice("node-0", "pool-0", devices)};
  std::map<std::string, Q> capacity_of;
  for (const auto& d : slices[0]->spec.devices)
    capacity_of[std::string(d.name)] = d.capacity.find("memory")->value;

  std::vector<std::shared_ptr<const resourceapi::ResourceClaim>> live;  // allocated claims
  int found = 0, refused = 0;
  for (int pod = 0; pod < 300; ++pod) {
    // Now and then a claim goes away (its pod finished).
    if (!live.empty() && rng() % 4 == 0) {
      const std::size_t i = rng() % live.size();
      manager.on_claim_delete(live[i]);
      manager.remove_claim_pending_allocation(
          std::string(live[i]->metadata.uid.view()));  // Unreserve, if in flight
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
    }
    const std::string name = "pod-" + std::to_string(pod);
    const int count = 1 + static_cast<int>(rng() % 2);
    const std::string amount = std::to_string(1 + rng() % 16) + "Gi";
    std::string reqs = request("r", count, rng() % 4 == 0 ? "" : "memory: " + amount);
    const bool distinct = rng() % 5 == 0;
    if (distinct) reqs += request("s", 1);
    auto c =
        claim(name, reqs, distinct ? "    constraints: [{distinctAttribute: gpu.example.com/numa}]\n" : "");
    auto r = allocate({c});
    ASSERT_TRUE(r.ok()) << r.error().message;
    if (!r->found()) {
      ++refused;
      continue;
    }
    ++found;
    auto done = allocated(*c, r->results[0]);
    manager.on_claim_add(c);
    manager.signal_claim_pending_allocation(std::string(c->metadata.uid.view()), done);  // Reserve
    if (rng() % 3 != 0) {
      // PreBind wrote it and the informer delivered it.
      manager.on_claim_update(c, done);
      manager.remove_claim_pending_allocation(std::string(c->metadata.uid.view()));
    }
    live.push_back(done);

    // Every claim the manager holds (allocated or in flight), summed per device.
    std::map<std::string, Q> consumed;
    std::map<std::string, int> dedicated, shares;
    for (const auto& l : live) {
      for (const auto& d : l->status.allocation->devices.results) {
        const std::string dev(d.device);
        if (d.shareID) {
          ++shares[dev];
          if (const auto* q = d.consumedCapacity.find("memory")) consumed[dev] += *q;
        } else {
          ++dedicated[dev];
        }
      }
    }
    for (const auto& [dev, q] : consumed)
      EXPECT_LE(q, capacity_of[dev]) << dev << " over capacity at " << name;
    for (const auto& [dev, n] : dedicated) {
      EXPECT_EQ(n, 1) << dev << " allocated " << n << " times at " << name;
      EXPECT_EQ(shares[dev], 0) << dev << " both dedicated and shared at " << name;
    }
    // The manager's incremental bookkeeping says the same (GatherAllocatedState's AggregatedCapacity).
    auto in_use = manager.allocated_devices();
    const SharedDevices* held = in_use->shared_in_pool("gpu.example.com", "pool-0");
    for (const auto& [dev, n] : shares) {
      if (n == 0) continue;
      ASSERT_NE(held, nullptr);
      EXPECT_TRUE(held->only_shared.contains(dev)) << dev;
      const api::ResourceList* sum = held->consumed_by(dev);
      ASSERT_NE(sum, nullptr) << dev;
      EXPECT_EQ(*sum->find("memory"), consumed[dev]) << dev << " at " << name;
    }
    if (held != nullptr) {
      for (const auto& [dev, list] : held->consumed) EXPECT_GT(shares[dev], 0) << dev << " at " << name;
    }
    // A shared device's results are shares; an exclusive one's are not.
    for (const auto& d : r->results[0].devices.results) {
      const int index = std::stoi(std::string(d.device).substr(4));
      EXPECT_EQ(bool(d.shareID), index % 2 == 0) << std::string(d.device);
    }
  }
  EXPECT_GT(found, 30);
  EXPECT_GT(refused, 10);  // the devices fill up: both outcomes are exercised
}

}  // namespace
}  // namespace ksched::scheduler::dra
