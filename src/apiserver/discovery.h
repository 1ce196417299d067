// Discovery documents (/api, /apis, group-version resource lists) and OpenAPI v3 built from the
// resource table.
#pragma once
#include <string>
#include <string_view>

namespace ksched::apiserver {

std::string discovery_api_versions(std::string_view server_address);
std::string discovery_group_list();
std::string discovery_group(std::string_view group);                              // "" if unknown
std::string discovery_resource_list(std::string_view group, std::string_view version);  // "" if unknown
std::string version_info();

// OpenAPI v3: index and one document per group version ("api/v1", "apis/apps/v1"); "" if unknown.
std::string openapi_v3_index();
std::string openapi_v3_document(std::string_view gv_path);

}  // namespace ksched::apiserver
