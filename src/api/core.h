// core/v1 types the scheduler, the API server and kubectl rely on. Fields not modelled here are
// kept in each struct's `extra` and written back unchanged.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"
#include "api/quantity.h"

namespace ksched::api {

#define KSCHED_F(name) field(#name, &T::name)

// ---------------------------------------------------------------- references
struct ObjectReference {
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string apiVersion;
  std::string resourceVersion;
  std::string fieldPath;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ObjectReference>) {
  using T = ObjectReference;
  return field_list(KSCHED_F(kind), field("namespace", &T::namespace_), KSCHED_F(name), KSCHED_F(uid),
                    KSCHED_F(apiVersion), KSCHED_F(resourceVersion), KSCHED_F(fieldPath));
}

// ---------------------------------------------------------------- node selection
struct NodeSelectorRequirement {
  std::string key;
  std::string operator_;  // In, NotIn, Exists, DoesNotExist, Gt, Lt
  std::vector<std::string> values;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<NodeSelectorRequirement>) {
  using T = NodeSelectorRequirement;
  return field_list(KSCHED_F(key), field("operator", &T::operator_), KSCHED_F(values));
}

struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> matchExpressions;
  std::vector<NodeSelectorRequirement> matchFields;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<NodeSelectorTerm>) {
  using T = NodeSelectorTerm;
  return field_list(KSCHED_F(matchExpressions), KSCHED_F(matchFields));
}

struct NodeSelector {
  std::vector<NodeSelectorTerm> nodeSelectorTerms;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<NodeSelector>) {
  using T = NodeSelector;
  return field_list(KSCHED_F(nodeSelectorTerms));
}

struct PreferredSchedulingTerm {
  std::int32_t weight = 0;
  NodeSelectorTerm preference;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PreferredSchedulingTerm>) {
  using T = PreferredSchedulingTerm;
  return field_list(KSCHED_F(weight), KSCHED_F(preference));
}

struct NodeAffinity {
  std::optional<NodeSelector> requiredDuringSchedulingIgnoredDuringExecution;
  std::vector<PreferredSchedulingTerm> preferredDuringSchedulingIgnoredDuringExecution;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<NodeAffinity>) {
  using T = NodeAffinity;
  return field_list(KSCHED_F(requiredDuringSchedulingIgnoredDuringExecution),
                    KSCHED_F(preferredDuringSchedulingIgnoredDuringExecution));
}

struct PodAffinityTerm {
  std::optional<LabelSelector> labelSelector;
  std::vector<std::string> namespaces;
  std::string topologyKey;
  Boxed<LabelSelector> namespaceSelector;
  std::vector<std::string> matchLabelKeys;
  std::vector<std::string> mismatchLabelKeys;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PodAffinityTerm>) {
  using T = PodAffinityTerm;
  return field_list(KSCHED_F(labelSelector), KSCHED_F(namespaces), KSCHED_F(topologyKey),
                    KSCHED_F(namespaceSelector), KSCHED_F(matchLabelKeys), KSCHED_F(mismatchLabelKeys));
}

struct WeightedPodAffinityTerm {
  std::int32_t weight = 0;
  PodAffinityTerm podAffinityTerm;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<WeightedPodAffinityTerm>) {
  using T = WeightedPodAffinityTerm;
  return field_list(KSCHED_F(weight), KSCHED_F(podAffinityTerm));
}

struct PodAffinity {  // also used for podAntiAffinity
  std::vector<PodAffinityTerm> requiredDuringSchedulingIgnoredDuringExecution;
  std::vector<WeightedPodAffinityTerm> preferredDuringSchedulingIgnoredDuringExecution;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PodAffinity>) {
  using T = PodAffinity;
  return field_list(KSCHED_F(requiredDuringSchedulingIgnoredDuringExecution),
                    KSCHED_F(preferredDuringSchedulingIgnoredDuringExecution));
}

struct Affinity {
  Boxed<NodeAffinity> nodeAffinity;
  Boxed<PodAffinity> podAffinity;
  Boxed<PodAffinity> podAntiAffinity;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<Affinity>) {
  using T = Affinity;
  return field_list(KSCHED_F(nodeAffinity), KSCHED_F(podAffinity), KSCHED_F(podAntiAffinity));
}

