// Generic JSON codec over `describe(type_tag<T>)` (see object.h). Include only from the codec_*.cpp
// files that instantiate it; everyone else includes codec.h.
//
// Decoding walks the input once with simdjson On-Demand. Known members are matched against the
// described names by comparing the raw key bytes (no std::string per key), trying the member after
// the previous match first since the API server writes members in declaration order. Unknown
// members go verbatim into `extra`. The field path is tracked on a small stack and only turned into
// a string when an error is reported.
#pragma once
#include <simdjson.h>

#include <array>
#include <charconv>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "api/codec.h"
#include "api/helpers.h"
#include "api/meta.h"
#include "api/object.h"
#include "api/quantity.h"

namespace ksched::api::detail {

namespace od = simdjson::ondemand;

// ---------------------------------------------------------------- type traits
template <class T>
concept Described = requires { describe(type_tag<T>{}); };

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
struct is_optional<Boxed<T>> : std::true_type {};
template <>
struct is_optional<OptionalTime> : std::true_type {};

template <class T>
struct is_vector : std::false_type {};
template <class T, class A>
struct is_vector<std::vector<T, A>> : std::true_type {};
template <class T>
struct is_vector<SharedVector<T>> : std::true_type {};
template <class T>
struct is_shared_vector : std::false_type {};
template <class T>
struct is_shared_vector<SharedVector<T>> : std::true_type {};

template <class T>
concept FlatMapLike = requires { typename T::value_type::second_type; } &&
                      std::is_base_of_v<FlatMap<typename T::value_type::second_type, T::kShared>, T>;

template <class T>
constexpr std::size_t field_count() {
  return decltype(describe(type_tag<T>{}))::size;
}

template <class T>
struct Names {
  static constexpr auto desc = describe(type_tag<T>{});
  static constexpr std::size_t N = decltype(desc)::size;
  static constexpr std::array<std::string_view, N> names = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<std::string_view, N>{field_at<I>(desc).name...};
  }(std::make_index_sequence<N>{});
  static_assert(N <= 32, "Presence holds 32 bits");
};

// Position of metadata.managedFields among ObjectMeta's described members.
inline constexpr std::size_t kManagedFieldsIndex = [] {
  const auto& n = Names<ObjectMeta>::names;
  for (std::size_t i = 0; i < n.size(); ++i)
    if (n[i] == "managedFields") return i;
  return n.size();
}();
static_assert(kManagedFieldsIndex < Names<ObjectMeta>::N);

// ---------------------------------------------------------------- decode context
struct PathElem {
  std::string_view name;  // member or map key; empty when this is an index
  std::int64_t index = -1;
};

// Deepest nesting we accept. Kubernetes objects stay far below it; the limit keeps recursion (and
// stack use, which sanitizers inflate) bounded on hostile input.
constexpr std::size_t kMaxDepth = 200;

// A fixed-capacity stack: one entry per nesting level (bounded by kMaxDepth).
class PathStack {
 public:
  static constexpr std::size_t kCapacity = kMaxDepth + 8;
  PathStack() : elems_(kCapacity) {}
  void push_back(PathElem e) { elems_[size_++] = e; }
  void pop_back() { --size_; }
  PathElem& back() { return elems_[size_ - 1]; }
  void clear() { size_ = 0; }
  std::size_t size() const { return size_; }
  const PathElem* begin() const { return elems_.data(); }
  const PathElem* end() const { return elems_.data() + size_; }

 private:
  std::vector<PathElem> elems_;
  std::size_t size_ = 0;
};

struct Ctx {
  PathStack path;
  std::string error;
  od::document* doc = nullptr;  // for the position after a value (see raw_value)
  bool drop_managed_fields = false;  // DecodeOptions::dropManagedFields
  // Unmodelled members of the object being decoded at each nesting level, as views into the
  // input and the parser's string buffer (both live until the decode ends); copied into the
  // object's Extra in one allocation when the object is complete. Reused across decodes.
  std::vector<std::vector<ExtraFields::value_type>> extras = std::vector<std::vector<ExtraFields::value_type>>(PathStack::kCapacity);

