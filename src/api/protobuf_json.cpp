// Protobuf <-> JSON over the schema tables. Rendering writes JSON text directly (no document
// tree); encoding walks a simdjson DOM and writes nested messages in place (wire::open_len).
#include "api/protobuf_json.h"

#include "api/civil_date.h"

#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>

#include "api/codec.h"
#include "api/helpers.h"
#include "util/base64.h"
#include "util/utf8.h"

namespace ksched::api::protobuf {
namespace {

using schema::Emit;
using schema::Field;
using schema::Kind;
using schema::Message;
using schema::Shape;
using wire::Reader;

constexpr int kMaxDepth = 64;

// ---------------------------------------------------------------- envelope

Envelope parse_envelope(std::string_view body) {
  if (!has_magic(body)) throw wire::Error{"not a Kubernetes protobuf body: missing the k8s\\0 prefix"};
  Envelope env;
  Reader r(body.substr(kMagic.size()));
  while (!r.done()) {
    wire::Tag t = r.tag();
    if (t.number > 4) throw wire::Error{"envelope: unknown field number " + std::to_string(t.number) + " in runtime.Unknown"};
    if (t.wire != wire::kLen)
      throw wire::Error{"envelope: field " + std::to_string(t.number) + " has wire type " + wire::type_name(t.wire) +
                        ", expected length-delimited"};
    std::string_view v = r.len();
    switch (t.number) {
      case 1: {
        Reader tm(v);
        while (!tm.done()) {
          wire::Tag tt = tm.tag();
          if (tt.number > 2) throw wire::Error{"envelope.typeMeta: unknown field number " + std::to_string(tt.number)};
          if (tt.wire != wire::kLen) throw wire::Error{std::string("envelope.typeMeta: wire type ") + wire::type_name(tt.wire)};
          (tt.number == 1 ? env.api_version : env.kind) = tm.len();
        }
        break;
      }
      case 2: env.raw = v; break;
      case 3: env.content_encoding = v; break;
      case 4: env.content_type = v; break;
    }
  }
  return env;
}

// ---------------------------------------------------------------- rendering

void append_string(std::string& out, std::string_view s) {
  if (util::is_valid_utf8(s)) {
    detail::append_json_string(out, s);
  } else {
    detail::append_json_string(out, util::to_valid_utf8(s));  // Go writes U+FFFD for invalid bytes
  }
}

template <class I>
void append_int(std::string& out, I v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, static_cast<std::size_t>(r.ptr - buf));
}

// One occurrence of a field on the wire, tagged with the field's index in its message.
struct Occ {
  std::uint16_t field;
  std::string_view chunk;
  std::uint64_t number = 0;
};

class Renderer {
 public:
  explicit Renderer(UnknownFields unknown) : unknown_(unknown) {}

  [[noreturn]] void fail(const std::string& what) const {
    std::string p;
    for (const auto& e : path_) {
      if (e.index >= 0) {
        p += '[' + std::to_string(e.index) + ']';
      } else if (e.key) {
        p += '[';
        p += e.name;
        p += ']';
      } else {
        if (!p.empty()) p += '.';
        p += e.name;
      }
    }
    throw wire::Error{p.empty() ? what : p + ": " + what};
  }

  void message(const Message& m, std::string_view data, std::string& out, int depth) {
    out += '{';
    bool first = true;
    members(m, data, out, first, depth);
    out += '}';
  }

  // The JSON members of message `m` (no braces): inline fields join the caller's object.
  void members(const Message& m, std::string_view data, std::string& out, bool& first, int depth) {
    if (depth > kMaxDepth) fail("nesting deeper than " + std::to_string(kMaxDepth));
    std::vector<Occ> occs;
    collect(m, data, occs);
    std::stable_sort(occs.begin(), occs.end(), [](const Occ& a, const Occ& b) { return a.field < b.field; });
    std::size_t k = 0;
    for (std::size_t i = 0; i < m.fields.size(); ++i) {
      const Field& f = m.fields[i];
      std::size_t end = k;
      while (end < occs.size() && occs[end].field == i) ++end;
      field(f, occs.data() + k, occs.data() + end, out, first, depth);
      k = end;
    }
  }

