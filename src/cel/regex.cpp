#include "cel/regex.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "util/utf8.h"

namespace ksched::cel {
namespace {

constexpr std::uint32_t kMaxRune = 0x10FFFF;
constexpr int kMaxRepeat = 1000;
constexpr int kMaxNesting = 1000;
constexpr std::size_t kMaxProgram = 100000;

enum AssertKind : std::uint8_t { kBeginLine, kEndLine, kBeginText, kEndText, kWordBoundary, kNoWordBoundary };

// Decodes the code point at s[i] (U+FFFD with width 1 for an invalid byte, as Go does).
std::uint32_t decode(std::string_view s, std::size_t i, std::size_t& width) {
  std::size_t n = util::utf8_sequence_length(s, i);
  auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  width = n == 0 ? 1 : n;
  switch (n) {
    case 0: return 0xFFFD;
    case 1: return b(0);
    case 2: return ((b(0) & 0x1Fu) << 6) | (b(1) & 0x3Fu);
    case 3: return ((b(0) & 0x0Fu) << 12) | ((b(1) & 0x3Fu) << 6) | (b(2) & 0x3Fu);
    default: return ((b(0) & 0x07u) << 18) | ((b(1) & 0x3Fu) << 12) | ((b(2) & 0x3Fu) << 6) | (b(3) & 0x3Fu);
  }
}

// The code point that ends just before byte i (-1 at the start).
std::int64_t decode_before(std::string_view s, std::size_t i) {
  if (i == 0) return -1;
  std::size_t k = i - 1;
  std::size_t back = 0;
  while (k > 0 && back < 3 && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) {
    --k;
    ++back;
  }
  std::size_t w = 0;
  std::uint32_t c = decode(s, k, w);
  if (k + w != i) return 0xFFFD;
  return c;
}

bool is_word(std::int64_t c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

using Ranges = std::vector<std::uint32_t>;  // lo, hi pairs

void normalize(Ranges& r) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> v;
  for (std::size_t i = 0; i + 1 < r.size(); i += 2) v.emplace_back(r[i], r[i + 1]);
  std::sort(v.begin(), v.end());
  Ranges out;
  for (auto [lo, hi] : v) {
    if (!out.empty() && lo <= out.back() + 1) {
      out.back() = std::max(out.back(), hi);
    } else {
      out.push_back(lo);
      out.push_back(hi);
    }
  }
  r = std::move(out);
}

Ranges negate(const Ranges& r) {
  Ranges out;
  std::uint32_t next = 0;
  for (std::size_t i = 0; i + 1 < r.size(); i += 2) {
    if (r[i] > next) {
      out.push_back(next);
      out.push_back(r[i] - 1);
    }
    next = r[i + 1] + 1;
  }
  if (next <= kMaxRune) {
    out.push_back(next);
    out.push_back(kMaxRune);
  }
  return out;
}

// Adds the case variants of the ASCII letters in `r`; the only non-ASCII code points whose
// simple case folding reaches an ASCII letter are U+017F (s) and U+212A (k).
void add_folds(Ranges& r) {
  Ranges extra;
  for (std::size_t i = 0; i + 1 < r.size(); i += 2) {
    auto add_shift = [&](std::uint32_t a, std::uint32_t b, std::int32_t delta) {
      std::uint32_t lo = std::max(r[i], a), hi = std::min(r[i + 1], b);
      if (lo <= hi) {
        extra.push_back(static_cast<std::uint32_t>(static_cast<std::int32_t>(lo) + delta));
        extra.push_back(static_cast<std::uint32_t>(static_cast<std::int32_t>(hi) + delta));
      }
    };
    add_shift('a', 'z', -32);
    add_shift('A', 'Z', 32);
    auto contains = [&](std::uint32_t c) { return r[i] <= c && c <= r[i + 1]; };
    if (contains('k') || contains('K')) {
      extra.push_back(0x212A);
      extra.push_back(0x212A);
    }
    if (contains('s') || contains('S')) {
      extra.push_back(0x017F);
      extra.push_back(0x017F);
    }
  }
  r.insert(r.end(), extra.begin(), extra.end());
  normalize(r);
}

bool has_non_ascii(const Ranges& r) {
  for (std::size_t i = 0; i + 1 < r.size(); i += 2)
    if (r[i + 1] >= 0x80) return true;
  return false;
}

struct Node {
  enum Kind : std::uint8_t { Empty, Chars, AnyChar, AnyNotNL, Assert, Concat, Alt, Repeat };
  Kind kind = Empty;
  Ranges ranges;
  std::uint8_t assert_kind = 0;
  int min = 0, max = 0;  // Repeat; max -1 is unbounded
  bool greedy = true;
  std::vector<std::unique_ptr<Node>> subs;
};
using NodePtr = std::unique_ptr<Node>;

struct Flags {
  bool fold = false, multiline = false, dotnl = false, ungreedy = false;
};

class Parser {
 public:
  explicit Parser(std::string_view p) : p_(p) {}

