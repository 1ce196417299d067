#include "apiserver/timeutil.h"

#include <cstdio>
#include <ctime>

namespace ksched::apiserver {

std::string format_rfc3339(std::int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string format_micro(std::int64_t unix_micros) {
  std::time_t t = static_cast<std::time_t>(unix_micros / 1000000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[48];
  std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%06lldZ", static_cast<long long>(unix_micros % 1000000));
  return buf;
}

std::optional<std::int64_t> parse_rfc3339(std::string_view s) {
  int Y, M, D, h, m, sec;
  std::string str(s);
  if (std::sscanf(str.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &Y, &M, &D, &h, &m, &sec) != 6) return std::nullopt;
  std::tm tm{};
  tm.tm_year = Y - 1900;
  tm.tm_mon = M - 1;
  tm.tm_mday = D;
  tm.tm_hour = h;
  tm.tm_min = m;
  tm.tm_sec = sec;
  return static_cast<std::int64_t>(timegm(&tm));
}

}  // namespace ksched::apiserver

namespace ksched::apiserver {

namespace {

// time's quote(): non-ASCII and control bytes as \xNN, " and \ escaped.
std::string go_time_quote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c >= 0x80 || c < ' ') {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      if (c == '"' || c == '\\') out += '\\';
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

bool digit_at(std::string_view s, std::size_t i) { return i < s.size() && s[i] >= '0' && s[i] <= '9'; }

// time's getnum: one or two digits (exactly two when fixed).
bool getnum(std::string_view& s, bool fixed, int& n) {
  if (!digit_at(s, 0)) return false;
  if (!digit_at(s, 1)) {
    if (fixed) return false;
    n = s[0] - '0';
    s.remove_prefix(1);
    return true;
  }
  n = (s[0] - '0') * 10 + (s[1] - '0');
  s.remove_prefix(2);
  return true;
}

bool leap(int y) { return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0); }

}  // namespace

// Follows time.Parse's loop over the layout's chunks for the two layouts metav1 uses.
std::optional<std::string> go_time_parse_error(std::string_view s, bool micro) {
  const std::string_view layout =
      micro ? "2006-01-02T15:04:05.000000Z07:00" : "2006-01-02T15:04:05Z07:00";
  const std::string whole = go_time_quote(s);
  auto cannot = [&](std::string_view value_elem, std::string_view layout_elem) {
    return "parsing time " + whole + " as " + go_time_quote(layout) + ": cannot parse " + go_time_quote(value_elem) +
           " as " + go_time_quote(layout_elem);
  };
  auto out_of_range = [&](std::string_view what) { return "parsing time " + whole + ": " + std::string(what) + " out of range"; };
  // (literal prefix, element) pairs of the layout.
  struct Chunk {
    std::string_view prefix, elem;
  };
  static constexpr Chunk kRfc3339[] = {{"", "2006"}, {"-", "01"}, {"-", "02"}, {"T", "15"},
                                       {":", "04"}, {":", "05"}, {"", "Z07:00"}};
  static constexpr Chunk kMicro[] = {{"", "2006"}, {"-", "01"}, {"-", "02"},      {"T", "15"},
                                     {":", "04"},  {":", "05"}, {"", ".000000"}, {"", "Z07:00"}};
  const Chunk* chunks = micro ? kMicro : kRfc3339;
  const std::size_t count = micro ? std::size(kMicro) : std::size(kRfc3339);
  std::string_view v = s;
  int year = 0, month = 0, day = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const Chunk& c = chunks[i];
    for (std::size_t k = 0; k < c.prefix.size(); ++k) {
      if (v.empty() || v[0] != c.prefix[k]) return cannot(v, c.prefix.substr(k));
      v.remove_prefix(1);
    }
    std::string_view hold = v;
    int n = 0;
    if (c.elem == "2006") {
      if (v.size() < 4 || !digit_at(v, 0)) return cannot(hold, c.elem);
      for (int k = 0; k < 4; ++k) {
        if (!digit_at(v, k)) return cannot(hold, c.elem);
        n = n * 10 + (v[k] - '0');
      }
      v.remove_prefix(4);
      year = n;
    } else if (c.elem == "01") {
      if (!getnum(v, true, n)) return cannot(hold, c.elem);
      if (n <= 0 || n > 12) return out_of_range("month");
      month = n;
    } else if (c.elem == "02") {
      if (!getnum(v, true, n)) return cannot(hold, c.elem);
      day = n;
    } else if (c.elem == "15") {
      if (!getnum(v, false, n)) return cannot(hold, c.elem);
      if (n >= 24) return out_of_range("hour");
    } else if (c.elem == "04") {
      if (!getnum(v, true, n)) return cannot(hold, c.elem);
      if (n >= 60) return out_of_range("minute");
    } else if (c.elem == "05") {
      if (!getnum(v, true, n)) return cannot(hold, c.elem);
      if (n >= 60) return out_of_range("second");
      // A fraction the layout does not have is read anyway.
      if (!micro && v.size() >= 2 && (v[0] == '.' || v[0] == ',') && digit_at(v, 1)) {
        std::size_t k = 2;
        while (digit_at(v, k)) ++k;
        v.remove_prefix(k);
      }
    } else if (c.elem == ".000000") {
      if (v.size() < 7 || (v[0] != '.' && v[0] != ',')) return cannot(hold, c.elem);
      for (std::size_t k = 1; k < 7; ++k)
        if (!digit_at(v, k)) return cannot(hold, c.elem);
      v.remove_prefix(7);
    } else {  // Z07:00
      if (!v.empty() && v[0] == 'Z') {
        v.remove_prefix(1);
      } else {
        if (v.size() < 6 || v[3] != ':') return cannot(hold, c.elem);
        std::string_view hh = v.substr(1, 2), mm = v.substr(4, 2);
        int h = 0, m = 0;
        bool ok = getnum(hh, true, h) && getnum(mm, true, m);
        if (h > 24) return out_of_range("time zone offset hour");
        if (m > 60) return out_of_range("time zone offset minute");
        if (!ok || (v[0] != '+' && v[0] != '-')) return cannot(hold, c.elem);
        v.remove_prefix(6);
      }
    }
  }
  if (!v.empty()) return "parsing time " + whole + ": extra text: " + go_time_quote(v);
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int days = kDays[month - 1] + (month == 2 && leap(year) ? 1 : 0);
  if (day < 1 || day > days) return "parsing time " + whole + ": day out of range";
  return std::nullopt;
}

}  // namespace ksched::apiserver
