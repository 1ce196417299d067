// The kubelet stand-in against the embedded API server: simulated nodes become Ready, bound pods
// Running with IPs and conditions, graceful deletions complete.
#include <gtest/gtest.h>

#include <set>

#include "api/core.h"
#include "net_testing/net_fixture.h"
#include "nodesim/simulator.h"

using namespace ksched;
using namespace std::chrono_literals;
using ksched::testing::eventually;

namespace {

api::Pod make_pod(const std::string& name) { return ksched::testing::pause_pod("default", name); }

api::Node sim_node(const std::string& name, bool simulated) {
  api::Node n = ksched::testing::bare_node(name);
  if (simulated) n.metadata.labels.set("type", "simulated");
  return n;
}

bool ready(const api::Node& n) {
  for (auto& c : n.status.conditions)
    if (c.type == "Ready") return c.status == "True";
  return false;
}

}  // namespace

class NodesimNet : public ksched::testing::ServerTest {};

TEST_F(NodesimNet, NodesReadyPodsRunningAndGracefulDeletionCompletes) {
  auto c = new_client();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(c->create(sim_node("sim-" + std::to_string(i), true)).ok());
  ASSERT_TRUE(c->create(sim_node("real-0", false)).ok());
  nodesim::Simulator sim(new_component_client("node-simulator"));
  sim.start();
  ASSERT_TRUE(eventually([&] { return sim.synced(); }));
  ASSERT_TRUE(eventually([&] {
    auto l = c->list<api::Node>("");
    int n = 0;
    for (auto& node : l->items) n += ready(node);
    return n == 3;
  }));
  auto real = c->get<api::Node>("", "real-0");
  EXPECT_FALSE(ready(*real));  // not ours

  const int kPods = 300;
  for (int i = 0; i < kPods; ++i) {
    auto p = c->create(make_pod("p" + std::to_string(i)));
    ASSERT_TRUE(p.ok()) << p.error().to_string();
    ASSERT_TRUE(c->bind("default", p->metadata.name, p->metadata.uid, "sim-" + std::to_string(i % 3)).ok());
  }
  auto unbound = c->create(make_pod("unbound"));
  ASSERT_TRUE(unbound.ok());
  auto on_real = c->create(make_pod("on-real"));
  ASSERT_TRUE(c->bind("default", "on-real", on_real->metadata.uid, "real-0").ok());

  ASSERT_TRUE(eventually([&] {
    auto l = c->list<api::Pod>("default");
    int running = 0;
    for (auto& p : l->items) running += p.status.phase == "Running";
    return running == kPods;
  }));
  auto l = c->list<api::Pod>("default");
  std::set<std::string> ips;
  for (auto& p : l->items) {
    if (p.metadata.name == "unbound" || p.metadata.name == "on-real") {
      EXPECT_NE(p.status.phase, "Running") << p.metadata.name;
      continue;
    }
    EXPECT_FALSE(p.status.podIP.empty());
    EXPECT_FALSE(p.status.hostIP.empty());
    EXPECT_TRUE(p.status.startTime.has_value());
    std::set<std::string> true_conds;
    for (auto& cond : p.status.conditions)
      if (cond.status == "True") true_conds.insert(cond.type);
    for (const char* t : {"Initialized", "Ready", "ContainersReady", "PodScheduled"})
      EXPECT_TRUE(true_conds.count(t)) << p.metadata.name << " " << t;
    ips.insert(p.status.podIP);
  }
  EXPECT_EQ(ips.size(), std::size_t(kPods));  // 100 per node: unique within each /24

  // Graceful deletion (default grace period): the simulator finishes it with grace 0.
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(c->remove<api::Pod>("default", "p" + std::to_string(i)).ok());
  ASSERT_TRUE(eventually([&] {
    auto all = c->list<api::Pod>("default");
    return all->items.size() == std::size_t(kPods - 50 + 2);
  }));
  EXPECT_GE(sim.stats().pods_started, std::uint64_t(kPods));
  sim.stop();
}
