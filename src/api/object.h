// Building blocks shared by every API type:
//  - Extra:    the fields of a JSON object that a struct does not model, kept as raw JSON text so
//              that decode-then-encode returns every field the object had.
//  - Presence: which modelled fields were present in the input (so `"resources": {}` or
//              `"creationTimestamp": null` survive a round trip even though they are "empty").
//  - StringMap: labels, annotations, nodeSelector: a flat vector sorted by key (small, cache friendly).
//  - Field descriptors: every struct is described once by `describe(type_tag<T>)`, a tuple of
//    (json name, member pointer). The codec (codec.h) is generic over these descriptions.
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace ksched::api {

// Unmodelled members of one JSON object: (key, raw JSON value) in input order.
struct Extra {
  std::vector<std::pair<std::string, std::string>> fields;
  bool empty() const { return fields.empty(); }
  bool operator==(const Extra&) const = default;
};

// Bit i is set when the i-th described field was present in the decoded input; `nulls` marks
// non-optional fields that were JSON null (Go's nil slices/maps, e.g. "containers": null in a
// watch bookmark) so that they are written back as null while they stay empty.
struct Presence {
  std::uint64_t bits = 0;
  std::uint64_t nulls = 0;
  bool has(unsigned i) const { return (bits >> i) & 1u; }
  void set(unsigned i) { bits |= (std::uint64_t{1} << i); }
  bool is_null(unsigned i) const { return (nulls >> i) & 1u; }
  void set_null(unsigned i) { nulls |= (std::uint64_t{1} << i); }
  bool operator==(const Presence&) const = default;
};

// Flat map sorted by key: labels, annotations, nodeSelector (StringMap) and resource lists
// (ResourceList, in quantity.h). Small, cache friendly, binary-searched.
template <class V>
class FlatMap {
 public:
  using value_type = std::pair<std::string, V>;
  using const_iterator = typename std::vector<value_type>::const_iterator;

  FlatMap() = default;
  FlatMap(std::initializer_list<value_type> init) {
    for (const auto& kv : init) set(kv.first, kv.second);
  }

  const V* find(std::string_view key) const {
    auto it = lower(key);
    return (it != v_.end() && it->first == key) ? &it->second : nullptr;
  }
  V* find(std::string_view key) { return const_cast<V*>(std::as_const(*this).find(key)); }
  bool contains(std::string_view key) const { return find(key) != nullptr; }
  void set(std::string key, V value) {
    auto it = std::lower_bound(v_.begin(), v_.end(), key,
                               [](const value_type& a, const std::string& k) { return a.first < k; });
    if (it != v_.end() && it->first == key) {
      it->second = std::move(value);
    } else {
      v_.emplace(it, std::move(key), std::move(value));
    }
  }
  bool erase(std::string_view key) {
    auto it = lower(key);
    if (it == v_.end() || it->first != key) return false;
    v_.erase(v_.begin() + (it - v_.cbegin()));
    return true;
  }
  const_iterator begin() const { return v_.begin(); }
  const_iterator end() const { return v_.end(); }
  std::size_t size() const { return v_.size(); }
  bool empty() const { return v_.empty(); }
  void clear() { v_.clear(); }
  void reserve(std::size_t n) { v_.reserve(n); }
  bool operator==(const FlatMap&) const = default;

 private:
  const_iterator lower(std::string_view key) const {
    return std::lower_bound(v_.begin(), v_.end(), key,
                            [](const value_type& a, std::string_view k) { return a.first < k; });
  }
  std::vector<value_type> v_;
};

class StringMap : public FlatMap<std::string> {
 public:
  using FlatMap<std::string>::FlatMap;
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

// A JSON value kept verbatim (managedFields, opaque sub-objects, runtime.RawExtension).
struct RawJson {
  std::string text;  // empty = absent
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

}  // namespace ksched::api
