// CompactString: the string type of the members an informer caches once per object (object
// metadata, and the pod's spec, status, conditions, containers and volumes).
//
// Why not std::string: an informer holds every pod of the cluster, and a pod has about 45 string
// members, most of them short ("Running", "ClusterFirst", a namespace, a node name). std::string
// is 32 bytes; this type is 16 and still keeps up to 15 characters inline, so the same strings cost
// half the bytes and no extra allocation. Longer strings live in one exact-size heap buffer.
//
// It reads like a std::string: it converts implicitly to std::string_view (and, copying, to
// std::string for code that takes `const std::string&`), compares with every string type, and
// supports the read-only std::string API (size, data, c_str, find, substr, starts_with, ...).
// Writes replace the whole value (assign, =, +=, clear); there is no in-place character access.
//
// Members whose longer values repeat across objects (a container's image, the pod's node and
// scheduler names) are decoded with assign_interned: every string interned with the same text
// shares one reference-counted buffer, listed in an InternTable, so 10,000 replicas hold one copy
// of "registry.example.com/team/web:1.4.2" and copying such a string allocates nothing.
//
// Layout: 16 bytes. Inline: characters in bytes 0..14, zero-filled, and byte 15 = 15 - size, so a
// 15-character string is terminated by that byte. Heap and interned: bytes 0..7 the pointer to
// the NUL-terminated text, bytes 8..11 the size, byte 15 = kHeap or kInterned; an interned text
// follows its SharedText header.
#pragma once
#include <compare>
#include <cstdint>
#include <cstring>
#include <functional>
#include <new>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace ksched::api {

class CompactString {
 public:
  static constexpr std::size_t kInline = 15;
  static constexpr std::size_t npos = std::string_view::npos;
  using value_type = char;
  using size_type = std::size_t;
  using const_iterator = const char*;
  using iterator = const char*;  // read-only: writes replace the whole value

  CompactString() noexcept : raw_{} { raw_[15] = static_cast<char>(kInline); }
  CompactString(std::string_view s) { init(s); }          // NOLINT: implicit, like std::string
  CompactString(const char* s) { init(std::string_view(s)); }  // NOLINT
  CompactString(const std::string& s) { init(s); }       // NOLINT
  CompactString(const char* s, std::size_t n) { init(std::string_view(s, n)); }
  CompactString(const CompactString& o) {
    if (o.interned()) {
      take_ref(o);
    } else {
      init(o.view());
    }
  }
  CompactString(CompactString&& o) noexcept {
    std::memcpy(raw_, o.raw_, sizeof raw_);
    o.set_empty();
  }
  CompactString& operator=(const CompactString& o) {
    if (this == &o) return *this;
    if (o.interned()) {
      release();
      take_ref(o);
      return *this;
    }
    return assign(o.view());
  }
  CompactString& operator=(CompactString&& o) noexcept {
    if (this != &o) {
      release();
      std::memcpy(raw_, o.raw_, sizeof raw_);
      o.set_empty();
    }
    return *this;
  }
  CompactString& operator=(std::string_view s) { return assign(s); }
  CompactString& operator=(const std::string& s) { return assign(s); }
  CompactString& operator=(const char* s) { return assign(std::string_view(s)); }
  ~CompactString() { release(); }

  CompactString& assign(std::string_view s) {
    if (!s.empty() && s.data() >= data() && s.data() < data() + size()) {
      CompactString copy(s);  // assigning part of itself
      return *this = std::move(copy);
    }
    release();
    init(s);
    return *this;
  }
  // Replaces the value with the interned text equal to `s` (inline when it is short enough).
  CompactString& assign_interned(std::string_view s);
  bool interned() const noexcept { return tag() == kInterned; }
  // Texts listed in the intern table now (tests, memory accounting).
  static std::size_t interned_texts();
  // True when both hold the same interned buffer.
  bool shares_with(const CompactString& o) const noexcept {
    return interned() && o.interned() && heap_ptr() == o.heap_ptr();
  }
  void clear() noexcept {
    release();
    set_empty();
  }
  CompactString& operator+=(std::string_view s) {
    std::string joined;
    joined.reserve(size() + s.size());
    joined.append(view()).append(s);
    return assign(joined);
  }
  CompactString& operator+=(char c) { return *this += std::string_view(&c, 1); }

