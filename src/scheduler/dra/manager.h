// The scheduler's view of Dynamic Resource Allocation objects (upstream's DefaultDRAManager in
// pkg/scheduler/framework/plugins/dynamicresources/dra_manager.go with its claim assume cache and
// allocatedDevices tracker): DeviceClasses, ResourceSlices grouped by node, ResourceClaims, the
// devices that allocated claims hold, and the scheduler's own allocations that the API server has
// not confirmed yet.
//
// Fed by the scheduler's informer handlers (on_*), read by the DynamicResources plugin. A claim
// allocated in Reserve is "in flight" (signal_pending_allocation) until PreBind has written it; the
// written copy is then "assumed" (assume_after_api_call) until the informer delivers that version
// or a newer one. Devices of both count as allocated, so no two pods get the same device, also
// while their bindings run concurrently on the binding pool.
//
// Thread-safe: every method takes the manager's lock; returned objects are immutable and shared.
#pragma once
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/scheduling.h"
#include "scheduler/dra/allocator.h"

namespace ksched::scheduler::dra {

using ClaimPtr = std::shared_ptr<const resourceapi::ResourceClaim>;
using SlicePtr = std::shared_ptr<const resourceapi::ResourceSlice>;
using ClassPtr = std::shared_ptr<const resourceapi::DeviceClass>;

// Every ResourceSlice, grouped as Filter needs them: one node's slices (spec.nodeName) apart from
// the node-less ones (allNodes, nodeSelector, perDeviceNodeSelection), which any node may use.
struct SliceIndex {
  std::unordered_map<std::string, std::vector<SlicePtr>, TransparentStringHash, std::equal_to<>> by_node;
  std::vector<SlicePtr> node_less;
  // The slices a node may use: its own, then the node-less ones. Borrowed from the index when
  // they are all of one group (no copy); else put together in `buf`.
  std::span<const SlicePtr> for_node(std::string_view node, std::vector<SlicePtr>& buf) const;
};

// The devices in use of one resource pool at one moment: immutable once published, so a snapshot
// shares the sets of the pools that did not change since the previous one.
struct PoolDevices {
  std::string driver;
  std::string pool;
  DeviceNameSet names;    // every device in use, shared ones too
  SharedDevices shared;   // those held by shares (results with a shareID), for DRAConsumableCapacity
};

// Devices held by allocated claims (assumed copies included) and by in-flight allocations, as of
// one moment, per pool, so that the allocator finds a node's share from its pools without walking
// the cluster's. Immutable; hand it to the Allocator as its DevicesInUse.
//
// The pools are spread over kBuckets buckets by their names' hash, each bucket immutable and
// sorted: a new snapshot (one per allocation: one pod, one node) shares every bucket but the
// changed pools' with the snapshot before it, instead of copying every pool's entry.
struct AllocatedDevices final : DevicesInUse {
  static constexpr std::size_t kBuckets = 32;
  // None empty; in (pool, driver) order (pool names differ sooner than driver names).
  using Bucket = std::vector<std::shared_ptr<const PoolDevices>>;
  static std::size_t bucket_of(std::string_view driver, std::string_view pool);
  // Never null (an empty bucket is the shared empty one).
  std::array<std::shared_ptr<const Bucket>, kBuckets> buckets;
  std::size_t pool_count = 0;

  AllocatedDevices();
  bool empty() const { return pool_count == 0; }
  const DeviceNameSet* in_pool(std::string_view driver, std::string_view pool) const override;
  const SharedDevices* shared_in_pool(std::string_view driver, std::string_view pool) const override;
  // The pool's published entry (null when none of its devices is in use) and where it is. An
  // entry is replaced, never changed, when the pool's devices in use change: holding it and
  // comparing pointers tells whether the pool is as it was.
  struct Location {
    const std::shared_ptr<const PoolDevices>* entry = nullptr;
    std::uint32_t bucket = 0;
    std::uint32_t position = 0;  // in the bucket
  };
  Location locate(std::string_view driver, std::string_view pool) const;
  const std::shared_ptr<const PoolDevices>* pool_entry(std::string_view driver, std::string_view pool) const {
    return locate(driver, pool).entry;
  }
  // The entry at `position` of `bucket`, or null past its end.
  const std::shared_ptr<const PoolDevices>* at(std::uint32_t bucket, std::uint32_t position) const {
    const Bucket& b = *buckets[bucket];
    return position < b.size() ? &b[position] : nullptr;
  }
  template <class Fn>
  void for_each_pool(Fn&& fn) const {
    for (const auto& b : buckets)
      for (const auto& p : *b) fn(*p);
  }
  std::size_t size() const;
  DeviceIdSet all() const;  // every pool's devices in one set
};

class Manager {
 public:
  // ---- informer feed (the API server's objects)
  void on_class_add(const ClassPtr& c);
  void on_class_update(const ClassPtr& old_c, const ClassPtr& new_c);
  void on_class_delete(const ClassPtr& c);
  void on_slice_add(const SlicePtr& s);
  void on_slice_update(const SlicePtr& old_s, const SlicePtr& new_s);
  void on_slice_delete(const SlicePtr& s);
  void on_claim_add(const ClaimPtr& c);
  void on_claim_update(const ClaimPtr& old_c, const ClaimPtr& new_c);
  void on_claim_delete(const ClaimPtr& c);

