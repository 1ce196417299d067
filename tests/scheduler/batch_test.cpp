// Opportunistic batching (scheduler/batch.h): pod signatures, and placement identical to the
// unbatched path. Two schedulers, one with the OpportunisticBatching gate on and one with it off,
// receive the same randomized stream of nodes, pods and cluster changes in lockstep; after every
// scheduling cycle both must have bound the pod to the same node (or both failed to place it).
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "scheduler/config/defaults.h"
#include "scheduler/in_tree_registry.h"
#include "scheduler/scheduler.h"
#include "scheduler/test_options.h"
#include "scheduler_testing/testing.h"

namespace ksched::scheduler {
namespace {

using namespace std::chrono_literals;
using testing::MakeNode;
using testing::MakePod;

// One scheduler with its fakes, driven through the informer handlers as in production.
struct Instance {
  explicit Instance(bool batching, std::int32_t percentage = 0) {
    auto cfg = config::default_configuration();
    cfg.percentageOfNodesToScore = percentage;
    auto o = test_scheduler_options(clock, metrics, /*seed=*/11, /*binding_workers=*/1);
    o.opportunistic_batching = batching;
    auto s = Scheduler::create(cfg, new_in_tree_registry(), client, lister, o);
    EXPECT_TRUE(s.ok()) << s.error();
    sched = std::move(*s);
  }

  util::FakeClock clock;
  testing::FakeClusterLister lister;
  testing::FakeClusterClient client;
  metrics::Registry registry;
  metrics::SchedulerMetrics metrics{registry};
  std::unique_ptr<Scheduler> sched;
  std::size_t binds_seen = 0;
  std::map<std::string, framework::PodPtr> pods;  // by name
  std::map<std::string, framework::NodePtr> nodes;