  void field(const Field& f, const Occ* b, const Occ* e, std::string& out, bool& first, int depth) {
    const bool present = b != e;
    if (f.emit == Emit::Inline) {
      std::string merged = joined(b, e);
      members(*f.message, merged, out, first, depth + 1);
      return;
    }
    if (!present) {
      if (f.emit != Emit::Always && f.emit != Emit::PointerNull) return;
    } else if (f.emit == Emit::OmitEmpty && is_empty(f, b, e)) {
      return;
    }
    if (!first) out += ',';
    first = false;
    detail::append_json_string(out, f.json);
    out += ':';
    path_.push_back({f.json, -1, false});
    if (!present) {
      if (f.emit == Emit::PointerNull) out += "null";
      else absent_value(f, out, depth);
    } else {
      value(f, b, e, out, depth);
    }
    path_.pop_back();
  }

  // The value of a field present on the wire.
  void value(const Field& f, const Occ* b, const Occ* e, std::string& out, int depth) {
    if (f.shape == Shape::Map) return map(f, b, e, out, depth);
    if (f.shape == Shape::Repeated) {
      out += '[';
      std::int64_t i = 0;
      for (const Occ* o = b; o != e; ++o) {
        if (f.varint() && o->chunk.data() != nullptr) {
          // Packed scalars: one chunk holds several varints.
          Reader packed(o->chunk);
          while (!packed.done()) {
            if (i) out += ',';
            single(f.kind, f, {}, packed.varint(), out, depth);
            ++i;
          }
          continue;
        }
        if (i) out += ',';
        path_.push_back({{}, i, false});
        single(f.kind, f, o->chunk, o->number, out, depth);
        path_.pop_back();
        ++i;
      }
      out += ']';
      return;
    }
    if (f.varint() || f.kind == Kind::String || f.kind == Kind::Bytes) {
      return single(f.kind, f, (e - 1)->chunk, (e - 1)->number, out, depth);  // the last occurrence wins
    }
    if (e - b == 1) return single(f.kind, f, b->chunk, 0, out, depth);
    std::string merged = joined(b, e);  // repeated occurrences of a message merge
    single(f.kind, f, merged, 0, out, depth);
  }

  void single(Kind kind, const Field& f, std::string_view chunk, std::uint64_t number, std::string& out, int depth) {
    switch (kind) {
      case Kind::String: return append_string(out, chunk);
      case Kind::Bytes:
        out += '"';
        out += util::base64_encode(chunk);
        out += '"';
        return;
      case Kind::Int32: return append_int(out, static_cast<std::int32_t>(number));
      case Kind::Int64: return append_int(out, static_cast<std::int64_t>(number));
      case Kind::Bool: out += number ? "true" : "false"; return;
      case Kind::Message: return message(*f.message, chunk, out, depth + 1);
      case Kind::Time: return time(chunk, false, out);
      case Kind::MicroTime: return time(chunk, true, out);
      case Kind::Quantity: return quantity(chunk, out);
      case Kind::IntOrString: return int_or_string(chunk, out);
      case Kind::RawJson: return raw_json(chunk, out);
    }
  }

  // Go's zero value of a field that was not on the wire (Emit::Always).
  void absent_value(const Field& f, std::string& out, int depth) {
    if (f.shape != Shape::Single) {
      out += "null";  // nil slice / map
      return;
    }
    switch (f.kind) {
      case Kind::String: out += "\"\""; return;
      case Kind::Int32:
      case Kind::Int64:
      case Kind::IntOrString: out += '0'; return;
      case Kind::Bool: out += "false"; return;
      case Kind::Message: return message(*f.message, {}, out, depth + 1);
      case Kind::Quantity: out += "\"0\""; return;
      case Kind::Bytes:
      case Kind::Time:
      case Kind::MicroTime:
      case Kind::RawJson: out += "null"; return;
    }
  }

 private:
  struct PathElem {
    std::string_view name;
    std::int64_t index = -1;
    bool key = false;  // a map key: name[key]
  };

