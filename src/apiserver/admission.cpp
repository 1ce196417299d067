#include "apiserver/admission.h"

#include <boost/json.hpp>
#include <cctype>

namespace ksched::apiserver {

namespace json = boost::json;

namespace {

json::object& obj_at(json::object& o, std::string_view k) {
  auto& v = o[k];
  if (!v.is_object()) v = json::object();
  return v.get_object();
}

std::string str(const json::object& o, std::string_view k) {
  auto* v = o.if_contains(k);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

void set_default(json::object& o, std::string_view k, json::value v) {
  if (!o.contains(k)) o[k] = std::move(v);
}

bool alnum_lower(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

bool is_label(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  if (!alnum_lower(s.front()) || !alnum_lower(s.back())) return false;
  for (char c : s)
    if (!alnum_lower(c) && c != '-') return false;
  return true;
}

const char* kSubdomainMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const char* kLabelMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
    "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const char* kDns1035Msg =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, "
    "and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
    "'[a-z]([-a-z0-9]*[a-z0-9])?')";
const char* kQualifiedNameMsg =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const char* kLabelValueMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation "
    "is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

bool is_qualified_part(std::string_view s) {
  if (s.empty() || s.size() > 63 || !alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s)
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

std::string quote_json(const std::string& s) { return json::serialize(json::value(s)); }

Cause invalid_cause(const std::string& field, const std::string& value, const std::string& msg) {
  return Cause{"FieldValueInvalid", "Invalid value: " + quote_json(value) + ": " + msg, field};
}

void check_key(std::vector<Cause>& out, const std::string& field, const std::string& key) {
  std::string_view k = key, prefix;
  auto slash = k.find('/');
  if (slash != std::string_view::npos) {
    prefix = k.substr(0, slash);
    k = k.substr(slash + 1);
    if (!check_dns1123_subdomain(std::string(prefix)).empty())
    {
      std::string msg = "prefix part ";
      msg.append(kSubdomainMsg);
      out.push_back(invalid_cause(field, key, msg));
    }
  }
  if (k.size() > 63)
    out.push_back(invalid_cause(field, key, "name part must be no more than 63 characters"));
  else if (!is_qualified_part(k))
    out.push_back(invalid_cause(field, key, kQualifiedNameMsg));
}

// QoS class from requests/limits (upstream GetPodQOS, simplified to cpu/memory).
std::string qos_class(const json::object& spec) {
  auto* cs = spec.if_contains("containers");
  if (!cs || !cs->is_array()) return "BestEffort";
  bool any = false, guaranteed = true;
  for (const auto& c : cs->get_array()) {
    if (!c.is_object()) continue;
    auto* res = c.get_object().if_contains("resources");
    const json::object* req = nullptr;
    const json::object* lim = nullptr;
    if (res && res->is_object()) {
      if (auto* r = res->get_object().if_contains("requests"); r && r->is_object()) req = &r->get_object();
      if (auto* l = res->get_object().if_contains("limits"); l && l->is_object()) lim = &l->get_object();
    }
    if ((req && !req->empty()) || (lim && !lim->empty())) any = true;
    for (const char* rn : {"cpu", "memory"}) {
      const json::value* l = lim ? lim->if_contains(rn) : nullptr;
      const json::value* q = req ? req->if_contains(rn) : nullptr;
      if (!l || (q && *q != *l)) guaranteed = false;
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

void default_container(json::object& c) {
  set_default(c, "terminationMessagePath", "/dev/termination-log");
  set_default(c, "terminationMessagePolicy", "File");
  if (!c.contains("imagePullPolicy")) {
    std::string image = str(c, "image");
    auto slash = image.rfind('/');
    std::string last = slash == std::string::npos ? image : image.substr(slash + 1);
    bool digest = image.find('@') != std::string::npos;
    auto colon = last.find(':');
    bool latest = !digest && (colon == std::string::npos || last.substr(colon + 1) == "latest");
    c["imagePullPolicy"] = latest ? "Always" : "IfNotPresent";
  }
  if (!c.contains("resources")) c["resources"] = json::object();
  if (auto* ports = c.if_contains("ports"); ports && ports->is_array()) {
    for (auto& p : ports->get_array())
      if (p.is_object()) set_default(p.get_object(), "protocol", "TCP");
  }
}

}  // namespace

std::string check_dns1123_subdomain(const std::string& v) {
  if (v.size() > 253) return "must be no more than 253 characters";
  if (v.empty()) return kSubdomainMsg;
  std::string_view s = v;
  while (true) {
    auto dot = s.find('.');
    if (!is_label(s.substr(0, dot)) && s.substr(0, dot).size() <= 63) return kSubdomainMsg;
    if (s.substr(0, dot).size() > 63) return kSubdomainMsg;
    if (dot == std::string_view::npos) break;
    s = s.substr(dot + 1);
  }
  return "";
}

std::string check_dns1123_label(const std::string& v) {
  if (v.size() > 63) return "must be no more than 63 characters";
  return is_label(v) ? "" : kLabelMsg;
}

void default_pod(json::object& pod) {
  auto& spec = obj_at(pod, "spec");
  set_default(spec, "restartPolicy", "Always");
  set_default(spec, "terminationGracePeriodSeconds", 30);
  set_default(spec, "dnsPolicy", "ClusterFirst");
  set_default(spec, "securityContext", json::object());
  set_default(spec, "schedulerName", "default-scheduler");
  set_default(spec, "enableServiceLinks", true);
  set_default(spec, "preemptionPolicy", "PreemptLowerPriority");
  if (spec.contains("serviceAccount") && !spec.contains("serviceAccountName"))
    spec["serviceAccountName"] = spec["serviceAccount"];
  for (const char* list : {"containers", "initContainers"}) {
    if (auto* cs = spec.if_contains(list); cs && cs->is_array()) {
      for (auto& c : cs->get_array())
        if (c.is_object()) default_container(c.get_object());
    }
  }
  // DefaultTolerationSeconds admission: tolerate not-ready/unreachable for 300 s.
  auto& tv = spec["tolerations"];
  if (!tv.is_array()) tv = json::array();
  auto& tols = tv.get_array();
  for (const char* key : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
    bool has = false;
    for (const auto& t : tols) {
      if (!t.is_object()) continue;
      const auto& to = t.get_object();
      std::string k = str(to, "key"), eff = str(to, "effect");
      if ((k == key || (k.empty() && str(to, "operator") == "Exists")) && (eff.empty() || eff == "NoExecute"))
        has = true;
    }
    if (!has)
      tols.push_back(json::object{{"key", key}, {"operator", "Exists"}, {"effect", "NoExecute"},
                                  {"tolerationSeconds", 300}});
  }
}

void reset_pod_status(json::object& pod) {
  auto& spec = obj_at(pod, "spec");
  json::object status{{"phase", "Pending"}, {"qosClass", qos_class(spec)}};
  if (auto* g = spec.if_contains("schedulingGates"); g && g->is_array() && !g->get_array().empty()) {
    status["conditions"] = json::array{json::object{{"type", "PodScheduled"},
                                                    {"status", "False"},
                                                    {"lastProbeTime", nullptr},
                                                    {"lastTransitionTime", nullptr},
                                                    {"reason", "SchedulingGated"},
                                                    {"message", "Scheduling is blocked due to non-empty scheduling gates"}}};
  }
  pod["status"] = std::move(status);
}

std::optional<ApiError> admit_priority(json::object& pod,
                                       const std::function<std::optional<std::int64_t>(const std::string&)>& lookup) {
  auto& spec = obj_at(pod, "spec");
  std::string pc = str(spec, "priorityClassName");
  if (pc.empty()) {
    set_default(spec, "priority", 0);
    return std::nullopt;
  }
  auto v = lookup(pc);
  (void)obj_at(pod, "metadata");
  auto& spec2 = obj_at(pod, "spec");  // re-fetched: inserting into `pod` may move its members
  if (!v) {
    ApiError e{403, "Forbidden", "pods \"" + str(obj_at(pod, "metadata"), "name") +
                                     "\" is forbidden: no PriorityClass with name " + pc + " was found"};
    e.name = str(obj_at(pod, "metadata"), "name");
    e.kind = "pods";
    return e;
  }
  spec2["priority"] = *v;
  return std::nullopt;
}

ApiError invalid(const ResourceInfo& r, const std::string& name, std::vector<Cause> causes) {
  ApiError e;
  e.code = 422;
  e.reason = "Invalid";
  std::string list;
  for (std::size_t i = 0; i < causes.size(); ++i) {
    if (i) list += ", ";
    list += causes[i].field + ": " + causes[i].message;
  }
  e.message = r.qualified_kind() + " \"" + name + "\" is invalid: " + (causes.size() > 1 ? "[" + list + "]" : list);
  e.name = name;
  e.group = r.group;
  e.kind = r.kind;
  e.causes = std::move(causes);
  return e;
}

std::optional<ApiError> validate_object(const ResourceInfo& r, const json::object& obj, bool create) {
  std::vector<Cause> causes;
  const json::value* mv = obj.if_contains("metadata");
  static const json::object empty;
  const json::object& meta = mv && mv->is_object() ? mv->get_object() : empty;
  std::string name = str(meta, "name");
  if (name.empty()) {
    causes.push_back(Cause{"FieldValueRequired", "Required value: name or generateName is required", "metadata.name"});
  } else {
    std::string msg;
    if (r.plural == "namespaces")
      msg = check_dns1123_label(name);
    else if (r.plural == "services")
      msg = name.size() > 63 ? "must be no more than 63 characters"
            : (is_label(name) && std::isalpha(static_cast<unsigned char>(name[0]))) ? ""
                                                                                   : kDns1035Msg;
    else if (name == "." || name == ".." || name.find('/') != std::string::npos || name.find('%') != std::string::npos)
      msg = name == "." || name == ".." ? "may not be '" + name + "'" : "may not contain '/'";
    else if (r.plural == "events" || r.plural == "leases" || r.group == "rbac.authorization.k8s.io")
      msg = "";  // path-segment names are enough for these (RBAC names hold ':')
    else
      msg = check_dns1123_subdomain(name);
    if (!msg.empty()) causes.push_back(invalid_cause("metadata.name", name, msg));
  }
  std::size_t total = 0;
  if (auto* l = meta.if_contains("labels"); l && l->is_object()) {
    for (const auto& kv : l->get_object()) {
      std::string k(kv.key());
      check_key(causes, "metadata.labels", k);
      std::string v = kv.value().is_string() ? std::string(kv.value().get_string()) : std::string();
      if (v.size() > 63)
        causes.push_back(invalid_cause("metadata.labels", v, "must be no more than 63 characters"));
      else if (!v.empty() && !is_qualified_part(v))
        causes.push_back(invalid_cause("metadata.labels", v, kLabelValueMsg));
    }
  }
  if (auto* a = meta.if_contains("annotations"); a && a->is_object()) {
    for (const auto& kv : a->get_object()) {
      std::string k(kv.key());
      check_key(causes, "metadata.annotations", k);
      total += k.size() + (kv.value().is_string() ? kv.value().get_string().size() : 0);
    }
    if (total > 262144)
      causes.push_back(Cause{"FieldValueTooLong", "Too long: must have at most 262144 bytes", "metadata.annotations"});
  }
  if (r.kind == "Pod" && r.group.empty()) {
    const json::value* sv = obj.if_contains("spec");
    const json::value* cs = sv && sv->is_object() ? sv->get_object().if_contains("containers") : nullptr;
    if (!cs || !cs->is_array() || cs->get_array().empty()) {
      causes.push_back(Cause{"FieldValueRequired", "Required value", "spec.containers"});
    } else {
      std::size_t i = 0;
      std::vector<std::string> seen;
      for (const auto& c : cs->get_array()) {
        std::string base = "spec.containers[" + std::to_string(i++) + "]";
        if (!c.is_object()) continue;
        std::string cn = str(c.get_object(), "name");
        if (cn.empty())
          causes.push_back(Cause{"FieldValueRequired", "Required value", base + ".name"});
        else if (!check_dns1123_label(cn).empty())
          causes.push_back(invalid_cause(base + ".name", cn, check_dns1123_label(cn)));
        else {
          for (const auto& s : seen)
            if (s == cn) causes.push_back(Cause{"FieldValueDuplicate", "Duplicate value: " + quote_json(cn), base + ".name"});
          seen.push_back(cn);
        }
        if (str(c.get_object(), "image").empty() && create)
          causes.push_back(Cause{"FieldValueRequired", "Required value", base + ".image"});
      }
    }
  }
  if (r.plural == "priorityclasses" && !obj.contains("value"))
    causes.push_back(Cause{"FieldValueRequired", "Required value", "value"});
  if (causes.empty()) return std::nullopt;
  return invalid(r, name, std::move(causes));
}

}  // namespace ksched::apiserver
