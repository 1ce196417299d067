#include "perf/report.h"

#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ksched::perf {
namespace json = boost::json;

namespace {

double round3(double v) { return std::isfinite(v) ? std::round(v * 1000.0) / 1000.0 : 0.0; }

json::object summary_json(const Summary& s) {
  return {{"Average", round3(s.average)}, {"Perc50", round3(s.perc50)}, {"Perc90", round3(s.perc90)},
          {"Perc95", round3(s.perc95)},   {"Perc99", round3(s.perc99)}, {"samples", s.samples}};
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string pad(std::string s, std::size_t w, bool right = false) {
  if (s.size() >= w) return s;
  return right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else if (c == '&') o += "&amp;";
    else o += c;
  }
  return o;
}

const char* kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                         "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

}  // namespace

std::string to_json(const Report& r) {
  json::object root;
  root["machine"] = {{"cores", r.machine.cores},         {"model", r.machine.model},
                     {"kernel", r.machine.kernel},       {"hostname", r.machine.hostname},
                     {"memTotalKiB", r.machine.mem_total_kb}};
  root["startedAt"] = r.started_at;
  root["kschedVersion"] = r.ksched_version;
  root["gitCommit"] = r.git_commit;
  json::array results;
  for (const auto& w : r.results) {
    json::object o;
    o["name"] = w.name;
    json::object params;
    for (const auto& [k, v] : w.params) params[k] = v;
    o["params"] = std::move(params);
    o["scheduler"] = w.scheduler;
    if (!w.storage.empty()) o["storage"] = w.storage;
    o["ok"] = w.ok;
    if (!w.error.empty()) o["error"] = w.error;
    o["measuredPods"] = w.measured_pods;
    o["measuredPodsBound"] = w.measured_bound;
    o["measuredSeconds"] = round3(w.measured_seconds);
    o["setupSeconds"] = round3(w.setup_seconds);
    o["SchedulingThroughput"] = summary_json(w.throughput);
    o["SchedulingThroughputUnit"] = "pods/s";
    // The measured pods bound over the phase's seconds. A phase of about a second holds one full
    // 1 s sample and perhaps a fast tail (ThroughputSampler::finish), so its Average can be far
    // from this rate either way.
    o["measuredPodsPerSecond"] = w.measured_seconds > 0 ? round3(static_cast<double>(w.measured_bound) / w.measured_seconds) : 0.0;
    if (w.threshold > 0) {
      o["upstreamThreshold"] = w.threshold;
      o["meetsUpstreamThreshold"] = w.throughput.average >= w.threshold;
    }
    json::object lat;
    lat["metric"] = "scheduler_scheduling_attempt_duration_seconds";
    lat["available"] = w.attempt_latency.available;
    if (w.attempt_latency.available) {
      lat["unit"] = "ms";
      lat["count"] = w.attempt_latency.count;
      lat["Average"] = round3(w.attempt_latency.average * 1000);
      lat["Perc50"] = round3(w.attempt_latency.perc50 * 1000);
      lat["Perc90"] = round3(w.attempt_latency.perc90 * 1000);
      lat["Perc95"] = round3(w.attempt_latency.perc95 * 1000);
      lat["Perc99"] = round3(w.attempt_latency.perc99 * 1000);
    }
    o["SchedulingAttemptLatency"] = std::move(lat);
    json::array series;
    for (const auto& [t, v] : w.series) series.push_back(json::array{round3(t), round3(v)});
    o["throughputSeries"] = std::move(series);
    json::object cpu;
    cpu["processSeconds"] = round3(w.process_cpu_seconds);
    if (w.etcd_cpu_seconds >= 0) cpu["etcdProcessSeconds"] = round3(w.etcd_cpu_seconds);
    json::object stages;
    for (const auto& s : w.stage_cpu) stages[s.stage] = round3(s.seconds);
    cpu["byStage"] = std::move(stages);
    json::object threads;
    for (const auto& [n, s] : w.thread_cpu_seconds) threads[n] = round3(s);
    cpu["byThreadName"] = std::move(threads);
    json::array top;
    for (const auto& t : w.top_threads) top.push_back(json::object{{"thread", t.stage}, {"seconds", round3(t.seconds)}});
    cpu["topThreads"] = std::move(top);
    json::object ext;
    for (const auto& [n, s] : w.extension_point_seconds) ext[n] = round3(s);
    cpu["extensionPointWallSeconds"] = std::move(ext);
    if (w.events_written >= 0) cpu["eventsWritten"] = w.events_written;
    if (w.batched_pods >= 0) cpu["batchedPods"] = w.batched_pods;
    o["cpu"] = std::move(cpu);
    if (!w.gangs.empty()) {
      json::object g;
      g["count"] = static_cast<std::int64_t>(w.gangs.size());
      g["spanSecondsAverage"] = round3(w.gang_span.average);
      g["spanSecondsPerc50"] = round3(w.gang_span.perc50);
      g["spanSecondsPerc99"] = round3(w.gang_span.perc99);
      g["spanSecondsMax"] = round3(w.gang_span_max);
      g["placementSecondsPerc50"] = round3(w.gang_placement.perc50);
      g["placementSecondsPerc99"] = round3(w.gang_placement.perc99);
      g["placementSecondsMax"] = round3(w.gang_placement_max);
      // Every gang when they are few (the 1000-member workloads); the summary alone otherwise.
      if (w.gangs.size() <= 50) {
        json::array each;
        for (const auto& x : w.gangs)
          each.push_back(json::object{{"gang", x.gang},
                                      {"lastMemberSeenSeconds", round3(x.last_seen)},
                                      {"firstBoundSeconds", round3(x.first_bound)},
                                      {"lastBoundSeconds", round3(x.last_bound)},
                                      {"membersBound", x.members_bound}});
        g["each"] = std::move(each);
      }
      o["gangs"] = std::move(g);
    }
    json::object mem;
    mem["peakRssKiB"] = w.peak_rss_kb;
    mem["rssBaselineKiB"] = w.rss_baseline_kb;
    mem["rssAfterServerStartKiB"] = w.rss_after_server_kb;
    mem["rssAfterSchedulerStartKiB"] = w.rss_after_scheduler_kb;
    mem["rssEndKiB"] = w.rss_end_kb;
    if (w.external_scheduler_peak_rss_kb >= 0) mem["externalSchedulerPeakRssKiB"] = w.external_scheduler_peak_rss_kb;
    mem["note"] = w.rss_note;
    o["memory"] = std::move(mem);
    results.push_back(std::move(o));
  }
  root["results"] = std::move(results);
  return json::serialize(root) + "\n";
}

