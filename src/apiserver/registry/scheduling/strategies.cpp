#include "apiserver/registry/scheduling/strategies.h"

#include <boost/json.hpp>

#include "apiserver/json_access.h"
#include "apiserver/registry/scheduling/validation.h"

namespace ksched::apiserver::registry::scheduling {

namespace json = boost::json;

namespace {


// ---------------------------------------------------------------- PriorityClass (v1)
// pkg/registry/scheduling/priorityclass/strategy.go: no status; value and preemptionPolicy are
// immutable. (The Priority admission plugin's part, one global default, is admission.cpp's.)
class PriorityClassStrategy final : public Strategy {
 public:
  // SetDefaults_PriorityClass.
  void set_defaults(json::object& obj, const WriteContext&) const override {
    set_default(obj, "preemptionPolicy", "PreemptLowerPriority");
  }
  void validate(Errors& e, const json::object& obj, const WriteContext&) const override { priority_class(e, obj); }
  void validate_update(Errors& e, const json::object& obj, const WriteContext& w) const override {
    priority_class(e, obj);
    priority_class_update(e, obj, *w.old);
  }
  std::vector<TableColumn> table_columns() const override {
    return {{"Name", "string", "name", 0}, {"Value", "integer", "", 0}, {"Global-Default", "boolean", "", 0},
            {"Age", "string", "", 0}};
  }
  json::array table_cells(const json::object& obj, std::int64_t now) const override {
    const json::value* v = obj.if_contains("value");
    const json::value* g = obj.if_contains("globalDefault");
    return json::array{rules::sv(member_or_empty(obj, "metadata"), "name"), v ? *v : json::value(0),
                       g && g->is_bool() ? g->get_bool() : false, age(obj, now)};
  }
};

// ---------------------------------------------------------------- Workload (v1alpha1)
// Served beside v1beta1 and stored as v1beta1 (conversion.h); a write through v1alpha1 is
// validated by v1alpha1's rules against the stored object converted to v1alpha1. No defaults, nothing the server owns (no status, no generation in v1.35), the table's default
// Name and Age columns (v1.35's printers have no Workload handler).
class WorkloadStrategy final : public Strategy {
 public:
  void validate(Errors& e, const json::object& obj, const WriteContext&) const override {
    workload_spec(e, member_or_empty(obj, "spec"), "spec");
  }
  void validate_update(Errors& e, const json::object& obj, const WriteContext& w) const override {
    workload_spec(e, member_or_empty(obj, "spec"), "spec");
    workload_spec_update(e, member_or_empty(obj, "spec"), member_or_empty(*w.old, "spec"));
  }
};

// ---------------------------------------------------------------- Workload (v1beta1)
// v1.37's pkg/registry/scheduling/workload/strategy.go: no defaults, no status, no generation;
// dropDisabledWorkloadFields drops a template's schedulingConstraints
// (TopologyAwareWorkloadScheduling) and resourceClaims (DRAWorkloadResourceClaims) while their
// gate is off, unless the stored Workload uses them. The default Name and Age columns.
class WorkloadV1beta1Strategy final : public Strategy {
 public:
  void prepare_for_create(json::object& obj, const WriteContext& w) const override { drop_disabled(obj, w); }
  void prepare_for_update(json::object& obj, const WriteContext& w) const override { drop_disabled(obj, w); }
  void validate(Errors& e, const json::object& obj, const WriteContext& w) const override {
    workload_v1beta1_spec(e, member_or_empty(obj, "spec"), "spec", w.gates.PodGroupPreemptionPolicy,
                          w.gates.CompositePodGroup);
  }
  // With the gate off, a stored Workload's composite templates stay allowed (the forbidden rule
  // ratchets an unchanged field; the list is immutable anyway).
  void validate_update(Errors& e, const json::object& obj, const WriteContext& w) const override {
    const json::object& old_spec = member_or_empty(*w.old, "spec");
    const json::array* stored = rules::arr(old_spec, "compositePodGroupTemplates");
    workload_v1beta1_spec(e, member_or_empty(obj, "spec"), "spec", w.gates.PodGroupPreemptionPolicy,
                          w.gates.CompositePodGroup || (stored && !stored->empty()));
    workload_v1beta1_spec_update(e, member_or_empty(obj, "spec"), old_spec, "spec");
  }

