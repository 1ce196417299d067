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
  return field_list(field("apiVersion", &T::apiVersion),   field("kind", &T::kind),
                    field("metadata", &T::metadata),       field("value", &T::value),
                    field("globalDefault", &T::globalDefault), field("description", &T::description),
                    field("preemptionPolicy", &T::preemptionPolicy));
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
  return field_list(KSCHED_F(apiGroup), KSCHED_F(kind), KSCHED_F(name));
}

// Standard scheduling, pod by pod: its presence is the policy (no fields in v1.35).
struct BasicSchedulingPolicy {
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<BasicSchedulingPolicy>) { return field_list(); }

// All or nothing: the group is admitted only when minCount of its pods can be placed together.
struct GangSchedulingPolicy {
  std::int32_t minCount = 0;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<GangSchedulingPolicy>) {
  using T = GangSchedulingPolicy;
  return field_list(KSCHED_F(minCount));
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
  return field_list(KSCHED_F(basic), KSCHED_F(gang));
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
  return field_list(KSCHED_F(name), KSCHED_F(policy));
}

struct WorkloadSpec {
  std::optional<TypedLocalObjectReference> controllerRef;  // immutable once set
  std::vector<PodGroup> podGroups;                         // 1..8, immutable
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<WorkloadSpec>) {
  using T = WorkloadSpec;
  return field_list(KSCHED_F(controllerRef), KSCHED_F(podGroups));
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
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec));
}

#undef KSCHED_F

}  // namespace ksched::api::schedulingv1alpha1

namespace ksched::api::schedulingv1beta1 {

#define KSCHED_F(name) field(#name, &T::name)

// Upstream v1.37's staging/src/k8s.io/api/scheduling/v1beta1/types.go. CompositePodGroup's
// (compositePodGroupTemplates, parentCompositePodGroupName; v1.37 alpha) and
// DRAWorkloadResourceClaims' (KEP-5729: resourceClaims, status.resourceClaimStatuses; alpha in
// v1.36, beta and off in v1.37) fields are typed.

inline constexpr std::size_t kWorkloadMaxPodGroupTemplates = 8;
// WorkloadMaxTreeDepth: a tree of (composite) pod group templates is at most this deep.
inline constexpr int kWorkloadMaxTreeDepth = 4;
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
  return field_list(KSCHED_F(apiGroup), KSCHED_F(kind), KSCHED_F(name));
}

// Empty structs whose presence is the choice.
struct BasicSchedulingPolicy {
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<BasicSchedulingPolicy>) { return field_list(); }
struct SingleDisruptionMode {
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<SingleDisruptionMode>) { return field_list(); }
struct AllDisruptionMode {
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<AllDisruptionMode>) { return field_list(); }

// minCount: at least 1; mutable (workload scaling).
struct GangSchedulingPolicy {
  std::int32_t minCount = 0;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<GangSchedulingPolicy>) {
  using T = GangSchedulingPolicy;
  return field_list(KSCHED_F(minCount));
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
  return field_list(KSCHED_F(basic), KSCHED_F(gang));
}

// All of the group's pods in one domain of the node label `key` (TopologyAwareWorkloadScheduling).
struct TopologyConstraint {
  std::string key;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<TopologyConstraint>) {
  using T = TopologyConstraint;
  return field_list(KSCHED_F(key));
}

struct PodGroupSchedulingConstraints {
  std::vector<TopologyConstraint> topology;  // at most 1
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PodGroupSchedulingConstraints>) {
  using T = PodGroupSchedulingConstraints;
  return field_list(KSCHED_F(topology));
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
  return field_list(KSCHED_F(single), KSCHED_F(all));
}