  void collect(const Message& m, std::string_view data, std::vector<Occ>& occs) {
    Reader r(data);
    while (!r.done()) {
      wire::Tag t = r.tag();
      const Field* f = m.find(t.number);
      if (!f) {
        if (unknown_ == UnknownFields::Skip) {
          r.skip(t.wire);
          continue;
        }
        fail("unknown field number " + std::to_string(t.number) + " (" + wire::type_name(t.wire) + ") in " + m.name);
      }
      auto idx = static_cast<std::uint16_t>(f - m.fields.data());
      const bool varint = f->varint() && f->shape != Shape::Map;
      if (varint && t.wire == wire::kLen && f->shape == Shape::Repeated) {
        occs.push_back({idx, r.len(), 0});  // packed
      } else if (varint) {
        if (t.wire != wire::kVarint) wrong_wire(m, *f, t, "varint");
        occs.push_back({idx, {}, r.varint()});
      } else {
        if (t.wire != wire::kLen) wrong_wire(m, *f, t, "length-delimited");
        occs.push_back({idx, r.len(), 0});
      }
    }
  }

  [[noreturn]] void wrong_wire(const Message& m, const Field& f, wire::Tag t, const char* want) {
    path_.push_back({f.json, -1, false});
    fail(std::string("wire type ") + wire::type_name(t.wire) + ", expected " + want + " for " + m.name + "." + f.json);
  }

  static std::string joined(const Occ* b, const Occ* e) {
    std::string s;
    for (const Occ* o = b; o != e; ++o) s.append(o->chunk);
    return s;
  }

  // omitempty on a non-pointer value: Go drops "", 0, false, empty slices and maps.
  static bool is_empty(const Field& f, const Occ* b, const Occ* e) {
    if (f.shape != Shape::Single) {
      if (f.shape == Shape::Repeated && f.varint()) {
        for (const Occ* o = b; o != e; ++o)
          if (o->chunk.data() == nullptr || !o->chunk.empty()) return false;
        return true;  // only empty packed chunks
      }
      return false;
    }
    const Occ& last = *(e - 1);
    switch (f.kind) {
      case Kind::String:
      case Kind::Bytes: return last.chunk.empty();
      case Kind::Int32: return static_cast<std::int32_t>(last.number) == 0;
      case Kind::Int64:
      case Kind::Bool: return last.number == 0;
      default: return false;
    }
  }

  // map<string, V>: entries {1 key, 2 value}. Go sorts keys when encoding JSON; a repeated key keeps
  // its last value.
  void map(const Field& f, const Occ* b, const Occ* e, std::string& out, int depth) {
    struct Entry {
      std::string key;
      std::string_view chunk;
      std::uint64_t number = 0;
      bool has_value = false;
    };
    std::vector<Entry> entries;
    entries.reserve(static_cast<std::size_t>(e - b));
    for (const Occ* o = b; o != e; ++o) {
      Entry en;
      Reader r(o->chunk);
      while (!r.done()) {
        wire::Tag t = r.tag();
        if (t.number == 1) {
          if (t.wire != wire::kLen) fail(std::string("map key has wire type ") + wire::type_name(t.wire));
          std::string_view k = r.len();
          en.key = util::is_valid_utf8(k) ? std::string(k) : util::to_valid_utf8(k);
        } else if (t.number == 2) {
          bool varint = f.varint();
          if (t.wire != (varint ? wire::kVarint : wire::kLen))
            fail(std::string("map value has wire type ") + wire::type_name(t.wire));
          if (varint) en.number = r.varint();
          else en.chunk = r.len();
          en.has_value = true;
        } else {
          fail("unknown field " + std::to_string(t.number) + " in map entry");
        }
      }
      entries.push_back(std::move(en));
    }
    std::stable_sort(entries.begin(), entries.end(), [](const Entry& x, const Entry& y) { return x.key < y.key; });
    out += '{';
    bool first = true;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (i + 1 < entries.size() && entries[i + 1].key == entries[i].key) continue;  // the last one wins
      const Entry& en = entries[i];
      if (!first) out += ',';
      first = false;
      detail::append_json_string(out, en.key);
      out += ':';
      path_.push_back({en.key, -1, true});
      if (en.has_value) {
        single(f.kind, f, en.chunk, en.number, out, depth);
      } else if (f.kind == Kind::Quantity) {
        out += "\"0\"";  // Go's zero Quantity
      } else if (f.kind == Kind::Bytes) {
        out += "\"\"";  // gogo decodes a missing value as []byte{}
      } else {
        single(f.kind, f, {}, 0, out, depth);
      }
      path_.pop_back();
    }
    out += '}';
  }

