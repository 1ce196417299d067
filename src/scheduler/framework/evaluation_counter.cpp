#include "scheduler/framework/evaluation_counter.h"

#include <utility>

namespace ksched::scheduler::framework {

namespace {
std::atomic<std::uint64_t> next_id{1};

// The calling thread's blocks, by counter id. A thread serves few counters (one per profile), so a
// short vector searched linearly beats a map; entries of destroyed counters are never matched again
// because ids are not reused, and the list is trimmed when it grows.
struct ThreadBlocks {
  std::vector<std::pair<std::uint64_t, void*>> entries;
};
thread_local ThreadBlocks tls_blocks;
}  // namespace

EvaluationCounter::EvaluationCounter(std::size_t slots) : slots_(slots), id_(next_id.fetch_add(1)) {}

EvaluationCounter::Block& EvaluationCounter::block() {
  auto& entries = tls_blocks.entries;
  for (const auto& [id, p] : entries) {
    if (id == id_) return *static_cast<Block*>(p);
  }
  Block* b = nullptr;
  {
    std::lock_guard l(mu_);
    blocks_.push_back(std::make_unique<Block>(slots_));
    b = blocks_.back().get();
  }
  // Long-lived threads (tests create many frameworks) would otherwise keep dead entries forever.
  if (entries.size() >= 32) entries.erase(entries.begin(), entries.begin() + 16);
  entries.emplace_back(id_, b);
  return *b;
}

std::vector<std::uint64_t> EvaluationCounter::totals() const {
  std::vector<std::uint64_t> sum(slots_, 0);
  std::lock_guard l(mu_);
  for (const auto& b : blocks_) {
    for (std::size_t i = 0; i < slots_; ++i) sum[i] += (*b)[i].load(std::memory_order_relaxed);
  }
  return sum;
}

}  // namespace ksched::scheduler::framework
