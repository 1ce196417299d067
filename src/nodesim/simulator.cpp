#include "nodesim/simulator.h"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <queue>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "api/codec.h"
#include "api/helpers.h"
#include "client/resources_dra.h"
#include "informer/factory.h"
#include "util/log.h"
#include "util/thread.h"

namespace ksched::nodesim {

namespace json = boost::json;
using informer::Ptr;
using Clock = std::chrono::steady_clock;

namespace {

constexpr const char* kNodeIndex = "nodeName";
constexpr std::size_t kBatch = 64;

std::string rfc3339(std::chrono::system_clock::time_point t) { return api::format_rfc3339(api::to_time(t)); }
std::string rfc3339_micro(std::chrono::system_clock::time_point t) {
  return api::format_rfc3339(api::to_micro_time(t));
}

// A number of seconds as written after `sleep` ("5", "0.5", "2s"); nullopt when it is not one.
std::optional<std::chrono::milliseconds> parse_seconds(std::string_view s) {
  if (!s.empty() && s.back() == 's') s.remove_suffix(1);
  if (s.empty()) return std::nullopt;
  double v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || v < 0) return std::nullopt;
  return std::chrono::milliseconds(static_cast<std::int64_t>(v * 1000));
}

// The words of a container's command and args, shell scripts (`sh -c "..."`) split on spaces and
// the separators a script uses.
std::vector<std::string> words(const api::Container& c) {
  std::vector<std::string> out;
  auto split = [&](std::string_view s) {
    std::string w;
    for (char ch : s) {
      if (ch == ' ' || ch == '\t' || ch == '\n' || ch == ';' || ch == '&' || ch == '|' || ch == '(' || ch == ')') {
        if (!w.empty()) out.push_back(std::move(w));
        w.clear();
      } else {
        w += ch;
      }
    }
    if (!w.empty()) out.push_back(std::move(w));
  };
  for (const auto& s : c.command) split(s);
  for (const auto& s : c.args) split(s);
  return out;
}

}  // namespace

PodRun pod_run(const api::Pod& pod, std::chrono::milliseconds default_run_time) {
  PodRun r;
  bool found_sleep = false, never = false;
  std::chrono::milliseconds longest{0};
  std::optional<int> exit_code;
  for (const auto& c : pod.spec.containers) {
    auto w = words(c);
    for (std::size_t i = 0; i < w.size(); ++i) {
      std::string_view base = w[i];
      if (auto slash = base.rfind('/'); slash != std::string_view::npos) base = base.substr(slash + 1);
      if (base == "sleep" && i + 1 < w.size()) {
        if (w[i + 1] == "infinity") {
          never = true;
        } else if (auto s = parse_seconds(w[i + 1])) {
          found_sleep = true;
          longest = std::max(longest, *s);
        }
      } else if (base == "exit" && i + 1 < w.size()) {
        int code = 0;
        const auto& x = w[i + 1];
        if (std::from_chars(x.data(), x.data() + x.size(), code).ec == std::errc() && !exit_code) exit_code = code;
      } else if (i == 0 && base == "false" && !exit_code) {
        exit_code = 1;
      }
    }
  }
  if (never) r.run_time = std::nullopt;
  else r.run_time = found_sleep ? longest : default_run_time;
  r.exit_code = exit_code.value_or(0);
  if (auto v = pod.metadata.annotations.get(kRunSecondsAnnotation); !v.empty())
    if (auto s = parse_seconds(v)) r.run_time = *s;
  if (auto v = pod.metadata.annotations.get(kExitCodeAnnotation); !v.empty()) {
    int code = 0;
    if (std::from_chars(v.data(), v.data() + v.size(), code).ec == std::errc()) r.exit_code = code;
  }
  return r;
}

struct Simulator::Impl {
  std::shared_ptr<client::RestClient> c;
  Options opts;
  std::unique_ptr<informer::SharedInformerFactory> factory;
  std::shared_ptr<informer::SharedIndexInformer<api::Node>> nodes;
  std::shared_ptr<informer::SharedIndexInformer<api::Pod>> pods;
  std::shared_ptr<informer::SharedIndexInformer<api::resourcev1::ResourceSlice>> slices;
  std::shared_ptr<informer::SharedIndexInformer<api::resourcev1::ResourceClaim>> claims;

  // Work: keys "pod/<ns>/<name>", "node/<name>", "dra/<node>" and "claim/<ns>/<name>", each queued once.
  std::mutex qmu;
  std::condition_variable qcv;
  std::deque<std::string> queue;
  std::unordered_set<std::string> queued;
  std::atomic<bool> stopping{false};  // read by every loop; set under qmu and tmu
  bool started = false;

  // Timers: when a run ends, when a failed write is retried.
  std::mutex tmu;
  std::condition_variable tcv;  // the timer thread's alone: a notify_one must reach it
  std::condition_variable scv;  // the lease and heartbeat loops' periodic waits
  using Timer = std::pair<Clock::time_point, std::string>;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers;

  // Per pod: its run (by UID: a pod re-created under the same name starts over).
  struct Run {
    std::string uid;
    std::optional<Clock::time_point> ends;
    int exit_code = 0;
    std::int32_t restarts = 0;
  };
  std::mutex rmu;
  std::unordered_map<std::string, Run> runs;

  // Per node: its pod IP range and its lease.
  struct NodeState {
    std::string prefix;  // "10.0.3."
    unsigned next = 2;
    bool lease = false;  // known to exist
    Clock::time_point heartbeat{};
  };
  std::mutex nmu;
  std::unordered_map<std::string, NodeState> node_state;
  unsigned next_node_index = 0;

  // DRA: the claims prepared for each started pod (by pod key), as the kubelet's claim info cache.
  std::mutex dmu;
  std::unordered_map<std::string, std::vector<std::string>> prepared;
  // The pool generation each (node, driver) last wrote, and when: until the slice informer shows
  // every slice at it, the cache lags our own writes and must not be taken for someone's change
  // (that would republish again, one generation per event, as the slices' updates arrive one by one).
  struct Published {
    std::int64_t generation = 0;
    Clock::time_point at;
  };
  std::unordered_map<std::string, Published> published;
  // Simulated attach failures (attachFailures): attaches tried per "<node>/<driver>", and each
  // allocation's outcome per claim uid (see attach_fails).
  std::mutex attach_mu;
  std::unordered_map<std::string, int> attaches_tried;
  std::unordered_map<std::string, std::unordered_map<std::string, bool>> attach_outcomes;
  static constexpr auto kPublishLag = std::chrono::seconds(5);  // then the cache is trusted again