struct Toleration {
  std::string key;
  std::string operator_;  // Exists | Equal ("" means Equal)
  std::string value;
  std::string effect;  // NoSchedule | PreferNoSchedule | NoExecute | "" (all)
  std::optional<std::int64_t> tolerationSeconds;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<Toleration>) {
  using T = Toleration;
  return field_list(KSCHED_F(key), field("operator", &T::operator_), KSCHED_F(value), KSCHED_F(effect),
                    KSCHED_F(tolerationSeconds));
}

struct TopologySpreadConstraint {
  std::int32_t maxSkew = 0;
  std::string topologyKey;
  std::string whenUnsatisfiable;  // DoNotSchedule | ScheduleAnyway
  std::optional<LabelSelector> labelSelector;
  std::optional<std::int32_t> minDomains;
  std::optional<std::string> nodeAffinityPolicy;  // Honor | Ignore
  std::optional<std::string> nodeTaintsPolicy;    // Honor | Ignore
  std::vector<std::string> matchLabelKeys;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<TopologySpreadConstraint>) {
  using T = TopologySpreadConstraint;
  return field_list(KSCHED_F(maxSkew),          KSCHED_F(topologyKey),        KSCHED_F(whenUnsatisfiable),
                    KSCHED_F(labelSelector),    KSCHED_F(minDomains),         KSCHED_F(nodeAffinityPolicy),
                    KSCHED_F(nodeTaintsPolicy), KSCHED_F(matchLabelKeys));
}

// ---------------------------------------------------------------- containers
struct ContainerPort {
  std::string name;
  std::int32_t hostPort = 0;
  std::int32_t containerPort = 0;
  std::string protocol;  // TCP (default) | UDP | SCTP
  std::string hostIP;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ContainerPort>) {
  using T = ContainerPort;
  return field_list(KSCHED_F(name), KSCHED_F(hostPort), KSCHED_F(containerPort), KSCHED_F(protocol),
                    KSCHED_F(hostIP));
}

struct ResourceRequirements {
  ResourceList limits;
  ResourceList requests;
  Presence present;
  Extra extra;  // claims
};
constexpr auto describe(type_tag<ResourceRequirements>) {
  using T = ResourceRequirements;
  return field_list(KSCHED_F(limits), KSCHED_F(requests));
}

// Modelled, not left in Container's unmodelled members: the service-account token mount is named
// per pod (kube-api-access-<random>), and an unmodelled volumeMounts would make every container's
// block of env, probes and the rest unique to its pod instead of shared by the replicas.
struct VolumeMount {
  CompactString name;  // per pod for the service-account token: not interned
  bool readOnly = false;
  ThinString mountPath;
  Presence present;
  Extra extra;  // subPath, subPathExpr, mountPropagation, recursiveReadOnly
};
constexpr auto describe(type_tag<VolumeMount>) {
  using T = VolumeMount;
  return field_list(KSCHED_F(name), KSCHED_F(readOnly), KSCHED_F(mountPath));
}
struct Container {
  ThinString name;   // Thin: the same few values in every replica (see compact_string.h)
  ThinString image;
  SharedVector<std::string> command;  // shared: identical across replicas
  SharedVector<std::string> args;
  SharedVector<ContainerPort> ports;
  ResourceRequirements resources;
  Boxed<std::string> restartPolicy;  // "Always" on an init container = restartable sidecar
  std::vector<VolumeMount> volumeMounts;
  ThinString imagePullPolicy;
  Presence present;
  Extra extra;  // env, probes, securityContext, ...
};
constexpr auto describe(type_tag<Container>) {
  using T = Container;
  return field_list(KSCHED_F(name),      KSCHED_F(image),         KSCHED_F(command),
                    KSCHED_F(args),      KSCHED_F(ports),         KSCHED_F(resources),
                    KSCHED_F(restartPolicy), KSCHED_F(volumeMounts), KSCHED_F(imagePullPolicy));
}

// Pod templates repeat across replicas: intern their unmodelled members (env, probes, ... ; see
// ExtraFields).
template <>
inline constexpr bool share_extra<Container> = true;

