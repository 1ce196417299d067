// The tcmalloc side of use_huge_pages_for_heap (huge_page_region.h). Only the programs call it, and
// only they link tcmalloc; built without it (sanitizer and fuzz trees) the call reports false.
#include <cstdlib>
#include <cstring>
#include <new>

#include "util/huge_page_region.h"

#if defined(KSCHED_WITH_TCMALLOC) && __has_include(<gperftools/malloc_extension.h>)
#include <gperftools/malloc_extension.h>
#define KSCHED_HUGE_PAGE_HEAP 1
#endif

namespace ksched::util {

#ifdef KSCHED_HUGE_PAGE_HEAP
namespace {
class HugePageSysAllocator final : public SysAllocator {
 public:
  explicit HugePageSysAllocator(SysAllocator* fallback) : fallback_(fallback) {}
  void* Alloc(size_t size, size_t* actual_size, size_t alignment) override {
    void* p = region_.allocate(size, alignment);
    if (p == nullptr) {
      // No address space for a new region: tcmalloc's own allocator may still find some.
      return fallback_ != nullptr ? fallback_->Alloc(size, actual_size, alignment) : nullptr;
    }
    if (actual_size != nullptr) *actual_size = size;
    return p;
  }

 private:
  HugePageRegion region_;
  SysAllocator* fallback_;
};
}  // namespace

bool use_huge_pages_for_heap(bool by_default) {
  bool on = by_default;
  if (const char* env = std::getenv("KSCHED_HUGE_PAGES")) {
    if (std::strcmp(env, "off") == 0 || std::strcmp(env, "0") == 0) on = false;
    if (std::strcmp(env, "on") == 0 || std::strcmp(env, "1") == 0) on = true;
  }
  if (!on) return false;
  // Never destroyed: tcmalloc may grow the heap until the very end of the process.
  alignas(HugePageSysAllocator) static unsigned char storage[sizeof(HugePageSysAllocator)];
  static auto* allocator = new (storage) HugePageSysAllocator(MallocExtension::instance()->GetSystemAllocator());
  MallocExtension::instance()->SetSystemAllocator(allocator);
  return true;
}
#else
bool use_huge_pages_for_heap(bool) { return false; }
#endif

}  // namespace ksched::util
