// Small accessors for the JSON objects the write path reads and fills, so that each step says
// what it means ("the spec, created if missing") instead of repeating the kind checks.
// Pointers and references into an object stay valid only until a key is added to that object.
#pragma once
#include <boost/json.hpp>
#include <cstring>
#include <string>
#include <string_view>

namespace ksched::apiserver {

// The member `k` of `o`, or nullptr: object::if_contains, inlined for the small objects the write
// path reads dozens of times per request (a key is compared only when its length and first byte
// match, where Boost.JSON calls memcmp on every key of the same length). Objects above Boost's
// own linear-search size keep its hash lookup.
inline const boost::json::value* find_member(const boost::json::object& o, std::string_view k) noexcept {
  if (o.size() > 16) return o.if_contains(k);
  const std::size_t n = k.size();
  for (const auto& kv : o) {
    const boost::json::string_view key = kv.key();
    if (key.size() == n && (n == 0 || (key[0] == k[0] && std::memcmp(key.data(), k.data(), n) == 0)))
      return &kv.value();
  }
  return nullptr;
}
inline boost::json::value* find_member(boost::json::object& o, std::string_view k) noexcept {
  return const_cast<boost::json::value*>(find_member(static_cast<const boost::json::object&>(o), k));
}

// Parses JSON text that holds an object (a stored object's) and moves the object out of the
// parsed value: `json::object o = json::parse(t).get_object()` copies the whole tree once more.
inline boost::json::object parse_object(std::string_view text) {
  boost::json::value v = boost::json::parse(text);
  return std::move(v.as_object());
}

// The string member `k`, or "" when it is absent or not a string.
inline std::string_view str_view(const boost::json::object& o, std::string_view k) {
  auto* v = find_member(o, k);
  return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}
inline std::string str(const boost::json::object& o, std::string_view k) { return std::string(str_view(o, k)); }

// The object member `k`, or nullptr when it is absent or not an object.
inline boost::json::object* object_member(boost::json::object& o, std::string_view k) {
  auto* v = find_member(o, k);
  return v && v->is_object() ? &v->get_object() : nullptr;
}
inline const boost::json::object* object_member(const boost::json::object& o, std::string_view k) {
  auto* v = find_member(o, k);
  return v && v->is_object() ? &v->get_object() : nullptr;
}

// The array member `k`, or nullptr when it is absent or not an array.
inline boost::json::array* array_member(boost::json::object& o, std::string_view k) {
  auto* v = find_member(o, k);
  return v && v->is_array() ? &v->get_array() : nullptr;
}
inline const boost::json::array* array_member(const boost::json::object& o, std::string_view k) {
  auto* v = find_member(o, k);
  return v && v->is_array() ? &v->get_array() : nullptr;
}

// The object member `k`, or a shared empty object when it is absent or not an object (read-only).
inline const boost::json::object& member_or_empty(const boost::json::object& o, std::string_view k) {
  static const boost::json::object empty;
  const boost::json::object* m = object_member(o, k);
  return m ? *m : empty;
}

// Calls f on each item of `a` (which may be null) that is an object.
template <class F>
void each_object(boost::json::array* a, F&& f) {
  if (!a) return;
  for (auto& x : *a)
    if (x.is_object()) f(x.get_object());
}

// The object member `k`, replaced by {} when it is absent or not an object.
inline boost::json::object& ensure_object(boost::json::object& o, std::string_view k) {
  auto& v = o[k];
  if (!v.is_object()) v = boost::json::object();
  return v.get_object();
}

// Sets `k` when it is absent or null (a Go pointer or zero value upstream's defaulting fills).
// The value is built only when it is set (a default's string is not allocated for nothing).
template <class V>
void set_default(boost::json::object& o, std::string_view k, V&& v) {
  if (auto* cur = find_member(o, k)) {
    if (cur->is_null()) *cur = std::forward<V>(v);
  } else {
    o.emplace(k, std::forward<V>(v));
  }
}

// metadata.name, or "".
inline std::string name_of(const boost::json::object& obj) {
  auto* m = object_member(obj, "metadata");
  return m ? str(*m, "name") : std::string();
}

}  // namespace ksched::apiserver
