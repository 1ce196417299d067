// One tiny workload end to end: embedded API server + in-process scheduler, created through the
// API, every measured pod bound, and the JSON record complete.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <thread>

#include "client/resources_dra.h"
#include "client/rest.h"
#include "localcluster/local_cluster.h"
#include "perf/report.h"
#include "perf/runner.h"
#include "perf/workload.h"

namespace ksched::perf {
namespace {

const char* kTiny = R"(
- name: Tiny
  defaultPodTemplatePath: templates/pod-default.yaml
  workloadTemplate:
  - opcode: createNodes
    countParam: $initNodes
    nodeTemplatePath: templates/node-default.yaml
    labelNodePrepareStrategy:
      labelKey: topology.kubernetes.io/zone
      labelValues: [moon-1, moon-2]
  - opcode: createPods
    countParam: $initPods
  - opcode: barrier
  - opcode: createPods
    countParam: $measurePods
    podTemplatePath: templates/pod-with-topology-spreading.yaml
    collectMetrics: true
  workloads:
  - name: 20Nodes
    params: {initNodes: 20, initPods: 10, measurePods: 50}
)";

// An in-process run bounded by a stall timeout (if binding stops, the run fails instead of hanging).
RunOptions in_process(int create_workers) {
  RunOptions ro;
  ro.scheduler = "in-process";
  ro.create_workers = create_workers;
  ro.stall_seconds = 60;
  return ro;
}

TEST(BenchRun, TinyWorkloadInProcessBindsEveryPod) {
  auto cfg = parse_config(kTiny, std::string(KSCHED_SOURCE_DIR) + "/bench/workloads");
  ASSERT_TRUE(cfg) << cfg.error();
  auto w = resolve(*cfg, "Tiny/20Nodes");
  ASSERT_TRUE(w) << w.error();
  auto res = run_workload(*w, in_process(4));
  ASSERT_TRUE(res.ok) << res.error;
  EXPECT_EQ(res.measured_pods, 50);
  EXPECT_EQ(res.measured_bound, 50);
  EXPECT_GT(res.measured_seconds, 0);
  EXPECT_GE(res.throughput.samples, 1u);
  EXPECT_GT(res.throughput.average, 0);
  EXPECT_GT(res.peak_rss_kb, 0);
  // The in-process scheduler's metrics cover the measured attempts.
  EXPECT_TRUE(res.attempt_latency.available);
  EXPECT_GE(res.attempt_latency.count, 50);

  Report r;
  r.machine = machine_info();
  r.results.push_back(res);
  auto v = boost::json::parse(to_json(r));
  const auto& o = v.as_object().at("results").as_array().at(0).as_object();
  EXPECT_EQ(o.at("name").as_string(), "Tiny/20Nodes");
  EXPECT_TRUE(o.at("ok").as_bool());
  EXPECT_EQ(o.at("measuredPodsBound").as_int64(), 50);
  for (const char* k : {"Average", "Perc50", "Perc90", "Perc95", "Perc99"})
    EXPECT_TRUE(o.at("SchedulingThroughput").as_object().contains(k)) << k;
  EXPECT_TRUE(o.at("cpu").as_object().contains("byStage"));
  EXPECT_TRUE(o.at("memory").as_object().contains("peakRssKiB"));
}

// Gangs end to end (issue #44): the committed GangScheduling workload's smallest size, with the
// cluster's gates from the workload (the server serves Workloads, the scheduler runs GangScheduling):
// every member bound, and each gang's placement reported.
TEST(BenchRun, GangWorkloadBindsEveryGangWhole) {
  auto cfg = load_config_dir(std::string(KSCHED_SOURCE_DIR) + "/bench/workloads");
  ASSERT_TRUE(cfg) << cfg.error();
  auto w = resolve(*cfg, "GangScheduling/10Nodes_3Gangs");
  ASSERT_TRUE(w) << w.error();
  auto res = run_workload(*w, in_process(2));
  ASSERT_TRUE(res.ok) << res.error;
  EXPECT_EQ(res.measured_bound, 9);
  ASSERT_EQ(res.gangs.size(), 3u);
  for (const auto& g : res.gangs) {
    EXPECT_EQ(g.members_bound, 3) << "gang " << g.gang;
    EXPECT_LE(g.first_bound, g.last_bound);
    EXPECT_GT(g.last_seen, 0);  // its members were seen created, before the last was bound
    EXPECT_LE(g.last_seen, g.last_bound);
  }
  EXPECT_EQ(res.gang_placement.samples, 3u);
  EXPECT_EQ(res.gang_span.samples, 3u);
  Report r;
  r.machine = machine_info();
  r.results.push_back(res);
  auto v = boost::json::parse(to_json(r));
  const auto& g = v.as_object().at("results").as_array().at(0).as_object().at("gangs").as_object();
  EXPECT_EQ(g.at("count").as_int64(), 3);
  EXPECT_EQ(g.at("each").as_array().size(), 3u);
}

// CompositePodGroups end to end (issue #44): the smallest size of each committed CPG test case
// (basic, gang, preemption and topology-aware trees, upstream's cpg/performance-config.yaml), with
// the cluster's gates from the workload: every measured pod bound, each PodGroup's members reported
// as one gang. The topology-aware one also renders its node template per node (zone and rack labels
// from .Index), without which no placement would hold a node. The preemption ones bind only once
// the scheduler preempts for the whole tree: standalone priority-0 pods (Basic; Affinity, whose
// preemptors' required pod affinity holds only through the anchors that outrank them and stay) or
// lower-priority trees (CPG) fill every node.
TEST(BenchRun, CompositePodGroupWorkloadsBindEveryTree) {
  auto cfg = load_config_dir(std::string(KSCHED_SOURCE_DIR) + "/bench/workloads");
  ASSERT_TRUE(cfg) << cfg.error();
  struct Case {
    const char* name;
    long pods;
    std::size_t groups;
  };
  for (const Case& c : {Case{"CPGBasicScheduling/10Nodes_3CPGs_6Groups_18Pods", 18, 6},
                        Case{"CPGGangScheduling/10Nodes_3CPGs_6Groups_18Pods", 18, 6},
                        Case{"CPGTopologyAwareScheduling/10Nodes_3CPGs_6Groups_18Pods", 18, 6},
                        Case{"CPGPreemptionBasic/2Nodes_1PreemptorCPG_2Groups_2Pods_Evicting_10InitPods", 2, 2},
                        Case{"CPGPreemptionCPG/2Nodes_1PreemptorCPG_2Groups_2Pods_Evicting_2LowPriorityCPGs", 2, 2},
                        Case{"CPGPreemptionAffinity/2Nodes_1PreemptorCPG_2Groups_2Pods_Evicting_10InitPods", 2, 2}}) {
    SCOPED_TRACE(c.name);
    auto w = resolve(*cfg, c.name);
    ASSERT_TRUE(w) << w.error();
    auto res = run_workload(*w, in_process(2));
    ASSERT_TRUE(res.ok) << res.error;
    EXPECT_EQ(res.measured_bound, c.pods);
    ASSERT_EQ(res.gangs.size(), c.groups);
    for (const auto& g : res.gangs)
      EXPECT_EQ(g.members_bound, c.pods / static_cast<long>(c.groups)) << "group " << g.gang;
  }
}

// A run that cannot bind its pods fails with a clear message instead of hanging or passing.
TEST(BenchRun, ExternalSchedulerThatNeverComesFailsAsLostPods) {
  auto cfg = parse_config(kTiny, std::string(KSCHED_SOURCE_DIR) + "/bench/workloads");
  ASSERT_TRUE(cfg) << cfg.error();
  auto w = resolve(*cfg, "Tiny/20Nodes", {{"initNodes", 2}, {"initPods", 3}});
  ASSERT_TRUE(w) << w.error();
  RunOptions ro;
  ro.scheduler = "external";  // nobody schedules
  ro.stall_seconds = 1;
  auto res = run_workload(*w, ro);
  ASSERT_FALSE(res.ok);
  EXPECT_NE(res.error.find("lost pods: 3 of 3 pods in namespace namespace-1 were never bound"), std::string::npos)
      << res.error;
}

// The DRA workloads create what upstream's do, checked in a cluster of the test's own that
// outlives the runs: one ResourceSlice per DRA node with maxClaimsPerNode devices, the
// DeviceClass and the claim templates, one claim per pod made from its template by the
// ResourceClaim controller, and allocResourceClaims' claims allocated on distinct devices.
TEST(BenchRun, DraWorkloadsCreateSlicesClaimsAndAllocations) {
  namespace resourceapi = api::resourcev1;
  const std::string kubeconfig =
      (std::filesystem::temp_directory_path() / ("ksched-bench-dra-" + std::to_string(::getpid()) + ".kubeconfig")).string();
  localcluster::LocalClusterOptions lo;
  lo.nodes = 0;
  lo.run_node_simulator = false;
  lo.controllers = {"resourceclaim-controller"};
  lo.scheduler_secure_port = -1;
  lo.kubeconfig_out = kubeconfig;
  auto cluster = localcluster::LocalCluster::start(lo);
  ASSERT_TRUE(cluster) << cluster.error();
  auto client = (*cluster)->client();

  auto cfg = load_config_dir(std::string(KSCHED_SOURCE_DIR) + "/bench/workloads");
  ASSERT_TRUE(cfg) << cfg.error();
  RunOptions ro;
  ro.scheduler = "external";  // the cluster's own scheduler binds
  ro.kubeconfig = kubeconfig;
  ro.create_workers = 4;
  ro.stall_seconds = 30;

  // Ten pods with a claim template, and four claims allocated up front.
  auto w = resolve(*cfg, "SchedulingWithResourceClaimTemplate/fast");
  ASSERT_TRUE(w) << w.error();
  auto res = run_workload(*w, ro);
  ASSERT_TRUE(res.ok) << res.error;
  EXPECT_EQ(res.measured_bound, 10);

  auto slices = client->list<resourceapi::ResourceSlice>("");
  ASSERT_TRUE(slices) << slices.error().to_string();
  ASSERT_EQ(slices->items.size(), 1u);  // one DRA node (and one node without)
  const auto& slice = slices->items[0];
  EXPECT_EQ(std::string_view(slice.spec.driver), "test-driver.cdi.k8s.io");
  ASSERT_TRUE(slice.spec.nodeName);
  EXPECT_EQ(*slice.spec.nodeName, "scheduler-perf-dra-1");
  EXPECT_EQ(std::string_view(slice.spec.pool.name), "scheduler-perf-dra-1");
  ASSERT_EQ(slice.spec.devices.size(), 10u);
  EXPECT_EQ(std::string_view(slice.spec.devices[9].name), "instance-9");
  ASSERT_NE(slice.spec.devices[9].attributes.find("dra.example.com/numa"), nullptr);
  EXPECT_EQ(*slice.spec.devices[9].attributes.find("dra.example.com/numa")->int_, 9);
  EXPECT_TRUE(client->get<resourceapi::DeviceClass>("", "test-class"));
  EXPECT_TRUE(client->get<resourceapi::ResourceClaimTemplate>("test", "test-claim-template"));

  // Every pod gets its claim from the controller (asynchronously: wait for it, bounded).
  auto claims_of_pods = [&](const std::string& ns, std::size_t want) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    for (;;) {
      auto claims = client->list<resourceapi::ResourceClaim>(ns);
      EXPECT_TRUE(claims);
      if (!claims) return api::List<resourceapi::ResourceClaim>{};
      if (claims->items.size() >= want || std::chrono::steady_clock::now() > deadline) return std::move(*claims);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  };
  auto made = claims_of_pods("test", 10);
  ASSERT_EQ(made.items.size(), 10u);
  for (const auto& c : made.items) {
    ASSERT_EQ(c.metadata.ownerReferences.size(), 1u);
    EXPECT_EQ(c.metadata.ownerReferences[0].kind, "Pod");
    ASSERT_EQ(c.spec.devices.requests.size(), 1u);
    ASSERT_TRUE(c.spec.devices.requests[0].exactly);
    EXPECT_EQ(std::string_view(c.spec.devices.requests[0].exactly->deviceClassName), "test-class");
  }

  // The steady state in a fresh cluster (a workload's pod names are its own): four claims
  // allocated first, then batches of ten pods for two seconds.
  (*cluster)->stop();
  cluster = localcluster::LocalCluster::start(lo);
  ASSERT_TRUE(cluster) << cluster.error();
  client = (*cluster)->client();
  auto s = resolve(*cfg, "SteadyStateClusterResourceClaimTemplate/fast", {{"initClaims", 4}});
  ASSERT_TRUE(s) << s.error();
  res = run_workload(*s, ro);
  ASSERT_TRUE(res.ok) << res.error;
  EXPECT_GE(res.measured_pods, 6);
  auto init = client->list<resourceapi::ResourceClaim>("init");
  ASSERT_TRUE(init);
  ASSERT_EQ(init->items.size(), 4u);
  std::set<std::string> devices;
  for (const auto& c : init->items) {
    EXPECT_EQ(std::string_view(c.metadata.name).substr(0, 11), "test-claim-");
    ASSERT_TRUE(c.status.allocation) << c.metadata.name;
    ASSERT_EQ(c.status.allocation->devices.results.size(), 1u);
    const auto& d = c.status.allocation->devices.results[0];
    EXPECT_EQ(std::string_view(d.pool), "scheduler-perf-dra-1");
    devices.insert(std::string(std::string_view(d.device)));
  }
  EXPECT_EQ(devices.size(), 4u);  // never one device twice
  (*cluster)->stop();
  std::filesystem::remove(kubeconfig);
}

}  // namespace
}  // namespace ksched::perf
