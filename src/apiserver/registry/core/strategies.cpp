#include "apiserver/registry/core/strategies.h"

#include <boost/json.hpp>

#include "apiserver/json_access.h"
#include "apiserver/registry/core/validation.h"
#include "apiserver/registry/core/pod_template.h"
#include "util/base64.h"

namespace ksched::apiserver::registry::core {

namespace json = boost::json;

namespace {



// A Secret's stringData is write-only: upstream's conversion moves each value into data (base64,
// overriding a data key of the same name), so what is stored and validated is data alone.
void merge_string_data(json::object& secret) {
  json::value* sd = secret.if_contains("stringData");
  if (!sd) return;
  if (sd->is_object() && !sd->get_object().empty()) {
    json::object moved = std::move(sd->get_object());
    auto& data = ensure_object(secret, "data");
    for (const auto& kv : moved)
      if (kv.value().is_string()) data[kv.key()] = util::base64_encode(kv.value().get_string());
  }
  secret.erase("stringData");
}

// PrepareForCreate of namespaces: the kubernetes finalizer, phase Active, the name label.
void prepare_namespace(json::object& ns) {
  ns["spec"] = json::object{{"finalizers", json::array{"kubernetes"}}};
  ns["status"] = json::object{{"phase", "Active"}};
  auto& meta = ensure_object(ns, "metadata");
  auto& labels = ensure_object(meta, "labels");
  if (auto* n = meta.if_contains("name"); n && n->is_string()) labels["kubernetes.io/metadata.name"] = *n;
}

// pkg/registry/core/namespace: the name label and phase defaults on every write, the finalizer on
// create, and kubectl's STATUS column. (Deletion and finalization are the handlers'.)
class NamespaceStrategy final : public Strategy {
 public:
  // SetDefaults_Namespace(Status).
  void set_defaults(json::object& obj, const WriteContext&) const override {
    if (auto* meta = object_member(obj, "metadata"); meta && !str_view(*meta, "name").empty()) {
      json::value name = (*meta)["name"];  // copied first: adding labels may move the members
      ensure_object(*meta, "labels")["kubernetes.io/metadata.name"] = std::move(name);
    }
    auto& status = ensure_object(obj, "status");
    if (str_view(status, "phase").empty()) status["phase"] = "Active";
  }
  void prepare_for_create(json::object& obj, const WriteContext&) const override { prepare_namespace(obj); }
  void validate(Errors&, const json::object&, const WriteContext&) const override {}
  void validate_update(Errors&, const json::object&, const WriteContext&) const override {}
  std::vector<TableColumn> table_columns() const override {
    return {{"Name", "string", "name", 0}, {"Status", "string", "", 0}, {"Age", "string", "", 0}};
  }
  json::array table_cells(const json::object& obj, std::int64_t now) const override {
    // The phase as the printer reads it: a string, or a number or boolean in its text; "Active"
    // when absent or empty.
    std::string phase = "Active";
    if (const json::value* p = member_or_empty(obj, "status").if_contains("phase")) {
      if (p->is_string() && !p->get_string().empty()) phase = std::string(p->get_string());
      else if (p->is_int64()) phase = std::to_string(p->get_int64());
      else if (p->is_bool()) phase = p->get_bool() ? "true" : "false";
    }
    return json::array{rules::sv(member_or_empty(obj, "metadata"), "name"), phase, age(obj, now)};
  }
};

// SetDefaults_Service (the registry's allocations, cluster IPs and node ports, are not made).
class ServiceStrategy final : public Strategy {
 public:
  void set_defaults(json::object& obj, const WriteContext&) const override {
    auto& spec = ensure_object(obj, "spec");
    if (str_view(spec, "sessionAffinity").empty()) spec["sessionAffinity"] = "None";
    if (str_view(spec, "sessionAffinity") == "None") spec.erase("sessionAffinityConfig");
    if (str_view(spec, "sessionAffinity") == "ClientIP") {
      const json::object* cfg = object_member(spec, "sessionAffinityConfig");
      const json::object* cip = cfg ? object_member(*cfg, "clientIP") : nullptr;
      if (!cip || !cip->contains("timeoutSeconds") || cip->at("timeoutSeconds").is_null())
        spec["sessionAffinityConfig"] = json::object{{"clientIP", json::object{{"timeoutSeconds", 10800}}}};
    }
    if (str_view(spec, "type").empty()) spec["type"] = "ClusterIP";
    std::string type = str(spec, "type");
    each_object(array_member(spec, "ports"), [](json::object& p) {
      if (str_view(p, "protocol").empty()) p["protocol"] = "TCP";
      const json::value* tp = p.if_contains("targetPort");
      bool unset = !tp || tp->is_null() || (tp->is_int64() && tp->get_int64() == 0) ||
                   (tp->is_string() && tp->get_string().empty());
      if (unset) {
        json::value port = p.contains("port") ? p["port"] : json::value(0);
        p["targetPort"] = std::move(port);
      }
    });
    const json::array* external_ips = array_member(spec, "externalIPs");
    bool externally_accessible = type == "LoadBalancer" || type == "NodePort" ||
                                 (type == "ClusterIP" && external_ips && !external_ips->empty());
    if (externally_accessible && str_view(spec, "externalTrafficPolicy").empty())
      spec["externalTrafficPolicy"] = "Cluster";
    if (type == "NodePort" || type == "LoadBalancer" || type == "ClusterIP")
      set_default(spec, "internalTrafficPolicy", "Cluster");
    if (type == "LoadBalancer") set_default(spec, "allocateLoadBalancerNodePorts", true);
  }
  void validate(Errors&, const json::object&, const WriteContext&) const override {}
  void validate_update(Errors&, const json::object&, const WriteContext&) const override {}
};

// SetDefaults_Endpoints: a port's protocol.
class EndpointsStrategy final : public Strategy {
 public:
  void set_defaults(json::object& obj, const WriteContext&) const override {
    each_object(array_member(obj, "subsets"), [](json::object& ss) {
      each_object(array_member(ss, "ports"), [](json::object& p) {
        if (str_view(p, "protocol").empty()) p["protocol"] = "TCP";
      });
    });
  }
  void validate(Errors&, const json::object&, const WriteContext&) const override {}
  void validate_update(Errors&, const json::object&, const WriteContext&) const override {}
};

// SetDefaults_ReplicationController (replicas, the selector and labels from the template) and
// the template's pod defaults; replicas and the template checked on every write, status included.
class ReplicationControllerStrategy final : public Strategy {
 public:
  void set_defaults(json::object& obj, const WriteContext&) const override {
    auto& spec = ensure_object(obj, "spec");
    set_default(spec, "replicas", 1);
    const json::object* tmeta = nullptr;
    if (auto* t = object_member(spec, "template")) tmeta = object_member(*t, "metadata");
    if (const json::object* tl = tmeta ? object_member(*tmeta, "labels") : nullptr) {
      json::object labels = *tl;
      if (auto* sel = object_member(spec, "selector"); !sel || sel->empty()) spec["selector"] = labels;
      auto& meta = ensure_object(obj, "metadata");
      if (auto* own = object_member(meta, "labels"); !own || own->empty()) meta["labels"] = std::move(labels);
    }
    default_pod_template(object_member(obj, "spec"), "template");
  }
  void validate(Errors& e, const json::object& obj, const WriteContext&) const override {
    const json::object& spec = member_or_empty(obj, "spec");
    validate_replicas(e, spec, "spec.replicas");
    validate_pod_template(e, rules::obj(spec, "template"), "spec.template");
  }
  void validate_update(Errors& e, const json::object& obj, const WriteContext& w) const override {
    validate(e, obj, w);
  }
  void validate_status_update(Errors& e, const json::object& obj, const WriteContext& w) const override {
    validate(e, obj, w);
  }
};

class PodTemplateStrategy final : public Strategy {
 public:
  void set_defaults(json::object& obj, const WriteContext&) const override { default_pod_template(&obj, "template"); }
  void validate(Errors& e, const json::object& obj, const WriteContext&) const override {
    validate_pod_template(e, rules::obj(obj, "template"), "template");
  }
  void validate_update(Errors& e, const json::object& obj, const WriteContext& w) const override {
    validate(e, obj, w);
  }
};

class ConfigMapStrategy final : public Strategy {
 public:
  void validate(Errors& e, const json::object& obj, const WriteContext&) const override { config_map(e, obj); }
  void validate_update(Errors& e, const json::object& obj, const WriteContext& w) const override {
    config_map(e, obj);
    immutable_data(e, obj, *w.old, {"data", "binaryData"});
  }
};

class SecretStrategy final : public Strategy {
 public:
  void set_defaults(json::object& obj, const WriteContext&) const override {
    merge_string_data(obj);
    if (str_view(obj, "type").empty()) obj["type"] = "Opaque";
  }
  void validate(Errors& e, const json::object& obj, const WriteContext&) const override { secret(e, obj); }
  void validate_update(Errors& e, const json::object& obj, const WriteContext& w) const override {
    secret(e, obj);
    if (str(obj, "type") != str(*w.old, "type")) e.invalid_str("type", str(obj, "type"), "field is immutable");
    immutable_data(e, obj, *w.old, {"data"});
  }
};

class ResourceQuotaStrategy final : public Strategy {
 public:
  void validate(Errors& e, const json::object& obj, const WriteContext&) const override { resource_quota(e, obj, false); }
  void validate_update(Errors& e, const json::object& obj, const WriteContext&) const override {
    resource_quota(e, obj, false);
  }
  void validate_status_update(Errors& e, const json::object& obj, const WriteContext&) const override {
    resource_quota(e, obj, true);
  }
};

class LimitRangeStrategy final : public Strategy {
 public:
  // SetDefaults_LimitRangeItem: a Container item's default from max, its defaultRequest from
  // default, then min.
  void set_defaults(json::object& obj, const WriteContext&) const override {
    if (auto* spec = object_member(obj, "spec"))
      each_object(array_member(*spec, "limits"), [](json::object& item) {
        if (str_view(item, "type") != "Container") return;
        json::object def = object_member(item, "default") ? *object_member(item, "default") : json::object();
        json::object req =
            object_member(item, "defaultRequest") ? *object_member(item, "defaultRequest") : json::object();
        if (const json::object* max = object_member(item, "max"))
          for (const auto& kv : *max)
            if (!def.contains(kv.key())) def[kv.key()] = kv.value();
        for (const auto& kv : def)
          if (!req.contains(kv.key())) req[kv.key()] = kv.value();
        if (const json::object* min = object_member(item, "min"))
          for (const auto& kv : *min)
            if (!req.contains(kv.key())) req[kv.key()] = kv.value();
        if (!def.empty()) item["default"] = std::move(def);
        if (!req.empty()) item["defaultRequest"] = std::move(req);
      });
  }
  void validate(Errors& e, const json::object& obj, const WriteContext&) const override { limit_range(e, obj); }
  void validate_update(Errors& e, const json::object& obj, const WriteContext&) const override { limit_range(e, obj); }
};

class PersistentVolumeClaimStrategy final : public Strategy {
 public:
  void set_defaults(json::object& obj, const WriteContext&) const override {
    set_default(ensure_object(obj, "spec"), "volumeMode", "Filesystem");
    auto& status = ensure_object(obj, "status");
    if (str_view(status, "phase").empty()) status["phase"] = "Pending";
  }
  void validate(Errors& e, const json::object& obj, const WriteContext&) const override {
    pvc_spec(e, member_or_empty(obj, "spec"), "spec");
  }
  void validate_update(Errors& e, const json::object& obj, const WriteContext&) const override {
    pvc_spec(e, member_or_empty(obj, "spec"), "spec");
  }
};

}  // namespace

const Strategy* strategy(std::string_view version, std::string_view plural) {
  static const ConfigMapStrategy config_maps;
  static const SecretStrategy secrets;
  static const ResourceQuotaStrategy quotas;
  static const LimitRangeStrategy limit_ranges;
  static const PersistentVolumeClaimStrategy claims;
  static const NamespaceStrategy namespaces;
  static const ServiceStrategy services;
  static const EndpointsStrategy endpoints;
  static const ReplicationControllerStrategy replication_controllers;
  static const PodTemplateStrategy pod_templates;
  if (version != "v1") return nullptr;
  if (plural == "pods") return &pod_strategy();  // first: the write the scheduler's workloads make most
  if (plural == "nodes") return &node_strategy();
  if (plural == "persistentvolumes") return &persistent_volume_strategy();
  if (plural == "namespaces") return &namespaces;
  if (plural == "services") return &services;
  if (plural == "endpoints") return &endpoints;
  if (plural == "replicationcontrollers") return &replication_controllers;
  if (plural == "podtemplates") return &pod_templates;
  if (plural == "configmaps") return &config_maps;
  if (plural == "secrets") return &secrets;
  if (plural == "resourcequotas") return &quotas;
  if (plural == "limitranges") return &limit_ranges;
  if (plural == "persistentvolumeclaims") return &claims;
  return nullptr;
}

}  // namespace ksched::apiserver::registry::core
