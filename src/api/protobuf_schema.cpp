// Protobuf descriptor tables: every kind the scheduler's informers list and watch, what it writes
// (bindings, events, leases), what kubectl and kube-scheduler send as protobuf bodies, and the
// meta/v1 and runtime messages around them (Status, lists, WatchEvent, runtime.Unknown).
// Field numbers and JSON names are those of upstream v1.35's Go types (k8s.io/api,
// k8s.io/apimachinery: the `protobuf` and `json` tags); emit modes follow the json tags. Newer
// than v1.35, from kubernetes/api master (v1.37 development): the pod's spec.schedulingGroup (43,
// PodSchedulingGroup), scheduling.k8s.io/v1beta1's Workload and PodGroup messages and v1alpha3's
// CompositePodGroup (V1alpha3*); v1alpha1's
// Workload is v1.35's (V1alpha1*). The generated part is written by
// scripts/protobuf_schema_tables.py; the messages at its end (the authorization/authentication
// reviews kubectl auth sends, and the runtime messages) by hand.
//
// Table syntax, one message per block:
//   Name                       message header (column 0)
//     <number> <json> <type>   field; type = s | b | i32 | i64 | bool | Time | MicroTime |
//                              Quantity | IntOrString | Raw | <MessageName>
//   type prefixes:  []  repeated      map:  map<string, type>
//   type suffixes:  ?   pointer, omitted when absent      ?!  pointer without omitempty (null)
//                   !   no omitempty (zero value shown)   ~   embedded inline struct
// Non-pointer structs (messages, Time, IntOrString, ...) are always rendered, as in Go.
#include "api/protobuf_schema.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace ksched::api::protobuf::schema {
namespace {

constexpr std::string_view kTables = R"(
Namespace
  1 metadata ObjectMeta
  2 spec NamespaceSpec
  3 status NamespaceStatus
ObjectMeta
  1 name s
  2 generateName s
  3 namespace s
  4 selfLink s
  5 uid s
  6 resourceVersion s
  7 generation i64
  8 creationTimestamp Time
  9 deletionTimestamp Time?
  10 deletionGracePeriodSeconds i64?
  11 labels map:s
  12 annotations map:s
  13 ownerReferences []OwnerReference
  14 finalizers []s
  17 managedFields []ManagedFieldsEntry
NamespaceSpec
  1 finalizers []s
NamespaceStatus
  1 phase s
  2 conditions []NamespaceCondition
OwnerReference
  5 apiVersion s!
  1 kind s!
  3 name s!
  4 uid s!
  6 controller bool?
  7 blockOwnerDeletion bool?
ManagedFieldsEntry
  1 manager s
  2 operation s
  3 apiVersion s
  4 time Time?
  6 fieldsType s
  7 fieldsV1 Raw?
  8 subresource s
NamespaceCondition
  1 type s!
  2 status s!
  4 lastTransitionTime Time
  5 reason s
  6 message s
NamespaceList
  1 metadata ListMeta
  2 items []Namespace!
ListMeta
  1 selfLink s
  2 resourceVersion s
  3 continue s
  4 remainingItemCount i64?
ConfigMap
  1 metadata ObjectMeta
  4 immutable bool?
  2 data map:s
  3 binaryData map:b
Secret
  1 metadata ObjectMeta
  5 immutable bool?
  2 data map:b
  4 stringData map:s
  3 type s
ServiceAccount
  1 metadata ObjectMeta
  2 secrets []ObjectReference
  3 imagePullSecrets []LocalObjectReference
  4 automountServiceAccountToken bool?
ObjectReference
  1 kind s
  2 namespace s
  3 name s
  4 uid s
  5 apiVersion s
  6 resourceVersion s
  7 fieldPath s
LocalObjectReference
  1 name s
Service
  1 metadata ObjectMeta
  2 spec ServiceSpec
  3 status ServiceStatus
ServiceSpec
  1 ports []ServicePort
  2 selector map:s
  3 clusterIP s
  18 clusterIPs []s
  4 type s
  5 externalIPs []s
  7 sessionAffinity s
  8 loadBalancerIP s
  9 loadBalancerSourceRanges []s
  10 externalName s
  11 externalTrafficPolicy s
  12 healthCheckNodePort i32
  13 publishNotReadyAddresses bool
  14 sessionAffinityConfig SessionAffinityConfig?
  19 ipFamilies []s
  17 ipFamilyPolicy s?
  20 allocateLoadBalancerNodePorts bool?
  21 loadBalancerClass s?
  22 internalTrafficPolicy s?
  23 trafficDistribution s?
ServiceStatus
  1 loadBalancer LoadBalancerStatus
  2 conditions []Condition
ServicePort
  1 name s
  2 protocol s
  6 appProtocol s?
  3 port i32!
  4 targetPort IntOrString
  5 nodePort i32
SessionAffinityConfig
  1 clientIP ClientIPConfig?
LoadBalancerStatus
  1 ingress []LoadBalancerIngress
Condition
  1 type s!
  2 status s!
  3 observedGeneration i64
  4 lastTransitionTime Time
  5 reason s!
  6 message s!
ClientIPConfig
  1 timeoutSeconds i32?
LoadBalancerIngress
  1 ip s
  2 hostname s
  3 ipMode s?
  4 ports []PortStatus
PortStatus
  1 port i32!
  2 protocol s!
  3 error s?
ServiceList
  1 metadata ListMeta
  2 items []Service!
ResourceQuota
  1 metadata ObjectMeta
  2 spec ResourceQuotaSpec
  3 status ResourceQuotaStatus
ResourceQuotaSpec
  1 hard map:Quantity
  2 scopes []s
  3 scopeSelector ScopeSelector?
ResourceQuotaStatus
  1 hard map:Quantity
  2 used map:Quantity
ScopeSelector
  1 matchExpressions []ScopedResourceSelectorRequirement
ScopedResourceSelectorRequirement
  1 scopeName s!
  2 operator s!
  3 values []s
Binding
  1 metadata ObjectMeta
  2 target ObjectReference
Pod
  1 metadata ObjectMeta
  2 spec PodSpec
  3 status PodStatus
PodSpec
  1 volumes []Volume
  20 initContainers []Container
  2 containers []Container!
  34 ephemeralContainers []EphemeralContainer
  3 restartPolicy s
  4 terminationGracePeriodSeconds i64?
  5 activeDeadlineSeconds i64?
  6 dnsPolicy s
  7 nodeSelector map:s
  8 serviceAccountName s
  9 serviceAccount s
  21 automountServiceAccountToken bool?
  10 nodeName s
  11 hostNetwork bool
  12 hostPID bool
  13 hostIPC bool
  27 shareProcessNamespace bool?
  14 securityContext PodSecurityContext?
  15 imagePullSecrets []LocalObjectReference
  16 hostname s
  17 subdomain s
  18 affinity Affinity?
  19 schedulerName s
  22 tolerations []Toleration
  23 hostAliases []HostAlias
  24 priorityClassName s
  25 priority i32?
  26 dnsConfig PodDNSConfig?
  28 readinessGates []PodReadinessGate
  29 runtimeClassName s?
  30 enableServiceLinks bool?
  31 preemptionPolicy s?
  32 overhead map:Quantity
  33 topologySpreadConstraints []TopologySpreadConstraint
  35 setHostnameAsFQDN bool?
  36 os PodOS?
  37 hostUsers bool?
  38 schedulingGates []PodSchedulingGate
  39 resourceClaims []PodResourceClaim
  40 resources ResourceRequirements?
  41 hostnameOverride s?
  42 workloadRef WorkloadReference?
  43 schedulingGroup PodSchedulingGroup?
PodStatus
  17 observedGeneration i64
  1 phase s
  2 conditions []PodCondition
  3 message s
  4 reason s
  11 nominatedNodeName s
  5 hostIP s
  16 hostIPs []HostIP
  6 podIP s
  12 podIPs []PodIP
  7 startTime Time?
  10 initContainerStatuses []ContainerStatus
  8 containerStatuses []ContainerStatus
  9 qosClass s
  13 ephemeralContainerStatuses []ContainerStatus
  14 resize s
  15 resourceClaimStatuses []PodResourceClaimStatus
  18 extendedResourceClaimStatus PodExtendedResourceClaimStatus?
  19 allocatedResources map:Quantity
  20 resources ResourceRequirements?
Volume
  1 name s!
  2 volumeSource VolumeSource~
Container
  1 name s!
  2 image s
  3 command []s
  4 args []s
  5 workingDir s
  6 ports []ContainerPort
  19 envFrom []EnvFromSource
  7 env []EnvVar
  8 resources ResourceRequirements
  23 resizePolicy []ContainerResizePolicy
  24 restartPolicy s?
  25 restartPolicyRules []ContainerRestartRule
  9 volumeMounts []VolumeMount
  21 volumeDevices []VolumeDevice
  10 livenessProbe Probe?
  11 readinessProbe Probe?
  22 startupProbe Probe?
  12 lifecycle Lifecycle?
  13 terminationMessagePath s
  20 terminationMessagePolicy s
  14 imagePullPolicy s
  15 securityContext SecurityContext?
  16 stdin bool
  17 stdinOnce bool
  18 tty bool
EphemeralContainer
  1 ephemeralContainerCommon EphemeralContainerCommon~
  2 targetContainerName s
PodSecurityContext
  1 seLinuxOptions SELinuxOptions?
  8 windowsOptions WindowsSecurityContextOptions?
  2 runAsUser i64?
  6 runAsGroup i64?
  3 runAsNonRoot bool?
  4 supplementalGroups []i64
  12 supplementalGroupsPolicy s?
  5 fsGroup i64?
  7 sysctls []Sysctl
  9 fsGroupChangePolicy s?
  10 seccompProfile SeccompProfile?
  11 appArmorProfile AppArmorProfile?
  13 seLinuxChangePolicy s?
Affinity
  1 nodeAffinity NodeAffinity?
  2 podAffinity PodAffinity?
  3 podAntiAffinity PodAntiAffinity?
Toleration
  1 key s
  2 operator s
  3 value s
  4 effect s
  5 tolerationSeconds i64?
HostAlias
  1 ip s!
  2 hostnames []s
PodDNSConfig
  1 nameservers []s
  2 searches []s
  3 options []PodDNSConfigOption
PodReadinessGate
  1 conditionType s!
TopologySpreadConstraint
  1 maxSkew i32!
  2 topologyKey s!
  3 whenUnsatisfiable s!
  4 labelSelector LabelSelector?
  5 minDomains i32?
  6 nodeAffinityPolicy s?
  7 nodeTaintsPolicy s?
  8 matchLabelKeys []s
PodOS
  1 name s!
PodSchedulingGate
  1 name s!
PodResourceClaim
  1 name s!
  3 resourceClaimName s?
  4 resourceClaimTemplateName s?
ResourceRequirements
  1 limits map:Quantity
  2 requests map:Quantity
  3 claims []ResourceClaim
WorkloadReference
  1 name s!
  2 podGroup s!
  3 podGroupReplicaKey s
PodSchedulingGroup
  1 podGroupName s?
PodCondition
  1 type s!
  7 observedGeneration i64
  2 status s!
  3 lastProbeTime Time
  4 lastTransitionTime Time
  5 reason s
  6 message s
HostIP
  1 ip s!
PodIP
  1 ip s!
ContainerStatus
  1 name s!
  2 state ContainerState
  3 lastState ContainerState
  4 ready bool!
  5 restartCount i32!
  6 image s!
  7 imageID s!
  8 containerID s
  9 started bool?
  10 allocatedResources map:Quantity
  11 resources ResourceRequirements?
  12 volumeMounts []VolumeMountStatus
  13 user ContainerUser?
  14 allocatedResourcesStatus []ResourceStatus
  15 stopSignal s?
PodResourceClaimStatus
  1 name s!
  2 resourceClaimName s?
PodExtendedResourceClaimStatus
  1 requestMappings []ContainerExtendedResourceRequest!
  2 resourceClaimName s!
VolumeSource
  1 hostPath HostPathVolumeSource?
  2 emptyDir EmptyDirVolumeSource?
  3 gcePersistentDisk GCEPersistentDiskVolumeSource?
  4 awsElasticBlockStore AWSElasticBlockStoreVolumeSource?
  5 gitRepo GitRepoVolumeSource?
  6 secret SecretVolumeSource?
  7 nfs NFSVolumeSource?
  8 iscsi ISCSIVolumeSource?
  9 glusterfs GlusterfsVolumeSource?
  10 persistentVolumeClaim PersistentVolumeClaimVolumeSource?
  11 rbd RBDVolumeSource?
  12 flexVolume FlexVolumeSource?
  13 cinder CinderVolumeSource?
  14 cephfs CephFSVolumeSource?
  15 flocker FlockerVolumeSource?
  16 downwardAPI DownwardAPIVolumeSource?
  17 fc FCVolumeSource?
  18 azureFile AzureFileVolumeSource?
  19 configMap ConfigMapVolumeSource?
  20 vsphereVolume VsphereVirtualDiskVolumeSource?
  21 quobyte QuobyteVolumeSource?
  22 azureDisk AzureDiskVolumeSource?
  23 photonPersistentDisk PhotonPersistentDiskVolumeSource?
  26 projected ProjectedVolumeSource?
  24 portworxVolume PortworxVolumeSource?
  25 scaleIO ScaleIOVolumeSource?
  27 storageos StorageOSVolumeSource?
  28 csi CSIVolumeSource?
  29 ephemeral EphemeralVolumeSource?
  30 image ImageVolumeSource?
ContainerPort
  1 name s
  2 hostPort i32
  3 containerPort i32!
  4 protocol s
  5 hostIP s
EnvFromSource
  1 prefix s
  2 configMapRef ConfigMapEnvSource?
  3 secretRef SecretEnvSource?
EnvVar
  1 name s!
  2 value s
  3 valueFrom EnvVarSource?
ContainerResizePolicy
  1 resourceName s!
  2 restartPolicy s!
ContainerRestartRule
  1 action s
  2 exitCodes ContainerRestartRuleOnExitCodes?
VolumeMount
  1 name s!
  2 readOnly bool
  7 recursiveReadOnly s?
  3 mountPath s!
  4 subPath s
  5 mountPropagation s?
  6 subPathExpr s
VolumeDevice
  1 name s!
  2 devicePath s!
Probe
  1 probeHandler ProbeHandler~
  2 initialDelaySeconds i32
  3 timeoutSeconds i32
  4 periodSeconds i32
  5 successThreshold i32
  6 failureThreshold i32
  7 terminationGracePeriodSeconds i64?
Lifecycle
  1 postStart LifecycleHandler?
  2 preStop LifecycleHandler?
  3 stopSignal s?
SecurityContext
  1 capabilities Capabilities?
  2 privileged bool?
  3 seLinuxOptions SELinuxOptions?
  10 windowsOptions WindowsSecurityContextOptions?
  4 runAsUser i64?
  8 runAsGroup i64?
  5 runAsNonRoot bool?
  6 readOnlyRootFilesystem bool?
  7 allowPrivilegeEscalation bool?
  9 procMount s?
  11 seccompProfile SeccompProfile?
  12 appArmorProfile AppArmorProfile?
EphemeralContainerCommon
  1 name s!
  2 image s
  3 command []s
  4 args []s
  5 workingDir s
  6 ports []ContainerPort
  19 envFrom []EnvFromSource
  7 env []EnvVar
  8 resources ResourceRequirements
  23 resizePolicy []ContainerResizePolicy
  24 restartPolicy s?
  25 restartPolicyRules []ContainerRestartRule
  9 volumeMounts []VolumeMount
  21 volumeDevices []VolumeDevice
  10 livenessProbe Probe?
  11 readinessProbe Probe?
  22 startupProbe Probe?
  12 lifecycle Lifecycle?
  13 terminationMessagePath s
  20 terminationMessagePolicy s
  14 imagePullPolicy s
  15 securityContext SecurityContext?
  16 stdin bool
  17 stdinOnce bool
  18 tty bool
SELinuxOptions
  1 user s
  2 role s
  3 type s
  4 level s
WindowsSecurityContextOptions
  1 gmsaCredentialSpecName s?
  2 gmsaCredentialSpec s?
  3 runAsUserName s?
  4 hostProcess bool?
Sysctl
  1 name s!
  2 value s!
SeccompProfile
  1 type s!
  2 localhostProfile s?
AppArmorProfile
  1 type s!
  2 localhostProfile s?
NodeAffinity
  1 requiredDuringSchedulingIgnoredDuringExecution NodeSelector?
  2 preferredDuringSchedulingIgnoredDuringExecution []PreferredSchedulingTerm
PodAffinity
  1 requiredDuringSchedulingIgnoredDuringExecution []PodAffinityTerm
  2 preferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm
PodAntiAffinity
  1 requiredDuringSchedulingIgnoredDuringExecution []PodAffinityTerm
  2 preferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm
PodDNSConfigOption
  1 name s
  2 value s?
LabelSelector
  1 matchLabels map:s
  2 matchExpressions []LabelSelectorRequirement
ResourceClaim
  1 name s!
  2 request s
ContainerState
  1 waiting ContainerStateWaiting?
  2 running ContainerStateRunning?
  3 terminated ContainerStateTerminated?
VolumeMountStatus
  1 name s!
  2 mountPath s!
  3 readOnly bool
  4 recursiveReadOnly s?
ContainerUser
  1 linux LinuxContainerUser?
ResourceStatus
  1 name s!
  2 resources []ResourceHealth
ContainerExtendedResourceRequest
  1 containerName s!
  2 resourceName s!
  3 requestName s!
HostPathVolumeSource
  1 path s!
  2 type s?
EmptyDirVolumeSource
  1 medium s
  2 sizeLimit Quantity?
GCEPersistentDiskVolumeSource
  1 pdName s!
  2 fsType s
  3 partition i32
  4 readOnly bool
AWSElasticBlockStoreVolumeSource
  1 volumeID s!
  2 fsType s
  3 partition i32
  4 readOnly bool
GitRepoVolumeSource
  1 repository s!
  2 revision s
  3 directory s
SecretVolumeSource
  1 secretName s
  2 items []KeyToPath
  3 defaultMode i32?
  4 optional bool?
NFSVolumeSource
  1 server s!
  2 path s!
  3 readOnly bool
ISCSIVolumeSource
  1 targetPortal s!
  2 iqn s!
  3 lun i32!
  4 iscsiInterface s
  5 fsType s
  6 readOnly bool
  7 portals []s
  8 chapAuthDiscovery bool
  11 chapAuthSession bool
  10 secretRef LocalObjectReference?
  12 initiatorName s?
GlusterfsVolumeSource
  1 endpoints s!
  2 path s!
  3 readOnly bool
PersistentVolumeClaimVolumeSource
  1 claimName s!
  2 readOnly bool
RBDVolumeSource
  1 monitors []s!
  2 image s!
  3 fsType s
  4 pool s
  5 user s
  6 keyring s
  7 secretRef LocalObjectReference?
  8 readOnly bool
FlexVolumeSource
  1 driver s!
  2 fsType s
  3 secretRef LocalObjectReference?
  4 readOnly bool
  5 options map:s
CinderVolumeSource
  1 volumeID s!
  2 fsType s
  3 readOnly bool
  4 secretRef LocalObjectReference?
CephFSVolumeSource
  1 monitors []s!
  2 path s
  3 user s
  4 secretFile s
  5 secretRef LocalObjectReference?
  6 readOnly bool
FlockerVolumeSource
  1 datasetName s
  2 datasetUUID s
DownwardAPIVolumeSource
  1 items []DownwardAPIVolumeFile
  2 defaultMode i32?
FCVolumeSource
  1 targetWWNs []s
  2 lun i32?
  3 fsType s
  4 readOnly bool
  5 wwids []s
AzureFileVolumeSource
  1 secretName s!
  2 shareName s!
  3 readOnly bool
ConfigMapVolumeSource
  1 localObjectReference LocalObjectReference~
  2 items []KeyToPath
  3 defaultMode i32?
  4 optional bool?
VsphereVirtualDiskVolumeSource
  1 volumePath s!
  2 fsType s
  3 storagePolicyName s
  4 storagePolicyID s
QuobyteVolumeSource
  1 registry s!
  2 volume s!
  3 readOnly bool
  4 user s
  5 group s
  6 tenant s
AzureDiskVolumeSource
  1 diskName s!
  2 diskURI s!
  3 cachingMode s?
  4 fsType s?
  5 readOnly bool?
  6 kind s?
PhotonPersistentDiskVolumeSource
  1 pdID s!
  2 fsType s
ProjectedVolumeSource
  1 sources []VolumeProjection!
  2 defaultMode i32?
PortworxVolumeSource
  1 volumeID s!
  2 fsType s
  3 readOnly bool
ScaleIOVolumeSource
  1 gateway s!
  2 system s!
  3 secretRef LocalObjectReference?!
  4 sslEnabled bool
  5 protectionDomain s
  6 storagePool s
  7 storageMode s
  8 volumeName s
  9 fsType s
  10 readOnly bool
StorageOSVolumeSource
  1 volumeName s
  2 volumeNamespace s
  3 fsType s
  4 readOnly bool
  5 secretRef LocalObjectReference?
CSIVolumeSource
  1 driver s!
  2 readOnly bool?
  3 fsType s?
  4 volumeAttributes map:s
  5 nodePublishSecretRef LocalObjectReference?
EphemeralVolumeSource
  1 volumeClaimTemplate PersistentVolumeClaimTemplate?
ImageVolumeSource
  1 reference s
  2 pullPolicy s
ConfigMapEnvSource
  1 localObjectReference LocalObjectReference~
  2 optional bool?
SecretEnvSource
  1 localObjectReference LocalObjectReference~
  2 optional bool?
EnvVarSource
  1 fieldRef ObjectFieldSelector?
  2 resourceFieldRef ResourceFieldSelector?
  3 configMapKeyRef ConfigMapKeySelector?
  4 secretKeyRef SecretKeySelector?
  5 fileKeyRef FileKeySelector?
ContainerRestartRuleOnExitCodes
  1 operator s
  2 values []i32
ProbeHandler
  1 exec ExecAction?
  2 httpGet HTTPGetAction?
  3 tcpSocket TCPSocketAction?
  4 grpc GRPCAction?
LifecycleHandler
  1 exec ExecAction?
  2 httpGet HTTPGetAction?
  3 tcpSocket TCPSocketAction?
  4 sleep SleepAction?
Capabilities
  1 add []s
  2 drop []s
NodeSelector
  1 nodeSelectorTerms []NodeSelectorTerm!
PreferredSchedulingTerm
  1 weight i32!
  2 preference NodeSelectorTerm
PodAffinityTerm
  1 labelSelector LabelSelector?
  2 namespaces []s
  3 topologyKey s!
  4 namespaceSelector LabelSelector?
  5 matchLabelKeys []s
  6 mismatchLabelKeys []s
WeightedPodAffinityTerm
  1 weight i32!
  2 podAffinityTerm PodAffinityTerm
LabelSelectorRequirement
  1 key s!
  2 operator s!
  3 values []s
ContainerStateWaiting
  1 reason s
  2 message s
ContainerStateRunning
  1 startedAt Time
ContainerStateTerminated
  1 exitCode i32!
  2 signal i32
  3 reason s
  4 message s
  5 startedAt Time
  6 finishedAt Time
  7 containerID s
LinuxContainerUser
  1 uid i64!
  2 gid i64!
  3 supplementalGroups []i64
ResourceHealth
  1 resourceID s!
  2 health s
KeyToPath
  1 key s!
  2 path s!
  3 mode i32?
DownwardAPIVolumeFile
  1 path s!
  2 fieldRef ObjectFieldSelector?
  3 resourceFieldRef ResourceFieldSelector?
  4 mode i32?
VolumeProjection
  1 secret SecretProjection?
  2 downwardAPI DownwardAPIProjection?
  3 configMap ConfigMapProjection?
  4 serviceAccountToken ServiceAccountTokenProjection?
  5 clusterTrustBundle ClusterTrustBundleProjection?
  6 podCertificate PodCertificateProjection?
PersistentVolumeClaimTemplate
  1 metadata ObjectMeta
  2 spec PersistentVolumeClaimSpec
ObjectFieldSelector
  1 apiVersion s
  2 fieldPath s!
ResourceFieldSelector
  1 containerName s
  2 resource s!
  3 divisor Quantity
ConfigMapKeySelector
  1 localObjectReference LocalObjectReference~
  2 key s!
  3 optional bool?
SecretKeySelector
  1 localObjectReference LocalObjectReference~
  2 key s!
  3 optional bool?
FileKeySelector
  1 volumeName s!
  2 path s!
  3 key s!
  4 optional bool?
ExecAction
  1 command []s
HTTPGetAction
  1 path s
  2 port IntOrString
  3 host s
  4 scheme s
  5 httpHeaders []HTTPHeader
TCPSocketAction
  1 port IntOrString
  2 host s
GRPCAction
  1 port i32!
  2 service s?!
SleepAction
  1 seconds i64!
NodeSelectorTerm
  1 matchExpressions []NodeSelectorRequirement
  2 matchFields []NodeSelectorRequirement
SecretProjection
  1 localObjectReference LocalObjectReference~
  2 items []KeyToPath
  4 optional bool?
DownwardAPIProjection
  1 items []DownwardAPIVolumeFile
ConfigMapProjection
  1 localObjectReference LocalObjectReference~
  2 items []KeyToPath
  4 optional bool?
ServiceAccountTokenProjection
  1 audience s
  2 expirationSeconds i64?
  3 path s!
ClusterTrustBundleProjection
  1 name s?
  2 signerName s?
  3 labelSelector LabelSelector?
  5 optional bool?
  4 path s!
PodCertificateProjection
  1 signerName s
  2 keyType s
  3 maxExpirationSeconds i32?
  4 credentialBundlePath s
  5 keyPath s
  6 certificateChainPath s
  7 userAnnotations map:s
PersistentVolumeClaimSpec
  1 accessModes []s
  4 selector LabelSelector?
  2 resources VolumeResourceRequirements
  3 volumeName s
  5 storageClassName s?
  6 volumeMode s?
  7 dataSource TypedLocalObjectReference?
  8 dataSourceRef TypedObjectReference?
  9 volumeAttributesClassName s?
HTTPHeader
  1 name s!
  2 value s!
NodeSelectorRequirement
  1 key s!
  2 operator s!
  3 values []s
VolumeResourceRequirements
  1 limits map:Quantity
  2 requests map:Quantity
TypedLocalObjectReference
  1 apiGroup s?!
  2 kind s!
  3 name s!
TypedObjectReference
  1 apiGroup s?!
  2 kind s!
  3 name s!
  4 namespace s?
PodList
  1 metadata ListMeta
  2 items []Pod!
Node
  1 metadata ObjectMeta
  2 spec NodeSpec
  3 status NodeStatus
NodeSpec
  1 podCIDR s
  7 podCIDRs []s
  3 providerID s
  4 unschedulable bool
  5 taints []Taint
  6 configSource NodeConfigSource?
  2 externalID s
NodeStatus
  1 capacity map:Quantity
  2 allocatable map:Quantity
  3 phase s
  4 conditions []NodeCondition
  5 addresses []NodeAddress
  6 daemonEndpoints NodeDaemonEndpoints
  7 nodeInfo NodeSystemInfo
  8 images []ContainerImage
  9 volumesInUse []s
  10 volumesAttached []AttachedVolume
  11 config NodeConfigStatus?
  12 runtimeHandlers []NodeRuntimeHandler
  13 features NodeFeatures?
  14 declaredFeatures []s
Taint
  1 key s!
  2 value s
  3 effect s!
  4 timeAdded Time?
NodeConfigSource
  2 configMap ConfigMapNodeConfigSource?
NodeCondition
  1 type s!
  2 status s!
  3 lastHeartbeatTime Time
  4 lastTransitionTime Time
  5 reason s
  6 message s
NodeAddress
  1 type s!
  2 address s!
NodeDaemonEndpoints
  1 kubeletEndpoint DaemonEndpoint
NodeSystemInfo
  1 machineID s!
  2 systemUUID s!
  3 bootID s!
  4 kernelVersion s!
  5 osImage s!
  6 containerRuntimeVersion s!
  7 kubeletVersion s!
  8 kubeProxyVersion s!
  9 operatingSystem s!
  10 architecture s!
  11 swap NodeSwapStatus?
ContainerImage
  1 names []s!
  2 sizeBytes i64
AttachedVolume
  1 name s!
  2 devicePath s!
NodeConfigStatus
  1 assigned NodeConfigSource?
  2 active NodeConfigSource?
  3 lastKnownGood NodeConfigSource?
  4 error s
NodeRuntimeHandler
  1 name s!
  2 features NodeRuntimeHandlerFeatures?
NodeFeatures
  1 supplementalGroupsPolicy bool?
ConfigMapNodeConfigSource
  1 namespace s!
  2 name s!
  3 uid s
  4 resourceVersion s
  5 kubeletConfigKey s!
DaemonEndpoint
  1 Port i32!
NodeSwapStatus
  1 capacity i64?
NodeRuntimeHandlerFeatures
  1 recursiveReadOnlyMounts bool?
  2 userNamespaces bool?
NodeList
  1 metadata ListMeta
  2 items []Node!
CoreEvent
  1 metadata ObjectMeta
  2 involvedObject ObjectReference
  3 reason s
  4 message s
  5 source EventSource
  6 firstTimestamp Time
  7 lastTimestamp Time
  8 count i32
  9 type s
  10 eventTime MicroTime
  11 series CoreEventSeries?
  12 action s
  13 related ObjectReference?
  14 reportingComponent s!
  15 reportingInstance s!
EventSource
  1 component s
  2 host s
CoreEventSeries
  1 count i32
  2 lastObservedTime MicroTime
CoreEventList
  1 metadata ListMeta
  2 items []CoreEvent!
ReplicationController
  1 metadata ObjectMeta
  2 spec ReplicationControllerSpec
  3 status ReplicationControllerStatus
ReplicationControllerSpec
  1 replicas i32?
  4 minReadySeconds i32
  2 selector map:s
  3 template PodTemplateSpec?
ReplicationControllerStatus
  1 replicas i32!
  2 fullyLabeledReplicas i32
  4 readyReplicas i32
  5 availableReplicas i32
  3 observedGeneration i64
  6 conditions []ReplicationControllerCondition
PodTemplateSpec
  1 metadata ObjectMeta
  2 spec PodSpec
ReplicationControllerCondition
  1 type s!
  2 status s!
  3 lastTransitionTime Time
  4 reason s
  5 message s
ReplicationControllerList
  1 metadata ListMeta
  2 items []ReplicationController!
PersistentVolume
  1 metadata ObjectMeta
  2 spec PersistentVolumeSpec
  3 status PersistentVolumeStatus
PersistentVolumeSpec
  1 capacity map:Quantity
  2 persistentVolumeSource PersistentVolumeSource~
  3 accessModes []s
  4 claimRef ObjectReference?
  5 persistentVolumeReclaimPolicy s
  6 storageClassName s
  7 mountOptions []s
  8 volumeMode s?
  9 nodeAffinity VolumeNodeAffinity?
  10 volumeAttributesClassName s?
PersistentVolumeStatus
  1 phase s
  2 message s
  3 reason s
  4 lastPhaseTransitionTime Time?
PersistentVolumeSource
  1 gcePersistentDisk GCEPersistentDiskVolumeSource?
  2 awsElasticBlockStore AWSElasticBlockStoreVolumeSource?
  3 hostPath HostPathVolumeSource?
  4 glusterfs GlusterfsPersistentVolumeSource?
  5 nfs NFSVolumeSource?
  6 rbd RBDPersistentVolumeSource?
  7 iscsi ISCSIPersistentVolumeSource?
  8 cinder CinderPersistentVolumeSource?
  9 cephfs CephFSPersistentVolumeSource?
  10 fc FCVolumeSource?
  11 flocker FlockerVolumeSource?
  12 flexVolume FlexPersistentVolumeSource?
  13 azureFile AzureFilePersistentVolumeSource?
  14 vsphereVolume VsphereVirtualDiskVolumeSource?
  15 quobyte QuobyteVolumeSource?
  16 azureDisk AzureDiskVolumeSource?
  17 photonPersistentDisk PhotonPersistentDiskVolumeSource?
  18 portworxVolume PortworxVolumeSource?
  19 scaleIO ScaleIOPersistentVolumeSource?
  20 local LocalVolumeSource?
  21 storageos StorageOSPersistentVolumeSource?
  22 csi CSIPersistentVolumeSource?
VolumeNodeAffinity
  1 required NodeSelector?
GlusterfsPersistentVolumeSource
  1 endpoints s!
  2 path s!
  3 readOnly bool
  4 endpointsNamespace s?
RBDPersistentVolumeSource
  1 monitors []s!
  2 image s!
  3 fsType s
  4 pool s
  5 user s
  6 keyring s
  7 secretRef SecretReference?
  8 readOnly bool
ISCSIPersistentVolumeSource
  1 targetPortal s!
  2 iqn s!
  3 lun i32!
  4 iscsiInterface s
  5 fsType s
  6 readOnly bool
  7 portals []s
  8 chapAuthDiscovery bool
  11 chapAuthSession bool
  10 secretRef SecretReference?
  12 initiatorName s?
CinderPersistentVolumeSource
  1 volumeID s!
  2 fsType s
  3 readOnly bool
  4 secretRef SecretReference?
CephFSPersistentVolumeSource
  1 monitors []s!
  2 path s
  3 user s
  4 secretFile s
  5 secretRef SecretReference?
  6 readOnly bool
FlexPersistentVolumeSource
  1 driver s!
  2 fsType s
  3 secretRef SecretReference?
  4 readOnly bool
  5 options map:s
AzureFilePersistentVolumeSource
  1 secretName s!
  2 shareName s!
  3 readOnly bool
  4 secretNamespace s?!
ScaleIOPersistentVolumeSource
  1 gateway s!
  2 system s!
  3 secretRef SecretReference?!
  4 sslEnabled bool
  5 protectionDomain s
  6 storagePool s
  7 storageMode s
  8 volumeName s
  9 fsType s
  10 readOnly bool
LocalVolumeSource
  1 path s!
  2 fsType s?
StorageOSPersistentVolumeSource
  1 volumeName s
  2 volumeNamespace s
  3 fsType s
  4 readOnly bool
  5 secretRef ObjectReference?
CSIPersistentVolumeSource
  1 driver s!
  2 volumeHandle s!
  3 readOnly bool
  4 fsType s
  5 volumeAttributes map:s
  6 controllerPublishSecretRef SecretReference?
  7 nodeStageSecretRef SecretReference?
  8 nodePublishSecretRef SecretReference?
  9 controllerExpandSecretRef SecretReference?
  10 nodeExpandSecretRef SecretReference?
SecretReference
  1 name s
  2 namespace s
PersistentVolumeList
  1 metadata ListMeta
  2 items []PersistentVolume!
PersistentVolumeClaim
  1 metadata ObjectMeta
  2 spec PersistentVolumeClaimSpec
  3 status PersistentVolumeClaimStatus
PersistentVolumeClaimStatus
  1 phase s
  2 accessModes []s
  3 capacity map:Quantity
  4 conditions []PersistentVolumeClaimCondition
  5 allocatedResources map:Quantity
  7 allocatedResourceStatuses map:s
  8 currentVolumeAttributesClassName s?
  9 modifyVolumeStatus ModifyVolumeStatus?
PersistentVolumeClaimCondition
  1 type s!
  2 status s!
  3 lastProbeTime Time
  4 lastTransitionTime Time
  5 reason s
  6 message s
ModifyVolumeStatus
  1 targetVolumeAttributesClassName s
  2 status s!
PersistentVolumeClaimList
  1 metadata ListMeta
  2 items []PersistentVolumeClaim!
Deployment
  1 metadata ObjectMeta
  2 spec DeploymentSpec
  3 status DeploymentStatus
DeploymentSpec
  1 replicas i32?
  2 selector LabelSelector?!
  3 template PodTemplateSpec
  4 strategy DeploymentStrategy
  5 minReadySeconds i32
  6 revisionHistoryLimit i32?
  7 paused bool
  9 progressDeadlineSeconds i32?
DeploymentStatus
  1 observedGeneration i64
  2 replicas i32
  3 updatedReplicas i32
  7 readyReplicas i32
  4 availableReplicas i32
  5 unavailableReplicas i32
  9 terminatingReplicas i32?
  6 conditions []DeploymentCondition
  8 collisionCount i32?
DeploymentStrategy
  1 type s
  2 rollingUpdate RollingUpdateDeployment?
DeploymentCondition
  1 type s!
  2 status s!
  6 lastUpdateTime Time
  7 lastTransitionTime Time
  4 reason s
  5 message s
RollingUpdateDeployment
  1 maxUnavailable IntOrString?
  2 maxSurge IntOrString?
DeploymentList
  1 metadata ListMeta
  2 items []Deployment!
ReplicaSet
  1 metadata ObjectMeta
  2 spec ReplicaSetSpec
  3 status ReplicaSetStatus
ReplicaSetSpec
  1 replicas i32?
  4 minReadySeconds i32
  2 selector LabelSelector?!
  3 template PodTemplateSpec
ReplicaSetStatus
  1 replicas i32!
  2 fullyLabeledReplicas i32
  4 readyReplicas i32
  5 availableReplicas i32
  7 terminatingReplicas i32?
  3 observedGeneration i64
  6 conditions []ReplicaSetCondition
ReplicaSetCondition
  1 type s!
  2 status s!
  3 lastTransitionTime Time
  4 reason s
  5 message s
ReplicaSetList
  1 metadata ListMeta
  2 items []ReplicaSet!
StatefulSet
  1 metadata ObjectMeta
  2 spec StatefulSetSpec
  3 status StatefulSetStatus
StatefulSetSpec
  1 replicas i32?
  2 selector LabelSelector?!
  3 template PodTemplateSpec
  4 volumeClaimTemplates []PersistentVolumeClaim
  5 serviceName s!
  6 podManagementPolicy s
  7 updateStrategy StatefulSetUpdateStrategy
  8 revisionHistoryLimit i32?
  9 minReadySeconds i32
  10 persistentVolumeClaimRetentionPolicy StatefulSetPersistentVolumeClaimRetentionPolicy?
  11 ordinals StatefulSetOrdinals?
StatefulSetStatus
  1 observedGeneration i64
  2 replicas i32!
  3 readyReplicas i32
  4 currentReplicas i32
  5 updatedReplicas i32
  6 currentRevision s
  7 updateRevision s
  9 collisionCount i32?
  10 conditions []StatefulSetCondition
  11 availableReplicas i32!
StatefulSetUpdateStrategy
  1 type s
  2 rollingUpdate RollingUpdateStatefulSetStrategy?
StatefulSetPersistentVolumeClaimRetentionPolicy
  1 whenDeleted s
  2 whenScaled s
StatefulSetOrdinals
  1 start i32!
StatefulSetCondition
  1 type s!
  2 status s!
  3 lastTransitionTime Time
  4 reason s
  5 message s
RollingUpdateStatefulSetStrategy
  1 partition i32?
  2 maxUnavailable IntOrString?
StatefulSetList
  1 metadata ListMeta
  2 items []StatefulSet!
DaemonSet
  1 metadata ObjectMeta
  2 spec DaemonSetSpec
  3 status DaemonSetStatus
DaemonSetSpec
  1 selector LabelSelector?!
  2 template PodTemplateSpec
  3 updateStrategy DaemonSetUpdateStrategy
  4 minReadySeconds i32
  6 revisionHistoryLimit i32?
DaemonSetStatus
  1 currentNumberScheduled i32!
  2 numberMisscheduled i32!
  3 desiredNumberScheduled i32!
  4 numberReady i32!
  5 observedGeneration i64
  6 updatedNumberScheduled i32
  7 numberAvailable i32
  8 numberUnavailable i32
  9 collisionCount i32?
  10 conditions []DaemonSetCondition
DaemonSetUpdateStrategy
  1 type s
  2 rollingUpdate RollingUpdateDaemonSet?
DaemonSetCondition
  1 type s!
  2 status s!
  3 lastTransitionTime Time
  4 reason s
  5 message s
RollingUpdateDaemonSet
  1 maxUnavailable IntOrString?
  2 maxSurge IntOrString?
DaemonSetList
  1 metadata ListMeta
  2 items []DaemonSet!
Job
  1 metadata ObjectMeta
  2 spec JobSpec
  3 status JobStatus
JobSpec
  1 parallelism i32?
  2 completions i32?
  3 activeDeadlineSeconds i64?
  11 podFailurePolicy PodFailurePolicy?
  16 successPolicy SuccessPolicy?
  7 backoffLimit i32?
  12 backoffLimitPerIndex i32?
  13 maxFailedIndexes i32?
  4 selector LabelSelector?
  5 manualSelector bool?
  6 template PodTemplateSpec
  8 ttlSecondsAfterFinished i32?
  9 completionMode s?
  10 suspend bool?
  14 podReplacementPolicy s?
  15 managedBy s?
  17 scheduling JobSchedulingConfiguration?
JobStatus
  1 conditions []JobCondition
  2 startTime Time?
  3 completionTime Time?
  4 active i32
  5 succeeded i32
  6 failed i32
  11 terminating i32?
  7 completedIndexes s
  10 failedIndexes s?
  8 uncountedTerminatedPods UncountedTerminatedPods?
  9 ready i32?
PodFailurePolicy
  1 rules []PodFailurePolicyRule!
SuccessPolicy
  1 rules []SuccessPolicyRule!
JobSchedulingConfiguration
  1 schedulingPolicy WorkloadPodGroupSchedulingPolicy?
  2 schedulingConstraints WorkloadPodGroupSchedulingConstraints?
  3 disruptionMode WorkloadPodGroupDisruptionMode?
  4 resourceClaims []WorkloadPodGroupResourceClaim
JobCondition
  1 type s!
  2 status s!
  3 lastProbeTime Time
  4 lastTransitionTime Time
  5 reason s
  6 message s
UncountedTerminatedPods
  1 succeeded []s
  2 failed []s
PodFailurePolicyRule
  1 action s!
  2 onExitCodes PodFailurePolicyOnExitCodesRequirement?
  3 onPodConditions []PodFailurePolicyOnPodConditionsPattern
SuccessPolicyRule
  1 succeededIndexes s?
  2 succeededCount i32?
WorkloadPodGroupSchedulingPolicy
  1 basic WorkloadPodGroupBasicSchedulingPolicy?
  2 gang WorkloadPodGroupGangSchedulingPolicy?
WorkloadPodGroupSchedulingConstraints
  1 topology []V1alpha3TopologyConstraint
WorkloadPodGroupDisruptionMode
  1 single WorkloadPodGroupSingleDisruptionMode?
  2 all WorkloadPodGroupAllDisruptionMode?
WorkloadPodGroupResourceClaim
  1 name s!
  2 resourceClaimName s?
  3 resourceClaimTemplateName s?
PodFailurePolicyOnExitCodesRequirement
  1 containerName s?
  2 operator s!
  3 values []i32!
PodFailurePolicyOnPodConditionsPattern
  1 type s!
  2 status s!
WorkloadPodGroupBasicSchedulingPolicy
WorkloadPodGroupGangSchedulingPolicy
  1 minCount i32?
V1alpha3TopologyConstraint
  1 key s!
WorkloadPodGroupSingleDisruptionMode
WorkloadPodGroupAllDisruptionMode
CronJob
  1 metadata ObjectMeta
  2 spec CronJobSpec
  3 status CronJobStatus
CronJobSpec
  1 schedule s!
  8 timeZone s?
  2 startingDeadlineSeconds i64?
  3 concurrencyPolicy s
  4 suspend bool?
  5 jobTemplate JobTemplateSpec
  6 successfulJobsHistoryLimit i32?
  7 failedJobsHistoryLimit i32?
CronJobStatus
  1 active []ObjectReference
  4 lastScheduleTime Time?
  5 lastSuccessfulTime Time?
JobTemplateSpec
  1 metadata ObjectMeta
  2 spec JobSpec
PodDisruptionBudget
  1 metadata ObjectMeta
  2 spec PodDisruptionBudgetSpec
  3 status PodDisruptionBudgetStatus
PodDisruptionBudgetSpec
  1 minAvailable IntOrString?
  2 selector LabelSelector?
  3 maxUnavailable IntOrString?
  4 unhealthyPodEvictionPolicy s?
PodDisruptionBudgetStatus
  1 observedGeneration i64
  2 disruptedPods map:Time
  3 disruptionsAllowed i32!
  4 currentHealthy i32!
  5 desiredHealthy i32!
  6 expectedPods i32!
  7 conditions []Condition
PodDisruptionBudgetList
  1 metadata ListMeta
  2 items []PodDisruptionBudget!
Eviction
  1 metadata ObjectMeta
  2 deleteOptions DeleteOptions?
DeleteOptions
  1 gracePeriodSeconds i64?
  2 preconditions Preconditions?
  3 orphanDependents bool?
  4 propagationPolicy s?
  5 dryRun []s
  6 ignoreStoreReadErrorWithClusterBreakingPotential bool?
Preconditions
  1 uid s?
  2 resourceVersion s?
PriorityClass
  1 metadata ObjectMeta
  2 value i32!
  3 globalDefault bool
  4 description s
  5 preemptionPolicy s?
PriorityClassList
  1 metadata ListMeta
  2 items []PriorityClass!
RuntimeClass
  1 metadata ObjectMeta
  2 handler s!
  3 overhead Overhead?
  4 scheduling Scheduling?
Overhead
  1 podFixed map:Quantity
Scheduling
  1 nodeSelector map:s
  2 tolerations []Toleration
StorageClass
  1 metadata ObjectMeta
  2 provisioner s!
  3 parameters map:s
  4 reclaimPolicy s?
  5 mountOptions []s
  6 allowVolumeExpansion bool?
  7 volumeBindingMode s?
  8 allowedTopologies []TopologySelectorTerm
TopologySelectorTerm
  1 matchLabelExpressions []TopologySelectorLabelRequirement
TopologySelectorLabelRequirement
  1 key s!
  2 values []s!
StorageClassList
  1 metadata ListMeta
  2 items []StorageClass!
CSINode
  1 metadata ObjectMeta
  2 spec CSINodeSpec
CSINodeSpec
  1 drivers []CSINodeDriver!
CSINodeDriver
  1 name s!
  2 nodeID s!
  3 topologyKeys []s!
  4 allocatable VolumeNodeResources?
VolumeNodeResources
  1 count i32?
CSINodeList
  1 metadata ListMeta
  2 items []CSINode!
CSIDriver
  1 metadata ObjectMeta
  2 spec CSIDriverSpec
CSIDriverSpec
  1 attachRequired bool?
  2 podInfoOnMount bool?
  3 volumeLifecycleModes []s
  4 storageCapacity bool?
  5 fsGroupPolicy s?
  6 tokenRequests []TokenRequest
  7 requiresRepublish bool?
  8 seLinuxMount bool?
  9 nodeAllocatableUpdatePeriodSeconds i64?
  10 serviceAccountTokenInSecrets bool?
TokenRequest
  1 audience s!
  2 expirationSeconds i64?
CSIDriverList
  1 metadata ListMeta
  2 items []CSIDriver!
CSIStorageCapacity
  1 metadata ObjectMeta
  2 nodeTopology LabelSelector?
  3 storageClassName s!
  4 capacity Quantity?
  5 maximumVolumeSize Quantity?
CSIStorageCapacityList
  1 metadata ListMeta
  2 items []CSIStorageCapacity!
Lease
  1 metadata ObjectMeta
  2 spec LeaseSpec
LeaseSpec
  1 holderIdentity s?
  2 leaseDurationSeconds i32?
  3 acquireTime MicroTime?
  4 renewTime MicroTime?
  5 leaseTransitions i32?
  6 strategy s?
  7 preferredHolder s?
EventsEvent
  1 metadata ObjectMeta
  2 eventTime MicroTime
  3 series EventsEventSeries?
  4 reportingController s
  5 reportingInstance s
  6 action s
  7 reason s
  8 regarding ObjectReference
  9 related ObjectReference?
  10 note s
  11 type s
  12 deprecatedSource EventSource
  13 deprecatedFirstTimestamp Time
  14 deprecatedLastTimestamp Time
  15 deprecatedCount i32
EventsEventSeries
  1 count i32!
  2 lastObservedTime MicroTime
EventsEventList
  1 metadata ListMeta
  2 items []EventsEvent!
Role
  1 metadata ObjectMeta
  2 rules []PolicyRule!
PolicyRule
  1 verbs []s!
  2 apiGroups []s
  3 resources []s
  4 resourceNames []s
  5 nonResourceURLs []s
ClusterRole
  1 metadata ObjectMeta
  2 rules []PolicyRule!
  3 aggregationRule AggregationRule?
AggregationRule
  1 clusterRoleSelectors []LabelSelector
RoleBinding
  1 metadata ObjectMeta
  2 subjects []Subject
  3 roleRef RoleRef
Subject
  1 kind s!
  2 apiGroup s
  3 name s!
  4 namespace s
RoleRef
  1 apiGroup s!
  2 kind s!
  3 name s!
ClusterRoleBinding
  1 metadata ObjectMeta
  2 subjects []Subject
  3 roleRef RoleRef
Ingress
  1 metadata ObjectMeta
  2 spec IngressSpec
  3 status IngressStatus
IngressSpec
  4 ingressClassName s?
  1 defaultBackend IngressBackend?
  2 tls []IngressTLS
  3 rules []IngressRule
IngressStatus
  1 loadBalancer IngressLoadBalancerStatus
IngressBackend
  4 service IngressServiceBackend?
  3 resource TypedLocalObjectReference?
IngressTLS
  1 hosts []s
  2 secretName s
IngressRule
  1 host s
  2 ingressRuleValue IngressRuleValue~
IngressLoadBalancerStatus
  1 ingress []IngressLoadBalancerIngress
IngressServiceBackend
  1 name s!
  2 port ServiceBackendPort
IngressRuleValue
  1 http HTTPIngressRuleValue?
IngressLoadBalancerIngress
  1 ip s
  2 hostname s
  4 ports []IngressPortStatus
ServiceBackendPort
  1 name s
  2 number i32
HTTPIngressRuleValue
  1 paths []HTTPIngressPath!
IngressPortStatus
  1 port i32!
  2 protocol s!
  3 error s?
HTTPIngressPath
  1 path s
  3 pathType s?!
  2 backend IngressBackend
DeviceClass
  1 metadata ObjectMeta
  2 spec DeviceClassSpec
DeviceClassSpec
  1 selectors []DeviceSelector
  2 config []DeviceClassConfiguration
  4 extendedResourceName s?
DeviceSelector
  1 cel CELDeviceSelector?
DeviceClassConfiguration
  1 deviceConfiguration DeviceConfiguration~
CELDeviceSelector
  1 expression s!
DeviceConfiguration
  1 opaque OpaqueDeviceConfiguration?
OpaqueDeviceConfiguration
  1 driver s!
  2 parameters Raw
DeviceClassList
  1 metadata ListMeta
  2 items []DeviceClass!
DRAResourceClaim
  1 metadata ObjectMeta
  2 spec ResourceClaimSpec
  3 status ResourceClaimStatus
ResourceClaimSpec
  1 devices DeviceClaim
ResourceClaimStatus
  1 allocation AllocationResult?
  2 reservedFor []ResourceClaimConsumerReference
  4 devices []AllocatedDeviceStatus
DeviceClaim
  1 requests []DeviceRequest!
  2 constraints []DeviceConstraint
  3 config []DeviceClaimConfiguration
AllocationResult
  1 devices DeviceAllocationResult
  3 nodeSelector NodeSelector?
  5 allocationTimestamp Time?
ResourceClaimConsumerReference
  1 apiGroup s
  3 resource s!
  4 name s!
  5 uid s!
AllocatedDeviceStatus
  1 driver s!
  2 pool s!
  3 device s!
  7 shareID s?
  4 conditions []Condition!
  5 data Raw?
  6 networkData NetworkDeviceData?
DeviceRequest
  1 name s!
  2 exactly ExactDeviceRequest?
  3 firstAvailable []DeviceSubRequest
DeviceConstraint
  1 requests []s
  2 matchAttribute s?
  3 distinctAttribute s?
DeviceClaimConfiguration
  1 requests []s
  2 deviceConfiguration DeviceConfiguration~
DeviceAllocationResult
  1 results []DeviceRequestAllocationResult
  2 config []DeviceAllocationConfiguration
NetworkDeviceData
  1 interfaceName s
  2 ips []s
  3 hardwareAddress s
ExactDeviceRequest
  1 deviceClassName s!
  2 selectors []DeviceSelector
  3 allocationMode s
  4 count i64
  5 adminAccess bool?
  6 tolerations []DeviceToleration
  7 capacity CapacityRequirements?
DeviceSubRequest
  1 name s!
  2 deviceClassName s!
  3 selectors []DeviceSelector
  4 allocationMode s
  5 count i64
  6 tolerations []DeviceToleration
  7 capacity CapacityRequirements?
DeviceRequestAllocationResult
  1 request s!
  2 driver s!
  3 pool s!
  4 device s!
  5 adminAccess bool?
  6 tolerations []DeviceToleration
  7 bindingConditions []s
  8 bindingFailureConditions []s
  9 shareID s?
  10 consumedCapacity map:Quantity
DeviceAllocationConfiguration
  1 source s!
  2 requests []s
  3 deviceConfiguration DeviceConfiguration~
DeviceToleration
  1 key s
  2 operator s
  3 value s
  4 effect s
  5 tolerationSeconds i64?
CapacityRequirements
  1 requests map:Quantity
DRAResourceClaimList
  1 metadata ListMeta
  2 items []DRAResourceClaim!
ResourceClaimTemplate
  1 metadata ObjectMeta
  2 spec ResourceClaimTemplateSpec
ResourceClaimTemplateSpec
  1 metadata ObjectMeta
  2 spec ResourceClaimSpec
ResourceClaimTemplateList
  1 metadata ListMeta
  2 items []ResourceClaimTemplate!
ResourceSlice
  1 metadata ObjectMeta
  2 spec ResourceSliceSpec
ResourceSliceSpec
  1 driver s!
  2 pool ResourcePool
  3 nodeName s?
  4 nodeSelector NodeSelector?
  5 allNodes bool?
  6 devices []Device
  7 perDeviceNodeSelection bool?
  8 sharedCounters []CounterSet
ResourcePool
  1 name s!
  2 generation i64!
  3 resourceSliceCount i64!
Device
  1 name s!
  2 attributes map:DeviceAttribute
  3 capacity map:DeviceCapacity
  4 consumesCounters []DeviceCounterConsumption
  5 nodeName s?
  6 nodeSelector NodeSelector?
  7 allNodes bool?
  8 taints []DeviceTaint
  9 bindsToNode bool?
  10 bindingConditions []s
  11 bindingFailureConditions []s
  12 allowMultipleAllocations bool?
CounterSet
  1 name s!
  2 counters map:Counter
DeviceAttribute
  2 int i64?
  3 bool bool?
  4 string s?
  5 version s?
DeviceCapacity
  1 value Quantity
  2 requestPolicy CapacityRequestPolicy?
DeviceCounterConsumption
  1 counterSet s!
  2 counters map:Counter
DeviceTaint
  1 key s!
  2 value s
  3 effect s!
  4 timeAdded Time?
Counter
  1 value Quantity
CapacityRequestPolicy
  1 default Quantity?!
  3 validValues []Quantity
  4 validRange CapacityRequestPolicyRange?
CapacityRequestPolicyRange
  1 min Quantity?
  2 max Quantity?
  3 step Quantity?
ResourceSliceList
  1 metadata ListMeta
  2 items []ResourceSlice!
DeviceTaintRule
  1 metadata ObjectMeta
  2 spec DeviceTaintRuleSpec
  3 status DeviceTaintRuleStatus
DeviceTaintRuleSpec
  1 deviceSelector DeviceTaintSelector?
  2 taint V1beta2DeviceTaint
DeviceTaintRuleStatus
  1 conditions []Condition
DeviceTaintSelector
  2 driver s?
  3 pool s?
  4 device s?
V1beta2DeviceTaint
  1 key s!
  2 value s
  3 effect s!
  4 timeAdded Time?
DeviceTaintRuleList
  1 metadata ListMeta
  2 items []DeviceTaintRule!
V1alpha1Workload
  1 metadata ObjectMeta
  2 spec V1alpha1WorkloadSpec
V1alpha1WorkloadSpec
  1 controllerRef V1alpha1TypedLocalObjectReference?
  2 podGroups []V1alpha1PodGroup!
V1alpha1TypedLocalObjectReference
  1 apiGroup s
  2 kind s!
  3 name s!
V1alpha1PodGroup
  1 name s!
  3 policy V1alpha1PodGroupPolicy
V1alpha1PodGroupPolicy
  2 basic V1alpha1BasicSchedulingPolicy?
  3 gang V1alpha1GangSchedulingPolicy?
V1alpha1BasicSchedulingPolicy
V1alpha1GangSchedulingPolicy
  1 minCount i32!
V1alpha1WorkloadList
  1 metadata ListMeta
  2 items []V1alpha1Workload!
Workload
  1 metadata ObjectMeta
  2 spec WorkloadSpec
WorkloadSpec
  1 controllerRef V1beta1TypedLocalObjectReference?
  2 podGroupTemplates []PodGroupTemplate!
  3 compositePodGroupTemplates []CompositePodGroupTemplate
V1beta1TypedLocalObjectReference
  1 apiGroup s
  2 kind s!
  3 name s!
PodGroupTemplate
  1 name s!
  2 schedulingPolicy PodGroupSchedulingPolicy
  3 schedulingConstraints PodGroupSchedulingConstraints?!
  4 resourceClaims []PodGroupResourceClaim
  5 disruptionMode DisruptionMode?
  6 priorityClassName s
  7 priority i32?
  8 preemptionPolicy s?
CompositePodGroupTemplate
  1 name s!
  2 schedulingPolicy CompositePodGroupSchedulingPolicy
  3 schedulingConstraints CompositePodGroupSchedulingConstraints?
  4 disruptionMode CompositeDisruptionMode?
  5 priorityClassName s
  6 priority i32?
  7 preemptionPolicy s?
  8 podGroupTemplates []PodGroupTemplate
  9 compositePodGroupTemplates []CompositePodGroupTemplate
PodGroupSchedulingPolicy
  1 basic BasicSchedulingPolicy?
  2 gang GangSchedulingPolicy?
PodGroupSchedulingConstraints
  1 topology []TopologyConstraint
PodGroupResourceClaim
  1 name s!
  2 resourceClaimName s?
  3 resourceClaimTemplateName s?
DisruptionMode
  1 single SingleDisruptionMode?
  2 all AllDisruptionMode?
CompositePodGroupSchedulingPolicy
  1 basic CompositeBasicSchedulingPolicy?
  2 gang CompositeGangSchedulingPolicy?
CompositePodGroupSchedulingConstraints
  1 topology []TopologyConstraint
CompositeDisruptionMode
  1 single SingleCompositeDisruptionMode?
  2 all AllCompositeDisruptionMode?
BasicSchedulingPolicy
GangSchedulingPolicy
  1 minCount i32!
TopologyConstraint
  1 key s!
SingleDisruptionMode
AllDisruptionMode
CompositeBasicSchedulingPolicy
CompositeGangSchedulingPolicy
  1 minGroupCount i32!
SingleCompositeDisruptionMode
AllCompositeDisruptionMode
WorkloadList
  1 metadata ListMeta
  2 items []Workload!
PodGroup
  1 metadata ObjectMeta
  2 spec PodGroupSpec
  3 status PodGroupStatus
PodGroupSpec
  1 parentCompositePodGroupName s?
  2 workloadRef V1beta1WorkloadReference?
  3 schedulingPolicy PodGroupSchedulingPolicy
  4 schedulingConstraints PodGroupSchedulingConstraints?
  5 resourceClaims []PodGroupResourceClaim
  6 disruptionMode DisruptionMode?
  7 priorityClassName s
  8 priority i32?
  9 preemptionPolicy s?
PodGroupStatus
  1 conditions []Condition
  2 resourceClaimStatuses []PodGroupResourceClaimStatus
V1beta1WorkloadReference
  1 workloadName s!
  2 templateName s!
PodGroupResourceClaimStatus
  1 name s!
  2 resourceClaimName s?
PodGroupList
  1 metadata ListMeta
  2 items []PodGroup!
V1alpha3CompositePodGroup
  1 metadata ObjectMeta
  2 spec V1alpha3CompositePodGroupSpec
  3 status V1alpha3CompositePodGroupStatus
V1alpha3CompositePodGroupSpec
  1 parentCompositePodGroupName s?
  2 workloadRef V1alpha3WorkloadReference?!
  3 schedulingPolicy V1alpha3CompositePodGroupSchedulingPolicy
  4 schedulingConstraints V1alpha3CompositePodGroupSchedulingConstraints?
  5 disruptionMode V1alpha3CompositeDisruptionMode?
  6 priorityClassName s
  7 priority i32?
  8 preemptionPolicy s?
V1alpha3CompositePodGroupStatus
  1 conditions []Condition
V1alpha3WorkloadReference
  1 workloadName s!
  2 templateName s!
V1alpha3CompositePodGroupSchedulingPolicy
  1 basic V1alpha3CompositeBasicSchedulingPolicy?
  2 gang V1alpha3CompositeGangSchedulingPolicy?
V1alpha3CompositePodGroupSchedulingConstraints
  1 topology []V1alpha3TopologyConstraint
V1alpha3CompositeDisruptionMode
  1 single V1alpha3SingleCompositeDisruptionMode?
  2 all V1alpha3AllCompositeDisruptionMode?
V1alpha3CompositeBasicSchedulingPolicy
V1alpha3CompositeGangSchedulingPolicy
  1 minGroupCount i32!
V1alpha3SingleCompositeDisruptionMode
V1alpha3AllCompositeDisruptionMode
V1alpha3CompositePodGroupList
  1 metadata ListMeta
  2 items []V1alpha3CompositePodGroup!
Status
  1 metadata ListMeta
  2 status s
  3 message s
  4 reason s
  5 details StatusDetails?
  6 code i32
StatusDetails
  1 name s
  2 group s
  3 kind s
  6 uid s
  4 causes []StatusCause
  5 retryAfterSeconds i32
StatusCause
  1 reason s
  2 message s
  3 field s

SubjectAccessReview
  1 metadata ObjectMeta
  2 spec SubjectAccessReviewSpec
  3 status SubjectAccessReviewStatus
SubjectAccessReviewSpec
  1 resourceAttributes ResourceAttributes?
  2 nonResourceAttributes NonResourceAttributes?
  3 user s
  4 groups []s
  6 uid s
ResourceAttributes
  1 namespace s
  2 verb s
  3 group s
  4 version s
  5 resource s
  6 subresource s
  7 name s
NonResourceAttributes
  1 path s
  2 verb s
SubjectAccessReviewStatus
  1 allowed bool!
  4 denied bool
  2 reason s
  3 evaluationError s
SelfSubjectAccessReview
  1 metadata ObjectMeta
  2 spec SelfSubjectAccessReviewSpec
  3 status SubjectAccessReviewStatus
SelfSubjectAccessReviewSpec
  1 resourceAttributes ResourceAttributes?
  2 nonResourceAttributes NonResourceAttributes?
SelfSubjectRulesReview
  1 metadata ObjectMeta
  2 spec SelfSubjectRulesReviewSpec
  3 status SubjectRulesReviewStatus
SelfSubjectRulesReviewSpec
  1 namespace s
SubjectRulesReviewStatus
  1 resourceRules []ResourceRule!
  2 nonResourceRules []NonResourceRule!
  3 incomplete bool!
  4 evaluationError s
ResourceRule
  1 verbs []s!
  2 apiGroups []s
  3 resources []s
  4 resourceNames []s
NonResourceRule
  1 verbs []s!
  2 nonResourceURLs []s
SelfSubjectReview
  1 metadata ObjectMeta
  2 status SelfSubjectReviewStatus
SelfSubjectReviewStatus
  1 userInfo AuthnUserInfo
AuthnUserInfo
  1 username s
  2 uid s
  3 groups []s

Unknown
  1 typeMeta TypeMeta
  2 raw b
  3 contentEncoding s!
  4 contentType s!
TypeMeta
  1 apiVersion s
  2 kind s
WatchEvent
  1 type s!
  2 object Raw
)";

