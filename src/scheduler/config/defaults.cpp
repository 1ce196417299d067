#include "scheduler/config/defaults.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "scheduler/config/features.h"

namespace ksched::scheduler::config {

Plugins default_plugins() {
  Plugins p;
  auto add = [&](std::string_view name, std::optional<std::int32_t> weight = std::nullopt) {
    p.multiPoint.enabled.push_back(Plugin{std::string(name), weight});
  };
  // v1.35 order (getDefaultPlugins, with applyDynamicResources: DRA is GA and on, so
  // DynamicResources goes right before DefaultPreemption with weight 2). The in-tree non-CSI
  // volume-limit plugins are gone.
  add(names::SchedulingGates);
  add(names::PrioritySort);
  add(names::NodeUnschedulable);
  add(names::NodeName);
  add(names::TaintToleration, 3);
  add(names::NodeAffinity, 2);
  add(names::NodePorts);
  add(names::NodeResourcesFit, 1);
  add(names::VolumeRestrictions);
  add(names::NodeVolumeLimits);
  add(names::VolumeBinding);
  add(names::VolumeZone);
  add(names::PodTopologySpread, 2);
  add(names::InterPodAffinity, 2);
  add(names::DynamicResources, 2);
  add(names::DefaultPreemption);
  add(names::NodeResourcesBalancedAllocation, 1);
  add(names::ImageLocality, 1);
  add(names::DefaultBinder);
  // Upstream applyFeatureGates: appended after the others.
  if (features().nodeDeclaredFeatures) add(names::NodeDeclaredFeatures);
  if (features().gangScheduling) add(names::GangScheduling);
  // The pod-group cycle's placement plugins (ksched's reading of v1.36: the gate's plugins join
  // the default profile as GangScheduling does; NodeResourcesFit, already there, scores
  // placements too).
  if (features().topologyAwareWorkloadScheduling) {
    add(names::TopologyPlacement);
    add(names::PodGroupPodsCount, 1);
  }
  return p;
}

const std::map<std::string, std::vector<ExtensionPoint>, std::less<>>& default_plugin_extension_points() {
  using E = ExtensionPoint;
  static const std::map<std::string, std::vector<ExtensionPoint>, std::less<>> table = {
      {std::string(names::SchedulingGates), {E::PreEnqueue}},
      {std::string(names::PrioritySort), {E::QueueSort}},
      {std::string(names::NodeUnschedulable), {E::Filter}},
      {std::string(names::NodeName), {E::Filter}},
      {std::string(names::TaintToleration), {E::Filter, E::PreScore, E::Score}},
      {std::string(names::NodeAffinity), {E::PreFilter, E::Filter, E::PreScore, E::Score}},
      {std::string(names::NodePorts), {E::PreFilter, E::Filter}},
      {std::string(names::NodeResourcesFit), {E::PreFilter, E::Filter, E::PreScore, E::Score, E::PlacementScore}},
      {std::string(names::VolumeRestrictions), {E::PreFilter, E::Filter}},
      {std::string(names::NodeVolumeLimits), {E::PreFilter, E::Filter}},
      {std::string(names::VolumeBinding), {E::PreFilter, E::Filter, E::PreScore, E::Score, E::Reserve, E::PreBind}},
      {std::string(names::VolumeZone), {E::PreFilter, E::Filter}},
      {std::string(names::PodTopologySpread), {E::PreFilter, E::Filter, E::PreScore, E::Score}},
      {std::string(names::InterPodAffinity), {E::PreFilter, E::Filter, E::PreScore, E::Score}},
      // Its PreEnqueue gates a preemptor while its async preemption runs (SchedulerAsyncPreemption).
      {std::string(names::DefaultPreemption), {E::PreEnqueue, E::PostFilter}},
      {std::string(names::NodeResourcesBalancedAllocation), {E::PreScore, E::Score}},
      {std::string(names::ImageLocality), {E::Score}},
      {std::string(names::DefaultBinder), {E::Bind}},
      {std::string(names::NodeDeclaredFeatures), {E::PreFilter, E::Filter}},
      // PlacementFeasible too, which is not a configurable extension point here.
      {std::string(names::GangScheduling), {E::PreEnqueue}},
      {std::string(names::TopologyPlacement), {E::PlacementGenerate}},
      {std::string(names::PodGroupPodsCount), {E::PlacementScore}},
      {std::string(names::DynamicResources),
       {E::PreEnqueue, E::PreFilter, E::Filter, E::PostFilter, E::Score, E::Reserve, E::PreBind}},
  };
  return table;
}

PluginSet merge_plugin_set(const PluginSet& defaults, const PluginSet& custom) {
  PluginSet out;
  std::unordered_set<std::string> disabled;
  for (const auto& p : custom.disabled) {
    out.disabled.push_back(Plugin{p.name, std::nullopt});
    disabled.insert(p.name);
  }
  // Defaults may disable a plugin at one point while enabling it via multiPoint.
  for (const auto& p : defaults.disabled) {
    out.disabled.push_back(Plugin{p.name, std::nullopt});
    disabled.insert(p.name);
  }
  // Last custom entry for a name wins the in-place replacement; others are appended (and the
  // duplicate is reported at framework init).
  std::unordered_map<std::string, std::size_t> custom_index;
  for (std::size_t i = 0; i < custom.enabled.size(); ++i) custom_index[custom.enabled[i].name] = i;
  std::vector<bool> replaced(custom.enabled.size(), false);
  if (!disabled.contains("*")) {
    for (const auto& d : defaults.enabled) {
      if (disabled.contains(d.name)) continue;
      auto it = custom_index.find(d.name);
      if (it != custom_index.end()) {
        out.enabled.push_back(custom.enabled[it->second]);  // keeps the default's position
        replaced[it->second] = true;
      } else {
        out.enabled.push_back(d);
      }
    }
  }
  for (std::size_t i = 0; i < custom.enabled.size(); ++i) {
    if (!replaced[i]) out.enabled.push_back(custom.enabled[i]);
  }
  return out;
}

Plugins merge_plugins(const Plugins& defaults, const Plugins& custom) {
  Plugins out;
  out.multiPoint = merge_plugin_set(defaults.multiPoint, custom.multiPoint);
  for (ExtensionPoint ep : kSpecificExtensionPoints) out.at(ep) = merge_plugin_set(defaults.at(ep), custom.at(ep));
  return out;
}

PluginArgs default_args_for(std::string_view name) {
  PluginArgs out;
  // The args type that names the plugin (kPlugin), with its defaults.
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (
        [&] {
          using A = std::variant_alternative_t<I, PluginArgs>;
          if constexpr (requires { A::kPlugin; }) {
            if (A::kPlugin == name) out = A{};
          }
        }(),
        ...);
  }(std::make_index_sequence<std::variant_size_v<PluginArgs>>{});
  // Upstream defaults the args it adds too; only DynamicResourcesArgs has a default that its
  // member initializers cannot give (it depends on the feature gates).
  if (std::holds_alternative<DynamicResourcesArgs>(out)) default_args(out);
  return out;
}

