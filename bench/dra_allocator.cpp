// The structured DRA allocator per (pod, node), as the DynamicResources plugin's Filter calls it:
// an Allocator built from one node's ResourceSlice (plus the node-less ones, none here), then
// allocate() for the pod's claims. The node is upstream scheduler_perf's DRA node: one slice of
// the driver test-driver.cdi.k8s.io with `devices` devices (model, family, driverVersion, numa
// attributes and a memory capacity, as its createResourceDriver op publishes them), a DeviceClass
// selecting the driver by CEL, and a few devices already allocated.
//
//   build/release/bench/bench_dra_allocator [--benchmark_repetitions=5]
//
// Cases: one claim, one request for one device (SchedulingWithResourceClaimTemplate's claim);
// two requests tied by matchAttribute; firstAvailable whose first subrequest's class matches no
// device. Each is timed with a new Allocator per call (what Filter pays) and, for the search
// alone, with one Allocator reused.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "api/codec.h"
#include "api/yaml_json.h"
#include "scheduler/dra/allocator.h"

namespace {

using namespace ksched;
namespace dra = ksched::scheduler::dra;
namespace resourceapi = api::resourcev1;

template <class T>
std::shared_ptr<const T> decode_yaml(const std::string& yaml) {
  auto json = api::yaml_text_to_json(yaml);
  if (!json.ok()) std::abort();
  auto o = api::decode<T>(api::to_json_text(*json));
  if (!o.ok()) std::abort();
  return std::make_shared<const T>(std::move(*o));
}

constexpr const char* kDriver = "test-driver.cdi.k8s.io";

std::shared_ptr<const resourceapi::ResourceSlice> node_slice(const std::string& node, int devices) {
  std::string y = "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: " + node +
                  "}\nspec:\n  driver: " + kDriver + "\n  nodeName: " + node + "\n  pool: {name: " + node +
                  ", generation: 1, resourceSliceCount: 1}\n  devices:\n";
  for (int i = 0; i < devices; ++i) {
    y += "  - name: instance-" + std::to_string(i) +
         "\n    attributes:\n      model: {string: A100}\n      family: {string: GPU}\n"
         "      driverVersion: {version: 1.2.3}\n      dra.example.com/numa: {int: " +
         std::to_string(i) + "}\n    capacity:\n      memory: {value: 1Gi}\n";
  }
  return decode_yaml<resourceapi::ResourceSlice>(y);
}

std::shared_ptr<const resourceapi::DeviceClass> device_class(const std::string& name, const std::string& driver) {
  return decode_yaml<resourceapi::DeviceClass>("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: " + name +
                                               "}\nspec:\n  selectors: [{cel: {expression: 'device.driver == \"" + driver +
                                               "\"'}}]\n");
}

std::shared_ptr<const resourceapi::ResourceClaim> claim(const std::string& devices) {
  return decode_yaml<resourceapi::ResourceClaim>(
      "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: test-dra-0-resource-x2v9q, namespace: test}\n"
      "spec:\n  devices:\n" +
      devices);
}

const char* const kOneDevice = "    requests:\n    - name: req-0\n      exactly: {deviceClassName: gpu}\n";
const char* const kTwoMatching =
    "    requests:\n    - name: req-0\n      exactly: {deviceClassName: gpu}\n"
    "    - name: req-1\n      exactly: {deviceClassName: gpu}\n"
    "    constraints:\n    - matchAttribute: test-driver.cdi.k8s.io/model\n";
const char* const kFirstAvailable =
    "    requests:\n    - name: req-0\n      firstAvailable:\n"
    "      - {name: sub-0, deviceClassName: no-devices}\n      - {name: sub-1, deviceClassName: gpu}\n";

struct Setup {
  api::Node node;
  std::vector<std::shared_ptr<const resourceapi::ResourceSlice>> slices;
  std::vector<std::shared_ptr<const resourceapi::DeviceClass>> classes{device_class("gpu", kDriver),
                                                                       device_class("no-devices", "no-such-driver.cdi.k8s.io")};
  dra::DeviceIdSet allocated;
  cel::Cache cache{64};
  std::shared_ptr<const resourceapi::ResourceClaim> c;

