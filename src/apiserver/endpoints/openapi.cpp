#include "apiserver/endpoints/openapi.h"

#include <boost/json.hpp>
#include <concepts>
#include <cstdio>
#include <map>
#include <set>
#include <type_traits>
#include <vector>

#include "api/types.h"
#include "api/version.h"
#include "apiserver/endpoints/openapi_schema_types.h"
#include "apiserver/endpoints/openapi_resource_types.h"
#include "apiserver/endpoints/patch.h"
#include "apiserver/resources.h"

namespace ksched::apiserver::openapi {

namespace json = boost::json;


namespace {

// ---------------------------------------------------------------- definition names
// C++ type -> upstream definition name. A described struct without an entry is inlined where it
// is used (so a struct added to src/api still produces a valid document); the unit tests require
// every struct to be named.
template <class T>
struct DefName {
  static constexpr std::string_view value{};
};
#define KSCHED_DEF(Type, Name)                      \
  template <>                                       \
  struct DefName<Type> {                            \
    static constexpr std::string_view value = Name; \
  };
#define KSCHED_META(Type) KSCHED_DEF(api::Type, "io.k8s.apimachinery.pkg.apis.meta.v1." #Type)
#define KSCHED_CORE(Type) KSCHED_DEF(api::Type, "io.k8s.api.core.v1." #Type)
#define KSCHED_CORE_S(Type) KSCHED_DEF(schema_only::Type, "io.k8s.api.core.v1." #Type)

KSCHED_DEF(api::Quantity, "io.k8s.apimachinery.pkg.api.resource.Quantity")
KSCHED_DEF(api::IntOrString, "io.k8s.apimachinery.pkg.util.intstr.IntOrString")
KSCHED_META(Time)
KSCHED_META(MicroTime)
KSCHED_META(OwnerReference)
KSCHED_META(ObjectMeta)
KSCHED_META(ListMeta)
KSCHED_META(LabelSelectorRequirement)
KSCHED_META(LabelSelector)
KSCHED_META(StatusCause)
KSCHED_META(StatusDetails)
KSCHED_META(Status)
KSCHED_META(Condition)

KSCHED_CORE(ObjectReference)
KSCHED_CORE(NodeSelectorRequirement)
KSCHED_CORE(NodeSelectorTerm)
KSCHED_CORE(NodeSelector)
KSCHED_CORE(PreferredSchedulingTerm)
KSCHED_CORE(NodeAffinity)
KSCHED_CORE(PodAffinityTerm)
KSCHED_CORE(WeightedPodAffinityTerm)
KSCHED_CORE(PodAffinity)
KSCHED_CORE(Affinity)
KSCHED_CORE(Toleration)
KSCHED_CORE(TopologySpreadConstraint)
KSCHED_CORE(ContainerPort)
KSCHED_CORE(ResourceRequirements)
KSCHED_CORE(VolumeMount)
KSCHED_CORE(Container)
KSCHED_CORE(PersistentVolumeClaimVolumeSource)
KSCHED_CORE(GCEPersistentDiskVolumeSource)
KSCHED_CORE(AWSElasticBlockStoreVolumeSource)
KSCHED_CORE(ISCSIVolumeSource)
KSCHED_CORE(RBDVolumeSource)
KSCHED_CORE(CSIVolumeSource)
KSCHED_CORE(EphemeralVolumeSource)
KSCHED_CORE(Volume)
KSCHED_CORE(PodSchedulingGate)
KSCHED_CORE(WorkloadReference)
KSCHED_CORE(PodSchedulingGroup)
KSCHED_CORE(PodResourceClaim)
KSCHED_CORE(PodResourceClaimStatus)
KSCHED_CORE(PodSpec)
KSCHED_CORE(PodCondition)
KSCHED_CORE(ContainerStateWaiting)
KSCHED_CORE(ContainerStateRunning)
KSCHED_CORE(ContainerStateTerminated)
KSCHED_CORE(ContainerState)
KSCHED_CORE(VolumeMountStatus)
KSCHED_CORE(ContainerStatus)
KSCHED_CORE(PodStatus)
KSCHED_CORE(Pod)
KSCHED_CORE(Taint)
KSCHED_CORE(NodeSpec)
KSCHED_CORE(NodeCondition)
KSCHED_CORE(NodeAddress)
KSCHED_CORE(ContainerImage)
KSCHED_CORE(NodeStatus)
KSCHED_CORE(Node)
KSCHED_CORE(NamespaceStatus)
KSCHED_CORE(Namespace)
KSCHED_CORE(ServiceSpec)
KSCHED_CORE(Service)
KSCHED_CORE(ReplicationControllerSpec)
KSCHED_CORE(ReplicationController)
KSCHED_CORE(Binding)
KSCHED_CORE(EventSource)
KSCHED_CORE(EventSeries)
KSCHED_CORE(Event)
KSCHED_CORE(CSIPersistentVolumeSource)
KSCHED_CORE(VolumeNodeAffinity)
KSCHED_CORE(PersistentVolumeSpec)
KSCHED_CORE(PersistentVolumeStatus)
KSCHED_CORE(PersistentVolume)
KSCHED_CORE(PersistentVolumeClaimSpec)
KSCHED_CORE(PersistentVolumeClaimStatus)
KSCHED_CORE(PersistentVolumeClaim)
KSCHED_CORE(TopologySelectorLabelRequirement)
KSCHED_CORE(TopologySelectorTerm)
KSCHED_CORE_S(ConfigMap)
KSCHED_CORE_S(Secret)
KSCHED_CORE_S(ServiceAccount)
KSCHED_CORE_S(EndpointAddress)
KSCHED_CORE_S(EndpointPort)
KSCHED_CORE_S(EndpointSubset)
KSCHED_CORE_S(Endpoints)
KSCHED_CORE_S(PodTemplateSpec)
KSCHED_CORE_S(PodTemplate)
KSCHED_CORE_S(LimitRangeItem)
KSCHED_CORE_S(LimitRangeSpec)
KSCHED_CORE_S(LimitRange)
KSCHED_CORE_S(ResourceQuotaSpec)
KSCHED_CORE_S(ResourceQuotaStatus)
KSCHED_CORE_S(ResourceQuota)
KSCHED_CORE_S(NamespaceSpec)
KSCHED_CORE_SCHEMA_TYPES(KSCHED_CORE_S)
KSCHED_DEF(schema_only::ManagedFieldsEntry, "io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry")

KSCHED_DEF(api::ReplicaSetSpec, "io.k8s.api.apps.v1.ReplicaSetSpec")
KSCHED_DEF(api::StatefulSetSpec, "io.k8s.api.apps.v1.StatefulSetSpec")
KSCHED_DEF(api::DeploymentSpec, "io.k8s.api.apps.v1.DeploymentSpec")
KSCHED_DEF(api::DaemonSetSpec, "io.k8s.api.apps.v1.DaemonSetSpec")
KSCHED_DEF(api::ReplicaSet, "io.k8s.api.apps.v1.ReplicaSet")
KSCHED_DEF(api::StatefulSet, "io.k8s.api.apps.v1.StatefulSet")
KSCHED_DEF(api::Deployment, "io.k8s.api.apps.v1.Deployment")
KSCHED_DEF(api::DaemonSet, "io.k8s.api.apps.v1.DaemonSet")
KSCHED_DEF(schema_only::ControllerRevision, "io.k8s.api.apps.v1.ControllerRevision")

#define KSCHED_WORKLOAD_PG_ALPHA3(Type) \
  KSCHED_DEF(schema_only::Type, "io.k8s.api.scheduling.v1alpha3." #Type)
KSCHED_WORKLOAD_PG_ALPHA3(WorkloadPodGroupBasicSchedulingPolicy)
KSCHED_WORKLOAD_PG_ALPHA3(WorkloadPodGroupGangSchedulingPolicy)
KSCHED_WORKLOAD_PG_ALPHA3(WorkloadPodGroupSchedulingPolicy)
KSCHED_WORKLOAD_PG_ALPHA3(WorkloadPodGroupSchedulingConstraints)
KSCHED_WORKLOAD_PG_ALPHA3(WorkloadPodGroupSingleDisruptionMode)
KSCHED_WORKLOAD_PG_ALPHA3(WorkloadPodGroupAllDisruptionMode)
KSCHED_WORKLOAD_PG_ALPHA3(WorkloadPodGroupDisruptionMode)
KSCHED_WORKLOAD_PG_ALPHA3(WorkloadPodGroupResourceClaim)
#undef KSCHED_WORKLOAD_PG_ALPHA3
KSCHED_DEF(schema_only::JobSchedulingConfiguration, "io.k8s.api.batch.v1.JobSchedulingConfiguration")
KSCHED_DEF(schema_only::JobSpec, "io.k8s.api.batch.v1.JobSpec")
KSCHED_DEF(schema_only::JobCondition, "io.k8s.api.batch.v1.JobCondition")
KSCHED_DEF(schema_only::JobStatus, "io.k8s.api.batch.v1.JobStatus")
KSCHED_DEF(schema_only::Job, "io.k8s.api.batch.v1.Job")
KSCHED_DEF(schema_only::JobTemplateSpec, "io.k8s.api.batch.v1.JobTemplateSpec")
KSCHED_DEF(schema_only::CronJobSpec, "io.k8s.api.batch.v1.CronJobSpec")
KSCHED_DEF(schema_only::CronJobStatus, "io.k8s.api.batch.v1.CronJobStatus")
KSCHED_DEF(schema_only::CronJob, "io.k8s.api.batch.v1.CronJob")

KSCHED_DEF(api::PodDisruptionBudgetSpec, "io.k8s.api.policy.v1.PodDisruptionBudgetSpec")
KSCHED_DEF(api::PodDisruptionBudgetStatus, "io.k8s.api.policy.v1.PodDisruptionBudgetStatus")
KSCHED_DEF(api::PodDisruptionBudget, "io.k8s.api.policy.v1.PodDisruptionBudget")

KSCHED_DEF(api::StorageClass, "io.k8s.api.storage.v1.StorageClass")
KSCHED_DEF(api::VolumeNodeResources, "io.k8s.api.storage.v1.VolumeNodeResources")
KSCHED_DEF(api::CSINodeDriver, "io.k8s.api.storage.v1.CSINodeDriver")
KSCHED_DEF(api::CSINodeSpec, "io.k8s.api.storage.v1.CSINodeSpec")
KSCHED_DEF(api::CSINode, "io.k8s.api.storage.v1.CSINode")
KSCHED_DEF(api::CSIDriverSpec, "io.k8s.api.storage.v1.CSIDriverSpec")
KSCHED_DEF(api::CSIDriver, "io.k8s.api.storage.v1.CSIDriver")
KSCHED_DEF(api::CSIStorageCapacity, "io.k8s.api.storage.v1.CSIStorageCapacity")
KSCHED_DEF(schema_only::VolumeAttachmentSource, "io.k8s.api.storage.v1.VolumeAttachmentSource")
KSCHED_DEF(schema_only::VolumeAttachmentSpec, "io.k8s.api.storage.v1.VolumeAttachmentSpec")
KSCHED_DEF(schema_only::VolumeError, "io.k8s.api.storage.v1.VolumeError")
KSCHED_DEF(schema_only::VolumeAttachmentStatus, "io.k8s.api.storage.v1.VolumeAttachmentStatus")
KSCHED_DEF(schema_only::VolumeAttachment, "io.k8s.api.storage.v1.VolumeAttachment")

KSCHED_DEF(api::LeaseSpec, "io.k8s.api.coordination.v1.LeaseSpec")
KSCHED_DEF(api::Lease, "io.k8s.api.coordination.v1.Lease")
KSCHED_DEF(api::PriorityClass, "io.k8s.api.scheduling.v1.PriorityClass")
KSCHED_DEF(api::Overhead, "io.k8s.api.node.v1.Overhead")
KSCHED_DEF(api::Scheduling, "io.k8s.api.node.v1.Scheduling")
KSCHED_DEF(api::RuntimeClass, "io.k8s.api.node.v1.RuntimeClass")
KSCHED_DEF(api::eventsv1::Event, "io.k8s.api.events.v1.Event")

KSCHED_DEF(schema_only::PolicyRule, "io.k8s.api.rbac.v1.PolicyRule")
KSCHED_DEF(schema_only::AggregationRule, "io.k8s.api.rbac.v1.AggregationRule")
KSCHED_DEF(schema_only::Role, "io.k8s.api.rbac.v1.Role")
KSCHED_DEF(schema_only::ClusterRole, "io.k8s.api.rbac.v1.ClusterRole")
KSCHED_DEF(schema_only::RoleRef, "io.k8s.api.rbac.v1.RoleRef")
KSCHED_DEF(schema_only::Subject, "io.k8s.api.rbac.v1.Subject")
KSCHED_DEF(schema_only::RoleBinding, "io.k8s.api.rbac.v1.RoleBinding")
KSCHED_DEF(schema_only::ClusterRoleBinding, "io.k8s.api.rbac.v1.ClusterRoleBinding")

KSCHED_DEF(schema_only::TokenReviewSpec, "io.k8s.api.authentication.v1.TokenReviewSpec")
KSCHED_DEF(schema_only::UserInfo, "io.k8s.api.authentication.v1.UserInfo")
KSCHED_DEF(schema_only::TokenReviewStatus, "io.k8s.api.authentication.v1.TokenReviewStatus")
KSCHED_DEF(schema_only::TokenReview, "io.k8s.api.authentication.v1.TokenReview")
KSCHED_DEF(schema_only::ResourceAttributes, "io.k8s.api.authorization.v1.ResourceAttributes")
KSCHED_DEF(schema_only::NonResourceAttributes, "io.k8s.api.authorization.v1.NonResourceAttributes")
KSCHED_DEF(schema_only::SubjectAccessReviewSpec, "io.k8s.api.authorization.v1.SubjectAccessReviewSpec")
KSCHED_DEF(schema_only::SubjectAccessReviewStatus, "io.k8s.api.authorization.v1.SubjectAccessReviewStatus")
KSCHED_DEF(schema_only::SubjectAccessReview, "io.k8s.api.authorization.v1.SubjectAccessReview")
KSCHED_DEF(schema_only::LocalSubjectAccessReview, "io.k8s.api.authorization.v1.LocalSubjectAccessReview")
KSCHED_DEF(schema_only::SelfSubjectAccessReviewSpec, "io.k8s.api.authorization.v1.SelfSubjectAccessReviewSpec")
KSCHED_DEF(schema_only::SelfSubjectAccessReview, "io.k8s.api.authorization.v1.SelfSubjectAccessReview")
KSCHED_DEF(schema_only::SelfSubjectRulesReviewSpec, "io.k8s.api.authorization.v1.SelfSubjectRulesReviewSpec")
KSCHED_DEF(schema_only::ResourceRule, "io.k8s.api.authorization.v1.ResourceRule")
KSCHED_DEF(schema_only::NonResourceRule, "io.k8s.api.authorization.v1.NonResourceRule")
KSCHED_DEF(schema_only::SubjectRulesReviewStatus, "io.k8s.api.authorization.v1.SubjectRulesReviewStatus")
KSCHED_DEF(schema_only::SelfSubjectRulesReview, "io.k8s.api.authorization.v1.SelfSubjectRulesReview")
KSCHED_DEF(schema_only::SelfSubjectReviewStatus, "io.k8s.api.authentication.v1.SelfSubjectReviewStatus")
KSCHED_DEF(schema_only::SelfSubjectReview, "io.k8s.api.authentication.v1.SelfSubjectReview")

// resource.k8s.io/v1 (api/resource.h) and v1beta2 DeviceTaintRule.
#define KSCHED_RESOURCE(Type) KSCHED_DEF(api::resourcev1::Type, "io.k8s.api.resource.v1." #Type)
KSCHED_RESOURCE(Counter)
KSCHED_RESOURCE(CounterSet)
KSCHED_RESOURCE(ResourcePool)
KSCHED_RESOURCE(DeviceCounterConsumption)
KSCHED_RESOURCE(CapacityRequestPolicyRange)
KSCHED_RESOURCE(CapacityRequestPolicy)
KSCHED_RESOURCE(DeviceCapacity)
KSCHED_RESOURCE(DeviceAttribute)
KSCHED_RESOURCE(DeviceTaint)
KSCHED_RESOURCE(Device)
KSCHED_RESOURCE(ResourceSliceSpec)
KSCHED_RESOURCE(ResourceSlice)
KSCHED_RESOURCE(CELDeviceSelector)
KSCHED_RESOURCE(DeviceSelector)
KSCHED_RESOURCE(DeviceToleration)
KSCHED_RESOURCE(CapacityRequirements)
KSCHED_RESOURCE(ExactDeviceRequest)
KSCHED_RESOURCE(DeviceSubRequest)
KSCHED_RESOURCE(DeviceRequest)
KSCHED_RESOURCE(DeviceConstraint)
KSCHED_RESOURCE(OpaqueDeviceConfiguration)
KSCHED_RESOURCE(DeviceClaimConfiguration)
KSCHED_RESOURCE(DeviceClaim)
KSCHED_RESOURCE(ResourceClaimSpec)
KSCHED_RESOURCE(ResourceClaimConsumerReference)
KSCHED_RESOURCE(DeviceRequestAllocationResult)
KSCHED_RESOURCE(DeviceAllocationConfiguration)
KSCHED_RESOURCE(DeviceAllocationResult)
KSCHED_RESOURCE(AllocationResult)
KSCHED_RESOURCE(NetworkDeviceData)
KSCHED_RESOURCE(AllocatedDeviceStatus)
KSCHED_RESOURCE(ResourceClaimStatus)
KSCHED_RESOURCE(ResourceClaim)
KSCHED_RESOURCE(ResourceClaimTemplateSpec)
KSCHED_RESOURCE(ResourceClaimTemplate)
KSCHED_RESOURCE(DeviceClassConfiguration)
KSCHED_RESOURCE(DeviceClassSpec)
KSCHED_RESOURCE(DeviceClass)
#undef KSCHED_RESOURCE
#define KSCHED_RESOURCE_BETA2(Type) KSCHED_DEF(api::resourcev1beta2::Type, "io.k8s.api.resource.v1beta2." #Type)
KSCHED_RESOURCE_BETA2(DeviceTaint)
KSCHED_RESOURCE_BETA2(DeviceTaintSelector)
KSCHED_RESOURCE_BETA2(DeviceTaintRuleSpec)
KSCHED_RESOURCE_BETA2(DeviceTaintRuleStatus)
KSCHED_RESOURCE_BETA2(DeviceTaintRule)
#undef KSCHED_RESOURCE_BETA2
// scheduling.k8s.io/v1alpha1 Workload (api/scheduling.h).
#define KSCHED_SCHEDULING_ALPHA1(Type) \
  KSCHED_DEF(api::schedulingv1alpha1::Type, "io.k8s.api.scheduling.v1alpha1." #Type)
KSCHED_SCHEDULING_ALPHA1(TypedLocalObjectReference)
KSCHED_SCHEDULING_ALPHA1(BasicSchedulingPolicy)
KSCHED_SCHEDULING_ALPHA1(GangSchedulingPolicy)
KSCHED_SCHEDULING_ALPHA1(PodGroupPolicy)
KSCHED_SCHEDULING_ALPHA1(PodGroup)
KSCHED_SCHEDULING_ALPHA1(WorkloadSpec)
KSCHED_SCHEDULING_ALPHA1(Workload)
#undef KSCHED_SCHEDULING_ALPHA1
// scheduling.k8s.io/v1beta1 Workload and PodGroup (v1.37; api/scheduling.h).
#define KSCHED_SCHEDULING_BETA1(Type) \
  KSCHED_DEF(api::schedulingv1beta1::Type, "io.k8s.api.scheduling.v1beta1." #Type)
KSCHED_SCHEDULING_BETA1(TypedLocalObjectReference)
KSCHED_SCHEDULING_BETA1(BasicSchedulingPolicy)
KSCHED_SCHEDULING_BETA1(GangSchedulingPolicy)
KSCHED_SCHEDULING_BETA1(SingleDisruptionMode)
KSCHED_SCHEDULING_BETA1(AllDisruptionMode)
KSCHED_SCHEDULING_BETA1(PodGroupSchedulingPolicy)
KSCHED_SCHEDULING_BETA1(TopologyConstraint)
KSCHED_SCHEDULING_BETA1(PodGroupSchedulingConstraints)
KSCHED_SCHEDULING_BETA1(DisruptionMode)
KSCHED_SCHEDULING_BETA1(PodGroupResourceClaim)
KSCHED_SCHEDULING_BETA1(PodGroupResourceClaimStatus)
KSCHED_SCHEDULING_BETA1(PodGroupTemplate)
KSCHED_SCHEDULING_BETA1(WorkloadSpec)
KSCHED_SCHEDULING_BETA1(Workload)
KSCHED_SCHEDULING_BETA1(WorkloadReference)
KSCHED_SCHEDULING_BETA1(PodGroupSpec)
KSCHED_SCHEDULING_BETA1(PodGroupStatus)
KSCHED_SCHEDULING_BETA1(PodGroup)
KSCHED_SCHEDULING_BETA1(CompositeBasicSchedulingPolicy)
KSCHED_SCHEDULING_BETA1(CompositeGangSchedulingPolicy)
KSCHED_SCHEDULING_BETA1(CompositePodGroupSchedulingPolicy)
KSCHED_SCHEDULING_BETA1(CompositePodGroupSchedulingConstraints)
KSCHED_SCHEDULING_BETA1(SingleCompositeDisruptionMode)
KSCHED_SCHEDULING_BETA1(AllCompositeDisruptionMode)
KSCHED_SCHEDULING_BETA1(CompositeDisruptionMode)
KSCHED_SCHEDULING_BETA1(CompositePodGroupTemplate)
#undef KSCHED_SCHEDULING_BETA1
// scheduling.k8s.io/v1alpha3 CompositePodGroup (v1.37 alpha; api/scheduling.h).
#define KSCHED_SCHEDULING_ALPHA3(Type) \
  KSCHED_DEF(api::schedulingv1alpha3::Type, "io.k8s.api.scheduling.v1alpha3." #Type)
KSCHED_SCHEDULING_ALPHA3(TopologyConstraint)
KSCHED_SCHEDULING_ALPHA3(WorkloadReference)
KSCHED_SCHEDULING_ALPHA3(CompositeBasicSchedulingPolicy)
KSCHED_SCHEDULING_ALPHA3(CompositeGangSchedulingPolicy)
KSCHED_SCHEDULING_ALPHA3(CompositePodGroupSchedulingPolicy)
KSCHED_SCHEDULING_ALPHA3(CompositePodGroupSchedulingConstraints)
KSCHED_SCHEDULING_ALPHA3(SingleCompositeDisruptionMode)
KSCHED_SCHEDULING_ALPHA3(AllCompositeDisruptionMode)
KSCHED_SCHEDULING_ALPHA3(CompositeDisruptionMode)
KSCHED_SCHEDULING_ALPHA3(CompositePodGroupSpec)
KSCHED_SCHEDULING_ALPHA3(CompositePodGroupStatus)
KSCHED_SCHEDULING_ALPHA3(CompositePodGroup)
#undef KSCHED_SCHEDULING_ALPHA3

#undef KSCHED_CORE_S
#undef KSCHED_CORE
#undef KSCHED_META
#undef KSCHED_DEF

// ---------------------------------------------------------------- type traits
// std::optional<T> and optional-like boxes (api::Boxed<T>): the schema of T.
template <class T>
struct OptionalOf {
  using type = void;
};
template <template <class> class B, class T>
requires requires(const B<T>& b) {
  { b.has_value() } -> std::convertible_to<bool>;
  *b;
}
struct OptionalOf<B<T>> {
  using type = T;
};

template <>
struct OptionalOf<api::OptionalTime> {
  using type = api::Time;
};

template <class T>
struct VectorOf {
  using type = void;
};
template <class T, class A>
struct VectorOf<std::vector<T, A>> {
  using type = T;
};
template <class T>
struct VectorOf<api::SharedVector<T>> {
  using type = T;
};

template <class T>
concept FlatMapLike = requires {
  typename T::value_type::second_type;
}
&&std::is_base_of_v<api::FlatMap<typename T::value_type::second_type, T::kShared>, T>;

template <class T>
concept Described = requires {
  describe(api::type_tag<T>{});
};

template <class>
inline constexpr bool kUnsupported = false;

// ---------------------------------------------------------------- generator
class Builder {
 public:
  explicit Builder(Flavor f) : flavor_(f) {}

  json::object defs;

  std::string ref_to(std::string_view name) const {
    return std::string(flavor_ == Flavor::V3 ? "#/components/schemas/" : "#/definitions/") +
           std::string(name);
  }

  template <class T>
  json::value schema() {
    using Opt = typename OptionalOf<T>::type;
    using Elem = typename VectorOf<T>::type;
    if constexpr (!std::is_void_v<Opt>) {
      return schema<Opt>();
    } else if constexpr (api::is_api_string<T>) {
      return json::object{{"type", "string"}};
    } else if constexpr (std::is_same_v<T, bool>) {
      return json::object{{"type", "boolean"}};
    } else if constexpr (std::is_integral_v<T>) {
      return json::object{{"type", "integer"}, {"format", sizeof(T) <= 4 ? "int32" : "int64"}};
    } else if constexpr (std::is_floating_point_v<T>) {
      return json::object{{"type", "number"}, {"format", "double"}};
    } else if constexpr (std::is_same_v<T, api::Time> || std::is_same_v<T, api::MicroTime>) {
      return named<T>(json::object{{"type", "string"}, {"format", "date-time"}});
    } else if constexpr (std::is_same_v<T, api::Quantity>) {
      // Both "1Gi" and 1 are accepted; v2 has no oneOf and upstream says string there.
      if (flavor_ == Flavor::V3)
        return named<T>(json::object{
            {"oneOf", json::array{json::object{{"type", "string"}}, json::object{{"type", "number"}}}}});
      return named<T>(json::object{{"type", "string"}});
    } else if constexpr (std::is_same_v<T, api::IntOrString>) {
      if (flavor_ == Flavor::V3)
        return named<T>(json::object{
            {"format", "int-or-string"},
            {"oneOf", json::array{json::object{{"type", "integer"}}, json::object{{"type", "string"}}}},
            {"x-kubernetes-int-or-string", true}});
      return named<T>(json::object{{"type", "string"}, {"format", "int-or-string"}});
    } else if constexpr (std::is_same_v<T, schema_only::Bytes>) {
      return json::object{{"type", "string"}, {"format", "byte"}};
    } else if constexpr (std::is_same_v<T, schema_only::BytesMap>) {
      return json::object{{"type", "object"},
                          {"additionalProperties", json::object{{"type", "string"}, {"format", "byte"}}}};
    } else if constexpr (std::is_same_v<T, api::RawJson>) {
      return json::object{{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}};
    } else if constexpr (FlatMapLike<T>) {
      return json::object{{"type", "object"},
                          {"additionalProperties", schema<typename T::value_type::second_type>()}};
    } else if constexpr (!std::is_void_v<Elem>) {
      return json::object{{"type", "array"}, {"items", schema<Elem>()}};
    } else if constexpr (Described<T>) {
      constexpr std::string_view name = DefName<T>::value;
      if constexpr (name.empty()) {
        return object_schema<T>();
      } else {
        if (!defs.contains(name)) {
          defs[name] = json::object();  // placeholder: stops recursion through self references
          defs[name] = object_schema<T>();
        }
        return json::object{{"$ref", ref_to(name)}};
      }
    } else {
      static_assert(kUnsupported<T>, "no OpenAPI mapping for this member type");
    }
  }

  // Adds (or replaces) the fields described by `More` in the definition of `S`: fields the typed
  // struct keeps verbatim in `extra` or as RawJson.
  template <class S, class More>
  void add_fields() {
    (void)schema<S>();
    json::object more = object_schema<More>();
    auto& props = defs[DefName<S>::value].as_object()["properties"].as_object();
    for (auto& kv : more["properties"].as_object()) props[kv.key()] = kv.value();
  }

  template <class S>
  void set_kind(std::string_view group, std::string_view version, std::string_view kind,
                std::string_view desc) {
    (void)schema<S>();
    auto& d = defs[DefName<S>::value].as_object();
    d["description"] = desc;
    d["x-kubernetes-group-version-kind"] =
        json::array{json::object{{"group", group}, {"kind", kind}, {"version", version}}};
  }

 private:
  template <class T>
  json::value named(json::object primitive) {
    constexpr std::string_view name = DefName<T>::value;
    if (!defs.contains(name)) defs[name] = std::move(primitive);
    return json::object{{"$ref", ref_to(name)}};
  }

  template <class S>
  json::object object_schema() {
    json::object props;
    api::apply_fields([&](const auto&... f) { (add_property(props, f), ...); }, describe(api::type_tag<S>{}));
    return json::object{{"type", "object"}, {"properties", std::move(props)}};
  }

  template <class S, class M>
  void add_property(json::object& props, const api::Field<S, M>& f) {
    json::value s = schema<M>();
    using Elem = typename VectorOf<M>::type;
    if constexpr (!std::is_void_v<Elem>) {
      // Advertise the list merge semantics this server's strategic merge patch applies.
      auto& o = s.as_object();
      if constexpr (Described<Elem>) {
        if (const char* key = strategic_merge_key("", f.name)) {
          o["x-kubernetes-patch-merge-key"] = key;
          o["x-kubernetes-patch-strategy"] = "merge";
        }
      } else if (strategic_merges_primitives(f.name)) {
        o["x-kubernetes-patch-strategy"] = "merge";
      }
    }
    props[f.name] = std::move(s);
  }

  Flavor flavor_;
};

// The served kinds: C++ type, GVK and a one-line description of our own.
void add_kinds(Builder& b) {
  namespace so = schema_only;
  b.set_kind<api::Pod>("", "v1", "Pod", "A set of containers that run together on one node.");
  b.set_kind<api::Binding>("", "v1", "Binding", "Assigns a pod to a node; created by the scheduler.");
  b.set_kind<api::Node>("", "v1", "Node",
                        "A machine that runs pods, with its capacity, taints and conditions.");
  b.set_kind<api::Namespace>("", "v1", "Namespace", "A scope for the names of namespaced objects.");
  b.set_kind<api::Service>("", "v1", "Service",
                           "A stable name and address for a set of pods chosen by labels.");
  b.set_kind<so::Endpoints>("", "v1", "Endpoints", "The network addresses behind a service.");
  b.set_kind<so::ConfigMap>("", "v1", "ConfigMap", "Non-secret configuration data as key/value pairs.");
  b.set_kind<so::Secret>("", "v1", "Secret", "Sensitive data (tokens, keys, passwords) as key/value pairs.");
  b.set_kind<so::ServiceAccount>("", "v1", "ServiceAccount", "An identity for processes that run in pods.");
  b.set_kind<api::Event>("", "v1", "Event",
                         "A report of something that happened to an object (core/v1 form).");
  b.set_kind<api::PersistentVolume>("", "v1", "PersistentVolume",
                                    "A piece of storage available to the cluster.");
  b.set_kind<api::PersistentVolumeClaim>("", "v1", "PersistentVolumeClaim",
                                         "A request for storage, bound to a persistent volume.");
  b.set_kind<api::ReplicationController>(
      "", "v1", "ReplicationController",
      "Keeps a number of pod replicas running (legacy form of ReplicaSet).");
  b.set_kind<so::PodTemplate>("", "v1", "PodTemplate", "A stored template for creating pods.");
  b.set_kind<so::LimitRange>("", "v1", "LimitRange", "Default and bounding resource values per namespace.");
  b.set_kind<so::ResourceQuota>("", "v1", "ResourceQuota", "Caps the total resources used in a namespace.");
  b.set_kind<api::Deployment>("apps", "v1", "Deployment",
                              "Declarative updates for a replicated set of pods.");
  b.set_kind<api::ReplicaSet>("apps", "v1", "ReplicaSet",
                              "Keeps a number of identical pod replicas running.");
  b.set_kind<api::StatefulSet>("apps", "v1", "StatefulSet", "Pods with stable identities and storage.");
  b.set_kind<api::DaemonSet>("apps", "v1", "DaemonSet", "Runs a copy of a pod on each eligible node.");
  b.set_kind<so::ControllerRevision>("apps", "v1", "ControllerRevision",
                                     "An immutable snapshot of a controller's state.");
  b.set_kind<so::Job>("batch", "v1", "Job", "Runs pods until a number of them complete.");
  b.set_kind<so::CronJob>("batch", "v1", "CronJob", "Creates jobs on a schedule.");
  b.set_kind<api::PodDisruptionBudget>("policy", "v1", "PodDisruptionBudget",
                                       "Limits how many pods of a set may be disrupted at once.");
  b.set_kind<api::StorageClass>("storage.k8s.io", "v1", "StorageClass",
                                "A class of dynamically provisioned storage.");
  b.set_kind<api::CSINode>("storage.k8s.io", "v1", "CSINode", "The CSI drivers installed on a node.");
  b.set_kind<api::CSIDriver>("storage.k8s.io", "v1", "CSIDriver",
                             "A CSI volume driver installed in the cluster.");
  b.set_kind<api::CSIStorageCapacity>("storage.k8s.io", "v1", "CSIStorageCapacity",
                                      "Storage capacity available to a topology segment.");
  b.set_kind<so::VolumeAttachment>("storage.k8s.io", "v1", "VolumeAttachment",
                                   "A request to attach a volume to a node.");
  b.set_kind<api::Lease>("coordination.k8s.io", "v1", "Lease",
                         "A lease used for leader election and heartbeats.");
  b.set_kind<api::PriorityClass>("scheduling.k8s.io", "v1", "PriorityClass",
                                 "Maps a priority class name to an integer pod priority.");
  b.set_kind<api::RuntimeClass>("node.k8s.io", "v1", "RuntimeClass",
                                "A container runtime configuration (CRI handler) that pods can select.");
  b.set_kind<api::eventsv1::Event>("events.k8s.io", "v1", "Event",
                                   "A report of something that happened to an object.");
  b.set_kind<so::ClusterRoleBinding>("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding",
                                     "Grants a cluster role to subjects cluster-wide.");
  b.set_kind<so::ClusterRole>("rbac.authorization.k8s.io", "v1", "ClusterRole",
                              "A cluster-wide set of permission rules.");
  b.set_kind<so::RoleBinding>("rbac.authorization.k8s.io", "v1", "RoleBinding",
                              "Grants a role to subjects within a namespace.");
  b.set_kind<so::Role>("rbac.authorization.k8s.io", "v1", "Role", "A namespaced set of permission rules.");
  b.set_kind<so::TokenReview>("authentication.k8s.io", "v1", "TokenReview",
                              "Asks the server to authenticate a bearer token.");
  b.set_kind<so::SubjectAccessReview>("authorization.k8s.io", "v1", "SubjectAccessReview",
                                      "Asks the server whether a user may perform an action.");
  namespace rv1 = api::resourcev1;
  b.set_kind<rv1::DeviceClass>("resource.k8s.io", "v1", "DeviceClass",
                               "A class of devices (selectors and configuration) that claims refer to.");
  b.set_kind<rv1::ResourceClaim>("resource.k8s.io", "v1", "ResourceClaim",
                                 "A request for devices, allocated by the scheduler and used by pods.");
  b.set_kind<rv1::ResourceClaimTemplate>("resource.k8s.io", "v1", "ResourceClaimTemplate",
                                         "A template from which a ResourceClaim is made for each pod.");
  b.set_kind<rv1::ResourceSlice>("resource.k8s.io", "v1", "ResourceSlice",
                                 "Devices of one driver's pool that a driver publishes, usually per node.");
  b.set_kind<api::resourcev1beta2::DeviceTaintRule>("resource.k8s.io", "v1beta2", "DeviceTaintRule",
                                                    "Adds one taint to every device the selector matches.");
  b.set_kind<api::schedulingv1alpha1::Workload>(
      "scheduling.k8s.io", "v1alpha1", "Workload",
      "Scheduling constraints (pod groups and their gang or basic policies) of a workload's pods.");
  b.set_kind<api::schedulingv1beta1::Workload>(
      "scheduling.k8s.io", "v1beta1", "Workload",
      "Scheduling constraints of a workload's pods: templates of its pod groups and their policies.");
  b.set_kind<api::schedulingv1beta1::PodGroup>(
      "scheduling.k8s.io", "v1beta1", "PodGroup",
      "A runtime group of pods with one scheduling policy (gang or basic); pods join it by name.");
  b.set_kind<api::schedulingv1alpha3::CompositePodGroup>(
      "scheduling.k8s.io", "v1alpha3", "CompositePodGroup",
      "A runtime group of pod groups with one scheduling policy; its children name it as their parent.");
  b.set_kind<so::LocalSubjectAccessReview>("authorization.k8s.io", "v1", "LocalSubjectAccessReview",
                                           "Asks whether a user may perform an action in one namespace.");
  b.set_kind<so::SelfSubjectAccessReview>("authorization.k8s.io", "v1", "SelfSubjectAccessReview",
                                          "Asks whether the caller may perform an action.");
  b.set_kind<so::SelfSubjectRulesReview>("authorization.k8s.io", "v1", "SelfSubjectRulesReview",
                                         "Lists the actions the caller may perform in a namespace.");
  b.set_kind<so::SelfSubjectReview>("authentication.k8s.io", "v1", "SelfSubjectReview",
                                    "Returns the caller's user information as the server authenticated it.");
  // The workload specs model replicas and selectors; their pod templates come from here.
  b.add_fields<api::DeploymentSpec, so::WorkloadTemplate>();
  b.add_fields<api::ReplicaSetSpec, so::WorkloadTemplate>();
  b.add_fields<api::StatefulSetSpec, so::WorkloadTemplate>();
  b.add_fields<api::DaemonSetSpec, so::WorkloadTemplate>();
  b.add_fields<api::ReplicationControllerSpec, so::WorkloadTemplate>();
  b.add_fields<api::ObjectMeta, so::ObjectMetaMore>();
  b.add_fields<api::Namespace, so::NamespaceMore>();
  b.add_fields<api::StatefulSetSpec, so::StatefulSetSpecMore>();
  b.add_fields<api::PersistentVolumeClaimStatus, so::PersistentVolumeClaimStatusMore>();
  // The members of Pod's and Node's typed structs that they keep verbatim (openapi_core_types.h).
#define KSCHED_MORE(Type) b.add_fields<api::Type, so::Type##More>();
  KSCHED_CORE_SCHEMA_MORE(KSCHED_MORE)
#undef KSCHED_MORE
}

// Names of the definitions reachable from `roots` through "$ref"s.
void collect_refs(const json::value& v, std::vector<std::string>& out) {
  if (v.is_object()) {
    for (const auto& kv : v.get_object()) {
      if (kv.key() == "$ref" && kv.value().is_string()) {
        std::string_view r = kv.value().get_string();
        out.emplace_back(r.substr(r.rfind('/') + 1));
      } else {
        collect_refs(kv.value(), out);
      }
    }
  } else if (v.is_array()) {
    for (const auto& e : v.get_array()) collect_refs(e, out);
  }
}

json::object closure(const json::object& defs, const std::vector<std::string>& roots) {
  std::set<std::string> seen;
  std::vector<std::string> todo = roots;
  while (!todo.empty()) {
    std::string n = std::move(todo.back());
    todo.pop_back();
    if (!seen.insert(n).second) continue;
    if (const auto* d = defs.if_contains(n)) collect_refs(*d, todo);
  }
  // Sorted like upstream's documents (std::set order).
  json::object out;
  for (const auto& n : seen)
    if (const auto* d = defs.if_contains(n)) out[n] = *d;
  return out;
}

std::string gv_key(const ResourceInfo& r) {
  return r.group.empty() ? "api/" + r.version : "apis/" + r.group + "/" + r.version;
}

// Content hash for the index's serverRelativeURL (clients cache documents by URL).
std::string doc_hash(std::string_view body) {
  std::uint64_t h = 1469598103934665603ull;
  for (char c : body) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llX", static_cast<unsigned long long>(h));
  return buf;
}

json::object query_param(const char* name) {
  return json::object{
      {"name", name}, {"in", "query"}, {"schema", json::object{{"type", "string"}, {"uniqueItems", true}}}};
}

json::object json_content(const std::string& ref) {
  return json::object{{"application/json", json::object{{"schema", json::object{{"$ref", ref}}}}}};
}

// PUT and PATCH on each kind's item path: kubectl takes the GVK from them (explain) and looks for
// the fieldValidation parameter (server-side validation). PATCH has no requestBody on purpose (see
// openapi.h).
// The definition of group/version/kind; without a version (or none at it), the kind's first.
std::string_view find_kind(const json::object& defs, std::string_view group, std::string_view kind,
                           std::string_view version = {}) {
  std::string_view any;
  for (const auto& kv : defs) {
    const auto* g = kv.value().as_object().if_contains("x-kubernetes-group-version-kind");
    if (!g) continue;
    for (const auto& e : g->as_array()) {
      const auto& o = e.as_object();
      if (o.at("group").as_string() != group || o.at("kind").as_string() != kind) continue;
      if (version.empty() || o.at("version").as_string() == version) return kv.key();
      if (any.empty()) any = kv.key();
    }
  }
  return any;
}

json::object v3_paths(const json::object& defs, std::string_view gv_path, std::vector<std::string>& roots) {
  json::object paths;
  for (const auto& r : all_resources()) {
    if (gv_key(r) != gv_path) continue;
    std::string base = r.gv_path() + (r.namespaced ? "/namespaces/{namespace}/" : "/") + r.plural + "/{name}";
    json::object gvk{{"group", r.group}, {"version", r.version}, {"kind", r.kind}};
    json::array params{
        query_param("dryRun"), query_param("fieldManager"), query_param("fieldValidation"),
        json::object{{"name", "force"}, {"in", "query"}, {"schema", json::object{{"type", "boolean"}}}}};
    json::array path_params{json::object{
        {"name", "name"}, {"in", "path"}, {"required", true}, {"schema", json::object{{"type", "string"}}}}};
    if (r.namespaced)
      path_params.push_back(json::object{{"name", "namespace"},
                                         {"in", "path"},
                                         {"required", true},
                                         {"schema", json::object{{"type", "string"}}}});
    json::object ok{{"description", "OK"}};
    std::string_view def = find_kind(defs, r.group, r.kind, r.version);
    std::string ref;
    if (!def.empty()) {
      roots.emplace_back(def);
      ref = "#/components/schemas/" + std::string(def);
      ok["content"] = json_content(ref);
    }
    json::object patch{{"operationId", "patch" + r.kind},
                       {"x-kubernetes-action", "patch"},
                       {"x-kubernetes-group-version-kind", gvk},
                       {"parameters", params},
                       {"responses", json::object{{"200", ok}}}};
    json::object put{{"operationId", "replace" + r.kind},
                     {"x-kubernetes-action", "put"},
                     {"x-kubernetes-group-version-kind", gvk},
                     {"parameters", params},
                     {"responses", json::object{{"200", ok}}}};
    if (!ref.empty()) put["requestBody"] = json::object{{"content", json_content(ref)}, {"required", true}};
    paths[base] =
        json::object{{"parameters", path_params}, {"patch", std::move(patch)}, {"put", std::move(put)}};
  }
  return paths;
}

// ---------------------------------------------------------------- gnostic protobuf (v2)
// Only the Schema members the v2 flavor produces are encoded; field numbers are those of gnostic's
// OpenAPIv2.proto. Vendor extensions travel as YAML text, and JSON is YAML.
void pb_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void pb_bytes(std::string& out, std::uint32_t field, std::string_view b) {
  pb_varint(out, (std::uint64_t{field} << 3) | 2);  // wire type 2: length-delimited
  pb_varint(out, b.size());
  out.append(b);
}

std::string pb_schema(const json::object& s);

std::string pb_named_schema(std::string_view name, const json::value& schema) {
  std::string m;
  pb_bytes(m, 1, name);
  pb_bytes(m, 2, pb_schema(schema.as_object()));
  return m;
}

std::string pb_schema(const json::object& s) {
  std::string out;
  for (const auto& kv : s) {
    std::string_view k = kv.key();
    const json::value& v = kv.value();
    if (k == "$ref") {
      pb_bytes(out, 1, v.as_string());
    } else if (k == "format") {
      pb_bytes(out, 2, v.as_string());
    } else if (k == "description") {
      pb_bytes(out, 4, v.as_string());
    } else if (k == "required") {
      for (const auto& r : v.as_array()) pb_bytes(out, 19, r.as_string());
    } else if (k == "additionalProperties" && v.is_object()) {
      std::string item;  // AdditionalPropertiesItem.schema
      pb_bytes(item, 1, pb_schema(v.as_object()));
      pb_bytes(out, 21, item);
    } else if (k == "type") {
      std::string item;  // TypeItem.value
      pb_bytes(item, 1, v.as_string());
      pb_bytes(out, 22, item);
    } else if (k == "items") {
      std::string item;  // ItemsItem.schema
      pb_bytes(item, 1, pb_schema(v.as_object()));
      pb_bytes(out, 23, item);
    } else if (k == "allOf") {
      for (const auto& e : v.as_array()) pb_bytes(out, 24, pb_schema(e.as_object()));
    } else if (k == "properties") {
      std::string props;  // Properties.additional_properties
      for (const auto& p : v.as_object()) pb_bytes(props, 1, pb_named_schema(p.key(), p.value()));
      pb_bytes(out, 25, props);
    } else if (k.starts_with("x-")) {
      std::string any;  // Any.yaml
      pb_bytes(any, 2, json::serialize(v));
      std::string named;  // NamedAny{name, value}
      pb_bytes(named, 1, k);
      pb_bytes(named, 2, any);
      pb_bytes(out, 31, named);
    }
  }
  return out;
}

std::string pb_document(const json::object& defs) {
  std::string info;
  pb_bytes(info, 1, "Kubernetes");
  pb_bytes(info, 2, api::kKubernetesVersion);
  std::string definitions;
  for (const auto& kv : defs) pb_bytes(definitions, 1, pb_named_schema(kv.key(), kv.value()));
  std::string out;
  pb_bytes(out, 1, "2.0");
  pb_bytes(out, 2, info);
  pb_bytes(out, 8, "");  // empty Paths
  pb_bytes(out, 9, definitions);
  return out;
}

struct Documents {
  std::string v2_protobuf;
  json::object defs_v2;
  json::object defs_v3;
  std::map<std::string, std::string, std::less<>> v3;  // gv path -> document
  std::string v3_index;
  std::string v2;
};

json::object build_definitions(Flavor f) {
  Builder b(f);
  add_kinds(b);
  return std::move(b.defs);
}

const Documents& documents() {
  static const Documents d = [] {
    Documents d;
    d.defs_v2 = build_definitions(Flavor::V2);
    d.defs_v3 = build_definitions(Flavor::V3);
    json::object index;
    for (const auto& r : all_resources()) {
      std::string key = gv_key(r);
      if (d.v3.count(key)) continue;
      std::vector<std::string> roots;
      json::object paths = v3_paths(d.defs_v3, key, roots);
      std::string body = json::serialize(
          json::object{{"openapi", "3.0.0"},
                       {"info", json::object{{"title", "Kubernetes"}, {"version", api::kKubernetesVersion}}},
                       {"paths", std::move(paths)},
                       {"components", json::object{{"schemas", closure(d.defs_v3, roots)}}}});
      index[key] = json::object{{"serverRelativeURL", "/openapi/v3/" + key + "?hash=" + doc_hash(body)}};
      d.v3.emplace(key, std::move(body));
    }
    d.v3_index = json::serialize(json::object{{"paths", std::move(index)}});
    // Definitions only: no paths, so nothing reads PATCH content types from it (see openapi.h).
    d.v2 =
        json::serialize(json::object{{"swagger", "2.0"},
                                     {"info", json::object{{"title", "Kubernetes"}, {"version", api::kKubernetesVersion}}},
                                     {"paths", json::object()},
                                     {"definitions", d.defs_v2}});
    d.v2_protobuf = pb_document(d.defs_v2);
    return d;
  }();
  return d;
}

}  // namespace

const json::object& definitions(Flavor f) {
  return f == Flavor::V3 ? documents().defs_v3 : documents().defs_v2;
}

std::string_view kind_definition(std::string_view group, std::string_view kind) {
  return find_kind(documents().defs_v3, group, kind);
}

std::string_view kind_definition(std::string_view group, std::string_view version, std::string_view kind) {
  return find_kind(documents().defs_v3, group, kind, version);
}

namespace {

// The tables of openapi_core_types.h by (definition, field), built on first use.
struct FieldFacts {
  std::set<std::string_view, std::less<>> complete;
  std::map<std::pair<std::string_view, std::string_view>, std::string_view, std::less<>> named, embedded;
  FieldFacts() {
    for (auto d : kCompleteDefinitions) complete.insert(d);
    for (const auto& n : kGoNamedTypes) named[{n.definition, n.field}] = n.go_type;
    for (const auto& e : kEmbeddedFields) embedded[{e.definition, e.field}] = e.embedded;
    for (auto d : kResourceCompleteDefinitions) complete.insert(d);
    for (const auto& n : kResourceGoNamedTypes) named[{n.definition, n.field}] = n.go_type;
    for (const auto& e : kResourceEmbeddedFields) embedded[{e.definition, e.field}] = e.embedded;
  }
};

const FieldFacts& field_facts() {
  static const FieldFacts f;
  return f;
}

}  // namespace

bool definition_is_complete(std::string_view def) { return field_facts().complete.count(def) != 0; }

std::string_view go_named_type(std::string_view def, std::string_view field) {
  const auto& m = field_facts().named;
  auto it = m.find(std::pair{def, field});
  return it == m.end() ? std::string_view() : it->second;
}

std::string_view embedded_struct(std::string_view def, std::string_view field) {
  const auto& m = field_facts().embedded;
  auto it = m.find(std::pair{def, field});
  return it == m.end() ? std::string_view() : it->second;
}

const std::string& v3_index() { return documents().v3_index; }

const std::string& v3_document(std::string_view gv_path) {
  static const std::string empty;
  const auto& m = documents().v3;
  auto it = m.find(gv_path);
  return it == m.end() ? empty : it->second;
}

const std::string& v2_document() { return documents().v2; }
const std::string& v2_document_protobuf() { return documents().v2_protobuf; }

V2Form v2_form(std::string_view accept) {
  if (accept.empty()) return V2Form::Json;
  while (!accept.empty()) {
    auto comma = accept.find(',');
    std::string_view item = accept.substr(0, comma);
    accept = comma == std::string_view::npos ? std::string_view() : accept.substr(comma + 1);
    item = item.substr(0, item.find(';'));
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item == "*/*" || item == "application/*" || item == "application/json") return V2Form::Json;
    if (item == kV2ProtobufAccept || item == kV2ProtobufType) return V2Form::Protobuf;
  }
  return V2Form::None;
}

}  // namespace ksched::apiserver::openapi
