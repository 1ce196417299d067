#include "util/go_format.h"

#include <cstdint>

namespace ksched::util {

std::string go_quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\v': out += "\\v"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          static constexpr char kHex[] = "0123456789abcdef";
          out += "\\x";
          out += kHex[c >> 4];
          out += kHex[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

namespace {

// v / 10^prec with trailing zeros (and a dangling '.') removed.
std::string fixed_trimmed(std::uint64_t v, int prec) {
  std::string digits = std::to_string(v);
  if (prec == 0) return digits;
  while (static_cast<int>(digits.size()) <= prec) digits.insert(digits.begin(), '0');
  std::string out = digits.substr(0, digits.size() - prec);
  std::string frac = digits.substr(digits.size() - prec);
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  if (!frac.empty()) out.append(".").append(frac);
  return out;
}

}  // namespace

std::string go_duration(std::chrono::nanoseconds d) {
  std::int64_t ns = d.count();
  if (ns == 0) return "0s";
  bool neg = ns < 0;
  std::uint64_t u = neg ? static_cast<std::uint64_t>(-(ns + 1)) + 1 : static_cast<std::uint64_t>(ns);
  std::string out;
  if (u < 1'000'000'000ULL) {
    if (u < 1'000ULL)
      out = std::to_string(u) + "ns";
    else if (u < 1'000'000ULL)
      out = fixed_trimmed(u, 3) + "\xC2\xB5s";  // µs, as Go prints it
    else
      out = fixed_trimmed(u, 6) + "ms";
  } else {
    std::uint64_t h = u / 3'600'000'000'000ULL;
    std::uint64_t rem = u % 3'600'000'000'000ULL;
    std::uint64_t m = rem / 60'000'000'000ULL;
    std::string secs = fixed_trimmed(rem % 60'000'000'000ULL, 9) + "s";
    if (h > 0)
      out = std::to_string(h) + "h" + std::to_string(m) + "m" + secs;
    else if (m > 0)
      out = std::to_string(m) + "m" + secs;
    else
      out = secs;
  }
  return neg ? "-" + out : out;
}

}  // namespace ksched::util
