#include "perf/procinfo.h"

#include <pthread.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace ksched::perf {
namespace fs = std::filesystem;

namespace {

std::string proc_dir(int pid) { return pid == 0 ? "/proc/self" : "/proc/" + std::to_string(pid); }

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// utime+stime (fields 14 and 15) of a stat line; the comm field may contain spaces, so count
// fields after the closing parenthesis.
double stat_cpu_seconds(const std::string& stat) {
  auto rp = stat.rfind(')');
  if (rp == std::string::npos) return 0;
  std::istringstream in(stat.substr(rp + 2));
  std::string field;
  long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && in >> field; ++i) {
    if (i == 14) utime = std::atoll(field.c_str());
    if (i == 15) stime = std::atoll(field.c_str());
  }
  static const long hz = sysconf(_SC_CLK_TCK);
  return static_cast<double>(utime + stime) / static_cast<double>(hz > 0 ? hz : 100);
}

double seconds_of(const timespec& ts) { return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9; }

// A thread of this process's CPU time in seconds, or -1 (it has exited). /proc's utime and
// stime are whole clock ticks per thread, truncated: 32 binding threads of 5 ms each read as
// nothing, and the loss showed up as "exited threads". The kernel's per-thread CPU clock, named
// from the tid as glibc's pthread_getcpuclockid does (CPUCLOCK_SCHED | CPUCLOCK_PERTHREAD), is
// exact; it is readable for threads of the calling process only.
double own_thread_cpu_seconds(int tid) {
  const clockid_t clock = static_cast<clockid_t>((~static_cast<unsigned>(tid) << 3) | 6u);
  timespec ts{};
  return clock_gettime(clock, &ts) == 0 ? seconds_of(ts) : -1;
}

}  // namespace

std::vector<ThreadCpu> thread_cpu_times(int pid) {
  std::vector<ThreadCpu> out;
  std::error_code ec;
  const bool own = pid == 0 || pid == getpid();
  for (const auto& e : fs::directory_iterator(proc_dir(pid) + "/task", ec)) {
    ThreadCpu t;
    t.tid = std::atoi(e.path().filename().c_str());
    t.name = slurp(e.path().string() + "/comm");
    while (!t.name.empty() && (t.name.back() == '\n' || t.name.back() == ' ')) t.name.pop_back();
    const double exact = own ? own_thread_cpu_seconds(t.tid) : -1;
    t.seconds = exact >= 0 ? exact : stat_cpu_seconds(slurp(e.path().string() + "/stat"));
    out.push_back(std::move(t));
  }
  return out;
}

std::map<std::string, double> cpu_by_thread_name(const std::vector<ThreadCpu>& before, const std::vector<ThreadCpu>& after) {
  std::map<int, double> base;
  for (const auto& t : before) base[t.tid] = t.seconds;
  std::map<std::string, double> out;
  for (const auto& t : after) {
    auto it = base.find(t.tid);
    double d = t.seconds - (it == base.end() ? 0 : it->second);
    if (d > 0) out[t.name] += d;
  }
  return out;
}

std::string stage_of_thread(const std::string& n) {
  auto starts = [&](std::string_view p) { return n.rfind(p, 0) == 0; };
  // Thread names the stack sets (see bench/README.md); anything else lands in "other".
  if (starts("bench")) return "bench (load generator + watch)";
  if (starts("apisrv") || starts("apiserver") || starts("http") || starts("watch-hub")) return "server";
  if (starts("informer") || starts("reflector") || starts("watch") || starts("sched-inf")) return "watch decode";
  if (starts("sched-queue") || starts("queue")) return "queue";
  if (starts("sched-filter") || starts("sched-par") || starts("parallel")) return "filter/score (parallel)";
  if (starts("sched-loop") || starts("scheduleOne") || starts("sched-one")) return "schedule loop (filter/score/reserve)";
  // api-dispatch: SchedulerAsyncAPICalls' workers send the bindings (and status patches).
  if (starts("sched-bind") || starts("binder") || starts("bind") || starts("api-dispatch")) return "bind request";
  if (starts("events") || starts("event")) return "events";
  if (starts("nodesim")) return "node simulator";
  return "other (unnamed threads: " + n + ")";
}

double process_cpu_seconds(int pid) {
  if (pid == 0 || pid == getpid()) {  // exact, like the threads' clocks it is compared with
    timespec ts{};
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0) return seconds_of(ts);
  }
  return stat_cpu_seconds(slurp(proc_dir(pid) + "/stat"));
}

long status_kb(const std::string& field, int pid) {
  std::ifstream in(proc_dir(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::atol(line.c_str() + field.size() + 1);
  }
  return -1;
}

MachineInfo machine_info() {
  MachineInfo m;
  m.cores = static_cast<int>(std::thread::hardware_concurrency());
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto c = line.find(':');
      if (c != std::string::npos) m.model = line.substr(c + 2);
      break;
    }
  }
  std::ifstream mi("/proc/meminfo");
  while (std::getline(mi, line))
    if (line.rfind("MemTotal:", 0) == 0) {
      m.mem_total_kb = std::atol(line.c_str() + 9);
      break;
    }
  utsname u{};
  if (uname(&u) == 0) {
    m.kernel = std::string(u.sysname) + " " + u.release;
    m.hostname = u.nodename;
  }
  return m;
}


}  // namespace ksched::perf
