// Label selector parser, matcher and validation following k8s.io/apimachinery/pkg/labels.
// Error texts follow upstream's (field.Error formatting included) so users see the same messages
// kubectl shows.
#include "api/labels.h"

#include <algorithm>
#include <charconv>

#include "util/go_format.h"

namespace ksched::labels {

using util::go_quote;
namespace {

// ---------------------------------------------------------------- validation helpers
constexpr std::string_view kQualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kQualifiedNameMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character";
constexpr std::string_view kLabelValueMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character";
constexpr std::string_view kDns1123SubdomainMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character";
constexpr std::string_view kDns1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

// Upstream's RegexError: message, examples, then the regex.
std::string regex_error(std::string_view msg, std::string_view fmt, std::initializer_list<std::string_view> examples) {
  std::string out(msg);
  if (examples.size() == 0) {
    out += " (regex used for validation is '";
  } else {
    out += " (e.g. ";
    bool first = true;
    for (auto e : examples) {
      if (!first) out += " or ";
      first = false;
      out += "'";
      out += e;
      out += "', ";
    }
    out += "regex used for validation is '";
  }
  out += fmt;
  out += "')";
  return out;
}

std::string max_len_error(int n) { return "must be no more than " + std::to_string(n) + " characters"; }

bool is_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool matches_qualified_name(std::string_view s) {
  if (s.empty() || !is_alnum(s.front()) || !is_alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return is_alnum(c) || c == '-' || c == '_' || c == '.'; });
}

bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

bool matches_dns1123_subdomain(std::string_view s) {
  if (s.empty()) return false;
  std::size_t start = 0;
  while (true) {
    auto dot = s.find('.', start);
    auto label = s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (label.empty() || !is_lower_alnum(label.front()) || !is_lower_alnum(label.back())) return false;
    for (char c : label) {
      if (!is_lower_alnum(c) && c != '-') return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

std::vector<std::string> dns1123_subdomain_errors(std::string_view s) {
  std::vector<std::string> errs;
  if (s.size() > 253) errs.push_back(max_len_error(253));
  if (!matches_dns1123_subdomain(s)) errs.push_back(regex_error(kDns1123SubdomainMsg, kDns1123SubdomainFmt, {"example.com"}));
  return errs;
}

std::string join(const std::vector<std::string>& v, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) out += sep;
    out += v[i];
  }
  return out;
}

// Go's %q for the ASCII strings we see; non-printables as \xNN.

// Go's %#v of a []string.
std::string go_string_slice(const std::vector<std::string>& v) {
  std::string out = "[]string{";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) out += ", ";
    out += go_quote(v[i]);
  }
  out += "}";
  return out;
}

// field.Invalid(path, value, detail).Error(); a nil path prints as "<nil>" upstream.
std::string invalid(std::string_view path, std::string_view rendered_value, std::string_view detail) {
  std::string out(path);
  out += ": Invalid value: ";
  out += rendered_value;
  if (!detail.empty()) {
    out += ": ";
    out += detail;
  }
  return out;
}

// field.ErrorList.ToAggregate().Error(): one message as is, several as "[a, b]" (deduplicated).
std::string aggregate(std::vector<std::string> errs) {
  std::vector<std::string> uniq;
  for (auto& e : errs) {
    if (std::find(uniq.begin(), uniq.end(), e) == uniq.end()) uniq.push_back(std::move(e));
  }
  if (uniq.size() == 1) return uniq[0];
  return "[" + join(uniq, ", ") + "]";
}

bool parse_int64(std::string_view s, std::int64_t& out) {
  // strconv.ParseInt(s, 10, 64): optional sign, decimal digits, no overflow.
  if (s.empty()) return false;
  std::string_view digits = s;
  if (digits.front() == '+' || digits.front() == '-') digits.remove_prefix(1);
  if (digits.empty()) return false;
  std::string tmp(s.front() == '+' ? s.substr(1) : s);
  auto [p, ec] = std::from_chars(tmp.data(), tmp.data() + tmp.size(), out);
  return ec == std::errc() && p == tmp.data() + tmp.size();
}

