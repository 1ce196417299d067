// DRA device selectors: a compiled CEL expression evaluated over one device's attributes and
// capacities, in nanoseconds per device (the scheduler's structured allocator evaluates each
// class and claim selector per candidate device). Also: compiling, and a cache hit.
//
//   build/release/bench/bench_cel_selectors [--benchmark_repetitions=5]
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "api/quantity.h"
#include "cel/cel.h"

namespace {

using namespace ksched;

// A GPU as a DRA driver publishes it: a dozen attributes, a few capacities.
struct GpuDevice {
  std::vector<api::Quantity> quantities{api::Quantity::must("40Gi"), api::Quantity::must("108"),
                                        api::Quantity::must("16")};
  std::vector<cel::DeviceAttribute> attrs;
  std::vector<cel::DeviceCapacity> caps;
  cel::Device device;
  GpuDevice() {
    using K = cel::DeviceAttribute::Kind;
    auto s = [&](std::string_view n, std::string_view v) { attrs.push_back({n, K::String, false, 0, v}); };
    auto i = [&](std::string_view n, std::int64_t v) { attrs.push_back({n, K::Int, false, v, {}}); };
    auto b = [&](std::string_view n, bool v) { attrs.push_back({n, K::Bool, v, 0, {}}); };
    s("productName", "NVIDIA A100-SXM4-40GB");
    s("architecture", "Ampere");
    s("brand", "Nvidia");
    s("uuid", "GPU-4d27a1b9-1234-5678-9abc-def012345678");
    i("index", 3);
    i("minor", 3);
    b("mig", true);
    attrs.push_back({"driverVersion", K::Version, false, 0, "535.104.5"});
    attrs.push_back({"cudaComputeCapability", K::Version, false, 0, "8.0.0"});
    i("resource.kubernetes.io/pcieRoot", 2);
    s("resource.kubernetes.io/pciBusID", "0000:3b:00.0");
    caps.push_back({"memory", &quantities[0]});
    caps.push_back({"multiprocessors", &quantities[1]});
    caps.push_back({"resource.kubernetes.io/pcieLanes", &quantities[2]});
    device.driver = "gpu.nvidia.com";
    device.attributes = attrs;
    device.capacity = caps;
  }
};

const char* const kSelectors[] = {
    // 0: a DeviceClass's driver check
    R"(device.driver == "gpu.nvidia.com")",
    // 1: driver and memory (the typical claim selector)
    R"(device.driver == "gpu.nvidia.com" && device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) >= 0)",
    // 2: string and bool attributes
    R"(device.attributes["gpu.nvidia.com"].architecture == "Ampere" && device.attributes["gpu.nvidia.com"].mig)",
    // 3: a version attribute
    R"(device.attributes["gpu.nvidia.com"].driverVersion.isGreaterThan(semver("530.0.0")))",
    // 4: membership in a list of models
    R"(device.attributes["gpu.nvidia.com"].productName in ["NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3"])",
    // 5: cel.bind over several attributes
    R"(cel.bind(g, device.attributes["gpu.nvidia.com"], g.brand == "Nvidia" && g.index < 8 && g.cudaComputeCapability.isGreaterThan(semver("7.0.0"))))",
    // 6: a regular expression
    R"(device.attributes["gpu.nvidia.com"].productName.matches("^NVIDIA A100-.*-40GB$"))",
    // 7: a qualified attribute and a domain check
    R"("resource.kubernetes.io" in device.attributes && device.attributes["resource.kubernetes.io"].pcieRoot == 2)",
};

void BM_Evaluate(benchmark::State& state) {
  static const GpuDevice gpu;
  const char* expression = kSelectors[state.range(0)];
  auto program = cel::compile(expression);
  if (!program.ok()) {
    state.SkipWithError(program.error().detail.c_str());
    return;
  }
  bool matched = false;
  for (auto _ : state) {
    auto r = program->evaluate(gpu.device);
    matched = r.ok() && *r;
    benchmark::DoNotOptimize(matched);
  }
  if (!matched) state.SkipWithError("selector did not match");
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(expression);
}
BENCHMARK(BM_Evaluate)->DenseRange(0, 7)->Unit(benchmark::kNanosecond);

void BM_Compile(benchmark::State& state) {
  const char* expression = kSelectors[state.range(0)];
  for (auto _ : state) {
    auto p = cel::compile(expression);
    benchmark::DoNotOptimize(p.ok());
  }
  state.SetLabel(expression);
}
BENCHMARK(BM_Compile)->Arg(1)->Arg(5)->Unit(benchmark::kMicrosecond);

void BM_CacheHit(benchmark::State& state) {
  cel::Cache cache(16);
  std::string expression = kSelectors[1];
  if (!cache.get_or_compile(expression).ok()) return;
  for (auto _ : state) {
    auto p = cache.get_or_compile(expression);
    benchmark::DoNotOptimize(p.ok());
  }
}
BENCHMARK(BM_CacheHit)->Unit(benchmark::kNanosecond);

}  // namespace

BENCHMARK_MAIN();
