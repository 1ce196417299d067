#include "localcluster/demo.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>

#include <fmt/format.h>

#include "api/apps.h"
#include "api/codec.h"
#include "api/core.h"
#include "api/scheduling.h"
#include "client/rest.h"
#include "informer/factory.h"
#include "controllers/controller_manager.h"
#include "localcluster/local_cluster.h"

namespace ksched::localcluster {

namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kZoneLabel = "topology.kubernetes.io/zone";
constexpr const char* kTargetLabel = "demo.ksched.io/role";
constexpr int kFillers = 4;

api::Container container(const std::string& name, const std::string& cpu, const std::string& memory) {
  api::Container c;
  c.name = name;
  c.image = "registry.k8s.io/pause:3.10";
  c.resources.requests.set("cpu", api::Quantity::must(cpu));
  c.resources.requests.set("memory", api::Quantity::must(memory));
  return c;
}

api::Pod pod(const std::string& ns, const std::string& name, const std::string& app, const std::string& cpu = "100m",
             const std::string& memory = "128Mi") {
  api::Pod p;
  p.apiVersion = "v1";
  p.kind = "Pod";
  p.metadata.name = name;
  p.metadata.namespace_ = ns;
  p.metadata.labels.set("app", app);
  p.spec.containers.push_back(container(app, cpu, memory));
  return p;
}

api::LabelSelector app_selector(const std::string& app) {
  api::LabelSelector s;
  s.matchLabels.set("app", app);
  return s;
}

template <class T>
util::Result<void> create(client::RestClient& c, const T& obj, bool tolerate_exists = false) {
  auto r = c.create(obj);
  if (!r && !(tolerate_exists && client::is_already_exists(r.error()))) {
    return util::make_error("creating " + obj.metadata.name + ": " + r.error().message);
  }
  return {};
}

// Where the workload stands, recomputed from the informer's cache.
struct Tally {
  int scheduled = 0;
  int unschedulable = 0;
  int pending = 0;
};

void draw_progress(const Tally& t, int total, double secs) {
  constexpr int kWidth = 30;
  int done = t.scheduled + t.unschedulable;
  int filled = total ? done * kWidth / total : 0;
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.resize(kWidth, '.');
  std::fprintf(stderr, "\r[%s] %d/%d settled (%d scheduled, %d unschedulable) %.1fs ", bar.c_str(), done, total,
               t.scheduled, t.unschedulable, secs);
  std::fflush(stderr);
}

}  // namespace

