// scheduling.k8s.io/v1 PriorityClass, and v1alpha1 Workload (v1.35's workload-aware scheduling,
// served when the GenericWorkload gate is on): a Workload names its pod groups and each group's
// policy; a pod joins a group through its spec.workloadRef (api::WorkloadReference in core.h).
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
