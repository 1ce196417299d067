// Generic protobuf wire-format reader driven by the descriptor tables in protobuf_schema.cpp.
// Every read is bounds-checked; malformed input yields an error naming the field path.
#include "apiserver/protobuf.h"

#include <algorithm>
#include <array>
#include <boost/json.hpp>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <map>

#include "apiserver/protobuf_schema.h"
#include "util/base64.h"

namespace ksched::apiserver::protobuf {
namespace {

using schema::Emit;
using schema::Field;
using schema::Kind;
using schema::Message;
using schema::Shape;
namespace json = boost::json;

constexpr std::string_view kMagic{"k8s\0", 4};
constexpr int kMaxDepth = 64;

enum WireType : std::uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// Thrown internally and turned into util::Error at the API boundary; keeps every reader short.
struct DecodeError {
  std::string message;
};

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw DecodeError{(path.empty() ? std::string() : path + ": ") + what};
}

class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool done() const { return pos_ >= data_.size(); }

  std::uint64_t varint(const std::string& path) {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) fail(path, "truncated varint");
      auto byte = static_cast<std::uint8_t>(data_[pos_++]);
      value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return value;
    }
    fail(path, "varint longer than 10 bytes");
  }
  std::string_view bytes(std::size_t n, const std::string& path) {
    if (n > data_.size() - pos_) fail(path, "truncated: field needs " + std::to_string(n) + " bytes, " +
                                                std::to_string(data_.size() - pos_) + " left");
    auto out = data_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  std::string_view length_delimited(const std::string& path) {
    std::uint64_t n = varint(path);
    if (n > data_.size() - pos_) fail(path, "truncated: length " + std::to_string(n) + " exceeds the " +
                                                std::to_string(data_.size() - pos_) + " bytes left");
    return bytes(static_cast<std::size_t>(n), path);
  }
  void skip(std::uint32_t wire, const std::string& path) {
    switch (wire) {
      case kVarint: varint(path); break;
      case kFixed64: bytes(8, path); break;
      case kLengthDelimited: length_delimited(path); break;
      case kFixed32: bytes(4, path); break;
      default: fail(path, "unsupported wire type " + std::to_string(wire));
    }
  }

 private:
  std::string_view data_;
  std::size_t pos_ = 0;
};

struct Tag {
  std::uint32_t number;
  std::uint32_t wire;
};

Tag read_tag(Reader& r, const std::string& path) {
  std::uint64_t key = r.varint(path);
  std::uint64_t number = key >> 3;
  if (number == 0 || number > 0x1fffffff) fail(path, "invalid field number " + std::to_string(number));
  return {static_cast<std::uint32_t>(number), static_cast<std::uint32_t>(key & 7)};
}

const char* wire_name(std::uint32_t w) {
  switch (w) {
    case kVarint: return "varint";
    case kFixed64: return "64-bit";
    case kLengthDelimited: return "length-delimited";
    case kFixed32: return "32-bit";
    default: return "invalid";
  }
}

// ---- scalar rendering -------------------------------------------------------------------

// Go's encoding/json replaces invalid UTF-8 with U+FFFD; do the same so the output stays JSON.
std::string sanitize_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<std::uint8_t>(s[i]);
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    bool valid = len > 0 && i + len <= s.size();
    for (std::size_t k = 1; valid && k < len; ++k) valid = (static_cast<std::uint8_t>(s[i + k]) & 0xc0) == 0x80;
    if (valid && len > 1) {
      std::uint32_t cp = c & (0xff >> (len + 1));
      for (std::size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<std::uint8_t>(s[i + k]) & 0x3f);
      static constexpr std::uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
      valid = cp >= kMin[len] && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
    }
    if (valid) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out.append("\xef\xbf\xbd");
      ++i;
    }
  }
  return out;
}


// Days since 1970-01-01 -> civil date (proleptic Gregorian), valid for the whole int64 day range
// we accept (years 0..9999 are checked by the caller).
void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += (m <= 2);
}

