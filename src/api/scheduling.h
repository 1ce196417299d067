// scheduling.k8s.io/v1 PriorityClass, v1alpha1 Workload (v1.35's workload-aware scheduling,
// served when the GenericWorkload gate is on): a Workload names its pod groups and each group's
// policy; a pod joins a group through its spec.workloadRef (api::WorkloadReference in core.h).
// And v1beta1 (v1.37, KEP-5832): the PodGroup as an object of its own, which a pod joins through
// spec.schedulingGroup.podGroupName (api::PodSchedulingGroup in core.h), and the v1beta1 Workload
// whose podGroupTemplates PodGroups are made from.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"

namespace ksched::api {

struct PriorityClass {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  std::int32_t value = 0;
  bool globalDefault = false;
  std::string description;
  std::optional<std::string> preemptionPolicy;  // PreemptLowerPriority (default) | Never
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PriorityClass>) {
  using T = PriorityClass;
  return std::tuple{field("apiVersion", &T::apiVersion),   field("kind", &T::kind),
                    field("metadata", &T::metadata),       field("value", &T::value),
                    field("globalDefault", &T::globalDefault), field("description", &T::description),
                    field("preemptionPolicy", &T::preemptionPolicy)};
}

}  // namespace ksched::api

namespace ksched::api::schedulingv1alpha1 {

#define KSCHED_F(name) field(#name, &T::name)

inline constexpr std::string_view kGroup = "scheduling.k8s.io";
// WorkloadMaxPodGroups: at most this many pod groups in a Workload.
inline constexpr std::size_t kWorkloadMaxPodGroups = 8;

// The object that controls the workload (a Job, a JobSet): for tools to link back to it.
struct TypedLocalObjectReference {
  std::string apiGroup;
  std::string kind;
  std::string name;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<TypedLocalObjectReference>) {
  using T = TypedLocalObjectReference;
  return std::tuple{KSCHED_F(apiGroup), KSCHED_F(kind), KSCHED_F(name)};
}

// Standard scheduling, pod by pod: its presence is the policy (no fields in v1.35).
struct BasicSchedulingPolicy {
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<BasicSchedulingPolicy>) { return std::tuple{}; }

// All or nothing: the group is admitted only when minCount of its pods can be placed together.
struct GangSchedulingPolicy {
  std::int32_t minCount = 0;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<GangSchedulingPolicy>) {
  using T = GangSchedulingPolicy;
  return std::tuple{KSCHED_F(minCount)};
}

// Exactly one of basic and gang.
struct PodGroupPolicy {
  std::optional<BasicSchedulingPolicy> basic;
  std::optional<GangSchedulingPolicy> gang;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PodGroupPolicy>) {
  using T = PodGroupPolicy;
  return std::tuple{KSCHED_F(basic), KSCHED_F(gang)};
}

// A group of the Workload's pods; pods name it in spec.workloadRef.podGroup.
struct PodGroup {
  std::string name;
  PodGroupPolicy policy;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PodGroup>) {
  using T = PodGroup;
  return std::tuple{KSCHED_F(name), KSCHED_F(policy)};
}

struct WorkloadSpec {
  std::optional<TypedLocalObjectReference> controllerRef;  // immutable once set
  std::vector<PodGroup> podGroups;                         // 1..8, immutable
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<WorkloadSpec>) {
  using T = WorkloadSpec;
  return std::tuple{KSCHED_F(controllerRef), KSCHED_F(podGroups)};
}

struct Workload {
  ThinString apiVersion;
  ThinString kind;
  ObjectMeta metadata;
  WorkloadSpec spec;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<Workload>) {
  using T = Workload;
  return std::tuple{KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec)};
}

#undef KSCHED_F

}  // namespace ksched::api::schedulingv1alpha1

