#include "nodesim/simulator.h"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <mutex>
#include <unordered_map>

#include "api/codec.h"
#include "api/core.h"
#include "informer/factory.h"
#include "informer/workqueue.h"
#include "util/log.h"
#include "util/thread.h"

namespace ksched::nodesim {

namespace {

using informer::Ptr;

std::string rfc3339(std::chrono::system_clock::time_point t) {
  auto secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

constexpr const char* kNodeIndex = "nodeName";

}  // namespace

struct Simulator::Impl {
  std::shared_ptr<client::RestClient> c;
  Options opts;
  std::unique_ptr<informer::SharedInformerFactory> factory;
  std::shared_ptr<informer::SharedIndexInformer<api::Node>> nodes;
  std::shared_ptr<informer::SharedIndexInformer<api::Pod>> pods;
  informer::RateLimitingQueue<std::string> queue{
      std::make_unique<informer::ItemExponentialFailureRateLimiter<std::string>>(std::chrono::milliseconds(50),
                                                                                 std::chrono::seconds(30))};
  std::vector<std::thread> workers;
  std::thread heartbeat;
  std::mutex mu;
  std::condition_variable cv;
  bool stopping = false;
  bool started = false;
  // Per node pod IP allocation.
  struct NodeNet {
    std::string prefix;  // "10.0.3."
    unsigned next = 2;
  };
  std::unordered_map<std::string, NodeNet> nets;
  unsigned next_node_index = 0;
  std::atomic<std::uint64_t> started_pods{0}, deleted_pods{0}, heartbeats{0}, errors{0};

  bool ours(const std::string& node) const { return !node.empty() && nodes->lister().get(node) != nullptr; }

  bool needs_work(const api::Pod& p) const {
    if (!ours(p.spec.nodeName)) return false;
    if (p.metadata.deletionTimestamp) return true;
    return p.status.phase != "Running" && p.status.phase != "Succeeded" && p.status.phase != "Failed";
  }

  void enqueue_pod(const api::Pod& p) {
    if (needs_work(p)) queue.add("pod/" + informer::meta_namespace_key(p));
  }

  std::string pod_ip(const api::Node& n) {
    std::lock_guard l(mu);
    auto& net = nets[n.metadata.name];
    if (net.prefix.empty()) {
      const auto& cidr = n.spec.podCIDR;
      auto slash = cidr.find('/');
      auto last_dot = cidr.rfind('.', slash);
      if (!cidr.empty() && slash != std::string::npos && last_dot != std::string::npos) {
        net.prefix = cidr.substr(0, last_dot + 1);
      } else {
        unsigned i = next_node_index++;
        net.prefix = fmt::format("{}{}.{}.", opts.pod_cidr_prefix, (i >> 8) & 0xff, i & 0xff);
      }
    }
    unsigned host = net.next;
    net.next = net.next >= 254 ? 2 : net.next + 1;
    return net.prefix + std::to_string(host);
  }

  static std::string host_ip(const api::Node& n) {
    for (const auto& a : n.status.addresses)
      if (a.type == "InternalIP") return a.address;
    std::size_t h = std::hash<std::string>{}(n.metadata.name);
    return fmt::format("192.168.{}.{}", (h >> 8) % 256, h % 254 + 1);
  }

  bool run_pod(const api::Pod& p, const api::Node& n) {
    auto now = rfc3339(std::chrono::system_clock::now());
    auto ip = pod_ip(n);
    auto hip = host_ip(n);
    boost::json::array conds;
    for (const char* t : {"PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"})
      conds.push_back(boost::json::object{{"type", t}, {"status", "True"}, {"lastProbeTime", nullptr},
                                          {"lastTransitionTime", now}});
    boost::json::array cs;
    for (const auto& c : p.spec.containers) {
      cs.push_back(boost::json::object{
          {"name", c.name},
          {"image", c.image},
          {"imageID", ""},
          {"containerID", fmt::format("containerd://{:016x}", std::hash<std::string>{}(p.metadata.uid + c.name))},
          {"ready", true},
          {"started", true},
          {"restartCount", 0},
          {"state", boost::json::object{{"running", boost::json::object{{"startedAt", now}}}}}});
    }
    boost::json::object status{{"phase", "Running"},
                               {"conditions", std::move(conds)},
                               {"hostIP", hip},
                               {"hostIPs", boost::json::array{boost::json::object{{"ip", hip}}}},
                               {"podIP", ip},
                               {"podIPs", boost::json::array{boost::json::object{{"ip", ip}}}},
                               {"startTime", now},
                               {"containerStatuses", std::move(cs)}};
    if (p.status.qosClass.empty()) status["qosClass"] = "BestEffort";
    auto body = boost::json::serialize(boost::json::object{{"status", std::move(status)}});
    auto ref = client::ResourceRef::of(client::ResourceFor<api::Pod>::info, p.metadata.namespace_, p.metadata.name,
                                       "status");
    auto r = c->patch(ref, client::PatchType::Merge, std::move(body));
    if (!r) {
      if (client::is_not_found(r.error())) return true;
      log::V(2).info("Failed to update pod status", {{"pod", informer::meta_namespace_key(p)},
                                                      {"err", r.error().to_string()}});
      ++errors;
      return false;
    }
    ++started_pods;
    return true;
  }

  bool finish_deletion(const api::Pod& p) {
    client::DeleteOptions d;
    d.gracePeriodSeconds = 0;
    d.preconditionUID = p.metadata.uid;
    auto r = c->remove(client::ResourceRef::of(client::ResourceFor<api::Pod>::info, p.metadata.namespace_,
                                               p.metadata.name),
                       d);
    if (!r && !client::is_not_found(r.error()) && !client::is_conflict(r.error())) {
      ++errors;
      return false;
    }
    if (r) ++deleted_pods;
    return true;
  }