  // ---- reading
  std::size_t size() const noexcept { return heap() ? heap_size() : kInline - tag(); }
  std::size_t length() const noexcept { return size(); }
  bool empty() const noexcept { return tag() == kInline; }
  const char* data() const noexcept { return heap() ? heap_ptr() : raw_; }
  const char* c_str() const noexcept { return data(); }
  std::string_view view() const noexcept { return {data(), size()}; }
  operator std::string_view() const noexcept { return view(); }  // NOLINT
  operator std::string() const { return std::string(view()); }  // NOLINT: for `const std::string&` APIs
  std::string str() const { return std::string(view()); }
  const char* begin() const noexcept { return data(); }
  const char* end() const noexcept { return data() + size(); }
  const char* cbegin() const noexcept { return begin(); }
  const char* cend() const noexcept { return end(); }
  char operator[](std::size_t i) const noexcept { return data()[i]; }
  char front() const noexcept { return *data(); }
  char back() const noexcept { return data()[size() - 1]; }
  std::size_t find(std::string_view s, std::size_t pos = 0) const noexcept { return view().find(s, pos); }
  std::size_t find(char c, std::size_t pos = 0) const noexcept { return view().find(c, pos); }
  std::size_t rfind(std::string_view s, std::size_t pos = npos) const noexcept { return view().rfind(s, pos); }
  std::size_t rfind(char c, std::size_t pos = npos) const noexcept { return view().rfind(c, pos); }
  std::size_t find_first_of(std::string_view s, std::size_t pos = 0) const noexcept {
    return view().find_first_of(s, pos);
  }
  std::size_t find_last_of(std::string_view s, std::size_t pos = npos) const noexcept {
    return view().find_last_of(s, pos);
  }
  bool starts_with(std::string_view s) const noexcept { return view().starts_with(s); }
  bool starts_with(char c) const noexcept { return view().starts_with(c); }
  bool ends_with(std::string_view s) const noexcept { return view().ends_with(s); }
  bool ends_with(char c) const noexcept { return view().ends_with(c); }
  bool contains(std::string_view s) const noexcept { return view().find(s) != npos; }
  bool contains(char c) const noexcept { return view().find(c) != npos; }
  // Like std::string::substr, a copy (a view could outlive a temporary).
  std::string substr(std::size_t pos = 0, std::size_t n = npos) const { return std::string(view().substr(pos, n)); }
  int compare(std::string_view s) const noexcept { return view().compare(s); }
  // Bytes this string holds on the heap by itself (0 when inline or interned).
  std::size_t heap_bytes() const noexcept { return tag() == kHeap ? heap_size() + 1 : 0; }

  // ---- comparisons with every string type (explicit overloads avoid ambiguous conversions)
  friend bool operator==(const CompactString& a, const CompactString& b) noexcept { return a.view() == b.view(); }
  friend bool operator==(const CompactString& a, std::string_view b) noexcept { return a.view() == b; }
  friend bool operator==(const CompactString& a, const std::string& b) noexcept { return a.view() == b; }
  friend bool operator==(const CompactString& a, const char* b) noexcept { return a.view() == b; }
  friend std::strong_ordering operator<=>(const CompactString& a, const CompactString& b) noexcept {
    return a.view() <=> b.view();
  }
  friend std::strong_ordering operator<=>(const CompactString& a, std::string_view b) noexcept {
    return a.view() <=> b;
  }
  friend std::strong_ordering operator<=>(const CompactString& a, const std::string& b) noexcept {
    return a.view() <=> std::string_view(b);
  }
  friend std::strong_ordering operator<=>(const CompactString& a, const char* b) noexcept {
    return a.view() <=> std::string_view(b);
  }

