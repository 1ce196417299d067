// Informer ingest: a recorded watch stream of typical pods fed from memory through the same path
// as the network (chunked bytes -> line splitting -> codec -> DeltaFIFO -> Indexer + handler), and
// the memory one cached pod costs compared with its JSON size.
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <sys/resource.h>

#include <boost/json.hpp>
#include <latch>
#include <fmt/format.h>

#include "api/codec.h"
#include "api/core.h"
#include "api/protobuf_codec.h"
#include "api/protobuf_json.h"
#include "client/watch.h"
#include "informer/list_watch.h"
#include "informer/shared_informer.h"

using namespace ksched;

namespace {

// Process CPU time (all threads), to report cost per event independent of how busy the shared
// machine is.
double process_cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

// The service-account token volume that admission adds to every pod is named
// kube-api-access-<5 random characters>, so it differs between replicas (and with it the
// container's volumeMounts): derive it from the pod's index.
std::string token_volume_suffix(int i) {
  static constexpr char kAlnum[] = "bcdfghjklmnpqrstvwxz2456789";  // the apiserver's alphabet
  std::string s(5, 'b');
  unsigned h = static_cast<unsigned>(i) * 2654435761u;
  for (auto& c : s) {
    c = kAlnum[h % 27];
    h /= 27;
  }
  return s;
}

// 64 hex digits derived from i (a container ID or image digest).
std::string hex64(unsigned i, unsigned salt) {
  std::string s;
  unsigned h = i * 2654435761u + salt;
  for (int k = 0; k < 64; ++k) {
    h = h * 1103515245u + 12345u;
    s.push_back("0123456789abcdef"[(h >> 16) & 15]);
  }
  return s;
}

// How much status the pod carries.
enum class PodStatusShape {
  Short,      // four conditions, one IP list, short IDs: the shape these figures were first quoted for
  Kubelet132, // as a v1.32 kubelet writes it: five conditions (PodReadyToStartContainers), hostIPs,
              // 64-hex container ID and image digest, and the container's volumeMounts in its status
};

// Rewrites the Short status into what a v1.32 kubelet reports for the same pod.
std::string kubelet_132_status(std::string pod, int i) {
  auto replace = [&pod](std::string_view from, const std::string& to) {
    auto at = pod.find(from);
    if (at == std::string::npos) throw std::logic_error("kubelet_132_status: no " + std::string(from));
    pod.replace(at, from.size(), to);
  };
  replace(R"("conditions":[)",
          R"("conditions":[{"type":"PodReadyToStartContainers","status":"True","lastProbeTime":null,"lastTransitionTime":"2025-01-15T10:04:06Z"},)");
  auto host_ip = pod.substr(pod.find(R"("hostIP":")") + 10);
  host_ip = host_ip.substr(0, host_ip.find('"'));
  replace(R"("podIP":)", R"("hostIPs":[{"ip":")" + host_ip + R"("}],"podIP":)");
  replace("@sha256:0123456789abcdef", "@sha256:" + hex64(0, 1));  // one image: one digest
  auto cid = pod.find("containerd://");
  pod.replace(cid + 13, pod.find('"', cid) - cid - 13, hex64(static_cast<unsigned>(i), 2));
  auto mount = pod.substr(pod.find(R"("volumeMounts":[)"));
  mount = mount.substr(0, mount.find(']') + 1);
  mount.insert(mount.size() - 2, R"(,"recursiveReadOnly":"Disabled")");
  replace(R"("started":true})", R"("started":true,)" + mount + "}");
  return pod;
}

// A typical scheduled, running pod (a Deployment replica) as the API server sends it.
std::string typical_pod(int i, int rv, bool managed_fields, PodStatusShape shape = PodStatusShape::Short) {
  std::string mf = managed_fields
                       ? R"(,"managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":"2025-01-15T10:04:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"5d1c2a3b-0000-4000-8000-000000000001\"}":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:ports":{},"f:resources":{}}}}}},{"manager":"kubelet","operation":"Update","apiVersion":"v1","time":"2025-01-15T10:04:07Z","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:conditions":{},"f:containerStatuses":{},"f:hostIP":{},"f:phase":{},"f:podIP":{},"f:startTime":{}}},"subresource":"status"}])"
                       : "";
  std::string pod = fmt::format(
      R"({{"kind":"Pod","apiVersion":"v1","metadata":{{"name":"web-7d9f8b6c5-{0:05d}","generateName":"web-7d9f8b6c5-","namespace":"team-{1}","uid":"8c1f{0:04x}-1234-4abc-9def-0123456789ab","resourceVersion":"{2}","creationTimestamp":"2025-01-15T10:04:05Z","labels":{{"app":"web","pod-template-hash":"7d9f8b6c5","tier":"frontend"}},"annotations":{{"kubernetes.io/psp":"restricted"}},"ownerReferences":[{{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7d9f8b6c5","uid":"5d1c2a3b-0000-4000-8000-000000000001","controller":true,"blockOwnerDeletion":true}}]{3}}},"spec":{{"volumes":[{{"name":"kube-api-access-{7}","projected":{{"sources":[{{"serviceAccountToken":{{"expirationSeconds":3607,"path":"token"}}}},{{"configMap":{{"name":"kube-root-ca.crt","items":[{{"key":"ca.crt","path":"ca.crt"}}]}}}}],"defaultMode":420}}}}],"containers":[{{"name":"web","image":"registry.example.com/team/web:1.4.2","ports":[{{"containerPort":8080,"protocol":"TCP"}}],"env":[{{"name":"MODE","value":"prod"}}],"resources":{{"limits":{{"cpu":"500m","memory":"512Mi"}},"requests":{{"cpu":"250m","memory":"256Mi"}}}},"volumeMounts":[{{"name":"kube-api-access-{7}","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}}],"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","serviceAccountName":"default","serviceAccount":"default","nodeName":"node-{4}","securityContext":{{}},"schedulerName":"default-scheduler","tolerations":[{{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}},{{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}}],"priority":0,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"}},"status":{{"phase":"Running","conditions":[{{"type":"Initialized","status":"True","lastProbeTime":null,"lastTransitionTime":"2025-01-15T10:04:05Z"}},{{"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":"2025-01-15T10:04:07Z"}},{{"type":"ContainersReady","status":"True","lastProbeTime":null,"lastTransitionTime":"2025-01-15T10:04:07Z"}},{{"type":"PodScheduled","status":"True","lastProbeTime":null,"lastTransitionTime":"2025-01-15T10:04:05Z"}}],"hostIP":"10.0.{5}.{6}","podIP":"10.244.{5}.{6}","podIPs":[{{"ip":"10.244.{5}.{6}"}}],"startTime":"2025-01-15T10:04:05Z","containerStatuses":[{{"name":"web","state":{{"running":{{"startedAt":"2025-01-15T10:04:06Z"}}}},"lastState":{{}},"ready":true,"restartCount":0,"image":"registry.example.com/team/web:1.4.2","imageID":"registry.example.com/team/web@sha256:0123456789abcdef","containerID":"containerd://abcdef{0:06x}","started":true}}],"qosClass":"Burstable"}}}})",
      i, i % 10, rv, mf, i % 500, (i / 250) % 256, i % 250 + 1, token_volume_suffix(i));
  return shape == PodStatusShape::Short ? pod : kubelet_132_status(std::move(pod), i);
}

// ADDED for n pods, then MODIFIED twice each and DELETED for a tenth: like a busy cluster.
std::vector<std::string> recorded_stream(int n, std::size_t& events, std::size_t& bytes) {
  std::string all;
  int rv = 1000;
  events = 0;
  auto emit = [&](const char* type, int i) {
    all += R"({"type":")";
    all += type;
    all += R"(","object":)";
    all += typical_pod(i, ++rv, true);
    all += "}\n";
    ++events;
  };
  for (int i = 0; i < n; ++i) emit("ADDED", i);
  for (int r = 0; r < 2; ++r)
    for (int i = 0; i < n; ++i) emit("MODIFIED", i);
  for (int i = 0; i < n; i += 10) emit("DELETED", i);
  bytes = all.size();
  // Chunks of 16 KiB, cutting lines at arbitrary points like TCP reads do.
  std::vector<std::string> chunks;
  for (std::size_t off = 0; off < all.size(); off += 16384) chunks.push_back(all.substr(off, 16384));
  return chunks;
}

