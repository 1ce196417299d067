// Days since 1970-01-01 <-> proleptic Gregorian dates (Howard Hinnant's algorithms), shared by the
// RFC 3339 formatting of the JSON codec and the protobuf-to-JSON transcoder.
#pragma once
#include <cstdint>

namespace ksched::api {

void civil_from_days(std::int64_t days, std::int64_t& year, unsigned& month, unsigned& day);

}  // namespace ksched::api
