#include "apiserver/write/validation_rules.h"

#include <algorithm>
#include <set>

#include "api/labels.h"
#include "apiserver/json_access.h"
#include "util/go_format.h"

namespace ksched::apiserver::rules {

using util::go_quote;

// ---------------------------------------------------------------- paths

void Path::append_to(std::string& out) const {
  if (parent_) parent_->append_to(out);
  switch (kind_) {
    case Kind::Root:
      out.append(root_);
      break;
    case Kind::Child:
      if (!out.empty()) out += '.';
      out.append(root_);
      break;
    case Kind::Index:
      out.append("[").append(std::to_string(index_)).append("]");
      break;
    case Kind::Key:
      out.append("[").append(root_).append("]");
      break;
  }
}

std::string Path::str() const {
  std::string out;
  append_to(out);
  return out;
}

// ---------------------------------------------------------------- errors

void Errors::required(std::string path, std::string_view detail) {
  std::string m = "Required value";
  if (!detail.empty()) m.append(": ").append(detail);
  causes.push_back(Cause{"FieldValueRequired", std::move(m), std::move(path)});
}

void Errors::forbidden(std::string path, std::string_view detail) {
  std::string m = "Forbidden";
  if (!detail.empty()) m.append(": ").append(detail);
  causes.push_back(Cause{"FieldValueForbidden", std::move(m), std::move(path)});
}

void Errors::invalid(std::string path, std::string_view rendered, std::string_view detail) {
  std::string m = "Invalid value: ";
  m.append(rendered);
  if (!detail.empty()) m.append(": ").append(detail);
  causes.push_back(Cause{"FieldValueInvalid", std::move(m), std::move(path)});
}

void Errors::invalid_str(std::string path, std::string_view v, std::string_view detail) {
  invalid(std::move(path), go_quote(v), detail);
}

void Errors::invalid_int(std::string path, std::int64_t v, std::string_view detail) {
  invalid(std::move(path), std::to_string(v), detail);
}

void Errors::not_supported(std::string path, std::string_view rendered,
                           const std::vector<std::string_view>& supported) {
  std::string m = "Unsupported value: ";
  m.append(rendered);
  if (!supported.empty()) {
    m.append(": supported values: ");
    for (std::size_t i = 0; i < supported.size(); ++i) m.append(i ? ", " : "").append(go_quote(supported[i]));
  }
  causes.push_back(Cause{"FieldValueNotSupported", std::move(m), std::move(path)});
}

void Errors::duplicate(std::string path, std::string_view rendered, std::string_view detail) {
  std::string m = "Duplicate value: ";
  m.append(rendered);
  if (!detail.empty()) m.append(": ").append(detail);
  causes.push_back(Cause{"FieldValueDuplicate", std::move(m), std::move(path)});
}

void Errors::not_found(std::string path, std::string_view rendered, std::string_view detail) {
  std::string m = "Not found: ";
  m.append(rendered);
  if (!detail.empty()) m.append(": ").append(detail);
  causes.push_back(Cause{"FieldValueNotFound", std::move(m), std::move(path)});
}

void Errors::too_long(std::string path, std::size_t max_bytes) {
  std::string m =
      "Too long: may not be more than " + std::to_string(max_bytes) + (max_bytes == 1 ? " byte" : " bytes");
  causes.push_back(Cause{"FieldValueTooLong", std::move(m), std::move(path)});
}

// ---------------------------------------------------------------- accessors

const json::object* obj(const json::object& o, std::string_view k) {
  auto* v = find_member(o, k);
  return v && v->is_object() ? &v->get_object() : nullptr;
}
const json::array* arr(const json::object& o, std::string_view k) {
  auto* v = find_member(o, k);
  return v && v->is_array() ? &v->get_array() : nullptr;
}
std::string_view sv(const json::object& o, std::string_view k) {
  auto* v = find_member(o, k);
  return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}
std::optional<std::int64_t> int_of(const json::object& o, std::string_view k) {
  auto* v = find_member(o, k);
  if (!v) return std::nullopt;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64() && v->get_uint64() <= static_cast<std::uint64_t>(INT64_MAX))
    return static_cast<std::int64_t>(v->get_uint64());
  return std::nullopt;
}
bool bool_of(const json::object& o, std::string_view k) {
  auto* v = find_member(o, k);
  return v && v->is_bool() && v->get_bool();
}
bool has(const json::object& o, std::string_view k) {
  auto* v = find_member(o, k);
  return v && !v->is_null();
}
std::optional<api::Quantity> quantity_of(const json::value& v) {
  if (!v.is_string()) return std::nullopt;
  auto q = api::Quantity::parse(v.get_string());
  if (!q) return std::nullopt;
  return *q;
}