// metav1.Time / MicroTime {1 seconds, 2 nanos}. An empty message is Go's zero time -> null.
json::value render_time(std::string_view data, bool micro, const std::string& path) {
  if (data.empty()) return nullptr;
  std::int64_t seconds = 0;
  std::int64_t nanos = 0;
  Reader r(data);
  while (!r.done()) {
    Tag t = read_tag(r, path);
    if ((t.number == 1 || t.number == 2) && t.wire != kVarint)
      fail(path, std::string("time field ") + std::to_string(t.number) + " has wire type " + wire_name(t.wire));
    if (t.number == 1) seconds = static_cast<std::int64_t>(r.varint(path));
    else if (t.number == 2) nanos = static_cast<std::int32_t>(r.varint(path));
    else fail(path, "unknown field " + std::to_string(t.number) + " in Time");
  }
  // Go normalises nanos outside [0, 1e9) into seconds (time.Unix).
  seconds += nanos / 1000000000;
  nanos %= 1000000000;
  if (nanos < 0) {
    nanos += 1000000000;
    seconds -= 1;
  }
  // Keep the day arithmetic far from overflow; anything outside years 0..9999 is rejected below.
  if (seconds < -100000000000LL || seconds > 300000000000LL) fail(path, "time out of range (year outside [0,9999])");
  std::int64_t days = seconds >= 0 ? seconds / 86400 : -((-seconds + 86399) / 86400);
  std::int64_t secs_of_day = seconds - days * 86400;
  std::int64_t year;
  unsigned month, day;
  civil_from_days(days, year, month, day);
  if (year < 0 || year > 9999) fail(path, "time out of range (year outside [0,9999])");
  char buf[48];
  int n = std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d", static_cast<int>(year), month, day,
                        static_cast<int>(secs_of_day / 3600), static_cast<int>(secs_of_day / 60 % 60),
                        static_cast<int>(secs_of_day % 60));
  if (micro) n += std::snprintf(buf + n, sizeof buf - n, ".%06d", static_cast<int>(nanos / 1000));
  std::snprintf(buf + n, sizeof buf - n, "Z");
  return json::string(buf);
}

json::value render_quantity(std::string_view data, const std::string& path) {
  std::string value;
  Reader r(data);
  while (!r.done()) {
    Tag t = read_tag(r, path);
    if (t.number != 1) fail(path, "unknown field " + std::to_string(t.number) + " in Quantity");
    if (t.wire != kLengthDelimited) fail(path, std::string("Quantity string has wire type ") + wire_name(t.wire));
    value = std::string(r.length_delimited(path));
  }
  // Go cannot unmarshal an empty quantity; neither should we pretend it is zero.
  if (value.empty()) fail(path, "empty quantity");
  for (char c : value)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-'))
      fail(path, "invalid quantity \"" + sanitize_utf8(value) + "\"");
  return json::string(value);
}

json::value render_int_or_string(std::string_view data, const std::string& path) {
  std::int64_t type = 0;
  std::int32_t int_val = 0;
  std::string str_val;
  Reader r(data);
  while (!r.done()) {
    Tag t = read_tag(r, path);
    std::uint32_t want = t.number == 3 ? kLengthDelimited : kVarint;
    if (t.number < 1 || t.number > 3) fail(path, "unknown field " + std::to_string(t.number) + " in IntOrString");
    if (t.wire != want) fail(path, std::string("IntOrString field has wire type ") + wire_name(t.wire));
    if (t.number == 1) type = static_cast<std::int64_t>(r.varint(path));
    else if (t.number == 2) int_val = static_cast<std::int32_t>(r.varint(path));
    else str_val = std::string(r.length_delimited(path));
  }
  if (type == 0) return int_val;
  if (type == 1) return json::string(sanitize_utf8(str_val));
  fail(path, "invalid IntOrString type " + std::to_string(type));
}

