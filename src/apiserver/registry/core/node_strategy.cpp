// pkg/registry/core/node/strategy.go: a node's defaults (SetDefaults_Node, SetDefaults_NodeStatus),
// the fields of disabled gates dropped on every write, and ValidateNode on every write, its
// status included (ValidateNodeUpdate checks what ValidateNode does for the fields we serve).
#include <algorithm>
#include <boost/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "apiserver/json_access.h"
#include "apiserver/registry/core/strategies.h"
#include "apiserver/write/validation_rules.h"
#include "util/go_format.h"

namespace ksched::apiserver::registry::core {

namespace json = boost::json;

namespace {

using rules::child;
using rules::Errors;

// A node always has a spec and a status; the status' daemonEndpoints and nodeInfo are structs
// upstream always serialises, and allocatable defaults to capacity (SetDefaults_NodeStatus).
void default_node(json::object& node) {
  ensure_object(node, "spec");
  auto& status = ensure_object(node, "status");
  auto& de = ensure_object(status, "daemonEndpoints");
  auto& ke = ensure_object(de, "kubeletEndpoint");
  set_default(ke, "Port", 0);
  auto& info = ensure_object(status, "nodeInfo");
  for (const char* f : {"machineID", "systemUUID", "bootID", "kernelVersion", "osImage", "containerRuntimeVersion",
                        "kubeletVersion", "kubeProxyVersion", "operatingSystem", "architecture"})
    set_default(info, f, "");
  if (auto* cap = object_member(status, "capacity"); cap && !status.contains("allocatable")) {
    json::object copy = *cap;  // copied first: inserting allocatable may move the members
    status["allocatable"] = std::move(copy);
  }
}

// dropDisabledFields of the node strategies: status.declaredFeatures needs NodeDeclaredFeatures
// (alpha, off in v1.35) unless the stored node (`old`, null on create) has them already.
void drop_disabled_node_fields(json::object& node, const json::object* old, const FeatureGates& gates) {
  if (gates.NodeDeclaredFeatures) return;
  if (old)
    if (const json::object* os = object_member(*old, "status"))
      if (const json::array* df = array_member(*os, "declaredFeatures"); df && !df->empty()) return;
  if (json::object* status = object_member(node, "status")) status->erase("declaredFeatures");
}

// ValidateNode / ValidateNodeUpdate: taints (upstream words their path "metadata.taints"), and
// every capacity and allocatable quantity.
void validate_node(Errors& e, const json::object& node) {
  const json::object& spec = member_or_empty(node, "spec");
  if (const json::array* taints = rules::arr(spec, "taints")) {
    std::vector<std::pair<std::string_view, std::string_view>> seen;  // (effect, key)
    for (std::size_t i = 0; i < taints->size(); ++i) {
      if (!(*taints)[i].is_object()) continue;
      const json::object& t = (*taints)[i].get_object();
      std::string p = rules::index("metadata.taints", i);
      std::string_view key = rules::sv(t, "key"), value = rules::sv(t, "value"), effect = rules::sv(t, "effect");
      rules::each(e, rules::qualified_name(key), child(p, "key"), key);
      std::vector<std::string> verrs = rules::label_value(value);
      if (!verrs.empty()) {
        std::string joined;
        for (const auto& m : verrs) joined.append(joined.empty() ? "" : ";").append(m);
        e.invalid_str(child(p, "value"), value, joined);
      }
      rules::taint_effect(e, effect, false, child(p, "effect"));
      if (std::find(seen.begin(), seen.end(), std::pair{effect, key}) != seen.end()) {
        e.duplicate(p, json::serialize(t), "taints must be unique by key and effect pair");
        continue;
      }
      seen.emplace_back(effect, key);
    }
  }
  const json::object& status = member_or_empty(node, "status");
  for (std::string_view list : {"capacity", "allocatable"})
    if (const json::object* l = rules::obj(status, list))
      for (const auto& kv : *l)
        rules::resource_quantity_value(e, kv.key(), kv.value(), "status." + std::string(list) + "." + std::string(kv.key()));
  // validateNodeSwapStatus (upstream names the path under metadata).
  if (const json::object* info = rules::obj(status, "nodeInfo"))
    if (const json::object* swap = rules::obj(*info, "swap"))
      if (auto cap = rules::int_of(*swap, "capacity"); cap && *cap <= 0)
        e.invalid_int("metadata.nodeSwapStatus.capacity", *cap, "must be greater than zero");
  // validateNodeDeclaredFeatures: UpperCamelCase names with /-separated segments, sorted, unique.
  if (const json::array* df = rules::arr(status, "declaredFeatures")) {
    auto valid_name = [](std::string_view f) {
      if (f.empty() || !(f[0] >= 'A' && f[0] <= 'Z')) return false;
      bool segment_start = false;
      for (char c : f) {
        bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (c == '/') {
          if (segment_start) return false;
          segment_start = true;
          continue;
        }
        if (!alnum) return false;
        if (segment_start && !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return false;
        segment_start = false;
      }
      return !segment_start;
    };
    for (std::size_t i = 0; i < df->size(); ++i) {
      std::string_view f = (*df)[i].is_string() ? std::string_view((*df)[i].get_string()) : std::string_view();
      std::string p = rules::index("status.declaredFeatures", i);
      if (f.size() > 253)
        e.invalid_str(p, f, "invalid feature name " + util::go_quote(f) + ": must be no more than 253 characters");
      else if (!valid_name(f))
        e.invalid_str(p, f,
                      "invalid feature name " + util::go_quote(f) +
                          ": must start with an UpperCamelCase segment, with subsequent segments separated by '/' "
                          "(e.g., MyFeature or MyFeature/mySubFeature), and contain only alphanumeric characters "
                          "and slashes");
      if (i + 1 < df->size() && (*df)[i + 1].is_string()) {
        std::string_view next = (*df)[i + 1].get_string();
        std::string np = rules::index("status.declaredFeatures", i + 1);
        if (f == next)
          e.duplicate(np, util::go_quote(next));
        else if (f > next)
          e.invalid_str(np, next, "list must be sorted alphabetically");
      }
    }
  }
}

class NodeStrategy final : public Strategy {
 public:
  void set_defaults(json::object& obj, const WriteContext&) const override { default_node(obj); }
  void prepare_for_create(json::object& obj, const WriteContext& w) const override {
    drop_disabled_node_fields(obj, nullptr, w.gates);
  }
  void prepare_for_update(json::object& obj, const WriteContext& w) const override {
    drop_disabled_node_fields(obj, w.old, w.gates);
  }
  void prepare_for_status_update(json::object& obj, const WriteContext& w) const override {
    drop_disabled_node_fields(obj, w.old, w.gates);
  }
  void validate(Errors& e, const json::object& obj, const WriteContext&) const override { validate_node(e, obj); }
  void validate_update(Errors& e, const json::object& obj, const WriteContext&) const override {
    validate_node(e, obj);
  }
  void validate_status_update(Errors& e, const json::object& obj, const WriteContext&) const override {
    validate_node(e, obj);
  }
  // kubectl's node columns (printNode).
  std::vector<TableColumn> table_columns() const override {
    return {{"Name", "string", "name", 0},       {"Status", "string", "", 0},         {"Roles", "string", "", 0},
            {"Age", "string", "", 0},            {"Version", "string", "", 0},        {"Internal-IP", "string", "", 1},
            {"External-IP", "string", "", 1},    {"OS-Image", "string", "", 1},       {"Kernel-Version", "string", "", 1},
            {"Container-Runtime", "string", "", 1}};
  }
  json::array table_cells(const json::object& obj, std::int64_t now) const override {
    const json::object& meta = member_or_empty(obj, "metadata");
    const json::object& status = member_or_empty(obj, "status");
    const json::object& info = member_or_empty(status, "nodeInfo");
    std::string ready = "Unknown";
    if (const json::array* cs = array_member(status, "conditions"))
      for (const auto& c : *cs) {
        if (!c.is_object() || cell_text(c.get_object().if_contains("type")) != "Ready") continue;
        std::string st = cell_text(c.get_object().if_contains("status"));
        ready = st == "True" ? "Ready" : st == "False" ? "NotReady" : "Unknown";
      }
    if (const json::value* u = member_or_empty(obj, "spec").if_contains("unschedulable"); u && u->is_bool() && u->get_bool())
      ready += ",SchedulingDisabled";
    std::string roles;
    if (const json::object* labels = object_member(meta, "labels"))
      for (const auto& kv : *labels) {
        std::string_view k = kv.key();
        if (!k.starts_with("node-role.kubernetes.io/")) continue;
        if (!roles.empty()) roles += ",";
        roles += k.substr(24);
      }
    std::string internal = "<none>", external = "<none>";
    if (const json::array* as = array_member(status, "addresses"))
      for (const auto& a : *as) {
        if (!a.is_object()) continue;
        std::string type = cell_text(a.get_object().if_contains("type"));
        if (type == "InternalIP") internal = cell_text(a.get_object().if_contains("address"), "<none>");
        if (type == "ExternalIP") external = cell_text(a.get_object().if_contains("address"), "<none>");
      }
    return json::array{cell_text(meta.if_contains("name")),
                       ready,
                       roles.empty() ? "<none>" : roles,
                       age(obj, now),
                       cell_text(info.if_contains("kubeletVersion")),
                       internal,
                       external,
                       cell_text(info.if_contains("osImage"), "<unknown>"),
                       cell_text(info.if_contains("kernelVersion"), "<unknown>"),
                       cell_text(info.if_contains("containerRuntimeVersion"), "<unknown>")};
  }
};

}  // namespace

const Strategy& node_strategy() {
  static const NodeStrategy s;
  return s;
}

}  // namespace ksched::apiserver::registry::core
