#include "cel/library.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <mutex>
#include <string>

#include "cel/runtime.h"
#include "cel/semver.h"
#include "util/utf8.h"

namespace ksched::cel {
namespace {

// ---------------------------------------------------------------------------------------------
// Helpers

Value err_static(Evaluator& ev, const char* m) { return ev.error_literal(m); }

// Go's strconv error wrapping is not reproduced for conversions: cel-go reports these as
// "type conversion error from 'string' to 'int'".
Value conversion_error(Evaluator& ev, const char* from, const char* to) {
  StrBuf b(ev.arena());
  b << "type conversion error from '" << from << "' to '" << to << "'";
  return ev.error(b.view());
}

std::uint32_t decode_rune(std::string_view s, std::size_t i, std::size_t& width) {
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

void append_rune(StrBuf& b, std::uint32_t cp) {
  char buf[4];
  std::size_t n = 0;
  if (cp < 0x80) {
    buf[n++] = static_cast<char>(cp);
  } else if (cp < 0x800) {
    buf[n++] = static_cast<char>(0xC0 | (cp >> 6));
    buf[n++] = static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    buf[n++] = static_cast<char>(0xE0 | (cp >> 12));
    buf[n++] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    buf[n++] = static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    buf[n++] = static_cast<char>(0xF0 | (cp >> 18));
    buf[n++] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    buf[n++] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    buf[n++] = static_cast<char>(0x80 | (cp & 0x3F));
  }
  b << std::string_view(buf, n);
}

// Byte offsets of the code points of `s` (plus the end), into the arena.
struct Runes {
  std::size_t count = 0;
  std::uint32_t* offsets = nullptr;  // count + 1 entries
  std::uint32_t* values = nullptr;
};
Runes runes_of(Evaluator& ev, std::string_view s) {
  Runes r;
  r.offsets = ev.arena().make_array<std::uint32_t>(s.size() + 1);
  r.values = ev.arena().make_array<std::uint32_t>(s.size() + 1);
  for (std::size_t i = 0; i < s.size();) {
    std::size_t w = 0;
    r.values[r.count] = decode_rune(s, i, w);
    r.offsets[r.count++] = static_cast<std::uint32_t>(i);
    i += w;
  }
  r.offsets[r.count] = static_cast<std::uint32_t>(s.size());
  return r;
}

// ---------------------------------------------------------------------------------------------
// Arithmetic and comparison (singletons, as cel-go's trait-based bindings)

Value add(Evaluator& ev, const Value* a) {
  const Value& l = a[0];
  const Value& r = a[1];
  switch (l.kind) {
    case ValueKind::Int: {
      if (r.kind != ValueKind::Int) return ev.maybe_no_such_overload(r);
      std::int64_t out;
      if (__builtin_add_overflow(l.i, r.i, &out)) return err_static(ev, "integer overflow");
      return Value::integer(out);
    }
    case ValueKind::Uint: {
      if (r.kind != ValueKind::Uint) return ev.maybe_no_such_overload(r);
      std::uint64_t out;
      if (__builtin_add_overflow(l.u, r.u, &out)) return err_static(ev, "unsigned integer overflow");
      return Value::uinteger(out);
    }
    case ValueKind::Double:
      if (r.kind != ValueKind::Double) return ev.maybe_no_such_overload(r);
      return Value::dbl(l.d + r.d);
    case ValueKind::String:
    case ValueKind::Bytes: {
      if (r.kind != l.kind) return ev.maybe_no_such_overload(r);
      char* p = ev.arena().make_array<char>(l.size + r.size);
      std::memcpy(p, l.s, l.size);
      std::memcpy(p + l.size, r.s, r.size);
      Value v = Value::string({p, static_cast<std::size_t>(l.size) + r.size});
      v.kind = l.kind;
      return v;
    }
    case ValueKind::List: {
      if (r.kind != ValueKind::List) return ev.maybe_no_such_overload(r);
      std::uint32_t n = l.list->size + r.list->size;
      Value* elems = ev.arena().make_array<Value>(n);
      for (std::uint32_t i = 0; i < l.list->size; ++i) elems[i] = l.list->elems[i];
      for (std::uint32_t i = 0; i < r.list->size; ++i) elems[l.list->size + i] = r.list->elems[i];
      return ev.make_list(elems, n);
    }
    default:
      return err_static(ev, "no such overload: _+_");
  }
}

Value subtract(Evaluator& ev, const Value* a) {
  const Value& l = a[0];
  const Value& r = a[1];
  switch (l.kind) {
    case ValueKind::Int: {
      if (r.kind != ValueKind::Int) return ev.maybe_no_such_overload(r);
      std::int64_t out;
      if (__builtin_sub_overflow(l.i, r.i, &out)) return err_static(ev, "integer overflow");
      return Value::integer(out);
    }
    case ValueKind::Uint: {
      if (r.kind != ValueKind::Uint) return ev.maybe_no_such_overload(r);
      if (r.u > l.u) return err_static(ev, "unsigned integer overflow");
      return Value::uinteger(l.u - r.u);
    }
    case ValueKind::Double:
      if (r.kind != ValueKind::Double) return ev.maybe_no_such_overload(r);
      return Value::dbl(l.d - r.d);
    default:
      return err_static(ev, "no such overload: _-_");
  }
}

Value multiply(Evaluator& ev, const Value* a) {
  const Value& l = a[0];
  const Value& r = a[1];
  switch (l.kind) {
    case ValueKind::Int: {
      if (r.kind != ValueKind::Int) return ev.maybe_no_such_overload(r);
      std::int64_t out;
      if (__builtin_mul_overflow(l.i, r.i, &out)) return err_static(ev, "integer overflow");
      return Value::integer(out);
    }
    case ValueKind::Uint: {
      if (r.kind != ValueKind::Uint) return ev.maybe_no_such_overload(r);
      std::uint64_t out;
      if (__builtin_mul_overflow(l.u, r.u, &out)) return err_static(ev, "unsigned integer overflow");
      return Value::uinteger(out);
    }
    case ValueKind::Double:
      if (r.kind != ValueKind::Double) return ev.maybe_no_such_overload(r);
      return Value::dbl(l.d * r.d);
    default:
      return err_static(ev, "no such overload: _*_");
  }
}

Value divide(Evaluator& ev, const Value* a) {
  const Value& l = a[0];
  const Value& r = a[1];
  switch (l.kind) {
    case ValueKind::Int:
      if (r.kind != ValueKind::Int) return ev.maybe_no_such_overload(r);
      if (r.i == 0) return err_static(ev, "division by zero");
      if (l.i == std::numeric_limits<std::int64_t>::min() && r.i == -1) return err_static(ev, "integer overflow");
      return Value::integer(l.i / r.i);
    case ValueKind::Uint:
      if (r.kind != ValueKind::Uint) return ev.maybe_no_such_overload(r);
      if (r.u == 0) return err_static(ev, "division by zero");
      return Value::uinteger(l.u / r.u);
    case ValueKind::Double:
      if (r.kind != ValueKind::Double) return ev.maybe_no_such_overload(r);
      return Value::dbl(l.d / r.d);
    default:
      return err_static(ev, "no such overload: _/_");
  }
}

Value modulo(Evaluator& ev, const Value* a) {
  const Value& l = a[0];
  const Value& r = a[1];
  switch (l.kind) {
    case ValueKind::Int:
      if (r.kind != ValueKind::Int) return ev.maybe_no_such_overload(r);
      if (r.i == 0) return err_static(ev, "modulus by zero");
      if (l.i == std::numeric_limits<std::int64_t>::min() && r.i == -1) return err_static(ev, "integer overflow");
      return Value::integer(l.i % r.i);
    case ValueKind::Uint:
      if (r.kind != ValueKind::Uint) return ev.maybe_no_such_overload(r);
      if (r.u == 0) return err_static(ev, "modulus by zero");
      return Value::uinteger(l.u % r.u);
    default:
      return err_static(ev, "no such overload: _%_");
  }
}

Value negate(Evaluator& ev, const Value* a) {
  const Value& v = a[0];
  switch (v.kind) {
    case ValueKind::Int:
      if (v.i == std::numeric_limits<std::int64_t>::min()) return err_static(ev, "integer overflow");
      return Value::integer(-v.i);
    case ValueKind::Double:
      return Value::dbl(-v.d);
    case ValueKind::Bool:
      return ev.no_such_overload();
    default:
      return err_static(ev, "no such overload: -_");
  }
}

// -1/0/1, 2 for an error (in `err`).
int compare_values(Evaluator& ev, const Value& l, const Value& r, Value& err) {
  auto nan = [&]() {
    err = err_static(ev, "NaN values cannot be ordered");
    return 2;
  };
  auto nso = [&]() {
    err = ev.maybe_no_such_overload(r);
    return 2;
  };
  auto cmp = [](auto x, auto y) { return x < y ? -1 : x > y ? 1 : 0; };
  switch (l.kind) {
    case ValueKind::Bool:
      if (r.kind != ValueKind::Bool) return nso();
      return cmp(static_cast<int>(l.b), static_cast<int>(r.b));
    case ValueKind::Int:
      if (r.kind == ValueKind::Int) return cmp(l.i, r.i);
      if (r.kind == ValueKind::Uint) {
        return (l.i < 0 || r.u > static_cast<std::uint64_t>(INT64_MAX)) ? -1 : cmp(l.i, static_cast<std::int64_t>(r.u));
      }
      if (r.kind == ValueKind::Double) return std::isnan(r.d) ? nan() : -compare_double_to(r.d, l);
      return nso();
    case ValueKind::Uint:
      if (r.kind == ValueKind::Uint) return cmp(l.u, r.u);
      if (r.kind == ValueKind::Int) {
        return (r.i < 0 || l.u > static_cast<std::uint64_t>(INT64_MAX)) ? 1 : cmp(static_cast<std::int64_t>(l.u), r.i);
      }
      if (r.kind == ValueKind::Double) return std::isnan(r.d) ? nan() : -compare_double_to(r.d, l);
      return nso();
    case ValueKind::Double:
      if (std::isnan(l.d)) {
        if (r.kind == ValueKind::Int || r.kind == ValueKind::Uint || r.kind == ValueKind::Double) return nan();
        return nso();
      }
      if (r.kind == ValueKind::Double) return std::isnan(r.d) ? nan() : cmp(l.d, r.d);
      if (r.kind == ValueKind::Int || r.kind == ValueKind::Uint) return compare_double_to(l.d, r);
      return nso();
    case ValueKind::String:
    case ValueKind::Bytes:
      if (r.kind != l.kind) return nso();
      return cmp(l.str().compare(r.str()), 0);
    default:
      err = Value();
      return 3;  // not comparable
  }
}

template <int Kind>  // 0 <, 1 <=, 2 >, 3 >=
Value relation(Evaluator& ev, const Value* a) {
  Value err;
  int c = compare_values(ev, a[0], a[1], err);
  if (c == 3) {
    static constexpr const char* kNames[] = {"no such overload: _<_", "no such overload: _<=_",
                                             "no such overload: _>_", "no such overload: _>=_"};
    return err_static(ev, kNames[Kind]);
  }
  if (c == 2) return err;
  bool r = Kind == 0 ? c < 0 : Kind == 1 ? c <= 0 : Kind == 2 ? c > 0 : c >= 0;
  return Value::boolean(r);
}

Value in_aggregate(Evaluator& ev, const Value* a) {
  const Value& needle = a[0];
  const Value& hay = a[1];
  if (hay.kind == ValueKind::List) {
    for (std::uint32_t i = 0; i < hay.list->size; ++i) {
      Value e = ev.equals(needle, hay.list->elems[i]);
      if (e.kind == ValueKind::Bool && e.b) return e;
    }
    return Value::boolean(false);
  }
  if (ev.is_map(hay)) {
    if (hay.kind == ValueKind::AttrDomains || hay.kind == ValueKind::CapDomains) {
      // Membership sees the real domains, not the empty map an unknown domain finds.
      if (needle.kind != ValueKind::String) return Value::boolean(false);
      const Device& d = *ev.device();
      auto has_domain = [&](const auto& items) {
        for (const auto& item : items) {
          std::string_view domain, id;
          split_qualified(item.name, d.driver, domain, id);
          if (domain == needle.str()) return true;
        }
        return false;
      };
      return Value::boolean(hay.kind == ValueKind::AttrDomains ? has_domain(d.attributes) : has_domain(d.capacity));
    }
    Value out;
    int r = ev.map_find(hay, needle, out);
    if (r < 0) return Value::boolean(true);  // present, its value is what fails
    return Value::boolean(r == 1);
  }
  return ev.maybe_no_such_overload(hay);
}

Value size_of(Evaluator& ev, const Value* a) {
  const Value& v = a[0];
  switch (v.kind) {
    case ValueKind::String: return Value::integer(static_cast<std::int64_t>(code_points(v.str())));
    case ValueKind::Bytes: return Value::integer(v.size);
    case ValueKind::List: return Value::integer(v.list->size);
    default:
      if (ev.is_map(v)) return Value::integer(ev.map_size(v));
      return err_static(ev, "no such overload: size");
  }
}

Value type_of_value(Evaluator&, const Value* a) { return Value::type(Evaluator::type_name(a[0])); }
Value identity(Evaluator&, const Value* a) { return a[0]; }

Value matches_impl(Evaluator& ev, const Value* a) {
  if (a[0].kind != ValueKind::String) return err_static(ev, "no such overload: matches");
  if (a[1].kind != ValueKind::String) return ev.maybe_no_such_overload(a[1]);
  if (const Regex* re = ev.regex_of(ev.current_node())) return Value::boolean(re->search(a[0].str()));
  auto re = Regex::compile(a[1].str());
  if (!re.ok()) return ev.error(re.error().message);
  return Value::boolean(re->search(a[0].str()));
}

// ---------------------------------------------------------------------------------------------
// Conversions

bool parse_go_int(std::string_view s, std::int64_t& out) {
  if (s.empty()) return false;
  std::string_view digits = s;
  if (digits[0] == '+' || digits[0] == '-') digits.remove_prefix(1);
  if (digits.empty()) return false;
  for (char c : digits)
    if (c < '0' || c > '9') return false;
  const char* b = s.data() + (s[0] == '+' ? 1 : 0);
  auto r = std::from_chars(b, s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool parse_go_uint(std::string_view s, std::uint64_t& out) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x + 32);
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y + 32);
    if (x != y) return false;
  }
  return true;
}

// strconv.ParseFloat(s, 64) for decimal text and Go's special spellings.
bool parse_go_float(std::string_view s, double& out) {
  if (s.empty()) return false;
  std::string_view body = s;
  bool neg = false;
  if (body[0] == '+' || body[0] == '-') {
    neg = body[0] == '-';
    body.remove_prefix(1);
  }
  if (iequals(body, "inf") || iequals(body, "infinity")) {
    out = neg ? -HUGE_VAL : HUGE_VAL;
    return true;
  }
  if (iequals(body, "nan")) {
    out = std::nan("");
    return true;
  }
  if (body.empty()) return false;
  for (char c : body)
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) return false;
  double v = 0;
  auto r = std::from_chars(body.data(), body.data() + body.size(), v, std::chars_format::general);
  if (r.ptr != body.data() + body.size()) return false;
  if (r.ec == std::errc::result_out_of_range) {
    // Overflow is an error in Go; underflow rounds to zero.
    bool huge = false;
    auto e = body.find_first_of("eE");
    if (e != std::string_view::npos) {
      std::string_view ex = body.substr(e + 1);
      huge = !ex.empty() && ex[0] != '-';
    } else {
      huge = true;
    }
    if (huge) return false;
    v = 0;
  } else if (r.ec != std::errc()) {
    return false;
  }
  out = neg ? -v : v;
  return true;
}

