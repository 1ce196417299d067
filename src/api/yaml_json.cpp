#include "api/yaml_json.h"

#include <yaml-cpp/yaml.h>

#include <boost/json.hpp>
#include <cerrno>
#include <cstdlib>
#include <string>

namespace ksched::api {

namespace json = boost::json;

namespace {

bool one_of(std::string_view s, std::initializer_list<std::string_view> options) {
  for (auto o : options)
    if (s == o) return true;
  return false;
}

// go-yaml v2 takes integers with strconv.ParseInt(s, 0, 64): optional sign, then decimal,
// 0x hex, 0o or leading-0 octal, 0b binary, with '_' separators.
std::optional<json::value> as_integer(std::string_view s) {
  std::string digits;
  digits.reserve(s.size());
  for (char c : s)
    if (c != '_') digits.push_back(c);
  bool neg = false;
  std::size_t i = 0;
  if (i < digits.size() && (digits[i] == '+' || digits[i] == '-')) neg = digits[i++] == '-';
  int base = 10;
  if (i + 1 < digits.size() && digits[i] == '0') {
    char p = digits[i + 1];
    if (p == 'x' || p == 'X') base = 16, i += 2;
    else if (p == 'b' || p == 'B') base = 2, i += 2;
    else if (p == 'o' || p == 'O') base = 8, i += 2;
    else base = 8, i += 1;
  }
  if (i >= digits.size()) return std::nullopt;
  unsigned __int128 v = 0;
  for (; i < digits.size(); ++i) {
    char c = digits[i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;
    if (d >= base) return std::nullopt;
    v = v * base + d;
    if (v > (static_cast<unsigned __int128>(1) << 64)) return std::nullopt;
  }
  if (neg) {
    if (v > (static_cast<unsigned __int128>(1) << 63)) return std::nullopt;
    return json::value(static_cast<std::int64_t>(-static_cast<__int128>(v)));
  }
  if (v <= static_cast<unsigned __int128>(INT64_MAX)) return json::value(static_cast<std::int64_t>(v));
  if (v <= static_cast<unsigned __int128>(UINT64_MAX)) return json::value(static_cast<std::uint64_t>(v));
  return std::nullopt;
}

// YAML 1.1 floats as go-yaml v2 recognises them: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool is_yaml_float(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  auto digits = [&] {
    std::size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - start;
  };
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0) return false;
  } else {
    if (digits() == 0) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

json::value plain_scalar(const std::string& s) {
  if (one_of(s, {"", "~", "null", "Null", "NULL"})) return nullptr;
  if (one_of(s, {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})) return true;
  if (one_of(s, {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"})) return false;
  char c = s[0];
  if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.') {
    if (auto i = as_integer(s)) return *i;
    if (is_yaml_float(s)) {
      errno = 0;
      double d = std::strtod(s.c_str(), nullptr);
      if (errno == 0) return d;
    }
  }
  // .inf and .nan have no JSON form; they stay text, as do timestamps and everything else.
  return json::value(s);
}

}  // namespace

json::value yaml_to_json(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      json::object o;
      o.reserve(n.size());
      for (const auto& kv : n) o[kv.first.Scalar()] = yaml_to_json(kv.second);
      return o;
    }
    case YAML::NodeType::Sequence: {
      json::array a;
      a.reserve(n.size());
      for (const auto& e : n) a.push_back(yaml_to_json(e));
      return a;
    }
    case YAML::NodeType::Scalar: {
      const std::string& tag = n.Tag();
      if (tag == "!" || tag == "tag:yaml.org,2002:str") return json::value(n.Scalar());  // quoted or !!str
      return plain_scalar(n.Scalar());
    }
    default:
      return nullptr;
  }
}

util::Result<json::value> yaml_text_to_json(std::string_view text) {
  try {
    return yaml_to_json(YAML::Load(std::string(text)));
  } catch (const YAML::Exception& e) {
    return util::make_error("yaml: line " + std::to_string(e.mark.line + 1) + ", column " +
                            std::to_string(e.mark.column + 1) + ": " + e.msg);
  } catch (const std::exception& e) {
    return util::make_error(std::string("yaml: ") + e.what());
  }
}

}  // namespace ksched::api
