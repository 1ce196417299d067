#include "scheduler/dra/allocator.h"

#include <algorithm>
#include <limits>
#include <map>
#include <mutex>
#include <set>

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
    return v;
  }
  bool all() const { return mode == kModeAll; }
};

struct DeviceRef {
  const resourceapi::Device* device = nullptr;
  const resourceapi::ResourceSlice* slice = nullptr;
};

// One request, or one subrequest of a request with firstAvailable.
struct RequestData {
  RequestView request;
  std::optional<RequestView> parent;  // set for a subrequest
  std::shared_ptr<const resourceapi::DeviceClass> cls;
  std::size_t num_devices = 0;
  std::vector<DeviceRef> all_devices;  // mode All: the devices, chosen up front

  std::string name() const {
    return parent ? std::string(parent->name) + "/" + std::string(request.name) : std::string(request.name);
  }
};

// A request's entries: one, or one per subrequest; `selected` is the subrequest that was used.
struct RequestSlot {
  std::vector<RequestData> subs;
  bool has_subrequests = false;
  std::size_t selected = 0;
};

struct DeviceResult {
  std::string request;  // full name ("req" or "req/sub")
  std::string_view base_request;
  std::string_view sub_request;
  DeviceRef ref;
  bool admin_access = false;
};

// A view-based device identity for the search's own sets.
struct Key {
  std::string_view driver, pool, device;
  bool operator==(const Key&) const = default;
};
struct KeyHash {
  std::size_t operator()(const Key& k) const noexcept {
    const std::hash<std::string_view> h;
    return (h(k.driver) * 1000003u ^ h(k.pool)) * 1000003u ^ h(k.device);
  }
};

Key key_of(const DeviceRef& d) {
  return Key{d.slice->spec.driver, d.slice->spec.pool.name, d.device->name};
}

const resourceapi::DeviceAttribute* lookup_attribute(const resourceapi::Device& device, std::string_view driver,
                                                     std::string_view name) {
  if (const auto* a = device.attributes.find(name)) return a;
  const auto slash = name.find('/');
  if (slash == std::string_view::npos) return nullptr;
  if (name.substr(0, slash) != driver) return nullptr;
  return device.attributes.find(name.substr(slash + 1));
}

// matchAttribute: every device of the named requests (all requests when none are named) has the
// attribute, with one value.
struct MatchAttributeConstraint {
  std::set<std::string, std::less<>> requests;
  std::string attribute;
  const resourceapi::DeviceAttribute* value = nullptr;
  int count = 0;

  bool applies(std::string_view request, std::string_view sub) const {
    if (requests.empty()) return true;
    if (sub.empty()) return requests.count(request) != 0;
    return requests.count(request) != 0 || requests.count(std::string(request) + "/" + std::string(sub)) != 0;
  }

  bool add(std::string_view request, std::string_view sub, const DeviceRef& d) {
    if (!applies(request, sub)) return true;
    const auto* a = lookup_attribute(*d.device, d.slice->spec.driver, attribute);
    if (a == nullptr) return false;
    if (count == 0) {
      value = a;
      count = 1;
      return true;
    }
    if (a->string) {
      if (!value->string || std::string_view(*a->string) != std::string_view(*value->string)) return false;
    } else if (a->int_) {
      if (!value->int_ || *a->int_ != *value->int_) return false;
    } else if (a->bool_) {
      if (!value->bool_ || *a->bool_ != *value->bool_) return false;
    } else if (a->version) {
      // semver 2.0.0 versions are minimal, so equal versions are equal strings.
      if (!value->version || std::string_view(*a->version) != std::string_view(*value->version)) return false;
    } else {
      return false;  // a value of a type this version does not know
    }
    ++count;
    return true;
  }

  void remove(std::string_view request, std::string_view sub) {
    if (!applies(request, sub)) return;
    --count;
  }
};

}  // namespace

struct Allocator::Shared {
  Features features;
  DeviceIdSet allocated_ids;
  std::unordered_set<Key, KeyHash> allocated;  // views into allocated_ids
  DeviceClassLookup classes;
  std::vector<std::shared_ptr<const resourceapi::ResourceSlice>> slices;
  cel::Cache* cache = nullptr;