  std::vector<std::thread> threads;
  std::atomic<std::uint64_t> started_pods{0}, succeeded{0}, failed{0}, restarts{0}, deleted{0}, heartbeats{0},
      labelled{0}, leases{0}, slices_published{0}, slices_deleted{0}, claims_prepared{0}, binding_conditions_set{0},
      attach_failures_set{0}, requests{0}, batches{0}, errors{0};

  bool ours(std::string_view node) const { return !node.empty() && nodes->lister().get(std::string(node)) != nullptr; }

  void enqueue(std::string key) {
    std::lock_guard l(qmu);
    if (stopping || !queued.insert(key).second) return;
    queue.push_back(std::move(key));
    qcv.notify_one();
  }
  void enqueue_at(Clock::time_point t, std::string key) {
    std::lock_guard l(tmu);
    timers.emplace(t, std::move(key));
    tcv.notify_one();
  }
  void enqueue_pod(const api::Pod& p) {
    if (!ours(p.spec.nodeName)) return;
    if (!p.metadata.deletionTimestamp && api::pod_is_terminal(p)) return;
    enqueue("pod/" + api::key_of(p));
  }

  // ---------------------------------------------------------------- nodes
  std::string pod_ip(const api::Node& n) {
    std::lock_guard l(nmu);
    auto& st = node_state[std::string(n.metadata.name)];
    if (st.prefix.empty()) {
      const auto& cidr = n.spec.podCIDR;
      auto slash = cidr.find('/');
      auto last_dot = cidr.rfind('.', slash);
      if (!cidr.empty() && slash != std::string::npos && last_dot != std::string::npos) {
        st.prefix = cidr.substr(0, last_dot + 1);
      } else {
        unsigned i = next_node_index++;
        st.prefix = fmt::format("{}{}.{}.", opts.pod_cidr_prefix, (i >> 8) & 0xff, i & 0xff);
      }
    }
    unsigned host = st.next;
    st.next = st.next >= 254 ? 2 : st.next + 1;
    return st.prefix + std::to_string(host);
  }

  static std::string host_ip(const api::Node& n) {
    for (const auto& a : n.status.addresses)
      if (a.type == "InternalIP") return a.address;
    std::size_t h = std::hash<std::string>{}(std::string(n.metadata.name));
    return fmt::format("192.168.{}.{}", (h >> 8) % 256, h % 254 + 1);
  }

  static bool is_ready(const api::Node& n) {
    for (const auto& cond : n.status.conditions)
      if (cond.type == "Ready") return cond.status == "True";
    return false;
  }

  // The number a node's name ends with ("node-17" -> 17), else a hash of it: its zone's index.
  static std::size_t node_number(std::string_view name) {
    std::size_t i = name.size();
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') --i;
    std::size_t v = 0;
    if (i < name.size() && std::from_chars(name.data() + i, name.data() + name.size(), v).ec == std::errc()) return v;
    return std::hash<std::string_view>{}(name);
  }

  // The labels the kubelet would set that the node lacks.
  json::object missing_labels(const api::Node& n) const {
    json::object out;
    auto want = [&](std::string_view k, std::string_view v) {
      if (!v.empty() && !n.metadata.labels.contains(k)) out[k] = v;
    };
    auto info = [&](std::string_view field, std::string_view def) -> std::string {
      for (auto [k, raw] : n.status.extra.fields) {
        if (k != "nodeInfo") continue;
        json::error_code ec;
        auto v = json::parse(raw, ec);
        if (!ec && v.is_object())
          if (auto* f = v.get_object().if_contains(field); f && f->is_string() && !f->get_string().empty())
            return std::string(f->get_string());
      }
      return std::string(def);
    };
    want("kubernetes.io/hostname", n.metadata.name);
    want("kubernetes.io/os", info("operatingSystem", "linux"));
    want("kubernetes.io/arch", info("architecture", "amd64"));
    if (!opts.zones.empty())
      want("topology.kubernetes.io/zone", opts.zones[node_number(n.metadata.name) % opts.zones.size()]);
    want("topology.kubernetes.io/region", opts.region);
    return out;
  }

  // ---------------------------------------------------------------- requests
  struct Pending {
    client::HttpRequest req;
    std::function<void(int status)> done;  // called with the HTTP status (0: transport failure)
  };

  static client::HttpRequest request(std::string method, const client::ResourceRef& ref, std::string body,
                                     std::string content_type) {
    client::HttpRequest r;
    r.method = std::move(method);
    r.target = ref.path();
    r.body = std::move(body);
    r.content_type = std::move(content_type);
    return r;
  }

  static client::ResourceRef pod_ref(const api::Pod& p, std::string_view sub = {}) {
    return client::ResourceRef::of(client::ResourceFor<api::Pod>::info, p.metadata.namespace_, p.metadata.name, sub);
  }

  void retry_later(const std::string& key) { enqueue_at(Clock::now() + std::chrono::seconds(1), key); }

  // The status of a pod that runs its containers from `started_at`, restarted `restarts` times.
  json::object running_status(const api::Pod& p, const api::Node& n, const std::string& now, const std::string& started_at,
                              std::int32_t restart_count, const json::object* last_state) {
    json::array conds;
    for (const char* t : {"PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"})
      conds.push_back(json::object{{"type", t}, {"status", "True"}, {"lastProbeTime", nullptr}, {"lastTransitionTime", now}});
    json::array cs;
    for (const auto& ct : p.spec.containers) {
      json::object s{{"name", std::string_view(ct.name)},
                     {"image", std::string_view(ct.image)},
                     {"imageID", ""},
                     {"containerID", fmt::format("containerd://{:016x}",
                                                 std::hash<std::string>{}(std::string(p.metadata.uid) + std::string(ct.name) +
                                                                          std::to_string(restart_count)))},
                     {"ready", true},
                     {"started", true},
                     {"restartCount", restart_count},
                     {"state", json::object{{"running", json::object{{"startedAt", started_at}}}}}};
      if (last_state) s["lastState"] = *last_state;
      cs.push_back(std::move(s));
    }
    json::object status{{"phase", "Running"}, {"conditions", std::move(conds)}, {"containerStatuses", std::move(cs)}};
    if (p.status.podIP.empty()) {
      auto ip = pod_ip(n);
      auto hip = host_ip(n);
      status["hostIP"] = hip;
      status["hostIPs"] = json::array{json::object{{"ip", hip}}};
      status["podIP"] = ip;
      status["podIPs"] = json::array{json::object{{"ip", ip}}};
      status["startTime"] = now;
    }
    if (p.status.qosClass.empty()) status["qosClass"] = "BestEffort";
    return status;
  }

