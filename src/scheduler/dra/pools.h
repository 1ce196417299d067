// The resource pools a node can use (upstream structured GatherPools): the slices of each
// (driver, pool) whose node selection matches the node, of the pool's newest generation only,
// and whether the pool is complete (all its slices seen) and valid (no device name twice).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/dra/allocator.h"

namespace ksched::scheduler::dra {

struct Pool {
  std::string_view driver;  // views into the slices
  std::string_view pool;
  bool incomplete = false;
  bool invalid = false;
  bool binding_conditions = false;  // complete, with a device that has binding conditions
  // The pool's slices: Pools::slices[first, first + count), in the order they were given.
  std::uint32_t first = 0;
  std::uint32_t count = 0;

  std::string id() const { return std::string(driver) + "/" + std::string(pool); }
};

// gather_pools' result, and its working space: reused between calls, so a caller that keeps one
// allocates nothing once it has seen its largest input.
struct Pools {
  std::vector<Pool> pools;             // in (driver, pool) order (see gather_pools)
  std::vector<std::uint32_t> slices;   // indices into the slices given
  // Working space.
  struct Candidate {
    std::string_view driver, pool;
    std::int64_t generation;
    std::uint32_t index;
    bool binding_conditions;  // a device of the slice has some (ordered last, see gather_pools)
  };
  std::vector<Candidate> candidates;
  std::vector<std::string_view> names;
  std::vector<std::uint64_t> fingerprints;
};

// A device name's length and last (up to) seven bytes: drivers number their devices ("gpu-0",
// "gpu-1"), so names of one pool nearly always differ there; equal names have equal fingerprints.
std::uint64_t device_name_fingerprint(std::string_view name);

// Fills `out` (cleared first). Errors: a node selector that cannot be parsed.
// Where upstream runs its experimental allocator (DRAConsumableCapacity or device binding
// conditions on), slices and complete pools with binding conditions come after the others, so
// the search prefers devices that need no waiting in PreBind (upstream's experimental GatherPools).

util::Result<void> gather_pools(std::span<const std::shared_ptr<const resourceapi::ResourceSlice>> slices,
                                const api::Node& node, const Features& features, Pools& out);

}  // namespace ksched::scheduler::dra