  // Counters left in each slice's counter sets once the devices allocated before are taken
  // (DRAPartitionableDevices), computed on first use and kept: they depend only on the inputs.
  std::mutex counters_mu;
  std::map<const resourceapi::ResourceSlice*, std::map<std::string, std::map<std::string, api::Quantity>, std::less<>>>
      available_counters;
};

namespace {

using CounterSets = std::map<std::string, std::map<std::string, api::Quantity>, std::less<>>;

// One allocate() call: single-threaded, discarded afterwards.
class Search {
 public:
  Search(Allocator::Shared& shared, const api::Node& node, std::span<const resourceapi::ResourceClaim* const> claims)
      : s_(shared), node_(node), claims_(claims), slots_(claims.size()), constraints_(claims.size()), results_(claims.size()) {}

  util::Result<Allocation, AllocateError> run();

 private:
  struct Indices {
    std::size_t claim = 0, request = 0, sub = 0, device = 0;
  };

  util::Result<RequestData, AllocateError> validate(const RequestView& request, const std::optional<RequestView>& parent,
                                                    const Indices& at);
  util::Result<bool, AllocateError> selectable(const Indices& r, const RequestData& rd, const DeviceRef& d);
  util::Result<bool, AllocateError> selectors_match(std::size_t claim, const DeviceRef& d,
                                                    const resourceapi::DeviceClass* cls,
                                                    const std::vector<resourceapi::DeviceSelector>& selectors);
  // 1: allocated, 0: not usable, error: stop.
  util::Result<bool, AllocateError> allocate_device(const Indices& r, const DeviceRef& d, bool must);
  void deallocate_device(const Indices& r, const DeviceRef& d);
  util::Result<bool, AllocateError> allocate_one(Indices r, bool allocating_sub);
  bool counters_fit(const DeviceRef& d);
  void release_counters(const DeviceRef& d);
  bool in_use(const Key& k) const {
    if (s_.allocated.count(k) != 0) return true;
    auto it = allocating_.find(k);
    return it != allocating_.end() && !it->second.empty();
  }
  bool in_use_by_claim(const Key& k, std::size_t claim) const {
    auto it = allocating_.find(k);
    return it != allocating_.end() && it->second.count(claim) != 0;
  }
  RequestData& data(const Indices& r) { return slots_[r.claim][r.request].subs[r.sub]; }
  util::Result<api::NodeSelector*, AllocateError> node_selector_for(const std::vector<DeviceResult>& devices,
                                                                    api::Boxed<api::NodeSelector>& out);

