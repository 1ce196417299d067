#include "controllers/discovery.h"

#include <algorithm>

#include <boost/json.hpp>

namespace ksched::controllers {

namespace json = boost::json;

namespace {

client::Result<json::object> get_json(client::RestClient& c, const std::string& path) {
  auto r = c.raw("GET", path);
  if (!r) return r.error();
  if (r->status < 200 || r->status >= 300) return client::ApiError::from_response(r->status, r->body);
  json::error_code ec;
  auto v = json::parse(r->body, ec);
  if (ec || !v.is_object()) return client::ApiError{500, "InternalError", "discovery: " + path + " is not a JSON object"};
  return std::move(v.get_object());
}

std::string str(const json::object& o, std::string_view k) {
  auto* v = o.if_contains(k);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

void add_resources(const json::object& list, const std::string& group, const std::string& version,
                   std::vector<ApiResource>& out) {
  auto* rs = list.if_contains("resources");
  if (!rs || !rs->is_array()) return;
  for (const auto& v : rs->get_array()) {
    if (!v.is_object()) continue;
    const auto& o = v.get_object();
    ApiResource r;
    r.resource = str(o, "name");
    if (r.resource.empty() || r.resource.find('/') != std::string::npos) continue;  // subresources
    r.group = group;
    r.version = version;
    r.kind = str(o, "kind");
    if (auto* n = o.if_contains("namespaced"); n && n->is_bool()) r.namespaced = n->get_bool();
    if (auto* vs = o.if_contains("verbs"); vs && vs->is_array())
      for (const auto& x : vs->get_array())
        if (x.is_string()) r.verbs.emplace_back(x.get_string());
    out.push_back(std::move(r));
  }
}

}  // namespace

bool ApiResource::has_verb(std::string_view v) const {
  for (const auto& x : verbs)
    if (x == v) return true;
  return false;
}

std::string_view group_of(std::string_view api_version) {
  auto slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
}

client::Result<Discovery> Discovery::discover(client::RestClient& c) {
  Discovery d;
  auto core = get_json(c, "/api/v1");
  if (!core) return core.error();
  add_resources(*core, "", "v1", d.resources_);
  auto groups = get_json(c, "/apis");
  if (!groups) return groups.error();
  if (auto* gs = groups->if_contains("groups"); gs && gs->is_array()) {
    for (const auto& g : gs->get_array()) {
      if (!g.is_object()) continue;
      const auto& go = g.get_object();
      std::string name = str(go, "name");
      std::string preferred;
      if (auto* pv = go.if_contains("preferredVersion"); pv && pv->is_object()) preferred = str(pv->get_object(), "version");
      if (name.empty() || preferred.empty()) continue;
      // ServerPreferredResources: the preferred version's resources, then those only another
      // version serves (scheduling.k8s.io: PriorityClass at v1, Workload at v1alpha1, PodGroup at
      // v1beta1), each resource once.
      std::vector<std::string> versions{preferred};
      if (auto* vs = go.if_contains("versions"); vs && vs->is_array())
        for (const auto& v : vs->get_array())
          if (v.is_object())
            if (auto ver = str(v.get_object(), "version"); !ver.empty() && ver != preferred) versions.push_back(ver);
      for (const auto& version : versions) {
        auto list = get_json(c, "/apis/" + name + "/" + version);
        if (!list) return list.error();
        std::vector<ApiResource> found;
        add_resources(*list, name, version, found);
        for (auto& r : found) {
          bool seen = std::any_of(d.resources_.begin(), d.resources_.end(), [&](const ApiResource& x) {
            return x.group == r.group && x.resource == r.resource;
          });
          if (!seen) d.resources_.push_back(std::move(r));
        }
      }
    }
  }
  return d;
}

const ApiResource* Discovery::for_kind(std::string_view api_version, std::string_view kind) const {
  std::string_view group = group_of(api_version);
  for (const auto& r : resources_)
    if (r.group == group && r.kind == kind) return &r;
  return nullptr;
}

}  // namespace ksched::controllers
