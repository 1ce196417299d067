// Runs one resolved workload end to end through an API server: creates its nodes, namespaces and
// pods with concurrent clients, watches pods to see bindings (spec.nodeName), samples the measured
// pods' binding rate every second, and checks that every pod that should be bound was bound.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "perf/report.h"
#include "perf/workload.h"

namespace ksched::perf {

struct Progress {
  std::string phase;  // e.g. "createNodes 500", "measure"
  long done = 0;
  long total = 0;
  double rate = 0;  // pods/s over the last sample
  double elapsed = 0;
};

struct RunOptions {
  std::string scheduler = "in-process";  // in-process | external
  std::string kubeconfig;                // existing API server; "" = start the embedded one
  std::string kubeconfig_out;            // embedded server + external scheduler: write its kubeconfig here
  std::string scheduler_config;          // in-process: KubeSchedulerConfiguration file
  std::string metrics_url;               // external: the scheduler's /metrics URL (optional)
  std::string metrics_token;             // bearer token for metrics_url ("" = the kubeconfig's)
  int scheduler_pid = 0;                 // external: read its peak RSS from /proc
  // Embedded server's store: "memory", "embedded" (durable, write-ahead log in a fresh directory
  // made under data_dir, "" = /tmp, and removed afterwards), or "etcd" (a single-member etcd
  // started for the workload, its data in such a directory).
  std::string storage = "memory";
  std::string data_dir;
  int create_workers = 16;               // concurrent create requests
  double stall_seconds = 120;            // fail when no pod gets bound for this long while waiting
  std::function<void(const Progress&)> on_progress;  // called about every 200 ms while waiting
  std::function<void(const std::string&)> on_note;   // human-readable notes (stderr)
};

WorkloadResult run_workload(const ResolvedWorkload& w, const RunOptions& opts);

}  // namespace ksched::perf
