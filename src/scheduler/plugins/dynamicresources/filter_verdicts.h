// Filter's verdicts per node, remembered across pods (ksched's, not upstream's: upstream allocates
// afresh for every pod and node).
//
// Whether a pod's unallocated claims fit on a node is a function of the claims' specs (and
// namespace), the node object, the slices the node may use, the devices in use of those slices'
// pools, the DeviceClasses and the allocator's features (fixed per plugin). Pods made from one
// template ask the same; a binding changes the devices in use of one node's pools only. So the
// verdict for (node, claims) stays valid until one of those inputs is replaced, and the next pod
// with the same claims finds it instead of running the allocator again on every node. Every input
// is an immutable shared object, replaced (never changed) when it changes: an entry holds the ones
// it was computed from and is valid while they are the current ones (pointer equality; held, so
// no address can be reused while compared). The DeviceClasses are compared by the manager's
// generation count.
//
// Only Filter's boolean outcome is kept ("fits", or the Unschedulable message of a node-only
// failure): Reserve allocates again on the chosen node, as without this cache. Pods whose claims
// need per-node results (firstAvailable requests, the special claim of extended resources) are
// not looked up. Thread-safe: Filter runs on several threads at once.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "scheduler/dra/manager.h"

namespace ksched::scheduler::plugins::dynamicresources {

namespace resourceapi = api::resourcev1;

// The inputs of one verdict, besides the claims' key.
struct VerdictInputs {
  const std::shared_ptr<const api::Node>* node = nullptr;
  std::span<const dra::SlicePtr> slices;   // the node's slices, then the node-less ones
  const dra::AllocatedDevices* in_use = nullptr;
  std::uint64_t class_generation = 0;
};

struct Verdict {
  bool fits = false;
  std::string message;  // when !fits: the Unschedulable message
};

class FilterVerdicts {
 public:
  // The claims' key for a pod: its namespace and the specs of the claims to allocate, in order
  // (encoded whole, so that no field the allocator reads can differ between equal keys).
  static std::string claims_key(std::string_view ns,
                                std::span<const resourceapi::ResourceClaim* const> claims);

  // The verdict remembered for `node` and `claims_key`, if its inputs are those given.
  std::optional<Verdict> find(std::string_view node, std::string_view claims_key, const VerdictInputs& in) const;
  // Remembers a verdict computed from `in` (replacing the node's previous one for that key).
  void put(std::string_view node, std::string_view claims_key, const VerdictInputs& in, Verdict v);

  std::uint64_t hits() const;
  std::uint64_t misses() const;

 private:
  struct Entry {
    std::string claims_key;
    std::shared_ptr<const api::Node> node;
    std::vector<dra::SlicePtr> slices;
    // Per distinct (driver, pool) of the slices, in the slices' order: the pool's devices in use
    // as published (null: none in use).
    std::vector<std::shared_ptr<const dra::PoolDevices>> pools;
    std::uint64_t class_generation = 0;
    Verdict verdict;
  };
  // A node's verdicts for up to kKeysPerNode claims keys (pods of a few templates alternate);
  // past that, the oldest is replaced.
  static constexpr std::size_t kKeysPerNode = 4;
  struct NodeEntries {
    std::vector<Entry> entries;
    std::size_t next_replaced = 0;
  };
  struct Stripe {
    mutable std::mutex mu;
    std::unordered_map<std::string, NodeEntries, dra::TransparentStringHash, std::equal_to<>> by_node;
    mutable std::uint64_t hits = 0, misses = 0;
  };
  // Bounds the nodes remembered per stripe; a full stripe starts afresh (nodes deleted long ago
  // would otherwise keep their slices alive).
  static constexpr std::size_t kMaxNodesPerStripe = 8192;
  static constexpr std::size_t kStripes = 16;
  Stripe& stripe(std::string_view node) const;
  mutable std::array<Stripe, kStripes> stripes_;
};

}  // namespace ksched::scheduler::plugins::dynamicresources
