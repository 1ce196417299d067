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

// Go's time.Parse(time.RFC3339, s) (micro: RFC3339Micro, metav1.MicroTime's layout) as metav1.Time
// decodes a timestamp: nullopt when it parses, else Go's error text ("parsing time \"x\" as
// \"2006-01-02T15:04:05Z07:00\": cannot parse \"x\" as \"2006\"", "...: month out of range").
std::optional<std::string> go_time_parse_error(std::string_view s, bool micro);

}  // namespace ksched::apiserver
