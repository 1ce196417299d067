// The pod's own rules (pkg/apis/core/validation's ValidatePodCreate, ValidatePodUpdate and
// ValidatePodStatusUpdate beyond ValidatePodSpec), and the entry the kinds with a pod template use
// (pod_template.h). ValidatePodSpec itself is validation_pod.cpp.
#include <boost/json.hpp>
#include <cctype>

#include "apiserver/json_access.h"
#include "apiserver/registry/core/pod_rules.h"
#include "apiserver/registry/core/pod_template.h"

namespace ksched::apiserver {

namespace json = boost::json;

namespace registry::core {

namespace {

using rules::child;
using rules::Errors;
using rules::semantic;

// A line-per-difference rendering of two specs (upstream prints go-cmp's diff of the Go structs).
void diff_lines(const json::value& a, const json::value& b, const std::string& path, std::string& out) {
  if (a == b) return;
  if (a.is_object() && b.is_object()) {
    for (const auto& kv : a.get_object()) {
      static const json::value none;
      const json::value* other = b.get_object().if_contains(kv.key());
      diff_lines(kv.value(), other ? *other : none, path + "." + std::string(kv.key()), out);
    }
    for (const auto& kv : b.get_object())
      if (!a.get_object().contains(kv.key())) diff_lines(json::value(), kv.value(), path + "." + std::string(kv.key()), out);
    return;
  }
  if (a.is_array() && b.is_array() && a.get_array().size() == b.get_array().size()) {
    for (std::size_t i = 0; i < a.get_array().size(); ++i)
      diff_lines(a.get_array()[i], b.get_array()[i], path + "[" + std::to_string(i) + "]", out);
    return;
  }
  if (!a.is_null()) out.append("- ").append(path).append(": ").append(json::serialize(a)).append("\n");
  if (!b.is_null()) out.append("+ ").append(path).append(": ").append(json::serialize(b)).append("\n");
}

const json::array& member_array(const json::object& o, std::string_view k) {
  static const json::array empty;
  auto* v = o.if_contains(k);
  return v && v->is_array() ? v->get_array() : empty;
}

// ValidateContainerUpdates: the same number of containers, each with a clean image.
bool container_updates(const json::array& next, const json::array& prev, const std::string& path, Errors& e) {
  std::vector<Cause>& causes = e.causes;
  if (next.size() != prev.size()) {
    causes.push_back(Cause{"FieldValueForbidden", "Forbidden: pod updates may not add or remove containers", path});
    return false;
  }
  for (std::size_t i = 0; i < next.size(); ++i) {
    std::string image = next[i].is_object() ? str(next[i].get_object(), "image") : std::string();
    std::string field = path + "[" + std::to_string(i) + "].image";
    if (image.empty())
      causes.push_back(Cause{"FieldValueRequired", "Required value", field});
    else if (std::isspace(static_cast<unsigned char>(image.front())) || std::isspace(static_cast<unsigned char>(image.back())))
      e.invalid(field, json::serialize(json::value(image)), "must not have leading or trailing whitespace");
  }
  return true;
}

json::value without_seconds(const json::value& t) {
  if (!t.is_object()) return t;
  json::object o = t.get_object();
  o.erase("tolerationSeconds");
  return semantic(o);
}

}  // namespace

// ValidatePodUpdate's rules beyond ValidatePodSpec: what a spec write may change.
void validate_pod_update(Errors& e, const json::object& pod, const json::object& old) {
  std::vector<Cause>& causes = e.causes;
  const json::object& spec = member_or_empty(pod, "spec");
  const json::object& prev = member_or_empty(old, "spec");
  if (!container_updates(member_array(spec, "containers"), member_array(prev, "containers"), "spec.containers", e))
    return;
  if (!container_updates(member_array(spec, "initContainers"), member_array(prev, "initContainers"),
                         "spec.initContainers", e))
    return;
  // activeDeadlineSeconds: set from nil, or lowered.
  const json::value* ads = spec.if_contains("activeDeadlineSeconds");
  const json::value* old_ads = prev.if_contains("activeDeadlineSeconds");
  if (ads && ads->is_int64()) {
    std::int64_t v = ads->get_int64();
    if (v < 0 || v > 2147483647) {
      causes.push_back(Cause{"FieldValueInvalid", "Invalid value: " + std::to_string(v) + ": must be between 0 and 2147483647, inclusive",
                             "spec.activeDeadlineSeconds"});
      return;
    }
    if (old_ads && old_ads->is_int64() && old_ads->get_int64() < v) {
      causes.push_back(Cause{"FieldValueInvalid", "Invalid value: " + std::to_string(v) + ": must be less than or equal to previous value",
                             "spec.activeDeadlineSeconds"});
      return;
    }
  } else if (old_ads && old_ads->is_int64()) {
    causes.push_back(Cause{"FieldValueInvalid", "Invalid value: \"null\": must not update from a positive integer to nil value",
                           "spec.activeDeadlineSeconds"});
  }
  // Tolerations may only be added (an existing one may change its tolerationSeconds).
  const json::array& tols = member_array(spec, "tolerations");
  for (const auto& t : member_array(prev, "tolerations")) {
    bool kept = false;
    for (const auto& n : tols) kept = kept || without_seconds(n) == without_seconds(t);
    if (!kept) {
      causes.push_back(Cause{"FieldValueForbidden", "Forbidden: existing toleration can not be modified except its tolerationSeconds",
                             "spec.tolerations"});
      break;
    }
  }
  // Scheduling gates may only be removed.
  const json::array& old_gates = member_array(prev, "schedulingGates");
  for (const auto& g : member_array(spec, "schedulingGates")) {
    bool known = false;
    for (const auto& o : old_gates) known = known || semantic(o) == semantic(g);
    if (!known) {
      std::string name = g.is_object() ? str(g.get_object(), "name") : std::string();
      causes.push_back(Cause{"FieldValueForbidden", "Forbidden: only deletion is allowed, but found new scheduling gate '" + name + "'",
                             "spec.schedulingGates"});
    }
  }
  // Everything else must be unchanged: take the updatable fields from the old spec and compare.
  json::object munged = spec;
  for (const char* list : {"containers", "initContainers"}) {
    auto* cs = munged.if_contains(list);
    const json::array& olds = member_array(prev, list);
    if (!cs || !cs->is_array()) continue;
    for (std::size_t i = 0; i < cs->get_array().size() && i < olds.size(); ++i) {
      auto& c = cs->get_array()[i];
      if (!c.is_object() || !olds[i].is_object()) continue;
      if (auto* img = olds[i].get_object().if_contains("image"))
        c.get_object()["image"] = *img;
      else
        c.get_object().erase("image");
    }
  }
  for (const char* f : {"activeDeadlineSeconds", "schedulingGates", "tolerations"}) {
    if (auto* v = prev.if_contains(f))
      munged[f] = *v;
    else
      munged.erase(f);
  }
  const json::value* old_grace = prev.if_contains("terminationGracePeriodSeconds");
  const json::value* new_grace = munged.if_contains("terminationGracePeriodSeconds");
  if (old_grace && old_grace->is_int64() && old_grace->get_int64() < 0 && new_grace && new_grace->is_int64() &&
      new_grace->get_int64() == 1)
    munged["terminationGracePeriodSeconds"] = *old_grace;
  // A gated pod may gain node selector terms; the scheduler reads them once the gates are gone.
  if (!old_gates.empty()) {
    const json::object& old_sel = member_or_empty(prev, "nodeSelector");
    bool only_added = true;
    for (const auto& kv : old_sel) {
      auto* now = member_or_empty(spec, "nodeSelector").if_contains(kv.key());
      only_added = only_added && now && *now == kv.value();
    }
    if (only_added) {
      if (auto* v = prev.if_contains("nodeSelector"))
        munged["nodeSelector"] = *v;
      else
        munged.erase("nodeSelector");
    }
  }
  json::value a = semantic(prev), b = semantic(munged);
  if (a == b) return;
  std::string diff;
  diff_lines(a, b, "spec", diff);
  causes.push_back(Cause{"FieldValueForbidden",
                         "Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"
                         "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions "
                         "to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it "
                         "was previously negative)\n" + diff,
                         "spec"});
}

// ValidatePodCreate / ValidatePodUpdate's own part (the spec), for create and every update.
void validate_pod(Errors& e, const json::object& pod, bool create) {
  const json::object& spec = member_or_empty(pod, "spec");
  rules::pod_spec(e, spec, "spec", true);
  if (!create) return;
  if (const json::array* ec = rules::arr(spec, "ephemeralContainers"); ec && !ec->empty())
    e.forbidden("spec.ephemeralContainers", "cannot be set on create");
  if (const json::array* g = rules::arr(spec, "schedulingGates"); g && !g->empty() && !rules::sv(spec, "nodeName").empty())
    e.forbidden("spec.nodeName", "cannot be set until all schedulingGates have been cleared");
}

// ValidatePodStatusUpdate's rules beyond the metadata (a status write keeps the spec): condition
// types and observed generations, the nominated node, the immutable QoS class.
void validate_pod_status_update(Errors& e, const json::object& pod, const json::object& old) {
  const json::object& status = member_or_empty(pod, "status");
  const json::object& old_status = member_or_empty(old, "status");
  if (const json::array* cs = rules::arr(status, "conditions"))
    for (std::size_t i = 0; i < cs->size(); ++i) {
      if (!(*cs)[i].is_object()) continue;
      const json::object& c = (*cs)[i].get_object();
      std::string p = rules::index("status.conditions", i);
      if (auto g = rules::int_of(c, "observedGeneration"); g && *g < 0)
        e.invalid_int(child(p, "observedGeneration"), *g, "must be a non-negative integer");
      std::string_view type = rules::sv(c, "type");
      if (type == "PodScheduled" || type == "Ready" || type == "Initialized") continue;
      rules::each(e, rules::qualified_name(type), child(p, "Type"), type);
    }
  std::string_view nominated = rules::sv(status, "nominatedNodeName");
  std::string_view old_nominated = rules::sv(old_status, "nominatedNodeName");
  if (nominated != old_nominated && !nominated.empty())
    rules::each(e, rules::dns1123_subdomain(nominated), "status.nominatedNodeName", nominated);
  // ClearingNominatedNodeNameAfterBinding (beta, on in v1.35).
  if (!rules::sv(member_or_empty(old, "spec"), "nodeName").empty() && !nominated.empty() && nominated != old_nominated)
    e.forbidden("status.nominatedNodeName", "may not be set on pods that are already bound to a node");
  if (auto g = rules::int_of(status, "observedGeneration"); g && *g < 0)
    e.invalid_int("status.observedGeneration", *g, "must be a non-negative integer");
  if (rules::sv(status, "qosClass") != rules::sv(old_status, "qosClass"))
    e.invalid_str("status.qosClass", rules::sv(status, "qosClass"), "field is immutable");
}

}  // namespace registry::core

namespace {

using rules::child;
using rules::Errors;

// The pod template of a workload kind ("spec.template" or "template").
void pod_template(Errors& e, const json::object* tmpl, const std::string& path) {
  if (!tmpl) return;
  if (const json::object* spec = rules::obj(*tmpl, "spec")) rules::pod_spec(e, *spec, child(path, "spec"), false);
}

void replicas(Errors& e, const json::object& spec, const std::string& path) {
  if (auto n = rules::int_of(spec, "replicas"); n && *n < 0) e.invalid_int(path, *n, "must be greater than or equal to 0");
}

}  // namespace

void validate_pod_template(rules::Errors& e, const json::object* tmpl, const std::string& path) {
  pod_template(e, tmpl, path);
}
void validate_replicas(rules::Errors& e, const json::object& spec, const std::string& path) { replicas(e, spec, path); }

}  // namespace ksched::apiserver