namespace {
double num(const json::object& o, std::string_view k, double def = 0) {
  auto* v = o.if_contains(k);
  return v && v->is_number() ? v->to_number<double>() : def;
}
std::string str(const json::object& o, std::string_view k) {
  auto* v = o.if_contains(k);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}
const json::object& sub(const json::object& o, std::string_view k) {
  static const json::object empty;
  auto* v = o.if_contains(k);
  return v && v->is_object() ? v->as_object() : empty;
}
}  // namespace

util::Result<Report> report_from_json(const std::string& text) {
  boost::system::error_code ec;
  auto v = json::parse(text, ec);
  if (ec || !v.is_object()) return util::make_error("bench results: not a JSON object");
  const auto& root = v.as_object();
  Report r;
  const auto& m = sub(root, "machine");
  r.machine.cores = static_cast<int>(num(m, "cores"));
  r.machine.model = str(m, "model");
  r.machine.kernel = str(m, "kernel");
  r.machine.hostname = str(m, "hostname");
  r.machine.mem_total_kb = static_cast<long>(num(m, "memTotalKiB"));
  r.started_at = str(root, "startedAt");
  r.ksched_version = str(root, "kschedVersion");
  r.git_commit = str(root, "gitCommit");
  auto* results = root.if_contains("results");
  if (!results || !results->is_array()) return util::make_error("bench results: no results array");
  for (const auto& rv : results->as_array()) {
    if (!rv.is_object()) continue;
    const auto& o = rv.as_object();
    WorkloadResult w;
    w.name = str(o, "name");
    for (const auto& [k, pv] : sub(o, "params"))
      if (pv.is_number()) w.params[std::string(k)] = pv.to_number<int>();
    w.scheduler = str(o, "scheduler");
    w.storage = str(o, "storage");
    w.ok = o.contains("ok") && o.at("ok").is_bool() && o.at("ok").as_bool();
    w.error = str(o, "error");
    w.threshold = num(o, "upstreamThreshold");
    w.measured_pods = static_cast<long>(num(o, "measuredPods"));
    w.measured_bound = static_cast<long>(num(o, "measuredPodsBound"));
    w.measured_seconds = num(o, "measuredSeconds");
    w.setup_seconds = num(o, "setupSeconds");
    const auto& tp = sub(o, "SchedulingThroughput");
    w.throughput = {num(tp, "Average"), num(tp, "Perc50"), num(tp, "Perc90"), num(tp, "Perc95"), num(tp, "Perc99"),
                    static_cast<std::size_t>(num(tp, "samples"))};
    const auto& lat = sub(o, "SchedulingAttemptLatency");
    w.attempt_latency.available = lat.contains("available") && lat.at("available").is_bool() && lat.at("available").as_bool();
    w.attempt_latency.count = num(lat, "count");
    w.attempt_latency.average = num(lat, "Average") / 1000;
    w.attempt_latency.perc50 = num(lat, "Perc50") / 1000;
    w.attempt_latency.perc90 = num(lat, "Perc90") / 1000;
    w.attempt_latency.perc95 = num(lat, "Perc95") / 1000;
    w.attempt_latency.perc99 = num(lat, "Perc99") / 1000;
    if (auto* series = o.if_contains("throughputSeries"); series && series->is_array())
      for (const auto& p : series->as_array())
        if (p.is_array() && p.as_array().size() == 2)
          w.series.emplace_back(p.as_array()[0].to_number<double>(), p.as_array()[1].to_number<double>());
    const auto& cpu = sub(o, "cpu");
    w.process_cpu_seconds = num(cpu, "processSeconds");
    if (cpu.contains("etcdProcessSeconds")) w.etcd_cpu_seconds = num(cpu, "etcdProcessSeconds");
    for (const auto& [k, sv] : sub(cpu, "byStage"))
      if (sv.is_number()) w.stage_cpu.push_back(StageCpu{std::string(k), sv.to_number<double>()});
    std::sort(w.stage_cpu.begin(), w.stage_cpu.end(), [](const auto& a, const auto& b) { return a.seconds > b.seconds; });
    for (const auto& [k, sv] : sub(cpu, "byThreadName"))
      if (sv.is_number()) w.thread_cpu_seconds[std::string(k)] = sv.to_number<double>();
    if (auto* top = cpu.if_contains("topThreads"); top && top->is_array())
      for (const auto& t : top->as_array())
        if (t.is_object()) w.top_threads.push_back(StageCpu{str(t.as_object(), "thread"), num(t.as_object(), "seconds")});
    for (const auto& [k, sv] : sub(cpu, "extensionPointWallSeconds"))
      if (sv.is_number()) w.extension_point_seconds[std::string(k)] = sv.to_number<double>();
    w.events_written = static_cast<long>(num(cpu, "eventsWritten", -1));
    w.batched_pods = static_cast<long>(num(cpu, "batchedPods", -1));
    if (auto* g = o.if_contains("gangs"); g && g->is_object()) {
      const auto& go = g->as_object();
      w.gang_span.average = num(go, "spanSecondsAverage");
      w.gang_span.perc50 = num(go, "spanSecondsPerc50");
      w.gang_span.perc99 = num(go, "spanSecondsPerc99");
      w.gang_span_max = num(go, "spanSecondsMax");
      w.gang_placement.perc50 = num(go, "placementSecondsPerc50");
      w.gang_placement.perc99 = num(go, "placementSecondsPerc99");
      w.gang_placement_max = num(go, "placementSecondsMax");
      w.gang_span.samples = static_cast<std::size_t>(num(go, "count"));
      if (auto* each = go.if_contains("each"); each && each->is_array())
        for (const auto& e : each->as_array())
          if (e.is_object())
            w.gangs.push_back(GangPlacement{static_cast<long>(num(e.as_object(), "gang")),
                                            num(e.as_object(), "lastMemberSeenSeconds"),
                                            num(e.as_object(), "firstBoundSeconds"), num(e.as_object(), "lastBoundSeconds"),
                                            static_cast<long>(num(e.as_object(), "membersBound"))});
    }
    const auto& mem = sub(o, "memory");
    w.peak_rss_kb = static_cast<long>(num(mem, "peakRssKiB", -1));
    w.rss_baseline_kb = static_cast<long>(num(mem, "rssBaselineKiB", -1));
    w.rss_after_server_kb = static_cast<long>(num(mem, "rssAfterServerStartKiB", -1));
    w.rss_after_scheduler_kb = static_cast<long>(num(mem, "rssAfterSchedulerStartKiB", -1));
    w.rss_end_kb = static_cast<long>(num(mem, "rssEndKiB", -1));
    w.external_scheduler_peak_rss_kb = static_cast<long>(num(mem, "externalSchedulerPeakRssKiB", -1));
    w.rss_note = str(mem, "note");
    r.results.push_back(std::move(w));
  }
  return r;
}

