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
  std::size_t node_name_hash = 0;  // std::hash of the node's name (NodeInfo::name_hash)
  // The slices as indexed for this attempt; the node's are looked up only when the index is not
  // the one an entry was checked against.
  const std::shared_ptr<const dra::SliceIndex>* slice_index = nullptr;
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
  // Interned: equal keys are one object, which entries compare by address.
  using ClaimsKey = std::shared_ptr<const std::string>;
  ClaimsKey claims_key(std::string_view ns, std::span<const resourceapi::ResourceClaim* const> claims);

  // The verdict remembered for `node` and `claims_key`, if its inputs are those given. `slices`
  // is the node's slices in `in.slice_index` (SliceIndex::for_node), computed only if needed;
  // `buf` backs it.
  std::optional<Verdict> find(std::string_view node, const ClaimsKey& claims_key, const VerdictInputs& in,
                              std::vector<dra::SlicePtr>& buf) const;
  // Remembers a verdict computed from `in` and the node's `slices` (replacing the node's previous
  // one for that key).
  void put(std::string_view node, const ClaimsKey& claims_key, const VerdictInputs& in,
           std::span<const dra::SlicePtr> slices, Verdict v);

  std::uint64_t hits() const;
  std::uint64_t misses() const;

 private:
  struct IdentityHash {
    std::size_t operator()(std::size_t h) const noexcept { return h; }
  };
  struct PoolState {
    // The pool's devices in use as published (null: none in use), and where it was in the
    // snapshot (AllocatedDevices::locate): found there again, it needs no search.
    std::shared_ptr<const dra::PoolDevices> devices;
    std::uint32_t bucket = 0;
    std::uint32_t position = 0;
  };
  struct Entry {
    ClaimsKey claims_key;
    std::shared_ptr<const api::Node> node;
    // The slice index last seen to give the node `slices`: while it is the attempt's, the node's
    // slices are those.
    std::shared_ptr<const dra::SliceIndex> slice_index;
    std::vector<dra::SlicePtr> slices;
    // Per distinct (driver, pool) of the slices, in the slices' order.
    std::vector<PoolState> pools;
    std::uint64_t class_generation = 0;
    Verdict verdict;
  };
  // A node's verdicts for up to kKeysPerNode claims keys (pods of a few templates alternate);
  // past that, the oldest is replaced.
  static constexpr std::size_t kKeysPerNode = 4;
  struct NodeEntries {
    std::string node;  // the map is keyed by the name's hash
    std::vector<Entry> entries;
    std::size_t next_replaced = 0;
  };
  struct Stripe {
    mutable std::mutex mu;
    // By the node name's hash, which NodeInfo keeps (no hashing per call); a collision replaces.
    std::unordered_map<std::size_t, NodeEntries, IdentityHash> by_node;
    mutable std::uint64_t hits = 0, misses = 0;
  };
  // Bounds the nodes remembered per stripe; a full stripe starts afresh (nodes deleted long ago
  // would otherwise keep their slices alive).
  static constexpr std::size_t kMaxNodesPerStripe = 8192;
  static constexpr std::size_t kStripes = 16;
  Stripe& stripe(std::size_t node_hash) const { return stripes_[(node_hash >> 7) % kStripes]; }
  mutable std::array<Stripe, kStripes> stripes_;
  // The keys in use; started afresh past kMaxKeys (entries keep theirs, which then match no pod).
  static constexpr std::size_t kMaxKeys = 1024;
  std::mutex keys_mu_;
  std::unordered_map<std::string, ClaimsKey, dra::TransparentStringHash, std::equal_to<>> keys_;
};

}  // namespace ksched::scheduler::plugins::dynamicresources
