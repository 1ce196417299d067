// resource.Quantity: parsing, canonical formatting and arithmetic on an exact nano-unit integer.
//
// Differences from upstream worth knowing:
//  - a Quantity holds no text: to_string() is always the canonical form. Upstream keeps the input
//    text when it is already "canonical enough" (so "+1", "1E3" or "1.500" print back as
//    written); upstream_text() (quantity_text.h) says what it writes back, for the API server.
//  - DecimalSI/DecimalExponent magnitudes above ~1.7e29 are rejected (upstream uses big decimals).
#include "api/quantity.h"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>

#include "api/quantity_text.h"

namespace ksched::api {
namespace {

using i128 = __int128;
using u128 = unsigned __int128;

constexpr std::string_view kFormatError =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr std::string_view kSuffixError = "unable to parse quantity's suffix";
constexpr std::string_view kTooLarge = "quantity is too large";

constexpr i128 kNano = 1'000'000'000;
constexpr i128 kMaxInt64 = (i128{1} << 63) - 1;
// BinarySI quantities are capped at MaxInt64 units, as upstream does.
constexpr i128 kBinaryCapNanos = kMaxInt64 * kNano;
// Largest value we accept (keeps arithmetic on two values from overflowing __int128).
constexpr u128 kMaxNanos = (static_cast<u128>(1) << 125);

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool mul_checked(u128& v, u128 m) {
  if (v == 0 || m == 0) {
    v = 0;
    return true;
  }
  // Two factors below 2^64 multiply exactly in 128 bits: compare the product, no 128-bit division
  // (v * m > kMaxNanos is the same test as v > kMaxNanos / m for integers).
  constexpr u128 k64 = static_cast<u128>(1) << 64;
  if (v < k64 && m < k64) {
    const u128 p = v * m;
    if (p > kMaxNanos) return false;
    v = p;
    return true;
  }
  if (v > kMaxNanos / m) return false;
  v *= m;
  return true;
}

// 10^n for 0 <= n <= 38 (every power a u128 holds), from a table built at compile time.
constexpr auto kPow10 = [] {
  std::array<u128, 39> t{};
  t[0] = 1;
  for (std::size_t i = 1; i < t.size(); ++i) t[i] = t[i - 1] * 10;
  return t;
}();

u128 pow10(int n) {
  if (n >= 0 && n < static_cast<int>(kPow10.size())) return kPow10[static_cast<std::size_t>(n)];
  u128 r = 1;  // beyond 10^38 it wraps, as the loop it replaces did; callers check n first
  for (int i = 0; i < n; ++i) r *= 10;
  return r;
}

// ceil(v / 10^n) for v >= 0.
u128 div_pow10_ceil(u128 v, int n) {
  if (n > 38) return v == 0 ? 0 : 1;
  u128 d = pow10(n);
  return v / d + (v % d != 0 ? 1 : 0);
}

struct Parts {
  bool negative = false;
  std::string_view num;    // integer digits without leading zeros ("" for zero)
  std::string_view denom;  // fractional digits
  std::string_view suffix;
};

// Upstream's parseQuantityString: sign, digits, optional '.' digits, then a suffix made of
// [eEinumkKMGTP]* with an optional signed exponent number.
bool split_quantity(std::string_view s, Parts& p) {
  std::size_t pos = 0;
  const std::size_t end = s.size();
  if (pos < end && (s[0] == '-' || s[0] == '+')) {
    p.negative = s[0] == '-';
    ++pos;
  }
  while (pos < end && s[pos] == '0') ++pos;
  if (pos >= end) return true;  // all zeros (or just a sign)
  std::size_t start = pos;
  while (pos < end && is_digit(s[pos])) ++pos;
  p.num = s.substr(start, pos - start);
  if (pos >= end) return true;
  if (s[pos] == '.') {
    ++pos;
    start = pos;
    while (pos < end && is_digit(s[pos])) ++pos;
    p.denom = s.substr(start, pos - start);
    if (pos >= end) return true;
  }
  std::size_t suffix_start = pos;
  static constexpr std::string_view kSuffixChars = "eEinumkKMGTP";
  while (pos < end && kSuffixChars.find(s[pos]) != std::string_view::npos) ++pos;
  if (pos < end && (s[pos] == '-' || s[pos] == '+')) ++pos;
  while (pos < end && is_digit(s[pos])) ++pos;
  if (pos != end) return false;
  p.suffix = s.substr(suffix_start);
  return true;
}

struct SuffixInfo {
  int base;
  int exponent;
  Quantity::Format format;
};

std::optional<SuffixInfo> interpret_suffix(std::string_view s) {
  using F = Quantity::Format;
  // The SI suffixes ("", n u m k M G T P E) and the binary ones (Ki Mi Gi Ti Pi Ei), by their
  // characters: every quantity of every body passes here.
  if (s.empty()) return SuffixInfo{10, 0, F::DecimalSI};
  if (s.size() == 1) {
    switch (s[0]) {
      case 'n': return SuffixInfo{10, -9, F::DecimalSI};
      case 'u': return SuffixInfo{10, -6, F::DecimalSI};
      case 'm': return SuffixInfo{10, -3, F::DecimalSI};
      case 'k': return SuffixInfo{10, 3, F::DecimalSI};
      case 'M': return SuffixInfo{10, 6, F::DecimalSI};
      case 'G': return SuffixInfo{10, 9, F::DecimalSI};
      case 'T': return SuffixInfo{10, 12, F::DecimalSI};
      case 'P': return SuffixInfo{10, 15, F::DecimalSI};
      case 'E': return SuffixInfo{10, 18, F::DecimalSI};
      default: return std::nullopt;
    }
  }
  if (s.size() == 2 && s[1] == 'i') {
    switch (s[0]) {
      case 'K': return SuffixInfo{2, 10, F::BinarySI};
      case 'M': return SuffixInfo{2, 20, F::BinarySI};
      case 'G': return SuffixInfo{2, 30, F::BinarySI};
      case 'T': return SuffixInfo{2, 40, F::BinarySI};
      case 'P': return SuffixInfo{2, 50, F::BinarySI};
      case 'E': return SuffixInfo{2, 60, F::BinarySI};
      default: return std::nullopt;
    }
  }
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    // strconv.ParseInt(s[1:], 10, 32)
    std::string_view n = s.substr(1);
    bool neg = false;
    if (n[0] == '+' || n[0] == '-') {
      neg = n[0] == '-';
      n.remove_prefix(1);
    }
    if (n.empty()) return std::nullopt;
    std::int64_t v = 0;
    for (char c : n) {
      if (!is_digit(c)) return std::nullopt;
      v = v * 10 + (c - '0');
      if (v > (std::int64_t{1} << 31)) return std::nullopt;
    }
    if (neg) v = -v;
    if (v > INT32_MAX || v < INT32_MIN) return std::nullopt;
    return SuffixInfo{10, static_cast<int>(v), F::DecimalExponent};
  }
  return std::nullopt;
}

// Appends the decimal digits of a non-negative 128-bit value.
void append_u128(std::string& out, u128 v) {
  char buf[48];
  int n = 0;
  do {
    buf[n++] = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  } while (v != 0);
  while (n > 0) out += buf[--n];
}

u128 magnitude(i128 v) { return v < 0 ? static_cast<u128>(-(v + 1)) + 1 : static_cast<u128>(v); }

}  // namespace