informer::ListWatch no_list_watch() { return {}; }

void BM_InformerIngest(benchmark::State& state) {
  std::size_t events = 0, bytes = 0;
  // Shared, not copied per iteration: the copy would be measured as ingest work.
  auto chunks = std::make_shared<const std::vector<std::string>>(recorded_stream(static_cast<int>(state.range(0)), events, bytes));
  double cpu0 = process_cpu_seconds();
  for (auto _ : state) {
    informer::InformerOptions<api::Pod> o;
    o.reflector.decode.dropManagedFields = true;  // as the scheduler's pod informer does
    informer::SharedIndexInformer<api::Pod> inf(no_list_watch(), o);
    // Counted down once per delivery; waiting on it blocks instead of spinning next to the
    // handler thread (a spin would be measured as ingest CPU).
    std::latch handled(state.range(1) ? static_cast<std::ptrdiff_t>(events) : 0);
    auto h = std::make_shared<informer::ResourceEventHandlerFuncs<api::Pod>>();
    h->add = [&](const informer::Ptr<api::Pod>&, bool) { handled.count_down(); };
    h->update = [&](const informer::Ptr<api::Pod>&, const informer::Ptr<api::Pod>&) { handled.count_down(); };
    h->del = [&](const informer::Deleted<api::Pod>&) { handled.count_down(); };
    if (state.range(1)) inf.add_event_handler(h);
    client::WatchStream w(std::make_unique<client::MemoryResponseStream>(chunks));
    client::RawWatchEvent ev;
    auto pop_all = [&] {
      while (inf.fifo().size() > 0)
        (void)inf.fifo().pop([&](const std::string& k, const informer::Deltas<api::Pod>& d, bool initial) {
          inf.process(k, d, initial);
          return true;
        });
    };
    std::size_t n = 0;
    while (w.next(ev)) {
      if (auto r = inf.reflector().handle_event(ev); !r) state.SkipWithError(r.error().to_string().c_str());
      if (++n % 256 == 0) pop_all();  // the informer's process loop runs alongside the reflector
    }
    pop_all();
    handled.wait();  // the measured work includes delivery to the handler
    benchmark::DoNotOptimize(inf.lister().list().size());
    inf.stop();
  }
  double cpu = process_cpu_seconds() - cpu0;
  state.counters["cpu_us_per_event"] = cpu * 1e6 / double(state.iterations() * events);
  state.counters["events_per_cpu_second"] = double(state.iterations() * events) / cpu;
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * events));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
  state.counters["events/s"] = benchmark::Counter(double(events), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_InformerIngest)->Args({10000, 1})->Args({10000, 0})->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3);