 private:
  // Whether any template of the spec has member `k` (upstream's "in use" check on the old object).
  static bool in_use(const json::object* spec, const char* k) {
    const json::array* ts = spec ? rules::arr(*spec, "podGroupTemplates") : nullptr;
    if (!ts) return false;
    for (const auto& t : *ts)
      if (t.is_object() && rules::has(t.get_object(), k)) return true;
    return false;
  }
  static void drop_disabled(json::object& obj, const WriteContext& w) {
    json::object* spec = object_member(obj, "spec");
    if (!spec) return;
    json::value* ts = spec->if_contains("podGroupTemplates");
    if (!ts || !ts->is_array()) return;
    const json::object* old_spec = w.old ? rules::obj(*w.old, "spec") : nullptr;
    for (const char* k : {"schedulingConstraints", "resourceClaims"}) {
      if (std::string_view(k) == "schedulingConstraints" && w.gates.TopologyAwareWorkloadScheduling) continue;
      if (std::string_view(k) == "resourceClaims" && w.gates.DRAWorkloadResourceClaims) continue;
      if (in_use(old_spec, k)) continue;
      for (auto& t : ts->get_array())
        if (t.is_object()) t.get_object().erase(k);
    }
  }
};

// ---------------------------------------------------------------- PodGroup (v1beta1)
// v1.37's pkg/registry/scheduling/podgroup/strategy.go: the status is the scheduler's (cleared on
// create, kept on update; a status write keeps the spec and metadata); no generation; gated
// fields of gates that are off are dropped unless the stored object has them
// (schedulingConstraints: TopologyAwareWorkloadScheduling; resourceClaims and
// status.resourceClaimStatuses: DRAWorkloadResourceClaims). A status write's
// resourceClaimStatuses must name entries of spec.resourceClaims. The table has the default
// columns.
class PodGroupStrategy final : public Strategy {
 public:
  // +default={"single": {}} on spec.disruptionMode.
  void set_defaults(json::object& obj, const WriteContext&) const override {
    if (json::object* spec = object_member(obj, "spec")) set_default(*spec, "disruptionMode", json::object{{"single", json::object()}});
  }
  void prepare_for_create(json::object& obj, const WriteContext& w) const override {
    obj.erase("status");
    drop_disabled(obj, w);
  }
  void prepare_for_update(json::object& obj, const WriteContext& w) const override { drop_disabled(obj, w); }
  void prepare_for_status_update(json::object& obj, const WriteContext& w) const override {
    reset_meta_for_status(obj, *w.old);
    // dropDisabledStatusFields: kept with the gate, or when the stored object uses the feature.
    if (json::object* status = object_member(obj, "status"))
      if (!w.gates.DRAWorkloadResourceClaims && !rules::has(member_or_empty(*w.old, "status"), "resourceClaimStatuses") &&
          !rules::has(member_or_empty(*w.old, "spec"), "resourceClaims"))
        status->erase("resourceClaimStatuses");
  }
  void validate(Errors& e, const json::object& obj, const WriteContext& w) const override {
    pod_group_spec(e, member_or_empty(obj, "spec"), "spec", w.gates.PodGroupPreemptionPolicy);
  }
  void validate_update(Errors& e, const json::object& obj, const WriteContext& w) const override {
    pod_group_spec(e, member_or_empty(obj, "spec"), "spec", w.gates.PodGroupPreemptionPolicy);
    pod_group_spec_update(e, member_or_empty(obj, "spec"), member_or_empty(*w.old, "spec"), "spec");
  }
  void validate_status_update(Errors& e, const json::object& obj, const WriteContext&) const override {
    pod_group_status(e, member_or_empty(obj, "status"), "status", &member_or_empty(obj, "spec"));
  }

 private:
  static void drop_disabled(json::object& obj, const WriteContext& w) {
    json::object* spec = object_member(obj, "spec");
    if (!spec) return;
    const json::object* old_spec = w.old ? rules::obj(*w.old, "spec") : nullptr;
    for (const char* k : {"schedulingConstraints", "resourceClaims", "parentCompositePodGroupName"}) {
      if (std::string_view(k) == "schedulingConstraints" && w.gates.TopologyAwareWorkloadScheduling) continue;
      if (std::string_view(k) == "resourceClaims" && w.gates.DRAWorkloadResourceClaims) continue;
      if (std::string_view(k) == "parentCompositePodGroupName" && w.gates.CompositePodGroup) continue;
      if (!old_spec || !rules::has(*old_spec, k)) spec->erase(k);
    }
  }

