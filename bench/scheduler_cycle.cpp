// Scheduling cycle per pod, in memory: a full Scheduler (default profile, in-tree plugins) over
// 5,000 nodes holding 10,000 assigned pods, with the in-memory FakeClusterClient/Lister standing
// in for the API server. Each timed iteration is one schedule_one_if_pending() plus waiting for
// its binding cycle (the fake bind only records the call, so binding is cheap).
//
// Parallelizer: the serial InlineParallelizer from the scheduler tests, so figures are per
// scheduling cycle on one core (the machine is shared; a thread pool would measure contention).
//
// Three workloads: plain pods; required pod anti-affinity (hostname) within the new pods'
// group; a zone topology spread constraint (maxSkew 1, DoNotSchedule) on the new pods.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "scheduler/config/defaults.h"
#include "scheduler/in_tree_registry.h"
#include "scheduler/scheduler.h"
#include "scheduler_testing/testing.h"

namespace {

using namespace ksched::scheduler;
using ksched::scheduler::testing::AffinityKind;
using ksched::scheduler::testing::MakeLabelSelector;
using ksched::scheduler::testing::MakeNode;
using ksched::scheduler::testing::MakePod;

constexpr int kNodes = 5000;
constexpr int kExistingPods = 10000;
constexpr const char* kSchedulerName = "default-scheduler";
// Anti-affinity allows one group pod per node; rebuild the cluster before the group could fill it.
constexpr int kMaxNewPodsPerCluster = 4000;

enum class Workload { Basic, AntiAffinity, TopologySpread };

config::KubeSchedulerConfiguration bench_config() { return config::default_configuration(); }

struct Cluster {
  testing::FakeClusterLister lister;
  testing::FakeClusterClient client;
  std::unique_ptr<Scheduler> sched;
  int new_pods = 0;

  bool build(std::string& err) {
    SchedulerOptions o;
    o.parallelizer = std::make_shared<testing::InlineParallelizer>();
    o.seed = 1;
    o.binding_workers = 1;
    auto reg = new_in_tree_registry();
    auto s = Scheduler::create(bench_config(), reg, client, lister, o);
    if (!s.ok()) {
      err = s.error();
      return false;
    }
    sched = std::move(*s);
    for (int i = 0; i < kNodes; ++i) {
      std::string name = "node-" + std::to_string(i);
      auto node = MakeNode()
                      .Name(name)
                      .Label("kubernetes.io/hostname", name)
                      .Zone("zone-" + std::to_string(i % 3))
                      .Capacity({{"cpu", "4"}, {"memory", "32Gi"}, {"pods", "110"}})
                      .Obj();
      auto ptr = std::make_shared<const ksched::api::Node>(std::move(node));
      sched->on_node_add(ptr);
    }
    for (int i = 0; i < kExistingPods; ++i) {
      auto pod = MakePod()
                     .Name("existing-" + std::to_string(i))
                     .Namespace("default")
                     .SchedulerName(kSchedulerName)
                     .Label("app", "existing")
                     .Node("node-" + std::to_string(i % kNodes))
                     .Req({{"cpu", "100m"}, {"memory", "100Mi"}})
                     .Obj();
      auto ptr = std::make_shared<const ksched::api::Pod>(std::move(pod));
      lister.add_pod(ptr);
      sched->on_pod_add(ptr);
    }
    return true;
  }
};

ksched::api::Pod new_pod(Workload w, int i) {
  auto b = MakePod()
               .Name("new-" + std::to_string(i))
               .Namespace("default")
               .SchedulerName(kSchedulerName)
               .Label("group", "bench")
               .Req({{"cpu", "100m"}, {"memory", "100Mi"}});
  switch (w) {
    case Workload::Basic:
      break;
    case Workload::AntiAffinity:
      b.PodAntiAffinityIn("group", "kubernetes.io/hostname", {"bench"}, AffinityKind::Required);
      break;
    case Workload::TopologySpread:
      b.SpreadConstraint(1, "topology.kubernetes.io/zone", "DoNotSchedule",
                         MakeLabelSelector().In("group", {"bench"}).Obj());
      break;
  }
  return b.Obj();
}

void run_workload(benchmark::State& state, Workload w) {
  auto cluster = std::make_unique<Cluster>();
  std::string err;
  if (!cluster->build(err)) {
    state.SkipWithError(err.c_str());
    return;
  }
  std::int64_t scheduled = 0;
  std::int64_t unbound = 0;
  for (auto _ : state) {
    state.PauseTiming();
    if (cluster->new_pods >= kMaxNewPodsPerCluster) {
      cluster = std::make_unique<Cluster>();
      if (!cluster->build(err)) {
        state.SkipWithError(err.c_str());
        break;
      }
    }
    auto binds_before = cluster->client.bind_count();
    auto ptr = std::make_shared<const ksched::api::Pod>(new_pod(w, cluster->new_pods++));
    cluster->lister.add_pod(ptr);
    cluster->sched->on_pod_add(ptr);
    state.ResumeTiming();

    bool ran = cluster->sched->schedule_one_if_pending();
    bool idle = cluster->sched->wait_for_bindings(std::chrono::seconds(10));

    state.PauseTiming();
    if (!ran || !idle || cluster->client.bind_count() != binds_before + 1) ++unbound;
    ++scheduled;
    state.ResumeTiming();
  }
  if (unbound > 0) {
    std::string msg = std::to_string(unbound) + " of " + std::to_string(scheduled) + " pods were not bound";
    state.SkipWithError(msg.c_str());
  }
  state.SetItemsProcessed(scheduled);
}

void BM_SchedulingCycle_Basic(benchmark::State& state) { run_workload(state, Workload::Basic); }
void BM_SchedulingCycle_PodAntiAffinity(benchmark::State& state) { run_workload(state, Workload::AntiAffinity); }
void BM_SchedulingCycle_TopologySpread(benchmark::State& state) { run_workload(state, Workload::TopologySpread); }

BENCHMARK(BM_SchedulingCycle_Basic)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SchedulingCycle_PodAntiAffinity)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SchedulingCycle_TopologySpread)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