// The real informer threads: reflector (read + decode + DeltaFIFO) and process loop (Indexer +
// listener) run concurrently, with a handler thread counting deliveries.
void BM_InformerPipeline(benchmark::State& state) {
  std::size_t events = 0, bytes = 0;
  // Shared, not copied per iteration: the copy would be measured as ingest work.
  auto chunks = std::make_shared<const std::vector<std::string>>(recorded_stream(static_cast<int>(state.range(0)), events, bytes));
  double cpu0 = process_cpu_seconds();
  for (auto _ : state) {
    std::atomic<int> watches{0};
    informer::ListWatch lw;
    lw.list = [](const client::ListOptions&) -> client::Result<std::string> {
      return std::string(R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1000"},"items":[]})");
    };
    lw.watch = [&](const client::ListOptions&) -> client::Result<std::unique_ptr<client::WatchStream>> {
      auto c = watches++ == 0 ? chunks : std::make_shared<const std::vector<std::string>>();
      return std::make_unique<client::WatchStream>(std::make_unique<client::MemoryResponseStream>(std::move(c)));
    };
    informer::InformerOptions<api::Pod> o;
    o.reflector.decode.dropManagedFields = true;  // as the scheduler's pod informer does
    informer::SharedIndexInformer<api::Pod> inf(std::move(lw), o);
    std::latch handled(static_cast<std::ptrdiff_t>(events));
    auto h = std::make_shared<informer::ResourceEventHandlerFuncs<api::Pod>>();
    h->add = [&](const informer::Ptr<api::Pod>&, bool) { handled.count_down(); };
    h->update = [&](const informer::Ptr<api::Pod>&, const informer::Ptr<api::Pod>&) { handled.count_down(); };
    h->del = [&](const informer::Deleted<api::Pod>&) { handled.count_down(); };
    inf.add_event_handler(h);
    inf.start();
    handled.wait();
    state.PauseTiming();
    inf.stop();
    state.ResumeTiming();
  }
  double cpu = process_cpu_seconds() - cpu0;
  state.counters["cpu_us_per_event"] = cpu * 1e6 / double(state.iterations() * events);
  state.counters["events_per_cpu_second"] = double(state.iterations() * events) / cpu;
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * events));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
  state.counters["events/s"] = benchmark::Counter(double(events), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_InformerPipeline)->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3);

