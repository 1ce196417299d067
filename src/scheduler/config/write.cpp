#include "scheduler/config/write.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <charconv>
#include <cstdio>

#include "api/codec.h"
#include "api/yaml_json.h"
#include "util/base64.h"
#include "util/go_format.h"

namespace ksched::scheduler::config {

namespace {

namespace json = boost::json;

// ---------------------------------------------------------------- YAML emitter (go-yaml v2 layout)

// True when a plain scalar `s` would resolve to something other than a string in YAML 1.1
// (go-yaml v2 then writes it double-quoted).
bool resolves_to_non_string(const std::string& s) {
  static const char* const words[] = {"",      "~",     "null",  "Null", "NULL", "y",    "Y",    "yes",  "Yes",
                                      "YES",   "n",     "N",     "no",   "No",   "NO",   "true", "True", "TRUE",
                                      "false", "False", "FALSE", "on",   "On",   "ON",   "off",  "Off",  "OFF",
                                      ".inf",  ".Inf",  ".INF",  "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf",
                                      "-.INF", ".nan",  ".NaN",  ".NAN"};
  for (const char* w : words) {
    if (s == w) return true;
  }
  std::string t;
  for (char ch : s) {
    if (ch != '_') t += ch;
  }
  std::size_t i = 0;
  if (!t.empty() && (t[0] == '+' || t[0] == '-')) i = 1;
  std::string_view body = std::string_view(t).substr(i);
  if (body.empty()) return false;
  auto all = [&](std::string_view v, auto pred) {
    return !v.empty() && std::all_of(v.begin(), v.end(), [&](char c) { return pred(static_cast<unsigned char>(c)); });
  };
  auto is_digit = [](unsigned char c) { return std::isdigit(c) != 0; };
  if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
    return all(body.substr(2), [](unsigned char c) { return std::isxdigit(c) != 0; });
  }
  if (body.size() > 2 && body[0] == '0' && (body[1] == 'b' || body[1] == 'o')) {
    return all(body.substr(2), is_digit);
  }
  // Integers and floats: digits, optional fraction, optional exponent; also ".5".
  std::size_t j = 0;
  std::size_t int_digits = 0;
  while (j < body.size() && is_digit(static_cast<unsigned char>(body[j]))) ++j, ++int_digits;
  std::size_t frac_digits = 0;
  if (j < body.size() && body[j] == '.') {
    ++j;
    while (j < body.size() && is_digit(static_cast<unsigned char>(body[j]))) ++j, ++frac_digits;
  }
  if (int_digits == 0 && frac_digits == 0) return false;
  if (j < body.size() && (body[j] == 'e' || body[j] == 'E')) {
    ++j;
    if (j < body.size() && (body[j] == '+' || body[j] == '-')) ++j;
    std::size_t exp_digits = 0;
    while (j < body.size() && is_digit(static_cast<unsigned char>(body[j]))) ++j, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  if (j == body.size()) return true;
  // Sexagesimal ("1:20") is a float in YAML 1.1.
  if (int_digits > 0 && body[j] == ':') {
    return std::all_of(body.begin() + static_cast<std::ptrdiff_t>(j), body.end(),
                       [](char c) { return c == ':' || c == '.' || std::isdigit(static_cast<unsigned char>(c)); });
  }
  return false;
}

// libyaml's analysis of whether a scalar can be written plain in block context.
bool plain_allowed(const std::string& s) {
  if (s.empty()) return false;
  if (s.rfind("---", 0) == 0 || s.rfind("...", 0) == 0) return false;
  if (s.front() == ' ' || s.back() == ' ') return false;
  static const std::string start_indicators = ",[]{}#&*!|>'\"%@`";
  if (start_indicators.find(s[0]) != std::string::npos) return false;
  if ((s[0] == '-' || s[0] == '?' || s[0] == ':') && (s.size() == 1 || s[1] == ' ')) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    unsigned char ch = static_cast<unsigned char>(s[i]);
    if (ch < 0x20 || ch == 0x7f) return false;
    if (s[i] == ':' && (i + 1 == s.size() || s[i + 1] == ' ')) return false;
    if (s[i] == '#' && i > 0 && s[i - 1] == ' ') return false;
  }
  return true;
}

bool has_special_chars(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    unsigned char ch = static_cast<unsigned char>(c);
    return ch < 0x20 || ch == 0x7f;
  });
}

