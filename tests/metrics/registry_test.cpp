// The Prometheus registry: exposition format, histograms, label-address caches.
#include <gtest/gtest.h>

#include <thread>

#include "metrics/registry.h"

namespace ksched::metrics {
namespace {

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

TEST(Metrics, ExponentialBuckets) {
  EXPECT_EQ(exponential_buckets(1, 2, 5), (std::vector<double>{1, 2, 4, 8, 16}));
  auto b = exponential_buckets(0.001, 2, 15);
  ASSERT_EQ(b.size(), 15u);
  EXPECT_DOUBLE_EQ(b.back(), 16.384);
}

TEST(Metrics, CounterAndGaugeExposition) {
  Registry r;
  auto& c = r.counter("x_total", "Things.", Stability::Stable, {"result", "profile"});
  c.with({"scheduled", "default-scheduler"}).inc();
  c.with({"scheduled", "default-scheduler"}).inc(2);
  auto& g = r.gauge("y", "Quote \" and backslash \\ in values.", Stability::Alpha, {"queue"});
  g.with({"a\"b"}).set(3);
  g.with({"active"}).add(-1);
  std::string text = r.expose();
  EXPECT_TRUE(contains(text, "# HELP x_total [STABLE] Things.\n# TYPE x_total counter\n"));
  EXPECT_TRUE(contains(text, "x_total{profile=\"default-scheduler\",result=\"scheduled\"} 3\n"));
  EXPECT_TRUE(contains(text, "# TYPE y gauge\n"));
  EXPECT_TRUE(contains(text, "y{queue=\"a\\\"b\"} 3\n"));
  EXPECT_TRUE(contains(text, "y{queue=\"active\"} -1\n"));
}

TEST(Metrics, HistogramIsCumulative) {
  Registry r;
  auto& h = r.histogram("lat_seconds", "Latency.", Stability::Beta, {}, {0.1, 1, 10});
  h.get().observe(0.05);
  h.get().observe(0.5);
  h.get().observe(0.5);
  h.get().observe(100);
  std::string text = r.expose();
  EXPECT_TRUE(contains(text, "# HELP lat_seconds [BETA] Latency.\n# TYPE lat_seconds histogram\n"));
  EXPECT_TRUE(contains(text, "lat_seconds_bucket{le=\"0.1\"} 1\n"));
  EXPECT_TRUE(contains(text, "lat_seconds_bucket{le=\"1\"} 3\n"));
  EXPECT_TRUE(contains(text, "lat_seconds_bucket{le=\"10\"} 3\n"));
  EXPECT_TRUE(contains(text, "lat_seconds_bucket{le=\"+Inf\"} 4\n"));
  EXPECT_TRUE(contains(text, "lat_seconds_sum 101.05\n"));
  EXPECT_TRUE(contains(text, "lat_seconds_count 4\n"));
}

// Observations from more threads than the child has shards all reach the exposition.
TEST(Metrics, HistogramSumsObservationsFromEveryThread) {
  Registry r;
  auto& h = r.histogram("par_seconds", "P.", Stability::Alpha, {}, {0.1, 1});
  std::vector<std::thread> threads;
  for (int t = 0; t < 7; ++t) {
    threads.emplace_back([&h, t] {
      for (int i = 0; i < 1000; ++i) h.get().observe(t % 2 == 0 ? 0.0625 : 0.5);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(h.get().count(), 7000u);
  EXPECT_EQ(h.get().bucket(0), 4000u);
  EXPECT_EQ(h.get().bucket(1), 3000u);
  EXPECT_DOUBLE_EQ(h.get().sum(), 4000 * 0.0625 + 3000 * 0.5);
  std::string text = r.expose();
  EXPECT_TRUE(contains(text, "par_seconds_bucket{le=\"0.1\"} 4000\n"));
  EXPECT_TRUE(contains(text, "par_seconds_bucket{le=\"1\"} 7000\n"));
}

// Observations counted elsewhere (the framework's per-thread Filter buckets) join those observed
// one by one: buckets, count (with those above the last bound) and sum.
TEST(Metrics, HistogramAddsObservationsCountedElsewhere) {
  Registry r;
  auto& h = r.histogram("bulk_seconds", "B.", Stability::Alpha, {}, {0.1, 1});
  h.get().observe(0.5);
  const std::uint64_t buckets[] = {3, 0};
  h.get().add(buckets, 5, 12.5);  // 3 at or below 0.1, 2 above 1
  EXPECT_EQ(h.get().count(), 6u);
  EXPECT_EQ(h.get().bucket(0), 3u);
  EXPECT_EQ(h.get().bucket(1), 1u);
  EXPECT_DOUBLE_EQ(h.get().sum(), 13.0);
  std::string text = r.expose();
  EXPECT_TRUE(contains(text, "bulk_seconds_bucket{le=\"1\"} 4\n"));
  EXPECT_TRUE(contains(text, "bulk_seconds_bucket{le=\"+Inf\"} 6\n"));
}

TEST(Metrics, ChildCacheFindsTheFamilysChildForEqualLabelsAtAnyAddress) {
  Registry r;
  auto& h = r.histogram("d_seconds", "D.", Stability::Alpha, {"plugin", "point"}, {1});
  ChildCache<HistogramChild, 2, 4> cache(h);
  const std::string a1 = "NodeResourcesFit", a2 = "NodeResourcesFit", b = "TaintToleration";
  HistogramChild& fit = cache.with({a1, "Filter"});
  EXPECT_EQ(&fit, &h.with({"NodeResourcesFit", "Filter"}));
  EXPECT_EQ(&cache.with({a1, "Filter"}), &fit);  // a hit
  EXPECT_EQ(&cache.with({a2, "Filter"}), &fit);  // same text elsewhere: its own slot, same child
  EXPECT_NE(&cache.with({b, "Filter"}), &fit);
  EXPECT_NE(&cache.with({a1, "Score"}), &fit);
  // Four slots are taken now: further combinations still reach the right child.
  const std::string c = "ImageLocality";
  EXPECT_EQ(&cache.with({c, "Score"}), &h.with({"ImageLocality", "Score"}));
  EXPECT_EQ(&cache.with({a1, "Filter"}), &fit);
  cache.with({a1, "Filter"}).observe(0.5);
  EXPECT_EQ(fit.count(), 1u);
}

TEST(Metrics, ChildCacheUnderConcurrentFirstUse) {
  Registry r;
  auto& h = r.histogram("d_seconds", "D.", Stability::Alpha, {"plugin"}, {1});
  ChildCache<HistogramChild, 1, 16> cache(h);
  std::vector<std::string> names;
  for (int i = 0; i < 24; ++i) names.push_back("plugin-" + std::to_string(i));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int round = 0; round < 50; ++round) {
        for (const auto& n : names) cache.with({n}).observe(0.1);
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& n : names) EXPECT_EQ(h.with({n}).count(), 200u) << n;
}

}  // namespace
}  // namespace ksched::metrics