  util::Result<NodePtr, RegexError> parse() {
    if (!util::is_valid_utf8(p_)) return err("invalid UTF-8", p_);
    auto n = parse_alt(0);
    if (!error_.message.empty()) return error_;
    if (i_ < p_.size()) {
      // A ')' without its '('.
      return err("unexpected )", p_);
    }
    return n;
  }

 private:
  RegexError err(const char* code, std::string_view fragment) {
    if (error_.message.empty()) {
      error_.message = std::string("error parsing regexp: ") + code + ": `" + std::string(fragment) + "`";
    }
    return error_;
  }
  RegexError unsupported(std::string what) {
    if (error_.message.empty()) {
      error_.message = "regular expression feature not supported by ksched's CEL implementation: " + what;
      error_.unsupported = true;
    }
    return error_;
  }
  bool failed() const { return !error_.message.empty(); }

  bool at_end() const { return i_ >= p_.size(); }
  char peek_byte(std::size_t k = 0) const { return i_ + k < p_.size() ? p_[i_ + k] : '\0'; }
  std::uint32_t next_rune() {
    std::size_t w = 0;
    std::uint32_t c = decode(p_, i_, w);
    i_ += w;
    return c;
  }

  NodePtr make(Node::Kind k) {
    auto n = std::make_unique<Node>();
    n->kind = k;
    return n;
  }
  NodePtr chars(Ranges r, bool user_ranges = true) {
    if (flags_.fold) {
      if (user_ranges && has_non_ascii(r)) {
        unsupported("case-insensitive matching of non-ASCII characters");
        return make(Node::Empty);
      }
      add_folds(r);
    }
    auto n = make(Node::Chars);
    normalize(r);
    n->ranges = std::move(r);
    return n;
  }

  NodePtr parse_alt(int depth) {
    if (depth > kMaxNesting) {
      err("expression nests too deeply", p_);
      return make(Node::Empty);
    }
    auto alt = make(Node::Alt);
    alt->subs.push_back(parse_concat(depth));
    while (!failed() && peek_byte() == '|') {
      ++i_;
      alt->subs.push_back(parse_concat(depth));
    }
    if (alt->subs.size() == 1) return std::move(alt->subs[0]);
    return alt;
  }

  // `{n}`, `{n,}`, `{n,m}` at i_; false (and i_ unchanged) when it is not one (then `{` is a
  // literal, as in Go).
  bool parse_repeat_spec(int& min, int& max) {
    std::size_t k = i_ + 1;
    auto number = [&](int& out) {
      std::size_t s = k;
      long v = 0;
      while (k < p_.size() && p_[k] >= '0' && p_[k] <= '9') {
        if (v <= 100000) v = v * 10 + (p_[k] - '0');
        ++k;
      }
      if (k == s) return false;
      out = static_cast<int>(std::min<long>(v, 100001));
      return true;
    };
    if (!number(min)) return false;
    if (k < p_.size() && p_[k] == '}') {
      max = min;
    } else if (k < p_.size() && p_[k] == ',') {
      ++k;
      if (k < p_.size() && p_[k] == '}') {
        max = -1;
      } else if (!number(max) || k >= p_.size() || p_[k] != '}') {
        return false;
      }
    } else {
      return false;
    }
    i_ = k + 1;
    return true;
  }

