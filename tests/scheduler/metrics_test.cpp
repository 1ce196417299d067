// The scheduler metric set (names, types, labels, buckets).
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

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

// The recorder finds children by the addresses of their label values: equal values at other
// addresses still land in the same series, and threads recording at once lose no update and make
// no second child of a series.
TEST(Metrics, RecorderFromThreadsAndEqualLabelsElsewhere) {
  Registry r;
  SchedulerMetrics m(r);
  SchedulerRecorder rec(&m);
  const std::string profile_a = "profile-x";
  const std::string profile_b = std::string("profile-") + "x";  // equal value, its own storage
  ASSERT_NE(profile_a.data(), profile_b.data());
  constexpr int kThreads = 4;
  constexpr int kPerThread = 500;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::string& profile = t % 2 == 0 ? profile_a : profile_b;
      for (int i = 0; i < kPerThread; ++i) {
        rec.binding_started();
        rec.attempt(kScheduled, profile, 0.001);
        rec.algorithm_duration(0.001);
        rec.pod_scheduling_attempts(1);
        rec.batch_rescore(profile);
        rec.binding_ended();
      }
    });
  }
  for (auto& th : threads) th.join();
  rec.cache_size(3, 2, 1);
  const std::string text = r.expose();
  const std::string total = std::to_string(kThreads * kPerThread);
  EXPECT_TRUE(contains(text, "scheduler_schedule_attempts_total{profile=\"profile-x\",result=\"scheduled\"} " + total + "\n"))
      << text;
  EXPECT_TRUE(contains(text, "scheduler_scheduling_attempt_duration_seconds_count{profile=\"profile-x\","
                             "result=\"scheduled\"} " + total + "\n"));
  EXPECT_TRUE(contains(text, "scheduler_scheduling_algorithm_duration_seconds_count " + total + "\n"));
  EXPECT_TRUE(contains(text, "scheduler_pod_scheduling_attempts_count " + total + "\n"));
  EXPECT_TRUE(contains(text, "scheduler_batch_rescore_attempts_total{profile=\"profile-x\"} " + total + "\n"));
  EXPECT_TRUE(contains(text, "scheduler_goroutines{operation=\"binding\"} 0\n"));
  EXPECT_TRUE(contains(text, "scheduler_cache_size{type=\"nodes\"} 3\n"));
  EXPECT_TRUE(contains(text, "scheduler_cache_size{type=\"assumed_pods\"} 1\n"));
}

// A scheduler given no metric set records into its own, so its cycles need not ask.
TEST(Metrics, RecorderWithoutAGivenSetRecordsIntoItsOwn) {
  SchedulerRecorder rec(nullptr);
  rec.attempt(kError, "p", 0.5);
  rec.binding_started();
  EXPECT_TRUE(contains(rec.set().registry.expose(), "scheduler_schedule_attempts_total{profile=\"p\",result=\"error\"} 1\n"));
  EXPECT_TRUE(contains(rec.set().registry.expose(), "scheduler_goroutines{operation=\"binding\"} 1\n"));
}

}  // namespace
}  // namespace ksched::scheduler::metrics
