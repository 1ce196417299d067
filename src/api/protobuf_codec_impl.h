// Typed protobuf decoding over `describe(type_tag<T>)` and the schema tables. Include only from the
// protobuf_codec*.cpp files that instantiate it; everyone else includes protobuf_codec.h.
//
// For each (struct T, message M) pair a Binding is built once: per field number of M (and of the
// messages M embeds inline) whether it is read into a member of T, collected to be rendered as JSON
// (members T does not model -> `extra`, RawJson members), or skipped. Decoding is then one pass
// over the wire: a table lookup per tag and a call per member. What Go's encoding/json would write
// for the object decides `present`: omitempty zero values are not present, struct values and
// fields without omitempty are (null when Go writes null), pointers are when on the wire.
#pragma once
#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "api/codec_impl.h"
#include "api/protobuf_codec.h"
#include "api/protobuf_json.h"
#include "api/protobuf_schema.h"
#include "util/base64.h"

namespace ksched::api::protobuf::detail {

using api::detail::Described;
using api::detail::FlatMapLike;
using api::detail::is_empty_value;
using api::detail::is_optional;
using api::detail::is_shared_vector;
using api::detail::is_vector;
using api::detail::Names;
using wire::expect;
namespace sch = schema;

constexpr std::size_t kMaxDepth = 64;

struct PathElem {
  std::string_view name;
  std::int64_t index = -1;
};

// The path of the value being decoded, for error messages. Every member read pushes and pops it, so
// it is a fixed array (a push is a store, never an allocation: a vector's out-of-line emplace_back
// was 6% of a pod's decoding), deep enough for kMaxDepth messages of a name and an index each.
class PathStack {
 public:
  void push_back(PathElem e) {
    if (n_ == kCapacity) [[unlikely]]
      throw wire::Error{"nesting deeper than " + std::to_string(kMaxDepth)};
    a_[n_++] = e;
  }
  void pop_back() { --n_; }
  PathElem& back() { return a_[n_ - 1]; }
  void clear() { n_ = 0; }
  const PathElem* begin() const { return a_.data(); }
  const PathElem* end() const { return a_.data() + n_; }

 private:
  static constexpr std::size_t kCapacity = 4 * kMaxDepth + 16;
  std::array<PathElem, kCapacity> a_{};
  std::size_t n_ = 0;
};

// Per nesting depth: the occurrences of collected fields and the rendered extras.
struct Scratch {
  std::vector<Occurrences> occ;
  std::string text;
  std::vector<std::pair<std::size_t, std::size_t>> values;  // offsets into text
  std::vector<std::string_view> keys;
  std::vector<ExtraFields::value_type> kv;
};

struct Ctx {
  PathStack path;
  bool drop_managed_fields = false;
  std::vector<Scratch> scratch = std::vector<Scratch>(kMaxDepth + 1);  // never reallocated: references stay valid
  std::size_t depth = 0;
  const sch::Field* managed_fields = nullptr;  // ObjectMeta.managedFields

