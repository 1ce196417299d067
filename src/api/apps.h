// apps/v1 controllers as the scheduler sees them (owners of pods for SelectorSpread-style logic):
// selector and replicas only; template, strategy and status stay verbatim.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "api/meta.h"

namespace ksched::api {

#define KSCHED_F(name) field(#name, &T::name)

struct ReplicaSetSpec {
  std::optional<std::int32_t> replicas;
  std::optional<LabelSelector> selector;
  Presence present;
  Extra extra;  // minReadySeconds, template
};
constexpr auto describe(type_tag<ReplicaSetSpec>) {
  using T = ReplicaSetSpec;
  return field_list(KSCHED_F(replicas), KSCHED_F(selector));
}

struct StatefulSetSpec {
  std::optional<std::int32_t> replicas;
  std::optional<LabelSelector> selector;
  std::string serviceName;
  Presence present;
  Extra extra;  // template, volumeClaimTemplates, updateStrategy, ...
};
constexpr auto describe(type_tag<StatefulSetSpec>) {
  using T = StatefulSetSpec;
  return field_list(KSCHED_F(replicas), KSCHED_F(selector), KSCHED_F(serviceName));
}

struct DeploymentSpec {
  std::optional<std::int32_t> replicas;
  std::optional<LabelSelector> selector;
  Presence present;
  Extra extra;  // template, strategy, ...
};
constexpr auto describe(type_tag<DeploymentSpec>) {
  using T = DeploymentSpec;
  return field_list(KSCHED_F(replicas), KSCHED_F(selector));
}

struct DaemonSetSpec {
  std::optional<LabelSelector> selector;
  Presence present;
  Extra extra;  // template, updateStrategy, ...
};
constexpr auto describe(type_tag<DaemonSetSpec>) {
  using T = DaemonSetSpec;
  return field_list(KSCHED_F(selector));
}

#define KSCHED_APPS_KIND(Kind)                                                                       \
  struct Kind {                                                                                      \
    std::string apiVersion;                                                                          \
    std::string kind;                                                                                \
    ObjectMeta metadata;                                                                             \
    Kind##Spec spec;                                                                                 \
    RawJson status;                                                                                  \
    Presence present;                                                                                \
    Extra extra;                                                                                     \
  };                                                                                                 \
  constexpr auto describe(type_tag<Kind>) {                                                          \
    using T = Kind;                                                                                  \
    return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec),      \
                      KSCHED_F(status));                                                             \
  }

KSCHED_APPS_KIND(ReplicaSet)
KSCHED_APPS_KIND(StatefulSet)
KSCHED_APPS_KIND(Deployment)
KSCHED_APPS_KIND(DaemonSet)

#undef KSCHED_APPS_KIND
#undef KSCHED_F

}  // namespace ksched::api