  Allocator::Shared& s_;
  const api::Node& node_;
  std::span<const resourceapi::ResourceClaim* const> claims_;
  std::vector<Pool> pools_;
  std::vector<std::vector<RequestSlot>> slots_;
  std::vector<std::vector<MatchAttributeConstraint>> constraints_;
  std::vector<std::vector<DeviceResult>> results_;
  std::unordered_map<Key, std::set<std::size_t>, KeyHash> allocating_;
  struct MatchKey {
    const resourceapi::Device* device;
    std::size_t claim, request, sub;
    bool operator==(const MatchKey&) const = default;
  };
  struct MatchKeyHash {
    std::size_t operator()(const MatchKey& k) const noexcept {
      return std::hash<const void*>()(k.device) ^ (k.claim * 0x9e3779b97f4a7c15ULL) ^ (k.request << 20) ^ (k.sub << 40);
    }
  };
  std::unordered_map<MatchKey, bool, MatchKeyHash> matches_;
  std::map<const resourceapi::ResourceSlice*, CounterSets> consumed_;
  // The CEL input of the device being evaluated, reused between devices.
  std::vector<cel::DeviceAttribute> cel_attributes_;
  std::vector<cel::DeviceCapacity> cel_capacity_;
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
  rd.cls = s_.classes(request.class_name);
  if (!rd.cls) {
    // Upstream wraps the lister's NotFound error.
    return AllocateError{"claim " + kobj(c) + ", request " + std::string(request.name) +
                                          ": could not retrieve device class " + std::string(request.class_name) +
                                          ": deviceclass.resource.k8s.io \"" + std::string(request.class_name) +
                                          "\" not found"};
  }
  if (request.mode.empty() || request.mode == kModeExactCount) {
    if (request.count < 0) {
      return AllocateError{"claim " + kobj(c) + ", request " + std::string(request.name) + ": exact count " +
                                            std::to_string(request.count) + " is too large"};
    }
    rd.num_devices = static_cast<std::size_t>(request.count);
  } else if (request.mode == kModeAll) {
    for (const auto& pool : pools_) {
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
    rd.all_devices.reserve(kMaxResults);
    for (const auto& pool : pools_) {
      for (const auto* slice : pool.slices) {
        for (const auto& d : slice->spec.devices) {
          DeviceRef ref{&d, slice};
          auto ok = selectable(at, rd, ref);
          if (!ok) return ok.error();
          if (*ok) rd.all_devices.push_back(ref);
        }
      }
    }
    rd.num_devices = rd.all_devices.size();
  } else {
    return AllocateError{"claim " + kobj(c) + ", request " + std::string(request.name) +
                                          ": unsupported count mode " + std::string(request.mode)};
  }
  return rd;
}

util::Result<bool, AllocateError> Search::selectors_match(std::size_t claim, const DeviceRef& d,
                                                          const resourceapi::DeviceClass* cls,
                                                          const std::vector<resourceapi::DeviceSelector>& selectors) {
  if (selectors.empty()) return true;
  // The device as CEL sees it: views into the slice, built once per device and selector list.
  cel_attributes_.clear();
  cel_capacity_.clear();
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
    cel_attributes_.push_back(x);
  }
  for (const auto& [name, c] : d.device->capacity) cel_capacity_.push_back(cel::DeviceCapacity{name, &c.value});
  cel::Device input;
  input.driver = d.slice->spec.driver;
  input.attributes = cel_attributes_;
  input.capacity = cel_capacity_;
  input.allow_multiple_allocations = d.device->allowMultipleAllocations.value_or(false);

