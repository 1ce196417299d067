#include "cel/runtime.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

namespace ksched::cel {

// ---------------------------------------------------------------------------------------------
// Text helpers

StrBuf& StrBuf::operator<<(std::string_view s) {
  if (size_ + s.size() > cap_) {
    std::size_t cap = std::max<std::size_t>(64, (size_ + s.size()) * 2);
    char* p = arena_.make_array<char>(cap);
    if (size_ > 0) std::memcpy(p, data_, size_);
    data_ = p;
    cap_ = cap;
  }
  if (!s.empty()) std::memcpy(data_ + size_, s.data(), s.size());
  size_ += s.size();
  return *this;
}

StrBuf& StrBuf::operator<<(std::int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return *this << std::string_view(buf, static_cast<std::size_t>(r.ptr - buf));
}

StrBuf& StrBuf::operator<<(std::uint64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return *this << std::string_view(buf, static_cast<std::size_t>(r.ptr - buf));
}

std::uint64_t code_points(std::string_view s) {
  // ASCII eight bytes at a time; from the first non-ASCII byte on, every byte that is not a
  // continuation byte starts a code point, and an invalid byte counts as one (Go decodes it as
  // U+FFFD).
  std::uint64_t n = 0;
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    if (w & 0x8080808080808080ull) break;
    n += 8;
  }
  while (i < s.size() && static_cast<unsigned char>(s[i]) < 0x80) {
    ++i;
    ++n;
  }
  for (; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    std::size_t len = c < 0x80 ? 1 : 0;
    if (len == 0) {
      std::size_t w = 0;
      if (c >= 0xC2 && c <= 0xDF) w = 2;
      else if (c >= 0xE0 && c <= 0xEF) w = 3;
      else if (c >= 0xF0 && c <= 0xF4) w = 4;
      bool ok = w > 0 && i + w <= s.size();
      for (std::size_t k = 1; ok && k < w; ++k)
        if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) ok = false;
      if (ok && w == 3) {
        unsigned char d = static_cast<unsigned char>(s[i + 1]);
        if ((c == 0xE0 && d < 0xA0) || (c == 0xED && d > 0x9F)) ok = false;
      }
      if (ok && w == 4) {
        unsigned char d = static_cast<unsigned char>(s[i + 1]);
        if ((c == 0xF0 && d < 0x90) || (c == 0xF4 && d > 0x8F)) ok = false;
      }
      len = ok ? w : 1;
    }
    i += len;
    ++n;
  }
  return n;
}

void format_double(StrBuf& out, double d) {
  if (std::isnan(d)) {
    out << "NaN";
    return;
  }
  if (std::isinf(d)) {
    out << (d > 0 ? "+Inf" : "-Inf");
    return;
  }
  // Shortest digits in scientific form, then Go's 'g' layout: %e when the exponent is < -4 or
  // >= 6 (the precision Go uses for this decision when printing the shortest form).
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<std::size_t>(r.ptr - buf));
  bool neg = sci[0] == '-';
  if (neg) sci.remove_prefix(1);
  auto e = sci.find('e');
  std::string_view mant = sci.substr(0, e);
  int exp = 0;
  std::from_chars(sci.data() + e + 1 + (sci[e + 1] == '+' ? 1 : 0), sci.data() + sci.size(), exp);
  char digits[32];
  std::size_t nd = 0;
  for (char c : mant)
    if (c != '.') digits[nd++] = c;
  while (nd > 1 && digits[nd - 1] == '0') --nd;
  if (neg) out << '-';
  if (exp < -4 || exp >= 6) {
    out << digits[0];
    if (nd > 1) {
      out << '.';
      out << std::string_view(digits + 1, nd - 1);
    }
    out << 'e' << (exp < 0 ? '-' : '+');
    int a = exp < 0 ? -exp : exp;
    if (a < 10) out << '0';
    out << static_cast<std::int64_t>(a);
    return;
  }
  int dp = exp + 1;  // digits before the decimal point
  if (dp <= 0) {
    out << "0.";
    for (int k = 0; k < -dp; ++k) out << '0';
    out << std::string_view(digits, nd);
  } else if (static_cast<std::size_t>(dp) >= nd) {
    out << std::string_view(digits, nd);
    for (std::size_t k = nd; k < static_cast<std::size_t>(dp); ++k) out << '0';
  } else {
    out << std::string_view(digits, static_cast<std::size_t>(dp)) << '.'
        << std::string_view(digits + dp, nd - static_cast<std::size_t>(dp));
  }
}

// ---------------------------------------------------------------------------------------------
// Evaluator basics

Evaluator::Evaluator(const Plan& plan, const Device* device, Arena& arena, std::uint64_t cost_limit)
    : plan_(plan), device_(device), arena_(arena), limit_(cost_limit) {
  if (plan_.slots > 0) {
    slots_ = arena_.make_array<Slot>(static_cast<std::size_t>(plan_.slots));
    for (std::int32_t i = 0; i < plan_.slots; ++i) new (&slots_[i]) Slot();
  }
}

Value Evaluator::run() {
  Value v = eval(plan_.root);
  if (aborted_) return abort_error_;
  return v;
}

void Evaluator::abort_cost() {
  aborted_ = true;
  abort_error_ = error_literal("operation cancelled: actual cost limit exceeded");
}

Value Evaluator::error(std::string_view message) {
  auto* e = arena_.make_array<ErrorValue>(1);
  new (e) ErrorValue{arena_.copy(message)};
  Value v;
  v.kind = ValueKind::Error;
  v.err = e;
  return v;
}

Value Evaluator::error_literal(const char* message) {
  auto* e = arena_.make_array<ErrorValue>(1);
  new (e) ErrorValue{std::string_view(message)};
  Value v;
  v.kind = ValueKind::Error;
  v.err = e;
  return v;
}

Value Evaluator::no_such_overload_call(std::string_view function, const Value* args, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (args[i].is_error()) return args[i];
  StrBuf b(arena_);
  b << "no such overload: " << function << '(';
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) b << ", ";
    b << type_name(args[i]);
  }
  b << ')';
  Value v = error_literal("");
  const_cast<ErrorValue*>(v.err)->message = b.view();
  return v;
}

