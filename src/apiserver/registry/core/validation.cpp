#include "apiserver/registry/core/validation.h"

#include <algorithm>
#include <boost/json.hpp>
#include <optional>
#include <vector>

#include "apiserver/json_access.h"
#include "util/go_format.h"

namespace ksched::apiserver::registry::core {

namespace json = boost::json;

namespace {

using rules::child;

void quota_list(Errors& e, const json::object* l, const std::string& path) {
  if (!l) return;
  for (const auto& kv : *l) {
    std::string p = rules::key(path, kv.key());
    rules::resource_name(e, kv.key(), p, rules::ResourceNames::Quota);
    rules::resource_quantity_value(e, kv.key(), kv.value(), p);
  }
}

// Go's len() of a []byte member: the decoded length of its base64 text.
std::size_t decoded_size(std::string_view b64) {
  std::size_t n = 0, pad = 0;
  for (char c : b64) {
    if (c == '\r' || c == '\n') continue;
    ++n;
    if (c == '=') ++pad;
  }
  return n / 4 * 3 - pad;
}

constexpr std::size_t kMaxSecretSize = 1024 * 1024;

}  // namespace

void resource_quota(Errors& e, const json::object& rq, bool status_only) {
  if (!status_only) quota_list(e, rules::obj(member_or_empty(rq, "spec"), "hard"), "spec.hard");
  const json::object& status = member_or_empty(rq, "status");
  quota_list(e, rules::obj(status, "hard"), "status.hard");
  quota_list(e, rules::obj(status, "used"), "status.used");
}

// ValidateLimitRange: type names, resource names, and the order of min, defaults and max.
void limit_range(Errors& e, const json::object& lr) {
  const json::array* limits = rules::arr(member_or_empty(lr, "spec"), "limits");
  if (!limits) return;
  std::vector<std::string_view> types;
  for (std::size_t i = 0; i < limits->size(); ++i) {
    if (!(*limits)[i].is_object()) continue;
    const json::object& l = (*limits)[i].get_object();
    std::string p = rules::index("spec.limits", i);
    std::string_view type = rules::sv(l, "type");
    std::vector<std::string> terrs = rules::qualified_name(type);
    rules::each(e, terrs, child(p, "type"), type);
    if (terrs.empty() && type.find('/') == std::string_view::npos && type != "Pod" && type != "Container" &&
        type != "PersistentVolumeClaim")
      e.invalid_str(child(p, "type"), type, "must be a standard limit type or fully qualified");
    if (std::find(types.begin(), types.end(), type) != types.end()) e.duplicate(child(p, "type"), util::go_quote(type));
    types.push_back(type);
    const auto names = type == "Pod" || type == "Container" ? rules::ResourceNames::Container : rules::ResourceNames::Any;
    std::vector<std::string_view> keys;
    auto names_of = [&](std::string_view f) {
      if (const json::object* m = rules::obj(l, f))
        for (const auto& kv : *m) {
          rules::resource_name(e, kv.key(), rules::key(child(p, f), kv.key()), names);
          if (std::find(keys.begin(), keys.end(), kv.key()) == keys.end()) keys.push_back(kv.key());
        }
    };
    names_of("max");
    names_of("min");
    if (type == "Pod") {
      for (std::string_view f : {"default", "defaultRequest"})
        if (const json::object* m = rules::obj(l, f); m && !m->empty())
          e.forbidden(child(p, f), "may not be specified when `type` is 'Pod'");
    } else {
      names_of("default");
      names_of("defaultRequest");
    }
    if (type == "PersistentVolumeClaim" && !(rules::obj(l, "min") && rules::obj(l, "min")->contains("storage")) &&
        !(rules::obj(l, "max") && rules::obj(l, "max")->contains("storage")))
      e.required(child(p, "limits"), "either minimum or maximum storage value is required, but neither was provided");
    names_of("maxLimitRequestRatio");
    auto q = [&](std::string_view f, std::string_view k) -> std::optional<api::Quantity> {
      if (type == "Pod" && (f == "default" || f == "defaultRequest")) return std::nullopt;
      const json::object* m = rules::obj(l, f);
      const json::value* v = m ? m->if_contains(k) : nullptr;
      return v ? rules::quantity_of(*v) : std::nullopt;
    };
    for (std::string_view k : keys) {
      auto min = q("min", k), max = q("max", k), def = q("default", k), req = q("defaultRequest", k),
           ratio = q("maxLimitRequestRatio", k);
      auto path = [&](std::string_view f) { return rules::key(child(p, f), k); };
      auto str = [](const api::Quantity& x) { return util::go_quote(x.to_string()); };
      if (min && max && *min > *max)
        e.invalid(path("min"), str(*min), "min value " + min->to_string() + " is greater than max value " + max->to_string());
      if (req && min && *min > *req)
        e.invalid(path("defaultRequest"), str(*req),
                  "min value " + min->to_string() + " is greater than default request value " + req->to_string());
      if (req && max && *req > *max)
        e.invalid(path("defaultRequest"), str(*req),
                  "default request value " + req->to_string() + " is greater than max value " + max->to_string());
      if (req && def && *req > *def)
        e.invalid(path("defaultRequest"), str(*req),
                  "default request value " + req->to_string() + " is greater than default limit value " + def->to_string());
      if (def && min && *min > *def)
        e.invalid(path("default"), str(*min), "min value " + min->to_string() + " is greater than default value " + def->to_string());
      if (def && max && *def > *max)
        e.invalid(path("default"), str(*max), "default value " + def->to_string() + " is greater than max value " + max->to_string());
      if (ratio && *ratio < api::Quantity::from_int(1))
        e.invalid(path("maxLimitRequestRatio"), str(*ratio), "ratio " + ratio->to_string() + " is less than 1");
    }
  }
}

// ValidatePersistentVolumeClaimSpec's access modes and storage request.
void pvc_spec(Errors& e, const json::object& spec, const std::string& path) {
  const json::array* modes = rules::arr(spec, "accessModes");
  if (!modes || modes->empty()) e.required(child(path, "accessModes"), "at least 1 access mode is required");
  bool once_pod = false, other = false;
  if (modes)
    for (const auto& m : *modes) {
      std::string_view v = m.is_string() ? std::string_view(m.get_string()) : std::string_view();
      bool known = v == "ReadOnlyMany" || v == "ReadWriteMany" || v == "ReadWriteOnce" || v == "ReadWriteOncePod";
      if (!known)
        e.not_supported(child(path, "accessModes"), util::go_quote(v),
                        {"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"});
      if (v == "ReadWriteOncePod")
        once_pod = true;
      else if (known)
        other = true;
    }
  if (once_pod && other) e.forbidden(child(path, "accessModes"), "may not use ReadWriteOncePod with other access modes");
  if (const json::object* sel = rules::obj(spec, "selector")) rules::label_selector(e, *sel, child(path, "selector"));
  const json::object* requests = rules::obj(member_or_empty(spec, "resources"), "requests");
  const json::value* storage = requests ? requests->if_contains("storage") : nullptr;
  std::string sp = rules::key(child(path, "resources"), "storage");
  if (!storage) {
    e.required(sp);
  } else if (auto q = rules::quantity_of(*storage); q && q->sign() <= 0) {
    e.invalid_str(sp, q->to_string(), "must be greater than zero");
  }
  if (rules::has(spec, "volumeMode") && rules::sv(spec, "volumeMode") != "Block" && rules::sv(spec, "volumeMode") != "Filesystem")
    e.not_supported(child(path, "volumeMode"), util::go_quote(rules::sv(spec, "volumeMode")), {"Block", "Filesystem"});
}

void config_map(Errors& e, const json::object& cm) {
  std::size_t total = 0;
  const json::object* binary = rules::obj(cm, "binaryData");
  if (const json::object* data = rules::obj(cm, "data"))
    for (const auto& kv : *data) {
      std::string p = rules::key("data", kv.key());
      rules::each(e, rules::config_map_key(kv.key()), p, kv.key());
      if (binary && binary->contains(kv.key())) e.invalid_str(p, kv.key(), "duplicate of key present in binaryData");
      if (kv.value().is_string()) total += kv.value().get_string().size();
    }
  if (binary)
    for (const auto& kv : *binary) {
      rules::each(e, rules::config_map_key(kv.key()), rules::key("binaryData", kv.key()), kv.key());
      if (kv.value().is_string()) total += decoded_size(kv.value().get_string());
    }
  if (total > kMaxSecretSize) e.too_long("", kMaxSecretSize);
}

void secret(Errors& e, const json::object& s) {
  std::size_t total = 0;
  const json::object* data = rules::obj(s, "data");
  if (data)
    for (const auto& kv : *data) {
      rules::each(e, rules::config_map_key(kv.key()), rules::key("data", kv.key()), kv.key());
      if (kv.value().is_string()) total += decoded_size(kv.value().get_string());
    }
  if (total > kMaxSecretSize) e.too_long("data", kMaxSecretSize);
  std::string_view type = rules::sv(s, "type");
  auto need = [&](std::string_view k) {
    if (!data || !data->contains(k)) e.required(rules::key("data", k));
  };
  if (type == "kubernetes.io/service-account-token") {
    const json::object* ann = rules::obj(member_or_empty(s, "metadata"), "annotations");
    if (!ann || rules::sv(*ann, "kubernetes.io/service-account.name").empty())
      e.required(rules::key("metadata.annotations", "kubernetes.io/service-account.name"));
  } else if (type == "kubernetes.io/dockercfg") {
    need(".dockercfg");
  } else if (type == "kubernetes.io/dockerconfigjson") {
    need(".dockerconfigjson");
  } else if (type == "kubernetes.io/basic-auth") {
    if (!data || (!data->contains("username") && !data->contains("password"))) {
      e.required(rules::key("data", "username"));
      e.required(rules::key("data", "password"));
    }
  } else if (type == "kubernetes.io/ssh-auth") {
    const json::value* k = data ? data->if_contains("ssh-privatekey") : nullptr;
    if (!k || !k->is_string() || k->get_string().empty()) e.required(rules::key("data", "ssh-privatekey"));
  } else if (type == "kubernetes.io/tls") {
    need("tls.crt");
    need("tls.key");
  }
}

void immutable_data(Errors& e, const json::object& obj, const json::object& old, std::initializer_list<std::string_view> fields) {
  const json::value* was = old.if_contains("immutable");
  if (!was || !was->is_bool() || !was->get_bool()) return;
  const json::value* now = obj.if_contains("immutable");
  if (!now || !now->is_bool() || !now->get_bool()) e.forbidden("immutable", "field is immutable when `immutable` is set");
  for (std::string_view f : fields) {
    const json::object& a = member_or_empty(obj, f);
    const json::object& b = member_or_empty(old, f);
    if (a != b) e.forbidden(std::string(f), "field is immutable when `immutable` is set");
  }
}

}  // namespace ksched::apiserver::registry::core