  bool fail(std::string_view msg) {
    std::string p;
    for (const auto& e : path) {
      if (e.index >= 0) {
        p += '[';
        p += std::to_string(e.index);
        p += ']';
      } else {
        if (!p.empty()) p += '.';
        p += e.name;
      }
    }
    error = p.empty() ? std::string(msg) : p + ": " + std::string(msg);
    return false;
  }
  bool fail_json(simdjson::error_code ec) { return fail(simdjson::error_message(ec)); }
};

inline const char* type_name(od::json_type t) {
  switch (t) {
    case od::json_type::array: return "array";
    case od::json_type::object: return "object";
    case od::json_type::number: return "number";
    case od::json_type::string: return "string";
    case od::json_type::boolean: return "bool";
    case od::json_type::null: return "null";
  }
  return "value";
}

inline bool type_error(od::value& v, Ctx& ctx, std::string_view want) {
  od::json_type t;
  if (v.type().get(t)) return ctx.fail("invalid JSON");
  std::string msg = "cannot unmarshal ";
  msg += type_name(t);
  msg += " into a value of type ";
  msg += want;
  return ctx.fail(msg);
}

// A valid `null` literal. type() only looks at the first character, so `nul` or `nullx` must be
// checked in full: they are not null, and the caller's typed read then rejects them.
inline bool is_null(od::value& v) {
  od::json_type t;
  if (v.type().get(t) || t != od::json_type::null) return false;
  bool n = false;
  return !v.is_null().get(n) && n;
}

// Walks a value we do not model, checking every token (On-Demand skips nested values without
// validating them, and we must never keep text that is not JSON).
inline bool validate_value(od::value& v, Ctx& ctx, std::size_t depth) {
  if (depth >= kMaxDepth) return ctx.fail("exceeds the maximum nesting depth");
  od::json_type t;
  if (auto ec = v.type().get(t)) return ctx.fail_json(ec);
  switch (t) {
    case od::json_type::object: {
      od::object o;
      if (auto ec = v.get_object().get(o)) return ctx.fail_json(ec);
      for (auto res : o) {
        od::field f;
        if (auto ec = std::move(res).get(f)) return ctx.fail_json(ec);
        std::string_view key;
        if (auto ec = f.unescaped_key().get(key)) return ctx.fail_json(ec);
        if (!validate_value(f.value(), ctx, depth + 1)) return false;
      }
      return true;
    }
    case od::json_type::array: {
      od::array a;
      if (auto ec = v.get_array().get(a)) return ctx.fail_json(ec);
      for (auto res : a) {
        od::value e;
        if (auto ec = std::move(res).get(e)) return ctx.fail_json(ec);
        if (!validate_value(e, ctx, depth + 1)) return false;
      }
      return true;
    }
    case od::json_type::string: {
      std::string_view s;
      if (auto ec = v.get_string().get(s)) return ctx.fail_json(ec);
      return true;
    }
    case od::json_type::number: {
      od::number n;
      if (auto ec = v.get_number().get(n)) return ctx.fail_json(ec);
      return true;
    }
    case od::json_type::boolean: {
      bool b;
      if (auto ec = v.get_bool().get(b)) return ctx.fail_json(ec);
      return true;
    }
    case od::json_type::null: {
      bool n = false;
      if (auto ec = v.is_null().get(n)) return ctx.fail_json(ec);
      if (!n) return ctx.fail("invalid literal");
      return true;
    }
  }
  return ctx.fail("invalid JSON");
}

inline bool is_json_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Validated raw text of a value nested in an object or array, without trailing whitespace.
inline bool raw_value(od::value& v, Ctx& ctx, std::string_view& out) {
  std::string_view token = v.raw_json_token();
  od::json_type t;
  if (auto ec = v.type().get(t)) return ctx.fail_json(ec);
  if (!validate_value(v, ctx, ctx.path.size())) return false;
  const char* start = token.data();
  const char* end = start + token.size();
  if (t == od::json_type::object || t == od::json_type::array) {
    // The token is just the bracket; the container ends where the iterator now stands (at the
    // parent's next ',', '}' or ']').
    if (auto ec = ctx.doc->current_location().get(end)) return ctx.fail_json(ec);
  }
  while (end > start && is_json_space(end[-1])) --end;
  out = std::string_view(start, static_cast<std::size_t>(end - start));
  return true;
}

