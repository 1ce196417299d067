#include "apiserver/registry/node/runtimeclass.h"

#include <boost/json.hpp>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/labels.h"
#include "api/quantity.h"
#include "apiserver/write/validation.h"
#include "util/go_format.h"

namespace ksched::apiserver {

using util::go_quote;

namespace json = boost::json;

namespace {

std::string max_len(std::size_t n) {
  std::string m = "must be no more than ";
  m.append(std::to_string(n)).append(" characters");
  return m;
}

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// [a-z0-9]([-a-z0-9]*[a-z0-9])? without a length limit (the length is a separate message).
bool dns1123_label_matches(std::string_view s) {
  if (s.empty() || !lower_alnum(s.front()) || !lower_alnum(s.back())) return false;
  for (char c : s)
    if (!lower_alnum(c) && c != '-') return false;
  return true;
}

// The pattern messages, as validation.cpp words them (the helpers answer them for "").
const std::string& label_pattern_msg() {
  static const std::string m = check_dns1123_label("");
  return m;
}

// IsDNS1123Label: the length and the pattern are reported independently (validation.cpp's
// check_dns1123_label reports one of them, as names need).
std::vector<std::string> dns1123_label_errors(std::string_view v) {
  std::vector<std::string> errs;
  if (v.size() > 63) errs.push_back(max_len(63));
  if (!dns1123_label_matches(v)) errs.push_back(label_pattern_msg());
  return errs;
}

Cause invalid_cause(std::string field, std::string_view rendered_value, std::string_view detail) {
  std::string m = "Invalid value: ";
  m.append(rendered_value).append(": ").append(detail);
  return Cause{"FieldValueInvalid", std::move(m), std::move(field)};
}

Cause invalid_str(std::string field, std::string_view value, std::string_view detail) {
  return invalid_cause(std::move(field), go_quote(value), detail);
}

// The string member `k`, "" when absent or null; `typed` is false when present with another type.
std::string member_string(const json::object& o, std::string_view k, bool* typed = nullptr) {
  const json::value* v = o.if_contains(k);
  if (typed) *typed = !v || v->is_null() || v->is_string();
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

// A JSON value of the wrong type: upstream's decoder rejects the body before validation (400);
// here it is one Invalid cause so that nothing malformed is stored.
Cause wrong_type(std::string field, const json::value& v, std::string_view want) {
  std::string detail = "must be ";
  detail.append(want);
  return invalid_cause(std::move(field), json::serialize(v), detail);
}

// ---------------------------------------------------------------- handler

void validate_handler(const json::object& rc, std::vector<Cause>& out) {
  bool typed = true;
  std::string h = member_string(rc, "handler", &typed);
  if (!typed) {
    out.push_back(wrong_type("handler", rc.at("handler"), "a string"));
    return;
  }
  for (const auto& m : dns1123_label_errors(h)) out.push_back(invalid_str("handler", h, m));
}

// ---------------------------------------------------------------- overhead

bool is_hugepages(std::string_view n) { return n.starts_with("hugepages-"); }

bool is_standard_container_resource(std::string_view n) {
  return n == "cpu" || n == "memory" || n == "ephemeral-storage" || is_hugepages(n);
}

bool is_standard_resource(std::string_view n) {
  static constexpr std::string_view kStandard[] = {
      "cpu",           "memory",          "ephemeral-storage",      "requests.cpu",
      "requests.memory", "requests.ephemeral-storage", "limits.cpu", "limits.memory",
      "limits.ephemeral-storage", "pods", "resourcequotas", "services",
      "replicationcontrollers", "secrets", "configmaps", "persistentvolumeclaims",
      "storage", "requests.storage", "services.nodeports", "services.loadbalancers"};
  for (auto s : kStandard)
    if (s == n) return true;
  return is_hugepages(n) || n.starts_with("requests.hugepages-");
}

bool is_native(std::string_view n) {
  return n.find('/') == std::string_view::npos || n.find("kubernetes.io/") != std::string_view::npos;
}

bool is_extended(std::string_view n) {
  if (is_native(n) || n.starts_with("requests.")) return false;
  std::string quota = "requests.";
  quota.append(n);
  return labels::validate_label_key(quota).empty();
}

bool is_integer_resource(std::string_view n) {
  static constexpr std::string_view kInteger[] = {
      "pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
      "persistentvolumeclaims", "services.nodeports", "services.loadbalancers"};
  for (auto s : kInteger)
    if (s == n) return true;
  return is_extended(n);
}

std::optional<api::Quantity> quantity_of(const json::value& v) {
  util::Result<api::Quantity> q = api::Quantity::parse(v.is_string() ? std::string(v.get_string()) : json::serialize(v));
  if (!q) return std::nullopt;
  return *q;
}

// validateOverhead = ValidateContainerResourceRequirements with podFixed as the limits.
void validate_overhead(const json::object& overhead, std::vector<Cause>& out) {
  const json::value* pf = overhead.if_contains("podFixed");
  if (!pf || pf->is_null()) return;
  if (!pf->is_object()) {
    out.push_back(wrong_type("overhead.podFixed", *pf, "an object"));
    return;
  }
  bool cpu_or_memory = false, hugepages = false;
  for (const auto& kv : pf->get_object()) {
    std::string name(kv.key());
    std::string path = "overhead.limits[";
    path.append(name).append("]");
    // validateResourceName, then the container-specific rules.
    std::vector<std::string> qerrs = labels::validate_label_key(name);
    for (const auto& m : qerrs) out.push_back(invalid_str(path, name, m));
    const bool slash = name.find('/') != std::string::npos;
    if (qerrs.empty() && !slash && !is_standard_resource(name))
      out.push_back(invalid_str(path, name, "must be a standard resource type or fully qualified"));
    if (!slash) {
      if (!is_standard_container_resource(name))
        out.push_back(invalid_str(path, name, "must be a standard resource for containers"));
    } else if (!is_native(name) && !is_extended(name)) {
      out.push_back(invalid_str(path, name, "doesn't follow extended resource name standard"));
    }
    // ValidateResourceQuantityValue.
    std::optional<api::Quantity> q = quantity_of(kv.value());
    if (!q) {
      out.push_back(wrong_type(path, kv.value(), "a quantity"));
      continue;
    }
    if (q->sign() < 0) out.push_back(invalid_str(path, q->to_string(), "must be greater than or equal to 0"));
    if (is_integer_resource(name) && q->milli_value() % 1000 != 0)
      out.push_back(invalid_str(path, q->to_string(), "must be an integer"));
    if (is_hugepages(name)) {
      hugepages = true;
      auto page = api::Quantity::parse(std::string_view(name).substr(10));
      bool divisible = page && page->sign() > 0 && page->milli_value() % 1000 == 0 && q->value() % page->value() == 0;
      if (!divisible) {
        std::string m = q->to_string();
        m.append(" is not positive integer multiple of ").append(name);
        out.push_back(invalid_str(path, q->to_string(), m));
      }
    }
    if (name == "cpu" || name == "memory") cpu_or_memory = true;
  }
  if (hugepages && !cpu_or_memory)
    out.push_back(Cause{"FieldValueForbidden", "Forbidden: HugePages require cpu or memory", "overhead"});
}

// ---------------------------------------------------------------- scheduling

struct Toleration {
  std::string key, op, value, effect;
  const json::value* seconds = nullptr;  // non-null when set
};

// Go's %#v of the internal core.Toleration, as upstream prints it in these messages. A set
// tolerationSeconds is a pointer there (printed as an address); here its value is shown instead.
std::string go_syntax(const Toleration& t) {
  std::string s = "core.Toleration{Key:";
  s.append(go_quote(t.key)).append(", Operator:").append(go_quote(t.op));
  s.append(", Value:").append(go_quote(t.value)).append(", Effect:").append(go_quote(t.effect));
  s.append(", TolerationSeconds:(*int64)(");
  s.append(t.seconds ? json::serialize(*t.seconds) : std::string("nil"));
  s.append(")}");
  return s;
}

void validate_tolerations(const json::value& tv, std::vector<Cause>& out) {
  const std::string base = "scheduling.tolerations";
  if (tv.is_null()) return;
  if (!tv.is_array()) {
    out.push_back(wrong_type(base, tv, "an array"));
    return;
  }
  std::vector<Toleration> seen;
  std::size_t i = 0;
  for (const auto& e : tv.get_array()) {
    std::string idx = base;
    idx.append("[").append(std::to_string(i++)).append("]");
    if (!e.is_object()) {
      out.push_back(wrong_type(idx, e, "an object"));
      continue;
    }
    const json::object& o = e.get_object();
    Toleration t{member_string(o, "key"), member_string(o, "operator"), member_string(o, "value"),
                 member_string(o, "effect")};
    if (const json::value* s = o.if_contains("tolerationSeconds"); s && !s->is_null()) t.seconds = s;

    if (!t.key.empty())
      for (const auto& m : labels::validate_label_key(t.key)) out.push_back(invalid_str(idx + ".key", t.key, m));
    if (t.key.empty() && t.op != "Exists")
      out.push_back(invalid_str(idx + ".operator", t.op,
                                "operator must be Exists when `key` is empty, which means \"match all values and all keys\""));
    if (t.seconds && t.effect != "NoExecute")
      out.push_back(invalid_str(idx + ".effect", t.effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    if (t.op.empty() || t.op == "Equal") {
      std::vector<std::string> errs = labels::validate_label_value(t.value);
      if (!errs.empty()) {
        std::string joined;
        for (const auto& m : errs) joined.append(joined.empty() ? "" : ";").append(m);
        out.push_back(invalid_str(idx + ".operator", t.value, joined));
      }
    } else if (t.op == "Exists") {
      if (!t.value.empty())
        out.push_back(invalid_cause(idx + ".operator", go_syntax(t), "value must be empty when `operator` is 'Exists'"));
    } else {
      std::string m = "Unsupported value: ";
      m.append(go_quote(t.op)).append(": supported values: \"Equal\", \"Exists\"");
      out.push_back(Cause{"FieldValueNotSupported", std::move(m), idx + ".operator"});
    }
    if (!t.effect.empty() && t.effect != "NoSchedule" && t.effect != "PreferNoSchedule" && t.effect != "NoExecute") {
      std::string m = "Unsupported value: ";
      m.append(go_quote(t.effect)).append(": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"");
      out.push_back(Cause{"FieldValueNotSupported", std::move(m), idx + ".effect"});
    }
    // No two tolerations with the same key, operator, value and effect.
    bool dup = false;
    for (const auto& p : seen)
      dup = dup || (p.key == t.key && p.op == t.op && p.value == t.value && p.effect == t.effect);
    if (dup) {
      std::string m = "Duplicate value: ";
      m.append(go_syntax(t));
      out.push_back(Cause{"FieldValueDuplicate", std::move(m), idx});
    } else {
      seen.push_back(t);
    }
  }
}

void validate_scheduling(const json::object& s, std::vector<Cause>& out) {
  const std::string path = "scheduling.nodeSelector";
  if (const json::value* ns = s.if_contains("nodeSelector"); ns && !ns->is_null()) {
    if (!ns->is_object()) {
      out.push_back(wrong_type(path, *ns, "an object"));
    } else {
      for (const auto& kv : ns->get_object()) {
        std::string k(kv.key());
        for (const auto& m : labels::validate_label_key(k)) out.push_back(invalid_str(path, k, m));
        if (!kv.value().is_string()) {
          out.push_back(wrong_type(path, kv.value(), "a string"));
          continue;
        }
        std::string_view v = kv.value().get_string();
        for (const auto& m : labels::validate_label_value(v)) out.push_back(invalid_str(path, v, m));
      }
    }
  }
  if (const json::value* t = s.if_contains("tolerations")) validate_tolerations(*t, out);
}

}  // namespace

std::vector<Cause> validate_runtime_class(const json::object& rc) {
  std::vector<Cause> out;
  validate_handler(rc, out);
  if (const json::value* o = rc.if_contains("overhead"); o && !o->is_null()) {
    if (o->is_object())
      validate_overhead(o->get_object(), out);
    else
      out.push_back(wrong_type("overhead", *o, "an object"));
  }
  if (const json::value* s = rc.if_contains("scheduling"); s && !s->is_null()) {
    if (s->is_object())
      validate_scheduling(s->get_object(), out);
    else
      out.push_back(wrong_type("scheduling", *s, "an object"));
  }
  return out;
}

std::vector<Cause> validate_runtime_class_update(const json::object& rc, const json::object& old) {
  std::vector<Cause> out = validate_runtime_class(rc);
  bool typed = true;
  std::string h = member_string(rc, "handler", &typed);
  if (typed && h != member_string(old, "handler"))
    out.push_back(invalid_str("handler", h, "field is immutable"));
  return out;
}

}  // namespace ksched::apiserver
