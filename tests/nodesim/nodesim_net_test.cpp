// The kubelet stand-in against the embedded API server: simulated nodes become Ready, bound pods
// Running with IPs and conditions, graceful deletions complete.
#include <gtest/gtest.h>

#include <set>

#include "api/coordination.h"
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

namespace {

api::Pod job_pod(const std::string& name, const std::string& restart, std::vector<std::string> command) {
  api::Pod p = make_pod(name);
  p.spec.restartPolicy = restart;
  p.spec.containers[0].command = std::move(command);
  return p;
}

const api::ContainerStateTerminated* terminated(const api::Pod& p) {
  if (p.status.containerStatuses.empty() || !p.status.containerStatuses[0].state.terminated) return nullptr;
  return &*p.status.containerStatuses[0].state.terminated;
}

}  // namespace

// The kubelet's node Lease (kube-node-lease, holder = node, 40 s, renewed; owned by the Node) and
// labels (hostname, os, arch; zone and region from the options unless the node has its own).
TEST_F(NodesimNet, LeasesAndKubeletLabels) {
  auto c = new_client();
  ASSERT_TRUE(c->create(sim_node("sim-0", true)).ok());
  auto own_zone = sim_node("sim-1", true);
  own_zone.metadata.labels.set("topology.kubernetes.io/zone", "mine");
  ASSERT_TRUE(c->create(own_zone).ok());
  nodesim::Options o;
  o.zones = {"zone-a", "zone-b"};
  o.region = "region-1";
  o.lease_renew_interval = std::chrono::milliseconds(300);
  nodesim::Simulator sim(new_client(), o);
  sim.start();
  ASSERT_TRUE(eventually([&] {
    auto n = c->get<api::Node>("", "sim-0");
    return n && n->metadata.labels.contains("topology.kubernetes.io/region");
  }));
  auto n0 = c->get<api::Node>("", "sim-0");
  EXPECT_EQ(n0->metadata.labels.get("kubernetes.io/hostname"), "sim-0");
  EXPECT_EQ(n0->metadata.labels.get("kubernetes.io/os"), "linux");
  EXPECT_EQ(n0->metadata.labels.get("kubernetes.io/arch"), "amd64");
  EXPECT_EQ(n0->metadata.labels.get("topology.kubernetes.io/zone"), "zone-a");  // node number 0
  EXPECT_EQ(n0->metadata.labels.get("topology.kubernetes.io/region"), "region-1");
  ASSERT_TRUE(eventually([&] {
    auto n = c->get<api::Node>("", "sim-1");
    return n && n->metadata.labels.contains("kubernetes.io/arch");
  }));
  EXPECT_EQ(c->get<api::Node>("", "sim-1")->metadata.labels.get("topology.kubernetes.io/zone"), "mine");

  ASSERT_TRUE(eventually([&] { return c->get<api::Lease>("kube-node-lease", "sim-0").ok(); }));
  auto lease = c->get<api::Lease>("kube-node-lease", "sim-0");
  EXPECT_EQ(lease->spec.holderIdentity.value_or(""), "sim-0");
  EXPECT_EQ(lease->spec.leaseDurationSeconds.value_or(0), 40);
  ASSERT_EQ(lease->metadata.ownerReferences.size(), 1u);
  EXPECT_EQ(lease->metadata.ownerReferences[0].kind, "Node");
  EXPECT_EQ(lease->metadata.ownerReferences[0].uid, n0->metadata.uid);
  auto first = lease->spec.renewTime;
  ASSERT_TRUE(first.has_value());
  ASSERT_TRUE(eventually([&] {
    auto l = c->get<api::Lease>("kube-node-lease", "sim-0");
    return l && l->spec.renewTime && l->spec.renewTime->unixNanos > first->unixNanos;
  }));
  EXPECT_GT(sim.stats().lease_renewals, 1u);
  sim.stop();
}