  NodePtr parse_concat(int depth) {
    auto cat = make(Node::Concat);
    std::size_t last_repeat_begin = std::string_view::npos;  // where the last repetition operator began
    std::size_t item_end = 0;                                 // where the last item (before its operators) ended
    while (!failed() && !at_end()) {
      char c = peek_byte();
      if (c == '|' || c == ')') break;
      if (c == '*' || c == '+' || c == '?' || c == '{') {
        std::size_t op_begin = i_;
        int min = 0, max = 0;
        if (c == '{') {
          if (!parse_repeat_spec(min, max)) {
            // A literal '{'.
            ++i_;
            cat->subs.push_back(chars({'{', '{'}));
            last_repeat_begin = std::string_view::npos;
            item_end = i_;
            continue;
          }
        } else {
          ++i_;
          min = c == '+' ? 1 : 0;
          max = c == '?' ? 1 : -1;
        }
        bool lazy = false;
        if (peek_byte() == '?') {
          ++i_;
          lazy = true;
        }
        std::string_view op_text = p_.substr(op_begin, i_ - op_begin);
        if (cat->subs.empty()) {
          err("missing argument to repetition operator", op_text);
          break;
        }
        if (last_repeat_begin != std::string_view::npos) {
          err("invalid nested repetition operator", p_.substr(last_repeat_begin, i_ - last_repeat_begin));
          break;
        }
        if (c == '{' && (min > kMaxRepeat || max > kMaxRepeat || (max >= 0 && max < min))) {
          err("invalid repeat count", op_text);
          break;
        }
        auto rep = make(Node::Repeat);
        rep->min = min;
        rep->max = max;
        rep->greedy = lazy == flags_.ungreedy;
        rep->subs.push_back(std::move(cat->subs.back()));
        cat->subs.back() = std::move(rep);
        last_repeat_begin = op_begin;
        (void)item_end;
        continue;
      }
      last_repeat_begin = std::string_view::npos;
      NodePtr atom = parse_atom(depth);
      if (failed()) break;
      if (atom) cat->subs.push_back(std::move(atom));
      item_end = i_;
    }
    if (cat->subs.size() == 1) return std::move(cat->subs[0]);
    if (cat->subs.empty()) return make(Node::Empty);
    return cat;
  }

  // Null when the atom was a flag group that only changes flags.
  NodePtr parse_atom(int depth) {
    char c = peek_byte();
    switch (c) {
      case '(':
        return parse_group(depth);
      case '[':
        return parse_class();
      case '.': {
        ++i_;
        if (flags_.dotnl) return make(Node::AnyChar);
        return make(Node::AnyNotNL);
      }
      case '^': {
        ++i_;
        auto n = make(Node::Assert);
        n->assert_kind = flags_.multiline ? kBeginLine : kBeginText;
        return n;
      }
      case '$': {
        ++i_;
        auto n = make(Node::Assert);
        n->assert_kind = flags_.multiline ? kEndLine : kEndText;
        return n;
      }
      case '\\':
        return parse_escape_atom();
      default: {
        std::uint32_t r = next_rune();
        return chars({r, r});
      }
    }
  }

