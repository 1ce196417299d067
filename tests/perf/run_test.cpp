// One tiny workload end to end: embedded API server + in-process scheduler, created through the
// API, every measured pod bound, and the JSON record complete.
#include <gtest/gtest.h>

#include <boost/json.hpp>

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

TEST(BenchRun, TinyWorkloadInProcessBindsEveryPod) {
  auto cfg = parse_config(kTiny, std::string(KSCHED_SOURCE_DIR) + "/bench/workloads");
  ASSERT_TRUE(cfg) << cfg.error();
  auto w = resolve(*cfg, "Tiny/20Nodes");
  ASSERT_TRUE(w) << w.error();
  RunOptions ro;
  ro.scheduler = "in-process";
  ro.create_workers = 4;
  ro.stall_seconds = 60;  // bounds the test if binding stops
  auto res = run_workload(*w, ro);
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

}  // namespace
}  // namespace ksched::perf
