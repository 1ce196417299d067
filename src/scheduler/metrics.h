// The kube-scheduler metric set (upstream pkg/scheduler/metrics/metrics.go) with upstream's names,
// types, labels and buckets, registered into a metrics::Registry (src/metrics).
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
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
using ksched::metrics::Family;
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
  Gauge& cacheSize;                          // scheduler_cache_size{type}
  Gauge& inFlightEvents;                     // scheduler_inflight_events{event}
  Histogram& queueingHintExecutionDuration;  // scheduler_queueing_hint_execution_duration_seconds{plugin,event,hint}
  Counter& batchAttempts;                     // scheduler_batch_attempts_total{profile,result}
  Counter& batchCacheFlushed;                 // scheduler_batch_cache_flushed_total{profile,reason}
  Counter& batchRescoreAttempts;              // scheduler_batch_rescore_attempts_total{profile}
  // Registered only with SchedulerAsyncPreemption on, as upstream (null otherwise).
  Histogram& getNodeHintDuration;            // scheduler_get_node_hint_duration_seconds{hinted,profile}
  Histogram& storeScheduleResultsDuration;   // scheduler_store_schedule_results_duration_seconds{profile}
  Histogram* preemptionGoroutinesDuration = nullptr;  // scheduler_preemption_goroutines_duration_seconds{result}
  Counter* preemptionGoroutinesExecution = nullptr;   // scheduler_preemption_goroutines_execution_total{result}
  // Registered only with SchedulerAsyncAPICalls on, as upstream (null otherwise).
  Counter* asyncAPICallsTotal = nullptr;      // scheduler_async_api_call_execution_total{call_type,result}
  Histogram* asyncAPICallDuration = nullptr;  // scheduler_async_api_call_execution_duration_seconds{call_type,result}
  Gauge* asyncAPIPendingCalls = nullptr;      // scheduler_pending_async_api_calls{call_type}
  // Registered only with DRAExtendedResource on, as upstream (null otherwise).
  Counter* resourceClaimCreatesTotal = nullptr;  // scheduler_resourceclaim_creates_total{status}

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
  void in_flight_events(std::string_view event, int delta) override { m_.inFlightEvents.with({event}).add(delta); }
  // Called for every waiting pod on every cluster event, mostly with the labels of the call
  // before: the last child is remembered (compared by value), so a walk of the waiting pods
  // costs no map lookup per pod.
  void queueing_hint(std::string_view plugin, std::string_view event, std::string_view hint, double seconds) override {
    std::lock_guard l(last_hint_mu_);
    if (last_hint_child_ == nullptr || last_hint_plugin_ != plugin || last_hint_event_ != event ||
        last_hint_ != hint) {
      last_hint_child_ = &m_.queueingHintExecutionDuration.with({plugin, event, hint});
      last_hint_plugin_.assign(plugin);
      last_hint_event_.assign(event);
      last_hint_.assign(hint);
    }
    last_hint_child_->observe(seconds);
  }

 private:
  SchedulerMetrics& m_;
  std::mutex last_hint_mu_;
  ksched::metrics::HistogramChild* last_hint_child_ = nullptr;
  std::string last_hint_plugin_, last_hint_event_, last_hint_;
};

// The metrics as one Scheduler records them: the SchedulerMetrics it was given, or its own (in a
// registry nobody exposes) when it was given none, so that its cycles record without asking
// whether anyone listens. The children a cycle touches are found without the families' locks,
// through lock-free caches keyed by the addresses of their labels (literals, and the scheduler's
// profile names, which outlive its recorder); each child is still made at its first use, so the
// exposition shows the same series as before.
class SchedulerRecorder {
 public:
  explicit SchedulerRecorder(SchedulerMetrics* given);
  SchedulerRecorder(const SchedulerRecorder&) = delete;
  SchedulerRecorder& operator=(const SchedulerRecorder&) = delete;

