// The binding cycles' workers (upstream runs each binding cycle in a goroutine of its own).
//
// A fixed pool of threads runs the jobs it is given through one callback, which takes a batch of
// them (BindingCycle::run: the one binding path). A job that may wait (Permit said Wait, a
// PreBind with work to do, a binder that does not bind in batches) runs alone on any free worker.
// Batchable jobs are run by at most kBatchRunners workers at a time, each taking every queued one
// (up to kMaxBatch): while a batch is on the wire the next one gathers, so a burst of bindings
// costs a write per batch instead of a request and a thread hand-off per pod.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "scheduler/framework/runtime.h"
#include "scheduler/queue/scheduling_queue.h"
#include "scheduler/schedule_pod.h"

namespace ksched::scheduler {

// One pod's binding cycle, as its scheduling cycle leaves it.
struct BindingJob {
  framework::Framework* fwk = nullptr;
  std::shared_ptr<framework::CycleState> state;
  ScheduleResult result;
  queue::QueuedPodInfoPtr assumed_info;  // the pod as assumed on result.suggestedHost
  std::chrono::steady_clock::time_point start;
  std::shared_ptr<framework::PodsToActivate> pods_to_activate;
  // May run in a batch with others: Permit did not say Wait, no extender binds, and the profile
  // binds in batches for this pod (Framework::binds_in_batches).
  bool batchable = false;
};

class BindingPool {
 public:
  static constexpr std::size_t kMaxBatch = 64;
  static constexpr int kBatchRunners = 2;
  using RunFn = std::function<void(std::vector<BindingJob>& jobs)>;

  BindingPool(int workers, RunFn run);
  ~BindingPool() { shutdown(); }
  BindingPool(const BindingPool&) = delete;
  BindingPool& operator=(const BindingPool&) = delete;

  void submit(BindingJob job);
  // Blocks until no job is queued or running (bounded by timeout). True when idle.
  bool wait_idle(std::chrono::milliseconds timeout);
  // Runs every queued job (each holds an assumed pod), then joins the workers.
  void shutdown();

 private:
  bool batch_ready() const { return !batchable_.empty() && batch_runners_ < kBatchRunners; }
  void loop();

  RunFn run_;
  std::mutex mu_;
  std::condition_variable cv_, idle_cv_;
  std::deque<BindingJob> alone_, batchable_;
  int batch_runners_ = 0;  // workers running a batch now
  int batch_wakes_ = 0;    // notifications for batchable jobs not yet taken up
  int in_flight_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace ksched::scheduler
