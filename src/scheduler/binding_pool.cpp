#include "scheduler/binding_pool.h"

#include <algorithm>

#include "util/thread.h"

namespace ksched::scheduler {

BindingPool::BindingPool(int workers, RunFn run) : run_(std::move(run)) {
  for (int i = 0; i < std::max(1, workers); ++i) {
    threads_.emplace_back([this] {
      util::set_thread_name("sched-bind");
      loop();
    });
  }
}

void BindingPool::submit(BindingJob job) {
  std::lock_guard l(mu_);
  ++in_flight_;
  if (job.batchable) {
    batchable_.push_back(std::move(job));
    // A runner busy with a batch takes this one next; a worker already woken takes it too.
    if (batch_runners_ + batch_wakes_ >= kBatchRunners) return;
    ++batch_wakes_;
  } else {
    alone_.push_back(std::move(job));
  }
  cv_.notify_one();
}

bool BindingPool::wait_idle(std::chrono::milliseconds timeout) {
  std::unique_lock l(mu_);
  return idle_cv_.wait_for(l, timeout, [&] { return in_flight_ == 0; });
}

void BindingPool::shutdown() {
  {
    std::lock_guard l(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void BindingPool::loop() {
  std::vector<BindingJob> batch;
  bool running_batch = false;
  for (;;) {
    batch.clear();
    {
      std::unique_lock l(mu_);
      if (running_batch) {
        --batch_runners_;
        running_batch = false;
      }
      cv_.wait(l, [&] { return stopping_ || !alone_.empty() || batch_ready(); });
      if (batch_wakes_ > 0) --batch_wakes_;
      // Drain queued bindings before stopping: each holds an assumed pod.
      if (!alone_.empty()) {
        batch.push_back(std::move(alone_.front()));
        alone_.pop_front();
      } else if (batch_ready()) {
        ++batch_runners_;
        running_batch = true;
        while (!batchable_.empty() && batch.size() < kMaxBatch) {
          batch.push_back(std::move(batchable_.front()));
          batchable_.pop_front();
        }
      } else {
        return;  // stopping, nothing left that this worker may take
      }
      // Batchable jobs left that a runner may start on (more than a batch, or this worker was
      // woken for them but took a job that runs alone): wake one.
      if (batch_ready() && batch_wakes_ == 0) {
        ++batch_wakes_;
        cv_.notify_one();
      }
    }
    run_(batch);
    {
      std::lock_guard l(mu_);
      in_flight_ -= static_cast<int>(batch.size());
      if (in_flight_ == 0) idle_cv_.notify_all();
    }
  }
}

}  // namespace ksched::scheduler
