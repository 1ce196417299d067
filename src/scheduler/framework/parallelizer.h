// Thread-pool Parallelizer (upstream framework/parallelize): work is split into chunks of
// max(1, min(sqrt(n), n/parallelism + 1)) indices; the calling thread works too, so nested or
// concurrent until() calls never deadlock.
#pragma once
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
  explicit ThreadPoolParallelizer(int parallelism);
  ~ThreadPoolParallelizer() override;
  ThreadPoolParallelizer(const ThreadPoolParallelizer&) = delete;
  ThreadPoolParallelizer& operator=(const ThreadPoolParallelizer&) = delete;

  void until(int n, const std::function<void(int i)>& fn, const std::function<bool()>& stop = {}) override;
  int parallelism() const override { return parallelism_; }
  int workers() const { return static_cast<int>(threads_.size()); }

 private:
  struct Job;
  void worker_loop();
  static void work_on(Job& job);

  int parallelism_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Job>> jobs_;
  bool shutdown_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace ksched::scheduler::framework
