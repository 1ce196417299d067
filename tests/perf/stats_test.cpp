#include <gtest/gtest.h>

#include <cmath>

#include "perf/stats.h"

namespace ksched::perf {
namespace {

TEST(Throughput, PercentilesFollowSchedulerPerf) {
  // 10 samples: PercN = sorted[ceil(10*N/100)-1] -> p50 = 5th, p90 = 9th, p95 = p99 = 10th.
  auto s = summarize_throughput({10, 1, 9, 2, 8, 3, 7, 4, 6, 5});
  EXPECT_EQ(s.samples, 10u);
  EXPECT_DOUBLE_EQ(s.average, 5.5);
  EXPECT_DOUBLE_EQ(s.perc50, 5);
  EXPECT_DOUBLE_EQ(s.perc90, 9);
  EXPECT_DOUBLE_EQ(s.perc95, 10);
  EXPECT_DOUBLE_EQ(s.perc99, 10);
  auto one = summarize_throughput({42});
  EXPECT_DOUBLE_EQ(one.perc50, 42);
  EXPECT_DOUBLE_EQ(one.perc99, 42);
  auto none = summarize_throughput({});
  EXPECT_EQ(none.samples, 0u);
  EXPECT_DOUBLE_EQ(none.average, 0);
}

TEST(Throughput, SamplerSkipsIdleStartSpreadsLateTicksAndKeepsTheTail) {
  ThroughputSampler s;
  s.add_reading(1.0, 0);    // nothing bound yet: not a sample
  s.add_reading(2.0, 100);  // 100 pods in the second second
  s.add_reading(3.0, 300);  // 200/s
  s.add_reading(5.0, 500);  // late tick covering two intervals: 100/s each
  s.finish(5.5, 600);       // tail: 100 pods in 0.5 s
  EXPECT_EQ(s.samples(), (std::vector<double>{100, 200, 100, 100, 200}));
  ASSERT_EQ(s.series().size(), 5u);
  EXPECT_DOUBLE_EQ(s.series()[2].first, 4.0);
  EXPECT_DOUBLE_EQ(s.series().back().first, 5.5);
}

TEST(Throughput, TinyTailIsNotASample) {
  ThroughputSampler s;
  s.add_reading(1.0, 50);
  s.finish(1.05, 60);  // 10 pods in 50 ms would claim 200 pods/s
  EXPECT_EQ(s.samples(), (std::vector<double>{50}));
  ThroughputSampler quick;  // everything bound within the first interval: one sample for the lot
  quick.finish(0.05, 10);
  EXPECT_EQ(quick.samples(), (std::vector<double>{200}));
}

const char* kMetrics = R"(# HELP scheduler_scheduling_attempt_duration_seconds [STABLE] Scheduling attempt latency
# TYPE scheduler_scheduling_attempt_duration_seconds histogram
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="scheduled",le="0.001"} 10
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="scheduled",le="0.002"} 30
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="scheduled",le="0.004"} 40
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="scheduled",le="+Inf"} 40
scheduler_scheduling_attempt_duration_seconds_sum{profile="default-scheduler",result="scheduled"} 0.06
scheduler_scheduling_attempt_duration_seconds_count{profile="default-scheduler",result="scheduled"} 40
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="unschedulable",le="0.001"} 0
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="unschedulable",le="0.002"} 0
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="unschedulable",le="0.004"} 5
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="unschedulable",le="+Inf"} 5
scheduler_scheduling_attempt_duration_seconds_sum{profile="default-scheduler",result="unschedulable"} 0.015
scheduler_scheduling_attempt_duration_seconds_count{profile="default-scheduler",result="unschedulable"} 5
scheduler_framework_extension_point_duration_seconds_sum{extension_point="Filter",profile="default-scheduler",status="Success"} 1.5
scheduler_framework_extension_point_duration_seconds_sum{extension_point="Filter",profile="default-scheduler",status="Unschedulable"} 0.5
scheduler_framework_extension_point_duration_seconds_sum{extension_point="Score",profile="default-scheduler",status="Success"} 0.25
scheduler_framework_extension_point_duration_seconds_count{extension_point="Score",profile="default-scheduler",status="Success"} 7
scheduler_pending_pods{queue="active"} 3 1700000000000
)";