util::Result<Quantity> Quantity::parse(std::string_view s) {
  if (s.empty()) return util::make_error(std::string(kFormatError));
  Parts p;
  if (!split_quantity(s, p)) return util::make_error(std::string(kFormatError));
  auto suffix = interpret_suffix(p.suffix);
  if (!suffix) return util::make_error(std::string(kSuffixError));

  // Significant digits N of num.denom, so that value = N * 10^-(fraction digits) * base^exp.
  std::string_view digits_int = p.num;
  std::string_view digits_frac = p.denom;
  // Keep at most `limit` significant digits; anything dropped only makes the value round up.
  const std::size_t limit = suffix->base == 2 ? 18 : 36;
  u128 n = 0;
  std::size_t sig = 0;
  int frac_digits = 0;
  bool sticky = false;
  int dropped_int = 0;  // integer digits dropped (each multiplies by 10)
  for (char c : digits_int) {
    if (sig < limit) {
      n = n * 10 + static_cast<unsigned>(c - '0');
      if (n != 0) ++sig;
    } else {
      ++dropped_int;
      sticky |= c != '0';
    }
  }
  for (char c : digits_frac) {
    if (dropped_int > 0 || sig >= limit) {
      sticky |= c != '0';
      continue;
    }
    n = n * 10 + static_cast<unsigned>(c - '0');
    if (n != 0) ++sig;
    ++frac_digits;
  }
  if (sticky) ++n;  // round the magnitude up, matching upstream's RoundUp to nano

  u128 nanos = 0;
  Format format = suffix->format;
  if (suffix->base == 10) {
    int k = suffix->exponent + 9 - frac_digits + dropped_int;
    nanos = n;
    if (k >= 0) {
      if (k > 38 && n != 0) return util::make_error(std::string(kTooLarge));
      if (!mul_checked(nanos, pow10(k))) return util::make_error(std::string(kTooLarge));
    } else {
      nanos = div_pow10_ceil(n, -k);
    }
  } else {
    // n * 2^exp * 10^(9 - frac + dropped), saturating at the BinarySI cap.
    nanos = n;
    bool capped = !mul_checked(nanos, static_cast<u128>(1) << suffix->exponent);
    int k = 9 - frac_digits + dropped_int;
    if (!capped) {
      if (k >= 0) {
        capped = k > 38 || !mul_checked(nanos, pow10(k));
      } else {
        nanos = div_pow10_ceil(nanos, -k);
      }
    }
    if (capped || nanos > static_cast<u128>(kBinaryCapNanos)) nanos = static_cast<u128>(kBinaryCapNanos);
    if (nanos != 0 && nanos < static_cast<u128>(kNano)) format = Format::DecimalSI;
  }
  Quantity q;
  q.nanos_ = p.negative ? -static_cast<i128>(nanos) : static_cast<i128>(nanos);
  q.format_ = format;
  return q;
}