std::string double_quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char ch : s) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (ch < 0x20 || ch == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02X", ch);
          out += buf;
        } else {
          out += static_cast<char>(ch);
        }
    }
  }
  return out + "\"";
}

std::string single_quote(const std::string& s) {
  std::string out = "'";
  for (char ch : s) {
    if (ch == '\'') out += "''";
    else out += ch;
  }
  return out + "'";
}

// go-yaml v2's choice: double quotes for strings that look like other types (and for control
// characters), plain when libyaml allows it, single quotes otherwise.
std::string string_scalar(const std::string& s) {
  if (resolves_to_non_string(s) || has_special_chars(s)) return double_quote(s);
  if (plain_allowed(s)) return s;
  return single_quote(s);
}

// A scalar as go-yaml v2 writes it.
std::string scalar_text(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null: return "null";
    case json::kind::bool_: return v.get_bool() ? "true" : "false";
    case json::kind::int64: return std::to_string(v.get_int64());
    case json::kind::uint64: return std::to_string(v.get_uint64());
    case json::kind::double_: return fmt::format("{}", v.get_double());
    case json::kind::string: return string_scalar(std::string(v.get_string()));
    default: return "";
  }
}

bool is_collection(const json::value& v) { return v.is_object() || v.is_array(); }
bool is_empty_collection(const json::value& v) {
  return (v.is_object() && v.get_object().empty()) || (v.is_array() && v.get_array().empty());
}

void emit(const json::value& v, int indent, bool inline_first, std::string& out);

// Writes the value after "key:" or "- ".
void emit_after_key(const json::value& v, int indent, std::string& out, bool in_seq_item) {
  if (is_empty_collection(v)) {
    out += v.is_object() ? " {}\n" : " []\n";
  } else if (v.is_object()) {
    out += "\n";
    emit(v, indent + 2, false, out);
  } else if (v.is_array()) {
    out += "\n";
    // go-yaml v2 does not indent a sequence under its mapping key.
    emit(v, in_seq_item ? indent + 2 : indent, false, out);
  } else {
    out += " " + scalar_text(v) + "\n";
  }
}

void emit(const json::value& v, int indent, bool inline_first, std::string& out) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  bool first = true;
  if (v.is_object()) {
    for (const auto& kv : v.get_object()) {
      if (!(first && inline_first)) out += pad;
      first = false;
      out += string_scalar(std::string(kv.key())) + ":";
      emit_after_key(kv.value(), indent, out, false);
    }
  } else if (v.is_array()) {
    for (const auto& item : v.get_array()) {
      if (!(first && inline_first)) out += pad;
      first = false;
      out += "-";
      if (is_collection(item) && !is_empty_collection(item)) {
        out += " ";
        emit(item, indent + 2, true, out);
      } else {
        emit_after_key(item, indent, out, true);
      }
    }
  } else {
    out += pad + scalar_text(v) + "\n";
  }
}

// ---------------------------------------------------------------- encoding by description

template <class T>
json::value encode_value(const T& v, std::uint8_t flags);

// Go's omitempty.
template <class T>
bool is_empty(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return v.empty();
  } else if constexpr (std::is_same_v<T, bool>) {
    return !v;
  } else if constexpr (std::is_arithmetic_v<T>) {
    return v == T{};
  } else if constexpr (std::is_same_v<T, Duration>) {
    return v == Duration::zero();
  } else if constexpr (is_optional<T>::value) {
    return !v.has_value();
  } else if constexpr (is_vector<T>::value) {
    return v.empty();
  } else if constexpr (std::is_same_v<T, PluginSet>) {
    // Only the placement points are marked omitempty: left out while unused, so the written
    // configuration stays v1.35's unless they are configured (Go would write "{}").
    return v.enabled.empty() && v.disabled.empty();
  } else if constexpr (std::is_same_v<T, PluginArgs>) {
    const auto* u = std::get_if<UnknownArgs>(&v);
    return std::holds_alternative<std::monostate>(v) || (u && u->json.empty());
  } else {
    return false;  // a struct is never empty for encoding/json
  }
}

