#include "cel/parser.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "util/utf8.h"

namespace ksched::cel {
namespace {

// Token kinds numbered as CEL.g4 numbers them, so that expected-token sets print in ANTLR's order.
enum class Tok : std::uint8_t {
  Eof = 0,
  Eq = 1, Ne, In, Lt, Le, Ge, Gt, And, Or,
  LBracket, RBracket, LBrace, RBrace, LParen, RParen, Dot, Comma, Minus, Not, Question, Colon,
  Plus, Star, Slash, Percent, True, False, Null, Whitespace, Comment,
  Float, Int, Uint, String, Bytes, Ident, EscIdent,
  Error,  // lexer failure: the text is the offending input
};

constexpr const char* kTokDisplay[] = {
    "<EOF>", "'=='", "'!='", "'in'", "'<'", "'<='", "'>='", "'>'", "'&&'", "'||'",
    "'['", "']'", "'{'", "'}'", "'('", "')'", "'.'", "','", "'-'", "'!'", "'?'", "':'",
    "'+'", "'*'", "'/'", "'%'", "'true'", "'false'", "'null'", "WHITESPACE", "COMMENT",
    "NUM_FLOAT", "NUM_INT", "NUM_UINT", "STRING", "BYTES", "IDENTIFIER", "ESC_IDENTIFIER", "<error>"};

using TokSet = std::uint64_t;
constexpr TokSet bit(Tok t) { return TokSet{1} << static_cast<unsigned>(t); }
template <class... T>
constexpr TokSet set_of(T... t) { return (bit(t) | ...); }

constexpr TokSet kExprStart =
    set_of(Tok::LBracket, Tok::LBrace, Tok::LParen, Tok::Dot, Tok::Minus, Tok::Not, Tok::True, Tok::False,
           Tok::Null, Tok::Float, Tok::Int, Tok::Uint, Tok::String, Tok::Bytes, Tok::Ident);

struct Token {
  Tok kind = Tok::Eof;
  std::uint32_t begin = 0, end = 0;  // bytes
  std::int32_t offset = 0;           // code points
};

struct ParseAbort {};

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// ---------------------------------------------------------------------------------------------
// Lexer: the whole input into tokens up to the first one no rule matches.

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  struct LexError {
    std::int32_t offset;
    std::uint32_t begin, end;
  };

  // All tokens, skipping what no rule matches as ANTLR's lexer does (it resumes after the
  // character it could not take); those failures are returned in `errors`.
  std::vector<Token> run(std::vector<LexError>& errors) {
    std::vector<Token> out;
    for (;;) {
      skip_hidden();
      Token t;
      t.begin = static_cast<std::uint32_t>(i_);
      t.offset = cp_;
      if (i_ >= s_.size()) {
        t.kind = Tok::Eof;
        t.end = t.begin;
        out.push_back(t);
        return out;
      }
      std::size_t start_i = i_;
      std::int32_t start_cp = cp_;
      std::size_t fail_at = 0;
      t.kind = next(fail_at);
      if (t.kind == Tok::Error) {
        // ANTLR's text: from the token start through the character it could not take.
        i_ = start_i;
        cp_ = start_cp;
        std::size_t end = std::min(fail_at + 1, s_.size());
        if (fail_at < s_.size()) {
          std::size_t n = util::utf8_sequence_length(s_, fail_at);
          end = fail_at + (n == 0 ? 1 : n);
        }
        while (i_ < end) advance();
        errors.push_back({t.offset, t.begin, static_cast<std::uint32_t>(end)});
        continue;
      }
      t.end = static_cast<std::uint32_t>(i_);
      out.push_back(t);
    }
  }

 private:
  char at(std::size_t k) const { return k < s_.size() ? s_[k] : '\0'; }

  void advance(std::size_t n = 1) {
    for (std::size_t k = 0; k < n && i_ < s_.size(); ++k) {
      std::size_t len = util::utf8_sequence_length(s_, i_);
      i_ += len == 0 ? 1 : len;
      ++cp_;
    }
  }