// Interns a just-decoded shared container (SharedVector, FlatMap) by its JSON text, which runs from
// `start` (the opening bracket's token) to where the iterator stands after decoding it.
template <class C>
void intern_decoded_container(C& out, const char* start, Ctx& ctx) {
  if (out.empty() || !ctx.doc) return;
  const char* end = nullptr;
  if (ctx.doc->current_location().get(end) || end <= start) return;  // at the end of the input: not worth it
  while (end > start && is_json_space(end[-1])) --end;
  out.intern_decoded(std::string_view(start, static_cast<std::size_t>(end - start)));
}

// A shared container whose JSON text is already interned is not decoded at all: the text was
// validated when the interned block was decoded, and replicas repeat it verbatim. `c` is the
// just-opened od::array/od::object; on a miss it is rewound so the caller decodes it as usual.
template <class Out, class Container>
bool adopt_interned_text(Container& c, Out& out, Ctx& ctx, bool& adopted) {
  adopted = false;
  std::string_view raw;
  if (auto ec = c.raw_json().get(raw)) return ctx.fail_json(ec);
  while (!raw.empty() && is_json_space(raw.back())) raw.remove_suffix(1);
  if (raw.size() > 2 && out.adopt_interned(raw)) {  // "[]" and "{}" are never interned
    adopted = true;
    return true;
  }
  bool not_empty = false;
  if (auto ec = c.reset().get(not_empty)) return ctx.fail_json(ec);
  return true;
}

template <class T>
bool decode_value(od::value& v, T& out, Ctx& ctx);

template <class T>
bool decode_object(od::value& v, T& out, Ctx& ctx);

template <class T>
bool is_empty_value(const T& v);

// Member `m` of an S. A JSON null for a member that cannot hold null leaves it at its default and
// is remembered in `present.nulls` (optionals, RawJson and Quantity handle null themselves).
template <class S, class M>
bool decode_field(od::value& v, M& m, Presence& p, unsigned idx, Ctx& ctx) {
  if constexpr (!is_optional<M>::value && !std::is_same_v<M, RawJson> && !std::is_same_v<M, Quantity>) {
    if (is_null(v)) {
      p.set_null(idx);
      if (!is_empty_value(m)) m = M{};
      return true;
    }
  }
  return decode_value(v, m, ctx);
}

// Calls decode_field on member I of `out` when I == idx.
template <class T, std::size_t... I>
bool decode_member(std::size_t idx, od::value& v, T& out, Ctx& ctx, std::index_sequence<I...>) {
  bool ok = true;
  (void)((idx == I ? (ok = decode_field<T>(v, out.*(field_at<I>(Names<T>::desc).member), out.present,
                                        static_cast<unsigned>(I), ctx),
                      true)
                   : false) ||
         ...);
  return ok;
}

// Matches a raw (still escaped) key against the described names, starting after `hint`.
template <class T>
inline std::size_t find_member(const char* raw, std::size_t hint) {
  constexpr std::size_t N = Names<T>::N;
  const auto& names = Names<T>::names;
  for (std::size_t k = 0; k < N; ++k) {
    std::size_t i = hint + k;
    if (i >= N) i -= N;
    const auto& n = names[i];
    if (raw[n.size()] == '"' && std::memcmp(raw, n.data(), n.size()) == 0) return i;
  }
  return N;
}

// Members the input did not mention go back to their defaults, so decoding into a reused object
// gives the same result as decoding into a fresh one.
template <class T, std::size_t... I>
void reset_absent(T& out, std::index_sequence<I...>) {
  (
      [&] {
        if (!out.present.has(I)) {
          auto& m = out.*(field_at<I>(Names<T>::desc).member);
          if (!is_empty_value(m)) m = std::remove_reference_t<decltype(m)>{};
        }
      }(),
      ...);
}