  NodePtr parse_group(int depth) {
    std::size_t begin = i_;
    ++i_;  // (
    Flags saved = flags_;
    if (peek_byte() == '?') {
      std::size_t k = i_ + 1;
      if (k < p_.size() && (p_[k] == 'P' || p_[k] == '<')) {
        // Named capture (?P<name>...) or (?<name>...).
        std::size_t name_start = p_[k] == 'P' ? k + 2 : k + 1;
        if (p_[k] == 'P' && (k + 1 >= p_.size() || p_[k + 1] != '<')) {
          err("invalid or unsupported Perl syntax", p_.substr(begin, std::min(k + 2, p_.size()) - begin));
          return nullptr;
        }
        std::size_t e = p_.find('>', name_start);
        if (e == std::string_view::npos) {
          err("invalid named capture", p_.substr(begin));
          return nullptr;
        }
        std::string_view name = p_.substr(name_start, e - name_start);
        bool ok = !name.empty();
        for (char ch : name)
          if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_')) ok = false;
        if (!ok) {
          err("invalid named capture", p_.substr(begin, e + 1 - begin));
          return nullptr;
        }
        i_ = e + 1;
      } else {
        // Flags: (?flags) or (?flags:...).
        bool negate = false, any = false;
        Flags f = flags_;
        for (;;) {
          if (k >= p_.size()) {
            err("missing closing )", p_);
            return nullptr;
          }
          char ch = p_[k];
          if (ch == 'i' || ch == 'm' || ch == 's' || ch == 'U') {
            bool v = !negate;
            if (ch == 'i') f.fold = v;
            if (ch == 'm') f.multiline = v;
            if (ch == 's') f.dotnl = v;
            if (ch == 'U') f.ungreedy = v;
            any = true;
            ++k;
          } else if (ch == '-' && !negate) {
            negate = true;
            any = false;
            ++k;
          } else if ((ch == ':' || ch == ')') && !(negate && !any)) {
            ++k;
            if (ch == ')') {
              // Changes the flags for the rest of the enclosing group.
              flags_ = f;
              i_ = k;
              return nullptr;
            }
            flags_ = f;
            i_ = k;
            break;
          } else {
            std::size_t end = k;
            if (end < p_.size()) {
              std::size_t w = 0;
              decode(p_, end, w);
              end += w;
            }
            err("invalid or unsupported Perl syntax", p_.substr(begin, end - begin));
            return nullptr;
          }
        }
      }
    }
    NodePtr inner = parse_alt(depth + 1);
    flags_ = saved;
    if (failed()) return nullptr;
    if (peek_byte() != ')') {
      err("missing closing )", p_);
      return nullptr;
    }
    ++i_;
    return inner;
  }

  // Perl classes \d \s \w.
  static Ranges perl_class(char c) {
    switch (c) {
      case 'd': return {'0', '9'};
      case 's': return {'\t', '\n', '\f', '\r', ' ', ' '};
      case 'w': return {'0', '9', 'A', 'Z', '_', '_', 'a', 'z'};
      default: return {};
    }
  }

  static bool posix_class(std::string_view name, Ranges& out) {
    struct P {
      std::string_view name;
      Ranges r;
    };
    static const P table[] = {
        {"alnum", {'0', '9', 'A', 'Z', 'a', 'z'}},
        {"alpha", {'A', 'Z', 'a', 'z'}},
        {"ascii", {0, 0x7F}},
        {"blank", {'\t', '\t', ' ', ' '}},
        {"cntrl", {0, 0x1F, 0x7F, 0x7F}},
        {"digit", {'0', '9'}},
        {"graph", {'!', '~'}},
        {"lower", {'a', 'z'}},
        {"print", {' ', '~'}},
        {"punct", {'!', '/', ':', '@', '[', '`', '{', '~'}},
        {"space", {'\t', '\r', ' ', ' '}},
        {"upper", {'A', 'Z'}},
        {"word", {'0', '9', 'A', 'Z', '_', '_', 'a', 'z'}},
        {"xdigit", {'0', '9', 'A', 'F', 'a', 'f'}},
    };
    for (const auto& p : table) {
      if (p.name == name) {
        out = p.r;
        return true;
      }
    }
    return false;
  }

