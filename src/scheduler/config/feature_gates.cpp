#include "scheduler/config/feature_gates.h"

#include <algorithm>
#include <array>

namespace ksched::scheduler::config {

namespace {

using Stage = FeatureStage;

// Generated from upstream v1.35.4's versioned feature specs (the newest spec at or before 1.35 of
// each gate). Names and states are facts of that release; keep sorted.
constexpr FeatureSpec kGates[] = {
    {"APIResponseCompression", true, Stage::Beta, false},
    {"APIServerIdentity", true, Stage::Beta, false},
    {"APIServerTracing", true, Stage::GA, true},
    {"APIServingWithRoutine", false, Stage::Alpha, false},
    {"AggregatedDiscoveryRemoveBetaType", true, Stage::Deprecated, true},
    {"AllAlpha", false, Stage::Alpha, false},
    {"AllBeta", false, Stage::Beta, false},
    {"AllowDNSOnlyNodeCSR", false, Stage::Deprecated, false},
    {"AllowInsecureKubeletCertificateSigningRequests", false, Stage::Deprecated, false},
    {"AllowOverwriteTerminationGracePeriodSeconds", false, Stage::Deprecated, true},
    {"AllowParsingUserUIDFromCertAuth", true, Stage::Beta, false},
    {"AllowUnsafeMalformedObjectDeletion", false, Stage::Alpha, false},
    {"AnonymousAuthConfigurableEndpoints", true, Stage::GA, true},
    {"AnyVolumeDataSource", true, Stage::GA, true},
    {"AuthorizeNodeWithSelectors", true, Stage::GA, true},
    {"AuthorizePodWebsocketUpgradeCreatePermission", true, Stage::Beta, false},
    {"AuthorizeWithSelectors", true, Stage::GA, true},
    {"BtreeWatchCache", true, Stage::GA, true},
    {"CBORServingAndStorage", false, Stage::Alpha, false},
    {"CPUCFSQuotaPeriod", false, Stage::Alpha, false},
    {"CPUManagerPolicyAlphaOptions", false, Stage::Alpha, false},
    {"CPUManagerPolicyBetaOptions", true, Stage::Beta, false},
    {"CPUManagerPolicyOptions", true, Stage::GA, true},
    {"CRDObservedGenerationTracking", false, Stage::Beta, false},
    {"CRDValidationRatcheting", true, Stage::GA, true},
    {"CSIMigrationPortworx", true, Stage::GA, true},
    {"CSIServiceAccountTokenSecrets", true, Stage::Beta, false},
    {"CSIVolumeHealth", false, Stage::Alpha, false},
    {"ChangeContainerStatusOnKubeletRestart", false, Stage::Deprecated, false},
    {"ClearingNominatedNodeNameAfterBinding", true, Stage::Beta, false},
    {"ClientsAllowCBOR", false, Stage::Alpha, false},
    {"ClientsPreferCBOR", false, Stage::Alpha, false},
    {"CloudControllerManagerWatchBasedRoutesReconciliation", false, Stage::Alpha, false},
    {"CloudControllerManagerWebhook", false, Stage::Alpha, false},
    {"ClusterTrustBundle", false, Stage::Beta, false},
    {"ClusterTrustBundleProjection", false, Stage::Beta, false},
    {"ComponentFlagz", false, Stage::Alpha, false},
    {"ComponentStatusz", false, Stage::Alpha, false},
    // Not a v1.35 gate: v1.37's (alpha, off), for CompositePodGroup hierarchies (KEP-6012, issue #44).
    {"CompositePodGroup", false, Stage::Alpha, false},
    {"ConcurrentWatchObjectDecode", false, Stage::Beta, false},
    {"ConsistentListFromCache", true, Stage::GA, true},
    {"ConstrainedImpersonation", false, Stage::Alpha, false},
    {"ContainerCheckpoint", true, Stage::Beta, false},
    {"ContainerRestartRules", true, Stage::Beta, false},
    {"ContainerStopSignals", false, Stage::Alpha, false},
    {"ContextualLogging", true, Stage::Beta, false},
    {"CoordinatedLeaderElection", false, Stage::Beta, false},
    {"CrossNamespaceVolumeDataSource", false, Stage::Alpha, false},
    {"CustomResourceFieldSelectors", true, Stage::GA, true},
    {"DRAAdminAccess", true, Stage::Beta, false},
    {"DRAConsumableCapacity", false, Stage::Alpha, false},
    {"DRADeviceBindingConditions", false, Stage::Alpha, false},
    {"DRADeviceTaintRules", false, Stage::Alpha, false},
    {"DRADeviceTaints", false, Stage::Alpha, false},
    {"DRAExtendedResource", false, Stage::Alpha, false},
    {"DRAPartitionableDevices", false, Stage::Alpha, false},
    {"DRAPrioritizedList", true, Stage::Beta, false},
    {"DRAResourceClaimDeviceStatus", true, Stage::Beta, false},
    {"DRASchedulerFilterTimeout", true, Stage::Beta, false},
    // Not a v1.35 gate: v1.36's (alpha, off; beta and still off in v1.37), KEP-5729's ResourceClaims
    // shared by a PodGroup (issue #44).
    {"DRAWorkloadResourceClaims", false, Stage::Alpha, false},
    {"DeclarativeValidation", true, Stage::Beta, false},
    {"DeclarativeValidationTakeover", false, Stage::Beta, false},
    {"DeploymentReplicaSetTerminatingReplicas", true, Stage::Beta, false},
    {"DetectCacheInconsistency", true, Stage::Beta, false},
    {"DisableAllocatorDualWrite", true, Stage::GA, true},
    {"DisableCPUQuotaWithExclusiveCPUs", true, Stage::Beta, false},
    {"DisableNodeKubeProxyVersion", true, Stage::Deprecated, false},
    {"DynamicResourceAllocation", true, Stage::GA, true},
    {"EnvFiles", true, Stage::Beta, false},
    {"EventedPLEG", false, Stage::Alpha, false},
    {"ExecProbeTimeout", true, Stage::GA, true},
    {"ExternalServiceAccountTokenSigner", true, Stage::Beta, false},
    {"GangScheduling", false, Stage::Alpha, false},
    {"GenericWorkload", false, Stage::Alpha, false},
    {"GitRepoVolumeDriver", false, Stage::Deprecated, false},
    {"GracefulNodeShutdown", true, Stage::Beta, false},
    {"GracefulNodeShutdownBasedOnPodPriority", true, Stage::Beta, false},
    {"HPAConfigurableTolerance", true, Stage::Beta, false},
    {"HPAScaleToZero", false, Stage::Alpha, false},
    {"HonorPVReclaimPolicy", true, Stage::GA, true},
    {"HostnameOverride", true, Stage::Beta, false},
    {"ImageMaximumGCAge", true, Stage::GA, true},
    {"ImageVolume", true, Stage::Beta, false},
    {"InOrderInformers", true, Stage::Beta, false},
    {"InOrderInformersBatchProcess", true, Stage::Beta, false},
    {"InPlacePodLevelResourcesVerticalScaling", false, Stage::Alpha, false},
    {"InPlacePodVerticalScaling", true, Stage::GA, true},
    {"InPlacePodVerticalScalingAllocatedStatus", false, Stage::Deprecated, false},
    {"InPlacePodVerticalScalingExclusiveCPUs", false, Stage::Alpha, false},
    {"InPlacePodVerticalScalingExclusiveMemory", false, Stage::Alpha, false},
    {"InTreePluginPortworxUnregister", false, Stage::Alpha, false},
    {"InformerResourceVersion", true, Stage::GA, false},
    {"JobBackoffLimitPerIndex", true, Stage::GA, true},
    {"JobManagedBy", true, Stage::GA, true},
    {"JobPodReplacementPolicy", true, Stage::GA, true},
    {"JobSuccessPolicy", true, Stage::GA, true},
    {"KMSv1", false, Stage::Deprecated, false},
    {"KubeletCgroupDriverFromCRI", true, Stage::GA, true},
    {"KubeletCrashLoopBackOffMax", true, Stage::Beta, false},
    {"KubeletEnsureSecretPulledImages", true, Stage::Beta, false},
    {"KubeletFineGrainedAuthz", true, Stage::Beta, false},
    {"KubeletInUserNamespace", false, Stage::Alpha, false},
    {"KubeletPSI", true, Stage::Beta, false},
    {"KubeletPodResourcesDynamicResources", true, Stage::Beta, false},
    {"KubeletPodResourcesGet", true, Stage::Beta, false},
    {"KubeletPodResourcesListUseActivePods", true, Stage::Deprecated, false},
    {"KubeletRegistrationGetOnExistsOnly", false, Stage::Deprecated, false},
    {"KubeletSeparateDiskGC", true, Stage::Beta, false},
    {"KubeletServiceAccountTokenForCredentialProviders", true, Stage::Beta, false},
    {"KubeletTracing", true, Stage::GA, true},
    {"ListFromCacheSnapshot", true, Stage::Beta, false},
    {"LocalStorageCapacityIsolationFSQuotaMonitoring", false, Stage::Beta, false},
    {"LogarithmicScaleDown", true, Stage::GA, true},
    {"LoggingAlphaOptions", false, Stage::Alpha, false},
    {"LoggingBetaOptions", true, Stage::Beta, false},
    {"MatchLabelKeysInPodAffinity", true, Stage::GA, true},
    {"MatchLabelKeysInPodTopologySpread", true, Stage::Beta, false},
    {"MatchLabelKeysInPodTopologySpreadSelectorMerge", true, Stage::Beta, false},
    {"MaxUnavailableStatefulSet", false, Stage::Beta, false},
    {"MemoryManager", true, Stage::GA, true},
    {"MemoryQoS", false, Stage::Alpha, false},
    {"MultiCIDRServiceAllocator", true, Stage::GA, true},
    {"MutableCSINodeAllocatableCount", true, Stage::Beta, false},
    {"MutablePVNodeAffinity", false, Stage::Alpha, false},
    {"MutablePodResourcesForSuspendedJobs", false, Stage::Alpha, false},
    {"MutableSchedulingDirectivesForSuspendedJobs", false, Stage::Alpha, false},
    {"MutatingAdmissionPolicy", false, Stage::Beta, false},
    {"NFTablesProxyMode", true, Stage::GA, true},
    {"NodeDeclaredFeatures", false, Stage::Alpha, false},
    {"NodeInclusionPolicyInPodTopologySpread", true, Stage::GA, true},
    {"NodeLogQuery", false, Stage::Beta, false},
    {"NodeSwap", true, Stage::GA, true},
    {"NominatedNodeNameForExpectation", true, Stage::Beta, false},
    {"OpenAPIEnums", true, Stage::Beta, false},
    {"OpportunisticBatching", true, Stage::Beta, false},
    {"OrderedNamespaceDeletion", true, Stage::GA, true},
    {"PodAndContainerStatsFromCRI", false, Stage::Alpha, false},
    {"PodCertificateRequest", false, Stage::Beta, false},
    {"PodDeletionCost", true, Stage::Beta, false},
    // Not a v1.35 gate: v1.37's (alpha, off), for a PodGroup's own preemptionPolicy (issue #44).
    {"PodGroupPreemptionPolicy", false, Stage::Alpha, false},
    {"PodLevelResources", true, Stage::Beta, false},
    {"PodLifecycleSleepAction", true, Stage::GA, true},
    {"PodLifecycleSleepActionAllowZero", true, Stage::GA, true},
    {"PodLogsQuerySplitStreams", false, Stage::Alpha, false},
    {"PodObservedGenerationTracking", true, Stage::GA, true},
    {"PodReadyToStartContainersCondition", true, Stage::Beta, false},
    {"PodSchedulingReadiness", true, Stage::GA, true},
    {"PodTopologyLabelsAdmission", true, Stage::Beta, false},
    {"PortForwardWebsockets", true, Stage::Beta, false},
    {"PreferSameTrafficDistribution", true, Stage::GA, true},
    {"PreventStaticPodAPIReferences", true, Stage::Beta, false},
    {"ProcMountType", true, Stage::Beta, false},
    {"QOSReserved", false, Stage::Alpha, false},
    {"RecoverVolumeExpansionFailure", true, Stage::GA, true},
    {"RecursiveReadOnlyMounts", true, Stage::GA, true},
    {"ReduceDefaultCrashLoopBackOffDecay", false, Stage::Alpha, false},
    {"RelaxedDNSSearchValidation", true, Stage::GA, true},
    {"RelaxedEnvironmentVariableValidation", true, Stage::GA, true},
    {"RelaxedServiceNameValidation", false, Stage::Alpha, false},
    {"ReloadKubeletServerCertificateFile", true, Stage::Beta, false},
    {"RemoteRequestHeaderUID", true, Stage::Beta, false},
    {"ResilientWatchCacheInitialization", true, Stage::GA, true},
    {"ResourceHealthStatus", false, Stage::Alpha, false},
    {"RestartAllContainersOnContainerExits", false, Stage::Alpha, false},
    {"RetryGenerateName", true, Stage::GA, true},
    {"RotateKubeletServerCertificate", true, Stage::Beta, false},
    {"RuntimeClassInImageCriAPI", false, Stage::Alpha, false},
    {"SELinuxChangePolicy", true, Stage::Beta, false},
    {"SELinuxMount", false, Stage::Beta, false},
    {"SELinuxMountReadWriteOncePod", true, Stage::Beta, false},
    {"SchedulerAsyncAPICalls", false, Stage::Beta, false},
    {"SchedulerAsyncPreemption", true, Stage::Beta, false},
    {"SchedulerPopFromBackoffQ", true, Stage::Beta, false},
    {"SchedulerQueueingHints", true, Stage::GA, true},
    {"SeparateCacheWatchRPC", false, Stage::Deprecated, false},
    {"SeparateTaintEvictionController", true, Stage::GA, true},
    {"ServiceAccountNodeAudienceRestriction", true, Stage::Beta, false},
    {"ServiceAccountTokenJTI", true, Stage::GA, true},
    {"ServiceAccountTokenNodeBinding", true, Stage::GA, true},
    {"ServiceAccountTokenNodeBindingValidation", true, Stage::GA, true},
    {"ServiceAccountTokenPodNodeInfo", true, Stage::GA, true},
    {"ServiceTrafficDistribution", true, Stage::GA, true},
    {"SidecarContainers", true, Stage::GA, true},
    {"SizeBasedListCostEstimate", true, Stage::Beta, false},
    {"StatefulSetSemanticRevisionComparison", true, Stage::Beta, false},
    {"StorageCapacityScoring", false, Stage::Alpha, false},
    {"StorageNamespaceIndex", true, Stage::Deprecated, false},
    {"StorageVersionAPI", false, Stage::Alpha, false},
    {"StorageVersionHash", true, Stage::Beta, false},
    {"StorageVersionMigrator", false, Stage::Beta, false},
    {"StreamingCollectionEncodingToJSON", true, Stage::GA, true},
    {"StreamingCollectionEncodingToProtobuf", true, Stage::GA, true},
    {"StrictIPCIDRValidation", false, Stage::Alpha, false},
    {"StructuredAuthenticationConfiguration", true, Stage::GA, true},
    {"StructuredAuthenticationConfigurationEgressSelector", true, Stage::Beta, false},
    {"StructuredAuthenticationConfigurationJWKSMetrics", true, Stage::Beta, false},
    {"StructuredAuthorizationConfiguration", true, Stage::GA, true},
    {"SupplementalGroupsPolicy", true, Stage::GA, true},
    {"SystemdWatchdog", true, Stage::GA, true},
    {"TaintTolerationComparisonOperators", false, Stage::Alpha, false},
    {"TokenRequestServiceAccountUIDValidation", true, Stage::Beta, false},
    {"TopologyAwareHints", true, Stage::GA, true},
    {"TopologyAwareWorkloadScheduling", false, Stage::Alpha, false},  // v1.36
    {"TopologyManagerPolicyAlphaOptions", false, Stage::Alpha, false},
    {"TopologyManagerPolicyBetaOptions", true, Stage::Beta, false},
    {"TopologyManagerPolicyOptions", true, Stage::GA, false},
    {"TranslateStreamCloseWebsocketRequests", true, Stage::Beta, false},
    {"UnauthenticatedHTTP2DOSMitigation", true, Stage::Beta, false},
    {"UnknownVersionInteroperabilityProxy", false, Stage::Alpha, false},
    {"UserNamespacesHostNetworkSupport", false, Stage::Alpha, false},
    {"UserNamespacesSupport", true, Stage::Beta, false},
    {"VolumeAttributesClass", true, Stage::GA, false},
    {"VolumeLimitScaling", false, Stage::Alpha, false},
    {"WatchCacheInitializationPostStartHook", false, Stage::Beta, false},
    {"WatchFromStorageWithoutResourceVersion", false, Stage::Deprecated, true},
    {"WatchList", true, Stage::Beta, false},
    {"WatchListClient", true, Stage::Beta, false},
    {"WinDSR", true, Stage::GA, true},
    {"WinOverlay", true, Stage::GA, true},
    {"WindowsCPUAndMemoryAffinity", false, Stage::Alpha, false},
    {"WindowsGracefulNodeShutdown", true, Stage::Beta, false},
    {"WindowsHostNetwork", false, Stage::Deprecated, false},
};

const char* stage_label(Stage s) {
  switch (s) {
    case Stage::Alpha:
      return "ALPHA";
    case Stage::Beta:
      return "BETA";
    case Stage::GA:
      return "";
    case Stage::Deprecated:
      return "DEPRECATED";
  }
  return "";
}

}  // namespace

std::span<const FeatureSpec> feature_gates_v135() { return kGates; }

const FeatureSpec* find_feature_gate(std::string_view name) {
  auto it = std::lower_bound(std::begin(kGates), std::end(kGates), name,
                             [](const FeatureSpec& f, std::string_view n) { return f.name < n; });
  return it != std::end(kGates) && it->name == name ? &*it : nullptr;
}

util::Result<std::vector<std::string>> check_feature_gates(const std::map<std::string, bool>& set) {
  std::vector<std::string> warnings;
  std::vector<std::string> errors;
  for (const auto& [name, value] : set) {
    const FeatureSpec* spec = find_feature_gate(name);
    // Upstream stops at the first unknown name.
    if (!spec) return util::make_error("unrecognized feature gate: " + name);
    if (spec->locked && spec->default_on != value) {
      errors.push_back("cannot set feature gate " + name + " to " + (value ? "true" : "false") +
                       ", feature is locked to " + (spec->default_on ? "true" : "false"));
      continue;
    }
    const char* v = value ? "true" : "false";
    if (spec->stage == Stage::Deprecated)
      warnings.push_back("Setting deprecated feature gate " + name + "=" + v +
                         ". It will be removed in a future release.");
    else if (spec->stage == Stage::GA)
      warnings.push_back("Setting GA feature gate " + name + "=" + v + ". It will be removed in a future release.");
  }
  if (!errors.empty()) {
    std::string joined;
    for (const auto& e : errors) joined += (joined.empty() ? "" : "\n") + e;
    return util::make_error(joined);
  }
  return warnings;
}

bool feature_enabled(const std::map<std::string, bool>& set, std::string_view name) {
  if (auto it = set.find(std::string(name)); it != set.end()) return it->second;
  const FeatureSpec* spec = find_feature_gate(name);
  if (!spec) return false;
  if (name != "AllAlpha" && name != "AllBeta") {
    const char* all = spec->stage == Stage::Alpha ? "AllAlpha" : spec->stage == Stage::Beta ? "AllBeta" : nullptr;
    if (all)
      if (auto it = set.find(all); it != set.end()) return it->second;
  }
  return spec->default_on;
}

std::vector<std::string> feature_gate_help_lines() {
  std::vector<std::string> out;
  for (const auto& f : kGates) {
    if (f.stage == Stage::GA || f.stage == Stage::Deprecated) continue;
    out.push_back(std::string(f.name) + "=true|false (" + stage_label(f.stage) +
                  " - default=" + (f.default_on ? "true" : "false") + ")");
  }
  return out;
}

}  // namespace ksched::scheduler::config