  bool heartbeat_node(const api::Node& n) {
    auto now = rfc3339(std::chrono::system_clock::now());
    std::string transition = now;
    for (const auto& cond : n.status.conditions)
      if (cond.type == "Ready" && cond.status == "True" && cond.lastTransitionTime)
        transition.clear();  // keep the existing transition time
    boost::json::object ready{{"type", "Ready"},
                              {"status", "True"},
                              {"lastHeartbeatTime", now},
                              {"reason", "KubeletReady"},
                              {"message", "kubelet is posting ready status"}};
    if (!transition.empty()) ready["lastTransitionTime"] = transition;
    // Strategic merge keeps the other conditions (merged by type).
    auto body = boost::json::serialize(
        boost::json::object{{"status", boost::json::object{{"conditions", boost::json::array{ready}}}}});
    auto ref = client::ResourceRef::of(client::ResourceFor<api::Node>::info, "", n.metadata.name, "status");
    auto r = c->patch(ref, client::PatchType::StrategicMerge, std::move(body));
    if (!r) {
      if (client::is_not_found(r.error())) return true;
      ++errors;
      return false;
    }
    ++heartbeats;
    return true;
  }

  static bool is_ready(const api::Node& n) {
    for (const auto& cond : n.status.conditions)
      if (cond.type == "Ready") return cond.status == "True";
    return false;
  }

  bool process(const std::string& item) {
    if (item.rfind("pod/", 0) == 0) {
      auto p = pods->lister().get(item.substr(4));
      if (!p || !ours(p->spec.nodeName)) return true;
      auto n = nodes->lister().get(p->spec.nodeName);
      if (!n) return true;
      if (p->metadata.deletionTimestamp) return finish_deletion(*p);
      if (p->status.phase == "Running" || p->status.phase == "Succeeded" || p->status.phase == "Failed") return true;
      return run_pod(*p, *n);
    }
    if (item.rfind("node/", 0) == 0) {
      auto n = nodes->lister().get(item.substr(5));
      if (!n) return true;
      return heartbeat_node(*n);
    }
    return true;
  }

  void worker() {
    for (;;) {
      auto item = queue.get();
      if (!item) return;
      bool ok = process(*item);
      if (ok) queue.forget(*item);
      else queue.add_rate_limited(*item);
      queue.done(*item);
    }
  }

  void heartbeat_loop() {
    std::unique_lock l(mu);
    while (!stopping) {
      cv.wait_for(l, opts.heartbeat_period, [&] { return stopping; });
      if (stopping) return;
      l.unlock();
      for (auto& n : nodes->lister().list()) queue.add("node/" + n->metadata.name);
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
    std::lock_guard l(I.mu);
    if (I.started) return;
    I.started = true;
  }
  I.factory = std::make_unique<informer::SharedInformerFactory>(I.c);
  std::string sel = I.opts.node_selector;
  I.nodes = I.factory->informer_for<api::Node>({}, [sel](client::ListOptions& o) { o.labelSelector = sel; });
  informer::InformerOptions<api::Pod> po;
  po.reflector.decode.dropManagedFields = true;
  po.indexers[kNodeIndex] = [](const api::Pod& p) { return std::vector<std::string>{p.spec.nodeName}; };
  I.pods = I.factory->informer_for<api::Pod>(std::move(po));

  auto nh = std::make_shared<informer::ResourceEventHandlerFuncs<api::Node>>();
  nh->add = [&I](const Ptr<api::Node>& n, bool) {
    if (!Impl::is_ready(*n)) I.queue.add("node/" + n->metadata.name);
    // Pods bound before the node was seen.
    for (auto& p : I.pods->indexer().by_index(kNodeIndex, n->metadata.name)) I.enqueue_pod(*p);
  };
  nh->update = [&I](const Ptr<api::Node>&, const Ptr<api::Node>& n) {
    if (!Impl::is_ready(*n)) I.queue.add("node/" + n->metadata.name);
  };
  I.nodes->add_event_handler(nh);
  auto ph = std::make_shared<informer::ResourceEventHandlerFuncs<api::Pod>>();
  ph->add = [&I](const Ptr<api::Pod>& p, bool) { I.enqueue_pod(*p); };
  ph->update = [&I](const Ptr<api::Pod>&, const Ptr<api::Pod>& p) { I.enqueue_pod(*p); };
  I.pods->add_event_handler(ph);
  I.factory->start();
  for (int i = 0; i < std::max(1, I.opts.workers); ++i) I.workers.emplace_back([&I] {
      util::set_thread_name("nodesim-worker");
      I.worker();
    });
  I.heartbeat = std::thread([&I] {
    util::set_thread_name("nodesim-beat");
    I.heartbeat_loop();
  });
  log::info("Node simulator started", {{"nodeSelector", I.opts.node_selector}, {"workers", I.opts.workers}});
}

void Simulator::stop() {
  auto& I = *impl_;
  {
    std::lock_guard l(I.mu);
    if (!I.started || I.stopping) return;
    I.stopping = true;
    I.cv.notify_all();
  }
  if (I.heartbeat.joinable()) I.heartbeat.join();
  I.queue.shut_down();
  for (auto& w : I.workers) w.join();
  I.workers.clear();
  if (I.factory) I.factory->shutdown();
}

bool Simulator::synced() const {
  return impl_->nodes && impl_->pods && impl_->nodes->has_synced() && impl_->pods->has_synced();
}

Stats Simulator::stats() const {
  return {impl_->started_pods.load(), impl_->deleted_pods.load(), impl_->heartbeats.load(), impl_->errors.load()};
}

}  // namespace ksched::nodesim
