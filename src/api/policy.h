// policy/v1 PodDisruptionBudget (preemption picks victims that violate the fewest budgets).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"

namespace ksched::api {

#define KSCHED_F(name) field(#name, &T::name)

struct PodDisruptionBudgetSpec {
  std::optional<IntOrString> minAvailable;
  std::optional<LabelSelector> selector;
  std::optional<IntOrString> maxUnavailable;
  std::optional<std::string> unhealthyPodEvictionPolicy;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PodDisruptionBudgetSpec>) {
  using T = PodDisruptionBudgetSpec;
  return field_list(KSCHED_F(minAvailable), KSCHED_F(selector), KSCHED_F(maxUnavailable),
                    KSCHED_F(unhealthyPodEvictionPolicy));
}

struct PodDisruptionBudgetStatus {
  std::int64_t observedGeneration = 0;
  FlatMap<Time> disruptedPods;  // pod name -> time the eviction was processed
  std::int32_t disruptionsAllowed = 0;
  std::int32_t currentHealthy = 0;
  std::int32_t desiredHealthy = 0;
  std::int32_t expectedPods = 0;
  std::vector<Condition> conditions;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PodDisruptionBudgetStatus>) {
  using T = PodDisruptionBudgetStatus;
  return field_list(KSCHED_F(observedGeneration), KSCHED_F(disruptedPods),  KSCHED_F(disruptionsAllowed),
                    KSCHED_F(currentHealthy),     KSCHED_F(desiredHealthy), KSCHED_F(expectedPods),
                    KSCHED_F(conditions));
}

struct PodDisruptionBudget {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  PodDisruptionBudgetSpec spec;
  PodDisruptionBudgetStatus status;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PodDisruptionBudget>) {
  using T = PodDisruptionBudget;
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec), KSCHED_F(status));
}

#undef KSCHED_F

}  // namespace ksched::api
