// Version 4 (random) UUIDs, as upstream's uuid.New(): object uids, share IDs, temporary claim uids.
#pragma once
#include <cstdint>
#include <string>

namespace ksched::util {

// The UUID text ("xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx") of 128 random bits, version and
// variant bits set as RFC 4122 says.
std::string format_uuid_v4(std::uint64_t hi, std::uint64_t lo);

// A new random UUID: unique, not secret (a generator per thread, seeded once from the system).
std::string new_uuid();

}  // namespace ksched::util