  void add_node(const api::Node& n) {
    auto p = std::make_shared<const api::Node>(n);
    nodes[n.metadata.name] = p;
    sched->on_node_add(p);
  }
  void update_node(const api::Node& n) {
    auto p = std::make_shared<const api::Node>(n);
    sched->on_node_update(nodes.at(n.metadata.name), p);
    nodes[n.metadata.name] = p;
  }
  void delete_node(const std::string& name) {
    sched->on_node_delete(nodes.at(name));
    nodes.erase(name);
  }
  void add_pod(api::Pod p) {
    p.spec.schedulerName = "default-scheduler";
    auto ptr = std::make_shared<const api::Pod>(std::move(p));
    lister.add_pod(ptr);
    pods[ptr->metadata.name] = ptr;
    sched->on_pod_add(ptr);
  }
  void delete_pod(const std::string& name) {
    sched->on_pod_delete(pods.at(name));
    pods.erase(name);
  }
  // One cycle; the binding, if any, comes back as the informer's update of the pod (which
  // confirms the assumed pod in the cache). Returns the node, "" when nothing was bound, or
  // "(idle)" when no pod was pending.
  std::string cycle() {
    if (!sched->schedule_one_if_pending()) return "(idle)";
    EXPECT_TRUE(sched->wait_for_bindings(10s));
    auto binds = client.binds();
    if (binds.size() == binds_seen) return "";
    const auto b = binds.back();
    binds_seen = binds.size();
    const std::string name = b.pod.substr(b.pod.find('/') + 1);
    auto old_pod = pods.at(name);
    api::Pod bound = *old_pod;
    bound.spec.nodeName = b.node;
    auto ptr = std::make_shared<const api::Pod>(std::move(bound));
    pods[name] = ptr;
    sched->on_pod_update(old_pod, ptr);
    return b.node;
  }
  double batched() { return metrics.batchAttempts.with({"default-scheduler", "hint_used"}).value(); }
};

// Pod shapes: pods of one shape share a signature.
api::Pod shape_pod(int shape, const std::string& name) {
  auto w = MakePod().Name(name).Namespace("default").UID("uid-" + name).Container("registry/app:v1");
  switch (shape) {
    case 0: w.Req({{"cpu", "500m"}, {"memory", "512Mi"}}); break;
    case 1: w.Req({{"cpu", "1"}, {"memory", "1Gi"}}).NodeSelector({{"disk", "ssd"}}); break;
    case 2: w.Req({{"cpu", "250m"}}).Toleration("dedicated", "Equal", "batch", "NoSchedule"); break;
    case 3: w.Req({{"cpu", "200m"}, {"memory", "128Mi"}}).HostPort(8080); break;
    case 4: {
      api::NodeSelectorTerm t;
      api::NodeSelectorRequirement r;
      r.key = "zone";
      r.operator_ = "In";
      r.values = {"z1"};
      t.matchExpressions.push_back(r);
      w.Req({{"cpu", "300m"}, {"memory", "256Mi"}}).PreferredNodeAffinity(5, t);
      break;
    }
    case 5: w.Req({{"memory", "2Gi"}}).Label("app", "web"); break;  // cpu from the scoring default
    default: w.Req({{"cpu", "2"}, {"memory", "3Gi"}}); break;      // large: saturates nodes
  }
  return w.Obj();
}

api::Node random_node(std::mt19937_64& rng, const std::string& name) {
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  auto w = MakeNode()
               .Name(name)
               .Capacity({{"cpu", std::to_string(1 + pick(8))},
                          {"memory", std::to_string(2 + pick(14)) + "Gi"},
                          {"pods", std::to_string(5 + pick(40))}})
               .Label("zone", "z" + std::to_string(pick(3)))
               .Label("disk", pick(2) ? "ssd" : "hdd");
  if (pick(3) == 0) w.Image("registry/app:v1", 300LL * 1024 * 1024);
  if (pick(6) == 0) w.Taint("dedicated", "batch", "NoSchedule");
  if (pick(5) == 0) w.Taint("flaky", "yes", "PreferNoSchedule");
  return w.Obj();
}

// The randomized lockstep run; returns how many pods the batching scheduler placed from a batch.
double run_lockstep(std::uint64_t seed, int steps, std::int32_t percentage, int initial_nodes) {
  Instance on(true, percentage), off(false, percentage);
  std::mt19937_64 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  int node_seq = 0, pod_seq = 0;
  auto both = [&](auto&& f) {
    f(on);
    f(off);
  };
  for (int i = 0; i < initial_nodes; ++i) {
    auto n = random_node(rng, "node-" + std::to_string(node_seq++));
    both([&](Instance& x) { x.add_node(n); });
  }
  std::vector<std::string> placed;  // pods bound in both, for deletions
  for (int step = 0; step < steps; ++step) {
    const int what = pick(100);
    if (what < 4) {  // a new node
      auto n = random_node(rng, "node-" + std::to_string(node_seq++));
      both([&](Instance& x) { x.add_node(n); });
    } else if (what < 7 && !on.nodes.empty()) {  // relabel / retaint a node
      auto it = on.nodes.begin();
      std::advance(it, pick(static_cast<int>(on.nodes.size())));
      api::Node n = *it->second;
      n.metadata.labels.set("zone", "z" + std::to_string(pick(3)));
      if (pick(2)) n.spec.taints.clear();
      both([&](Instance& x) { x.update_node(n); });
    } else if (what < 9 && on.nodes.size() > 3) {  // a node goes away
      auto it = on.nodes.begin();
      std::advance(it, pick(static_cast<int>(on.nodes.size())));
      const std::string name = it->first;
      both([&](Instance& x) { x.delete_node(name); });
    } else if (what < 20 && !placed.empty()) {  // a bound pod ends: room on its node
      const std::size_t k = pick(static_cast<int>(placed.size()));
      const std::string name = placed[k];
      placed.erase(placed.begin() + static_cast<std::ptrdiff_t>(k));
      both([&](Instance& x) { x.delete_pod(name); });
    } else {  // a run of pods of one shape, scheduled one by one
      const int shape = pick(7);
      const int run = 1 + pick(12);
      for (int r = 0; r < run; ++r) {
        auto p = shape_pod(shape, "pod-" + std::to_string(pod_seq++));
        both([&](Instance& x) { x.add_pod(p); });
        const std::string a = on.cycle();
        const std::string b = off.cycle();
        EXPECT_EQ(a, b) << "seed " << seed << " step " << step << " pod " << p.metadata.name << " shape " << shape;
        if (a != b) return on.batched();
        if (!a.empty() && a != "(idle)") placed.push_back(p.metadata.name);
      }
    }
  }
  // Pods left unschedulable must be the same in both.
  EXPECT_EQ(on.client.binds().size(), off.client.binds().size());
  return on.batched();
}

TEST(OpportunisticBatching, PlacementIdenticalToUnbatchedOnRandomWorkloads) {
  double batched = 0;
  for (std::uint64_t seed : {1u, 2u, 3u, 4u, 5u, 6u}) {
    batched += run_lockstep(seed, 120, 0, 40);
    if (HasFailure()) return;
  }
  // The runs did exercise the batch.
  EXPECT_GT(batched, 100);
}

// Sampling (percentageOfNodesToScore < 100 of a cluster over 100 nodes): the batch chooses within
// the sample of its first pod, so placements may differ from the unbatched path; every pod must
// still land on a node that fits it.
TEST(OpportunisticBatching, SampledBatchStillPlacesOnFeasibleNodes) {
  Instance on(true, 10);
  for (int i = 0; i < 300; ++i) {
    on.add_node(
        MakeNode().Name("n" + std::to_string(i)).Capacity({{"cpu", "2"}, {"memory", "4Gi"}, {"pods", "10"}}).Obj());
  }
  std::map<std::string, int> per_node;
  for (int i = 0; i < 1200; ++i) {
    on.add_pod(shape_pod(0, "p" + std::to_string(i)));
    const std::string node = on.cycle();
    ASSERT_FALSE(node.empty()) << i;
    ++per_node[node];
  }
  // 1200 pods of 500m on 300 nodes of 2 CPUs: exactly full, which only a placement that never
  // overcommits a node achieves.
  EXPECT_EQ(per_node.size(), 300u);
  for (const auto& [n, c] : per_node) EXPECT_EQ(c, 4) << n;
  EXPECT_GT(on.batched(), 600);
  // The sample's batch ended after as many pods as it had nodes, many times over.
  EXPECT_GT(on.metrics.batchCacheFlushed.with({"default-scheduler", "limit_reached"}).value(), 0);
  // Every ask for a hint is timed, under the answer it got (upstream's GetNodeHint and
  // StoreScheduleResults durations); every full cycle of a signed pod stores its results.
  const auto hinted = on.metrics.getNodeHintDuration.with({"hint", "default-scheduler"}).count();
  const auto not_hinted = on.metrics.getNodeHintDuration.with({"no_hint", "default-scheduler"}).count();
  EXPECT_EQ(static_cast<double>(hinted), on.batched());
  EXPECT_EQ(static_cast<double>(hinted + not_hinted),
            on.batched() + on.metrics.batchAttempts.with({"default-scheduler", "no_hint"}).value());
  const auto stored = on.metrics.storeScheduleResultsDuration.with({"default-scheduler"}).count();
  EXPECT_GT(stored, 0u);
  EXPECT_LE(stored, 1200u - hinted);
}

TEST(OpportunisticBatching, GateOffNeverBatches) {
  Instance off(false);
  for (int i = 0; i < 5; ++i) {
    off.add_node(MakeNode().Name("n" + std::to_string(i)).Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "10"}}).Obj());
  }
  for (int i = 0; i < 10; ++i) {
    off.add_pod(shape_pod(0, "p" + std::to_string(i)));
    EXPECT_FALSE(off.cycle().empty());
  }
  EXPECT_EQ(off.batched(), 0);
}

