#include "scheduler/plugins/dynamicresources/filter_verdicts.h"

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

const std::shared_ptr<const dra::PoolDevices>* pool_entry(const dra::AllocatedDevices* in_use,
                                                          std::string_view driver, std::string_view pool) {
  return in_use != nullptr ? in_use->pool_entry(driver, pool) : nullptr;
}

}  // namespace

std::string FilterVerdicts::claims_key(std::string_view ns,
                                       std::span<const resourceapi::ResourceClaim* const> claims) {
  std::string key(ns);
  key.push_back('\0');
  for (const auto* c : claims) {
    api::encode_to(key, c->spec);
    key.push_back('\0');
  }
  return key;
}

FilterVerdicts::Stripe& FilterVerdicts::stripe(std::string_view node) const {
  return stripes_[std::hash<std::string_view>{}(node) % kStripes];
}

std::optional<Verdict> FilterVerdicts::find(std::string_view node, std::string_view claims_key,
                                            const VerdictInputs& in) const {
  Stripe& st = stripe(node);
  std::lock_guard l(st.mu);
  auto it = st.by_node.find(node);
  const auto miss = [&]() -> std::optional<Verdict> {
    ++st.misses;
    return std::nullopt;
  };
  if (it == st.by_node.end()) return miss();
  const Entry* found = nullptr;
  for (const Entry& candidate : it->second.entries) {
    if (candidate.claims_key == claims_key) found = &candidate;
  }
  if (found == nullptr) return miss();
  const Entry& e = *found;
  if (e.class_generation != in.class_generation) return miss();
  if (in.node == nullptr || e.node != *in.node) return miss();
  if (e.slices.size() != in.slices.size()) return miss();
  for (std::size_t i = 0; i < in.slices.size(); ++i) {
    if (e.slices[i] != in.slices[i]) return miss();
  }
  // Same slices, so the same pools in the same order.
  std::size_t k = 0;
  bool same = true;
  for_each_pool(in.slices, [&](std::string_view driver, std::string_view pool) {
    if (!same) return;
    const auto* now = pool_entry(in.in_use, driver, pool);
    const auto& then = e.pools[k++];
    same = now != nullptr ? *now == then : then == nullptr;
  });
  if (!same) return miss();
  ++st.hits;
  return e.verdict;
}

void FilterVerdicts::put(std::string_view node, std::string_view claims_key, const VerdictInputs& in, Verdict v) {
  if (in.node == nullptr) return;
  Entry e;
  e.claims_key = std::string(claims_key);
  e.node = *in.node;
  e.slices.assign(in.slices.begin(), in.slices.end());
  for_each_pool(in.slices, [&](std::string_view driver, std::string_view pool) {
    const auto* now = pool_entry(in.in_use, driver, pool);
    e.pools.push_back(now != nullptr ? *now : nullptr);
  });
  e.class_generation = in.class_generation;
  e.verdict = std::move(v);
  Stripe& st = stripe(node);
  std::lock_guard l(st.mu);
  auto it = st.by_node.find(node);
  if (it == st.by_node.end()) {
    if (st.by_node.size() >= kMaxNodesPerStripe) st.by_node.clear();
    it = st.by_node.emplace(std::string(node), NodeEntries{}).first;
  }
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
