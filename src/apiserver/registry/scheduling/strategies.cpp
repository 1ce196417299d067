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
// No defaults, nothing the server owns (no status, no generation in v1.35), the table's default
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

}  // namespace

const Strategy* strategy(std::string_view version, std::string_view plural) {
  static const PriorityClassStrategy priority_classes;
  static const WorkloadStrategy workloads;
  if (version == "v1" && plural == "priorityclasses") return &priority_classes;
  if (version == "v1alpha1" && plural == "workloads") return &workloads;
  return nullptr;
}

}  // namespace ksched::apiserver::registry::scheduling