  // The status of a pod whose containers ended with `exit_code`.
  static json::object finished_status(const api::Pod& p, const std::string& now, const std::string& started_at,
                                      int exit_code, std::int32_t restart_count) {
    bool ok = exit_code == 0;
    std::string_view reason = ok ? "PodCompleted" : "PodFailed";
    json::array conds;
    conds.push_back(json::object{{"type", "PodReadyToStartContainers"}, {"status", "False"}, {"lastProbeTime", nullptr},
                                 {"lastTransitionTime", now}});
    conds.push_back(json::object{{"type", "Initialized"}, {"status", "True"}, {"lastProbeTime", nullptr},
                                 {"lastTransitionTime", now}, {"reason", reason}});
    for (const char* t : {"Ready", "ContainersReady"})
      conds.push_back(json::object{{"type", t}, {"status", "False"}, {"lastProbeTime", nullptr},
                                   {"lastTransitionTime", now}, {"reason", reason}});
    conds.push_back(json::object{{"type", "PodScheduled"}, {"status", "True"}, {"lastProbeTime", nullptr},
                                 {"lastTransitionTime", now}});
    json::array cs;
    for (const auto& ct : p.spec.containers) {
      std::string id = fmt::format("containerd://{:016x}", std::hash<std::string>{}(std::string(p.metadata.uid) +
                                                                                    std::string(ct.name) +
                                                                                    std::to_string(restart_count)));
      cs.push_back(json::object{
          {"name", std::string_view(ct.name)},
          {"image", std::string_view(ct.image)},
          {"imageID", ""},
          {"containerID", id},
          {"ready", false},
          {"started", false},
          {"restartCount", restart_count},
          {"state", json::object{{"terminated", json::object{{"exitCode", exit_code},
                                                              {"reason", ok ? "Completed" : "Error"},
                                                              {"startedAt", started_at},
                                                              {"finishedAt", now},
                                                              {"containerID", id}}}}}});
    }
    return json::object{{"phase", ok ? "Succeeded" : "Failed"}, {"conditions", std::move(conds)},
                        {"containerStatuses", std::move(cs)}};
  }

  static std::string status_patch(json::object status) {
    return json::serialize(json::object{{"status", std::move(status)}});
  }

  // ---------------------------------------------------------------- DRA drivers
  // The drivers a node runs: its annotation's, else the simulator's.
  std::vector<DraDriverSpec> drivers_of(const api::Node& n) const {
    if (const std::string* a = n.metadata.annotations.find(kDraDevicesAnnotation)) {
      auto parsed = parse_dra_devices(*a);
      if (parsed) return std::move(*parsed);
      log::warning("Node's DRA devices annotation does not parse; using the simulator's drivers",
                   {{"node", std::string_view(n.metadata.name)}, {"err", parsed.error()}});
    }
    return opts.dra_drivers;
  }

  // NodePrepareResources, simulated: every claim of the pod exists, is allocated, is reserved for
  // the pod, and its devices' drivers run on the node. Records the claims prepared.
  bool prepare_claims(const api::Pod& p, const api::Node& n, const std::string& key) {
    if (p.spec.resourceClaims.empty()) return true;
    std::vector<DraDriverSpec> drivers = drivers_of(n);
    std::vector<std::string> uids;
    std::string ns(p.metadata.namespace_);
    for (const auto& pc : p.spec.resourceClaims) {
      std::optional<std::string> name = pc.resourceClaimName;
      if (!name && pc.resourceClaimTemplateName) {
        if (!p.status.resourceClaimStatuses) return false;  // not made yet
        bool found = false;
        for (const auto& st : *p.status.resourceClaimStatuses)
          if (st.name == pc.name) {
            found = true;
            name = st.resourceClaimName;
          }
        if (!found) return false;
        if (!name) continue;  // no claim needed
      }
      if (!name) return false;
      auto claim = claims->lister().get(ns, *name);
      if (!claim || !claim->status.allocation) return false;
      // Reserved for the pod, or for its PodGroup (a claim the group shares: DRAWorkloadResourceClaims,
      // which the kubelet accepts for the group's members).
      const auto& group = p.spec.schedulingGroup;
      bool reserved = false;
      for (const auto& r : claim->status.reservedFor)
        reserved = reserved || r.uid == p.metadata.uid ||
                   (r.apiGroup == "scheduling.k8s.io" && r.resource == "podgroups" && group && group->podGroupName &&
                    r.name == *group->podGroupName);
      if (!reserved) return false;
      for (const auto& r : claim->status.allocation->devices.results) {
        bool known = false;
        for (const auto& d : drivers) known = known || d.driver == r.driver;
        if (!known) return false;  // "DRA driver ... is not registered"
      }
      uids.emplace_back(claim->metadata.uid);
    }
    std::lock_guard l(dmu);
    auto& mine = prepared[key];
    if (mine != uids) {
      claims_prepared += uids.size();
      mine = std::move(uids);
    }
    return true;
  }

