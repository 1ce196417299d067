// coordination.k8s.io/v1 Lease (leader election lock).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "api/meta.h"

namespace ksched::api {

struct LeaseSpec {
  std::optional<std::string> holderIdentity;
  std::optional<std::int32_t> leaseDurationSeconds;
  std::optional<MicroTime> acquireTime;
  std::optional<MicroTime> renewTime;
  std::optional<std::int32_t> leaseTransitions;
  std::optional<std::string> strategy;
  std::optional<std::string> preferredHolder;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<LeaseSpec>) {
  using T = LeaseSpec;
  return field_list(field("holderIdentity", &T::holderIdentity),
                    field("leaseDurationSeconds", &T::leaseDurationSeconds),
                    field("acquireTime", &T::acquireTime),
                    field("renewTime", &T::renewTime),
                    field("leaseTransitions", &T::leaseTransitions),
                    field("strategy", &T::strategy),
                    field("preferredHolder", &T::preferredHolder));
}

struct Lease {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  LeaseSpec spec;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<Lease>) {
  using T = Lease;
  return field_list(field("apiVersion", &T::apiVersion), field("kind", &T::kind), field("metadata", &T::metadata),
                    field("spec", &T::spec));
}

}  // namespace ksched::api
