#include "scheduler/framework/parallelizer.h"
#include "util/thread.h"

#include <algorithm>
#include <atomic>
#include <cmath>

namespace ksched::scheduler::framework {

int parallelizer_chunk_size(int n, int parallelism) {
  int s = static_cast<int>(std::sqrt(static_cast<double>(n)));
  int r = n / std::max(1, parallelism) + 1;
  if (s > r) s = r;
  return std::max(1, s);
}

struct ThreadPoolParallelizer::Job {
  const std::function<bool(int, int)>* fn = nullptr;
  int n = 0;
  int chunk = 1;
  std::atomic<int> next{0};
  std::atomic<bool> stopped{false};
  // Workers currently inside work_on for this job; guarded by the pool mutex for joining and by
  // done_mu for the final wait.
  int running = 0;
  std::mutex done_mu;
  std::condition_variable done_cv;
};

ThreadPoolParallelizer::ThreadPoolParallelizer(int parallelism, std::chrono::nanoseconds min_parallel_work)
    : parallelism_(std::max(1, parallelism)), min_parallel_work_(min_parallel_work) {
  int hw = static_cast<int>(std::thread::hardware_concurrency());
  if (hw <= 0) hw = 1;
  int extra = std::min(parallelism_, hw) - 1;
  for (int i = 0; i < extra; ++i) threads_.emplace_back([this] {
    util::set_thread_name("sched-par");
    worker_loop();
  });
}

ThreadPoolParallelizer::~ThreadPoolParallelizer() {
  {
    std::lock_guard l(mu_);
    shutdown_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

bool ThreadPoolParallelizer::work_on_one_chunk(Job& job) {
  if (job.stopped.load(std::memory_order_relaxed)) return false;
  int begin = job.next.fetch_add(job.chunk, std::memory_order_relaxed);
  if (begin >= job.n) return false;
  if (!(*job.fn)(begin, std::min(job.n, begin + job.chunk))) {
    job.stopped.store(true, std::memory_order_relaxed);
    return false;
  }
  return true;
}

void ThreadPoolParallelizer::work_on(Job& job) {
  while (work_on_one_chunk(job)) {
  }
}

void ThreadPoolParallelizer::worker_loop() {
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock l(mu_);
      for (;;) {
        cv_.wait(l, [&] { return shutdown_ || !jobs_.empty(); });
        if (shutdown_) return;
        job = jobs_.front();
        // A job stays queued until its caller finishes its own share; a worker that ran out of
        // chunks must drop it and sleep, not join it again (that spun on these locks until the
        // caller came back, costing as much CPU as the work itself).
        if (job->next.load(std::memory_order_relaxed) < job->n && !job->stopped.load(std::memory_order_relaxed)) break;
        jobs_.pop_front();
        job.reset();
      }
      {
        std::lock_guard dl(job->done_mu);
        ++job->running;
      }
      // Work left for others too? Keep it queued; otherwise drop it so idle workers sleep.
      if (job->next.load(std::memory_order_relaxed) + job->chunk >= job->n) jobs_.pop_front();
    }
    work_on(*job);
    {
      std::lock_guard dl(job->done_mu);
      --job->running;
    }
    job->done_cv.notify_all();
  }
}

void ThreadPoolParallelizer::until(int n, const std::function<void(int)>& fn, const std::function<bool()>& stop) {
  const bool has_stop = static_cast<bool>(stop);
  chunks(n, [&](int begin, int end) {
    for (int i = begin; i < end; ++i) {
      if (has_stop && stop()) return false;
      fn(i);
    }
    return true;
  });
}

void ThreadPoolParallelizer::chunks(int n, const std::function<bool(int, int)>& fn) {
  if (n <= 0) return;
  auto job = std::make_shared<Job>();
  job->fn = &fn;
  job->n = n;
  job->chunk = parallelizer_chunk_size(n, parallelism_);
  const bool use_pool = !threads_.empty() && n > job->chunk;
  if (use_pool && min_parallel_work_.count() > 0) {
    // Alone until min_parallel_work has passed: most jobs end (or are stopped) before that.
    const auto deadline = std::chrono::steady_clock::now() + min_parallel_work_;
    do {
      if (!work_on_one_chunk(*job)) return;
    } while (std::chrono::steady_clock::now() < deadline);
  }
  if (use_pool) {
    {
      std::lock_guard l(mu_);
      jobs_.push_back(job);
    }
    cv_.notify_all();
  }
  work_on(*job);
  if (use_pool) {
    {
      // No worker may join after this point.
      std::lock_guard l(mu_);
      auto it = std::find(jobs_.begin(), jobs_.end(), job);
      if (it != jobs_.end()) jobs_.erase(it);
    }
    std::unique_lock dl(job->done_mu);
    job->done_cv.wait(dl, [&] { return job->running == 0; });
  }
}

}  // namespace ksched::scheduler::framework
