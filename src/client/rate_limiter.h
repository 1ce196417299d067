// Client-side request throttling: a token bucket like client-go's flowcontrol.NewTokenBucketRateLimiter
// (qps tokens per second, `burst` capacity, starts full). reserve() takes a token now and returns how
// long the caller must wait for it, so that concurrent callers queue fairly without a lock held.
#pragma once
#include <algorithm>
#include <chrono>
#include <mutex>

#include "util/clock.h"

namespace ksched::client {

class TokenBucket {
 public:
  using duration = util::Clock::duration;
  TokenBucket(double qps, int burst, const util::Clock& clock = util::RealClock::instance())
      : qps_(qps), burst_(std::max(1, burst)), clock_(clock), tokens_(burst_), last_(clock.now()) {}

  // Takes a token (possibly going into debt) and returns the wait until it is really available.
  duration reserve() {
    if (qps_ <= 0) return duration::zero();  // unlimited
    std::lock_guard l(mu_);
    refill();
    tokens_ -= 1;
    if (tokens_ >= 0) return duration::zero();
    return std::chrono::duration_cast<duration>(std::chrono::duration<double>(-tokens_ / qps_));
  }
  // Takes a token only if one is available now.
  bool try_accept() {
    if (qps_ <= 0) return true;
    std::lock_guard l(mu_);
    refill();
    if (tokens_ < 1) return false;
    tokens_ -= 1;
    return true;
  }
  double tokens() const {
    std::lock_guard l(mu_);
    const_cast<TokenBucket*>(this)->refill();
    return tokens_;
  }

 private:
  void refill() {
    auto now = clock_.now();
    if (now > last_) {
      tokens_ = std::min<double>(burst_, tokens_ + std::chrono::duration<double>(now - last_).count() * qps_);
      last_ = now;
    }
  }
  double qps_;
  int burst_;
  const util::Clock& clock_;
  mutable std::mutex mu_;
  double tokens_;
  util::Clock::time_point last_;
};

}  // namespace ksched::client
