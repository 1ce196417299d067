#include <gtest/gtest.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>
#include <vector>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "perf/procinfo.h"
#include "perf/report.h"

namespace ksched::perf {
namespace {

Report sample_report() {
  Report r;
  r.machine.cores = 2;
  r.machine.model = "Test CPU";
  WorkloadResult w;
  w.name = "SchedulingBasic/500Nodes";
  w.params = {{"initNodes", 500}};
  w.scheduler = "in-process";
  w.ok = true;
  w.threshold = 680;
  w.measured_pods = w.measured_bound = 1000;
  w.measured_seconds = 4.2;
  w.throughput = summarize_throughput({200, 250, 300, 250});
  w.series = {{1, 200}, {2, 250}, {3, 300}, {4, 250}};
  w.attempt_latency = {0.002, 0.0015, 0.003, 0.0035, 0.004, 1000, true};
  w.stage_cpu = {{"server", 2.5}, {"watch decode", 1.0}};
  w.process_cpu_seconds = 4;
  w.extension_point_seconds = {{"Filter", 0.8}};
  w.peak_rss_kb = 204800;
  r.results.push_back(w);
  WorkloadResult bad;
  bad.name = "Unschedulable/x";
  bad.ok = false;
  bad.error = "lost pods: 3 of 10";
  r.results.push_back(bad);
  return r;
}

TEST(Report, JsonHasThroughputLatencyCpuMemoryAndMachine) {
  auto v = boost::json::parse(to_json(sample_report()));
  const auto& root = v.as_object();
  EXPECT_EQ(root.at("machine").as_object().at("cores").as_int64(), 2);
  EXPECT_EQ(root.at("machine").as_object().at("model").as_string(), "Test CPU");
  const auto& results = root.at("results").as_array();
  ASSERT_EQ(results.size(), 2u);
  const auto& w = results[0].as_object();
  EXPECT_EQ(w.at("name").as_string(), "SchedulingBasic/500Nodes");
  EXPECT_TRUE(w.at("ok").as_bool());
  const auto& tp = w.at("SchedulingThroughput").as_object();
  for (const char* k : {"Average", "Perc50", "Perc90", "Perc95", "Perc99"}) EXPECT_TRUE(tp.contains(k)) << k;
  EXPECT_DOUBLE_EQ(tp.at("Average").to_number<double>(), 250);
  // 1,000 pods bound over 4.2 s, whatever the per-second samples say.
  EXPECT_NEAR(w.at("measuredPodsPerSecond").to_number<double>(), 238.095, 0.001);
  EXPECT_FALSE(w.at("meetsUpstreamThreshold").as_bool());
  const auto& lat = w.at("SchedulingAttemptLatency").as_object();
  EXPECT_TRUE(lat.at("available").as_bool());
  EXPECT_DOUBLE_EQ(lat.at("Perc50").to_number<double>(), 1.5);  // ms
  EXPECT_DOUBLE_EQ(w.at("cpu").as_object().at("byStage").as_object().at("server").to_number<double>(), 2.5);
  EXPECT_EQ(w.at("memory").as_object().at("peakRssKiB").as_int64(), 204800);
  EXPECT_EQ(w.at("throughputSeries").as_array().size(), 4u);
  const auto& b = results[1].as_object();
  EXPECT_FALSE(b.at("ok").as_bool());
  EXPECT_EQ(b.at("error").as_string(), "lost pods: 3 of 10");
}

TEST(Report, JsonReadsBackAsTheSameReport) {
  auto r = sample_report();
  r.results[0].top_threads = {{"scheduler/ksched#12", 1.25}};
  auto back = report_from_json(to_json(r));
  ASSERT_TRUE(back) << back.error();
  ASSERT_EQ(back->results.size(), 2u);
  EXPECT_EQ(to_json(*back), to_json(r));
  EXPECT_FALSE(report_from_json("[]"));
  EXPECT_FALSE(report_from_json("{\"machine\":{}}"));
}

TEST(Report, TableShowsEveryWorkloadAndFailures) {
  auto t = to_table(sample_report());
  EXPECT_NE(t.find("SchedulingBasic/500Nodes"), std::string::npos);
  EXPECT_NE(t.find("250.0"), std::string::npos);
  EXPECT_NE(t.find("error: lost pods"), std::string::npos);
  EXPECT_NE(t.find("server"), std::string::npos);
  EXPECT_NE(t.find("238 pods bound per second over the phase"), std::string::npos) << t;
}

TEST(Report, SvgHasOneLinePerWorkload) {
  auto r = sample_report();
  auto svg = to_svg(r.results, "t");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  std::size_t lines = 0;
  for (std::size_t p = 0; (p = svg.find("<polyline", p)) != std::string::npos; ++p) ++lines;
  EXPECT_EQ(lines, 2u);
  EXPECT_NE(svg.find("SchedulingBasic/500Nodes"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

TEST(Report, WritePlotProducesAnSvgFile) {
  auto path = std::filesystem::temp_directory_path() / ("ksched-plot-test-" + std::to_string(::getpid()) + ".svg");
  auto note = write_plot(sample_report().results, path.string());
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_NE(ss.str().find("<svg"), std::string::npos) << note;
  std::filesystem::remove(path);
}

TEST(ProcInfo, ThreadCpuAndMemoryOfThisProcess) {
  set_thread_name("perf-test-main");
  auto threads = thread_cpu_times();
  bool found = false;
  for (const auto& t : threads) found = found || t.name == "perf-test-main";
  EXPECT_TRUE(found);
  EXPECT_GT(status_kb("VmRSS"), 0);
  EXPECT_GE(status_kb("VmHWM"), status_kb("VmRSS") / 2);
  EXPECT_EQ(status_kb("NoSuchField"), -1);
  auto m = machine_info();
  EXPECT_GT(m.cores, 0);
  std::vector<ThreadCpu> before{{1, "a", 1.0}, {2, "b", 2.0}};
  std::vector<ThreadCpu> after{{1, "a", 1.5}, {2, "b", 2.0}, {3, "a", 0.25}};
  auto d = cpu_by_thread_name(before, after);
  EXPECT_DOUBLE_EQ(d["a"], 0.75);
  EXPECT_EQ(d.count("b"), 0u);
  EXPECT_EQ(stage_of_thread("bench-watch").rfind("bench", 0), 0u);
  EXPECT_EQ(stage_of_thread("apisrv-io"), "server");
}

// Threads that each run a few milliseconds are counted in full: /proc's per-thread ticks are
// truncated (eight threads of 3 ms read as nothing), the thread CPU clocks are not.
TEST(ProcInfo, ShortLivedWorkOfManyThreadsIsCountedExactly) {
  constexpr int kThreads = 8;
  std::atomic<int> burnt{0};
  std::atomic<bool> go{false}, release{false};
  std::vector<int> tids(kThreads, 0);
  std::vector<std::thread> threads;
  auto cpu_now = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
  };
  std::atomic<int> started{0};
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      tids[i] = static_cast<int>(gettid());
      ++started;
      while (!go.load()) std::this_thread::yield();
      const double t0 = cpu_now();
      volatile std::uint64_t x = 0;
      while (cpu_now() - t0 < 0.003) x = x + 1;  // 3 ms of CPU, by this thread's own clock
      ++burnt;
      while (!release.load()) std::this_thread::yield();
    });
  }
  while (started.load() < kThreads) std::this_thread::yield();
  auto before = thread_cpu_times();
  go = true;
  while (burnt.load() < kThreads) std::this_thread::yield();
  auto after = thread_cpu_times();
  release = true;
  for (auto& t : threads) t.join();
  std::map<int, double> start;
  for (const auto& t : before) start[t.tid] = t.seconds;
  double counted = 0;
  for (const auto& t : after) {
    if (std::find(tids.begin(), tids.end(), t.tid) != tids.end()) counted += t.seconds - start[t.tid];
  }
  // At least the 24 ms burnt (the spin before and the yields after add a little).
  EXPECT_GE(counted, kThreads * 0.003);
}

}  // namespace
}  // namespace ksched::perf
