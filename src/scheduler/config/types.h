// Internal form of KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1), after decoding
// and defaulting. Field names follow the v1 JSON names; each struct's describe() beside it is its
// wire form (schema.h), from which decoding, writing and validation paths are driven.
//  - load.h:       YAML/JSON -> KubeSchedulerConfiguration (strict), defaulted and validated.
//  - defaults.h:   upstream defaulting (default plugin set, plugin merge, per-plugin args defaults).
//  - validation.h: upstream validation with field-path messages.
//  - expand.h:     multiPoint expansion into per-extension-point plugin lists (framework init).
//  - write.h:      encode back to v1 YAML (--write-config-to).
#pragma once
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "api/core.h"
#include "scheduler/config/schema.h"

namespace ksched::scheduler::config {

using Duration = std::chrono::nanoseconds;

inline constexpr std::string_view kAPIVersion = "kubescheduler.config.k8s.io/v1";
inline constexpr std::string_view kKind = "KubeSchedulerConfiguration";
inline constexpr std::string_view kDefaultSchedulerName = "default-scheduler";

// ---------------------------------------------------------------- in-tree plugin names
namespace names {
inline constexpr std::string_view SchedulingGates = "SchedulingGates";
inline constexpr std::string_view PrioritySort = "PrioritySort";
inline constexpr std::string_view NodeUnschedulable = "NodeUnschedulable";
inline constexpr std::string_view NodeName = "NodeName";
inline constexpr std::string_view TaintToleration = "TaintToleration";
inline constexpr std::string_view NodeAffinity = "NodeAffinity";
inline constexpr std::string_view NodePorts = "NodePorts";
inline constexpr std::string_view NodeResourcesFit = "NodeResourcesFit";
inline constexpr std::string_view VolumeRestrictions = "VolumeRestrictions";
inline constexpr std::string_view NodeVolumeLimits = "NodeVolumeLimits";
inline constexpr std::string_view VolumeBinding = "VolumeBinding";
inline constexpr std::string_view VolumeZone = "VolumeZone";
inline constexpr std::string_view PodTopologySpread = "PodTopologySpread";
inline constexpr std::string_view InterPodAffinity = "InterPodAffinity";
inline constexpr std::string_view DefaultPreemption = "DefaultPreemption";
inline constexpr std::string_view NodeResourcesBalancedAllocation = "NodeResourcesBalancedAllocation";
inline constexpr std::string_view ImageLocality = "ImageLocality";
inline constexpr std::string_view DefaultBinder = "DefaultBinder";
inline constexpr std::string_view DynamicResources = "DynamicResources";
inline constexpr std::string_view NodeDeclaredFeatures = "NodeDeclaredFeatures";  // with its gate (alpha)
inline constexpr std::string_view GangScheduling = "GangScheduling";              // with its gate (alpha)
// With TopologyAwareWorkloadScheduling (alpha): the pod-group cycle's placement plugins.
inline constexpr std::string_view TopologyPlacement = "TopologyPlacement";
inline constexpr std::string_view PodGroupPodsCount = "PodGroupPodsCount";
}  // namespace names

// ---------------------------------------------------------------- plugins
enum class ExtensionPoint {
  PreEnqueue,
  QueueSort,
  PreFilter,
  Filter,
  PostFilter,
  PreScore,
  Score,
  Reserve,
  Permit,
  PreBind,
  Bind,
  PostBind,
  // The pod-group cycle's (v1.36+, KEP-5732): candidate placements, and their ranking.
  PlacementGenerate,
  PlacementScore,
  MultiPoint,
};
// JSON name of the extension point's field in `plugins` ("preEnqueue", ..., "multiPoint").
std::string_view extension_point_field(ExtensionPoint ep);
// Name used in framework error messages ("PreEnqueuePlugin", "FilterPlugin", ...).
std::string_view extension_point_plugin_type(ExtensionPoint ep);
// All extension points except MultiPoint, in the order of the `plugins` fields.
inline constexpr ExtensionPoint kSpecificExtensionPoints[] = {
    ExtensionPoint::PreEnqueue, ExtensionPoint::QueueSort, ExtensionPoint::PreFilter, ExtensionPoint::Filter,
    ExtensionPoint::PostFilter, ExtensionPoint::PreScore,  ExtensionPoint::Score,     ExtensionPoint::Reserve,
    ExtensionPoint::Permit,     ExtensionPoint::PreBind,   ExtensionPoint::Bind,      ExtensionPoint::PostBind,
    ExtensionPoint::PlacementGenerate, ExtensionPoint::PlacementScore,
};

struct Plugin {
  std::string name;
  std::optional<std::int32_t> weight;  // only for Score and PlacementScore; unset/0 means 1 at framework init
  bool operator==(const Plugin&) const = default;
};
constexpr auto describe(type_tag<Plugin>) {
  return field_list(field("name", &Plugin::name), field("weight", &Plugin::weight));
}

struct PluginSet {
  std::vector<Plugin> enabled;
  std::vector<Plugin> disabled;  // "*" disables every default plugin at this point
  bool operator==(const PluginSet&) const = default;
};
constexpr auto describe(type_tag<PluginSet>) {
  return field_list(field("enabled", &PluginSet::enabled, kOmitEmpty),
                    field("disabled", &PluginSet::disabled, kOmitEmpty | kNamesOnly));
}

struct Plugins {
  PluginSet preEnqueue;
  PluginSet queueSort;
  PluginSet preFilter;
  PluginSet filter;
  PluginSet postFilter;
  PluginSet preScore;
  PluginSet score;
  PluginSet reserve;
  PluginSet permit;
  PluginSet preBind;
  PluginSet bind;
  PluginSet postBind;
  PluginSet placementGenerate;
  PluginSet placementScore;
  PluginSet multiPoint;

