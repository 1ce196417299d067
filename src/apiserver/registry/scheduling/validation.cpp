#include "apiserver/registry/scheduling/validation.h"

#include <boost/json.hpp>
#include <set>
#include <string>

#include "api/scheduling.h"
#include "util/go_format.h"

namespace ksched::apiserver::registry::scheduling {

namespace json = boost::json;

namespace {

// A value as upstream's message shows its internal Go struct: JSON with the Go field names, every
// field present (nil pointers as null), as the project renders such values (validation_pod.cpp).
json::value go_controller_ref(const json::object& ref) {
  return json::object{{"APIGroup", rules::sv(ref, "apiGroup")},
                      {"Kind", rules::sv(ref, "kind")},
                      {"Name", rules::sv(ref, "name")}};
}

json::value go_pod_group(const json::value& v) {
  static const json::object empty;
  const json::object& g = v.is_object() ? v.get_object() : empty;
  const json::object* policy = rules::obj(g, "policy");
  const json::object* basic = policy ? rules::obj(*policy, "basic") : nullptr;
  const json::object* gang = policy ? rules::obj(*policy, "gang") : nullptr;
  json::value go_gang = nullptr;
  if (gang) go_gang = json::object{{"MinCount", rules::int_of(*gang, "minCount").value_or(0)}};
  return json::object{
      {"Name", rules::sv(g, "name")},
      {"Policy", json::object{{"Basic", basic ? json::value(json::object()) : json::value(nullptr)},
                              {"Gang", std::move(go_gang)}}}};
}

// path.IsValidPathSegmentName: a kind or a name in a URL path.
void path_segment_name(Errors& e, std::string_view v, const Path& path) {
  if (v == "." || v == "..") {
    e.invalid_str(path, v, "may not be '" + std::string(v) + "'");
    return;
  }
  if (v.find('/') != std::string_view::npos) e.invalid_str(path, v, "may not contain '/'");
  if (v.find('%') != std::string_view::npos) e.invalid_str(path, v, "may not contain '%'");
}

// validateControllerRef.
void controller_ref(Errors& e, const json::object& ref, const Path& path) {
  std::string_view group = rules::sv(ref, "apiGroup");
  if (!group.empty()) rules::each(e, rules::dns1123_subdomain(group), path.child("apiGroup"), group);
  for (const char* member : {"kind", "name"}) {
    std::string_view v = rules::sv(ref, member);
    if (v.empty())
      e.required(path.child(member));
    else
      path_segment_name(e, v, path.child(member));
  }
}

// validatePodGroupPolicy: exactly one of basic and gang, a gang's minCount above 0.
void pod_group_policy(Errors& e, const json::object& policy, const Path& path) {
  bool basic = rules::obj(policy, "basic") != nullptr, gang = rules::obj(policy, "gang") != nullptr;
  if (!basic && !gang) {
    e.required(path, "exactly one of `basic`, `gang` is required");
  } else if (basic && gang) {
    e.invalid_str(path, "{`basic`, `gang`}", "exactly one of `basic`, `gang` is required, but multiple fields are set");
  } else if (gang) {
    std::int64_t min_count = rules::int_of(*rules::obj(policy, "gang"), "minCount").value_or(0);
    const Path gang_path = path.child("gang");
    if (min_count <= 0) e.invalid_int(gang_path.child("minCount"), min_count, "must be greater than zero");
  }
}

}  // namespace

void workload_spec(Errors& e, const json::object& spec, const Path& path) {
  if (const json::object* ref = rules::obj(spec, "controllerRef")) controller_ref(e, *ref, path.child("controllerRef"));
  const json::array* groups = rules::arr(spec, "podGroups");
  Path p = path.child("podGroups");
  std::size_t n = groups ? groups->size() : 0;
  if (n == 0) {
    e.required(p, "must have at least one item");
    return;
  }
  if (n > api::schedulingv1alpha1::kWorkloadMaxPodGroups) {
    e.causes.push_back(Cause{"FieldValueTooMany",
                             "Too many: " + std::to_string(n) + ": must have at most " +
                                 std::to_string(api::schedulingv1alpha1::kWorkloadMaxPodGroups) + " items",
                             p.str()});
    return;
  }
  std::set<std::string, std::less<>> seen;
  static const json::object empty;
  for (std::size_t i = 0; i < n; ++i) {
    Path gp = p.index(i);
    const json::object& g = (*groups)[i].is_object() ? (*groups)[i].get_object() : empty;
    std::string_view name = rules::sv(g, "name");
    rules::each(e, rules::dns1123_label(name), gp.child("name"), name);  // ValidatePodGroupName
    if (!seen.insert(std::string(name)).second) e.duplicate(gp.child("name"), util::go_quote(name));
    const json::object* policy = rules::obj(g, "policy");
    pod_group_policy(e, policy ? *policy : empty, gp.child("policy"));
  }
}

void workload_spec_update(Errors& e, const json::object& spec, const json::object& old) {
  // ValidateImmutableField (Semantic.DeepEqual: a nil and an empty list compare equal). v1.35
  // names these two fields from the root ("controllerRef", "podGroups"), without "spec.".
  auto changed = [&](std::string_view member) {
    const json::value* now = spec.if_contains(member);
    const json::value* was = old.if_contains(member);
    json::value a = now ? *now : json::value(), b = was ? *was : json::value();
    return rules::semantic(a) != rules::semantic(b);
  };
  if (rules::obj(old, "controllerRef") && changed("controllerRef")) {
    const json::object* now = rules::obj(spec, "controllerRef");
    e.invalid("controllerRef", now ? json::serialize(go_controller_ref(*now)) : "null", "field is immutable");
  }
  if (changed("podGroups")) {
    std::string rendered = "null";
    if (const json::array* now = rules::arr(spec, "podGroups")) {
      json::array groups;
      for (const auto& g : *now) groups.push_back(go_pod_group(g));
      rendered = json::serialize(groups);
    }
    e.invalid("podGroups", rendered, "field is immutable");
  }
}

// ---------------------------------------------------------------- PriorityClass (v1)
namespace {

std::string quote_json(const std::string& s) { return json::serialize(json::value(s)); }

}  // namespace

void priority_class(Errors& e, const json::object& pc) {
  std::vector<Cause>& causes = e.causes;
  const json::object* meta = rules::obj(pc, "metadata");
  const std::string name(meta ? rules::sv(*meta, "name") : std::string_view());
  const json::value* v = pc.if_contains("value");
  if (!v) {
    causes.push_back(Cause{"FieldValueRequired", "Required value", "value"});
    return;
  }
  std::int64_t value = v->is_int64() ? v->get_int64() : 0;
  if (name.starts_with("system-")) {
    std::string err;
    if (name == "system-node-critical" || name == "system-cluster-critical") {
      std::int64_t want = name == "system-node-critical" ? 2000001000 : 2000000000;
      auto* gd = pc.if_contains("globalDefault");
      if (value != want)
        err = "value of " + name + " PriorityClass must be " + std::to_string(want);
      else if (gd && gd->is_bool() && gd->get_bool())
        err = "globalDefault of " + name + " PriorityClass must be false";
    } else {
      err = name + " is not a known system priority class";
    }
    if (!err.empty())
      causes.push_back(Cause{"FieldValueForbidden",
                             "Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: " + err,
                             "metadata.name"});
  } else if (value > 1000000000) {
    causes.push_back(Cause{"FieldValueForbidden", "Forbidden: maximum allowed value of a user defined priority is 1000000000",
                           "value"});
  }
  if (auto* p = pc.if_contains("preemptionPolicy"); p && p->is_string()) {
    std::string policy(p->get_string());
    if (policy != "Never" && policy != "PreemptLowerPriority")
      causes.push_back(Cause{"FieldValueNotSupported",
                             "Unsupported value: " + quote_json(policy) + ": supported values: \"Never\", \"PreemptLowerPriority\"",
                             "preemptionPolicy"});
  }
}

void priority_class_update(Errors& e, const json::object& pc, const json::object& old) {
  const json::value* v = pc.if_contains("value");
  const json::value* ov = old.if_contains("value");
  if ((v == nullptr) != (ov == nullptr) || (v && *v != *ov))
    e.causes.push_back(Cause{"FieldValueForbidden", "Forbidden: may not be changed in an update.", "value"});
  std::string policy(rules::sv(pc, "preemptionPolicy"));
  if (policy != rules::sv(old, "preemptionPolicy"))
    e.causes.push_back(
        Cause{"FieldValueInvalid", "Invalid value: " + quote_json(policy) + ": field is immutable", "preemptionPolicy"});
}

}  // namespace ksched::apiserver::registry::scheduling