template <class T>
json::object encode_struct(const T& v) {
  json::object out;
  if constexpr (Kind<T>) {
    out["apiVersion"] = kAPIVersion;
    out["kind"] = T::kKind;
  }
  api::apply_fields(
      [&](const auto&... f) {
        (
            [&] {
              const auto& member = v.*(f.member);
              if ((f.flags & kOmitEmpty) && is_empty(member)) return;
              out[f.name] = encode_value(member, f.flags);
            }(),
            ...);
      },
      describe(type_tag<T>{}));
  return out;
}

json::value parse_json(std::string_view text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec) return json::value(std::string(text));  // not JSON we produced; keep the text visible
  return v;
}

template <class T>
json::value encode_value(const T& v, std::uint8_t flags) {
  if constexpr (std::is_same_v<T, std::string>) {
    if (flags & kBase64) return json::value(util::base64_encode(v));
    return json::value(v);
  } else if constexpr (std::is_same_v<T, bool> || std::is_integral_v<T>) {
    return json::value(v);
  } else if constexpr (std::is_same_v<T, float>) {
    // The shortest text that reads back as the same float32, as Go prints it.
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    (void)ec;
    return json::value(std::strtod(std::string(buf, end).c_str(), nullptr));
  } else if constexpr (std::is_same_v<T, Duration>) {
    return json::value(util::go_duration(v));
  } else if constexpr (is_optional<T>::value) {
    return v ? encode_value(*v, flags) : encode_value(typename T::value_type{}, flags);
  } else if constexpr (is_vector<T>::value) {
    json::array out;
    for (const auto& e : v) {
      if constexpr (std::is_same_v<typename T::value_type, Plugin>) {
        if (flags & kNamesOnly) {
          out.push_back(json::object{{"name", e.name}});
          continue;
        }
      }
      out.push_back(encode_value(e, kAlways));
    }
    return out;
  } else if constexpr (std::is_same_v<T, PluginArgs>) {
    return std::visit(
        [](const auto& a) -> json::value {
          using A = std::decay_t<decltype(a)>;
          if constexpr (std::is_same_v<A, std::monostate>) {
            return nullptr;
          } else if constexpr (std::is_same_v<A, UnknownArgs>) {
            return a.json.empty() ? json::value(nullptr) : parse_json(a.json);
          } else {
            return encode_struct(a);
          }
        },
        v);
  } else if constexpr (ApiType<T>) {
    return parse_json(api::encode(v));
  } else {
    return encode_struct(v);
  }
}

// Keys in order, as sigs.k8s.io/yaml writes them (JSON -> map -> YAML); /configz too.
json::value sorted(json::value v) {
  if (v.is_array()) {
    for (auto& e : v.get_array()) e = sorted(std::move(e));
  } else if (v.is_object()) {
    json::object& in = v.get_object();
    std::vector<json::key_value_pair*> members;
    members.reserve(in.size());
    for (auto& kv : in) members.push_back(&kv);
    std::sort(members.begin(), members.end(), [](const auto* a, const auto* b) { return a->key() < b->key(); });
    json::object out;
    out.reserve(members.size());
    for (auto* kv : members) out.emplace(kv->key(), sorted(std::move(kv->value())));
    return out;
  }
  return v;
}

}  // namespace

std::string write_args(const std::string& /*plugin*/, const PluginArgs& args) {
  json::value v = encode_value(args, kAlways);
  if (v.is_null()) return "";
  std::string out;
  emit(sorted(std::move(v)), 0, false, out);
  return out;
}

std::string write_config(const KubeSchedulerConfiguration& cfg) {
  std::string out;
  emit(sorted(encode_struct(cfg)), 0, false, out);
  return out;
}

std::string write_config_json(const KubeSchedulerConfiguration& cfg) {
  return api::to_json_text(sorted(encode_struct(cfg)));
}

}  // namespace ksched::scheduler::config