  // metav1.Time / MicroTime {1 seconds, 2 nanos}; empty is Go's zero time: null. Time keeps whole
  // seconds (v1.35's Time.Unmarshal drops the nanos); MicroTime microseconds.
  void time(std::string_view data, bool micro, std::string& out) {
    if (data.empty()) {
      out += "null";
      return;
    }
    std::int64_t seconds = 0;
    std::int64_t nanos = 0;
    Reader r(data);
    while (!r.done()) {
      wire::Tag t = r.tag();
      if ((t.number == 1 || t.number == 2) && t.wire != wire::kVarint)
        fail("time field " + std::to_string(t.number) + " has wire type " + wire::type_name(t.wire));
      if (t.number == 1) seconds = static_cast<std::int64_t>(r.varint());
      else if (t.number == 2) nanos = static_cast<std::int32_t>(r.varint());
      else fail("unknown field " + std::to_string(t.number) + " in Time");
    }
    if (!micro) nanos = 0;
    // Go normalises nanos outside [0, 1e9) into seconds (time.Unix).
    seconds += nanos / 1000000000;
    nanos %= 1000000000;
    if (nanos < 0) {
      nanos += 1000000000;
      seconds -= 1;
    }
    if (seconds < -100000000000LL || seconds > 300000000000LL) fail("time out of range (year outside [0,9999])");
    std::int64_t days = seconds >= 0 ? seconds / 86400 : -((-seconds + 86399) / 86400);
    std::int64_t secs_of_day = seconds - days * 86400;
    std::int64_t year;
    unsigned month, day;
    civil_from_days(days, year, month, day);
    if (year < 0 || year > 9999) fail("time out of range (year outside [0,9999])");
    char buf[48];
    int n = std::snprintf(buf, sizeof buf, "\"%04d-%02u-%02uT%02d:%02d:%02d", static_cast<int>(year), month, day,
                          static_cast<int>(secs_of_day / 3600), static_cast<int>(secs_of_day / 60 % 60),
                          static_cast<int>(secs_of_day % 60));
    if (micro) n += std::snprintf(buf + n, sizeof buf - static_cast<std::size_t>(n), ".%06d", static_cast<int>(nanos / 1000));
    out.append(buf, static_cast<std::size_t>(n));
    out += "Z\"";
  }

  void quantity(std::string_view data, std::string& out) {
    std::string_view value;
    Reader r(data);
    while (!r.done()) {
      wire::Tag t = r.tag();
      if (t.number != 1) fail("unknown field " + std::to_string(t.number) + " in Quantity");
      if (t.wire != wire::kLen) fail(std::string("Quantity string has wire type ") + wire::type_name(t.wire));
      value = r.len();
    }
    // Go cannot unmarshal an empty quantity; neither should we pretend it is zero.
    if (value.empty()) fail("empty quantity");
    for (char c : value)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-'))
        fail("invalid quantity \"" + util::to_valid_utf8(value) + "\"");
    out += '"';
    out += value;
    out += '"';
  }

  void int_or_string(std::string_view data, std::string& out) {
    std::int64_t type = 0;
    std::int32_t int_val = 0;
    std::string_view str_val;
    Reader r(data);
    while (!r.done()) {
      wire::Tag t = r.tag();
      if (t.number < 1 || t.number > 3) fail("unknown field " + std::to_string(t.number) + " in IntOrString");
      std::uint32_t want = t.number == 3 ? wire::kLen : wire::kVarint;
      if (t.wire != want) fail(std::string("IntOrString field has wire type ") + wire::type_name(t.wire));
      if (t.number == 1) type = static_cast<std::int64_t>(r.varint());
      else if (t.number == 2) int_val = static_cast<std::int32_t>(r.varint());
      else str_val = r.len();
    }
    if (type == 0) return append_int(out, int_val);
    if (type == 1) return append_string(out, str_val);
    fail("invalid IntOrString type " + std::to_string(type));
  }