namespace {

void default_weights(std::vector<ResourceSpec>& resources) {
  if (resources.empty()) {
    resources = default_resource_spec();
    return;
  }
  for (auto& r : resources) {
    if (r.weight == 0) r.weight = 1;
  }
}

// The defaults that depend on what was given (the rest are the args types' member initializers).
void set_args_defaults(NodeResourcesBalancedAllocationArgs& a) { default_weights(a.resources); }
void set_args_defaults(NodeResourcesFitArgs& a) { default_weights(a.scoringStrategy.resources); }
// Upstream SetDefaults_DynamicResourcesArgs: bindingTimeout only with both binding gates.
void set_args_defaults(DynamicResourcesArgs& a) {
  if (!a.bindingTimeout && features().draDeviceBindingAndStatus()) a.bindingTimeout = kDynamicResourcesBindingTimeoutDefault;
}
void set_args_defaults(PodTopologySpreadArgs& a) {
  if (a.defaultingType.empty()) a.defaultingType = std::string(kSystemDefaulting);
}

}  // namespace

void default_args(PluginArgs& args) {
  std::visit(
      [](auto& a) {
        if constexpr (requires { set_args_defaults(a); }) set_args_defaults(a);
      },
      args);
}

void set_profile_defaults(KubeSchedulerProfile& profile) {
  profile.plugins = merge_plugins(default_plugins(), profile.plugins);
  std::set<std::string, std::less<>> existing;
  for (auto& pc : profile.pluginConfig) {
    existing.insert(pc.name);
    default_args(pc.args);
  }
  // Every enabled plugin name at any point (sorted, as upstream's sets.List).
  std::set<std::string, std::less<>> enabled;
  for (const auto& p : profile.plugins.multiPoint.enabled) enabled.insert(p.name);
  for (ExtensionPoint ep : kSpecificExtensionPoints) {
    for (const auto& p : profile.plugins.at(ep).enabled) enabled.insert(p.name);
  }
  for (const auto& name : enabled) {
    if (existing.contains(name)) continue;
    PluginArgs args = default_args_for(name);
    if (std::holds_alternative<std::monostate>(args)) continue;  // out-of-tree or no args type
    profile.pluginConfig.push_back(PluginConfig{name, std::move(args)});
  }
}

void set_defaults(KubeSchedulerConfiguration& cfg) {
  if (cfg.profiles.empty()) cfg.profiles.emplace_back();
  if (cfg.profiles.size() == 1 && cfg.profiles[0].schedulerName.empty()) {
    cfg.profiles[0].schedulerName = std::string(kDefaultSchedulerName);
  }
  for (auto& p : cfg.profiles) set_profile_defaults(p);
  if (!cfg.percentageOfNodesToScore) cfg.percentageOfNodesToScore = 0;
  if (cfg.leaderElection.resourceLock.empty()) cfg.leaderElection.resourceLock = "leases";
  if (cfg.leaderElection.resourceNamespace.empty()) cfg.leaderElection.resourceNamespace = "kube-system";
  if (cfg.leaderElection.resourceName.empty()) cfg.leaderElection.resourceName = "kube-scheduler";
  if (cfg.clientConnection.contentType.empty()) cfg.clientConnection.contentType = "application/vnd.kubernetes.protobuf";
  if (cfg.clientConnection.qps == 0.0F) cfg.clientConnection.qps = 50;
  if (cfg.clientConnection.burst == 0) cfg.clientConnection.burst = 100;
  // Zero durations are "unset" for component-base's recommended leader-election defaults.
  if (cfg.leaderElection.leaseDuration == Duration::zero()) cfg.leaderElection.leaseDuration = std::chrono::seconds(15);
  if (cfg.leaderElection.renewDeadline == Duration::zero()) cfg.leaderElection.renewDeadline = std::chrono::seconds(10);
  if (cfg.leaderElection.retryPeriod == Duration::zero()) cfg.leaderElection.retryPeriod = std::chrono::seconds(2);
}

KubeSchedulerConfiguration default_configuration() {
  KubeSchedulerConfiguration cfg;
  set_defaults(cfg);
  return cfg;
}

}  // namespace ksched::scheduler::config
