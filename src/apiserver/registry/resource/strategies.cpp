#include "apiserver/registry/resource/strategies.h"

#include <boost/json.hpp>
#include <algorithm>
#include <cctype>

#include "api/resource.h"
#include "apiserver/json_access.h"
#include "apiserver/registry/resource/validation.h"
#include "apiserver/timeutil.h"
#include "util/go_format.h"

namespace ksched::apiserver::registry::resource {

namespace json = boost::json;

namespace {

// ---------------------------------------------------------------- shared steps

// SetDefaults for the toleration operator (+default="Equal").
void default_tolerations(json::object& o) {
  each_object(array_member(o, "tolerations"), [](json::object& t) {
    auto* op = t.if_contains("operator");
    if (!op || op->is_null() || (op->is_string() && op->get_string().empty())) t["operator"] = "Equal";
  });
}

// SetDefaults_ExactDeviceRequest / SetDefaults_DeviceSubRequest.
void default_request_body(json::object& r) {
  auto* mode = r.if_contains("allocationMode");
  if (!mode || mode->is_null() || (mode->is_string() && mode->get_string().empty())) r["allocationMode"] = "ExactCount";
  const json::value& m = r["allocationMode"];
  auto* count = r.if_contains("count");
  bool zero = !count || count->is_null() || (count->is_int64() && count->get_int64() == 0) ||
              (count->is_uint64() && count->get_uint64() == 0);
  if (m.is_string() && m.get_string() == "ExactCount" && zero) r["count"] = 1;
  default_tolerations(r);
}

void default_claim_spec(json::object* spec) {
  if (!spec) return;
  json::object* devices = object_member(*spec, "devices");
  if (!devices) return;
  each_object(array_member(*devices, "requests"), [](json::object& r) {
    if (json::object* exactly = object_member(r, "exactly")) default_request_body(*exactly);
    each_object(array_member(r, "firstAvailable"), [](json::object& s) { default_request_body(s); });
  });
}

// SetDefaults_DeviceTaint: a taint without a time was added now.
void default_taint(json::object& t, std::int64_t now) {
  auto* ta = t.if_contains("timeAdded");
  if (!ta || ta->is_null()) t["timeAdded"] = format_rfc3339(now);
}

// metav1.ResetObjectMetaForStatus: a status write keeps the stored labels, annotations,
// finalizers, owner references, deletion timestamp and generation.
void reset_meta_for_status(json::object& obj, const json::object& old) {
  const json::object* om = rules::obj(old, "metadata");
  json::object& m = ensure_object(obj, "metadata");
  for (const char* k :
       {"labels", "annotations", "finalizers", "ownerReferences", "deletionTimestamp", "generation", "selfLink"}) {
    if (om && om->contains(k))
      m[k] = om->at(k);
    else
      m.erase(k);
  }
}


// apimachineryvalidation.ValidateImmutableField over a spec (Semantic.DeepEqual).
void immutable_spec(Errors& e, const json::object& obj, const json::object& old, const Path& path,
                    std::string_view member_name) {
  json::value now = obj.contains(member_name) ? obj.at(member_name) : json::value(json::object());
  json::value was = old.contains(member_name) ? old.at(member_name) : json::value(json::object());
  if (rules::semantic(now) != rules::semantic(was)) e.invalid(path, json::serialize(now), "field is immutable");
}

// The labels of the write's namespace (AuthorizedForAdmin reads them); null when it has none.
const json::object* namespace_labels(const WriteContext& w, json::object& holder) {
  if (!w.store || w.ns.empty()) return nullptr;
  const ResourceInfo* nr = find_resource("", "v1", "namespaces");
  auto o = nr ? w.store->get(nr->id, "", w.ns) : nullptr;
  if (!o) return nullptr;
  json::value v = json::parse(o->json);
  if (!v.is_object()) return nullptr;
  holder = std::move(v.get_object());
  return rules::obj(member_or_empty(holder, "metadata"), "labels");
}

// ---------------------------------------------------------------- DeviceClass
class DeviceClassStrategy final : public Strategy {
 public:
  void validate(Errors& e, const json::object& obj, const WriteContext&) const override {
    device_class_spec(e, member_or_empty(obj, "spec"), nullptr, "spec");
  }
  void validate_update(Errors& e, const json::object& obj, const WriteContext& w) const override {
    device_class_spec(e, member_or_empty(obj, "spec"), &member_or_empty(*w.old, "spec"), "spec");
  }
};

// ---------------------------------------------------------------- ResourceClaim
class ResourceClaimStrategy final : public Strategy {
 public:
  void set_defaults(json::object& obj, const WriteContext&) const override {
    default_claim_spec(object_member(obj, "spec"));
    if (json::object* status = object_member(obj, "status"))
      if (json::object* allocation = object_member(*status, "allocation"))
        if (json::object* devices = object_member(*allocation, "devices"))
          each_object(array_member(*devices, "results"), [](json::object& r) { default_tolerations(r); });
  }
  void prepare_for_create(json::object& obj, const WriteContext&) const override {
    obj.erase("status");  // the status is the scheduler's and the drivers'
  }
  void prepare_for_status_update(json::object& obj, const WriteContext& w) const override {
    reset_meta_for_status(obj, *w.old);
    drop_deallocated_devices(obj, *w.old);
  }
  void validate(Errors& e, const json::object& obj, const WriteContext& w) const override {
    const json::object& spec = member_or_empty(obj, "spec");
    json::object ns;
    admin_access(e, rules::arr(member_or_empty(spec, "devices"), "requests"), Path("spec.devices.requests"),
                 [&] { return namespace_labels(w, ns); }, false);
    claim_spec(e, spec, "spec", false);
  }
  void validate_update(Errors& e, const json::object& obj, const WriteContext& w) const override {
    claim_spec(e, member_or_empty(obj, "spec"), "spec", false);
    immutable_spec(e, obj, *w.old, "spec", "spec");
  }
  void validate_status_update(Errors& e, const json::object& obj, const WriteContext& w) const override {
    auto results = [](const json::object& claim) {
      const json::object& a = member_or_empty(member_or_empty(claim, "status"), "allocation");
      return rules::arr(member_or_empty(a, "devices"), "results");
    };
    // Admin access granted before stays (the allocation is immutable).
    bool granted = false;
    if (const json::array* old = results(*w.old))
      for (const auto& r : *old) granted = granted || (r.is_object() && rules::bool_of(r.get_object(), "adminAccess"));
    if (!granted) {
      json::object ns;
      admin_access(e, results(obj), Path("status.allocation.devices.results"), [&] { return namespace_labels(w, ns); }, true);
    }
    claim_status_update(e, obj, *w.old);
  }
  std::vector<TableColumn> table_columns() const override {
    return {{"Name", "string", "name", 0}, {"State", "string", "", 0}, {"Age", "string", "", 0}};
  }
  json::array table_cells(const json::object& obj, std::int64_t now) const override {
    const json::object& meta = member_or_empty(obj, "metadata");
    const json::object& status = member_or_empty(obj, "status");
    bool deleted = rules::has(meta, "deletionTimestamp");
    std::string state;
    auto add = [&](const char* s) { state += (state.empty() ? "" : ",") + std::string(s); };
    if (deleted) add("deleted");
    if (!rules::obj(status, "allocation")) {
      if (!deleted) add("pending");
    } else {
      add("allocated");
      const json::array* reserved = rules::arr(status, "reservedFor");
      if (reserved && !reserved->empty()) add("reserved");
    }
    return json::array{rules::sv(meta, "name"), state, age(obj, now)};
  }

