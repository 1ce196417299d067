#include "scheduler/podgroup/metrics.h"

namespace ksched::scheduler::podgroup {

using ksched::metrics::Stability;
using ksched::metrics::exponential_buckets;

// Names, help texts, labels and buckets as upstream's: the cycle's latencies 1 ms doubling, 15
// buckets; preemption's durations 1 ms doubling, 16 buckets; victim and unit counts 1 doubling, 11.
PodGroupMetrics::PodGroupMetrics(ksched::metrics::Registry& r)
    : scheduleAttempts(r.counter("scheduler_podgroup_schedule_attempts_total",
                                 "Number of attempts to schedule pod group, by the result. 'unschedulable' means a pod "
                                 "group could not be scheduled, while 'error' means an internal scheduler problem.",
                                 Stability::Alpha, {"result", "profile"})),
      attemptDuration(r.histogram("scheduler_podgroup_scheduling_attempt_duration_seconds",
                                  "Pod group scheduling attempt latency in seconds", Stability::Alpha,
                                  {"result", "profile"}, exponential_buckets(0.001, 2, 15))),
      algorithmDuration(r.histogram("scheduler_podgroup_scheduling_algorithm_duration_seconds",
                                    "Pod group scheduling algorithm latency in seconds", Stability::Alpha, {},
                                    exponential_buckets(0.001, 2, 15))),
      workloadPreemptionAttempts(r.counter(
          "scheduler_workload_preemption_attempts_total",
          "Total preemption attempts initiated by workload (including pod groups) in the cluster till now.",
          Stability::Alpha, {"result"})),
      workloadPreemptionVictims(r.histogram("scheduler_workload_preemption_victims",
                                            "Number of pod preemption victims caused by workload preemption.",
                                            Stability::Alpha, {}, exponential_buckets(1, 2, 11))),
      preemptionWorkloadDisruptions(r.histogram(
          "scheduler_preemption_workload_disruptions",
          "Number of workload preemption units being preempted. A single preemption unit can be all pods in a pod "
          "group (in case of DisruptionMode=all), or a single pod (in case of DisruptionMode=single).",
          Stability::Alpha, {"preemptor"}, exponential_buckets(1, 2, 11))),
      preemptionEvaluationDuration(r.histogram("scheduler_preemption_evaluation_duration_seconds",
                                               "Duration in seconds for identifying the target preemption victims.",
                                               Stability::Alpha, {"preemptor", "result"},
                                               exponential_buckets(0.001, 2, 16))),
      preemptionExecutionDuration(r.histogram(
          "scheduler_preemption_execution_duration_seconds",
          "Duration in seconds for preempting the target preemption victims. With async preemption enabled, "
          "preemption execution does not block the scheduling of other pods.",
          Stability::Alpha, {"preemptor", "result"}, exponential_buckets(0.001, 2, 16))),
      preemptionPDBViolations(r.counter("scheduler_preemption_pdb_violations_total",
                                        "Total number of pod disruption budget violations caused by preemption.",
                                        Stability::Alpha, {"preemptor"})) {}

// The evaluation histogram's definition was not in the sources at hand (only its name and labels,
// from upstream's tests): its help text is ksched's and its buckets are the cycle's (1 ms doubling,
// 15), since one evaluation is a simulated cycle of the group.
PlacementMetrics::PlacementMetrics(ksched::metrics::Registry& r)
    : generated(r.counter("scheduler_generated_placements_total",
                          "Number of candidate placements generated when scheduling pod groups, by scheduler profile.",
                          Stability::Alpha, {"profile"})),
      evaluations(r.counter("scheduler_placement_evaluations_total",
                            "Number of candidate placements evaluated when scheduling pod groups, by result and "
                            "scheduler profile. 'feasible' means the pod group fit into the placement, while "
                            "'infeasible' means it did not.",
                            Stability::Alpha, {"result", "profile"})),
      evaluationDuration(r.histogram("scheduler_placement_evaluation_duration_seconds",
                                     "Latency in seconds of evaluating one candidate placement when scheduling pod "
                                     "groups, by result and scheduler profile.",
                                     Stability::Alpha, {"result", "profile"}, exponential_buckets(0.001, 2, 15))) {}

}  // namespace ksched::scheduler::podgroup