  // An escape that stands for one code point; false if `c` is not such an escape. i_ is after c.
  bool single_rune_escape(char c, std::size_t begin, std::uint32_t& out) {
    switch (c) {
      case 'a': out = 7; return true;
      case 'f': out = 12; return true;
      case 't': out = 9; return true;
      case 'n': out = 10; return true;
      case 'r': out = 13; return true;
      case 'v': out = 11; return true;
      case 'x': {
        if (peek_byte() == '{') {
          std::size_t e = p_.find('}', i_);
          if (e == std::string_view::npos || e == i_ + 1) {
            err("invalid escape sequence", p_.substr(begin, std::min(p_.size(), e == std::string_view::npos ? p_.size() : e + 1) - begin));
            return false;
          }
          std::uint32_t v = 0;
          for (std::size_t k = i_ + 1; k < e; ++k) {
            char h = p_[k];
            int d = (h >= '0' && h <= '9') ? h - '0' : (h >= 'a' && h <= 'f') ? h - 'a' + 10 : (h >= 'A' && h <= 'F') ? h - 'A' + 10 : -1;
            if (d < 0 || v > kMaxRune) {
              err("invalid escape sequence", p_.substr(begin, e + 1 - begin));
              return false;
            }
            v = v * 16 + static_cast<std::uint32_t>(d);
          }
          if (v > kMaxRune) {
            err("invalid escape sequence", p_.substr(begin, e + 1 - begin));
            return false;
          }
          i_ = e + 1;
          out = v;
          return true;
        }
        std::uint32_t v = 0;
        for (int k = 0; k < 2; ++k) {
          char h = peek_byte();
          int d = (h >= '0' && h <= '9') ? h - '0' : (h >= 'a' && h <= 'f') ? h - 'a' + 10 : (h >= 'A' && h <= 'F') ? h - 'A' + 10 : -1;
          if (d < 0) {
            err("invalid escape sequence", p_.substr(begin, std::min(i_ + 1, p_.size()) - begin));
            return false;
          }
          v = v * 16 + static_cast<std::uint32_t>(d);
          ++i_;
        }
        out = v;
        return true;
      }
      case '1': case '2': case '3': case '4': case '5': case '6': case '7':
        if (peek_byte() < '0' || peek_byte() > '7') return false;
        [[fallthrough]];
      case '0': {
        std::uint32_t v = static_cast<std::uint32_t>(c - '0');
        for (int k = 0; k < 2 && peek_byte() >= '0' && peek_byte() <= '7'; ++k) {
          v = v * 8 + static_cast<std::uint32_t>(peek_byte() - '0');
          ++i_;
        }
        out = v;
        return true;
      }
      default:
        if (static_cast<unsigned char>(c) < 0x80 && !is_word(static_cast<unsigned char>(c))) {
          out = static_cast<unsigned char>(c);
          return true;
        }
        return false;
    }
  }

  NodePtr parse_escape_atom() {
    std::size_t begin = i_;
    ++i_;  // backslash
    if (at_end()) {
      err("trailing backslash at end of expression", "");
      return nullptr;
    }
    char c = peek_byte();
    ++i_;
    switch (c) {
      case 'A': case 'z': case 'b': case 'B': {
        auto n = make(Node::Assert);
        n->assert_kind = c == 'A' ? kBeginText : c == 'z' ? kEndText : c == 'b' ? kWordBoundary : kNoWordBoundary;
        return n;
      }
      case 'd': case 's': case 'w':
        return chars(perl_class(c), false);
      case 'D': case 'S': case 'W': {
        Ranges r = perl_class(static_cast<char>(c + 32));
        if (flags_.fold) add_folds(r);
        auto n = make(Node::Chars);
        n->ranges = negate(r);
        return n;
      }
      case 'p': case 'P':
        unsupported("Unicode character classes (\\p, \\P)");
        return nullptr;
      case 'Q': {
        // Literal text up to \E (or the end).
        std::size_t e = p_.find("\\E", i_);
        std::string_view lit = p_.substr(i_, e == std::string_view::npos ? std::string_view::npos : e - i_);
        i_ = e == std::string_view::npos ? p_.size() : e + 2;
        auto cat = make(Node::Concat);
        for (std::size_t k = 0; k < lit.size();) {
          std::size_t w = 0;
          std::uint32_t r = decode(lit, k, w);
          k += w;
          cat->subs.push_back(chars({r, r}));
          if (failed()) return nullptr;
        }
        if (cat->subs.empty()) return make(Node::Empty);
        return cat;
      }
      default: {
        std::uint32_t r = 0;
        if (single_rune_escape(c, begin, r)) return chars({r, r});
        if (!failed()) {
          std::size_t end = begin + 1;
          std::size_t w = 0;
          decode(p_, end, w);
          err("invalid escape sequence", p_.substr(begin, end + w - begin));
        }
        return nullptr;
      }
    }
  }