Quantity Quantity::must(std::string_view s) {
  auto r = parse(s);
  if (!r) throw std::invalid_argument(std::string(s) + ": " + r.error());
  return r.value();
}

Quantity Quantity::from_int(std::int64_t v, Format f) {
  Quantity q;
  q.nanos_ = static_cast<i128>(v) * kNano;
  q.format_ = f;
  return q;
}

Quantity Quantity::from_milli(std::int64_t milli, Format f) {
  Quantity q;
  q.nanos_ = static_cast<i128>(milli) * 1'000'000;
  q.format_ = f;
  return q;
}

namespace {
// Scales nanos to 10^-digits units, rounding away from zero, saturating to int64.
std::int64_t scaled_round_up(i128 nanos, i128 divisor) {
  i128 q = nanos / divisor;
  if (nanos % divisor != 0) q += nanos > 0 ? 1 : -1;
  if (q > kMaxInt64) return INT64_MAX;
  if (q < -kMaxInt64 - 1) return INT64_MIN;
  return static_cast<std::int64_t>(q);
}
}  // namespace

std::int64_t Quantity::value() const { return scaled_round_up(nanos_, kNano); }
std::int64_t Quantity::milli_value() const { return scaled_round_up(nanos_, 1'000'000); }
bool Quantity::is_zero() const { return nanos_ == 0; }
int Quantity::sign() const { return nanos_ > 0 ? 1 : (nanos_ < 0 ? -1 : 0); }

