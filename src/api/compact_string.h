// The two string types of what an informer caches per pod: an informer holds every pod of the
// cluster, a pod has about 45 string members, and std::string is 32 bytes.
//
// CompactString: 16 bytes, for values unique to an object (names, UIDs, resourceVersion, IPs).
// Up to 15 characters live inline, so short values cost no allocation; longer ones live in one
// exact-size heap buffer. Layout: inline, characters in bytes 0..14, zero-filled, and byte 15 =
// 15 - size, so a 15-character string is terminated by that byte; heap, bytes 0..7 the pointer
// to the NUL-terminated text, bytes 8..11 the size, byte 15 = kHeap.
//
// ThinString: 8 bytes, for values that repeat across objects: a pod condition's type, status,
// reason and message, the pod's phase, QoS class and policies, its node, scheduler and service
// account names, a container's name and image. It is one pointer: null when empty, else an
// interned text (one reference-counted buffer per distinct text, so a copy allocates nothing), or
// one of a few well-known values ("True", "Ready", "Running", "ClusterFirst", ...) held in static
// storage that copies and destruction never count. Every other non-empty value is interned, so
// assigning one takes the table's lock: use it where values repeat, never for names or UIDs.
//
// Both read like a std::string: they convert implicitly to std::string_view (and, copying, to
// std::string for code that takes `const std::string&`), compare with every string type, and
// support the read-only std::string API (size, data, c_str, find, substr, starts_with, ...).
// Writes replace the whole value (assign, =, clear); there is no in-place character access.
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
#include <type_traits>

#include <fmt/format.h>

namespace ksched::api {

// The read-only std::string API, comparisons, concatenation and streaming shared by CompactString
// and ThinString; D provides view() and data().
template <class D>
class StringReadApi {
 public:
  static constexpr std::size_t npos = std::string_view::npos;
  using value_type = char;
  using size_type = std::size_t;
  using const_iterator = const char*;
  using iterator = const char*;  // read-only: writes replace the whole value

  std::size_t length() const noexcept { return v().size(); }
  const char* c_str() const noexcept { return self().data(); }
  operator std::string_view() const noexcept { return v(); }  // NOLINT
  operator std::string() const { return std::string(v()); }  // NOLINT: for `const std::string&` APIs
  std::string str() const { return std::string(v()); }
  const char* begin() const noexcept { return v().data(); }
  const char* end() const noexcept { return v().data() + v().size(); }
  const char* cbegin() const noexcept { return begin(); }
  const char* cend() const noexcept { return end(); }
  char operator[](std::size_t i) const noexcept { return v()[i]; }
  char front() const noexcept { return v().front(); }
  char back() const noexcept { return v().back(); }
  std::size_t find(std::string_view s, std::size_t pos = 0) const noexcept { return v().find(s, pos); }
  std::size_t find(char c, std::size_t pos = 0) const noexcept { return v().find(c, pos); }
  std::size_t rfind(std::string_view s, std::size_t pos = npos) const noexcept { return v().rfind(s, pos); }
  std::size_t rfind(char c, std::size_t pos = npos) const noexcept { return v().rfind(c, pos); }
  std::size_t find_first_of(std::string_view s, std::size_t pos = 0) const noexcept {
    return v().find_first_of(s, pos);
  }
  std::size_t find_last_of(std::string_view s, std::size_t pos = npos) const noexcept {
    return v().find_last_of(s, pos);
  }
  bool starts_with(std::string_view s) const noexcept { return v().starts_with(s); }
  bool starts_with(char c) const noexcept { return v().starts_with(c); }
  bool ends_with(std::string_view s) const noexcept { return v().ends_with(s); }
  bool ends_with(char c) const noexcept { return v().ends_with(c); }
  bool contains(std::string_view s) const noexcept { return v().find(s) != npos; }
  bool contains(char c) const noexcept { return v().find(c) != npos; }
  // Like std::string::substr, a copy (a view could outlive a temporary).
  std::string substr(std::size_t pos = 0, std::size_t n = npos) const { return std::string(v().substr(pos, n)); }
  int compare(std::string_view s) const noexcept { return v().compare(s); }

