#include "apiserver/storage/continue_token.h"

#include <boost/json.hpp>
#include <charconv>
#include <fmt/format.h>

#include "util/base64.h"

namespace ksched::apiserver {

namespace json = boost::json;

namespace {

constexpr std::string_view kVersion = "meta.k8s.io/v1";
// "continue key is not valid: <detail>" (built by append: GCC 12 warns falsely on operator+ here).
util::Error invalid(std::string_view detail) {
  std::string msg = "continue key is not valid: ";
  msg.append(detail);
  return util::make_error(std::move(msg));
}

int b64url_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

// Go's base64.RawURLEncoding.DecodeString: CR and LF are skipped; any other byte outside the
// alphabet, and a last group of a single character, is "illegal base64 data at input byte N".
util::Result<std::string> unb64url(std::string_view in) {
  std::string out;
  unsigned buf = 0;
  int bits = 0, in_group = 0;
  std::size_t group_start = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '\r' || in[i] == '\n') continue;
    const int v = b64url_value(in[i]);
    if (v < 0) return util::make_error("illegal base64 data at input byte " + std::to_string(i));
    if (in_group == 0) group_start = i;
    in_group = (in_group + 1) % 4;
    buf = (buf << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buf >> bits) & 0xff);
    }
  }
  if (in_group == 1) return util::make_error("illegal base64 data at input byte " + std::to_string(group_start));
  return out;
}

std::string_view json_kind(const json::value& v) {
  switch (v.kind()) {
    case json::kind::string: return "string";
    case json::kind::object: return "object";
    case json::kind::array: return "array";
    case json::kind::bool_: return "bool";
    default: return "number";
  }
}

std::string number_text(const json::value& v) {
  if (v.is_int64()) return std::to_string(v.get_int64());
  if (v.is_uint64()) return std::to_string(v.get_uint64());
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v.get_double());
  return std::string(buf, r.ptr);
}

// Go's encoding/json message for a value that does not fit a field of the token.
std::string type_error(const json::value& v, std::string_view field, std::string_view go_type) {
  std::string what(json_kind(v));
  if (what == "number") what += " " + number_text(v);
  return "json: cannot unmarshal " + what + " into Go struct field continueToken." + std::string(field) + " of type " +
         std::string(go_type);
}

// Go's encoding/json messages for the common syntax errors; for the others, the offending byte
// and its offset (Go's texts there depend on its scanner's state).
std::string syntax_error(std::string_view data) {
  std::size_t i = data.find_first_not_of(" \t\r\n");
  if (i == std::string_view::npos) return "unexpected end of JSON input";
  const char c = data[i];
  const bool can_start = c == '{' || c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' ||
                         c == 'f' || c == 'n';
  if (!can_start) return fmt::format("invalid character '{}' looking for beginning of value", c);
  json::stream_parser p;
  json::error_code ec;
  const std::size_t used = p.write_some(data.data(), data.size(), ec);
  if (!ec) p.finish(ec);
  if (used >= data.size()) return "unexpected end of JSON input";
  return fmt::format("invalid character '{}' at offset {}", data[used], used);
}

// Whether "/" + key is what Go's path.Clean returns for it: no empty, "." or ".." element and no
// trailing slash.
bool is_clean_path(std::string_view key) {
  std::string k = key.empty() || key[0] != '/' ? "/" + std::string(key) : std::string(key);
  if (k == "/") return true;
  if (k.back() == '/') return false;
  std::size_t pos = 1;
  while (pos <= k.size()) {
    std::size_t next = k.find('/', pos);
    if (next == std::string::npos) next = k.size();
    std::string_view el(k.data() + pos, next - pos);
    if (el.empty() || el == "." || el == "..") return false;
    pos = next + 1;
  }
  return true;
}

}  // namespace

std::string encode_continue(std::int64_t rv, std::string_view next_key) {
  json::object t{{"v", kVersion}, {"rv", rv}, {"start", std::string(next_key) + std::string(1, '\0')}};
  return util::base64_encode(json::serialize(t), util::Base64::RawUrl);
}

util::Result<ContinueToken> decode_continue(std::string_view token) {
  auto data = unb64url(token);
  if (!data) return invalid(data.error());
  json::error_code ec;
  json::value v = json::parse(*data, ec);
  if (ec) return invalid(syntax_error(*data));
  if (v.is_null()) v = json::object();  // Go leaves the struct as it was
  if (!v.is_object()) {
    std::string detail = "json: cannot unmarshal ";
    detail.append(json_kind(v)).append(" into Go value of type storage.continueToken");
    return invalid(detail);
  }
  std::string version;
  ContinueToken out;
  for (const auto& kv : v.get_object()) {
    const json::value& f = kv.value();
    if (f.is_null()) continue;
    if (kv.key() == "v") {
      if (!f.is_string()) return invalid(type_error(f, "v", "string"));
      version = std::string(f.get_string());
    } else if (kv.key() == "rv") {
      if (!f.is_int64() && !(f.is_uint64() && f.get_uint64() <= static_cast<std::uint64_t>(INT64_MAX))) {
        return invalid(type_error(f, "rv", "int64"));
      }
      out.rv = f.to_number<std::int64_t>();
    } else if (kv.key() == "start") {
      if (!f.is_string()) return invalid(type_error(f, "start", "string"));
      out.start = std::string(f.get_string());
    }
  }
  if (version != kVersion) {
    return invalid("server does not recognize this encoded version " + version);
  }
  if (out.rv == 0) {
    return invalid("incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  }
  if (out.start.empty()) {
    return invalid("encoded start key empty (version meta.k8s.io/v1)");
  }
  if (!is_clean_path(out.start)) return invalid(out.start);
  if (out.start.back() == '\0') out.start.pop_back();
  return out;
}

}  // namespace ksched::apiserver