// ---------------------------------------------------------------- volumes
struct PersistentVolumeClaimVolumeSource {
  std::string claimName;
  bool readOnly = false;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PersistentVolumeClaimVolumeSource>) {
  using T = PersistentVolumeClaimVolumeSource;
  return field_list(KSCHED_F(claimName), KSCHED_F(readOnly));
}

struct GCEPersistentDiskVolumeSource {
  std::string pdName;
  std::string fsType;
  std::int32_t partition = 0;
  bool readOnly = false;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<GCEPersistentDiskVolumeSource>) {
  using T = GCEPersistentDiskVolumeSource;
  return field_list(KSCHED_F(pdName), KSCHED_F(fsType), KSCHED_F(partition), KSCHED_F(readOnly));
}

struct AWSElasticBlockStoreVolumeSource {
  std::string volumeID;
  std::string fsType;
  std::int32_t partition = 0;
  bool readOnly = false;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<AWSElasticBlockStoreVolumeSource>) {
  using T = AWSElasticBlockStoreVolumeSource;
  return field_list(KSCHED_F(volumeID), KSCHED_F(fsType), KSCHED_F(partition), KSCHED_F(readOnly));
}

struct ISCSIVolumeSource {
  std::string targetPortal;
  std::string iqn;
  std::int32_t lun = 0;
  bool readOnly = false;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ISCSIVolumeSource>) {
  using T = ISCSIVolumeSource;
  return field_list(KSCHED_F(targetPortal), KSCHED_F(iqn), KSCHED_F(lun), KSCHED_F(readOnly));
}

struct RBDVolumeSource {
  std::vector<std::string> monitors;
  std::string image;
  std::string pool;
  bool readOnly = false;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<RBDVolumeSource>) {
  using T = RBDVolumeSource;
  return field_list(KSCHED_F(monitors), KSCHED_F(image), KSCHED_F(pool), KSCHED_F(readOnly));
}

struct CSIVolumeSource {  // inline (ephemeral) CSI volume
  std::string driver;
  std::optional<bool> readOnly;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<CSIVolumeSource>) {
  using T = CSIVolumeSource;
  return field_list(KSCHED_F(driver), KSCHED_F(readOnly));
}

struct EphemeralVolumeSource {
  RawJson volumeClaimTemplate;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<EphemeralVolumeSource>) {
  using T = EphemeralVolumeSource;
  return field_list(KSCHED_F(volumeClaimTemplate));
}

struct Volume {
  CompactString name;
  Boxed<PersistentVolumeClaimVolumeSource> persistentVolumeClaim;
  Boxed<GCEPersistentDiskVolumeSource> gcePersistentDisk;
  Boxed<AWSElasticBlockStoreVolumeSource> awsElasticBlockStore;
  Boxed<ISCSIVolumeSource> iscsi;
  Boxed<RBDVolumeSource> rbd;
  Boxed<CSIVolumeSource> csi;
  Boxed<EphemeralVolumeSource> ephemeral;
  Presence present;
  Extra extra;  // emptyDir, hostPath, configMap, secret, projected, ...
};
constexpr auto describe(type_tag<Volume>) {
  using T = Volume;
  return field_list(KSCHED_F(name), KSCHED_F(persistentVolumeClaim), KSCHED_F(gcePersistentDisk),
                    KSCHED_F(awsElasticBlockStore), KSCHED_F(iscsi), KSCHED_F(rbd), KSCHED_F(csi),
                    KSCHED_F(ephemeral));
}

// ---------------------------------------------------------------- pod
struct PodSchedulingGate {
  std::string name;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PodSchedulingGate>) {
  using T = PodSchedulingGate;
  return field_list(KSCHED_F(name));
}

// A ResourceClaim the pod uses (resource.k8s.io): exactly one of the claim's name or the template
// the ResourceClaim controller makes the pod's own claim from.
struct PodResourceClaim {
  std::string name;  // a DNS label, unique in the pod; containers refer to it
  std::optional<std::string> resourceClaimName;
  std::optional<std::string> resourceClaimTemplateName;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PodResourceClaim>) {
  using T = PodResourceClaim;
  return field_list(KSCHED_F(name), KSCHED_F(resourceClaimName), KSCHED_F(resourceClaimTemplateName));
}

