#include "apiserver/discovery.h"

#include <boost/json.hpp>

#include "apiserver/resources.h"

namespace ksched::apiserver {

namespace json = boost::json;

namespace {

json::array strings(const std::vector<std::string>& v) {
  json::array a;
  for (const auto& s : v) a.emplace_back(s);
  return a;
}

json::object gv_entry(const std::string& group) {
  return json::object{{"groupVersion", group + "/v1"}, {"version", "v1"}};
}

}  // namespace

std::string discovery_api_versions(std::string_view server_address) {
  json::object o{{"kind", "APIVersions"},
                 {"versions", json::array{"v1"}},
                 {"serverAddressByClientCIDRs",
                  json::array{json::object{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}}}};
  return json::serialize(o);
}

std::string discovery_group_list() {
  json::array groups;
  for (const auto& g : api_groups()) {
    groups.push_back(json::object{{"name", g}, {"versions", json::array{gv_entry(g)}}, {"preferredVersion", gv_entry(g)}});
  }
  return json::serialize(json::object{{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", std::move(groups)}});
}

std::string discovery_group(std::string_view group) {
  for (const auto& g : api_groups()) {
    if (g != group) continue;
    return json::serialize(json::object{{"kind", "APIGroup"},
                                        {"apiVersion", "v1"},
                                        {"name", g},
                                        {"versions", json::array{gv_entry(g)}},
                                        {"preferredVersion", gv_entry(g)}});
  }
  return "";
}

std::string discovery_resource_list(std::string_view group, std::string_view version) {
  json::array res;
  bool any = false;
  const json::array all_verbs{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
  for (const auto& r : all_resources()) {
    if (r.group != group || r.version != version) continue;
    any = true;
    json::object o{{"name", r.plural},     {"singularName", r.singular}, {"namespaced", r.namespaced},
                   {"kind", r.kind},       {"verbs", r.create_only ? json::array{"create"} : all_verbs}};
    if (!r.short_names.empty()) o["shortNames"] = strings(r.short_names);
    if (!r.categories.empty()) o["categories"] = strings(r.categories);
    res.push_back(std::move(o));
    for (const auto& s : r.subresources) {
      json::object so{{"name", r.plural + "/" + s}, {"singularName", ""}, {"namespaced", r.namespaced}};
      if (s == "binding") {
        so["kind"] = "Binding";
        so["verbs"] = json::array{"create"};
      } else if (s == "eviction") {
        so["group"] = "policy";
        so["version"] = "v1";
        so["kind"] = "Eviction";
        so["verbs"] = json::array{"create"};
      } else if (s == "scale") {
        so["group"] = "autoscaling";
        so["version"] = "v1";
        so["kind"] = "Scale";
        so["verbs"] = json::array{"get", "patch", "update"};
      } else if (s == "finalize") {
        so["kind"] = r.kind;
        so["verbs"] = json::array{"update"};
      } else {
        so["kind"] = r.kind;
        so["verbs"] = json::array{"get", "patch", "update"};
      }
      res.push_back(std::move(so));
    }
  }
  if (!any) return "";
  json::object out{{"kind", "APIResourceList"},
                   {"groupVersion", group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version)},
                   {"resources", std::move(res)}};
  if (!group.empty()) out["apiVersion"] = "v1";
  return json::serialize(out);
}

std::string version_info() {
  return json::serialize(json::object{{"major", "1"},
                                      {"minor", "32"},
                                      {"gitVersion", "v1.32.0-ksched"},
                                      {"gitCommit", "0000000000000000000000000000000000000000"},
                                      {"gitTreeState", "clean"},
                                      {"buildDate", "2026-01-01T00:00:00Z"},
                                      {"goVersion", "go1.23.4"},
                                      {"compiler", "gc"},
                                      {"platform", "linux/amd64"}});
}

// ---------------------------------------------------------------- OpenAPI v3
// kubectl only needs, per group version, a PATCH operation tagged with each kind's GVK and a
// `fieldValidation` query parameter: it then skips client-side validation and sends
// fieldValidation=Strict. Without component schemas, `apply` computes strategic merge patches
// from its compiled-in types.

namespace {

std::string gv_key(const ResourceInfo& r) { return r.group.empty() ? "api/" + r.version : "apis/" + r.group + "/" + r.version; }

std::string doc_hash(std::string_view key) {
  std::uint64_t h = 1469598103934665603ull;
  for (char c : key) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llX", static_cast<unsigned long long>(h));
  return buf;
}

json::object query_param(const char* name) {
  return json::object{{"name", name}, {"in", "query"}, {"schema", json::object{{"type", "string"}, {"uniqueItems", true}}}};
}

}  // namespace

std::string openapi_v3_index() {
  json::object paths;
  for (const auto& r : all_resources()) {
    std::string k = gv_key(r);
    if (!paths.contains(k)) paths[k] = json::object{{"serverRelativeURL", "/openapi/v3/" + k + "?hash=" + doc_hash(k)}};
  }
  return json::serialize(json::object{{"paths", std::move(paths)}});
}

std::string openapi_v3_document(std::string_view gv_path) {
  json::object paths;
  for (const auto& r : all_resources()) {
    if (gv_key(r) != gv_path) continue;
    std::string base = r.gv_path() + (r.namespaced ? "/namespaces/{namespace}/" : "/") + r.plural + "/{name}";
    json::object gvk{{"group", r.group}, {"version", r.version}, {"kind", r.kind}};
    json::array params{query_param("dryRun"), query_param("fieldManager"), query_param("fieldValidation"),
                       json::object{{"name", "force"}, {"in", "query"}, {"schema", json::object{{"type", "boolean"}}}}};
    json::array path_params{json::object{{"name", "name"}, {"in", "path"}, {"required", true},
                                         {"schema", json::object{{"type", "string"}}}}};
    if (r.namespaced)
      path_params.push_back(json::object{{"name", "namespace"}, {"in", "path"}, {"required", true},
                                         {"schema", json::object{{"type", "string"}}}});
    json::object patch{{"operationId", "patch" + r.kind},
                       {"x-kubernetes-action", "patch"},
                       {"x-kubernetes-group-version-kind", gvk},
                       {"parameters", params},
                       {"responses", json::object{{"200", json::object{{"description", "OK"}}}}}};
    json::object put{{"operationId", "replace" + r.kind},
                     {"x-kubernetes-action", "put"},
                     {"x-kubernetes-group-version-kind", gvk},
                     {"parameters", params},
                     {"responses", json::object{{"200", json::object{{"description", "OK"}}}}}};
    paths[base] = json::object{{"parameters", path_params}, {"patch", std::move(patch)}, {"put", std::move(put)}};
  }
  if (paths.empty()) return "";
  return json::serialize(json::object{{"openapi", "3.0.0"},
                                      {"info", json::object{{"title", "Kubernetes"}, {"version", "v1.32.0"}}},
                                      {"paths", std::move(paths)},
                                      {"components", json::object{{"schemas", json::object()}}}});
}

}  // namespace ksched::apiserver