// DRAWorkloadResourceClaims (KEP-5729): a ResourceClaim shared by the group's pods, named directly
// or made once per PodGroup from a ResourceClaimTemplate by the ResourceClaim controller. A pod
// uses it through a spec.resourceClaims entry equal to this one (same name, same claim or
// template). Exactly one of the two names; immutable.
struct PodGroupResourceClaim {
  std::string name;  // a DNS label, unique in the list
  std::optional<std::string> resourceClaimName;
  std::optional<std::string> resourceClaimTemplateName;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PodGroupResourceClaim>) {
  using T = PodGroupResourceClaim;
  return field_list(KSCHED_F(name), KSCHED_F(resourceClaimName), KSCHED_F(resourceClaimTemplateName));
}
// Upstream's maximum number of a PodGroup's (and a template's) resourceClaims.
inline constexpr std::size_t kMaxPodGroupResourceClaims = 4;

// The claim the ResourceClaim controller made for a template entry (name = the entry's name);
// resourceClaimName unset: none was needed.
struct PodGroupResourceClaimStatus {
  std::string name;
  std::optional<std::string> resourceClaimName;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PodGroupResourceClaimStatus>) {
  using T = PodGroupResourceClaimStatus;
  return field_list(KSCHED_F(name), KSCHED_F(resourceClaimName));
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
  std::vector<PodGroupResourceClaim> resourceClaims;  // DRAWorkloadResourceClaims; at most 4
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PodGroupTemplate>) {
  using T = PodGroupTemplate;
  return field_list(KSCHED_F(name),          KSCHED_F(schedulingPolicy),  KSCHED_F(schedulingConstraints),
                    KSCHED_F(disruptionMode), KSCHED_F(priorityClassName), KSCHED_F(priority),
                    KSCHED_F(preemptionPolicy), KSCHED_F(resourceClaims));
}

// CompositePodGroup (v1.37 alpha, gate CompositePodGroup): a group of groups. Its policy counts
// child groups (PodGroups or CompositePodGroups), not pods.
struct CompositeBasicSchedulingPolicy {
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<CompositeBasicSchedulingPolicy>) { return field_list(); }
// minGroupCount: at least 1; the children that must be schedulable together.
struct CompositeGangSchedulingPolicy {
  std::int32_t minGroupCount = 0;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<CompositeGangSchedulingPolicy>) {
  using T = CompositeGangSchedulingPolicy;
  return field_list(KSCHED_F(minGroupCount));
}
struct CompositePodGroupSchedulingPolicy {
  std::optional<CompositeBasicSchedulingPolicy> basic;
  std::optional<CompositeGangSchedulingPolicy> gang;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<CompositePodGroupSchedulingPolicy>) {
  using T = CompositePodGroupSchedulingPolicy;
  return field_list(KSCHED_F(basic), KSCHED_F(gang));
}
struct CompositePodGroupSchedulingConstraints {
  std::vector<TopologyConstraint> topology;  // at most 1
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<CompositePodGroupSchedulingConstraints>) {
  using T = CompositePodGroupSchedulingConstraints;
  return field_list(KSCHED_F(topology));
}
struct SingleCompositeDisruptionMode {
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<SingleCompositeDisruptionMode>) { return field_list(); }
struct AllCompositeDisruptionMode {
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<AllCompositeDisruptionMode>) { return field_list(); }
struct CompositeDisruptionMode {
  std::optional<SingleCompositeDisruptionMode> single;
  std::optional<AllCompositeDisruptionMode> all;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<CompositeDisruptionMode>) {
  using T = CompositeDisruptionMode;
  return field_list(KSCHED_F(single), KSCHED_F(all));
}

// A Workload's template for a CompositePodGroup and, recursively, its children's templates (at
// least one child; the tree at most kWorkloadMaxTreeDepth deep).
struct CompositePodGroupTemplate {
  std::string name;  // a DNS label, unique in the Workload
  CompositePodGroupSchedulingPolicy schedulingPolicy;
  std::optional<CompositePodGroupSchedulingConstraints> schedulingConstraints;
  std::optional<CompositeDisruptionMode> disruptionMode;
  std::string priorityClassName;
  std::optional<std::int32_t> priority;
  std::optional<std::string> preemptionPolicy;
  std::vector<PodGroupTemplate> podGroupTemplates;                    // at most 8
  std::vector<CompositePodGroupTemplate> compositePodGroupTemplates;  // at most 8
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<CompositePodGroupTemplate>) {
  using T = CompositePodGroupTemplate;
  return field_list(KSCHED_F(name),          KSCHED_F(schedulingPolicy),  KSCHED_F(schedulingConstraints),
                    KSCHED_F(disruptionMode), KSCHED_F(priorityClassName), KSCHED_F(priority),
                    KSCHED_F(preemptionPolicy), KSCHED_F(podGroupTemplates), KSCHED_F(compositePodGroupTemplates));
}

