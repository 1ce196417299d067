// Semantic versions as github.com/blang/semver/v4 parses and compares them (the Kubernetes CEL
// semver library and DRA's version attributes use it): MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD],
// no leading zeros, build metadata ignored when comparing.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace ksched::cel {

struct Semver {
  std::uint64_t major = 0, minor = 0, patch = 0;
  std::string_view pre;  // prerelease identifiers joined by '.', a view into the parsed text
};

// Parses `s`; on failure returns false and, if `error` is not null, sets blang's message
// ("No Major.Minor.Patch elements found", "Invalid character(s) found in major number \"x\"").
bool parse_semver(std::string_view s, Semver& out, std::string* error);

// -1, 0 or 1 (blang's Version.Compare).
int compare_semver(const Semver& a, const Semver& b);

// The Kubernetes library's normalizeAndParse preprocessing for semver(s, true): drops a leading
// 'v', leading zeros of the three numbers, and pads missing minor/patch with ".0". Returns false
// with its message for a short version carrying prerelease or build data.
bool normalize_semver(std::string_view s, std::string& out, std::string* error);

}  // namespace ksched::cel