// spec.workloadRef (v1.35, GenericWorkload): the Workload and pod group the pod belongs to; the
// Workload need not exist yet. Immutable.
struct WorkloadReference {
  std::string name;                // the Workload (a DNS subdomain)
  std::string podGroup;            // one of its spec.podGroups (a DNS label)
  std::string podGroupReplicaKey;  // which replica of the group, when it has several (a DNS label)
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<WorkloadReference>) {
  using T = WorkloadReference;
  return field_list(KSCHED_F(name), KSCHED_F(podGroup), KSCHED_F(podGroupReplicaKey));
}

// spec.schedulingGroup (v1.36+, KEP-5832, GenericWorkload): the PodGroup object (scheduling.k8s.io
// v1beta1, same namespace) the pod belongs to; it need not exist yet. Immutable. Exactly one member
// must be set; v1.37 has only podGroupName (a DNS subdomain).
struct PodSchedulingGroup {
  std::optional<std::string> podGroupName;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PodSchedulingGroup>) {
  using T = PodSchedulingGroup;
  return field_list(KSCHED_F(podGroupName));
}

struct PodSpec {
  std::vector<Volume> volumes;
  std::vector<Container> initContainers;
  std::vector<Container> containers;
  // The repeated-value strings are ThinStrings (8 bytes; see compact_string.h).
  ThinString restartPolicy;
  std::optional<std::int64_t> terminationGracePeriodSeconds;
  Boxed<std::int64_t> activeDeadlineSeconds;  // usually absent: 8 bytes
  ThinString dnsPolicy;
  StringMap nodeSelector;
  ThinString serviceAccountName;
  ThinString nodeName;
  bool hostNetwork = false;
  ThinString schedulerName;
  Boxed<Affinity> affinity;
  SharedVector<Toleration> tolerations;  // copy on write: replicas share one
  ThinString priorityClassName;
  std::optional<std::int32_t> priority;
  std::optional<ThinString> preemptionPolicy;  // PreemptLowerPriority | Never
  ResourceList overhead;
  SharedVector<TopologySpreadConstraint> topologySpreadConstraints;  // copy on write, like tolerations
  SharedVector<PodSchedulingGate> schedulingGates;
  Boxed<WorkloadReference> workloadRef;  // usually absent: 8 bytes
  Boxed<PodSchedulingGroup> schedulingGroup;  // usually absent: 8 bytes
  SharedVector<PodResourceClaim> resourceClaims;  // copy on write: replicas share one
  // Pod-level requests and limits (PodLevelResources; upstream's *ResourceRequirements): usually
  // absent, so boxed (8 bytes).
  Boxed<ResourceRequirements> resources;
  Presence present;
  Extra extra;  // securityContext, hostname, subdomain, dnsConfig, ephemeralContainers, ...
};
constexpr auto describe(type_tag<PodSpec>) {
  using T = PodSpec;
  return field_list(KSCHED_F(volumes),
                    KSCHED_F(initContainers),
                    KSCHED_F(containers),
                    KSCHED_F(restartPolicy),
                    KSCHED_F(terminationGracePeriodSeconds),
                    KSCHED_F(activeDeadlineSeconds),
                    KSCHED_F(dnsPolicy),
                    KSCHED_F(nodeSelector),
                    KSCHED_F(serviceAccountName),
                    KSCHED_F(nodeName),
                    KSCHED_F(hostNetwork),
                    KSCHED_F(schedulerName),
                    KSCHED_F(affinity),
                    KSCHED_F(tolerations),
                    KSCHED_F(priorityClassName),
                    KSCHED_F(priority),
                    KSCHED_F(preemptionPolicy),
                    KSCHED_F(overhead),
                    KSCHED_F(topologySpreadConstraints),
                    KSCHED_F(schedulingGates),
                    KSCHED_F(workloadRef),
                    KSCHED_F(schedulingGroup),
                    KSCHED_F(resourceClaims),
                    KSCHED_F(resources));
}

template <>
inline constexpr bool share_extra<Volume> = true;
template <>
inline constexpr bool share_extra<PodSpec> = true;