  PluginSet& at(ExtensionPoint ep);
  const PluginSet& at(ExtensionPoint ep) const;
  bool operator==(const Plugins&) const = default;
};
constexpr auto describe(type_tag<Plugins>) {
  using T = Plugins;
  return field_list(field("preEnqueue", &T::preEnqueue), field("queueSort", &T::queueSort),
                    field("preFilter", &T::preFilter),   field("filter", &T::filter),
                    field("postFilter", &T::postFilter), field("preScore", &T::preScore),
                    field("score", &T::score),           field("reserve", &T::reserve),
                    field("permit", &T::permit),         field("preBind", &T::preBind),
                    field("bind", &T::bind),             field("postBind", &T::postBind),
                    field("placementGenerate", &T::placementGenerate, kOmitEmpty),
                    field("placementScore", &T::placementScore, kOmitEmpty),
                    field("multiPoint", &T::multiPoint));
}

// ---------------------------------------------------------------- plugin args
// An args type is a v1 kind of its own (kKind), and names the plugin it configures (kPlugin).

struct ResourceSpec {
  std::string name;
  std::int64_t weight = 0;
  bool operator==(const ResourceSpec&) const = default;
};
constexpr auto describe(type_tag<ResourceSpec>) {
  return field_list(field("name", &ResourceSpec::name), field("weight", &ResourceSpec::weight, kOmitEmpty));
}

struct UtilizationShapePoint {
  std::int32_t utilization = 0;  // 0..100
  std::int32_t score = 0;        // 0..10
  bool operator==(const UtilizationShapePoint&) const = default;
};
constexpr auto describe(type_tag<UtilizationShapePoint>) {
  return field_list(field("utilization", &UtilizationShapePoint::utilization),
                    field("score", &UtilizationShapePoint::score));
}

inline std::vector<ResourceSpec> default_resource_spec() { return {{"cpu", 1}, {"memory", 1}}; }

struct DefaultPreemptionArgs {
  static constexpr std::string_view kKind = "DefaultPreemptionArgs";
  static constexpr std::string_view kPlugin = names::DefaultPreemption;
  std::int32_t minCandidateNodesPercentage = 10;
  std::int32_t minCandidateNodesAbsolute = 100;
  bool operator==(const DefaultPreemptionArgs&) const = default;
};
constexpr auto describe(type_tag<DefaultPreemptionArgs>) {
  using T = DefaultPreemptionArgs;
  return field_list(field("minCandidateNodesPercentage", &T::minCandidateNodesPercentage),
                    field("minCandidateNodesAbsolute", &T::minCandidateNodesAbsolute));
}

struct InterPodAffinityArgs {
  static constexpr std::string_view kKind = "InterPodAffinityArgs";
  static constexpr std::string_view kPlugin = names::InterPodAffinity;
  std::int32_t hardPodAffinityWeight = 1;
  bool ignorePreferredTermsOfExistingPods = false;
  bool operator==(const InterPodAffinityArgs&) const = default;
};
constexpr auto describe(type_tag<InterPodAffinityArgs>) {
  using T = InterPodAffinityArgs;
  return field_list(field("hardPodAffinityWeight", &T::hardPodAffinityWeight),
                    field("ignorePreferredTermsOfExistingPods", &T::ignorePreferredTermsOfExistingPods));
}

struct NodeAffinityArgs {
  static constexpr std::string_view kKind = "NodeAffinityArgs";
  static constexpr std::string_view kPlugin = names::NodeAffinity;
  std::optional<api::NodeAffinity> addedAffinity;
};
constexpr auto describe(type_tag<NodeAffinityArgs>) {
  return field_list(field("addedAffinity", &NodeAffinityArgs::addedAffinity, kOmitEmpty));
}

struct NodeResourcesBalancedAllocationArgs {
  static constexpr std::string_view kKind = "NodeResourcesBalancedAllocationArgs";
  static constexpr std::string_view kPlugin = names::NodeResourcesBalancedAllocation;
  std::vector<ResourceSpec> resources = default_resource_spec();
  bool operator==(const NodeResourcesBalancedAllocationArgs&) const = default;
};
constexpr auto describe(type_tag<NodeResourcesBalancedAllocationArgs>) {
  return field_list(field("resources", &NodeResourcesBalancedAllocationArgs::resources, kOmitEmpty));
}

inline constexpr std::string_view kLeastAllocated = "LeastAllocated";
inline constexpr std::string_view kMostAllocated = "MostAllocated";
inline constexpr std::string_view kRequestedToCapacityRatio = "RequestedToCapacityRatio";

struct RequestedToCapacityRatioParam {
  std::vector<UtilizationShapePoint> shape;
  bool operator==(const RequestedToCapacityRatioParam&) const = default;
};
constexpr auto describe(type_tag<RequestedToCapacityRatioParam>) {
  return field_list(field("shape", &RequestedToCapacityRatioParam::shape, kOmitEmpty));
}

// Defaulted as a whole when absent; a given strategy starts from empty fields (kZeroWhenGiven:
// only its resources are defaulted then, in default_args).
struct ScoringStrategy {
  std::string type = std::string(kLeastAllocated);
  std::vector<ResourceSpec> resources = default_resource_spec();
  std::optional<RequestedToCapacityRatioParam> requestedToCapacityRatio;
  bool operator==(const ScoringStrategy&) const = default;
};
constexpr auto describe(type_tag<ScoringStrategy>) {
  using T = ScoringStrategy;
  return field_list(field("type", &T::type, kOmitEmpty), field("resources", &T::resources, kOmitEmpty),
                    field("requestedToCapacityRatio", &T::requestedToCapacityRatio, kOmitEmpty));
}

struct NodeResourcesFitArgs {
  static constexpr std::string_view kKind = "NodeResourcesFitArgs";
  static constexpr std::string_view kPlugin = names::NodeResourcesFit;
  std::vector<std::string> ignoredResources;
  std::vector<std::string> ignoredResourceGroups;
  ScoringStrategy scoringStrategy;
  bool operator==(const NodeResourcesFitArgs&) const = default;
};
constexpr auto describe(type_tag<NodeResourcesFitArgs>) {
  using T = NodeResourcesFitArgs;
  return field_list(field("ignoredResources", &T::ignoredResources, kOmitEmpty),
                    field("ignoredResourceGroups", &T::ignoredResourceGroups, kOmitEmpty),
                    field("scoringStrategy", &T::scoringStrategy, kZeroWhenGiven));
}

inline constexpr std::string_view kSystemDefaulting = "System";
inline constexpr std::string_view kListDefaulting = "List";

struct PodTopologySpreadArgs {
  static constexpr std::string_view kKind = "PodTopologySpreadArgs";
  static constexpr std::string_view kPlugin = names::PodTopologySpread;
  std::vector<api::TopologySpreadConstraint> defaultConstraints;
  std::string defaultingType = std::string(kSystemDefaulting);
};
constexpr auto describe(type_tag<PodTopologySpreadArgs>) {
  return field_list(field("defaultConstraints", &PodTopologySpreadArgs::defaultConstraints, kOmitEmpty),
                    field("defaultingType", &PodTopologySpreadArgs::defaultingType, kOmitEmpty));
}

struct VolumeBindingArgs {
  static constexpr std::string_view kKind = "VolumeBindingArgs";
  static constexpr std::string_view kPlugin = names::VolumeBinding;
  std::int64_t bindTimeoutSeconds = 600;
  std::vector<UtilizationShapePoint> shape;  // only with the VolumeCapacityPriority gate (off)
  bool operator==(const VolumeBindingArgs&) const = default;
};
constexpr auto describe(type_tag<VolumeBindingArgs>) {
  return field_list(field("bindTimeoutSeconds", &VolumeBindingArgs::bindTimeoutSeconds),
                    field("shape", &VolumeBindingArgs::shape, kOmitEmpty));
}

// DRASchedulerFilterTimeout is beta (on) in v1.35: filterTimeout defaults to 10s, 0 turns the
// limit off. bindingTimeout (how long PreBind waits for devices' binding conditions) needs
// DRADeviceBindingConditions (alpha, off) and DRAResourceClaimDeviceStatus (beta, on): with both
// it defaults to 600s (kDynamicResourcesBindingTimeoutDefault) and must be at least 1s; else it
// stays unset and validation forbids it.
inline constexpr std::chrono::seconds kDynamicResourcesBindingTimeoutDefault{600};
struct DynamicResourcesArgs {
  static constexpr std::string_view kKind = "DynamicResourcesArgs";
  static constexpr std::string_view kPlugin = names::DynamicResources;
  std::optional<Duration> filterTimeout = std::chrono::seconds(10);
  std::optional<Duration> bindingTimeout;
  bool operator==(const DynamicResourcesArgs&) const = default;
};
constexpr auto describe(type_tag<DynamicResourcesArgs>) {
  return field_list(field("filterTimeout", &DynamicResourcesArgs::filterTimeout, kOmitEmpty),
                    field("bindingTimeout", &DynamicResourcesArgs::bindingTimeout, kOmitEmpty));
}

// Args of a plugin without an in-tree args type (out-of-tree plugins): the JSON text as given.
struct UnknownArgs {
  std::string json;  // "" when no args were given
  bool operator==(const UnknownArgs&) const = default;
};

using PluginArgs = std::variant<std::monostate, DefaultPreemptionArgs, InterPodAffinityArgs, NodeAffinityArgs,
                                NodeResourcesBalancedAllocationArgs, NodeResourcesFitArgs, PodTopologySpreadArgs,
                                VolumeBindingArgs, DynamicResourcesArgs, UnknownArgs>;

struct PluginConfig {
  std::string name;
  PluginArgs args;
};
constexpr auto describe(type_tag<PluginConfig>) {
  return field_list(field("name", &PluginConfig::name), field("args", &PluginConfig::args, kOmitEmpty));
}

// ---------------------------------------------------------------- profile
struct KubeSchedulerProfile {
  std::string schedulerName;
  std::optional<std::int32_t> percentageOfNodesToScore;
  Plugins plugins;
  std::vector<PluginConfig> pluginConfig;