  void raw_json(std::string_view data, std::string& out) {
    std::string_view raw;
    Reader r(data);
    while (!r.done()) {
      wire::Tag t = r.tag();
      if (t.number != 1 || t.wire != wire::kLen) fail("unexpected field " + std::to_string(t.number) + " in raw JSON holder");
      raw = r.len();
    }
    if (raw.empty()) {
      out += "null";
      return;
    }
    thread_local simdjson::dom::parser parser;
    simdjson::dom::element el;
    if (auto ec = parser.parse(raw.data(), raw.size()).get(el))
      fail(std::string("embedded raw value is not JSON: ") + simdjson::error_message(ec));
    out += simdjson::minify(el);
  }

  UnknownFields unknown_;
  std::vector<PathElem> path_;
};

// ---------------------------------------------------------------- encoding

namespace dom = simdjson::dom;

class Encoder {
 public:
  std::size_t dropped = 0;

  void message(const Message& m, const dom::object* obj, std::string& out, int depth) {
    if (depth > kMaxDepth) throw wire::Error{"nesting deeper than " + std::to_string(kMaxDepth)};
    if (obj && m.fields.size() <= kMaxKeyed && !has_inline(m)) {
      keyed_message(m, *obj, out, depth);
      return;
    }
    for (const Field* f : m.wire_order) {
      dom::element v;
      bool found = false;
      if (obj && f->emit != Emit::Inline) found = obj->at_key(f->json).get(v) == simdjson::SUCCESS;
      if (f->emit == Emit::Inline) {
        std::size_t at = wire::open_len(out, f->number);
        message(*f->message, obj, out, depth + 1);  // its fields sit in the same JSON object
        wire::close_len(out, at);
        continue;
      }
      field(*f, found, v, out, depth);
    }
  }

 private:
  static constexpr std::size_t kMaxKeyed = 64;

  static bool has_inline(const Message& m) {
    for (const Field& f : m.fields)
      if (f.emit == Emit::Inline) return true;
    return false;
  }

  // The object's members matched to m's fields in one pass over the object (looking each field up
  // with at_key scans the object once per field: fields x members comparisons for every message).
  // The JSON Go and this server write has its members in declaration order, so a member is looked
  // for first at the field after the previous member's. A repeated key counts once, the first, as
  // at_key finds it.
  void keyed_message(const Message& m, const dom::object& obj, std::string& out, int depth) {
    const std::size_t n = m.fields.size();
    const std::size_t base = values_.size();  // this level's members: values_[base, base + n)
    values_.resize(base + n);
    std::uint64_t found = 0;
    std::size_t next = 0;
    for (auto kv : obj) {
      std::size_t i = next;
      std::size_t tried = 0;
      for (; tried < n; ++tried, i = i + 1 == n ? 0 : i + 1)
        if (m.fields[i].json == kv.key) break;
      if (tried == n) continue;  // not a field of the tables: left out
      next = i + 1 == n ? 0 : i + 1;
      if ((found >> i) & 1u) continue;
      found |= std::uint64_t{1} << i;
      values_[base + i] = kv.value;
    }
    for (const Field* f : m.wire_order) {
      std::size_t i = static_cast<std::size_t>(f - m.fields.data());
      field(*f, (found >> i) & 1u, values_[base + i], out, depth);  // by index: nested levels may grow values_
    }
    values_.resize(base);
  }

  std::vector<dom::element> values_;

  // A field of a message, from its JSON member v when found.
  void field(const Field& f, bool found, dom::element v, std::string& out, int depth) {
    const bool null = !found || v.is_null();
    if (f.shape == Shape::Repeated) {
      if (null) return;
      dom::array arr;
      if (v.get_array().get(arr)) {
        ++dropped;
        return;
      }
      for (dom::element e : arr) single(f, e, false, out, depth);
      return;
    }
    if (f.shape == Shape::Map) {
      if (null) return;
      map(f, v, out, depth);
      return;
    }
    if (f.optional_on_wire() && null) return;
    single(f, v, null, out, depth);
  }

