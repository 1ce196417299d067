#include "scheduler/dra/allocator.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <shared_mutex>

#include "scheduler/dra/capacity.h"
#include "scheduler/dra/pools.h"

namespace ksched::scheduler::dra {

std::size_t DeviceIdHash::operator()(const DeviceId& d) const noexcept {
  const std::hash<std::string_view> h;
  std::size_t x = h(d.driver);
  x = x * 1000003u ^ h(d.pool);
  x = x * 1000003u ^ h(d.device);
  return x;
}

bool tolerates(const resourceapi::DeviceToleration& t, const resourceapi::DeviceTaint& taint) {
  if (!t.effect.empty() && std::string_view(t.effect) != std::string_view(taint.effect)) return false;
  if (!t.key.empty() && t.key != taint.key) return false;
  const std::string_view op = t.operator_;
  if (op.empty() || op == "Equal") return t.value == taint.value;
  return op == "Exists";
}

namespace {

constexpr std::string_view kModeAll = "All";
constexpr std::string_view kModeExactCount = "ExactCount";
constexpr std::size_t kMaxResults = resourceapi::kAllocationResultsMaxSize;

// klog.KObj: "namespace/name".
std::string kobj(const resourceapi::ResourceClaim& c) {
  return std::string(c.metadata.namespace_) + "/" + std::string(c.metadata.name);
}

// A request or a subrequest, read the same way (upstream's requestAccessor).
struct RequestView {
  std::string_view name;
  std::string_view class_name;
  std::string_view mode;
  std::int64_t count = 0;
  bool admin_access = false;
  bool has_admin_access = false;
  const std::vector<resourceapi::DeviceSelector>* selectors = nullptr;
  const std::vector<resourceapi::DeviceToleration>* tolerations = nullptr;
  const resourceapi::CapacityRequirements* capacity = nullptr;  // capacity.requests; null when none

  static RequestView of(const resourceapi::DeviceRequest& r) {
    RequestView v;
    v.name = r.name;
    static const std::vector<resourceapi::DeviceSelector> no_selectors;
    static const std::vector<resourceapi::DeviceToleration> no_tolerations;
    v.selectors = &no_selectors;
    v.tolerations = &no_tolerations;
    if (r.exactly) {
      v.class_name = r.exactly->deviceClassName;
      v.mode = r.exactly->allocationMode;
      v.count = r.exactly->count;
      v.admin_access = r.exactly->adminAccess.value_or(false);
      v.has_admin_access = r.exactly->adminAccess.has_value();
      v.selectors = &r.exactly->selectors;
      v.tolerations = &r.exactly->tolerations;
      if (r.exactly->capacity) v.capacity = &*r.exactly->capacity;
    }
    return v;
  }
  static RequestView of(const resourceapi::DeviceSubRequest& r) {
    RequestView v;
    v.name = r.name;
    v.class_name = r.deviceClassName;
    v.mode = r.allocationMode;
    v.count = r.count;
    v.selectors = &r.selectors;
    v.tolerations = &r.tolerations;
    if (r.capacity) v.capacity = &*r.capacity;
    return v;
  }
  bool all() const { return mode == kModeAll; }
};

// A candidate device: its slice (and that slice's index among the allocator's slices) and its
// index among all devices of those slices, which keys the search's per-device state.
struct DeviceRef {
  const resourceapi::Device* device = nullptr;
  const resourceapi::ResourceSlice* slice = nullptr;
  std::uint32_t slice_index = 0;
  std::uint32_t index = 0;
  std::uint32_t pool = 0;  // index into the search's pools
};

constexpr std::uint32_t kNoId = std::numeric_limits<std::uint32_t>::max();

// One request, or one subrequest of a request with firstAvailable.
struct RequestData {
  RequestView request;
  std::optional<RequestView> parent;  // set for a subrequest
  std::shared_ptr<const resourceapi::DeviceClass> cls;
  std::size_t num_devices = 0;
  // Mode All: the devices, chosen up front (Scratch::all_devices[all_first, all_first + num_devices)).
  std::size_t all_first = 0;
  // This entry's row of Scratch::matches (selectable() per device).
  std::size_t memo = 0;
  // The class's selectors then the request's: Scratch::programs/expr_ids[sel_first, ...).
  std::size_t sel_first = 0;

  std::string name() const {
    return parent ? std::string(parent->name) + "/" + std::string(request.name) : std::string(request.name);
  }
};

// A request's entries: one, or one per subrequest (Scratch::datas[first, first + count)).
struct RequestSlot {
  std::size_t first = 0;
  std::size_t count = 0;
  bool has_subrequests = false;
  std::size_t selected = 0;
};

struct DeviceResult {
  std::size_t claim = 0;
  std::size_t data = 0;  // the RequestData it was picked for
  std::string_view base_request;
  std::string_view sub_request;
  DeviceRef ref;
  bool admin_access = false;
  bool shared = false;        // DRAConsumableCapacity: a share of a multi-allocatable device
  bool counters = false;      // the pick holds its device's counters (DRAPartitionableDevices)
  std::int32_t consumed = -1;  // a share's consumedCapacity: its index in Scratch::share_consumed
};

const resourceapi::DeviceAttribute* lookup_attribute(const resourceapi::Device& device, std::string_view driver,
                                                     std::string_view name) {
  if (const auto* a = device.attributes.find(name)) return a;
  const auto slash = name.find('/');
  if (slash == std::string_view::npos) return nullptr;
  if (name.substr(0, slash) != driver) return nullptr;
  return device.attributes.find(name.substr(slash + 1));
}

// Two attribute values of one type that are equal; false when the types differ or are unknown.
// semver 2.0.0 versions are minimal, so equal versions are equal strings.
bool same_value(const resourceapi::DeviceAttribute& a, const resourceapi::DeviceAttribute& b) {
  if (a.string) return b.string && std::string_view(*a.string) == std::string_view(*b.string);
  if (a.int_) return b.int_ && *a.int_ == *b.int_;
  if (a.bool_) return b.bool_ && *a.bool_ == *b.bool_;
  if (a.version) return b.version && std::string_view(*a.version) == std::string_view(*b.version);
  return false;
}

// A claim's constraint on the devices of the named requests (all requests when none are named).
// matchAttribute: every such device has the attribute, with one value. distinctAttribute
// (DRAConsumableCapacity): every such device has the attribute, with a value no other request's
// device has; as upstream, the values are remembered per request (a request's latest device),
// and removing a device forgets its request's value.
struct AttributeConstraint {
  std::size_t claim = 0;
  const std::vector<std::string>* requests = nullptr;  // the claim's; empty: all requests
  std::string_view attribute;
  bool distinct = false;
  const resourceapi::DeviceAttribute* value = nullptr;  // matchAttribute: the first device's
  int count = 0;
  // distinctAttribute: per request name, its value (upstream's map, in insertion order).
  std::vector<std::pair<std::string_view, const resourceapi::DeviceAttribute*>> values;

  // The request is named as "request", or a subrequest as "request/sub".
  bool applies(std::string_view request, std::string_view sub) const {
    if (requests->empty()) return true;
    for (const std::string& r : *requests) {
      const std::string_view n = r;
      if (n == request) return true;
      if (!sub.empty() && n.size() == request.size() + 1 + sub.size() && n.substr(0, request.size()) == request &&
          n[request.size()] == '/' && n.substr(request.size() + 1) == sub) {
        return true;
      }
    }
    return false;
  }