// Four or five per pod, their values drawn from a few texts (types, statuses, the scheduler's
// reasons and messages): ThinStrings, so a condition is 64 bytes.
struct PodCondition {
  ThinString type;  // PodScheduled, Ready, Initialized, ContainersReady, DisruptionTarget
  ThinString status;
  OptionalTime lastProbeTime;
  OptionalTime lastTransitionTime;
  ThinString reason;
  ThinString message;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PodCondition>) {
  using T = PodCondition;
  return field_list(KSCHED_F(type), KSCHED_F(status), KSCHED_F(lastProbeTime), KSCHED_F(lastTransitionTime),
                    KSCHED_F(reason), KSCHED_F(message));
}

// ---- container statuses (written by the kubelet; modelled so that a cached pod holds its
// repeated parts, image, digest, mount paths, once per cluster instead of as raw JSON per pod)
struct ContainerStateWaiting {
  ThinString reason;  // ContainerCreating, CrashLoopBackOff, ImagePullBackOff, ...
  ThinString message;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ContainerStateWaiting>) {
  using T = ContainerStateWaiting;
  return field_list(KSCHED_F(reason), KSCHED_F(message));
}

struct ContainerStateRunning {
  OptionalTime startedAt;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ContainerStateRunning>) {
  using T = ContainerStateRunning;
  return field_list(KSCHED_F(startedAt));
}

struct ContainerStateTerminated {
  std::int32_t exitCode = 0;
  std::int32_t signal = 0;
  ThinString reason;  // Completed, Error, OOMKilled, ...
  ThinString message;
  OptionalTime startedAt;
  OptionalTime finishedAt;
  CompactString containerID;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ContainerStateTerminated>) {
  using T = ContainerStateTerminated;
  return field_list(KSCHED_F(exitCode),  KSCHED_F(signal),     KSCHED_F(reason),     KSCHED_F(message),
                    KSCHED_F(startedAt), KSCHED_F(finishedAt), KSCHED_F(containerID));
}

// At most one member is set; all absent (`{}`) is a lastState that never was.
struct ContainerState {
  Boxed<ContainerStateWaiting> waiting;
  Boxed<ContainerStateRunning> running;
  Boxed<ContainerStateTerminated> terminated;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ContainerState>) {
  using T = ContainerState;
  return field_list(KSCHED_F(waiting), KSCHED_F(running), KSCHED_F(terminated));
}

struct VolumeMountStatus {
  CompactString name;  // per pod for the service-account token
  ThinString mountPath;
  bool readOnly = false;
  ThinString recursiveReadOnly;  // Disabled, Enabled
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<VolumeMountStatus>) {
  using T = VolumeMountStatus;
  return field_list(KSCHED_F(name), KSCHED_F(mountPath), KSCHED_F(readOnly), KSCHED_F(recursiveReadOnly));
}

struct ContainerStatus {
  ThinString name;
  ContainerState state;
  ContainerState lastState;
  bool ready = false;
  std::optional<bool> started;
  std::int32_t restartCount = 0;
  ThinString image;
  ThinString imageID;
  CompactString containerID;  // unique per container run
  std::vector<VolumeMountStatus> volumeMounts;
  Presence present;
  Extra extra;  // allocatedResources, resources, user, allocatedResourcesStatus
};
constexpr auto describe(type_tag<ContainerStatus>) {
  using T = ContainerStatus;
  return field_list(KSCHED_F(name),         KSCHED_F(state),   KSCHED_F(lastState),  KSCHED_F(ready),
                    KSCHED_F(restartCount), KSCHED_F(image),   KSCHED_F(imageID),    KSCHED_F(containerID),
                    KSCHED_F(started),      KSCHED_F(volumeMounts));
}

// Which ResourceClaim the ResourceClaim controller made for a pod's claim from a template
// (resourceClaimName absent: none is needed).
struct PodResourceClaimStatus {
  std::string name;
  std::optional<std::string> resourceClaimName;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PodResourceClaimStatus>) {
  using T = PodResourceClaimStatus;
  return field_list(KSCHED_F(name), KSCHED_F(resourceClaimName));
}