// The codec alone on the same stream (the ceiling for ingest on one core), keeping or skipping
// managedFields.
void BM_DecodeOnly(benchmark::State& state) {
  std::size_t events = 0, bytes = 0;
  auto chunks = recorded_stream(static_cast<int>(state.range(0)), events, bytes);
  std::string all;
  for (auto& c : chunks) all += c;
  std::vector<std::string_view> objects;
  std::string scratch;
  std::size_t pos = 0;
  while (pos < all.size()) {
    auto nl = all.find('\n', pos);
    objects.push_back(informer::watch_event_object(std::string_view(all).substr(pos, nl - pos), scratch));
    pos = nl + 1;
  }
  api::DecodeOptions opts;
  opts.dropManagedFields = state.range(1) != 0;  // 1: as the scheduler's pod informer decodes
  for (auto _ : state) {
    for (auto o : objects) {
      auto p = api::decode<api::Pod>(o, opts);
      benchmark::DoNotOptimize(p);
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * events));
}
BENCHMARK(BM_DecodeOnly)->Args({10000, 0})->Args({10000, 1})->Unit(benchmark::kMillisecond);

// The same recorded stream as a protobuf watch stream (application/vnd.kubernetes.protobuf;
// stream=watch): each event a 4-byte length and a WatchEvent whose object is the pod's `k8s\0`
// body, as kube-apiserver writes them; 16 KiB chunks cutting frames at arbitrary points.
std::vector<std::string> recorded_protobuf_stream(int n, std::size_t& events, std::size_t& bytes) {
  auto json_chunks = recorded_stream(n, events, bytes);
  std::string all_json;
  for (auto& c : json_chunks) all_json += c;
  std::string all, scratch;
  const auto& pod_message = api::protobuf::schema::registry().message("Pod");
  for (std::size_t pos = 0; pos < all_json.size();) {
    auto nl = all_json.find('\n', pos);
    std::string_view line = std::string_view(all_json).substr(pos, nl - pos);
    pos = nl + 1;
    auto type = client::watch_event_type(line);
    auto raw = api::protobuf::encode_message(pod_message, informer::watch_event_object(line, scratch));
    if (!raw) throw std::logic_error("recorded_protobuf_stream: " + raw.error());
    std::size_t size = api::protobuf::watch_event_size(type, "v1", "Pod", raw->size());
    for (int shift : {24, 16, 8, 0}) all.push_back(static_cast<char>((size >> shift) & 0xff));
    api::protobuf::put_watch_event(all, type, "v1", "Pod", *raw);
  }
  bytes = all.size();
  std::vector<std::string> chunks;
  for (std::size_t off = 0; off < all.size(); off += 16384) chunks.push_back(all.substr(off, 16384));
  return chunks;
}

