#include "apiserver/registry/core/pod_resources.h"

#include "apiserver/json_access.h"

namespace ksched::apiserver {

namespace json = boost::json;

namespace {

std::optional<api::Quantity> parse(const json::value& v) {
  if (!v.is_string()) return std::nullopt;  // decode left every quantity a string
  auto q = api::Quantity::parse(v.get_string());
  if (!q) return std::nullopt;
  return *q;
}

// addResourceList: a resource seen first is copied (text and all), a repeated one summed.
void add(ResourceTotals& to, const json::object* list) {
  if (!list) return;
  for (const auto& kv : *list) {
    auto q = parse(kv.value());
    if (!q) continue;
    auto it = to.find(std::string_view(kv.key()));
    if (it == to.end()) {
      to.emplace(std::string(kv.key()), QuantityText{*q, std::string(kv.value().get_string())});
    } else {
      it->second.value += *q;
      it->second.text = it->second.value.to_string();
    }
  }
}

void add(ResourceTotals& to, const ResourceTotals& from) {
  for (const auto& [name, q] : from) {
    auto it = to.find(name);
    if (it == to.end()) {
      to.emplace(name, q);
    } else {
      it->second.value += q.value;
      it->second.text = it->second.value.to_string();
    }
  }
}

// maxResourceList: the larger of each resource.
void max_of(ResourceTotals& to, const ResourceTotals& from) {
  for (const auto& [name, q] : from) {
    auto it = to.find(name);
    if (it == to.end())
      to.emplace(name, q);
    else if (q.value > it->second.value)
      it->second = q;
  }
}

const json::object* resources_of(const json::object& container, std::string_view which) {
  const json::object* res = object_member(container, "resources");
  return res ? object_member(*res, which) : nullptr;
}

}  // namespace

ResourceTotals aggregate_container_resources(const json::object& spec, std::string_view which) {
  ResourceTotals total;
  if (const json::array* cs = array_member(spec, "containers"))
    for (const auto& c : *cs)
      if (c.is_object()) add(total, resources_of(c.get_object(), which));
  ResourceTotals restartable, init;
  if (const json::array* ics = array_member(spec, "initContainers"))
    for (const auto& v : *ics) {
      if (!v.is_object()) continue;
      const json::object& c = v.get_object();
      const json::object* own = resources_of(c, which);
      if (str_view(c, "restartPolicy") == "Always") {
        add(total, own);
        add(restartable, own);
        max_of(init, restartable);
      } else {
        ResourceTotals use;
        add(use, own);
        add(use, restartable);
        max_of(init, use);
      }
    }
  max_of(total, init);
  return total;
}

bool is_hugepages_resource(std::string_view name) { return name.starts_with("hugepages-"); }

bool is_supported_pod_level_resource(std::string_view name) {
  return name == "cpu" || name == "memory" || is_hugepages_resource(name);
}

bool is_overcommit_allowed(std::string_view name) {
  bool native = name.find('/') == std::string_view::npos || name.find("kubernetes.io/") != std::string_view::npos;
  return native && !is_hugepages_resource(name);
}

}  // namespace ksched::apiserver