  // Binding conditions (DRADeviceBindingConditions): the devices of a claim's allocation that one
  // of our drivers published with its binding condition and whose attach has no outcome yet in
  // status.devices (neither the condition nor its failure condition True). A real driver's
  // controller attaches such a device and then sets the condition; here the attach happens at
  // once and succeeds, or fails (attachFailures) and sets the failure condition instead. Returns
  // the claim with those outcomes set, or nothing; `failed` counts the failed attaches in it.
  std::optional<api::resourcev1::ResourceClaim> with_attach_outcomes(const api::resourcev1::ResourceClaim& c,
                                                                     int* failed = nullptr) {
    namespace rv1 = api::resourcev1;
    if (!c.status.allocation || c.metadata.deletionTimestamp) return std::nullopt;
    std::optional<rv1::ResourceClaim> out;
    for (const auto& r : c.status.allocation->devices.results) {
      if (r.bindingConditions.empty()) continue;
      auto n = nodes->lister().get(std::string(r.pool));  // a simulated pool is named after its node
      if (!n) continue;
      std::string condition;
      int attach_failures = 0;
      for (const auto& d : drivers_of(*n))
        if (d.driver == r.driver && !d.binding_condition.empty()) {
          condition = d.binding_condition;
          attach_failures = d.attach_failures;
        }
      if (condition.empty() || std::find(r.bindingConditions.begin(), r.bindingConditions.end(), condition) == r.bindingConditions.end())
        continue;
      const std::string failure = binding_failure_condition(condition);
      const rv1::ResourceClaim& cur = out ? *out : c;
      auto same_device = [&](const rv1::AllocatedDeviceStatus& s) {
        return s.driver == r.driver && s.pool == r.pool && s.device == r.device && s.shareID == r.shareID;
      };
      auto st = std::find_if(cur.status.devices.begin(), cur.status.devices.end(), same_device);
      if (st != cur.status.devices.end() &&
          std::any_of(st->conditions.begin(), st->conditions.end(), [&](const api::Condition& k) {
            return (k.type == condition || k.type == failure) && k.status == "True";
          }))
        continue;
      const bool fails = attach_fails(c, r, attach_failures);
      if (!out) out = c;
      auto it = std::find_if(out->status.devices.begin(), out->status.devices.end(), same_device);
      if (it == out->status.devices.end()) {
        rv1::AllocatedDeviceStatus fresh;
        fresh.driver = r.driver;
        fresh.pool = r.pool;
        fresh.device = r.device;
        fresh.shareID = r.shareID;
        out->status.devices.push_back(std::move(fresh));
        it = std::prev(out->status.devices.end());
      }
      api::Condition met;
      met.type = fails ? failure : condition;
      met.status = "True";
      met.observedGeneration = c.metadata.generation;
      met.lastTransitionTime = api::Time{std::chrono::duration_cast<std::chrono::nanoseconds>(
                                             std::chrono::system_clock::now().time_since_epoch())
                                             .count() /
                                         1'000'000'000 * 1'000'000'000};
      met.reason = fails ? "DeviceAttachFailed" : "DeviceAttached";
      met.message = fails ? "the simulated driver failed to attach the device (attachFailures)"
                          : "the simulated driver attached the device";
      if (fails && failed) ++*failed;
      auto k = std::find_if(it->conditions.begin(), it->conditions.end(), [&](const api::Condition& x) { return x.type == met.type; });
      if (k == it->conditions.end()) it->conditions.push_back(std::move(met));
      else *k = std::move(met);
    }
    return out;
  }

  // Whether the attach of result `r` of claim `c`'s allocation fails: the first `failures`
  // attaches of a driver on a node do. Decided once per allocation (the claim's uid, the device
  // and the allocation's timestamp: a claim allocated again is attached again) and remembered,
  // so that an event seen twice or a write retried after a conflict gets the same outcome.
  bool attach_fails(const api::resourcev1::ResourceClaim& c, const api::resourcev1::DeviceRequestAllocationResult& r,
                    int failures) {
    if (failures <= 0) return false;
    const std::int64_t at = c.status.allocation->allocationTimestamp ? c.status.allocation->allocationTimestamp->unixNanos : 0;
    std::string attempt = fmt::format("{}/{}/{}/{}/{}", r.driver.view(), r.pool.view(), r.device.view(),
                                      r.shareID ? std::string_view(*r.shareID) : std::string_view(), at);
    std::lock_guard l(attach_mu);
    auto& outcomes = attach_outcomes[std::string(c.metadata.uid)];
    if (auto it = outcomes.find(attempt); it != outcomes.end()) return it->second;
    const int tried = ++attaches_tried[std::string(r.pool.view()) + "/" + std::string(r.driver.view())];
    return outcomes[attempt] = tried <= failures;
  }

  // The status write that meets a claim's binding conditions (a PUT with the claim's
  // resourceVersion: a conflict is retried on the claim's next event).
  std::optional<Pending> claim_work(const std::string& key) {
    namespace rv1 = api::resourcev1;
    auto slash = key.find('/');
    if (slash == std::string::npos) return std::nullopt;
    auto c = claims->lister().get(key.substr(0, slash), key.substr(slash + 1));
    if (!c) return std::nullopt;
    int failed = 0;
    auto updated = with_attach_outcomes(*c, &failed);
    if (!updated) return std::nullopt;
    auto ref = client::ResourceRef::of(client::ResourceFor<rv1::ResourceClaim>::info, std::string(c->metadata.namespace_),
                                       std::string(c->metadata.name), "status");
    return Pending{request("PUT", ref, api::encode(*updated), "application/json"), [this, failed](int status) {
                     if (status < 200 || status >= 300) return;
                     if (failed > 0) attach_failures_set += static_cast<std::uint64_t>(failed);
                     else ++binding_conditions_set;
                   }};
  }