  void skip_hidden() {
    for (;;) {
      char c = at(i_);
      if (i_ < s_.size() && (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f')) {
        advance();
      } else if (c == '/' && at(i_ + 1) == '/') {
        while (i_ < s_.size() && s_[i_] != '\n') advance();
      } else {
        return;
      }
    }
  }

  // Validates one escape sequence at s_[i_] == '\\'; on failure sets fail_at.
  bool escape(std::size_t& fail_at) {
    char c = at(i_ + 1);
    auto fail = [&](std::size_t k) {
      fail_at = k;
      return false;
    };
    if (i_ + 1 >= s_.size()) return fail(i_ + 1);
    switch (c) {
      case 'a': case 'b': case 'f': case 'n': case 'r': case 't': case 'v':
      case '"': case '\'': case '\\': case '?': case '`':
        advance(2);
        return true;
      case 'x': case 'X':
        for (std::size_t k = 2; k < 4; ++k)
          if (!is_hex(at(i_ + k))) return fail(i_ + k);
        advance(4);
        return true;
      case 'u':
        for (std::size_t k = 2; k < 6; ++k)
          if (!is_hex(at(i_ + k))) return fail(i_ + k);
        advance(6);
        return true;
      case 'U':
        for (std::size_t k = 2; k < 10; ++k)
          if (!is_hex(at(i_ + k))) return fail(i_ + k);
        advance(10);
        return true;
      case '0': case '1': case '2': case '3':
        for (std::size_t k = 2; k < 4; ++k)
          if (at(i_ + k) < '0' || at(i_ + k) > '7') return fail(i_ + k);
        advance(4);
        return true;
      default:
        return fail(i_ + 1);
    }
  }

  // A string body after its prefix; s_[i_] is the opening quote.
  Tok string_body(bool raw, std::size_t& fail_at) {
    char q = at(i_);
    if (at(i_ + 1) == q && at(i_ + 2) == q) {
      // Triple-quoted if a closing triple follows; otherwise `""` is an empty string.
      std::size_t save_i = i_;
      std::int32_t save_cp = cp_;
      advance(3);
      for (;;) {
        if (i_ >= s_.size()) break;
        if (at(i_) == q && at(i_ + 1) == q && at(i_ + 2) == q) {
          advance(3);
          return Tok::String;
        }
        if (!raw && at(i_) == '\\') {
          std::size_t f = 0;
          if (!escape(f)) {
            fail_at = f;
            return Tok::Error;
          }
          continue;
        }
        advance();
      }
      i_ = save_i;
      cp_ = save_cp;
      advance(2);
      return Tok::String;
    }
    advance();
    for (;;) {
      if (i_ >= s_.size() || at(i_) == '\n' || at(i_) == '\r') {
        fail_at = i_;
        return Tok::Error;
      }
      if (at(i_) == q) {
        advance();
        return Tok::String;
      }
      if (!raw && at(i_) == '\\') {
        std::size_t f = 0;
        if (!escape(f)) {
          fail_at = f;
          return Tok::Error;
        }
        continue;
      }
      advance();
    }
  }

  Tok number(std::size_t& /*fail_at*/) {
    if (at(i_) == '0' && (at(i_ + 1) == 'x') && is_hex(at(i_ + 2))) {
      advance(2);
      while (is_hex(at(i_))) advance();
      if (at(i_) == 'u' || at(i_) == 'U') {
        advance();
        return Tok::Uint;
      }
      return Tok::Int;
    }
    bool is_float = false;
    if (at(i_) == '.') {
      advance();
      while (is_digit(at(i_))) advance();
      is_float = true;
    } else {
      while (is_digit(at(i_))) advance();
      if (at(i_) == '.' && is_digit(at(i_ + 1))) {
        advance();
        while (is_digit(at(i_))) advance();
        is_float = true;
      }
    }
    // EXPONENT: ('e'|'E') ('+'|'-')? DIGIT+
    if (at(i_) == 'e' || at(i_) == 'E') {
      std::size_t k = i_ + 1;
      if (at(k) == '+' || at(k) == '-') ++k;
      if (is_digit(at(k))) {
        advance(k - i_);
        while (is_digit(at(i_))) advance();
        is_float = true;
      }
    }
    if (is_float) return Tok::Float;
    if (at(i_) == 'u' || at(i_) == 'U') {
      advance();
      return Tok::Uint;
    }
    return Tok::Int;
  }

  Tok next(std::size_t& fail_at) {
    char c = at(i_);
    char d = at(i_ + 1);
    auto two = [&](Tok t) {
      advance(2);
      return t;
    };
    auto one = [&](Tok t) {
      advance();
      return t;
    };
    switch (c) {
      case '=':
        if (d == '=') return two(Tok::Eq);
        fail_at = i_ + 1;
        return Tok::Error;
      case '!': return d == '=' ? two(Tok::Ne) : one(Tok::Not);
      case '<': return d == '=' ? two(Tok::Le) : one(Tok::Lt);
      case '>': return d == '=' ? two(Tok::Ge) : one(Tok::Gt);
      case '&':
        if (d == '&') return two(Tok::And);
        fail_at = i_ + 1;
        return Tok::Error;
      case '|':
        if (d == '|') return two(Tok::Or);
        fail_at = i_ + 1;
        return Tok::Error;
      case '[': return one(Tok::LBracket);
      case ']': return one(Tok::RBracket);
      case '{': return one(Tok::LBrace);
      case '}': return one(Tok::RBrace);
      case '(': return one(Tok::LParen);
      case ')': return one(Tok::RParen);
      case ',': return one(Tok::Comma);
      case '-': return one(Tok::Minus);
      case '?': return one(Tok::Question);
      case ':': return one(Tok::Colon);
      case '+': return one(Tok::Plus);
      case '*': return one(Tok::Star);
      case '/': return one(Tok::Slash);
      case '%': return one(Tok::Percent);
      case '.':
        if (is_digit(d)) return number(fail_at);
        return one(Tok::Dot);
      case '"':
      case '\'':
        return string_body(false, fail_at);
      case '`': {
        std::size_t k = i_ + 1;
        auto ok = [](char x) { return is_letter(x) || is_digit(x) || x == '_' || x == '.' || x == '-' || x == '/' || x == ' '; };
        if (!ok(at(k))) {
          fail_at = k;
          return Tok::Error;
        }
        while (ok(at(k))) ++k;
        if (at(k) != '`') {
          fail_at = k;
          return Tok::Error;
        }
        advance(k + 1 - i_);
        return Tok::EscIdent;
      }
      default:
        break;
    }
    if (is_digit(c)) return number(fail_at);
    if (is_letter(c) || c == '_') {
      // String prefixes: r"..", b"..", br"..", Rb is an identifier followed by a string.
      bool raw_prefix = (c == 'r' || c == 'R');
      bool bytes_prefix = (c == 'b' || c == 'B');
      if (raw_prefix && (d == '"' || d == '\'')) {
        advance();
        return string_body(true, fail_at);
      }
      if (bytes_prefix && (d == '"' || d == '\'')) {
        advance();
        Tok t = string_body(false, fail_at);
        return t == Tok::String ? Tok::Bytes : t;
      }
      if (bytes_prefix && (d == 'r' || d == 'R') && (at(i_ + 2) == '"' || at(i_ + 2) == '\'')) {
        advance(2);
        Tok t = string_body(true, fail_at);
        return t == Tok::String ? Tok::Bytes : t;
      }
      std::size_t k = i_;
      while (is_letter(at(k)) || is_digit(at(k)) || at(k) == '_') ++k;
      std::string_view word = s_.substr(i_, k - i_);
      advance(k - i_);
      if (word == "true") return Tok::True;
      if (word == "false") return Tok::False;
      if (word == "null") return Tok::Null;
      if (word == "in") return Tok::In;
      return Tok::Ident;
    }
    fail_at = i_;
    return Tok::Error;
  }

  std::string_view s_;
  std::size_t i_ = 0;
  std::int32_t cp_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Literal decoding (cel-go's unescape and strconv parses).

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool valid_rune(std::uint32_t v) { return v <= 0x10FFFF && !(v >= 0xD800 && v <= 0xDFFF); }

int unhex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The text of a STRING token (without the bytes prefix) to its value; false with a message.
bool unescape(std::string_view token, bool is_bytes, std::string& out, std::string& err) {
  // Newlines are normalized to \n.
  std::string value;
  value.reserve(token.size());
  for (std::size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '\r') {
      value += '\n';
      if (i + 1 < token.size() && token[i + 1] == '\n') ++i;
    } else {
      value += token[i];
    }
  }
  err = "unable to unescape string";
  if (value.size() < 2) return false;
  bool raw = false;
  std::string_view v(value);
  if (v[0] == 'r' || v[0] == 'R') {
    v.remove_prefix(1);
    raw = true;
  }
  if (v.empty() || v.front() != v.back() || (v.front() != '"' && v.front() != '\'')) return false;
  if (v.size() >= 6 && (v.substr(0, 3) == "'''" || v.substr(0, 3) == "\"\"\"")) {
    v = v.substr(3, v.size() - 6);
  } else {
    v = v.substr(1, v.size() - 2);
  }
  if (raw || v.find('\\') == std::string_view::npos) {
    out.assign(v);
    return true;
  }
  out.clear();
  std::size_t i = 0;
  while (i < v.size()) {
    char c = v[i];
    if (c != '\\') {
      out += c;
      ++i;
      continue;
    }
    if (i + 1 >= v.size()) {
      err = "unable to unescape string, found '\\' as last character";
      return false;
    }
    char e = v[i + 1];
    i += 2;
    switch (e) {
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'v': out += '\v'; break;
      case '\\': out += '\\'; break;
      case '\'': out += '\''; break;
      case '"': out += '"'; break;
      case '`': out += '`'; break;
      case '?': out += '?'; break;
      case 'x': case 'X': case 'u': case 'U': {
        std::size_t n = (e == 'x' || e == 'X') ? 2 : e == 'u' ? 4 : 8;
        if (is_bytes && (e == 'u' || e == 'U')) return false;
        if (v.size() - i < n) return false;
        std::uint32_t r = 0;
        for (std::size_t j = 0; j < n; ++j) {
          int h = unhex(v[i + j]);
          if (h < 0) return false;
          r = (r << 4) | static_cast<std::uint32_t>(h);
        }
        i += n;
        if (is_bytes) {
          out += static_cast<char>(r);
        } else {
          if (!valid_rune(r)) {
            err = "invalid unicode code point";
            return false;
          }
          append_utf8(out, r);
        }
        break;
      }
      case '0': case '1': case '2': case '3': {
        if (v.size() - i < 2) {
          err = "unable to unescape octal sequence in string";
          return false;
        }
        std::uint32_t r = static_cast<std::uint32_t>(e - '0');
        for (std::size_t j = 0; j < 2; ++j) {
          char x = v[i + j];
          if (x < '0' || x > '7') {
            err = "unable to unescape octal sequence in string";
            return false;
          }
          r = r * 8 + static_cast<std::uint32_t>(x - '0');
        }
        i += 2;
        if (is_bytes) out += static_cast<char>(r);
        else append_utf8(out, r);
        break;
      }
      default:
        return false;
    }
  }
  return true;
}

// strconv.ParseInt/ParseUint for base 10 or 16 (no prefix), with an optional leading '-'.
bool parse_int(std::string_view s, int base, std::int64_t& out) {
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  unsigned __int128 v = 0;
  for (char c : s) {
    int d = unhex(c);
    if (d < 0 || d >= base) return false;
    v = v * static_cast<unsigned>(base) + static_cast<unsigned>(d);
    if (v > (static_cast<unsigned __int128>(1) << 64)) return false;
  }
  if (neg) {
    if (v > (static_cast<unsigned __int128>(1) << 63)) return false;
    out = static_cast<std::int64_t>(-static_cast<__int128>(v));
  } else {
    if (v > static_cast<unsigned __int128>(INT64_MAX)) return false;
    out = static_cast<std::int64_t>(v);
  }
  return true;
}

bool parse_uint(std::string_view s, int base, std::uint64_t& out) {
  if (s.empty()) return false;
  unsigned __int128 v = 0;
  for (char c : s) {
    int d = unhex(c);
    if (d < 0 || d >= base) return false;
    v = v * static_cast<unsigned>(base) + static_cast<unsigned>(d);
    if (v > UINT64_MAX) return false;
  }
  out = static_cast<std::uint64_t>(v);
  return true;
}

// ---------------------------------------------------------------------------------------------
// Parser

enum Rule { kRuleExpr, kRuleOr, kRuleAnd, kRuleRelation, kRuleCalc, kRuleUnary, kRuleMember, kRulePrimary, kRuleCount };

class Parser {
 public:
  Parser(const Source& src, const ParseOptions& opts) : src_(src), text_(src.text()), opts_(opts) {}

  ParseResult run() {
    ParseResult out;
    if (src_.size() > opts_.expression_size_code_point_limit) {
      out.issues.push_back({kNoLocation, "expression code point size exceeds limit: size: " +
                                             std::to_string(src_.size()) + ", limit " +
                                             std::to_string(opts_.expression_size_code_point_limit)});
      return out;
    }
    std::vector<Lexer::LexError> lex_errors;
    toks_ = Lexer(text_).run(lex_errors);
    try {
      for (const auto& e : lex_errors) {
        syntax_issue(e.offset,
                     "token recognition error at: '" + token_display(text_.substr(e.begin, e.end - e.begin)) + "'");
      }
      int root = parse_expr();
      while (cur().kind != Tok::Eof) {
        syntax_error_expecting(bit(Tok::Eof));
        bump();
      }
      ast_.root = root;
      if (issues_.empty()) check_visit_depth();
    } catch (const ParseAbort&) {
    }
    if (!issues_.empty()) {
      out.issues = std::move(issues_);
      return out;
    }
    out.ast = std::move(ast_);
    return out;
  }

 private:
  // --- tokens
  const Token& cur() const { return toks_[pos_]; }
  const Token& peek(std::size_t k = 1) const {
    std::size_t i = pos_ + k;
    return i < toks_.size() ? toks_[i] : toks_.back();
  }
  std::string_view text_of(const Token& t) const { return text_.substr(t.begin, t.end - t.begin); }
  void bump() {
    if (cur().kind != Tok::Eof) ++pos_;
  }

  // --- errors
  [[noreturn]] void fail(std::int32_t offset, std::string message) {
    issues_.push_back({offset, std::move(message)});
    throw ParseAbort{};
  }

  static std::string token_display(std::string_view text) {
    std::string out;
    for (char c : text) {
      if (c == '\n') out += "\\n";
      else if (c == '\r') out += "\\r";
      else if (c == '\t') out += "\\t";
      else out += c;
    }
    return out;
  }

  std::string current_display() const {
    if (cur().kind == Tok::Eof) return "<EOF>";
    return token_display(text_of(cur()));
  }


  static std::string set_display(TokSet s) {
    int count = 0;
    std::string items;
    for (unsigned t = 0; t < 64; ++t) {
      if (!(s & (TokSet{1} << t))) continue;
      if (count++ > 0) items += ", ";
      items += kTokDisplay[t];
    }
    return count == 1 ? items : "{" + items + "}";
  }

  // Syntax errors, as ANTLR reports them through cel-go: at most 100, then a last one saying so.
  void syntax_issue(std::int32_t offset, const std::string& message) {
    if (++syntax_errors_ > kSyntaxErrorLimit) {
      issues_.push_back({offset, "Syntax error: More than " + std::to_string(kSyntaxErrorLimit) + " syntax errors"});
      throw ParseAbort{};
    }
    issues_.push_back({offset, "Syntax error: " + message});
  }

  // The current token is not one of `expected`. When the token after it is (ANTLR's single-token
  // deletion), the error is "extraneous input", the token is skipped and parsing goes on: the
  // function returns. Otherwise the error is "mismatched input" and parsing stops.
  void syntax_error_expecting(TokSet expected) {
    std::string got = current_display();
    if (cur().kind != Tok::Eof && (bit(peek().kind) & expected)) {
      syntax_issue(cur().offset, "extraneous input '" + got + "' expecting " + set_display(expected));
      bump();
      return;
    }
    syntax_issue(cur().offset, "mismatched input '" + got + "' expecting " + set_display(expected));
    throw ParseAbort{};
  }

  void expect(Tok t) {
    if (cur().kind == t) {
      bump();
      return;
    }
    // ANTLR inserts a missing closer in front of the end of input.
    if (cur().kind == Tok::Eof && (t == Tok::RParen || t == Tok::RBracket || t == Tok::RBrace)) {
      syntax_issue(cur().offset, std::string("missing ") + kTokDisplay[static_cast<int>(t)] + " at '<EOF>'");
      throw ParseAbort{};
    }
    syntax_error_expecting(bit(t));
    bump();  // the expected token, after an extraneous one
  }

  // An error cel-go reports while building the tree: parsing goes on with an error node.
  int report(std::int32_t offset, std::string message) {
    issues_.push_back({offset, std::move(message)});
    Expr e;
    e.offset = offset;
    return add(std::move(e));
  }

  // --- rule depth (ANTLR's parse listener: depth per rule kind)
  struct RuleGuard {
    Parser* p;
    int rule;
    int n = 1;
    RuleGuard(Parser* parser, int r) : p(parser), rule(r) { p->enter(r); }
    ~RuleGuard() { p->depth_[rule] -= n; }
  };
  void enter(int rule) {
    if (++depth_[rule] > opts_.max_recursion_depth) {
      fail(kNoLocation, "expression recursion limit exceeded: " + std::to_string(opts_.max_recursion_depth));
    }
  }

  // --- node factory
  int add(Expr e, int weight = 0) {
    ast_.nodes.push_back(std::move(e));
    weight_.push_back(static_cast<std::uint8_t>(weight));
    return static_cast<int>(ast_.nodes.size()) - 1;
  }
  int new_literal(std::int32_t offset, Literal lit) {
    Expr e;
    e.kind = ExprKind::Literal;
    e.offset = offset;
    e.literal = std::move(lit);
    return add(std::move(e));
  }
  int new_bool(std::int32_t offset, bool b) {
    Literal l;
    l.kind = Literal::Kind::Bool;
    l.b = b;
    return new_literal(offset, l);
  }
  int new_int(std::int32_t offset, std::int64_t i) {
    Literal l;
    l.kind = Literal::Kind::Int;
    l.i = i;
    return new_literal(offset, l);
  }
  int new_ident(std::int32_t offset, std::string name) {
    Expr e;
    e.kind = ExprKind::Ident;
    e.offset = offset;
    e.name = std::move(name);
    return add(std::move(e));
  }
  int new_select(std::int32_t offset, int operand, std::string field, bool test_only) {
    Expr e;
    e.kind = ExprKind::Select;
    e.offset = offset;
    e.operand = operand;
    e.name = std::move(field);
    e.test_only = test_only;
    return add(std::move(e), 1);
  }
  int new_call(std::int32_t offset, std::string fn, std::vector<int> args, int target = -1, int weight = 0) {
    Expr e;
    e.kind = ExprKind::Call;
    e.offset = offset;
    e.name = std::move(fn);
    e.args = std::move(args);
    e.operand = target;
    return add(std::move(e), weight);
  }
  int new_list(std::int32_t offset, std::vector<int> elems, std::vector<int> optionals = {}) {
    Expr e;
    e.kind = ExprKind::List;
    e.offset = offset;
    e.args = std::move(elems);
    e.optional_indices = std::move(optionals);
    return add(std::move(e));
  }
  int new_comprehension(std::int32_t offset, int range, std::string iter_var, std::string accu_var, int init,
                        int cond, int step, int result) {
    Expr e;
    e.kind = ExprKind::Comprehension;
    e.offset = offset;
    e.iter_range = range;
    e.iter_var = std::move(iter_var);
    e.accu_var = std::move(accu_var);
    e.accu_init = init;
    e.loop_condition = cond;
    e.loop_step = step;
    e.result = result;
    return add(std::move(e), 1);
  }

  // --- grammar

  // expr: conditionalOr ('?' conditionalOr ':' expr)?
  int parse_expr() {
    RuleGuard g(this, kRuleExpr);
    int cond = parse_or();
    if (cur().kind != Tok::Question) return cond;
    std::int32_t op = cur().offset;
    bump();
    int t = parse_or();
    expect(Tok::Colon);
    int f = parse_expr();
    return new_call(op, "_?_:_", {cond, t, f}, -1, 1);
  }

  // Balanced tree of a chain of && or || terms, as cel-go's logic manager builds it.
  int balanced(const std::string& fn, const std::vector<int>& terms, const std::vector<std::int32_t>& ops, int lo,
               int hi) {
    int mid = (lo + hi + 1) / 2;
    int left = mid == lo ? terms[static_cast<std::size_t>(mid)] : balanced(fn, terms, ops, lo, mid - 1);
    int right = mid == hi ? terms[static_cast<std::size_t>(mid) + 1] : balanced(fn, terms, ops, mid + 1, hi);
    return new_call(ops[static_cast<std::size_t>(mid)], fn, {left, right});
  }

  int parse_logic(Tok tok, const char* fn, int rule) {
    RuleGuard g(this, rule);
    std::vector<int> terms{rule == kRuleOr ? parse_and() : parse_relation()};
    std::vector<std::int32_t> ops;
    while (cur().kind == tok) {
      ops.push_back(cur().offset);
      bump();
      terms.push_back(rule == kRuleOr ? parse_and() : parse_relation());
    }
    if (ops.empty()) return terms[0];
    return balanced(fn, terms, ops, 0, static_cast<int>(ops.size()) - 1);
  }
  int parse_or() { return parse_logic(Tok::Or, "_||_", kRuleOr); }
  int parse_and() { return parse_logic(Tok::And, "_&&_", kRuleAnd); }

  static const char* relation_fn(Tok t) {
    switch (t) {
      case Tok::Lt: return "_<_";
      case Tok::Le: return "_<=_";
      case Tok::Ge: return "_>=_";
      case Tok::Gt: return "_>_";
      case Tok::Eq: return "_==_";
      case Tok::Ne: return "_!=_";
      case Tok::In: return "@in";
      default: return nullptr;
    }
  }

  // relation: calc | relation op relation  (left-associative, one precedence level)
  int parse_relation() {
    RuleGuard g(this, kRuleRelation);
    int lhs = parse_calc(0);
    while (const char* fn = relation_fn(cur().kind)) {
      std::int32_t op = cur().offset;
      bump();
      int rhs = parse_calc(0);
      lhs = new_call(op, fn, {lhs, rhs}, -1, 1);
    }
    return lhs;
  }

  static int calc_prec(Tok t) {
    switch (t) {
      case Tok::Star: case Tok::Slash: case Tok::Percent: return 2;
      case Tok::Plus: case Tok::Minus: return 1;
      default: return 0;
    }
  }
  static const char* calc_fn(Tok t) {
    switch (t) {
      case Tok::Star: return "_*_";
      case Tok::Slash: return "_/_";
      case Tok::Percent: return "_%_";
      case Tok::Plus: return "_+_";
      case Tok::Minus: return "_-_";
      default: return nullptr;
    }
  }

  // calc: unary | calc ('*'|'/'|'%') calc | calc ('+'|'-') calc  (precedence climbing)
  int parse_calc(int min_prec) {
    RuleGuard g(this, kRuleCalc);
    int lhs = parse_unary();
    for (;;) {
      int prec = calc_prec(cur().kind);
      if (prec == 0 || prec < min_prec) break;
      const char* fn = calc_fn(cur().kind);
      std::int32_t op = cur().offset;
      bump();
      int rhs = parse_calc(prec + 1);
      lhs = new_call(op, fn, {lhs, rhs}, -1, 1);
    }
    return lhs;
  }

  // unary: member | '!'+ member | '-'+ member
  int parse_unary() {
    RuleGuard g(this, kRuleUnary);
    Tok k = cur().kind;
    if (k == Tok::Minus && (peek().kind == Tok::Int || peek().kind == Tok::Float)) {
      return parse_member();  // a signed literal, as ANTLR's first alternative
    }
    if (k == Tok::Not || k == Tok::Minus) {
      std::int32_t first = cur().offset;
      int count = 0;
      while (cur().kind == k) {
        ++count;
        bump();
      }
      int operand = parse_member();
      if (count % 2 == 0) return operand;
      return new_call(first, k == Tok::Not ? "!_" : "-_", {operand});
    }
    return parse_member();
  }

  // Escaped identifiers are not enabled in Kubernetes' environments.
  std::string escape_ident() {
    if (cur().kind == Tok::Ident) {
      std::string s(text_of(cur()));
      bump();
      return s;
    }
    if (cur().kind == Tok::EscIdent) {
      report(cur().offset, "unsupported syntax: '`'");
      bump();
      return "";
    }
    syntax_error_expecting(set_of(Tok::Ident, Tok::EscIdent));
    return escape_ident();
  }

  // member: primary ('.' '?'? ident | '.' IDENT '(' args ')' | '[' '?'? expr ']')*
  int parse_member() {
    RuleGuard g(this, kRuleMember);
    int e = parse_primary();
    for (;;) {
      Tok k = cur().kind;
      if (k == Tok::Dot) {
        std::int32_t dot = cur().offset;
        bump();
        bool opt = false;
        if (cur().kind == Tok::Question) {
          opt = true;
          bump();
        }
        if (!opt && cur().kind == Tok::Ident && peek().kind == Tok::LParen) {
          std::string fn(text_of(cur()));
          bump();
          std::int32_t open = cur().offset;
          bump();
          std::vector<int> args = parse_expr_list(Tok::RParen);
          expect(Tok::RParen);
          e = receiver_call_or_macro(open, fn, e, std::move(args));
          continue;
        }
        std::int32_t id_at = cur().offset;
        if (cur().kind != Tok::Ident && cur().kind != Tok::EscIdent) {
          // ANTLR: "no viable alternative at input '.x'", which cel-go rewrites for the literal
          // keywords.
          Tok t = cur().kind;
          if (t == Tok::True || t == Tok::False || t == Tok::Null) {
            syntax_issue(cur().offset, "mismatched input '" + current_display() + "' expecting IDENTIFIER");
          } else {
            std::string seen = opt ? ".?" : ".";
            if (t != Tok::Eof) seen += token_display(text_of(cur()));
            syntax_issue(cur().offset, "no viable alternative at input '" + seen + "'");
          }
          throw ParseAbort{};
        }
        std::string field = escape_ident();
        if (opt) {
          if (!opts_.optional_syntax) {
            e = report(dot, "unsupported syntax '.?'");
            continue;
          }
          Literal l;
          l.kind = Literal::Kind::String;
          l.s = field;
          int lit = new_literal(id_at, l);
          e = new_call(dot, "_?._", {e, lit}, -1, 1);
        } else {
          e = new_select(dot, e, std::move(field), false);
        }
      } else if (k == Tok::LBracket) {
        std::int32_t open = cur().offset;
        bump();
        bool opt = false;
        bool unsupported_index = false;
        if (cur().kind == Tok::Question) {
          if (!opts_.optional_syntax) unsupported_index = true;
          opt = true;
          bump();
        }
        int index = parse_expr();
        expect(Tok::RBracket);
        if (unsupported_index) {
          e = report(open, "unsupported syntax '[?'");
          continue;
        }
        e = new_call(open, opt ? "_[?_]" : "_[_]", {e, index}, -1, 1);
      } else {
        return e;
      }
    }
  }

  std::vector<int> parse_expr_list(Tok closer) {
    std::vector<int> out;
    if (cur().kind == closer) return out;
    if (!(bit(cur().kind) & kExprStart)) {
      syntax_error_expecting(kExprStart | bit(closer));
      if (cur().kind == closer) return out;
    }
    out.push_back(parse_expr());
    while (cur().kind == Tok::Comma) {
      bump();
      out.push_back(parse_expr());
    }
    return out;
  }

  int parse_primary() {
    RuleGuard g(this, kRulePrimary);
    const Token t = cur();
    switch (t.kind) {
      case Tok::Dot:
      case Tok::Ident: {
        bool leading_dot = t.kind == Tok::Dot;
        if (leading_dot) {
          bump();
          if (cur().kind != Tok::Ident) {
            std::string seen = ".";
            if (cur().kind != Tok::Eof) seen += token_display(text_of(cur()));
            syntax_issue(cur().offset, "no viable alternative at input '" + seen + "'");
            throw ParseAbort{};
          }
        }
        // A message literal: IDENT ('.' IDENT)* '{'
        std::size_t k = 0;
        while (peek(k).kind == Tok::Ident && peek(k + 1).kind == Tok::Dot && peek(k + 2).kind == Tok::Ident) k += 2;
        if (peek(k).kind == Tok::Ident && peek(k + 1).kind == Tok::LBrace) return parse_message(leading_dot);
        const Token id = cur();
        std::string name(text_of(id));
        bump();
        if (cur().kind == Tok::LParen) {
          std::int32_t open = cur().offset;
          bump();
          std::vector<int> args = parse_expr_list(Tok::RParen);
          expect(Tok::RParen);
          if (is_reserved(name)) return report(t.offset, "reserved identifier: " + name);
          return global_call_or_macro(open, (leading_dot ? "." : "") + name, std::move(args));
        }
        if (is_reserved(name)) return report(t.offset, "reserved identifier: " + name);
        return new_ident(id.offset, (leading_dot ? "." : "") + name);
      }
      case Tok::LParen: {
        bump();
        int e = parse_expr();
        expect(Tok::RParen);
        return e;
      }
      case Tok::LBracket: {
        std::int32_t open = t.offset;
        bump();
        std::vector<int> elems;
        std::vector<int> optionals;
        if (cur().kind != Tok::RBracket) {
          if (cur().kind == Tok::Comma) {
            bump();
          } else {
            for (;;) {
              if (cur().kind == Tok::Question) {
                if (!opts_.optional_syntax) report(cur().offset, "unsupported syntax '?'");
                else optionals.push_back(static_cast<int>(elems.size()));
                bump();
              } else if (!(bit(cur().kind) & kExprStart)) {
                syntax_error_expecting(kExprStart | set_of(Tok::RBracket, Tok::Comma, Tok::Question));
                continue;
              }
              elems.push_back(parse_expr());
              if (cur().kind != Tok::Comma) break;
              bump();
              if (cur().kind == Tok::RBracket) break;
            }
          }
        }
        expect(Tok::RBracket);
        return new_list(open, std::move(elems), std::move(optionals));
      }
      case Tok::LBrace: {
        std::int32_t open = t.offset;
        bump();
        Expr m;
        m.kind = ExprKind::Map;
        m.offset = open;
        if (cur().kind != Tok::RBrace) {
          if (cur().kind == Tok::Comma) {
            bump();
          } else {
            for (;;) {
              MapEntry entry;
              if (cur().kind == Tok::Question) {
                if (!opts_.optional_syntax) report(cur().offset, "unsupported syntax '?'");
                entry.optional = opts_.optional_syntax;
                bump();
              } else if (!(bit(cur().kind) & kExprStart)) {
                syntax_error_expecting(kExprStart | set_of(Tok::RBrace, Tok::Comma, Tok::Question));
                continue;
              }
              entry.key = parse_expr();
              entry.offset = cur().offset;
              expect(Tok::Colon);
              entry.value = parse_expr();
              m.entries.push_back(entry);
              if (cur().kind != Tok::Comma) break;
              bump();
              if (cur().kind == Tok::RBrace) break;
            }
          }
        }
        expect(Tok::RBrace);
        return add(std::move(m));
      }
      case Tok::Minus:
      case Tok::Int:
      case Tok::Uint:
      case Tok::Float:
      case Tok::String:
      case Tok::Bytes:
      case Tok::True:
      case Tok::False:
      case Tok::Null:
        return parse_literal();
      default:
        if (cur().kind != Tok::Eof && !(bit(peek().kind) & kExprStart)) {
          // ANTLR reports the mismatch, drops the token and tries again, which at the end of
          // the input fails once more.
          syntax_issue(cur().offset, "mismatched input '" + current_display() + "' expecting " + set_display(kExprStart));
          bump();
          if (cur().kind == Tok::Eof) {
            syntax_issue(cur().offset, "mismatched input '<EOF>' expecting " + set_display(kExprStart));
          }
          throw ParseAbort{};
        }
        syntax_error_expecting(kExprStart);
        return parse_primary();
    }
  }

  int parse_message(bool leading_dot) {
    std::string name = leading_dot ? "." : "";
    for (;;) {
      name += text_of(cur());
      bump();
      if (cur().kind != Tok::Dot) break;
      name += '.';
      bump();
    }
    Expr m;
    m.kind = ExprKind::Struct;
    m.offset = cur().offset;
    m.name = std::move(name);
    bump();  // '{'
    if (cur().kind != Tok::RBrace) {
      if (cur().kind == Tok::Comma) {
        bump();
      } else {
        for (;;) {
          StructField f;
          if (cur().kind == Tok::Question) {
            if (!opts_.optional_syntax) report(cur().offset, "unsupported syntax '?'");
            f.optional = opts_.optional_syntax;
            bump();
          } else if (cur().kind != Tok::Ident && cur().kind != Tok::EscIdent) {
            syntax_error_expecting(set_of(Tok::RBrace, Tok::Comma, Tok::Question, Tok::Ident, Tok::EscIdent));
            continue;
          }
          f.name = escape_ident();
          f.offset = cur().offset;
          expect(Tok::Colon);
          f.value = parse_expr();
          m.fields.push_back(std::move(f));
          if (cur().kind != Tok::Comma) break;
          bump();
          if (cur().kind == Tok::RBrace) break;
        }
      }
    }
    expect(Tok::RBrace);
    return add(std::move(m));
  }

  int parse_literal() {
    const Token t = cur();
    std::int32_t at = t.offset;
    std::string sign;
    if (t.kind == Tok::Minus) {
      sign = "-";
      bump();
    }
    const Token n = cur();
    std::string_view txt = text_of(n);
    Literal l;
    switch (n.kind) {
      case Tok::Int: {
        int base = 10;
        if (txt.size() > 2 && txt[0] == '0' && txt[1] == 'x') {
          base = 16;
          txt.remove_prefix(2);
        }
        l.kind = Literal::Kind::Int;
        if (!parse_int(sign + std::string(txt), base, l.i)) {
          bump();
          return report(at, "invalid int literal");
        }
        break;
      }
      case Tok::Uint: {
        txt.remove_suffix(1);
        int base = 10;
        if (txt.size() > 2 && txt[0] == '0' && txt[1] == 'x') {
          base = 16;
          txt.remove_prefix(2);
        }
        l.kind = Literal::Kind::Uint;
        if (!parse_uint(txt, base, l.u)) {
          bump();
          return report(at, "invalid uint literal");
        }
        break;
      }
      case Tok::Float: {
        std::string s = sign + std::string(txt);
        errno = 0;
        char* end = nullptr;
        double d = std::strtod(s.c_str(), &end);
        if (end != s.c_str() + s.size() || std::isinf(d)) {
          bump();
          return report(at, "invalid double literal");
        }
        l.kind = Literal::Kind::Double;
        l.d = d;
        break;
      }
      case Tok::String:
      case Tok::Bytes: {
        bool is_bytes = n.kind == Tok::Bytes;
        if (is_bytes) txt.remove_prefix(1);
        std::string err;
        l.kind = is_bytes ? Literal::Kind::Bytes : Literal::Kind::String;
        if (!unescape(txt, is_bytes, l.s, err)) {
          bump();
          return report(at, err);
        }
        break;
      }
      case Tok::True:
      case Tok::False:
        l.kind = Literal::Kind::Bool;
        l.b = n.kind == Tok::True;
        break;
      case Tok::Null:
        l.kind = Literal::Kind::Null;
        break;
      default:
        syntax_error_expecting(kExprStart);
        throw ParseAbort{};
    }
    bump();
    return new_literal(at, std::move(l));
  }

  static bool is_reserved(std::string_view id) {
    static constexpr std::string_view kReserved[] = {
        "as", "break", "const", "continue", "else", "false", "for", "function", "if", "import", "in",
        "let", "loop", "package", "namespace", "null", "return", "true", "var", "void", "while"};
    for (auto r : kReserved)
      if (r == id) return true;
    return false;
  }

  // --- macros (cel-go's parser/macro.go and ext/bindings.go)

  int global_call_or_macro(std::int32_t at, std::string fn, std::vector<int> args) {
    if (fn == "has" && args.size() == 1) {
      const Expr& a = ast_.at(args[0]);
      if (a.kind != ExprKind::Select) return report(a.offset, "invalid argument to has() macro");
      Expr sel = a;
      sel.test_only = true;
      return add(std::move(sel), 1);
    }
    return new_call(at, std::move(fn), std::move(args));
  }

  // The iteration variable of a macro; false (with the error reported) when the argument is not
  // a usable name.
  bool iter_var_of(int arg, const char* not_ident_message, std::string& out) {
    const Expr& a = ast_.at(arg);
    std::int32_t at = a.offset;
    if (a.kind != ExprKind::Ident) {
      report(at, not_ident_message);
      return false;
    }
    if (a.name == kAccumulatorName || a.name == kLegacyAccumulatorName) {
      report(at, "iteration variable overwrites accumulator variable");
      return false;
    }
    out = a.name;
    return true;
  }

  int receiver_call_or_macro(std::int32_t at, const std::string& fn, int target, std::vector<int> args) {
    std::size_t n = args.size();
    if (n == 2 && (fn == "all" || fn == "exists" || fn == "exists_one" || fn == "existsOne")) {
      std::string v;
      if (!iter_var_of(args[0], "argument must be a simple name", v)) return static_cast<int>(ast_.nodes.size()) - 1;
      int init, cond, step, result;
      if (fn == "all") {
        init = new_bool(at, true);
        cond = new_call(at, "@not_strictly_false", {new_ident(at, kAccumulatorName)});
        step = new_call(at, "_&&_", {new_ident(at, kAccumulatorName), args[1]});
        result = new_ident(at, kAccumulatorName);
      } else if (fn == "exists") {
        init = new_bool(at, false);
        cond = new_call(at, "@not_strictly_false", {new_call(at, "!_", {new_ident(at, kAccumulatorName)})});
        step = new_call(at, "_||_", {new_ident(at, kAccumulatorName), args[1]});
        result = new_ident(at, kAccumulatorName);
      } else {
        init = new_int(at, 0);
        cond = new_bool(at, true);
        step = new_call(at, "_?_:_",
                        {args[1], new_call(at, "_+_", {new_ident(at, kAccumulatorName), new_int(at, 1)}),
                         new_ident(at, kAccumulatorName)});
        result = new_call(at, "_==_", {new_ident(at, kAccumulatorName), new_int(at, 1)});
      }
      return new_comprehension(at, target, v, kAccumulatorName, init, cond, step, result);
    }
    if ((fn == "map" && (n == 2 || n == 3)) || (fn == "filter" && n == 2)) {
      std::string v;
      if (!iter_var_of(args[0], "argument is not an identifier", v)) return static_cast<int>(ast_.nodes.size()) - 1;
      int init = new_list(at, {});
      int cond = new_bool(at, true);
      int step;
      if (fn == "map") {
        int transform = args[n - 1];
        step = new_call(at, "_+_", {new_ident(at, kAccumulatorName), new_list(at, {transform})});
        if (n == 3) step = new_call(at, "_?_:_", {args[1], step, new_ident(at, kAccumulatorName)});
      } else {
        // filter keeps the element itself: the iteration variable's identifier node.
        step = new_call(at, "_+_", {new_ident(at, kAccumulatorName), new_list(at, {args[0]})});
        step = new_call(at, "_?_:_", {args[1], step, new_ident(at, kAccumulatorName)});
      }
      return new_comprehension(at, target, v, kAccumulatorName, init, cond, step, new_ident(at, kAccumulatorName));
    }
    if (fn == "bind" && n == 3) {
      const Expr& t = ast_.at(target);
      if (t.kind == ExprKind::Ident && t.name == "cel") {
        const Expr& var = ast_.at(args[0]);
        if (var.kind != ExprKind::Ident) return report(var.offset, "cel.bind() variable names must be simple identifiers");
        std::string name = var.name;
        return new_comprehension(at, new_list(at, {}), kUnusedIterVar, name, args[1], new_bool(at, false),
                                 new_ident(at, name), args[2]);
      }
    }
    if ((fn == "optMap" || fn == "optFlatMap") && n == 2) {
      // target.hasValue() ? optional.of(cel.bind(v, target.value(), e)) : optional.none(), and
      // without optional.of() for optFlatMap (cel-go's optional library macros).
      const Expr& var = ast_.at(args[0]);
      if (var.kind != ExprKind::Ident) {
        return report(var.offset, fn + "() variable name must be a simple identifier");
      }
      std::string name = var.name;
      int has = new_call(at, "hasValue", {}, target, 1);
      int value = new_call(at, "value", {}, copy_subtree(target), 1);
      int bind = new_comprehension(at, new_list(at, {}), kUnusedIterVar, name, value, new_bool(at, false),
                                   new_ident(at, name), args[1]);
      int then = fn == "optMap" ? new_call(at, "optional.of", {bind}) : bind;
      return new_call(at, "_?_:_", {has, then, new_call(at, "optional.none", {})}, -1, 1);
    }
    return new_call(at, fn, std::move(args), target, 1);
  }

  // A deep copy of a subtree (cel-go's ExprHelper.Copy): macros that use an expression twice.
  int copy_subtree(int i) {
    if (i < 0) return -1;
    Expr e = ast_.at(i);
    e.operand = copy_subtree(e.operand);
    for (int& a : e.args) a = copy_subtree(a);
    for (auto& m : e.entries) {
      m.key = copy_subtree(m.key);
      m.value = copy_subtree(m.value);
    }
    for (auto& f : e.fields) f.value = copy_subtree(f.value);
    if (e.kind == ExprKind::Comprehension) {
      e.iter_range = copy_subtree(e.iter_range);
      e.accu_init = copy_subtree(e.accu_init);
      e.loop_condition = copy_subtree(e.loop_condition);
      e.loop_step = copy_subtree(e.loop_step);
      e.result = copy_subtree(e.result);
    }
    return add(std::move(e), weight_[static_cast<std::size_t>(i)]);
  }

  // cel-go's visitor depth: selections, calls on a receiver, indexes, relations, arithmetic and
  // conditionals nested deeper than the limit fail with "max recursion depth exceeded".
  void check_visit_depth() {
    std::vector<std::pair<int, int>> stack{{ast_.root, 0}};
    while (!stack.empty()) {
      auto [i, d] = stack.back();
      stack.pop_back();
      if (i < 0) continue;
      const Expr& e = ast_.at(i);
      int depth = d + weight_[static_cast<std::size_t>(i)];
      if (depth > opts_.max_recursion_depth) fail(kNoLocation, "max recursion depth exceeded");
      auto push = [&](int c) {
        if (c >= 0) stack.emplace_back(c, depth);
      };
      push(e.operand);
      for (int a : e.args) push(a);
      for (const auto& m : e.entries) {
        push(m.key);
        push(m.value);
      }
      for (const auto& f : e.fields) push(f.value);
      if (e.kind == ExprKind::Comprehension) {
        push(e.iter_range);
        push(e.accu_init);
        push(e.loop_condition);
        push(e.loop_step);
        push(e.result);
      }
    }
  }

  const Source& src_;
  std::string_view text_;
  ParseOptions opts_;
  std::vector<Token> toks_;
  std::size_t pos_ = 0;
  Ast ast_;
  std::vector<std::uint8_t> weight_;
  std::vector<Issue> issues_;
  int depth_[kRuleCount] = {};
  int syntax_errors_ = 0;
  static constexpr int kSyntaxErrorLimit = 100;
};

}  // namespace

ParseResult parse(const Source& source, const ParseOptions& options) { return Parser(source, options).run(); }

}  // namespace ksched::cel