// ---------------------------------------------------------------- signatures

class Signatures : public ::testing::Test {
 protected:
  Signatures() : inst(true) {}
  std::optional<std::string> sign(const api::Pod& p) {
    return inst.sched->profile("default-scheduler")->sign_pod(p);
  }
  Instance inst;
};

TEST_F(Signatures, EqualForPodsThatDifferOnlyInWhatNoPluginReads) {
  auto a = shape_pod(0, "a");
  auto b = shape_pod(0, "b");
  b.metadata.annotations.set("note", "x");
  ASSERT_TRUE(sign(a));
  EXPECT_EQ(sign(a), sign(b));
}

TEST_F(Signatures, DifferWhenAPluginReadsTheDifference) {
  const auto base = sign(shape_pod(0, "a"));
  ASSERT_TRUE(base);
  for (int shape = 1; shape < 7; ++shape) EXPECT_NE(sign(shape_pod(shape, "a")), base) << shape;
  auto labelled = shape_pod(0, "a");
  labelled.metadata.labels.set("app", "other");  // existing pods' affinity terms may match it
  EXPECT_NE(sign(labelled), base);
  auto other_ns = shape_pod(0, "a");
  other_ns.metadata.namespace_ = "other";
  EXPECT_NE(sign(other_ns), base);
  auto image = shape_pod(0, "a");
  image.spec.containers[0].image = "registry/app:v2";
  EXPECT_NE(sign(image), base);
}

TEST_F(Signatures, UnsignableWhenPlacementDependsOnOtherPods) {
  auto anti = MakePod()
                  .Name("a")
                  .Namespace("default")
                  .PodAntiAffinityExists("app", "zone", testing::AffinityKind::Required)
                  .Obj();
  EXPECT_FALSE(sign(anti));
  auto spread = MakePod()
                    .Name("s")
                    .Namespace("default")
                    .SpreadConstraint(1, "zone", "DoNotSchedule", testing::MakeLabelSelector().Exists("app").Obj())
                    .Obj();
  EXPECT_FALSE(sign(spread));
  auto claim = MakePod().Name("c").Namespace("default").PVC("data").Obj();
  EXPECT_FALSE(sign(claim));
}

}  // namespace
}  // namespace ksched::scheduler