  // What the node's drivers must write so that its slices are what they publish.
  std::vector<Pending> dra_work(const std::string& node) {
    std::vector<Pending> out;
    auto n = nodes->lister().get(node);
    if (!n) return out;
    if (!slices->has_synced()) {  // what is published already is not known yet
      enqueue_at(Clock::now() + std::chrono::milliseconds(100), "dra/" + node);
      return out;
    }
    namespace rv1 = api::resourcev1;
    std::map<std::string, std::vector<Ptr<rv1::ResourceSlice>>, std::less<>> existing;  // by driver
    for (auto& sl : slices->indexer().by_index(kNodeIndex, node)) existing[std::string(sl->spec.driver)].push_back(sl);
    auto slice_ref = [](std::string_view name) {
      return client::ResourceRef::of(client::ResourceFor<rv1::ResourceSlice>::info, "", name);
    };
    auto counted = [this](std::atomic<std::uint64_t>& counter) {
      return [this, &counter](int status) {
        if (status >= 200 && status < 300) ++counter;
      };
    };
    auto remove = [&](const rv1::ResourceSlice& sl) {
      out.push_back(Pending{request("DELETE", slice_ref(sl.metadata.name), "", "application/json"), counted(slices_deleted)});
    };
    for (const auto& d : drivers_of(*n)) {
      auto& have = existing[d.driver];
      std::vector<rv1::ResourceSlice> want = dra_slices(d, node, n->metadata.uid, 0);
      const std::string pub_key = node + "/" + d.driver;
      {
        std::lock_guard l(dmu);
        if (auto p = published.find(pub_key); p != published.end() && Clock::now() - p->second.at < kPublishLag) {
          const bool behind = have.size() < want.size() ||
                              std::any_of(have.begin(), have.end(), [&](const auto& h) {
                                return h->spec.pool.generation < p->second.generation;
                              });
          if (behind) {  // our last write is not all in the cache yet: look again shortly
            enqueue_at(Clock::now() + std::chrono::milliseconds(100), "dra/" + node);
            existing.erase(d.driver);
            continue;
          }
        }
      }
      // Published as it is when every slice is there, at one generation, with the same content.
      std::int64_t generation = 0;
      for (const auto& h : have) generation = std::max(generation, h->spec.pool.generation);
      bool same = have.size() == want.size();
      for (std::size_t i = 0; same && i < want.size(); ++i) {
        auto it = std::find_if(have.begin(), have.end(), [&](const auto& h) { return h->metadata.name == want[i].metadata.name; });
        if (it == have.end() || (*it)->spec.pool.generation != generation) {
          same = false;
          break;
        }
        rv1::ResourceSliceSpec a = want[i].spec, b = (*it)->spec;
        // Compared at the published generation: a decoded 0 and an unset one encode differently.
        a.pool.generation = b.pool.generation;
        same = api::encode(a) == api::encode(b);
      }
      if (!same) {
        ++generation;
        {
          std::lock_guard l(dmu);
          published[pub_key] = Published{generation, Clock::now()};
        }
        for (auto& w : want) {
          w.spec.pool.generation = generation;
          auto it = std::find_if(have.begin(), have.end(), [&](const auto& h) { return h->metadata.name == w.metadata.name; });
          if (it == have.end()) {
            out.push_back(Pending{request("POST", slice_ref(""), api::encode(w), "application/json"), counted(slices_published)});
          } else {
            w.metadata.resourceVersion = (*it)->metadata.resourceVersion;
            out.push_back(Pending{request("PUT", slice_ref(w.metadata.name), api::encode(w), "application/json"),
                                  counted(slices_published)});
          }
        }
        for (const auto& h : have)
          if (std::none_of(want.begin(), want.end(), [&](const auto& w) { return w.metadata.name == h->metadata.name; }))
            remove(*h);
      }
      existing.erase(d.driver);
    }
    for (const auto& [driver, have] : existing)  // drivers the node no longer runs
      for (const auto& h : have) remove(*h);
    return out;
  }

  // What one pod needs now, as a request (none when it needs nothing).
  std::optional<Pending> pod_work(const std::string& key) {
    auto p = pods->lister().get(key);
    if (!p || !ours(p->spec.nodeName)) return std::nullopt;
    auto n = nodes->lister().get(std::string(p->spec.nodeName));
    if (!n) return std::nullopt;
    const std::string uid(p->metadata.uid);
    if (p->metadata.deletionTimestamp) {
      // The kubelet stops the containers and deletes the pod for good (grace 0, this pod only).
      client::DeleteOptions d;
      d.gracePeriodSeconds = 0;
      d.preconditionUID = uid;
      return Pending{request("DELETE", pod_ref(*p), d.body(), "application/json"), [this, key, uid](int status) {
                       if (status >= 200 && status < 300) ++deleted;
                       {
                         std::lock_guard l(dmu);
                         prepared.erase(key);  // NodeUnprepareResources
                       }
                       std::lock_guard l(rmu);
                       if (auto it = runs.find(key); it != runs.end() && it->second.uid == uid) runs.erase(it);
                     }};
    }
    if (api::pod_is_terminal(*p)) return std::nullopt;
    auto wall = std::chrono::system_clock::now();
    std::string now = rfc3339(wall);
    const bool may_end = p->spec.restartPolicy != "Always" && !p->spec.restartPolicy.empty();
    if (p->status.phase != "Running") {
      // Containers start once the pod's claims are prepared; a claim's change brings it back.
      if (!prepare_claims(*p, *n, key)) return std::nullopt;
      PodRun pr = pod_run(*p, opts.default_run_time);
      Run run{uid, std::nullopt, pr.exit_code, 0};
      if (may_end && pr.run_time) run.ends = Clock::now() + *pr.run_time;
      {
        std::lock_guard l(rmu);
        runs[key] = run;
      }
      if (run.ends) enqueue_at(*run.ends, "pod/" + key);
      return Pending{request("PATCH", pod_ref(*p, "status"), status_patch(running_status(*p, *n, now, now, 0, nullptr)),
                             std::string(client::content_type(client::PatchType::Merge))),
                     [this](int status) {
                       if (status >= 200 && status < 300) ++started_pods;
                     }};
    }
    // Running: has its run ended?
    Run run;
    {
      std::lock_guard l(rmu);
      auto it = runs.find(key);
      if (it == runs.end() || it->second.uid != uid) {
        // Running before this simulator saw it (a restart): its run counts from its start.
        PodRun pr = pod_run(*p, opts.default_run_time);
        Run fresh{uid, std::nullopt, pr.exit_code, 0};
        if (!p->status.containerStatuses.empty()) fresh.restarts = p->status.containerStatuses[0].restartCount;
        if (may_end && pr.run_time) {
          auto started = p->status.startTime ? api::to_time_point(*p->status.startTime) : wall;
          fresh.ends = Clock::now() + std::max<std::chrono::milliseconds>(
                                          std::chrono::milliseconds(0),
                                          *pr.run_time - std::chrono::duration_cast<std::chrono::milliseconds>(wall - started));
        }
        it = runs.insert_or_assign(key, fresh).first;
        if (fresh.ends) enqueue_at(*fresh.ends, "pod/" + key);
      }
      run = it->second;
    }
    if (!run.ends || Clock::now() < *run.ends) return std::nullopt;
    std::string started_at = now;
    if (!p->status.containerStatuses.empty() && p->status.containerStatuses[0].state.running &&
        p->status.containerStatuses[0].state.running->startedAt)
      started_at = api::format_rfc3339(*p->status.containerStatuses[0].state.running->startedAt);
    if (run.exit_code != 0 && p->spec.restartPolicy == "OnFailure") {
      // The container failed and is restarted in place; the pod keeps running.
      json::object last{{"terminated", json::object{{"exitCode", run.exit_code},
                                                    {"reason", "Error"},
                                                    {"startedAt", started_at},
                                                    {"finishedAt", now}}}};
      PodRun pr = pod_run(*p, opts.default_run_time);
      {
        std::lock_guard l(rmu);
        auto& r = runs[key];
        ++r.restarts;
        r.ends = pr.run_time ? std::optional<Clock::time_point>(Clock::now() + *pr.run_time) : std::nullopt;
        run = r;
      }
      if (run.ends) enqueue_at(*run.ends, "pod/" + key);
      return Pending{request("PATCH", pod_ref(*p, "status"),
                             status_patch(running_status(*p, *n, now, now, run.restarts, &last)),
                             std::string(client::content_type(client::PatchType::Merge))),
                     [this](int status) {
                       if (status >= 200 && status < 300) ++restarts;
                     }};
    }
    int code = run.exit_code;
    return Pending{request("PATCH", pod_ref(*p, "status"),
                           status_patch(finished_status(*p, now, started_at, code, run.restarts)),
                           std::string(client::content_type(client::PatchType::Merge))),
                   [this, code](int status) {
                     if (status >= 200 && status < 300) ++(code == 0 ? succeeded : failed);
                   }};
  }

