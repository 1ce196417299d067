// Hands out memory for an allocator's heap from large regions that the kernel is asked to back
// with transparent huge pages (madvise(MADV_HUGEPAGE)). On hosts whose THP mode is "madvise" (the
// default of most distributions) a growing heap otherwise takes one page fault per 4 KiB it
// touches; under virtualisation each costs microseconds, which at thousands of pods per second
// was an eighth of the process's CPU. With huge pages it takes one fault per 2 MiB.
//
// Chunks are carved in address order from 2 MiB-aligned regions, so the heap stays dense and
// resident memory grows by at most the unused tail of the region in use. Memory is never
// returned: the allocator above it keeps and releases its own pages.
#pragma once
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace ksched::util {

class HugePageRegion {
 public:
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
  // `region_bytes`: how much address space to reserve at a time (rounded up to huge pages).
  explicit HugePageRegion(std::size_t region_bytes = std::size_t{64} << 20);
  HugePageRegion(const HugePageRegion&) = delete;
  HugePageRegion& operator=(const HugePageRegion&) = delete;

  // `size` bytes aligned to `alignment` (a power of two; at least the system page), or nullptr
  // when the kernel refuses the address space. Thread-safe; allocates nothing from the heap, so
  // a malloc implementation may call it while it holds its own locks.
  void* allocate(std::size_t size, std::size_t alignment);

  std::size_t regions_reserved() const;
  // Whether the kernel accepted the huge-page advice for every region (false: plain pages, e.g.
  // a kernel without THP; the memory is still good).
  bool advice_taken() const;

 private:
  bool reserve(std::size_t at_least);  // caller holds mu_

  mutable std::mutex mu_;
  std::uintptr_t next_ = 0;
  std::uintptr_t end_ = 0;
  std::size_t region_bytes_;
  std::size_t regions_ = 0;
  bool advice_taken_ = true;
};

// Makes the process's malloc (tcmalloc) grow its heap from a HugePageRegion when `by_default`, or
// when KSCHED_HUGE_PAGES=on is in the environment (KSCHED_HUGE_PAGES=off: never). Returns whether
// it did: false too when the binary does not allocate through tcmalloc. Call first thing in main:
// memory the heap already holds stays on plain pages.
bool use_huge_pages_for_heap(bool by_default);

}  // namespace ksched::util
