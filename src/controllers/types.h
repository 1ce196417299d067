// The workload kinds as the controllers read and write them: apps/v1 Deployment, ReplicaSet,
// DaemonSet, StatefulSet and ControllerRevision, batch/v1 Job, and metadata-only objects for the
// garbage collector and the namespace controller.
//
// src/api's apps.h models these kinds as the scheduler sees them (selector and replicas, the rest
// verbatim) so that its informers stay small; the controllers need the template, the strategy and
// the status typed, hence these fuller structs over the same wire form (the same codec: members
// not modelled here are kept in `extra` and written back unchanged). Member names are the JSON
// names, as in src/api.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/core.h"
#include "api/meta.h"
#include "api/volume.h"
#include "client/resources.h"

namespace ksched::controllers {

using api::field;
using api::field_list;
using api::Presence;
using api::Extra;
using api::type_tag;

#define KSCHED_F(name) field(#name, &T::name)

// ---------------------------------------------------------------- core/v1 PodTemplateSpec
struct PodTemplateSpec {
  api::ObjectMeta metadata;
  api::PodSpec spec;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PodTemplateSpec>) {
  using T = PodTemplateSpec;
  return field_list(KSCHED_F(metadata), KSCHED_F(spec));
}

// ---------------------------------------------------------------- apps/v1 Deployment
struct RollingUpdateDeployment {
  std::optional<api::IntOrString> maxUnavailable;
  std::optional<api::IntOrString> maxSurge;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<RollingUpdateDeployment>) {
  using T = RollingUpdateDeployment;
  return field_list(KSCHED_F(maxUnavailable), KSCHED_F(maxSurge));
}

struct DeploymentStrategy {
  std::string type;  // RollingUpdate (default) | Recreate
  std::optional<RollingUpdateDeployment> rollingUpdate;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DeploymentStrategy>) {
  using T = DeploymentStrategy;
  return field_list(KSCHED_F(type), KSCHED_F(rollingUpdate));
}

struct DeploymentSpec {
  std::optional<std::int32_t> replicas;
  std::optional<api::LabelSelector> selector;
  PodTemplateSpec template_;
  DeploymentStrategy strategy;
  std::int32_t minReadySeconds = 0;
  std::optional<std::int32_t> revisionHistoryLimit;
  bool paused = false;
  std::optional<std::int32_t> progressDeadlineSeconds;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DeploymentSpec>) {
  using T = DeploymentSpec;
  return field_list(KSCHED_F(replicas),        KSCHED_F(selector),
                    field("template", &T::template_), KSCHED_F(strategy),
                    KSCHED_F(minReadySeconds), KSCHED_F(revisionHistoryLimit),
                    KSCHED_F(paused),          KSCHED_F(progressDeadlineSeconds));
}

struct DeploymentCondition {
  std::string type;  // Available | Progressing | ReplicaFailure
  std::string status;
  std::optional<api::Time> lastUpdateTime;
  std::optional<api::Time> lastTransitionTime;
  std::string reason;
  std::string message;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DeploymentCondition>) {
  using T = DeploymentCondition;
  return field_list(KSCHED_F(type),   KSCHED_F(status), KSCHED_F(lastUpdateTime), KSCHED_F(lastTransitionTime),
                    KSCHED_F(reason), KSCHED_F(message));
}

struct DeploymentStatus {
  std::int64_t observedGeneration = 0;
  std::int32_t replicas = 0;
  std::int32_t updatedReplicas = 0;
  std::int32_t readyReplicas = 0;
  std::int32_t availableReplicas = 0;
  std::int32_t unavailableReplicas = 0;
  std::optional<std::int32_t> terminatingReplicas;
  std::vector<DeploymentCondition> conditions;
  std::optional<std::int32_t> collisionCount;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DeploymentStatus>) {
  using T = DeploymentStatus;
  return field_list(KSCHED_F(observedGeneration), KSCHED_F(replicas),           KSCHED_F(updatedReplicas),
                    KSCHED_F(readyReplicas),      KSCHED_F(availableReplicas),  KSCHED_F(unavailableReplicas),
                    KSCHED_F(terminatingReplicas), KSCHED_F(conditions),        KSCHED_F(collisionCount));
}

struct Deployment {
  std::string apiVersion;
  std::string kind;
  api::ObjectMeta metadata;
  DeploymentSpec spec;
  DeploymentStatus status;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<Deployment>) {
  using T = Deployment;
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec), KSCHED_F(status));
}