  // One value of field f (an element of a repeated field, or a single field) with its tag; `absent`
  // writes Go's zero value.
  void single(const Field& f, dom::element v, bool absent, std::string& out, int depth) {
    switch (f.kind) {
      case Kind::String: {
        std::string_view s;
        if (!absent && v.get_string().get(s)) ++dropped;
        wire::put_len(out, f.number, s);
        return;
      }
      case Kind::Bytes: {
        std::string_view s;
        std::optional<std::string> bytes;
        if (!absent && !v.get_string().get(s)) bytes = util::base64_decode(s, /*strict=*/true);
        if (!absent && !bytes) ++dropped;
        wire::put_len(out, f.number, bytes ? *bytes : std::string());
        return;
      }
      case Kind::Int32:
      case Kind::Int64:
      case Kind::Bool: {
        wire::put_tag(out, f.number, wire::kVarint);
        wire::put_varint(out, absent ? 0 : scalar(f.kind, v));
        return;
      }
      case Kind::Message: {
        dom::object o;
        bool is_obj = !absent && !v.get_object().get(o);
        if (!absent && !is_obj) ++dropped;
        std::size_t at = wire::open_len(out, f.number);
        message(*f.message, is_obj ? &o : nullptr, out, depth + 1);
        wire::close_len(out, at);
        return;
      }
      case Kind::Time:
      case Kind::MicroTime: {
        std::size_t at = wire::open_len(out, f.number);
        std::string_view s;
        std::int64_t nanos = 0;
        if (!absent && !v.get_string().get(s) && parse_rfc3339_nanos(s, nanos)) {
          std::int64_t secs = nanos / 1000000000;
          std::int64_t rem = nanos % 1000000000;
          if (rem < 0) {
            rem += 1000000000;
            secs -= 1;
          }
          wire::put_tag(out, 1, wire::kVarint);
          wire::put_varint(out, static_cast<std::uint64_t>(secs));
          wire::put_tag(out, 2, wire::kVarint);
          // Time carries whole seconds (upstream leaves nanos out); MicroTime microseconds.
          wire::put_varint(out, f.kind == Kind::MicroTime ? static_cast<std::uint64_t>(rem / 1000 * 1000) : 0);
        } else if (!absent) {
          ++dropped;
        }
        wire::close_len(out, at);
        return;
      }
      case Kind::Quantity: {
        std::string_view s = "0";
        std::string num;
        if (!absent) {
          if (v.is_string()) {
            s = v.get_string().value_unsafe();
          } else if (v.is_number()) {
            num = simdjson::minify(v);
            s = num;
          } else {
            ++dropped;
          }
        }
        std::size_t at = wire::open_len(out, f.number);
        wire::put_len(out, 1, s);
        wire::close_len(out, at);
        return;
      }
      case Kind::IntOrString: {
        std::size_t at = wire::open_len(out, f.number);
        std::string_view s;
        std::int64_t n = 0;
        bool is_string = !absent && !v.get_string().get(s);
        if (!absent && !is_string && v.get_int64().get(n)) ++dropped;
        wire::put_tag(out, 1, wire::kVarint);
        wire::put_varint(out, is_string ? 1 : 0);
        wire::put_tag(out, 2, wire::kVarint);
        wire::put_varint(out, static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(n))));
        wire::put_len(out, 3, s);
        wire::close_len(out, at);
        return;
      }
      case Kind::RawJson: {
        std::size_t at = wire::open_len(out, f.number);
        if (!absent) wire::put_len(out, 1, simdjson::minify(v));
        wire::close_len(out, at);
        return;
      }
    }
  }

  std::uint64_t scalar(Kind kind, dom::element v) {
    if (kind == Kind::Bool) {
      bool b = false;
      if (v.get_bool().get(b)) ++dropped;
      return b ? 1 : 0;
    }
    std::int64_t n = 0;
    if (v.get_int64().get(n)) {
      double d = 0;
      if (!v.get_double().get(d) && d == static_cast<double>(static_cast<std::int64_t>(d))) {
        n = static_cast<std::int64_t>(d);
      } else {
        ++dropped;
        n = 0;
      }
    }
    if (kind == Kind::Int32) n = static_cast<std::int32_t>(n);  // sign-extended, as Go writes an int32
    return static_cast<std::uint64_t>(n);
  }

  // map<string, V>: entries in sorted key order, {1 key, 2 value}, as Go's marshaller writes them.
  void map(const Field& f, dom::element v, std::string& out, int depth) {
    dom::object o;
    if (v.get_object().get(o)) {
      ++dropped;
      return;
    }
    std::vector<std::pair<std::string_view, dom::element>> entries;
    for (auto kv : o) entries.emplace_back(kv.key, kv.value);
    std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (i + 1 < entries.size() && entries[i + 1].first == entries[i].first) continue;
      const auto& [key, value] = entries[i];
      std::size_t at = wire::open_len(out, f.number);
      wire::put_len(out, 1, key);
      Field vf = f;
      vf.number = 2;
      vf.shape = Shape::Single;
      if (f.kind == Kind::Bytes && value.is_null()) {
        // a nil []byte value is left out of the entry
      } else {
        single(vf, value, value.is_null(), out, depth);
      }
      wire::close_len(out, at);
    }
  }
};

