#include "apiserver/registry/core/strategies.h"

#include <boost/json.hpp>

#include "apiserver/json_access.h"
#include "apiserver/registry/core/validation.h"
#include "util/base64.h"

namespace ksched::apiserver::registry::core {

namespace json = boost::json;

namespace {

const json::object& member_or_empty(const json::object& o, std::string_view k) {
  static const json::object empty;
  const json::object* m = rules::obj(o, k);
  return m ? *m : empty;
}

template <class F>
void each_object(json::array* a, F&& f) {
  if (!a) return;
  for (auto& x : *a)
    if (x.is_object()) f(x.get_object());
}

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
  if (version != "v1") return nullptr;
  if (plural == "configmaps") return &config_maps;
  if (plural == "secrets") return &secrets;
  if (plural == "resourcequotas") return &quotas;
  if (plural == "limitranges") return &limit_ranges;
  if (plural == "persistentvolumeclaims") return &claims;
  return nullptr;
}

}  // namespace ksched::apiserver::registry::core
