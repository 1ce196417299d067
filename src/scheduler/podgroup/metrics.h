// The pod-group cycle's metrics (workload-aware scheduling, issue #44), as upstream registers them
// after v1.35 in pkg/scheduler/metrics/metrics.go (podGroupScheduleAttempts,
// podGroupSchedulingLatency, PodGroupSchedulingAlgorithmLatency; alpha, registered only with the
// GenericWorkload gate): one attempt per pod-group cycle, by result and profile, and the time of
// the cycle's placement search.
//
// Kept apart from SchedulerMetrics so that they exist only where upstream registers them: the
// kube-scheduler program makes one set per registry with the gates on and gives it to its
// Scheduler (SchedulerOptions::pod_group_metrics); a Scheduler without one records nothing.
#pragma once
#include <string_view>

#include "metrics/registry.h"

namespace ksched::scheduler::podgroup {

struct PodGroupMetrics {
  explicit PodGroupMetrics(ksched::metrics::Registry& r);

  ksched::metrics::Counter& scheduleAttempts;         // scheduler_podgroup_schedule_attempts_total{result,profile}
  ksched::metrics::Histogram& attemptDuration;        // scheduler_podgroup_scheduling_attempt_duration_seconds{result,profile}
  ksched::metrics::Histogram& algorithmDuration;      // scheduler_podgroup_scheduling_algorithm_duration_seconds

  // One pod-group cycle: result is "scheduled", "unschedulable" or "error" (upstream's labels).
  void attempt(std::string_view result, std::string_view profile, double seconds) {
    scheduleAttempts.with({result, profile}).inc();
    attemptDuration.with({result, profile}).observe(seconds);
  }
};

}  // namespace ksched::scheduler::podgroup