  SchedulerMetrics& set() { return *set_; }
  // scheduler_framework_extension_point_duration_seconds{point, status, profile}.
  void extension_point(std::string_view point, const framework::Status& s, std::string_view profile,
                       std::chrono::steady_clock::time_point since, std::chrono::steady_clock::time_point now) {
    extension_points_.with({point, framework::code_name(s.code()), profile}).observe(seconds_since(since, now));
  }
  // One attempt's result (kScheduled, kUnschedulable, kError; upstream PodScheduled,
  // PodUnschedulable, PodScheduleError): scheduler_schedule_attempts_total and
  // scheduler_scheduling_attempt_duration_seconds.
  void attempt(const char* result, std::string_view profile, double seconds) {
    attempts_.with({result, profile}).inc();
    attempt_durations_.with({result, profile}).observe(seconds);
  }
  // scheduler_scheduling_algorithm_duration_seconds.
  void algorithm_duration(double seconds) { algorithm_durations_.get().observe(seconds); }
  // scheduler_pod_scheduling_attempts: a bound pod's attempts.
  void pod_scheduling_attempts(int attempts) { pod_attempts_.get().observe(attempts); }
  // scheduler_goroutines{operation="binding"}: binding cycles under way.
  void binding_started() { goroutines_.with({kBinding}).inc(); }
  void binding_ended() { goroutines_.with({kBinding}).dec(); }
  // scheduler_cache_size{type}.
  void cache_size(std::int64_t nodes, std::int64_t pods, std::int64_t assumed_pods) {
    cache_size_.with({kNodes}).set(static_cast<double>(nodes));
    cache_size_.with({kPods}).set(static_cast<double>(pods));
    cache_size_.with({kAssumedPods}).set(static_cast<double>(assumed_pods));
  }
  // scheduler_batch_attempts_total{profile, result}, scheduler_batch_rescore_attempts_total{profile}.
  void batch_attempt(std::string_view profile, const char* result) { batch_attempts_.with({profile, result}).inc(); }
  void batch_rescore(std::string_view profile) { batch_rescores_.with({profile}).inc(); }
  // scheduler_get_node_hint_duration_seconds{hinted, profile}: asking the batch for a node (hinted:
  // it gave one); scheduler_store_schedule_results_duration_seconds{profile}: keeping a full cycle's
  // results for the pods that follow.
  void get_node_hint(std::string_view profile, bool hinted, double seconds) {
    node_hints_.with({hinted ? "hint" : "no_hint", profile}).observe(seconds);
  }
  void store_schedule_results(std::string_view profile, double seconds) {
    store_results_.with({profile}).observe(seconds);
  }

 private:
  static constexpr const char* kBinding = "binding";
  static constexpr const char* kNodes = "nodes";
  static constexpr const char* kPods = "pods";
  static constexpr const char* kAssumedPods = "assumed_pods";
  // The child of a family without labels, found at its first use.
  template <class Child>
  class Unlabelled {
   public:
    explicit Unlabelled(Family<Child>& family) : family_(family) {}
    Child& get() {
      Child* c = child_.load(std::memory_order_acquire);
      if (!c) {
        c = &family_.get();  // the same child for every thread that gets here
        child_.store(c, std::memory_order_release);
      }
      return *c;
    }

   private:
    Family<Child>& family_;
    std::atomic<Child*> child_{nullptr};
  };

  std::unique_ptr<Registry> own_registry_;
  std::unique_ptr<SchedulerMetrics> own_set_;
  SchedulerMetrics* set_;
  ChildCache<HistogramChild, 3> extension_points_;
  ChildCache<CounterChild, 2> attempts_;
  ChildCache<HistogramChild, 2> attempt_durations_;
  Unlabelled<HistogramChild> algorithm_durations_;
  Unlabelled<HistogramChild> pod_attempts_;
  ChildCache<GaugeChild, 1> goroutines_;
  ChildCache<GaugeChild, 1> cache_size_;
  ChildCache<CounterChild, 2> batch_attempts_;
  ChildCache<CounterChild, 1> batch_rescores_;
  ChildCache<HistogramChild, 2> node_hints_;
  ChildCache<HistogramChild, 1> store_results_;
};

}  // namespace ksched::scheduler::metrics
