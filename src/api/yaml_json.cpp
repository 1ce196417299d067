#include "api/yaml_json.h"

#include "util/utf8.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <boost/json.hpp>
#include <cerrno>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <unordered_set>

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

namespace {

// Boost.JSON's parser refuses more than 32 levels by default, and everything we store is parsed
// again by it: a deeper YAML document is refused here rather than stored unreadable.
constexpr int kMaxDepth = 32;

struct TooDeep {};
struct ExcessiveAliasing {};

// go-yaml v2's bound on alias expansion (CVE-2019-11253, "billion laughs"), which sigs.k8s.io/yaml
// and so every YAML body upstream reads inherits: each node visited while converting is one
// decode, and a decode inside an alias's expansion is also an alias decode. Once more than 100
// alias decodes and more than 1,000 decodes were made, the share of alias decodes may not exceed
// 99% up to 400,000 decodes, falling linearly to 10% at 4,000,000. A nine-level alias bomb of 400
// bytes is refused after ~10,000 decodes, so the JSON built before it (~1 MB) is all it costs.
class AliasBudget {
 public:
  // Counts one decode; `in_alias`: it is part of an alias's expansion.
  void count(bool in_alias) {
    ++decodes_;
    if (in_alias) ++aliases_;
    if (aliases_ > 100 && decodes_ > 1000 &&
        static_cast<double>(aliases_) / static_cast<double>(decodes_) > allowed_ratio())
      throw ExcessiveAliasing{};
  }
  // Counts the decodes of reaching node `n`. yaml-cpp resolves an alias to the very node its
  // anchor names, so a node met a second time (by its offset in the text) is an alias: go-yaml
  // counts the alias node itself, then the anchored node and everything below it as alias
  // decodes (`in_alias` is set for them). Nodes without a position (built in code) are not aliases.
  void enter(const YAML::Node& n, bool& in_alias) {
    const int pos = n.Mark().pos;
    if (pos >= 0 && !seen_.insert(pos).second) {
      count(in_alias);
      in_alias = true;
    }
    count(in_alias);
  }

 private:
  double allowed_ratio() const {
    constexpr double kLow = 400000, kHigh = 4000000;
    const auto d = static_cast<double>(decodes_);
    if (d <= kLow) return 0.99;
    if (d >= kHigh) return 0.10;
    return 0.99 - 0.89 * ((d - kLow) / (kHigh - kLow));
  }
  std::int64_t decodes_ = 0, aliases_ = 0;
  std::unordered_set<int> seen_;
};

// A mapping key is decoded too (go-yaml counts it); only its text is kept, so a key that is a
// collection (or an alias of one) is walked without building anything.
void count_key(const YAML::Node& n, int depth, AliasBudget& budget, bool in_alias) {
  budget.enter(n, in_alias);
  if (!n.IsMap() && !n.IsSequence()) return;
  if (depth >= kMaxDepth) throw TooDeep{};
  for (const auto& e : n) {
    if (n.IsMap()) {
      count_key(e.first, depth + 1, budget, in_alias);
      count_key(e.second, depth + 1, budget, in_alias);
    } else {
      count_key(e, depth + 1, budget, in_alias);
    }
  }
}

json::value convert(const YAML::Node& n, int depth, AliasBudget& budget, bool in_alias) {
  budget.enter(n, in_alias);
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      if (depth >= kMaxDepth) throw TooDeep{};
      json::object o;
      o.reserve(n.size());
      for (const auto& kv : n) {
        count_key(kv.first, depth + 1, budget, in_alias);
        o[util::to_valid_utf8(kv.first.Scalar())] = convert(kv.second, depth + 1, budget, in_alias);
      }
      return o;
    }
    case YAML::NodeType::Sequence: {
      if (depth >= kMaxDepth) throw TooDeep{};
      json::array a;
      a.reserve(n.size());
      for (const auto& e : n) a.push_back(convert(e, depth + 1, budget, in_alias));
      return a;
    }
    case YAML::NodeType::Scalar: {
      // yaml-cpp can hand back bytes that are not UTF-8 (a NUL-prefixed NEL, \x escapes): they
      // become U+FFFD, so that nothing stored is invalid JSON text.
      std::string text = util::to_valid_utf8(n.Scalar());
      const std::string& tag = n.Tag();
      if (tag == "!" || tag == "tag:yaml.org,2002:str") return json::value(text);  // quoted or !!str
      return plain_scalar(text);
    }
    default:
      return nullptr;
  }
}

}  // namespace

json::value yaml_to_json(const YAML::Node& n) {
  AliasBudget budget;
  try {
    budget.count(false);  // the document node, which go-yaml counts too
    return convert(n, 0, budget, false);
  } catch (const TooDeep&) {
    throw std::runtime_error("yaml: document nested more than 32 levels deep");
  } catch (const ExcessiveAliasing&) {
    throw std::runtime_error("yaml: document contains excessive aliasing");
  }
}

util::Result<json::value> yaml_text_to_json(std::string_view text) {
  // go-yaml refuses text that is not UTF-8; yaml-cpp would pass the bytes through.
  if (!util::is_valid_utf8(text)) return util::make_error("yaml: invalid UTF-8 in the document");
  try {
    return yaml_to_json(YAML::Load(std::string(text)));
  } catch (const YAML::Exception& e) {
    return util::make_error("yaml: line " + std::to_string(e.mark.line + 1) + ", column " +
                            std::to_string(e.mark.column + 1) + ": " + e.msg);
  } catch (const std::exception& e) {
    std::string_view what = e.what();
    return util::make_error(what.starts_with("yaml: ") ? std::string(what) : "yaml: " + std::string(what));
  }
}

namespace {

void write_json(const json::value& v, std::string& out) {
  switch (v.kind()) {
    case json::kind::object: {
      out += '{';
      bool first = true;
      for (const auto& kv : v.get_object()) {
        if (!first) out += ',';
        first = false;
        out += json::serialize(json::string_view(kv.key()));
        out += ':';
        write_json(kv.value(), out);
      }
      out += '}';
      return;
    }
    case json::kind::array: {
      out += '[';
      bool first = true;
      for (const auto& e : v.get_array()) {
        if (!first) out += ',';
        first = false;
        write_json(e, out);
      }
      out += ']';
      return;
    }
    case json::kind::double_:
      out += fmt::format("{}", v.get_double());  // shortest text that reads back the same
      return;
    default:
      out += json::serialize(v);
  }
}

}  // namespace

std::string to_json_text(const json::value& v) {
  std::string out;
  write_json(v, out);
  return out;
}

}  // namespace ksched::api
