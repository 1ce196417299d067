#include <gtest/gtest.h>

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

}  // namespace
}  // namespace ksched::perf