std::string to_table(const Report& r) {
  std::ostringstream out;
  out << "Machine: " << r.machine.cores << " cores, " << r.machine.model << "\n\n";
  out << pad("workload", 52) << pad("ok", 5) << pad("pods", 7, true) << pad("avg", 9, true) << pad("p50", 9, true)
      << pad("p90", 9, true) << pad("p99", 9, true) << pad("upstream", 10, true) << pad("attempt p50/p99 ms", 22, true)
      << pad("peakRSS MiB", 13, true) << "\n";
  for (const auto& w : r.results) {
    out << pad(w.name, 52) << pad(w.ok ? "yes" : "NO", 5) << pad(std::to_string(w.measured_bound), 7, true)
        << pad(fmt("%.1f", w.throughput.average), 9, true) << pad(fmt("%.1f", w.throughput.perc50), 9, true)
        << pad(fmt("%.1f", w.throughput.perc90), 9, true) << pad(fmt("%.1f", w.throughput.perc99), 9, true)
        << pad(w.threshold > 0 ? fmt("%.0f", w.threshold) : "-", 10, true)
        << pad(w.attempt_latency.available
                   ? fmt("%.2f", w.attempt_latency.perc50 * 1000) + "/" + fmt("%.2f", w.attempt_latency.perc99 * 1000)
                   : "-",
               22, true)
        << pad(w.peak_rss_kb > 0 ? fmt("%.0f", w.peak_rss_kb / 1024.0) : "-", 13, true) << "\n";
    if (!w.ok) out << "    error: " << w.error << "\n";
  }
  out << "\nThroughput in pods/s (SchedulingThroughput, 1 s samples); upstream = scheduler_perf's threshold for that "
         "workload (its CI machine, not this one).\n";
  for (const auto& w : r.results) {
    if (w.stage_cpu.empty()) continue;
    out << "\nCPU during the measured phase of " << w.name
        << (w.storage.empty() ? std::string() : " (" + w.storage + " store)") << " (" << fmt("%.2f", w.process_cpu_seconds)
        << " s process CPU over " << fmt("%.2f", w.measured_seconds) << " s, "
        << fmt("%.0f", w.measured_seconds > 0 ? static_cast<double>(w.measured_bound) / w.measured_seconds : 0.0)
        << " pods bound per second over the phase"
        << (w.etcd_cpu_seconds >= 0 ? ", and " + fmt("%.2f", w.etcd_cpu_seconds) + " s in etcd's process" : std::string())
        << "):\n";
    for (const auto& s : w.stage_cpu)
      out << "  " << pad(s.stage, 48) << pad(fmt("%.2f s", s.seconds), 10, true)
          << pad(fmt("%.0f%%", w.process_cpu_seconds > 0 ? 100.0 * s.seconds / w.process_cpu_seconds : 0), 6, true) << "\n";
    if (!w.top_threads.empty()) {
      out << "  hottest threads:";
      for (std::size_t i = 0; i < w.top_threads.size() && i < 6; ++i)
        out << " " << w.top_threads[i].stage << "=" << fmt("%.2f", w.top_threads[i].seconds);
      out << "\n";
    }
    if (w.batched_pods >= 0) {
      out << "  pods placed from an opportunistic batch: " << w.batched_pods << " of " << w.measured_pods << "\n";
    }
    if (w.gang_span.samples > 0) {
      out << "  gangs: " << w.gang_span.samples << "; each gang's span from its first to its last member bound: median "
          << fmt("%.3f", w.gang_span.perc50) << " s, p99 " << fmt("%.3f", w.gang_span.perc99) << " s, max "
          << fmt("%.3f", w.gang_span_max) << " s\n";
      out << "  each gang's placement, from its last member seen to its last member bound: median "
          << fmt("%.3f", w.gang_placement.perc50) << " s, p99 " << fmt("%.3f", w.gang_placement.perc99) << " s, max "
          << fmt("%.3f", w.gang_placement_max) << " s\n";
      if (!w.gangs.empty() && w.gangs.size() <= 20) {
        out << "  each gang (last member seen: first..last member bound, s since the phase began):";
        for (const auto& g : w.gangs)
          out << " " << g.gang << "=" << fmt("%.2f", g.last_seen) << ":" << fmt("%.2f", g.first_bound) << ".."
              << fmt("%.2f", g.last_bound);
        out << "\n";
      }
    }
    if (w.events_written >= 0) {
      out << "  events written by the end of the phase: " << w.events_written << " for " << w.measured_pods
          << " pods (the scheduler drops events its queue cannot hold)\n";
    }
    if (!w.extension_point_seconds.empty()) {
      out << "  extension points (wall seconds summed over attempts):";
      for (const auto& [n, s] : w.extension_point_seconds) out << " " << n << "=" << fmt("%.3f", s);
      out << "\n";
    }
  }
  return out.str();
}