template <class T>
bool decode_object(od::value& v, T& out, Ctx& ctx) {
  if (ctx.path.size() >= kMaxDepth) return ctx.fail("exceeds the maximum nesting depth");
  od::object obj;
  if (v.get_object().get(obj)) return type_error(v, ctx, "object");
  constexpr std::size_t N = Names<T>::N;
  out.present = Presence{};
  auto& extras = ctx.extras[ctx.path.size()];
  extras.clear();
  std::size_t hint = 0;
  for (auto res : obj) {
    od::field f;
    if (auto ec = std::move(res).get(f)) return ctx.fail_json(ec);
    const char* raw = f.key().raw();
    std::size_t idx = find_member<T>(raw, hint);
    std::string_view key;
    if (idx == N) {
      if (auto ec = f.unescaped_key().get(key)) return ctx.fail_json(ec);
      // A key spelled with escapes ("n\u0061me") still names a member.
      if (!(raw[key.size()] == '"' && std::memcmp(raw, key.data(), key.size()) == 0)) {
        for (std::size_t i = 0; i < N; ++i) {
          if (Names<T>::names[i] == key) idx = i;
        }
      }
    }
    if (idx < N) {
      hint = idx + 1 == N ? 0 : idx + 1;
      if constexpr (std::is_same_v<T, ObjectMeta>) {
        // Left unread: the object iterator steps over the value when it moves to the next member.
        if (ctx.drop_managed_fields && idx == kManagedFieldsIndex) continue;
      }
      out.present.set(static_cast<unsigned>(idx));
      ctx.path.push_back({Names<T>::names[idx], -1});
      if (!decode_member(idx, f.value(), out, ctx, std::make_index_sequence<N>{})) return false;
      ctx.path.pop_back();
    } else {
      ctx.path.push_back({key, -1});
      std::string_view raw_val;
      if (!raw_value(f.value(), ctx, raw_val)) return false;
      ctx.path.pop_back();
      extras.emplace_back(key, raw_val);
    }
  }
  out.extra.fields.assign(extras, share_extra<T>);
  reset_absent(out, std::make_index_sequence<N>{});
  return true;
}

template <class V, bool S>
bool decode_map(od::value& v, FlatMap<V, S>& out, Ctx& ctx) {
  if (ctx.path.size() >= kMaxDepth) return ctx.fail("exceeds the maximum nesting depth");
  od::object obj;
  if (v.get_object().get(obj)) {
    if (is_null(v)) {
      out.clear();
      return true;
    }
    return type_error(v, ctx, "map");
  }
  if constexpr (S) {
    bool adopted = false;
    if (!adopt_interned_text(obj, out, ctx, adopted)) return false;
    if (adopted) return true;
  }
  // Exact capacity: decoded objects are often cached for a long time.
  std::size_t n = 0;
  if (auto ec = obj.count_fields().get(n)) return ctx.fail_json(ec);
  out.clear();
  if (out.capacity() < n) out.reserve(n);
  for (auto res : obj) {
    od::field f;
    if (auto ec = std::move(res).get(f)) return ctx.fail_json(ec);
    std::string_view key;
    if (auto ec = f.unescaped_key().get(key)) return ctx.fail_json(ec);
    V value{};
    ctx.path.push_back({key, -1});
    if (!decode_value(f.value(), value, ctx)) return false;
    ctx.path.pop_back();
    out.set(std::string(key), std::move(value));
  }
  return true;
}

