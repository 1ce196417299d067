// Protobuf descriptor tables for the kinds kubectl create, kubectl auth and kube-scheduler send as
// protobuf.
// Field numbers are those of upstream's generated.proto files (k8s.io/api v0.32,
// k8s.io/apimachinery); emit modes follow the Go json tags in types.go.
//
// Table syntax, one message per block:
//   Name                       message header (column 0)
//     <number> <json> <type>   field; type = s | b | i32 | i64 | bool | Time | MicroTime |
//                              Quantity | IntOrString | Raw | <MessageName>
//   type prefixes:  []  repeated      map:  map<string, type>
//   type suffixes:  ?   pointer, omitted when absent      ?!  pointer without omitempty (null)
//                   !   no omitempty (zero value shown)   ~   embedded inline struct
// Non-pointer structs (messages, Time, IntOrString, ...) are always rendered, as in Go.
#include "apiserver/protobuf_schema.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace ksched::apiserver::protobuf::schema {
namespace {

constexpr std::string_view kTables = R"(
TypeMeta
  1 apiVersion s
  2 kind s
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
LabelSelector
  1 matchLabels map:s
  2 matchExpressions []LabelSelectorRequirement
LabelSelectorRequirement
  1 key s!
  2 operator s!
  3 values []s
Condition
  1 type s!
  2 status s!
  3 observedGeneration i64
  4 lastTransitionTime Time
  5 reason s!
  6 message s!

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
TypedLocalObjectReference
  1 apiGroup s?!
  2 kind s!
  3 name s!

Namespace
  1 metadata ObjectMeta
  2 spec NamespaceSpec
  3 status NamespaceStatus
NamespaceSpec
  1 finalizers []s
NamespaceStatus
  1 phase s
  2 conditions []NamespaceCondition
NamespaceCondition
  1 type s!
  2 status s!
  4 lastTransitionTime Time
  5 reason s
  6 message s

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
ServicePort
  1 name s
  2 protocol s
  6 appProtocol s?
  3 port i32!
  4 targetPort IntOrString
  5 nodePort i32
SessionAffinityConfig
  1 clientIP ClientIPConfig?
ClientIPConfig
  1 timeoutSeconds i32?
ServiceStatus
  1 loadBalancer LoadBalancerStatus
  2 conditions []Condition
LoadBalancerStatus
  1 ingress []LoadBalancerIngress
LoadBalancerIngress
  1 ip s
  2 hostname s
  3 ipMode s?
  4 ports []PortStatus
PortStatus
  1 port i32!
  2 protocol s!
  3 error s?

ResourceQuota
  1 metadata ObjectMeta
  2 spec ResourceQuotaSpec
  3 status ResourceQuotaStatus
ResourceQuotaSpec
  1 hard map:Quantity
  2 scopes []s
  3 scopeSelector ScopeSelector?
ScopeSelector
  1 matchExpressions []ScopedResourceSelectorRequirement
ScopedResourceSelectorRequirement
  1 scopeName s!
  2 operator s!
  3 values []s
ResourceQuotaStatus
  1 hard map:Quantity
  2 used map:Quantity

Binding
  1 metadata ObjectMeta
  2 target ObjectReference

Pod
  1 metadata ObjectMeta
  2 spec PodSpec
  3 status PodStatus
PodTemplateSpec
  1 metadata ObjectMeta
  2 spec PodSpec
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
ContainerPort
  1 name s
  2 hostPort i32
  3 containerPort i32!
  4 protocol s
  5 hostIP s
EnvVar
  1 name s!
  2 value s
  3 valueFrom EnvVarSource?
EnvVarSource
  1 fieldRef ObjectFieldSelector?
  2 resourceFieldRef ResourceFieldSelector?
  3 configMapKeyRef ConfigMapKeySelector?
  4 secretKeyRef SecretKeySelector?
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
EnvFromSource
  1 prefix s
  2 configMapRef ConfigMapEnvSource?
  3 secretRef SecretEnvSource?
ConfigMapEnvSource
  1 localObjectReference LocalObjectReference~
  2 optional bool?
SecretEnvSource
  1 localObjectReference LocalObjectReference~
  2 optional bool?
ResourceRequirements
  1 limits map:Quantity
  2 requests map:Quantity
  3 claims []ResourceClaim
ResourceClaim
  1 name s!
  2 request s
ContainerResizePolicy
  1 resourceName s!
  2 restartPolicy s!
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
  1 handler ProbeHandler~
  2 initialDelaySeconds i32
  3 timeoutSeconds i32
  4 periodSeconds i32
  5 successThreshold i32
  6 failureThreshold i32
  7 terminationGracePeriodSeconds i64?
ProbeHandler
  1 exec ExecAction?
  2 httpGet HTTPGetAction?
  3 tcpSocket TCPSocketAction?
  4 grpc GRPCAction?
ExecAction
  1 command []s
HTTPGetAction
  1 path s
  2 port IntOrString
  3 host s
  4 scheme s
  5 httpHeaders []HTTPHeader
HTTPHeader
  1 name s!
  2 value s!
TCPSocketAction
  1 port IntOrString
  2 host s
GRPCAction
  1 port i32!
  2 service s?!
Lifecycle
  1 postStart LifecycleHandler?
  2 preStop LifecycleHandler?
LifecycleHandler
  1 exec ExecAction?
  2 httpGet HTTPGetAction?
  3 tcpSocket TCPSocketAction?
  4 sleep SleepAction?
SleepAction
  1 seconds i64!
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
Capabilities
  1 add []s
  2 drop []s
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
SeccompProfile
  1 type s!
  2 localhostProfile s?
AppArmorProfile
  1 type s!
  2 localhostProfile s?
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
Sysctl
  1 name s!
  2 value s!
Affinity
  1 nodeAffinity NodeAffinity?
  2 podAffinity PodAffinity?
  3 podAntiAffinity PodAntiAffinity?
NodeAffinity
  1 requiredDuringSchedulingIgnoredDuringExecution NodeSelector?
  2 preferredDuringSchedulingIgnoredDuringExecution []PreferredSchedulingTerm
NodeSelector
  1 nodeSelectorTerms []NodeSelectorTerm!
NodeSelectorTerm
  1 matchExpressions []NodeSelectorRequirement
  2 matchFields []NodeSelectorRequirement
NodeSelectorRequirement
  1 key s!
  2 operator s!
  3 values []s
PreferredSchedulingTerm
  1 weight i32!
  2 preference NodeSelectorTerm
PodAffinity
  1 requiredDuringSchedulingIgnoredDuringExecution []PodAffinityTerm
  2 preferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm
PodAntiAffinity
  1 requiredDuringSchedulingIgnoredDuringExecution []PodAffinityTerm
  2 preferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm
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
PodDNSConfigOption
  1 name s
  2 value s?
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
  5 resourceClaimName s?
  6 resourceClaimTemplateName s?
Volume
  1 name s!
  2 volumeSource VolumeSource~
VolumeSource
  1 hostPath HostPathVolumeSource?
  2 emptyDir EmptyDirVolumeSource?
  6 secret SecretVolumeSource?
  10 persistentVolumeClaim PersistentVolumeClaimVolumeSource?
  16 downwardAPI DownwardAPIVolumeSource?
  19 configMap ConfigMapVolumeSource?
  26 projected ProjectedVolumeSource?
  28 csi CSIVolumeSource?
  29 ephemeral EphemeralVolumeSource?
EphemeralVolumeSource
  1 volumeClaimTemplate PersistentVolumeClaimTemplate?
PersistentVolumeClaimTemplate
  1 metadata ObjectMeta
  2 spec PersistentVolumeClaimSpec
PersistentVolumeClaimSpec
  1 accessModes []s
  4 selector LabelSelector?
  2 resources VolumeResourceRequirements
  3 volumeName s
  5 storageClassName s?
  6 volumeMode s?
  7 dataSource TypedLocalObjectReference?
  9 volumeAttributesClassName s?
VolumeResourceRequirements
  1 limits map:Quantity
  2 requests map:Quantity
HostPathVolumeSource
  1 path s!
  2 type s?
EmptyDirVolumeSource
  1 medium s
  2 sizeLimit Quantity?
SecretVolumeSource
  1 secretName s
  2 items []KeyToPath
  3 defaultMode i32?
  4 optional bool?
ConfigMapVolumeSource
  1 localObjectReference LocalObjectReference~
  2 items []KeyToPath
  3 defaultMode i32?
  4 optional bool?
KeyToPath
  1 key s!
  2 path s!
  3 mode i32?
PersistentVolumeClaimVolumeSource
  1 claimName s!
  2 readOnly bool
DownwardAPIVolumeSource
  1 items []DownwardAPIVolumeFile
  2 defaultMode i32?
DownwardAPIVolumeFile
  1 path s!
  2 fieldRef ObjectFieldSelector?
  3 resourceFieldRef ResourceFieldSelector?
  4 mode i32?
ProjectedVolumeSource
  1 sources []VolumeProjection!
  2 defaultMode i32?
VolumeProjection
  1 secret SecretProjection?
  2 downwardAPI DownwardAPIProjection?
  3 configMap ConfigMapProjection?
  4 serviceAccountToken ServiceAccountTokenProjection?
SecretProjection
  1 localObjectReference LocalObjectReference~
  2 items []KeyToPath
  4 optional bool?
ConfigMapProjection
  1 localObjectReference LocalObjectReference~
  2 items []KeyToPath
  4 optional bool?
DownwardAPIProjection
  1 items []DownwardAPIVolumeFile
ServiceAccountTokenProjection
  1 audience s
  2 expirationSeconds i64?
  3 path s!
CSIVolumeSource
  1 driver s!
  2 readOnly bool?
  3 fsType s?
  4 volumeAttributes map:s
  5 nodePublishSecretRef LocalObjectReference?
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
PodResourceClaimStatus
  1 name s!
  2 resourceClaimName s?
PodCondition
  1 type s!
  2 status s!
  3 lastProbeTime Time
  4 lastTransitionTime Time
  5 reason s
  6 message s
PodIP
  1 ip s!
HostIP
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
ContainerState
  1 waiting ContainerStateWaiting?
  2 running ContainerStateRunning?
  3 terminated ContainerStateTerminated?
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
  2 externalID s
Taint
  1 key s!
  2 value s
  3 effect s!
  4 timeAdded Time?
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
  12 runtimeHandlers []NodeRuntimeHandler
  13 features NodeFeatures?
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
DaemonEndpoint
  1 Port i32!
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
NodeSwapStatus
  1 capacity i64?
ContainerImage
  1 names []s
  2 sizeBytes i64
AttachedVolume
  1 name s!
  2 devicePath s!
NodeRuntimeHandler
  1 name s!
  2 features NodeRuntimeHandlerFeatures?
NodeRuntimeHandlerFeatures
  1 recursiveReadOnlyMounts bool?
  2 userNamespaces bool?
NodeFeatures
  1 supplementalGroupsPolicy bool?

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
DeploymentStrategy
  1 type s
  2 rollingUpdate RollingUpdateDeployment?
RollingUpdateDeployment
  1 maxUnavailable IntOrString?
  2 maxSurge IntOrString?
DeploymentStatus
  1 observedGeneration i64
  2 replicas i32
  3 updatedReplicas i32
  7 readyReplicas i32
  4 availableReplicas i32
  5 unavailableReplicas i32
  6 conditions []DeploymentCondition
  8 collisionCount i32?
DeploymentCondition
  1 type s!
  2 status s!
  6 lastUpdateTime Time
  7 lastTransitionTime Time
  4 reason s
  5 message s

Job
  1 metadata ObjectMeta
  2 spec JobSpec
  3 status JobStatus
JobSpec
  1 parallelism i32?
  2 completions i32?
  3 activeDeadlineSeconds i64?
  11 podFailurePolicy PodFailurePolicy?
  15 successPolicy SuccessPolicy?
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
  16 managedBy s?
PodFailurePolicy
  1 rules []PodFailurePolicyRule!
PodFailurePolicyRule
  1 action s!
  2 onExitCodes PodFailurePolicyOnExitCodesRequirement?
  3 onPodConditions []PodFailurePolicyOnPodConditionsPattern
PodFailurePolicyOnExitCodesRequirement
  1 containerName s?!
  2 operator s!
  3 values []i32!
PodFailurePolicyOnPodConditionsPattern
  1 type s!
  2 status s!
SuccessPolicy
  1 rules []SuccessPolicyRule!
SuccessPolicyRule
  1 succeededIndexes s?
  2 succeededCount i32?
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
UncountedTerminatedPods
  1 succeeded []s
  2 failed []s
JobCondition
  1 type s!
  2 status s!
  3 lastProbeTime Time
  4 lastTransitionTime Time
  5 reason s
  6 message s
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
JobTemplateSpec
  1 metadata ObjectMeta
  2 spec JobSpec
CronJobStatus
  1 active []ObjectReference
  4 lastScheduleTime Time?
  5 lastSuccessfulTime Time?

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

PriorityClass
  1 metadata ObjectMeta
  2 value i32!
  3 globalDefault bool
  4 description s
  5 preemptionPolicy s?

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

Role
  1 metadata ObjectMeta
  2 rules []PolicyRule!
ClusterRole
  1 metadata ObjectMeta
  2 rules []PolicyRule!
  3 aggregationRule AggregationRule?
AggregationRule
  1 clusterRoleSelectors []LabelSelector
PolicyRule
  1 verbs []s!
  2 apiGroups []s
  3 resources []s
  4 resourceNames []s
  5 nonResourceURLs []s
RoleBinding
  1 metadata ObjectMeta
  2 subjects []Subject
  3 roleRef RoleRef
ClusterRoleBinding
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

Ingress
  1 metadata ObjectMeta
  2 spec IngressSpec
  3 status IngressStatus
IngressSpec
  4 ingressClassName s?
  1 defaultBackend IngressBackend?
  2 tls []IngressTLS
  3 rules []IngressRule
IngressBackend
  4 service IngressServiceBackend?
  1 resource TypedLocalObjectReference?
IngressServiceBackend
  1 name s!
  2 port ServiceBackendPort
ServiceBackendPort
  1 name s
  2 number i32
IngressTLS
  1 hosts []s
  2 secretName s
IngressRule
  1 host s
  2 ingressRuleValue IngressRuleValue~
IngressRuleValue
  1 http HTTPIngressRuleValue?
HTTPIngressRuleValue
  1 paths []HTTPIngressPath!
HTTPIngressPath
  1 path s
  3 pathType s?!
  2 backend IngressBackend
IngressStatus
  1 loadBalancer IngressLoadBalancerStatus
IngressLoadBalancerStatus
  1 ingress []IngressLoadBalancerIngress
IngressLoadBalancerIngress
  1 ip s
  2 hostname s
  4 ports []IngressPortStatus
IngressPortStatus
  1 port i32!
  2 protocol s!
  3 error s?

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
EventSource
  1 component s
  2 host s
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
CoreEventSeries
  1 count i32
  2 lastObservedTime MicroTime
)";

