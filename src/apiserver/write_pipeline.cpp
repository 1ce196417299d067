#include "apiserver/write_pipeline.h"

#include <boost/json.hpp>
#include <cstdlib>

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

// PrepareForCreate of Jobs without a manual selector (generateSelector): the pods' labels name
// the Job and its UID, and the selector matches the UID.
void prepare_job(json::object& job) {
  auto& spec = ensure_object(job, "spec");
  if (auto* m = spec.if_contains("manualSelector"); m && m->is_bool() && m->get_bool()) return;
  auto& meta = ensure_object(job, "metadata");
  std::string name = str(meta, "name"), uid = str(meta, "uid");
  auto& tmeta = ensure_object(ensure_object(spec, "template"), "metadata");
  auto& labels = ensure_object(tmeta, "labels");
  for (const char* k : {"job-name", "batch.kubernetes.io/job-name"})
    if (!labels.contains(k)) labels[k] = name;
  for (const char* k : {"controller-uid", "batch.kubernetes.io/controller-uid"})
    if (!labels.contains(k)) labels[k] = uid;
  auto& match = ensure_object(ensure_object(spec, "selector"), "matchLabels");
  if (!match.contains("batch.kubernetes.io/controller-uid")) match["batch.kubernetes.io/controller-uid"] = uid;
}

// A DaemonSet's template generation (apps/v1 keeps it in an annotation): 1 at creation, one more
// each time an update changes the template.
void prepare_daemon_set(json::object& ds, const json::object* old) {
  constexpr std::string_view key = "deprecated.daemonset.template.generation";
  auto& annotations = ensure_object(ensure_object(ds, "metadata"), "annotations");
  if (!old) {
    annotations[key] = "1";
    return;
  }
  std::int64_t gen = 1;
  if (auto* m = object_member(*old, "metadata"))
    if (auto* a = object_member(*m, "annotations")) {
      auto v = str_view(*a, key);
      if (!v.empty()) gen = std::atoll(std::string(v).c_str());
    }
  const json::value* before = nullptr;
  const json::value* after = nullptr;
  if (auto* s = object_member(*old, "spec")) before = s->if_contains("template");
  if (auto* s = object_member(ds, "spec")) after = s->if_contains("template");
  bool changed = (before == nullptr) != (after == nullptr) || (before && after && *before != *after);
  annotations[key] = std::to_string(changed ? gen + 1 : gen);
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
  if (w.verb == WriteVerb::Create && r.group == "batch" && r.kind == "Job") prepare_job(obj);
  if (r.group == "apps" && r.kind == "DaemonSet" && w.subresource.empty())
    prepare_daemon_set(obj, w.verb == WriteVerb::Create ? nullptr : w.old);
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