  Setup(const char* devices, int node_devices, int already_allocated) {
    node.metadata.name = "scheduler-perf-dra-7";
    slices.push_back(node_slice("scheduler-perf-dra-7", node_devices));
    for (int i = 0; i < already_allocated; ++i)
      allocated.insert(dra::DeviceId{kDriver, "scheduler-perf-dra-7", "instance-" + std::to_string(i)});
    c = claim(devices);
  }
  dra::DeviceClassLookup lookup() const {
    return [this](std::string_view name) -> std::shared_ptr<const resourceapi::DeviceClass> {
      for (const auto& k : classes)
        if (std::string_view(k->metadata.name) == name) return k;
      return nullptr;
    };
  }
};

const char* claim_of(int which) { return which == 0 ? kOneDevice : which == 1 ? kTwoMatching : kFirstAvailable; }

// What Filter pays per node: a new Allocator (the allocated set and slices copied in) and one allocate().
void BM_ConstructAndAllocate(benchmark::State& state) {
  Setup s(claim_of(static_cast<int>(state.range(0))), 8, 3);
  const resourceapi::ResourceClaim* claims[] = {s.c.get()};
  for (auto _ : state) {
    dra::Allocator a(dra::Features{}, s.allocated, s.lookup(), s.slices, s.cache);
    auto r = a.allocate(s.node, claims);
    if (!r.ok() || !r->found()) {
      state.SkipWithError("no allocation");
      return;
    }
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_ConstructAndAllocate)->ArgName("claim")->Arg(0)->Arg(1)->Arg(2);

// The search alone: one Allocator, allocate() per iteration.
void BM_Allocate(benchmark::State& state) {
  Setup s(claim_of(static_cast<int>(state.range(0))), 8, 3);
  const resourceapi::ResourceClaim* claims[] = {s.c.get()};
  dra::Allocator a(dra::Features{}, s.allocated, s.lookup(), s.slices, s.cache);
  for (auto _ : state) {
    auto r = a.allocate(s.node, claims);
    if (!r.ok() || !r->found()) {
      state.SkipWithError("no allocation");
      return;
    }
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_Allocate)->ArgName("claim")->Arg(0)->Arg(1)->Arg(2);

// The borrowing constructor (nothing copied), with and without the shared selector results
// (arg "cache"): what the plugin's Filter costs per node at best.
void BM_BorrowAndAllocate(benchmark::State& state) {
  Setup s(claim_of(static_cast<int>(state.range(0))), 8, 3);
  const resourceapi::ResourceClaim* claims[] = {s.c.get()};
  const dra::DeviceClassLookup lookup = s.lookup();
  dra::SelectorCache results;
  dra::SelectorCache* shared = state.range(1) != 0 ? &results : nullptr;
  for (auto _ : state) {
    dra::Allocator a(dra::Features{}, &s.allocated, &lookup, s.slices, s.cache, shared);
    auto r = a.allocate(s.node, claims);
    if (!r.ok() || !r->found()) {
      state.SkipWithError("no allocation");
      return;
    }
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_BorrowAndAllocate)->ArgNames({"claim", "cache"})->ArgsProduct({{0, 1, 2}, {0, 1}});

// A cluster-wide allocated set (upstream full_500nodes: 4,990 of 5,000 devices taken) copied into
// each Allocator, as a plugin that passes every allocated device does.
void BM_ConstructAndAllocateBigAllocatedSet(benchmark::State& state) {
  Setup s(kOneDevice, 10, 5);
  for (int n = 0; n < 500; ++n)
    for (int i = 0; i < 10; ++i)
      if (n != 7) s.allocated.insert(dra::DeviceId{kDriver, "scheduler-perf-dra-" + std::to_string(n), "instance-" + std::to_string(i)});
  const resourceapi::ResourceClaim* claims[] = {s.c.get()};
  for (auto _ : state) {
    dra::Allocator a(dra::Features{}, s.allocated, s.lookup(), s.slices, s.cache);
    auto r = a.allocate(s.node, claims);
    if (!r.ok() || !r->found()) {
      state.SkipWithError("no allocation");
      return;
    }
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_ConstructAndAllocateBigAllocatedSet);

// The same set borrowed: looked up, not copied.
void BM_BorrowAndAllocateBigAllocatedSet(benchmark::State& state) {
  Setup s(kOneDevice, 10, 5);
  for (int n = 0; n < 500; ++n)
    for (int i = 0; i < 10; ++i)
      if (n != 7) s.allocated.insert(dra::DeviceId{kDriver, "scheduler-perf-dra-" + std::to_string(n), "instance-" + std::to_string(i)});
  const resourceapi::ResourceClaim* claims[] = {s.c.get()};
  const dra::DeviceClassLookup lookup = s.lookup();
  for (auto _ : state) {
    dra::Allocator a(dra::Features{}, &s.allocated, &lookup, s.slices, s.cache);
    auto r = a.allocate(s.node, claims);
    if (!r.ok() || !r->found()) {
      state.SkipWithError("no allocation");
      return;
    }
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_BorrowAndAllocateBigAllocatedSet);

}  // namespace

BENCHMARK_MAIN();