// apiVersion/kind -> root message.
constexpr std::pair<std::string_view, std::string_view> kKinds[] = {
    {"v1/Namespace", "Namespace"},
    {"v1/ConfigMap", "ConfigMap"},
    {"v1/Secret", "Secret"},
    {"v1/ServiceAccount", "ServiceAccount"},
    {"v1/Service", "Service"},
    {"v1/ResourceQuota", "ResourceQuota"},
    {"v1/Binding", "Binding"},
    {"v1/Pod", "Pod"},
    {"v1/Node", "Node"},
    {"v1/Event", "CoreEvent"},
    {"apps/v1/Deployment", "Deployment"},
    {"batch/v1/Job", "Job"},
    {"batch/v1/CronJob", "CronJob"},
    {"policy/v1/PodDisruptionBudget", "PodDisruptionBudget"},
    {"scheduling.k8s.io/v1/PriorityClass", "PriorityClass"},
    {"node.k8s.io/v1/RuntimeClass", "RuntimeClass"},
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
    {"coordination.k8s.io/v1/Lease", "Lease"},
    {"events.k8s.io/v1/Event", "EventsEvent"},
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
    if (current->find(f.number)) table_error("duplicate field number in " + current->name + ": " + line);
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
  return reg;
}

}  // namespace

const Registry& registry() {
  static const Registry reg = build();
  return reg;
}

}  // namespace ksched::apiserver::protobuf::schema
