// Work queues as controllers use them (client-go util/workqueue): a de-duplicating FIFO where an
// item is never processed by two workers at once (dirty/processing sets), a delaying layer
// (AddAfter) and a rate-limited layer (AddRateLimited with per-item exponential backoff and an
// overall token bucket). Time comes from util::Clock so tests drive it with FakeClock.
#pragma once
#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "client/rate_limiter.h"
#include "util/clock.h"

namespace ksched::informer {

template <class T, class Hash = std::hash<T>>
class WorkQueue {
 public:
  virtual ~WorkQueue() { shut_down(); }

  void add(const T& item) {
    std::lock_guard l(mu_);
    if (shutting_down_) return;
    if (dirty_.count(item)) return;
    dirty_.insert(item);
    if (processing_.count(item)) return;  // re-queued by done()
    queue_.push_back(item);
    cv_.notify_one();
  }
  std::size_t len() const {
    std::lock_guard l(mu_);
    return queue_.size();
  }
  // Blocks until an item is available; nullopt once shut down.
  std::optional<T> get() {
    std::unique_lock l(mu_);
    cv_.wait(l, [&] { return !queue_.empty() || shutting_down_; });
    if (queue_.empty()) return std::nullopt;
    T item = std::move(queue_.front());
    queue_.pop_front();
    processing_.insert(item);
    dirty_.erase(item);
    return item;
  }
  // Marks an item processed; if it was added meanwhile it goes back to the queue.
  void done(const T& item) {
    std::lock_guard l(mu_);
    processing_.erase(item);
    if (dirty_.count(item)) {
      queue_.push_back(item);
      cv_.notify_one();
    }
    if (processing_.empty()) drained_cv_.notify_all();
  }
  virtual void shut_down() {
    std::lock_guard l(mu_);
    shutting_down_ = true;
    cv_.notify_all();
  }
  // Shuts down and waits until in-flight items are done.
  void shut_down_with_drain() {
    shut_down();
    std::unique_lock l(mu_);
    drained_cv_.wait(l, [&] { return processing_.empty(); });
  }
  bool shutting_down() const {
    std::lock_guard l(mu_);
    return shutting_down_;
  }

 protected:
  mutable std::mutex mu_;
  std::condition_variable cv_, drained_cv_;
  std::deque<T> queue_;
  std::unordered_set<T, Hash> dirty_, processing_;
  bool shutting_down_ = false;
};

// Adds items once their delay has passed (on the given clock).
template <class T, class Hash = std::hash<T>>
class DelayingQueue : public WorkQueue<T, Hash> {
 public:
  explicit DelayingQueue(const util::Clock& clock = util::RealClock::instance()) : clock_(clock) {
    waiter_ = std::thread([this] { wait_loop(); });
  }
  ~DelayingQueue() override {
    shut_down();
    if (waiter_.joinable()) waiter_.join();
  }
  void add_after(const T& item, util::Clock::duration d) {
    if (d <= util::Clock::duration::zero()) {
      this->add(item);
      return;
    }
    std::lock_guard l(wmu_);
    if (stop_) return;
    auto ready = clock_.now() + d;
    auto it = waiting_.find(item);
    if (it != waiting_.end()) {
      if (ready < it->second) it->second = ready;  // an earlier deadline wins
    } else {
      waiting_.emplace(item, ready);
    }
    wcv_.notify_one();
  }
  std::size_t waiting() const {
    std::lock_guard l(wmu_);
    return waiting_.size();
  }
  void shut_down() override {
    WorkQueue<T, Hash>::shut_down();
    std::lock_guard l(wmu_);
    stop_ = true;
    wcv_.notify_all();
  }