// ---------------------------------------------------------------- apps/v1 ReplicaSet
struct ReplicaSetSpec {
  std::optional<std::int32_t> replicas;
  std::int32_t minReadySeconds = 0;
  std::optional<api::LabelSelector> selector;
  PodTemplateSpec template_;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ReplicaSetSpec>) {
  using T = ReplicaSetSpec;
  return field_list(KSCHED_F(replicas), KSCHED_F(minReadySeconds), KSCHED_F(selector),
                    field("template", &T::template_));
}

struct ReplicaSetCondition {
  std::string type;  // ReplicaFailure
  std::string status;
  std::optional<api::Time> lastTransitionTime;
  std::string reason;
  std::string message;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ReplicaSetCondition>) {
  using T = ReplicaSetCondition;
  return field_list(KSCHED_F(type), KSCHED_F(status), KSCHED_F(lastTransitionTime), KSCHED_F(reason),
                    KSCHED_F(message));
}

struct ReplicaSetStatus {
  std::int32_t replicas = 0;
  std::int32_t fullyLabeledReplicas = 0;
  std::int32_t readyReplicas = 0;
  std::int32_t availableReplicas = 0;
  std::optional<std::int32_t> terminatingReplicas;
  std::int64_t observedGeneration = 0;
  std::vector<ReplicaSetCondition> conditions;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ReplicaSetStatus>) {
  using T = ReplicaSetStatus;
  return field_list(KSCHED_F(replicas),           KSCHED_F(fullyLabeledReplicas), KSCHED_F(readyReplicas),
                    KSCHED_F(availableReplicas),  KSCHED_F(terminatingReplicas),  KSCHED_F(observedGeneration),
                    KSCHED_F(conditions));
}

struct ReplicaSet {
  std::string apiVersion;
  std::string kind;
  api::ObjectMeta metadata;
  ReplicaSetSpec spec;
  ReplicaSetStatus status;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ReplicaSet>) {
  using T = ReplicaSet;
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec), KSCHED_F(status));
}

// ---------------------------------------------------------------- apps/v1 DaemonSet
struct RollingUpdateDaemonSet {
  std::optional<api::IntOrString> maxUnavailable;
  std::optional<api::IntOrString> maxSurge;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<RollingUpdateDaemonSet>) {
  using T = RollingUpdateDaemonSet;
  return field_list(KSCHED_F(maxUnavailable), KSCHED_F(maxSurge));
}

struct DaemonSetUpdateStrategy {
  std::string type;  // RollingUpdate (default) | OnDelete
  std::optional<RollingUpdateDaemonSet> rollingUpdate;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DaemonSetUpdateStrategy>) {
  using T = DaemonSetUpdateStrategy;
  return field_list(KSCHED_F(type), KSCHED_F(rollingUpdate));
}

struct DaemonSetSpec {
  std::optional<api::LabelSelector> selector;
  PodTemplateSpec template_;
  DaemonSetUpdateStrategy updateStrategy;
  std::int32_t minReadySeconds = 0;
  std::optional<std::int32_t> revisionHistoryLimit;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DaemonSetSpec>) {
  using T = DaemonSetSpec;
  return field_list(KSCHED_F(selector), field("template", &T::template_), KSCHED_F(updateStrategy),
                    KSCHED_F(minReadySeconds), KSCHED_F(revisionHistoryLimit));
}

struct DaemonSetStatus {
  std::int32_t currentNumberScheduled = 0;
  std::int32_t numberMisscheduled = 0;
  std::int32_t desiredNumberScheduled = 0;
  std::int32_t numberReady = 0;
  std::int64_t observedGeneration = 0;
  std::int32_t updatedNumberScheduled = 0;
  std::int32_t numberAvailable = 0;
  std::int32_t numberUnavailable = 0;
  std::optional<std::int32_t> collisionCount;
  Presence present;
  Extra extra;  // conditions
};
constexpr auto describe(type_tag<DaemonSetStatus>) {
  using T = DaemonSetStatus;
  return field_list(KSCHED_F(currentNumberScheduled), KSCHED_F(numberMisscheduled), KSCHED_F(desiredNumberScheduled),
                    KSCHED_F(numberReady),            KSCHED_F(observedGeneration), KSCHED_F(updatedNumberScheduled),
                    KSCHED_F(numberAvailable),        KSCHED_F(numberUnavailable),  KSCHED_F(collisionCount));
}