  bool add(std::string_view request, std::string_view sub, const DeviceRef& d) {
    if (!applies(request, sub)) return true;
    const auto* a = lookup_attribute(*d.device, d.slice->spec.driver, attribute);
    if (a == nullptr) return false;
    if (distinct) return add_distinct(request, a);
    if (count == 0) {
      value = a;
      count = 1;
      return true;
    }
    if (!a->string && !a->int_ && !a->bool_ && !a->version) return false;  // a type this version does not know
    if (!same_value(*a, *value)) return false;
    ++count;
    return true;
  }

  void remove(std::string_view request, std::string_view sub) {
    if (!applies(request, sub)) return;
    if (distinct) {
      auto it = std::find_if(values.begin(), values.end(), [&](const auto& e) { return e.first == request; });
      if (it != values.end()) values.erase(it);
    }
    --count;
  }

 private:
  bool add_distinct(std::string_view request, const resourceapi::DeviceAttribute* a) {
    if (count != 0) {
      const bool known = a->string || a->int_ || a->bool_ || a->version;
      for (const auto& [r, v] : values)
        if (!known || same_value(*a, *v)) return false;
    }
    auto it = std::find_if(values.begin(), values.end(), [&](const auto& e) { return e.first == request; });
    if (it != values.end()) it->second = a;
    else values.emplace_back(request, a);
    ++count;
    return true;
  }
};

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>()(s); }
};

}  // namespace

// ---------------------------------------------------------------------------- SelectorCache

struct SelectorCache::Impl {
  // One slice object's results: for up to kSlots expressions, per device -1 (not known), 0 or 1.
  // Reading and writing a result takes no lock (rows are claimed under `mu`, then published).
  struct Entry {
    static constexpr std::size_t kSlots = 8;
    struct Slot {
      std::atomic<std::uint32_t> expression{kNoId};
      std::unique_ptr<std::atomic<std::int8_t>[]> row;
    };
    std::weak_ptr<const resourceapi::ResourceSlice> slice;
    std::size_t devices = 0;
    Slot slots[kSlots];
    std::mutex mu;

    // The expression's row; null when it has none (and, with `create`, none can be made).
    std::atomic<std::int8_t>* row(std::uint32_t expression, bool create) {
      for (auto& sl : slots) {
        const auto e = sl.expression.load(std::memory_order_acquire);
        if (e == expression) return sl.row.get();
        if (e == kNoId) break;  // slots are claimed in order
      }
      if (!create) return nullptr;
      std::lock_guard l(mu);
      for (auto& sl : slots) {
        const auto e = sl.expression.load(std::memory_order_relaxed);
        if (e == expression) return sl.row.get();
        if (e != kNoId) continue;
        sl.row = std::make_unique<std::atomic<std::int8_t>[]>(devices);
        for (std::size_t i = 0; i < devices; ++i) sl.row[i].store(-1, std::memory_order_relaxed);
        sl.expression.store(expression, std::memory_order_release);
        return sl.row.get();
      }
      return nullptr;
    }
    int get(std::uint32_t expression, std::uint32_t device) {
      auto* r = row(expression, false);
      return r == nullptr || device >= devices ? -1 : r[device].load(std::memory_order_relaxed);
    }
    void put(std::uint32_t expression, std::uint32_t device, bool v) {
      auto* r = row(expression, true);
      if (r != nullptr && device < devices) r[device].store(v ? 1 : 0, std::memory_order_relaxed);
    }
  };

  // Tells this cache from one that was at the same address before (per-thread id memos).
  const std::uint64_t serial = next_serial();
  static std::uint64_t next_serial() {
    static std::atomic<std::uint64_t> n{0};
    return ++n;
  }

  // Distinct expressions remembered at most; beyond, new ones are evaluated every time (claims
  // with one-off selectors must not grow the cache without bound).
  static constexpr std::size_t kMaxExpressions = 4096;

  mutable std::shared_mutex mu;
  std::unordered_map<std::string, std::uint32_t, StringHash, std::equal_to<>> expressions;
  std::unordered_map<const resourceapi::ResourceSlice*, std::shared_ptr<Entry>> entries;
  std::size_t prune_at = 1024;

  std::uint32_t expression_id(std::string_view expression) {
    {
      std::shared_lock l(mu);
      if (auto it = expressions.find(expression); it != expressions.end()) return it->second;
    }
    std::unique_lock l(mu);
    if (auto it = expressions.find(expression); it != expressions.end()) return it->second;
    if (expressions.size() >= kMaxExpressions) return kNoId;
    const auto id = static_cast<std::uint32_t>(expressions.size());
    expressions.emplace(std::string(expression), id);
    return id;
  }

  static bool same_object(const std::weak_ptr<const resourceapi::ResourceSlice>& w,
                          const std::shared_ptr<const resourceapi::ResourceSlice>& s) {
    // The weak reference keeps the control block, so a live owner-equal pointer is this object.
    return !w.owner_before(s) && !s.owner_before(w) && !w.expired();
  }

  std::shared_ptr<Entry> entry(const std::shared_ptr<const resourceapi::ResourceSlice>& slice) {
    {
      std::shared_lock l(mu);
      if (auto it = entries.find(slice.get()); it != entries.end() && same_object(it->second->slice, slice)) return it->second;
    }
    std::unique_lock l(mu);
    auto& e = entries[slice.get()];
    if (!e || !same_object(e->slice, slice)) {
      e = std::make_shared<Entry>();
      e->slice = slice;
      e->devices = slice->spec.devices.size();
    }
    auto out = e;
    if (entries.size() >= prune_at) {
      std::erase_if(entries, [](const auto& kv) { return kv.second->slice.expired(); });
      prune_at = std::max<std::size_t>(1024, 2 * entries.size());
    }
    return out;
  }
};

SelectorCache::SelectorCache() : impl_(std::make_unique<Impl>()) {}
SelectorCache::~SelectorCache() = default;

std::size_t SelectorCache::slices() const {
  std::shared_lock l(impl_->mu);
  return impl_->entries.size();
}

// ---------------------------------------------------------------------------- Allocator

struct Allocator::Shared {
  Features features;
  // The by-value constructor's inputs; the borrowing one leaves them empty.
  DeviceIdSet owned_allocated;
  DeviceClassLookup owned_classes;
  std::vector<std::shared_ptr<const resourceapi::ResourceSlice>> owned_slices;

  const DeviceIdSet* allocated = nullptr;
  const DevicesInUse* in_use = nullptr;  // instead of `allocated`
  const DeviceClassLookup* classes = nullptr;
  std::span<const std::shared_ptr<const resourceapi::ResourceSlice>> slices;
  cel::Cache* cache = nullptr;
  SelectorCache::Impl* results = nullptr;
};

