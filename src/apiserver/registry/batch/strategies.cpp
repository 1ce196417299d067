#include "apiserver/registry/batch/strategies.h"

#include <boost/json.hpp>
#include <string>

#include "apiserver/endpoints/table.h"
#include "apiserver/json_access.h"
#include "apiserver/timeutil.h"
#include "apiserver/registry/core/pod_template.h"

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

class JobStrategy final : public Strategy {
 public:
  void set_defaults(json::object& obj, const WriteContext&) const override {
    default_job(obj);
    default_pod_template(object_member(obj, "spec"), "template");
  }
  void prepare_for_create(json::object& obj, const WriteContext&) const override { prepare_job(obj); }
  void validate(rules::Errors& e, const json::object& obj, const WriteContext&) const override {
    if (const json::object* spec = rules::obj(obj, "spec"))
      validate_pod_template(e, rules::obj(*spec, "template"), "spec.template");
  }
  void validate_update(rules::Errors& e, const json::object& obj, const WriteContext& w) const override {
    validate(e, obj, w);
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

class CronJobStrategy final : public Strategy {
 public:
  void set_defaults(json::object& obj, const WriteContext&) const override {
    json::object* spec = object_member(obj, "spec");
    if (spec)
      if (auto* jt = object_member(*spec, "jobTemplate")) spec = object_member(*jt, "spec");
    default_pod_template(spec, "template");
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
