#include "cel/semver.h"

#include <vector>

#include "util/go_format.h"

namespace ksched::cel {
namespace {

bool only(std::string_view s, bool alnum) {
  for (char c : s) {
    bool ok = (c >= '0' && c <= '9') || (alnum && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-'));
    if (!ok) return false;
  }
  return true;
}

bool leading_zero(std::string_view s) { return s.size() > 1 && s[0] == '0'; }

bool parse_u64(std::string_view s, std::uint64_t& out, std::string* error) {
  auto fail = [&](const char* why) {
    if (error) *error = "strconv.ParseUint: parsing " + util::go_quote(s) + ": " + why;
    return false;
  };
  if (s.empty()) return fail("invalid syntax");
  unsigned __int128 v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return fail("invalid syntax");
    v = v * 10 + static_cast<unsigned>(c - '0');
    if (v > UINT64_MAX) return fail("value out of range");
  }
  out = static_cast<std::uint64_t>(v);
  return true;
}

bool number(std::string_view part, const char* which, std::uint64_t& out, std::string* error) {
  if (!only(part, false)) {
    if (error) *error = std::string("Invalid character(s) found in ") + which + " number " + util::go_quote(part);
    return false;
  }
  if (leading_zero(part)) {
    std::string w = which;
    w[0] = static_cast<char>(w[0] - 32);
    if (error) *error = w + " number must not contain leading zeroes " + util::go_quote(part);
    return false;
  }
  return parse_u64(part, out, error);
}

// Splits `s` at '.' into views.
std::vector<std::string_view> split_dots(std::string_view s, std::size_t max_parts) {
  std::vector<std::string_view> out;
  while (out.size() + 1 < max_parts) {
    auto k = s.find('.');
    if (k == std::string_view::npos) break;
    out.push_back(s.substr(0, k));
    s.remove_prefix(k + 1);
  }
  out.push_back(s);
  return out;
}

}  // namespace

bool parse_semver(std::string_view s, Semver& out, std::string* error) {
  if (s.empty()) {
    if (error) *error = "Version string empty";
    return false;
  }
  // Major.Minor.(patch+pr+meta), without allocating: find the first two dots.
  auto d1 = s.find('.');
  auto d2 = d1 == std::string_view::npos ? d1 : s.find('.', d1 + 1);
  if (d2 == std::string_view::npos) {
    if (error) *error = "No Major.Minor.Patch elements found";
    return false;
  }
  Semver v;
  if (!number(s.substr(0, d1), "major", v.major, error)) return false;
  if (!number(s.substr(d1 + 1, d2 - d1 - 1), "minor", v.minor, error)) return false;
  std::string_view patch = s.substr(d2 + 1);
  std::string_view build, pre;
  bool has_build = false, has_pre = false;
  if (auto b = patch.find('+'); b != std::string_view::npos) {
    build = patch.substr(b + 1);
    patch = patch.substr(0, b);
    has_build = true;
  }
  if (auto p = patch.find('-'); p != std::string_view::npos) {
    pre = patch.substr(p + 1);
    patch = patch.substr(0, p);
    has_pre = true;
  }
  if (!number(patch, "patch", v.patch, error)) return false;
  if (has_pre) {
    std::string_view rest = pre;
    for (;;) {
      auto k = rest.find('.');
      std::string_view id = rest.substr(0, k);
      if (id.empty()) {
        if (error) *error = "Prerelease is empty";
        return false;
      }
      if (only(id, false)) {
        if (leading_zero(id)) {
          if (error) *error = "Numeric PreRelease version must not contain leading zeroes " + util::go_quote(id);
          return false;
        }
        std::uint64_t ignored = 0;
        if (!parse_u64(id, ignored, error)) return false;
      } else if (!only(id, true)) {
        if (error) *error = "Invalid character(s) found in prerelease " + util::go_quote(id);
        return false;
      }
      if (k == std::string_view::npos) break;
      rest.remove_prefix(k + 1);
    }
    v.pre = pre;
  }
  if (has_build) {
    std::string_view rest = build;
    for (;;) {
      auto k = rest.find('.');
      std::string_view id = rest.substr(0, k);
      if (id.empty()) {
        if (error) *error = "Build meta data is empty";
        return false;
      }
      if (!only(id, true)) {
        if (error) *error = "Invalid character(s) found in build meta data " + util::go_quote(id);
        return false;
      }
      if (k == std::string_view::npos) break;
      rest.remove_prefix(k + 1);
    }
  }
  out = v;
  return true;
}

int compare_semver(const Semver& a, const Semver& b) {
  auto cmp = [](std::uint64_t x, std::uint64_t y) { return x == y ? 0 : x > y ? 1 : -1; };
  if (int c = cmp(a.major, b.major)) return c;
  if (int c = cmp(a.minor, b.minor)) return c;
  if (int c = cmp(a.patch, b.patch)) return c;
  if (a.pre.empty() && b.pre.empty()) return 0;
  if (a.pre.empty()) return 1;
  if (b.pre.empty()) return -1;
  std::string_view x = a.pre, y = b.pre;
  for (;;) {
    auto kx = x.find('.'), ky = y.find('.');
    std::string_view ix = x.substr(0, kx), iy = y.substr(0, ky);
    bool nx = only(ix, false), ny = only(iy, false);
    int c = 0;
    if (nx && !ny) {
      c = -1;
    } else if (!nx && ny) {
      c = 1;
    } else if (nx && ny) {
      // No leading zeros: longer is larger, equal lengths compare as text.
      c = ix.size() != iy.size() ? (ix.size() > iy.size() ? 1 : -1) : (ix == iy ? 0 : ix > iy ? 1 : -1);
    } else {
      c = ix == iy ? 0 : ix > iy ? 1 : -1;
    }
    if (c != 0) return c;
    bool ex = kx == std::string_view::npos, ey = ky == std::string_view::npos;
    if (ex && ey) return 0;
    if (ex) return -1;
    if (ey) return 1;
    x.remove_prefix(kx + 1);
    y.remove_prefix(ky + 1);
  }
}

bool normalize_semver(std::string_view s, std::string& out, std::string* error) {
  if (!s.empty() && s[0] == 'v') s.remove_prefix(1);
  std::vector<std::string> parts;
  for (auto p : split_dots(s, 3)) parts.emplace_back(p);
  for (auto& p : parts) {
    if (p.size() > 1) {
      std::size_t k = 0;
      while (k < p.size() && p[k] == '0') ++k;
      p.erase(0, k);
      if (p.empty() || !(p[0] >= '0' && p[0] <= '9')) p.insert(p.begin(), '0');
    }
  }
  if (parts.size() < 3) {
    if (parts.back().find_first_of("+-") != std::string::npos) {
      if (error) *error = "short version cannot contain PreRelease/Build meta data";
      return false;
    }
    while (parts.size() < 3) parts.emplace_back("0");
  }
  out = parts[0] + "." + parts[1] + "." + parts[2];
  return true;
}

}  // namespace ksched::cel
