#include "scheduler/dra/manager.h"

#include <algorithm>
#include <charconv>

namespace ksched::scheduler::dra {

namespace {

// resourceVersions are decimal counters here (as etcd's revisions); anything else counts as 0, so
// the informer's copy wins, as upstream's assume cache lets it when it cannot compare.
std::uint64_t version_of(const resourceapi::ResourceClaim& c) {
  std::uint64_t v = 0;
  std::string_view s = c.metadata.resourceVersion.view();
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

// Upstream foreachAllocatedDevice: each allocated device of the claim, admin access excluded.
template <class Fn>
void for_each_allocated_device(const resourceapi::ResourceClaim& c, Fn&& fn) {
  if (!c.status.allocation) return;
  for (const auto& r : c.status.allocation->devices.results) {
    if (r.adminAccess.value_or(false)) continue;
    fn(r);
  }
}

}  // namespace

std::span<const SlicePtr> SliceIndex::for_node(std::string_view node, std::vector<SlicePtr>& buf) const {
  auto it = by_node.find(node);
  if (it == by_node.end() || it->second.empty()) return node_less;
  if (node_less.empty()) return it->second;
  buf.clear();
  buf.reserve(it->second.size() + node_less.size());
  buf.insert(buf.end(), it->second.begin(), it->second.end());
  buf.insert(buf.end(), node_less.begin(), node_less.end());
  return buf;
}

namespace {
const std::shared_ptr<const AllocatedDevices::Bucket>& empty_bucket() {
  static const auto empty = std::make_shared<const AllocatedDevices::Bucket>();
  return empty;
}
}  // namespace

AllocatedDevices::AllocatedDevices() { buckets.fill(empty_bucket()); }

std::size_t AllocatedDevices::bucket_of(std::string_view driver, std::string_view pool) {
  const std::size_t h = std::hash<std::string_view>{}(pool) ^ (std::hash<std::string_view>{}(driver) * 31);
  return (h ^ (h >> 17)) % kBuckets;
}

AllocatedDevices::Location AllocatedDevices::locate(std::string_view driver, std::string_view pool) const {
  const auto bucket = static_cast<std::uint32_t>(bucket_of(driver, pool));
  const Bucket& b = *buckets[bucket];
  const std::pair<std::string_view, std::string_view> want{pool, driver};
  auto it = std::lower_bound(b.begin(), b.end(), want, [](const auto& p, const auto& w) {
    return std::pair<std::string_view, std::string_view>{p->pool, p->driver} < w;
  });
  if (it == b.end() || (*it)->driver != driver || (*it)->pool != pool) return {};
  return {&*it, bucket, static_cast<std::uint32_t>(it - b.begin())};
}

const DeviceNameSet* AllocatedDevices::in_pool(std::string_view driver, std::string_view pool) const {
  const auto* e = pool_entry(driver, pool);
  return e != nullptr ? &(*e)->names : nullptr;
}

const SharedDevices* AllocatedDevices::shared_in_pool(std::string_view driver, std::string_view pool) const {
  const auto* e = pool_entry(driver, pool);
  return e != nullptr && !(*e)->shared.empty() ? &(*e)->shared : nullptr;
}

std::size_t AllocatedDevices::size() const {
  std::size_t n = 0;
  for_each_pool([&](const PoolDevices& p) { n += p.names.size(); });
  return n;
}

DeviceIdSet AllocatedDevices::all() const {
  DeviceIdSet out;
  out.reserve(size());
  for_each_pool([&](const PoolDevices& p) {
    for (const auto& name : p.names) out.insert(DeviceId{p.driver, p.pool, name});
  });
  return out;
}

std::string Manager::key(std::string_view ns, std::string_view name) {
  std::string k;
  k.reserve(ns.size() + 1 + name.size());
  k.append(ns).push_back('/');
  k.append(name);
  return k;
}

// ---------------------------------------------------------------- classes

void Manager::on_class_add(const ClassPtr& c) {
  std::lock_guard l(mu_);
  classes_[std::string(c->metadata.name.view())] = c;
  map_extended_resources_locked(c, nullptr);
  class_generation_.fetch_add(1, std::memory_order_release);
}
void Manager::on_class_update(const ClassPtr& old_c, const ClassPtr& c) {
  std::lock_guard l(mu_);
  classes_[std::string(c->metadata.name.view())] = c;
  map_extended_resources_locked(c, old_c);
  class_generation_.fetch_add(1, std::memory_order_release);
}
void Manager::on_class_delete(const ClassPtr& c) {
  std::lock_guard l(mu_);
  classes_.erase(std::string(c->metadata.name.view()));
  unmap_extended_resources_locked(*c);
  class_generation_.fetch_add(1, std::memory_order_release);
}

namespace {
std::string implicit_extended_resource(const resourceapi::DeviceClass& c) {
  return std::string(kResourceDeviceClassPrefix) + std::string(c.metadata.name.view());
}
}  // namespace

bool is_dra_extended_resource_name(std::string_view name) {
  if (name.starts_with(kResourceDeviceClassPrefix)) return true;
  // v1helper.IsExtendedResourceName: domain-prefixed, outside *kubernetes.io/, not requests.*.
  if (name.find('/') == std::string_view::npos) return false;
  if (name.find("kubernetes.io/") != std::string_view::npos) return false;
  return !name.starts_with("requests.");
}

// Upstream ExtendedResourceCache.updateResourceName2class, including its early return when an
// older class (or one of equal age with a name not smaller) loses a clash on the explicit name.
void Manager::map_extended_resources_locked(const ClassPtr& c, const ClassPtr& old_c) {
  if (c->spec.extendedResourceName) {
    auto it = extended_resources_.find(*c->spec.extendedResourceName);
    if (it != extended_resources_.end() && it->second->metadata.name != c->metadata.name) {
      const auto& other = *it->second;
      const auto mine = c->metadata.creationTimestamp.value_or(api::Time{}).unixNanos;
      const auto theirs = other.metadata.creationTimestamp.value_or(api::Time{}).unixNanos;
      if (mine < theirs) return;
      if (mine == theirs && c->metadata.name.view() >= other.metadata.name.view()) return;
    }
  }
  if (old_c) {
    extended_resources_.erase(implicit_extended_resource(*old_c));
    if (old_c->spec.extendedResourceName) {
      auto it = extended_resources_.find(*old_c->spec.extendedResourceName);
      if (it != extended_resources_.end() && it->second->metadata.name == old_c->metadata.name)
        extended_resources_.erase(it);
    }
  }
  if (c->spec.extendedResourceName) extended_resources_[*c->spec.extendedResourceName] = c;
  extended_resources_[implicit_extended_resource(*c)] = c;
}

void Manager::unmap_extended_resources_locked(const resourceapi::DeviceClass& c) {
  extended_resources_.erase(implicit_extended_resource(c));
  if (c.spec.extendedResourceName) {
    auto it = extended_resources_.find(*c.spec.extendedResourceName);
    if (it != extended_resources_.end() && it->second->metadata.name == c.metadata.name)
      extended_resources_.erase(it);
  }
}

ClassPtr Manager::class_for_extended_resource(std::string_view resource) const {
  std::lock_guard l(mu_);
  auto it = extended_resources_.find(resource);
  return it == extended_resources_.end() ? nullptr : it->second;
}

ClaimPtr Manager::find_claim(std::string_view ns,
                             const std::function<bool(const resourceapi::ResourceClaim&)>& pred) const {
  std::lock_guard l(mu_);
  for (const auto& [k, e] : claims_) {
    if (k.size() <= ns.size() || k[ns.size()] != '/' || std::string_view(k).substr(0, ns.size()) != ns)
      continue;
    if (e.latest && pred(*e.latest)) return e.latest;
  }
  return nullptr;
}

ClassPtr Manager::device_class(std::string_view name) const {
  std::lock_guard l(mu_);
  auto it = classes_.find(std::string(name));
  return it == classes_.end() ? nullptr : it->second;
}

// ---------------------------------------------------------------- slices

void Manager::put_slice_locked(const SlicePtr& s) {
  slices_[std::string(s->metadata.name.view())] = s;
  slice_index_.reset();
}
void Manager::on_slice_add(const SlicePtr& s) {
  std::lock_guard l(mu_);
  put_slice_locked(s);
}
void Manager::on_slice_update(const SlicePtr&, const SlicePtr& s) { on_slice_add(s); }
void Manager::on_slice_delete(const SlicePtr& s) {
  std::lock_guard l(mu_);
  slices_.erase(std::string(s->metadata.name.view()));
  slice_index_.reset();
}

std::shared_ptr<const SliceIndex> Manager::slices() const {
  std::lock_guard l(mu_);
  if (slice_index_) return slice_index_;
  auto idx = std::make_shared<SliceIndex>();
  // In name order, so that the allocator sees the same slices in the same order every time.
  std::vector<const SlicePtr*> sorted;
  sorted.reserve(slices_.size());
  for (const auto& [name, s] : slices_) sorted.push_back(&s);
  std::sort(sorted.begin(), sorted.end(),
            [](const SlicePtr* a, const SlicePtr* b) { return (*a)->metadata.name.view() < (*b)->metadata.name.view(); });
  for (const SlicePtr* s : sorted) {
    const auto& spec = (*s)->spec;
    if (spec.nodeName && !spec.nodeName->empty()) {
      idx->by_node[*spec.nodeName].push_back(*s);
    } else {
      idx->node_less.push_back(*s);
    }
  }
  slice_index_ = idx;
  return slice_index_;
}

// ---------------------------------------------------------------- claims

void Manager::count_devices_locked(const resourceapi::ResourceClaim* c, int delta) {
  if (c == nullptr) return;
  for_each_allocated_device(*c, [&](const resourceapi::DeviceRequestAllocationResult& r) {
    const std::pair<std::string_view, std::string_view> k{r.driver.view(), r.pool.view()};
    const std::size_t bucket = AllocatedDevices::bucket_of(k.first, k.second);
    auto& pools = allocated_[bucket];
    auto it = pools.find(k);
    if (it == pools.end()) {
      if (delta <= 0) return;
      it = pools.emplace(PoolLess::Key{std::string(k.first), std::string(k.second)}, PoolCounts{}).first;
    }
    auto& devices = it->second.devices;
    auto d = devices.find(r.device.view());
    if (d == devices.end()) {
      if (delta <= 0) return;
      d = devices.emplace(std::string(r.device.view()), 0).first;
    }
    d->second += delta;
    if (d->second <= 0) devices.erase(d);
    if (r.shareID) {
      auto& shared = it->second.shared;
      auto sc = shared.find(r.device.view());
      if (sc == shared.end() && delta > 0) sc = shared.emplace(std::string(r.device.view()), ShareCounts{}).first;
      if (sc != shared.end()) {
        sc->second.shares += delta;
        if (!r.consumedCapacity.empty()) {
          sc->second.with_consumed += delta;
          for (const auto& [name, q] : r.consumedCapacity) {
            if (auto* have = sc->second.consumed.find(name)) {
              if (delta > 0) *have += q;
              else *have -= q;
            } else if (delta > 0) {
              sc->second.consumed.set(name, q);
            }
          }
        }
        if (sc->second.shares <= 0) shared.erase(sc);
      }
    }
    it->second.dirty = true;
    dirty_buckets_ |= std::uint64_t{1} << bucket;
  });
}

void Manager::set_latest_locked(ClaimEntry& e, ClaimPtr after) {
  if (e.latest == after) return;
  count_devices_locked(e.latest.get(), -1);
  count_devices_locked(after.get(), +1);
  e.latest = std::move(after);
  ++claims_version_;
  claims_changed_.notify_all();
}

std::uint64_t Manager::claims_version() const {
  std::lock_guard l(mu_);
  return claims_version_;
}

std::uint64_t Manager::wait_for_claims_change(std::uint64_t seen,
                                              std::chrono::steady_clock::time_point deadline) const {
  std::unique_lock l(mu_);
  claims_changed_.wait_until(l, deadline, [&] { return claims_version_ != seen || waits_stopped_; });
  return claims_version_;
}

void Manager::stop_waits() {
  {
    std::lock_guard l(mu_);
    waits_stopped_ = true;
  }
  claims_changed_.notify_all();
}

bool Manager::waits_stopped() const {
  std::lock_guard l(mu_);
  return waits_stopped_;
}

void Manager::on_claim_add(const ClaimPtr& c) {
  std::lock_guard l(mu_);
  auto& e = claims_[key(c->metadata.namespace_.view(), c->metadata.name.view())];
  // An assumed copy stays while the informer's version is older than it (upstream: only a newer
  // version replaces the cached object, so a resync does not undo an assumption).
  if (e.latest && e.latest != e.api && e.latest->metadata.uid == c->metadata.uid &&
      version_of(*c) < version_of(*e.latest)) {
    e.api = c;
    return;
  }
  e.api = c;
  set_latest_locked(e, c);
}

void Manager::on_claim_update(const ClaimPtr&, const ClaimPtr& c) { on_claim_add(c); }

void Manager::on_claim_delete(const ClaimPtr& c) {
  std::lock_guard l(mu_);
  auto it = claims_.find(key(c->metadata.namespace_.view(), c->metadata.name.view()));
  if (it == claims_.end()) return;
  set_latest_locked(it->second, nullptr);
  claims_.erase(it);
}

ClaimPtr Manager::claim(std::string_view ns, std::string_view name) const {
  std::lock_guard l(mu_);
  auto it = claims_.find(key(ns, name));
  return it == claims_.end() ? nullptr : it->second.latest;
}

std::shared_ptr<const AllocatedDevices> Manager::allocated_devices() const {
  std::lock_guard l(mu_);
  if (allocated_snapshot_ && dirty_buckets_ == 0) return allocated_snapshot_;
  auto next = allocated_snapshot_ ? std::make_shared<AllocatedDevices>(*allocated_snapshot_)
                                  : std::make_shared<AllocatedDevices>();
  for (std::size_t b = 0; b < AllocatedDevices::kBuckets; ++b) {
    if ((dirty_buckets_ & (std::uint64_t{1} << b)) == 0) continue;
    auto& pools = allocated_[b];
    next->pool_count -= next->buckets[b]->size();
    auto bucket = std::make_shared<AllocatedDevices::Bucket>();
    bucket->reserve(pools.size());
    for (auto it = pools.begin(); it != pools.end();) {
      auto& [k, p] = *it;
      if (p.dirty) {
        p.dirty = false;
        if (p.devices.empty()) {
          it = pools.erase(it);
          continue;
        }
        auto pd = std::make_shared<PoolDevices>();
        pd->driver = k.first;
        pd->pool = k.second;
        pd->names.reserve(p.devices.size());
        for (const auto& [device, n] : p.devices) pd->names.insert(device);
        for (const auto& [device, sc] : p.shared) {
          auto total = p.devices.find(device);
          if (total != p.devices.end() && total->second == sc.shares) pd->shared.only_shared.insert(device);
          if (sc.with_consumed > 0) pd->shared.consumed.emplace_back(device, sc.consumed);
        }
        std::sort(pd->shared.consumed.begin(), pd->shared.consumed.end(),
                  [](const auto& x, const auto& y) { return x.first < y.first; });
        p.published = std::move(pd);
      }
      bucket->push_back(p.published);
      ++it;
    }
    next->pool_count += bucket->size();
    next->buckets[b] = bucket->empty() ? empty_bucket() : std::move(bucket);
  }
  dirty_buckets_ = 0;
  allocated_snapshot_ = std::move(next);
  return allocated_snapshot_;
}

DeviceIdSet Manager::allocated_devices_from_scratch() const {
  std::lock_guard l(mu_);
  DeviceIdSet out;
  auto add = [&](const resourceapi::ResourceClaim& c) {
    for_each_allocated_device(c, [&](const resourceapi::DeviceRequestAllocationResult& r) {
      out.insert(DeviceId{std::string(r.driver.view()), std::string(r.pool.view()), std::string(r.device.view())});
    });
  };
  for (const auto& [k, e] : claims_)
    if (e.latest) add(*e.latest);
  for (const auto& [uid, c] : in_flight_) add(*c);
  return out;
}

bool Manager::claim_has_pending_allocation(std::string_view uid) const {
  std::lock_guard l(mu_);
  return in_flight_.contains(std::string(uid));
}

ClaimPtr Manager::pending_allocation(std::string_view uid) const {
  std::lock_guard l(mu_);
  auto it = in_flight_.find(std::string(uid));
  return it == in_flight_.end() ? nullptr : it->second;
}

void Manager::signal_claim_pending_allocation(std::string_view uid, ClaimPtr allocated) {
  std::lock_guard l(mu_);
  count_devices_locked(allocated.get(), +1);
  auto& slot = in_flight_[std::string(uid)];
  count_devices_locked(slot.get(), -1);
  slot = std::move(allocated);
}

bool Manager::remove_claim_pending_allocation(std::string_view uid) {
  std::lock_guard l(mu_);
  auto it = in_flight_.find(std::string(uid));
  if (it == in_flight_.end()) return false;
  count_devices_locked(it->second.get(), -1);
  in_flight_.erase(it);
  return true;
}

util::Result<void> Manager::assume_claim_after_api_call(const ClaimPtr& written) {
  std::lock_guard l(mu_);
  const std::string k = key(written->metadata.namespace_.view(), written->metadata.name.view());
  auto it = claims_.find(k);
  if (it == claims_.end() || !it->second.latest) return util::make_error("could not find ResourceClaim \"" + k + "\"");
  const auto stored = version_of(*it->second.latest);
  const auto assumed = version_of(*written);
  if (assumed < stored) {
    return util::make_error("ResourceClaim \"" + k + "\" is out of sync (stored: " + std::to_string(stored) +
                            ", assume: " + std::to_string(assumed) + ")");
  }
  set_latest_locked(it->second, written);
  return {};
}

void Manager::assumed_claim_restore(std::string_view ns, std::string_view name) {
  std::lock_guard l(mu_);
  auto it = claims_.find(key(ns, name));
  if (it == claims_.end()) return;
  set_latest_locked(it->second, it->second.api);
}

// ---------------------------------------------------------------- resourceclaim helpers

util::Result<ClaimName> pod_claim_name(const api::Pod& pod, const api::PodResourceClaim& pod_claim) {
  if (pod_claim.resourceClaimName) return ClaimName{*pod_claim.resourceClaimName, false};
  if (pod_claim.resourceClaimTemplateName) {
    if (pod.status.resourceClaimStatuses) {
      for (const auto& st : *pod.status.resourceClaimStatuses) {
        if (st.name == pod_claim.name) return ClaimName{st.resourceClaimName, true};
      }
    }
    return util::make_error("pod \"" + std::string(pod.metadata.namespace_.view()) + "/" +
                            std::string(pod.metadata.name.view()) + "\": ResourceClaim not created yet");
  }
  return util::make_error("pod \"" + std::string(pod.metadata.namespace_.view()) + "/" +
                          std::string(pod.metadata.name.view()) + "\", spec.resourceClaim \"" + pod_claim.name +
                          "\": none of the supported fields are set");
}

std::string claim_is_for_pod(const api::Pod& pod, const resourceapi::ResourceClaim& claim) {
  bool controlled = false;
  for (const auto& o : claim.metadata.ownerReferences) {
    if (o.controller.value_or(false)) {
      controlled = o.uid == pod.metadata.uid.view();
      break;
    }
  }
  if (claim.metadata.namespace_ != pod.metadata.namespace_ || !controlled) {
    return "ResourceClaim " + std::string(claim.metadata.namespace_.view()) + "/" +
           std::string(claim.metadata.name.view()) + " was not created for pod " +
           std::string(pod.metadata.namespace_.view()) + "/" + std::string(pod.metadata.name.view()) +
           " (pod is not owner)";
  }
  return {};
}

std::optional<resourceapi::ResourceClaimConsumerReference> pod_group_consumer(
    const api::Pod& pod, const api::PodResourceClaim& pod_claim, const resourceapi::ResourceClaim& claim,
    const api::schedulingv1beta1::PodGroup* group) {
  const auto& sg = pod.spec.schedulingGroup;
  if (!sg || !sg->podGroupName) return std::nullopt;
  const std::string& group_name = *sg->podGroupName;
  auto consumer = [&](std::string_view uid) {
    resourceapi::ResourceClaimConsumerReference ref;
    ref.apiGroup = std::string(kPodGroupApiGroup);
    ref.resource = "podgroups";
    ref.name = group_name;
    ref.uid = std::string(uid);
    return ref;
  };
  if (group && group->metadata.name == group_name && group->metadata.namespace_ == pod.metadata.namespace_) {
    for (const auto& c : group->spec.resourceClaims)
      if (c.name == pod_claim.name && c.resourceClaimName == pod_claim.resourceClaimName &&
          c.resourceClaimTemplateName == pod_claim.resourceClaimTemplateName)
        return consumer(group->metadata.uid.view());
  }
  for (const auto& o : claim.metadata.ownerReferences) {
    if (!o.controller.value_or(false)) continue;
    if (o.kind == "PodGroup" && o.apiVersion.starts_with(std::string(kPodGroupApiGroup) + "/") && o.name == group_name)
      return consumer(o.uid);
    break;
  }
  for (const auto& r : claim.status.reservedFor)
    if (r.apiGroup == kPodGroupApiGroup && r.resource == "podgroups" && r.name == group_name) return r;
  return std::nullopt;
}

bool claim_is_reserved_for_pod(const api::Pod& pod, const resourceapi::ResourceClaim& claim) {
  for (const auto& r : claim.status.reservedFor) {
    if (r.uid == pod.metadata.uid) return true;
  }
  return false;
}

bool claim_can_be_reserved(const resourceapi::ResourceClaim& claim) {
  return claim.status.reservedFor.size() < kResourceClaimReservedForMaxSize;
}

}  // namespace ksched::scheduler::dra
