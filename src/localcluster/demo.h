// `ksched up --demo`: a mixed workload on the local cluster (plain pods, a deployment's pods spread
// across zones, required anti-affinity, taints and tolerations, priorities with one preemption,
// and pods that cannot fit), run until it settles, then summarised.
#pragma once
#include <chrono>
#include <map>
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

struct DemoReport {
  int nodes = 0;
  int created = 0;
  int scheduled = 0;
  double seconds = 0;          // first create -> last binding seen
  double pods_per_second = 0;  // scheduled / seconds
  std::map<std::string, int> pods_per_node;
  struct Unschedulable {
    std::string pod;
    std::string reason;
    std::string message;
  };
  std::vector<Unschedulable> unschedulable;
  std::vector<std::string> preempted;  // victims deleted by preemption
  std::string preemptor_node;          // where the high-priority pod landed ("" if it did not)
  bool settled = false;
};

util::Result<DemoReport> run_demo(LocalCluster& cluster, const DemoOptions& opts);
std::string format_report(const DemoReport& r);

}  // namespace ksched::localcluster
