#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>

#include "util/huge_page_region.h"

using ksched::util::HugePageRegion;

namespace {
std::uintptr_t addr(void* p) { return reinterpret_cast<std::uintptr_t>(p); }
const std::size_t kPage = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}  // namespace

TEST(HugePageRegion, CarvesAlignedChunksOneAfterAnotherFromAHugePageBoundary) {
  HugePageRegion region(4 * HugePageRegion::kHugePage);
  void* a = region.allocate(1 << 20, kPage);
  void* b = region.allocate(3 * kPage, 8192);
  void* c = region.allocate(kPage, 64 * 1024);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(addr(a) % HugePageRegion::kHugePage, 0u) << "a region starts on a huge page";
  EXPECT_EQ(addr(b), addr(a) + (1 << 20)) << "the heap stays dense";
  EXPECT_EQ(addr(b) % 8192, 0u);
  EXPECT_EQ(addr(c) % (64 * 1024), 0u);
  EXPECT_GE(addr(c), addr(b) + 3 * kPage);
  EXPECT_LT(addr(c), addr(b) + 3 * kPage + 64 * 1024);
  EXPECT_EQ(region.regions_reserved(), 1u);
  // The memory is ours to write, every byte of it.
  std::memset(a, 0xab, 1 << 20);
  std::memset(b, 0xcd, 3 * kPage);
  EXPECT_EQ(static_cast<unsigned char*>(a)[(1 << 20) - 1], 0xab);
  EXPECT_EQ(static_cast<unsigned char*>(b)[0], 0xcd);
}

TEST(HugePageRegion, RoundsSizesUpToWholePages) {
  HugePageRegion region(HugePageRegion::kHugePage);
  void* a = region.allocate(1, 1);
  void* b = region.allocate(1, 1);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(addr(b) - addr(a), kPage);
}

TEST(HugePageRegion, ReservesANewRegionWhenTheCurrentOneCannotHoldTheChunk) {
  HugePageRegion region(HugePageRegion::kHugePage);
  void* a = region.allocate(HugePageRegion::kHugePage - kPage, kPage);
  void* b = region.allocate(2 * kPage, kPage);  // one page left: does not fit
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(region.regions_reserved(), 2u);
  EXPECT_EQ(addr(b) % HugePageRegion::kHugePage, 0u);
  // A chunk larger than a whole region gets a region of its own size.
  void* big = region.allocate(3 * HugePageRegion::kHugePage + kPage, kPage);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(region.regions_reserved(), 3u);
  std::memset(big, 1, 3 * HugePageRegion::kHugePage + kPage);
  // Alignment larger than a huge page is honoured too.
  void* aligned = region.allocate(kPage, 4 * HugePageRegion::kHugePage);
  ASSERT_NE(aligned, nullptr);
  EXPECT_EQ(addr(aligned) % (4 * HugePageRegion::kHugePage), 0u);
}

TEST(HugePageRegion, RefusesEmptyChunksAndAlignmentsThatAreNotPowersOfTwo) {
  HugePageRegion region;
  EXPECT_EQ(region.allocate(0, kPage), nullptr);
  EXPECT_EQ(region.allocate(kPage, 3 * kPage), nullptr);
  EXPECT_EQ(region.regions_reserved(), 0u);
}

TEST(HugePageRegion, TheKernelTakesTheAdviceWhereItHasTransparentHugePages) {
  if (!std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled")) {
    GTEST_SKIP() << "kernel without transparent huge pages";
  }
  HugePageRegion region;
  ASSERT_NE(region.allocate(kPage, kPage), nullptr);
  EXPECT_TRUE(region.advice_taken());
}