  [[noreturn]] static void fail(std::string what) { throw wire::Error{std::move(what)}; }
  std::string path_string() const {
    std::string p;
    for (const auto& e : path) {
      if (e.index >= 0) {
        p += '[' + std::to_string(e.index) + ']';
      } else {
        if (!p.empty()) p += '.';
        p += e.name;
      }
    }
    return p;
  }
};
Ctx& thread_ctx();  // protobuf_codec.cpp

enum class Action : std::uint8_t { Skip, Member, Collect, Inline };

struct Slot {
  Action action = Action::Skip;
  std::uint32_t index = 0;  // Member: member index; Collect: index into Binding::collected; Inline: level
  const sch::Field* field = nullptr;
  mutable std::atomic<const void*> sub{nullptr};  // Member of a described type: its Binding, on first use
};

struct Level {
  const sch::Message* msg = nullptr;
  std::unique_ptr<Slot[]> slots;  // by field number
  std::size_t size = 0;
};

template <class T>
struct Binding {
  static constexpr std::size_t N = Names<T>::N;
  const sch::Message* msg = nullptr;
  std::vector<Level> levels;  // [0] = msg, then the messages it embeds inline
  std::array<const sch::Field*, N> member_field{};
  // Rendered after the fields are read, in JSON order: fields T does not model (member == N, into
  // `extra`) and RawJson members.
  struct Collected {
    const sch::Field* field;
    std::size_t member;
  };
  std::vector<Collected> collected;
  std::string error;  // non-empty: T cannot be read from msg
};

// ---------------------------------------------------------------- type compatibility

// An optional slice (Boxed<std::vector<T>>: absent costs a pointer): read as the slice it holds.
template <class M>
constexpr bool is_boxed_vector = false;
template <class M>
  requires is_optional<M>::value
constexpr bool is_boxed_vector<M> = is_vector<typename M::value_type>::value;

template <class M>
bool compatible_value(const sch::Field& f) {
  using K = sch::Kind;
  if constexpr (is_optional<M>::value) {
    return compatible_value<typename M::value_type>(f);
  } else if constexpr (is_api_string<M>) {
    return f.kind == K::String || f.kind == K::Bytes;
  } else if constexpr (std::is_same_v<M, bool>) {
    return f.kind == K::Bool;
  } else if constexpr (std::is_integral_v<M>) {
    return f.kind == K::Int32 || f.kind == K::Int64;
  } else if constexpr (std::is_same_v<M, Quantity>) {
    return f.kind == K::Quantity;
  } else if constexpr (std::is_same_v<M, Time>) {
    return f.kind == K::Time;
  } else if constexpr (std::is_same_v<M, MicroTime>) {
    return f.kind == K::MicroTime;
  } else if constexpr (std::is_same_v<M, IntOrString>) {
    return f.kind == K::IntOrString;
  } else if constexpr (Described<M>) {
    return f.kind == K::Message;
  } else {
    return false;
  }
}

// A member holding a field's JSON text: RawJson, or an optional one (a pointer, nil when absent).
template <class M>
inline constexpr bool is_raw_json = std::is_same_v<M, RawJson> || std::is_same_v<M, std::optional<RawJson>>;

template <class M>
bool compatible(const sch::Field& f) {
  if constexpr (is_raw_json<M>) {
    return true;  // rendered as JSON, whatever the field holds
  } else if constexpr (is_vector<M>::value) {
    return f.shape == sch::Shape::Repeated && compatible_value<typename M::value_type>(f);
  } else if constexpr (is_boxed_vector<M>) {
    return compatible<typename M::value_type>(f);
  } else if constexpr (FlatMapLike<M>) {
    return f.shape == sch::Shape::Map && compatible_value<typename M::value_type::second_type>(f);
  } else {
    return f.shape == sch::Shape::Single && compatible_value<M>(f);
  }
}

template <class T, std::size_t... I>
bool member_compatible(std::size_t idx, const sch::Field& f, std::index_sequence<I...>) {
  bool ok = false;
  (void)((idx == I ? (ok = compatible<std::remove_cvref_t<decltype(std::declval<T&>().*(field_at<I>(Names<T>::desc).member))>>(f),
                      true)
                   : false) ||
         ...);
  return ok;
}

template <class T, std::size_t I>
constexpr bool member_is_raw() {
  return is_raw_json<std::remove_cvref_t<decltype(std::declval<T&>().*(field_at<I>(Names<T>::desc).member))>>;
}
template <class T, std::size_t... I>
bool member_is_raw(std::size_t idx, std::index_sequence<I...>) {
  bool raw = false;
  (void)((idx == I ? (raw = member_is_raw<T, I>(), true) : false) || ...);
  return raw;
}

template <class T>
constexpr std::size_t member_index(std::string_view name) {
  for (std::size_t i = 0; i < Names<T>::N; ++i)
    if (Names<T>::names[i] == name) return i;
  return Names<T>::N;
}

// ---------------------------------------------------------------- binding construction

template <class T>
std::size_t add_level(Binding<T>& b, const sch::Message& m, int depth) {
  constexpr std::size_t N = Binding<T>::N;
  std::size_t li = b.levels.size();
  b.levels.emplace_back();
  std::size_t size = m.by_number.size();
  b.levels[li].msg = &m;
  b.levels[li].size = size;
  b.levels[li].slots = std::make_unique<Slot[]>(size);
  for (const auto& f : m.fields) {
    Slot& s = b.levels[li].slots[f.number];
    s.field = &f;
    if (f.emit == sch::Emit::Inline) {
      if (depth > 8) {
        b.error = "inline messages nested too deep in " + m.name;
        return li;
      }
      s.action = Action::Inline;
      s.index = static_cast<std::uint32_t>(add_level(b, *f.message, depth + 1));
      continue;
    }
    std::size_t idx = N;
    for (std::size_t i = 0; i < N; ++i)
      if (Names<T>::names[i] == f.json) idx = i;
    if (idx == N) {
      s.action = Action::Collect;
      s.index = static_cast<std::uint32_t>(b.collected.size());
      b.collected.push_back({&f, N});
      continue;
    }
    if (!member_compatible<T>(idx, f, std::make_index_sequence<N>{})) {
      b.error = "member " + std::string(Names<T>::names[idx]) + " cannot hold " + m.name + "." + f.json;
      return li;
    }
    b.member_field[idx] = &f;
    if (member_is_raw<T>(idx, std::make_index_sequence<N>{})) {
      s.action = Action::Collect;
      s.index = static_cast<std::uint32_t>(b.collected.size());
      b.collected.push_back({&f, idx});
    } else {
      s.action = Action::Member;
      s.index = static_cast<std::uint32_t>(idx);
    }
  }
  return li;
}

template <class T>
std::unique_ptr<Binding<T>> build(const sch::Message& m) {
  auto b = std::make_unique<Binding<T>>();
  b->msg = &m;
  add_level(*b, m, 0);
  if (!b->error.empty()) return b;
  for (std::size_t i = 0; i < Binding<T>::N; ++i) {
    if (b->member_field[i]) continue;
    std::string_view n = Names<T>::names[i];
    if (n == "apiVersion" || n == "kind") continue;  // the envelope's typeMeta, set by the caller
    b->error = "message " + m.name + " has no field for member " + std::string(n);
    return b;
  }
  return b;
}

template <class T>
const Binding<T>& binding_for(const sch::Message& m) {
  static std::array<std::atomic<const Binding<T>*>, 4> fast{};
  for (auto& a : fast) {
    const Binding<T>* p = a.load(std::memory_order_acquire);
    if (!p) break;
    if (p->msg == &m) return *p;
  }
  static std::mutex mu;
  static std::vector<std::unique_ptr<Binding<T>>> all;
  std::lock_guard l(mu);
  for (const auto& p : all)
    if (p->msg == &m) return *p;
  all.push_back(build<T>(m));
  const Binding<T>* p = all.back().get();
  for (auto& a : fast) {
    const Binding<T>* expected = nullptr;
    if (a.compare_exchange_strong(expected, p, std::memory_order_acq_rel)) break;
  }
  return *p;
}

template <class X>
const Binding<X>& sub_binding(const Slot& s) {
  const void* p = s.sub.load(std::memory_order_acquire);
  if (!p) {
    p = &binding_for<X>(*s.field->message);
    s.sub.store(p, std::memory_order_release);
  }
  const auto& b = *static_cast<const Binding<X>*>(p);
  if (!b.error.empty()) Ctx::fail(b.error);
  return b;
}

// ---------------------------------------------------------------- decoding

template <class T>
void decode_message(T& out, std::string_view data, const Binding<T>& b, Ctx& ctx);

// metav1.Time / MicroTime {1 seconds, 2 nanos} in nanoseconds; false for the empty message (Go's
// zero time, which JSON writes as null). Time keeps whole seconds, MicroTime microseconds.
inline bool read_time(std::string_view data, bool micro, std::int64_t& unix_nanos) {
  if (data.empty()) return false;
  std::int64_t seconds = 0, nanos = 0;
  wire::Reader r(data);
  while (!r.done()) {
    wire::Tag t = r.tag();
    if (t.number > 2) Ctx::fail("unknown field " + std::to_string(t.number) + " in Time");
    expect(t, wire::kVarint);
    if (t.number == 1) seconds = static_cast<std::int64_t>(r.varint());
    else nanos = static_cast<std::int32_t>(r.varint());
  }
  if (!micro) nanos = 0;
  seconds += nanos / 1000000000;
  nanos %= 1000000000;
  if (nanos < 0) {
    nanos += 1000000000;
    seconds -= 1;
  }
  nanos = nanos / 1000 * 1000;
  // int64 nanoseconds reach 1678..2262, the JSON codec's range.
  if (seconds <= -9223372036LL || seconds >= 9223372036LL) Ctx::fail("time out of range (year outside [1678,2262])");
  unix_nanos = seconds * 1000000000 + nanos;
  return true;
}

// One value of member type M from field f; true when it is Go's null (a zero time).
template <class M>
bool decode_single(wire::Reader& r, wire::Tag t, M& m, const Slot& s, Ctx& ctx) {
  const sch::Field& f = *s.field;
  if constexpr (is_optional<M>::value) {
    if (!m) m.emplace();
    if (decode_single(r, t, *m, s, ctx)) m.reset();
    return false;
  } else if constexpr (is_api_string<M>) {
    expect(t, wire::kLen);
    std::string_view v = r.len();
    if (f.kind == sch::Kind::Bytes) {
      m = util::base64_encode(v);
    } else if constexpr (std::is_same_v<M, std::string>) {
      if (m.capacity() >= v.size()) m.assign(v.data(), v.size());
      else m = std::string(v);  // exact capacity
    } else {
      m.assign(v);
    }
    return false;
  } else if constexpr (std::is_same_v<M, bool>) {
    expect(t, wire::kVarint);
    m = r.varint() != 0;
    return false;
  } else if constexpr (std::is_integral_v<M>) {
    expect(t, wire::kVarint);
    std::uint64_t v = r.varint();
    if (f.kind == sch::Kind::Int32) m = static_cast<M>(static_cast<std::int32_t>(v));
    else m = static_cast<M>(static_cast<std::int64_t>(v));
    return false;
  } else if constexpr (std::is_same_v<M, Quantity>) {
    expect(t, wire::kLen);
    wire::Reader q(r.len());
    std::string_view s_val;
    while (!q.done()) {
      wire::Tag qt = q.tag();
      if (qt.number != 1) Ctx::fail("unknown field " + std::to_string(qt.number) + " in Quantity");
      expect(qt, wire::kLen);
      s_val = q.len();
    }
    auto parsed = Quantity::parse(s_val);
    if (!parsed) Ctx::fail(parsed.error());
    m = *parsed;
    return false;
  } else if constexpr (std::is_same_v<M, Time> || std::is_same_v<M, MicroTime>) {
    expect(t, wire::kLen);
    std::int64_t n = 0;
    bool set = read_time(r.len(), std::is_same_v<M, MicroTime>, n);
    m.unixNanos = n;
    return !set;
  } else if constexpr (std::is_same_v<M, IntOrString>) {
    expect(t, wire::kLen);
    wire::Reader q(r.len());
    std::int64_t type = 0;
    std::int32_t iv = 0;
    std::string_view sv;
    while (!q.done()) {
      wire::Tag qt = q.tag();
      if (qt.number < 1 || qt.number > 3) Ctx::fail("unknown field " + std::to_string(qt.number) + " in IntOrString");
      expect(qt, qt.number == 3 ? wire::kLen : wire::kVarint);
      if (qt.number == 1) type = static_cast<std::int64_t>(q.varint());
      else if (qt.number == 2) iv = static_cast<std::int32_t>(q.varint());
      else sv = q.len();
    }
    if (type == 0) m = IntOrString::from_int(iv);
    else if (type == 1) m = IntOrString::from_string(std::string(sv));
    else Ctx::fail("invalid IntOrString type " + std::to_string(type));
    return false;
  } else if constexpr (Described<M>) {
    expect(t, wire::kLen);
    std::string_view chunk = r.len();
    decode_message(m, chunk, sub_binding<M>(s), ctx);
    return false;
  } else {
    static_assert(sizeof(M) == 0, "type not supported by the protobuf codec");
  }
}

// The end of the run of consecutive occurrences of t's field that starts at `r` (after t).
inline const char* run_end(wire::Reader r, wire::Tag t) {
  r.skip(t.wire);
  for (;;) {
    const char* p = r.pos();
    if (r.done()) return p;
    wire::Tag u = r.tag();
    if (u.number != t.number || u.wire != t.wire) return p;
    r.skip(u.wire);
  }
}

inline std::size_t count_occurrences(std::string_view span) {
  wire::Reader r(span);
  std::size_t n = 0;
  while (!r.done()) {
    wire::Tag t = r.tag();
    r.skip(t.wire);
    ++n;
  }
  return n;
}

// A repeated field into a vector: the whole run of consecutive occurrences at once, so that a
// SharedVector is interned by (or adopts the block interned for) the run's bytes.
template <class V>
void decode_repeated(wire::Reader& r, wire::Tag t, const char* start, V& out, const Slot& s, Ctx& ctx, bool first) {
  using E = typename V::value_type;
  const char* end = run_end(r, t);
  std::string_view span(start, static_cast<std::size_t>(end - start));
  r.seek(end);
  if (first) {
    if constexpr (is_shared_vector<V>::value) {
      if (out.adopt_interned(span)) return;
    }
    out.clear();
  }
  const bool packed = s.field->varint() && t.wire == wire::kLen;
  if (!packed) {
    std::size_t n = out.size() + count_occurrences(span);
    if (out.capacity() < n) out.reserve(n);
  }
  wire::Reader rr(span);
  auto i = static_cast<std::int64_t>(out.size());
  ctx.path.push_back({{}, 0});
  while (!rr.done()) {
    wire::Tag u = rr.tag();
    if (packed) {
      wire::Reader p(rr.len());
      while (!p.done()) {
        ctx.path.back().index = i++;
        E& e = out.emplace_back();
        if constexpr (std::is_integral_v<E>) {
          std::uint64_t v = p.varint();
          if (s.field->kind == sch::Kind::Int32) e = static_cast<E>(static_cast<std::int32_t>(v));
          else e = static_cast<E>(static_cast<std::int64_t>(v));
        } else {
          Ctx::fail("packed values for a field that is not a number");
        }
      }
      continue;
    }
    ctx.path.back().index = i++;
    decode_single(rr, u, out.emplace_back(), s, ctx);
  }
  ctx.path.pop_back();
  if constexpr (is_shared_vector<V>::value) {
    if (first) out.intern_decoded(span);
  }
}

// map<string, V>: entries {1 key, 2 value}, the run at once (interned like the vectors).
template <class MapT>
void decode_map(wire::Reader& r, wire::Tag t, const char* start, MapT& out, const Slot& s, Ctx& ctx, bool first) {
  using V = typename MapT::value_type::second_type;
  expect(t, wire::kLen);
  const char* end = run_end(r, t);
  std::string_view span(start, static_cast<std::size_t>(end - start));
  r.seek(end);
  if (first) {
    if (out.adopt_interned(span)) return;
    out.clear();
    std::size_t n = count_occurrences(span);
    if (out.capacity() < n) out.reserve(n);
  }
  wire::Reader rr(span);
  while (!rr.done()) {
    rr.tag();
    wire::Reader entry(rr.len());
    std::string_view key;
    V value{};
    bool has_key = false;
    while (!entry.done()) {
      wire::Tag u = entry.tag();
      if (u.number == 1) {
        expect(u, wire::kLen);
        key = entry.len();
        has_key = true;
      } else if (u.number == 2) {
        ctx.path.push_back({key, -1});
        decode_single(entry, u, value, s, ctx);
        ctx.path.pop_back();
      } else {
        entry.skip(u.wire);
      }
    }
    (void)has_key;
    out.set(std::string(key), std::move(value));
  }
  if (first) out.intern_decoded(span);
}

struct Seen {
  std::uint32_t wire = 0;   // members read from the wire
  std::uint32_t nulls = 0;  // ... whose value was Go's null (a zero time)
};

template <class T, std::size_t I>
void member_fn(wire::Reader& r, wire::Tag t, const char* start, T& out, const Slot& s, Ctx& ctx, Seen& seen) {
  auto& m = out.*(field_at<I>(Names<T>::desc).member);
  using M = std::remove_reference_t<decltype(m)>;
  const bool first = !((seen.wire >> I) & 1u);
  seen.wire |= 1u << I;
  ctx.path.push_back({Names<T>::names[I], -1});
  if constexpr (is_raw_json<M>) {
    Ctx::fail("internal: RawJson member read as a value");
  } else if constexpr (is_vector<M>::value) {
    decode_repeated(r, t, start, m, s, ctx, first);
  } else if constexpr (is_boxed_vector<M>) {
    if (!m) m.emplace();
    decode_repeated(r, t, start, *m, s, ctx, first);
  } else if constexpr (FlatMapLike<M>) {
    decode_map(r, t, start, static_cast<FlatMap<typename M::value_type::second_type, M::kShared>&>(m), s, ctx, first);
  } else {
    if (decode_single(r, t, m, s, ctx)) seen.nulls |= 1u << I;
    else seen.nulls &= ~(1u << I);
  }
  ctx.path.pop_back();
}

template <class T>
using MemberFn = void (*)(wire::Reader&, wire::Tag, const char*, T&, const Slot&, Ctx&, Seen&);

template <class T, std::size_t... I>
constexpr std::array<MemberFn<T>, sizeof...(I)> member_fns(std::index_sequence<I...>) {
  return {&member_fn<T, I>...};
}

inline void collect(wire::Reader& r, wire::Tag t, const sch::Field& f, Occurrences& occ) {
  if (f.varint() && f.shape != sch::Shape::Map) {
    if (t.wire == wire::kLen && f.shape == sch::Shape::Repeated) {
      occ.chunks.push_back(r.len());  // packed
      return;
    }
    expect(t, wire::kVarint);
    occ.numbers.push_back(r.varint());
    return;
  }
  expect(t, wire::kLen);
  occ.chunks.push_back(r.len());
}

template <class T>
void read_level(T& out, std::string_view data, const Binding<T>& b, std::size_t level, Ctx& ctx, Scratch& sc,
                Seen& seen) {
  static constexpr auto fns = member_fns<T>(std::make_index_sequence<Binding<T>::N>{});
  const Level& lv = b.levels[level];
  wire::Reader r(data);
  while (!r.done()) {
    const char* start = r.pos();
    wire::Tag t = r.tag();
    const Slot* s = t.number < lv.size ? &lv.slots[t.number] : nullptr;
    if (!s || s->action == Action::Skip) {
      r.skip(t.wire);  // a field newer than the tables: skipped, as Go's decoder does
      continue;
    }
    switch (s->action) {
      case Action::Member: fns[s->index](r, t, start, out, *s, ctx, seen); break;
      case Action::Collect:
        if (s->field == ctx.managed_fields && ctx.drop_managed_fields) {
          r.skip(t.wire);
          break;
        }
        ctx.path.push_back({s->field->json, -1});
        collect(r, t, *s->field, sc.occ[s->index]);
        ctx.path.pop_back();
        break;
      case Action::Inline: {
        expect(t, wire::kLen);
        std::string_view chunk = r.len();
        read_level(out, chunk, b, s->index, ctx, sc, seen);
        break;
      }
      case Action::Skip: break;
    }
  }
}

// Go's zero value of field f in member m, as JSON decoding of what Go writes would leave it.
template <class M>
void absent_value(M& m, const sch::Field& f, const Slot* s, Ctx& ctx, bool& null) {
  null = false;
  using K = sch::Kind;
  if constexpr (is_optional<M>::value) {
    using V = typename M::value_type;
    if constexpr (is_vector<V>::value) {
      m.reset();
      null = true;  // a nil slice
    } else if (f.kind == K::Time || f.kind == K::MicroTime || f.kind == K::RawJson || f.kind == K::Bytes) {
      m.reset();  // Go writes null
    } else if constexpr (Described<V>) {
      if (!m) m.emplace();
      decode_message(*m, {}, sub_binding<V>(*s), ctx);
    } else {
      m = V{};
    }
  } else if constexpr (is_vector<M>::value || FlatMapLike<M>) {
    m.clear();
    null = true;  // a nil slice or map
  } else if constexpr (Described<M>) {
    decode_message(m, {}, sub_binding<M>(*s), ctx);
  } else if constexpr (std::is_same_v<M, Time> || std::is_same_v<M, MicroTime>) {
    m = M{};
    null = true;
  } else {
    if (!is_empty_value(m)) m = M{};
  }
}

// omitempty: Go leaves out "", 0, false and empty slices and maps.
template <class M>
bool omitted_when_empty(M& m) {
  if constexpr (is_optional<M>::value) {
    if (m && is_empty_value(*m)) m.reset();
    return !m;
  } else {
    return is_empty_value(m);
  }
}

template <class T>
const Slot* slot_of(const Binding<T>& b, const sch::Field* f) {
  for (const auto& lv : b.levels)
    if (f->number < lv.size && lv.slots[f->number].field == f) return &lv.slots[f->number];
  return nullptr;
}

template <class T, std::size_t... I>
void finish_members(T& out, const Binding<T>& b, Ctx& ctx, const Seen& seen, std::index_sequence<I...>) {
  (
      [&] {
        auto& m = out.*(field_at<I>(Names<T>::desc).member);
        using M = std::remove_reference_t<decltype(m)>;
        if constexpr (!is_raw_json<M>) {
          const sch::Field* f = b.member_field[I];
          if (!f) {
            if (!is_empty_value(m)) m = M{};
            return;
          }
          if ((seen.wire >> I) & 1u) {
            if ((seen.nulls >> I) & 1u) {
              out.present.set(I);
              out.present.set_null(I);
            } else if (!(f->emit == sch::Emit::OmitEmpty && omitted_when_empty(m))) {
              out.present.set(I);
            }
            return;
          }
          bool null = false;
          switch (f->emit) {
            case sch::Emit::Always:
              out.present.set(I);
              ctx.path.push_back({Names<T>::names[I], -1});
              absent_value(m, *f, slot_of(b, f), ctx, null);
              ctx.path.pop_back();
              if (null) out.present.set_null(I);
              return;
            case sch::Emit::PointerNull:
              out.present.set(I);
              if constexpr (is_optional<M>::value) {
                m.reset();
              } else {
                if (!is_empty_value(m)) m = M{};
                out.present.set_null(I);
              }
              return;
            default:
              if (!is_empty_value(m)) m = M{};
              return;
          }
        }
      }(),
      ...);
}

// Sets raw member I to `text`, or to its absent value (empty; nil for an optional) for null.
template <class T, std::size_t I>
void set_raw_member(T& out, const std::string_view* text) {
  if constexpr (member_is_raw<T, I>()) {
    auto& m = out.*(field_at<I>(Names<T>::desc).member);
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(m)>, RawJson>) {
      m.text.assign(text ? *text : std::string_view());
    } else if (text) {
      if (!m) m.emplace();
      m->text.assign(*text);
    } else {
      m.reset();
    }
  }
}
// [[maybe_unused]]: a struct with no members (an empty policy, whose presence is the choice) has an
// empty pack.
template <class T, std::size_t... I>
void set_raw_member([[maybe_unused]] T& out, [[maybe_unused]] std::size_t idx,
                    [[maybe_unused]] const std::string_view* text, std::index_sequence<I...>) {
  (void)((idx == I ? (set_raw_member<T, I>(out, text), true) : false) || ...);
}

