#include "scheduler/config/expand.h"

#include <algorithm>
#include <limits>
#include <set>

#include "scheduler/config/defaults.h"

namespace ksched::scheduler::config {

namespace {

// Upstream's getExtensionPoints order, which decides which error is reported first.
constexpr ExtensionPoint kFrameworkOrder[] = {
    ExtensionPoint::PreFilter, ExtensionPoint::Filter,   ExtensionPoint::PostFilter, ExtensionPoint::Reserve,
    ExtensionPoint::PreScore,  ExtensionPoint::Score,    ExtensionPoint::PreBind,    ExtensionPoint::Bind,
    ExtensionPoint::PostBind,  ExtensionPoint::Permit,   ExtensionPoint::PreEnqueue, ExtensionPoint::QueueSort,
};

bool implements(const std::vector<ExtensionPoint>& eps, ExtensionPoint ep) {
  return std::find(eps.begin(), eps.end(), ep) != eps.end();
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

util::Result<ExpandedPlugins> expand_plugins(const KubeSchedulerProfile& profile, const PluginCapabilities& caps) {
  ExpandedPlugins out;
  const Plugins& plugins = profile.plugins;
  for (ExtensionPoint ep : kFrameworkOrder) {
    const PluginSet& set = plugins.at(ep);
    std::string type(extension_point_plugin_type(ep));
    auto& list = out.points[static_cast<std::size_t>(ep)];

    // Plugins configured at this specific point.
    std::vector<std::string> specific;
    for (const auto& p : set.enabled) {
      auto c = caps(p.name);
      if (!c) return util::make_error(type + " \"" + p.name + "\" does not exist");
      if (!implements(*c, ep)) return util::make_error("plugin \"" + p.name + "\" does not extend " + type + " plugin");
      if (std::find(specific.begin(), specific.end(), p.name) != specific.end()) {
        return util::make_error("plugin \"" + p.name + "\" already registered as \"" + type + "\"");
      }
      specific.push_back(p.name);
    }

    std::set<std::string, std::less<>> disabled;
    for (const auto& p : set.disabled) disabled.insert(p.name);
    if (plugins.multiPoint.enabled.empty() || disabled.contains("*")) {
      list = std::move(specific);
      continue;
    }

    std::vector<std::string> from_multi;
    std::set<std::string, std::less<>> overridden;
    for (const auto& p : plugins.multiPoint.enabled) {
      auto c = caps(p.name);
      if (!c) return util::make_error(type + " \"" + p.name + "\" does not exist");
      if (!implements(*c, ep)) continue;
      if (disabled.contains(p.name)) continue;
      if (std::find(specific.begin(), specific.end(), p.name) != specific.end()) {
        overridden.insert(p.name);
        continue;
      }
      if (std::find(from_multi.begin(), from_multi.end(), p.name) != from_multi.end()) {
        return util::make_error("plugin \"" + p.name + "\" already registered as \"" + type + "\"");
      }
      from_multi.push_back(p.name);
    }
    // Order: overridden specific plugins (specific order), then multiPoint ones, then the rest
    // of the specific ones.
    for (const auto& n : specific) {
      if (overridden.contains(n)) list.push_back(n);
    }
    for (auto& n : from_multi) list.push_back(std::move(n));
    for (const auto& n : specific) {
      if (!overridden.contains(n)) list.push_back(n);
    }
  }

  // Score weights: specific Score entries win over multiPoint ones.
  constexpr std::int64_t kMaxNodeScore = 100;
  constexpr std::int64_t kMaxTotalScore = std::numeric_limits<std::int64_t>::max();
  std::int64_t total = 0;
  std::vector<Plugin> candidates = plugins.score.enabled;
  candidates.insert(candidates.end(), plugins.multiPoint.enabled.begin(), plugins.multiPoint.enabled.end());
  for (const auto& p : candidates) {
    auto c = caps(p.name);
    if (!c || !implements(*c, ExtensionPoint::Score)) continue;
    bool seen = std::any_of(out.score_weights.begin(), out.score_weights.end(),
                            [&](const auto& e) { return e.first == p.name; });
    if (seen) continue;
    std::int32_t w = p.weight.value_or(0);
    if (w == 0) w = 1;
    if (static_cast<std::int64_t>(w) * kMaxNodeScore > kMaxTotalScore - total) {
      return util::make_error("total score of Score plugins could overflow");
    }
    total += static_cast<std::int64_t>(w) * kMaxNodeScore;
    out.score_weights.emplace_back(p.name, w);
  }

  const auto& qs = out.at(ExtensionPoint::QueueSort);
  if (qs.size() != 1) {
    return util::make_error("only one queue sort plugin required for profile with scheduler name \"" +
                            profile.schedulerName + "\", but got " + std::to_string(qs.size()));
  }
  if (out.at(ExtensionPoint::Bind).empty()) {
    return util::make_error("at least one bind plugin is needed for profile with scheduler name \"" +
                            profile.schedulerName + "\"");
  }
  return out;
}

}  // namespace ksched::scheduler::config