Value string_to_bool(Evaluator& ev, const Value* a) {
  std::string_view s = a[0].str();
  if (s == "1" || s == "t" || s == "T" || s == "TRUE" || s == "true" || s == "True") return Value::boolean(true);
  if (s == "0" || s == "f" || s == "F" || s == "FALSE" || s == "false" || s == "False") return Value::boolean(false);
  return conversion_error(ev, "string", "bool");
}
Value string_to_bytes(Evaluator&, const Value* a) { return Value::bytes(a[0].str()); }
Value bytes_to_string(Evaluator& ev, const Value* a) {
  if (!util::is_valid_utf8(a[0].str())) return err_static(ev, "invalid UTF-8 in bytes, cannot convert to string");
  return Value::string(a[0].str());
}
Value int_to_double(Evaluator&, const Value* a) { return Value::dbl(static_cast<double>(a[0].i)); }
Value uint_to_double(Evaluator&, const Value* a) { return Value::dbl(static_cast<double>(a[0].u)); }
Value string_to_double(Evaluator& ev, const Value* a) {
  double d = 0;
  if (!parse_go_float(a[0].str(), d)) return conversion_error(ev, "string", "double");
  return Value::dbl(d);
}
Value double_to_int(Evaluator& ev, const Value* a) {
  double v = a[0].d;
  if (std::isnan(v) || std::isinf(v) || v <= -9223372036854775808.0 || v >= 9223372036854775807.0) {
    return err_static(ev, "integer overflow");
  }
  return Value::integer(static_cast<std::int64_t>(v));
}
Value string_to_int(Evaluator& ev, const Value* a) {
  std::int64_t v = 0;
  if (!parse_go_int(a[0].str(), v)) return conversion_error(ev, "string", "int");
  return Value::integer(v);
}
Value uint_to_int(Evaluator& ev, const Value* a) {
  if (a[0].u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return err_static(ev, "integer overflow");
  }
  return Value::integer(static_cast<std::int64_t>(a[0].u));
}
Value double_to_uint(Evaluator& ev, const Value* a) {
  double v = a[0].d;
  if (std::isnan(v) || std::isinf(v) || v < 0 || v >= 18446744073709551616.0) {
    return err_static(ev, "unsigned integer overflow");
  }
  return Value::uinteger(static_cast<std::uint64_t>(v));
}
Value int_to_uint(Evaluator& ev, const Value* a) {
  if (a[0].i < 0) return err_static(ev, "unsigned integer overflow");
  return Value::uinteger(static_cast<std::uint64_t>(a[0].i));
}
Value string_to_uint(Evaluator& ev, const Value* a) {
  std::uint64_t v = 0;
  if (!parse_go_uint(a[0].str(), v)) return conversion_error(ev, "string", "uint");
  return Value::uinteger(v);
}
Value bool_to_string(Evaluator&, const Value* a) { return Value::string(a[0].b ? "true" : "false"); }
Value double_to_string(Evaluator& ev, const Value* a) {
  StrBuf b(ev.arena());
  format_double(b, a[0].d);
  return Value::string(b.view());
}
Value int_to_string(Evaluator& ev, const Value* a) {
  StrBuf b(ev.arena());
  b << a[0].i;
  return Value::string(b.view());
}
Value uint_to_string(Evaluator& ev, const Value* a) {
  StrBuf b(ev.arena());
  b << a[0].u;
  return Value::string(b.view());
}

