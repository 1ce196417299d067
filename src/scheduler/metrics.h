// The kube-scheduler metric set (upstream pkg/scheduler/metrics/metrics.go) with upstream's names,
// types, labels and buckets, registered into a metrics::Registry (src/metrics).
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "metrics/registry.h"
#include "scheduler/queue/scheduling_queue.h"

namespace ksched::scheduler::metrics {

// The registry's types, as the scheduler's code names them.
using ksched::metrics::ChildCache;
using ksched::metrics::Counter;
using ksched::metrics::CounterChild;
using ksched::metrics::exponential_buckets;
using ksched::metrics::Gauge;
using ksched::metrics::GaugeChild;
using ksched::metrics::Histogram;
using ksched::metrics::HistogramChild;
using ksched::metrics::Registry;
using ksched::metrics::seconds_since;
using ksched::metrics::Stability;

// Result labels for scheduler_schedule_attempts_total and friends.
inline constexpr const char* kScheduled = "scheduled";
inline constexpr const char* kUnschedulable = "unschedulable";
inline constexpr const char* kError = "error";

// The kube-scheduler metric set, registered into one Registry.
struct SchedulerMetrics {
  explicit SchedulerMetrics(Registry& r);

  Registry& registry;

  Counter& scheduleAttempts;                 // scheduler_schedule_attempts_total{result,profile}
  Histogram& schedulingAttemptDuration;      // scheduler_scheduling_attempt_duration_seconds{result,profile}
  Histogram& schedulingAlgorithmDuration;    // scheduler_scheduling_algorithm_duration_seconds
  Gauge& pendingPods;                        // scheduler_pending_pods{queue}
  Histogram& podSchedulingSLIDuration;       // scheduler_pod_scheduling_sli_duration_seconds{attempts}
  Histogram& podSchedulingAttempts;          // scheduler_pod_scheduling_attempts
  Histogram& frameworkExtensionPointDuration;  // {extension_point,status,profile}
  Histogram& pluginExecutionDuration;        // {plugin,extension_point,status}
  Counter& pluginEvaluationTotal;            // {plugin,extension_point,profile}
  Counter& preemptionAttempts;               // scheduler_preemption_attempts_total
  Histogram& preemptionVictims;              // scheduler_preemption_victims
  Counter& queueIncomingPods;                // scheduler_queue_incoming_pods_total{queue,event}
  Gauge& unschedulablePods;                  // scheduler_unschedulable_pods{plugin,profile}
  Histogram& eventHandlingDuration;          // scheduler_event_handling_duration_seconds{event}
  Histogram& permitWaitDuration;             // scheduler_permit_wait_duration_seconds{result}
  Gauge& goroutines;                         // scheduler_goroutines{operation}
  Gauge& cacheSize;                          // scheduler_scheduler_cache_size{type}
  Counter& batchAttempts;                     // scheduler_batch_attempts_total{profile,result}
  Counter& batchCacheFlushed;                 // scheduler_batch_cache_flushed_total{profile,reason}
  Counter& batchRescoreAttempts;              // scheduler_batch_rescore_attempts_total{profile}

  // Attempt outcome helpers (upstream PodScheduled / PodUnschedulable / PodScheduleError).
  void pod_scheduled(std::string_view profile, double seconds);
  void pod_unschedulable(std::string_view profile, double seconds);
  void pod_schedule_error(std::string_view profile, double seconds);
  // "1".."14", "15+" for the sli histogram.
  static std::string attempts_label(int attempts);
};

// Feeds the queue's hooks into SchedulerMetrics.
class QueueMetricsAdapter final : public queue::QueueMetricsRecorder {
 public:
  explicit QueueMetricsAdapter(SchedulerMetrics& m) : m_(m) {}
  void incoming_pod(std::string_view q, std::string_view event) override {
    m_.queueIncomingPods.with({q, event}).inc();
  }
  void pending_pods(std::string_view q, std::int64_t value) override {
    m_.pendingPods.with({q}).set(static_cast<double>(value));
  }
  void unschedulable_reason(std::string_view plugin, std::string_view profile, int delta) override {
    m_.unschedulablePods.with({plugin, profile}).add(delta);
  }

 private:
  SchedulerMetrics& m_;
};

// The metrics as one Scheduler records them: the SchedulerMetrics it was given, or its own (in a
// registry nobody exposes) when it was given none, so that its cycles record without asking
// whether anyone listens; and a lock-free cache of the extension-point histogram's children,
// looked up several times per cycle by the addresses of literals and of the scheduler's profile
// names, which outlive the scheduler's recorder.
class SchedulerRecorder {
 public:
  explicit SchedulerRecorder(SchedulerMetrics* given);
  SchedulerRecorder(const SchedulerRecorder&) = delete;
  SchedulerRecorder& operator=(const SchedulerRecorder&) = delete;

  SchedulerMetrics& set() { return *set_; }
  SchedulerMetrics* operator->() { return set_; }
  // scheduler_framework_extension_point_duration_seconds{point, status, profile}.
  void extension_point(std::string_view point, const framework::Status& s, std::string_view profile,
                       std::chrono::steady_clock::time_point since, std::chrono::steady_clock::time_point now) {
    extension_points_.with({point, framework::code_name(s.code()), profile}).observe(seconds_since(since, now));
  }

 private:
  std::unique_ptr<Registry> own_registry_;
  std::unique_ptr<SchedulerMetrics> own_set_;
  SchedulerMetrics* set_;
  ChildCache<HistogramChild, 3> extension_points_;
};

}  // namespace ksched::scheduler::metrics
