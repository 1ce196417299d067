// A one-way "the owner is stopping" flag that blocked waits see at once: upstream's cancelled
// context for work that waits in the binding cycle (volume binding, DRA). Set once, never cleared;
// any number of threads may wait on it at the same time.
#pragma once
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace ksched::util {

class StopSignal {
 public:
  // Wakes every wait_for now and makes each later one return at once.
  void request_stop() {
    {
      std::lock_guard l(mu_);
      stopped_ = true;
    }
    cv_.notify_all();
  }
  bool stop_requested() const {
    std::lock_guard l(mu_);
    return stopped_;
  }
  // Sleeps up to `d`. True when a stop was requested before or during the wait (then at once).
  bool wait_for(std::chrono::nanoseconds d) const {
    std::unique_lock l(mu_);
    return cv_.wait_for(l, d, [&] { return stopped_; });
  }

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  bool stopped_ = false;
};

}  // namespace ksched::util
