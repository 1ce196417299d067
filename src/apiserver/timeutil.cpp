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
