#include "scheduler/podgroup/metrics.h"

namespace ksched::scheduler::podgroup {

using ksched::metrics::Stability;

// Names, help texts, labels and buckets as upstream's (1 ms doubling, 15 buckets).
PodGroupMetrics::PodGroupMetrics(ksched::metrics::Registry& r)
    : scheduleAttempts(r.counter("scheduler_podgroup_schedule_attempts_total",
                                 "Number of attempts to schedule pod group, by the result. 'unschedulable' means a pod "
                                 "group could not be scheduled, while 'error' means an internal scheduler problem.",
                                 Stability::Alpha, {"result", "profile"})),
      attemptDuration(r.histogram("scheduler_podgroup_scheduling_attempt_duration_seconds",
                                  "Pod group scheduling attempt latency in seconds", Stability::Alpha,
                                  {"result", "profile"}, ksched::metrics::exponential_buckets(0.001, 2, 15))),
      algorithmDuration(r.histogram("scheduler_podgroup_scheduling_algorithm_duration_seconds",
                                    "Pod group scheduling algorithm latency in seconds", Stability::Alpha, {},
                                    ksched::metrics::exponential_buckets(0.001, 2, 15))) {}

}  // namespace ksched::scheduler::podgroup