namespace ksched::api::schedulingv1beta1 {

#define KSCHED_F(name) field(#name, &T::name)

// Upstream v1.37's staging/src/k8s.io/api/scheduling/v1beta1/types.go. Fields of gates ksched does
// not implement (CompositePodGroup: compositePodGroupTemplates, parentCompositePodGroupName;
// DRAWorkloadResourceClaims: resourceClaims, status.resourceClaimStatuses) are not typed: they
// stay in `extra`, which the codec writes back unchanged.

inline constexpr std::size_t kWorkloadMaxPodGroupTemplates = 8;
inline constexpr std::int32_t kHighestUserDefinablePriority = 1000000000;

// The same shapes as v1alpha1's, as types of their own so that the OpenAPI document names them
// in v1beta1 (io.k8s.api.scheduling.v1beta1.GangSchedulingPolicy, ...).
struct TypedLocalObjectReference {
  std::string apiGroup;
  std::string kind;
  std::string name;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<TypedLocalObjectReference>) {
  using T = TypedLocalObjectReference;
  return std::tuple{KSCHED_F(apiGroup), KSCHED_F(kind), KSCHED_F(name)};
}

// Empty structs whose presence is the choice.
struct BasicSchedulingPolicy {
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<BasicSchedulingPolicy>) { return std::tuple{}; }
struct SingleDisruptionMode {
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<SingleDisruptionMode>) { return std::tuple{}; }
struct AllDisruptionMode {
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<AllDisruptionMode>) { return std::tuple{}; }

// minCount: at least 1; mutable (workload scaling).
struct GangSchedulingPolicy {
  std::int32_t minCount = 0;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<GangSchedulingPolicy>) {
  using T = GangSchedulingPolicy;
  return std::tuple{KSCHED_F(minCount)};
}

// Exactly one of basic and gang; the choice is fixed at creation, a gang's minCount may change.
struct PodGroupSchedulingPolicy {
  std::optional<BasicSchedulingPolicy> basic;
  std::optional<GangSchedulingPolicy> gang;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PodGroupSchedulingPolicy>) {
  using T = PodGroupSchedulingPolicy;
  return std::tuple{KSCHED_F(basic), KSCHED_F(gang)};
}

// All of the group's pods in one domain of the node label `key` (TopologyAwareWorkloadScheduling).
struct TopologyConstraint {
  std::string key;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<TopologyConstraint>) {
  using T = TopologyConstraint;
  return std::tuple{KSCHED_F(key)};
}

struct PodGroupSchedulingConstraints {
  std::vector<TopologyConstraint> topology;  // at most 1
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PodGroupSchedulingConstraints>) {
  using T = PodGroupSchedulingConstraints;
  return std::tuple{KSCHED_F(topology)};
}

// How the group may be disrupted (preempted): member by member (single) or whole (all). One of two.
struct DisruptionMode {
  std::optional<SingleDisruptionMode> single;
  std::optional<AllDisruptionMode> all;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DisruptionMode>) {
  using T = DisruptionMode;
  return std::tuple{KSCHED_F(single), KSCHED_F(all)};
}

// A Workload's template for PodGroups; controllers copy it into each PodGroup's spec.
struct PodGroupTemplate {
  std::string name;  // a DNS label, unique in the Workload
  PodGroupSchedulingPolicy schedulingPolicy;
  std::optional<PodGroupSchedulingConstraints> schedulingConstraints;
  std::optional<DisruptionMode> disruptionMode;
  std::string priorityClassName;
  std::optional<std::int32_t> priority;
  std::optional<std::string> preemptionPolicy;  // PodGroupPreemptionPolicy: PreemptLowerPriority | Never
  Presence present;
  Extra extra;  // resourceClaims
};
constexpr auto describe(type_tag<PodGroupTemplate>) {
  using T = PodGroupTemplate;
  return std::tuple{KSCHED_F(name),          KSCHED_F(schedulingPolicy),  KSCHED_F(schedulingConstraints),
                    KSCHED_F(disruptionMode), KSCHED_F(priorityClassName), KSCHED_F(priority),
                    KSCHED_F(preemptionPolicy)};
}

struct WorkloadSpec {
  std::optional<TypedLocalObjectReference> controllerRef;  // immutable
  std::vector<PodGroupTemplate> podGroupTemplates;         // 1..8; none added or removed by an update
  Presence present;
  Extra extra;  // compositePodGroupTemplates
};
constexpr auto describe(type_tag<WorkloadSpec>) {
  using T = WorkloadSpec;
  return std::tuple{KSCHED_F(controllerRef), KSCHED_F(podGroupTemplates)};
}

struct Workload {
  ThinString apiVersion;
  ThinString kind;
  ObjectMeta metadata;
  WorkloadSpec spec;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<Workload>) {
  using T = Workload;
  return std::tuple{KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec)};
}

// The Workload and template a PodGroup was made from (both required when set; immutable).
struct WorkloadReference {
  std::string workloadName;  // a DNS subdomain
  std::string templateName;  // a DNS label
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<WorkloadReference>) {
  using T = WorkloadReference;
  return std::tuple{KSCHED_F(workloadName), KSCHED_F(templateName)};
}

struct PodGroupSpec {
  std::optional<WorkloadReference> workloadRef;
  PodGroupSchedulingPolicy schedulingPolicy;
  std::optional<PodGroupSchedulingConstraints> schedulingConstraints;
  std::optional<DisruptionMode> disruptionMode;  // defaults to {single: {}}
  std::string priorityClassName;
  std::optional<std::int32_t> priority;
  std::optional<std::string> preemptionPolicy;
  Presence present;
  Extra extra;  // parentCompositePodGroupName, resourceClaims
};
constexpr auto describe(type_tag<PodGroupSpec>) {
  using T = PodGroupSpec;
  return std::tuple{KSCHED_F(workloadRef),    KSCHED_F(schedulingPolicy),  KSCHED_F(schedulingConstraints),
                    KSCHED_F(disruptionMode), KSCHED_F(priorityClassName), KSCHED_F(priority),
                    KSCHED_F(preemptionPolicy)};
}

// Condition types and reasons the scheduler writes (v1.37).
inline constexpr std::string_view kPodGroupInitiallyScheduled = "PodGroupInitiallyScheduled";
inline constexpr std::string_view kDisruptionTarget = "DisruptionTarget";
inline constexpr std::string_view kReasonUnschedulable = "Unschedulable";
inline constexpr std::string_view kReasonSchedulerError = "SchedulerError";
inline constexpr std::string_view kReasonPreemptionByScheduler = "PreemptionByScheduler";

struct PodGroupStatus {
  std::vector<Condition> conditions;  // a map keyed by type
  Presence present;
  Extra extra;  // resourceClaimStatuses
};
constexpr auto describe(type_tag<PodGroupStatus>) {
  using T = PodGroupStatus;
  return std::tuple{KSCHED_F(conditions)};
}

// A runtime group of pods (namespaced, with a status subresource); pods name it in
// spec.schedulingGroup.podGroupName.
struct PodGroup {
  ThinString apiVersion;
  ThinString kind;
  ObjectMeta metadata;
  PodGroupSpec spec;
  PodGroupStatus status;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PodGroup>) {
  using T = PodGroup;
  return std::tuple{KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec), KSCHED_F(status)};
}

#undef KSCHED_F

}  // namespace ksched::api::schedulingv1beta1