template <class T>
void decode_message(T& out, std::string_view data, const Binding<T>& b, Ctx& ctx) {
  constexpr std::size_t N = Binding<T>::N;
  if (ctx.depth >= kMaxDepth) Ctx::fail("nesting deeper than " + std::to_string(kMaxDepth));
  Scratch& sc = ctx.scratch[ctx.depth];
  ++ctx.depth;
  if (sc.occ.size() < b.collected.size()) sc.occ.resize(b.collected.size());
  for (std::size_t i = 0; i < b.collected.size(); ++i) sc.occ[i].clear();
  out.present = Presence{};
  Seen seen;
  read_level(out, data, b, 0, ctx, sc, seen);
  finish_members(out, b, ctx, seen, std::make_index_sequence<N>{});
  // What is rendered as JSON: RawJson members and the fields T does not model (into extra).
  sc.text.clear();
  sc.values.clear();
  sc.keys.clear();
  for (std::size_t i = 0; i < b.collected.size(); ++i) {
    const auto& c = b.collected[i];
    const Occurrences& occ = sc.occ[i];
    const bool raw = c.member < N;  // a RawJson member's field (else one T does not model)
    if (!should_render(*c.field, occ)) {
      if (raw) set_raw_member(out, c.member, nullptr, std::make_index_sequence<N>{});
      continue;
    }
    std::size_t at = sc.text.size();
    ctx.path.push_back({c.field->json, -1});
    if (auto r = render_field(*c.field, occ, sc.text); !r) Ctx::fail(r.error());
    ctx.path.pop_back();
    if (raw) {
      std::string_view text = std::string_view(sc.text).substr(at);
      set_raw_member(out, c.member, &text, std::make_index_sequence<N>{});
      sc.text.resize(at);
      out.present.set(static_cast<unsigned>(c.member));
      continue;
    }
    sc.keys.push_back(c.field->json);
    sc.values.emplace_back(at, sc.text.size() - at);
  }
  sc.kv.clear();
  for (std::size_t i = 0; i < sc.keys.size(); ++i)
    sc.kv.emplace_back(sc.keys[i], std::string_view(sc.text).substr(sc.values[i].first, sc.values[i].second));
  out.extra.fields.assign(sc.kv, share_extra<T>);
  --ctx.depth;
}

