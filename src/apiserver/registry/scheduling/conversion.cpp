#include "apiserver/registry/scheduling/conversion.h"

#include <boost/json.hpp>

namespace ksched::apiserver::registry::scheduling {

namespace json = boost::json;

namespace {

constexpr std::string_view kV1alpha1 = "scheduling.k8s.io/v1alpha1";
constexpr std::string_view kV1beta1 = "scheduling.k8s.io/v1beta1";

// Renames list `from` of `spec` to `to`, each item through `item` (the values are moved).
template <class ItemFn>
void convert_list(json::object& spec, std::string_view from, std::string_view to, ItemFn item) {
  auto it = spec.find(from);
  if (it == spec.end()) return;
  json::value list = std::move(it->value());
  spec.erase(it);
  if (list.is_array())
    for (auto& v : list.get_array())
      if (v.is_object()) item(v.get_object());
  spec[to] = std::move(list);
}

// Moves member `from` of `o` to `to` (same value).
void rename(json::object& o, std::string_view from, std::string_view to) {
  auto it = o.find(from);
  if (it == o.end()) return;
  json::value v = std::move(it->value());
  o.erase(it);
  o[to] = std::move(v);
}

// v1alpha1 PodGroup -> v1beta1 PodGroupTemplate: policy is the schedulingPolicy.
void pod_group_to_template(json::object& g) { rename(g, "policy", "schedulingPolicy"); }

// v1beta1 PodGroupTemplate -> v1alpha1 PodGroup: name and policy; the rest has no place.
void template_to_pod_group(json::object& t) {
  json::object g;
  if (auto* n = t.if_contains("name")) g["name"] = std::move(*n);
  if (auto* p = t.if_contains("schedulingPolicy")) g["policy"] = std::move(*p);
  t = std::move(g);
}

void convert_workload(json::object& obj, std::string_view to) {
  auto* av = obj.if_contains("apiVersion");
  std::string_view from = av && av->is_string() ? std::string_view(av->get_string()) : kV1beta1;
  if (from == to) return;
  json::object* spec = nullptr;
  if (auto* s = obj.if_contains("spec"); s && s->is_object()) spec = &s->get_object();
  if (from == kV1alpha1 && to == kV1beta1) {
    if (spec) convert_list(*spec, "podGroups", "podGroupTemplates", pod_group_to_template);
  } else if (from == kV1beta1 && to == kV1alpha1) {
    if (spec) {
      spec->erase("compositePodGroupTemplates");
      convert_list(*spec, "podGroupTemplates", "podGroups", template_to_pod_group);
    }
  } else {
    return;  // not a version this conversion knows: left as it is
  }
  obj["apiVersion"] = to;
}

}  // namespace

const Conversion& workload_conversion() {
  static const Conversion c{"scheduling.k8s.io", "v1beta1", "workloads", &convert_workload};
  return c;
}

}  // namespace ksched::apiserver::registry::scheduling