// ---------------------------------------------------------------- names

namespace {

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

bool label_pattern(std::string_view s) {  // [a-z0-9]([-a-z0-9]*[a-z0-9])?
  if (s.empty() || !lower_alnum(s.front()) || !lower_alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return lower_alnum(c) || c == '-'; });
}

bool subdomain_pattern(std::string_view s) {
  while (true) {
    auto dot = s.find('.');
    if (!label_pattern(s.substr(0, dot))) return false;
    if (dot == std::string_view::npos) return true;
    s.remove_prefix(dot + 1);
  }
}

std::string max_len(std::size_t n) { return "must be no more than " + std::to_string(n) + " characters"; }

constexpr std::string_view kLabelMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
    "and end "
    "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
constexpr std::string_view kSubdomainMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start "
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
constexpr std::string_view kDns1035Msg =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, "
    "and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
    "'[a-z]([-a-z0-9]*[a-z0-9])?')";
constexpr std::string_view kConfigKeyMsg =
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or "
    "'KEY_NAME',  "
    "or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

std::vector<std::string> chdir_prefix(std::string_view v) {
  if (v == ".") return {"must not be '.'"};
  if (v == "..") return {"must not be '..'"};
  if (v.starts_with("..")) return {"must not start with '..'"};
  return {};
}

}  // namespace

std::vector<std::string> dns1123_label(std::string_view v) {
  std::vector<std::string> errs;
  if (v.size() > 63) errs.push_back(max_len(63));
  if (!label_pattern(v))
    errs.emplace_back(subdomain_pattern(v) ? "must not contain dots" : std::string(kLabelMsg));
  return errs;
}

std::vector<std::string> dns1123_subdomain(std::string_view v) {
  std::vector<std::string> errs;
  if (v.size() > 253) errs.push_back(max_len(253));
  if (!subdomain_pattern(v)) errs.emplace_back(kSubdomainMsg);
  return errs;
}

std::vector<std::string> dns1035_label(std::string_view v) {
  std::vector<std::string> errs;
  if (v.size() > 63) errs.push_back(max_len(63));
  if (!label_pattern(v) || !(v.front() >= 'a' && v.front() <= 'z')) errs.emplace_back(kDns1035Msg);
  return errs;
}

std::vector<std::string> qualified_name(std::string_view v) { return labels::validate_label_key(v); }
std::vector<std::string> label_value(std::string_view v) { return labels::validate_label_value(v); }

std::vector<std::string> port_name(std::string_view v) {
  std::vector<std::string> errs;
  if (v.size() > 15) errs.push_back(max_len(15));
  bool charset =
      !v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return lower_alnum(c) || c == '-'; });
  if (!charset) errs.emplace_back("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (std::none_of(v.begin(), v.end(), [](char c) { return c >= 'a' && c <= 'z'; }))
    errs.emplace_back("must contain at least one letter (a-z)");
  if (v.find("--") != std::string_view::npos) errs.emplace_back("must not contain consecutive hyphens");
  if (!v.empty() && (v.front() == '-' || v.back() == '-'))
    errs.emplace_back("must not begin or end with a hyphen");
  return errs;
}

