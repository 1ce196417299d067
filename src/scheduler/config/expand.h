// A profile's plugins per extension point (upstream framework/runtime NewFramework's
// updatePluginList + expandMultiPointPlugins) and the Score weights (getScoreWeights). The one
// implementation: Framework::init (framework/runtime.cpp) calls it with the capabilities of the
// plugins it instantiated; the config tests call it with in_tree_capabilities().
//
// Steps, in this order (the first error wins):
//  1. each specific point's enabled list as configured (unknown, not implementing the point, or
//     named twice is an error);
//  2. multiPoint expansion, per point: a plugin configured at the specific point overrides its
//     multiPoint entry there (and is moved to the front, keeping its specific order), then the
//     multiPoint plugins implementing the point, then the rest of the specific ones; a plugin
//     disabled at a point is not added there from multiPoint; "*" disabled at a point skips
//     expansion for that point. multiPoint's own disabled list was already applied by the
//     defaults merge (merge_plugins);
//  3. exactly one QueueSort plugin and at least one Bind plugin;
//  4. Score weights: the Score point's entry wins over multiPoint's; unset/0 means 1. The same
//     for PlacementScore weights.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/config/types.h"
#include "util/result.h"

namespace ksched::scheduler::config {

struct ExpandedPlugins {
  // Indexed by ExtensionPoint (MultiPoint's slot stays empty). Names in run order.
  std::array<std::vector<std::string>, static_cast<std::size_t>(ExtensionPoint::MultiPoint) + 1> points;
  // Score weight of every Score-capable plugin (unset/0 -> 1), in first-seen order.
  std::vector<std::pair<std::string, std::int32_t>> score_weights;
  // The same for PlacementScore plugins (upstream's weights apply to both points).
  std::vector<std::pair<std::string, std::int32_t>> placement_score_weights;

  const std::vector<std::string>& at(ExtensionPoint ep) const { return points[static_cast<std::size_t>(ep)]; }
  std::int32_t weight_of(std::string_view plugin) const {
    for (const auto& [n, w] : score_weights) {
      if (n == plugin) return w;
    }
    return 0;
  }
};

// For a plugin name: the extension points it implements, or nullopt when it is not registered.
using PluginCapabilities = std::function<std::optional<std::vector<ExtensionPoint>>(std::string_view)>;

// Capabilities of the in-tree plugins (default_plugin_extension_points()).
PluginCapabilities in_tree_capabilities();

// Points are visited in kSpecificExtensionPoints order. Errors use upstream's texts, e.g.
// `FilterPlugin "Foo" does not exist`,
// `plugin "NodeName" already registered as "FilterPlugin"`,
// `plugin "PrioritySort" does not extend FilterPlugin plugin`,
// `only one queue sort plugin required for profile with scheduler name "x", but got 2`,
// `at least one bind plugin is needed for profile with scheduler name "x"`,
// `total score of Score plugins could overflow`.
util::Result<ExpandedPlugins> expand_plugins(const KubeSchedulerProfile& profile,
                                             const PluginCapabilities& caps);

}  // namespace ksched::scheduler::config