Value contains_string(Evaluator&, const Value* a) {
  return Value::boolean(a[0].str().find(a[1].str()) != std::string_view::npos);
}
Value starts_with(Evaluator&, const Value* a) { return Value::boolean(a[0].str().substr(0, a[1].size) == a[1].str()); }
Value ends_with(Evaluator&, const Value* a) {
  return Value::boolean(a[0].size >= a[1].size && a[0].str().substr(a[0].size - a[1].size) == a[1].str());
}

// ---------------------------------------------------------------------------------------------
// Kubernetes regex library

const Regex* pattern(Evaluator& ev, const Value& p, Value& err, util::Result<Regex, RegexError>& holder) {
  if (const Regex* re = ev.regex_of(ev.current_node())) return re;
  holder = Regex::compile(p.str());
  if (!holder.ok()) {
    StrBuf b(ev.arena());
    b << "Illegal regex: " << holder.error().message;
    err = ev.error(b.view());
    return nullptr;
  }
  return &*holder;
}

Value find_impl(Evaluator& ev, const Value* a) {
  Value err;
  util::Result<Regex, RegexError> holder = RegexError{};
  const Regex* re = pattern(ev, a[1], err, holder);
  if (!re) return err;
  std::size_t b = 0, e = 0;
  if (!re->find(a[0].str(), 0, b, e)) return Value::string("");
  return Value::string(a[0].str().substr(b, e - b));
}

Value find_all_n(Evaluator& ev, const Value* a, std::int64_t n) {
  Value err;
  util::Result<Regex, RegexError> holder = RegexError{};
  const Regex* re = pattern(ev, a[1], err, holder);
  if (!re) return err;
  std::string_view s = a[0].str();
  std::uint32_t count = 0, cap = 8;
  Value* out = ev.arena().make_array<Value>(cap);
  std::size_t pos = 0;
  std::size_t prev_end = std::string_view::npos;
  while (n < 0 || count < static_cast<std::uint64_t>(n)) {
    if (pos > s.size()) break;
    std::size_t b = 0, e = 0;
    if (!re->find(s, pos, b, e)) break;
    bool accept = true;
    if (e == b) {
      // An empty match right after the previous match is skipped (Go's FindAll).
      if (b == prev_end) accept = false;
    }
    if (accept) {
      if (count == cap) {
        Value* grown = ev.arena().make_array<Value>(cap * 2);
        for (std::uint32_t i = 0; i < count; ++i) grown[i] = out[i];
        out = grown;
        cap *= 2;
      }
      out[count++] = Value::string(s.substr(b, e - b));
      prev_end = e;
    }
    if (e > b) {
      pos = e;
    } else {
      // Advance one code point past an empty match.
      if (b >= s.size()) break;
      std::size_t w = 0;
      decode_rune(s, b, w);
      pos = b + w;
    }
  }
  return ev.make_list(out, count);
}
Value find_all(Evaluator& ev, const Value* a) { return find_all_n(ev, a, -1); }
Value find_all_limit(Evaluator& ev, const Value* a) { return find_all_n(ev, a, a[2].i); }

// ---------------------------------------------------------------------------------------------
// Kubernetes lists library

Value is_sorted(Evaluator& ev, const Value* a) {
  const ListValue& l = *a[0].list;
  for (std::uint32_t i = 1; i < l.size; ++i) {
    Value err;
    int c = compare_values(ev, l.elems[i - 1], l.elems[i], err);
    if (c == 3) return ev.maybe_no_such_overload(l.elems[i - 1]);
    if (c == 1) return Value::boolean(false);
  }
  return Value::boolean(true);
}

template <int Zero>  // 0 int, 1 uint, 2 double
Value sum_impl(Evaluator& ev, const Value* a) {
  Value acc = Zero == 0 ? Value::integer(0) : Zero == 1 ? Value::uinteger(0) : Value::dbl(0);
  const ListValue& l = *a[0].list;
  for (std::uint32_t i = 0; i < l.size; ++i) {
    Value args[2] = {acc, l.elems[i]};
    acc = add(ev, args);
    if (acc.is_error()) return acc;
  }
  return acc;
}

template <bool Max>
Value min_max(Evaluator& ev, const Value* a) {
  const ListValue& l = *a[0].list;
  if (l.size == 0) return err_static(ev, Max ? "max called on empty list" : "min called on empty list");
  Value best = l.elems[0];
  Value err;
  if (compare_values(ev, best, best, err) == 3) return ev.maybe_no_such_overload(best);
  for (std::uint32_t i = 1; i < l.size; ++i) {
    int c = compare_values(ev, best, l.elems[i], err);
    if (c == 3) return ev.maybe_no_such_overload(l.elems[i]);
    if ((Max && c == -1) || (!Max && c == 1)) best = l.elems[i];
  }
  return best;
}

Value list_index_of(Evaluator& ev, const Value* a) {
  const ListValue& l = *a[0].list;
  for (std::uint32_t i = 0; i < l.size; ++i) {
    Value e = ev.equals(l.elems[i], a[1]);
    if (e.kind == ValueKind::Bool && e.b) return Value::integer(i);
  }
  return Value::integer(-1);
}