TEST(Metrics, HistogramQuantilesInterpolateInsideBuckets) {
  auto h = parse_histogram(kMetrics, "scheduler_scheduling_attempt_duration_seconds", {{"result", "scheduled"}});
  EXPECT_DOUBLE_EQ(h.count, 40);
  EXPECT_DOUBLE_EQ(h.sum, 0.06);
  ASSERT_EQ(h.buckets.size(), 4u);
  EXPECT_TRUE(std::isinf(h.buckets.back().first));
  // rank 20 of 40 lies halfway through the (0.001, 0.002] bucket (counts 10..30).
  EXPECT_NEAR(h.quantile(0.5), 0.0015, 1e-12);
  // rank 36 lies 60% into (0.002, 0.004] (counts 30..40).
  EXPECT_NEAR(h.quantile(0.9), 0.0032, 1e-12);
  // rank 4 lies 40% into the first bucket, which starts at 0.
  EXPECT_NEAR(h.quantile(0.1), 0.0004, 1e-12);

  auto all = parse_histogram(kMetrics, "scheduler_scheduling_attempt_duration_seconds");
  EXPECT_DOUBLE_EQ(all.count, 45);
}

TEST(Metrics, DifferenceOfTwoScrapesCoversTheMeasuredPhaseOnly) {
  auto after = parse_histogram(kMetrics, "scheduler_scheduling_attempt_duration_seconds", {{"result", "scheduled"}});
  Histogram before;
  before.buckets = {{0.001, 10}, {0.002, 10}, {0.004, 10}, {std::numeric_limits<double>::infinity(), 10}};
  before.sum = 0.01;
  before.count = 10;
  auto d = after.minus(before);
  EXPECT_DOUBLE_EQ(d.count, 30);
  EXPECT_NEAR(d.sum, 0.05, 1e-12);
  // Now 0 in the first bucket, 20 in the second, 10 in the third: median at rank 15 -> 0.00175.
  EXPECT_NEAR(d.quantile(0.5), 0.00175, 1e-12);
  EXPECT_TRUE(std::isnan(Histogram{}.quantile(0.5)));
}

TEST(Metrics, SumsByLabelAndSampleLines) {
  auto sums = histogram_sums_by(kMetrics, "scheduler_framework_extension_point_duration_seconds", "extension_point");
  EXPECT_DOUBLE_EQ(sums["Filter"], 2.0);
  EXPECT_DOUBLE_EQ(sums["Score"], 0.25);
  auto counts = histogram_counts_by(kMetrics, "scheduler_framework_extension_point_duration_seconds", "extension_point");
  EXPECT_DOUBLE_EQ(counts["Score"], 7);
  auto batched = counter_sums_by("scheduler_batch_attempts_total{profile=\"a\",result=\"hint_used\"} 5\n"
                                 "scheduler_batch_attempts_total{profile=\"b\",result=\"hint_used\"} 2\n"
                                 "scheduler_batch_attempts_total{profile=\"a\",result=\"no_hint\"} 1\n",
                                 "scheduler_batch_attempts_total", "result");
  EXPECT_DOUBLE_EQ(batched["hint_used"], 7);
  EXPECT_DOUBLE_EQ(batched["no_hint"], 1);

  std::string name;
  std::map<std::string, std::string> labels;
  double v = 0;
  ASSERT_TRUE(parse_sample_line(R"(m{a="x\"y",b="2"} 3.5 1700000000)", name, labels, v));
  EXPECT_EQ(name, "m");
  EXPECT_EQ(labels["a"], "x\"y");
  EXPECT_EQ(labels["b"], "2");
  EXPECT_DOUBLE_EQ(v, 3.5);
  ASSERT_TRUE(parse_sample_line("plain 7", name, labels, v));
  EXPECT_TRUE(labels.empty());
  EXPECT_DOUBLE_EQ(v, 7);
  EXPECT_FALSE(parse_sample_line("# HELP x y", name, labels, v));
  EXPECT_FALSE(parse_sample_line("broken{a=\"x} 1", name, labels, v));
  EXPECT_FALSE(parse_sample_line("nan_value abc", name, labels, v));
}

}  // namespace
}  // namespace ksched::perf
