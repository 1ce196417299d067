#include "api/helpers.h"

#include "api/civil_date.h"

#include <algorithm>
#include <cstdint>

namespace ksched::api {
namespace {

constexpr std::int64_t kNanosPerSecond = 1'000'000'000;

// Days since 1970-01-01 for a proleptic Gregorian date (H. Hinnant's algorithm).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}


void put2(std::string& out, unsigned v) {
  out += static_cast<char>('0' + v / 10);
  out += static_cast<char>('0' + v % 10);
}

bool digits(std::string_view s, std::size_t pos, std::size_t n, unsigned& out) {
  if (pos + n > s.size()) return false;
  unsigned v = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    char c = s[i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  out = v;
  return true;
}

bool is_leap(std::int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

}  // namespace

void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
}

void append_rfc3339(std::string& out, std::int64_t unix_nanos, int frac_digits) {
  std::int64_t secs = unix_nanos / kNanosPerSecond;
  std::int64_t nanos = unix_nanos % kNanosPerSecond;
  if (nanos < 0) {
    nanos += kNanosPerSecond;
    --secs;
  }
  std::int64_t days = secs / 86400;
  std::int64_t sod = secs % 86400;
  if (sod < 0) {
    sod += 86400;
    --days;
  }
  std::int64_t y;
  unsigned m, d;
  civil_from_days(days, y, m, d);
  if (y < 0 || y > 9999) y = std::clamp<std::int64_t>(y, 0, 9999);  // RFC 3339 has four-digit years
  char ybuf[5];
  ybuf[0] = static_cast<char>('0' + y / 1000);
  ybuf[1] = static_cast<char>('0' + y / 100 % 10);
  ybuf[2] = static_cast<char>('0' + y / 10 % 10);
  ybuf[3] = static_cast<char>('0' + y % 10);
  ybuf[4] = 0;
  out.append(ybuf, 4);
  out += '-';
  put2(out, m);
  out += '-';
  put2(out, d);
  out += 'T';
  put2(out, static_cast<unsigned>(sod / 3600));
  out += ':';
  put2(out, static_cast<unsigned>(sod / 60 % 60));
  out += ':';
  put2(out, static_cast<unsigned>(sod % 60));
  if (frac_digits > 0) {
    out += '.';
    char buf[9];
    std::int64_t n = nanos;
    for (int i = 8; i >= 0; --i) {
      buf[i] = static_cast<char>('0' + n % 10);
      n /= 10;
    }
    out.append(buf, static_cast<std::size_t>(std::min(frac_digits, 9)));
  }
  out += 'Z';
}

std::string format_rfc3339(Time t) {
  std::string s;
  s.reserve(20);
  append_rfc3339(s, t.unixNanos, 0);
  return s;
}

std::string format_rfc3339(MicroTime t) {
  std::string s;
  s.reserve(27);
  append_rfc3339(s, t.unixNanos, 6);
  return s;
}

bool parse_rfc3339_nanos(std::string_view s, std::int64_t& unix_nanos) {
  // YYYY-MM-DDTHH:MM:SS[.fffffffff](Z|+HH:MM|-HH:MM)
  unsigned year, mon, day, hh, mm, ss;
  if (!digits(s, 0, 4, year) || s.size() < 20 || s[4] != '-' || !digits(s, 5, 2, mon) || s[7] != '-' ||
      !digits(s, 8, 2, day) || (s[10] != 'T' && s[10] != 't') || !digits(s, 11, 2, hh) || s[13] != ':' ||
      !digits(s, 14, 2, mm) || s[16] != ':' || !digits(s, 17, 2, ss))
    return false;
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (mon < 1 || mon > 12 || day < 1) return false;
  unsigned mdays = kDays[mon - 1] + (mon == 2 && is_leap(year) ? 1 : 0);
  if (day > mdays || hh > 23 || mm > 59 || ss > 59) return false;
  std::size_t pos = 19;
  std::int64_t frac = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    std::size_t start = pos;
    int n = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (n < 9) {
        frac = frac * 10 + (s[pos] - '0');
        ++n;
      }
      ++pos;
    }
    if (pos == start) return false;
    for (; n < 9; ++n) frac *= 10;
  }
  std::int64_t offset = 0;
  if (pos >= s.size()) return false;
  if (s[pos] == 'Z' || s[pos] == 'z') {
    ++pos;
  } else if (s[pos] == '+' || s[pos] == '-') {
    unsigned oh, om;
    if (!digits(s, pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' || !digits(s, pos + 4, 2, om) ||
        oh > 23 || om > 59)
      return false;
    offset = (static_cast<std::int64_t>(oh) * 3600 + om * 60) * (s[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return false;
  }
  if (pos != s.size()) return false;
  std::int64_t secs = days_from_civil(year, mon, day) * 86400 + hh * 3600 + mm * 60 + ss - offset;
  // int64 nanoseconds reach from 1677 to 2262; anything outside is rejected, not wrapped.
  if (secs > INT64_MAX / kNanosPerSecond - 1 || secs < INT64_MIN / kNanosPerSecond + 1) return false;
  unix_nanos = secs * kNanosPerSecond + frac;
  return true;
}

util::Result<Time> parse_rfc3339(std::string_view s) {
  std::int64_t n;
  if (!parse_rfc3339_nanos(s, n))
    return util::make_error("parsing time \"" + std::string(s) + "\" as RFC 3339: invalid timestamp");
  return Time{n};
}

util::Result<MicroTime> parse_rfc3339_micro(std::string_view s) {
  std::int64_t n;
  if (!parse_rfc3339_nanos(s, n))
    return util::make_error("parsing time \"" + std::string(s) + "\" as RFC 3339: invalid timestamp");
  return MicroTime{n};
}

Time to_time(std::chrono::system_clock::time_point tp) {
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(tp.time_since_epoch()).count();
  return Time{ns - (((ns % kNanosPerSecond) + kNanosPerSecond) % kNanosPerSecond)};
}

MicroTime to_micro_time(std::chrono::system_clock::time_point tp) {
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(tp.time_since_epoch()).count();
  return MicroTime{ns - (((ns % 1000) + 1000) % 1000)};
}

std::chrono::system_clock::time_point to_time_point(Time t) {
  return std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::nanoseconds(t.unixNanos)));
}

Time now(const util::Clock& clock) { return to_time(clock.wall_now()); }
MicroTime micro_now(const util::Clock& clock) { return to_micro_time(clock.wall_now()); }

std::string namespaced_key(std::string_view ns, std::string_view name) {
  std::string k;
  if (!ns.empty()) {
    k.reserve(ns.size() + 1 + name.size());
    k.append(ns);
    k += '/';
  }
  k.append(name);
  return k;
}

std::string namespaced_key(const ObjectMeta& meta) { return namespaced_key(meta.namespace_, meta.name); }

std::pair<std::string_view, std::string_view> split_key(std::string_view key) {
  auto slash = key.find('/');
  if (slash == std::string_view::npos) return {std::string_view{}, key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

util::Result<int> scaled_value_from_int_or_percent(const IntOrString* v, int total, bool round_up) {
  if (v == nullptr) return util::make_error("nil value for IntOrString");
  if (v->is_int()) return static_cast<int>(v->intVal);
  std::string_view s = v->strVal;
  if (s.empty() || s.back() != '%')
    return util::make_error("invalid value for IntOrString: invalid type: string is not a percentage");
  s.remove_suffix(1);
  std::int64_t pct = 0;
  bool neg = false;
  std::size_t i = 0;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    i = 1;
  }
  if (i == s.size())
    return util::make_error("invalid value for IntOrString: invalid value \"" + v->strVal + "\": strconv.Atoi: parsing \"" +
                              std::string(s) + "\": invalid syntax");
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9' || pct > 1'000'000'000)
      return util::make_error("invalid value for IntOrString: invalid value \"" + v->strVal + "\": strconv.Atoi: parsing \"" +
                              std::string(s) + "\": invalid syntax");
    pct = pct * 10 + (s[i] - '0');
  }
  if (neg) pct = -pct;
  const std::int64_t prod = pct * total;
  std::int64_t q = prod / 100;
  const std::int64_t r = prod % 100;
  if (r != 0) {
    if (round_up && prod > 0) ++q;
    if (!round_up && prod < 0) --q;
  }
  return static_cast<int>(q);
}

