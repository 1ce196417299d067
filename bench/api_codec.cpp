// Codec throughput on a 10,000-pod PodList (each pod ~1.5 KB, shaped like API server output:
// managedFields, owner references, affinity, tolerations, resources, status with conditions).
#include <benchmark/benchmark.h>

#include <string>
#include <utility>
#include <vector>

#include "api/types.h"

namespace {

std::string make_pod(int i) {
  const std::string n = std::to_string(i);
  const std::string rs = "web-" + std::to_string(i % 50) + "-7d4b9c8f6d";
  std::string p;
  p.reserve(2048);
  p += R"({"metadata":{"name":")" + rs + "-" + n + R"(","generateName":")" + rs + R"(-","namespace":"team-)" +
       std::to_string(i % 20) + R"(","uid":"1f0b3a4e-2c55-4c1e-9a4b-)" + std::to_string(100000000000 + i) +
       R"(","resourceVersion":")" + std::to_string(180000 + i) +
       R"(","creationTimestamp":"2024-05-10T08:15:30Z","labels":{"app":"web-)" + std::to_string(i % 50) +
       R"(","pod-template-hash":"7d4b9c8f6d","tier":"frontend"},"annotations":{"prometheus.io/scrape":"true"},)"
       R"("ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":")" + rs +
       R"(","uid":"9c7e1b2a-6d3f-4e8a-b5c4-3a2f1e0d9b87","controller":true,"blockOwnerDeletion":true}],)"
       R"("managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":"2024-05-10T08:15:30Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}}]},)"
       R"("spec":{"volumes":[{"name":"kube-api-access-x","projected":{"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}}],"defaultMode":420}}],)"
       R"("containers":[{"name":"web","image":"nginx:1.25","ports":[{"name":"http","containerPort":8080,"protocol":"TCP"}],)"
       R"("resources":{"limits":{"cpu":"1","memory":"512Mi"},"requests":{"cpu":")" + std::to_string(100 + i % 400) +
       R"(m","memory":"256Mi"}},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],)"
       R"("restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","serviceAccountName":"default","serviceAccount":"default",)"
       R"("nodeName":"node-)" + std::to_string(i % 500) +
       R"(","securityContext":{},"schedulerName":"default-scheduler",)"
       R"("affinity":{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":100,"podAffinityTerm":{"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname"}}]}},)"
       R"("tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],)"
       R"("priority":0,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"},)"
       R"("status":{"phase":"Running","conditions":[{"type":"Initialized","status":"True","lastProbeTime":null,"lastTransitionTime":"2024-05-10T08:15:30Z"},)"
       R"({"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":"2024-05-10T08:15:40Z"},)"
       R"({"type":"PodScheduled","status":"True","lastProbeTime":null,"lastTransitionTime":"2024-05-10T08:15:30Z"}],)"
       R"("hostIP":"10.0.1.15","podIP":"10.244.3.)" + std::to_string(i % 250) +
       R"(","startTime":"2024-05-10T08:15:30Z","qosClass":"Burstable"}})";
  return p;
}

const std::string& pod_list_json() {
  static const std::string json = [] {
    std::string s = R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"190000"},"items":[)";
    for (int i = 0; i < 10000; ++i) {
      if (i) s += ',';
      s += make_pod(i);
    }
    s += "]}";
    return s;
  }();
  return json;
}

void BM_DecodePodList(benchmark::State& state) {
  const std::string& json = pod_list_json();
  for (auto _ : state) {
    auto list = ksched::api::decode<ksched::api::List<ksched::api::Pod>>(json);
    if (!list.ok()) state.SkipWithError(list.error().c_str());
    benchmark::DoNotOptimize(list);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(json.size()));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * 10000);
}
BENCHMARK(BM_DecodePodList)->Unit(benchmark::kMillisecond);

void BM_EncodePodList(benchmark::State& state) {
  const std::string& json = pod_list_json();
  auto list = ksched::api::decode<ksched::api::List<ksched::api::Pod>>(json);
  if (!list.ok()) {
    state.SkipWithError(list.error().c_str());
    return;
  }
  std::size_t bytes = 0;
  std::string out;
  for (auto _ : state) {
    out.clear();
    ksched::api::encode_to(out, *list);
    bytes = out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(bytes));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * 10000);
}
BENCHMARK(BM_EncodePodList)->Unit(benchmark::kMillisecond);

void BM_DecodeOnePod(benchmark::State& state) {
  const std::string pod = make_pod(7);
  ksched::api::Pod p;
  for (auto _ : state) {
    auto r = ksched::api::decode_into(p, pod);
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(pod.size()));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_DecodeOnePod);

}  // namespace

// A label lookup on a node's labels, as Filter and Score plugins do per node: the topology key
// present, the hostname key present, and a key the node lacks.
void BM_NodeLabelFind(benchmark::State& state) {
  ksched::api::StringMap labels;
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"beta.kubernetes.io/arch", "amd64"},
           {"beta.kubernetes.io/os", "linux"},
           {"failure-domain.beta.kubernetes.io/zone", "moon-1"},
           {"kubernetes.io/arch", "amd64"},
           {"kubernetes.io/hostname", "scheduler-perf-node-01234"},
           {"kubernetes.io/os", "linux"},
           {"node.kubernetes.io/instance-type", "m5.large"},
           {"topology.kubernetes.io/region", "moon"},
           {"topology.kubernetes.io/zone", "moon-1"}}) {
    labels.set(k, v);
  }
  const std::string_view keys[] = {"topology.kubernetes.io/zone", "kubernetes.io/hostname", "disktype"};
  for (auto _ : state) {
    for (std::string_view k : keys) benchmark::DoNotOptimize(labels.find(k));
  }
  state.SetItemsProcessed(state.iterations() * 3);
}
BENCHMARK(BM_NodeLabelFind);

BENCHMARK_MAIN();