  // ---- reads
  ClassPtr device_class(std::string_view name) const;
  // Counts DeviceClass adds, updates and deletes: equal values, the same classes.
  std::uint64_t class_generation() const { return class_generation_.load(std::memory_order_acquire); }
  // DRAExtendedResource (upstream extendedresourcecache.GetDeviceClass): the class that backs an
  // extended resource, by its spec.extendedResourceName or its implicit name
  // "deviceclass.resource.kubernetes.io/<class>"; null when none. When two classes name the same
  // resource the newer one (creationTimestamp, then the smaller name) wins, as upstream.
  ClassPtr class_for_extended_resource(std::string_view resource) const;
  // The first claim in namespace `ns` for which pred(claim) holds (its latest version), or null.
  // Walks every claim: for what has no index (upstream lists all claims for the same purpose).
  ClaimPtr find_claim(std::string_view ns,
                      const std::function<bool(const resourceapi::ResourceClaim&)>& pred) const;
  // The claim as the scheduler knows it best: its assumed copy while the informer lags behind,
  // else the API server's. Null when there is none.
  ClaimPtr claim(std::string_view ns, std::string_view name) const;
  // The slices, grouped; rebuilt after changes, shared until the next one.
  std::shared_ptr<const SliceIndex> slices() const;
  // Upstream ListAllAllocatedDevices: devices of allocated claims (assumed copies included), plus
  // those of in-flight allocations; admin-access results hold no device. Kept up to date by every
  // change (claims, assume cache, in-flight allocations); a read after changes publishes the
  // changed pools anew and shares the others with the previous snapshot, so its cost follows what
  // changed (plus one pointer per pool), not the devices in use.
  std::shared_ptr<const AllocatedDevices> allocated_devices() const;
  // The same set, computed from scratch from the claims and in-flight allocations (for tests and
  // checks: it must always equal allocated_devices()->all()).
  DeviceIdSet allocated_devices_from_scratch() const;

  // ---- in-flight allocations (upstream inFlightAllocations)
  bool claim_has_pending_allocation(std::string_view uid) const;
  // The claim as its in-flight allocation left it (allocation set), or null.
  ClaimPtr pending_allocation(std::string_view uid) const;
  void signal_claim_pending_allocation(std::string_view uid, ClaimPtr allocated);
  // True when there was one.
  bool remove_claim_pending_allocation(std::string_view uid);

  // ---- assume cache (upstream AssumeClaimAfterAPICall / AssumedClaimRestore)
  // Keeps `written` (the API server's answer to our write) as the claim's latest version until
  // the informer delivers that resourceVersion or a newer one. Fails when the claim is unknown or
  // the cache already holds a newer version.
  util::Result<void> assume_claim_after_api_call(const ClaimPtr& written);
  // Drops an assumed copy: the API server's version is the latest again.
  void assumed_claim_restore(std::string_view ns, std::string_view name);

  // ---- waiting for claims to change (PreBind waits for devices' binding conditions)
  // A count that grows whenever some claim's latest version (what claim() returns) changes.
  std::uint64_t claims_version() const;
  // Blocks until claims_version() differs from `seen` or `deadline` passes; returns the count
  // then. Upstream polls the assume cache every 5 s instead.
  // Also returns at once once stop_waits() was called.
  std::uint64_t wait_for_claims_change(std::uint64_t seen, std::chrono::steady_clock::time_point deadline) const;
  // The scheduler is stopping (upstream cancels the binding cycles' context): every
  // wait_for_claims_change returns now, and any later one at once; waits_stopped() tells why.
  void stop_waits();
  bool waits_stopped() const;

 private:
  struct ClaimEntry {
    ClaimPtr api;     // the informer's
    ClaimPtr latest;  // api, or the assumed copy
  };
  static std::string key(std::string_view ns, std::string_view name);
  // Moves `latest` of an entry from `before` to `after`, keeping the device counts in step.
  void set_latest_locked(ClaimEntry& e, ClaimPtr after);
  void count_devices_locked(const resourceapi::ResourceClaim* c, int delta);
  void put_slice_locked(const SlicePtr& s);