Value list_last_index_of(Evaluator& ev, const Value* a) {
  const ListValue& l = *a[0].list;
  for (std::uint32_t i = l.size; i > 0; --i) {
    Value e = ev.equals(l.elems[i - 1], a[1]);
    if (e.kind == ValueKind::Bool && e.b) return Value::integer(i - 1);
  }
  return Value::integer(-1);
}

// ---------------------------------------------------------------------------------------------
// Kubernetes quantity library

Value quantity_from_string(Evaluator& ev, const Value* a) {
  auto q = api::Quantity::parse(a[0].str());
  if (!q.ok()) return ev.error(q.error());
  return ev.make_quantity(*q, false);
}
Value is_quantity(Evaluator&, const Value* a) { return Value::boolean(api::Quantity::parse(a[0].str()).ok()); }
Value quantity_sign(Evaluator&, const Value* a) { return Value::integer(a[0].q->sign()); }
Value quantity_greater(Evaluator&, const Value* a) { return Value::boolean(*a[0].q > *a[1].q); }
Value quantity_less(Evaluator&, const Value* a) { return Value::boolean(*a[0].q < *a[1].q); }
Value quantity_compare(Evaluator&, const Value* a) {
  auto c = *a[0].q <=> *a[1].q;
  return Value::integer(c < 0 ? -1 : c > 0 ? 1 : 0);
}

// resource.Quantity.AsInt64: the value when it is an integer that fits an int64.
bool quantity_as_int64(const api::Quantity& q, std::int64_t& out) {
  static const api::Quantity kMax = api::Quantity::from_int(std::numeric_limits<std::int64_t>::max());
  static const api::Quantity kMin = api::Quantity::from_int(std::numeric_limits<std::int64_t>::min());
  if (q > kMax || q < kMin) return false;
  std::int64_t v = q.value();
  if (api::Quantity::from_int(v) != q) return false;
  out = v;
  return true;
}

Value quantity_as_float(Evaluator&, const Value* a) {
  // From the canonical text, which is exact: a mantissa with an SI, binary or decimal exponent
  // suffix.
  std::string text = a[0].q->to_string();
  std::size_t k = 0;
  if (k < text.size() && (text[k] == '-' || text[k] == '+')) ++k;
  while (k < text.size() && ((text[k] >= '0' && text[k] <= '9') || text[k] == '.')) ++k;
  double mant = 0;
  std::from_chars(text.data(), text.data() + k, mant);
  std::string_view suffix(text.data() + k, text.size() - k);
  double scale = 1;
  if (suffix.empty()) scale = 1;
  else if (suffix == "n") scale = 1e-9;
  else if (suffix == "u") scale = 1e-6;
  else if (suffix == "m") scale = 1e-3;
  else if (suffix == "k") scale = 1e3;
  else if (suffix == "M") scale = 1e6;
  else if (suffix == "G") scale = 1e9;
  else if (suffix == "T") scale = 1e12;
  else if (suffix == "P") scale = 1e15;
  else if (suffix == "E") scale = 1e18;
  else if (suffix == "Ki") scale = 1024.0;
  else if (suffix == "Mi") scale = 1024.0 * 1024;
  else if (suffix == "Gi") scale = 1024.0 * 1024 * 1024;
  else if (suffix == "Ti") scale = 1024.0 * 1024 * 1024 * 1024;
  else if (suffix == "Pi") scale = 1024.0 * 1024 * 1024 * 1024 * 1024;
  else if (suffix == "Ei") scale = 1024.0 * 1024 * 1024 * 1024 * 1024 * 1024;
  else if (suffix[0] == 'e' || suffix[0] == 'E') {
    int e = 0;
    std::from_chars(suffix.data() + 1, suffix.data() + suffix.size(), e);
    scale = std::pow(10.0, e);
  }
  return Value::dbl(mant * scale);
}

Value quantity_as_int(Evaluator& ev, const Value* a) {
  std::int64_t v = 0;
  if (!quantity_as_int64(*a[0].q, v)) return err_static(ev, "cannot convert value to integer");
  return Value::integer(v);
}
Value quantity_is_int(Evaluator&, const Value* a) {
  std::int64_t v = 0;
  return Value::boolean(quantity_as_int64(*a[0].q, v));
}
Value quantity_add(Evaluator& ev, const Value* a) { return ev.make_quantity(*a[0].q + *a[1].q, true); }
Value quantity_add_int(Evaluator& ev, const Value* a) {
  return ev.make_quantity(*a[0].q + api::Quantity::from_int(a[1].i, api::Quantity::Format::DecimalExponent), true);
}
Value quantity_sub(Evaluator& ev, const Value* a) { return ev.make_quantity(*a[0].q - *a[1].q, true); }
Value quantity_sub_int(Evaluator& ev, const Value* a) {
  return ev.make_quantity(*a[0].q - api::Quantity::from_int(a[1].i, api::Quantity::Format::DecimalExponent), true);
}

// ---------------------------------------------------------------------------------------------
// Kubernetes semver library

Value make_semver(Evaluator& ev, std::string_view text, bool normalize) {
  std::string normalized;
  std::string why;
  if (normalize) {
    if (!normalize_semver(text, normalized, &why)) return ev.error(why);
    text = ev.arena().copy(normalized);
  }
  Semver v;
  if (!parse_semver(text, v, nullptr)) {
    parse_semver(text, v, &why);
    return ev.error(why);
  }
  auto* p = ev.arena().make_array<Semver>(1);
  new (p) Semver(v);
  Value out;
  out.kind = ValueKind::Semver;
  out.sv = p;
  return out;
}
Value semver_from_string(Evaluator& ev, const Value* a) { return make_semver(ev, a[0].str(), false); }
Value semver_from_string_normalize(Evaluator& ev, const Value* a) { return make_semver(ev, a[0].str(), a[1].b); }
Value is_semver(Evaluator& ev, const Value* a) { return Value::boolean(!make_semver(ev, a[0].str(), false).is_error()); }
Value is_semver_normalize(Evaluator& ev, const Value* a) {
  return Value::boolean(!make_semver(ev, a[0].str(), a[1].b).is_error());
}
Value semver_greater(Evaluator&, const Value* a) { return Value::boolean(compare_semver(*a[0].sv, *a[1].sv) == 1); }
Value semver_less(Evaluator&, const Value* a) { return Value::boolean(compare_semver(*a[0].sv, *a[1].sv) == -1); }
Value semver_compare(Evaluator&, const Value* a) { return Value::integer(compare_semver(*a[0].sv, *a[1].sv)); }
Value semver_major(Evaluator&, const Value* a) { return Value::integer(static_cast<std::int64_t>(a[0].sv->major)); }
Value semver_minor(Evaluator&, const Value* a) { return Value::integer(static_cast<std::int64_t>(a[0].sv->minor)); }
Value semver_patch(Evaluator&, const Value* a) { return Value::integer(static_cast<std::int64_t>(a[0].sv->patch)); }

// ---------------------------------------------------------------------------------------------
// cel-go strings extension (version 2)

Value index_error(Evaluator& ev, std::int64_t i) {
  StrBuf b(ev.arena());
  b << "index out of range: ";
  b << i;
  return ev.error(b.view());
}

Value char_at(Evaluator& ev, const Value* a) {
  Runes r = runes_of(ev, a[0].str());
  std::int64_t i = a[1].i;
  if (i < 0 || static_cast<std::uint64_t>(i) > r.count) return index_error(ev, i);
  if (static_cast<std::size_t>(i) == r.count) return Value::string("");
  return Value::string(a[0].str().substr(r.offsets[i], r.offsets[i + 1] - r.offsets[i]));
}

std::int64_t index_of_runes(const Runes& s, const Runes& sub, std::int64_t off) {
  if (sub.count > s.count) return -1;
  for (std::size_t i = static_cast<std::size_t>(off); i + sub.count <= s.count; ++i) {
    bool found = true;
    for (std::size_t j = 0; j < sub.count; ++j) {
      if (s.values[i + j] != sub.values[j]) {
        found = false;
        break;
      }
    }
    if (found) return static_cast<std::int64_t>(i);
  }
  return -1;
}

