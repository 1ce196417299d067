#include "scheduler/dra/pools.h"

#include <algorithm>
#include <cstring>

#include "scheduler/framework/plugin_helper.h"

namespace ksched::scheduler::dra {

util::Result<bool> node_matches(const api::Node& node, std::string_view node_name, bool all_nodes,
                                const api::NodeSelector* selector) {
  if (!node_name.empty()) return std::string_view(node.metadata.name) == node_name;
  if (all_nodes) return true;
  if (selector != nullptr) {
    // Upstream parses the whole selector first (nodeaffinity.NewNodeSelector) and fails on any
    // invalid term, where pod node affinity would only skip that term.
    framework::NodeSelectorMatcher m(*selector);
    if (!m.errors().empty()) return util::make_error("failed to parse node selector: " + m.error_string());
    return m.matches(node);
  }
  return false;
}

std::uint64_t device_name_fingerprint(std::string_view n) {
  std::uint64_t tail = 0;
  if (n.size() >= 8) {
    std::memcpy(&tail, n.data() + n.size() - 8, 8);  // one load; the first of the eight bytes is dropped
    tail >>= 8;  // little-endian: the first byte is the lowest
  } else {
    for (const char c : n) tail = tail << 8 | static_cast<unsigned char>(c);
  }
  return tail ^ static_cast<std::uint64_t>(n.size()) << 56;
}

namespace {

// Whether the pool has a newer generation among all slices (then this node's slices are obsolete
// and the pool is left out), else how many slices of `generation` exist anywhere.
std::pair<bool, std::int64_t> check_slices_in_pool(std::span<const std::shared_ptr<const resourceapi::ResourceSlice>> slices,
                                                   const Pool& pool, std::int64_t generation) {
  std::int64_t n = 0;
  for (const auto& s : slices) {
    if (std::string_view(s->spec.driver) != pool.driver || std::string_view(s->spec.pool.name) != pool.pool) continue;
    if (s->spec.pool.generation == generation) {
      ++n;
    } else if (s->spec.pool.generation > generation) {
      return {true, 0};
    }
  }
  return {false, n};
}

// Whether a device name occurs twice among `names` (reordered); `fps` is working space.
bool has_duplicate(std::vector<std::string_view>& names, std::vector<std::uint64_t>& fps) {
  if (names.size() <= 32) {
    fps.clear();
    for (const auto n : names) fps.push_back(device_name_fingerprint(n));
    for (std::size_t i = 1; i < names.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (fps[i] == fps[j] && names[i] == names[j]) return true;
    return false;
  }
  std::sort(names.begin(), names.end());
  return std::adjacent_find(names.begin(), names.end()) != names.end();
}

bool has_binding_conditions(const resourceapi::ResourceSlice& s) {
  for (const auto& d : s.spec.devices)
    if (!d.bindingConditions.empty()) return true;
  return false;
}

}  // namespace

util::Result<void> gather_pools(std::span<const std::shared_ptr<const resourceapi::ResourceSlice>> slices,
                                const api::Node& node, const Features& features, Pools& out) {
  out.pools.clear();
  out.slices.clear();
  out.candidates.clear();
  const bool binding_conditions_last = features.consumableCapacity || features.deviceBindingAndStatus;
  for (std::uint32_t i = 0; i < slices.size(); ++i) {
    const resourceapi::ResourceSlice& s = *slices[i];
    // Without DRAPartitionableDevices a slice that uses its per-device node selection is unknown
    // to the allocator.
    if (!features.partitionableDevices && s.spec.perDeviceNodeSelection.has_value()) continue;
    const std::string_view node_name = s.spec.nodeName ? std::string_view(*s.spec.nodeName) : std::string_view();
    const bool all_nodes = s.spec.allNodes.value_or(false);
    bool use = false;
    if (!node_name.empty() || all_nodes || s.spec.nodeSelector) {
      auto m = node_matches(node, node_name, all_nodes, s.spec.nodeSelector ? &*s.spec.nodeSelector : nullptr);
      if (!m) return util::make_error("failed to perform node selection for slice " + std::string(s.metadata.name) + ": " + m.error());
      use = *m;
    } else if (s.spec.perDeviceNodeSelection.value_or(false)) {
      for (const auto& d : s.spec.devices) {
        const std::string_view dn = d.nodeName ? std::string_view(*d.nodeName) : std::string_view();
        auto m = node_matches(node, dn, d.allNodes.value_or(false), d.nodeSelector ? &*d.nodeSelector : nullptr);
        if (!m) {
          return util::make_error("failed to perform node selection for device " + std::string(d.name) + " in slice " +
                                  std::string(s.metadata.name) + ": " + m.error());
        }
        if (*m) {
          use = true;
          break;
        }
      }
    }
    if (use) {
      out.candidates.push_back(Pools::Candidate{std::string_view(s.spec.driver), std::string_view(s.spec.pool.name),
                                                s.spec.pool.generation, i,
                                                binding_conditions_last && has_binding_conditions(s)});
    }
  }
  // (driver, pool) order; within a pool, the order the slices were given (those with binding
  // conditions last, when they go last).
  std::sort(out.candidates.begin(), out.candidates.end(), [](const Pools::Candidate& a, const Pools::Candidate& b) {
    if (a.driver != b.driver) return a.driver < b.driver;
    if (a.pool != b.pool) return a.pool < b.pool;
    if (a.binding_conditions != b.binding_conditions) return b.binding_conditions;
    return a.index < b.index;
  });

  for (std::size_t b = 0; b < out.candidates.size();) {
    std::size_t e = b + 1;
    std::int64_t newest = out.candidates[b].generation;
    while (e < out.candidates.size() && out.candidates[e].driver == out.candidates[b].driver &&
           out.candidates[e].pool == out.candidates[b].pool) {
      newest = std::max(newest, out.candidates[e].generation);
      ++e;
    }
    // Upstream addSlice: only the newest generation's slices; older ones are outdated.
    Pool pool;
    pool.driver = out.candidates[b].driver;
    pool.pool = out.candidates[b].pool;
    pool.first = static_cast<std::uint32_t>(out.slices.size());
    for (std::size_t k = b; k < e; ++k)
      if (out.candidates[k].generation == newest) out.slices.push_back(out.candidates[k].index);
    pool.count = static_cast<std::uint32_t>(out.slices.size()) - pool.first;
    b = e;

    const auto& first = slices[out.slices[pool.first]]->spec.pool;
    bool complete = static_cast<std::int64_t>(pool.count) == first.resourceSliceCount;
    if (!complete) {
      // Slices of the pool published for other nodes count too.
      const auto [obsolete, n] = check_slices_in_pool(slices, pool, first.generation);
      if (obsolete) {
        out.slices.resize(pool.first);
        continue;
      }
      complete = n == first.resourceSliceCount;
    }
    pool.incomplete = !complete;
    out.names.clear();
    for (std::uint32_t k = 0; k < pool.count; ++k)
      for (const auto& d : slices[out.slices[pool.first + k]]->spec.devices) out.names.push_back(std::string_view(d.name));
    pool.invalid = has_duplicate(out.names, out.fingerprints);
    if (binding_conditions_last && !pool.incomplete) {
      for (std::uint32_t k = 0; k < pool.count && !pool.binding_conditions; ++k)
        pool.binding_conditions = has_binding_conditions(*slices[out.slices[pool.first + k]]);
    }
    out.pools.push_back(pool);
  }
  // Upstream's experimental GatherPools: complete pools with binding conditions after the rest
  // (an incomplete pool is never one of them there: it keeps no slices).
  if (binding_conditions_last)
    std::stable_partition(out.pools.begin(), out.pools.end(), [](const Pool& p) { return !p.binding_conditions; });
  return {};
}

}  // namespace ksched::scheduler::dra