template <class T>
bool decode_value(od::value& v, T& out, Ctx& ctx) {
  if constexpr (std::is_same_v<T, std::string>) {
    std::string_view s;
    if (v.get_string().get(s)) return type_error(v, ctx, "string");
    if (out.capacity() >= s.size()) {
      out.assign(s.data(), s.size());
    } else {
      out = std::string(s);  // exact capacity (assign would at least double the inline 15)
    }
    return true;
  } else if constexpr (std::is_same_v<T, CompactString> || std::is_same_v<T, ThinString>) {
    std::string_view s;
    if (v.get_string().get(s)) return type_error(v, ctx, "string");
    out.assign(s);
    return true;
  } else if constexpr (std::is_same_v<T, bool>) {
    if (v.get_bool().get(out)) return type_error(v, ctx, "bool");
    return true;
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    if (v.get_int64().get(out)) return type_error(v, ctx, "int64");
    return true;
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    std::int64_t n;
    if (v.get_int64().get(n)) return type_error(v, ctx, "int32");
    if (n < INT32_MIN || n > INT32_MAX) return ctx.fail("value " + std::to_string(n) + " overflows int32");
    out = static_cast<std::int32_t>(n);
    return true;
  } else if constexpr (std::is_same_v<T, double>) {
    if (v.get_double().get(out)) return type_error(v, ctx, "number");
    return true;
  } else if constexpr (is_optional<T>::value) {
    if (is_null(v)) {
      out.reset();
      return true;
    }
    if (!out) out.emplace();
    return decode_value(v, *out, ctx);
  } else if constexpr (is_vector<T>::value) {
    if (ctx.path.size() >= kMaxDepth) return ctx.fail("exceeds the maximum nesting depth");
    const char* start = v.raw_json_token().data();
    od::array arr;
    if (v.get_array().get(arr)) {
      if (is_null(v)) {
        out.clear();
        return true;
      }
      return type_error(v, ctx, "array");
    }
    if constexpr (is_shared_vector<T>::value) {
      bool adopted = false;
      if (!adopt_interned_text(arr, out, ctx, adopted)) return false;
      if (adopted) return true;
    }
    // Exact capacity (no growth slack, no reallocation while filling).
    std::size_t n = 0;
    if (auto ec = arr.count_elements().get(n)) return ctx.fail_json(ec);
    out.clear();
    if (out.capacity() < n) out.reserve(n);
    std::int64_t i = 0;
    ctx.path.push_back({{}, 0});
    for (auto res : arr) {
      od::value elem;
      if (auto ec = std::move(res).get(elem)) return ctx.fail_json(ec);
      ctx.path.back().index = i++;
      if (!decode_value(elem, out.emplace_back(), ctx)) return false;
    }
    ctx.path.pop_back();
    if constexpr (is_shared_vector<T>::value) intern_decoded_container(out, start, ctx);
    else (void)start;
    return true;
  } else if constexpr (FlatMapLike<T>) {
    const char* start = v.raw_json_token().data();
    if (!decode_map(v, static_cast<FlatMap<typename T::value_type::second_type, T::kShared>&>(out), ctx)) return false;
    intern_decoded_container(out, start, ctx);
    return true;
  } else if constexpr (std::is_same_v<T, Quantity>) {
    std::string_view s;
    od::json_type t;
    if (v.type().get(t)) return ctx.fail("invalid JSON");
    if (t == od::json_type::string) {
      if (auto ec = v.get_string().get(s)) return ctx.fail_json(ec);
    } else if (t == od::json_type::number) {
      // Upstream accepts a bare JSON number and parses its text.
      od::number n;
      s = v.raw_json_token();
      if (auto ec = v.get_number().get(n)) return ctx.fail_json(ec);
      while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
        s.remove_suffix(1);
    } else if (t == od::json_type::null) {
      out = Quantity();
      return true;
    } else {
      return type_error(v, ctx, "quantity");
    }
    // Upstream trims surrounding whitespace (strings.TrimSpace) before parsing.
    auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; };
    while (!s.empty() && space(s.front())) s.remove_prefix(1);
    while (!s.empty() && space(s.back())) s.remove_suffix(1);
    auto q = Quantity::parse(s);
    if (!q) return ctx.fail(q.error());
    out = q.value();
    return true;
  } else if constexpr (std::is_same_v<T, Time> || std::is_same_v<T, MicroTime>) {
    std::string_view s;
    if (v.get_string().get(s)) return type_error(v, ctx, "time");
    if (!parse_rfc3339_nanos(s, out.unixNanos))
      return ctx.fail("parsing time \"" + std::string(s) + "\" as RFC 3339: invalid timestamp");
    return true;
  } else if constexpr (std::is_same_v<T, IntOrString>) {
    od::json_type t;
    if (v.type().get(t)) return ctx.fail("invalid JSON");
    if (t == od::json_type::string) {
      std::string_view s;
      if (auto ec = v.get_string().get(s)) return ctx.fail_json(ec);
      out = IntOrString::from_string(std::string(s));
      return true;
    }
    std::int64_t n;
    if (v.get_int64().get(n)) return type_error(v, ctx, "int or string");
    if (n < INT32_MIN || n > INT32_MAX) return ctx.fail("value " + std::to_string(n) + " overflows int32");
    out = IntOrString::from_int(static_cast<std::int32_t>(n));
    return true;
  } else if constexpr (std::is_same_v<T, RawJson>) {
    std::string_view raw;
    if (!raw_value(v, ctx, raw)) return false;
    out.text.assign(raw);
    return true;
  } else if constexpr (Described<T>) {
    return decode_object(v, out, ctx);
  } else {
    static_assert(sizeof(T) == 0, "type not supported by the codec");
  }
}

