#include "apiserver/registry/batch/strategies.h"

#include <algorithm>
#include <boost/json.hpp>
#include <string>
#include <vector>

#include "apiserver/endpoints/table.h"
#include "apiserver/json_access.h"
#include "apiserver/timeutil.h"
#include "apiserver/registry/core/pod_template.h"
#include "util/go_format.h"

namespace ksched::apiserver::registry::batch {

namespace json = boost::json;

namespace {


// SetDefaults_Job (batch/v1).
void default_job(json::object& job) {
  auto& spec = ensure_object(job, "spec");
  auto absent = [&](std::string_view k) { return !spec.contains(k) || spec.at(k).is_null(); };
  if (absent("completions") && absent("parallelism")) {
    spec["completions"] = 1;
    spec["parallelism"] = 1;
  }
  set_default(spec, "parallelism", 1);
  set_default(spec, "backoffLimit", absent("backoffLimitPerIndex") ? 6 : 2147483647);
  auto& meta = ensure_object(job, "metadata");
  if (auto* t = object_member(spec, "template"))
    if (auto* tm = object_member(*t, "metadata"))
      if (auto* labels = object_member(*tm, "labels"); labels && !labels->empty()) {
        auto* own = object_member(meta, "labels");
        if (!own || own->empty()) meta["labels"] = *labels;
      }
  set_default(spec, "completionMode", "NonIndexed");
  set_default(spec, "suspend", false);
  set_default(spec, "podReplacementPolicy", absent("podFailurePolicy") ? "TerminatingOrFailed" : "Failed");
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

// ---------------------------------------------------------------- spec.scheduling
// JobSchedulingConfiguration (k8s.io/api batch/v1, v1.37, gate WorkloadWithJob), made of
// scheduling/v1alpha3's WorkloadPodGroup* blocks. Its rules are declarative-validation tags
// (+k8s:...), so the messages are k8s.io/apimachinery/pkg/api/validate's: a union with no member
// "must specify one of: `a`, `b`", with several "must specify exactly one of: ...", +k8s:minimum
// "must be greater than or equal to N", +k8s:maxItems "must have at most N items", +k8s:immutable
// "field is immutable", +k8s:update=NoSet/NoUnset "field cannot be set once created" / "field
// cannot be cleared once set" (the last three render the value as null).

// DropDisabledFields (pkg/api/job): spec.scheduling goes while the gate is off, unless the stored
// Job (`old`, null on create) has it.
void drop_disabled_job_fields(json::object* spec, const json::object* old_spec, const FeatureGates& gates) {
  if (!spec || gates.WorkloadWithJob) return;
  if (old_spec && rules::has(*old_spec, "scheduling")) return;
  spec->erase("scheduling");
}

// validate.Union over members that are set when present and not null.
bool union_of(rules::Errors& e, const json::object& o, std::initializer_list<std::string_view> members,
              const rules::Path& path) {
  std::string all, set;
  std::size_t n = 0;
  for (std::string_view m : members) {
    std::string quoted = "`" + std::string(m) + "`";
    all += (all.empty() ? "" : ", ") + quoted;
    if (rules::has(o, m)) {
      set += (set.empty() ? "" : ", ") + quoted;
      ++n;
    }
  }
  if (n == 0) e.invalid_str(path, "", "must specify one of: " + all);
  if (n > 1) e.invalid_str(path, "{" + set + "}", "must specify exactly one of: " + all);
  return n == 1;
}

void too_many(rules::Errors& e, const rules::Path& path, std::size_t n, std::size_t max) {
  e.causes.push_back(Cause{"FieldValueTooMany",
                           "Too many: " + std::to_string(n) + ": must have at most " + std::to_string(max) +
                               (max == 1 ? " item" : " items"),
                           path.str()});
}

// A string member with +k8s:format: checked when set (and, with `required`, "" is missing).
void formatted(rules::Errors& e, const json::object& o, std::string_view k,
               std::vector<std::string> (*format)(std::string_view), bool required, const rules::Path& path) {
  const json::value* v = o.if_contains(k);
  if (!v || v->is_null()) {
    if (required) e.required(path);
    return;
  }
  if (!v->is_string()) return;  // the type check answers a value of another type
  std::string_view s = v->get_string();
  if (s.empty() && required) {
    e.required(path);
    return;
  }
  rules::each(e, format(s), path, s);
}

void validate_job_scheduling(rules::Errors& e, const json::object& sched, const rules::Path& path) {
  if (const json::object* policy = rules::obj(sched, "schedulingPolicy")) {
    const rules::Path pp = path.child("schedulingPolicy");
    union_of(e, *policy, {"basic", "gang"}, pp);
    if (const json::object* gang = rules::obj(*policy, "gang"))
      if (auto min_count = rules::int_of(*gang, "minCount"); min_count && *min_count < 1) {
        const rules::Path gp = pp.child("gang");
        e.invalid_int(gp.child("minCount"), *min_count, "must be greater than or equal to 1");
      }
  }
  if (const json::object* sc = rules::obj(sched, "schedulingConstraints")) {
    const rules::Path cp = path.child("schedulingConstraints");
    const rules::Path tp = cp.child("topology");
    if (const json::array* topology = rules::arr(*sc, "topology")) {
      if (topology->size() > 1) {
        too_many(e, tp, topology->size(), 1);
      } else {
        for (std::size_t i = 0; i < topology->size(); ++i) {
          const rules::Path ip = tp.index(i);
          if ((*topology)[i].is_object())
            formatted(e, (*topology)[i].get_object(), "key", rules::qualified_name, true, ip.child("key"));
        }
      }
    }
  }
  if (const json::object* mode = rules::obj(sched, "disruptionMode"))
    union_of(e, *mode, {"single", "all"}, path.child("disruptionMode"));
  if (const json::array* claims = rules::arr(sched, "resourceClaims")) {
    const rules::Path cp = path.child("resourceClaims");
    if (claims->size() > 4) {
      too_many(e, cp, claims->size(), 4);
      return;
    }
    std::vector<std::string_view> names;
    for (std::size_t i = 0; i < claims->size(); ++i) {
      if (!(*claims)[i].is_object()) continue;
      const json::object& claim = (*claims)[i].get_object();
      const rules::Path ip = cp.index(i);
      formatted(e, claim, "name", rules::dns1123_label, true, ip.child("name"));
      // +listType=map, +listMapKey=name: a name once.
      std::string_view name = rules::sv(claim, "name");
      if (std::find(names.begin(), names.end(), name) != names.end()) e.duplicate(ip.child("name"), util::go_quote(name));
      names.push_back(name);
      union_of(e, claim, {"resourceClaimName", "resourceClaimTemplateName"}, ip);
      formatted(e, claim, "resourceClaimName", rules::dns1123_subdomain, false, ip.child("resourceClaimName"));
      formatted(e, claim, "resourceClaimTemplateName", rules::dns1123_subdomain, false,
                ip.child("resourceClaimTemplateName"));
    }
  }
}

// A value as the Go struct holds it: null members dropped, empty objects kept (a pointer to an
// empty struct, {all: {}}, is not nil; rules::semantic would make {single: {}} equal {all: {}}).
json::value go_value(const json::value& v) {
  if (v.is_array()) {
    json::array out;
    for (const auto& x : v.get_array()) out.push_back(go_value(x));
    return out;
  }
  if (!v.is_object()) return v;
  json::object out;
  for (const auto& kv : v.get_object())
    if (!kv.value().is_null()) out.emplace(kv.key(), go_value(kv.value()));
  return out;
}

// Whether member `k` differs (the immutable rules' equality): null and absent are the same.
bool changed(const json::object& now, const json::object& was, std::string_view k) {
  const json::value* a = now.if_contains(k);
  const json::value* b = was.if_contains(k);
  const bool has_a = a && !a->is_null(), has_b = b && !b->is_null();
  if (has_a != has_b) return true;
  return has_a && go_value(*a) != go_value(*b);
}

// spec.scheduling is set or not for good (+k8s:update=NoSet, NoUnset); inside it only
// schedulingPolicy.gang.minCount may change (the policy NoSet/NoUnset, its variant frozen by
// hand-written validation; the other members +k8s:immutable).
void validate_job_scheduling_update(rules::Errors& e, const json::object& spec, const json::object& old_spec) {
  const rules::Path path("spec.scheduling");
  const bool now = rules::has(spec, "scheduling"), was = rules::has(old_spec, "scheduling");
  if (now && !was) e.invalid(path, "null", "field cannot be set once created");
  if (!now && was) e.invalid(path, "null", "field cannot be cleared once set");
  if (!now || !was) return;
  const json::object& s = member_or_empty(spec, "scheduling");
  const json::object& o = member_or_empty(old_spec, "scheduling");
  const rules::Path pp = path.child("schedulingPolicy");
  const bool policy = rules::has(s, "schedulingPolicy"), old_policy = rules::has(o, "schedulingPolicy");
  if (policy && !old_policy) e.invalid(pp, "null", "field cannot be set once created");
  if (!policy && old_policy) e.invalid(pp, "null", "field cannot be cleared once set");
  if (policy && old_policy) {
    const json::object& p = member_or_empty(s, "schedulingPolicy");
    const json::object& op = member_or_empty(o, "schedulingPolicy");
    for (const char* variant : {"basic", "gang"})
      if (rules::has(p, variant) != rules::has(op, variant)) e.invalid(pp.child(variant), "null", "field is immutable");
  }
  for (const char* k : {"schedulingConstraints", "disruptionMode", "resourceClaims"})
    if (changed(s, o, k)) e.invalid(path.child(k), "null", "field is immutable");
}

class JobStrategy final : public Strategy {
 public:
  void set_defaults(json::object& obj, const WriteContext&) const override {
    default_job(obj);
    default_pod_template(object_member(obj, "spec"), "template");
  }
  void prepare_for_create(json::object& obj, const WriteContext& w) const override {
    prepare_job(obj);
    drop_disabled_job_fields(object_member(obj, "spec"), nullptr, w.gates);
  }
  void prepare_for_update(json::object& obj, const WriteContext& w) const override {
    drop_disabled_job_fields(object_member(obj, "spec"), w.old ? object_member(*w.old, "spec") : nullptr, w.gates);
  }
  void validate(rules::Errors& e, const json::object& obj, const WriteContext&) const override {
    if (const json::object* spec = rules::obj(obj, "spec")) {
      validate_pod_template(e, rules::obj(*spec, "template"), "spec.template");
      if (const json::object* sched = rules::obj(*spec, "scheduling"))
        validate_job_scheduling(e, *sched, "spec.scheduling");
    }
  }
  void validate_update(rules::Errors& e, const json::object& obj, const WriteContext& w) const override {
    validate(e, obj, w);
    if (w.old)
      validate_job_scheduling_update(e, member_or_empty(obj, "spec"), member_or_empty(*w.old, "spec"));
  }
  std::vector<TableColumn> table_columns() const override {
    return {{"Name", "string", "name", 0}, {"Status", "string", "", 0}, {"Completions", "string", "", 0},
            {"Duration", "string", "", 0}, {"Age", "string", "", 0}};
  }
  json::array table_cells(const json::object& obj, std::int64_t now) const override {
    const json::object& meta = member_or_empty(obj, "metadata");
    const json::object& spec = member_or_empty(obj, "spec");
    const json::object& status = member_or_empty(obj, "status");
    auto has = [&](std::string_view type) {
      if (const json::array* cs = rules::arr(status, "conditions"))
        for (const auto& c : *cs)
          if (c.is_object() && rules::sv(c.get_object(), "type") == type && rules::sv(c.get_object(), "status") == "True")
            return true;
      return false;
    };
    std::string state = has("Complete") ? "Complete"
                        : has("Failed") ? "Failed"
                        : meta.contains("deletionTimestamp") ? "Terminating"
                        : has("Suspended") ? "Suspended"
                        : has("FailureTarget") ? "FailureTarget"
                        : has("SuccessCriteriaMet") ? "SuccessCriteriaMet"
                                                    : "Running";
    const json::value* s = status.if_contains("succeeded");
    std::string succeeded = std::to_string(s && s->is_int64() ? s->get_int64() : 0);
    const json::value* completions = spec.if_contains("completions");
    const json::value* parallelism = spec.if_contains("parallelism");
    std::string done;
    if (completions && completions->is_int64())
      done = succeeded + "/" + std::to_string(completions->get_int64());
    else if (parallelism && parallelism->is_int64() && parallelism->get_int64() > 1)
      done = succeeded + "/1 of " + std::to_string(parallelism->get_int64());
    else
      done = succeeded + "/1";
    std::string duration;
    auto start = parse_rfc3339(rules::sv(status, "startTime"));
    auto end = parse_rfc3339(rules::sv(status, "completionTime"));
    if (start) duration = human_age((end ? *end : now) - *start);
    return json::array{rules::sv(meta, "name"), state, done, duration, age(obj, now)};
  }
};

// A CronJob's spec.jobTemplate.spec, or null.
json::object* job_template_spec(json::object& cron_job) {
  json::object* spec = object_member(cron_job, "spec");
  json::object* jt = spec ? object_member(*spec, "jobTemplate") : nullptr;
  return jt ? object_member(*jt, "spec") : nullptr;
}
const json::object* job_template_spec(const json::object& cron_job) {
  return job_template_spec(const_cast<json::object&>(cron_job));
}

class CronJobStrategy final : public Strategy {
 public:
  void set_defaults(json::object& obj, const WriteContext&) const override {
    json::object* spec = object_member(obj, "spec");
    if (spec)
      if (auto* jt = object_member(*spec, "jobTemplate")) spec = object_member(*jt, "spec");
    default_pod_template(spec, "template");
  }
  // DropDisabledFields is shared with the Job's strategy: the template's spec.scheduling too.
  void prepare_for_create(json::object& obj, const WriteContext& w) const override {
    drop_disabled_job_fields(job_template_spec(obj), nullptr, w.gates);
  }
  void prepare_for_update(json::object& obj, const WriteContext& w) const override {
    drop_disabled_job_fields(job_template_spec(obj), w.old ? job_template_spec(*w.old) : nullptr, w.gates);
  }
  void validate(rules::Errors& e, const json::object& obj, const WriteContext&) const override {
    const json::object* spec = rules::obj(obj, "spec");
    if (spec) spec = rules::obj(member_or_empty(*spec, "jobTemplate"), "spec");
    if (spec) validate_pod_template(e, rules::obj(*spec, "template"), "spec.jobTemplate.spec.template");
  }
  void validate_update(rules::Errors& e, const json::object& obj, const WriteContext& w) const override {
    validate(e, obj, w);
  }
};

}  // namespace

const Strategy* strategy(std::string_view version, std::string_view plural) {
  static const JobStrategy jobs;
  static const CronJobStrategy cron_jobs;
  if (version != "v1") return nullptr;
  if (plural == "jobs") return &jobs;
  if (plural == "cronjobs") return &cron_jobs;
  return nullptr;
}

}  // namespace ksched::apiserver::registry::batch