// Exactly one of the two template lists (a union); compositePodGroupTemplates needs the gate.
struct WorkloadSpec {
  std::optional<TypedLocalObjectReference> controllerRef;  // immutable
  std::vector<PodGroupTemplate> podGroupTemplates;         // at most 8; none added or removed by an update
  std::vector<CompositePodGroupTemplate> compositePodGroupTemplates;  // at most 8
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<WorkloadSpec>) {
  using T = WorkloadSpec;
  return field_list(KSCHED_F(controllerRef), KSCHED_F(podGroupTemplates), KSCHED_F(compositePodGroupTemplates));
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
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec));
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
  return field_list(KSCHED_F(workloadName), KSCHED_F(templateName));
}

struct PodGroupSpec {
  // The CompositePodGroup above this group in the same namespace (gate CompositePodGroup); unset
  // for a root. Immutable; needs workloadRef.
  std::optional<std::string> parentCompositePodGroupName;
  std::optional<WorkloadReference> workloadRef;
  PodGroupSchedulingPolicy schedulingPolicy;
  std::optional<PodGroupSchedulingConstraints> schedulingConstraints;
  std::optional<DisruptionMode> disruptionMode;  // defaults to {single: {}}
  std::string priorityClassName;
  std::optional<std::int32_t> priority;
  std::optional<std::string> preemptionPolicy;
  std::vector<PodGroupResourceClaim> resourceClaims;  // DRAWorkloadResourceClaims; at most 4, immutable
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PodGroupSpec>) {
  using T = PodGroupSpec;
  return field_list(KSCHED_F(parentCompositePodGroupName), KSCHED_F(workloadRef),    KSCHED_F(schedulingPolicy),  KSCHED_F(schedulingConstraints),
                    KSCHED_F(disruptionMode), KSCHED_F(priorityClassName), KSCHED_F(priority),
                    KSCHED_F(preemptionPolicy), KSCHED_F(resourceClaims));
}

// Condition types and reasons the scheduler writes (v1.37).
inline constexpr std::string_view kPodGroupInitiallyScheduled = "PodGroupInitiallyScheduled";
inline constexpr std::string_view kDisruptionTarget = "DisruptionTarget";
inline constexpr std::string_view kReasonUnschedulable = "Unschedulable";
inline constexpr std::string_view kReasonSchedulerError = "SchedulerError";
inline constexpr std::string_view kReasonPreemptionByScheduler = "PreemptionByScheduler";
inline constexpr std::string_view kCompositePodGroupInitiallyScheduled = "CompositePodGroupInitiallyScheduled";

struct PodGroupStatus {
  std::vector<Condition> conditions;  // a map keyed by type
  // DRAWorkloadResourceClaims: the ResourceClaim controller's, one per template entry (a map keyed
  // by name).
  std::vector<PodGroupResourceClaimStatus> resourceClaimStatuses;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PodGroupStatus>) {
  using T = PodGroupStatus;
  return field_list(KSCHED_F(conditions), KSCHED_F(resourceClaimStatuses));
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
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec), KSCHED_F(status));
}

#undef KSCHED_F

}  // namespace ksched::api::schedulingv1beta1

