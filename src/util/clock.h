// Clock abstraction so that queues, caches, backoff and leader election can be tested with a
// fake clock instead of sleeps.
#pragma once
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace ksched::util {

class Clock {
 public:
  using time_point = std::chrono::steady_clock::time_point;
  using duration = std::chrono::steady_clock::duration;
  virtual ~Clock() = default;
  virtual time_point now() const = 0;
  // Wall-clock time, for timestamps written into objects.
  virtual std::chrono::system_clock::time_point wall_now() const = 0;
};

class RealClock final : public Clock {
 public:
  time_point now() const override { return std::chrono::steady_clock::now(); }
  std::chrono::system_clock::time_point wall_now() const override { return std::chrono::system_clock::now(); }
  static RealClock& instance() {
    static RealClock c;
    return c;
  }
};

// FakeClock only moves when a test calls step()/set().
class FakeClock final : public Clock {
 public:
  FakeClock() : now_(std::chrono::steady_clock::time_point{} + std::chrono::hours(1)),
                wall_(std::chrono::system_clock::time_point{} + std::chrono::hours(24 * 365 * 56)) {}
  time_point now() const override {
    std::lock_guard l(mu_);
    return now_;
  }
  std::chrono::system_clock::time_point wall_now() const override {
    std::lock_guard l(mu_);
    return wall_;
  }
  void step(duration d) {
    std::lock_guard l(mu_);
    now_ += d;
    wall_ += std::chrono::duration_cast<std::chrono::system_clock::duration>(d);
  }

 private:
  mutable std::mutex mu_;
  time_point now_;
  std::chrono::system_clock::time_point wall_;
};

}  // namespace ksched::util
