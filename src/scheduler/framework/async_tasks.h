// Work that outlives the call that started it (upstream starts a goroutine), tracked so that its
// owner can wait for all of it before tearing down what it uses (the queue, the client).
#pragma once
#include <atomic>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <thread>

namespace ksched::scheduler::framework {

class AsyncTasks {
 public:
  AsyncTasks() = default;
  ~AsyncTasks() { wait(); }
  AsyncTasks(const AsyncTasks&) = delete;
  AsyncTasks& operator=(const AsyncTasks&) = delete;

  // Runs `fn` on a thread of its own. Threads that finished are joined here, so at most the
  // tasks still running are kept.
  void run(std::function<void()> fn) {
    auto done = std::make_shared<std::atomic<bool>>(false);
    std::lock_guard l(mu_);
    for (auto it = tasks_.begin(); it != tasks_.end();) {
      if (it->done->load(std::memory_order_acquire)) {
        it->thread.join();
        it = tasks_.erase(it);
      } else {
        ++it;
      }
    }
    tasks_.push_back(Task{std::thread([fn = std::move(fn), done] {
                            fn();
                            done->store(true, std::memory_order_release);
                          }),
                          done});
  }

  // Returns once every task started before the call has finished.
  void wait() {
    std::list<Task> all;
    {
      std::lock_guard l(mu_);
      all.swap(tasks_);
    }
    for (auto& t : all) t.thread.join();
  }

 private:
  struct Task {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::mutex mu_;
  std::list<Task> tasks_;
};

}  // namespace ksched::scheduler::framework
