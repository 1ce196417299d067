// Discovery documents built from the resource table: legacy (/api, /apis, group and group-version
// resource lists), aggregated (apidiscovery.k8s.io APIGroupDiscoveryList for /api and /apis) and
// the OpenAPI documents (generated in openapi.cpp).
#pragma once
#include <string>
#include <string_view>

#include "apiserver/features.h"

namespace ksched::apiserver {

std::string discovery_api_versions(std::string_view server_address);
// The documents list only what is served under `gates` (a gated kind while its gate is on).
std::string discovery_group_list(const FeatureGates& gates);
std::string discovery_group(std::string_view group, const FeatureGates& gates);  // "" if unknown
// "" if unknown
std::string discovery_resource_list(std::string_view group, std::string_view version, const FeatureGates& gates);
std::string version_info();

// The aggregated discovery media type an Accept header selects, e.g.
// "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" (also v2beta1); "" means
// the legacy documents (plain JSON, wildcards, or nothing we serve).
std::string aggregated_discovery_type(std::string_view accept);
// APIGroupDiscoveryList of /api (`core`) or /apis in the given media type's version.
std::string aggregated_discovery(bool core, std::string_view media_type, const FeatureGates& gates);

// OpenAPI v3: index and one document per group version ("api/v1", "apis/apps/v1"); "" if unknown.
std::string openapi_v3_index(const FeatureGates& gates);
std::string openapi_v3_document(std::string_view gv_path, const FeatureGates& gates);

}  // namespace ksched::apiserver
