// Go's text forms that upstream messages contain, in one place: %q of a string and
// time.Duration's String().
#pragma once
#include <chrono>
#include <string>
#include <string_view>

namespace ksched::util {

// Go's %q (strconv.Quote) for the strings messages quote: \" \\ \n \t \r and \a \b \f \v escaped,
// other control bytes and DEL as \xNN; everything else as it is.
std::string go_quote(std::string_view s);

// time.Duration.String(): "0s", "1.5s", "2m0s", "1h0m0s", "300ms", "1.5µs", "-2s".
std::string go_duration(std::chrono::nanoseconds d);

}  // namespace ksched::util