std::string to_svg(const std::vector<WorkloadResult>& results, const std::string& title) {
  const double W = 900, H = 480, L = 70, R = 230, T = 40, B = 50;
  double max_t = 1, max_v = 1;
  for (const auto& w : results)
    for (const auto& [t, v] : w.series) {
      max_t = std::max(max_t, t);
      max_v = std::max(max_v, v);
    }
  // Round the y range up to a readable step.
  double step = std::pow(10.0, std::floor(std::log10(max_v)));
  if (max_v / step < 2) step /= 5;
  else if (max_v / step < 5) step /= 2;
  max_v = std::ceil(max_v / step) * step;
  auto X = [&](double t) { return L + (W - L - R) * t / max_t; };
  auto Y = [&](double v) { return H - B - (H - T - B) * v / max_v; };
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
    << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  s << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"" << W / 2 << "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">" << xml_escape(title) << "</text>\n";
  s << "<line x1=\"" << L << "\" y1=\"" << H - B << "\" x2=\"" << W - R << "\" y2=\"" << H - B << "\" stroke=\"black\"/>\n";
  s << "<line x1=\"" << L << "\" y1=\"" << T << "\" x2=\"" << L << "\" y2=\"" << H - B << "\" stroke=\"black\"/>\n";
  for (double v = 0; v <= max_v + 1e-9; v += step) {
    s << "<line x1=\"" << L << "\" y1=\"" << Y(v) << "\" x2=\"" << W - R << "\" y2=\"" << Y(v)
      << "\" stroke=\"#ddd\"/><text x=\"" << L - 6 << "\" y=\"" << Y(v) + 4 << "\" text-anchor=\"end\">" << v << "</text>\n";
  }
  double tstep = std::max(1.0, std::ceil(max_t / 10));
  for (double t = 0; t <= max_t + 1e-9; t += tstep)
    s << "<text x=\"" << X(t) << "\" y=\"" << H - B + 16 << "\" text-anchor=\"middle\">" << t << "</text>\n";
  s << "<text x=\"" << (L + W - R) / 2 << "\" y=\"" << H - 12 << "\" text-anchor=\"middle\">seconds since the measured pods were created</text>\n";
  s << "<text transform=\"translate(18," << (T + H - B) / 2 << ") rotate(-90)\" text-anchor=\"middle\">pods scheduled per second</text>\n";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& w = results[i];
    const char* c = kColors[i % (sizeof kColors / sizeof kColors[0])];
    s << "<polyline fill=\"none\" stroke=\"" << c << "\" stroke-width=\"2\" points=\"";
    for (const auto& [t, v] : w.series) s << X(t) << "," << Y(v) << " ";
    s << "\"/>\n";
    s << "<rect x=\"" << W - R + 12 << "\" y=\"" << T + 18 * i << "\" width=\"12\" height=\"12\" fill=\"" << c << "\"/>"
      << "<text x=\"" << W - R + 30 << "\" y=\"" << T + 18 * i + 10 << "\" font-size=\"10\">" << xml_escape(w.name)
      << "</text>\n";
  }
  s << "</svg>\n";
  return s.str();
}

