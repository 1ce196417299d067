// Internal form of KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1), after decoding
// and defaulting. Field names follow the v1 JSON names so the YAML/JSON mapping is obvious.
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
inline constexpr std::string_view DynamicResources = "DynamicResources";  // in-tree, off by default
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
};

struct Plugin {
  std::string name;
  std::optional<std::int32_t> weight;  // only meaningful for Score; unset/0 means 1 at framework init
  bool operator==(const Plugin&) const = default;
};

struct PluginSet {
  std::vector<Plugin> enabled;
  std::vector<Plugin> disabled;  // "*" disables every default plugin at this point
  bool operator==(const PluginSet&) const = default;
};

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
  PluginSet multiPoint;

  PluginSet& at(ExtensionPoint ep);
  const PluginSet& at(ExtensionPoint ep) const;
  bool operator==(const Plugins&) const = default;
};

// ---------------------------------------------------------------- plugin args
struct ResourceSpec {
  std::string name;
  std::int64_t weight = 0;
  bool operator==(const ResourceSpec&) const = default;
};

struct UtilizationShapePoint {
  std::int32_t utilization = 0;  // 0..100
  std::int32_t score = 0;        // 0..10
  bool operator==(const UtilizationShapePoint&) const = default;
};

inline std::vector<ResourceSpec> default_resource_spec() { return {{"cpu", 1}, {"memory", 1}}; }

struct DefaultPreemptionArgs {
  std::int32_t minCandidateNodesPercentage = 10;
  std::int32_t minCandidateNodesAbsolute = 100;
  bool operator==(const DefaultPreemptionArgs&) const = default;
};

struct InterPodAffinityArgs {
  std::int32_t hardPodAffinityWeight = 1;
  bool ignorePreferredTermsOfExistingPods = false;
  bool operator==(const InterPodAffinityArgs&) const = default;
};

struct NodeAffinityArgs {
  std::optional<api::NodeAffinity> addedAffinity;
};

struct NodeResourcesBalancedAllocationArgs {
  std::vector<ResourceSpec> resources = default_resource_spec();
  bool operator==(const NodeResourcesBalancedAllocationArgs&) const = default;
};

inline constexpr std::string_view kLeastAllocated = "LeastAllocated";
inline constexpr std::string_view kMostAllocated = "MostAllocated";
inline constexpr std::string_view kRequestedToCapacityRatio = "RequestedToCapacityRatio";

struct RequestedToCapacityRatioParam {
  std::vector<UtilizationShapePoint> shape;
  bool operator==(const RequestedToCapacityRatioParam&) const = default;
};

struct ScoringStrategy {
  std::string type = std::string(kLeastAllocated);
  std::vector<ResourceSpec> resources = default_resource_spec();
  std::optional<RequestedToCapacityRatioParam> requestedToCapacityRatio;
  bool operator==(const ScoringStrategy&) const = default;
};

struct NodeResourcesFitArgs {
  std::vector<std::string> ignoredResources;
  std::vector<std::string> ignoredResourceGroups;
  ScoringStrategy scoringStrategy;
  bool operator==(const NodeResourcesFitArgs&) const = default;
};

inline constexpr std::string_view kSystemDefaulting = "System";
inline constexpr std::string_view kListDefaulting = "List";

struct PodTopologySpreadArgs {
  std::vector<api::TopologySpreadConstraint> defaultConstraints;
  std::string defaultingType = std::string(kSystemDefaulting);
};

struct VolumeBindingArgs {
  std::int64_t bindTimeoutSeconds = 600;
  std::vector<UtilizationShapePoint> shape;  // only with the VolumeCapacityPriority gate (off)
  bool operator==(const VolumeBindingArgs&) const = default;
};

// Args of a plugin without an in-tree args type (out-of-tree plugins): the JSON text as given.
struct UnknownArgs {
  std::string json;  // "" when no args were given
  bool operator==(const UnknownArgs&) const = default;
};

using PluginArgs = std::variant<std::monostate, DefaultPreemptionArgs, InterPodAffinityArgs, NodeAffinityArgs,
                                NodeResourcesBalancedAllocationArgs, NodeResourcesFitArgs, PodTopologySpreadArgs,
                                VolumeBindingArgs, UnknownArgs>;

struct PluginConfig {
  std::string name;
  PluginArgs args;
};

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

struct ExtenderManagedResource {
  std::string name;
  bool ignoredByScheduler = false;
  bool operator==(const ExtenderManagedResource&) const = default;
};

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

struct ClientConnectionConfiguration {
  std::string kubeconfig;
  std::string acceptContentTypes;
  std::string contentType = "application/vnd.kubernetes.protobuf";
  float qps = 50;
  std::int32_t burst = 100;
  bool operator==(const ClientConnectionConfiguration&) const = default;
};

struct KubeSchedulerConfiguration {
  std::int32_t parallelism = 16;
  LeaderElectionConfiguration leaderElection;
  ClientConnectionConfiguration clientConnection;
  std::string healthzBindAddress;  // deprecated; must stay empty in v1
  std::string metricsBindAddress;  // deprecated; must stay empty in v1
  bool enableProfiling = true;
  bool enableContentionProfiling = true;
  std::optional<std::int32_t> percentageOfNodesToScore;  // 0 or unset = adaptive
  std::int64_t podInitialBackoffSeconds = 1;
  std::int64_t podMaxBackoffSeconds = 10;
  std::vector<KubeSchedulerProfile> profiles;
  std::vector<Extender> extenders;
  bool delayCacheUntilActive = false;
};

}  // namespace ksched::scheduler::config
