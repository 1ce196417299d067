// The structured allocator of Dynamic Resource Allocation: which devices of which ResourceSlices
// satisfy a pod's ResourceClaims on one node (upstream k8s.io/dynamic-resource-allocation/structured,
// its "stable" implementation at v1.35, with the features the default feature gates enable there).
//
// The search is upstream's: claims in order, each claim's requests in order, each request's devices
// one after the other; for each device the candidates are tried pool by pool, slice by slice, device
// by device, and the first complete solution wins (no scoring). A candidate must be free (neither
// allocated before nor picked earlier in this search, unless the request asks for admin access),
// match its DeviceClass's and its request's CEL selectors, tolerate its taints (DRADeviceTaints),
// fit its slice's shared counters (DRAPartitionableDevices), and keep every matchAttribute
// constraint of its claim satisfied; a request with firstAvailable takes the first subrequest that
// leads to a full solution. The same inputs give the same result.
//
// DRAConsumableCapacity (alpha, off in v1.35; upstream's "experimental" allocator runs when it is
// on): a device with allowMultipleAllocations may be picked by several requests and claims, each
// pick a share with its own shareID (a random UUID) and the consumedCapacity its request's
// capacity.requests work out to under the device's requestPolicy (dra/capacity.h); every device's
// capacities bound what its shares consume together: those of allocated and in-flight claims
// (DevicesInUse::shared_in_pool) plus this search's picks. The distinctAttribute constraint comes
// with it. With the feature off, a multi-allocatable device is an ordinary exclusive device and
// capacity requests are ignored, as upstream's "incubating" allocator does.
//
// One deliberate difference: upstream gathers pools in a Go map, so the order in which pools are
// tried is unspecified there; here pools are tried in (driver, pool) order.
#pragma once
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "api/core.h"
#include "api/resource.h"
#include "cel/cel.h"
#include "util/result.h"

namespace ksched::scheduler::dra {

namespace resourceapi = api::resourcev1;

// Upstream's internal.Features: the DRA feature gates the allocator honours.
struct Features {
  bool adminAccess = true;             // DRAAdminAccess (beta, on)
  bool prioritizedList = true;         // DRAPrioritizedList (beta, on)
  bool partitionableDevices = false;   // DRAPartitionableDevices (alpha)
  bool deviceTaints = false;           // DRADeviceTaints (alpha)
  bool deviceBindingAndStatus = false; // DRADeviceBindingConditions + DRAResourceClaimDeviceStatus (alpha)
  bool consumableCapacity = false;     // DRAConsumableCapacity (alpha)
};

// A device by driver, pool and name: what an allocation result names.
struct DeviceId {
  std::string driver;
  std::string pool;
  std::string device;
  bool operator==(const DeviceId&) const = default;
  std::string to_string() const { return driver + "/" + pool + "/" + device; }
};

struct DeviceIdHash {
  std::size_t operator()(const DeviceId& d) const noexcept;
};

using DeviceIdSet = std::unordered_set<DeviceId, DeviceIdHash>;

// Strings hashed as string_views, so that lookups by string_view allocate nothing.
struct TransparentStringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

// The names of one pool's devices in use, looked up once per device a search looks at. A pool
// holds few devices, so a lookup scans a flat array of fingerprints (dra/pools.h) and compares a
// string only on a match: no hashing; past kIndexed names a hash set answers instead.
class DeviceNameSet {
 public:
  static constexpr std::size_t kIndexed = 64;
  DeviceNameSet() = default;
  DeviceNameSet(std::initializer_list<std::string_view> names);
  void reserve(std::size_t n);
  void insert(std::string_view name);  // nothing when present
  bool contains(std::string_view name) const;
  std::size_t size() const { return names_.size(); }
  bool empty() const { return names_.empty(); }
  // In insertion order.
  std::vector<std::string>::const_iterator begin() const { return names_.begin(); }
  std::vector<std::string>::const_iterator end() const { return names_.end(); }
  // The same names, in any order.
  bool operator==(const DeviceNameSet& o) const;

