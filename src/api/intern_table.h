// InternTable<Block>: the one table behind every interned, reference-counted block of the API
// types (ExtraFields blocks, SharedVector blocks), so that replicas decoded from identical JSON
// hold one block between them.
//
// Blocks are found by a hash of their content, then compared in full. The table holds one
// reference to each block it lists. Every change of an interned block's count that can involve
// the table's reference (a lookup taking one, a holder dropping one) happens under the shard
// lock, so the holder whose release leaves only the table's reference removes the block, and no
// lookup can revive it meanwhile. The hash is the map key, stored in the node: walking a bucket
// never touches the blocks themselves (they are scattered over the heap; an earlier set keyed by
// block pointer dereferenced every block it passed).
#pragma once
#include <atomic>
#include <cstddef>
#include <mutex>
#include <unordered_map>

namespace ksched::api {

// Block must have `std::atomic<std::uint32_t> refs`.
template <class Block>
class InternTable {
 public:
  static InternTable& instance() {
    static auto* t = new InternTable;  // never destroyed: cached objects may outlive static destructors
    return *t;
  }

  // Returns the listed block for which `same(block)` holds, with a reference taken for the caller;
  // or, when there is none, calls `prepare(*candidate)` (still under the lock, so the block is
  // complete before anyone can find it), lists `candidate` and returns it. The candidate must be
  // unshared: its count becomes 2 (the caller's and the table's). On a hit the caller frees its
  // candidate (outside this call: freeing a block may release blocks of other tables).
  template <class Same, class Prepare>
  Block* intern(std::size_t hash, Block* candidate, Same&& same, Prepare&& prepare) {
    Shard& s = shard(hash);
    std::lock_guard l(s.mu);
    if (Block* found = take_locked(s, hash, same)) return found;
    prepare(*candidate);
    candidate->refs.store(2, std::memory_order_relaxed);
    s.blocks.emplace(hash, candidate);
    return candidate;
  }

  // The listed block for which `same(block)` holds, with a reference taken for the caller, or null.
  template <class Same>
  Block* find(std::size_t hash, Same&& same) {
    Shard& s = shard(hash);
    std::lock_guard l(s.mu);
    return take_locked(s, hash, same);
  }

  // Drops one holder's reference to a listed block. True when that holder was the last: the block
  // is no longer listed and the caller frees it (outside any lock).
  bool release(Block* b, std::size_t hash) noexcept {
    Shard& s = shard(hash);
    std::lock_guard l(s.mu);
    if (b->refs.fetch_sub(1, std::memory_order_acq_rel) != 2) return false;
    auto [lo, hi] = s.blocks.equal_range(hash);
    for (auto it = lo; it != hi; ++it) {
      if (it->second == b) {
        s.blocks.erase(it);
        break;
      }
    }
    return true;
  }

  // Blocks listed now (tests, memory accounting).
  std::size_t size() {
    std::size_t n = 0;
    for (auto& s : shards_) {
      std::lock_guard l(s.mu);
      n += s.blocks.size();
    }
    return n;
  }

 private:
  struct Shard {
    std::mutex mu;
    std::unordered_multimap<std::size_t, Block*> blocks;
  };
  static constexpr std::size_t kShards = 16;
  Shard& shard(std::size_t hash) { return shards_[hash % kShards]; }

  // Under s.mu: the listed block matching `same`, with a reference taken, or null.
  template <class Same>
  static Block* take_locked(Shard& s, std::size_t hash, Same& same) {
    auto [lo, hi] = s.blocks.equal_range(hash);
    for (auto it = lo; it != hi; ++it) {
      if (same(*it->second)) {
        it->second->refs.fetch_add(1, std::memory_order_relaxed);
        return it->second;
      }
    }
    return nullptr;
  }

  Shard shards_[kShards];
};

}  // namespace ksched::api