  auto where = [&](std::size_t i) {
    return cls != nullptr ? "class " + std::string(cls->metadata.name) + ": selector #" + std::to_string(i)
                          : "claim " + kobj(*claims_[claim]) + ": selector #" + std::to_string(i);
  };
  const auto checked = cel::check_device(input);
  for (std::size_t i = 0; i < selectors.size(); ++i) {
    auto program = s_.cache->get_or_compile(selectors[i].cel->expression);
    if (!program) return AllocateError{where(i) + ": CEL compile error: " + program.error().detail};
    if (!checked) return AllocateError{where(i) + ": CEL runtime error: " + checked.error().message};
    auto matched = program->evaluate(input);
    if (!matched) return AllocateError{where(i) + ": CEL runtime error: " + matched.error().message};
    if (!*matched) return false;
  }
  return true;
}

util::Result<bool, AllocateError> Search::selectable(const Indices& r, const RequestData& rd, const DeviceRef& d) {
  // Devices with binding conditions wait for DRADeviceBindingConditions.
  if (!s_.features.deviceBindingAndStatus && !d.device->bindingConditions.empty()) return false;
  const MatchKey mk{d.device, r.claim, r.request, r.sub};
  if (auto it = matches_.find(mk); it != matches_.end()) return it->second;
  auto remember = [&](bool v) {
    matches_.emplace(mk, v);
    return v;
  };
  if (rd.cls) {
    auto m = selectors_match(r.claim, d, rd.cls.get(), rd.cls->spec.selectors);
    if (!m) return m;
    if (!*m) return remember(false);
  }
  auto m = selectors_match(r.claim, d, nullptr, *rd.request.selectors);
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
  const resourceapi::ResourceSlice* slice = d.slice;
  CounterSets available;
  {
    std::lock_guard l(s_.counters_mu);
    auto it = s_.available_counters.find(slice);
    if (it == s_.available_counters.end()) {
      CounterSets sets;
      for (const auto& cs : slice->spec.sharedCounters) {
        auto& m = sets[cs.name];
        for (const auto& [name, c] : cs.counters) m[name] = c.value;
      }
      // Devices of this slice allocated before hold their counters.
      for (const auto& dev : slice->spec.devices) {
        if (s_.allocated.count(Key{slice->spec.driver, slice->spec.pool.name, dev.name}) == 0) continue;
        for (const auto& use : dev.consumesCounters) {
          auto set = sets.find(use.counterSet);
          if (set == sets.end()) continue;
          for (const auto& [name, c] : use.counters) {
            auto have = set->second.find(name);
            if (have != set->second.end()) have->second -= c.value;
          }
        }
      }
      it = s_.available_counters.emplace(slice, std::move(sets)).first;
    }
    available = it->second;
  }
  auto& consumed = consumed_[slice];
  for (const auto& use : d.device->consumesCounters) {
    auto& set = consumed[use.counterSet];
    for (const auto& [name, c] : use.counters) set[name] += c.value;
  }
  for (const auto& [set_name, counters] : available) {
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
  auto& consumed = consumed_[d.slice];
  for (const auto& use : d.device->consumesCounters) {
    auto& set = consumed[use.counterSet];
    for (const auto& [name, c] : use.counters) set[name] -= c.value;
  }
}

util::Result<bool, AllocateError> Search::allocate_device(const Indices& r, const DeviceRef& d, bool must) {
  RequestData& rd = data(r);
  const RequestView& request = rd.request;
  const Key k = key_of(d);
  if (request.admin_access ? in_use_by_claim(k, r.claim) : in_use(k)) return false;
  if (!d.device->consumesCounters.empty()) {
    if (!s_.features.partitionableDevices) return false;
    if (!counters_fit(d)) return false;
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
        if (!d.device->consumesCounters.empty() && s_.features.partitionableDevices) release_counters(d);
        return false;
      }
    }
  }
  auto& cs = constraints_[r.claim];
  for (std::size_t i = 0; i < cs.size(); ++i) {
    if (cs[i].add(base, sub, d)) continue;
    if (must) {
      return AllocateError{"claim " + kobj(*claims_[r.claim]) + ", request " + std::string(request.name) +
                                            ": cannot add device " + std::string(k.driver) + "/" + std::string(k.pool) + "/" +
                                            std::string(k.device) +
                                            " because a claim constraint would not be satisfied"};
    }
    for (std::size_t e = 0; e < i; ++e) cs[e].remove(base, sub);
    if (!d.device->consumesCounters.empty() && s_.features.partitionableDevices) release_counters(d);
    return false;
  }
  allocating_[k].insert(r.claim);
  DeviceResult res;
  res.request = rd.name();
  res.base_request = base;
  res.sub_request = sub;
  res.ref = d;
  res.admin_access = request.admin_access;
  results_[r.claim].push_back(std::move(res));
  return true;
}

void Search::deallocate_device(const Indices& r, const DeviceRef& d) {
  const RequestData& rd = data(r);
  const std::string_view base = rd.parent ? rd.parent->name : rd.request.name;
  const std::string_view sub = rd.parent ? rd.request.name : std::string_view();
  for (auto& c : constraints_[r.claim]) c.remove(base, sub);
  allocating_[key_of(d)].erase(r.claim);
  if (s_.features.partitionableDevices && !d.device->consumesCounters.empty()) release_counters(d);
  results_[r.claim].pop_back();
}

