// Counts of plugin evaluations (scheduler_plugin_evaluation_total): how often each PreFilter,
// Filter, PreScore and Score plugin ran. Filter and Score run per node on every parallelizer
// worker, so a shared atomic per plugin would bounce one cache line between cores thousands of
// times per pod. Instead each thread increments its own block (single writer, no read-modify-write
// contention) and readers sum the blocks when metrics are scraped.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace ksched::scheduler::framework {

class EvaluationCounter {
 public:
  explicit EvaluationCounter(std::size_t slots);
  EvaluationCounter(const EvaluationCounter&) = delete;
  EvaluationCounter& operator=(const EvaluationCounter&) = delete;

  // The calling thread's counters; look them up once per node, then bump() per plugin.
  std::atomic<std::uint64_t>* local() { return block().data(); }
  static void bump(std::atomic<std::uint64_t>* local, std::size_t slot) {
    // Only the owning thread writes its block: a plain load+store, no locked instruction.
    local[slot].store(local[slot].load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  static void add(std::atomic<std::uint64_t>* local, std::size_t slot, std::uint64_t n) {
    local[slot].store(local[slot].load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  // Sum over every thread's block; monotonic between calls.
  std::vector<std::uint64_t> totals() const;
  std::size_t slots() const { return slots_; }

 private:
  using Block = std::vector<std::atomic<std::uint64_t>>;
  Block& block();

  const std::size_t slots_;
  const std::uint64_t id_;  // never reused, so a thread's cached block pointer can't go stale
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Block>> blocks_;
};

}  // namespace ksched::scheduler::framework