// Pods that may end (restartPolicy Never/OnFailure) end after their `sleep N`: Succeeded with
// exit code 0, Failed with the code of their `exit N`; OnFailure restarts a failing container in
// place; Always pods keep running.
TEST_F(NodesimNet, PodsRunToCompletion) {
  auto c = new_client();
  ASSERT_TRUE(c->create(sim_node("sim-0", true)).ok());
  nodesim::Options o;
  o.default_run_time = std::chrono::milliseconds(100);
  nodesim::Simulator sim(new_client(), o);
  sim.start();
  ASSERT_TRUE(eventually([&] { return sim.synced(); }));
  std::vector<api::Pod> pods = {job_pod("ok", "Never", {"sh", "-c", "echo hi; sleep 0.3"}),
                                job_pod("bad", "Never", {"sh", "-c", "sleep 0.1; exit 2"}),
                                job_pod("flaky", "OnFailure", {"sh", "-c", "sleep 0.1 && exit 1"}),
                                job_pod("server", "Always", {"sleep", "0.1"})};
  for (auto& p : pods) {
    auto created = c->create(p);
    ASSERT_TRUE(created.ok());
    ASSERT_TRUE(c->bind("default", p.metadata.name, created->metadata.uid, "sim-0").ok());
  }
  ASSERT_TRUE(eventually([&] {
    auto ok = c->get<api::Pod>("default", "ok");
    auto bad = c->get<api::Pod>("default", "bad");
    auto flaky = c->get<api::Pod>("default", "flaky");
    return ok && bad && flaky && ok->status.phase == "Succeeded" && bad->status.phase == "Failed" &&
           !flaky->status.containerStatuses.empty() && flaky->status.containerStatuses[0].restartCount >= 2;
  }));
  auto ok = c->get<api::Pod>("default", "ok");
  ASSERT_NE(terminated(*ok), nullptr);
  EXPECT_EQ(terminated(*ok)->exitCode, 0);
  EXPECT_EQ(terminated(*ok)->reason, "Completed");
  for (const auto& cond : ok->status.conditions)
    if (cond.type == "Ready") {
      EXPECT_EQ(cond.status, "False");
    }
  auto bad = c->get<api::Pod>("default", "bad");
  ASSERT_NE(terminated(*bad), nullptr);
  EXPECT_EQ(terminated(*bad)->exitCode, 2);
  EXPECT_EQ(terminated(*bad)->reason, "Error");
  auto flaky = c->get<api::Pod>("default", "flaky");
  EXPECT_EQ(flaky->status.phase, "Running");
  ASSERT_TRUE(flaky->status.containerStatuses[0].lastState.terminated.has_value());
  EXPECT_EQ(flaky->status.containerStatuses[0].lastState.terminated->exitCode, 1);
  EXPECT_EQ(c->get<api::Pod>("default", "server")->status.phase, "Running");
  auto st = sim.stats();
  EXPECT_EQ(st.pods_succeeded, 1u);
  EXPECT_EQ(st.pods_failed, 1u);
  sim.stop();
}

// What a pod asks of its run: `sleep N` anywhere in a container's command or args (the longest),
// `sleep infinity`, `exit N`, `false`, and the annotations that override them.
TEST(NodesimPodRun, ReadsTheCommandAndAnnotations) {
  using namespace std::chrono_literals;
  auto run = [](std::vector<std::string> cmd, std::vector<std::string> args = {}) {
    api::Pod p = make_pod("x");
    p.spec.containers[0].command = std::move(cmd);
    p.spec.containers[0].args = std::move(args);
    return nodesim::pod_run(p, 1s);
  };
  EXPECT_EQ(run({"sleep", "5"}).run_time, std::optional<std::chrono::milliseconds>(5000ms));
  EXPECT_EQ(run({"sh", "-c"}, {"echo a && sleep 2.5; echo b"}).run_time, std::optional<std::chrono::milliseconds>(2500ms));
  EXPECT_EQ(run({"/bin/sleep", "3s"}).run_time, std::optional<std::chrono::milliseconds>(3000ms));
  EXPECT_FALSE(run({"sleep", "infinity"}).run_time.has_value());
  EXPECT_EQ(run({"perl", "-e", "print 1"}).run_time, std::optional<std::chrono::milliseconds>(1000ms));
  EXPECT_EQ(run({"sh", "-c", "exit 7"}).exit_code, 7);
  EXPECT_EQ(run({"false"}).exit_code, 1);
  EXPECT_EQ(run({"true"}).exit_code, 0);
  api::Pod p = make_pod("x");
  p.metadata.annotations.set("nodesim.ksched.io/run-seconds", "0.5");
  p.metadata.annotations.set("nodesim.ksched.io/exit-code", "4");
  auto r = nodesim::pod_run(p, 1s);
  EXPECT_EQ(r.run_time, std::optional<std::chrono::milliseconds>(500ms));
  EXPECT_EQ(r.exit_code, 4);
}