// ---------------------------------------------------------------- requirement construction
// Upstream NewRequirement: validates key, operator arity and values; returns the aggregate error.
util::Result<Requirement> new_requirement(std::string key, Operator op, std::vector<std::string> vals) {
  std::vector<std::string> errs;
  auto key_errs = validate_label_key(key);
  if (!key_errs.empty()) errs.push_back(invalid("key", go_quote(key), join(key_errs, "; ")));
  switch (op) {
    case Operator::In:
    case Operator::NotIn:
      if (vals.empty())
        errs.push_back(invalid("values", go_string_slice(vals), "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case Operator::Equals:
    case Operator::DoubleEquals:
    case Operator::NotEquals:
      if (vals.size() != 1)
        errs.push_back(invalid("values", go_string_slice(vals), "exact-match compatibility requires one single value"));
      break;
    case Operator::Exists:
    case Operator::DoesNotExist:
      if (!vals.empty())
        errs.push_back(
            invalid("values", go_string_slice(vals), "values set must be empty for exists and does not exist"));
      break;
    case Operator::GreaterThan:
    case Operator::LessThan:
      if (vals.size() != 1)
        errs.push_back(
            invalid("values", go_string_slice(vals), "for 'Gt', 'Lt' operators, exactly one value is required"));
      for (std::size_t i = 0; i < vals.size(); ++i) {
        std::int64_t n;
        if (!parse_int64(vals[i], n))
          errs.push_back(invalid("values[" + std::to_string(i) + "]", go_quote(vals[i]),
                                 "for 'Gt', 'Lt' operators, the value must be an integer"));
      }
      break;
  }
  for (std::size_t i = 0; i < vals.size(); ++i) {
    auto verrs = validate_label_value(vals[i]);
    if (!verrs.empty())
      errs.push_back(invalid("values[" + std::to_string(i) + "][" + key + "]", go_quote(vals[i]), join(verrs, "; ")));
  }
  if (!errs.empty()) return util::make_error(aggregate(std::move(errs)));
  return Requirement{std::move(key), op, std::move(vals)};
}

// ---------------------------------------------------------------- lexer
enum class Tok {
  Error,
  End,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar
};

struct Item {
  Tok tok;
  std::string lit;
};

bool is_whitespace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool is_special(char c) {
  return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}

std::optional<Tok> symbol_token(std::string_view s) {
  if (s == ")") return Tok::ClosedPar;
  if (s == ",") return Tok::Comma;
  if (s == "!") return Tok::DoesNotExist;
  if (s == "==") return Tok::DoubleEquals;
  if (s == "=") return Tok::Equals;
  if (s == ">") return Tok::GreaterThan;
  if (s == "<") return Tok::LessThan;
  if (s == "!=") return Tok::NotEquals;
  if (s == "(") return Tok::OpenPar;
  return std::nullopt;
}

std::vector<Item> scan(std::string_view s) {
  std::vector<Item> items;
  std::size_t pos = 0;
  while (true) {
    // Upstream treats a NUL byte as end of input.
    while (pos < s.size() && is_whitespace(s[pos])) ++pos;
    if (pos >= s.size() || s[pos] == '\0') {
      items.push_back({Tok::End, ""});
      return items;
    }
    if (is_special(s[pos])) {
      // Longest run of special symbols that still forms a known token.
      std::string buf;
      std::optional<Item> last;
      while (pos < s.size() && is_special(s[pos])) {
        buf += s[pos];
        if (auto t = symbol_token(buf)) {
          last = Item{*t, buf};
          ++pos;
        } else if (last) {
          break;
        } else {
          ++pos;
        }
      }
      if (!last) {
        items.push_back({Tok::Error, "error expected: keyword found '" + buf + "'"});
      } else {
        items.push_back(std::move(*last));
      }
      continue;
    }
    std::size_t start = pos;
    while (pos < s.size() && s[pos] != '\0' && !is_special(s[pos]) && !is_whitespace(s[pos])) ++pos;
    std::string lit(s.substr(start, pos - start));
    Tok t = Tok::Identifier;
    if (lit == "in") t = Tok::In;
    if (lit == "notin") t = Tok::NotIn;
    items.push_back({t, std::move(lit)});
  }
}

// ---------------------------------------------------------------- parser
class Parser {
 public:
  explicit Parser(std::string_view s) : items_(scan(s)) {}

  util::Result<std::vector<Requirement>> parse() {
    std::vector<Requirement> reqs;
    while (true) {
      auto [tok, lit] = lookahead(true);
      switch (tok) {
        case Tok::Identifier:
        case Tok::DoesNotExist: {
          auto r = parse_requirement();
          if (!r) return util::make_error("unable to parse requirement: " + r.error());
          reqs.push_back(std::move(r).value());
          auto [t, l] = consume(true);
          if (t == Tok::End) return reqs;
          if (t == Tok::Comma) {
            auto [t2, l2] = lookahead(true);
            if (t2 != Tok::Identifier && t2 != Tok::DoesNotExist)
              return util::make_error("found '" + l2 + "', expected: identifier after ','");
            break;
          }
          return util::make_error("found '" + l + "', expected: ',' or 'end of string'");
        }
        case Tok::End:
          return reqs;
        default:
          return util::make_error("found '" + lit + "', expected: !, identifier, or 'end of string'");
      }
    }
  }

 private:
  // In the value context the keywords "in"/"notin" are plain identifiers.
  std::pair<Tok, std::string> lookahead(bool values) const {
    const auto& it = items_[pos_];
    Tok t = it.tok;
    if (values && (t == Tok::In || t == Tok::NotIn)) t = Tok::Identifier;
    return {t, it.lit};
  }
  std::pair<Tok, std::string> consume(bool values) {
    auto r = lookahead(values);
    if (pos_ + 1 < items_.size()) ++pos_;  // End is sticky
    return r;
  }

  util::Result<Requirement> parse_requirement() {
    Operator op = Operator::Equals;
    bool not_exist = false;
    auto [tok, lit] = consume(true);
    if (tok == Tok::DoesNotExist) {
      not_exist = true;
      std::tie(tok, lit) = consume(true);
    }
    if (tok != Tok::Identifier) return util::make_error("found '" + lit + "', expected: identifier");
    auto key_errs = validate_label_key(lit);
    if (!key_errs.empty()) return util::make_error(invalid("<nil>", go_quote(lit), join(key_errs, "; ")));
    std::string key = lit;
    // "!key" is complete by itself; whatever follows is the caller's problem ("!a=b" fails there).
    if (not_exist) return new_requirement(std::move(key), Operator::DoesNotExist, {});
    auto next = lookahead(true).first;
    if (next == Tok::End || next == Tok::Comma) return new_requirement(std::move(key), Operator::Exists, {});
    auto [otok, olit] = consume(false);
    switch (otok) {
      case Tok::In: op = Operator::In; break;
      case Tok::Equals: op = Operator::Equals; break;
      case Tok::DoubleEquals: op = Operator::DoubleEquals; break;
      case Tok::GreaterThan: op = Operator::GreaterThan; break;
      case Tok::LessThan: op = Operator::LessThan; break;
      case Tok::NotIn: op = Operator::NotIn; break;
      case Tok::NotEquals: op = Operator::NotEquals; break;
      default:
        return util::make_error("found '" + olit + "', expected: '=', '!=', '==', 'in', notin'");
    }
    std::vector<std::string> values;
    if (op == Operator::In || op == Operator::NotIn) {
      auto v = parse_values();
      if (!v) return util::make_error(v.error());
      values = std::move(v).value();
    } else {
      auto v = parse_exact_value();
      if (!v) return util::make_error(v.error());
      values = std::move(v).value();
    }
    return new_requirement(std::move(key), op, std::move(values));
  }

  static void insert_sorted(std::vector<std::string>& set, std::string v) {
    auto it = std::lower_bound(set.begin(), set.end(), v);
    if (it == set.end() || *it != v) set.insert(it, std::move(v));
  }

  util::Result<std::vector<std::string>> parse_values() {
    auto [tok, lit] = consume(true);
    if (tok != Tok::OpenPar) return util::make_error("found '" + lit + "' expected: '('");
    std::tie(tok, lit) = lookahead(true);
    switch (tok) {
      case Tok::Identifier:
      case Tok::Comma: {
        auto s = parse_identifiers_list();
        if (!s) return s;
        if (consume(true).first != Tok::ClosedPar) return util::make_error("found '" + lit + "', expected: ')'");
        return s;
      }
      case Tok::ClosedPar:
        consume(true);
        return std::vector<std::string>{""};
      default:
        return util::make_error("found '" + lit + "', expected: ',', ')' or identifier");
    }
  }

  util::Result<std::vector<std::string>> parse_identifiers_list() {
    std::vector<std::string> s;
    while (true) {
      auto [tok, lit] = consume(true);
      switch (tok) {
        case Tok::Identifier: {
          insert_sorted(s, lit);
          auto [t2, l2] = lookahead(true);
          if (t2 == Tok::Comma) continue;
          if (t2 == Tok::ClosedPar) return s;
          return util::make_error("found '" + l2 + "', expected: ',' or ')'");
        }
        case Tok::Comma: {
          if (s.empty()) insert_sorted(s, "");  // "(,"
          auto t2 = lookahead(true).first;
          if (t2 == Tok::ClosedPar) {  // ",)"
            insert_sorted(s, "");
            return s;
          }
          if (t2 == Tok::Comma) {  // ",,"
            consume(true);
            insert_sorted(s, "");
          }
          break;
        }
        default:
          return util::make_error("found '" + lit + "', expected: ',', or identifier");
      }
    }
  }

  util::Result<std::vector<std::string>> parse_exact_value() {
    auto t = lookahead(true).first;
    if (t == Tok::End || t == Tok::Comma) return std::vector<std::string>{""};
    auto [tok, lit] = consume(true);
    if (tok == Tok::Identifier) return std::vector<std::string>{lit};
    return util::make_error("found '" + lit + "', expected: identifier");
  }

  std::vector<Item> items_;
  std::size_t pos_ = 0;
};

bool has_value(const std::vector<std::string>& vals, std::string_view v) {
  return std::find(vals.begin(), vals.end(), v) != vals.end();
}

}  // namespace

// ---------------------------------------------------------------- public API
std::vector<std::string> validate_label_key(std::string_view key) {
  // validation.IsQualifiedName
  std::vector<std::string> errs;
  std::string_view name = key;
  auto slash = key.find('/');
  if (slash != std::string_view::npos) {
    if (key.find('/', slash + 1) != std::string_view::npos) {
      errs.push_back("a qualified name " +
                     regex_error(kQualifiedNameMsg, kQualifiedNameFmt, {"MyName", "my.name", "123-abc"}) +
                     " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
      return errs;
    }
    auto prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    if (prefix.empty()) {
      errs.push_back("prefix part must be non-empty");
    } else {
      for (auto& m : dns1123_subdomain_errors(prefix)) errs.push_back("prefix part " + m);
    }
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else if (name.size() > 63) {
    errs.push_back("name part " + max_len_error(63));
  }
  if (!matches_qualified_name(name)) {
    errs.push_back("name part " + regex_error(kQualifiedNameMsg, kQualifiedNameFmt, {"MyName", "my.name", "123-abc"}));
  }
  return errs;
}

std::vector<std::string> validate_label_value(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 63) errs.push_back(max_len_error(63));
  if (!value.empty() && !matches_qualified_name(value)) {
    errs.push_back(regex_error(kLabelValueMsg, std::string("(") + std::string(kQualifiedNameFmt) + ")?",
                               {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

bool Requirement::matches(const api::StringMap& labels) const {
  const std::string* v = labels.find(key);
  switch (op) {
    case Operator::In:
    case Operator::Equals:
    case Operator::DoubleEquals:
      return v && has_value(values, *v);
    case Operator::NotIn:
    case Operator::NotEquals:
      return !v || !has_value(values, *v);
    case Operator::Exists:
      return v != nullptr;
    case Operator::DoesNotExist:
      return v == nullptr;
    case Operator::GreaterThan:
    case Operator::LessThan: {
      if (!v || values.size() != 1) return false;
      std::int64_t have, want;
      if (!parse_int64(*v, have) || !parse_int64(values[0], want)) return false;
      return op == Operator::GreaterThan ? have > want : have < want;
    }
  }
  return false;
}

std::string Requirement::to_string() const {
  std::string out;
  if (op == Operator::DoesNotExist) out += '!';
  out += key;
  switch (op) {
    case Operator::Equals: out += "="; break;
    case Operator::DoubleEquals: out += "=="; break;
    case Operator::NotEquals: out += "!="; break;
    case Operator::In: out += " in "; break;
    case Operator::NotIn: out += " notin "; break;
    case Operator::GreaterThan: out += ">"; break;
    case Operator::LessThan: out += "<"; break;
    case Operator::Exists:
    case Operator::DoesNotExist: return out;
  }
  const bool set_op = op == Operator::In || op == Operator::NotIn;
  if (set_op) out += '(';
  std::vector<std::string> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  out += join(sorted, ",");
  if (set_op) out += ')';
  return out;
}

void Selector::add(Requirement r) {
  // Stable insert keeps upstream's order for equal keys (sort.Sort is not stable, but parsers
  // produce them in input order and tests never rely on ties).
  auto it = std::upper_bound(reqs_.begin(), reqs_.end(), r.key,
                             [](const std::string& k, const Requirement& x) { return k < x.key; });
  reqs_.insert(it, std::move(r));
}

std::string Selector::to_string() const {
  if (nothing_) return "<null>";
  std::string out;
  for (std::size_t i = 0; i < reqs_.size(); ++i) {
    if (i) out += ',';
    out += reqs_[i].to_string();
  }
  return out;
}

util::Result<Selector> Selector::parse(std::string_view s) {
  Parser p(s);
  auto reqs = p.parse();
  if (!reqs) return util::make_error(reqs.error());
  Selector sel;
  for (auto& r : *reqs) sel.add(std::move(r));
  return sel;
}

util::Result<Requirement> make_requirement(std::string key, Operator op, std::vector<std::string> values) {
  return new_requirement(std::move(key), op, std::move(values));
}

util::Result<Selector> from_label_selector(const api::LabelSelector* ls) {
  if (ls == nullptr) return Selector::nothing();
  if (ls->matchLabels.empty() && ls->matchExpressions.empty()) return Selector::everything();
  Selector sel;
  for (const auto& [k, v] : ls->matchLabels) {
    auto r = new_requirement(k, Operator::Equals, {v});
    if (!r) return util::make_error(r.error());
    sel.add(std::move(r).value());
  }
  for (const auto& e : ls->matchExpressions) {
    Operator op;
    if (e.operator_ == "In") {
      op = Operator::In;
    } else if (e.operator_ == "NotIn") {
      op = Operator::NotIn;
    } else if (e.operator_ == "Exists") {
      op = Operator::Exists;
    } else if (e.operator_ == "DoesNotExist") {
      op = Operator::DoesNotExist;
    } else {
      return util::make_error(go_quote(e.operator_) + " is not a valid label selector operator");
    }
    auto vals = e.values;
    auto r = new_requirement(e.key, op, vals);
    if (!r) return util::make_error(r.error());
    std::sort(r->values.begin(), r->values.end());
    sel.add(std::move(r).value());
  }
  return sel;
}

Selector from_set(const api::StringMap& set) {
  Selector sel;
  for (const auto& [k, v] : set) sel.add(Requirement{k, Operator::Equals, {v}});
  return sel;
}

}  // namespace ksched::labels