util::Result<bool, AllocateError> Search::allocate_one(Indices r, bool allocating_sub) {
  if (r.claim >= claims_.size()) return true;  // every claim done: the first solution wins
  const auto& claim = *claims_[r.claim];
  if (r.request >= claim.spec.devices.requests.size()) return allocate_one(Indices{r.claim + 1, 0, 0, 0}, false);

  RequestSlot& slot = slots_[r.claim][r.request];
  // A request with subrequests: the first subrequest that leads to a full solution.
  if (!allocating_sub && slot.has_subrequests) {
    for (std::size_t sub = 0; sub < slot.subs.size(); ++sub) {
      r.sub = sub;
      auto ok = allocate_one(r, true);
      if (!ok) return ok;
      if (*ok) {
        slot.selected = sub;
        return true;
      }
    }
    return false;
  }

  RequestData& rd = slot.subs[r.sub];
  const bool all = rd.request.all();
  if (all && rd.all_devices.empty()) return false;  // All needs at least one device
  if (r.device >= rd.num_devices) return allocate_one(Indices{r.claim, r.request + 1, 0, 0}, false);
  if (results_[r.claim].size() + rd.num_devices - r.device > kMaxResults) return false;

  if (all) {
    const DeviceRef d = rd.all_devices[r.device];
    auto ok = allocate_device(r, d, true);
    if (!ok || !*ok) return ok;
    auto done = allocate_one(Indices{r.claim, r.request, r.sub, r.device + 1}, allocating_sub);
    if (!done) return done;
    if (!*done) deallocate_device(r, d);
    return done;
  }

  for (const auto& pool : pools_) {
    if (pool.incomplete || pool.invalid) continue;
    for (const auto* slice : pool.slices) {
      for (const auto& device : slice->spec.devices) {
        const DeviceRef d{&device, slice};
        const Key k = key_of(d);
        if (rd.request.admin_access ? in_use_by_claim(k, r.claim) : in_use(k)) continue;
        auto sel = selectable(r, rd, d);
        if (!sel) return sel.error();
        if (!*sel) continue;
        auto ok = allocate_device(r, d, false);
        if (!ok) return ok;
        if (!*ok) continue;
        auto done = allocate_one(Indices{r.claim, r.request, r.sub, r.device + 1}, allocating_sub);
        if (!done) return done;
        if (*done) return true;
        deallocate_device(r, d);
      }
    }
  }
  return false;
}

namespace {

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

}  // namespace