Value index_of_offset(Evaluator& ev, std::string_view str, std::string_view sub, std::int64_t off) {
  if (sub.empty()) return Value::integer(off);
  Runes s = runes_of(ev, str);
  Runes u = runes_of(ev, sub);
  if (off < 0) return index_error(ev, off);
  if (static_cast<std::uint64_t>(off) >= s.count) return Value::integer(-1);
  return Value::integer(index_of_runes(s, u, off));
}
Value string_index_of(Evaluator& ev, const Value* a) { return index_of_offset(ev, a[0].str(), a[1].str(), 0); }
Value string_index_of_int(Evaluator& ev, const Value* a) { return index_of_offset(ev, a[0].str(), a[1].str(), a[2].i); }

Value last_index_of_offset(Evaluator& ev, std::string_view str, std::string_view sub, std::int64_t off) {
  if (sub.empty()) return Value::integer(off);
  Runes s = runes_of(ev, str);
  Runes u = runes_of(ev, sub);
  if (off < 0) return index_error(ev, off);
  if (static_cast<std::uint64_t>(off) >= s.count) return Value::integer(-1);
  if (off > static_cast<std::int64_t>(s.count) - static_cast<std::int64_t>(u.count)) {
    off = static_cast<std::int64_t>(s.count) - static_cast<std::int64_t>(u.count);
  }
  for (std::int64_t i = off; i >= 0; --i) {
    bool found = true;
    for (std::size_t j = 0; j < u.count; ++j) {
      if (s.values[static_cast<std::size_t>(i) + j] != u.values[j]) {
        found = false;
        break;
      }
    }
    if (found) return Value::integer(i);
  }
  return Value::integer(-1);
}
Value string_last_index_of(Evaluator& ev, const Value* a) {
  std::string_view str = a[0].str(), sub = a[1].str();
  if (sub.empty()) return Value::integer(static_cast<std::int64_t>(code_points(str)));
  if (str.size() < sub.size()) return Value::integer(-1);
  return last_index_of_offset(ev, str, sub, static_cast<std::int64_t>(code_points(str)) - 1);
}
Value string_last_index_of_int(Evaluator& ev, const Value* a) {
  return last_index_of_offset(ev, a[0].str(), a[1].str(), a[2].i);
}