// Sets T's apiVersion and kind members (when it has them) from the envelope, as JSON decoding
// sets them from the object's first members.
template <class T>
void set_type_meta(T& out, std::string_view api_version, std::string_view kind) {
  constexpr std::size_t av = member_index<T>("apiVersion");
  constexpr std::size_t k = member_index<T>("kind");
  if constexpr (av < Names<T>::N) {
    (out.*(field_at<av>(Names<T>::desc).member)) = std::string(api_version);
    out.present.set(av);
  }
  if constexpr (k < Names<T>::N) {
    (out.*(field_at<k>(Names<T>::desc).member)) = std::string(kind);
    out.present.set(k);
  }
}

template <class T>
util::Result<void> decode_root(T& out, std::string_view body, const DecodeOptions& opts) {
  auto env = read_envelope(body);
  if (!env) return util::make_error(env.error());
  if (!env->content_encoding.empty())
    return util::make_error("unsupported protobuf contentEncoding \"" + std::string(env->content_encoding) + "\"");
  const sch::Message* m = sch::registry().kind(env->api_version, env->kind);
  if (!m)
    return util::make_error("protobuf decoding of kind " + std::string(env->kind) + " in " +
                            std::string(env->api_version) + " is not supported");
  const Binding<T>& b = binding_for<T>(*m);
  if (!b.error.empty())
    return util::make_error("cannot decode " + std::string(env->api_version) + " " + std::string(env->kind) + ": " +
                            b.error);
  Ctx& ctx = thread_ctx();
  ctx.path.clear();
  ctx.depth = 0;
  ctx.drop_managed_fields = opts.dropManagedFields;
  try {
    decode_message(out, env->raw, b, ctx);
  } catch (const wire::Error& e) {
    std::string p = ctx.path_string();
    return util::make_error(p.empty() ? e.message : p + ": " + e.message);
  }
  set_type_meta(out, env->api_version, env->kind);
  return {};
}

}  // namespace ksched::api::protobuf::detail

namespace ksched::api::protobuf {
template <class T>
util::Result<void> decode_into(T& out, std::string_view body, const DecodeOptions& opts) {
  return detail::decode_root(out, body, opts);
}
}  // namespace ksched::api::protobuf

#define KSCHED_PROTOBUF_INSTANTIATE(T) \
  template ::ksched::util::Result<void> ksched::api::protobuf::decode_into<T>(T&, std::string_view, const ::ksched::api::DecodeOptions&);

#define KSCHED_PROTOBUF_INSTANTIATE_KIND(T) \
  KSCHED_PROTOBUF_INSTANTIATE(T)            \
  KSCHED_PROTOBUF_INSTANTIATE(::ksched::api::List<T>)