// Where the claim's devices can be used (upstream createNodeSelector): the node of the first
// device bound to a node name, else the union of the single-term selectors, else anywhere.
util::Result<api::NodeSelector*, AllocateError> Search::node_selector_for(const std::vector<DeviceResult>& devices,
                                                                          api::Boxed<api::NodeSelector>& out) {
  api::NodeSelectorTerm term;
  for (const auto& d : devices) {
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

util::Result<Allocation, AllocateError> Search::run() {
  auto pools = gather_pools(s_.slices, node_, s_.features);
  if (!pools) return AllocateError{"gather pool information: " + pools.error()};
  pools_ = std::move(*pools);

  // Each request's class, count and (mode All) devices; claims whose minimum exceeds the result
  // limit fail here.
  for (std::size_t ci = 0; ci < claims_.size(); ++ci) {
    const auto& claim = *claims_[ci];
    std::size_t min_devices = 0;
    const auto& requests = claim.spec.devices.requests;
    slots_[ci].resize(requests.size());
    for (std::size_t ri = 0; ri < requests.size(); ++ri) {
      const auto& request = requests[ri];
      RequestSlot& slot = slots_[ci][ri];
      if (!request.firstAvailable.empty()) {
        if (!s_.features.prioritizedList) {
          return AllocateError{"claim " + kobj(claim) + ", request " + std::string(request.name) +
                                                ": has subrequests, but the DRAPrioritizedList feature is disabled"};
        }
        slot.has_subrequests = true;
        std::size_t min_request = std::numeric_limits<std::size_t>::max();
        for (std::size_t si = 0; si < request.firstAvailable.size(); ++si) {
          auto rd = validate(RequestView::of(request.firstAvailable[si]), RequestView::of(request), Indices{ci, ri, si, 0});
          if (!rd) return rd.error();
          min_request = std::min(min_request, rd->num_devices);
          slot.subs.push_back(std::move(*rd));
        }
        min_devices += min_request;
      } else {
        auto rd = validate(RequestView::of(request), std::nullopt, Indices{ci, ri, 0, 0});
        if (!rd) return rd.error();
        min_devices += rd->num_devices;
        slot.subs.push_back(std::move(*rd));
      }
    }
    if (min_devices > kMaxResults) {
      return AllocateError{"claim " + kobj(claim) + ": number of requested devices " +
                                            std::to_string(min_devices) + " exceeds the claim limit of " +
                                            std::to_string(kMaxResults)};
    }
    results_[ci].reserve(min_devices);
    const auto& constraints = claim.spec.devices.constraints;
    for (std::size_t i = 0; i < constraints.size(); ++i) {
      if (!constraints[i].matchAttribute) {
        // distinctAttribute is DRAConsumableCapacity's (alpha), not this allocator's.
        return AllocateError{"claim " + kobj(claim) + ", constraint #" + std::to_string(i) +
                                              ": empty constraint (unsupported constraint type?)"};
      }
      MatchAttributeConstraint m;
      m.requests.insert(constraints[i].requests.begin(), constraints[i].requests.end());
      m.attribute = *constraints[i].matchAttribute;
      constraints_[ci].push_back(std::move(m));
    }
  }

  auto done = allocate_one(Indices{}, false);
  if (!done) return done.error();
  if (!*done) {
    for (const auto& p : pools_) {
      if (p.invalid) return AllocateError{"invalid resource pools were encountered", true};
    }
    return Allocation{};
  }

  Allocation out;
  out.results.resize(claims_.size());
  for (std::size_t ci = 0; ci < claims_.size(); ++ci) {
    const auto& claim = *claims_[ci];
    auto& result = out.results[ci];
    for (const auto& d : results_[ci]) {
      resourceapi::DeviceRequestAllocationResult r;
      r.request = d.request;
      r.driver = d.ref.slice->spec.driver;
      r.pool = std::string_view(d.ref.slice->spec.pool.name);
      r.device = std::string_view(d.ref.device->name);
      if (d.admin_access) r.adminAccess = true;
      result.devices.results.push_back(std::move(r));
    }
    // The classes' configuration once per class (with every request that used it), then the
    // claim's own configuration for the requests (or chosen subrequests) it names.
    std::map<std::string, std::pair<std::size_t, std::size_t>, std::less<>> class_configs;
    const auto& requests = claim.spec.devices.requests;
    for (std::size_t ri = 0; ri < requests.size(); ++ri) {
      const RequestSlot& slot = slots_[ci][ri];
      const RequestData& rd = slot.subs[slot.has_subrequests ? slot.selected : 0];
      if (!rd.cls) continue;
      const std::string class_name(rd.cls->metadata.name);
      if (auto it = class_configs.find(class_name); it != class_configs.end()) {
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
      class_configs.emplace(class_name, std::make_pair(start, result.devices.config.size()));
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
        const RequestSlot& slot = slots_[ci][ri];
        if (!slot.has_subrequests) continue;
        const std::string sub_name = std::string(name) + "/" + std::string(requests[ri].firstAvailable[slot.selected].name);
        if (std::find(c.requests.begin(), c.requests.end(), sub_name) != c.requests.end()) add();
      }
    }
    auto ns = node_selector_for(results_[ci], result.nodeSelector);
    if (!ns) {
      return AllocateError{"create NodeSelector for claim " + std::string(claim.metadata.name) + ": " +
                                            ns.error().message};
    }
  }
  return out;
}

}  // namespace

Allocator::Allocator(Features features, DeviceIdSet allocated, DeviceClassLookup classes,
                     std::vector<std::shared_ptr<const resourceapi::ResourceSlice>> slices, cel::Cache& selectors)
    : shared_(std::make_unique<Shared>()) {
  shared_->features = features;
  shared_->allocated_ids = std::move(allocated);
  for (const auto& id : shared_->allocated_ids) shared_->allocated.insert(Key{id.driver, id.pool, id.device});
  shared_->classes = std::move(classes);
  shared_->slices = std::move(slices);
  shared_->cache = &selectors;
}

Allocator::~Allocator() = default;

util::Result<Allocation, AllocateError> Allocator::allocate(const api::Node& node,
                                                            std::span<const resourceapi::ResourceClaim* const> claims) const {
  Search search(*shared_, node, claims);
  return search.run();
}

}  // namespace ksched::scheduler::dra