std::vector<std::string> env_var_name(std::string_view v) {
  std::vector<std::string> errs;
  if (v.empty()) errs.emplace_back("environment variable name must be non-empty");
  for (unsigned char c : v) {
    if (c > 0x7e || c < 0x20 || c == '=') {
      errs.emplace_back(
          "a valid environment variable name must consist only of printable ASCII characters other than '='");
      break;
    }
  }
  return errs;
}

std::vector<std::string> config_map_key(std::string_view v) {
  std::vector<std::string> errs;
  if (v.size() > 253) errs.push_back(max_len(253));
  bool ok = !v.empty() && std::all_of(v.begin(), v.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_';
  });
  if (!ok) errs.emplace_back(kConfigKeyMsg);
  for (auto& m : chdir_prefix(v)) errs.push_back(std::move(m));
  return errs;
}

std::string inclusive_range(std::int64_t lo, std::int64_t hi) {
  return "must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", inclusive";
}

void each(Errors& e, const std::vector<std::string>& msgs, const Path& path, std::string_view value) {
  for (const auto& m : msgs) e.invalid_str(path, value, m);
}

void labels(Errors& e, const json::object& m, const Path& path) {
  for (const auto& kv : m) {
    each(e, qualified_name(kv.key()), path, kv.key());
    if (kv.value().is_string()) each(e, label_value(kv.value().get_string()), path, kv.value().get_string());
  }
}

// ---------------------------------------------------------------- resources

namespace {

bool is_hugepages(std::string_view n) { return n.starts_with("hugepages-"); }
bool is_native(std::string_view n) {
  return n.find('/') == std::string_view::npos || n.find("kubernetes.io/") != std::string_view::npos;
}
bool is_extended(std::string_view n) {
  if (is_native(n) || n.starts_with("requests.")) return false;
  return labels::validate_label_key(std::string("requests.").append(n)).empty();
}
bool is_standard(std::string_view n) {
  static constexpr std::string_view kStandard[] = {"cpu",
                                                   "memory",
                                                   "ephemeral-storage",
                                                   "requests.cpu",
                                                   "requests.memory",
                                                   "requests.ephemeral-storage",
                                                   "limits.cpu",
                                                   "limits.memory",
                                                   "limits.ephemeral-storage",
                                                   "pods",
                                                   "resourcequotas",
                                                   "services",
                                                   "replicationcontrollers",
                                                   "secrets",
                                                   "configmaps",
                                                   "persistentvolumeclaims",
                                                   "storage",
                                                   "requests.storage",
                                                   "services.nodeports",
                                                   "services.loadbalancers"};
  return std::find(std::begin(kStandard), std::end(kStandard), n) != std::end(kStandard) || is_hugepages(n) ||
         n.starts_with("requests.hugepages-");
}
bool is_standard_quota(std::string_view n) {
  static constexpr std::string_view kQuota[] = {"pods",
                                                "services",
                                                "replicationcontrollers",
                                                "resourcequotas",
                                                "cpu",
                                                "memory",
                                                "requests.cpu",
                                                "requests.memory",
                                                "requests.storage",
                                                "requests.ephemeral-storage",
                                                "limits.cpu",
                                                "limits.memory",
                                                "limits.ephemeral-storage",
                                                "persistentvolumeclaims",
                                                "configmaps",
                                                "secrets",
                                                "services.nodeports",
                                                "services.loadbalancers",
                                                "ephemeral-storage"};
  return std::find(std::begin(kQuota), std::end(kQuota), n) != std::end(kQuota) ||
         n.starts_with("requests.hugepages-") || n.starts_with("hugepages-");
}
bool is_integer_resource(std::string_view n) {
  static constexpr std::string_view kInteger[] = {
      "pods",       "resourcequotas",         "services",           "replicationcontrollers", "secrets",
      "configmaps", "persistentvolumeclaims", "services.nodeports", "services.loadbalancers"};
  return std::find(std::begin(kInteger), std::end(kInteger), n) != std::end(kInteger) || is_extended(n);
}
bool overcommit_allowed(std::string_view n) { return is_native(n) && !is_hugepages(n); }

}  // namespace