template <class Fn>
auto guarded(Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const wire::Error& e) {
    return util::make_error(e.message);
  }
}

}  // namespace

util::Result<Envelope> read_envelope(std::string_view body) {
  try {
    return parse_envelope(body);
  } catch (const wire::Error& e) {
    return util::make_error(e.message);
  }
}

std::size_t envelope_size(std::string_view api_version, std::string_view kind, std::size_t raw_size) {
  std::size_t type_meta = wire::len_field_size(api_version.size()) + wire::len_field_size(kind.size());
  return kMagic.size() + wire::len_field_size(type_meta) + wire::len_field_size(raw_size) + 4;
}

namespace {
struct EnvelopeNumbers {
  std::uint32_t type_meta, raw, encoding, type, api_version, kind;
};
const EnvelopeNumbers& envelope_numbers() {
  static const EnvelopeNumbers n = [] {
    const auto& unknown = schema::registry().message("Unknown");
    const auto& type_meta = schema::registry().message("TypeMeta");
    return EnvelopeNumbers{unknown.number("typeMeta"),        unknown.number("raw"),
                           unknown.number("contentEncoding"), unknown.number("contentType"),
                           type_meta.number("apiVersion"),    type_meta.number("kind")};
  }();
  return n;
}
}  // namespace

void put_envelope_head(std::string& out, std::string_view api_version, std::string_view kind, std::size_t raw_size) {
  const auto& n = envelope_numbers();
  out.append(kMagic);
  wire::put_tag(out, n.type_meta, wire::kLen);
  wire::put_varint(out, wire::len_field_size(api_version.size()) + wire::len_field_size(kind.size()));
  wire::put_len(out, n.api_version, api_version);
  wire::put_len(out, n.kind, kind);
  wire::put_tag(out, n.raw, wire::kLen);
  wire::put_varint(out, raw_size);
}

void put_envelope_tail(std::string& out) {
  const auto& n = envelope_numbers();
  wire::put_len(out, n.encoding, {});
  wire::put_len(out, n.type, {});
}

void put_envelope(std::string& out, std::string_view api_version, std::string_view kind, std::string_view raw) {
  put_envelope_head(out, api_version, kind, raw.size());
  out.append(raw);
  put_envelope_tail(out);
}