util::Result<DemoReport> run_demo(LocalCluster& cluster, const DemoOptions& opts) {
  auto& c = *cluster.client();
  const std::string& ns = opts.ns;

  // ---- cluster shape: zones, a tainted GPU pool, one node reserved for the preemption scene.
  auto nodes = c.list<api::Node>("");
  if (!nodes) return util::make_error("listing nodes: " + nodes.error().message);
  const int node_count = static_cast<int>(nodes->items.size());
  if (node_count < 10) return util::make_error("the demo needs at least 10 nodes (have " + std::to_string(node_count) + ")");
  std::sort(nodes->items.begin(), nodes->items.end(),
            [](const auto& a, const auto& b) { return a.metadata.name < b.metadata.name; });
  const int gpu_nodes = std::max(1, node_count / 10);
  const std::string target = nodes->items.front().metadata.name;
  for (int i = 0; i < node_count; ++i) {
    const auto& n = nodes->items[static_cast<std::size_t>(i)];
    std::string zone = std::string("zone-") + static_cast<char>('a' + i % 3);
    std::string patch;
    if (i == 0) {
      patch = fmt::format(R"({{"metadata":{{"labels":{{"{}":"{}","{}":"preemption-target"}}}}}})", kZoneLabel, zone,
                          kTargetLabel);
    } else if (i > node_count - 1 - gpu_nodes) {
      patch = fmt::format(
          R"({{"metadata":{{"labels":{{"{}":"{}","accelerator":"gpu"}}}},"spec":{{"taints":[{{"key":"dedicated","value":"gpu","effect":"NoSchedule"}}]}}}})",
          kZoneLabel, zone);
    } else {
      patch = fmt::format(R"({{"metadata":{{"labels":{{"{}":"{}"}}}}}})", kZoneLabel, zone);
    }
    auto r = c.patch<api::Node>("", n.metadata.name, client::PatchType::StrategicMerge, patch);
    if (!r) return util::make_error("labelling node " + n.metadata.name + ": " + r.error().message);
  }

  api::Namespace nsobj;
  nsobj.apiVersion = "v1";
  nsobj.kind = "Namespace";
  nsobj.metadata.name = ns;
  if (auto r = create(c, nsobj, true); !r) return util::make_error(r.error());
  for (auto [name, value] : {std::pair<const char*, int>{"demo-low", 100}, {"demo-high", 10000}}) {
    api::PriorityClass pc;
    pc.apiVersion = "scheduling.k8s.io/v1";
    pc.kind = "PriorityClass";
    pc.metadata.name = name;
    pc.value = value;
    pc.description = "ksched demo";
    if (auto r = create(c, pc, true); !r) return util::make_error(r.error());
  }

  // ---- watch the demo namespace through an informer, as any controller would; every event is
  // stamped on arrival into the timeline the summary is computed from.
  informer::SharedInformerFactory factory(cluster.client(), std::chrono::milliseconds(0), ns);
  auto inf = factory.informer_for<api::Pod>();
  std::mutex mu;
  std::condition_variable changed;
  DemoTimeline tl;
  tl.nodes = node_count;
  // The clock starts at the first create request, after the informer has synced; handlers may run
  // before that (the initial list), hence an atomic.
  std::atomic<Clock::time_point> t0{Clock::now()};
  auto since_start = [&] { return std::chrono::duration<double>(Clock::now() - t0.load()).count(); };
  auto seen = [&](const informer::Ptr<api::Pod>& p) {
    const double now = since_start();
    {
      std::lock_guard l(mu);
      auto& s = tl.pods[p->metadata.name];
      if (!s.added) s.added = now;
      if (!p->spec.nodeName.empty()) {
        if (!s.bound) s.bound = now;
        s.node = p->spec.nodeName;
      }
      for (const auto& cond : p->status.conditions) {
        if (cond.type != "PodScheduled" || cond.status != "False") continue;
        s.reason = cond.reason;
        s.message = cond.message;
        if (cond.reason == "Unschedulable" && !s.unschedulable) s.unschedulable = now;
      }
    }
    changed.notify_all();
  };
  auto h = std::make_shared<informer::ResourceEventHandlerFuncs<api::Pod>>();
  h->add = [&](const informer::Ptr<api::Pod>& p, bool) { seen(p); };
  h->update = [&](const informer::Ptr<api::Pod>&, const informer::Ptr<api::Pod>& p) { seen(p); };
  h->del = [&](const informer::Deleted<api::Pod>& d) {
    if (!d.obj) return;
    const double now = since_start();
    {
      std::lock_guard l(mu);
      auto& s = tl.pods[d.obj->metadata.name];
      if (!s.deleted) s.deleted = now;
    }
    changed.notify_all();
  };
  inf->add_event_handler(h);
  factory.start();
  factory.wait_for_cache_sync(std::chrono::seconds(30));
  struct StopInformers {
    informer::SharedInformerFactory& f;
    ~StopInformers() { f.shutdown(); }  // before the timeline and handlers it writes to go away
  } stop_informers{factory};

  const auto deadline = Clock::now() + opts.timeout;
  // Waits until `done` holds for the timeline (under mu); false at the deadline.
  auto wait_for = [&](auto done, auto each_wake) -> bool {
    std::unique_lock l(mu);
    for (;;) {
      if (done()) return true;
      if (Clock::now() >= deadline) return false;
      changed.wait_for(l, std::chrono::milliseconds(100));
      each_wake();
    }
  };
  auto create_counted = [&](const api::Pod& p) -> util::Result<void> {
    if (auto r = create(c, p); !r) return r;
    std::lock_guard l(mu);
    ++tl.created;
    return {};
  };

  // ---- set-up, the preemption scene part 1: low-priority fillers take the whole target node.
  t0 = Clock::now();
  std::vector<std::string> fillers;
  for (int i = 0; i < kFillers; ++i) {
    auto p = pod(ns, "filler-" + std::to_string(i), "filler", "8", "1Gi");
    p.spec.priorityClassName = "demo-low";
    p.spec.nodeSelector.set(kTargetLabel, "preemption-target");
    if (auto r = create_counted(p); !r) return util::make_error(r.error());
    fillers.push_back(p.metadata.name);
  }
  const bool fillers_bound = wait_for(
      [&] {
        return std::all_of(fillers.begin(), fillers.end(), [&](const auto& n) {
          auto it = tl.pods.find(n);
          return it != tl.pods.end() && it->second.bound;
        });
      },
      [] {});
  if (!fillers_bound) return util::make_error("the filler pods were not scheduled in time; is a scheduler running?");
  {
    std::lock_guard l(mu);
    tl.setup.insert(fillers.begin(), fillers.end());
    tl.burst_start = since_start();
  }

  // ---- the burst: the mixed workload, created at once.
  for (int i = 0; i < 200; ++i) {
    if (auto r = create_counted(pod(ns, "plain-" + std::to_string(i), "plain")); !r) return util::make_error(r.error());
  }

  // The web tier: a Deployment's 60 pods spread across zones. With controllers running, the
  // Deployment creates its ReplicaSet and the ReplicaSet its pods; without, the demo writes all three.
  constexpr int kWebReplicas = 60;
  api::Pod web = pod(ns, "web", "web", "250m", "256Mi");
  {
    api::TopologySpreadConstraint tsc;
    tsc.maxSkew = 1;
    tsc.topologyKey = kZoneLabel;
    tsc.whenUnsatisfiable = "DoNotSchedule";
    tsc.labelSelector = app_selector("web");
    web.spec.topologySpreadConstraints.push_back(tsc);
  }
  const std::string web_template = R"({"metadata":{"labels":{"app":"web"}},"spec":)" + api::encode(web.spec) + "}";
  api::Deployment dep;
  dep.apiVersion = "apps/v1";
  dep.kind = "Deployment";
  dep.metadata.name = "web";
  dep.metadata.namespace_ = ns;
  dep.spec.replicas = kWebReplicas;
  dep.spec.selector = app_selector("web");
  dep.spec.extra.fields.push_back({"template", web_template});
  if (auto r = create(c, dep, true); !r) return util::make_error(r.error());
  if (cluster.controller_manager()) {
    std::lock_guard l(mu);
    tl.created += kWebReplicas;
  } else {
    api::ReplicaSet rs;
    rs.apiVersion = "apps/v1";
    rs.kind = "ReplicaSet";
    rs.metadata.name = "web-5d8f7b";
    rs.metadata.namespace_ = ns;
    rs.spec.replicas = kWebReplicas;
    rs.spec.selector = app_selector("web");
    rs.spec.extra.fields.push_back({"template", web_template});
    if (auto r = create(c, rs, true); !r) return util::make_error(r.error());
    for (int i = 0; i < kWebReplicas; ++i) {
      auto p = web;
      p.metadata.name = "web-5d8f7b-" + std::to_string(i);
      api::OwnerReference o;
      o.apiVersion = "apps/v1";
      o.kind = "ReplicaSet";
      o.name = rs.metadata.name;
      o.uid = "demo-web-rs";
      o.controller = true;
      p.metadata.ownerReferences.push_back(o);
      if (auto r = create_counted(p); !r) return util::make_error(r.error());
    }
  }

  for (int i = 0; i < 20; ++i) {
    auto p = pod(ns, "cache-" + std::to_string(i), "cache", "500m", "1Gi");
    api::PodAffinityTerm term;
    term.labelSelector = app_selector("cache");
    term.topologyKey = "kubernetes.io/hostname";
    p.spec.affinity.emplace().podAntiAffinity.emplace().requiredDuringSchedulingIgnoredDuringExecution.push_back(term);
    if (auto r = create_counted(p); !r) return util::make_error(r.error());
  }

  for (int i = 0; i < 10; ++i) {
    auto p = pod(ns, "train-" + std::to_string(i), "train", "2", "4Gi");
    p.spec.nodeSelector.set("accelerator", "gpu");
    api::Toleration t;
    t.key = "dedicated";
    t.operator_ = "Equal";
    t.value = "gpu";
    t.effect = "NoSchedule";
    p.spec.tolerations.push_back(t);
    if (auto r = create_counted(p); !r) return util::make_error(r.error());
  }

  // Two pods that cannot be placed, to show why.
  {
    if (auto r = create_counted(pod(ns, "too-big", "too-big", "1000", "1Gi")); !r) return util::make_error(r.error());
    auto q = pod(ns, "gpu-without-toleration", "train");
    q.spec.nodeSelector.set("accelerator", "gpu");
    if (auto r = create_counted(q); !r) return util::make_error(r.error());
  }

  // ---- the preemption scene, part 2: a high-priority pod that only fits on the full node.
  {
    auto p = pod(ns, "vip", "vip", "8", "1Gi");
    p.spec.priorityClassName = "demo-high";
    p.spec.nodeSelector.set(kTargetLabel, "preemption-target");
    {
      std::lock_guard l(mu);
      tl.preemptor = p.metadata.name;
      tl.preemptor_priority = 10000;
      tl.preemptor_created = since_start();
    }
    if (auto r = create_counted(p); !r) return util::make_error(r.error());
  }

  // ---- wait until every pod is bound or reported unschedulable, the preemptor bound and its
  // victim gone.
  auto tally = [&] {
    Tally t;
    for (const auto& [name, s] : tl.pods) {
      if (s.deleted) continue;
      if (s.bound) ++t.scheduled;
      else if (s.unschedulable && name != tl.preemptor) ++t.unschedulable;
      else ++t.pending;
    }
    return t;
  };
  auto settled = [&] {
    int victims = 0;
    for (const auto& [name, s] : tl.pods) victims += s.deleted ? 1 : 0;
    auto vip = tl.pods.find(tl.preemptor);
    const Tally t = tally();
    return t.pending == 0 && vip != tl.pods.end() && vip->second.bound && victims >= 1 &&
           t.scheduled + t.unschedulable == tl.created - victims;
  };
  auto progress = [&] {
    if (!opts.progress) return;
    int victims = 0;
    for (const auto& [name, s] : tl.pods) victims += s.deleted ? 1 : 0;
    draw_progress(tally(), tl.created - victims, since_start());
  };
  const bool ok = wait_for(settled, progress);
  if (opts.progress) {
    std::lock_guard l(mu);
    progress();
    std::fputc('\n', stderr);
  }
  std::lock_guard l(mu);
  tl.settled = ok;
  return summarize(tl, ns);
}

