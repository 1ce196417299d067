// Building blocks shared by every API type:
//  - Extra:    the fields of a JSON object that a struct does not model, kept as raw JSON text so
//              that decode-then-encode returns every field the object had.
//  - Presence: which modelled fields were present in the input (so `"resources": {}` or
//              `"creationTimestamp": null` survive a round trip even though they are "empty").
//  - StringMap: labels, annotations, nodeSelector: a flat vector sorted by key (small, cache friendly).
//  - Boxed<T>: an optional stored out of line, for large sub-objects that are usually absent.
//  - Field descriptors: every struct is described once by `describe(type_tag<T>)`, a FieldList of
//    (json name, member pointer). The codec (codec.h) is generic over these descriptions.
// Memory: informers cache every object, so the per-struct bookkeeping is kept small (Extra is one
// pointer, Presence 8 bytes) and rarely present sub-objects are boxed (see README.md).
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "api/compact_string.h"
#include "api/shared_vector.h"

namespace ksched::api {

// Unmodelled members of one JSON object, (key, raw JSON value) in input order, packed into one
// immutable, reference-counted heap block (null when there are none), so that the common empty
// case costs a single pointer and copies share the block. Blocks of types whose unmodelled members
// repeat across objects (pod templates: containers, volumes, pod spec; see share_extra) are
// interned by the codec, so identical replicas hold one block between them.
// Block layout: Header, then per entry u32 key length, key, u32 value length, value.
class ExtraFields {
  struct Header {
    std::atomic<std::uint32_t> refs;
    std::uint32_t bytes;  // of the entries
    std::uint32_t count;
    std::uint32_t tag;    // kInterned | 31-bit hash of the entries, for interned blocks; else 0
  };
  static constexpr std::uint32_t kInterned = 0x80000000u;

 public:
  using value_type = std::pair<std::string_view, std::string_view>;

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = ExtraFields::value_type;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = value_type;
    const_iterator() = default;
    explicit const_iterator(const char* p) : p_(p) {}
    value_type operator*() const {
      std::uint32_t kl = load(p_);
      std::uint32_t vl = load(p_ + 4 + kl);
      return {std::string_view(p_ + 4, kl), std::string_view(p_ + 8 + kl, vl)};
    }
    const_iterator& operator++() {
      std::uint32_t kl = load(p_);
      p_ += 8 + kl + load(p_ + 4 + kl);
      return *this;
    }
    const_iterator operator++(int) {
      auto t = *this;
      ++*this;
      return t;
    }
    bool operator==(const const_iterator&) const = default;

   private:
    const char* p_ = nullptr;
  };