  NodePtr parse_class() {
    std::size_t begin = i_;
    ++i_;  // [
    bool negated = false;
    if (peek_byte() == '^') {
      negated = true;
      ++i_;
    }
    Ranges r;
    Ranges folded_sets;  // Perl classes: not subject to the non-ASCII refusal
    bool first = true;
    for (;;) {
      if (at_end()) {
        err("missing closing ]", p_.substr(begin));
        return nullptr;
      }
      char c = peek_byte();
      if (c == ']' && !first) {
        ++i_;
        break;
      }
      first = false;
      // POSIX class [:name:] or [:^name:]
      if (c == '[' && peek_byte(1) == ':') {
        std::size_t e = p_.find(":]", i_ + 2);
        if (e != std::string_view::npos) {
          std::string_view name = p_.substr(i_ + 2, e - i_ - 2);
          bool neg = !name.empty() && name[0] == '^';
          if (neg) name.remove_prefix(1);
          Ranges pr;
          if (!posix_class(name, pr)) {
            err("invalid character class range", p_.substr(i_, e + 2 - i_));
            return nullptr;
          }
          if (flags_.fold) add_folds(pr);
          if (neg) pr = negate(pr);
          folded_sets.insert(folded_sets.end(), pr.begin(), pr.end());
          i_ = e + 2;
          continue;
        }
      }
      std::size_t item_begin = i_;
      std::uint32_t lo = 0;
      if (c == '\\') {
        ++i_;
        if (at_end()) {
          err("missing closing ]", p_.substr(begin));
          return nullptr;
        }
        char e = peek_byte();
        ++i_;
        if (e == 'd' || e == 's' || e == 'w' || e == 'D' || e == 'S' || e == 'W') {
          Ranges pr = perl_class(e >= 'a' ? e : static_cast<char>(e + 32));
          if (flags_.fold) add_folds(pr);
          if (e < 'a') pr = negate(pr);
          folded_sets.insert(folded_sets.end(), pr.begin(), pr.end());
          continue;
        }
        if (e == 'p' || e == 'P') {
          unsupported("Unicode character classes (\\p, \\P)");
          return nullptr;
        }
        if (!single_rune_escape(e, item_begin, lo)) {
          if (!failed()) {
            std::size_t w = 0;
            decode(p_, item_begin + 1, w);
            err("invalid escape sequence", p_.substr(item_begin, 1 + w));
          }
          return nullptr;
        }
      } else {
        lo = next_rune();
      }
      std::uint32_t hi = lo;
      if (peek_byte() == '-' && peek_byte(1) != ']' && i_ + 1 < p_.size()) {
        ++i_;
        if (peek_byte() == '\\') {
          std::size_t esc_begin = i_;
          ++i_;
          if (at_end()) {
            err("missing closing ]", p_.substr(begin));
            return nullptr;
          }
          char e = peek_byte();
          ++i_;
          if (!single_rune_escape(e, esc_begin, hi)) {
            if (!failed()) err("invalid character class range", p_.substr(item_begin, i_ - item_begin));
            return nullptr;
          }
        } else {
          hi = next_rune();
        }
        if (hi < lo) {
          err("invalid character class range", p_.substr(item_begin, i_ - item_begin));
          return nullptr;
        }
      }
      r.push_back(lo);
      r.push_back(hi);
    }
    if (flags_.fold) {
      if (has_non_ascii(r)) {
        unsupported("case-insensitive matching of non-ASCII characters");
        return nullptr;
      }
      add_folds(r);
    }
    r.insert(r.end(), folded_sets.begin(), folded_sets.end());
    normalize(r);
    auto n = make(Node::Chars);
    n->ranges = negated ? negate(r) : r;
    return n;
  }

  std::string_view p_;
  std::size_t i_ = 0;
  Flags flags_;
  RegexError error_;
};

class Compiler {
 public:
  Compiler(std::vector<Regex::Inst>& prog, Ranges& ranges) : prog_(prog), ranges_(ranges) {}