struct DaemonSet {
  std::string apiVersion;
  std::string kind;
  api::ObjectMeta metadata;
  DaemonSetSpec spec;
  DaemonSetStatus status;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DaemonSet>) {
  using T = DaemonSet;
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec), KSCHED_F(status));
}

// ---------------------------------------------------------------- apps/v1 StatefulSet
struct RollingUpdateStatefulSetStrategy {
  std::optional<std::int32_t> partition;
  std::optional<api::IntOrString> maxUnavailable;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<RollingUpdateStatefulSetStrategy>) {
  using T = RollingUpdateStatefulSetStrategy;
  return field_list(KSCHED_F(partition), KSCHED_F(maxUnavailable));
}

struct StatefulSetUpdateStrategy {
  std::string type;  // RollingUpdate (default) | OnDelete
  std::optional<RollingUpdateStatefulSetStrategy> rollingUpdate;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<StatefulSetUpdateStrategy>) {
  using T = StatefulSetUpdateStrategy;
  return field_list(KSCHED_F(type), KSCHED_F(rollingUpdate));
}

struct StatefulSetOrdinals {
  std::int32_t start = 0;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<StatefulSetOrdinals>) {
  using T = StatefulSetOrdinals;
  return field_list(KSCHED_F(start));
}

struct StatefulSetSpec {
  std::optional<std::int32_t> replicas;
  std::optional<api::LabelSelector> selector;
  PodTemplateSpec template_;
  std::vector<api::PersistentVolumeClaim> volumeClaimTemplates;
  std::string serviceName;
  std::string podManagementPolicy;  // OrderedReady (default) | Parallel
  StatefulSetUpdateStrategy updateStrategy;
  std::optional<std::int32_t> revisionHistoryLimit;
  std::int32_t minReadySeconds = 0;
  std::optional<StatefulSetOrdinals> ordinals;
  Presence present;
  Extra extra;  // persistentVolumeClaimRetentionPolicy
};
constexpr auto describe(type_tag<StatefulSetSpec>) {
  using T = StatefulSetSpec;
  return field_list(KSCHED_F(replicas),
                    KSCHED_F(selector),
                    field("template", &T::template_),
                    KSCHED_F(volumeClaimTemplates),
                    KSCHED_F(serviceName),
                    KSCHED_F(podManagementPolicy),
                    KSCHED_F(updateStrategy),
                    KSCHED_F(revisionHistoryLimit),
                    KSCHED_F(minReadySeconds),
                    KSCHED_F(ordinals));
}

struct StatefulSetStatus {
  std::int64_t observedGeneration = 0;
  std::int32_t replicas = 0;
  std::int32_t readyReplicas = 0;
  std::int32_t currentReplicas = 0;
  std::int32_t updatedReplicas = 0;
  std::string currentRevision;
  std::string updateRevision;
  std::optional<std::int32_t> collisionCount;
  std::int32_t availableReplicas = 0;
  Presence present;
  Extra extra;  // conditions
};
constexpr auto describe(type_tag<StatefulSetStatus>) {
  using T = StatefulSetStatus;
  return field_list(KSCHED_F(observedGeneration), KSCHED_F(replicas),        KSCHED_F(readyReplicas),
                    KSCHED_F(currentReplicas),    KSCHED_F(updatedReplicas), KSCHED_F(currentRevision),
                    KSCHED_F(updateRevision),     KSCHED_F(collisionCount),  KSCHED_F(availableReplicas));
}

struct StatefulSet {
  std::string apiVersion;
  std::string kind;
  api::ObjectMeta metadata;
  StatefulSetSpec spec;
  StatefulSetStatus status;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<StatefulSet>) {
  using T = StatefulSet;
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec), KSCHED_F(status));
}

// ---------------------------------------------------------------- apps/v1 ControllerRevision
struct ControllerRevision {
  std::string apiVersion;
  std::string kind;
  api::ObjectMeta metadata;
  api::RawJson data;
  std::int64_t revision = 0;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ControllerRevision>) {
  using T = ControllerRevision;
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(data), KSCHED_F(revision));
}

