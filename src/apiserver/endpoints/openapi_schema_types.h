// Schema-only types: kinds (and sub-objects) the API server stores as plain JSON without a typed
// struct, described in the same `describe(type_tag<T>)` form as the api structs so that the one
// OpenAPI generator (openapi.cpp) covers them. The fields are the commonly used ones of upstream's
// types (all of them for ConfigMap and Secret; Pod's and Node's sub-objects are in
// openapi_core_types.h). Private to openapi.cpp.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "api/types.h"
#include "apiserver/endpoints/openapi_core_types.h"

namespace ksched::apiserver::openapi {

namespace schema_only {

using api::field;
using api::field_list;
using api::IntOrString;
using api::LabelSelector;
using api::ObjectMeta;
using api::ObjectReference;
using api::PodSpec;
using api::RawJson;
using api::ResourceList;
using api::StringMap;
using api::Time;
using api::type_tag;

// Go's []byte, a base64 string in JSON, and map[string][]byte (Secret data, ConfigMap binaryData).
struct Bytes {};
struct BytesMap {};

#define KSCHED_F(name) field(#name, &T::name)
#define KSCHED_KIND_FIELDS \
  field("apiVersion", &T::apiVersion), field("kind", &T::kind), field("metadata", &T::metadata)
#define KSCHED_KIND_MEMBERS \
  std::string apiVersion;   \
  std::string kind;         \
  ObjectMeta metadata

struct ConfigMap {
  KSCHED_KIND_MEMBERS;
  StringMap data;
  BytesMap binaryData;
  std::optional<bool> immutable;
};
constexpr auto describe(type_tag<ConfigMap>) {
  using T = ConfigMap;
  return field_list(KSCHED_KIND_FIELDS, KSCHED_F(data), KSCHED_F(binaryData), KSCHED_F(immutable));
}

struct Secret {
  KSCHED_KIND_MEMBERS;
  BytesMap data;
  StringMap stringData;
  std::string type;
  std::optional<bool> immutable;
};
constexpr auto describe(type_tag<Secret>) {
  using T = Secret;
  return field_list(KSCHED_KIND_FIELDS, KSCHED_F(data), KSCHED_F(stringData), KSCHED_F(type),
                    KSCHED_F(immutable));
}

struct ServiceAccount {
  KSCHED_KIND_MEMBERS;
  std::vector<ObjectReference> secrets;
  std::vector<LocalObjectReference> imagePullSecrets;
  std::optional<bool> automountServiceAccountToken;
};
constexpr auto describe(type_tag<ServiceAccount>) {
  using T = ServiceAccount;
  return field_list(KSCHED_KIND_FIELDS, KSCHED_F(secrets), KSCHED_F(imagePullSecrets),
                    KSCHED_F(automountServiceAccountToken));
}

struct EndpointAddress {
  std::string ip;
  std::string hostname;
  std::optional<std::string> nodeName;
  std::optional<ObjectReference> targetRef;
};
constexpr auto describe(type_tag<EndpointAddress>) {
  using T = EndpointAddress;
  return field_list(KSCHED_F(ip), KSCHED_F(hostname), KSCHED_F(nodeName), KSCHED_F(targetRef));
}

struct EndpointPort {
  std::string name;
  std::int32_t port = 0;
  std::string protocol;
  std::optional<std::string> appProtocol;
};
constexpr auto describe(type_tag<EndpointPort>) {
  using T = EndpointPort;
  return field_list(KSCHED_F(name), KSCHED_F(port), KSCHED_F(protocol), KSCHED_F(appProtocol));
}

struct EndpointSubset {
  std::vector<EndpointAddress> addresses;
  std::vector<EndpointAddress> notReadyAddresses;
  std::vector<EndpointPort> ports;
};
constexpr auto describe(type_tag<EndpointSubset>) {
  using T = EndpointSubset;
  return field_list(KSCHED_F(addresses), KSCHED_F(notReadyAddresses), KSCHED_F(ports));
}

struct Endpoints {
  KSCHED_KIND_MEMBERS;
  std::vector<EndpointSubset> subsets;
};
constexpr auto describe(type_tag<Endpoints>) {
  using T = Endpoints;
  return field_list(KSCHED_KIND_FIELDS, KSCHED_F(subsets));
}

struct PodTemplateSpec {
  ObjectMeta metadata;
  PodSpec spec;
};
constexpr auto describe(type_tag<PodTemplateSpec>) {
  using T = PodTemplateSpec;
  return field_list(KSCHED_F(metadata), KSCHED_F(spec));
}

struct PodTemplate {
  KSCHED_KIND_MEMBERS;
  PodTemplateSpec template_;
};
constexpr auto describe(type_tag<PodTemplate>) {
  using T = PodTemplate;
  return field_list(KSCHED_KIND_FIELDS, field("template", &T::template_));
}

struct LimitRangeItem {
  std::string type;
  ResourceList max;
  ResourceList min;
  ResourceList default_;
  ResourceList defaultRequest;
  ResourceList maxLimitRequestRatio;
};
constexpr auto describe(type_tag<LimitRangeItem>) {
  using T = LimitRangeItem;
  return field_list(KSCHED_F(type),
                    KSCHED_F(max),
                    KSCHED_F(min),
                    field("default", &T::default_),
                    KSCHED_F(defaultRequest),
                    KSCHED_F(maxLimitRequestRatio));
}

struct LimitRangeSpec {
  std::vector<LimitRangeItem> limits;
};
constexpr auto describe(type_tag<LimitRangeSpec>) {
  using T = LimitRangeSpec;
  return field_list(KSCHED_F(limits));
}

struct LimitRange {
  KSCHED_KIND_MEMBERS;
  LimitRangeSpec spec;
};
constexpr auto describe(type_tag<LimitRange>) {
  using T = LimitRange;
  return field_list(KSCHED_KIND_FIELDS, KSCHED_F(spec));
}

struct ResourceQuotaSpec {
  ResourceList hard;
  std::vector<std::string> scopes;
};
constexpr auto describe(type_tag<ResourceQuotaSpec>) {
  using T = ResourceQuotaSpec;
  return field_list(KSCHED_F(hard), KSCHED_F(scopes));
}

struct ResourceQuotaStatus {
  ResourceList hard;
  ResourceList used;
};
constexpr auto describe(type_tag<ResourceQuotaStatus>) {
  using T = ResourceQuotaStatus;
  return field_list(KSCHED_F(hard), KSCHED_F(used));
}

struct ResourceQuota {
  KSCHED_KIND_MEMBERS;
  ResourceQuotaSpec spec;
  ResourceQuotaStatus status;
};
constexpr auto describe(type_tag<ResourceQuota>) {
  using T = ResourceQuota;
  return field_list(KSCHED_KIND_FIELDS, KSCHED_F(spec), KSCHED_F(status));
}

// apps/v1
struct ControllerRevision {
  KSCHED_KIND_MEMBERS;
  RawJson data;
  std::int64_t revision = 0;
};
constexpr auto describe(type_tag<ControllerRevision>) {
  using T = ControllerRevision;
  return field_list(KSCHED_KIND_FIELDS, KSCHED_F(data), KSCHED_F(revision));
}

// The workload specs' pod template (not modelled by the typed specs, which keep it verbatim).
struct WorkloadTemplate {
  PodTemplateSpec template_;
};
constexpr auto describe(type_tag<WorkloadTemplate>) {
  using T = WorkloadTemplate;
  return field_list(field("template", &T::template_));
}

// Members of typed structs' `extra` that hold quantities, so that they are stored canonical.
struct StatefulSetSpecMore {
  std::vector<api::PersistentVolumeClaim> volumeClaimTemplates;
};
constexpr auto describe(type_tag<StatefulSetSpecMore>) {
  using T = StatefulSetSpecMore;
  return field_list(KSCHED_F(volumeClaimTemplates));
}

struct PersistentVolumeClaimStatusMore {
  ResourceList allocatedResources;
};
constexpr auto describe(type_tag<PersistentVolumeClaimStatusMore>) {
  using T = PersistentVolumeClaimStatusMore;
  return field_list(KSCHED_F(allocatedResources));
}

struct NamespaceSpec {
  std::vector<std::string> finalizers;
};
constexpr auto describe(type_tag<NamespaceSpec>) {
  using T = NamespaceSpec;
  return field_list(KSCHED_F(finalizers));
}

struct NamespaceMore {
  NamespaceSpec spec;
};
constexpr auto describe(type_tag<NamespaceMore>) {
  using T = NamespaceMore;
  return field_list(KSCHED_F(spec));
}

// batch/v1
// Job's spec.scheduling (v1.37, gate WorkloadWithJob; k8s.io/api batch/v1 types.go,
// JobSchedulingConfiguration) and the scheduling.k8s.io/v1alpha3 WorkloadPodGroup* blocks it is
// made of. Listed whatever the gate, as upstream's generated documents list gated fields.
struct WorkloadPodGroupBasicSchedulingPolicy {};
constexpr auto describe(type_tag<WorkloadPodGroupBasicSchedulingPolicy>) { return field_list(); }
struct WorkloadPodGroupGangSchedulingPolicy {
  std::optional<std::int32_t> minCount;
};
constexpr auto describe(type_tag<WorkloadPodGroupGangSchedulingPolicy>) {
  using T = WorkloadPodGroupGangSchedulingPolicy;
  return field_list(KSCHED_F(minCount));
}
struct WorkloadPodGroupSchedulingPolicy {
  std::optional<WorkloadPodGroupBasicSchedulingPolicy> basic;
  std::optional<WorkloadPodGroupGangSchedulingPolicy> gang;
};
constexpr auto describe(type_tag<WorkloadPodGroupSchedulingPolicy>) {
  using T = WorkloadPodGroupSchedulingPolicy;
  return field_list(KSCHED_F(basic), KSCHED_F(gang));
}
struct WorkloadPodGroupSchedulingConstraints {
  std::vector<api::schedulingv1alpha3::TopologyConstraint> topology;
};
constexpr auto describe(type_tag<WorkloadPodGroupSchedulingConstraints>) {
  using T = WorkloadPodGroupSchedulingConstraints;
  return field_list(KSCHED_F(topology));
}
struct WorkloadPodGroupSingleDisruptionMode {};
constexpr auto describe(type_tag<WorkloadPodGroupSingleDisruptionMode>) { return field_list(); }
struct WorkloadPodGroupAllDisruptionMode {};
constexpr auto describe(type_tag<WorkloadPodGroupAllDisruptionMode>) { return field_list(); }
struct WorkloadPodGroupDisruptionMode {
  std::optional<WorkloadPodGroupSingleDisruptionMode> single;
  std::optional<WorkloadPodGroupAllDisruptionMode> all;
};
constexpr auto describe(type_tag<WorkloadPodGroupDisruptionMode>) {
  using T = WorkloadPodGroupDisruptionMode;
  return field_list(KSCHED_F(single), KSCHED_F(all));
}
struct WorkloadPodGroupResourceClaim {
  std::string name;
  std::optional<std::string> resourceClaimName;
  std::optional<std::string> resourceClaimTemplateName;
};
constexpr auto describe(type_tag<WorkloadPodGroupResourceClaim>) {
  using T = WorkloadPodGroupResourceClaim;
  return field_list(KSCHED_F(name), KSCHED_F(resourceClaimName), KSCHED_F(resourceClaimTemplateName));
}
struct JobSchedulingConfiguration {
  std::optional<WorkloadPodGroupSchedulingPolicy> schedulingPolicy;
  std::optional<WorkloadPodGroupSchedulingConstraints> schedulingConstraints;
  std::optional<WorkloadPodGroupDisruptionMode> disruptionMode;
  std::vector<WorkloadPodGroupResourceClaim> resourceClaims;
};
constexpr auto describe(type_tag<JobSchedulingConfiguration>) {
  using T = JobSchedulingConfiguration;
  return field_list(KSCHED_F(schedulingPolicy), KSCHED_F(schedulingConstraints), KSCHED_F(disruptionMode),
                    KSCHED_F(resourceClaims));
}

struct JobSpec {
  std::optional<std::int32_t> parallelism;
  std::optional<std::int32_t> completions;
  std::optional<std::int64_t> activeDeadlineSeconds;
  std::optional<std::int32_t> backoffLimit;
  std::optional<LabelSelector> selector;
  std::optional<bool> manualSelector;
  PodTemplateSpec template_;
  std::optional<std::int32_t> ttlSecondsAfterFinished;
  std::optional<std::string> completionMode;
  std::optional<bool> suspend;
  std::optional<JobSchedulingConfiguration> scheduling;
};
constexpr auto describe(type_tag<JobSpec>) {
  using T = JobSpec;
  return field_list(KSCHED_F(parallelism),
                    KSCHED_F(completions),
                    KSCHED_F(activeDeadlineSeconds),
                    KSCHED_F(backoffLimit),
                    KSCHED_F(selector),
                    KSCHED_F(manualSelector),
                    field("template", &T::template_),
                    KSCHED_F(ttlSecondsAfterFinished),
                    KSCHED_F(completionMode),
                    KSCHED_F(suspend),
                    KSCHED_F(scheduling));
}

struct JobCondition {
  std::string type;
  std::string status;
  std::optional<Time> lastProbeTime;
  std::optional<Time> lastTransitionTime;
  std::string reason;
  std::string message;
};
constexpr auto describe(type_tag<JobCondition>) {
  using T = JobCondition;
  return field_list(KSCHED_F(type),   KSCHED_F(status), KSCHED_F(lastProbeTime), KSCHED_F(lastTransitionTime),
                    KSCHED_F(reason), KSCHED_F(message));
}

struct JobStatus {
  std::vector<JobCondition> conditions;
  std::optional<Time> startTime;
  std::optional<Time> completionTime;
  std::int32_t active = 0;
  std::int32_t succeeded = 0;
  std::int32_t failed = 0;
  std::optional<std::int32_t> ready;
};
constexpr auto describe(type_tag<JobStatus>) {
  using T = JobStatus;
  return field_list(KSCHED_F(conditions), KSCHED_F(startTime), KSCHED_F(completionTime), KSCHED_F(active),
                    KSCHED_F(succeeded),  KSCHED_F(failed),    KSCHED_F(ready));
}

struct Job {
  KSCHED_KIND_MEMBERS;
  JobSpec spec;
  JobStatus status;
};
constexpr auto describe(type_tag<Job>) {
  using T = Job;
  return field_list(KSCHED_KIND_FIELDS, KSCHED_F(spec), KSCHED_F(status));
}

struct JobTemplateSpec {
  ObjectMeta metadata;
  JobSpec spec;
};
constexpr auto describe(type_tag<JobTemplateSpec>) {
  using T = JobTemplateSpec;
  return field_list(KSCHED_F(metadata), KSCHED_F(spec));
}

struct CronJobSpec {
  std::string schedule;
  std::optional<std::string> timeZone;
  std::optional<std::int64_t> startingDeadlineSeconds;
  std::string concurrencyPolicy;
  std::optional<bool> suspend;
  JobTemplateSpec jobTemplate;
  std::optional<std::int32_t> successfulJobsHistoryLimit;
  std::optional<std::int32_t> failedJobsHistoryLimit;
};
constexpr auto describe(type_tag<CronJobSpec>) {
  using T = CronJobSpec;
  return field_list(KSCHED_F(schedule),
                    KSCHED_F(timeZone),
                    KSCHED_F(startingDeadlineSeconds),
                    KSCHED_F(concurrencyPolicy),
                    KSCHED_F(suspend),
                    KSCHED_F(jobTemplate),
                    KSCHED_F(successfulJobsHistoryLimit),
                    KSCHED_F(failedJobsHistoryLimit));
}

struct CronJobStatus {
  std::vector<ObjectReference> active;
  std::optional<Time> lastScheduleTime;
  std::optional<Time> lastSuccessfulTime;
};
constexpr auto describe(type_tag<CronJobStatus>) {
  using T = CronJobStatus;
  return field_list(KSCHED_F(active), KSCHED_F(lastScheduleTime), KSCHED_F(lastSuccessfulTime));
}

struct CronJob {
  KSCHED_KIND_MEMBERS;
  CronJobSpec spec;
  CronJobStatus status;
};
constexpr auto describe(type_tag<CronJob>) {
  using T = CronJob;
  return field_list(KSCHED_KIND_FIELDS, KSCHED_F(spec), KSCHED_F(status));
}

// storage.k8s.io/v1
struct VolumeAttachmentSource {
  std::optional<std::string> persistentVolumeName;
  RawJson inlineVolumeSpec;
};
constexpr auto describe(type_tag<VolumeAttachmentSource>) {
  using T = VolumeAttachmentSource;
  return field_list(KSCHED_F(persistentVolumeName), KSCHED_F(inlineVolumeSpec));
}

struct VolumeAttachmentSpec {
  std::string attacher;
  VolumeAttachmentSource source;
  std::string nodeName;
};
constexpr auto describe(type_tag<VolumeAttachmentSpec>) {
  using T = VolumeAttachmentSpec;
  return field_list(KSCHED_F(attacher), KSCHED_F(source), KSCHED_F(nodeName));
}

struct VolumeError {
  std::optional<Time> time;
  std::string message;
};
constexpr auto describe(type_tag<VolumeError>) {
  using T = VolumeError;
  return field_list(KSCHED_F(time), KSCHED_F(message));
}

struct VolumeAttachmentStatus {
  bool attached = false;
  StringMap attachmentMetadata;
  std::optional<VolumeError> attachError;
  std::optional<VolumeError> detachError;
};
constexpr auto describe(type_tag<VolumeAttachmentStatus>) {
  using T = VolumeAttachmentStatus;
  return field_list(KSCHED_F(attached), KSCHED_F(attachmentMetadata), KSCHED_F(attachError),
                    KSCHED_F(detachError));
}

struct VolumeAttachment {
  KSCHED_KIND_MEMBERS;
  VolumeAttachmentSpec spec;
  VolumeAttachmentStatus status;
};
constexpr auto describe(type_tag<VolumeAttachment>) {
  using T = VolumeAttachment;
  return field_list(KSCHED_KIND_FIELDS, KSCHED_F(spec), KSCHED_F(status));
}

// rbac.authorization.k8s.io/v1
struct PolicyRule {
  std::vector<std::string> verbs;
  std::vector<std::string> apiGroups;
  std::vector<std::string> resources;
  std::vector<std::string> resourceNames;
  std::vector<std::string> nonResourceURLs;
};
constexpr auto describe(type_tag<PolicyRule>) {
  using T = PolicyRule;
  return field_list(KSCHED_F(verbs), KSCHED_F(apiGroups), KSCHED_F(resources), KSCHED_F(resourceNames),
                    KSCHED_F(nonResourceURLs));
}

struct AggregationRule {
  std::vector<LabelSelector> clusterRoleSelectors;
};
constexpr auto describe(type_tag<AggregationRule>) {
  using T = AggregationRule;
  return field_list(KSCHED_F(clusterRoleSelectors));
}

struct Role {
  KSCHED_KIND_MEMBERS;
  std::vector<PolicyRule> rules;
};
constexpr auto describe(type_tag<Role>) {
  using T = Role;
  return field_list(KSCHED_KIND_FIELDS, KSCHED_F(rules));
}

struct ClusterRole {
  KSCHED_KIND_MEMBERS;
  std::vector<PolicyRule> rules;
  std::optional<AggregationRule> aggregationRule;
};
constexpr auto describe(type_tag<ClusterRole>) {
  using T = ClusterRole;
  return field_list(KSCHED_KIND_FIELDS, KSCHED_F(rules), KSCHED_F(aggregationRule));
}

struct RoleRef {
  std::string apiGroup;
  std::string kind;
  std::string name;
};
constexpr auto describe(type_tag<RoleRef>) {
  using T = RoleRef;
  return field_list(KSCHED_F(apiGroup), KSCHED_F(kind), KSCHED_F(name));
}

struct Subject {
  std::string kind;
  std::string apiGroup;
  std::string name;
  std::string namespace_;
};
constexpr auto describe(type_tag<Subject>) {
  using T = Subject;
  return field_list(KSCHED_F(kind), KSCHED_F(apiGroup), KSCHED_F(name), field("namespace", &T::namespace_));
}

struct RoleBinding {
  KSCHED_KIND_MEMBERS;
  std::vector<Subject> subjects;
  RoleRef roleRef;
};
constexpr auto describe(type_tag<RoleBinding>) {
  using T = RoleBinding;
  return field_list(KSCHED_KIND_FIELDS, KSCHED_F(subjects), KSCHED_F(roleRef));
}

// Same fields as RoleBinding; a distinct type so that it gets its own definition.
struct ClusterRoleBinding {
  KSCHED_KIND_MEMBERS;
  std::vector<Subject> subjects;
  RoleRef roleRef;
};
constexpr auto describe(type_tag<ClusterRoleBinding>) {
  using T = ClusterRoleBinding;
  return field_list(KSCHED_KIND_FIELDS, KSCHED_F(subjects), KSCHED_F(roleRef));
}

// authentication.k8s.io/v1
struct TokenReviewSpec {
  std::string token;
  std::vector<std::string> audiences;
};
constexpr auto describe(type_tag<TokenReviewSpec>) {
  using T = TokenReviewSpec;
  return field_list(KSCHED_F(token), KSCHED_F(audiences));
}

struct UserInfo {
  std::string username;
  std::string uid;
  std::vector<std::string> groups;
  RawJson extra;
};
constexpr auto describe(type_tag<UserInfo>) {
  using T = UserInfo;
  return field_list(KSCHED_F(username), KSCHED_F(uid), KSCHED_F(groups), KSCHED_F(extra));
}

struct TokenReviewStatus {
  std::optional<bool> authenticated;
  UserInfo user;
  std::vector<std::string> audiences;
  std::string error;
};
constexpr auto describe(type_tag<TokenReviewStatus>) {
  using T = TokenReviewStatus;
  return field_list(KSCHED_F(authenticated), KSCHED_F(user), KSCHED_F(audiences), KSCHED_F(error));
}

struct TokenReview {
  KSCHED_KIND_MEMBERS;
  TokenReviewSpec spec;
  TokenReviewStatus status;
};
constexpr auto describe(type_tag<TokenReview>) {
  using T = TokenReview;
  return field_list(KSCHED_KIND_FIELDS, KSCHED_F(spec), KSCHED_F(status));
}

// authorization.k8s.io/v1
struct ResourceAttributes {
  std::string namespace_;
  std::string verb;
  std::string group;
  std::string version;
  std::string resource;
  std::string subresource;
  std::string name;
};
constexpr auto describe(type_tag<ResourceAttributes>) {
  using T = ResourceAttributes;
  return field_list(field("namespace", &T::namespace_),
                    KSCHED_F(verb),
                    KSCHED_F(group),
                    KSCHED_F(version),
                    KSCHED_F(resource),
                    KSCHED_F(subresource),
                    KSCHED_F(name));
}

struct NonResourceAttributes {
  std::string path;
  std::string verb;
};
constexpr auto describe(type_tag<NonResourceAttributes>) {
  using T = NonResourceAttributes;
  return field_list(KSCHED_F(path), KSCHED_F(verb));
}

struct SubjectAccessReviewSpec {
  std::optional<ResourceAttributes> resourceAttributes;
  std::optional<NonResourceAttributes> nonResourceAttributes;
  std::string user;
  std::vector<std::string> groups;
  RawJson extra;
  std::string uid;
};
constexpr auto describe(type_tag<SubjectAccessReviewSpec>) {
  using T = SubjectAccessReviewSpec;
  return field_list(KSCHED_F(resourceAttributes),
                    KSCHED_F(nonResourceAttributes),
                    KSCHED_F(user),
                    KSCHED_F(groups),
                    KSCHED_F(extra),
                    KSCHED_F(uid));
}

struct SubjectAccessReviewStatus {
  bool allowed = false;
  std::optional<bool> denied;
  std::string reason;
  std::string evaluationError;
};
constexpr auto describe(type_tag<SubjectAccessReviewStatus>) {
  using T = SubjectAccessReviewStatus;
  return field_list(KSCHED_F(allowed), KSCHED_F(denied), KSCHED_F(reason), KSCHED_F(evaluationError));
}

struct SubjectAccessReview {
  KSCHED_KIND_MEMBERS;
  SubjectAccessReviewSpec spec;
  SubjectAccessReviewStatus status;
};
constexpr auto describe(type_tag<SubjectAccessReview>) {
  using T = SubjectAccessReview;
  return field_list(KSCHED_KIND_FIELDS, KSCHED_F(spec), KSCHED_F(status));
}

// Same fields as SubjectAccessReview; distinct types so that each kind gets its own definition.
struct LocalSubjectAccessReview {
  KSCHED_KIND_MEMBERS;
  SubjectAccessReviewSpec spec;
  SubjectAccessReviewStatus status;
};
constexpr auto describe(type_tag<LocalSubjectAccessReview>) {
  using T = LocalSubjectAccessReview;
  return field_list(KSCHED_KIND_FIELDS, KSCHED_F(spec), KSCHED_F(status));
}

struct SelfSubjectAccessReviewSpec {
  std::optional<ResourceAttributes> resourceAttributes;
  std::optional<NonResourceAttributes> nonResourceAttributes;
};
constexpr auto describe(type_tag<SelfSubjectAccessReviewSpec>) {
  using T = SelfSubjectAccessReviewSpec;
  return field_list(KSCHED_F(resourceAttributes), KSCHED_F(nonResourceAttributes));
}

struct SelfSubjectAccessReview {
  KSCHED_KIND_MEMBERS;
  SelfSubjectAccessReviewSpec spec;
  SubjectAccessReviewStatus status;
};
constexpr auto describe(type_tag<SelfSubjectAccessReview>) {
  using T = SelfSubjectAccessReview;
  return field_list(KSCHED_KIND_FIELDS, KSCHED_F(spec), KSCHED_F(status));
}

struct SelfSubjectRulesReviewSpec {
  std::string namespace_;
};
constexpr auto describe(type_tag<SelfSubjectRulesReviewSpec>) {
  using T = SelfSubjectRulesReviewSpec;
  return field_list(field("namespace", &T::namespace_));
}

struct ResourceRule {
  std::vector<std::string> verbs;
  std::vector<std::string> apiGroups;
  std::vector<std::string> resources;
  std::vector<std::string> resourceNames;
};
constexpr auto describe(type_tag<ResourceRule>) {
  using T = ResourceRule;
  return field_list(KSCHED_F(verbs), KSCHED_F(apiGroups), KSCHED_F(resources), KSCHED_F(resourceNames));
}

struct NonResourceRule {
  std::vector<std::string> verbs;
  std::vector<std::string> nonResourceURLs;
};
constexpr auto describe(type_tag<NonResourceRule>) {
  using T = NonResourceRule;
  return field_list(KSCHED_F(verbs), KSCHED_F(nonResourceURLs));
}

struct SubjectRulesReviewStatus {
  std::vector<ResourceRule> resourceRules;
  std::vector<NonResourceRule> nonResourceRules;
  bool incomplete = false;
  std::string evaluationError;
};
constexpr auto describe(type_tag<SubjectRulesReviewStatus>) {
  using T = SubjectRulesReviewStatus;
  return field_list(KSCHED_F(resourceRules), KSCHED_F(nonResourceRules), KSCHED_F(incomplete), KSCHED_F(evaluationError));
}

struct SelfSubjectRulesReview {
  KSCHED_KIND_MEMBERS;
  SelfSubjectRulesReviewSpec spec;
  SubjectRulesReviewStatus status;
};
constexpr auto describe(type_tag<SelfSubjectRulesReview>) {
  using T = SelfSubjectRulesReview;
  return field_list(KSCHED_KIND_FIELDS, KSCHED_F(spec), KSCHED_F(status));
}

// authentication.k8s.io/v1
struct SelfSubjectReviewStatus {
  UserInfo userInfo;
};
constexpr auto describe(type_tag<SelfSubjectReviewStatus>) {
  using T = SelfSubjectReviewStatus;
  return field_list(KSCHED_F(userInfo));
}

struct SelfSubjectReview {
  KSCHED_KIND_MEMBERS;
  SelfSubjectReviewStatus status;
};
constexpr auto describe(type_tag<SelfSubjectReview>) {
  using T = SelfSubjectReview;
  return field_list(KSCHED_KIND_FIELDS, KSCHED_F(status));
}

#undef KSCHED_KIND_MEMBERS
#undef KSCHED_KIND_FIELDS
#undef KSCHED_F

}  // namespace schema_only

}  // namespace ksched::apiserver::openapi
