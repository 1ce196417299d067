// The interned mode of CompactString: texts shared by reference count, listed in an InternTable.
#include "api/compact_string.h"

#include <atomic>
#include <cstdlib>
#include <functional>

#include "api/intern_table.h"

namespace ksched::api {

namespace {

// Header of an interned text; the NUL-terminated characters follow it.
struct SharedText {
  std::atomic<std::uint32_t> refs{1};
  std::uint32_t size = 0;
  std::size_t hash = 0;

  char* text() { return reinterpret_cast<char*>(this + 1); }
  const char* text() const { return reinterpret_cast<const char*>(this + 1); }
  static SharedText* of(const char* text) {
    return reinterpret_cast<SharedText*>(const_cast<char*>(text)) - 1;
  }
};
static_assert(sizeof(SharedText) == 16);

using Table = InternTable<SharedText>;

void destroy(SharedText* b) noexcept {
  b->~SharedText();
  std::free(b);
}

}  // namespace

CompactString& CompactString::assign_interned(std::string_view s) {
  if (s.size() <= kInline) return assign(s);
  if (interned() && view() == s) return *this;
  if (s.size() > UINT32_MAX) throw std::length_error("CompactString: longer than 4 GiB");
  const std::size_t hash = std::hash<std::string_view>{}(s);
  auto same = [&](const SharedText& b) {
    return b.size == s.size() && std::memcmp(b.text(), s.data(), s.size()) == 0;
  };
  Table& table = Table::instance();
  SharedText* got = table.find(hash, same);
  if (!got) {
    void* mem = std::malloc(sizeof(SharedText) + s.size() + 1);
    if (!mem) throw std::bad_alloc();
    auto* fresh = new (mem) SharedText{};
    fresh->size = static_cast<std::uint32_t>(s.size());
    fresh->hash = hash;
    std::memcpy(fresh->text(), s.data(), s.size());
    fresh->text()[s.size()] = '\0';
    got = table.intern(hash, fresh, same, [](SharedText&) {});
    if (got != fresh) destroy(fresh);  // another thread listed the same text first
  }
  release();  // after the lookup: `s` may view this string's own text
  set_out_of_line(got->text(), got->size, kInterned);
  return *this;
}

std::size_t CompactString::interned_texts() { return Table::instance().size(); }

void CompactString::take_ref(const CompactString& o) noexcept {
  SharedText::of(o.heap_ptr())->refs.fetch_add(1, std::memory_order_relaxed);
  std::memcpy(raw_, o.raw_, sizeof raw_);
}

void CompactString::release_interned(const char* text) noexcept {
  SharedText* b = SharedText::of(text);
  if (Table::instance().release(b, b->hash)) destroy(b);
}

}  // namespace ksched::api