Value Evaluator::make_list(const Value* elems, std::uint32_t n) {
  auto* l = arena_.make_array<ListValue>(1);
  Value* copy = arena_.make_array<Value>(n);
  for (std::uint32_t i = 0; i < n; ++i) copy[i] = elems[i];
  new (l) ListValue{n, copy};
  Value v;
  v.kind = ValueKind::List;
  v.list = l;
  return v;
}

Value Evaluator::make_quantity(const api::Quantity& q, bool pointer) {
  auto* p = arena_.make_array<api::Quantity>(1);
  new (p) api::Quantity(q);
  Value v;
  v.kind = ValueKind::Quantity;
  v.q = p;
  v.flags = pointer ? 1 : 0;
  return v;
}

Value Evaluator::make_optional(const Value* inner) {
  Value v;
  v.kind = ValueKind::Optional;
  if (inner) {
    Value* p = arena_.make_array<Value>(1);
    *p = *inner;
    v.opt = p;
  } else {
    v.opt = nullptr;
  }
  return v;
}

std::string_view Evaluator::type_name(const Value& v) {
  switch (v.kind) {
    case ValueKind::Null: return "null_type";
    case ValueKind::Bool: return "bool";
    case ValueKind::Int: return "int";
    case ValueKind::Uint: return "uint";
    case ValueKind::Double: return "double";
    case ValueKind::String: return "string";
    case ValueKind::Bytes: return "bytes";
    case ValueKind::List: return "list";
    case ValueKind::Type: return "type";
    case ValueKind::Quantity: return "kubernetes.Quantity";
    case ValueKind::Semver: return "kubernetes.Semver";
    case ValueKind::Optional: return "optional_type";
    case ValueKind::Error: return "error";
    default: return "map";
  }
}

std::string_view Evaluator::go_type_name(const Value& v) {
  switch (v.kind) {
    case ValueKind::Null: return "types.Null";
    case ValueKind::Bool: return "types.Bool";
    case ValueKind::Int: return "types.Int";
    case ValueKind::Uint: return "types.Uint";
    case ValueKind::Double: return "types.Double";
    case ValueKind::String: return "types.String";
    case ValueKind::Bytes: return "types.Bytes";
    case ValueKind::Type: return "*types.Type";
    case ValueKind::Quantity: return v.flags ? "*cel.Quantity" : "cel.Quantity";
    case ValueKind::Semver: return "cel.Semver";
    case ValueKind::Optional: return "*types.Optional";
    case ValueKind::Error: return "*types.Err";
    case ValueKind::List: return "*types.baseList";
    default: return "*types.baseMap";
  }
}

std::uint64_t Evaluator::actual_size(const Value& v, const Evaluator& ev) {
  switch (v.kind) {
    case ValueKind::String: return code_points(v.str());
    case ValueKind::Bytes: return v.size;
    case ValueKind::List: return v.list->size;
    case ValueKind::Optional: return v.opt ? actual_size(*v.opt, ev) : 1;
    default:
      if (ev.is_map(v)) return ev.map_size(v);
      return 1;
  }
}

