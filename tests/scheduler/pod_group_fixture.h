// The cluster side of the pod-group cycle tests (pod_group_cycle_test.cpp,
// composite_pod_group_cycle_test.cpp): a scheduler over a fake lister and client, with the helpers
// that play the API server and the informers around it — nodes and group members added, bindings
// confirmed as the informer shows them, preemption's deletions carried out, time passed for the
// backoffs. A test fixture derives from it, makes `sched` in its SetUp (its own options and
// registry) and may watch deletions through the two hooks.
#pragma once
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "scheduler/config/features.h"
#include "scheduler/podgroup/metrics.h"
#include "scheduler/scheduler.h"
#include "scheduler/test_options.h"
#include "scheduler_testing/testing.h"

namespace ksched::scheduler {

class PodGroupClusterFixture : public ::testing::Test {
 protected:
  // The gates hold for the fixture's life (the scheduler is destroyed before they are restored).
  explicit PodGroupClusterFixture(const config::Features& features) : gates(features) {}

  void add_node(const std::string& name, const std::string& cpu) {
    auto n = std::make_shared<const api::Node>(
        testing::MakeNode().Name(name).Capacity({{"cpu", cpu}, {"pods", "100"}}).Obj());
    nodes[name] = n;
    sched->on_node_add(n);
  }
  // A member of a v1beta1 PodGroup in "default" (spec.schedulingGroup.podGroupName).
  framework::PodPtr add_pg_member(const std::string& name, const std::string& pod_group, const std::string& cpu) {
    api::Pod p = testing::MakePod().Name(name).UID(name).Req({{"cpu", cpu}}).PodGroupName(pod_group).Obj();
    p.spec.schedulerName = "default-scheduler";
    return add_pod(std::move(p));
  }
  // The pod created: in the lister, `pods` and the scheduler's informer.
  framework::PodPtr add_pod(api::Pod p) {
    auto ptr = std::make_shared<const api::Pod>(std::move(p));
    lister.add_pod(ptr);
    pods[std::string(ptr->metadata.name.view())] = ptr;
    sched->on_pod_add(ptr);
    return ptr;
  }
  // The pod comes back from the server bound, as the informer shows it.
  void confirm(const testing::FakeClusterClient::Bind& b) {
    const std::string name = b.pod.substr(b.pod.find('/') + 1);
    auto old = pods.at(name);
    auto bound = std::make_shared<api::Pod>(*old);
    bound->spec.nodeName = b.node;
    framework::PodPtr ptr = bound;
    lister.add_pod(ptr);
    pods[name] = ptr;
    sched->on_pod_update(old, ptr);
  }
  // Runs cycles until nothing is pending (at most 1,000), waits for the bindings, and confirms each
  // new binding. Returns the cycles run.
  int run_cycles() {
    int cycles = 0;
    while (cycles < 1000 && sched->schedule_one_if_pending()) ++cycles;
    EXPECT_TRUE(sched->wait_for_bindings(std::chrono::seconds(10)));
    auto binds = client.binds();
    for (std::size_t i = confirmed; i < binds.size(); ++i) confirm(binds[i]);
    confirmed = binds.size();
    return cycles;
  }
  // The API server carried out the deletions the scheduler asked for (preemption's victims), and
  // the informer reports them. Returns the pods deleted.
  std::vector<std::string> apply_deletes() {
    std::vector<std::string> out;
    auto deletes = client.deletes();
    for (std::size_t i = deletes_applied; i < deletes.size(); ++i) {
      const std::string name = deletes[i].substr(deletes[i].find('/') + 1);
      auto it = pods.find(name);
      if (it == pods.end()) continue;
      framework::PodPtr gone = it->second;
      lister.remove_pod(gone->metadata.namespace_, name);
      pods.erase(it);
      sched->on_pod_delete(gone);
      out.push_back(name);
      on_pod_deleted(*gone);
    }
    deletes_applied = deletes.size();
    on_deletes_applied();
    return out;
  }
  // Cycles and deletions until nothing more happens (at most 10 rounds).
  void settle() {
    for (int round = 0; round < 10; ++round) {
      run_cycles();
      if (apply_deletes().empty()) return;
    }
  }
  // Retries what waits in backoffQ or unschedulablePods (time passes, the leftover flush runs).
  void let_time_pass() {
    clock.step(std::chrono::minutes(6));
    sched->queue().flush_backoff_q_completed();
    sched->queue().flush_unschedulable_pods_leftover();
  }

  // Hooks of apply_deletes: each pod deleted (before its removal is checked), then the batch done.
  virtual void on_pod_deleted(const api::Pod& /*gone*/) {}
  virtual void on_deletes_applied() {}

  config::ScopedFeatures gates;
  util::FakeClock clock;
  testing::FakeClusterLister lister;
  testing::FakeClusterClient client;
  metrics::Registry registry;
  metrics::SchedulerMetrics metrics{registry};
  podgroup::PodGroupMetrics group_metrics{registry};
  std::unique_ptr<Scheduler> sched;
  std::map<std::string, framework::NodePtr> nodes;
  std::map<std::string, framework::PodPtr> pods;
  std::size_t confirmed = 0;        // bindings confirmed so far
  std::size_t deletes_applied = 0;  // deletions carried out so far
};

}  // namespace ksched::scheduler
