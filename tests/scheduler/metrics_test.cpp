// The scheduler metric set (names, types, labels, buckets).
#include <gtest/gtest.h>

#include "scheduler/metrics.h"

namespace ksched::scheduler::metrics {
namespace {

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

TEST(Metrics, SchedulerMetricSet) {
  Registry r;
  SchedulerMetrics m(r);
  SchedulerRecorder rec(&m);
  rec.attempt(kScheduled, "default-scheduler", 0.002);
  rec.attempt(kUnschedulable, "default-scheduler", 0.002);
  m.podSchedulingSLIDuration.with({SchedulerMetrics::attempts_label(20)}).observe(1);
  m.frameworkExtensionPointDuration.with({"Filter", "Success", "default-scheduler"}).observe(0.0001);
  QueueMetricsAdapter qa(m);
  qa.pending_pods("gated", 2);
  qa.incoming_pod("active", "PodAdd");
  qa.unschedulable_reason("NodeResourcesFit", "default-scheduler", 1);
  std::string text = r.expose();
  EXPECT_TRUE(contains(text, "# TYPE scheduler_schedule_attempts_total counter\n"));
  EXPECT_TRUE(contains(text,
                       "scheduler_schedule_attempts_total{profile=\"default-scheduler\",result=\"scheduled\"} 1\n"));
  EXPECT_TRUE(contains(text, "scheduler_schedule_attempts_total{profile=\"default-scheduler\",result=\"unschedulable\"} 1\n"));
  // exp(0.001, 2, 15): 0.002 falls in le="0.002".
  EXPECT_TRUE(contains(text, "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\","
                             "result=\"scheduled\",le=\"0.002\"} 1\n"));
  EXPECT_TRUE(contains(text, "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"default-scheduler\","
                             "result=\"scheduled\",le=\"16.384\"} 1\n"));
  EXPECT_TRUE(contains(text, "scheduler_pod_scheduling_sli_duration_seconds_bucket{attempts=\"15+\",le=\"0.01\"} 0\n"));
  EXPECT_TRUE(contains(text, "scheduler_pending_pods{queue=\"gated\"} 2\n"));
  EXPECT_TRUE(contains(text, "scheduler_queue_incoming_pods_total{event=\"PodAdd\",queue=\"active\"} 1\n"));
  EXPECT_TRUE(contains(text, "scheduler_unschedulable_pods{plugin=\"NodeResourcesFit\",profile=\"default-scheduler\"} 1\n"));
  EXPECT_TRUE(contains(text, "scheduler_framework_extension_point_duration_seconds_bucket{extension_point=\"Filter\","
                             "profile=\"default-scheduler\",status=\"Success\",le=\"0.0001\"} 1\n"));
  EXPECT_TRUE(contains(text, "# TYPE scheduler_pod_scheduling_attempts histogram\n"));
  EXPECT_TRUE(contains(text, "# TYPE scheduler_preemption_victims histogram\n"));
  EXPECT_TRUE(contains(text, "# TYPE scheduler_preemption_attempts_total counter\n"));
}

}  // namespace
}  // namespace ksched::scheduler::metrics
