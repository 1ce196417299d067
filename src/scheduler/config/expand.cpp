#include "scheduler/config/expand.h"

#include <algorithm>
#include <limits>
#include <set>

#include "scheduler/config/defaults.h"
#include "util/go_format.h"

namespace ksched::scheduler::config {

namespace {

bool implements(const std::vector<ExtensionPoint>& eps, ExtensionPoint ep) {
  return std::find(eps.begin(), eps.end(), ep) != eps.end();
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

util::Error does_not_exist(std::string_view type, const std::string& plugin) {
  std::string msg(type);
  msg.append(" ").append(util::go_quote(plugin)).append(" does not exist");
  return util::make_error(std::move(msg));
}

util::Error already_registered(std::string_view type, const std::string& plugin) {
  std::string msg("plugin ");
  msg.append(util::go_quote(plugin)).append(" already registered as ").append(util::go_quote(type));
  return util::make_error(std::move(msg));
}

}  // namespace

PluginCapabilities in_tree_capabilities() {
  return [](std::string_view name) -> std::optional<std::vector<ExtensionPoint>> {
    const auto& table = default_plugin_extension_points();
    auto it = table.find(name);
    if (it == table.end()) return std::nullopt;
    return it->second;
  };
}

util::Result<ExpandedPlugins> expand_plugins(const KubeSchedulerProfile& profile,
                                             const PluginCapabilities& caps) {
  ExpandedPlugins out;
  const Plugins& plugins = profile.plugins;
  auto list_of = [&](ExtensionPoint ep) -> std::vector<std::string>& {
    return out.points[static_cast<std::size_t>(ep)];
  };

  // 1. Plugins configured at each specific point (upstream updatePluginList).
  for (ExtensionPoint ep : kSpecificExtensionPoints) {
    const std::string_view type = extension_point_plugin_type(ep);
    auto& list = list_of(ep);
    for (const auto& p : plugins.at(ep).enabled) {
      auto c = caps(p.name);
      if (!c) return does_not_exist(type, p.name);
      if (!implements(*c, ep)) {
        std::string msg("plugin ");
        msg.append(util::go_quote(p.name)).append(" does not extend ").append(type).append(" plugin");
        return util::make_error(std::move(msg));
      }
      if (contains(list, p.name)) return already_registered(type, p.name);
      list.push_back(p.name);
    }
  }

  // 2. multiPoint expansion (upstream expandMultiPointPlugins).
  if (!plugins.multiPoint.enabled.empty()) {
    for (ExtensionPoint ep : kSpecificExtensionPoints) {
      const std::string_view type = extension_point_plugin_type(ep);
      std::set<std::string, std::less<>> disabled;
      for (const auto& d : plugins.at(ep).disabled) disabled.insert(d.name);
      if (disabled.contains("*")) continue;
      const std::vector<std::string> specific = list_of(ep);
      std::vector<std::string> from_multi;
      std::set<std::string, std::less<>> overridden;
      for (const auto& p : plugins.multiPoint.enabled) {
        auto c = caps(p.name);
        if (!c) return does_not_exist(type, p.name);
        if (!implements(*c, ep)) continue;
        if (disabled.contains(p.name)) continue;
        if (contains(specific, p.name)) {
          overridden.insert(p.name);
          continue;
        }
        if (contains(from_multi, p.name)) return already_registered(type, p.name);
        from_multi.push_back(p.name);
      }
      // Order: overridden specific plugins (specific order), then multiPoint ones, then the rest
      // of the specific ones.
      auto& list = list_of(ep);
      list.clear();
      for (const auto& n : specific) {
        if (overridden.contains(n)) list.push_back(n);
      }
      for (auto& n : from_multi) list.push_back(std::move(n));
      for (const auto& n : specific) {
        if (!overridden.contains(n)) list.push_back(n);
      }
    }
  }

  // 3. One queue sort plugin, at least one bind plugin.
  const auto& qs = out.at(ExtensionPoint::QueueSort);
  if (qs.size() != 1) {
    std::string msg("only one queue sort plugin required for profile with scheduler name ");
    msg.append(util::go_quote(profile.schedulerName)).append(", but got ").append(std::to_string(qs.size()));
    return util::make_error(std::move(msg));
  }
  if (out.at(ExtensionPoint::Bind).empty()) {
    std::string msg("at least one bind plugin is needed for profile with scheduler name ");
    msg.append(util::go_quote(profile.schedulerName));
    return util::make_error(std::move(msg));
  }

  // 4. Score weights: specific Score entries win over multiPoint ones (upstream getScoreWeights).
  constexpr std::int64_t kMaxNodeScore = 100;
  constexpr std::int64_t kMaxTotalScore = std::numeric_limits<std::int64_t>::max();
  std::int64_t total = 0;
  std::vector<Plugin> candidates = plugins.score.enabled;
  candidates.insert(candidates.end(), plugins.multiPoint.enabled.begin(), plugins.multiPoint.enabled.end());
  for (const auto& p : candidates) {
    auto c = caps(p.name);
    if (!c || !implements(*c, ExtensionPoint::Score)) continue;
    if (out.weight_of(p.name) != 0) continue;  // seen (stored weights are >= 1)
    std::int32_t w = p.weight.value_or(0);
    if (w == 0) w = 1;
    if (static_cast<std::int64_t>(w) * kMaxNodeScore > kMaxTotalScore - total) {
      return util::make_error("total score of Score plugins could overflow");
    }
    total += static_cast<std::int64_t>(w) * kMaxNodeScore;
    out.score_weights.emplace_back(p.name, w);
  }
  // PlacementScore weights, the same way (a placement's total is bounded as a node's).
  std::vector<Plugin> placement_candidates = plugins.placementScore.enabled;
  placement_candidates.insert(placement_candidates.end(), plugins.multiPoint.enabled.begin(),
                              plugins.multiPoint.enabled.end());
  for (const auto& p : placement_candidates) {
    auto c = caps(p.name);
    if (!c || !implements(*c, ExtensionPoint::PlacementScore)) continue;
    bool seen = false;
    for (const auto& [n, w] : out.placement_score_weights) seen = seen || n == p.name;
    if (seen) continue;
    std::int32_t w = p.weight.value_or(0);
    if (w == 0) w = 1;
    out.placement_score_weights.emplace_back(p.name, w);
  }
  return out;
}

}  // namespace ksched::scheduler::config