 private:
  void wait_loop() {
    std::unique_lock l(wmu_);
    while (!stop_) {
      auto now = clock_.now();
      std::vector<T> ready;
      auto next = util::Clock::time_point::max();
      for (auto it = waiting_.begin(); it != waiting_.end();) {
        if (it->second <= now) {
          ready.push_back(it->first);
          it = waiting_.erase(it);
        } else {
          next = std::min(next, it->second);
          ++it;
        }
      }
      if (!ready.empty()) {
        l.unlock();
        for (auto& r : ready) this->add(r);
        l.lock();
        continue;
      }
      // Re-check at least every 10 ms so a FakeClock stepped by a test is noticed.
      auto wait = std::chrono::milliseconds(10);
      if (next != util::Clock::time_point::max())
        wait = std::min(wait, std::chrono::duration_cast<std::chrono::milliseconds>(next - now) +
                                  std::chrono::milliseconds(1));
      wcv_.wait_for(l, wait);
    }
  }
  const util::Clock& clock_;
  mutable std::mutex wmu_;
  std::condition_variable wcv_;
  std::unordered_map<T, util::Clock::time_point, Hash> waiting_;
  bool stop_ = false;
  std::thread waiter_;
};

template <class T>
class RateLimiter {
 public:
  virtual ~RateLimiter() = default;
  virtual util::Clock::duration when(const T& item) = 0;
  virtual void forget(const T& item) = 0;
  virtual int num_requeues(const T& item) = 0;
};

// base * 2^failures, capped at max (defaults 5 ms, 1000 s).
template <class T, class Hash = std::hash<T>>
class ItemExponentialFailureRateLimiter : public RateLimiter<T> {
 public:
  ItemExponentialFailureRateLimiter(util::Clock::duration base = std::chrono::milliseconds(5),
                                    util::Clock::duration max = std::chrono::seconds(1000))
      : base_(base), max_(max) {}
  util::Clock::duration when(const T& item) override {
    std::lock_guard l(mu_);
    int exp = failures_[item]++;
    double d = std::chrono::duration<double>(base_).count() * std::pow(2.0, exp);
    if (d > std::chrono::duration<double>(max_).count()) return max_;
    return std::chrono::duration_cast<util::Clock::duration>(std::chrono::duration<double>(d));
  }
  void forget(const T& item) override {
    std::lock_guard l(mu_);
    failures_.erase(item);
  }
  int num_requeues(const T& item) override {
    std::lock_guard l(mu_);
    auto it = failures_.find(item);
    return it == failures_.end() ? 0 : it->second;
  }

 private:
  util::Clock::duration base_, max_;
  std::mutex mu_;
  std::unordered_map<T, int, Hash> failures_;
};

// Overall qps/burst limit shared by all items.
template <class T>
class BucketRateLimiter : public RateLimiter<T> {
 public:
  BucketRateLimiter(double qps, int burst, const util::Clock& clock = util::RealClock::instance())
      : bucket_(qps, burst, clock) {}
  util::Clock::duration when(const T&) override { return bucket_.reserve(); }
  void forget(const T&) override {}
  int num_requeues(const T&) override { return 0; }

 private:
  client::TokenBucket bucket_;
};

template <class T>
class MaxOfRateLimiter : public RateLimiter<T> {
 public:
  explicit MaxOfRateLimiter(std::vector<std::unique_ptr<RateLimiter<T>>> ls) : ls_(std::move(ls)) {}
  util::Clock::duration when(const T& item) override {
    util::Clock::duration d{0};
    for (auto& l : ls_) d = std::max(d, l->when(item));
    return d;
  }
  void forget(const T& item) override {
    for (auto& l : ls_) l->forget(item);
  }
  int num_requeues(const T& item) override {
    int n = 0;
    for (auto& l : ls_) n = std::max(n, l->num_requeues(item));
    return n;
  }

 private:
  std::vector<std::unique_ptr<RateLimiter<T>>> ls_;
};

// DefaultControllerRateLimiter: max(per-item 5 ms..1000 s, overall 10 qps / 100 burst).
template <class T, class Hash = std::hash<T>>
std::unique_ptr<RateLimiter<T>> default_controller_rate_limiter(const util::Clock& clock = util::RealClock::instance()) {
  std::vector<std::unique_ptr<RateLimiter<T>>> ls;
  ls.push_back(std::make_unique<ItemExponentialFailureRateLimiter<T, Hash>>());
  ls.push_back(std::make_unique<BucketRateLimiter<T>>(10, 100, clock));
  return std::make_unique<MaxOfRateLimiter<T>>(std::move(ls));
}

template <class T, class Hash = std::hash<T>>
class RateLimitingQueue : public DelayingQueue<T, Hash> {
 public:
  RateLimitingQueue(std::unique_ptr<RateLimiter<T>> rl, const util::Clock& clock = util::RealClock::instance())
      : DelayingQueue<T, Hash>(clock), rl_(std::move(rl)) {}
  void add_rate_limited(const T& item) { this->add_after(item, rl_->when(item)); }
  void forget(const T& item) { rl_->forget(item); }
  int num_requeues(const T& item) { return rl_->num_requeues(item); }

 private:
  std::unique_ptr<RateLimiter<T>> rl_;
};

}  // namespace ksched::informer
