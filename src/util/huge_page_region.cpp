#include "util/huge_page_region.h"

#include <sys/mman.h>
#include <unistd.h>

namespace ksched::util {

namespace {
std::uintptr_t round_up(std::uintptr_t v, std::uintptr_t to) { return (v + to - 1) & ~(to - 1); }
}  // namespace

HugePageRegion::HugePageRegion(std::size_t region_bytes) : region_bytes_(round_up(region_bytes, kHugePage)) {
  if (region_bytes_ == 0) region_bytes_ = kHugePage;
}

bool HugePageRegion::reserve(std::size_t at_least) {
  std::size_t want = round_up(at_least, kHugePage);
  if (want < region_bytes_) want = region_bytes_;
  // One huge page more than needed, so a 2 MiB-aligned start can be cut out of it.
  const std::size_t mapped = want + kHugePage;
  void* m = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return false;
  const auto base = reinterpret_cast<std::uintptr_t>(m);
  const std::uintptr_t start = round_up(base, kHugePage);
  // Give back the unaligned head and the tail beyond the region.
  if (start > base) ::munmap(m, start - base);
  const std::uintptr_t tail = start + want;
  if (base + mapped > tail) ::munmap(reinterpret_cast<void*>(tail), base + mapped - tail);
  if (::madvise(reinterpret_cast<void*>(start), want, MADV_HUGEPAGE) != 0) advice_taken_ = false;
  next_ = start;
  end_ = tail;
  ++regions_;
  return true;
}

void* HugePageRegion::allocate(std::size_t size, std::size_t alignment) {
  if (size == 0) return nullptr;
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  if (alignment < page) alignment = page;
  if ((alignment & (alignment - 1)) != 0) return nullptr;
  size = round_up(size, page);
  std::lock_guard lock(mu_);
  std::uintptr_t at = round_up(next_, alignment);
  if (next_ == 0 || at + size > end_ || at + size < at) {
    // The rest of the current region stays unused address space: never touched, never resident.
    if (!reserve(size + (alignment > kHugePage ? alignment : 0))) return nullptr;
    at = round_up(next_, alignment);
  }
  next_ = at + size;
  return reinterpret_cast<void*>(at);
}

std::size_t HugePageRegion::regions_reserved() const {
  std::lock_guard lock(mu_);
  return regions_;
}

bool HugePageRegion::advice_taken() const {
  std::lock_guard lock(mu_);
  return advice_taken_;
}

}  // namespace ksched::util