  // How the results with a shareID hold one device: how many, how many of them record a
  // consumedCapacity, and what those consume together.
  struct ShareCounts {
    int shares = 0;
    int with_consumed = 0;
    api::ResourceList consumed;
  };
  // One pool's devices in use: how many results of claims (allocated, assumed, in flight) hold
  // each device (several with shared devices or while a claim is both in flight and assumed),
  // how shares hold them, and the set published last; `dirty` when the counts changed since. As
  // upstream (GatherAllocatedState), a claim both in flight and assumed counts twice, its shares'
  // consumption too, until PreBind's bookkeeping ends the in-flight allocation.
  struct PoolCounts {
    std::unordered_map<std::string, int, TransparentStringHash, std::equal_to<>> devices;
    std::unordered_map<std::string, ShareCounts, TransparentStringHash, std::equal_to<>> shared;
    std::shared_ptr<const PoolDevices> published;
    bool dirty = false;
  };
  // Pools by (driver, pool), kept in (pool, driver) order as AllocatedDevices wants them, looked
  // up without building a key.
  struct PoolLess {
    using is_transparent = void;
    using Key = std::pair<std::string, std::string>;
    using View = std::pair<std::string_view, std::string_view>;
    static View v(const Key& k) { return {k.second, k.first}; }
    static View v(const View& k) { return {k.second, k.first}; }
    template <class A, class B>
    bool operator()(const A& a, const B& b) const { return v(a) < v(b); }
  };

  mutable std::mutex mu_;
  std::unordered_map<std::string, ClassPtr> classes_;
  std::atomic<std::uint64_t> class_generation_{0};
  // Extended resource name -> class (explicit and implicit names), upstream's resourceName2class.
  std::unordered_map<std::string, ClassPtr, TransparentStringHash, std::equal_to<>> extended_resources_;
  void map_extended_resources_locked(const ClassPtr& c, const ClassPtr& old_c);
  void unmap_extended_resources_locked(const resourceapi::DeviceClass& c);
  std::unordered_map<std::string, SlicePtr> slices_;  // by name
  mutable std::shared_ptr<const SliceIndex> slice_index_;  // null: rebuild on the next read
  std::unordered_map<std::string, ClaimEntry> claims_;  // by "ns/name"
  // Per bucket of AllocatedDevices (bucket_of), so that a snapshot rebuilds only the buckets of
  // the pools that changed.
  mutable std::array<std::map<PoolLess::Key, PoolCounts, PoolLess>, AllocatedDevices::kBuckets> allocated_;
  mutable std::uint64_t dirty_buckets_ = 0;  // bit b: some pool of bucket b is dirty
  static_assert(AllocatedDevices::kBuckets <= 64);
  mutable std::shared_ptr<const AllocatedDevices> allocated_snapshot_;
  std::unordered_map<std::string, ClaimPtr> in_flight_;  // by claim uid
  std::uint64_t claims_version_ = 0;                    // see claims_version()
  mutable std::condition_variable claims_changed_;       // with mu_
  bool waits_stopped_ = false;                           // see stop_waits()
};

// DRAExtendedResource: the prefix of a DeviceClass's implicit extended resource name
// (resourceapi.ResourceDeviceClassPrefix), and upstream schedutil.IsDRAExtendedResourceName: an
// extended resource name, or an implicit one.
inline constexpr std::string_view kResourceDeviceClassPrefix = "deviceclass.resource.kubernetes.io/";
bool is_dra_extended_resource_name(std::string_view name);

// Upstream's helpers of k8s.io/dynamic-resource-allocation/resourceclaim.
// The claim's name for one of the pod's spec.resourceClaims (resourceclaim.Name): its
// resourceClaimName, or the name the ResourceClaim controller recorded in the pod's
// status.resourceClaimStatuses (null when it recorded that none is needed). `must_check_owner`:
// the claim was made from a template and must be the pod's. Errors are upstream's messages.
struct ClaimName {
  std::optional<std::string> name;
  bool must_check_owner = false;
};
util::Result<ClaimName> pod_claim_name(const api::Pod& pod, const api::PodResourceClaim& pod_claim);
// resourceclaim.IsForPod: "" when the claim is controlled by the pod, else upstream's message.
std::string claim_is_for_pod(const api::Pod& pod, const resourceapi::ResourceClaim& claim);
bool claim_is_reserved_for_pod(const api::Pod& pod, const resourceapi::ResourceClaim& claim);
// DRAWorkloadResourceClaims (KEP-5729): the reservedFor entry of the pod's PodGroup when the pod
// uses `claim` through `pod_claim` as a claim shared with its group: the pod claim equals one of
// `group`'s spec.resourceClaims (group: the pod's PodGroup object, null when not known), or the
// claim is controlled by the pod's PodGroup (made from the group's template), or the group already
// holds it in reservedFor. Nullopt for a pod without spec.schedulingGroup.podGroupName, or a claim
// of its own.
inline constexpr std::string_view kPodGroupApiGroup = "scheduling.k8s.io";
std::optional<resourceapi::ResourceClaimConsumerReference> pod_group_consumer(
    const api::Pod& pod, const api::PodResourceClaim& pod_claim, const resourceapi::ResourceClaim& claim,
    const api::schedulingv1beta1::PodGroup* group);
// resourceclaim.CanBeReserved: fewer than ResourceClaimReservedForMaxSize (256) consumers.
inline constexpr std::size_t kResourceClaimReservedForMaxSize = 256;
bool claim_can_be_reserved(const resourceapi::ResourceClaim& claim);

}  // namespace ksched::scheduler::dra