  std::vector<Pending> node_work(const std::string& name) {
    std::vector<Pending> out;
    auto n = nodes->lister().get(name);
    if (!n) return out;
    auto ref = client::ResourceRef::of(client::ResourceFor<api::Node>::info, "", name);
    if (auto labels = missing_labels(*n); !labels.empty()) {
      out.push_back(Pending{request("PATCH", ref,
                                    json::serialize(json::object{{"metadata", json::object{{"labels", std::move(labels)}}}}),
                                    std::string(client::content_type(client::PatchType::Merge))),
                            [this](int status) {
                              if (status >= 200 && status < 300) ++labelled;
                            }});
    }
    bool due = false;
    {
      std::lock_guard l(nmu);
      auto& st = node_state[name];
      // A node first seen Ready was just reported by someone: its next report is a period away.
      if (st.heartbeat == Clock::time_point{} && is_ready(*n)) st.heartbeat = Clock::now();
      due = !is_ready(*n) || Clock::now() - st.heartbeat >= opts.heartbeat_period;
      if (due) st.heartbeat = Clock::now();
    }
    if (due) {
      std::string now = rfc3339(std::chrono::system_clock::now());
      bool keep_transition = false;
      for (const auto& cond : n->status.conditions)
        if (cond.type == "Ready" && cond.status == "True" && cond.lastTransitionTime) keep_transition = true;
      json::object ready{{"type", "Ready"},
                         {"status", "True"},
                         {"lastHeartbeatTime", now},
                         {"reason", "KubeletReady"},
                         {"message", "kubelet is posting ready status"}};
      if (!keep_transition) ready["lastTransitionTime"] = now;
      // Strategic merge keeps the other conditions (merged by type).
      auto body = json::serialize(json::object{{"status", json::object{{"conditions", json::array{ready}}}}});
      auto sref = client::ResourceRef::of(client::ResourceFor<api::Node>::info, "", name, "status");
      out.push_back(Pending{request("PATCH", sref, std::move(body),
                                    std::string(client::content_type(client::PatchType::StrategicMerge))),
                            [this](int status) {
                              if (status >= 200 && status < 300) ++heartbeats;
                            }});
    }
    return out;
  }

  // Sends the requests pipelined; each answer goes to its callback, failures retry later.
  void send(std::vector<Pending>& work, const std::vector<std::string>& keys) {
    if (work.empty()) return;
    std::vector<client::HttpRequest> reqs;
    reqs.reserve(work.size());
    for (auto& w : work) reqs.push_back(std::move(w.req));
    requests += reqs.size();
    batches += (reqs.size() + kBatch - 1) / kBatch;
    auto answers = c->transport().round_trip_all(reqs);
    for (std::size_t i = 0; i < answers.size(); ++i) {
      int status = answers[i] ? answers[i]->status : 0;
      if (work[i].done) work[i].done(status);
      bool ok = (status >= 200 && status < 300) || status == 404;
      if (!ok && !(status == 409 && reqs[i].method == "DELETE")) {
        ++errors;
        if (!keys[i].empty()) retry_later(keys[i]);
        log::V(2).info("Node simulator request failed",
                       {{"target", reqs[i].target}, {"status", status}, {"body", answers[i] ? answers[i]->body : answers[i].error().to_string()}});
      }
    }
  }

  void writer() {
    for (;;) {
      std::vector<std::string> batch;
      {
        std::unique_lock l(qmu);
        qcv.wait(l, [&] { return stopping || !queue.empty(); });
        if (stopping) return;
        while (!queue.empty() && batch.size() < kBatch) {
          batch.push_back(std::move(queue.front()));
          queue.pop_front();
          queued.erase(batch.back());
        }
      }
      std::vector<Pending> work;
      std::vector<std::string> keys;
      for (const auto& item : batch) {
        if (item.rfind("pod/", 0) == 0) {
          if (auto w = pod_work(item.substr(4))) {
            work.push_back(std::move(*w));
            keys.push_back(item);
          }
        } else if (item.rfind("claim/", 0) == 0) {
          if (auto w = claim_work(item.substr(6))) {
            work.push_back(std::move(*w));
            keys.push_back(item);
          }
        } else if (item.rfind("dra/", 0) == 0) {
          for (auto& w : dra_work(item.substr(4))) {
            work.push_back(std::move(w));
            keys.push_back(item);
          }
        } else if (item.rfind("node/", 0) == 0) {
          for (auto& w : node_work(item.substr(5))) {
            work.push_back(std::move(w));
            keys.push_back(item);
          }
        }
      }
      send(work, keys);
    }
  }