namespace ksched::api::schedulingv1alpha3 {

#define KSCHED_F(name) field(#name, &T::name)

// Upstream v1.37's staging/src/k8s.io/api/scheduling/v1alpha3/types.go (kubernetes/api master):
// the CompositePodGroup, served at scheduling.k8s.io/v1alpha3 only, behind GenericWorkload and
// CompositePodGroup. A group of PodGroups and CompositePodGroups (its children name it in their
// spec.parentCompositePodGroupName); workload controllers make it from a Workload's
// compositePodGroupTemplates. The shapes repeat v1beta1's as types of their own, so the OpenAPI
// document names them in v1alpha3.

struct TopologyConstraint {
  std::string key;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<TopologyConstraint>) {
  using T = TopologyConstraint;
  return field_list(KSCHED_F(key));
}
struct WorkloadReference {
  std::string workloadName;
  std::string templateName;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<WorkloadReference>) {
  using T = WorkloadReference;
  return field_list(KSCHED_F(workloadName), KSCHED_F(templateName));
}
struct CompositeBasicSchedulingPolicy {
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<CompositeBasicSchedulingPolicy>) { return field_list(); }
struct CompositeGangSchedulingPolicy {
  std::int32_t minGroupCount = 0;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<CompositeGangSchedulingPolicy>) {
  using T = CompositeGangSchedulingPolicy;
  return field_list(KSCHED_F(minGroupCount));
}
struct CompositePodGroupSchedulingPolicy {
  std::optional<CompositeBasicSchedulingPolicy> basic;
  std::optional<CompositeGangSchedulingPolicy> gang;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<CompositePodGroupSchedulingPolicy>) {
  using T = CompositePodGroupSchedulingPolicy;
  return field_list(KSCHED_F(basic), KSCHED_F(gang));
}
struct CompositePodGroupSchedulingConstraints {
  std::vector<TopologyConstraint> topology;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<CompositePodGroupSchedulingConstraints>) {
  using T = CompositePodGroupSchedulingConstraints;
  return field_list(KSCHED_F(topology));
}
struct SingleCompositeDisruptionMode {
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<SingleCompositeDisruptionMode>) { return field_list(); }
struct AllCompositeDisruptionMode {
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<AllCompositeDisruptionMode>) { return field_list(); }
struct CompositeDisruptionMode {
  std::optional<SingleCompositeDisruptionMode> single;
  std::optional<AllCompositeDisruptionMode> all;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<CompositeDisruptionMode>) {
  using T = CompositeDisruptionMode;
  return field_list(KSCHED_F(single), KSCHED_F(all));
}

// Everything but the parent is copied by the controller from the template; all of it immutable.
struct CompositePodGroupSpec {
  std::optional<std::string> parentCompositePodGroupName;  // unset: the root of the hierarchy
  std::optional<WorkloadReference> workloadRef;             // required
  CompositePodGroupSchedulingPolicy schedulingPolicy;
  std::optional<CompositePodGroupSchedulingConstraints> schedulingConstraints;
  std::optional<CompositeDisruptionMode> disruptionMode;  // defaults to {single: {}}
  std::string priorityClassName;
  std::optional<std::int32_t> priority;
  std::optional<std::string> preemptionPolicy;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<CompositePodGroupSpec>) {
  using T = CompositePodGroupSpec;
  return field_list(KSCHED_F(parentCompositePodGroupName), KSCHED_F(workloadRef),   KSCHED_F(schedulingPolicy),
                    KSCHED_F(schedulingConstraints),       KSCHED_F(disruptionMode), KSCHED_F(priorityClassName),
                    KSCHED_F(priority),                    KSCHED_F(preemptionPolicy));
}

struct CompositePodGroupStatus {
  std::vector<Condition> conditions;  // a map keyed by type
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<CompositePodGroupStatus>) {
  using T = CompositePodGroupStatus;
  return field_list(KSCHED_F(conditions));
}

struct CompositePodGroup {
  ThinString apiVersion;
  ThinString kind;
  ObjectMeta metadata;
  CompositePodGroupSpec spec;
  CompositePodGroupStatus status;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<CompositePodGroup>) {
  using T = CompositePodGroup;
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec), KSCHED_F(status));
}

#undef KSCHED_F

}  // namespace ksched::api::schedulingv1alpha3
