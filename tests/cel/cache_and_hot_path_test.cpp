// The compile cache (thread-safe, bounded, one compilation per expression) and the hot path:
// evaluating a compiled selector over a device allocates nothing from the heap.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <new>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cel/cel.h"
#include "cel_testing.h"

namespace {
// Heap allocations made by this thread (all of operator new's forms that the layer uses).
thread_local std::size_t t_allocations = 0;
// Out of line so that the compiler does not pair the replaced operators with malloc/free itself.
[[gnu::noinline]] void release(void* p) noexcept { std::free(p); }
}  // namespace

void* operator new(std::size_t n) {
  ++t_allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
  ++t_allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  ++t_allocations;
  return std::malloc(n == 0 ? 1 : n);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  ++t_allocations;
  return std::malloc(n == 0 ? 1 : n);
}
void* operator new(std::size_t n, std::align_val_t a) {
  ++t_allocations;
  std::size_t align = static_cast<std::size_t>(a);
  if (void* p = std::aligned_alloc(align, (n + align - 1) / align * align)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n, std::align_val_t a) { return operator new(n, a); }
void operator delete(void* p, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }

namespace ksched::cel {
namespace {

using testing::TestDevice;
using testing::Version;

TestDevice gpu() {
  return TestDevice("gpu.example.com")
      .attr("model", "A100")
      .attr("cores", 6912)
      .attr("mig", true)
      .attr("driverVersion", Version{"535.104.5"})
      .attr("pcie.example.com/generation", 4)
      .cap("memory", "40Gi");
}

TEST(HotPath, TypicalSelectorsDoNotAllocate) {
  const char* selectors[] = {
      R"(device.driver == "gpu.example.com" && device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0)",
      R"(device.attributes["gpu.example.com"].model == "A100")",
      R"(device.attributes["gpu.example.com"].model in ["A100", "H100"] && device.attributes["gpu.example.com"].mig)",
      R"(device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("535.0.0")))",
      R"(device.attributes["pcie.example.com"].generation >= 4 && "gpu.example.com" in device.attributes)",
      R"(cel.bind(g, device.attributes["gpu.example.com"], g.cores > 1000 && g.model.startsWith("A")))",
      R"(device.attributes["gpu.example.com"].model.matches("^A[0-9]+$"))",
      R"(device.attributes.exists(d, d == "pcie.example.com"))",
      R"(has(device.attributes["gpu.example.com"].vram) || device.attributes["gpu.example.com"].?vram.orValue(0) == 0)",
  };
  TestDevice d = gpu();
  Device view = d.view();
  for (const char* s : selectors) {
    SCOPED_TRACE(s);
    auto p = compile(s, {.estimate_cost = false});
    ASSERT_TRUE(p.ok()) << p.error().detail;
    auto first = p->evaluate(view);  // warms this thread's arena and matcher scratch space
    ASSERT_TRUE(first.ok()) << first.error().message;
    ASSERT_TRUE(*first);
    std::size_t before = t_allocations;
    for (int i = 0; i < 1000; ++i) {
      auto r = p->evaluate(view);
      ASSERT_TRUE(r.ok() && *r);
    }
    EXPECT_EQ(t_allocations - before, 0u);
  }
}

TEST(Cache, ReturnsTheCompiledProgram) {
  Cache cache(8);
  auto a = cache.get_or_compile(R"(device.driver == "a")");
  auto b = cache.get_or_compile(R"(device.driver == "a")");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->expression().data(), b->expression().data());  // the same plan
  EXPECT_EQ(cache.size(), 1u);
  // Failures are returned, not kept.
  auto bad = cache.get_or_compile("device.driver ==");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().detail.find("Syntax error"), std::string::npos);
  EXPECT_EQ(cache.size(), 1u);
  // The cache does not estimate costs (as upstream's scheduler cache).
  EXPECT_EQ(a->max_cost(), std::numeric_limits<std::uint64_t>::max());
}

TEST(Cache, IsBoundedAndDropsTheLeastRecentlyUsed) {
  Cache cache(3);
  auto expr = [](int i) { return "device.driver == \"" + std::to_string(i) + "\""; };
  // The programs are kept here, so that their plans' addresses cannot be reused.
  auto p0 = cache.get_or_compile(expr(0));
  auto p1 = cache.get_or_compile(expr(1));
  ASSERT_TRUE(p0.ok() && p1.ok());
  const char* first = p0->expression().data();
  const char* second = p1->expression().data();
  ASSERT_TRUE(cache.get_or_compile(expr(2)).ok());
  ASSERT_TRUE(cache.get_or_compile(expr(0)).ok());  // now most recent
  ASSERT_TRUE(cache.get_or_compile(expr(3)).ok());  // drops 1
  EXPECT_EQ(cache.size(), 3u);
  EXPECT_EQ(cache.get_or_compile(expr(0))->expression().data(), first);
  EXPECT_NE(cache.get_or_compile(expr(1))->expression().data(), second);  // compiled again
  EXPECT_EQ(cache.size(), 3u);
}

TEST(Cache, ConcurrentCallersShareOneCompilation) {
  Cache cache(64);
  constexpr int kThreads = 8, kExpressions = 20;
  std::vector<std::map<int, const char*>> seen(kThreads);
  std::atomic<int> failures{0};
  TestDevice d = gpu();
  const Device view = d.view();  // read-only from here on
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < kExpressions; ++i) {
          int k = (i + t) % kExpressions;
          auto p = cache.get_or_compile("device.attributes[\"gpu.example.com\"].cores > " + std::to_string(k));
          if (!p.ok()) {
            ++failures;
            continue;
          }
          seen[static_cast<std::size_t>(t)][k] = p->expression().data();
          auto r = p->evaluate(view);
          if (!r.ok() || !*r) ++failures;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  for (int k = 0; k < kExpressions; ++k) {
    std::set<const char*> plans;
    for (int t = 0; t < kThreads; ++t) plans.insert(seen[static_cast<std::size_t>(t)][k]);
    EXPECT_EQ(plans.size(), 1u) << "expression " << k << " was compiled more than once";
  }
}

}  // namespace
}  // namespace ksched::cel
