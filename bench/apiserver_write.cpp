// The API server's write path without the network: decoding a pod body (JSON) and running the
// write pipeline (type check, canonical quantities, defaults, admission, validation) on it, as
// every pod create of the scheduler_perf workloads does. Reports time per pod.
#include <benchmark/benchmark.h>

#include <boost/json.hpp>
#include <string>

#include "apiserver/body_codec.h"
#include "apiserver/resources.h"
#include "apiserver/storage.h"
#include "apiserver/write_pipeline.h"

namespace {

using namespace ksched::apiserver;
namespace json = boost::json;

// The bench's default pod template, as the bench's create workers send it.
const std::string kPod =
    R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"pod-abcde","namespace":"namespace-2"},)"
    R"("spec":{"containers":[{"name":"pause","image":"registry.k8s.io/pause:3.10","ports":[{"containerPort":80}],)"
    R"("resources":{"requests":{"cpu":"100m","memory":"500Mi"},"limits":{"cpu":"100m","memory":"500Mi"}}}]}})";

void BM_DecodePodBody(benchmark::State& state) {
  for (auto _ : state) {
    auto d = decode_body("application/json", kPod);
    benchmark::DoNotOptimize(d);
  }
}
BENCHMARK(BM_DecodePodBody);

void BM_WritePipelinePodCreate(benchmark::State& state) {
  Store store(16);
  const ResourceInfo& pods = *find_resource("", "v1", "pods");
  const json::object decoded = std::get<json::object>(decode_body("application/json", kPod));
  for (auto _ : state) {
    json::object obj = decoded;
    auto err = run_write_pipeline(WriteRequest{pods, WriteVerb::Create, "", "namespace-2"}, obj, store);
    benchmark::DoNotOptimize(err);
    benchmark::DoNotOptimize(obj);
  }
}
BENCHMARK(BM_WritePipelinePodCreate);

// The copy alone, to subtract from the pipeline's figure.
void BM_CopyDecodedPod(benchmark::State& state) {
  const json::object decoded = std::get<json::object>(decode_body("application/json", kPod));
  for (auto _ : state) {
    json::object obj = decoded;
    benchmark::DoNotOptimize(obj);
  }
}
BENCHMARK(BM_CopyDecodedPod);

}  // namespace

BENCHMARK_MAIN();