json::value render_raw_json(std::string_view data, const std::string& path) {
  std::string_view raw;
  Reader r(data);
  while (!r.done()) {
    Tag t = read_tag(r, path);
    if (t.number != 1 || t.wire != kLengthDelimited) fail(path, "unexpected field " + std::to_string(t.number) + " in raw JSON holder");
    raw = r.length_delimited(path);
  }
  if (raw.empty()) return nullptr;
  boost::system::error_code ec;
  json::value v = json::parse(raw, ec);
  if (ec) fail(path, "embedded raw value is not JSON: " + ec.message());
  return v;
}

// ---- messages ---------------------------------------------------------------------------

json::object render_message(const Message& msg, std::string_view data, const std::string& path, int depth);

// Raw values collected for one field before rendering: scalars keep the last occurrence
// (protobuf semantics), messages concatenate (= merge), repeated fields append.
struct Collected {
  bool present = false;
  std::vector<std::uint64_t> numbers;       // varint scalars, in order
  std::vector<std::string_view> chunks;     // length-delimited payloads, in order
};

std::string field_path(const std::string& path, const Field& f) { return path.empty() ? f.json : path + "." + f.json; }

// Merged payload of a singular message-like field (usually exactly one chunk).
std::string joined(const Collected& c) {
  std::string out;
  for (auto chunk : c.chunks) out.append(chunk);
  return out;
}

json::value render_single(const Field& f, Kind kind, std::string_view chunk, std::uint64_t number,
                          const std::string& path, int depth) {
  switch (kind) {
    case Kind::String: return json::string(sanitize_utf8(chunk));
    case Kind::Bytes: return json::string(util::base64_encode(chunk));
    case Kind::Int32: return static_cast<std::int32_t>(number);
    case Kind::Int64: return static_cast<std::int64_t>(number);
    case Kind::Bool: return number != 0;
    case Kind::Message: return render_message(*f.message, chunk, path, depth + 1);
    case Kind::Time: return render_time(chunk, false, path);
    case Kind::MicroTime: return render_time(chunk, true, path);
    case Kind::Quantity: return render_quantity(chunk, path);
    case Kind::IntOrString: return render_int_or_string(chunk, path);
    case Kind::RawJson: return render_raw_json(chunk, path);
  }
  fail(path, "unhandled kind");
}

bool is_varint_kind(Kind k) { return k == Kind::Int32 || k == Kind::Int64 || k == Kind::Bool; }

// Go zero value of a field that was not on the wire (for Emit::Always).
json::value zero_value(const Field& f, const std::string& path, int depth) {
  if (f.shape != Shape::Single) return nullptr;  // nil slice / map
  switch (f.kind) {
    case Kind::String: return json::string();
    case Kind::Bytes: return nullptr;
    case Kind::Int32:
    case Kind::Int64: return 0;
    case Kind::Bool: return false;
    case Kind::Message: return render_message(*f.message, {}, path, depth + 1);
    case Kind::Time:
    case Kind::MicroTime:
    case Kind::RawJson: return nullptr;
    case Kind::Quantity: return json::string("0");
    case Kind::IntOrString: return 0;
  }
  return nullptr;
}

bool is_zero(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null: return true;
    case json::kind::string: return v.get_string().empty();
    case json::kind::int64: return v.get_int64() == 0;
    case json::kind::uint64: return v.get_uint64() == 0;
    case json::kind::bool_: return !v.get_bool();
    default: return false;
  }
}