DemoReport summarize(const DemoTimeline& t, const std::string& ns) {
  DemoReport r;
  r.ns = ns;
  r.nodes = t.nodes;
  r.created = t.created;
  r.settled = t.settled;
  r.preemptor = t.preemptor;
  r.preemptor_priority = t.preemptor_priority;
  double last_burst_binding = t.burst_start;
  std::optional<double> last_victim;
  for (const auto& [name, s] : t.pods) {
    for (const auto& at : {s.bound, s.unschedulable, s.deleted}) {
      if (at) r.settled_seconds = std::max(r.settled_seconds, *at);
    }
    if (s.deleted) {
      r.preempted.push_back(name);
      last_victim = std::max(last_victim.value_or(*s.deleted), *s.deleted);
      continue;
    }
    if (!s.bound) {
      DemoReport::Unschedulable u{ns + "/" + name, s.reason.empty() ? "Pending" : s.reason,
                                  s.message.empty() ? "no scheduling decision yet" : s.message};
      r.unschedulable.push_back(std::move(u));
      continue;
    }
    ++r.scheduled;
    r.pods_per_node[s.node]++;
    if (name == t.preemptor) {
      r.preemptor_node = s.node;
      r.preemptor_wait = *s.bound - t.preemptor_created;
    } else if (!t.setup.count(name)) {
      ++r.burst_bound;
      last_burst_binding = std::max(last_burst_binding, *s.bound);
    }
  }
  r.burst_seconds = last_burst_binding - t.burst_start;
  r.burst_pods_per_second = r.burst_seconds > 0 ? r.burst_bound / r.burst_seconds : 0;
  if (last_victim) r.victims_gone = *last_victim - t.preemptor_created;
  return r;
}