void resource_name(Errors& e, std::string_view name, const Path& path, ResourceNames which) {
  std::vector<std::string> q = qualified_name(name);
  each(e, q, path, name);
  const bool slash = name.find('/') != std::string_view::npos;
  const bool standard = slash || is_standard(name);
  if (q.empty() && !standard) e.invalid_str(path, name, "must be a standard resource type or fully qualified");
  if (!q.empty()) return;
  if (which == ResourceNames::Pod) {
    // validatePodResourceName: a valid name, then one PodLevelResources supports.
    if (!standard) return;
    if (name != "cpu" && name != "memory" && !is_hugepages(name))
      e.not_supported(path, go_quote(name), {"cpu", "hugepages-", "memory"});
    return;
  }
  if (which == ResourceNames::Container) {
    if (!slash) {
      bool container = name == "cpu" || name == "memory" || name == "ephemeral-storage" || is_hugepages(name);
      if (!container) e.invalid_str(path, name, "must be a standard resource for containers");
    } else if (!is_native(name) && !is_extended(name)) {
      e.invalid_str(path, name, "doesn't follow extended resource name standard");
    }
  } else if (which == ResourceNames::Quota && !slash && !is_standard_quota(name)) {
    e.invalid_str(path, name, "must be a standard resource for quota");
  }
}

void resource_quantity_value(Errors& e, std::string_view name, const json::value& v, const Path& path) {
  // Decode left every quantity as upstream prints it: a negative one, and only it, starts with '-'.
  if (!v.is_string()) return;  // decode refused anything that is not a quantity
  std::string_view text = v.get_string();
  if (!text.empty() && text.front() == '-') e.invalid_str(path, text, "must be greater than or equal to 0");
  if (is_integer_resource(name))
    if (auto q = quantity_of(v); q && q->milli_value() % 1000 != 0)
      e.invalid_str(path, text, "must be an integer");
}

void resource_requirements(Errors& e, const json::object* limits, const json::object* requests,
                           const Path& path, ResourceNames which) {
  bool lim_cpu_mem = false, req_cpu_mem = false, lim_huge = false, req_huge = false;
  // A quantity as upstream's String() prints it: the text decode left (upstream_text).
  auto text = [](const json::value& v) { return v.is_string() ? std::string(v.get_string()) : std::string(); };
  auto hugepage_divisible = [&](std::string_view name, const json::value& v, const Path& p) {
    auto q = quantity_of(v);
    auto page = api::Quantity::parse(name.substr(10));
    bool ok = q && page && page->sign() > 0 && page->milli_value() % 1000 == 0 && page->value() > 0 &&
              q->value() % page->value() == 0;
    if (q && !ok) e.invalid_str(p, text(v), text(v) + " is not positive integer multiple of " + std::string(name));
  };
  const Path lim_path = path.child("limits"), req_path = path.child("requests");
  if (limits)
    for (const auto& kv : *limits) {
      const Path p = lim_path.key(kv.key());
      resource_name(e, kv.key(), p, which);
      resource_quantity_value(e, kv.key(), kv.value(), p);
      if (is_hugepages(kv.key())) {
        lim_huge = true;
        hugepage_divisible(kv.key(), kv.value(), p);
      }
      lim_cpu_mem = lim_cpu_mem || kv.key() == "cpu" || kv.key() == "memory";
    }
  if (requests)
    for (const auto& kv : *requests) {
      const Path p = req_path.key(kv.key());
      resource_name(e, kv.key(), p, which);
      resource_quantity_value(e, kv.key(), kv.value(), p);
      const json::value* lim = limits ? limits->if_contains(kv.key()) : nullptr;
      if (lim) {
        // Equal canonical texts are equal quantities: only different ones need parsing.
        if (*lim != kv.value()) {
          auto rq = quantity_of(kv.value()), lq = quantity_of(*lim);
          if (rq && lq) {
            std::string n(kv.key());
            if (*rq != *lq && !overcommit_allowed(n))
              e.invalid_str(req_path, text(kv.value()), "must be equal to " + n + " limit of " + text(*lim));
            else if (*rq > *lq)
              e.invalid_str(req_path, text(kv.value()),
                            "must be less than or equal to " + n + " limit of " + text(*lim));
          }
        }
      } else if (!overcommit_allowed(kv.key())) {
        e.required(lim_path, "Limit must be set for non overcommitable resources");
      }
      if (is_hugepages(kv.key())) {
        req_huge = true;
        hugepage_divisible(kv.key(), kv.value(), p);
      }
      req_cpu_mem = req_cpu_mem || kv.key() == "cpu" || kv.key() == "memory";
    }
  if (!lim_cpu_mem && !req_cpu_mem && (req_huge || lim_huge))
    e.forbidden(path, "HugePages require cpu or memory");
}