  void timer_loop() {
    std::unique_lock l(tmu);
    while (!stopping) {
      if (timers.empty()) {
        tcv.wait(l);
        continue;
      }
      auto next = timers.top().first;
      if (Clock::now() < next) {
        tcv.wait_until(l, next);
        continue;
      }
      std::string key = timers.top().second;
      timers.pop();
      l.unlock();
      enqueue(std::move(key));
      l.lock();
    }
  }

  // Leases: each node's renewed every lease_renew_interval, spread over it in ten slots so that
  // thousands of nodes cost a steady trickle of batches rather than a burst.
  void lease_loop() {
    constexpr int kSlots = 10;
    auto tick_len = opts.lease_renew_interval / kSlots;
    auto next = Clock::now();
    for (std::uint64_t tick = 0;; ++tick) {
      {
        std::unique_lock l(tmu);
        scv.wait_until(l, next, [&] { return stopping.load(); });
        if (stopping) return;
      }
      next += tick_len;
      std::vector<Pending> work;
      std::vector<std::string> keys;
      auto now = std::chrono::system_clock::now();
      std::string renew = rfc3339_micro(now);
      for (const auto& n : nodes->lister().list()) {
        std::string name(n->metadata.name);
        if (std::hash<std::string>{}(name) % kSlots != tick % kSlots) continue;
        bool exists;
        {
          std::lock_guard l(nmu);
          exists = node_state[name].lease;
        }
        auto mark = [this, name](bool v) {
          std::lock_guard l(nmu);
          node_state[name].lease = v;
        };
        auto ref = client::ResourceRef::of(client::ResourceFor<api::Lease>::info, "kube-node-lease", exists ? name : "");
        if (exists) {
          work.push_back(Pending{request("PATCH", ref,
                                         json::serialize(json::object{{"spec", json::object{{"renewTime", renew}}}}),
                                         std::string(client::content_type(client::PatchType::Merge))),
                                 [this, mark](int status) {
                                   if (status >= 200 && status < 300) ++leases;
                                   if (status == 404) mark(false);
                                 }});
        } else {
          json::object lease{
              {"apiVersion", "coordination.k8s.io/v1"},
              {"kind", "Lease"},
              {"metadata",
               json::object{{"name", name},
                            {"namespace", "kube-node-lease"},
                            {"ownerReferences", json::array{json::object{{"apiVersion", "v1"},
                                                                         {"kind", "Node"},
                                                                         {"name", name},
                                                                         {"uid", std::string_view(n->metadata.uid)}}}}}},
              {"spec", json::object{{"holderIdentity", name},
                                    {"leaseDurationSeconds", opts.lease_duration_seconds},
                                    {"renewTime", renew}}}};
          work.push_back(Pending{request("POST", ref, json::serialize(lease), "application/json"),
                                 [this, mark](int status) {
                                   if (status >= 200 && status < 300) ++leases;
                                   if ((status >= 200 && status < 300) || status == 409) mark(true);
                                 }});
        }
        keys.emplace_back();  // renewed again next round: no retry needed
      }
      // A lease that existed already (409) is renewed on its next turn.
      std::vector<client::HttpRequest> reqs;
      for (auto& w : work) reqs.push_back(w.req);
      if (reqs.empty()) continue;
      requests += reqs.size();
      batches += (reqs.size() + kBatch - 1) / kBatch;
      auto answers = c->transport().round_trip_all(reqs);
      for (std::size_t i = 0; i < answers.size(); ++i) {
        int status = answers[i] ? answers[i]->status : 0;
        work[i].done(status);
        if (!((status >= 200 && status < 300) || status == 409 || status == 404)) ++errors;
      }
    }
  }

  void heartbeat_loop() {
    std::unique_lock l(tmu);
    while (!stopping) {
      scv.wait_for(l, opts.heartbeat_period, [&] { return stopping.load(); });
      if (stopping) return;
      l.unlock();
      for (auto& n : nodes->lister().list()) enqueue("node/" + std::string(n->metadata.name));
      l.lock();
    }
  }
};

Simulator::Simulator(std::shared_ptr<client::RestClient> client, Options opts) : impl_(std::make_unique<Impl>()) {
  impl_->c = std::move(client);
  impl_->opts = std::move(opts);
}

Simulator::~Simulator() { stop(); }

