// scheduling.k8s.io/v1 PriorityClass.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

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