std::string format_report(const DemoReport& r) {
  std::string out;
  if (r.settled) {
    out += fmt::format("ksched demo: {} pods on {} nodes, settled {:.2f} s after the first pod was created\n", r.created,
                       r.nodes, r.settled_seconds);
  } else {
    out += fmt::format("ksched demo: {} pods on {} nodes, NOT settled before the timeout\n", r.created, r.nodes);
  }
  out += fmt::format("  scheduling:    {} pods that fit at once, all bound {:.2f} s after the first of them was created: {:.0f} pods/s\n",
                     r.burst_bound, r.burst_seconds, r.burst_pods_per_second);
  if (!r.preempted.empty() || !r.preemptor.empty()) {
    out += fmt::format("  preemption:    {}/{} (priority {})", r.ns, r.preemptor, r.preemptor_priority);
    if (!r.preempted.empty()) {
      out += " evicted";
      for (const auto& v : r.preempted) out += " " + r.ns + "/" + v;
    }
    if (r.preemptor_wait) {
      out += fmt::format(", bound on {} {:.2f} s after its creation", r.preemptor_node, *r.preemptor_wait);
      if (r.victims_gone) out += fmt::format(" (victim gone after {:.2f} s; the rest is the scheduler's retry backoff)", *r.victims_gone);
    } else {
      out += ", not bound";
    }
    out += "\n";
  }
  // Distribution: how many nodes carry how many pods.
  std::map<int, int> hist;
  int min = r.pods_per_node.empty() ? 0 : 1 << 30, max = 0;
  int empty_nodes = r.nodes - static_cast<int>(r.pods_per_node.size());
  if (empty_nodes > 0) hist[0] = empty_nodes, min = 0;
  for (const auto& [node, n] : r.pods_per_node) {
    hist[n]++;
    min = std::min(min, n);
    max = std::max(max, n);
  }
  out += fmt::format("  per node:      min {} / max {} pods; pods-per-node histogram:", min, max);
  for (const auto& [pods, nodes] : hist) out += fmt::format(" {}:{}", pods, nodes);
  out += "\n";
  out += fmt::format("  unschedulable: {}{}\n", r.unschedulable.size(), r.unschedulable.empty() ? "" : ", they stay pending:");
  for (const auto& u : r.unschedulable) out += fmt::format("    {} ({}): {}\n", u.pod, u.reason, u.message);
  return out;
}

}  // namespace ksched::localcluster