  ExtraFields() noexcept = default;
  ExtraFields(const ExtraFields& o) noexcept : h_(o.h_) {
    if (h_) h_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  ExtraFields(ExtraFields&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  ExtraFields& operator=(const ExtraFields& o) noexcept {
    if (h_ != o.h_) {
      if (o.h_) o.h_->refs.fetch_add(1, std::memory_order_relaxed);
      release(std::exchange(h_, o.h_));
    }
    return *this;
  }
  ExtraFields& operator=(ExtraFields&& o) noexcept {
    if (this != &o) release(std::exchange(h_, std::exchange(o.h_, nullptr)));
    return *this;
  }
  ~ExtraFields() { release(h_); }

  bool empty() const { return h_ == nullptr; }
  std::size_t size() const { return h_ ? h_->count : 0; }
  const_iterator begin() const { return const_iterator(h_ ? data(h_) : nullptr); }
  const_iterator end() const { return const_iterator(h_ ? data(h_) + h_->bytes : nullptr); }
  value_type operator[](std::size_t i) const { return *std::next(begin(), static_cast<std::ptrdiff_t>(i)); }
  value_type front() const { return *begin(); }
  void clear() { release(std::exchange(h_, nullptr)); }

  // Replaces the contents with `kv` in one allocation (the codec's path); `share` interns the block.
  void assign(std::span<const value_type> kv, bool share = false) {
    clear();
    if (kv.empty()) return;
    std::size_t bytes = 0;
    for (const auto& [k, v] : kv) bytes += 8 + k.size() + v.size();
    Header* n = alloc(bytes);
    n->count = static_cast<std::uint32_t>(kv.size());
    char* w = data(n);
    for (const auto& [k, v] : kv) w = put(put(w, k), v);
    h_ = share ? intern(n) : n;
  }
  // Appends one member (copies the block: for objects built in code, not for bulk use).
  void emplace_back(std::string_view key, std::string_view raw) {
    std::size_t old = h_ ? h_->bytes : 0;
    Header* n = alloc(old + 8 + key.size() + raw.size());
    n->count = static_cast<std::uint32_t>(size() + 1);
    if (old) std::memcpy(data(n), data(h_), old);
    put(put(data(n) + old, key), raw);
    release(std::exchange(h_, n));
  }
  void push_back(const value_type& kv) { emplace_back(kv.first, kv.second); }

  bool operator==(const ExtraFields& o) const {
    if (h_ == o.h_) return true;
    if (!h_ || !o.h_) return false;
    return h_->bytes == o.h_->bytes && h_->count == o.h_->count &&
           std::memcmp(data(h_), data(o.h_), h_->bytes) == 0;
  }

 private:
  static std::uint32_t load(const char* p) {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  static char* put(char* w, std::string_view s) {
    auto n = static_cast<std::uint32_t>(s.size());
    std::memcpy(w, &n, 4);
    if (!s.empty()) std::memcpy(w + 4, s.data(), s.size());
    return w + 4 + s.size();
  }
  static char* data(Header* h) { return reinterpret_cast<char*>(h + 1); }
  static const char* data(const Header* h) { return reinterpret_cast<const char*>(h + 1); }
  static Header* alloc(std::size_t bytes) {
    void* p = std::malloc(sizeof(Header) + bytes);
    if (!p) throw std::bad_alloc();
    auto* h = new (p) Header{};
    h->refs.store(1, std::memory_order_relaxed);
    h->bytes = static_cast<std::uint32_t>(bytes);
    return h;
  }
  static void release(Header* h) noexcept {
    if (!h) return;
    if (h->tag & kInterned) {
      release_interned(h);
    } else if (h->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      destroy(h);
    }
  }
  static void destroy(Header* h) noexcept {
    h->~Header();
    std::free(h);
  }
  // Returns the interned block equal to `h` (taking a reference to it), consuming `h`.
  static Header* intern(Header* h);
  // Drops a reference to an interned block; the last user's release removes it from the table.
  static void release_interned(Header* h) noexcept;

  Header* h_ = nullptr;
};

// Types whose unmodelled members are interned (see ExtraFields); specialised next to the types.
template <class T>
inline constexpr bool share_extra = false;


struct Extra {
  ExtraFields fields;
  bool empty() const { return fields.empty(); }
  bool operator==(const Extra&) const = default;
};

// Bit i is set when the i-th described field was present in the decoded input; `nulls` marks
// non-optional fields that were JSON null (Go's nil slices/maps, e.g. "containers": null in a
// watch bookmark) so that they are written back as null while they stay empty. 32 bits each: no
// described type has more than 32 members (checked by the codec).
struct Presence {
  std::uint32_t bits = 0;
  std::uint32_t nulls = 0;
  bool has(unsigned i) const { return (bits >> i) & 1u; }
  void set(unsigned i) { bits |= (std::uint32_t{1} << i); }
  bool is_null(unsigned i) const { return (nulls >> i) & 1u; }
  void set_null(unsigned i) { nulls |= (std::uint32_t{1} << i); }
  bool operator==(const Presence&) const = default;
};

// An optional whose value lives on the heap: 8 bytes when absent instead of sizeof(T). Used for
// large sub-objects that most objects lack (affinity, volume sources). The API follows
// std::optional so code reading these members is the same for both; copies are deep.
template <class T>
class Boxed {
 public:
  using value_type = T;

  Boxed() noexcept = default;
  Boxed(std::nullopt_t) noexcept {}
  Boxed(const T& v) : p_(std::make_unique<T>(v)) {}
  Boxed(T&& v) : p_(std::make_unique<T>(std::move(v))) {}
  Boxed(const std::optional<T>& o) : p_(o ? std::make_unique<T>(*o) : nullptr) {}
  Boxed(std::optional<T>&& o) : p_(o ? std::make_unique<T>(std::move(*o)) : nullptr) {}
  Boxed(const Boxed& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(const Boxed& o) {
    if (this == &o) return *this;
    if (!o.p_) {
      p_.reset();
    } else if (p_) {
      *p_ = *o.p_;
    } else {
      p_ = std::make_unique<T>(*o.p_);
    }
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;
  Boxed& operator=(std::nullopt_t) noexcept {
    p_.reset();
    return *this;
  }
  Boxed& operator=(const T& v) {
    if (p_) *p_ = v;
    else p_ = std::make_unique<T>(v);
    return *this;
  }
  Boxed& operator=(T&& v) {
    if (p_) *p_ = std::move(v);
    else p_ = std::make_unique<T>(std::move(v));
    return *this;
  }

  bool has_value() const noexcept { return p_ != nullptr; }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  T& operator*() & { return *p_; }
  const T& operator*() const& { return *p_; }
  T* operator->() { return p_.get(); }
  const T* operator->() const { return p_.get(); }
  T& value() & {
    if (!p_) throw std::bad_optional_access();
    return *p_;
  }
  const T& value() const& {
    if (!p_) throw std::bad_optional_access();
    return *p_;
  }
  template <class U>
  T value_or(U&& def) const {
    return p_ ? *p_ : static_cast<T>(std::forward<U>(def));
  }
  template <class... A>
  T& emplace(A&&... args) {
    p_ = std::make_unique<T>(std::forward<A>(args)...);
    return *p_;
  }
  void reset() noexcept { p_.reset(); }
  std::optional<T> to_optional() const { return p_ ? std::optional<T>(*p_) : std::nullopt; }

  friend bool operator==(const Boxed& a, const Boxed& b) {
    if (!a.p_ || !b.p_) return !a.p_ && !b.p_;
    return *a.p_ == *b.p_;
  }
  friend bool operator==(const Boxed& a, std::nullopt_t) { return !a.p_; }
  template <class U>
    requires(!std::is_same_v<std::remove_cvref_t<U>, Boxed> && !std::is_same_v<std::remove_cvref_t<U>, std::nullopt_t>)
  friend bool operator==(const Boxed& a, const U& v) {
    return a.p_ && *a.p_ == v;
  }

 private:
  std::unique_ptr<T> p_;
};

// Flat map sorted by key: labels, annotations, nodeSelector (StringMap) and resource lists
// (ResourceList, in quantity.h). Small, cache friendly, binary-searched, copy on write.
template <class V, bool Shared = false>
class FlatMap {
 public:
  using value_type = std::pair<std::string, V>;
  using const_iterator = typename std::vector<value_type>::const_iterator;
  static constexpr bool kShared = Shared;
  static constexpr std::size_t kScanSize = 16;  // find() scans maps up to this size

  FlatMap() = default;
  FlatMap(std::initializer_list<value_type> init) {
    for (const auto& kv : init) set(kv.first, kv.second);
  }

  const V* find(std::string_view key) const {
    const auto& m = ro();
    // Most maps are a node's or pod's labels, a dozen keys at most, many sharing long prefixes
    // ("kubernetes.io/..."): a scan that compares lengths first reads a key's text only when the
    // lengths match, where a binary search reads several keys' texts (each a heap string).
    if (m.size() <= kScanSize) {
      for (const auto& kv : m) {
        if (kv.first.size() == key.size() && std::string_view(kv.first) == key) return &kv.second;
      }
      return nullptr;
    }
    auto it = lower(key);
    return (it != m.end() && it->first == key) ? &it->second : nullptr;
  }
  // Writable access (detaches a shared map, only when the key is there).
  V* find(std::string_view key) {
    auto i = static_cast<std::size_t>(lower(key) - ro().begin());
    if (i == ro().size() || ro()[i].first != key) return nullptr;
    return &rw()[i].second;
  }
  bool contains(std::string_view key) const { return find(key) != nullptr; }
  void set(std::string key, V value) {
    auto i = static_cast<std::size_t>(lower(key) - ro().begin());
    auto& m = rw();
    if (i != m.size() && m[i].first == key) {
      m[i].second = std::move(value);
    } else {
      m.emplace(m.begin() + static_cast<std::ptrdiff_t>(i), std::move(key), std::move(value));
    }
  }
  bool erase(std::string_view key) {
    auto i = static_cast<std::size_t>(lower(key) - ro().begin());
    if (i == ro().size() || ro()[i].first != key) return false;
    auto& m = rw();
    m.erase(m.begin() + static_cast<std::ptrdiff_t>(i));
    return true;
  }
  const_iterator begin() const { return ro().begin(); }
  const_iterator end() const { return ro().end(); }
  std::size_t size() const { return ro().size(); }
  bool empty() const { return ro().empty(); }
  void clear() { v_.clear(); }
  void reserve(std::size_t n) { v_.reserve(n); }
  std::size_t capacity() const { return ro().capacity(); }
  bool operator==(const FlatMap&) const = default;
  // The codec's path: share the block with every map decoded from the same JSON text.
  void intern_decoded(std::string_view json) {
    if constexpr (Shared) v_.intern_decoded(json);
  }
  // The codec's fast path: true when a map decoded from the same JSON text is interned (now shared
  // by this one), so the text need not be decoded.
  bool adopt_interned(std::string_view json) {
    if constexpr (Shared) return v_.adopt_interned(json);
    return false;
  }
  bool shares_with(const FlatMap& o) const {
    if constexpr (Shared) return v_.shares_with(o.v_);
    return false;
  }

 private:
  const std::vector<value_type>& ro() const {
    if constexpr (Shared) return v_.vec();
    else return v_;
  }
  std::vector<value_type>& rw() {
    if constexpr (Shared) return v_.mut();
    else return v_;
  }
  const_iterator lower(std::string_view key) const {
    return std::lower_bound(ro().begin(), ro().end(), key,
                            [](const value_type& a, std::string_view k) { return a.first < k; });
  }
  // Shared: copy on write and interned by the codec, for maps that repeat verbatim across replicas
  // (labels, annotations, resource requests). Scheduler-internal maps that are updated in place
  // while iterated stay plain vectors.
  std::conditional_t<Shared, SharedVector<value_type>, std::vector<value_type>> v_;
};

class StringMap : public FlatMap<std::string, true> {
 public:
  using FlatMap<std::string, true>::FlatMap;
  std::string_view get(std::string_view key, std::string_view def = {}) const {
    const auto* p = find(key);
    return p ? std::string_view(*p) : def;
  }
};

// Timestamps: metav1.Time (RFC 3339, seconds) and metav1.MicroTime (RFC 3339 with microseconds).
// Stored as nanoseconds since the Unix epoch; `micro` chooses the encoding.
struct Time {
  std::int64_t unixNanos = 0;
  bool operator==(const Time&) const = default;
  auto operator<=>(const Time&) const = default;
};
struct MicroTime {
  std::int64_t unixNanos = 0;
  bool operator==(const MicroTime&) const = default;
  auto operator<=>(const MicroTime&) const = default;
};

// std::optional<Time> in 8 bytes instead of 16, for the timestamps every cached pod carries
// (creationTimestamp, startTime, its conditions' times). The absent value is INT64_MIN
// nanoseconds (year 1677), a time the codec never decodes (it accepts 1678..2262). The API is
// std::optional's, and it converts to and from std::optional<Time>; absent orders before any time,
// as with std::optional.
class OptionalTime {
 public:
  using value_type = Time;

  constexpr OptionalTime() noexcept = default;
  constexpr OptionalTime(std::nullopt_t) noexcept {}                       // NOLINT: like std::optional
  constexpr OptionalTime(Time t) noexcept : t_(t) {}                       // NOLINT
  constexpr OptionalTime(const std::optional<Time>& o) noexcept : t_(o ? *o : Time{kAbsent}) {}  // NOLINT
  constexpr OptionalTime& operator=(std::nullopt_t) noexcept {
    t_ = Time{kAbsent};
    return *this;
  }
  constexpr OptionalTime& operator=(Time t) noexcept {
    t_ = t;
    return *this;
  }
  constexpr OptionalTime& operator=(const std::optional<Time>& o) noexcept {
    t_ = o ? *o : Time{kAbsent};
    return *this;
  }
  operator std::optional<Time>() const noexcept {  // NOLINT: for code written against std::optional
    return has_value() ? std::optional<Time>(t_) : std::nullopt;
  }

  constexpr bool has_value() const noexcept { return t_.unixNanos != kAbsent; }
  constexpr explicit operator bool() const noexcept { return has_value(); }
  constexpr Time& operator*() noexcept { return t_; }
  constexpr const Time& operator*() const noexcept { return t_; }
  constexpr Time* operator->() noexcept { return &t_; }
  constexpr const Time* operator->() const noexcept { return &t_; }
  const Time& value() const {
    if (!has_value()) throw std::bad_optional_access();
    return t_;
  }
  Time& value() {
    if (!has_value()) throw std::bad_optional_access();
    return t_;
  }
  constexpr Time value_or(Time def) const noexcept { return has_value() ? t_ : def; }
  constexpr Time& emplace(Time t = Time{}) noexcept {
    t_ = t;
    return t_;
  }
  constexpr void reset() noexcept { t_ = Time{kAbsent}; }

  constexpr bool operator==(const OptionalTime&) const = default;
  constexpr auto operator<=>(const OptionalTime&) const = default;
  friend constexpr bool operator==(const OptionalTime& a, std::nullopt_t) noexcept { return !a.has_value(); }
  friend constexpr bool operator==(const OptionalTime& a, const Time& t) noexcept { return a.has_value() && a.t_ == t; }

 private:
  static constexpr std::int64_t kAbsent = INT64_MIN;
  Time t_{kAbsent};
};
static_assert(sizeof(OptionalTime) == 8);

// A JSON value kept verbatim (managedFields, opaque sub-objects, runtime.RawExtension).
// CompactString: 16 bytes, an exact buffer, and assigning `{}` frees the old text.
struct RawJson {
  CompactString text;  // empty = absent

  bool empty() const { return text.empty(); }
  bool operator==(const RawJson&) const = default;
};

// intstr.IntOrString: a JSON number or string ("25%"), e.g. PodDisruptionBudget.minAvailable.
struct IntOrString {
  enum class Type : std::uint8_t { Int, String };
  Type type = Type::Int;
  std::int32_t intVal = 0;
  std::string strVal;

  static IntOrString from_int(std::int32_t v) { return IntOrString{Type::Int, v, {}}; }
  static IntOrString from_string(std::string v) { return IntOrString{Type::String, 0, std::move(v)}; }
  bool is_int() const { return type == Type::Int; }
  std::string to_string() const { return is_int() ? std::to_string(intVal) : strVal; }
  bool operator==(const IntOrString&) const = default;
};

template <class T>
struct type_tag {};

template <class S, class M>
struct Field {
  std::string_view name;
  M S::*member;
};

template <class S, class M>
constexpr Field<S, M> field(std::string_view name, M S::*member) {
  return {name, member};
}

// A struct's field descriptors in declaration order (what `describe` returns): a minimal tuple.
// std::tuple's constructor constraints were checked for each of the ~400 descriptions in every
// translation unit that includes the types, several seconds of compile time per unit; this type
// has one plain constructor. Read it with field_at<I>, apply_fields and FieldList::size.
template <std::size_t I, class F>
struct FieldSlot {
  F field;
};
template <class Seq, class... Fs>
struct FieldListBase;
template <std::size_t... Is, class... Fs>
struct FieldListBase<std::index_sequence<Is...>, Fs...> : FieldSlot<Is, Fs>... {
  constexpr explicit FieldListBase(Fs... fs) : FieldSlot<Is, Fs>{fs}... {}
};
template <class... Fs>
struct FieldList : FieldListBase<std::index_sequence_for<Fs...>, Fs...> {
  static constexpr std::size_t size = sizeof...(Fs);
  constexpr explicit FieldList(Fs... fs) : FieldListBase<std::index_sequence_for<Fs...>, Fs...>(fs...) {}
};
template <class... Fs>
constexpr FieldList<Fs...> field_list(Fs... fs) {
  return FieldList<Fs...>(fs...);
}
// The I-th descriptor.
template <std::size_t I, class F>
constexpr const F& field_at(const FieldSlot<I, F>& slot) {
  return slot.field;
}
// fn(descriptor...), as std::apply over a tuple.
template <class Fn, class... Fs>
constexpr decltype(auto) apply_fields(Fn&& fn, const FieldList<Fs...>& list) {
  return [&]<std::size_t... Is>(std::index_sequence<Is...>) -> decltype(auto) {
    return fn(field_at<Is>(list)...);
  }(std::index_sequence_for<Fs...>{});
}

}  // namespace ksched::api