  // ---- comparisons with every string type (explicit overloads avoid ambiguous conversions)
  friend bool operator==(const D& a, const D& b) noexcept { return a.view() == b.view(); }
  friend bool operator==(const D& a, std::string_view b) noexcept { return a.view() == b; }
  friend bool operator==(const D& a, const std::string& b) noexcept { return a.view() == b; }
  friend bool operator==(const D& a, const char* b) noexcept { return a.view() == b; }
  friend std::strong_ordering operator<=>(const D& a, const D& b) noexcept { return a.view() <=> b.view(); }
  friend std::strong_ordering operator<=>(const D& a, std::string_view b) noexcept { return a.view() <=> b; }
  friend std::strong_ordering operator<=>(const D& a, const std::string& b) noexcept {
    return a.view() <=> std::string_view(b);
  }
  friend std::strong_ordering operator<=>(const D& a, const char* b) noexcept {
    return a.view() <=> std::string_view(b);
  }

  // ---- concatenation yields std::string, as it does for std::string operands
  friend std::string operator+(const D& a, std::string_view b) { return join(a.view(), b); }
  friend std::string operator+(std::string_view a, const D& b) { return join(a, b.view()); }
  friend std::string operator+(const D& a, const D& b) { return join(a.view(), b.view()); }
  friend std::string operator+(const D& a, const std::string& b) { return join(a.view(), b); }
  friend std::string operator+(const std::string& a, const D& b) { return join(a, b.view()); }
  friend std::string operator+(const D& a, const char* b) { return join(a.view(), b); }
  friend std::string operator+(const char* a, const D& b) { return join(a, b.view()); }
  friend std::string operator+(std::string&& a, const D& b) { return std::move(a.append(b.view())); }
  friend std::string operator+(const D& a, char b) { return join(a.view(), std::string_view(&b, 1)); }

  friend std::ostream& operator<<(std::ostream& os, const D& s) { return os << s.view(); }

 protected:
  static std::string join(std::string_view a, std::string_view b) {
    std::string s;
    s.reserve(a.size() + b.size());
    s.append(a).append(b);
    return s;
  }

 private:
  const D& self() const noexcept { return static_cast<const D&>(*this); }
  std::string_view v() const noexcept { return self().view(); }
};

class CompactString : public StringReadApi<CompactString> {
 public:
  static constexpr std::size_t kInline = 15;

  CompactString() noexcept : raw_{} { raw_[15] = static_cast<char>(kInline); }
  CompactString(std::string_view s) { init(s); }          // NOLINT: implicit, like std::string
  CompactString(const char* s) { init(std::string_view(s)); }  // NOLINT
  CompactString(const std::string& s) { init(s); }       // NOLINT
  CompactString(const char* s, std::size_t n) { init(std::string_view(s, n)); }
  CompactString(const CompactString& o) { init(o.view()); }
  CompactString(CompactString&& o) noexcept {
    std::memcpy(raw_, o.raw_, sizeof raw_);
    o.set_empty();
  }
  CompactString& operator=(const CompactString& o) {
    if (this == &o) return *this;
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
  bool empty() const noexcept { return tag() == kInline; }
  const char* data() const noexcept { return heap() ? heap_ptr() : raw_; }
  std::string_view view() const noexcept { return {data(), size()}; }
  // Bytes this string holds on the heap (0 when inline).
  std::size_t heap_bytes() const noexcept { return heap() ? heap_size() + 1 : 0; }

 private:
  static constexpr unsigned char kHeap = 0x80;

  unsigned char tag() const noexcept { return static_cast<unsigned char>(raw_[15]); }
  bool heap() const noexcept { return tag() == kHeap; }
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
    auto n32 = static_cast<std::uint32_t>(s.size());
    std::memset(raw_, 0, sizeof raw_);
    std::memcpy(raw_, &p, sizeof p);
    std::memcpy(raw_ + 8, &n32, sizeof n32);
    raw_[15] = static_cast<char>(kHeap);
  }
  void release() noexcept {
    if (heap()) delete[] heap_ptr();
  }
  alignas(8) char raw_[16];
};

static_assert(sizeof(CompactString) == 16);

class ThinString : public StringReadApi<ThinString> {
 public:
  ThinString() noexcept = default;
  ThinString(std::string_view s) { assign(s); }          // NOLINT: implicit, like std::string
  ThinString(const char* s) { assign(std::string_view(s)); }  // NOLINT
  ThinString(const std::string& s) { assign(s); }       // NOLINT
  ThinString(const ThinString& o) noexcept : p_(o.p_) { add_ref(); }
  ThinString(ThinString&& o) noexcept : p_(o.p_) { o.p_ = 0; }
  ThinString& operator=(const ThinString& o) noexcept {
    if (p_ != o.p_) {
      release();
      p_ = o.p_;
      add_ref();
    }
    return *this;
  }
  ThinString& operator=(ThinString&& o) noexcept {
    if (this != &o) {
      release();
      p_ = o.p_;
      o.p_ = 0;
    }
    return *this;
  }
  ThinString& operator=(std::string_view s) { return assign(s); }
  ThinString& operator=(const std::string& s) { return assign(s); }
  ThinString& operator=(const char* s) { return assign(std::string_view(s)); }
  ~ThinString() { release(); }

