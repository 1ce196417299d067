// Filter + Score cost per node through the framework runtime on a 5,000-node snapshot.
//  - BM_FilterScore_InTree: the default profile (v1.32 defaults) built from the in-tree registry
//    (the plugins it runs are listed in the "plugins" label).
//  - BM_FilterScore_Fakes: trivial filter/score plugins, i.e. the runtime's own overhead.
// Arg 0 = serial (inline parallelizer), 1 = thread pool with parallelism 16 (upstream default).
// ns/node = real time per iteration / nodes (reported as the "ns_per_node" counter).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <cstdio>

#include "scheduler/cache/snapshot.h"
#include "scheduler/config/defaults.h"
#include "scheduler/framework/parallelizer.h"
#include "scheduler/framework/runtime.h"
#include "scheduler/in_tree_registry.h"
#include "scheduler_testing/testing.h"

namespace {
namespace fw = ksched::scheduler::framework;
namespace config = ksched::scheduler::config;
using ksched::scheduler::testing::MakeNode;
using ksched::scheduler::testing::MakePod;

constexpr int kNodes = 5000;
constexpr int kPodsPerNode = 5;

struct Cluster {
  std::shared_ptr<ksched::scheduler::cache::Snapshot> snapshot;
  Cluster() {
    std::vector<fw::NodePtr> nodes;
    std::vector<fw::PodPtr> pods;
    nodes.reserve(kNodes);
    for (int i = 0; i < kNodes; ++i) {
      std::string name = "node-" + std::to_string(i);
      auto nb = MakeNode()
                    .Name(name)
                    .Label("kubernetes.io/hostname", name)
                    .Zone("zone-" + std::to_string(i % 3), "region-1")
                    .Capacity({{"cpu", "32"}, {"memory", "128Gi"}, {"pods", "110"}, {"ephemeral-storage", "100Gi"}})
                    .Image("registry.k8s.io/pause:3.9", 700000)
                    .Image("nginx:1.25", 70000000 + i);
      if (i % 10 == 0) nb.Taint("dedicated", "infra", "NoSchedule");
      nodes.push_back(nb.Ptr());
      for (int j = 0; j < kPodsPerNode; ++j) {
        pods.push_back(MakePod()
                           .Name(name + "-p" + std::to_string(j))
                           .Namespace("ns-" + std::to_string(j))
                           .Node(name)
                           .Label("app", "app-" + std::to_string((i + j) % 10))
                           .Req({{"cpu", "500m"}, {"memory", "1Gi"}})
                           .Ptr());
      }
    }
    snapshot = std::make_shared<ksched::scheduler::cache::Snapshot>(pods, nodes);
  }
};

Cluster& cluster() {
  static Cluster c;
  return c;
}

const ksched::api::Pod& incoming_pod() {
  static const ksched::api::Pod pod = MakePod()
                                          .Name("incoming")
                                          .Namespace("default")
                                          .Label("app", "web")
                                          .Req({{"cpu", "250m"}, {"memory", "256Mi"}})
                                          .Container("nginx:1.25")
                                          .Obj();
  return pod;
}

struct Env {
  ksched::scheduler::testing::FakeClusterLister lister;
  ksched::scheduler::testing::FakeClusterClient client;
  ksched::scheduler::testing::FakeNominator nominator;
  std::unique_ptr<fw::Framework> framework;
  std::string plugins;
};

void drop(config::PluginSet& set, const std::string& name) {
  set.enabled.erase(std::remove_if(set.enabled.begin(), set.enabled.end(),
                                   [&](const config::Plugin& p) { return p.name == name; }),
                    set.enabled.end());
}

std::unique_ptr<Env> make_env(fw::Registry registry, config::KubeSchedulerProfile profile, bool parallel,
                              std::vector<std::string> drop_on_failure) {
  auto env = std::make_unique<Env>();
  for (;;) {
    fw::FrameworkDeps d;
    d.client = &env->client;
    d.lister = &env->lister;
    d.nominator = &env->nominator;
    d.node_infos = cluster().snapshot.get();
    d.storage_infos = cluster().snapshot.get();
    d.parallelism = 16;
    if (!parallel) d.parallelizer = std::make_shared<ksched::scheduler::testing::InlineParallelizer>();
    auto f = fw::Framework::create(profile, registry, d);
    if (f.ok()) {
      env->framework = std::move(f.value());
      break;
    }
    if (drop_on_failure.empty()) {
      std::fprintf(stderr, "framework creation failed: %s\n", f.error().c_str());
      return nullptr;
    }
    std::fprintf(stderr, "framework creation failed (%s); retrying without %s\n", f.error().c_str(),
                 drop_on_failure.back().c_str());
    for (auto ep : config::kSpecificExtensionPoints) drop(profile.plugins.at(ep), drop_on_failure.back());
    drop(profile.plugins.multiPoint, drop_on_failure.back());
    drop_on_failure.pop_back();
  }
  auto lp = env->framework->list_plugins();
  for (const auto& point : {"Filter", "Score"}) {
    env->plugins += std::string(point) + ":";
    for (const auto& n : lp[point]) env->plugins += " " + n;
    env->plugins += "; ";
  }
  return env;
}

void run_cycle(benchmark::State& state, Env& env) {
  auto& f = *env.framework;
  const auto& pod = incoming_pod();
  const auto& nodes = cluster().snapshot->list();
  std::vector<fw::NodeInfoPtr> feasible(nodes.size());
  std::vector<fw::NodePluginScores> scores;
  std::size_t last_feasible = 0;
  for (auto _ : state) {
    fw::CycleState cs;
    fw::PreFilterResult pfr;
    std::set<std::string> unsched;
    auto s = f.run_pre_filter_plugins(cs, pod, pfr, unsched);
    if (!s.is_success()) {
      state.SkipWithError(("prefilter: " + s.message()).c_str());
      return;
    }
    std::atomic<int> n_feasible{0};
    f.parallelizer().until(static_cast<int>(nodes.size()), [&](int i) {
      if (f.run_filter_plugins(cs, pod, *nodes[i]).is_success()) {
        feasible[n_feasible.fetch_add(1, std::memory_order_relaxed)] = nodes[i];
      }
    });
    std::vector<fw::NodeInfoPtr> passing(feasible.begin(), feasible.begin() + n_feasible.load());
    s = f.run_pre_score_plugins(cs, pod, passing);
    if (!s.is_success()) {
      state.SkipWithError(("prescore: " + s.message()).c_str());
      return;
    }
    s = f.run_score_plugins(cs, pod, passing, scores);
    if (!s.is_success()) {
      state.SkipWithError(("score: " + s.message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(scores.data());
    last_feasible = passing.size();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(nodes.size()));
  state.counters["ns_per_node"] = benchmark::Counter(static_cast<double>(state.iterations()) * nodes.size(),
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["feasible"] = static_cast<double>(last_feasible);
  state.SetLabel(env.plugins);
}

void BM_FilterScore_InTree(benchmark::State& state) {
  config::KubeSchedulerProfile profile;
  profile.schedulerName = "default-scheduler";
  config::set_profile_defaults(profile);
  // Plugins that need cluster objects this bench does not provide are dropped if they refuse to start.
  auto env = make_env(ksched::scheduler::new_in_tree_registry(), profile, state.range(0) != 0,
                      {"DefaultPreemption", "NodeVolumeLimits", "VolumeZone", "VolumeRestrictions", "VolumeBinding"});
  if (!env) {
    state.SkipWithError("framework creation failed");
    return;
  }
  run_cycle(state, *env);
}
BENCHMARK(BM_FilterScore_InTree)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// ---- fake plugins: framework overhead only
class CheapFilter final : public fw::FilterPlugin, public fw::ScorePlugin {
 public:
  explicit CheapFilter(std::string n) : name_(std::move(n)) {}
  std::string_view name() const override { return name_; }
  fw::Status filter(const fw::CycleState&, const ksched::api::Pod& pod, const fw::NodeInfo& ni) override {
    return ni.allocatable.milliCPU - ni.requested.milliCPU >= static_cast<std::int64_t>(pod.spec.containers.size())
               ? fw::Status()
               : fw::Status::unschedulable("Insufficient cpu");
  }
  fw::Status score(const fw::CycleState&, const ksched::api::Pod&, const fw::NodeInfo& ni,
                   std::int64_t& s) override {
    s = ni.allocatable.milliCPU ? (ni.allocatable.milliCPU - ni.requested.milliCPU) * 100 / ni.allocatable.milliCPU
                                : 0;
    return {};
  }

 private:
  std::string name_;
};
class Sorter final : public fw::QueueSortPlugin, public fw::BindPlugin {
 public:
  std::string_view name() const override { return "Sorter"; }
  bool less(const fw::QueuedPodInfo&, const fw::QueuedPodInfo&) const override { return false; }
  fw::Status bind(fw::CycleState&, const ksched::api::Pod&, const std::string&) override { return {}; }
};

void BM_FilterScore_Fakes(benchmark::State& state) {
  fw::Registry r;
  config::KubeSchedulerProfile profile;
  profile.schedulerName = "fake";
  for (int i = 0; i < 4; ++i) {
    std::string n = "Cheap" + std::to_string(i);
    (void)r.add(n, [n](const fw::PluginArgs&, fw::Handle&) -> ksched::util::Result<std::shared_ptr<fw::Plugin>> {
      return std::shared_ptr<fw::Plugin>(std::make_shared<CheapFilter>(n));
    });
    profile.plugins.filter.enabled.push_back({n, std::nullopt});
    profile.plugins.score.enabled.push_back({n, 1});
  }
  (void)r.add("Sorter", [](const fw::PluginArgs&, fw::Handle&) -> ksched::util::Result<std::shared_ptr<fw::Plugin>> {
    return std::shared_ptr<fw::Plugin>(std::make_shared<Sorter>());
  });
  profile.plugins.queueSort.enabled = {{"Sorter", std::nullopt}};
  profile.plugins.bind.enabled = {{"Sorter", std::nullopt}};
  auto env = make_env(std::move(r), profile, state.range(0) != 0, {});
  if (!env) {
    state.SkipWithError("framework creation failed");
    return;
  }
  run_cycle(state, *env);
}
BENCHMARK(BM_FilterScore_Fakes)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
