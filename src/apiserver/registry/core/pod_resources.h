// A pod's resources as upstream's component-helpers/resource adds them up, on the JSON the server
// stores: what defaulting, validation and the QoS class of pod-level resources read. Private to
// the API server.
#pragma once
#include <boost/json.hpp>
#include <map>
#include <string>
#include <string_view>

#include "api/quantity.h"

namespace ksched::apiserver {

// A quantity and the text upstream's String() prints for it: the member's own text while it is a
// copy (DeepCopy keeps a parsed quantity's text), the canonical form once arithmetic made it.
struct QuantityText {
  api::Quantity value;
  std::string text;
};
// Resource name -> total, sorted by name (Go ranges over its maps in random order; we report in
// name order).
using ResourceTotals = std::map<std::string, QuantityText, std::less<>>;

// AggregateContainerRequests / AggregateContainerLimits (`which`: "requests" or "limits") without
// status resources: regular containers and restartable init containers (restartPolicy Always) add
// up; every other init container counts together with the restartable ones before it, and the
// pod needs the larger of the two per resource.
ResourceTotals aggregate_container_resources(const boost::json::object& spec, std::string_view which);

// IsSupportedPodLevelResource: cpu, memory and hugepages-*.
bool is_supported_pod_level_resource(std::string_view name);
bool is_hugepages_resource(std::string_view name);
// IsOvercommitAllowed: a native resource (no domain, or a kubernetes.io one) other than hugepages.
bool is_overcommit_allowed(std::string_view name);

}  // namespace ksched::apiserver
