// The pod-group cycle's metrics and workload-aware preemption's (workload-aware scheduling, issue
// #44), as upstream registers them after v1.35 in pkg/scheduler/metrics/metrics.go: alpha, and
// registered only with the GenericWorkload gate.
//
// - the cycle (podGroupScheduleAttempts, podGroupSchedulingLatency,
//   PodGroupSchedulingAlgorithmLatency): one attempt per pod-group cycle, by result and profile,
//   and the time of the cycle's placement search;
// - workload-aware preemption (WorkloadPreemptionAttempts, WorkloadPreemptionVictims,
//   PreemptionWorkloadDisruptions, PreemptionEvaluationDuration, PreemptionExecutionDuration,
//   PreemptionPDBViolations; v1.37's list): one attempt per group preemption run by its final
//   status code, the evaluation (victim selection) and execution (eviction) times by preemptor kind
//   ("podgroup") and status code, and on success how many pods and units it evicts and how many of
//   those units violate a PodDisruptionBudget.
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

  ksched::metrics::Counter& workloadPreemptionAttempts;     // scheduler_workload_preemption_attempts_total{result}
  ksched::metrics::Histogram& workloadPreemptionVictims;    // scheduler_workload_preemption_victims
  ksched::metrics::Histogram& preemptionWorkloadDisruptions;  // scheduler_preemption_workload_disruptions{preemptor}
  ksched::metrics::Histogram& preemptionEvaluationDuration;   // scheduler_preemption_evaluation_duration_seconds{preemptor,result}
  ksched::metrics::Histogram& preemptionExecutionDuration;    // scheduler_preemption_execution_duration_seconds{preemptor,result}
  ksched::metrics::Counter& preemptionPDBViolations;        // scheduler_preemption_pdb_violations_total{preemptor}

  // One pod-group cycle: result is "scheduled", "unschedulable" or "error" (upstream's labels).
  void attempt(std::string_view result, std::string_view profile, double seconds) {
    scheduleAttempts.with({result, profile}).inc();
    attemptDuration.with({result, profile}).observe(seconds);
  }
};

// Topology-aware placement's metrics (TopologyAwareWorkloadScheduling), as upstream's
// GeneratedPlacementsTotal, PlacementEvaluations and PlacementEvaluationDuration (their help texts
// from upstream's metrics tests of the pod-group algorithm, kubernetes/kubernetes around commit
// 1ff291df, before the `type` label): registered by kube-scheduler with that gate, recorded by the
// pod-group cycle once per PlacementGenerate run and once per placement it evaluates.
struct PlacementMetrics {
  explicit PlacementMetrics(ksched::metrics::Registry& r);

  ksched::metrics::Counter& generated;             // scheduler_generated_placements_total{profile}
  ksched::metrics::Counter& evaluations;           // scheduler_placement_evaluations_total{result,profile}
  ksched::metrics::Histogram& evaluationDuration;  // scheduler_placement_evaluation_duration_seconds{result,profile}

  // One placement evaluated: `feasible` when the group met its minimum there.
  void evaluated(bool feasible, std::string_view profile, double seconds) {
    const std::string_view result = feasible ? "feasible" : "infeasible";
    evaluations.with({result, profile}).inc();
    evaluationDuration.with({result, profile}).observe(seconds);
  }
};

// The preemptor label of the pod-group preemption's metrics, as upstream's.
inline constexpr std::string_view kPodGroupPreemptor = "podgroup";

}  // namespace ksched::scheduler::podgroup
