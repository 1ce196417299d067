#include "apiserver/registry/core/pod_strategy.h"

#include <map>
#include <string>
#include <optional>
#include <vector>

#include "api/quantity.h"
#include "apiserver/json_access.h"
#include "apiserver/registry/core/pod_rules.h"
#include "apiserver/registry/core/strategies.h"
#include "apiserver/timeutil.h"

namespace ksched::apiserver {

namespace json = boost::json;

namespace {

// cpu and memory summed over resource lists (upstream's processResourceList keeps a map; only these
// two names count for QoS, so two optional sums do without allocating).
struct QosTotals {
  std::optional<api::Quantity> cpu, memory;
  bool empty() const { return !cpu && !memory; }
  std::size_t size() const { return (cpu ? 1 : 0) + (memory ? 1 : 0); }
};

struct QosSeen {
  bool cpu = false, memory = false;
  bool both() const { return cpu && memory; }
};

// processResourceList: cpu and memory above zero, summed into `totals`; returns the names seen.
QosSeen add_qos_resources(QosTotals& totals, const json::object* list) {
  QosSeen seen;
  if (!list) return seen;
  for (const auto& kv : *list) {
    std::string_view name = kv.key();
    const bool is_cpu = name == "cpu";
    if (!is_cpu && name != "memory") continue;
    if (!kv.value().is_string()) continue;
    auto q = api::Quantity::parse(kv.value().get_string());
    if (!q || q->sign() <= 0) continue;
    (is_cpu ? seen.cpu : seen.memory) = true;
    std::optional<api::Quantity>& total = is_cpu ? totals.cpu : totals.memory;
    if (total)
      *total += *q;
    else
      total = *q;
  }
  return seen;
}

const json::object* resources_member(const json::object& o, std::string_view which) {
  const json::object* res = object_member(o, "resources");
  return res ? object_member(*res, which) : nullptr;
}

// applyLabelKeysToLabelSelector: `key In (value)` / `key NotIn (value)` for each key the pod has.
void merge_label_keys(json::object& term, std::string_view keys_member, std::string_view op,
                      const json::object* labels) {
  const json::array* keys = array_member(term, keys_member);
  if (!keys || keys->empty() || !labels) return;
  json::object* selector = object_member(term, "labelSelector");
  if (!selector) return;  // a nil selector matches nothing: left alone
  json::array added;
  for (const auto& k : *keys) {
    if (!k.is_string()) continue;
    const json::value* v = labels->if_contains(k.get_string());
    if (!v || !v->is_string()) continue;
    added.push_back(json::object{{"key", k}, {"operator", op}, {"values", json::array{*v}}});
  }
  if (added.empty()) return;
  auto& exprs = (*selector)["matchExpressions"];
  if (!exprs.is_array()) exprs = json::array();
  for (auto& e : added) exprs.get_array().push_back(std::move(e));
}

void merge_affinity_terms(json::object* affinity, const json::object* labels) {
  if (!affinity) return;
  for (const char* kind : {"podAffinity", "podAntiAffinity"}) {
    json::object* a = object_member(*affinity, kind);
    if (!a) continue;
    auto each_term = [&](json::object& term) {
      // Only terms that use the keys and have a selector are touched (applyMatchLabelKeysAndMismatchLabelKeys).
      merge_label_keys(term, "matchLabelKeys", "In", labels);
      merge_label_keys(term, "mismatchLabelKeys", "NotIn", labels);
    };
    if (json::array* pref = array_member(*a, "preferredDuringSchedulingIgnoredDuringExecution"))
      for (auto& w : *pref)
        if (w.is_object())
          if (json::object* t = object_member(w.get_object(), "podAffinityTerm")) each_term(*t);
    if (json::array* req = array_member(*a, "requiredDuringSchedulingIgnoredDuringExecution"))
      for (auto& t : *req)
        if (t.is_object()) each_term(t.get_object());
  }
}

bool uses_stop_signal(const json::object& spec) {
  for (const char* list : {"containers", "initContainers", "ephemeralContainers"})
    if (const json::array* cs = array_member(spec, list))
      for (const auto& c : *cs)
        if (c.is_object())
          if (const json::object* lc = object_member(c.get_object(), "lifecycle"); lc && lc->contains("stopSignal"))
            return true;
  return false;
}

// DropDisabledPodFields for the gates of v1.35 that are off: a field stays when the stored pod
// (`old`) uses it already.
void drop_disabled_pod_fields(json::object& pod, const json::object* old, const FeatureGates& gates) {
  json::object* spec = object_member(pod, "spec");
  if (!spec) return;
  const json::object* old_spec = old ? object_member(*old, "spec") : nullptr;
  auto old_has = [&](std::string_view k) { return old_spec && old_spec->contains(k); };
  if (!gates.PodLevelResources && !old_has("resources")) spec->erase("resources");
  if (!gates.GenericWorkload && !old_has("workloadRef")) spec->erase("workloadRef");
  if (!gates.GenericWorkload && !old_has("schedulingGroup")) spec->erase("schedulingGroup");
  if (!gates.ContainerStopSignals && !(old_spec && uses_stop_signal(*old_spec)))
    for (const char* list : {"containers", "initContainers", "ephemeralContainers"})
      if (json::array* cs = array_member(*spec, list))
        for (auto& c : *cs)
          if (c.is_object())
            if (json::object* lc = object_member(c.get_object(), "lifecycle")) lc->erase("stopSignal");
}

std::int64_t int_member(const json::object& o, std::string_view k) {
  const json::value* v = o.if_contains(k);
  return v && v->is_int64() ? v->get_int64() : 0;
}

}  // namespace

std::string compute_pod_qos(const json::object& spec, const FeatureGates& gates) {
  QosTotals requests, limits;
  bool guaranteed = true;
  const json::object* pod_level = object_member(spec, "resources");
  if (gates.PodLevelResources && pod_level) {
    add_qos_resources(requests, object_member(*pod_level, "requests"));
    const json::object* pl = object_member(*pod_level, "limits");
    if (pl && !pl->empty() && !add_qos_resources(limits, pl).both()) guaranteed = false;
  } else {
    // Ephemeral containers cannot define resources: containers and init containers only.
    for (const char* list : {"containers", "initContainers"}) {
      const json::array* cs = array_member(spec, list);
      if (!cs) continue;
      for (const auto& v : *cs) {
        if (!v.is_object()) continue;
        add_qos_resources(requests, resources_member(v.get_object(), "requests"));
        if (!add_qos_resources(limits, resources_member(v.get_object(), "limits")).both()) guaranteed = false;
      }
    }
  }
  if (requests.empty() && limits.empty()) return "BestEffort";
  // Guaranteed: every request has an equal limit, and the same names are limited as requested.
  auto same = [](const std::optional<api::Quantity>& req, const std::optional<api::Quantity>& lim) {
    return !req || (lim && *lim == *req);
  };
  if (guaranteed && !(same(requests.cpu, limits.cpu) && same(requests.memory, limits.memory))) guaranteed = false;
  return guaranteed && requests.size() == limits.size() ? "Guaranteed" : "Burstable";
}

void prepare_pod_create(json::object& pod, const FeatureGates& gates, std::int64_t now_unix) {
  auto& spec = ensure_object(pod, "spec");
  std::string qos;
  if (const json::object* st = object_member(pod, "status")) qos = str(*st, "qosClass");
  if (qos.empty()) qos = compute_pod_qos(spec, gates);
  pod["status"] = json::object{{"phase", "Pending"}, {"qosClass", qos}};
  drop_disabled_pod_fields(pod, nullptr, gates);
  json::object& spec_after = ensure_object(pod, "spec");
  if (const json::array* g = array_member(spec_after, "schedulingGates"); g && !g->empty())
    ensure_object(pod, "status")["conditions"] =
        json::array{json::object{{"type", "PodScheduled"},
                                 {"status", "False"},
                                 {"lastProbeTime", nullptr},
                                 {"lastTransitionTime", format_rfc3339(now_unix)},
                                 {"reason", "SchedulingGated"},
                                 {"message", "Scheduling is blocked due to non-empty scheduling gates"}}};
  const json::object* meta = object_member(pod, "metadata");
  const json::object* labels = meta ? object_member(*meta, "labels") : nullptr;
  json::object& s = ensure_object(pod, "spec");
  // MatchLabelKeysInPodAffinity (GA since v1.33).
  merge_affinity_terms(object_member(s, "affinity"), labels);
  if (gates.MatchLabelKeysInPodTopologySpread && gates.MatchLabelKeysInPodTopologySpreadSelectorMerge)
    if (json::array* tsc = array_member(s, "topologySpreadConstraints"))
      for (auto& c : *tsc)
        if (c.is_object()) merge_label_keys(c.get_object(), "matchLabelKeys", "In", labels);
}

void prepare_pod_update(json::object& pod, const json::object& old, const FeatureGates& gates) {
  drop_disabled_pod_fields(pod, &old, gates);
}

void prepare_pod_status_update(json::object& pod, const json::object& old) {
  auto& meta = ensure_object(pod, "metadata");
  if (const json::object* om = object_member(old, "metadata"); om && om->contains("ownerReferences"))
    meta["ownerReferences"] = om->at("ownerReferences");
  else
    meta.erase("ownerReferences");
  const json::object* old_status = object_member(old, "status");
  if (!old_status) return;
  auto& status = ensure_object(pod, "status");
  if (str_view(status, "qosClass").empty() && !str_view(*old_status, "qosClass").empty())
    status["qosClass"] = old_status->at("qosClass");
  if (int_member(status, "observedGeneration") == 0 && int_member(*old_status, "observedGeneration") != 0)
    status["observedGeneration"] = old_status->at("observedGeneration");
  // Conditions may repeat a type: the stored generations of a type are taken in order.
  std::map<std::string, std::vector<std::int64_t>, std::less<>> by_type;
  if (const json::array* oc = array_member(*old_status, "conditions"))
    for (const auto& c : *oc)
      if (c.is_object()) by_type[str(c.get_object(), "type")].push_back(int_member(c.get_object(), "observedGeneration"));
  std::map<std::string, std::size_t, std::less<>> used;
  if (json::array* nc = array_member(status, "conditions"))
    for (auto& c : *nc) {
      if (!c.is_object()) continue;
      json::object& cond = c.get_object();
      std::string type = str(cond, "type");
      std::int64_t old_gen = 0;
      if (auto it = by_type.find(type); it != by_type.end()) {
        std::size_t& i = used[type];
        if (i < it->second.size()) old_gen = it->second[i++];
      }
      if (int_member(cond, "observedGeneration") == 0 && old_gen != 0) cond["observedGeneration"] = old_gen;
    }
}

json::object topology_labels(const json::object& node) {
  json::object out;
  const json::object* meta = object_member(node, "metadata");
  const json::object* labels = meta ? object_member(*meta, "labels") : nullptr;
  if (!labels) return out;
  for (const char* k : {"topology.kubernetes.io/zone", "topology.kubernetes.io/region"})
    if (const json::value* v = labels->if_contains(k); v && v->is_string()) out[k] = *v;
  return out;
}

namespace registry::core {

namespace {

using rules::Errors;

// pkg/registry/core/pod/strategy.go: podStrategy and podStatusStrategy. A write to another pod
// subresource than status (none goes through the pipeline today) gets the defaults and nothing
// else, as before.
class PodStrategy final : public Strategy {
 public:
  void set_defaults(json::object& obj, const WriteContext& w) const override { default_pod(obj, w.gates); }
  void prepare_for_create(json::object& obj, const WriteContext& w) const override {
    prepare_pod_create(obj, w.gates, w.now_unix);
  }
  void prepare_for_update(json::object& obj, const WriteContext& w) const override {
    prepare_pod_update(obj, *w.old, w.gates);
  }
  void prepare_for_status_update(json::object& obj, const WriteContext& w) const override {
    prepare_pod_status_update(obj, *w.old);
  }
  void validate(Errors& e, const json::object& obj, const WriteContext&) const override {
    validate_pod(e, obj, true);
  }
  void validate_update(Errors& e, const json::object& obj, const WriteContext& w) const override {
    if (!w.subresource.empty()) return;
    validate_pod(e, obj, false);
    validate_pod_update(e, obj, *w.old);
  }
  void validate_status_update(Errors& e, const json::object& obj, const WriteContext& w) const override {
    const json::object& spec = member_or_empty(obj, "spec");
    rules::pod_resource_claim_statuses(e, rules::arr(member_or_empty(obj, "status"), "resourceClaimStatuses"),
                                       rules::arr(spec, "resourceClaims"), rules::Path("status.resourceClaimStatuses"));
    validate_pod_status_update(e, obj, *w.old);
  }
  // kubectl's pod columns (pkg/printers/internalversion: printPod, without its per-container reasons).
  std::vector<TableColumn> table_columns() const override {
    return {{"Name", "string", "name", 0},        {"Ready", "string", "", 0},          {"Status", "string", "", 0},
            {"Restarts", "string", "", 0},        {"Age", "string", "", 0},            {"IP", "string", "", 1},
            {"Node", "string", "", 1},            {"Nominated Node", "string", "", 1}, {"Readiness Gates", "string", "", 1}};
  }
  json::array table_cells(const json::object& obj, std::int64_t now) const override {
    const json::object& meta = member_or_empty(obj, "metadata");
    const json::object& spec = member_or_empty(obj, "spec");
    const json::object& status = member_or_empty(obj, "status");
    std::int64_t total = 0, ready = 0, restarts = 0;
    if (const json::array* cs = array_member(spec, "containers")) total = static_cast<std::int64_t>(cs->size());
    if (const json::array* st = array_member(status, "containerStatuses"))
      for (const auto& c : *st) {
        if (!c.is_object()) continue;
        if (const json::value* rd = c.get_object().if_contains("ready"); rd && rd->is_bool() && rd->get_bool()) ++ready;
        if (const json::value* rc = c.get_object().if_contains("restartCount"); rc && rc->is_int64())
          restarts += rc->get_int64();
      }
    std::string phase = cell_text(status.if_contains("reason"), cell_text(status.if_contains("phase")));
    if (const json::value* dt = meta.if_contains("deletionTimestamp"); dt && !dt->is_null()) phase = "Terminating";
    return json::array{cell_text(meta.if_contains("name")),
                       std::to_string(ready) + "/" + std::to_string(total),
                       phase,
                       std::to_string(restarts),
                       age(obj, now),
                       cell_text(status.if_contains("podIP"), "<none>"),
                       cell_text(spec.if_contains("nodeName"), "<none>"),
                       cell_text(status.if_contains("nominatedNodeName"), "<none>"),
                       "<none>"};
  }
};

}  // namespace

const Strategy& pod_strategy() {
  static const PodStrategy s;
  return s;
}

}  // namespace registry::core

}  // namespace ksched::apiserver