// One parser per thread: its buffers are reused across calls.
struct ThreadDecoder {
  od::parser parser;
  std::string buffer;  // padded copy of the input
  Ctx ctx;
};
ThreadDecoder& thread_decoder();

template <class T>
util::Result<void> decode_root(T& out, std::string_view json, const DecodeOptions& opts = {}) {
  auto& td = thread_decoder();
  td.buffer.resize(json.size() + simdjson::SIMDJSON_PADDING);
  std::memcpy(td.buffer.data(), json.data(), json.size());
  std::memset(td.buffer.data() + json.size(), 0, simdjson::SIMDJSON_PADDING);
  Ctx& ctx = td.ctx;
  ctx.path.clear();
  ctx.error.clear();
  ctx.drop_managed_fields = opts.dropManagedFields;
  od::document doc;
  if (auto ec = td.parser.iterate(td.buffer.data(), json.size(), td.buffer.size()).get(doc))
    return util::make_error(simdjson::error_message(ec));
  ctx.doc = &doc;
  od::value root;
  if (auto ec = doc.get_value().get(root)) return util::make_error(simdjson::error_message(ec));
  if (!decode_value(root, out, ctx)) return util::make_error(std::move(ctx.error));
  const char* loc = nullptr;
  if (!doc.current_location().get(loc)) return util::make_error("trailing content after the JSON value");
  return {};
}

// ---------------------------------------------------------------- encoding
// append_json_string: codec.h.

template <class T>
bool is_empty_value(const T& v);

template <class T, std::size_t... I>
bool described_is_empty(const T& v, std::index_sequence<I...>) {
  return v.present.bits == 0 && v.present.nulls == 0 && v.extra.empty() &&
         (is_empty_value(v.*(field_at<I>(Names<T>::desc).member)) && ...);
}

template <class T>
bool is_empty_value(const T& v) {
  if constexpr (is_api_string<T>) {
    return v.empty();
  } else if constexpr (std::is_same_v<T, bool>) {
    return !v;
  } else if constexpr (std::is_integral_v<T> || std::is_floating_point_v<T>) {
    return v == 0;
  } else if constexpr (is_optional<T>::value) {
    return !v.has_value();
  } else if constexpr (is_vector<T>::value || FlatMapLike<T>) {
    return v.empty();
  } else if constexpr (std::is_same_v<T, Quantity>) {
    return v.is_zero();
  } else if constexpr (std::is_same_v<T, Time> || std::is_same_v<T, MicroTime>) {
    return v.unixNanos == 0;
  } else if constexpr (std::is_same_v<T, IntOrString>) {
    return v.is_int() && v.intVal == 0;
  } else if constexpr (std::is_same_v<T, RawJson>) {
    return v.empty();
  } else if constexpr (Described<T>) {
    return described_is_empty(v, std::make_index_sequence<Names<T>::N>{});
  } else {
    static_assert(sizeof(T) == 0, "type not supported by the codec");
  }
}

template <class T>
void encode_value(std::string& out, const T& v);

template <class T, std::size_t... I>
void encode_members(std::string& out, const T& v, bool& first, std::index_sequence<I...>) {
  (
      [&] {
        const auto& f = field_at<I>(Names<T>::desc);
        const auto& m = v.*(f.member);
        if (!v.present.has(I) && is_empty_value(m)) return;
        if (!first) out += ',';
        first = false;
        out += '"';
        out += f.name;  // described names never need escaping
        out += "\":";
        if (v.present.is_null(I) && is_empty_value(m)) {
          out += "null";
        } else {
          encode_value(out, m);
        }
      }(),
      ...);
}

inline void append_int(std::string& out, std::int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, static_cast<std::size_t>(r.ptr - buf));
}

