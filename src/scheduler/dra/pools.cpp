#include "scheduler/dra/pools.h"

#include <algorithm>
#include <map>
#include <set>

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

namespace {

using PoolKey = std::pair<std::string_view, std::string_view>;  // (driver, pool), views into the slices

// A pool's slices of its newest generation (upstream addSlice).
void add_slice(std::map<PoolKey, Pool>& pools, const resourceapi::ResourceSlice& s) {
  const PoolKey key{std::string_view(s.spec.driver), std::string_view(s.spec.pool.name)};
  auto [it, inserted] = pools.try_emplace(key);
  Pool& p = it->second;
  if (inserted) {
    p.driver = std::string(key.first);
    p.pool = std::string(key.second);
    p.slices.push_back(&s);
    return;
  }
  const std::int64_t have = p.slices.front()->spec.pool.generation;
  if (s.spec.pool.generation < have) return;  // outdated: ignored
  if (s.spec.pool.generation > have) p.slices.clear();
  p.slices.push_back(&s);
}

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

}  // namespace

util::Result<std::vector<Pool>> gather_pools(std::span<const std::shared_ptr<const resourceapi::ResourceSlice>> slices,
                                             const api::Node& node, const Features& features) {
  std::map<PoolKey, Pool> pools;
  for (const auto& sp : slices) {
    const resourceapi::ResourceSlice& s = *sp;
    // Without DRAPartitionableDevices a slice that uses its per-device node selection is unknown
    // to the allocator.
    if (!features.partitionableDevices && s.spec.perDeviceNodeSelection.has_value()) continue;
    const std::string_view node_name = s.spec.nodeName ? std::string_view(*s.spec.nodeName) : std::string_view();
    const bool all_nodes = s.spec.allNodes.value_or(false);
    if (!node_name.empty() || all_nodes || s.spec.nodeSelector) {
      auto m = node_matches(node, node_name, all_nodes, s.spec.nodeSelector ? &*s.spec.nodeSelector : nullptr);
      if (!m) return util::make_error("failed to perform node selection for slice " + std::string(s.metadata.name) + ": " + m.error());
      if (*m) add_slice(pools, s);
    } else if (s.spec.perDeviceNodeSelection.value_or(false)) {
      for (const auto& d : s.spec.devices) {
        const std::string_view dn = d.nodeName ? std::string_view(*d.nodeName) : std::string_view();
        auto m = node_matches(node, dn, d.allNodes.value_or(false), d.nodeSelector ? &*d.nodeSelector : nullptr);
        if (!m) {
          return util::make_error("failed to perform node selection for device " + std::string(d.name) + " in slice " +
                                  std::string(s.metadata.name) + ": " + m.error());
        }
        if (*m) {
          add_slice(pools, s);
          break;
        }
      }
    }
  }

  std::vector<Pool> out;
  out.reserve(pools.size());
  for (auto& [key, pool] : pools) {
    const auto& first = pool.slices.front()->spec.pool;
    bool complete = static_cast<std::int64_t>(pool.slices.size()) == first.resourceSliceCount;
    if (!complete) {
      // Slices of the pool published for other nodes count too.
      const auto [obsolete, n] = check_slices_in_pool(slices, pool, first.generation);
      if (obsolete) continue;
      complete = n == first.resourceSliceCount;
    }
    pool.incomplete = !complete;
    std::set<std::string_view> names;
    for (const auto* s : pool.slices) {
      for (const auto& d : s->spec.devices) {
        if (!names.insert(std::string_view(d.name)).second) {
          pool.invalid = true;
          pool.invalid_reason = "duplicate device name " + std::string(d.name);
          break;
        }
      }
      if (pool.invalid) break;
    }
    out.push_back(std::move(pool));
  }
  return out;
}

}  // namespace ksched::scheduler::dra