namespace {

using CounterSets = std::map<std::string, std::map<std::string, api::Quantity>, std::less<>>;

// The search's working memory, per thread and reused by every allocate() on it: after the first
// calls the search allocates nothing but its result.
struct Scratch {
  Pools pools;
  std::vector<std::uint32_t> slice_base;  // per slice: index of its first device
  std::vector<std::int8_t> taken;         // per device: allocated before? -1 not looked up yet
  std::vector<const DeviceNameSet*> pool_in_use;  // per pool, with DevicesInUse: looked up on first use
  std::vector<std::uint8_t> pool_in_use_known;
  std::vector<std::uint16_t> picking;     // per device: picked by how many claims of this search
  std::vector<RequestData> datas;
  std::vector<RequestSlot> slots;
  std::vector<std::size_t> claim_slots;   // per claim: its first slot; one past the end last
  std::vector<AttributeConstraint> constraints;
  std::vector<std::size_t> claim_constraints;  // per claim: its first constraint; one past the end last
  std::vector<DeviceResult> results;      // a stack: claims in order
  std::vector<std::size_t> result_count;  // per claim
  std::vector<DeviceRef> all_devices;
  std::vector<std::int8_t> matches;       // per (request data, device): -1 not known
  std::vector<std::optional<cel::Program>> programs;  // per selector of each request data
  std::vector<std::uint32_t> expr_ids;                // per selector: SelectorCache id, kNoId when none
  std::vector<std::shared_ptr<SelectorCache::Impl::Entry>> entries;  // per slice, looked up on first use
  std::vector<cel::DeviceAttribute> cel_attributes;
  std::vector<cel::DeviceCapacity> cel_capacity;
  DeviceId id;  // the lookup key into the allocated set, its strings reused
  // SelectorCache expression ids this thread has looked up, for the cache with this serial.
  std::uint64_t ids_of = 0;
  std::vector<std::pair<std::string, std::uint32_t>> ids;
  // DRAPartitionableDevices, per pool (its counter sets may be in any of its slices, as v1.35
  // publishes them: in slices of their own): what is left once the devices allocated before are
  // taken, computed on first use, and what this search's picks consume.
  std::vector<std::optional<CounterSets>> available;
  std::vector<CounterSets> consumed;
  // DRAConsumableCapacity: per pool, its devices held by shares (looked up with pool_in_use); per
  // device, its entry in `allocating` (-1: none), which sums what this search's shares of it
  // consume (upstream allocatingCapacity: `present` from a device's first share until its
  // consumption is taken back to zero); what each share consumes, a stack (DeviceResult::consumed).
  struct Allocating {
    bool present = false;
    api::ResourceList consumed;
  };
  std::vector<const SharedDevices*> pool_shared;
  std::vector<std::int32_t> allocating_of;
  std::vector<Allocating> allocating;
  std::vector<api::ResourceList> share_consumed;
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

// One allocate() call: single-threaded, discarded afterwards.
class Search {
 public:
  Search(Allocator::Shared& shared, const api::Node& node, std::span<const resourceapi::ResourceClaim* const> claims,
         bool build_results)
      : s_(shared), node_(node), claims_(claims), build_results_(build_results), x_(scratch()) {}
  // The scratch keeps its capacity, not the references of this call (classes, programs, cache
  // entries), so nothing outlives the allocator through it.
  ~Search() {
    x_.datas.clear();
    x_.programs.clear();
    x_.entries.clear();
  }
  Search(const Search&) = delete;
  Search& operator=(const Search&) = delete;

  util::Result<Allocation, AllocateError> run();

 private:
  struct Indices {
    std::size_t claim = 0, request = 0, sub = 0, device = 0;
  };

  util::Result<RequestData, AllocateError> validate(const RequestView& request, const std::optional<RequestView>& parent,
                                                    const Indices& at);
  util::Result<bool, AllocateError> selectable(const RequestData& rd, std::size_t claim, const DeviceRef& d);
  util::Result<bool, AllocateError> selectors_match(std::size_t claim, const DeviceRef& d,
                                                    const resourceapi::DeviceClass* cls,
                                                    const std::vector<resourceapi::DeviceSelector>& selectors,
                                                    std::size_t sel_first, bool& input_ready, cel::Device& input,
                                                    std::optional<util::Result<void, cel::EvalError>>& checked);
  // 1: allocated, 0: not usable, error: stop.
  util::Result<bool, AllocateError> allocate_device(const Indices& r, std::size_t data, const DeviceRef& d, bool must);
  void deallocate_device(const Indices& r, std::size_t data, const DeviceRef& d);
  util::Result<bool, AllocateError> allocate_one(Indices r, bool allocating_sub);
  bool counters_fit(const DeviceRef& d);
  void release_counters(const DeviceRef& d);
  bool taken(const DeviceRef& d) {
    std::int8_t& t = x_.taken[d.index];
    if (t < 0) {
      if (s_.in_use != nullptr) {
        look_up_pool(d.pool);
        const DeviceNameSet* names = x_.pool_in_use[d.pool];
        t = names != nullptr && names->contains(std::string_view(d.device->name)) ? 1 : 0;
        // DRAConsumableCapacity: a device only shares hold is not in use (upstream's
        // AllocatedDevices lists dedicated devices only); its capacity says whether it fits.
        const SharedDevices* shared = x_.pool_shared[d.pool];
        if (t != 0 && shared != nullptr && shared->only_shared.contains(std::string_view(d.device->name))) t = 0;
      } else if (s_.allocated == nullptr || s_.allocated->empty()) {
        t = 0;
      } else {
        x_.id.driver.assign(std::string_view(d.slice->spec.driver));
        x_.id.pool.assign(std::string_view(d.slice->spec.pool.name));
        x_.id.device.assign(std::string_view(d.device->name));
        t = s_.allocated->count(x_.id) != 0 ? 1 : 0;
      }
    }
    return t != 0;
  }
  std::uint32_t expression_id(std::string_view expression) {
    if (x_.ids_of != s_.results->serial || x_.ids.size() >= 64) {
      x_.ids.clear();
      x_.ids_of = s_.results->serial;
    }
    for (const auto& [e, id] : x_.ids)
      if (e == expression) return id;
    const std::uint32_t id = s_.results->expression_id(expression);
    x_.ids.emplace_back(std::string(expression), id);
    return id;
  }
  // Shares of a multi-allocatable device do not count as picks (upstream keeps them out of
  // allocatingDevices), so neither in_use nor in_use_by_claim sees them.
  bool in_use(const DeviceRef& d) { return taken(d) || x_.picking[d.index] != 0; }
  bool in_use_by_claim(const DeviceRef& d, std::size_t claim) const {
    for (const auto& r : x_.results)
      if (r.claim == claim && r.ref.index == d.index && !r.shared) return true;
    return false;
  }
  void look_up_pool(std::uint32_t pool) {
    if (x_.pool_in_use_known[pool]) return;
    const Pool& p = x_.pools.pools[pool];
    x_.pool_in_use[pool] = s_.in_use->in_pool(p.driver, p.pool);
    x_.pool_shared[pool] = s_.features.consumableCapacity && x_.pool_in_use[pool] != nullptr
                               ? s_.in_use->shared_in_pool(p.driver, p.pool)
                               : nullptr;
    x_.pool_in_use_known[pool] = 1;
  }
  // DRAConsumableCapacity: the device allows several allocations (upstream allowMultipleAllocations).
  bool multi(const DeviceRef& d) const {
    return s_.features.consumableCapacity && d.device->allowMultipleAllocations.value_or(false);
  }
  // What the shares of allocated and in-flight claims consume of the device; null when nothing.
  const api::ResourceList* allocated_capacity(const DeviceRef& d) {
    if (s_.in_use == nullptr) return nullptr;
    look_up_pool(d.pool);
    const SharedDevices* shared = x_.pool_shared[d.pool];
    return shared != nullptr ? shared->consumed_by(std::string_view(d.device->name)) : nullptr;
  }
  const Scratch::Allocating* allocating(const DeviceRef& d) const {
    const std::int32_t i = x_.allocating_of[d.index];
    return i >= 0 && x_.allocating[static_cast<std::size_t>(i)].present ? &x_.allocating[static_cast<std::size_t>(i)]
                                                                          : nullptr;
  }
  // Upstream deviceCapacityInUse: some share of the device consumes capacity already.
  bool capacity_in_use(const DeviceRef& d) { return allocated_capacity(d) != nullptr || allocating(d) != nullptr; }
  // Upstream CmpRequestOverCapacity: the request fits what is left of the device's capacities (a
  // request for a capacity the device does not define does not fit).
  bool capacity_fits(const RequestData& rd, const DeviceRef& d) {
    const Scratch::Allocating* a = allocating(d);
    return request_fits_capacity(rd.request.capacity, d.device->capacity, allocated_capacity(d),
                                 a != nullptr ? &a->consumed : nullptr) == CapacityFit::Fits;
  }
  RequestSlot& slot(std::size_t claim, std::size_t request) { return x_.slots[x_.claim_slots[claim] + request]; }
  std::size_t data_index(const Indices& r) { return slot(r.claim, r.request).first + r.sub; }
  util::Result<api::NodeSelector*, AllocateError> node_selector_for(std::size_t claim, api::Boxed<api::NodeSelector>& out);
  std::string node_selector_error(std::size_t claim) const;
  // bindsToNode counts where upstream's experimental allocator runs (DRAConsumableCapacity or
  // device binding conditions on); the stable one ignores the field.
  bool binds_to_node(const resourceapi::Device& device) const {
    return (s_.features.consumableCapacity || s_.features.deviceBindingAndStatus) && device.bindsToNode.value_or(false);
  }
  template <class F>
  void for_each_device(const Pool& pool, F&& f) {
    const auto pool_index = static_cast<std::uint32_t>(&pool - x_.pools.pools.data());
    for (std::uint32_t k = 0; k < pool.count; ++k) {
      const std::uint32_t si = x_.pools.slices[pool.first + k];
      const resourceapi::ResourceSlice* slice = s_.slices[si].get();
      const std::uint32_t base = x_.slice_base[si];
      const auto& devices = slice->spec.devices;
      for (std::uint32_t j = 0; j < devices.size(); ++j) {
        if (!f(DeviceRef{&devices[j], slice, si, base + j, pool_index})) return;
      }
    }
  }

