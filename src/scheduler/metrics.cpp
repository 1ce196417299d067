#include "scheduler/metrics.h"

#include "scheduler/config/features.h"

namespace ksched::scheduler::metrics {

SchedulerMetrics::SchedulerMetrics(Registry& r)
    : registry(r),
      scheduleAttempts(r.counter("scheduler_schedule_attempts_total",
                                 "Scheduling attempts by outcome: 'unschedulable' = no node fits the pod, "
                                 "'error' = an internal problem.",
                                 Stability::Stable, {"result", "profile"})),
      schedulingAttemptDuration(r.histogram("scheduler_scheduling_attempt_duration_seconds",
                                            "Scheduling attempt latency in seconds (algorithm and binding).",
                                            Stability::Stable, {"result", "profile"},
                                            exponential_buckets(0.001, 2, 15))),
      schedulingAlgorithmDuration(r.histogram("scheduler_scheduling_algorithm_duration_seconds",
                                              "Scheduling algorithm latency in seconds.", Stability::Alpha, {},
                                              exponential_buckets(0.001, 2, 15))),
      pendingPods(r.gauge("scheduler_pending_pods",
                          "Pending pods by queue: 'active' = activeQ, 'backoff' = backoffQ, 'unschedulable' = "
                          "unschedulablePods not gated, 'gated' = pods held by PreEnqueue plugins.",
                          Stability::Stable, {"queue"})),
      podSchedulingSLIDuration(r.histogram("scheduler_pod_scheduling_sli_duration_seconds",
                                           "E2e latency for a pod being scheduled, from the time the pod enters "
                                           "the scheduling queue; may include several attempts.",
                                           Stability::Beta, {"attempts"}, exponential_buckets(0.01, 2, 20))),
      podSchedulingAttempts(r.histogram("scheduler_pod_scheduling_attempts",
                                        "Number of attempts to successfully schedule a pod.", Stability::Stable, {},
                                        exponential_buckets(1, 2, 5))),
      frameworkExtensionPointDuration(r.histogram("scheduler_framework_extension_point_duration_seconds",
                                                  "Latency for running all plugins of a specific extension point.",
                                                  Stability::Stable, {"extension_point", "status", "profile"},
                                                  exponential_buckets(0.0001, 2, 12))),
      pluginExecutionDuration(r.histogram("scheduler_plugin_execution_duration_seconds",
                                          "Duration for running a plugin at a specific extension point.",
                                          Stability::Alpha, {"plugin", "extension_point", "status"},
                                          exponential_buckets(0.00001, 1.5, 20))),
      pluginEvaluationTotal(r.counter("scheduler_plugin_evaluation_total",
                                      "Number of attempts to schedule pods by each plugin and extension point "
                                      "(available only in PreFilter, Filter, PreScore, and Score).",
                                      Stability::Alpha, {"plugin", "extension_point", "profile"})),
      preemptionAttempts(r.counter("scheduler_preemption_attempts_total", "Total preemption attempts in the cluster.",
                                   Stability::Stable)),
      preemptionVictims(r.histogram("scheduler_preemption_victims", "Number of selected preemption victims.",
                                    Stability::Stable, {}, exponential_buckets(1, 2, 7))),
      queueIncomingPods(r.counter("scheduler_queue_incoming_pods_total",
                                  "Number of pods added to scheduling queues by event and queue type.",
                                  Stability::Stable, {"queue", "event"})),
      unschedulablePods(r.gauge("scheduler_unschedulable_pods",
                                "The number of unschedulable pods broken down by plugin name. A pod increments "
                                "the gauge for every plugin that rejected it.",
                                Stability::Alpha, {"plugin", "profile"})),
      eventHandlingDuration(r.histogram("scheduler_event_handling_duration_seconds",
                                        "Event handling latency in seconds.", Stability::Alpha, {"event"},
                                        exponential_buckets(0.0001, 2, 12))),
      permitWaitDuration(r.histogram("scheduler_permit_wait_duration_seconds",
                                     "Duration of waiting on permit.", Stability::Alpha, {"result"},
                                     exponential_buckets(0.001, 2, 15))),
      goroutines(r.gauge("scheduler_goroutines",
                         "Number of running goroutines split by the work they do such as binding.", Stability::Alpha,
                         {"operation"})),
      cacheSize(r.gauge("scheduler_cache_size",
                        "Number of nodes, pods, and assumed (bound) pods in the scheduler cache.", Stability::Alpha,
                        {"type"})),
      inFlightEvents(r.gauge("scheduler_inflight_events", "Number of events currently tracked in the scheduling queue.",
                             Stability::Alpha, {"event"})),
      queueingHintExecutionDuration(r.histogram("scheduler_queueing_hint_execution_duration_seconds",
                                                "Duration for running a queueing hint function of a plugin.",
                                                Stability::Alpha, {"plugin", "event", "hint"},
                                                exponential_buckets(0.00001, 1.5, 20))),
      batchAttempts(r.counter("scheduler_batch_attempts_total", "Counts of results when we attempt to use batching.",
                              Stability::Alpha, {"profile", "result"})),
      batchCacheFlushed(r.counter("scheduler_batch_cache_flushed_total", "Counts of cache flushes by reason.",
                                  Stability::Alpha, {"profile", "reason"})),
      batchRescoreAttempts(r.counter("scheduler_batch_rescore_attempts_total",
                                     "Counts of rescore attempts during opportunistic batching.", Stability::Alpha,
                                     {"profile"})),
      getNodeHintDuration(r.histogram("scheduler_get_node_hint_duration_seconds", "Latency for getting a node hint.",
                                      Stability::Alpha, {"hinted", "profile"}, exponential_buckets(0.00001, 2, 12))),
      // Upstream's help text, word for word (its own copy-paste slip included).
      storeScheduleResultsDuration(r.histogram("scheduler_store_schedule_results_duration_seconds",
                                               "Latency for getting a no.", Stability::Alpha, {"profile"},
                                               exponential_buckets(0.00001, 2, 12))) {
  if (config::features().schedulerAsyncPreemption) {
    preemptionGoroutinesDuration = &r.histogram("scheduler_preemption_goroutines_duration_seconds",
                                                "Duration in seconds for running goroutines for the preemption.",
                                                Stability::Alpha, {"result"}, exponential_buckets(0.01, 2, 20));
    preemptionGoroutinesExecution = &r.counter("scheduler_preemption_goroutines_execution_total",
                                               "Number of preemption goroutines executed.", Stability::Alpha,
                                               {"result"});
  }
  if (config::features().schedulerAsyncAPICalls) {
    asyncAPICallsTotal = &r.counter("scheduler_async_api_call_execution_total",
                                    "Total number of API calls executed by the async dispatcher.", Stability::Alpha,
                                    {"call_type", "result"});
    asyncAPICallDuration = &r.histogram("scheduler_async_api_call_execution_duration_seconds",
                                        "Duration in seconds for executing API call in the async dispatcher.",
                                        Stability::Alpha, {"call_type", "result"}, exponential_buckets(0.001, 2, 15));
    asyncAPIPendingCalls = &r.gauge("scheduler_pending_async_api_calls",
                                    "Number of API calls currently pending in the async queue.", Stability::Alpha,
                                    {"call_type"});
  }
  if (config::features().draExtendedResource) {
    resourceClaimCreatesTotal = &r.counter("scheduler_resourceclaim_creates_total",
                                           "Number of ResourceClaims creation requests within scheduler",
                                           Stability::Alpha, {"status"});
  }
}

SchedulerRecorder::SchedulerRecorder(SchedulerMetrics* given)
    : own_registry_(given ? nullptr : std::make_unique<Registry>()),
      own_set_(given ? nullptr : std::make_unique<SchedulerMetrics>(*own_registry_)),
      set_(given ? given : own_set_.get()),
      extension_points_(set_->frameworkExtensionPointDuration),
      attempts_(set_->scheduleAttempts),
      attempt_durations_(set_->schedulingAttemptDuration),
      algorithm_durations_(set_->schedulingAlgorithmDuration),
      pod_attempts_(set_->podSchedulingAttempts),
      goroutines_(set_->goroutines),
      cache_size_(set_->cacheSize),
      batch_attempts_(set_->batchAttempts),
      batch_rescores_(set_->batchRescoreAttempts),
      node_hints_(set_->getNodeHintDuration),
      store_results_(set_->storeScheduleResultsDuration) {}

std::string SchedulerMetrics::attempts_label(int attempts) {
  if (attempts >= 15) return "15+";
  return std::to_string(attempts);
}

}  // namespace ksched::scheduler::metrics
