#include "apiserver/quantities.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <initializer_list>
#include <string_view>

#include "api/quantity.h"

namespace ksched::apiserver {

namespace json = boost::json;

namespace {

// One quantity value: a JSON string, or a JSON number taken by its decimal text (as upstream's
// UnmarshalJSON parses the raw bytes). Anything else is left for validation to name.
std::optional<std::string> canonical(json::value& v) {
  std::string text;
  if (v.is_string()) {
    text = v.get_string();
    // Upstream trims surrounding white space before parsing.
    auto b = text.find_first_not_of(" \t\r\n");
    auto e = text.find_last_not_of(" \t\r\n");
    text = b == std::string::npos ? std::string() : text.substr(b, e - b + 1);
  } else if (v.is_int64()) {
    text = std::to_string(v.get_int64());
  } else if (v.is_uint64()) {
    text = std::to_string(v.get_uint64());
  } else if (v.is_double()) {
    text = fmt::format("{}", v.get_double());  // shortest text that reads back as the same double
  } else {
    return std::nullopt;
  }
  auto q = api::Quantity::parse(text);
  if (!q) return q.error();
  std::string out = q->to_string();
  if (!v.is_string() || v.get_string() != out) v = json::string(out);
  return std::nullopt;
}

std::optional<std::string> canonical_list(json::value* list) {
  if (!list || !list->is_object()) return std::nullopt;
  for (auto& kv : list->get_object())
    if (auto e = canonical(kv.value())) return e;
  return std::nullopt;
}

json::value* at(json::value* v, std::string_view key) {
  if (!v || !v->is_object()) return nullptr;
  return v->get_object().if_contains(key);
}

json::value* at(json::object& o, std::string_view key) { return o.if_contains(key); }

template <class F>
std::optional<std::string> each(json::value* arr, F&& f) {
  if (!arr || !arr->is_array()) return std::nullopt;
  for (auto& x : arr->get_array())
    if (auto e = f(x)) return e;
  return std::nullopt;
}

std::optional<std::string> requirements(json::value* resources) {
  if (auto e = canonical_list(at(resources, "requests"))) return e;
  return canonical_list(at(resources, "limits"));
}

std::optional<std::string> pvc_spec(json::value* spec) { return requirements(at(spec, "resources")); }

std::optional<std::string> pod_spec(json::value* spec) {
  if (!spec || !spec->is_object()) return std::nullopt;
  for (const char* list : {"containers", "initContainers", "ephemeralContainers"}) {
    if (auto e = each(at(spec, list), [](json::value& c) { return requirements(at(&c, "resources")); })) return e;
  }
  if (auto e = canonical_list(at(spec, "overhead"))) return e;
  if (auto e = requirements(at(spec, "resources"))) return e;
  return each(at(spec, "volumes"), [](json::value& vol) -> std::optional<std::string> {
    if (auto* size = at(at(&vol, "emptyDir"), "sizeLimit"))
      if (auto e = canonical(*size)) return e;
    return pvc_spec(at(at(at(&vol, "ephemeral"), "volumeClaimTemplate"), "spec"));
  });
}

std::optional<std::string> pod_status(json::value* status) {
  for (const char* list : {"containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"}) {
    if (auto e = each(at(status, list), [](json::value& cs) -> std::optional<std::string> {
          if (auto e = canonical_list(at(&cs, "allocatedResources"))) return e;
          return requirements(at(&cs, "resources"));
        }))
      return e;
  }
  return std::nullopt;
}

std::optional<std::string> template_spec(json::value* tmpl) { return pod_spec(at(tmpl, "spec")); }

}  // namespace

std::optional<std::string> canonicalize_quantities(const ResourceInfo& r, json::object& obj) {
  const std::string& k = r.kind;
  if (r.group.empty()) {
    if (k == "Pod") {
      if (auto e = pod_spec(at(obj, "spec"))) return e;
      return pod_status(at(obj, "status"));
    }
    if (k == "Node") {
      if (auto e = canonical_list(at(at(obj, "status"), "capacity"))) return e;
      return canonical_list(at(at(obj, "status"), "allocatable"));
    }
    if (k == "PersistentVolume") return canonical_list(at(at(obj, "spec"), "capacity"));
    if (k == "PersistentVolumeClaim") {
      if (auto e = pvc_spec(at(obj, "spec"))) return e;
      if (auto e = canonical_list(at(at(obj, "status"), "capacity"))) return e;
      return canonical_list(at(at(obj, "status"), "allocatedResources"));
    }
    if (k == "ResourceQuota") {
      if (auto e = canonical_list(at(at(obj, "spec"), "hard"))) return e;
      if (auto e = canonical_list(at(at(obj, "status"), "hard"))) return e;
      return canonical_list(at(at(obj, "status"), "used"));
    }
    if (k == "LimitRange")
      return each(at(at(obj, "spec"), "limits"), [](json::value& l) -> std::optional<std::string> {
        for (const char* f : {"max", "min", "default", "defaultRequest", "maxLimitRequestRatio"})
          if (auto e = canonical_list(at(&l, f))) return e;
        return std::nullopt;
      });
    if (k == "ReplicationController" || k == "PodTemplate")
      return template_spec(k == "PodTemplate" ? at(obj, "template") : at(at(obj, "spec"), "template"));
    return std::nullopt;
  }
  if (r.group == "apps") {
    if (auto e = template_spec(at(at(obj, "spec"), "template"))) return e;
    if (k == "StatefulSet")
      return each(at(at(obj, "spec"), "volumeClaimTemplates"), [](json::value& t) { return pvc_spec(at(&t, "spec")); });
    return std::nullopt;
  }
  if (r.group == "batch") {
    json::value* spec = at(obj, "spec");
    if (k == "CronJob") spec = at(at(spec, "jobTemplate"), "spec");
    return template_spec(at(spec, "template"));
  }
  if (k == "CSIStorageCapacity") {
    for (const char* f : {"capacity", "maximumVolumeSize"})
      if (auto* v = at(obj, f))
        if (auto e = canonical(*v)) return e;
    return std::nullopt;
  }
  if (k == "RuntimeClass") return canonical_list(at(at(obj, "overhead"), "podFixed"));
  return std::nullopt;
}

}  // namespace ksched::apiserver