// apiVersion/kind -> root message. "*" matches any apiVersion: meta/v1 kinds every group version serves.
constexpr std::pair<std::string_view, std::string_view> kKinds[] = {
    {"v1/Namespace", "Namespace"},
    {"v1/NamespaceList", "NamespaceList"},
    {"v1/ConfigMap", "ConfigMap"},
    {"v1/Secret", "Secret"},
    {"v1/ServiceAccount", "ServiceAccount"},
    {"v1/Service", "Service"},
    {"v1/ServiceList", "ServiceList"},
    {"v1/ResourceQuota", "ResourceQuota"},
    {"v1/Binding", "Binding"},
    {"v1/Pod", "Pod"},
    {"v1/PodList", "PodList"},
    {"v1/Node", "Node"},
    {"v1/NodeList", "NodeList"},
    {"v1/Event", "CoreEvent"},
    {"v1/EventList", "CoreEventList"},
    {"v1/ReplicationController", "ReplicationController"},
    {"v1/ReplicationControllerList", "ReplicationControllerList"},
    {"v1/PersistentVolume", "PersistentVolume"},
    {"v1/PersistentVolumeList", "PersistentVolumeList"},
    {"v1/PersistentVolumeClaim", "PersistentVolumeClaim"},
    {"v1/PersistentVolumeClaimList", "PersistentVolumeClaimList"},
    {"apps/v1/Deployment", "Deployment"},
    {"apps/v1/DeploymentList", "DeploymentList"},
    {"apps/v1/ReplicaSet", "ReplicaSet"},
    {"apps/v1/ReplicaSetList", "ReplicaSetList"},
    {"apps/v1/StatefulSet", "StatefulSet"},
    {"apps/v1/StatefulSetList", "StatefulSetList"},
    {"apps/v1/DaemonSet", "DaemonSet"},
    {"apps/v1/DaemonSetList", "DaemonSetList"},
    {"batch/v1/Job", "Job"},
    {"batch/v1/CronJob", "CronJob"},
    {"policy/v1/PodDisruptionBudget", "PodDisruptionBudget"},
    {"policy/v1/PodDisruptionBudgetList", "PodDisruptionBudgetList"},
    {"policy/v1/Eviction", "Eviction"},
    {"scheduling.k8s.io/v1/PriorityClass", "PriorityClass"},
    {"scheduling.k8s.io/v1/PriorityClassList", "PriorityClassList"},
    {"node.k8s.io/v1/RuntimeClass", "RuntimeClass"},
    {"storage.k8s.io/v1/StorageClass", "StorageClass"},
    {"storage.k8s.io/v1/StorageClassList", "StorageClassList"},
    {"storage.k8s.io/v1/CSINode", "CSINode"},
    {"storage.k8s.io/v1/CSINodeList", "CSINodeList"},
    {"storage.k8s.io/v1/CSIDriver", "CSIDriver"},
    {"storage.k8s.io/v1/CSIDriverList", "CSIDriverList"},
    {"storage.k8s.io/v1/CSIStorageCapacity", "CSIStorageCapacity"},
    {"storage.k8s.io/v1/CSIStorageCapacityList", "CSIStorageCapacityList"},
    {"coordination.k8s.io/v1/Lease", "Lease"},
    {"events.k8s.io/v1/Event", "EventsEvent"},
    {"events.k8s.io/v1/EventList", "EventsEventList"},
    {"rbac.authorization.k8s.io/v1/Role", "Role"},
    {"rbac.authorization.k8s.io/v1/ClusterRole", "ClusterRole"},
    {"rbac.authorization.k8s.io/v1/RoleBinding", "RoleBinding"},
    {"rbac.authorization.k8s.io/v1/ClusterRoleBinding", "ClusterRoleBinding"},
    {"authorization.k8s.io/v1/SubjectAccessReview", "SubjectAccessReview"},
    {"authorization.k8s.io/v1/LocalSubjectAccessReview", "SubjectAccessReview"},
    {"authorization.k8s.io/v1/SelfSubjectAccessReview", "SelfSubjectAccessReview"},
    {"authorization.k8s.io/v1/SelfSubjectRulesReview", "SelfSubjectRulesReview"},
    {"authentication.k8s.io/v1/SelfSubjectReview", "SelfSubjectReview"},
    {"networking.k8s.io/v1/Ingress", "Ingress"},
    {"resource.k8s.io/v1/DeviceClass", "DeviceClass"},
    {"resource.k8s.io/v1/DeviceClassList", "DeviceClassList"},
    {"resource.k8s.io/v1/ResourceClaim", "DRAResourceClaim"},
    {"resource.k8s.io/v1/ResourceClaimList", "DRAResourceClaimList"},
    {"resource.k8s.io/v1/ResourceClaimTemplate", "ResourceClaimTemplate"},
    {"resource.k8s.io/v1/ResourceClaimTemplateList", "ResourceClaimTemplateList"},
    {"resource.k8s.io/v1/ResourceSlice", "ResourceSlice"},
    {"resource.k8s.io/v1/ResourceSliceList", "ResourceSliceList"},
    {"resource.k8s.io/v1beta2/DeviceTaintRule", "DeviceTaintRule"},
    {"resource.k8s.io/v1beta2/DeviceTaintRuleList", "DeviceTaintRuleList"},
    {"scheduling.k8s.io/v1alpha1/Workload", "V1alpha1Workload"},
    {"scheduling.k8s.io/v1alpha1/WorkloadList", "V1alpha1WorkloadList"},
    {"scheduling.k8s.io/v1beta1/Workload", "Workload"},
    {"scheduling.k8s.io/v1beta1/WorkloadList", "WorkloadList"},
    {"scheduling.k8s.io/v1beta1/PodGroup", "PodGroup"},
    {"scheduling.k8s.io/v1beta1/PodGroupList", "PodGroupList"},
    {"scheduling.k8s.io/v1alpha3/CompositePodGroup", "V1alpha3CompositePodGroup"},
    {"scheduling.k8s.io/v1alpha3/CompositePodGroupList", "V1alpha3CompositePodGroupList"},
    {"*/Status", "Status"},
    {"*/DeleteOptions", "DeleteOptions"},
    {"*/WatchEvent", "WatchEvent"},
};

