// The resource pools a node can use (upstream structured GatherPools): the slices of each
// (driver, pool) whose node selection matches the node, of the pool's newest generation only,
// and whether the pool is complete (all its slices seen) and valid (no device name twice).
#pragma once
#include <string>
#include <vector>

#include "scheduler/dra/allocator.h"

namespace ksched::scheduler::dra {

struct Pool {
  std::string driver;
  std::string pool;
  bool incomplete = false;
  bool invalid = false;
  std::string invalid_reason;
  std::vector<const resourceapi::ResourceSlice*> slices;  // in the order they were given

  std::string id() const { return driver + "/" + pool; }
};

// Pools in (driver, pool) order. Errors: a node selector that cannot be parsed.
util::Result<std::vector<Pool>> gather_pools(std::span<const std::shared_ptr<const resourceapi::ResourceSlice>> slices,
                                             const api::Node& node, const Features& features);

}  // namespace ksched::scheduler::dra