  bool emit(const Node& n) {
    if (prog_.size() > kMaxProgram) return false;
    switch (n.kind) {
      case Node::Empty:
        return true;
      case Node::Chars: {
        Regex::Inst in{Regex::Inst::Range};
        in.x = static_cast<std::uint32_t>(ranges_.size());
        ranges_.insert(ranges_.end(), n.ranges.begin(), n.ranges.end());
        in.y = static_cast<std::uint32_t>(ranges_.size());
        prog_.push_back(in);
        return true;
      }
      case Node::AnyChar:
        prog_.push_back({Regex::Inst::Any});
        return true;
      case Node::AnyNotNL:
        prog_.push_back({Regex::Inst::AnyNotNL});
        return true;
      case Node::Assert: {
        Regex::Inst in{Regex::Inst::Assert};
        in.assert_kind = n.assert_kind;
        prog_.push_back(in);
        return true;
      }
      case Node::Concat:
        for (const auto& s : n.subs)
          if (!emit(*s)) return false;
        return true;
      case Node::Alt: {
        // split L1, next; L1: a; jmp end; next: split L2, ... ; last alternative plain.
        std::vector<std::size_t> jumps;
        for (std::size_t k = 0; k < n.subs.size(); ++k) {
          if (k + 1 < n.subs.size()) {
            std::size_t split = prog_.size();
            prog_.push_back({Regex::Inst::Split});
            prog_[split].x = static_cast<std::uint32_t>(prog_.size());
            if (!emit(*n.subs[k])) return false;
            jumps.push_back(prog_.size());
            prog_.push_back({Regex::Inst::Jmp});
            prog_[split].y = static_cast<std::uint32_t>(prog_.size());
          } else if (!emit(*n.subs[k])) {
            return false;
          }
        }
        for (std::size_t j : jumps) prog_[j].x = static_cast<std::uint32_t>(prog_.size());
        return true;
      }
      case Node::Repeat: {
        const Node& sub = *n.subs[0];
        for (int k = 0; k < n.min; ++k)
          if (!emit(sub)) return false;
        if (n.max < 0) {
          // L: split body, end (greedy) ; body ; jmp L
          std::size_t split = prog_.size();
          prog_.push_back({Regex::Inst::Split});
          std::size_t body = prog_.size();
          if (!emit(sub)) return false;
          prog_.push_back({Regex::Inst::Jmp});
          prog_.back().x = static_cast<std::uint32_t>(split);
          std::size_t end = prog_.size();
          set_split(split, body, end, n.greedy);
          return true;
        }
        std::vector<std::size_t> splits;
        for (int k = n.min; k < n.max; ++k) {
          splits.push_back(prog_.size());
          prog_.push_back({Regex::Inst::Split});
          prog_[splits.back()].x = static_cast<std::uint32_t>(prog_.size());
          if (!emit(sub)) return false;
        }
        std::size_t end = prog_.size();
        for (std::size_t s : splits) set_split(s, prog_[s].x, end, n.greedy);
        return true;
      }
    }
    return true;
  }

 private:
  void set_split(std::size_t at, std::size_t body, std::size_t end, bool greedy) {
    prog_[at].x = static_cast<std::uint32_t>(greedy ? body : end);
    prog_[at].y = static_cast<std::uint32_t>(greedy ? end : body);
  }

