#include "apiserver/endpoints/discovery.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <cstdlib>

#include "api/version.h"
#include "apiserver/endpoints/openapi.h"
#include "apiserver/resources.h"

namespace ksched::apiserver {

namespace json = boost::json;

namespace {

json::array strings(const std::vector<std::string>& v) {
  json::array a;
  for (const auto& s : v) a.emplace_back(s);
  return a;
}

json::object gv_entry(const std::string& group, const std::string& version) {
  return json::object{{"groupVersion", group + "/" + version}, {"version", version}};
}

// A group's versions in table order, the preferred one first (resource.k8s.io: v1, v1beta2).
json::array gv_entries(const std::string& group, const FeatureGates& gates) {
  json::array out;
  std::vector<std::string> seen;
  for (const auto& r : all_resources()) {
    if (r.group != group || !is_served(r, gates) || std::find(seen.begin(), seen.end(), r.version) != seen.end())
      continue;
    seen.push_back(r.version);
    out.push_back(gv_entry(group, r.version));
  }
  return out;
}

}  // namespace

std::string discovery_api_versions(std::string_view server_address) {
  json::object o{{"kind", "APIVersions"},
                 {"versions", json::array{"v1"}},
                 {"serverAddressByClientCIDRs",
                  json::array{json::object{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}}}};
  return json::serialize(o);
}

std::string discovery_group_list(const FeatureGates& gates) {
  json::array groups;
  for (const auto& g : api_groups(gates)) {
    json::array versions = gv_entries(g, gates);
    json::value preferred = versions.front();
    groups.push_back(json::object{{"name", g}, {"versions", std::move(versions)}, {"preferredVersion", preferred}});
  }
  return json::serialize(
      json::object{{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", std::move(groups)}});
}

std::string discovery_group(std::string_view group, const FeatureGates& gates) {
  for (const auto& g : api_groups(gates)) {
    if (g != group) continue;
    json::array versions = gv_entries(g, gates);
    json::value preferred = versions.front();
    return json::serialize(json::object{{"kind", "APIGroup"},
                                        {"apiVersion", "v1"},
                                        {"name", g},
                                        {"versions", std::move(versions)},
                                        {"preferredVersion", preferred}});
  }
  return "";
}

namespace {

const json::array& all_verbs() {
  static const json::array v{"create", "delete", "deletecollection", "get",
                             "list",   "patch",  "update",           "watch"};
  return v;
}

json::array resource_verbs(const ResourceInfo& r) {
  return r.create_only ? json::array{"create"} : all_verbs();
}

// What a subresource answers with and which verbs it takes.
struct SubInfo {
  std::string group, version, kind;
  json::array verbs;
};

SubInfo sub_info(const ResourceInfo& r, const std::string& s) {
  if (s == "binding") return {r.group, r.version, "Binding", {"create"}};
  if (s == "eviction") return {"policy", "v1", "Eviction", {"create"}};
  if (s == "scale") return {"autoscaling", "v1", "Scale", {"get", "patch", "update"}};
  if (s == "finalize") return {r.group, r.version, r.kind, {"update"}};
  return {r.group, r.version, r.kind, {"get", "patch", "update"}};  // status
}

}  // namespace

std::string discovery_resource_list(std::string_view group, std::string_view version, const FeatureGates& gates) {
  json::array res;
  bool any = false;
  for (const auto& r : all_resources()) {
    if (r.group != group || r.version != version || !is_served(r, gates)) continue;
    any = true;
    json::object o{{"name", r.plural},
                   {"singularName", r.singular},
                   {"namespaced", r.namespaced},
                   {"kind", r.kind},
                   {"verbs", resource_verbs(r)}};
    if (!r.short_names.empty()) o["shortNames"] = strings(r.short_names);
    if (!r.categories.empty()) o["categories"] = strings(r.categories);
    res.push_back(std::move(o));
    for (const auto& s : r.subresources) {
      SubInfo si = sub_info(r, s);
      json::object so{{"name", r.plural + "/" + s}, {"singularName", ""}, {"namespaced", r.namespaced}};
      // Legacy lists name group/version only when they differ from the list's own.
      if (si.group != r.group || si.version != r.version) {
        so["group"] = si.group;
        so["version"] = si.version;
      }
      so["kind"] = si.kind;
      so["verbs"] = std::move(si.verbs);
      res.push_back(std::move(so));
    }
  }
  if (!any) return "";
  json::object out{{"kind", "APIResourceList"},
                   {"groupVersion",
                    group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version)},
                   {"resources", std::move(res)}};
  if (!group.empty()) out["apiVersion"] = "v1";
  return json::serialize(out);
}

// ---------------------------------------------------------------- aggregated discovery

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

constexpr std::string_view kAggregatedV2 =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
constexpr std::string_view kAggregatedV2Beta1 =
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";

json::object response_kind(std::string_view group, std::string_view version, std::string_view kind) {
  return json::object{{"group", group}, {"version", version}, {"kind", kind}};
}

json::object aggregated_resource(const ResourceInfo& r) {
  json::object o{{"resource", r.plural},
                 {"responseKind", response_kind(r.group, r.version, r.kind)},
                 {"scope", r.namespaced ? "Namespaced" : "Cluster"},
                 {"singularResource", r.singular},
                 {"verbs", resource_verbs(r)}};
  if (!r.short_names.empty()) o["shortNames"] = strings(r.short_names);
  if (!r.categories.empty()) o["categories"] = strings(r.categories);
  if (!r.subresources.empty()) {
    json::array subs;
    for (const auto& s : r.subresources) {
      SubInfo si = sub_info(r, s);
      subs.push_back(json::object{{"subresource", s},
                                  {"responseKind", response_kind(si.group, si.version, si.kind)},
                                  {"verbs", std::move(si.verbs)}});
    }
    o["subresources"] = std::move(subs);
  }
  return o;
}

// One APIGroupDiscovery: the group's versions (in table order) with their resources.
json::object aggregated_group(const std::string& group, const FeatureGates& gates) {
  std::vector<std::string> versions;
  for (const auto& r : all_resources())
    if (r.group == group && is_served(r, gates) &&
        std::find(versions.begin(), versions.end(), r.version) == versions.end())
      versions.push_back(r.version);
  json::array vs;
  for (const auto& v : versions) {
    json::array res;
    for (const auto& r : all_resources())
      if (r.group == group && r.version == v && is_served(r, gates)) res.push_back(aggregated_resource(r));
    vs.push_back(json::object{{"version", v}, {"resources", std::move(res)}, {"freshness", "Current"}});
  }
  json::object meta{{"creationTimestamp", nullptr}};
  if (!group.empty()) meta = json::object{{"name", group}, {"creationTimestamp", nullptr}};
  return json::object{{"metadata", std::move(meta)}, {"versions", std::move(vs)}};
}

}  // namespace

std::string aggregated_discovery_type(std::string_view accept) {
  // Highest q wins, the earlier entry on ties; plain JSON (or a wildcard) means the legacy form.
  std::string_view best;
  double best_q = -1;
  while (!accept.empty()) {
    auto comma = accept.find(',');
    std::string_view item = accept.substr(0, comma);
    accept = comma == std::string_view::npos ? std::string_view() : accept.substr(comma + 1);
    auto semi = item.find(';');
    std::string_view type = trim(item.substr(0, semi));
    std::string_view g, v, as;
    double q = 1;
    while (semi != std::string_view::npos) {
      item = item.substr(semi + 1);
      semi = item.find(';');
      std::string_view p = trim(item.substr(0, semi));
      auto eq = p.find('=');
      if (eq == std::string_view::npos) continue;
      std::string_view k = trim(p.substr(0, eq)), val = trim(p.substr(eq + 1));
      if (k == "g")
        g = val;
      else if (k == "v")
        v = val;
      else if (k == "as")
        as = val;
      else if (k == "q")
        q = std::atof(std::string(val).c_str());
    }
    std::string_view chosen;
    if (iequals(type, "application/json") && g == "apidiscovery.k8s.io" && as == "APIGroupDiscoveryList") {
      if (v == "v2")
        chosen = kAggregatedV2;
      else if (v == "v2beta1")
        chosen = kAggregatedV2Beta1;
      else
        continue;
    } else if (iequals(type, "application/json") || type == "*/*" || iequals(type, "application/*")) {
      if (!g.empty() || !as.empty()) continue;  // some other typed JSON form
      chosen = "";
    } else {
      continue;  // protobuf and anything else: not served here
    }
    if (q > best_q) {
      best_q = q;
      best = chosen;
    }
  }
  return std::string(best);
}

std::string aggregated_discovery(bool core, std::string_view media_type, const FeatureGates& gates) {
  json::array items;
  if (core) {
    items.push_back(aggregated_group("", gates));
  } else {
    for (const auto& g : api_groups(gates)) items.push_back(aggregated_group(g, gates));
  }
  std::string api_version =
      media_type == kAggregatedV2Beta1 ? "apidiscovery.k8s.io/v2beta1" : "apidiscovery.k8s.io/v2";
  return json::serialize(json::object{{"kind", "APIGroupDiscoveryList"},
                                      {"apiVersion", api_version},
                                      {"metadata", json::object()},
                                      {"items", std::move(items)}});
}

// kube-apiserver's /version (apimachinery's version.Info as its effective version fills it): the
// binary, emulation and minimum compatibility versions; a "+ksched" build suffix on the release,
// which semantic versioning ignores when clients compare versions.
std::string version_info() {
#if defined(__aarch64__)
  constexpr const char* platform = "linux/arm64";
#else
  constexpr const char* platform = "linux/amd64";
#endif
  return json::serialize(json::object{{"major", api::kKubernetesMajor},
                                      {"minor", api::kKubernetesMinor},
                                      {"emulationMajor", api::kKubernetesMajor},
                                      {"emulationMinor", api::kKubernetesMinor},
                                      {"minCompatibilityMajor", api::kKubernetesMajor},
                                      {"minCompatibilityMinor", api::kKubernetesMinCompatibilityMinor},
                                      {"gitVersion", std::string(api::kKubernetesVersion) + "+ksched"},
                                      {"gitCommit", "0000000000000000000000000000000000000000"},
                                      {"gitTreeState", "clean"},
                                      {"buildDate", "2026-01-01T00:00:00Z"},
                                      {"goVersion", "go1.25.0"},
                                      {"compiler", "gc"},
                                      {"platform", platform}});
}

// ---------------------------------------------------------------- OpenAPI (see openapi.h)

namespace {

// The group versions ("apis/scheduling.k8s.io/v1alpha1") whose every resource is gated off.
std::vector<std::string> unserved_group_versions(const FeatureGates& gates) {
  std::vector<std::string> out;
  for (const auto& r : all_resources()) {
    std::string key = r.group.empty() ? "api/" + r.version : "apis/" + r.group + "/" + r.version;
    if (!serves_group_version(r.group, r.version, gates) && std::find(out.begin(), out.end(), key) == out.end())
      out.push_back(std::move(key));
  }
  return out;
}

}  // namespace

std::string openapi_v3_index(const FeatureGates& gates) {
  std::vector<std::string> off = unserved_group_versions(gates);
  if (off.empty()) return openapi::v3_index();
  json::value index = json::parse(openapi::v3_index());
  json::object& paths = index.as_object()["paths"].as_object();
  for (const auto& k : off) paths.erase(k);
  return json::serialize(index);
}

std::string openapi_v3_document(std::string_view gv_path, const FeatureGates& gates) {
  for (const auto& k : unserved_group_versions(gates))
    if (k == gv_path) return "";
  return openapi::v3_document(gv_path);
}

}  // namespace ksched::apiserver