// map<string, V> entries are messages {1 key, 2 value}. Go sorts map keys when encoding.
json::value render_map(const Field& f, const Collected& c, const std::string& path, int depth) {
  std::map<std::string, json::value> entries;
  for (auto chunk : c.chunks) {
    std::string key;
    std::string_view value_chunk;
    std::uint64_t value_number = 0;
    bool has_value = false;
    Reader r(chunk);
    while (!r.done()) {
      Tag t = read_tag(r, path);
      if (t.number == 1) {
        if (t.wire != kLengthDelimited) fail(path, std::string("map key has wire type ") + wire_name(t.wire));
        key = sanitize_utf8(r.length_delimited(path));
      } else if (t.number == 2) {
        bool varint = is_varint_kind(f.kind);
        if (t.wire != (varint ? kVarint : kLengthDelimited))
          fail(path, std::string("map value has wire type ") + wire_name(t.wire));
        if (varint) value_number = r.varint(path);
        else value_chunk = r.length_delimited(path);
        has_value = true;
      } else {
        fail(path, "unknown field " + std::to_string(t.number) + " in map entry");
      }
    }
    std::string entry_path = path + "[" + key + "]";
    json::value v;
    if (has_value) v = render_single(f, f.kind, value_chunk, value_number, entry_path, depth);
    else if (f.kind == Kind::Quantity) v = json::string("0");  // Go's zero Quantity
    else if (f.kind == Kind::Bytes) v = json::string();        // gogo decodes a missing value as []byte{}
    else v = render_single(f, f.kind, {}, 0, entry_path, depth);
    entries.insert_or_assign(std::move(key), std::move(v));
  }
  json::object out;
  for (auto& [k, v] : entries) out.emplace(k, std::move(v));
  return out;
}

json::value render_field(const Field& f, const Collected& c, const std::string& path, int depth) {
  if (f.shape == Shape::Map) return render_map(f, c, path, depth);
  if (f.shape == Shape::Repeated) {
    json::array arr;
    if (is_varint_kind(f.kind)) {
      for (auto n : c.numbers) arr.push_back(render_single(f, f.kind, {}, n, path, depth));
    } else {
      std::size_t i = 0;
      for (auto chunk : c.chunks) arr.push_back(render_single(f, f.kind, chunk, 0, path + "[" + std::to_string(i++) + "]", depth));
    }
    return arr;
  }
  if (is_varint_kind(f.kind)) return render_single(f, f.kind, {}, c.numbers.back(), path, depth);
  if (f.kind == Kind::String || f.kind == Kind::Bytes) return render_single(f, f.kind, c.chunks.back(), 0, path, depth);
  std::string merged = joined(c);
  return render_single(f, f.kind, merged, 0, path, depth);
}

json::object render_message(const Message& msg, std::string_view data, const std::string& path, int depth) {
  if (depth > kMaxDepth) fail(path, "nesting deeper than " + std::to_string(kMaxDepth));
  std::vector<Collected> collected(msg.fields.size());
  Reader r(data);
  while (!r.done()) {
    Tag t = read_tag(r, path);
    const Field* f = msg.find(t.number);
    if (!f) {
      fail(path, "unknown field number " + std::to_string(t.number) + " (" + wire_name(t.wire) + ") in " + msg.name);
    }
    auto& c = collected[static_cast<std::size_t>(f - msg.fields.data())];
    std::string fpath = field_path(path, *f);
    bool varint = is_varint_kind(f->kind) && f->shape != Shape::Map;
    if (varint && t.wire == kLengthDelimited && f->shape == Shape::Repeated) {
      // Packed repeated scalars.
      Reader packed(r.length_delimited(fpath));
      while (!packed.done()) c.numbers.push_back(packed.varint(fpath));
    } else if (varint) {
      if (t.wire != kVarint)
        fail(fpath, std::string("wire type ") + wire_name(t.wire) + ", expected varint for " + msg.name + "." + f->json);
      c.numbers.push_back(r.varint(fpath));
    } else {
      if (t.wire != kLengthDelimited)
        fail(fpath, std::string("wire type ") + wire_name(t.wire) + ", expected length-delimited for " + msg.name + "." + f->json);
      c.chunks.push_back(r.length_delimited(fpath));
    }
    c.present = true;
  }

  json::object out;
  for (std::size_t i = 0; i < msg.fields.size(); ++i) {
    const Field& f = msg.fields[i];
    const Collected& c = collected[i];
    std::string fpath = field_path(path, f);
    if (f.emit == Emit::Inline) {
      std::string merged = joined(c);  // empty when absent: Go's zero struct
      json::object inner = render_message(*f.message, merged, path, depth + 1);
      for (auto& kv : inner) out.insert_or_assign(kv.key(), std::move(kv.value()));
      continue;
    }
    if (!c.present) {
      if (f.emit == Emit::Always) out.emplace(f.json, zero_value(f, fpath, depth));
      else if (f.emit == Emit::PointerNull) out.emplace(f.json, nullptr);
      continue;
    }
    json::value v = render_field(f, c, fpath, depth);
    if (f.emit == Emit::OmitEmpty) {
      if (f.shape != Shape::Single) {
        if ((v.is_array() && v.get_array().empty()) || (v.is_object() && v.get_object().empty())) continue;
      } else if (is_zero(v)) {
        continue;
      }
    }
    out.emplace(f.json, std::move(v));
  }
  return out;
}