  Allocator::Shared& s_;
  const api::Node& node_;
  std::span<const resourceapi::ResourceClaim* const> claims_;
  bool build_results_ = true;
  Scratch& x_;
  std::size_t devices_ = 0;  // devices of all slices given
};

util::Result<RequestData, AllocateError> Search::validate(const RequestView& request,
                                                          const std::optional<RequestView>& parent, const Indices& at) {
  const auto& c = *claims_[at.claim];
  RequestData rd;
  rd.request = request;
  rd.parent = parent;
  for (std::size_t i = 0; i < request.selectors->size(); ++i) {
    if (!(*request.selectors)[i].cel) {
      return AllocateError{"claim " + kobj(c) + ", request " + std::string(request.name) + ", selector #" +
                                            std::to_string(i) + ": CEL expression empty (unsupported selector type?)"};
    }
  }
  if (!s_.features.adminAccess && request.has_admin_access) {
    return AllocateError{"claim " + kobj(c) + ", request " + std::string(request.name) +
                                          ": admin access is requested, but the feature is disabled"};
  }
  if (request.class_name.empty()) {
    return AllocateError{"claim " + kobj(c) + ", request " + std::string(request.name) +
                                          ": missing device class name (unsupported request type?)"};
  }
  rd.cls = (*s_.classes)(request.class_name);
  if (!rd.cls) {
    // Upstream wraps the lister's NotFound error.
    return AllocateError{"claim " + kobj(c) + ", request " + std::string(request.name) +
                                          ": could not retrieve device class " + std::string(request.class_name) +
                                          ": deviceclass.resource.k8s.io \"" + std::string(request.class_name) +
                                          "\" not found"};
  }
  // This entry's memo row and selector slots.
  rd.memo = x_.matches.size();
  x_.matches.resize(x_.matches.size() + devices_, -1);
  rd.sel_first = x_.programs.size();
  const std::size_t selectors = rd.cls->spec.selectors.size() + request.selectors->size();
  x_.programs.resize(x_.programs.size() + selectors);
  x_.expr_ids.resize(x_.expr_ids.size() + selectors, kNoId);
  if (request.mode.empty() || request.mode == kModeExactCount) {
    if (request.count < 0) {
      return AllocateError{"claim " + kobj(c) + ", request " + std::string(request.name) + ": exact count " +
                                            std::to_string(request.count) + " is too large"};
    }
    rd.num_devices = static_cast<std::size_t>(request.count);
  } else if (request.mode == kModeAll) {
    for (const auto& pool : x_.pools.pools) {
      if (pool.incomplete) {
        return AllocateError{"claim " + kobj(c) + ", request " + std::string(request.name) +
                                              ": asks for all devices, but resource pool " + pool.id() +
                                              " is currently being updated"};
      }
      if (pool.invalid) {
        return AllocateError{"claim " + kobj(c) + ", request " + std::string(request.name) +
                                              ": asks for all devices, but resource pool " + pool.id() +
                                              " is currently invalid"};
      }
    }
    rd.all_first = x_.all_devices.size();
    std::optional<AllocateError> err;
    for (const auto& pool : x_.pools.pools) {
      for_each_device(pool, [&](const DeviceRef& ref) {
        auto ok = selectable(rd, at.claim, ref);
        if (!ok) {
          err = ok.error();
          return false;
        }
        // DRAConsumableCapacity: only devices with room for the request.
        if (*ok && (!s_.features.consumableCapacity || capacity_fits(rd, ref))) x_.all_devices.push_back(ref);
        return true;
      });
      if (err) return *err;
    }
    rd.num_devices = x_.all_devices.size() - rd.all_first;
  } else {
    return AllocateError{"claim " + kobj(c) + ", request " + std::string(request.name) +
                                          ": unsupported count mode " + std::string(request.mode)};
  }
  return rd;
}

util::Result<bool, AllocateError> Search::selectors_match(std::size_t claim, const DeviceRef& d,
                                                          const resourceapi::DeviceClass* cls,
                                                          const std::vector<resourceapi::DeviceSelector>& selectors,
                                                          std::size_t sel_first, bool& input_ready, cel::Device& input,
                                                          std::optional<util::Result<void, cel::EvalError>>& checked) {
  if (selectors.empty()) return true;
  auto where = [&](std::size_t i) {
    return cls != nullptr ? "class " + std::string(cls->metadata.name) + ": selector #" + std::to_string(i)
                          : "claim " + kobj(*claims_[claim]) + ": selector #" + std::to_string(i);
  };
  SelectorCache::Impl::Entry* entry = nullptr;
  for (std::size_t i = 0; i < selectors.size(); ++i) {
    const std::string_view expression = selectors[i].cel->expression;
    std::uint32_t& id = x_.expr_ids[sel_first + i];
    if (s_.results != nullptr) {
      if (id == kNoId) id = expression_id(expression);
      if (id != kNoId) {
        auto& e = x_.entries[d.slice_index];
        if (!e) e = s_.results->entry(s_.slices[d.slice_index]);
        entry = e.get();
        const int known = entry->get(id, d.index - x_.slice_base[d.slice_index]);
        if (known == 0) return false;
        if (known == 1) continue;
      }
    }
    auto& program = x_.programs[sel_first + i];
    if (!program) {
      auto compiled = s_.cache->get_or_compile(expression);
      if (!compiled) return AllocateError{where(i) + ": CEL compile error: " + compiled.error().detail};
      program = std::move(*compiled);
    }
    if (!input_ready) {
      // The device as CEL sees it: views into the slice, built once per device.
      x_.cel_attributes.clear();
      x_.cel_capacity.clear();
      for (const auto& [name, a] : d.device->attributes) {
        cel::DeviceAttribute x;
        x.name = name;
        if (a.int_) {
          x.kind = cel::DeviceAttribute::Kind::Int;
          x.int_value = *a.int_;
        } else if (a.bool_) {
          x.kind = cel::DeviceAttribute::Kind::Bool;
          x.bool_value = *a.bool_;
        } else if (a.string) {
          x.kind = cel::DeviceAttribute::Kind::String;
          x.string_value = *a.string;
        } else if (a.version) {
          x.kind = cel::DeviceAttribute::Kind::Version;
          x.string_value = *a.version;
        } else {
          continue;  // no value of a known type: invisible to CEL, as upstream's conversion leaves it
        }
        x_.cel_attributes.push_back(x);
      }
      for (const auto& [name, c] : d.device->capacity) x_.cel_capacity.push_back(cel::DeviceCapacity{name, &c.value});
      input.driver = d.slice->spec.driver;
      input.attributes = x_.cel_attributes;
      input.capacity = x_.cel_capacity;
      input.allow_multiple_allocations = d.device->allowMultipleAllocations.value_or(false);
      input_ready = true;
    }
    if (!checked) checked = cel::check_device(input);
    if (!*checked) return AllocateError{where(i) + ": CEL runtime error: " + checked->error().message};
    auto matched = program->evaluate(input);
    if (!matched) return AllocateError{where(i) + ": CEL runtime error: " + matched.error().message};
    if (entry != nullptr && id != kNoId) {
      entry->put(id, d.index - x_.slice_base[d.slice_index], *matched);
    }
    if (!*matched) return false;
  }
  return true;
}

util::Result<bool, AllocateError> Search::selectable(const RequestData& rd, std::size_t claim, const DeviceRef& d) {
  // Devices with binding conditions wait for DRADeviceBindingConditions.
  if (!s_.features.deviceBindingAndStatus && !d.device->bindingConditions.empty()) return false;
  std::int8_t& memo = x_.matches[rd.memo + d.index];
  if (memo >= 0) return memo != 0;
  auto remember = [&](bool v) {
    memo = v ? 1 : 0;
    return v;
  };
  bool input_ready = false;
  cel::Device input;
  std::optional<util::Result<void, cel::EvalError>> checked;
  const std::size_t class_selectors = rd.cls ? rd.cls->spec.selectors.size() : 0;
  if (rd.cls) {
    auto m = selectors_match(claim, d, rd.cls.get(), rd.cls->spec.selectors, rd.sel_first, input_ready, input, checked);
    if (!m) return m;
    if (!*m) return remember(false);
  }
  auto m = selectors_match(claim, d, nullptr, *rd.request.selectors, rd.sel_first + class_selectors, input_ready, input,
                           checked);
  if (!m) return m;
  if (!*m) return remember(false);
  if (d.slice->spec.perDeviceNodeSelection.value_or(false)) {
    auto n = node_matches(node_, d.device->nodeName ? std::string_view(*d.device->nodeName) : std::string_view(),
                          d.device->allNodes.value_or(false), d.device->nodeSelector ? &*d.device->nodeSelector : nullptr);
    if (!n) return AllocateError{n.error()};
    if (!*n) return remember(false);
  }
  return remember(true);
}

bool Search::counters_fit(const DeviceRef& d) {
  auto& available = x_.available[d.pool];
  if (!available) {
    CounterSets sets;
    const Pool& pool = x_.pools.pools[d.pool];
    for (std::uint32_t k = 0; k < pool.count; ++k) {
      for (const auto& cs : s_.slices[x_.pools.slices[pool.first + k]]->spec.sharedCounters) {
        auto& m = sets[cs.name];
        for (const auto& [name, c] : cs.counters) m[name] = c.value;
      }
    }
    // Devices of the pool allocated before hold their counters.
    for_each_device(pool, [&](const DeviceRef& dev) {
      if (!taken(dev)) return true;
      for (const auto& use : dev.device->consumesCounters) {
        auto set = sets.find(use.counterSet);
        if (set == sets.end()) continue;
        for (const auto& [name, c] : use.counters) {
          auto have = set->second.find(name);
          if (have != set->second.end()) have->second -= c.value;
        }
      }
      return true;
    });
    available = std::move(sets);
  }
  auto& consumed = x_.consumed[d.pool];
  for (const auto& use : d.device->consumesCounters) {
    auto& set = consumed[use.counterSet];
    for (const auto& [name, c] : use.counters) set[name] += c.value;
  }
  for (const auto& [set_name, counters] : *available) {
    auto cs = consumed.find(set_name);
    for (const auto& [name, have] : counters) {
      api::Quantity used;
      if (cs != consumed.end()) {
        if (auto u = cs->second.find(name); u != cs->second.end()) used = u->second;
      }
      if (have < used) {
        release_counters(d);
        return false;
      }
    }
  }
  return true;
}

void Search::release_counters(const DeviceRef& d) {
  auto& consumed = x_.consumed[d.pool];
  for (const auto& use : d.device->consumesCounters) {
    auto& set = consumed[use.counterSet];
    for (const auto& [name, c] : use.counters) set[name] -= c.value;
  }
}

util::Result<bool, AllocateError> Search::allocate_device(const Indices& r, std::size_t data, const DeviceRef& d,
                                                          bool must) {
  const RequestData& rd = x_.datas[data];
  const RequestView& request = rd.request;
  const bool shared = multi(d);
  if (request.admin_access ? in_use_by_claim(d, r.claim) : in_use(d)) return false;
  // The pick holds the device's counters, except a share of a device whose capacity other shares
  // use already (upstream skipCounterCheck: the device holds them once).
  bool counters = false;
  if (!d.device->consumesCounters.empty()) {
    if (!s_.features.partitionableDevices) return false;
    if (!shared || !capacity_in_use(d)) {
      if (!counters_fit(d)) return false;
      counters = true;
    }
  }
  const std::string_view base = rd.parent ? rd.parent->name : request.name;
  const std::string_view sub = rd.parent ? request.name : std::string_view();
  if (s_.features.deviceTaints) {
    for (const auto& taint : d.device->taints) {
      bool tolerated = false;
      for (const auto& t : *request.tolerations) {
        if (tolerates(t, taint)) {
          tolerated = true;
          break;
        }
      }
      if (!tolerated) {
        if (counters) release_counters(d);
        return false;
      }
    }
  }
  const std::size_t c0 = x_.claim_constraints[r.claim], c1 = x_.claim_constraints[r.claim + 1];
  for (std::size_t i = c0; i < c1; ++i) {
    if (x_.constraints[i].add(base, sub, d)) continue;
    if (must) {
      return AllocateError{"claim " + kobj(*claims_[r.claim]) + ", request " + std::string(request.name) +
                                            ": cannot add device " + std::string(std::string_view(d.slice->spec.driver)) + "/" +
                                            std::string(std::string_view(d.slice->spec.pool.name)) + "/" +
                                            std::string(std::string_view(d.device->name)) +
                                            " because a claim constraint would not be satisfied"};
    }
    for (std::size_t e = c0; e < i; ++e) x_.constraints[e].remove(base, sub);
    if (counters) release_counters(d);
    return false;
  }
  std::int32_t consumed = -1;
  if (s_.features.consumableCapacity) {
    // Checked again (the caller did before) because a request for all devices chose its devices
    // up front; this search's earlier shares may have used the room since.
    if (!capacity_fits(rd, d)) {
      for (std::size_t e = c0; e < c1; ++e) x_.constraints[e].remove(base, sub);
      if (counters) release_counters(d);
      return false;
    }
    if (shared) {
      api::ResourceList use = consumed_capacities(request.capacity, d.device->capacity);
      std::int32_t& entry = x_.allocating_of[d.index];
      if (entry < 0) {
        entry = static_cast<std::int32_t>(x_.allocating.size());
        x_.allocating.emplace_back();
      }
      auto& a = x_.allocating[static_cast<std::size_t>(entry)];
      a.present = true;
      for (const auto& [name, q] : use) {
        if (auto* have = a.consumed.find(name)) *have += q;
        else a.consumed.set(name, q);
      }
      if (!use.empty()) {
        consumed = static_cast<std::int32_t>(x_.share_consumed.size());
        x_.share_consumed.push_back(std::move(use));
      }
    }
  }
  if (!shared) ++x_.picking[d.index];
  x_.results.push_back(DeviceResult{r.claim, data, base, sub, d, request.admin_access, shared, counters, consumed});
  ++x_.result_count[r.claim];
  return true;
}

void Search::deallocate_device(const Indices& r, std::size_t data, const DeviceRef& d) {
  const RequestData& rd = x_.datas[data];
  const std::string_view base = rd.parent ? rd.parent->name : rd.request.name;
  const std::string_view sub = rd.parent ? rd.request.name : std::string_view();
  for (std::size_t i = x_.claim_constraints[r.claim]; i < x_.claim_constraints[r.claim + 1]; ++i)
    x_.constraints[i].remove(base, sub);
  const DeviceResult& pick = x_.results.back();  // picks are undone last first
  if (!pick.shared) --x_.picking[d.index];
  if (pick.counters) release_counters(d);
  if (pick.consumed >= 0) {
    // Upstream ConsumedCapacityCollection.Remove: the device's entry goes once it sums to zero.
    auto& a = x_.allocating[static_cast<std::size_t>(x_.allocating_of[d.index])];
    bool zero = true;
    for (const auto& [name, q] : x_.share_consumed.back()) {
      if (auto* have = a.consumed.find(name)) *have -= q;
    }
    for (const auto& [name, q] : a.consumed) zero = zero && q.is_zero();
    if (zero) {
      a.present = false;
      a.consumed.clear();
    }
    x_.share_consumed.pop_back();
  }
  x_.results.pop_back();
  --x_.result_count[r.claim];
}

util::Result<bool, AllocateError> Search::allocate_one(Indices r, bool allocating_sub) {
  if (r.claim >= claims_.size()) return true;  // every claim done: the first solution wins
  const auto& claim = *claims_[r.claim];
  if (r.request >= claim.spec.devices.requests.size()) return allocate_one(Indices{r.claim + 1, 0, 0, 0}, false);

  RequestSlot& sl = slot(r.claim, r.request);
  // A request with subrequests: the first subrequest that leads to a full solution.
  if (!allocating_sub && sl.has_subrequests) {
    for (std::size_t sub = 0; sub < sl.count; ++sub) {
      r.sub = sub;
      auto ok = allocate_one(r, true);
      if (!ok) return ok;
      if (*ok) {
        slot(r.claim, r.request).selected = sub;
        return true;
      }
    }
    return false;
  }

  const std::size_t data = sl.first + r.sub;
  const RequestData& rd = x_.datas[data];
  const bool all = rd.request.all();
  if (all && rd.num_devices == 0) return false;  // All needs at least one device
  if (r.device >= rd.num_devices) return allocate_one(Indices{r.claim, r.request + 1, 0, 0}, false);
  if (x_.result_count[r.claim] + rd.num_devices - r.device > kMaxResults) return false;

  if (all) {
    const DeviceRef d = x_.all_devices[rd.all_first + r.device];
    auto ok = allocate_device(r, data, d, true);
    if (!ok || !*ok) return ok;
    auto done = allocate_one(Indices{r.claim, r.request, r.sub, r.device + 1}, allocating_sub);
    if (!done) return done;
    if (!*done) deallocate_device(r, data, d);
    return done;
  }

  const bool admin = rd.request.admin_access;
  std::optional<util::Result<bool, AllocateError>> outcome;
  for (const auto& pool : x_.pools.pools) {
    if (pool.incomplete || pool.invalid) continue;
    for_each_device(pool, [&](const DeviceRef& d) {
      if (admin ? in_use_by_claim(d, r.claim) : in_use(d)) return true;
      auto sel = selectable(x_.datas[data], r.claim, d);
      if (!sel) {
        outcome = sel.error();
        return false;
      }
      if (!*sel) return true;
      if (s_.features.consumableCapacity && !capacity_fits(x_.datas[data], d)) return true;
      auto ok = allocate_device(r, data, d, false);
      if (!ok) {
        outcome = ok;
        return false;
      }
      if (!*ok) return true;
      auto done = allocate_one(Indices{r.claim, r.request, r.sub, r.device + 1}, allocating_sub);
      if (!done || *done) {
        outcome = std::move(done);
        return false;
      }
      deallocate_device(r, data, d);
      return true;
    });
    if (outcome) return std::move(*outcome);
  }
  return false;
}

bool same_requirement(const api::NodeSelectorRequirement& a, const api::NodeSelectorRequirement& b) {
  if (a.key != b.key || a.operator_ != b.operator_) return false;
  std::set<std::string_view> x(a.values.begin(), a.values.end()), y(b.values.begin(), b.values.end());
  return x == y;
}

void add_new(const std::vector<api::NodeSelectorRequirement>& from, std::vector<api::NodeSelectorRequirement>& to) {
  for (const auto& r : from) {
    if (std::none_of(to.begin(), to.end(), [&](const auto& e) { return same_requirement(e, r); })) to.push_back(r);
  }
}

// Where the claim's devices can be used (upstream createNodeSelector): the node of the first
// device bound to a node name, else the union of the single-term selectors, else anywhere.
util::Result<api::NodeSelector*, AllocateError> Search::node_selector_for(std::size_t claim,
                                                                          api::Boxed<api::NodeSelector>& out) {
  api::NodeSelectorTerm term;
  for (const auto& d : x_.results) {
    if (d.claim != claim) continue;
    const auto& spec = d.ref.slice->spec;
    const bool per_device = spec.perDeviceNodeSelection.value_or(false);
    std::optional<std::string_view> node_name;
    const api::NodeSelector* selector = nullptr;
    if (per_device) {
      if (d.ref.device->nodeName) node_name = std::string_view(*d.ref.device->nodeName);
      if (d.ref.device->nodeSelector) selector = &*d.ref.device->nodeSelector;
    } else {
      if (spec.nodeName) node_name = std::string_view(*spec.nodeName);
      if (spec.nodeSelector) selector = &*spec.nodeSelector;
    }
    // A device that binds to a node (bindsToNode, read by upstream's experimental allocator only)
    // pins the allocation to the node it was allocated for, as a node-local device does.
    if (!node_name && binds_to_node(*d.ref.device)) node_name = node_.metadata.name.view();
    if (node_name) {
      api::NodeSelector ns;
      api::NodeSelectorTerm t;
      t.matchFields.push_back(api::NodeSelectorRequirement{"metadata.name", "In", {std::string(*node_name)}, {}, {}});
      ns.nodeSelectorTerms.push_back(std::move(t));
      out = std::move(ns);
      return &*out;
    }
    if (selector != nullptr) {
      if (selector->nodeSelectorTerms.size() == 1) {
        add_new(selector->nodeSelectorTerms[0].matchFields, term.matchFields);
        add_new(selector->nodeSelectorTerms[0].matchExpressions, term.matchExpressions);
      } else if (selector->nodeSelectorTerms.size() > 1) {
        return AllocateError{"unsupported ResourceSlice.NodeSelector with " +
                                              std::to_string(selector->nodeSelectorTerms.size()) + " terms"};
      }
    }
  }
  if (term.matchFields.empty() && term.matchExpressions.empty()) return nullptr;
  api::NodeSelector ns;
  ns.nodeSelectorTerms.push_back(std::move(term));
  out = std::move(ns);
  return &*out;
}

// node_selector_for's only error, without building the selector: the first device whose slice
// (or itself) names a node ends the walk; before it, a selector of more than one term is an error.
std::string Search::node_selector_error(std::size_t claim) const {
  for (const auto& d : x_.results) {
    if (d.claim != claim) continue;
    const auto& spec = d.ref.slice->spec;
    const bool per_device = spec.perDeviceNodeSelection.value_or(false);
    const bool named = (per_device ? bool(d.ref.device->nodeName) : bool(spec.nodeName)) || binds_to_node(*d.ref.device);
    if (named) return {};
    const api::NodeSelector* selector = per_device ? (d.ref.device->nodeSelector ? &*d.ref.device->nodeSelector : nullptr)
                                                   : (spec.nodeSelector ? &*spec.nodeSelector : nullptr);
    if (selector != nullptr && selector->nodeSelectorTerms.size() > 1)
      return "unsupported ResourceSlice.NodeSelector with " + std::to_string(selector->nodeSelectorTerms.size()) +
             " terms";
  }
  return {};
}

util::Result<Allocation, AllocateError> Search::run() {
  // Per-device state for every device of the slices given.
  x_.slice_base.clear();
  devices_ = 0;
  for (const auto& s : s_.slices) {
    x_.slice_base.push_back(static_cast<std::uint32_t>(devices_));
    devices_ += s->spec.devices.size();
  }
  x_.taken.assign(devices_, -1);
  x_.picking.assign(devices_, 0);
  x_.entries.assign(s_.slices.size(), nullptr);
  x_.datas.clear();
  x_.slots.clear();
  x_.claim_slots.clear();
  x_.constraints.clear();
  x_.claim_constraints.clear();
  x_.results.clear();
  x_.result_count.assign(claims_.size(), 0);
  x_.all_devices.clear();
  x_.matches.clear();
  x_.programs.clear();
  x_.expr_ids.clear();

  if (auto g = gather_pools(s_.slices, node_, s_.features, x_.pools); !g) {
    return AllocateError{"gather pool information: " + g.error()};
  }
  x_.available.assign(x_.pools.pools.size(), std::nullopt);
  x_.pool_in_use.assign(x_.pools.pools.size(), nullptr);
  x_.pool_in_use_known.assign(x_.pools.pools.size(), 0);
  x_.consumed.assign(x_.pools.pools.size(), CounterSets{});
  x_.pool_shared.assign(x_.pools.pools.size(), nullptr);
  if (s_.features.consumableCapacity) {
    x_.allocating_of.assign(devices_, -1);
    x_.allocating.clear();
    x_.share_consumed.clear();
  }
  // Upstream runs its "experimental" allocator when a feature only that one supports is on; it
  // refuses capacity requests without DRAConsumableCapacity and knows distinctAttribute.
  const bool experimental = s_.features.consumableCapacity || s_.features.deviceBindingAndStatus;

  // Each request's class, count and (mode All) devices; claims whose minimum exceeds the result
  // limit fail here.
  for (std::size_t ci = 0; ci < claims_.size(); ++ci) {
    const auto& claim = *claims_[ci];
    std::size_t min_devices = 0;
    const auto& requests = claim.spec.devices.requests;
    x_.claim_slots.push_back(x_.slots.size());
    x_.slots.resize(x_.slots.size() + requests.size());
    for (std::size_t ri = 0; ri < requests.size(); ++ri) {
      const auto& request = requests[ri];
      slot(ci, ri).first = x_.datas.size();
      if (!request.firstAvailable.empty() && !s_.features.prioritizedList) {
        return AllocateError{"claim " + kobj(claim) + ", request " + std::string(request.name) +
                             ": has subrequests, but the DRAPrioritizedList feature is disabled"};
      }
      if (experimental && !s_.features.consumableCapacity) {
        if (request.exactly && request.exactly->capacity) {
          return AllocateError{"claim " + kobj(claim) + ", request " + std::string(request.name) +
                               ": has capacity requests, but the DRAConsumableCapacity feature is disabled"};
        }
        for (const auto& sub : request.firstAvailable) {
          if (sub.capacity) {
            return AllocateError{"claim " + kobj(claim) + ", subrequest " + std::string(sub.name) +
                                 ": has capacity requests, but the DRAConsumableCapacity feature is disabled"};
          }
        }
      }
      if (!request.firstAvailable.empty()) {
        slot(ci, ri).has_subrequests = true;
        std::size_t min_request = std::numeric_limits<std::size_t>::max();
        for (std::size_t si = 0; si < request.firstAvailable.size(); ++si) {
          auto rd = validate(RequestView::of(request.firstAvailable[si]), RequestView::of(request), Indices{ci, ri, si, 0});
          if (!rd) return rd.error();
          min_request = std::min(min_request, rd->num_devices);
          x_.datas.push_back(std::move(*rd));
        }
        min_devices += min_request;
      } else {
        auto rd = validate(RequestView::of(request), std::nullopt, Indices{ci, ri, 0, 0});
        if (!rd) return rd.error();
        min_devices += rd->num_devices;
        x_.datas.push_back(std::move(*rd));
      }
      slot(ci, ri).count = x_.datas.size() - slot(ci, ri).first;
    }
    if (min_devices > kMaxResults) {
      return AllocateError{"claim " + kobj(claim) + ": number of requested devices " +
                                            std::to_string(min_devices) + " exceeds the claim limit of " +
                                            std::to_string(kMaxResults)};
    }
    const auto& constraints = claim.spec.devices.constraints;
    x_.claim_constraints.push_back(x_.constraints.size());
    for (std::size_t i = 0; i < constraints.size(); ++i) {
      AttributeConstraint m;
      m.claim = ci;
      m.requests = &constraints[i].requests;
      if (constraints[i].matchAttribute) {
        m.attribute = *constraints[i].matchAttribute;
      } else if (constraints[i].distinctAttribute && experimental) {
        m.attribute = *constraints[i].distinctAttribute;
        m.distinct = true;
      } else {
        return AllocateError{"claim " + kobj(claim) + ", constraint #" + std::to_string(i) +
                                              ": empty constraint (unsupported constraint type?)"};
      }
      x_.constraints.push_back(std::move(m));
    }
  }
  x_.claim_slots.push_back(x_.slots.size());
  x_.claim_constraints.push_back(x_.constraints.size());

  auto done = allocate_one(Indices{}, false);
  if (!done) return done.error();
  if (!*done) {
    for (const auto& p : x_.pools.pools) {
      if (p.invalid) return AllocateError{"invalid resource pools were encountered", true};
    }
    return Allocation{};
  }

  Allocation out;
  if (!build_results_) {
    // What building would report: a claim whose devices' node selection is not supported.
    for (std::size_t ci = 0; ci < claims_.size(); ++ci) {
      if (auto ns = node_selector_error(ci); !ns.empty()) {
        return AllocateError{"create NodeSelector for claim " + std::string(claims_[ci]->metadata.name) + ": " + ns};
      }
    }
    out.fits = true;
    return out;
  }
  out.results.resize(claims_.size());
  for (std::size_t ci = 0; ci < claims_.size(); ++ci) {
    const auto& claim = *claims_[ci];
    auto& result = out.results[ci];
    result.devices.results.reserve(x_.result_count[ci]);
    for (const auto& d : x_.results) {
      if (d.claim != ci) continue;
      resourceapi::DeviceRequestAllocationResult r;
      if (d.sub_request.empty()) {
        r.request = d.base_request;
      } else {
        std::string name;
        name.reserve(d.base_request.size() + 1 + d.sub_request.size());
        name.append(d.base_request).append("/").append(d.sub_request);
        r.request = name;
      }
      r.driver = d.ref.slice->spec.driver;
      r.pool = std::string_view(d.ref.slice->spec.pool.name);
      r.device = std::string_view(d.ref.device->name);
      if (d.admin_access) r.adminAccess = true;
      // The device's binding conditions travel with the allocation (upstream's experimental
      // allocator); PreBind waits for them. Without the feature such devices are never picked.
      if (s_.features.deviceBindingAndStatus) {
        r.bindingConditions = d.ref.device->bindingConditions;
        r.bindingFailureConditions = d.ref.device->bindingFailureConditions;
      }
      if (d.shared) r.shareID = new_share_id();
      if (d.consumed >= 0) r.consumedCapacity = x_.share_consumed[static_cast<std::size_t>(d.consumed)];
      result.devices.results.push_back(std::move(r));
    }
    // The classes' configuration once per class (with every request that used it), then the
    // claim's own configuration for the requests (or chosen subrequests) it names.
    const auto& requests = claim.spec.devices.requests;
    std::vector<std::pair<std::string_view, std::pair<std::size_t, std::size_t>>> class_configs;
    for (std::size_t ri = 0; ri < requests.size(); ++ri) {
      const RequestSlot& sl = slot(ci, ri);
      const RequestData& rd = x_.datas[sl.first + (sl.has_subrequests ? sl.selected : 0)];
      if (!rd.cls) continue;
      const std::string_view class_name = rd.cls->metadata.name;
      if (rd.cls->spec.config.empty() && class_configs.empty()) continue;  // nothing to add, nothing to name
      auto it = std::find_if(class_configs.begin(), class_configs.end(), [&](const auto& e) { return e.first == class_name; });
      if (it != class_configs.end()) {
        for (std::size_t i = it->second.first; i < it->second.second; ++i) result.devices.config[i].requests.push_back(rd.name());
        continue;
      }
      const std::size_t start = result.devices.config.size();
      for (const auto& c : rd.cls->spec.config) {
        resourceapi::DeviceAllocationConfiguration ac;
        ac.source = "FromClass";
        ac.requests.push_back(rd.name());
        ac.opaque = c.opaque;
        result.devices.config.push_back(std::move(ac));
      }
      class_configs.emplace_back(class_name, std::make_pair(start, result.devices.config.size()));
    }
    for (const auto& c : claim.spec.devices.config) {
      auto add = [&] {
        resourceapi::DeviceAllocationConfiguration ac;
        ac.source = "FromClaim";
        ac.requests = c.requests;
        ac.opaque = c.opaque;
        result.devices.config.push_back(std::move(ac));
      };
      if (c.requests.empty()) {
        add();
        continue;
      }
      // As upstream: once per request the configuration names (directly, or as the chosen subrequest).
      for (std::size_t ri = 0; ri < requests.size(); ++ri) {
        const std::string_view name = requests[ri].name;
        if (std::find(c.requests.begin(), c.requests.end(), name) != c.requests.end()) {
          add();
          continue;
        }
        const RequestSlot& sl = slot(ci, ri);
        if (!sl.has_subrequests) continue;
        const std::string sub_name = std::string(name) + "/" + std::string(requests[ri].firstAvailable[sl.selected].name);
        if (std::find(c.requests.begin(), c.requests.end(), sub_name) != c.requests.end()) add();
      }
    }
    auto ns = node_selector_for(ci, result.nodeSelector);
    if (!ns) {
      return AllocateError{"create NodeSelector for claim " + std::string(claim.metadata.name) + ": " +
                                            ns.error().message};
    }
  }
  return out;
}

}  // namespace

Allocator::Allocator(Features features, DeviceIdSet allocated, DeviceClassLookup classes,
                     std::vector<std::shared_ptr<const resourceapi::ResourceSlice>> slices, cel::Cache& selectors,
                     SelectorCache* results)
    : shared_(std::make_unique<Shared>()) {
  shared_->features = features;
  shared_->owned_allocated = std::move(allocated);
  shared_->owned_classes = std::move(classes);
  shared_->owned_slices = std::move(slices);
  shared_->allocated = &shared_->owned_allocated;
  shared_->classes = &shared_->owned_classes;
  shared_->slices = shared_->owned_slices;
  shared_->cache = &selectors;
  shared_->results = results != nullptr ? &results->impl() : nullptr;
}

Allocator::Allocator(Features features, const DeviceIdSet* allocated, const DeviceClassLookup* classes,
                     std::span<const std::shared_ptr<const resourceapi::ResourceSlice>> slices, cel::Cache& selectors,
                     SelectorCache* results)
    : shared_(std::make_unique<Shared>()) {
  shared_->features = features;
  shared_->allocated = allocated;
  shared_->classes = classes;
  shared_->slices = slices;
  shared_->cache = &selectors;
  shared_->results = results != nullptr ? &results->impl() : nullptr;
}

Allocator::Allocator(Features features, const DevicesInUse* in_use, const DeviceClassLookup* classes,
                     std::span<const std::shared_ptr<const resourceapi::ResourceSlice>> slices, cel::Cache& selectors,
                     SelectorCache* results)
    : shared_(std::make_unique<Shared>()) {
  shared_->features = features;
  shared_->in_use = in_use;
  shared_->classes = classes;
  shared_->slices = slices;
  shared_->cache = &selectors;
  shared_->results = results != nullptr ? &results->impl() : nullptr;
}

Allocator::~Allocator() = default;

const api::ResourceList* SharedDevices::consumed_by(std::string_view device) const {
  auto it = std::lower_bound(consumed.begin(), consumed.end(), device,
                             [](const auto& e, std::string_view d) { return std::string_view(e.first) < d; });
  return it != consumed.end() && it->first == device ? &it->second : nullptr;
}

DeviceNameSet::DeviceNameSet(std::initializer_list<std::string_view> names) {
  reserve(names.size());
  for (const auto n : names) insert(n);
}

void DeviceNameSet::reserve(std::size_t n) {
  fingerprints_.reserve(n);
  names_.reserve(n);
}

void DeviceNameSet::insert(std::string_view name) {
  if (contains(name)) return;
  fingerprints_.push_back(device_name_fingerprint(name));
  names_.emplace_back(name);
  if (names_.size() > kIndexed) {
    if (index_.empty()) index_.insert(names_.begin(), names_.end());
    else index_.emplace(name);
  }
}

bool DeviceNameSet::contains(std::string_view name) const {
  if (!index_.empty()) return index_.find(name) != index_.end();
  const std::uint64_t fp = device_name_fingerprint(name);
  for (std::size_t i = 0; i < fingerprints_.size(); ++i)
    if (fingerprints_[i] == fp && names_[i] == name) return true;
  return false;
}

bool DeviceNameSet::operator==(const DeviceNameSet& o) const {
  if (size() != o.size()) return false;
  for (const auto& n : names_)
    if (!o.contains(n)) return false;
  return true;
}

util::Result<Allocation, AllocateError> Allocator::allocate(const api::Node& node,
                                                            std::span<const resourceapi::ResourceClaim* const> claims,
                                                            bool build_results) const {
  Search search(*shared_, node, claims, build_results);
  return search.run();
}

}  // namespace ksched::scheduler::dra