util::Result<std::string> to_json(std::string_view body, UnknownFields unknown) {
  try {
    Envelope env = parse_envelope(body);
    if (env.kind.empty() || env.api_version.empty())
      return util::make_error("protobuf envelope lacks apiVersion/kind (typeMeta)");
    if (!env.content_encoding.empty())
      return util::make_error("unsupported protobuf contentEncoding \"" + util::to_valid_utf8(env.content_encoding) + "\"");
    const schema::Message* m = schema::registry().kind(env.api_version, env.kind);
    if (!m)
      return util::make_error("protobuf decoding of kind " + util::to_valid_utf8(env.kind) + " in " +
                              util::to_valid_utf8(env.api_version) + " is not supported; send application/json");
    std::string out;
    out.reserve(env.raw.size() * 2 + 64);
    out += "{\"kind\":";
    append_string(out, env.kind);
    out += ",\"apiVersion\":";
    append_string(out, env.api_version);
    bool first = false;
    Renderer(unknown).members(*m, env.raw, out, first, 0);
    out += '}';
    return out;
  } catch (const wire::Error& e) {
    return util::make_error("invalid protobuf body: " + e.message);
  }
}

util::Result<void> render_message(const schema::Message& m, std::string_view bytes, std::string& out,
                                  UnknownFields unknown) {
  return guarded([&]() -> util::Result<void> {
    Renderer(unknown).message(m, bytes, out, 0);
    return {};
  });
}

bool should_render(const schema::Field& f, const Occurrences& occ) {
  if (occ.empty()) return f.emit == Emit::Always || f.emit == Emit::PointerNull;
  if (f.emit != Emit::OmitEmpty) return true;
  if (f.shape != Shape::Single) return true;
  switch (f.kind) {
    case Kind::String:
    case Kind::Bytes: return !occ.chunks.back().empty();
    case Kind::Int32: return static_cast<std::int32_t>(occ.numbers.back()) != 0;
    case Kind::Int64:
    case Kind::Bool: return occ.numbers.back() != 0;
    default: return true;
  }
}

util::Result<void> render_field(const schema::Field& f, const Occurrences& occ, std::string& out,
                                UnknownFields unknown) {
  return guarded([&]() -> util::Result<void> {
    Renderer r(unknown);
    if (occ.empty()) {
      if (f.emit == Emit::PointerNull) out += "null";
      else r.absent_value(f, out, 0);
      return {};
    }
    std::vector<Occ> occs;
    occs.reserve(occ.chunks.size() + occ.numbers.size());
    for (auto c : occ.chunks) occs.push_back({0, c, 0});
    for (auto n : occ.numbers) occs.push_back({0, {}, n});
    r.value(f, occs.data(), occs.data() + occs.size(), out, 0);
    return {};
  });
}

util::Result<std::string> encode_message(const schema::Message& m, std::string_view json, std::size_t* dropped) {
  thread_local dom::parser parser;
  dom::element root;
  if (auto ec = parser.parse(json.data(), json.size()).get(root)) return util::make_error(simdjson::error_message(ec));
  dom::object obj;
  if (root.get_object().get(obj)) return util::make_error("protobuf encoding needs a JSON object");
  return guarded([&]() -> util::Result<std::string> {
    Encoder enc;
    std::string out;
    out.reserve(json.size());
    enc.message(m, &obj, out, 0);
    if (dropped) *dropped = enc.dropped;
    return out;
  });
}

util::Result<std::string> from_json(std::string_view json, std::size_t* dropped) {
  thread_local dom::parser parser;
  dom::element root;
  if (auto ec = parser.parse(json.data(), json.size()).get(root)) return util::make_error(simdjson::error_message(ec));
  dom::object obj;
  if (root.get_object().get(obj)) return util::make_error("protobuf encoding needs a JSON object");
  std::string_view kind, api_version;
  if (obj["kind"].get(kind) || obj["apiVersion"].get(api_version))
    return util::make_error("protobuf encoding needs the object's kind and apiVersion");
  const schema::Message* m = schema::registry().kind(api_version, kind);
  if (!m)
    return util::make_error("protobuf encoding of kind " + std::string(kind) + " in " + std::string(api_version) +
                            " is not supported");
  return guarded([&]() -> util::Result<std::string> {
    Encoder enc;
    std::string raw;
    raw.reserve(json.size());
    enc.message(*m, &obj, raw, 0);
    if (dropped) *dropped = enc.dropped;
    std::string out;
    out.reserve(envelope_size(api_version, kind, raw.size()));
    put_envelope(out, api_version, kind, raw);
    return out;
  });
}

}  // namespace ksched::api::protobuf
