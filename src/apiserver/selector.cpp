#include "apiserver/selector.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace ksched::apiserver {

const std::string* find_pair(const Pairs& p, std::string_view key) {
  auto it = std::lower_bound(p.begin(), p.end(), key, [](const auto& a, std::string_view k) { return a.first < k; });
  if (it != p.end() && it->first == key) return &it->second;
  return nullptr;
}

void sort_pairs(Pairs& p) { std::sort(p.begin(), p.end()); }

static bool parse_int(std::string_view s, long long& out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool LabelRequirement::matches(const Pairs& labels) const {
  const std::string* v = find_pair(labels, key);
  switch (op) {
    case Op::Eq: return v && *v == values[0];
    case Op::Ne: return !v || *v != values[0];
    case Op::In: return v && std::find(values.begin(), values.end(), *v) != values.end();
    case Op::NotIn: return !v || std::find(values.begin(), values.end(), *v) == values.end();
    case Op::Exists: return v != nullptr;
    case Op::NotExists: return v == nullptr;
    case Op::Gt:
    case Op::Lt: {
      long long have = 0, want = 0;
      if (!v || !parse_int(*v, have) || !parse_int(values[0], want)) return false;
      return op == Op::Gt ? have > want : have < want;
    }
  }
  return false;
}

namespace {

// Tokenizer following the upstream label-selector lexer: identifiers, operators, parens, commas.
enum class Tok { Ident, Comma, Open, Close, Eq, DEq, Ne, Gt, Lt, Bang, In, NotIn, End };

struct Lexer {
  std::string_view s;
  size_t i = 0;
  std::string text;
  static bool special(char c) { return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '<' || c == '>'; }
  Tok next() {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i >= s.size()) {
      text.clear();
      return Tok::End;
    }
    char c = s[i];
    auto two = [&](std::string_view t) { return s.substr(i, 2) == t; };
    if (two("==")) { i += 2; text = "=="; return Tok::DEq; }
    if (two("!=")) { i += 2; text = "!="; return Tok::Ne; }
    if (c == '=') { ++i; text = "="; return Tok::Eq; }
    if (c == '!') { ++i; text = "!"; return Tok::Bang; }
    if (c == '(') { ++i; text = "("; return Tok::Open; }
    if (c == ')') { ++i; text = ")"; return Tok::Close; }
    if (c == ',') { ++i; text = ","; return Tok::Comma; }
    if (c == '>') { ++i; text = ">"; return Tok::Gt; }
    if (c == '<') { ++i; text = "<"; return Tok::Lt; }
    size_t b = i;
    while (i < s.size() && !special(s[i]) && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    text = std::string(s.substr(b, i - b));
    if (text == "in") return Tok::In;
    if (text == "notin") return Tok::NotIn;
    return Tok::Ident;
  }
  Tok peek() {
    size_t save = i;
    std::string t = text;
    Tok k = next();
    i = save;
    text = t;
    return k;
  }
};

}  // namespace

util::Result<LabelSelector> LabelSelector::parse(std::string_view s) {
  LabelSelector sel;
  Lexer lx{s};
  auto err = [](const std::string& found, const std::string& expected) {
    return util::make_error("unable to parse requirement: found '" + found + "', expected: " + expected);
  };
  if (lx.peek() == Tok::End) return sel;
  while (true) {
    LabelRequirement r;
    Tok t = lx.next();
    if (t == Tok::Bang) {
      if (lx.next() != Tok::Ident) return err(lx.text, "identifier");
      r.key = lx.text;
      r.op = LabelRequirement::Op::NotExists;
    } else if (t == Tok::Ident) {
      r.key = lx.text;
      Tok op = lx.peek();
      if (op == Tok::Comma || op == Tok::End) {
        r.op = LabelRequirement::Op::Exists;
      } else {
        lx.next();
        if (op == Tok::Eq || op == Tok::DEq || op == Tok::Ne || op == Tok::Gt || op == Tok::Lt) {
          r.op = op == Tok::Ne ? LabelRequirement::Op::Ne
                 : op == Tok::Gt ? LabelRequirement::Op::Gt
                 : op == Tok::Lt ? LabelRequirement::Op::Lt
                                 : LabelRequirement::Op::Eq;
          Tok v = lx.peek();
          if (v == Tok::Ident || v == Tok::In || v == Tok::NotIn) {
            lx.next();
            r.values.push_back(lx.text);
          } else if (v == Tok::Comma || v == Tok::End) {
            r.values.push_back("");  // "k=" selects an empty value
          } else {
            lx.next();
            return err(lx.text, "identifier");
          }
          if (r.op == LabelRequirement::Op::Gt || r.op == LabelRequirement::Op::Lt) {
            long long n;
            if (!parse_int(r.values[0], n))
              return util::make_error("unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer");
          }
        } else if (op == Tok::In || op == Tok::NotIn) {
          r.op = op == Tok::In ? LabelRequirement::Op::In : LabelRequirement::Op::NotIn;
          if (lx.next() != Tok::Open) return err(lx.text, "'('");
          while (true) {
            Tok v = lx.next();
            if (v == Tok::Close && r.values.empty()) break;
            if (v == Tok::Ident || v == Tok::In || v == Tok::NotIn) {
              r.values.push_back(lx.text);
            } else if (v == Tok::Comma || v == Tok::Close) {
              r.values.push_back("");
              if (v == Tok::Close) break;
              continue;
            } else {
              return err(lx.text, "',' or ')'");
            }
            Tok sep = lx.next();
            if (sep == Tok::Close) break;
            if (sep != Tok::Comma) return err(lx.text, "',' or ')'");
          }
        } else {
          return err(lx.text, "'=', '!=', '==', 'in', notin'");
        }
      }
    } else {
      return err(lx.text, "identifier");
    }
    sel.reqs_.push_back(std::move(r));
    Tok sep = lx.next();
    if (sep == Tok::End) break;
    if (sep != Tok::Comma) return err(lx.text, "','");
  }
  return sel;
}

util::Result<FieldSelector> FieldSelector::parse(std::string_view s) {
  FieldSelector sel;
  if (s.empty()) return sel;
  // Split on unescaped commas.
  std::vector<std::string> terms(1);
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      terms.back() += s[i];
      terms.back() += s[++i];
    } else if (s[i] == ',') {
      terms.emplace_back();
    } else {
      terms.back() += s[i];
    }
  }
  auto unescape = [](std::string_view v) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) {
      if (v[i] == '\\' && i + 1 < v.size()) ++i;
      out += v[i];
    }
    return out;
  };
  for (const auto& t : terms) {
    if (t.empty()) continue;
    FieldRequirement r;
    size_t pos = std::string::npos, oplen = 0;
    for (size_t i = 0; i < t.size(); ++i) {
      if (t[i] == '\\') { ++i; continue; }
      if (t.compare(i, 2, "!=") == 0) { pos = i; oplen = 2; r.not_equals = true; break; }
      if (t.compare(i, 2, "==") == 0) { pos = i; oplen = 2; break; }
      if (t[i] == '=') { pos = i; oplen = 1; break; }
    }
    if (pos == std::string::npos)
      return util::make_error("invalid selector: '" + std::string(s) + "'; can't understand '" + t + "'");
    r.field = unescape(std::string_view(t).substr(0, pos));
    r.value = unescape(std::string_view(t).substr(pos + oplen));
    sel.reqs_.push_back(std::move(r));
  }
  return sel;
}

bool FieldSelector::matches(const Pairs& fields) const {
  for (const auto& r : reqs_) {
    const std::string* v = find_pair(fields, r.field);
    std::string_view have = v ? std::string_view(*v) : std::string_view();
    if ((have == r.value) == r.not_equals) return false;
  }
  return true;
}

}  // namespace ksched::apiserver
