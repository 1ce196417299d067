#include "localcluster/demo.h"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <set>
#include <thread>

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
  DemoReport rep;
  const std::string& ns = opts.ns;

  // ---- cluster shape: zones, a tainted GPU pool, one node reserved for the preemption scene.
  auto nodes = c.list<api::Node>("");
  if (!nodes) return util::make_error("listing nodes: " + nodes.error().message);
  rep.nodes = static_cast<int>(nodes->items.size());
  if (rep.nodes < 10) return util::make_error("the demo needs at least 10 nodes (have " + std::to_string(rep.nodes) + ")");
  std::sort(nodes->items.begin(), nodes->items.end(),
            [](const auto& a, const auto& b) { return a.metadata.name < b.metadata.name; });
  const int gpu_nodes = std::max(1, rep.nodes / 10);
  const std::string target = nodes->items.front().metadata.name;
  for (int i = 0; i < rep.nodes; ++i) {
    const auto& n = nodes->items[static_cast<std::size_t>(i)];
    std::string zone = std::string("zone-") + static_cast<char>('a' + i % 3);
    std::string patch;
    if (i == 0) {
      patch = fmt::format(R"({{"metadata":{{"labels":{{"{}":"{}","{}":"preemption-target"}}}}}})", kZoneLabel, zone,
                          kTargetLabel);
    } else if (i > rep.nodes - 1 - gpu_nodes) {
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

  // ---- watch the demo namespace through an informer, as any controller would.
  informer::SharedInformerFactory factory(cluster.client(), std::chrono::milliseconds(0), ns);
  auto inf = factory.informer_for<api::Pod>();
  std::mutex mu;
  std::map<std::string, Clock::time_point> bound_at;
  std::set<std::string> deleted;
  auto h = std::make_shared<informer::ResourceEventHandlerFuncs<api::Pod>>();
  auto seen = [&](const informer::Ptr<api::Pod>& p) {
    if (p->spec.nodeName.empty()) return;
    std::lock_guard l(mu);
    bound_at.emplace(p->metadata.name, Clock::now());
  };
  h->add = [&](const informer::Ptr<api::Pod>& p, bool) { seen(p); };
  h->update = [&](const informer::Ptr<api::Pod>&, const informer::Ptr<api::Pod>& p) { seen(p); };
  h->del = [&](const informer::Deleted<api::Pod>& d) {
    if (!d.obj) return;
    std::lock_guard l(mu);
    deleted.insert(d.obj->metadata.name);
  };
  inf->add_event_handler(h);
  factory.start();
  factory.wait_for_cache_sync(std::chrono::seconds(30));

  const auto t0 = Clock::now();
  auto wait_bound = [&](const std::vector<std::string>& names) -> bool {
    auto deadline = Clock::now() + opts.timeout;
    while (Clock::now() < deadline) {
      {
        std::lock_guard l(mu);
        if (std::all_of(names.begin(), names.end(), [&](const auto& n) { return bound_at.count(n) > 0; })) return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  };

  // ---- the preemption scene, part 1: low-priority fillers take the whole target node.
  std::vector<std::string> fillers;
  for (int i = 0; i < kFillers; ++i) {
    auto p = pod(ns, "filler-" + std::to_string(i), "filler", "8", "1Gi");
    p.spec.priorityClassName = "demo-low";
    p.spec.nodeSelector.set(kTargetLabel, "preemption-target");
    if (auto r = create(c, p); !r) return util::make_error(r.error());
    fillers.push_back(p.metadata.name);
    ++rep.created;
  }
  if (!wait_bound(fillers)) return util::make_error("the filler pods were not scheduled in time; is a scheduler running?");

  // ---- the mixed workload.
  for (int i = 0; i < 200; ++i) {
    if (auto r = create(c, pod(ns, "plain-" + std::to_string(i), "plain")); !r) return util::make_error(r.error());
    ++rep.created;
  }

  // The web tier: a Deployment's 60 pods spread across zones. With controllers running, the
  // Deployment creates its ReplicaSet and pods; without, the demo writes all three itself.
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
  dep.spec.replicas = 60;
  dep.spec.selector = app_selector("web");
  dep.spec.extra.fields.push_back({"template", web_template});
  if (auto r = create(c, dep, true); !r) return util::make_error(r.error());
  if (cluster.controller_manager()) {
    rep.created += 60;
  } else {
    api::ReplicaSet rs;
    rs.apiVersion = "apps/v1";
    rs.kind = "ReplicaSet";
    rs.metadata.name = "web-5d8f7b";
    rs.metadata.namespace_ = ns;
    rs.spec.replicas = 60;
    rs.spec.selector = app_selector("web");
    rs.spec.extra.fields.push_back({"template", web_template});
    if (auto r = create(c, rs, true); !r) return util::make_error(r.error());
    for (int i = 0; i < 60; ++i) {
      auto p = web;
      p.metadata.name = "web-5d8f7b-" + std::to_string(i);
      api::OwnerReference o;
      o.apiVersion = "apps/v1";
      o.kind = "ReplicaSet";
      o.name = rs.metadata.name;
      o.uid = "demo-web-rs";
      o.controller = true;
      p.metadata.ownerReferences.push_back(o);
      if (auto r = create(c, p); !r) return util::make_error(r.error());
      ++rep.created;
    }
  }

  for (int i = 0; i < 20; ++i) {
    auto p = pod(ns, "cache-" + std::to_string(i), "cache", "500m", "1Gi");
    api::PodAffinityTerm term;
    term.labelSelector = app_selector("cache");
    term.topologyKey = "kubernetes.io/hostname";
    p.spec.affinity.emplace().podAntiAffinity.emplace().requiredDuringSchedulingIgnoredDuringExecution.push_back(term);
    if (auto r = create(c, p); !r) return util::make_error(r.error());
    ++rep.created;
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
    if (auto r = create(c, p); !r) return util::make_error(r.error());
    ++rep.created;
  }

  // Two pods that cannot be placed, to show why.
  {
    auto p = pod(ns, "too-big", "too-big", "1000", "1Gi");
    if (auto r = create(c, p); !r) return util::make_error(r.error());
    ++rep.created;
    auto q = pod(ns, "gpu-without-toleration", "train");
    q.spec.nodeSelector.set("accelerator", "gpu");
    if (auto r = create(c, q); !r) return util::make_error(r.error());
    ++rep.created;
  }

  // ---- the preemption scene, part 2: a high-priority pod that only fits on the full node.
  {
    auto p = pod(ns, "vip", "vip", "8", "1Gi");
    p.spec.priorityClassName = "demo-high";
    p.spec.nodeSelector.set(kTargetLabel, "preemption-target");
    if (auto r = create(c, p); !r) return util::make_error(r.error());
    ++rep.created;
  }

  // ---- wait until every pod is bound or reported unschedulable, and the preemption is done.
  const int expected_victims = 1;
  auto deadline = t0 + opts.timeout;
  Tally t;
  for (;;) {
    t = Tally{};
    auto pods = inf->lister().list();
    int victims = 0;
    {
      std::lock_guard l(mu);
      victims = static_cast<int>(deleted.size());
    }
    bool vip_bound = false;
    for (const auto& p : pods) {
      if (!p->spec.nodeName.empty()) {
        ++t.scheduled;
        if (p->metadata.name == "vip") vip_bound = true;
        continue;
      }
      bool unsched = false;
      for (const auto& cond : p->status.conditions) {
        if (cond.type == "PodScheduled" && cond.status == "False" && cond.reason == "Unschedulable") unsched = true;
      }
      (unsched && p->metadata.name != "vip" ? t.unschedulable : t.pending)++;
    }
    int total = rep.created - victims;
    if (opts.progress) draw_progress(t, total, std::chrono::duration<double>(Clock::now() - t0).count());
    if (t.pending == 0 && vip_bound && victims >= expected_victims && t.scheduled + t.unschedulable == total) {
      rep.settled = true;
      break;
    }
    if (Clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (opts.progress) std::fputc('\n', stderr);

  auto pods = inf->lister().list();
  Clock::time_point last = t0;
  {
    std::lock_guard l(mu);
    for (const auto& [name, at] : bound_at) last = std::max(last, at);
    rep.preempted.assign(deleted.begin(), deleted.end());
  }
  for (const auto& p : pods) {
    if (!p->spec.nodeName.empty()) {
      rep.pods_per_node[p->spec.nodeName]++;
      ++rep.scheduled;
      if (p->metadata.name == "vip") rep.preemptor_node = p->spec.nodeName;
      continue;
    }
    DemoReport::Unschedulable u{ns + "/" + p->metadata.name, "Pending", "no scheduling decision yet"};
    for (const auto& cond : p->status.conditions) {
      if (cond.type == "PodScheduled" && cond.status == "False") {
        u.reason = cond.reason;
        u.message = cond.message;
      }
    }
    rep.unschedulable.push_back(u);
  }
  rep.seconds = std::chrono::duration<double>(last - t0).count();
  rep.pods_per_second = rep.seconds > 0 ? rep.scheduled / rep.seconds : 0;
  factory.shutdown();
  return rep;
}

std::string format_report(const DemoReport& r) {
  std::string out;
  out += fmt::format("ksched demo: {} pods created on {} nodes; {}\n", r.created, r.nodes,
                     r.settled ? "the workload settled" : "the workload did NOT settle before the timeout");
  out += fmt::format("  scheduled:     {} pods in {:.2f} s ({:.0f} pods/s, first create to last binding)\n", r.scheduled,
                     r.seconds, r.pods_per_second);
  if (!r.preempted.empty()) {
    out += fmt::format("  preemption:    demo/vip (priority 10000) placed on {} after evicting", r.preemptor_node);
    for (const auto& v : r.preempted) out += " demo/" + v;
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
  out += fmt::format("  unschedulable: {}\n", r.unschedulable.size());
  for (const auto& u : r.unschedulable) out += fmt::format("    {} ({}): {}\n", u.pod, u.reason, u.message);
  return out;
}

}  // namespace ksched::localcluster
