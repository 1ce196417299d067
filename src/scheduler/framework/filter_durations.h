// Filter plugins' durations on sampled cycles (scheduler_plugin_execution_duration_seconds),
// counted per thread in the histogram's own buckets and handed to it in bulk. Filter runs once
// per node per plugin: a sampled cycle at 5,000 nodes makes tens of thousands of observations,
// and each one through the shared histogram cost a label lookup and three locked instructions.
// Here an observation is a bucket search and two plain stores into the thread's block
// (EvaluationCounter); flush() adds what was counted since the last flush to the metric.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <vector>

#include "scheduler/framework/evaluation_counter.h"
#include "scheduler/framework/status.h"

namespace ksched::scheduler::framework {

class FilterDurations {
 public:
  // bounds: the histogram's upper bounds in seconds, ascending; plugins: how many Filter plugins.
  FilterDurations(const std::vector<double>& bounds, std::size_t plugins);

  // Codes counted here; others (Wait, Skip, Pending: not Filter's) go to the plugin observer.
  static bool counts(Code c) { return static_cast<int>(c) >= 0 && static_cast<int>(c) < kCodes; }

  std::atomic<std::uint64_t>* local() { return cells_.local(); }
  // Counts the duration `weight` times (a sample standing for that many calls).
  void observe(std::atomic<std::uint64_t>* local, std::size_t plugin, Code code, std::chrono::nanoseconds d,
               std::uint64_t weight = 1) const {
    auto* c = local + cell(plugin, code);
    const std::int64_t ns = d.count();
    std::size_t b = 0;
    while (b < bounds_ns_.size() && ns > bounds_ns_[b]) ++b;
    bump(c[b], weight);  // b == bounds: above the last bound (+Inf only)
    bump(c[bounds_ns_.size() + 1], weight * static_cast<std::uint64_t>(std::max<std::int64_t>(ns, 0)));
  }

  // What was counted since the last flush, per plugin and code with any: fn(plugin, code,
  // non-cumulative bucket counts (one per bound), count, sum in seconds).
  using FlushFn = std::function<void(std::size_t plugin, Code code, std::span<const std::uint64_t> buckets,
                                     std::uint64_t count, double sum_seconds)>;
  void flush(const FlushFn& fn);

 private:
  static constexpr int kCodes = 4;  // Success, Error, Unschedulable, UnschedulableAndUnresolvable
  // A (plugin, code)'s cells: one per bound, one above the last bound, the sum in nanoseconds.
  // The count is the buckets' sum, so that a flush racing an observation never sees them differ.
  std::size_t cell(std::size_t plugin, Code code) const {
    return (plugin * kCodes + static_cast<std::size_t>(code)) * (bounds_ns_.size() + 2);
  }
  // The owning thread is the only writer of its block: a load and a store, no locked instruction.
  static void bump(std::atomic<std::uint64_t>& a, std::uint64_t by) {
    a.store(a.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
  }

  std::vector<std::int64_t> bounds_ns_;  // v <= bound (s)  <=>  ns <= floor(bound * 1e9)
  std::size_t plugins_;
  EvaluationCounter cells_;
  std::mutex flush_mu_;
  std::vector<std::uint64_t> flushed_;  // totals handed over so far
};

}  // namespace ksched::scheduler::framework