 private:
  std::vector<std::uint64_t> fingerprints_;
  std::vector<std::string> names_;
  std::unordered_set<std::string, TransparentStringHash, std::equal_to<>> index_;  // past kIndexed
};

// DRAConsumableCapacity: one pool's devices held by shares (allocation results with a shareID),
// as upstream's AllocatedState keeps them apart from the dedicated devices.
struct SharedDevices {
  // Devices that only shares hold (no result without a shareID): with the feature on they are
  // not "in use" (upstream's AllocatedDevices leaves them out); with it off they are.
  DeviceNameSet only_shared;
  // Per device, what its shares consume (upstream AggregatedCapacity), by device name ascending;
  // a device is listed while some share of it records a consumedCapacity.
  std::vector<std::pair<std::string, api::ResourceList>> consumed;
  // What the device's shares consume; null when none records any.
  const api::ResourceList* consumed_by(std::string_view device) const;
  bool empty() const { return only_shared.empty() && consumed.empty(); }
};

// Devices in use, by pool: the form the scheduler's DRA state keeps them in (dra::AllocatedDevices),
// so that the allocator looks each pool up once and then each device by its name alone.
class DevicesInUse {
 public:
  virtual ~DevicesInUse() = default;
  // The names of the pool's devices in use (shared ones included); null when none. Thread-safe
  // (read-only).
  virtual const DeviceNameSet* in_pool(std::string_view driver, std::string_view pool) const = 0;
  // The pool's devices held by shares; null when none. Read only with DRAConsumableCapacity on.
  virtual const SharedDevices* shared_in_pool(std::string_view /*driver*/, std::string_view /*pool*/) const {
    return nullptr;
  }
};

// Looks up a DeviceClass by name; null when there is none.
using DeviceClassLookup = std::function<std::shared_ptr<const resourceapi::DeviceClass>(std::string_view)>;

// The outcome of allocate(): one AllocationResult per claim, in the claims' order, or nothing when
// the claims cannot all be satisfied on this node.
struct Allocation {
  std::vector<resourceapi::AllocationResult> results;
  // Set when allocate() was asked only whether the claims fit: `results` is then left empty.
  bool fits = false;
  bool found() const { return fits || !results.empty(); }
};

// An error that concerns this node only (upstream ErrFailedAllocationOnNode): allocation on other
// nodes may still succeed, so the scheduler reports it only if every node fails.
struct AllocateError {
  std::string message;
  bool node_only = false;
};

// Selector results remembered across allocators: whether a CEL selector (by its expression)
// matched a device, per ResourceSlice object (its shared_ptr identity) and device index. Slice
// objects are immutable, so a result holds as long as the object lives; an updated slice is a new
// object and starts afresh. Entries of slices that are gone are dropped as the cache grows.
// Evaluation errors are not remembered (the next allocator evaluates again and reports them).
// Thread-safe: one per scheduler, shared by every Filter call.
class SelectorCache {
 public:
  SelectorCache();
  ~SelectorCache();
  SelectorCache(const SelectorCache&) = delete;
  SelectorCache& operator=(const SelectorCache&) = delete;

  // Slice objects with remembered results (including gone ones not dropped yet).
  std::size_t slices() const;

  struct Impl;  // opaque
  Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

class Allocator {
 public:
  // `allocated`: devices held by claims already allocated (and by in-flight allocations of
  // assumed pods); a set knows no shares, so with DRAConsumableCapacity its devices are all
  // dedicated ones (the DevicesInUse form carries shares and their consumed capacity);
  // `slices`: every ResourceSlice the scheduler knows, or only those of one node
  // and the node-less ones; `selectors`: compiled CEL programs, shared between allocators;
  // `results` (optional): selector results shared between allocators. The allocator keeps
  // pointers into `slices`; they must outlive it. Thread-safe: several allocate() calls
  // (different nodes) may run at once. The inputs are moved in, not copied, when given as rvalues.
  Allocator(Features features, DeviceIdSet allocated, DeviceClassLookup classes,
            std::vector<std::shared_ptr<const resourceapi::ResourceSlice>> slices, cel::Cache& selectors,
            SelectorCache* results = nullptr);
  // The same, borrowing every input (nothing copied; all must outlive the allocator): the cheapest
  // form per (pod, node). `allocated` may be null (nothing allocated).
  Allocator(Features features, const DeviceIdSet* allocated, const DeviceClassLookup* classes,
            std::span<const std::shared_ptr<const resourceapi::ResourceSlice>> slices, cel::Cache& selectors,
            SelectorCache* results = nullptr);
  // The same, with the devices in use by pool (may be null: nothing in use).
  Allocator(Features features, const DevicesInUse* in_use, const DeviceClassLookup* classes,
            std::span<const std::shared_ptr<const resourceapi::ResourceSlice>> slices, cel::Cache& selectors,
            SelectorCache* results = nullptr);
  ~Allocator();

  // Claims to allocate on `node`, none of them allocated yet. Errors are upstream's messages
  // ("claim ns/name, request gpu: could not retrieve device class gpu.example.com: ...").
  // The work is proportional to the devices of the slices given that the search looks at; the
  // devices in `allocated` are looked up, never iterated.
  // `build_results` false: only whether the claims fit, with the same errors; the results (their
  // strings and node selectors cost more than the search on a node of a few devices) are not
  // built. The search is deterministic: the same inputs give the same devices when built later.
  util::Result<Allocation, AllocateError> allocate(const api::Node& node,
                                                   std::span<const resourceapi::ResourceClaim* const> claims,
                                                   bool build_results = true) const;

  struct Shared;  // the inputs and what is derived from them once; opaque

 private:
  std::unique_ptr<Shared> shared_;
};

// Whether a slice's (or a device's) node selection picks `node` (upstream NodeMatches): a node
// name, all nodes, or a node selector; none of them matches no node.
util::Result<bool> node_matches(const api::Node& node, std::string_view node_name, bool all_nodes,
                                const api::NodeSelector* selector);

// Upstream resourceclaim.ToleratesTaint.
bool tolerates(const resourceapi::DeviceToleration& toleration, const resourceapi::DeviceTaint& taint);

}  // namespace ksched::scheduler::dra