// ---------------------------------------------------------------- scheduling

void taint_effect(Errors& e, std::string_view effect, bool allow_empty, const Path& path) {
  if (!allow_empty && effect.empty()) {
    e.required(path);
    return;
  }
  if (effect != "NoSchedule" && effect != "PreferNoSchedule" && effect != "NoExecute")
    e.not_supported(path, go_quote(effect), {"NoSchedule", "PreferNoSchedule", "NoExecute"});
}

void tolerations(Errors& e, const json::array& ts, const Path& path) {
  for (std::size_t i = 0; i < ts.size(); ++i) {
    if (!ts[i].is_object()) continue;
    const json::object& t = ts[i].get_object();
    const Path p = path.index(i);
    std::string_view k = sv(t, "key"), op = sv(t, "operator"), value = sv(t, "value"),
                     effect = sv(t, "effect");
    if (!k.empty()) each(e, qualified_name(k), p.child("key"), k);
    if (k.empty() && op != "Exists")
      e.invalid_str(
          p.child("operator"), op,
          "operator must be Exists when `key` is empty, which means \"match all values and all keys\"");
    if (has(t, "tolerationSeconds") && effect != "NoExecute")
      e.invalid_str(p.child("effect"), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set");
    if (op.empty() || op == "Equal") {
      std::vector<std::string> errs = label_value(value);
      if (!errs.empty()) {
        std::string joined;
        for (const auto& m : errs) joined.append(joined.empty() ? "" : ";").append(m);
        e.invalid_str(p.child("operator"), value, joined);
      }
    } else if (op == "Exists") {
      if (!value.empty())
        e.invalid_str(p.child("operator"), value, "value must be empty when `operator` is 'Exists'");
    } else {
      e.not_supported(p.child("operator"), go_quote(op), {"Equal", "Exists"});
    }
    if (!effect.empty()) taint_effect(e, effect, true, p.child("effect"));
  }
}

namespace {

// ValidateNodeSelectorRequirement (allowInvalidLabelValueInRequiredNodeAffinity = false).
void node_selector_requirement(Errors& e, const json::object& rq, const Path& path) {
  std::string_view op = sv(rq, "operator");
  const json::array* values = arr(rq, "values");
  std::size_t n = values ? values->size() : 0;
  const Path vp = path.child("values");
  if (op == "In" || op == "NotIn") {
    if (n == 0) e.required(vp, "must be specified when `operator` is 'In' or 'NotIn'");
  } else if (op == "Exists" || op == "DoesNotExist") {
    if (n > 0) e.forbidden(vp, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
  } else if (op == "Gt" || op == "Lt") {
    if (n != 1) e.required(vp, "must be specified single value when `operator` is 'Lt' or 'Gt'");
  } else {
    e.invalid_str(path.child("operator"), op, "not a valid selector operator");
  }
  each(e, qualified_name(sv(rq, "key")), path.child("key"), sv(rq, "key"));
  if (values)
    for (std::size_t i = 0; i < values->size(); ++i)
      if ((*values)[i].is_string())
        each(e, label_value((*values)[i].get_string()), vp.index(i), (*values)[i].get_string());
}

// ValidateNodeFieldSelectorRequirement: only metadata.name, with one value for In/NotIn.
void node_field_selector_requirement(Errors& e, const json::object& rq, const Path& path) {
  std::string_view op = sv(rq, "operator");
  const json::array* values = arr(rq, "values");
  std::size_t n = values ? values->size() : 0;
  if (op == "In" || op == "NotIn") {
    if (n != 1)
      e.required(path.child("values"),
                 "must be only one value when `operator` is 'In' or 'NotIn' for node field selector");
  } else {
    e.invalid_str(path.child("operator"), op, "not a valid selector operator");
  }
  if (sv(rq, "key") != "metadata.name")
    e.not_supported(path.child("key"), go_quote(sv(rq, "key")), {"metadata.name"});
}

}  // namespace

void node_selector_term(Errors& e, const json::object& term, const Path& path) {
  if (const json::array* m = arr(term, "matchExpressions")) {
    const Path mp = path.child("matchExpressions");
    for (std::size_t i = 0; i < m->size(); ++i)
      if ((*m)[i].is_object()) node_selector_requirement(e, (*m)[i].get_object(), mp.index(i));
  }
  if (const json::array* m = arr(term, "matchFields")) {
    const Path mp = path.child("matchFields");
    for (std::size_t i = 0; i < m->size(); ++i)
      if ((*m)[i].is_object()) node_field_selector_requirement(e, (*m)[i].get_object(), mp.index(i));
  }
}

void node_selector(Errors& e, const json::object& ns, const Path& path) {
  const json::array* terms = arr(ns, "nodeSelectorTerms");
  const Path tp = path.child("nodeSelectorTerms");
  if (!terms || terms->empty()) {
    e.required(tp, "must have at least one node selector term");
    return;
  }
  for (std::size_t i = 0; i < terms->size(); ++i)
    if ((*terms)[i].is_object()) node_selector_term(e, (*terms)[i].get_object(), tp.index(i));
}

void label_selector(Errors& e, const json::object& sel, const Path& path) {
  if (const json::array* m = arr(sel, "matchExpressions")) {
    const Path mp = path.child("matchExpressions");
    for (std::size_t i = 0; i < m->size(); ++i) {
      if (!(*m)[i].is_object()) continue;
      const json::object& rq = (*m)[i].get_object();
      const Path p = mp.index(i);
      const Path vp = p.child("values");
      std::string_view op = sv(rq, "operator");
      const json::array* values = arr(rq, "values");
      std::size_t n = values ? values->size() : 0;
      if (op == "In" || op == "NotIn") {
        if (n == 0) e.required(vp, "must be specified when `operator` is 'In' or 'NotIn'");
      } else if (op == "Exists" || op == "DoesNotExist") {
        if (n > 0) e.forbidden(vp, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
      } else {
        e.invalid_str(p.child("operator"), op, "not a valid selector operator");
      }
      each(e, qualified_name(sv(rq, "key")), p.child("key"), sv(rq, "key"));
      if (values)
        for (std::size_t j = 0; j < values->size(); ++j)
          if ((*values)[j].is_string())
            each(e, label_value((*values)[j].get_string()), vp.index(j), (*values)[j].get_string());
    }
  }
  if (const json::object* ml = obj(sel, "matchLabels")) labels(e, *ml, path.child("matchLabels"));
}

}  // namespace ksched::apiserver::rules
