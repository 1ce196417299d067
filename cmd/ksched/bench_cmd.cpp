// `ksched bench`: scheduler_perf-style throughput benchmark end to end through the API server.
#include <CLI/CLI.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <cerrno>
#include <mutex>

#include "perf/report.h"
#include "perf/runner.h"
#include "perf/workload.h"
#include "subcommand.h"
#include "util/log.h"

namespace {
namespace fs = std::filesystem;
using namespace ksched;

// bench/workloads of the source tree: next to the working directory, or three levels above the
// binary (build/<preset>/bin/ksched).
std::string default_workloads_dir() {
  if (const char* e = std::getenv("KSCHED_BENCH_WORKLOADS")) return e;
  std::error_code ec;
  if (fs::is_directory("bench/workloads", ec)) return "bench/workloads";
  auto exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto p = exe.parent_path().parent_path().parent_path().parent_path() / "bench" / "workloads";
    if (fs::is_directory(p, ec)) return p.string();
  }
  return "bench/workloads";
}

std::string now_rfc3339() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string git_commit(const std::string& dir) {
  std::string cmd = "git -C '" + dir + "' rev-parse --short HEAD 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {};
  char buf[64] = {0};
  std::string out;
  if (std::fgets(buf, sizeof buf, p)) out = buf;
  pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

class ProgressPrinter {
 public:
  explicit ProgressPrinter(std::string workload) : workload_(std::move(workload)), tty_(isatty(STDERR_FILENO)) {}
  ~ProgressPrinter() { end_line(); }
  void operator()(const perf::Progress& p) {
    std::lock_guard<std::mutex> lk(mu_);
    auto now = std::chrono::steady_clock::now();
    if (tty_) {
      const int width = 30;
      int filled = p.total > 0 ? static_cast<int>(width * std::min(1.0, static_cast<double>(p.done) / p.total)) : 0;
      std::string bar(filled, '#');
      bar.resize(width, '.');
      std::fprintf(stderr, "\r\033[K%s  %-24.24s [%s] %ld/%ld  %.0f pods/s  %.0fs", workload_.c_str(), p.phase.c_str(),
                   bar.c_str(), p.done, p.total, p.rate, p.elapsed);
      std::fflush(stderr);
      dirty_ = true;
      return;
    }
    // Not a terminal (CI logs): one plain line every 5 s, and one per phase change.
    if (p.phase != last_phase_ || now - last_ >= std::chrono::seconds(5)) {
      std::fprintf(stderr, "%s: %s %ld/%ld (%.0f pods/s, %.0fs)\n", workload_.c_str(), p.phase.c_str(), p.done, p.total,
                   p.rate, p.elapsed);
      last_ = now;
      last_phase_ = p.phase;
    }
  }
  void end_line() {
    std::lock_guard<std::mutex> lk(mu_);
    if (tty_ && dirty_) std::fprintf(stderr, "\n");
    dirty_ = false;
  }

 private:
  std::mutex mu_;
  std::string workload_;
  bool tty_;
  bool dirty_ = false;
  std::string last_phase_;
  std::chrono::steady_clock::time_point last_{};
};

// Runs one workload in a fresh `ksched bench --child` process and reads its JSON back.
perf::WorkloadResult run_in_child(const std::string& name, const std::function<void(std::vector<std::string>&)>& add_args) {
  perf::WorkloadResult failed;
  failed.name = name;
  auto tmp = fs::temp_directory_path() / ("ksched-bench-" + std::to_string(::getpid()) + "-child.json");
  std::vector<std::string> args{"ksched", "bench", "--child", "--workload", name, "--out", tmp.string()};
  add_args(args);
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    failed.error = "cannot fork a bench process";
    return failed;
  }
  if (pid == 0) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::error_code lec;
    auto self = fs::read_symlink("/proc/self/exe", lec);  // the real path keeps the process name "ksched"
    execv(lec ? "/proc/self/exe" : self.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::ifstream in(tmp);
  std::stringstream ss;
  ss << in.rdbuf();
  std::error_code ec;
  fs::remove(tmp, ec);
  auto rep = perf::report_from_json(ss.str());
  if (rep && rep->results.size() == 1) return rep->results.front();
  failed.error = WIFSIGNALED(status) ? "the bench process died with signal " + std::to_string(WTERMSIG(status))
                                     : "the bench process exited with status " + std::to_string(WEXITSTATUS(status)) +
                                           " without results";
  return failed;
}

int run_bench(int argc, char** argv) {
  CLI::App app{"Scheduler throughput benchmark (scheduler_perf workloads) through the API server", "ksched bench"};
  std::vector<std::string> workloads;
  int nodes = -1, init_pods = -1, pods = -1;
  perf::RunOptions ro;
  std::string out, plot, dir = default_workloads_dir(), label;
  bool standard = false, list = false, child = false, one_process = false;
  int verbosity = 0;
  app.add_option("--workload", workloads, "TestCase or TestCase/Workload (repeatable; see --list)");
  app.add_option("--nodes", nodes, "override the workload's initNodes")->check(CLI::NonNegativeNumber);
  app.add_option("--init-pods", init_pods, "override the workload's initPods")->check(CLI::NonNegativeNumber);
  app.add_option("--pods", pods, "override the workload's measurePods")->check(CLI::PositiveNumber);
  app.add_option("--scheduler", ro.scheduler, "in-process (ksched inside this process) or external (whatever scheduler watches the server)")
      ->check(CLI::IsMember({"in-process", "external"}))
      ->capture_default_str();
  app.add_option("--kubeconfig", ro.kubeconfig, "use this existing API server instead of the embedded one")->check(CLI::ExistingFile);
  app.add_option("--kubeconfig-out", ro.kubeconfig_out, "embedded server: write its kubeconfig here (for an external scheduler)");
  app.add_option("--scheduler-config", ro.scheduler_config, "in-process: KubeSchedulerConfiguration file")->check(CLI::ExistingFile);
  app.add_option("--metrics-url", ro.metrics_url, "external: the scheduler's metrics URL, e.g. https://127.0.0.1:10259/metrics");
  app.add_option("--scheduler-pid", ro.scheduler_pid, "external: PID of the scheduler process (its peak RSS is reported)");
  app.add_option("--out", out, "write results as JSON here");
  app.add_option("--plot", plot, "write an SVG plot of pods scheduled per second here (default: next to --out)");
  app.add_flag("--standard", standard, "run the standard set (workloads labelled 'standard'; what `make bench` runs)");
  app.add_option("--label", label, "run every workload with this label");
  app.add_flag("--list", list, "list the workloads and exit");
  app.add_option("--workloads-dir", dir, "directory of workload definitions")->capture_default_str();
  app.add_option("--storage", ro.storage,
                 "embedded server's store: memory, embedded (durable: write-ahead log with group commit), or etcd "
                 "(a single-member etcd started per workload from /usr/bin/etcd)")
      ->check(CLI::IsMember({"memory", "embedded", "etcd"}))
      ->capture_default_str();
  app.add_option("--data-dir", ro.data_dir, "--storage embedded: where each workload's fresh store directory is made (removed after)");
  app.add_option("--create-workers", ro.create_workers, "concurrent create requests")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--stall-timeout", ro.stall_seconds, "fail when no pod is bound for this many seconds while waiting")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("--one-process", one_process,
               "run several workloads in this process (default: one child process each, so memory and threads "
               "of one workload do not carry into the next)");
  app.add_flag("--child", child, "internal: run one workload and write its JSON only")->group("");
  app.add_option("-v,--v", verbosity, "log verbosity");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 1;
  }
  log::init(verbosity);
  auto cfg = perf::load_config_dir(dir);
  if (!cfg) {
    std::fprintf(stderr, "ksched bench: %s\n", cfg.error().c_str());
    return 1;
  }
  if (list) {
    std::printf("%-70s %-30s %s\n", "WORKLOAD", "PARAMS", "UPSTREAM THRESHOLD (pods/s)");
    for (const auto& tc : cfg->test_cases)
      for (const auto& w : tc.workloads) {
        std::string params;
        for (const auto& [k, v] : w.params) params += (params.empty() ? "" : " ") + k + "=" + std::to_string(v);
        std::string labels;
        for (const auto& l : w.labels) labels += (labels.empty() ? " [" : ",") + l;
        if (!labels.empty()) labels += "]";
        std::printf("%-70s %-30s %s\n", (tc.name + "/" + w.name + labels).c_str(), params.c_str(),
                    w.threshold > 0 ? std::to_string(static_cast<int>(w.threshold)).c_str() : "-");
      }
    return 0;
  }
  if (standard) {
    auto s = perf::workloads_with_label(*cfg, "standard");
    workloads.insert(workloads.end(), s.begin(), s.end());
  }
  if (!label.empty()) {
    auto s = perf::workloads_with_label(*cfg, label);
    workloads.insert(workloads.end(), s.begin(), s.end());
  }
  if (workloads.empty()) {
    std::fprintf(stderr, "ksched bench: give --workload NAME, --standard or --label (see --list)\n");
    return 1;
  }
  std::map<std::string, int> overrides;
  if (nodes >= 0) overrides["initNodes"] = nodes;
  if (init_pods >= 0) overrides["initPods"] = init_pods;
  if (pods >= 0) overrides["measurePods"] = pods;
  std::vector<perf::ResolvedWorkload> resolved;
  for (const auto& name : workloads) {
    auto r = perf::resolve(*cfg, name, overrides);
    if (!r) {
      std::fprintf(stderr, "ksched bench: %s\n", r.error().c_str());
      return 1;
    }
    resolved.push_back(std::move(*r));
  }

  perf::Report report;
  report.machine = perf::machine_info();
  report.started_at = now_rfc3339();
  report.ksched_version = KSCHED_VERSION;
  report.git_commit = git_commit(dir);
  bool all_ok = true;
  bool isolate = resolved.size() > 1 && !one_process && !child;
  for (const auto& w : resolved) {
    perf::WorkloadResult res;
    if (isolate) {
      res = run_in_child(w.full_name(), [&](std::vector<std::string>& a) {
        if (nodes >= 0) a.insert(a.end(), {"--nodes", std::to_string(nodes)});
        if (init_pods >= 0) a.insert(a.end(), {"--init-pods", std::to_string(init_pods)});
        if (pods >= 0) a.insert(a.end(), {"--pods", std::to_string(pods)});
        a.insert(a.end(), {"--scheduler", ro.scheduler, "--storage", ro.storage, "--workloads-dir", dir, "--create-workers",
                           std::to_string(ro.create_workers), "--stall-timeout", std::to_string(ro.stall_seconds), "-v",
                           std::to_string(verbosity)});
        for (auto [flag, val] : {std::pair{"--kubeconfig", ro.kubeconfig}, {"--kubeconfig-out", ro.kubeconfig_out},
                                 {"--scheduler-config", ro.scheduler_config}, {"--metrics-url", ro.metrics_url},
                                 {"--data-dir", ro.data_dir}})
          if (!val.empty()) a.insert(a.end(), {flag, val});
        if (ro.scheduler_pid > 0) a.insert(a.end(), {"--scheduler-pid", std::to_string(ro.scheduler_pid)});
      });
    } else {
      ProgressPrinter printer(w.full_name());
      ro.on_progress = [&](const perf::Progress& p) { printer(p); };
      ro.on_note = [&](const std::string& n) {
        printer.end_line();
        std::fprintf(stderr, "%s: %s\n", w.full_name().c_str(), n.c_str());
      };
      res = perf::run_workload(w, ro);
      printer.end_line();
    }
    if (!res.ok) all_ok = false;
    if (child) {
      // The parent reports it.
    } else if (!res.ok) {
      std::fprintf(stderr, "ksched bench: %s FAILED: %s\n", res.name.c_str(), res.error.c_str());
    } else {
      std::fprintf(stderr, "%s: %ld pods bound in %.2fs, average %.1f pods/s\n", res.name.c_str(), res.measured_bound,
                   res.measured_seconds, res.throughput.average);
    }
    report.results.push_back(std::move(res));
  }
  if (child) {
    std::ofstream f(out);
    f << perf::to_json(report);
    return f ? (all_ok ? 0 : 2) : 1;
  }
  std::printf("%s", perf::to_table(report).c_str());
  if (!out.empty()) {
    std::error_code ec;
    if (fs::path(out).has_parent_path()) fs::create_directories(fs::path(out).parent_path(), ec);
    std::ofstream f(out);
    f << perf::to_json(report);
    if (!f) {
      std::fprintf(stderr, "ksched bench: cannot write %s\n", out.c_str());
      return 1;
    }
    std::fprintf(stderr, "results written to %s\n", out.c_str());
    if (plot.empty()) {
      fs::path p(out);
      plot = (p.parent_path() / (p.stem().string() + "-throughput.svg")).string();
    }
  }
  if (!plot.empty()) std::fprintf(stderr, "%s\n", perf::write_plot(report.results, plot).c_str());
  if (!all_ok) {
    std::fprintf(stderr, "ksched bench: at least one workload failed (see above)\n");
    return 2;
  }
  return 0;
}

cmd::RegisterSubcommand reg("bench", "scheduler throughput benchmark (scheduler_perf workloads, through the API server)",
                            run_bench);

}  // namespace
