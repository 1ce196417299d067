// Controllers against the embedded API server on 127.0.0.1: a ControllerManager running the
// controllers a test names, and helpers to build workloads and wait for their state.
#pragma once
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "api/codec.h"
#include "controllers/controller_manager.h"
#include "controllers/types.h"
#include "informer/factory.h"
#include "net_testing/net_fixture.h"
#include "nodesim/simulator.h"

namespace ksched::testing {

class ControllersTest : public ServerTest {
 protected:
  void TearDown() override {
    if (manager) manager->stop();
    manager.reset();
    stop_helpers();
    ServerTest::TearDown();
  }
  // The server as ksched up runs it: with a controller manager (namespaces wait for the
  // namespace controller; propagationPolicy adds the garbage collector's finalizers).
  void SetUp() override {
    start_server_with_controllers();
  }
  void start_server_with_controllers(std::uint16_t port = 0, std::string data_dir = {}) {
    apiserver::Options o;
    o.listen = "127.0.0.1:" + std::to_string(port);
    o.tls = true;
    o.watch_history = 100000;
    o.controller_manager = true;
    o.data_dir = std::move(data_dir);
    o.feature_gates = server_feature_gates;
    server = std::make_unique<apiserver::Server>(o);
    auto r = server->start();
    ASSERT_TRUE(r.ok()) << r.error();
    auto cfg = client::kubeconfig_from_string(server->kubeconfig());
    ASSERT_TRUE(cfg.ok()) << cfg.error();
    config = *cfg;
    config.qps = 0;
    config.timeout = std::chrono::seconds(20);
  }
  // Starts the named controllers (2 workers each, no events).
  void start_controllers(std::vector<std::string> names) {
    controllers::ControllerManagerOptions o;
    o.controllers = std::move(names);
    o.record_events = false;
    o.feature_gates = controller_feature_gates;
    for (const auto& d : controllers::controller_descriptors()) o.workers[d.name] = 2;
    auto m = controllers::ControllerManager::start(new_client(), o);
    ASSERT_TRUE(m.ok()) << m.error();
    manager = std::move(*m);
  }
  std::shared_ptr<client::RestClient> c() {
    if (!client_) client_ = new_client();
    return client_;
  }
  std::vector<api::Pod> pods(const std::string& ns, const std::string& selector = {}) {
    client::ListOptions o;
    o.labelSelector = selector;
    auto l = c()->list<api::Pod>(ns, o);
    EXPECT_TRUE(l.ok());
    return l ? l->items : std::vector<api::Pod>{};
  }
  // Simulated nodes (labelled type=simulated) and the kubelet stand-in running them.
  void start_nodes(int n, nodesim::Options o = {}) {
    for (int i = 0; i < n; ++i) add_node("node-" + std::to_string(i));
    o.default_run_time = std::chrono::milliseconds(200);
    sim = std::make_unique<nodesim::Simulator>(new_client(), o);
    sim->start();
    ASSERT_TRUE(eventually([&] { return sim->synced(); }));
  }
  void add_node(const std::string& name) {
    api::Node node = bare_node(name);
    node.metadata.labels.set("type", "simulated");
    ASSERT_TRUE(c()->create(node).ok());
  }
  // A stand-in for the scheduler: binds every pending pod, a daemon pod to the node its
  // metadata.name affinity names, any other to the nodes in turn.
  void start_binder() {
    binder_factory = std::make_unique<informer::SharedInformerFactory>(new_client());
    auto pods = binder_factory->informer_for<api::Pod>();
    auto h = std::make_shared<informer::ResourceEventHandlerFuncs<api::Pod>>();
    auto bind = [this](const informer::Ptr<api::Pod>& p) {
      if (!p->spec.nodeName.empty() || p->metadata.deletionTimestamp || !p->spec.schedulingGates.empty()) return;
      std::string node;
      if (p->spec.affinity && p->spec.affinity->nodeAffinity &&
          p->spec.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution)
        for (const auto& t : p->spec.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution->nodeSelectorTerms)
          for (const auto& f : t.matchFields)
            if (f.key == "metadata.name" && !f.values.empty()) node = f.values[0];
      if (node.empty()) {
        auto nodes = binder_client->list<api::Node>("");
        if (!nodes || nodes->items.empty()) return;
        node = nodes->items[next_node++ % nodes->items.size()].metadata.name;
      }
      (void)binder_client->bind(p->metadata.namespace_, p->metadata.name, p->metadata.uid, node);
    };
    h->add = [bind](const informer::Ptr<api::Pod>& p, bool) { bind(p); };
    h->update = [bind](const informer::Ptr<api::Pod>&, const informer::Ptr<api::Pod>& p) { bind(p); };
    binder_client = new_client();
    pods->add_event_handler(h);
    binder_factory->start();
  }
  void stop_helpers() {
    if (binder_factory) binder_factory->shutdown();
    if (sim) sim->stop();
  }

  // Gates for the server and the controllers a test starts (set before SetUp / start_controllers).
  apiserver::FeatureGates server_feature_gates;
  std::map<std::string, bool> controller_feature_gates;
  std::unique_ptr<controllers::ControllerManager> manager;
  std::unique_ptr<nodesim::Simulator> sim;
  std::unique_ptr<informer::SharedInformerFactory> binder_factory;
  std::shared_ptr<client::RestClient> binder_client;
  std::atomic<std::size_t> next_node{0};

 private:
  std::shared_ptr<client::RestClient> client_;
};

inline controllers::PodTemplateSpec pod_template(const std::string& app, const std::string& image = "nginx") {
  controllers::PodTemplateSpec t;
  t.metadata.labels.set("app", app);
  api::Container c;
  c.name = "app";
  c.image = image;
  t.spec.containers.push_back(c);
  return t;
}

inline api::LabelSelector app_selector(const std::string& app) {
  api::LabelSelector s;
  s.matchLabels.set("app", app);
  return s;
}

inline bool has_owner(const api::ObjectMeta& m, std::string_view uid) {
  for (const auto& r : m.ownerReferences)
    if (r.uid == uid && r.controller.value_or(false)) return true;
  return false;
}

}  // namespace ksched::testing