std::string Quantity::to_string() const {
  if (nanos_ == 0) return "0";
  std::string out;
  const bool neg = nanos_ < 0;
  u128 mag = magnitude(nanos_);
  Format f = format_;
  if (f == Format::BinarySI) {
    // Small or fractional binary quantities print as decimal to avoid rounding.
    if (mag < static_cast<u128>(1024) * static_cast<u128>(kNano) || mag % static_cast<u128>(kNano) != 0) {
      f = Format::DecimalSI;
    }
  }
  if (neg) out += '-';
  if (f == Format::BinarySI) {
    u128 units = mag / static_cast<u128>(kNano);
    int exp = 0;
    while (units % 1024 == 0 && exp < 6) {
      units /= 1024;
      ++exp;
    }
    append_u128(out, units);
    static constexpr std::string_view kBin[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    out += kBin[exp];
    return out;
  }
  // Decimal: strip factors of ten into the exponent, then lower it to a multiple of three.
  int exp = -9;
  while (mag % 10 == 0) {
    mag /= 10;
    ++exp;
  }
  int rem = ((exp % 3) + 3) % 3;
  for (int i = 0; i < rem; ++i) mag *= 10;
  exp -= rem;
  if (f == Format::DecimalExponent) {
    append_u128(out, mag);
    if (exp != 0) {
      out += 'e';
      out += std::to_string(exp);
    }
    return out;
  }
  while (exp > 18) {  // beyond exa there is no SI suffix
    mag *= 10;
    --exp;
  }
  append_u128(out, mag);
  switch (exp) {
    case -9: out += 'n'; break;
    case -6: out += 'u'; break;
    case -3: out += 'm'; break;
    case 3: out += 'k'; break;
    case 6: out += 'M'; break;
    case 9: out += 'G'; break;
    case 12: out += 'T'; break;
    case 15: out += 'P'; break;
    case 18: out += 'E'; break;
    default: break;
  }
  return out;
}

std::optional<int> kept_text_scale(std::string_view s) {
  // ParseQuantity's fast path (apimachinery resource/quantity.go): an int64 mantissa, scale at
  // least nano; only then may the input be kept.
  if (s == "0") return 0;
  Parts p;
  if (!split_quantity(s, p)) return std::nullopt;
  auto suffix = interpret_suffix(p.suffix);
  if (!suffix) return std::nullopt;
  constexpr int kMaxInt64Factors = 18;
  std::string_view num = p.num.empty() ? std::string_view("0") : p.num;
  const int digits = static_cast<int>(num.size() + p.denom.size());
  int scale = 0;
  int precision = 0;
  if (suffix->format == Quantity::Format::BinarySI) {
    if (!p.denom.empty()) return std::nullopt;
    // float32(exponent)*3/10 truncated: the decimal digits a binary suffix adds.
    precision = 15 - static_cast<int>(num.size()) - suffix->exponent * 3 / 10 - 1;
  } else {
    scale = suffix->exponent;
    precision = kMaxInt64Factors - digits;
  }
  if (precision < 0) return std::nullopt;
  scale -= static_cast<int>(p.denom.size());
  if (scale < -9) return std::nullopt;
  // At most 18 digits here (precision >= 0): on the stack, not a std::string per quantity.
  char buf[kMaxInt64Factors + 1];
  if (static_cast<std::size_t>(digits) > sizeof buf) return std::nullopt;
  std::copy(num.begin(), num.end(), buf);
  std::copy(p.denom.begin(), p.denom.end(), buf + num.size());
  const std::string_view shifted(buf, static_cast<std::size_t>(digits));
  u128 value = 0;
  for (char c : shifted) value = value * 10 + static_cast<unsigned>(c - '0');
  if (value > static_cast<u128>(kMaxInt64)) return std::nullopt;  // strconv.ParseInt fails
  if (suffix->format == Quantity::Format::BinarySI) {
    if (suffix->exponent > 0 && value != 0 && value > (static_cast<u128>(kMaxInt64) >> suffix->exponent))
      return std::nullopt;  // int64Multiply overflows
    if (value & 0x07) return 0;
    return std::nullopt;
  }
  if (scale % 3 == 0 && !shifted.ends_with("000") && shifted[0] != '0') return scale;
  return std::nullopt;
}

std::string upstream_text(std::string_view s, const Quantity& q, bool resource_list) {
  if (auto scale = kept_text_scale(s); scale && (!resource_list || *scale >= -3)) return std::string(s);
  return (resource_list ? rounded_up_to_milli(q) : q).to_string();
}

Quantity rounded_up_to_milli(const Quantity& q) {
  const std::int64_t milli = q.milli_value();  // rounded away from zero, saturating
  if (milli == std::numeric_limits<std::int64_t>::max() || milli == std::numeric_limits<std::int64_t>::min())
    return q;  // beyond int64 milli-units: nothing finer than a milli-unit is worth keeping
  Quantity rounded = Quantity::from_milli(milli, q.format());
  return rounded == q ? q : rounded;
}

Quantity& Quantity::operator+=(const Quantity& o) {
  if (nanos_ == 0) format_ = o.format_;
  nanos_ += o.nanos_;
  return *this;
}

Quantity& Quantity::operator-=(const Quantity& o) {
  if (nanos_ == 0) format_ = o.format_;
  nanos_ -= o.nanos_;
  return *this;
}

std::strong_ordering Quantity::operator<=>(const Quantity& o) const {
  if (nanos_ < o.nanos_) return std::strong_ordering::less;
  if (nanos_ > o.nanos_) return std::strong_ordering::greater;
  return std::strong_ordering::equal;
}

}  // namespace ksched::api