  // The args given for plugin `name`, or nullptr when there is no entry or it holds another type.
  template <class A>
  const A* args_for(std::string_view name) const {
    for (const auto& pc : pluginConfig) {
      if (pc.name == name) return std::get_if<A>(&pc.args);
    }
    return nullptr;
  }
  const PluginArgs* raw_args_for(std::string_view name) const {
    for (const auto& pc : pluginConfig) {
      if (pc.name == name) return &pc.args;
    }
    return nullptr;
  }
};
constexpr auto describe(type_tag<KubeSchedulerProfile>) {
  using T = KubeSchedulerProfile;
  return field_list(field("schedulerName", &T::schedulerName, kOmitEmpty),
                    field("percentageOfNodesToScore", &T::percentageOfNodesToScore, kOmitEmpty),
                    field("plugins", &T::plugins), field("pluginConfig", &T::pluginConfig, kOmitEmpty));
}

// ---------------------------------------------------------------- extenders
struct ExtenderTLSConfig {
  bool insecure = false;
  std::string serverName;
  std::string certFile;
  std::string keyFile;
  std::string caFile;
  std::string certData;  // raw bytes (base64 on the wire)
  std::string keyData;
  std::string caData;
  bool operator==(const ExtenderTLSConfig&) const = default;
};
constexpr auto describe(type_tag<ExtenderTLSConfig>) {
  using T = ExtenderTLSConfig;
  return field_list(field("insecure", &T::insecure, kOmitEmpty),     field("serverName", &T::serverName, kOmitEmpty),
                    field("certFile", &T::certFile, kOmitEmpty),     field("keyFile", &T::keyFile, kOmitEmpty),
                    field("caFile", &T::caFile, kOmitEmpty),         field("certData", &T::certData, kOmitEmpty | kBase64),
                    field("keyData", &T::keyData, kOmitEmpty | kBase64), field("caData", &T::caData, kOmitEmpty | kBase64));
}

struct ExtenderManagedResource {
  std::string name;
  bool ignoredByScheduler = false;
  bool operator==(const ExtenderManagedResource&) const = default;
};
constexpr auto describe(type_tag<ExtenderManagedResource>) {
  return field_list(field("name", &ExtenderManagedResource::name),
                    field("ignoredByScheduler", &ExtenderManagedResource::ignoredByScheduler, kOmitEmpty));
}

inline constexpr Duration kDefaultExtenderTimeout = std::chrono::seconds(5);

struct Extender {
  std::string urlPrefix;
  std::string filterVerb;
  std::string preemptVerb;
  std::string prioritizeVerb;
  std::int64_t weight = 0;  // prioritize weight; validation requires > 0 when prioritizeVerb is set
  std::string bindVerb;
  bool enableHTTPS = false;
  std::optional<ExtenderTLSConfig> tlsConfig;
  Duration httpTimeout{0};  // defaulted to 5s when 0
  bool nodeCacheCapable = false;
  std::vector<ExtenderManagedResource> managedResources;
  bool ignorable = false;
  bool operator==(const Extender&) const = default;
};
constexpr auto describe(type_tag<Extender>) {
  using T = Extender;
  return field_list(field("urlPrefix", &T::urlPrefix),
                    field("filterVerb", &T::filterVerb, kOmitEmpty),
                    field("preemptVerb", &T::preemptVerb, kOmitEmpty),
                    field("prioritizeVerb", &T::prioritizeVerb, kOmitEmpty),
                    field("weight", &T::weight, kOmitEmpty),
                    field("bindVerb", &T::bindVerb, kOmitEmpty),
                    field("enableHTTPS", &T::enableHTTPS, kOmitEmpty),
                    field("tlsConfig", &T::tlsConfig, kOmitEmpty),
                    field("httpTimeout", &T::httpTimeout),
                    field("nodeCacheCapable", &T::nodeCacheCapable, kOmitEmpty),
                    field("managedResources", &T::managedResources, kOmitEmpty),
                    field("ignorable", &T::ignorable, kOmitEmpty));
}

// ---------------------------------------------------------------- top level
struct LeaderElectionConfiguration {
  bool leaderElect = true;
  Duration leaseDuration = std::chrono::seconds(15);
  Duration renewDeadline = std::chrono::seconds(10);
  Duration retryPeriod = std::chrono::seconds(2);
  std::string resourceLock = "leases";
  std::string resourceName = "kube-scheduler";
  std::string resourceNamespace = "kube-system";
  bool operator==(const LeaderElectionConfiguration&) const = default;
};
constexpr auto describe(type_tag<LeaderElectionConfiguration>) {
  using T = LeaderElectionConfiguration;
  return field_list(field("leaderElect", &T::leaderElect),     field("leaseDuration", &T::leaseDuration),
                    field("renewDeadline", &T::renewDeadline), field("retryPeriod", &T::retryPeriod),
                    field("resourceLock", &T::resourceLock),   field("resourceName", &T::resourceName),
                    field("resourceNamespace", &T::resourceNamespace));
}

struct ClientConnectionConfiguration {
  std::string kubeconfig;
  std::string acceptContentTypes;
  std::string contentType = "application/vnd.kubernetes.protobuf";
  float qps = 50;
  std::int32_t burst = 100;
  bool operator==(const ClientConnectionConfiguration&) const = default;
};
constexpr auto describe(type_tag<ClientConnectionConfiguration>) {
  using T = ClientConnectionConfiguration;
  return field_list(field("kubeconfig", &T::kubeconfig), field("acceptContentTypes", &T::acceptContentTypes),
                    field("contentType", &T::contentType), field("qps", &T::qps), field("burst", &T::burst));
}

struct KubeSchedulerConfiguration {
  static constexpr std::string_view kKind = config::kKind;
  std::int32_t parallelism = 16;
  LeaderElectionConfiguration leaderElection;
  ClientConnectionConfiguration clientConnection;
  bool enableProfiling = true;
  bool enableContentionProfiling = true;
  std::optional<std::int32_t> percentageOfNodesToScore;  // 0 or unset = adaptive
  std::int64_t podInitialBackoffSeconds = 1;
  std::int64_t podMaxBackoffSeconds = 10;
  std::vector<KubeSchedulerProfile> profiles;
  std::vector<Extender> extenders;
  bool delayCacheUntilActive = false;
};
// v1 has no healthzBindAddress or metricsBindAddress: given, they are unknown fields.
constexpr auto describe(type_tag<KubeSchedulerConfiguration>) {
  using T = KubeSchedulerConfiguration;
  return field_list(field("parallelism", &T::parallelism),
                    field("leaderElection", &T::leaderElection),
                    field("clientConnection", &T::clientConnection),
                    field("enableProfiling", &T::enableProfiling),
                    field("enableContentionProfiling", &T::enableContentionProfiling),
                    field("percentageOfNodesToScore", &T::percentageOfNodesToScore, kOmitEmpty),
                    field("podInitialBackoffSeconds", &T::podInitialBackoffSeconds),
                    field("podMaxBackoffSeconds", &T::podMaxBackoffSeconds),
                    field("profiles", &T::profiles, kOmitEmpty),
                    field("extenders", &T::extenders, kOmitEmpty),
                    field("delayCacheUntilActive", &T::delayCacheUntilActive, kOmitEmpty));
}

}  // namespace ksched::scheduler::config