// ---------------------------------------------------------------- batch/v1 Job
// spec.scheduling (v1.37, gate WorkloadWithJob): how the Job's pods are scheduled, made of
// scheduling.k8s.io/v1alpha3's WorkloadPodGroup* building blocks (k8s.io/api batch/v1 types.go,
// JobSchedulingConfiguration). The Job controller copies it into its Workload's template and the
// PodGroup. Typed here, beside the Job, as the Job's own members.

// Empty structs whose presence is the choice.
struct WorkloadPodGroupBasicSchedulingPolicy {
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<WorkloadPodGroupBasicSchedulingPolicy>) { return field_list(); }
struct WorkloadPodGroupSingleDisruptionMode {
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<WorkloadPodGroupSingleDisruptionMode>) { return field_list(); }
struct WorkloadPodGroupAllDisruptionMode {
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<WorkloadPodGroupAllDisruptionMode>) { return field_list(); }

// minCount unset: the controller uses the Job's parallelism.
struct WorkloadPodGroupGangSchedulingPolicy {
  std::optional<std::int32_t> minCount;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<WorkloadPodGroupGangSchedulingPolicy>) {
  using T = WorkloadPodGroupGangSchedulingPolicy;
  return field_list(KSCHED_F(minCount));
}

// Exactly one of basic and gang.
struct WorkloadPodGroupSchedulingPolicy {
  std::optional<WorkloadPodGroupBasicSchedulingPolicy> basic;
  std::optional<WorkloadPodGroupGangSchedulingPolicy> gang;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<WorkloadPodGroupSchedulingPolicy>) {
  using T = WorkloadPodGroupSchedulingPolicy;
  return field_list(KSCHED_F(basic), KSCHED_F(gang));
}

struct JobTopologyConstraint {  // scheduling/v1alpha3 TopologyConstraint
  std::string key;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<JobTopologyConstraint>) {
  using T = JobTopologyConstraint;
  return field_list(KSCHED_F(key));
}

struct WorkloadPodGroupSchedulingConstraints {
  std::vector<JobTopologyConstraint> topology;  // at most 1
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<WorkloadPodGroupSchedulingConstraints>) {
  using T = WorkloadPodGroupSchedulingConstraints;
  return field_list(KSCHED_F(topology));
}

// Exactly one of single and all.
struct WorkloadPodGroupDisruptionMode {
  std::optional<WorkloadPodGroupSingleDisruptionMode> single;
  std::optional<WorkloadPodGroupAllDisruptionMode> all;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<WorkloadPodGroupDisruptionMode>) {
  using T = WorkloadPodGroupDisruptionMode;
  return field_list(KSCHED_F(single), KSCHED_F(all));
}

// A claim shared by the group's pods: exactly one of the two names.
struct WorkloadPodGroupResourceClaim {
  std::string name;  // a DNS label, unique in the list
  std::optional<std::string> resourceClaimName;
  std::optional<std::string> resourceClaimTemplateName;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<WorkloadPodGroupResourceClaim>) {
  using T = WorkloadPodGroupResourceClaim;
  return field_list(KSCHED_F(name), KSCHED_F(resourceClaimName), KSCHED_F(resourceClaimTemplateName));
}

// Immutable, set or not, from creation on; only schedulingPolicy.gang.minCount may change.
struct JobSchedulingConfiguration {
  std::optional<WorkloadPodGroupSchedulingPolicy> schedulingPolicy;
  std::optional<WorkloadPodGroupSchedulingConstraints> schedulingConstraints;
  std::optional<WorkloadPodGroupDisruptionMode> disruptionMode;
  std::vector<WorkloadPodGroupResourceClaim> resourceClaims;  // at most 4
  Presence present;
  Extra extra;
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
  std::optional<api::LabelSelector> selector;
  std::optional<bool> manualSelector;
  PodTemplateSpec template_;
  std::optional<std::int32_t> ttlSecondsAfterFinished;
  std::optional<std::string> completionMode;  // NonIndexed (default) | Indexed
  std::optional<bool> suspend;
  std::optional<std::int32_t> backoffLimitPerIndex;
  std::optional<std::int32_t> maxFailedIndexes;
  std::optional<std::string> podReplacementPolicy;  // TerminatingOrFailed (default) | Failed
  std::optional<std::string> managedBy;
  std::optional<JobSchedulingConfiguration> scheduling;
  Presence present;
  Extra extra;  // podFailurePolicy, successPolicy: kept, not interpreted
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
                    KSCHED_F(backoffLimitPerIndex),
                    KSCHED_F(maxFailedIndexes),
                    KSCHED_F(podReplacementPolicy),
                    KSCHED_F(managedBy),
                    KSCHED_F(scheduling));
}