template <class T>
void encode_value(std::string& out, const T& v) {
  if constexpr (is_api_string<T>) {
    append_json_string(out, v);
  } else if constexpr (std::is_same_v<T, bool>) {
    out += v ? "true" : "false";
  } else if constexpr (std::is_integral_v<T>) {
    append_int(out, static_cast<std::int64_t>(v));
  } else if constexpr (std::is_floating_point_v<T>) {
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, static_cast<std::size_t>(r.ptr - buf));
  } else if constexpr (is_optional<T>::value) {
    if (v) {
      encode_value(out, *v);
    } else {
      out += "null";
    }
  } else if constexpr (is_vector<T>::value) {
    out += '[';
    bool first = true;
    for (const auto& e : v) {
      if (!first) out += ',';
      first = false;
      encode_value(out, e);
    }
    out += ']';
  } else if constexpr (FlatMapLike<T>) {
    out += '{';
    bool first = true;
    for (const auto& [k, e] : v) {
      if (!first) out += ',';
      first = false;
      append_json_string(out, k);
      out += ':';
      encode_value(out, e);
    }
    out += '}';
  } else if constexpr (std::is_same_v<T, Quantity>) {
    out += '"';
    out += v.to_string();
    out += '"';
  } else if constexpr (std::is_same_v<T, Time>) {
    out += '"';
    append_rfc3339(out, v.unixNanos, 0);
    out += '"';
  } else if constexpr (std::is_same_v<T, MicroTime>) {
    out += '"';
    append_rfc3339(out, v.unixNanos, 6);
    out += '"';
  } else if constexpr (std::is_same_v<T, IntOrString>) {
    if (v.is_int()) {
      append_int(out, v.intVal);
    } else {
      append_json_string(out, v.strVal);
    }
  } else if constexpr (std::is_same_v<T, RawJson>) {
    out += v.empty() ? std::string_view("null") : std::string_view(v.text);
  } else if constexpr (Described<T>) {
    out += '{';
    bool first = true;
    encode_members(out, v, first, std::make_index_sequence<Names<T>::N>{});
    for (const auto& [k, raw] : v.extra.fields) {
      if (!first) out += ',';
      first = false;
      append_json_string(out, k);
      out += ':';
      out += raw;
    }
    out += '}';
  } else {
    static_assert(sizeof(T) == 0, "type not supported by the codec");
  }
}

}  // namespace ksched::api::detail

namespace ksched::api {

template <class T>
util::Result<void> decode_into(T& out, std::string_view json) {
  return detail::decode_root(out, json);
}

template <class T>
util::Result<void> decode_into(T& out, std::string_view json, const DecodeOptions& opts) {
  return detail::decode_root(out, json, opts);
}

template <class T>
util::Result<T> decode(std::string_view json) {
  T out{};
  auto r = detail::decode_root(out, json);
  if (!r) return util::make_error(r.error());
  return out;
}

template <class T>
util::Result<T> decode(std::string_view json, const DecodeOptions& opts) {
  T out{};
  auto r = detail::decode_root(out, json, opts);
  if (!r) return util::make_error(r.error());
  return out;
}

template <class T>
void encode_to(std::string& out, const T& value) {
  detail::encode_value(out, value);
}

}  // namespace ksched::api

// Explicit instantiation of the public codec entry points for T, List<T> and WatchEvent<T>.
#define KSCHED_CODEC_INSTANTIATE(T)                                                   \
  template ::ksched::util::Result<T> ksched::api::decode<T>(std::string_view);        \
  template ::ksched::util::Result<T> ksched::api::decode<T>(std::string_view, const ::ksched::api::DecodeOptions&); \
  template ::ksched::util::Result<void> ksched::api::decode_into<T>(T&, std::string_view); \
  template ::ksched::util::Result<void> ksched::api::decode_into<T>(T&, std::string_view, const ::ksched::api::DecodeOptions&); \
  template void ksched::api::encode_to<T>(std::string&, const T&);

#define KSCHED_CODEC_INSTANTIATE_KIND(T)                  \
  KSCHED_CODEC_INSTANTIATE(T)                             \
  KSCHED_CODEC_INSTANTIATE(::ksched::api::List<T>)        \
  KSCHED_CODEC_INSTANTIATE(::ksched::api::WatchEvent<T>)
