// RFC 3339 timestamps as the API writes them (seconds, UTC, "Z"), MicroTime with six digits.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ksched::apiserver {

std::string format_rfc3339(std::int64_t unix_seconds);
std::string format_micro(std::int64_t unix_micros);
std::optional<std::int64_t> parse_rfc3339(std::string_view s);

}  // namespace ksched::apiserver