  // ---- concatenation yields std::string, as it does for std::string operands
  friend std::string operator+(const CompactString& a, std::string_view b) { return join(a.view(), b); }
  friend std::string operator+(std::string_view a, const CompactString& b) { return join(a, b.view()); }
  friend std::string operator+(const CompactString& a, const CompactString& b) { return join(a.view(), b.view()); }
  friend std::string operator+(const CompactString& a, const std::string& b) { return join(a.view(), b); }
  friend std::string operator+(const std::string& a, const CompactString& b) { return join(a, b.view()); }
  friend std::string operator+(const CompactString& a, const char* b) { return join(a.view(), b); }
  friend std::string operator+(const char* a, const CompactString& b) { return join(a, b.view()); }
  friend std::string operator+(std::string&& a, const CompactString& b) { return std::move(a.append(b.view())); }
  friend std::string operator+(const CompactString& a, char b) { return join(a.view(), std::string_view(&b, 1)); }

  friend std::ostream& operator<<(std::ostream& os, const CompactString& s) { return os << s.view(); }

 private:
  static constexpr unsigned char kHeap = 0x80;
  static constexpr unsigned char kInterned = 0x81;

  unsigned char tag() const noexcept { return static_cast<unsigned char>(raw_[15]); }
  bool heap() const noexcept { return tag() >= kHeap; }  // owned or interned: text out of line
  const char* heap_ptr() const noexcept {
    const char* p;
    std::memcpy(&p, raw_, sizeof p);
    return p;
  }
  std::size_t heap_size() const noexcept {
    std::uint32_t n;
    std::memcpy(&n, raw_ + 8, sizeof n);
    return n;
  }
  void set_empty() noexcept {
    std::memset(raw_, 0, sizeof raw_);
    raw_[15] = static_cast<char>(kInline);
  }
  void init(std::string_view s) {
    if (s.size() <= kInline) {
      std::memset(raw_, 0, sizeof raw_);
      if (!s.empty()) std::memcpy(raw_, s.data(), s.size());
      raw_[15] = static_cast<char>(kInline - s.size());
      return;
    }
    if (s.size() > UINT32_MAX) throw std::length_error("CompactString: longer than 4 GiB");
    char* p = new char[s.size() + 1];
    std::memcpy(p, s.data(), s.size());
    p[s.size()] = '\0';
    set_out_of_line(p, s.size(), kHeap);
  }
  void set_out_of_line(const char* p, std::size_t n, unsigned char tag) noexcept {
    auto n32 = static_cast<std::uint32_t>(n);
    std::memset(raw_, 0, sizeof raw_);
    std::memcpy(raw_, &p, sizeof p);
    std::memcpy(raw_ + 8, &n32, sizeof n32);
    raw_[15] = static_cast<char>(tag);
  }
  // Copies `o`'s interned handle, taking a reference (from a live holder: no lock needed).
  void take_ref(const CompactString& o) noexcept;
  // Drops a reference to the interned text; the last holder removes it from the table.
  static void release_interned(const char* text) noexcept;
  void release() noexcept {
    if (tag() == kHeap) {
      delete[] heap_ptr();
    } else if (tag() == kInterned) {
      release_interned(heap_ptr());
    }
  }
  static std::string join(std::string_view a, std::string_view b) {
    std::string s;
    s.reserve(a.size() + b.size());
    s.append(a).append(b);
    return s;
  }

  alignas(8) char raw_[16];
};

static_assert(sizeof(CompactString) == 16);

}  // namespace ksched::api

template <>
struct std::hash<ksched::api::CompactString> {
  std::size_t operator()(const ksched::api::CompactString& s) const noexcept {
    return std::hash<std::string_view>{}(s.view());
  }
};

template <>
struct fmt::formatter<ksched::api::CompactString> : fmt::formatter<fmt::string_view> {
  template <class Ctx>
  auto format(const ksched::api::CompactString& s, Ctx& ctx) const {
    return fmt::formatter<fmt::string_view>::format(fmt::string_view(s.data(), s.size()), ctx);
  }
};