// DRAExtendedResource: which request of the ResourceClaim the scheduler made for a pod's extended
// resources backed by DRA serves which container's resource.
struct ContainerExtendedResourceRequest {
  std::string containerName;
  std::string resourceName;
  std::string requestName;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ContainerExtendedResourceRequest>) {
  using T = ContainerExtendedResourceRequest;
  return field_list(KSCHED_F(containerName), KSCHED_F(resourceName), KSCHED_F(requestName));
}

struct PodExtendedResourceClaimStatus {
  std::vector<ContainerExtendedResourceRequest> requestMappings;
  std::string resourceClaimName;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PodExtendedResourceClaimStatus>) {
  using T = PodExtendedResourceClaimStatus;
  return field_list(KSCHED_F(requestMappings), KSCHED_F(resourceClaimName));
}

struct PodStatus {
  ThinString phase;  // Pending, Running, Succeeded, Failed, Unknown
  std::vector<PodCondition> conditions;
  ThinString message;
  ThinString reason;
  ThinString nominatedNodeName;
  CompactString hostIP;
  CompactString podIP;
  OptionalTime startTime;
  std::vector<ContainerStatus> initContainerStatuses;
  std::vector<ContainerStatus> containerStatuses;
  ThinString qosClass;
  // Per pod and usually absent: boxed, 8 bytes.
  Boxed<std::vector<PodResourceClaimStatus>> resourceClaimStatuses;
  Boxed<PodExtendedResourceClaimStatus> extendedResourceClaimStatus;  // DRAExtendedResource
  Presence present;
  Extra extra;  // hostIPs, podIPs, ephemeralContainerStatuses, resize, ...
};
constexpr auto describe(type_tag<PodStatus>) {
  using T = PodStatus;
  return field_list(KSCHED_F(phase),  KSCHED_F(conditions), KSCHED_F(message),   KSCHED_F(reason),
                    KSCHED_F(nominatedNodeName), KSCHED_F(hostIP), KSCHED_F(podIP), KSCHED_F(startTime),
                    KSCHED_F(initContainerStatuses), KSCHED_F(containerStatuses), KSCHED_F(qosClass),
                    KSCHED_F(resourceClaimStatuses), KSCHED_F(extendedResourceClaimStatus));
}

struct Pod {
  ThinString apiVersion;
  ThinString kind;
  ObjectMeta metadata;
  PodSpec spec;
  PodStatus status;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<Pod>) {
  using T = Pod;
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec), KSCHED_F(status));
}

// ---------------------------------------------------------------- node
struct Taint {
  std::string key;
  std::string value;
  std::string effect;
  std::optional<Time> timeAdded;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<Taint>) {
  using T = Taint;
  return field_list(KSCHED_F(key), KSCHED_F(value), KSCHED_F(effect), KSCHED_F(timeAdded));
}

struct NodeSpec {
  std::string podCIDR;
  std::string providerID;
  bool unschedulable = false;
  std::vector<Taint> taints;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<NodeSpec>) {
  using T = NodeSpec;
  return field_list(KSCHED_F(podCIDR), KSCHED_F(providerID), KSCHED_F(unschedulable), KSCHED_F(taints));
}

struct NodeCondition {
  std::string type;  // Ready, MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable
  std::string status;
  std::optional<Time> lastHeartbeatTime;
  std::optional<Time> lastTransitionTime;
  std::string reason;
  std::string message;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<NodeCondition>) {
  using T = NodeCondition;
  return field_list(KSCHED_F(type), KSCHED_F(status), KSCHED_F(lastHeartbeatTime), KSCHED_F(lastTransitionTime),
                    KSCHED_F(reason), KSCHED_F(message));
}

struct NodeAddress {
  std::string type;
  std::string address;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<NodeAddress>) {
  using T = NodeAddress;
  return field_list(KSCHED_F(type), KSCHED_F(address));
}

struct ContainerImage {
  std::vector<std::string> names;
  std::int64_t sizeBytes = 0;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ContainerImage>) {
  using T = ContainerImage;
  return field_list(KSCHED_F(names), KSCHED_F(sizeBytes));
}