struct Envelope {
  std::string api_version;
  std::string kind;
  std::string_view raw;
  std::string content_encoding;
  std::string content_type;
};

Envelope read_envelope(std::string_view body) {
  if (body.size() < kMagic.size() || body.substr(0, kMagic.size()) != kMagic)
    fail("", "not a Kubernetes protobuf body: missing the k8s\\0 prefix");
  Envelope env;
  Reader r(body.substr(kMagic.size()));
  while (!r.done()) {
    Tag t = read_tag(r, "envelope");
    if (t.number > 4) fail("envelope", "unknown field number " + std::to_string(t.number) + " in runtime.Unknown");
    if (t.wire != kLengthDelimited)
      fail("envelope", "field " + std::to_string(t.number) + " has wire type " + wire_name(t.wire) + ", expected length-delimited");
    std::string_view v = r.length_delimited("envelope");
    switch (t.number) {
      case 1: {
        Reader tm(v);
        while (!tm.done()) {
          Tag tt = read_tag(tm, "envelope.typeMeta");
          if (tt.number > 2) fail("envelope.typeMeta", "unknown field number " + std::to_string(tt.number));
          if (tt.wire != kLengthDelimited) fail("envelope.typeMeta", std::string("wire type ") + wire_name(tt.wire));
          std::string s(tm.length_delimited("envelope.typeMeta"));
          (tt.number == 1 ? env.api_version : env.kind) = std::move(s);
        }
        break;
      }
      case 2: env.raw = v; break;
      case 3: env.content_encoding = std::string(v); break;
      case 4: env.content_type = std::string(v); break;
    }
  }
  return env;
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

}  // namespace

bool is_protobuf(std::string_view content_type) {
  std::string media = trim(content_type.substr(0, content_type.find(';')));
  if (media.size() != kContentType.size()) return false;
  return std::equal(media.begin(), media.end(), kContentType.begin(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
}

util::Result<std::string> to_json(std::string_view body) {
  try {
    Envelope env = read_envelope(body);
    if (env.kind.empty() || env.api_version.empty())
      return util::make_error("protobuf envelope lacks apiVersion/kind (typeMeta)");
    if (!env.content_encoding.empty())
      return util::make_error("unsupported protobuf contentEncoding \"" + sanitize_utf8(env.content_encoding) + "\"");
    const auto& reg = schema::registry();
    std::string gvk = env.api_version + "/" + env.kind;
    auto it = reg.kinds.find(gvk);
    if (it == reg.kinds.end())
      return util::make_error("protobuf decoding of kind " + sanitize_utf8(env.kind) + " in " +
                              sanitize_utf8(env.api_version) + " is not supported; send application/json");
    json::object out;
    out.emplace("kind", sanitize_utf8(env.kind));
    out.emplace("apiVersion", sanitize_utf8(env.api_version));
    json::object fields = render_message(*it->second, env.raw, "", 0);
    for (auto& kv : fields) out.insert_or_assign(kv.key(), std::move(kv.value()));
    return json::serialize(out);
  } catch (const DecodeError& e) {
    return util::make_error("invalid protobuf body: " + e.message);
  }
}

std::vector<std::string> supported_kinds() {
  std::vector<std::string> out;
  for (const auto& [k, v] : schema::registry().kinds) out.push_back(k);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ksched::apiserver::protobuf