void Evaluator::format(StrBuf& out, const Value& v) {
  switch (v.kind) {
    case ValueKind::Null: out << "NULL_VALUE"; return;
    case ValueKind::Bool: out << (v.b ? "true" : "false"); return;
    case ValueKind::Int: out << v.i; return;
    case ValueKind::Uint: out << v.u; return;
    case ValueKind::Double: format_double(out, v.d); return;
    case ValueKind::String: out << v.str(); return;
    case ValueKind::Type: out << v.str(); return;
    case ValueKind::Bytes: {
      out << '[';
      for (std::uint32_t i = 0; i < v.size; ++i) {
        if (i > 0) out << ' ';
        out << static_cast<std::uint64_t>(static_cast<unsigned char>(v.s[i]));
      }
      out << ']';
      return;
    }
    case ValueKind::List: {
      out << '[';
      for (std::uint32_t i = 0; i < v.list->size; ++i) {
        if (i > 0) out << ", ";
        format(out, v.list->elems[i]);
      }
      out << ']';
      return;
    }
    case ValueKind::Quantity: out << '{' << v.q->to_string() << '}'; return;
    case ValueKind::Semver:
      out << '{' << v.sv->major << '.' << v.sv->minor << '.' << v.sv->patch;
      if (!v.sv->pre.empty()) out << '-' << v.sv->pre;
      out << '}';
      return;
    case ValueKind::Optional:
      if (!v.opt) {
        out << "optional.none()";
      } else {
        out << "optional.of(";
        format(out, *v.opt);
        out << ')';
      }
      return;
    case ValueKind::Error: out << v.err->message; return;
    default: {
      out << '{';
      std::uint32_t n = map_size(v);
      for (std::uint32_t i = 0; i < n; ++i) {
        if (i > 0) out << ", ";
        Value key = map_key_at(v, i);
        Value val;
        map_find(v, key, val);
        format(out, key);
        out << ": ";
        format(out, val);
      }
      out << '}';
      return;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Maps, including the device's views

bool Evaluator::is_map(const Value& v) const {
  switch (v.kind) {
    case ValueKind::Map: case ValueKind::Device: case ValueKind::AttrDomains: case ValueKind::AttrIds:
    case ValueKind::CapDomains: case ValueKind::CapIds:
      return true;
    default:
      return false;
  }
}

namespace {

template <class Items>
std::string_view domain_of(const Items& items, std::size_t i, std::string_view driver) {
  std::string_view d, id;
  split_qualified(items[i].name, driver, d, id);
  return d;
}

// Whether item i is the first of its domain (for iterating distinct domains).
template <class Items>
bool first_of_domain(const Items& items, std::size_t i, std::string_view driver) {
  std::string_view d = domain_of(items, i, driver);
  for (std::size_t j = 0; j < i; ++j)
    if (domain_of(items, j, driver) == d) return false;
  return true;
}

template <class Items>
std::uint32_t count_domains(const Items& items, std::string_view driver) {
  std::uint32_t n = 0;
  for (std::size_t i = 0; i < items.size(); ++i)
    if (first_of_domain(items, i, driver)) ++n;
  return n;
}

// Index of the first item with this domain and id, or -1.
template <class Items>
std::ptrdiff_t find_item(const Items& items, std::string_view driver, std::string_view domain, std::string_view id) {
  for (std::size_t i = 0; i < items.size(); ++i) {
    std::string_view d, x;
    split_qualified(items[i].name, driver, d, x);
    if (d == domain && x == id) return static_cast<std::ptrdiff_t>(i);
  }
  return -1;
}

// Whether item i is the first with its (domain, id) within `domain`.
template <class Items>
bool first_of_id(const Items& items, std::size_t i, std::string_view driver, std::string_view domain) {
  std::string_view d, x;
  split_qualified(items[i].name, driver, d, x);
  if (d != domain) return false;
  return find_item(items, driver, domain, x) == static_cast<std::ptrdiff_t>(i);
}

bool numeric_key_equal(const Value& a, const Value& b) {
  // Map keys: same kind and value, or numerically equal int/uint/double (cel-go's heterogeneous
  // key lookup).
  auto as_double = [](const Value& v, double& d) {
    if (v.kind == ValueKind::Int) d = static_cast<double>(v.i);
    else if (v.kind == ValueKind::Uint) d = static_cast<double>(v.u);
    else if (v.kind == ValueKind::Double) d = v.d;
    else return false;
    return true;
  };
  if (a.kind == ValueKind::Int && b.kind == ValueKind::Int) return a.i == b.i;
  if (a.kind == ValueKind::Uint && b.kind == ValueKind::Uint) return a.u == b.u;
  if (a.kind == ValueKind::Int && b.kind == ValueKind::Uint) return a.i >= 0 && static_cast<std::uint64_t>(a.i) == b.u;
  if (a.kind == ValueKind::Uint && b.kind == ValueKind::Int) return b.i >= 0 && static_cast<std::uint64_t>(b.i) == a.u;
  double x = 0, y = 0;
  if ((a.kind == ValueKind::Double || b.kind == ValueKind::Double) && as_double(a, x) && as_double(b, y)) {
    if (a.kind == ValueKind::Double && std::trunc(a.d) != a.d) return false;
    if (b.kind == ValueKind::Double && std::trunc(b.d) != b.d) return false;
    return x == y;
  }
  return false;
}

bool key_equal(const Value& a, const Value& b) {
  if (a.kind == ValueKind::String && b.kind == ValueKind::String) return a.str() == b.str();
  if (a.kind == ValueKind::Bool && b.kind == ValueKind::Bool) return a.b == b.b;
  return numeric_key_equal(a, b);
}

}  // namespace

std::uint32_t Evaluator::map_size(const Value& m) const {
  switch (m.kind) {
    case ValueKind::Map: return m.map->size;
    case ValueKind::Device: return 4;
    case ValueKind::AttrDomains: return count_domains(device_->attributes, device_->driver);
    case ValueKind::CapDomains: return count_domains(device_->capacity, device_->driver);
    case ValueKind::AttrIds: {
      if (m.flags) return 0;  // the empty map a non-string key finds
      std::uint32_t n = 0;
      for (std::size_t i = 0; i < device_->attributes.size(); ++i)
        if (first_of_id(device_->attributes, i, device_->driver, m.str())) ++n;
      return n;
    }
    case ValueKind::CapIds: {
      if (m.flags) return 0;
      std::uint32_t n = 0;
      for (std::size_t i = 0; i < device_->capacity.size(); ++i)
        if (first_of_id(device_->capacity, i, device_->driver, m.str())) ++n;
      return n;
    }
    default: return 0;
  }
}

Value Evaluator::map_key_at(const Value& m, std::uint32_t k) {
  auto nth_domain = [&](const auto& items) {
    std::uint32_t seen = 0;
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (!first_of_domain(items, i, device_->driver)) continue;
      if (seen++ == k) return Value::string(domain_of(items, i, device_->driver));
    }
    return Value();
  };
  auto nth_id = [&](const auto& items) {
    std::uint32_t seen = 0;
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (!first_of_id(items, i, device_->driver, m.str())) continue;
      if (seen++ == k) {
        std::string_view d, id;
        split_qualified(items[i].name, device_->driver, d, id);
        return Value::string(id);
      }
    }
    return Value();
  };
  switch (m.kind) {
    case ValueKind::Map: return m.map->keys[k];
    case ValueKind::Device: {
      static constexpr std::string_view kFields[] = {"driver", "allowMultipleAllocations", "attributes", "capacity"};
      return Value::string(kFields[k]);
    }
    case ValueKind::AttrDomains: return nth_domain(device_->attributes);
    case ValueKind::CapDomains: return nth_domain(device_->capacity);
    case ValueKind::AttrIds: return nth_id(device_->attributes);
    case ValueKind::CapIds: return nth_id(device_->capacity);
    default: return Value();
  }
}

Value Evaluator::attribute_value(const DeviceAttribute& a) {
  switch (a.kind) {
    case DeviceAttribute::Kind::Bool: return Value::boolean(a.bool_value);
    case DeviceAttribute::Kind::Int: return Value::integer(a.int_value);
    case DeviceAttribute::Kind::String: return Value::string(a.string_value);
    case DeviceAttribute::Kind::Version: {
      Semver v;
      if (!parse_semver(a.string_value, v, nullptr)) {
        std::string why;
        parse_semver(a.string_value, v, &why);
        StrBuf b(arena_);
        b << "attribute " << a.name << ": parse semantic version: " << why;
        return error(b.view());
      }
      auto* p = arena_.make_array<Semver>(1);
      new (p) Semver(v);
      Value out;
      out.kind = ValueKind::Semver;
      out.sv = p;
      return out;
    }
  }
  return Value();
}

int Evaluator::map_find(const Value& m, const Value& key, Value& out) {
  switch (m.kind) {
    case ValueKind::Map:
      for (std::uint32_t i = 0; i < m.map->size; ++i) {
        if (key_equal(m.map->keys[i], key)) {
          out = m.map->values[i];
          return 1;
        }
      }
      return 0;
    case ValueKind::Device: {
      if (key.kind != ValueKind::String) return 0;
      std::string_view k = key.str();
      if (k == "driver") out = Value::string(device_->driver);
      else if (k == "allowMultipleAllocations") out = Value::boolean(device_->allow_multiple_allocations);
      else if (k == "attributes") out = Value::of(ValueKind::AttrDomains);
      else if (k == "capacity") out = Value::of(ValueKind::CapDomains);
      else return 0;
      return 1;
    }
    case ValueKind::AttrDomains:
    case ValueKind::CapDomains: {
      // Upstream wraps these maps so that an unknown domain finds an empty map.
      out.kind = m.kind == ValueKind::AttrDomains ? ValueKind::AttrIds : ValueKind::CapIds;
      if (key.kind == ValueKind::String) {
        out.s = key.s;
        out.size = key.size;
      } else {
        out.s = "\0";
        out.size = 0;
        // A non-string key never names a domain: an id lookup must find nothing.
        out.flags = 1;
      }
      return 1;
    }
    case ValueKind::AttrIds: {
      if (key.kind != ValueKind::String || m.flags) return 0;
      auto i = find_item(device_->attributes, device_->driver, m.str(), key.str());
      if (i < 0) return 0;
      out = attribute_value(device_->attributes[static_cast<std::size_t>(i)]);
      return out.is_error() ? -1 : 1;
    }
    case ValueKind::CapIds: {
      if (key.kind != ValueKind::String || m.flags) return 0;
      auto i = find_item(device_->capacity, device_->driver, m.str(), key.str());
      if (i < 0) return 0;
      out.kind = ValueKind::Quantity;
      out.flags = 0;
      out.q = device_->capacity[static_cast<std::size_t>(i)].value;
      return 1;
    }
    default:
      return 0;
  }
}

// ---------------------------------------------------------------------------------------------
// Equality (cel-go's types.Equal and the Equal methods it dispatches to)

int compare_double_to(double d, const Value& v) {
  if (std::isnan(d)) return 2;
  auto cmp = [](double x, double y) { return x < y ? -1 : x > y ? 1 : 0; };
  switch (v.kind) {
    case ValueKind::Double: return std::isnan(v.d) ? 2 : cmp(d, v.d);
    case ValueKind::Int:
      // cel-go compares a double with an int as doubles, after range checks.
      if (d < -9223372036854775808.0) return -1;
      if (d > 9223372036854775807.0) return 1;
      return cmp(d, static_cast<double>(v.i));
    case ValueKind::Uint:
      if (d < 0) return -1;
      if (d > 18446744073709551615.0) return 1;
      return cmp(d, static_cast<double>(v.u));
    default: return 2;
  }
}

Value Evaluator::equals(const Value& a, const Value& b) {
  if (a.kind == ValueKind::Null || b.kind == ValueKind::Null) return Value::boolean(a.kind == b.kind);
  switch (a.kind) {
    case ValueKind::Bool:
      return Value::boolean(b.kind == ValueKind::Bool && a.b == b.b);
    case ValueKind::Int:
    case ValueKind::Uint:
    case ValueKind::Double: {
      if (b.kind != ValueKind::Int && b.kind != ValueKind::Uint && b.kind != ValueKind::Double) return Value::boolean(false);
      if (a.kind == ValueKind::Double || b.kind == ValueKind::Double) {
        const Value& d = a.kind == ValueKind::Double ? a : b;
        const Value& o = a.kind == ValueKind::Double ? b : a;
        return Value::boolean(compare_double_to(d.d, o) == 0);
      }
      return Value::boolean(numeric_key_equal(a, b));
    }
    case ValueKind::String:
      return Value::boolean(b.kind == ValueKind::String && a.str() == b.str());
    case ValueKind::Bytes:
      return Value::boolean(b.kind == ValueKind::Bytes && a.str() == b.str());
    case ValueKind::Type:
      return Value::boolean(b.kind == ValueKind::Type && a.str() == b.str());
    case ValueKind::List: {
      if (b.kind != ValueKind::List || a.list->size != b.list->size) return Value::boolean(false);
      for (std::uint32_t i = 0; i < a.list->size; ++i) {
        Value e = equals(a.list->elems[i], b.list->elems[i]);
        if (e.kind == ValueKind::Bool && !e.b) return e;
      }
      return Value::boolean(true);
    }
    case ValueKind::Quantity:
      // Upstream's Quantity.Equal wants a Quantity value; add() and sub() return pointers.
      if (b.kind != ValueKind::Quantity || b.flags) return maybe_no_such_overload(b);
      return Value::boolean(*a.q == *b.q);
    case ValueKind::Semver:
      if (b.kind != ValueKind::Semver) return maybe_no_such_overload(b);
      return Value::boolean(compare_semver(*a.sv, *b.sv) == 0);
    case ValueKind::Optional:
      if (b.kind != ValueKind::Optional) return Value::boolean(false);
      if (!a.opt || !b.opt) return Value::boolean(!a.opt && !b.opt);
      return equals(*a.opt, *b.opt);
    case ValueKind::Error:
      return a;
    default: {
      if (!is_map(b)) return Value::boolean(false);
      std::uint32_t n = map_size(a);
      if (n != map_size(b)) return Value::boolean(false);
      for (std::uint32_t i = 0; i < n; ++i) {
        Value key = map_key_at(a, i);
        Value va, vb;
        map_find(a, key, va);
        if (map_find(b, key, vb) != 1) return Value::boolean(false);
        Value e = equals(va, vb);
        if (e.kind == ValueKind::Bool && !e.b) return e;
      }
      return Value::boolean(true);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Evaluation

Value Evaluator::eval(std::int32_t index) {
  if (aborted_) return abort_error_;
  const PNode& n = plan_.nodes[static_cast<std::size_t>(index)];
  switch (n.op) {
    case Op::Const:
      if (n.const_cost) add_cost(n.const_cost);
      return n.k;
    case Op::Device:
      add_cost(1);
      return Value::of(ValueKind::Device);
    case Op::DeviceField:
      add_cost(2);  // the identifier and its field
      switch (static_cast<DeviceFieldId>(n.k.i)) {
        case DeviceFieldId::Driver: return Value::string(device_->driver);
        case DeviceFieldId::Attributes: return Value::of(ValueKind::AttrDomains);
        case DeviceFieldId::Capacity: return Value::of(ValueKind::CapDomains);
        case DeviceFieldId::AllowMultipleAllocations: return Value::boolean(device_->allow_multiple_allocations);
      }
      return Value();
    case Op::DomainLookup: {
      add_cost(3);  // the identifier, its field, the index
      Value v = n.k;
      v.kind = n.slot ? ValueKind::CapIds : ValueKind::AttrIds;
      return v;
    }
    case Op::ItemLookup: return eval_item(n);
    case Op::Local: {
      add_cost(1);
      Slot& s = slots_[n.slot];
      if (!s.ready) {
        std::int32_t init = plan_.slot_init[static_cast<std::size_t>(n.slot)];
        s.v = init >= 0 ? eval(init) : Value();
        s.ready = true;
        s.capacity = 0;
      }
      return s.v;
    }
    case Op::Select: return eval_select(n, false, false);
    case Op::TestOnly: return eval_select(n, true, false);
    case Op::OptSelect: return eval_select(n, false, true);
    case Op::Index: return eval_index(n, false);
    case Op::OptIndex: return eval_index(n, true);
    case Op::And:
    case Op::Or: {
      bool is_and = n.op == Op::And;
      Value err;
      bool have_err = false;
      for (int i = 0; i < n.nkids; ++i) {
        Value v = eval(plan_.kid(n, i));
        if (aborted_) return abort_error_;
        if (v.kind == ValueKind::Bool) {
          if (v.b != is_and) return v;  // false && ..., true || ...
          continue;
        }
        if (!have_err) {
          err = v.is_error() ? v : no_such_overload();
          have_err = true;
        }
      }
      if (have_err) return err;
      return Value::boolean(is_and);
    }
    case Op::Not: {
      Value v = eval(plan_.kid(n, 0));
      add_cost(1);
      if (v.kind != ValueKind::Bool) return maybe_no_such_overload(v);
      return Value::boolean(!v.b);
    }
    case Op::NotStrictlyFalse: {
      Value v = eval(plan_.kid(n, 0));
      add_cost(1);
      if (v.kind == ValueKind::Bool) return v;
      return Value::boolean(true);
    }
    case Op::Cond: {
      Value c = eval(plan_.kid(n, 0));
      if (aborted_) return abort_error_;
      if (c.kind == ValueKind::Bool) return eval(plan_.kid(n, c.b ? 1 : 2));
      return maybe_no_such_overload(c);
    }
    case Op::Eq:
    case Op::Ne: {
      Value a = eval(plan_.kid(n, 0));
      Value b = eval(plan_.kid(n, 1));
      if (aborted_) return abort_error_;
      // Kubernetes charges 1 for quantities and versions; cel-go the shorter operand's size.
      if (a.kind == ValueKind::Quantity || a.kind == ValueKind::Semver) {
        add_cost(1);
      } else if (a.kind == ValueKind::String && b.kind == ValueKind::String) {
        // ceil(min size / 10): 0 for an empty string, 1 up to ten characters.
        std::uint64_t m = std::min(a.size, b.size) <= 10 && std::max(a.size, b.size) <= 10
                              ? std::min(a.size, b.size)
                              : std::min(code_points(a.str()), code_points(b.str()));
        add_cost(m == 0 ? 0 : (m + 9) / 10);
      } else {
        std::uint64_t m = std::min(actual_size(a, *this), actual_size(b, *this));
        add_cost(static_cast<std::uint64_t>(std::ceil(static_cast<double>(m) * 0.1)));
      }
      if (a.is_error()) return a;
      if (b.is_error()) return b;
      Value e = equals(a, b);
      if (n.op == Op::Ne && e.kind == ValueKind::Bool) e.b = !e.b;
      else if (n.op == Op::Ne) e = Value::boolean(true);  // Bool(Equal != True)
      return e;
    }
    case Op::Call: return eval_call(n, index);
    case Op::List: return eval_list(n);
    case Op::Map: return eval_map(n);
    case Op::Comprehension: return eval_comprehension(n);
    case Op::AccuAppend: return eval_append(n);
  }
  return Value();
}

Value Evaluator::eval_list(const PNode& n) {
  Value* elems = arena_.make_array<Value>(n.nkids);
  std::uint32_t count = 0;
  for (int i = 0; i < n.nkids; ++i) {
    Value v = eval(plan_.kid(n, i));
    if (aborted_) return abort_error_;
    if (v.is_error()) return v;
    if (n.has_optionals && plan_.optional_flags[n.kids + static_cast<std::uint32_t>(i)]) {
      if (v.kind != ValueKind::Optional) {
        StrBuf b(arena_);
        b << "cannot initialize optional list element from non-optional value ";
        format(b, v);
        return error(b.view());
      }
      if (!v.opt) continue;
      v = *v.opt;
    }
    elems[count++] = v;
  }
  add_cost(10);
  auto* l = arena_.make_array<ListValue>(1);
  new (l) ListValue{count, elems};
  Value out;
  out.kind = ValueKind::List;
  out.list = l;
  return out;
}

Value Evaluator::eval_map(const PNode& n) {
  std::uint32_t entries = n.nkids / 2;
  Value* keys = arena_.make_array<Value>(entries);
  Value* vals = arena_.make_array<Value>(entries);
  std::uint32_t count = 0;
  for (std::uint32_t i = 0; i < entries; ++i) {
    Value k = eval(plan_.kid(n, static_cast<int>(2 * i)));
    if (aborted_) return abort_error_;
    if (k.is_error()) return k;
    Value v = eval(plan_.kid(n, static_cast<int>(2 * i + 1)));
    if (aborted_) return abort_error_;
    if (v.is_error()) return v;
    bool optional = n.has_optionals && plan_.optional_flags[n.kids + 2 * i];
    // A later entry with the same key replaces the earlier one.
    std::uint32_t at = count;
    for (std::uint32_t j = 0; j < count; ++j)
      if (key_equal(keys[j], k)) at = j;
    if (optional) {
      if (v.kind != ValueKind::Optional) {
        StrBuf b(arena_);
        b << "cannot initialize optional entry '";
        format(b, k);
        b << "' from non-optional value ";
        format(b, v);
        return error(b.view());
      }
      if (!v.opt) {
        if (at < count) {
          for (std::uint32_t j = at; j + 1 < count; ++j) {
            keys[j] = keys[j + 1];
            vals[j] = vals[j + 1];
          }
          --count;
        }
        continue;
      }
      v = *v.opt;
    }
    keys[at] = k;
    vals[at] = v;
    if (at == count) ++count;
  }
  add_cost(30);
  auto* m = arena_.make_array<MapValue>(1);
  new (m) MapValue{count, keys, vals};
  Value out;
  out.kind = ValueKind::Map;
  out.map = m;
  return out;
}

Value Evaluator::eval_append(const PNode& n) {
  // accumulator + [element], with the accumulator owned by the comprehension.
  Slot& s = slots_[n.slot];
  if (!s.ready) {
    std::int32_t init = plan_.slot_init[static_cast<std::size_t>(n.slot)];
    s.v = init >= 0 ? eval(init) : Value();
    s.ready = true;
    s.capacity = 0;
  }
  add_cost(1);  // the accumulator's identifier
  Value e = eval(plan_.kid(n, 0));
  if (aborted_) return abort_error_;
  add_cost(10 + 1);  // the one-element list and the concatenation
  if (s.v.is_error()) return s.v;
  if (e.is_error()) return e;
  if (s.v.kind != ValueKind::List) return no_such_overload();
  std::uint32_t size = s.v.list->size;
  if (s.v.list != s.owned || s.capacity <= size) {
    std::uint32_t cap = std::max<std::uint32_t>(8, size * 2);
    Value* elems = arena_.make_array<Value>(cap);
    for (std::uint32_t i = 0; i < size; ++i) elems[i] = s.v.list->elems[i];
    auto* l = arena_.make_array<ListValue>(1);
    new (l) ListValue{size, elems};
    s.v.list = l;
    s.owned = l;
    s.capacity = cap;
  }
  auto* l = const_cast<ListValue*>(s.v.list);
  const_cast<Value*>(l->elems)[size] = e;
  l->size = size + 1;
  return s.v;
}

Value Evaluator::eval_item(const PNode& n) {
  add_cost(4);  // the identifier, its field, the domain and the id
  const PNode& d = plan_.nodes[static_cast<std::size_t>(plan_.kid(n, 0))];
  std::string_view domain = d.k.str(), id = n.k.str();
  if (d.slot == 0) {
    auto i = find_item(device_->attributes, device_->driver, domain, id);
    if (i >= 0) return attribute_value(device_->attributes[static_cast<std::size_t>(i)]);
  } else {
    auto i = find_item(device_->capacity, device_->driver, domain, id);
    if (i >= 0) {
      Value out;
      out.kind = ValueKind::Quantity;
      out.q = device_->capacity[static_cast<std::size_t>(i)].value;
      return out;
    }
  }
  StrBuf b(arena_);
  b << "no such key: " << id;
  return error(b.view());
}

Value Evaluator::qualify(const Value& operand, const Value& key, bool presence, bool& present) {
  present = false;
  if (operand.kind == ValueKind::List) {
std::int64_t idx = 0;
bool ok = false;
if (key.kind == ValueKind::Int) {
  idx = key.i;
  ok = true;
} else if (key.kind == ValueKind::Uint) {
  if (key.u > static_cast<std::uint64_t>(INT64_MAX)) {
    StrBuf b(arena_);
    b << "unsupported index value ";
    format(b, key);
    b << " in list";
    return error(b.view());
  }
  idx = static_cast<std::int64_t>(key.u);
  ok = true;
} else if (key.kind == ValueKind::Double) {
  double t = std::trunc(key.d);
  if (t != key.d || !(key.d >= -9223372036854775808.0 && key.d < 9223372036854775808.0)) {
    StrBuf b(arena_);
    b << "unsupported index value ";
    format(b, key);
    b << " in list";
    return error(b.view());
  }
  idx = static_cast<std::int64_t>(t);
  ok = true;
}
if (!ok) {
  StrBuf b(arena_);
  b << "unsupported index type '" << type_name(key) << "' in list";
  return error(b.view());
}
if (idx >= 0 && static_cast<std::uint64_t>(idx) < operand.list->size) {
  present = true;
  return operand.list->elems[idx];
}
if (presence) return Value();
StrBuf b(arena_);
b << "index out of bounds: ";
format(b, key);
return error(b.view());
  }
  if (is_map(operand)) {
// The device's attribute maps find every domain (an unknown one as an empty map).
Value out;
if (presence && operand.kind == ValueKind::AttrDomains) {
  present = true;
  map_find(operand, key, out);
  return out;
}
int r = map_find(operand, key, out);
if (r < 0) return out;
if (r == 1) {
  present = true;
  return out;
}
if (presence) return Value();
  } else if (presence) {
return Value();  // presence tests on other values are false
  }
  StrBuf b(arena_);
  b << "no such key: ";
  format(b, key);
  return error(b.view());
}

Value Evaluator::eval_select(const PNode& n, bool test_only, bool optional) {
  Value operand = eval(plan_.kid(n, 0));
  add_cost(test_only ? 0 : 1);
  if (aborted_) return abort_error_;
  if (operand.is_error()) return operand;
  bool wrap = optional;
  if (operand.kind == ValueKind::Optional) {
    if (!operand.opt) return test_only ? Value::boolean(false) : operand;
    operand = *operand.opt;
    wrap = true;
  }
  bool present = false;
  Value v = qualify(operand, n.k, test_only || wrap, present);
  if (v.is_error()) return v;
  if (test_only) return Value::boolean(present);
  if (wrap) return make_optional(present ? &v : nullptr);
  return v;
}

Value Evaluator::eval_index(const PNode& n, bool optional) {
  Value operand = eval(plan_.kid(n, 0));
  if (aborted_) return abort_error_;
  Value key = eval(plan_.kid(n, 1));
  add_cost(1);
  if (aborted_) return abort_error_;
  if (operand.is_error()) return operand;
  if (key.is_error()) return key;
  bool wrap = optional;
  if (operand.kind == ValueKind::Optional) {
    if (!operand.opt) return operand;
    operand = *operand.opt;
    wrap = true;
  }
  bool present = false;
  Value v = qualify(operand, key, wrap, present);
  if (v.is_error()) return v;
  if (wrap) return make_optional(present ? &v : nullptr);
  return v;
}

Value Evaluator::eval_comprehension(const PNode& n) {
  Value range = eval(plan_.kid(n, 0));
  if (aborted_) return abort_error_;
  if (range.is_error()) return range;
  Slot& accu = slots_[n.accu_slot];
  accu.ready = false;
  accu.capacity = 0;
  std::int32_t cond = plan_.kid(n, 1), step = plan_.kid(n, 2), result = plan_.kid(n, 3);
  Slot& iter = slots_[n.slot];
  auto body = [&](const Value& elem) {
    iter.v = elem;
    iter.ready = true;
    Value c = eval(cond);
    if (aborted_) return false;
    if (c.kind == ValueKind::Bool && !c.b) return false;
    Value s = eval(step);
    if (aborted_) return false;
    accu.v = s;
    accu.ready = true;
    return true;
  };
  if (range.kind == ValueKind::List) {
    for (std::uint32_t i = 0; i < range.list->size; ++i)
      if (!body(range.list->elems[i])) break;
  } else if (is_map(range)) {
    std::uint32_t size = map_size(range);
    for (std::uint32_t i = 0; i < size; ++i)
      if (!body(map_key_at(range, i))) break;
  } else {
    StrBuf b(arena_);
    b << "got '" << go_type_name(range) << "', expected iterable type";
    return error(b.view());
  }
  if (aborted_) return abort_error_;
  return eval(result);
}

// ---------------------------------------------------------------------------------------------
// Calls

bool runtime_assignable(const Evaluator& ev, const Type& t, const Value& v) {
  if (v.is_error()) return false;
  switch (t.kind) {
    case TypeKind::Dyn: case TypeKind::Any: case TypeKind::TypeParam: return true;
    case TypeKind::Null: return v.kind == ValueKind::Null;
    case TypeKind::Bool: return v.kind == ValueKind::Bool;
    case TypeKind::Int: return v.kind == ValueKind::Int;
    case TypeKind::Uint: return v.kind == ValueKind::Uint;
    case TypeKind::Double: return v.kind == ValueKind::Double;
    case TypeKind::String: return v.kind == ValueKind::String;
    case TypeKind::Bytes: return v.kind == ValueKind::Bytes;
    case TypeKind::List: return v.kind == ValueKind::List;
    case TypeKind::Map: return ev.is_map(v);
    case TypeKind::Type: return v.kind == ValueKind::Type;
    case TypeKind::Struct:
      if (t.name == "kubernetes.Quantity") return v.kind == ValueKind::Quantity;
      if (t.name == "kubernetes.Semver") return v.kind == ValueKind::Semver;
      return v.kind == ValueKind::Device;
    case TypeKind::Opaque: return v.kind == ValueKind::Optional;
    default: return false;
  }
}

namespace {
std::uint64_t ceil_tenth(std::uint64_t n) { return static_cast<std::uint64_t>(std::ceil(static_cast<double>(n) * 0.1)); }

// The Kubernetes library's traversalCost.
std::uint64_t traversal_cost(Evaluator& ev, const Value& v) {
  switch (v.kind) {
    case ValueKind::String: case ValueKind::Bytes:
      return static_cast<std::uint64_t>(static_cast<double>(v.size) * 0.1);
    case ValueKind::List: {
      std::uint64_t c = 0;
      for (std::uint32_t i = 0; i < v.list->size; ++i) c += traversal_cost(ev, v.list->elems[i]);
      return c;
    }
    default:
      if (ev.is_map(v)) {
        std::uint64_t c = 0;
        std::uint32_t n = ev.map_size(v);
        for (std::uint32_t i = 0; i < n; ++i) {
          Value k = ev.map_key_at(v, i), val;
          ev.map_find(v, k, val);
          c += traversal_cost(ev, k) + traversal_cost(ev, val);
        }
        return c;
      }
      return 1;
  }
}
}  // namespace

CostClass cost_class(std::string_view fn, const OverloadDecl* o) {
  // The Kubernetes library's CallCost decides by function name first.
  if (fn == "isSorted" || fn == "sum" || fn == "max" || fn == "min" || fn == "indexOf" || fn == "lastIndexOf") {
    return CostClass::Traversal;
  }
  if (fn == "lowerAscii" || fn == "upperAscii" || fn == "substring" || fn == "trim") return CostClass::Tenth;
  if (fn == "replace" || fn == "split") return CostClass::TwoTenths;
  if (fn == "join") return CostClass::JoinResult;
  if (fn == "find" || fn == "findAll") return CostClass::FindRegex;
  if (fn == "quantity" || fn == "isQuantity" || fn == "semver" || fn == "isSemver") return CostClass::Tenth;
  // cel-go's defaults, by the overload the checker resolved (none: O(1)).
  std::string_view id = o ? std::string_view(o->id) : std::string_view();
  if (id == "list_sets_contains_list" || id == "list_sets_intersects_list") return CostClass::Sets1;
  if (id == "list_sets_equivalent_list") return CostClass::Sets2;
  if (id == "starts_with_string" || id == "ends_with_string" || id == "string_to_bytes" || id == "bytes_to_string" ||
      id == "strings_quote") {
    return CostClass::Tenth;
  }
  if (id == "in_list") return CostClass::InList;
  if (id == "less_string" || id == "greater_string" || id == "less_equals_string" || id == "greater_equals_string" ||
      id == "less_bytes" || id == "greater_bytes" || id == "less_equals_bytes" || id == "greater_equals_bytes") {
    return CostClass::MinTenth;
  }
  if (id == "add_string" || id == "add_bytes") return CostClass::SumTenth;
  if (id == "matches_string") return CostClass::FindRegex;
  if (id == "contains_string") return CostClass::ContainsProduct;
  return CostClass::One;
}

std::uint64_t Evaluator::call_cost(const PNode& n, const Value* args, std::size_t nargs, const Value& result) {
  auto size = [&](std::size_t i) { return i < nargs ? actual_size(args[i], *this) : 1; };
  switch (n.cost) {
    case CostClass::One: return 1;
    case CostClass::Traversal: return nargs > 0 ? traversal_cost(*this, args[0]) : 0;
    case CostClass::Tenth: return ceil_tenth(size(0));
    case CostClass::TwoTenths: return static_cast<std::uint64_t>(std::ceil(static_cast<double>(size(0)) * 2 * 0.1));
    case CostClass::JoinResult:
      return static_cast<std::uint64_t>(std::ceil(static_cast<double>(actual_size(result, *this)) * 2 * 0.1));
    case CostClass::FindRegex: {
      if (nargs < 2) return 1;
      std::uint64_t str = static_cast<std::uint64_t>(std::ceil((1.0 + static_cast<double>(size(0))) * 0.1));
      std::uint64_t re = static_cast<std::uint64_t>(std::ceil(static_cast<double>(size(1)) * 0.25));
      return str * re;
    }
    case CostClass::InList: return size(1);
    case CostClass::MinTenth: return ceil_tenth(std::min(size(0), size(1)));
    case CostClass::SumTenth: return ceil_tenth(size(0) + size(1));
    case CostClass::ContainsProduct: return ceil_tenth(size(0)) * ceil_tenth(size(1));
    case CostClass::Sets1: return 1 + size(0) * size(1);
    case CostClass::Sets2: return 1 + 2 * size(0) * size(1);
    case CostClass::Free: return 0;
  }
  return 1;
}

Value Evaluator::set_membership(const Value& v, const ListValue& set) {
  constexpr double kTwo63 = 9223372036854775808.0, kTwo64 = 18446744073709551616.0;
  auto integral = [](double d) { return std::trunc(d) == d; };
  auto member = [&](const Value& e) {
    switch (v.kind) {
      case ValueKind::Bool: return e.kind == ValueKind::Bool && e.b == v.b;
      case ValueKind::String: return e.kind == ValueKind::String && e.str() == v.str();
      case ValueKind::Int:
        if (e.kind == ValueKind::Int) return e.i == v.i;
        if (e.kind == ValueKind::Uint) return e.u <= static_cast<std::uint64_t>(INT64_MAX) && static_cast<std::int64_t>(e.u) == v.i;
        if (e.kind == ValueKind::Double)
          return e.d > -kTwo63 && e.d < kTwo63 && integral(e.d) && static_cast<std::int64_t>(e.d) == v.i;
        return false;
      case ValueKind::Uint:
        if (e.kind == ValueKind::Uint) return e.u == v.u;
        if (e.kind == ValueKind::Int) return e.i >= 0 && static_cast<std::uint64_t>(e.i) == v.u;
        if (e.kind == ValueKind::Double) return e.d >= 0 && e.d < kTwo64 && integral(e.d) && static_cast<std::uint64_t>(e.d) == v.u;
        return false;
      case ValueKind::Double:
        if (e.kind == ValueKind::Double) return e.d == v.d;
        if (e.kind == ValueKind::Int) return static_cast<double>(e.i) == v.d;
        if (e.kind == ValueKind::Uint) return static_cast<double>(e.u) == v.d;
        return false;
      default: return false;
    }
  };
  // Go cannot hash a byte slice: the lookup panics, and cel-go reports the panic.
  if (v.kind == ValueKind::Bytes) return error("internal error: runtime error: hash of unhashable type types.Bytes");
  for (std::uint32_t i = 0; i < set.size; ++i)
    if (member(set.elems[i])) return Value::boolean(true);
  return Value::boolean(false);
}

Value Evaluator::eval_call(const PNode& n, std::int32_t index) {
  constexpr std::size_t kInline = 4;
  Value inline_args[kInline];
  Value* args = n.nkids <= kInline ? inline_args : arena_.make_array<Value>(n.nkids);
  for (int i = 0; i < n.nkids; ++i) {
    args[i] = eval(plan_.kid(n, i));
    if (aborted_) return abort_error_;
  }
  std::size_t nargs = n.nkids;
  current_ = index;
  const FunctionDecl& fn = *n.fn;
  Value result;
  const OverloadDecl* chosen = n.overload;
  // Strict: the first error argument is the result.
  for (std::size_t i = 0; i < nargs; ++i) {
    if (args[i].is_error()) {
      add_cost(call_cost(n, args, nargs, args[i]));
      return args[i];
    }
  }
  if (n.cost == CostClass::Free) {
    // `x in [constants]`, a lookup in cel-go's set of the list's values and their lossless
    // numeric conversions: exact, where `in` elsewhere compares a double with an integer as doubles.
    return set_membership(args[0], *args[1].list);
  }
  if (fn.singleton) {
    result = fn.singleton(*this, args);
  } else {
    // The resolved overload when there is one, else dynamic dispatch over all the function's
    // overloads of this arity and call style, as cel-go's function-level dispatcher does.
    auto matches = [&](const OverloadDecl& o) {
      if (o.args.size() != nargs) return false;
      for (std::size_t i = 0; i < nargs; ++i)
        if (!runtime_assignable(*this, *o.args[i], args[i])) return false;
      return true;
    };
    const OverloadDecl* use = nullptr;
    if (chosen) {
      if (matches(*chosen)) use = chosen;
    } else {
      for (const auto& o : fn.overloads) {
        if (matches(o)) {
          use = &o;
          break;
        }
      }
    }
    if (use) {
      result = use->impl(*this, args);
    } else {
      result = no_such_overload_call(fn.name, args, nargs);
    }
  }
  add_cost(call_cost(n, args, nargs, result));
  return result;
}

}  // namespace ksched::cel
