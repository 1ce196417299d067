#include "apiserver/registry/scheduling/strategies.h"

#include <boost/json.hpp>

#include "apiserver/registry/scheduling/validation.h"

namespace ksched::apiserver::registry::scheduling {

namespace json = boost::json;

namespace {

const json::object& member_or_empty(const json::object& o, std::string_view k) {
  static const json::object empty;
  const json::object* m = rules::obj(o, k);
  return m ? *m : empty;
}

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
  static const WorkloadStrategy workloads;
  if (version == "v1alpha1" && plural == "workloads") return &workloads;
  return nullptr;
}

}  // namespace ksched::apiserver::registry::scheduling