bool pod_is_terminal(const Pod& pod) { return pod.status.phase == "Succeeded" || pod.status.phase == "Failed"; }

const NodeCondition* find_node_condition(const NodeStatus& status, std::string_view type) {
  for (const auto& c : status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

const PodCondition* find_pod_condition(const PodStatus& status, std::string_view type) {
  for (const auto& c : status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

PodCondition* find_pod_condition(PodStatus& status, std::string_view type) {
  return const_cast<PodCondition*>(find_pod_condition(std::as_const(status), type));
}

bool update_pod_condition(PodStatus& status, PodCondition condition, Time now) {
  condition.lastTransitionTime = now;
  PodCondition* old = find_pod_condition(status, condition.type);
  if (old == nullptr) {
    status.conditions.push_back(std::move(condition));
    return true;
  }
  if (condition.status == old->status) condition.lastTransitionTime = old->lastTransitionTime;
  const bool same = condition.status == old->status && condition.reason == old->reason &&
                    condition.message == old->message && condition.lastProbeTime == old->lastProbeTime &&
                    condition.lastTransitionTime == old->lastTransitionTime;
  // Keep what we did not model (extra) and presence from the stored condition when rewriting it.
  condition.extra = std::move(old->extra);
  condition.present = old->present;
  *old = std::move(condition);
  return !same;
}

}  // namespace ksched::api
