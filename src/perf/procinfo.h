// What the bench reads about its own process and machine from /proc: CPU time per thread (grouped
// by thread name, for the per-stage breakdown), resident memory, and the CPU model.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "util/thread.h"

namespace ksched::perf {

struct ThreadCpu {
  int tid = 0;
  std::string name;    // /proc/self/task/<tid>/comm (pthread_setname_np, 15 chars)
  double seconds = 0;  // utime + stime
};

std::vector<ThreadCpu> thread_cpu_times(int pid = 0);  // 0 = this process
// Per-name CPU seconds spent between two snapshots (threads are matched by tid; threads born after
// `before` count in full).
std::map<std::string, double> cpu_by_thread_name(const std::vector<ThreadCpu>& before,
                                                 const std::vector<ThreadCpu>& after);
// The stage a thread name belongs to (watch decode, queue, filter/score, bind, server, bench, other).
std::string stage_of_thread(const std::string& name);

double process_cpu_seconds(int pid = 0);
long status_kb(const std::string& field, int pid = 0);  // e.g. "VmHWM", "VmRSS"; -1 when absent

struct MachineInfo {
  int cores = 0;
  std::string model;
  std::string kernel;
  std::string hostname;
  long mem_total_kb = 0;
};
MachineInfo machine_info();

using util::set_thread_name;  // shared with the rest of the code base (util/thread.h)

}  // namespace ksched::perf
