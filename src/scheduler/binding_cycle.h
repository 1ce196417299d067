// The binding cycle (upstream bindingCycle, bind, extendersBinding, handleBindingCycleError): one
// path for one pod or a batch of them, which a pod group's commit can use as well.
//
// run() takes the jobs a binding worker took together: each job's WaitOnPermit and PreBind, then
// every Bind at once (per profile, Framework::run_bind_plugins over the batch; an extender binder
// takes its pod alone), then each job's end: FinishBinding, the Scheduled event, metrics and
// PostBind, or on failure Unreserve, forgetting the assumed pod and the failure handler.
#pragma once
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/binding_pool.h"
#include "scheduler/cache/cache.h"
#include "scheduler/framework/extender.h"
#include "scheduler/metrics.h"
#include "scheduler/queue/scheduling_queue.h"
#include "util/clock.h"

namespace ksched::scheduler {

// Upstream's FailureHandler: requeues a pod whose attempt failed and reports why (event, pod
// condition, nominated node).
using FailureHandlerFn =
    std::function<void(framework::Framework& fwk, const queue::QueuedPodInfoPtr& pinfo, const framework::Status& status,
                       const std::optional<framework::FitError>& fit,
                       const std::optional<framework::NominatingInfo>& nominating,
                       std::chrono::steady_clock::time_point start)>;

class BindingCycle {
 public:
  // What the binding cycle uses; every pointer must outlive it.
  struct Deps {
    cache::Cache* cache = nullptr;
    queue::PriorityQueue* queue = nullptr;
    framework::ClusterClient* client = nullptr;
    const std::vector<std::shared_ptr<framework::Extender>>* extenders = nullptr;  // in call order
    util::Clock* clock = nullptr;
    metrics::SchedulerRecorder* metrics = nullptr;
    FailureHandlerFn on_failure;
    // NominatedNodeNameForExpectation (KEP-5278): before Permit's wait, status.nominatedNodeName
    // is set to the chosen node when a PreBind plugin will work or the pod waits on Permit.
    bool nominated_node_name_for_expectation = true;
  };
  explicit BindingCycle(Deps deps) : deps_(std::move(deps)) {}

  // Runs the jobs' binding cycles (a binding worker, or a caller that holds a group of them).
  void run(std::vector<BindingJob>& jobs);
  // Whether an extender binds pods (such pods' binding cycles never run in a batch).
  bool extender_binds() const;

 private:
  framework::Status prologue(BindingJob& job);  // PreBind pre-flights, WaitOnPermit, PreBind
  // The pre-flights, and the nomination they call for (upstream's start of bindingCycle).
  framework::Status nominate_for_expectation(BindingJob& job);
  // After Bind (`bound`): FinishBinding, the Scheduled event, metrics, PostBind.
  framework::Status epilogue(BindingJob& job, framework::Status bound);
  // Activates the pods plugins asked for, or undoes the assumption and requeues the pod.
  void finish(BindingJob& job, const framework::Status& s);
  // True when an extender took the binding; `status` is then its outcome.
  bool extenders_binding(const api::Pod& pod, const std::string& node, framework::Status& status);
  void observe(std::string_view point, const framework::Status& s, const framework::Framework& fwk,
               std::chrono::steady_clock::time_point since) {
    deps_.metrics->extension_point(point, s, fwk.profile_name(), since, deps_.clock->now());
  }

  Deps deps_;
};

}  // namespace ksched::scheduler
