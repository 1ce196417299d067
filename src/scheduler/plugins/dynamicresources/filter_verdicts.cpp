#include "scheduler/plugins/dynamicresources/filter_verdicts.h"

#include <algorithm>
#include <functional>

#include "api/codec.h"

namespace ksched::scheduler::plugins::dynamicresources {

namespace {

// Calls fn(driver, pool) once per distinct pool of the slices, in the slices' order. A node has
// few slices: a quadratic scan beats a set.
template <class Fn>
void for_each_pool(std::span<const dra::SlicePtr> slices, Fn&& fn) {
  for (std::size_t i = 0; i < slices.size(); ++i) {
    const auto& spec = slices[i]->spec;
    const std::string_view driver = spec.driver.view(), pool = spec.pool.name.view();
    bool seen = false;
    for (std::size_t j = 0; j < i && !seen; ++j) {
      seen = slices[j]->spec.driver.view() == driver && slices[j]->spec.pool.name.view() == pool;
    }
    if (!seen) fn(driver, pool);
  }
}

dra::AllocatedDevices::Location locate(const dra::AllocatedDevices* in_use, std::string_view driver,
                                      std::string_view pool) {
  return in_use != nullptr ? in_use->locate(driver, pool) : dra::AllocatedDevices::Location{};
}

}  // namespace

FilterVerdicts::ClaimsKey FilterVerdicts::claims_key(std::string_view ns,
                                                     std::span<const resourceapi::ResourceClaim* const> claims) {
  std::string key(ns);
  key.push_back('\0');
  for (const auto* c : claims) {
    api::encode_to(key, c->spec);
    key.push_back('\0');
  }
  std::lock_guard l(keys_mu_);
  if (auto it = keys_.find(key); it != keys_.end()) return it->second;
  if (keys_.size() >= kMaxKeys) keys_.clear();
  auto interned = std::make_shared<const std::string>(key);
  keys_.emplace(std::move(key), interned);
  return interned;
}

std::optional<Verdict> FilterVerdicts::find(std::string_view node, const ClaimsKey& claims_key,
                                            const VerdictInputs& in, std::vector<dra::SlicePtr>& buf) const {
  Stripe& st = stripe(in.node_name_hash);
  std::lock_guard l(st.mu);
  const auto miss = [&]() -> std::optional<Verdict> {
    ++st.misses;
    return std::nullopt;
  };
  // The node object decides which node this is (its name's hash only finds the entries).
  auto it = st.by_node.find(in.node_name_hash);
  if (it == st.by_node.end()) return miss();
  Entry* found = nullptr;
  for (Entry& candidate : it->second.entries) {
    if (candidate.claims_key == claims_key) found = &candidate;
  }
  if (found == nullptr) return miss();
  Entry& e = *found;
  if (e.class_generation != in.class_generation) return miss();
  if (in.node == nullptr || e.node != *in.node) return miss();
  if (in.slice_index == nullptr || *in.slice_index == nullptr) return miss();
  if (e.slice_index != *in.slice_index) {
    // Another index (some slice somewhere changed): the node's own may be the same.
    const auto slices = (*in.slice_index)->for_node(node, buf);
    if (!std::equal(slices.begin(), slices.end(), e.slices.begin(), e.slices.end())) return miss();
    e.slice_index = *in.slice_index;
  }
  // Usually every pool is in use and where it was: no names to read.
  const auto in_place = [&](const PoolState& p) {
    if (p.devices == nullptr || in.in_use == nullptr) return false;
    const auto* at = in.in_use->at(p.bucket, p.position);
    return at != nullptr && *at == p.devices;
  };
  const bool all_in_place = std::all_of(e.pools.begin(), e.pools.end(), in_place);
  if (all_in_place) {
    ++st.hits;
    return e.verdict;
  }
  std::size_t k = 0;
  bool same = true;
  for_each_pool(e.slices, [&](std::string_view driver, std::string_view pool) {
    if (!same) return;
    PoolState& then = e.pools[k++];
    if (in_place(then)) return;  // where it was, as it was
    const auto now = locate(in.in_use, driver, pool);
    same = now.entry != nullptr ? *now.entry == then.devices : then.devices == nullptr;
    if (same && now.entry != nullptr) {
      then.bucket = now.bucket;
      then.position = now.position;
    }
  });
  if (!same) return miss();
  ++st.hits;
  return e.verdict;
}

void FilterVerdicts::put(std::string_view node, const ClaimsKey& claims_key, const VerdictInputs& in,
                         std::span<const dra::SlicePtr> slices, Verdict v) {
  if (in.node == nullptr || in.slice_index == nullptr) return;
  Entry e;
  e.claims_key = claims_key;
  e.node = *in.node;
  e.slice_index = *in.slice_index;
  e.slices.assign(slices.begin(), slices.end());
  for_each_pool(slices, [&](std::string_view driver, std::string_view pool) {
    const auto now = locate(in.in_use, driver, pool);
    if (now.entry == nullptr) e.pools.push_back(PoolState{});
    else e.pools.push_back(PoolState{*now.entry, now.bucket, now.position});
  });
  e.class_generation = in.class_generation;
  e.verdict = std::move(v);
  Stripe& st = stripe(in.node_name_hash);
  std::lock_guard l(st.mu);
  auto it = st.by_node.find(in.node_name_hash);
  if (it == st.by_node.end()) {
    if (st.by_node.size() >= kMaxNodesPerStripe) st.by_node.clear();
    it = st.by_node.emplace(in.node_name_hash, NodeEntries{}).first;
  }
  if (it->second.node != node) it->second = NodeEntries{std::string(node), {}, 0};
  auto& entries = it->second.entries;
  for (Entry& old : entries) {
    if (old.claims_key == e.claims_key) {
      old = std::move(e);
      return;
    }
  }
  if (entries.size() < kKeysPerNode) {
    entries.push_back(std::move(e));
    return;
  }
  auto& next = it->second.next_replaced;
  entries[next] = std::move(e);
  next = (next + 1) % kKeysPerNode;
}

std::uint64_t FilterVerdicts::hits() const {
  std::uint64_t n = 0;
  for (const auto& st : stripes_) {
    std::lock_guard l(st.mu);
    n += st.hits;
  }
  return n;
}

std::uint64_t FilterVerdicts::misses() const {
  std::uint64_t n = 0;
  for (const auto& st : stripes_) {
    std::lock_guard l(st.mu);
    n += st.misses;
  }
  return n;
}

}  // namespace ksched::scheduler::plugins::dynamicresources
