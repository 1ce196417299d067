// The asynchronous API-call dispatcher (upstream v1.35 backend/api_dispatcher/api_dispatcher.go,
// SchedulerAsyncAPICalls, beta and off by default): calls are queued per object in a CallQueue and
// executed by worker threads through the scheduler's ClusterClient. Upstream starts a goroutine per
// popped call; ksched runs a fixed pool of `workers` threads (the configuration's parallelism),
// since threads are not goroutines: at most that many calls are on the wire at once.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "scheduler/apidispatcher/call_queue.h"

namespace ksched::scheduler::apidispatcher {

class Dispatcher {
 public:
  struct Observer {
    CallQueue::PendingObserver pending;  // scheduler_pending_async_api_calls
    // Each execution: scheduler_async_api_call_execution_total / _duration_seconds.
    std::function<void(CallType, bool success, double seconds)> executed;
  };
  // `client` must outlive the dispatcher. Workers start at once.
  Dispatcher(framework::ClusterClient& client, int workers, Observer observer = {});
  ~Dispatcher();
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  // Queues a call (CallQueue::add's contract): nullopt when queued, else the result it was refused
  // with (also sent to on_finish).
  std::optional<CallResult> add(std::shared_ptr<ApiCall> call, OnFinish on_finish = {});
  // Upstream SyncObject: a pod update from the informer refreshes the pod's queued call.
  void sync_object(const api::Pod& pod) { queue_.sync(pod); }
  // Stops taking calls: queued ones get Closed, running ones finish; joins the workers. Idempotent.
  void close();

  std::size_t tracked_objects() const { return queue_.size(); }
  // Until every queued call has run; false after `timeout`.
  bool wait_idle(std::chrono::milliseconds timeout) { return queue_.wait_idle(timeout); }

 private:
  void work();

  framework::ClusterClient& client_;
  Observer observer_;
  CallQueue queue_;
  std::vector<std::thread> workers_;
};

}  // namespace ksched::scheduler::apidispatcher