 public:
  // metav1.ResetObjectMetaForStatus.
  static void reset_meta_for_status(json::object& obj, const json::object& old) {
    const json::object* om = rules::obj(old, "metadata");
    json::object* m = object_member(obj, "metadata");
    if (!m) return;
    for (const char* k :
         {"labels", "annotations", "finalizers", "ownerReferences", "deletionTimestamp", "generation", "selfLink"}) {
      if (om && om->contains(k))
        (*m)[k] = om->at(k);
      else
        m->erase(k);
    }
  }
};

// ---------------------------------------------------------------- CompositePodGroup (v1alpha3)
// v1.37's pkg/registry/scheduling/compositepodgroup/strategy.go: the status is the scheduler's
// (cleared on create, kept on update; a status write keeps spec and metadata); no generation;
// schedulingConstraints dropped unless TopologyAwareWorkloadScheduling is on or the stored object
// has it (upstream also drops disruptionMode, priorityClassName and priority without
// WorkloadAwarePreemption, a v1.36 gate v1.37 folded into GenericWorkload, which serving needs; and
// parentCompositePodGroupName without CompositePodGroup, which serving needs too). The default
// table columns.
class CompositePodGroupStrategy final : public Strategy {
 public:
  // +default={"single": {}} on spec.disruptionMode.
  void set_defaults(json::object& obj, const WriteContext&) const override {
    if (json::object* spec = object_member(obj, "spec")) set_default(*spec, "disruptionMode", json::object{{"single", json::object()}});
  }
  void prepare_for_create(json::object& obj, const WriteContext& w) const override {
    obj.erase("status");
    drop_disabled(obj, w);
  }
  void prepare_for_update(json::object& obj, const WriteContext& w) const override { drop_disabled(obj, w); }
  void prepare_for_status_update(json::object& obj, const WriteContext& w) const override {
    PodGroupStrategy::reset_meta_for_status(obj, *w.old);
  }
  void validate(Errors& e, const json::object& obj, const WriteContext& w) const override {
    composite_pod_group_spec(e, member_or_empty(obj, "spec"), "spec", w.gates.PodGroupPreemptionPolicy);
  }
  void validate_update(Errors& e, const json::object& obj, const WriteContext& w) const override {
    composite_pod_group_spec(e, member_or_empty(obj, "spec"), "spec", w.gates.PodGroupPreemptionPolicy);
    composite_pod_group_spec_update(e, member_or_empty(obj, "spec"), member_or_empty(*w.old, "spec"), "spec");
  }
  void validate_status_update(Errors& e, const json::object& obj, const WriteContext&) const override {
    pod_group_status(e, member_or_empty(obj, "status"), "status");
  }

 private:
  static void drop_disabled(json::object& obj, const WriteContext& w) {
    json::object* spec = object_member(obj, "spec");
    if (!spec || w.gates.TopologyAwareWorkloadScheduling) return;
    const json::object* old_spec = w.old ? rules::obj(*w.old, "spec") : nullptr;
    if (!old_spec || !rules::has(*old_spec, "schedulingConstraints")) spec->erase("schedulingConstraints");
  }
};

}  // namespace

const Strategy* strategy(std::string_view version, std::string_view plural) {
  static const PriorityClassStrategy priority_classes;
  static const WorkloadStrategy workloads;
  static const PodGroupStrategy pod_groups;
  static const WorkloadV1beta1Strategy workloads_v1beta1;
  if (version == "v1" && plural == "priorityclasses") return &priority_classes;
  if (version == "v1alpha1" && plural == "workloads") return &workloads;
  if (version == "v1beta1" && plural == "podgroups") return &pod_groups;
  if (version == "v1beta1" && plural == "workloads") return &workloads_v1beta1;
  static const CompositePodGroupStrategy composite_pod_groups;
  if (version == "v1alpha3" && plural == "compositepodgroups") return &composite_pod_groups;
  return nullptr;
}

}  // namespace ksched::apiserver::registry::scheduling