void Simulator::start() {
  auto& I = *impl_;
  {
    std::lock_guard l(I.qmu);
    if (I.started) return;
    I.started = true;
  }
  I.factory = std::make_unique<informer::SharedInformerFactory>(I.c);
  std::string sel = I.opts.node_selector;
  informer::InformerOptions<api::Node> no;
  no.reflector.decode.dropManagedFields = true;
  I.nodes = I.factory->informer_for<api::Node>(std::move(no), [sel](client::ListOptions& o) { o.labelSelector = sel; });
  informer::InformerOptions<api::Pod> po;
  po.reflector.decode.dropManagedFields = true;
  po.indexers[kNodeIndex] = [](const api::Pod& p) { return std::vector<std::string>{std::string(p.spec.nodeName)}; };
  I.pods = I.factory->informer_for<api::Pod>(std::move(po));
  // DRA: the slices of every node (the simulated drivers' own included), and the claims pods use.
  namespace rv1 = api::resourcev1;
  informer::InformerOptions<rv1::ResourceSlice> so;
  so.reflector.decode.dropManagedFields = true;
  so.indexers[kNodeIndex] = [](const rv1::ResourceSlice& sl) {
    return sl.spec.nodeName ? std::vector<std::string>{*sl.spec.nodeName} : std::vector<std::string>{};
  };
  I.slices = I.factory->informer_for<rv1::ResourceSlice>(std::move(so));
  informer::InformerOptions<rv1::ResourceClaim> co;
  co.reflector.decode.dropManagedFields = true;
  I.claims = I.factory->informer_for<rv1::ResourceClaim>(std::move(co));

  auto nh = std::make_shared<informer::ResourceEventHandlerFuncs<api::Node>>();
  nh->add = [&I](const Ptr<api::Node>& n, bool) {
    I.enqueue("node/" + std::string(n->metadata.name));
    I.enqueue("dra/" + std::string(n->metadata.name));
    // Pods bound before the node was seen.
    for (auto& p : I.pods->indexer().by_index(kNodeIndex, std::string(n->metadata.name))) I.enqueue_pod(*p);
  };
  nh->update = [&I](const Ptr<api::Node>& old, const Ptr<api::Node>& n) {
    if (!Impl::is_ready(*n) || !I.missing_labels(*n).empty()) I.enqueue("node/" + std::string(n->metadata.name));
    const std::string* a = old->metadata.annotations.find(kDraDevicesAnnotation);
    const std::string* b = n->metadata.annotations.find(kDraDevicesAnnotation);
    if ((a == nullptr) != (b == nullptr) || (a && *a != *b)) I.enqueue("dra/" + std::string(n->metadata.name));
  };
  I.nodes->add_event_handler(nh);
  // A slice of one of our nodes changed or went away: publish again what the drivers publish.
  auto sh = std::make_shared<informer::ResourceEventHandlerFuncs<rv1::ResourceSlice>>();
  auto slice_changed = [&I](const rv1::ResourceSlice& sl) {
    if (sl.spec.nodeName && I.ours(*sl.spec.nodeName)) I.enqueue("dra/" + *sl.spec.nodeName);
  };
  sh->update = [slice_changed](const Ptr<rv1::ResourceSlice>&, const Ptr<rv1::ResourceSlice>& sl) { slice_changed(*sl); };
  sh->del = [slice_changed](const informer::Deleted<rv1::ResourceSlice>& d) {
    if (d.obj) slice_changed(*d.obj);
  };
  I.slices->add_event_handler(sh);
  // A claim allocated and reserved: its pods may start now. A claim allocated with devices that
  // have our binding condition: the device is attached and the condition (or, when the attach
  // fails, the failure condition) is set.
  auto ch = std::make_shared<informer::ResourceEventHandlerFuncs<rv1::ResourceClaim>>();
  auto claim_changed = [&I](const rv1::ResourceClaim& c) {
    if (I.with_attach_outcomes(c))
      I.enqueue("claim/" + std::string(c.metadata.namespace_) + "/" + std::string(c.metadata.name));
    const std::string ns(c.metadata.namespace_);
    for (const auto& r : c.status.reservedFor) {
      if (r.resource == "pods") {
        if (auto p = I.pods->lister().get(ns, std::string(r.name))) I.enqueue_pod(*p);
      } else if (r.apiGroup == "scheduling.k8s.io" && r.resource == "podgroups") {
        // A claim its PodGroup holds: every member of the group may start now.
        for (const auto& p : I.pods->lister().list_namespace(ns)) {
          const auto& group = p->spec.schedulingGroup;
          if (group && group->podGroupName && *group->podGroupName == r.name) I.enqueue_pod(*p);
        }
      }
    }
  };
  ch->add = [claim_changed](const Ptr<rv1::ResourceClaim>& c, bool) { claim_changed(*c); };
  ch->update = [claim_changed](const Ptr<rv1::ResourceClaim>&, const Ptr<rv1::ResourceClaim>& c) { claim_changed(*c); };
  ch->del = [&I](const informer::Deleted<rv1::ResourceClaim>& d) {
    if (!d.obj) return;
    std::lock_guard l(I.attach_mu);
    I.attach_outcomes.erase(std::string(d.obj->metadata.uid));
  };
  I.claims->add_event_handler(ch);
  auto ph = std::make_shared<informer::ResourceEventHandlerFuncs<api::Pod>>();
  ph->add = [&I](const Ptr<api::Pod>& p, bool) { I.enqueue_pod(*p); };
  ph->update = [&I](const Ptr<api::Pod>&, const Ptr<api::Pod>& p) { I.enqueue_pod(*p); };
  I.pods->add_event_handler(ph);
  I.factory->start();
  for (int i = 0; i < std::max(1, I.opts.workers); ++i)
    I.threads.emplace_back([&I] {
      util::set_thread_name("nodesim-writer");
      I.writer();
    });
  I.threads.emplace_back([&I] {
    util::set_thread_name("nodesim-timer");
    I.timer_loop();
  });
  I.threads.emplace_back([&I] {
    util::set_thread_name("nodesim-lease");
    I.lease_loop();
  });
  I.threads.emplace_back([&I] {
    util::set_thread_name("nodesim-beat");
    I.heartbeat_loop();
  });
  log::info("Node simulator started", {{"nodeSelector", I.opts.node_selector}, {"workers", I.opts.workers}});
}

void Simulator::stop() {
  auto& I = *impl_;
  {
    std::lock_guard l(I.qmu);
    if (!I.started || I.stopping) return;
    I.stopping = true;
    I.qcv.notify_all();
  }
  {
    std::lock_guard l(I.tmu);  // the timer loops check `stopping` under it: no wake-up is lost
    I.tcv.notify_all();
    I.scv.notify_all();
  }
  for (auto& t : I.threads) t.join();
  I.threads.clear();
  if (I.factory) I.factory->shutdown();
}

bool Simulator::synced() const {
  return impl_->nodes && impl_->pods && impl_->nodes->has_synced() && impl_->pods->has_synced() &&
         impl_->slices->has_synced() && impl_->claims->has_synced();
}

Stats Simulator::stats() const {
  const auto& I = *impl_;
  Stats st;
  st.pods_started = I.started_pods.load();
  st.pods_succeeded = I.succeeded.load();
  st.pods_failed = I.failed.load();
  st.container_restarts = I.restarts.load();
  st.pods_deleted = I.deleted.load();
  st.node_heartbeats = I.heartbeats.load();
  st.node_labels = I.labelled.load();
  st.lease_renewals = I.leases.load();
  st.slices_published = I.slices_published.load();
  st.slices_deleted = I.slices_deleted.load();
  st.claims_prepared = I.claims_prepared.load();
  st.binding_conditions_set = I.binding_conditions_set.load();
  st.attach_failures = I.attach_failures_set.load();
  st.requests = I.requests.load();
  st.batches = I.batches.load();
  st.errors = I.errors.load();
  return st;
}

}  // namespace ksched::nodesim