// Watch-event decode per pod, JSON (arg 0) vs protobuf (arg 1): the client's whole path from the
// chunked bytes to a typed Pod (framing or line splitting, the event's object, the typed decoder,
// managedFields dropped as the scheduler's pod informer does), without the informer behind it.
void BM_WatchEventDecode(benchmark::State& state) {
  const bool protobuf = state.range(1) != 0;
  std::size_t events = 0, bytes = 0;
  int n = static_cast<int>(state.range(0));
  auto chunks = std::make_shared<const std::vector<std::string>>(protobuf ? recorded_protobuf_stream(n, events, bytes)
                                                                          : recorded_stream(n, events, bytes));
  const std::string content_type = protobuf ? "application/vnd.kubernetes.protobuf;stream=watch" : "application/json";
  api::DecodeOptions opts;
  opts.dropManagedFields = true;
  std::string scratch;
  double cpu0 = process_cpu_seconds();
  for (auto _ : state) {
    client::WatchStream w(std::make_unique<client::MemoryResponseStream>(chunks, content_type));
    client::RawWatchEvent ev;
    std::size_t decoded = 0;
    while (w.next(ev)) {
      api::Pod pod;
      auto r = informer::ObjectCodec<api::Pod>::decode_into(pod, informer::watch_event_object(ev.json, scratch), opts);
      if (!r) {
        state.SkipWithError(r.error().c_str());
        return;
      }
      benchmark::DoNotOptimize(pod);
      ++decoded;
    }
    if (decoded != events) state.SkipWithError("not every event decoded");
  }
  double cpu = process_cpu_seconds() - cpu0;
  state.counters["cpu_us_per_event"] = cpu * 1e6 / double(state.iterations() * events);
  state.counters["bytes_per_event"] = double(bytes) / double(events);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * events));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_WatchEventDecode)->ArgNames({"pods", "protobuf"})->Args({10000, 0})->Args({10000, 1})->Unit(benchmark::kMillisecond);

// Heap bytes per cached pod (decoded, managedFields dropped, in an Indexer with the namespace
// index) versus the pod's JSON size with and without managedFields.
void BM_MemoryPerCachedPod(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const auto shape = static_cast<PodStatusShape>(state.range(1));
  std::vector<std::string> jsons;
  std::size_t json_bytes = 0, json_bytes_no_mf = 0;
  for (int i = 0; i < n; ++i) {
    jsons.push_back(typical_pod(i, 5000 + i, true, shape));
    json_bytes += jsons.back().size();
    json_bytes_no_mf += typical_pod(i, 5000 + i, false, shape).size();
  }
  double per_pod = 0, objects_per_pod = 0;
  for (auto _ : state) {
    malloc_trim(0);
    auto before = mallinfo2().uordblks;
    std::vector<informer::Ptr<api::Pod>> objs;
    objs.reserve(jsons.size());
    for (const auto& j : jsons) {
      auto p = api::decode<api::Pod>(j, api::DecodeOptions{.dropManagedFields = true});
      if (!p) {
        state.SkipWithError(p.error().c_str());
        return;
      }
      objs.push_back(std::make_shared<const api::Pod>(std::move(*p)));
    }
    auto decoded = mallinfo2().uordblks;
    auto idx = std::make_shared<informer::Indexer<api::Pod>>();
    for (const auto& o : objs) idx->add(o);
    auto after = mallinfo2().uordblks;
    // The vector of pointers is not part of the cache.
    objects_per_pod = (double(decoded - before) - double(objs.capacity() * sizeof(objs[0]))) / n;
    per_pod = objects_per_pod + double(after - decoded) / n;
    benchmark::DoNotOptimize(idx->size());
  }
  state.counters["object_bytes_per_pod"] = objects_per_pod;
  state.counters["store_index_bytes_per_pod"] = per_pod - objects_per_pod;
  state.counters["bytes_per_pod"] = per_pod;
  state.counters["json_bytes"] = double(json_bytes) / n;
  state.counters["json_bytes_no_managedFields"] = double(json_bytes_no_mf) / n;
  state.counters["sizeof_Pod"] = double(sizeof(api::Pod));
  // Where the fixed part goes (see src/api/README.md, memory layout).
  state.counters["sizeof_ObjectMeta"] = double(sizeof(api::ObjectMeta));
  state.counters["sizeof_PodSpec"] = double(sizeof(api::PodSpec));
  state.counters["sizeof_PodStatus"] = double(sizeof(api::PodStatus));
  state.counters["sizeof_Container"] = double(sizeof(api::Container));
  state.counters["sizeof_Volume"] = double(sizeof(api::Volume));
  state.counters["sizeof_PodCondition"] = double(sizeof(api::PodCondition));
  state.counters["sizeof_Toleration"] = double(sizeof(api::Toleration));
  state.counters["sizeof_Extra_Presence"] = double(sizeof(api::Extra) + sizeof(api::Presence));
}
BENCHMARK(BM_MemoryPerCachedPod)
    ->ArgNames({"pods", "kubelet132"})
    ->Args({10000, static_cast<int>(PodStatusShape::Short)})
    ->Args({10000, static_cast<int>(PodStatusShape::Kubelet132)})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