struct JobCondition {
  std::string type;  // Complete | Failed | SuccessCriteriaMet | FailureTarget | Suspended
  std::string status;
  std::optional<api::Time> lastProbeTime;
  std::optional<api::Time> lastTransitionTime;
  std::string reason;
  std::string message;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<JobCondition>) {
  using T = JobCondition;
  return field_list(KSCHED_F(type),   KSCHED_F(status), KSCHED_F(lastProbeTime), KSCHED_F(lastTransitionTime),
                    KSCHED_F(reason), KSCHED_F(message));
}

struct UncountedTerminatedPods {
  std::vector<std::string> succeeded;
  std::vector<std::string> failed;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<UncountedTerminatedPods>) {
  using T = UncountedTerminatedPods;
  return field_list(KSCHED_F(succeeded), KSCHED_F(failed));
}

struct JobStatus {
  std::vector<JobCondition> conditions;
  std::optional<api::Time> startTime;
  std::optional<api::Time> completionTime;
  std::int32_t active = 0;
  std::int32_t succeeded = 0;
  std::int32_t failed = 0;
  std::optional<std::int32_t> terminating;
  std::string completedIndexes;
  std::optional<std::string> failedIndexes;
  std::optional<UncountedTerminatedPods> uncountedTerminatedPods;
  std::optional<std::int32_t> ready;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<JobStatus>) {
  using T = JobStatus;
  return field_list(KSCHED_F(conditions),      KSCHED_F(startTime),     KSCHED_F(completionTime),
                    KSCHED_F(active),          KSCHED_F(succeeded),     KSCHED_F(failed),
                    KSCHED_F(terminating),     KSCHED_F(completedIndexes), KSCHED_F(failedIndexes),
                    KSCHED_F(uncountedTerminatedPods), KSCHED_F(ready));
}

struct Job {
  std::string apiVersion;
  std::string kind;
  api::ObjectMeta metadata;
  JobSpec spec;
  JobStatus status;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<Job>) {
  using T = Job;
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec), KSCHED_F(status));
}

// ---------------------------------------------------------------- metadata only
// meta/v1 PartialObjectMetadata: what the garbage collector and the namespace controller keep of
// any object. Decoded from a full object, everything but apiVersion, kind and metadata is skipped
// (see metadata_informer.h), so caching every pod's metadata costs its metadata only.
struct ObjectMetadata {
  std::string apiVersion;
  std::string kind;
  api::ObjectMeta metadata;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ObjectMetadata>) {
  using T = ObjectMetadata;
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata));
}

#undef KSCHED_F

}  // namespace ksched::controllers

namespace ksched::client {
template <>
struct ResourceFor<controllers::Deployment> {
  static constexpr ResourceInfo info{"apps", "v1", "deployments", "Deployment", true};
};
template <>
struct ResourceFor<controllers::ReplicaSet> {
  static constexpr ResourceInfo info{"apps", "v1", "replicasets", "ReplicaSet", true};
};
template <>
struct ResourceFor<controllers::DaemonSet> {
  static constexpr ResourceInfo info{"apps", "v1", "daemonsets", "DaemonSet", true};
};
template <>
struct ResourceFor<controllers::StatefulSet> {
  static constexpr ResourceInfo info{"apps", "v1", "statefulsets", "StatefulSet", true};
};
template <>
struct ResourceFor<controllers::ControllerRevision> {
  static constexpr ResourceInfo info{"apps", "v1", "controllerrevisions", "ControllerRevision", true};
};
template <>
struct ResourceFor<controllers::Job> {
  static constexpr ResourceInfo info{"batch", "v1", "jobs", "Job", true};
};
}  // namespace ksched::client