  std::vector<Regex::Inst>& prog_;
  Ranges& ranges_;
};

// Per-thread scratch space for the VM, reused across calls.
struct Scratch {
  std::vector<std::uint32_t> sparse;
  std::vector<std::uint32_t> dense;  // pcs on the list
  std::vector<std::size_t> starts;   // match start of each listed thread
  std::uint32_t size = 0;
  void reset(std::size_t n) {
    if (sparse.size() < n) {
      sparse.resize(n);
      dense.resize(n);
      starts.resize(n);
    }
    size = 0;
  }
  bool contains(std::uint32_t pc) const {
    std::uint32_t i = sparse[pc];
    return i < size && dense[i] == pc;
  }
  void insert(std::uint32_t pc, std::size_t start) {
    sparse[pc] = size;
    dense[size] = pc;
    starts[size] = start;
    ++size;
  }
};

struct VmScratch {
  Scratch a, b;
  std::vector<std::uint32_t> stack;
};

}  // namespace

util::Result<Regex, RegexError> Regex::compile(std::string_view pattern) {
  Parser parser(pattern);
  auto tree = parser.parse();
  if (!tree.ok()) return tree.error();
  Regex re;
  Compiler c(re.prog_, re.ranges_);
  if (!c.emit(**tree) || re.prog_.size() + 1 > kMaxProgram) {
    return RegexError{"error parsing regexp: expression too large: `" + std::string(pattern) + "`", false};
  }
  re.prog_.push_back({Inst::Match});
  re.start_ = 0;
  re.anchored_start_ = !re.prog_.empty() && re.prog_[0].op == Inst::Assert && re.prog_[0].assert_kind == kBeginText;
  return re;
}

bool Regex::search(std::string_view s) const {
  std::size_t b = 0, e = 0;
  return run(s, 0, false, b, e);
}

bool Regex::find(std::string_view s, std::size_t from, std::size_t& begin, std::size_t& end) const {
  return run(s, from, true, begin, end);
}

bool Regex::run(std::string_view s, std::size_t from, bool want_end, std::size_t& mbegin, std::size_t& mend) const {
  thread_local VmScratch vm;
  const std::size_t n = prog_.size();
  Scratch* clist = &vm.a;
  Scratch* nlist = &vm.b;
  clist->reset(n);
  nlist->reset(n);

  bool matched = false;
  std::size_t pos = from;
  std::int64_t prev = decode_before(s, from);

  auto assert_holds = [&](std::uint8_t kind, std::size_t at, std::int64_t before, std::int64_t next) {
    switch (kind) {
      case kBeginText: return at == 0;
      case kEndText: return at == s.size();
      case kBeginLine: return at == 0 || before == '\n';
      case kEndLine: return at == s.size() || next == '\n';
      case kWordBoundary: return is_word(before) != is_word(next);
      case kNoWordBoundary: return is_word(before) == is_word(next);
      default: return false;
    }
  };

  // Adds the thread at pc and its epsilon closure, in priority order.
  auto add = [&](Scratch& list, std::uint32_t pc0, std::size_t at, std::size_t start, std::int64_t before,
                 std::int64_t next) {
    auto& stack = vm.stack;
    stack.clear();
    stack.push_back(pc0);
    while (!stack.empty()) {
      std::uint32_t pc = stack.back();
      stack.pop_back();
      if (list.contains(pc)) continue;
      list.insert(pc, start);
      const Inst& in = prog_[pc];
      switch (in.op) {
        case Inst::Jmp:
          stack.push_back(in.x);
          break;
        case Inst::Split:
          stack.push_back(in.y);
          stack.push_back(in.x);
          break;
        case Inst::Assert:
          if (assert_holds(in.assert_kind, at, before, next)) stack.push_back(pc + 1);
          break;
        default:
          break;
      }
    }
  };

  for (;;) {
    std::size_t width = 0;
    std::int64_t c = pos < s.size() ? static_cast<std::int64_t>(decode(s, pos, width)) : -1;
    if (!matched && (pos == from || !anchored_start_)) add(*clist, start_, pos, pos, prev, c);
    if (clist->size == 0) break;
    for (std::uint32_t k = 0; k < clist->size; ++k) {
      std::uint32_t pc = clist->dense[k];
      const Inst& in = prog_[pc];
      bool step = false;
      switch (in.op) {
        case Inst::Match:
          matched = true;
          mbegin = clist->starts[k];
          mend = pos;
          if (!want_end) return true;
          k = clist->size;  // lower-priority threads are cut
          continue;
        case Inst::Range:
          if (c >= 0) {
            for (std::uint32_t r = in.x; r < in.y; r += 2) {
              if (static_cast<std::uint32_t>(c) < ranges_[r]) break;
              if (static_cast<std::uint32_t>(c) <= ranges_[r + 1]) {
                step = true;
                break;
              }
            }
          }
          break;
        case Inst::Any:
          step = c >= 0;
          break;
        case Inst::AnyNotNL:
          step = c >= 0 && c != '\n';
          break;
        default:
          break;
      }
      if (step) {
        std::size_t npos = pos + width;
        std::size_t w2 = 0;
        std::int64_t next = npos < s.size() ? static_cast<std::int64_t>(decode(s, npos, w2)) : -1;
        add(*nlist, pc + 1, npos, clist->starts[k], c, next);
      }
    }
    if (pos >= s.size()) break;
    prev = c;
    pos += width;
    std::swap(clist, nlist);
    nlist->size = 0;
    if (clist->size == 0 && (matched || anchored_start_)) break;
  }
  return matched;
}

}  // namespace ksched::cel