std::string write_plot(const std::vector<WorkloadResult>& results, const std::string& path) {
  std::string title = "ksched bench: pods scheduled per second";
  if (std::system("command -v gnuplot >/dev/null 2>&1") == 0) {
    namespace fs = std::filesystem;
    auto dir = fs::temp_directory_path() / ("ksched-bench-plot-" + std::to_string(::getpid()));
    std::error_code ec;
    fs::create_directories(dir, ec);
    std::ofstream script(dir / "plot.gp");
    script << "set terminal svg size 900,480 dynamic background rgb 'white'\n"
           << "set output '" << path << "'\n"
           << "set title '" << title << "'\nset xlabel 'seconds since the measured pods were created'\n"
           << "set ylabel 'pods scheduled per second'\nset key outside right\nset grid ytics\n"
           << "set yrange [0:*]\n";
    std::string plot = "plot ";
    for (std::size_t i = 0; i < results.size(); ++i) {
      auto data = dir / ("w" + std::to_string(i) + ".dat");
      std::ofstream d(data);
      for (const auto& [t, v] : results[i].series) d << t << " " << v << "\n";
      if (results[i].series.empty()) d << "0 0\n";
      std::string name = results[i].name;
      std::replace(name.begin(), name.end(), '\'', ' ');
      std::replace(name.begin(), name.end(), '_', '-');  // gnuplot treats _ as a subscript
      plot += (i ? ", " : "") + std::string("'") + data.string() + "' using 1:2 with linespoints title '" + name + "'";
    }
    script << plot << "\n";
    script.close();
    std::string cmd = "gnuplot '" + (dir / "plot.gp").string() + "' 2>/dev/null";
    int rc = std::system(cmd.c_str());
    fs::remove_all(dir, ec);
    if (rc == 0 && fs::exists(path)) return "plot written with gnuplot to " + path;
  }
  std::ofstream out(path);
  out << to_svg(results, title);
  return out ? "plot written (built-in SVG) to " + path : "cannot write " + path;
}

}  // namespace ksched::perf