struct NodeStatus {
  ResourceList capacity;
  ResourceList allocatable;
  std::string phase;
  std::vector<NodeCondition> conditions;
  std::vector<NodeAddress> addresses;
  std::vector<ContainerImage> images;
  // Features the node says it has (NodeDeclaredFeatures, alpha): the NodeDeclaredFeatures
  // scheduler plugin matches pods' inferred requirements against them.
  std::vector<std::string> declaredFeatures;
  Presence present;
  Extra extra;  // nodeInfo, daemonEndpoints, volumesAttached, ...
};
constexpr auto describe(type_tag<NodeStatus>) {
  using T = NodeStatus;
  return field_list(KSCHED_F(capacity),   KSCHED_F(allocatable), KSCHED_F(phase),           KSCHED_F(conditions),
                    KSCHED_F(addresses),  KSCHED_F(images),      KSCHED_F(declaredFeatures));
}

struct Node {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  NodeSpec spec;
  NodeStatus status;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<Node>) {
  using T = Node;
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec), KSCHED_F(status));
}

// ---------------------------------------------------------------- namespace, service, RC
struct NamespaceStatus {
  std::string phase;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<NamespaceStatus>) {
  using T = NamespaceStatus;
  return field_list(KSCHED_F(phase));
}

struct Namespace {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  RawJson spec;
  NamespaceStatus status;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<Namespace>) {
  using T = Namespace;
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec), KSCHED_F(status));
}

struct ServiceSpec {
  StringMap selector;
  std::string type;
  std::string clusterIP;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ServiceSpec>) {
  using T = ServiceSpec;
  return field_list(KSCHED_F(selector), KSCHED_F(type), KSCHED_F(clusterIP));
}

struct Service {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  ServiceSpec spec;
  RawJson status;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<Service>) {
  using T = Service;
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec), KSCHED_F(status));
}

struct ReplicationControllerSpec {
  std::optional<std::int32_t> replicas;
  StringMap selector;
  Presence present;
  Extra extra;  // template, minReadySeconds
};
constexpr auto describe(type_tag<ReplicationControllerSpec>) {
  using T = ReplicationControllerSpec;
  return field_list(KSCHED_F(replicas), KSCHED_F(selector));
}

struct ReplicationController {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  ReplicationControllerSpec spec;
  RawJson status;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ReplicationController>) {
  using T = ReplicationController;
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec), KSCHED_F(status));
}

// ---------------------------------------------------------------- binding, events (core/v1)
struct Binding {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  ObjectReference target;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<Binding>) {
  using T = Binding;
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(target));
}

struct EventSource {
  std::string component;
  std::string host;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<EventSource>) {
  using T = EventSource;
  return field_list(KSCHED_F(component), KSCHED_F(host));
}

struct EventSeries {
  std::int32_t count = 0;
  std::optional<MicroTime> lastObservedTime;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<EventSeries>) {
  using T = EventSeries;
  return field_list(KSCHED_F(count), KSCHED_F(lastObservedTime));
}

struct Event {  // core/v1 Event
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  ObjectReference involvedObject;
  std::string reason;
  std::string message;
  EventSource source;
  std::optional<Time> firstTimestamp;
  std::optional<Time> lastTimestamp;
  std::int32_t count = 0;
  std::string type;  // Normal | Warning
  std::optional<MicroTime> eventTime;
  Boxed<EventSeries> series;
  std::string action;
  Boxed<ObjectReference> related;
  std::string reportingComponent;
  std::string reportingInstance;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<Event>) {
  using T = Event;
  return field_list(KSCHED_F(apiVersion),     KSCHED_F(kind),           KSCHED_F(metadata),
                    KSCHED_F(involvedObject), KSCHED_F(reason),         KSCHED_F(message),
                    KSCHED_F(source),         KSCHED_F(firstTimestamp), KSCHED_F(lastTimestamp),
                    KSCHED_F(count),          KSCHED_F(type),           KSCHED_F(eventTime),
                    KSCHED_F(series),         KSCHED_F(action),         KSCHED_F(related),
                    KSCHED_F(reportingComponent), KSCHED_F(reportingInstance));
}

#undef KSCHED_F

}  // namespace ksched::api
