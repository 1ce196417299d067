// `ksched up --demo`: a mixed workload on the local cluster (plain pods, a deployment's pods spread
// across zones, required anti-affinity, taints and tolerations, priorities with one preemption,
// and pods that cannot fit), run until it settles, then summarised.
//
// The demo runs in phases: set-up (low-priority fillers that take the preemption target node),
// the burst (every other pod, created at once; most fit), then the preemptor. The summary keeps
// apart what the scheduler did with the burst (its rate) from the waits that follow (the
// preemption, the pods that stay unschedulable).
#pragma once
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "util/result.h"

namespace ksched::localcluster {

class LocalCluster;

struct DemoOptions {
  std::chrono::seconds timeout{120};
  bool progress = false;  // redraw a progress bar on stderr
  std::string ns = "demo";
};

// What the demo's pod informer saw, in seconds since the demo's first create request. Times are
// when the event reached the demo (watch delivery included), not the objects' timestamps, which
// have whole-second resolution.
struct DemoTimeline {
  struct Pod {
    std::optional<double> added;          // first seen
    std::optional<double> bound;          // first seen with spec.nodeName
    std::optional<double> unschedulable;  // first seen with PodScheduled=False, reason Unschedulable
    std::optional<double> deleted;        // seen deleted (a preemption victim)
    std::string node;
    std::string reason, message;  // the last PodScheduled=False condition
  };
  std::map<std::string, Pod> pods;  // by name, in the demo's namespace
  int nodes = 0;
  int created = 0;          // pods the demo created or had created (a deployment's replicas)
  std::set<std::string> setup;  // created and bound before the burst (the fillers)
  double burst_start = 0;   // the burst's first create request
  std::string preemptor;    // the high-priority pod, created after the burst
  double preemptor_created = 0;
  int preemptor_priority = 0;
  bool settled = false;     // every pod bound or reported unschedulable before the timeout
};

struct DemoReport {
  std::string ns;
  int nodes = 0;
  int created = 0;
  int scheduled = 0;  // bound at the end
  bool settled = false;
  double settled_seconds = 0;  // first create -> the last binding, unschedulable verdict or deletion

  // The burst's pods that were bound: how fast the scheduler placed work that fits at once.
  int burst_bound = 0;
  double burst_seconds = 0;          // the burst's first create request -> the last of these bindings
  double burst_pods_per_second = 0;  // burst_bound / burst_seconds

  // The preemption: the preemptor's wait is the victims' deletion and the scheduler's retry.
  std::string preemptor;
  int preemptor_priority = 0;
  std::string preemptor_node;          // "" when it was not bound
  std::optional<double> preemptor_wait;  // its creation -> its binding
  std::optional<double> victims_gone;    // its creation -> the last victim's deletion
  std::vector<std::string> preempted;    // victims

  std::map<std::string, int> pods_per_node;
  struct Unschedulable {
    std::string pod;
    std::string reason;
    std::string message;
  };
  std::vector<Unschedulable> unschedulable;  // pods not bound at the end
};

util::Result<DemoReport> run_demo(LocalCluster& cluster, const DemoOptions& opts);
// The figures from what was seen; pure, so a known timeline gives known figures.
DemoReport summarize(const DemoTimeline& t, const std::string& ns);
std::string format_report(const DemoReport& r);

}  // namespace ksched::localcluster
