// node.k8s.io/v1 RuntimeClass (stored and served by the API server; the scheduler does not read it).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "api/core.h"
#include "api/meta.h"
#include "api/quantity.h"

namespace ksched::api {

// The resources a pod of this class uses beyond its containers' (added to spec.overhead).
struct Overhead {
  ResourceList podFixed;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<Overhead>) {
  using T = Overhead;
  return field_list(field("podFixed", &T::podFixed));
}

// Constraints merged into the pods of this class: where the handler is available.
struct Scheduling {
  StringMap nodeSelector;
  std::vector<Toleration> tolerations;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<Scheduling>) {
  using T = Scheduling;
  return field_list(field("nodeSelector", &T::nodeSelector), field("tolerations", &T::tolerations));
}

struct RuntimeClass {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  std::string handler;  // the CRI handler name, a DNS-1123 label; required and immutable
  std::optional<Overhead> overhead;
  std::optional<Scheduling> scheduling;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<RuntimeClass>) {
  using T = RuntimeClass;
  return field_list(field("apiVersion", &T::apiVersion), field("kind", &T::kind),
                    field("metadata", &T::metadata),     field("handler", &T::handler),
                    field("overhead", &T::overhead),     field("scheduling", &T::scheduling));
}

}  // namespace ksched::api
