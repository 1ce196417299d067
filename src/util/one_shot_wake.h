// One thread sleeps until another posts, once: a futex word, so that the post is one atomic
// exchange plus (only when the sleeper is already asleep) one FUTEX_WAKE, and the sleeper goes
// straight to the kernel. A condition variable costs twice that when it is signalled under its
// mutex (the woken thread then blocks on the mutex), and libstdc++'s semaphores and atomic waits
// spin through sched_yield first.
#pragma once
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

namespace ksched::util {

class OneShotWake {
 public:
  // Returns once post() was called (at once if it already was).
  void wait() {
    std::uint32_t s = kIdle;
    if (!state_.compare_exchange_strong(s, kSleeping, std::memory_order_acquire)) return;  // posted
    while (state_.load(std::memory_order_acquire) != kPosted)
      syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&state_), FUTEX_WAIT_PRIVATE, kSleeping, nullptr, nullptr, 0);
  }
  // Wakes the waiter; what the poster wrote before is visible to it. The waiter may return and
  // destroy this object before FUTEX_WAKE runs: the kernel then wakes nobody, or spuriously wakes
  // a later waiter at the same address, and futex waiters re-check their word.
  void post() {
    if (state_.exchange(kPosted, std::memory_order_release) == kSleeping)
      syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&state_), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
  }

 private:
  static constexpr std::uint32_t kIdle = 0, kSleeping = 1, kPosted = 2;
  static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));
  std::atomic<std::uint32_t> state_{kIdle};
};

}  // namespace ksched::util
