// An embedded API server (TLS + token auth) per test, and clients built from its kubeconfig.
#pragma once
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "api/core.h"
#include "apiserver/server.h"
#include "client/config.h"
#include "client/rest.h"

namespace ksched::testing {

// What network tests create: a Pod with one pause container, and a Node with nothing but its name.
inline api::Pod pause_pod(const std::string& ns, const std::string& name) {
  api::Pod p;
  p.apiVersion = "v1";
  p.kind = "Pod";
  p.metadata.namespace_ = ns;
  p.metadata.name = name;
  api::Container c;
  c.name = "app";
  c.image = "pause";
  p.spec.containers.push_back(c);
  return p;
}

inline api::Node bare_node(const std::string& name) {
  api::Node n;
  n.apiVersion = "v1";
  n.kind = "Node";
  n.metadata.name = name;
  return n;
}

template <class Pred>
bool eventually(Pred p, std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!p()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override { start_server(); }
  void TearDown() override {
    if (server) server->stop();
  }
  void start_server(std::uint16_t port = 0, std::size_t watch_history = 100000) {
    apiserver::Options o;
    o.listen = "127.0.0.1:" + std::to_string(port);
    o.tls = true;
    o.watch_history = watch_history;
    server = std::make_unique<apiserver::Server>(o);
    auto r = server->start();
    ASSERT_TRUE(r.ok()) << r.error();
    auto cfg = client::kubeconfig_from_string(server->kubeconfig());
    ASSERT_TRUE(cfg.ok()) << cfg.error();
    config = *cfg;
    config.qps = 0;  // tests drive load themselves
    config.timeout = std::chrono::seconds(20);
  }
  std::shared_ptr<client::RestClient> new_client() {
    auto c = client::RestClient::create(config);
    EXPECT_TRUE(c.ok()) << c.error();
    return *c;
  }
  // A client with one of ksched's component identities (apiserver/auth/components.h) instead of the
  // admin's, as the component runs in `ksched up`.
  std::shared_ptr<client::RestClient> new_component_client(std::string_view component) {
    client::RestConfig c = config;
    c.bearer_token = server->component_token(component);
    EXPECT_FALSE(c.bearer_token.empty()) << component;
    auto r = client::RestClient::create(c);
    EXPECT_TRUE(r.ok()) << r.error();
    return *r;
  }

  std::unique_ptr<apiserver::Server> server;
  client::RestConfig config;
};

}  // namespace ksched::testing