template <bool Upper>
Value ascii_case(Evaluator& ev, const Value* a) {
  std::string_view s = a[0].str();
  char* p = ev.arena().make_array<char>(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (Upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
    if (!Upper && c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    p[i] = c;
  }
  return Value::string({p, s.size()});
}

// strings.Replace(s, old, new, n) (n < 0: all).
Value replace_n(Evaluator& ev, std::string_view s, std::string_view old, std::string_view repl, std::int64_t n) {
  if (n == 0 || (old == repl)) return Value::string(s);
  StrBuf b(ev.arena());
  std::int64_t done = 0;
  std::size_t i = 0;
  if (old.empty()) {
    // Inserts the replacement before every code point and at the end.
    while (n < 0 || done < n) {
      b << repl;
      ++done;
      if (i >= s.size()) break;
      std::size_t w = 0;
      decode_rune(s, i, w);
      b << s.substr(i, w);
      i += w;
    }
    b << s.substr(std::min(i, s.size()));
    return Value::string(b.view());
  }
  while (n < 0 || done < n) {
    auto k = s.find(old, i);
    if (k == std::string_view::npos) break;
    b << s.substr(i, k - i) << repl;
    i = k + old.size();
    ++done;
  }
  b << s.substr(i);
  return Value::string(b.view());
}
Value replace_all(Evaluator& ev, const Value* a) { return replace_n(ev, a[0].str(), a[1].str(), a[2].str(), -1); }
Value replace_limit(Evaluator& ev, const Value* a) { return replace_n(ev, a[0].str(), a[1].str(), a[2].str(), a[3].i); }

// strings.SplitN(s, sep, n) (n < 0: all).
Value split_n(Evaluator& ev, std::string_view s, std::string_view sep, std::int64_t n) {
  if (n == 0) return ev.make_list(nullptr, 0);
  std::uint32_t cap = 8, count = 0;
  Value* out = ev.arena().make_array<Value>(cap);
  auto push = [&](std::string_view part) {
    if (count == cap) {
      Value* grown = ev.arena().make_array<Value>(cap * 2);
      for (std::uint32_t i = 0; i < count; ++i) grown[i] = out[i];
      out = grown;
      cap *= 2;
    }
    out[count++] = Value::string(part);
  };
  if (sep.empty()) {
    std::size_t i = 0;
    while (i < s.size()) {
      if (n > 0 && static_cast<std::int64_t>(count) == n - 1) {
        push(s.substr(i));
        return ev.make_list(out, count);
      }
      std::size_t w = 0;
      decode_rune(s, i, w);
      push(s.substr(i, w));
      i += w;
    }
    return ev.make_list(out, count);
  }
  std::size_t i = 0;
  while (n < 0 || static_cast<std::int64_t>(count) < n - 1) {
    auto k = s.find(sep, i);
    if (k == std::string_view::npos) break;
    push(s.substr(i, k - i));
    i = k + sep.size();
  }
  push(s.substr(i));
  return ev.make_list(out, count);
}
Value split_all(Evaluator& ev, const Value* a) { return split_n(ev, a[0].str(), a[1].str(), -1); }
Value split_limit(Evaluator& ev, const Value* a) { return split_n(ev, a[0].str(), a[1].str(), a[2].i); }

Value substring_from(Evaluator& ev, const Value* a) {
  Runes r = runes_of(ev, a[0].str());
  std::int64_t start = a[1].i;
  if (start < 0 || static_cast<std::uint64_t>(start) > r.count) return index_error(ev, start);
  return Value::string(a[0].str().substr(r.offsets[start]));
}
Value substring_range(Evaluator& ev, const Value* a) {
  Runes r = runes_of(ev, a[0].str());
  std::int64_t start = a[1].i, end = a[2].i;
  if (start > end) {
    StrBuf b(ev.arena());
    b << "invalid substring range. start: ";
    b << start;
    b << ", end: ";
    b << end;
    return ev.error(b.view());
  }
  if (start < 0 || static_cast<std::uint64_t>(start) > r.count) return index_error(ev, start);
  if (end < 0 || static_cast<std::uint64_t>(end) > r.count) return index_error(ev, end);
  return Value::string(a[0].str().substr(r.offsets[start], r.offsets[end] - r.offsets[start]));
}

bool is_go_space(std::uint32_t c) {
  switch (c) {
    case '\t': case '\n': case '\v': case '\f': case '\r': case ' ': case 0x85: case 0xA0: case 0x1680:
    case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000:
      return true;
    default:
      return c >= 0x2000 && c <= 0x200A;
  }
}
Value trim(Evaluator&, const Value* a) {
  std::string_view s = a[0].str();
  std::size_t b = 0;
  while (b < s.size()) {
    std::size_t w = 0;
    if (!is_go_space(decode_rune(s, b, w))) break;
    b += w;
  }
  std::size_t e = s.size();
  while (e > b) {
    std::size_t k = e - 1;
    while (k > b && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) --k;
    std::size_t w = 0;
    std::uint32_t c = decode_rune(s, k, w);
    if (k + w != e || !is_go_space(c)) break;
    e = k;
  }
  return Value::string(s.substr(b, e - b));
}

Value join_impl(Evaluator& ev, const ListValue& l, std::string_view sep) {
  StrBuf b(ev.arena());
  for (std::uint32_t i = 0; i < l.size; ++i) {
    if (i > 0) b << sep;
    const Value& e = l.elems[i];
    if (e.kind != ValueKind::String) {
      StrBuf m(ev.arena());
      m << "join: invalid input: ";
      ev.format(m, e);
      return ev.error(m.view());
    }
    b << e.str();
  }
  return Value::string(b.view());
}
Value join(Evaluator& ev, const Value* a) { return join_impl(ev, *a[0].list, ""); }
Value join_sep(Evaluator& ev, const Value* a) { return join_impl(ev, *a[0].list, a[1].str()); }

Value quote(Evaluator& ev, const Value* a) {
  std::string_view s = a[0].str();
  StrBuf b(ev.arena());
  b << '"';
  for (std::size_t i = 0; i < s.size();) {
    std::size_t w = 0;
    std::uint32_t c = decode_rune(s, i, w);
    i += w;
    switch (c) {
      case '\a': b << "\\a"; break;
      case '\b': b << "\\b"; break;
      case '\f': b << "\\f"; break;
      case '\n': b << "\\n"; break;
      case '\r': b << "\\r"; break;
      case '\t': b << "\\t"; break;
      case '\v': b << "\\v"; break;
      case '\\': b << "\\\\"; break;
      case '"': b << "\\\""; break;
      default: append_rune(b, c); break;
    }
  }
  b << '"';
  return Value::string(b.view());
}

// ---------------------------------------------------------------------------------------------
// cel-go sets extension

bool list_contains(Evaluator& ev, const ListValue& l, const Value& v) {
  for (std::uint32_t i = 0; i < l.size; ++i) {
    Value e = ev.equals(v, l.elems[i]);
    if (e.kind == ValueKind::Bool && e.b) return true;
  }
  return false;
}
Value sets_contains(Evaluator& ev, const Value* a) {
  for (std::uint32_t i = 0; i < a[1].list->size; ++i)
    if (!list_contains(ev, *a[0].list, a[1].list->elems[i])) return Value::boolean(false);
  return Value::boolean(true);
}
Value sets_equivalent(Evaluator& ev, const Value* a) {
  Value ab = sets_contains(ev, a);
  if (!ab.b) return ab;
  Value swapped[2] = {a[1], a[0]};
  return sets_contains(ev, swapped);
}
Value sets_intersects(Evaluator& ev, const Value* a) {
  for (std::uint32_t i = 0; i < a[0].list->size; ++i)
    if (list_contains(ev, *a[1].list, a[0].list->elems[i])) return Value::boolean(true);
  return Value::boolean(false);
}

// ---------------------------------------------------------------------------------------------
// Optional types

Value optional_of(Evaluator& ev, const Value* a) { return ev.make_optional(&a[0]); }
bool is_zero_value(Evaluator& ev, const Value& v) {
  switch (v.kind) {
    case ValueKind::Null: return true;
    case ValueKind::Bool: return !v.b;
    case ValueKind::Int: return v.i == 0;
    case ValueKind::Uint: return v.u == 0;
    case ValueKind::Double: return v.d == 0;
    case ValueKind::String: case ValueKind::Bytes: return v.size == 0;
    case ValueKind::List: return v.list->size == 0;
    case ValueKind::Optional: return !v.opt;
    default:
      if (ev.is_map(v)) return ev.map_size(v) == 0;
      return false;
  }
}
Value optional_of_non_zero(Evaluator& ev, const Value* a) {
  return is_zero_value(ev, a[0]) ? ev.make_optional(nullptr) : ev.make_optional(&a[0]);
}
Value optional_none(Evaluator& ev, const Value*) { return ev.make_optional(nullptr); }
Value optional_value(Evaluator& ev, const Value* a) {
  if (!a[0].opt) return err_static(ev, "optional.none() dereference");
  return *a[0].opt;
}
Value optional_has_value(Evaluator&, const Value* a) { return Value::boolean(a[0].opt != nullptr); }
Value optional_or(Evaluator&, const Value* a) { return a[0].opt ? a[0] : a[1]; }
Value optional_or_value(Evaluator&, const Value* a) { return a[0].opt ? *a[0].opt : a[1]; }
Value list_first(Evaluator& ev, const Value* a) {
  return a[0].list->size ? ev.make_optional(&a[0].list->elems[0]) : ev.make_optional(nullptr);
}
Value list_last(Evaluator& ev, const Value* a) {
  return a[0].list->size ? ev.make_optional(&a[0].list->elems[a[0].list->size - 1]) : ev.make_optional(nullptr);
}
Value optional_unwrap(Evaluator& ev, const Value* a) {
  const ListValue& l = *a[0].list;
  Value* out = ev.arena().make_array<Value>(l.size);
  std::uint32_t n = 0;
  for (std::uint32_t i = 0; i < l.size; ++i) {
    const Value& e = l.elems[i];
    if (e.kind != ValueKind::Optional) {
      StrBuf b(ev.arena());
      b << "value ";
      ev.format(b, e);
      b << " is not optional";
      return ev.error(b.view());
    }
    if (e.opt) out[n++] = *e.opt;
  }
  return ev.make_list(out, n);
}

// ---------------------------------------------------------------------------------------------
// The table

struct Library {
  std::vector<FunctionDecl> functions;
  std::map<std::string, std::size_t, std::less<>> by_name;

  FunctionDecl& fn(const std::string& name, Impl singleton = nullptr) {
    auto it = by_name.find(name);
    if (it != by_name.end()) {
      FunctionDecl& f = functions[it->second];
      if (singleton) f.singleton = singleton;
      return f;
    }
    by_name.emplace(name, functions.size());
    functions.push_back(FunctionDecl{name, {}, singleton});
    return functions.back();
  }

  static void collect_params(const Type& t, std::vector<std::string>& out) {
    if (t.kind == TypeKind::TypeParam) {
      if (std::find(out.begin(), out.end(), t.name) == out.end()) out.push_back(t.name);
      return;
    }
    for (const auto& p : t.params) collect_params(*p, out);
  }

  void ov(const std::string& name, const char* id, bool member, std::initializer_list<const char*> args,
          const char* result, Impl impl = nullptr) {
    OverloadDecl o;
    o.id = id;
    o.member = member;
    for (const char* a : args) o.args.push_back(types::parse(a));
    o.result = types::parse(result);
    for (const auto& a : o.args) collect_params(*a, o.type_params);
    collect_params(*o.result, o.type_params);
    o.impl = impl;
    fn(name).overloads.push_back(std::move(o));
  }
  void global(const std::string& name, const char* id, std::initializer_list<const char*> args, const char* result,
              Impl impl = nullptr) {
    ov(name, id, false, args, result, impl);
  }
  void member(const std::string& name, const char* id, std::initializer_list<const char*> args, const char* result,
              Impl impl = nullptr) {
    ov(name, id, true, args, result, impl);
  }

  Library() {
    // Pointers into `functions` are handed out: reserve so that they stay put.
    functions.reserve(128);
    build_standard();
    build_kubernetes_lists();
    build_optional();
    build_quantity();
    build_strings();
    build_sets();
    build_semver();
  }

  void build_standard() {
    global("_?_:_", "conditional", {"bool", "A", "A"}, "A");
    global("_&&_", "logical_and", {"bool", "bool"}, "bool");
    global("_||_", "logical_or", {"bool", "bool"}, "bool");
    global("!_", "logical_not", {"bool"}, "bool");
    global("@not_strictly_false", "not_strictly_false", {"bool"}, "bool");
    global("_==_", "equals", {"A", "A"}, "bool");
    global("_!=_", "not_equals", {"A", "A"}, "bool");

    fn("_+_", add);
    global("_+_", "add_bytes", {"bytes", "bytes"}, "bytes");
    global("_+_", "add_double", {"double", "double"}, "double");
    global("_+_", "add_int64", {"int", "int"}, "int");
    global("_+_", "add_list", {"list(A)", "list(A)"}, "list(A)");
    global("_+_", "add_string", {"string", "string"}, "string");
    global("_+_", "add_uint64", {"uint", "uint"}, "uint");
    fn("_/_", divide);
    global("_/_", "divide_double", {"double", "double"}, "double");
    global("_/_", "divide_int64", {"int", "int"}, "int");
    global("_/_", "divide_uint64", {"uint", "uint"}, "uint");
    fn("_%_", modulo);
    global("_%_", "modulo_int64", {"int", "int"}, "int");
    global("_%_", "modulo_uint64", {"uint", "uint"}, "uint");
    fn("_*_", multiply);
    global("_*_", "multiply_double", {"double", "double"}, "double");
    global("_*_", "multiply_int64", {"int", "int"}, "int");
    global("_*_", "multiply_uint64", {"uint", "uint"}, "uint");
    fn("-_", negate);
    global("-_", "negate_double", {"double"}, "double");
    global("-_", "negate_int64", {"int"}, "int");
    fn("_-_", subtract);
    global("_-_", "subtract_double", {"double", "double"}, "double");
    global("_-_", "subtract_int64", {"int", "int"}, "int");
    global("_-_", "subtract_uint64", {"uint", "uint"}, "uint");

    struct Rel {
      const char* name;
      const char* prefix;
      Impl impl;
    };
    const Rel rels[] = {{"_<_", "less", relation<0>},
                        {"_<=_", "less_equals", relation<1>},
                        {"_>_", "greater", relation<2>},
                        {"_>=_", "greater_equals", relation<3>}};
    for (const auto& r : rels) {
      fn(r.name, r.impl);
      std::string p = r.prefix;
      auto id = [&](const char* suffix) { return intern(p + "_" + suffix); };
      global(r.name, id("bool"), {"bool", "bool"}, "bool");
      global(r.name, id("int64"), {"int", "int"}, "bool");
      global(r.name, id("int64_double"), {"int", "double"}, "bool");
      global(r.name, id("int64_uint64"), {"int", "uint"}, "bool");
      global(r.name, id("uint64"), {"uint", "uint"}, "bool");
      global(r.name, id("uint64_double"), {"uint", "double"}, "bool");
      global(r.name, id("uint64_int64"), {"uint", "int"}, "bool");
      global(r.name, id("double"), {"double", "double"}, "bool");
      global(r.name, id("double_int64"), {"double", "int"}, "bool");
      global(r.name, id("double_uint64"), {"double", "uint"}, "bool");
      global(r.name, id("string"), {"string", "string"}, "bool");
      global(r.name, id("bytes"), {"bytes", "bytes"}, "bool");
    }

    global("_[_]", "index_list", {"list(A)", "int"}, "A");
    global("_[_]", "index_map", {"map(A, B)", "A"}, "B");
    fn("@in", in_aggregate);
    global("@in", "in_list", {"A", "list(A)"}, "bool");
    global("@in", "in_map", {"A", "map(A, B)"}, "bool");
    fn("size", size_of);
    global("size", "size_bytes", {"bytes"}, "int");
    member("size", "bytes_size", {"bytes"}, "int");
    global("size", "size_list", {"list(A)"}, "int");
    member("size", "list_size", {"list(A)"}, "int");
    global("size", "size_map", {"map(A, B)"}, "int");
    member("size", "map_size", {"map(A, B)"}, "int");
    global("size", "size_string", {"string"}, "int");
    member("size", "string_size", {"string"}, "int");

    fn("type", type_of_value);
    global("type", "type", {"A"}, "type(A)");
    global("bool", "bool_to_bool", {"bool"}, "bool", identity);
    global("bool", "string_to_bool", {"string"}, "bool", string_to_bool);
    global("bytes", "bytes_to_bytes", {"bytes"}, "bytes", identity);
    global("bytes", "string_to_bytes", {"string"}, "bytes", string_to_bytes);
    global("double", "double_to_double", {"double"}, "double", identity);
    global("double", "int64_to_double", {"int"}, "double", int_to_double);
    global("double", "string_to_double", {"string"}, "double", string_to_double);
    global("double", "uint64_to_double", {"uint"}, "double", uint_to_double);
    fn("dyn", identity);
    global("dyn", "to_dyn", {"A"}, "dyn");
    global("int", "int64_to_int64", {"int"}, "int", identity);
    global("int", "double_to_int64", {"double"}, "int", double_to_int);
    global("int", "string_to_int64", {"string"}, "int", string_to_int);
    global("int", "uint64_to_int64", {"uint"}, "int", uint_to_int);
    global("string", "string_to_string", {"string"}, "string", identity);
    global("string", "bool_to_string", {"bool"}, "string", bool_to_string);
    global("string", "bytes_to_string", {"bytes"}, "string", bytes_to_string);
    global("string", "double_to_string", {"double"}, "string", double_to_string);
    global("string", "int64_to_string", {"int"}, "string", int_to_string);
    global("string", "uint64_to_string", {"uint"}, "string", uint_to_string);
    global("uint", "uint64_to_uint64", {"uint"}, "uint", identity);
    global("uint", "double_to_uint64", {"double"}, "uint", double_to_uint);
    global("uint", "int64_to_uint64", {"int"}, "uint", int_to_uint);
    global("uint", "string_to_uint64", {"string"}, "uint", string_to_uint);

    member("contains", "contains_string", {"string", "string"}, "bool", contains_string);
    member("endsWith", "ends_with_string", {"string", "string"}, "bool", ends_with);
    member("startsWith", "starts_with_string", {"string", "string"}, "bool", starts_with);
    fn("matches", matches_impl);
    global("matches", "matches", {"string", "string"}, "bool");
    member("matches", "matches_string", {"string", "string"}, "bool");

    // Kubernetes regex library (before the lists library, as the base environment adds it).
    member("find", "string_find_string", {"string", "string"}, "string", find_impl);
    member("findAll", "string_find_all_string", {"string", "string"}, "list(string)", find_all);
    member("findAll", "string_find_all_string_int", {"string", "string", "int"}, "list(string)", find_all_limit);
  }

  void build_kubernetes_lists() {
    const char* comparable[] = {"int", "uint", "double", "bool", "string", "bytes"};
    for (const char* t : comparable) {
      std::string list = std::string("list(") + t + ")";
      member("isSorted", intern(std::string("list_") + t + "_is_sorted_bool"), {intern(list)}, "bool", is_sorted);
    }
    member("sum", "list_int_sum_int", {"list(int)"}, "int", sum_impl<0>);
    member("sum", "list_uint_sum_uint", {"list(uint)"}, "uint", sum_impl<1>);
    member("sum", "list_double_sum_double", {"list(double)"}, "double", sum_impl<2>);
    for (const char* t : comparable) {
      std::string list = std::string("list(") + t + ")";
      member("max", intern(std::string("list_") + t + "_max_" + t), {intern(list)}, t, min_max<true>);
    }
    for (const char* t : comparable) {
      std::string list = std::string("list(") + t + ")";
      member("min", intern(std::string("list_") + t + "_min_" + t), {intern(list)}, t, min_max<false>);
    }
    member("indexOf", "list_a_index_of_int", {"list(A)", "A"}, "int", list_index_of);
    member("lastIndexOf", "list_a_last_index_of_int", {"list(A)", "A"}, "int", list_last_index_of);
  }

  void build_optional() {
    global("optional.of", "optional_of", {"V"}, "optional_type(V)", optional_of);
    global("optional.ofNonZeroValue", "optional_ofNonZeroValue", {"V"}, "optional_type(V)", optional_of_non_zero);
    global("optional.none", "optional_none", {}, "optional_type(V)", optional_none);
    member("value", "optional_value", {"optional_type(V)"}, "V", optional_value);
    member("hasValue", "optional_hasValue", {"optional_type(V)"}, "bool", optional_has_value);
    member("or", "optional_or_optional", {"optional_type(V)", "optional_type(V)"}, "optional_type(V)", optional_or);
    member("orValue", "optional_orValue_value", {"optional_type(V)", "V"}, "V", optional_or_value);
    global("_?._", "select_optional_field", {"dyn", "string"}, "optional_type(V)");
    global("_[?_]", "list_optindex_optional_int", {"list(V)", "int"}, "optional_type(V)");
    global("_[?_]", "optional_list_optindex_optional_int", {"optional_type(list(V))", "int"}, "optional_type(V)");
    global("_[?_]", "map_optindex_optional_value", {"map(K, V)", "K"}, "optional_type(V)");
    global("_[?_]", "optional_map_optindex_optional_value", {"optional_type(map(K, V))", "K"}, "optional_type(V)");
    global("_[_]", "optional_list_index_int", {"optional_type(list(V))", "int"}, "optional_type(V)");
    global("_[_]", "optional_map_index_value", {"optional_type(map(K, V))", "K"}, "optional_type(V)");
    member("last", "list_last", {"list(V)"}, "optional_type(V)", list_last);
    member("first", "list_first", {"list(V)"}, "optional_type(V)", list_first);
    global("optional.unwrap", "optional_unwrap", {"list(optional_type(V))"}, "list(V)", optional_unwrap);
    member("unwrapOpt", "optional_unwrapOpt", {"list(optional_type(V))"}, "list(V)", optional_unwrap);
  }

  void build_quantity() {
    global("quantity", "string_to_quantity", {"string"}, "kubernetes.Quantity", quantity_from_string);
    global("isQuantity", "is_quantity_string", {"string"}, "bool", is_quantity);
    global("sign", "quantity_sign", {"kubernetes.Quantity"}, "int", quantity_sign);
    member("isGreaterThan", "quantity_is_greater_than", {"kubernetes.Quantity", "kubernetes.Quantity"}, "bool",
           quantity_greater);
    member("isLessThan", "quantity_is_less_than", {"kubernetes.Quantity", "kubernetes.Quantity"}, "bool",
           quantity_less);
    member("compareTo", "quantity_compare_to", {"kubernetes.Quantity", "kubernetes.Quantity"}, "int",
           quantity_compare);
    member("asApproximateFloat", "quantity_get_float", {"kubernetes.Quantity"}, "double", quantity_as_float);
    member("asInteger", "quantity_get_int", {"kubernetes.Quantity"}, "int", quantity_as_int);
    member("isInteger", "quantity_is_integer", {"kubernetes.Quantity"}, "bool", quantity_is_int);
    member("add", "quantity_add", {"kubernetes.Quantity", "kubernetes.Quantity"}, "kubernetes.Quantity", quantity_add);
    member("add", "quantity_add_int", {"kubernetes.Quantity", "int"}, "kubernetes.Quantity", quantity_add_int);
    member("sub", "quantity_sub", {"kubernetes.Quantity", "kubernetes.Quantity"}, "kubernetes.Quantity", quantity_sub);
    member("sub", "quantity_sub_int", {"kubernetes.Quantity", "int"}, "kubernetes.Quantity", quantity_sub_int);
  }

  void build_strings() {
    member("charAt", "string_char_at_int", {"string", "int"}, "string", char_at);
    member("indexOf", "string_index_of_string", {"string", "string"}, "int", string_index_of);
    member("indexOf", "string_index_of_string_int", {"string", "string", "int"}, "int", string_index_of_int);
    member("lastIndexOf", "string_last_index_of_string", {"string", "string"}, "int", string_last_index_of);
    member("lastIndexOf", "string_last_index_of_string_int", {"string", "string", "int"}, "int",
           string_last_index_of_int);
    member("lowerAscii", "string_lower_ascii", {"string"}, "string", ascii_case<false>);
    member("replace", "string_replace_string_string", {"string", "string", "string"}, "string", replace_all);
    member("replace", "string_replace_string_string_int", {"string", "string", "string", "int"}, "string",
           replace_limit);
    member("split", "string_split_string", {"string", "string"}, "list(string)", split_all);
    member("split", "string_split_string_int", {"string", "string", "int"}, "list(string)", split_limit);
    member("substring", "string_substring_int", {"string", "int"}, "string", substring_from);
    member("substring", "string_substring_int_int", {"string", "int", "int"}, "string", substring_range);
    member("trim", "string_trim", {"string"}, "string", trim);
    member("upperAscii", "string_upper_ascii", {"string"}, "string", ascii_case<true>);
    global("strings.quote", "strings_quote", {"string"}, "string", quote);
    member("join", "list_join", {"list(string)"}, "string", join);
    member("join", "list_join_string", {"list(string)", "string"}, "string", join_sep);
  }

  void build_sets() {
    global("sets.contains", "list_sets_contains_list", {"list(T)", "list(T)"}, "bool", sets_contains);
    global("sets.equivalent", "list_sets_equivalent_list", {"list(T)", "list(T)"}, "bool", sets_equivalent);
    global("sets.intersects", "list_sets_intersects_list", {"list(T)", "list(T)"}, "bool", sets_intersects);
  }

  void build_semver() {
    global("semver", "string_to_semver", {"string"}, "kubernetes.Semver", semver_from_string);
    global("semver", "string_bool_to_semver", {"string", "bool"}, "kubernetes.Semver", semver_from_string_normalize);
    global("isSemver", "is_semver_string", {"string"}, "bool", is_semver);
    global("isSemver", "is_semver_string_bool", {"string", "bool"}, "bool", is_semver_normalize);
    member("isGreaterThan", "semver_is_greater_than", {"kubernetes.Semver", "kubernetes.Semver"}, "bool",
           semver_greater);
    member("isLessThan", "semver_is_less_than", {"kubernetes.Semver", "kubernetes.Semver"}, "bool", semver_less);
    member("compareTo", "semver_compare_to", {"kubernetes.Semver", "kubernetes.Semver"}, "int", semver_compare);
    member("major", "semver_major", {"kubernetes.Semver"}, "int", semver_major);
    member("minor", "semver_minor", {"kubernetes.Semver"}, "int", semver_minor);
    member("patch", "semver_patch", {"kubernetes.Semver"}, "int", semver_patch);
  }

  // Stable storage for generated ids and type specs.
  std::deque<std::string> strings;
  const char* intern(std::string s) {
    strings.push_back(std::move(s));
    return strings.back().c_str();
  }
};

const Library& library() {
  static const Library lib;
  return lib;
}

}  // namespace

const FunctionDecl* find_function(std::string_view name) {
  const Library& lib = library();
  auto it = lib.by_name.find(name);
  return it == lib.by_name.end() ? nullptr : &lib.functions[it->second];
}

bool is_unsupported_function(std::string_view name) {
  static constexpr std::string_view kNames[] = {
      // Timestamps and durations.
      "timestamp", "duration", "getFullYear", "getMonth", "getDayOfYear", "getDayOfMonth", "getDate",
      "getDayOfWeek", "getHours", "getMinutes", "getSeconds", "getMilliseconds",
      // String formatting and reversal (strings extension), URL, IP and CIDR libraries.
      "format", "reverse", "url", "isURL", "getScheme", "getHost", "getHostname", "getPort", "getEscapedPath",
      "getQuery", "ip", "isIP", "ip.isCanonical", "cidr", "isCIDR", "containsIP", "containsCIDR", "masked",
      "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast",
      "isGlobalUnicast",
      // Kubernetes format library.
      "format.named", "format.dns1123Label", "format.dns1123Subdomain", "format.dns1035Label", "format.qualifiedName",
      "format.dns1123LabelPrefix", "format.dns1123SubdomainPrefix", "format.dns1035LabelPrefix",
      "format.labelValue", "format.uri", "format.uuid", "format.byte", "format.date", "format.datetime", "validate",
      // Lists extension (version 3) and two-variable comprehensions.
      "slice", "flatten", "sort", "sortBy", "lists.range", "distinct", "transformList", "transformMap",
      "transformMapEntry", "all", "exists", "existsOne",
  };
  for (auto n : kNames)
    if (n == name) return true;
  return false;
}

TypePtr find_type_identifier(std::string_view name) {
  static const std::map<std::string, TypePtr, std::less<>> kTypes = {
      {"bool", types::type_of(types::boolean())},
      {"bytes", types::type_of(types::bytes())},
      {"double", types::type_of(types::dbl())},
      {"int", types::type_of(types::int64())},
      {"list", types::type_of(types::list(types::param("A")))},
      {"map", types::type_of(types::map(types::param("A"), types::param("B")))},
      {"null_type", types::type_of(types::null())},
      {"string", types::type_of(types::string())},
      {"type", types::type_of(types::type())},
      {"uint", types::type_of(types::uint64())},
      {"optional_type", types::type_of(types::optional(types::param("V")))},
      {"kubernetes.Quantity", types::type_of(types::quantity())},
      {"kubernetes.Semver", types::type_of(types::semver())},
      {"kubernetes.DRADevice", types::type_of(types::device())},
  };
  auto it = kTypes.find(name);
  return it == kTypes.end() ? nullptr : it->second;
}

std::string_view runtime_type_name(const Type& t) {
  switch (t.kind) {
    case TypeKind::Null: return "null_type";
    case TypeKind::Struct:
      // The device is a map at runtime (upstream passes it as one).
      if (t.name == "kubernetes.DRADevice") return "map";
      return t.name;
    default: return t.name;
  }
}

}  // namespace ksched::cel
