// Thread-pool Parallelizer (upstream framework/parallelize): work is split into chunks of
// max(1, min(sqrt(n), n/parallelism + 1)) indices; the calling thread works too, so nested or
// concurrent until() calls never deadlock.
//
// Waking a worker costs tens of microseconds of CPU (futex, two context switches, the final
// wait), which a job of a few hundred cheap nodes does not repay, least of all on a small machine
// whose other cores are busy serving the same pods. So the caller works alone, chunk by chunk,
// and wakes the workers only when the job is still unfinished after `min_parallel_work`. (An
// estimate from the first chunk cannot work: Filter's job covers every node but stops once
// enough feasible ones are found.) The result is the same either way: which thread runs an
// index is not observable.
#pragma once
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "scheduler/framework/interface.h"

namespace ksched::scheduler::framework {

// Upstream chunkSizeFor.
int parallelizer_chunk_size(int n, int parallelism);

class ThreadPoolParallelizer final : public Parallelizer {
 public:
  // parallelism: the configured value (KubeSchedulerConfiguration.parallelism); the pool has
  // min(parallelism, hardware threads) - 1 workers besides the caller.
  // min_parallel_work: 0 wakes workers for every job of more than one chunk (tests).
  static constexpr std::chrono::microseconds kDefaultMinParallelWork{200};
  explicit ThreadPoolParallelizer(int parallelism,
                                  std::chrono::nanoseconds min_parallel_work = kDefaultMinParallelWork);
  ~ThreadPoolParallelizer() override;
  ThreadPoolParallelizer(const ThreadPoolParallelizer&) = delete;
  ThreadPoolParallelizer& operator=(const ThreadPoolParallelizer&) = delete;

  void until(int n, const std::function<void(int i)>& fn, const std::function<bool()>& stop = {}) override;
  void chunks(int n, const std::function<bool(int begin, int end)>& fn) override;
  int parallelism() const override { return parallelism_; }
  int workers() const { return static_cast<int>(threads_.size()); }

 private:
  struct Job;
  void worker_loop();
  static void work_on(Job& job);
  // One chunk; false when no index was left or the job was stopped.
  static bool work_on_one_chunk(Job& job);

  int parallelism_;
  std::chrono::nanoseconds min_parallel_work_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Job>> jobs_;
  bool shutdown_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace ksched::scheduler::framework
