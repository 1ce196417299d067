// What a request asks to do, as upstream's RequestInfoFactory (k8s.io/apiserver endpoints/request)
// reads it from the method, the path and the query: the authorizer's input. Resource requests are
// /api/{version}/... and /apis/{group}/{version}/...; every other path is a non-resource request
// whose verb is the lower-case HTTP method.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ksched::apiserver {

struct RequestInfo {
  bool resource_request = false;
  std::string_view path;  // the URL path, as given
  // Resource requests: get, list, watch, create, update, patch, delete, deletecollection (or
  // proxy/watch from the deprecated /{verb}/ path prefix); non-resource: the lower-case method.
  std::string_view verb;
  std::string_view api_prefix, group, version, ns, resource, subresource;
  std::string_view path_name;  // the name in the path
  // A list or watch that names one object by the field selector metadata.name=X authorizes as a
  // request for X.
  std::string selector_name;
  // A /watch/ or /proxy/ prefix with nothing after it (upstream: "unable to determine kind and
  // namespace from url"; the server answers 500).
  bool malformed = false;

  std::string_view name() const { return path_name.empty() ? std::string_view(selector_name) : path_name; }
};

// Upstream query booleans (watch, ...): absent/"0"/"false" (any case) = false, anything else = true.
bool query_bool(const std::string* v);

// Views into `path`: it must outlive the result.
// A request with fewer parts than a resource request has (/api, /apis/apps) is a non-resource one,
// as upstream. `method` is upper case (GET, POST, ...); HEAD reads as get.
RequestInfo parse_request_info(std::string_view method, std::string_view path,
                               const std::vector<std::pair<std::string, std::string>>& query);

}  // namespace ksched::apiserver