[[noreturn]] void table_error(const std::string& msg) {
  std::fprintf(stderr, "protobuf schema tables: %s\n", msg.c_str());
  std::abort();
}

struct PendingRef {
  std::string message;
  std::size_t field;
  std::string target;
};

Registry build() {
  Registry reg;
  std::vector<PendingRef> refs;
  std::istringstream in{std::string(kTables)};
  std::string line;
  Message* current = nullptr;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line[0] != ' ') {
      auto [it, inserted] = reg.messages.try_emplace(line);
      if (!inserted) table_error("duplicate message " + line);
      it->second.name = line;
      current = &it->second;
      continue;
    }
    if (!current) table_error("field before any message: " + line);
    std::istringstream ls(line);
    Field f;
    std::string type;
    if (!(ls >> f.number >> f.json >> type)) table_error("bad line in " + current->name + ": " + line);
    if (type.rfind("[]", 0) == 0) {
      f.shape = Shape::Repeated;
      type.erase(0, 2);
    } else if (type.rfind("map:", 0) == 0) {
      f.shape = Shape::Map;
      type.erase(0, 4);
    }
    bool pointer = false, always = false, inl = false;
    while (!type.empty() && (type.back() == '?' || type.back() == '!' || type.back() == '~')) {
      char c = type.back();
      type.pop_back();
      if (c == '?') pointer = true;
      if (c == '!') always = true;
      if (c == '~') inl = true;
    }
    bool is_struct = true;
    if (type == "s") f.kind = Kind::String, is_struct = false;
    else if (type == "b") f.kind = Kind::Bytes, is_struct = false;
    else if (type == "i32") f.kind = Kind::Int32, is_struct = false;
    else if (type == "i64") f.kind = Kind::Int64, is_struct = false;
    else if (type == "bool") f.kind = Kind::Bool, is_struct = false;
    else if (type == "Time") f.kind = Kind::Time;
    else if (type == "MicroTime") f.kind = Kind::MicroTime;
    else if (type == "Quantity") f.kind = Kind::Quantity;
    else if (type == "IntOrString") f.kind = Kind::IntOrString;
    else if (type == "Raw") f.kind = Kind::RawJson;
    else {
      f.kind = Kind::Message;
      refs.push_back({current->name, current->fields.size(), type});
    }
    if (inl) {
      if (f.kind != Kind::Message || f.shape != Shape::Single) table_error("inline non-message " + f.json);
      f.emit = Emit::Inline;
    } else if (pointer) {
      f.emit = always ? Emit::PointerNull : Emit::Pointer;
    } else if (always || (is_struct && f.shape == Shape::Single)) {
      f.emit = Emit::Always;
    } else {
      f.emit = Emit::OmitEmpty;
    }
    for (const auto& g : current->fields)
      if (g.number == f.number) table_error("duplicate field number in " + current->name + ": " + line);
    current->fields.push_back(std::move(f));
  }
  for (const auto& r : refs) {
    auto target = reg.messages.find(r.target);
    if (target == reg.messages.end()) table_error("unknown message type " + r.target + " in " + r.message);
    reg.messages.at(r.message).fields[r.field].message = &target->second;
  }
  for (const auto& [kind, msg] : kKinds) {
    auto it = reg.messages.find(std::string(msg));
    if (it == reg.messages.end()) table_error("kind without message: " + std::string(kind));
    reg.kinds.emplace(std::string(kind), &it->second);
  }
  for (auto& [name, m] : reg.messages) {
    std::uint32_t max = 0;
    for (const auto& f : m.fields) max = std::max(max, f.number);
    if (max > 4096) table_error("field number too large in " + name);
    m.by_number.assign(max + 1, -1);
    for (std::size_t i = 0; i < m.fields.size(); ++i) {
      m.by_number[m.fields[i].number] = static_cast<std::int16_t>(i);
      m.wire_order.push_back(&m.fields[i]);
    }
    std::sort(m.wire_order.begin(), m.wire_order.end(),
              [](const Field* a, const Field* b) { return a->number < b->number; });
  }
  return reg;
}

}  // namespace

const Registry& registry() {
  static const Registry reg = build();
  return reg;
}

std::uint32_t Message::number(std::string_view json) const {
  const Field* f = find(json);
  if (!f) table_error("message " + name + " has no field " + std::string(json));
  return f->number;
}

const Message* Registry::kind(std::string_view api_version, std::string_view kind) const {
  std::string key;
  key.reserve(api_version.size() + kind.size() + 1);
  key.append(api_version).append("/").append(kind);
  if (auto it = kinds.find(key); it != kinds.end()) return it->second;
  key.assign("*/").append(kind);
  if (auto it = kinds.find(key); it != kinds.end()) return it->second;
  return nullptr;
}

const Message& Registry::message(std::string_view name) const {
  auto it = messages.find(std::string(name));
  if (it == messages.end()) table_error("no message " + std::string(name));
  return it->second;
}

}  // namespace ksched::api::protobuf::schema
