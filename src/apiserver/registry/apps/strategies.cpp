#include "apiserver/registry/apps/strategies.h"

#include <boost/json.hpp>
#include <cstdlib>
#include <string>

#include "apiserver/json_access.h"
#include "apiserver/registry/core/pod_template.h"

namespace ksched::apiserver::registry::apps {

namespace json = boost::json;

namespace {


// An integer member as the table printer reads it: the value when it is an int64, else `dflt`.
std::int64_t int_or(const json::object& o, std::string_view k, std::int64_t dflt = 0) {
  const json::value* v = o.if_contains(k);
  return v && v->is_int64() ? v->get_int64() : dflt;
}

// SetDefaults_Deployment, _ReplicaSet, _StatefulSet, _DaemonSet (apps/v1): what the controllers and
// `kubectl rollout` read as set.
void default_apps(std::string_view kind, json::object& spec) {
  if (kind == "Deployment" || kind == "ReplicaSet" || kind == "StatefulSet") set_default(spec, "replicas", 1);
  if (kind == "Deployment") {
    auto& strategy = ensure_object(spec, "strategy");
    set_default(strategy, "type", "RollingUpdate");
    if (str_view(strategy, "type") == "RollingUpdate") {
      auto& ru = ensure_object(strategy, "rollingUpdate");
      set_default(ru, "maxUnavailable", "25%");
      set_default(ru, "maxSurge", "25%");
    }
    set_default(spec, "revisionHistoryLimit", 10);
    set_default(spec, "progressDeadlineSeconds", 600);
  } else if (kind == "DaemonSet") {
    auto& strategy = ensure_object(spec, "updateStrategy");
    set_default(strategy, "type", "RollingUpdate");
    if (str_view(strategy, "type") == "RollingUpdate") {
      auto& ru = ensure_object(strategy, "rollingUpdate");
      set_default(ru, "maxUnavailable", 1);
      set_default(ru, "maxSurge", 0);
    }
    set_default(spec, "revisionHistoryLimit", 10);
  } else if (kind == "StatefulSet") {
    set_default(spec, "podManagementPolicy", "OrderedReady");
    auto& strategy = ensure_object(spec, "updateStrategy");
    if (str_view(strategy, "type").empty()) {
      strategy["type"] = "RollingUpdate";
      ensure_object(strategy, "rollingUpdate");
    }
    if (str_view(strategy, "type") == "RollingUpdate")
      if (auto* ru = object_member(strategy, "rollingUpdate")) set_default(*ru, "partition", 0);
    auto& retention = ensure_object(spec, "persistentVolumeClaimRetentionPolicy");
    set_default(retention, "whenDeleted", "Retain");
    set_default(retention, "whenScaled", "Retain");
    set_default(spec, "revisionHistoryLimit", 10);
  }
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

// The four kinds share their rules but for the defaults, the replicas (a DaemonSet has none), the
// DaemonSet's template generation and the table.
class WorkloadStrategy : public Strategy {
 public:
  explicit WorkloadStrategy(std::string_view kind) : kind_(kind) {}
  void set_defaults(json::object& obj, const WriteContext&) const override {
    if (auto* spec = object_member(obj, "spec")) default_apps(kind_, *spec);
    default_pod_template(object_member(obj, "spec"), "template");
  }
  void validate(rules::Errors& e, const json::object& obj, const WriteContext&) const override {
    const json::object& spec = member_or_empty(obj, "spec");
    if (kind_ != "DaemonSet") validate_replicas(e, spec, "spec.replicas");
    validate_pod_template(e, rules::obj(spec, "template"), "spec.template");
  }
  void validate_update(rules::Errors& e, const json::object& obj, const WriteContext& w) const override {
    validate(e, obj, w);
  }
  // A status write keeps the spec; of its rules only the replicas are checked again.
  void validate_status_update(rules::Errors& e, const json::object& obj, const WriteContext&) const override {
    if (kind_ != "DaemonSet") validate_replicas(e, member_or_empty(obj, "spec"), "spec.replicas");
  }

 protected:
  static std::string name(const json::object& obj) { return std::string(rules::sv(member_or_empty(obj, "metadata"), "name")); }
  std::string_view kind_;
};

// The tables: upstream's printers' columns, the wide ones left out.
class DeploymentStrategy final : public WorkloadStrategy {
 public:
  DeploymentStrategy() : WorkloadStrategy("Deployment") {}
  std::vector<TableColumn> table_columns() const override {
    return {{"Name", "string", "name", 0}, {"Ready", "string", "", 0}, {"Up-to-date", "integer", "", 0},
            {"Available", "integer", "", 0}, {"Age", "string", "", 0}};
  }
  json::array table_cells(const json::object& obj, std::int64_t now) const override {
    const json::object& status = member_or_empty(obj, "status");
    std::int64_t want = int_or(member_or_empty(obj, "spec"), "replicas", 1);
    return json::array{name(obj), std::to_string(int_or(status, "readyReplicas")) + "/" + std::to_string(want),
                       int_or(status, "updatedReplicas"), int_or(status, "availableReplicas"), age(obj, now)};
  }
};

class ReplicaSetStrategy final : public WorkloadStrategy {
 public:
  ReplicaSetStrategy() : WorkloadStrategy("ReplicaSet") {}
  std::vector<TableColumn> table_columns() const override {
    return {{"Name", "string", "name", 0}, {"Desired", "integer", "", 0}, {"Current", "integer", "", 0},
            {"Ready", "integer", "", 0}, {"Age", "string", "", 0}};
  }
  json::array table_cells(const json::object& obj, std::int64_t now) const override {
    const json::object& status = member_or_empty(obj, "status");
    return json::array{name(obj), int_or(member_or_empty(obj, "spec"), "replicas", 1), int_or(status, "replicas"),
                       int_or(status, "readyReplicas"), age(obj, now)};
  }
};

class StatefulSetStrategy final : public WorkloadStrategy {
 public:
  StatefulSetStrategy() : WorkloadStrategy("StatefulSet") {}
  std::vector<TableColumn> table_columns() const override {
    return {{"Name", "string", "name", 0}, {"Ready", "string", "", 0}, {"Age", "string", "", 0}};
  }
  json::array table_cells(const json::object& obj, std::int64_t now) const override {
    std::int64_t want = int_or(member_or_empty(obj, "spec"), "replicas", 1);
    return json::array{name(obj),
                       std::to_string(int_or(member_or_empty(obj, "status"), "readyReplicas")) + "/" + std::to_string(want),
                       age(obj, now)};
  }
};

class DaemonSetStrategy final : public WorkloadStrategy {
 public:
  DaemonSetStrategy() : WorkloadStrategy("DaemonSet") {}
  void prepare_for_create(json::object& obj, const WriteContext&) const override { prepare_daemon_set(obj, nullptr); }
  void prepare_for_update(json::object& obj, const WriteContext& w) const override { prepare_daemon_set(obj, w.old); }
  std::vector<TableColumn> table_columns() const override {
    return {{"Name", "string", "name", 0},      {"Desired", "integer", "", 0},    {"Current", "integer", "", 0},
            {"Ready", "integer", "", 0},        {"Up-to-date", "integer", "", 0}, {"Available", "integer", "", 0},
            {"Node Selector", "string", "", 0}, {"Age", "string", "", 0}};
  }
  json::array table_cells(const json::object& obj, std::int64_t now) const override {
    std::string selector;
    const json::object& tspec = member_or_empty(member_or_empty(member_or_empty(obj, "spec"), "template"), "spec");
    if (const json::object* ns = rules::obj(tspec, "nodeSelector"))
      for (const auto& kv : *ns)
        selector += (selector.empty() ? "" : ",") + std::string(kv.key()) + "=" +
                    (kv.value().is_string() ? std::string(kv.value().get_string()) : std::string());
    const json::object& status = member_or_empty(obj, "status");
    return json::array{name(obj),
                       int_or(status, "desiredNumberScheduled"),
                       int_or(status, "currentNumberScheduled"),
                       int_or(status, "numberReady"),
                       int_or(status, "updatedNumberScheduled"),
                       int_or(status, "numberAvailable"),
                       selector.empty() ? "<none>" : selector,
                       age(obj, now)};
  }
};

}  // namespace

const Strategy* strategy(std::string_view version, std::string_view plural) {
  static const DeploymentStrategy deployments;
  static const ReplicaSetStrategy replica_sets;
  static const StatefulSetStrategy stateful_sets;
  static const DaemonSetStrategy daemon_sets;
  if (version != "v1") return nullptr;
  if (plural == "deployments") return &deployments;
  if (plural == "replicasets") return &replica_sets;
  if (plural == "statefulsets") return &stateful_sets;
  if (plural == "daemonsets") return &daemon_sets;
  return nullptr;
}

}  // namespace ksched::apiserver::registry::apps
