#include "apiserver/write_pipeline.h"

#include <boost/json.hpp>

#include "apiserver/defaults.h"
#include "apiserver/json_access.h"
#include "apiserver/quantities.h"
#include "apiserver/type_check.h"
#include "apiserver/validation.h"

namespace ksched::apiserver {

namespace json = boost::json;

namespace {

// QoS class from requests/limits (upstream GetPodQOS, simplified to cpu/memory).
std::string qos_class(const json::object& spec) {
  auto* cs = spec.if_contains("containers");
  if (!cs || !cs->is_array()) return "BestEffort";
  bool any = false, guaranteed = true;
  for (const auto& c : cs->get_array()) {
    if (!c.is_object()) continue;
    auto* res = c.get_object().if_contains("resources");
    const json::object* req = nullptr;
    const json::object* lim = nullptr;
    if (res && res->is_object()) {
      if (auto* r = res->get_object().if_contains("requests"); r && r->is_object()) req = &r->get_object();
      if (auto* l = res->get_object().if_contains("limits"); l && l->is_object()) lim = &l->get_object();
    }
    if ((req && !req->empty()) || (lim && !lim->empty())) any = true;
    for (const char* rn : {"cpu", "memory"}) {
      const json::value* l = lim ? lim->if_contains(rn) : nullptr;
      const json::value* q = req ? req->if_contains(rn) : nullptr;
      if (!l || (q && *q != *l)) guaranteed = false;
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

// PrepareForCreate of pods: the status is the server's (Pending, the QoS class, and the
// SchedulingGated condition while gates remain).
void reset_pod_status(json::object& pod) {
  auto& spec = ensure_object(pod, "spec");
  json::object status{{"phase", "Pending"}, {"qosClass", qos_class(spec)}};
  if (auto* g = spec.if_contains("schedulingGates"); g && g->is_array() && !g->get_array().empty()) {
    status["conditions"] = json::array{json::object{{"type", "PodScheduled"},
                                                    {"status", "False"},
                                                    {"lastProbeTime", nullptr},
                                                    {"lastTransitionTime", nullptr},
                                                    {"reason", "SchedulingGated"},
                                                    {"message", "Scheduling is blocked due to non-empty scheduling gates"}}};
  }
  pod["status"] = std::move(status);
}

// PrepareForCreate of namespaces: the kubernetes finalizer, phase Active, the name label.
void prepare_namespace(json::object& ns) {
  ns["spec"] = json::object{{"finalizers", json::array{"kubernetes"}}};
  ns["status"] = json::object{{"phase", "Active"}};
  auto& meta = ensure_object(ns, "metadata");
  auto& labels = ensure_object(meta, "labels");
  if (auto* n = meta.if_contains("name"); n && n->is_string()) labels["kubernetes.io/metadata.name"] = *n;
}

}  // namespace

std::optional<ApiError> run_write_pipeline(const WriteRequest& w, json::object& obj, const Store& store) {
  const ResourceInfo& r = w.resource;
  auto undecodable = [&](const std::string& why) {
    return bad_request(r.kind + " in version \"" + r.version + "\" cannot be handled as a " + r.kind + ": " + why);
  };
  if (auto err = check_field_types(r, obj)) return undecodable(*err);
  if (auto err = canonicalize_quantities(r, obj)) return undecodable(*err);
  apply_defaults(r, obj);
  // Admission plugins ignore subresources (status writes), as upstream's do.
  if (w.subresource.empty())
    if (auto e = admit_mutating(r, w.verb, w.ns, obj, w.old, store)) return e;
  if (w.verb == WriteVerb::Create && r.group.empty()) {
    if (r.kind == "Pod") reset_pod_status(obj);
    if (r.kind == "Namespace") prepare_namespace(obj);
  }
  std::optional<ApiError> invalid_err;
  if (w.verb == WriteVerb::Create)
    invalid_err = validate_object(r, obj, true);
  else if (w.subresource.empty() && w.old)
    invalid_err = validate_update(r, obj, *w.old);
  else
    invalid_err = validate_object(r, obj, false);
  if (invalid_err) return invalid_err;
  if (w.subresource.empty()) return admit_validating(r, w.verb, obj, store);
  return std::nullopt;
}

}  // namespace ksched::apiserver
