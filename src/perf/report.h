// Results of `ksched bench`: the per-workload record, and its renderings (JSON file, human table,
// SVG plot of pods scheduled per second).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "perf/procinfo.h"
#include "perf/stats.h"
#include "util/result.h"

namespace ksched::perf {

struct LatencySummary {  // seconds
  double average = 0, perc50 = 0, perc90 = 0, perc95 = 0, perc99 = 0;
  double count = 0;
  bool available = false;
};

struct StageCpu {
  std::string stage;
  double seconds = 0;
};

// One gang of a gang workload (createPods with templateParams.podsPerGroup): when its first and
// its last member were seen bound, in seconds since the measured phase began.
struct GangPlacement {
  long gang = 0;
  double last_seen = 0;  // its last member's creation, as the bench's pod watch saw it
  double first_bound = 0, last_bound = 0;
  long members_bound = 0;
};

struct WorkloadResult {
  std::string name;  // TestCase/Workload
  std::map<std::string, int> params;
  std::string scheduler;  // in-process | external
  std::string storage;    // the embedded server's store: memory | embedded ("" = an existing server)
  bool ok = false;
  std::string error;
  double threshold = 0;  // upstream's minimum average throughput, 0 = none
  long measured_pods = 0;
  long measured_bound = 0;
  double measured_seconds = 0;  // first measured create to last measured bind
  double setup_seconds = 0;     // nodes + initial pods
  Summary throughput;           // SchedulingThroughput (pods/s)
  std::vector<std::pair<double, double>> series;  // (t, pods/s)
  LatencySummary attempt_latency;                 // scheduler_scheduling_attempt_duration_seconds, result=scheduled
  std::map<std::string, double> extension_point_seconds;  // framework_extension_point_duration_seconds sums
  long batched_pods = -1;    // placed from an opportunistic batch (scheduler_batch_attempts_total)
  long events_written = -1;  // events.k8s.io Events in the measured namespace when the phase ended
  // Gang workloads: every gang, and summaries of each gang's placement span (last member bound
  // minus first member bound; the pod-group cycle assumes all members at once, then binds them).
  std::vector<GangPlacement> gangs;
  Summary gang_span;
  double gang_span_max = 0;
  // Each gang's placement time: from its last member seen (the quorum is there) to its last member
  // bound: the pod-group cycle and every member's binding.
  Summary gang_placement;
  double gang_placement_max = 0;
  std::map<std::string, double> thread_cpu_seconds;       // by thread name, measured phase
  std::vector<StageCpu> stage_cpu;                        // by stage, measured phase
  std::vector<StageCpu> top_threads;                      // hottest threads: "component/name#tid"
  double process_cpu_seconds = 0;                         // whole process, measured phase
  double etcd_cpu_seconds = -1;                           // etcd mode: the etcd process, measured phase
  long peak_rss_kb = -1;                                  // VmHWM of this process
  long rss_baseline_kb = -1;                              // before the cluster started
  long rss_after_server_kb = -1;                          // after the (embedded) API server started
  long rss_after_scheduler_kb = -1;                       // after the in-process scheduler started
  long rss_end_kb = -1;
  long external_scheduler_peak_rss_kb = -1;               // --scheduler-pid
  std::string rss_note;
};

struct Report {
  MachineInfo machine;
  std::string started_at;  // RFC 3339
  std::string ksched_version;
  std::string git_commit;
  std::vector<WorkloadResult> results;
};

std::string to_json(const Report& r);
// Reads back what to_json wrote (a child process's results, when workloads run one per process).
util::Result<Report> report_from_json(const std::string& text);
std::string to_table(const Report& r);
// Hand-written SVG of pods/s over time, one line per workload.
std::string to_svg(const std::vector<WorkloadResult>& results, const std::string& title);
// Plots with gnuplot when it is installed; otherwise writes the hand-made SVG. Returns a note.
std::string write_plot(const std::vector<WorkloadResult>& results, const std::string& path);

}  // namespace ksched::perf
