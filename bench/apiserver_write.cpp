// The API server's write path without the network: parsing and decoding a pod body (JSON: field
// types, canonical quantities, unknown fields) and running the write pipeline (defaults,
// admission, validation) on it, as
// every pod create of the scheduler_perf workloads does; and the whole handler (routing, store,
// response) for a pod's create and its binding, as SchedulingBasic sends them. Reports time per pod.
#include <benchmark/benchmark.h>

#include <boost/json.hpp>
#include <string>

#include "apiserver/write/body_codec.h"
#include "apiserver/auth/auth.h"
#include "apiserver/endpoints/handlers.h"
#include "apiserver/resources.h"
#include "apiserver/storage/storage.h"
#include "apiserver/write/write_pipeline.h"

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

// The JSON parse alone, as Boost.JSON's own parser does it and as the server does it (the same
// parser plus a hash of every key, to find repeated keys).
void BM_ParsePodJsonPlain(benchmark::State& state) {
  for (auto _ : state) {
    auto v = json::parse(kPod);
    benchmark::DoNotOptimize(v);
  }
}
BENCHMARK(BM_ParsePodJsonPlain);

void BM_ParsePodJsonWithRepeatCheck(benchmark::State& state) {
  std::vector<DuplicateKey> dups;
  for (auto _ : state) {
    json::error_code ec;
    auto v = parse_json(kPod, ec, &dups);
    benchmark::DoNotOptimize(v);
  }
}
BENCHMARK(BM_ParsePodJsonWithRepeatCheck);

// The decode step alone (apiVersion/kind, field types, quantities, unknown fields) on a copy.
void BM_DecodeObjectPod(benchmark::State& state) {
  const ResourceInfo& pods = *find_resource("", "v1", "pods");
  const json::object decoded = std::get<json::object>(decode_body("application/json", kPod));
  std::vector<std::string> warnings;
  for (auto _ : state) {
    json::object obj = decoded;
    auto err = decode_object(DecodeRequest{pods, FieldValidation::Warn, nullptr, &warnings}, obj);
    benchmark::DoNotOptimize(err);
    benchmark::DoNotOptimize(obj);
  }
}
BENCHMARK(BM_DecodeObjectPod);

void BM_WritePipelinePodCreate(benchmark::State& state) {
  Store store(16);
  const ResourceInfo& pods = *find_resource("", "v1", "pods");
  const json::object decoded = std::get<json::object>(decode_body("application/json", kPod));
  for (auto _ : state) {
    json::object obj = decoded;
    auto err = decode_object(DecodeRequest{pods}, obj);
    if (!err) err = run_write_pipeline(WriteRequest{pods, WriteVerb::Create, "", "namespace-2"}, obj, store);
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

// One pod's create and binding through Api::handle (no HTTP, no TLS): the server's own work per
// scheduled pod. A fixed count per run keeps the store's size, and so its cost, the same per run.
void BM_HandlePodCreateAndBinding(benchmark::State& state) {
  Api api(1000);
  api.bootstrap();
  // As the scheduler binds and a user creates: authorized per request like over HTTP.
  UserInfo scheduler{"system:kube-scheduler", "", {"system:authenticated"}};
  Request create{"POST", "/api/v1/namespaces/default/pods", {}, "application/json", "application/json", {}, &admin_user()};
  Request bind{"POST", "", {}, "application/json", "application/json", {}, &scheduler};
  json::object pod = std::get<json::object>(decode_body("application/json", kPod));
  pod["metadata"].as_object()["namespace"] = "default";
  long i = 0;
  for (auto _ : state) {
    std::string name = "pod-" + std::to_string(i++);
    pod["metadata"].as_object()["name"] = name;
    create.body = json::serialize(pod);
    Response c = api.handle(create);
    bind.path = "/api/v1/namespaces/default/pods/" + name + "/binding";
    bind.body = R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":")" + name +
                R"("},"target":{"apiVersion":"v1","kind":"Node","name":"node-1"}})";
    Response b = api.handle(bind);
    if (c.status != 201 || b.status != 201) state.SkipWithError("create or binding failed");
  }
}
BENCHMARK(BM_HandlePodCreateAndBinding)->Iterations(20000)->Repetitions(5)->ReportAggregatesOnly(true);

}  // namespace

BENCHMARK_MAIN();