  ThinString& assign(std::string_view s);
  void clear() noexcept {
    release();
    p_ = 0;
  }
  // True when the value is one of the statically held well-known texts.
  bool well_known() const noexcept { return (p_ & kStatic) != 0; }
  // Texts listed in the intern table now (tests, memory accounting).
  static std::size_t interned_texts();

  std::size_t size() const noexcept { return p_ ? text_size(text()) : 0; }
  bool empty() const noexcept { return p_ == 0; }
  const char* data() const noexcept { return p_ ? text() : ""; }
  std::string_view view() const noexcept { return p_ ? std::string_view(text(), size()) : std::string_view(); }

 private:
  static constexpr std::uintptr_t kStatic = 1;  // low bit: texts are 16-byte aligned
  const char* text() const noexcept { return reinterpret_cast<const char*>(p_ & ~kStatic); }
  // Every text follows a 16-byte header (compact_string.cpp's SharedText: u32 references, u32
  // size, u64 hash); reading the size here keeps size() and view() inline on the read paths.
  static constexpr std::size_t kSizeOffset = 12;  // from the text back to the header's size
  static std::size_t text_size(const char* text) noexcept {
    std::uint32_t n;
    std::memcpy(&n, text - kSizeOffset, sizeof n);
    return n;
  }
  // Adds or drops a reference to an interned text (from a live holder: adding takes no lock); the
  // last holder removes it from the table.
  static void add_ref_interned(const char* text) noexcept;
  static void release_interned(const char* text) noexcept;
  void add_ref() noexcept {
    if (p_ && !(p_ & kStatic)) add_ref_interned(text());
  }
  void release() noexcept {
    if (p_ && !(p_ & kStatic)) release_interned(text());
  }
  std::uintptr_t p_ = 0;
};

static_assert(sizeof(ThinString) == 8);

// Between the two string types (exact, so neither side's conversions make it ambiguous).
inline bool operator==(const CompactString& a, const ThinString& b) noexcept { return a.view() == b.view(); }
inline std::strong_ordering operator<=>(const CompactString& a, const ThinString& b) noexcept {
  return a.view() <=> b.view();
}
inline std::string operator+(const CompactString& a, const ThinString& b) {
  return std::string(a.view()).append(b.view());
}
inline std::string operator+(const ThinString& a, const CompactString& b) {
  return std::string(a.view()).append(b.view());
}

// The string types the codec and OpenAPI treat as JSON strings.
template <class T>
inline constexpr bool is_api_string =
    std::is_same_v<T, std::string> || std::is_same_v<T, CompactString> || std::is_same_v<T, ThinString>;

}  // namespace ksched::api

template <>
struct std::hash<ksched::api::CompactString> {
  std::size_t operator()(const ksched::api::CompactString& s) const noexcept {
    return std::hash<std::string_view>{}(s.view());
  }
};
template <>
struct std::hash<ksched::api::ThinString> {
  std::size_t operator()(const ksched::api::ThinString& s) const noexcept {
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
template <>
struct fmt::formatter<ksched::api::ThinString> : fmt::formatter<fmt::string_view> {
  template <class Ctx>
  auto format(const ksched::api::ThinString& s, Ctx& ctx) const {
    return fmt::formatter<fmt::string_view>::format(fmt::string_view(s.data(), s.size()), ctx);
  }
};