 private:
  // dropDeallocatedStatusDevices: device statuses of devices the allocation no longer has.
  static void drop_deallocated_devices(json::object& obj, const json::object& old) {
    auto ids = [](const json::object& claim) {
      std::vector<std::string> out;
      const json::object& a = member_or_empty(member_or_empty(claim, "status"), "allocation");
      if (const json::array* rs = rules::arr(member_or_empty(a, "devices"), "results"))
        for (const auto& r : *rs)
          if (r.is_object()) {
            const json::object& o = r.get_object();
            out.push_back(std::string(rules::sv(o, "driver")) + "/" + std::string(rules::sv(o, "pool")) + "/" +
                          std::string(rules::sv(o, "device")));
          }
      return out;
    };
    std::vector<std::string> before = ids(old), after = ids(obj);
    json::object* status = object_member(obj, "status");
    json::array* devices = status ? array_member(*status, "devices") : nullptr;
    if (!devices) return;
    json::array kept;
    for (auto& d : *devices) {
      if (!d.is_object()) continue;
      const json::object& o = d.get_object();
      std::string id = std::string(rules::sv(o, "driver")) + "/" + std::string(rules::sv(o, "pool")) + "/" +
                       std::string(rules::sv(o, "device"));
      bool gone = std::find(before.begin(), before.end(), id) != before.end() &&
                  std::find(after.begin(), after.end(), id) == after.end();
      if (!gone) kept.push_back(std::move(d));
    }
    if (kept.empty())
      status->erase("devices");
    else
      (*status)["devices"] = std::move(kept);
  }
};

// ---------------------------------------------------------------- ResourceClaimTemplate
class ResourceClaimTemplateStrategy final : public Strategy {
 public:
  void set_defaults(json::object& obj, const WriteContext&) const override {
    if (json::object* spec = object_member(obj, "spec")) default_claim_spec(object_member(*spec, "spec"));
  }
  void validate(Errors& e, const json::object& obj, const WriteContext& w) const override {
    const json::object& spec = member_or_empty(obj, "spec");
    json::object ns;
    admin_access(e, rules::arr(member_or_empty(member_or_empty(spec, "spec"), "devices"), "requests"),
                 Path("spec.spec.devices.requests"), [&] { return namespace_labels(w, ns); }, false);
    claim_template_spec(e, spec, "spec");
  }
  void validate_update(Errors& e, const json::object& obj, const WriteContext& w) const override {
    claim_template_spec(e, member_or_empty(obj, "spec"), "spec");
    immutable_spec(e, obj, *w.old, "spec", "spec");
  }
};

// ---------------------------------------------------------------- ResourceSlice
class ResourceSliceStrategy final : public Strategy {
 public:
  void set_defaults(json::object& obj, const WriteContext& w) const override {
    json::object* spec = object_member(obj, "spec");
    if (!spec) return;
    each_object(array_member(*spec, "devices"), [&](json::object& d) {
      each_object(array_member(d, "taints"), [&](json::object& t) { default_taint(t, w.now_unix); });
    });
  }
  void validate(Errors& e, const json::object& obj, const WriteContext&) const override {
    slice_spec(e, member_or_empty(obj, "spec"), nullptr, "spec");
  }
  void validate_update(Errors& e, const json::object& obj, const WriteContext& w) const override {
    slice_spec(e, member_or_empty(obj, "spec"), &member_or_empty(*w.old, "spec"), "spec");
  }
  void warnings(const json::object& obj, const WriteContext&, std::vector<std::string>& out) const override {
    std::string_view driver = rules::sv(member_or_empty(obj, "spec"), "driver");
    bool upper = false;
    for (char c : driver) upper = upper || std::isupper(static_cast<unsigned char>(c));
    if (upper)
      out.push_back("spec.driver: driver names should be lowercase; " + util::go_quote(driver) +
                    " contains uppercase characters");
  }
  std::vector<TableColumn> table_columns() const override {
    return {{"Name", "string", "name", 0},
            {"Node", "string", "", 0},
            {"Driver", "string", "", 0},
            {"Pool", "string", "", 0},
            {"Age", "string", "", 0}};
  }
  json::array table_cells(const json::object& obj, std::int64_t now) const override {
    const json::object& spec = member_or_empty(obj, "spec");
    const json::value* node = spec.if_contains("nodeName");
    return json::array{rules::sv(member_or_empty(obj, "metadata"), "name"),
                       node && node->is_string() ? *node : json::value(nullptr), rules::sv(spec, "driver"),
                       rules::sv(member_or_empty(spec, "pool"), "name"), age(obj, now)};
  }
};

// ---------------------------------------------------------------- DeviceTaintRule (v1beta2)
class DeviceTaintRuleStrategy final : public Strategy {
 public:
  void set_defaults(json::object& obj, const WriteContext& w) const override {
    if (json::object* spec = object_member(obj, "spec"))
      if (json::object* taint = object_member(*spec, "taint")) default_taint(*taint, w.now_unix);
  }
  void prepare_for_create(json::object& obj, const WriteContext&) const override { obj.erase("status"); }
  void prepare_for_update(json::object& obj, const WriteContext& w) const override {
    // The time tracks when the *effect* was added: a changed effect whose time the client left
    // as it was gets the write's time.
    json::object* spec = object_member(obj, "spec");
    json::object* taint = spec ? object_member(*spec, "taint") : nullptr;
    const json::object& old_taint = member_or_empty(member_or_empty(*w.old, "spec"), "taint");
    if (!taint || rules::sv(*taint, "effect") == rules::sv(old_taint, "effect")) return;
    const json::value* now = taint->if_contains("timeAdded");
    const json::value* was = old_taint.if_contains("timeAdded");
    bool same = (now == nullptr || now->is_null()) ? (was == nullptr || was->is_null()) : (was && *was == *now);
    if (same) (*taint)["timeAdded"] = format_rfc3339(w.now_unix);
  }
  void prepare_for_status_update(json::object& obj, const WriteContext& w) const override {
    reset_meta_for_status(obj, *w.old);
  }
  void validate(Errors& e, const json::object& obj, const WriteContext&) const override {
    taint_rule_spec(e, member_or_empty(obj, "spec"), nullptr, "spec");
  }
  void validate_update(Errors& e, const json::object& obj, const WriteContext& w) const override {
    taint_rule_spec(e, member_or_empty(obj, "spec"), &member_or_empty(*w.old, "spec"), "spec");
  }
  void validate_status_update(Errors& e, const json::object& obj, const WriteContext&) const override {
    const json::array* cs = rules::arr(member_or_empty(obj, "status"), "conditions");
    if (!cs) return;
    conditions(e, *cs, Path("status.conditions"), 0);
    if (cs->size() > api::resourcev1::kDeviceTaintRuleStatusMaxConditions)
      e.causes.push_back(Cause{"FieldValueTooMany",
                               "Too many: " + std::to_string(cs->size()) + ": must have at most " +
                                   std::to_string(api::resourcev1::kDeviceTaintRuleStatusMaxConditions) + " items",
                               "status.conditions"});
  }
};

}  // namespace

const Strategy* strategy(std::string_view version, std::string_view plural) {
  static const DeviceClassStrategy device_classes;
  static const ResourceClaimStrategy claims;
  static const ResourceClaimTemplateStrategy templates;
  static const ResourceSliceStrategy slices;
  static const DeviceTaintRuleStrategy taint_rules;
  if (version == "v1") {
    if (plural == "deviceclasses") return &device_classes;
    if (plural == "resourceclaims") return &claims;
    if (plural == "resourceclaimtemplates") return &templates;
    if (plural == "resourceslices") return &slices;
  }
  if (version == "v1beta2" && plural == "devicetaintrules") return &taint_rules;
  return nullptr;
}

}  // namespace ksched::apiserver::registry::resource
