#include "apiserver/write/validation.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>

#include "apiserver/json_access.h"
#include "apiserver/write/validation_rules.h"

namespace ksched::apiserver {

namespace json = boost::json;

namespace {

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

ApiError invalid(const ResourceInfo& r, const std::string& name, std::vector<Cause> causes) {
  ApiError e;
  e.code = 422;
  e.reason = "Invalid";
  // field.ErrorList.ToAggregate: each distinct message once, several in brackets.
  std::vector<std::string> msgs;
  for (const auto& c : causes) {
    std::string m = c.field + ": " + c.message;
    if (std::find(msgs.begin(), msgs.end(), m) == msgs.end()) msgs.push_back(std::move(m));
  }
  std::string list;
  for (std::size_t i = 0; i < msgs.size(); ++i) list += (i ? ", " : "") + msgs[i];
  e.message = r.qualified_kind() + " \"" + name + "\" is invalid: " + (msgs.size() > 1 ? "[" + list + "]" : list);
  e.name = name;
  e.group = r.group;
  e.kind = r.kind;
  e.causes = std::move(causes);
  return e;
}

namespace {

// ValidateObjectMeta: the name as the kind names it, labels, annotations.
void object_meta(const ResourceInfo& r, const json::object& obj, std::vector<Cause>& causes) {
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
}

}  // namespace

// Upstream compares specs with apiequality.Semantic.DeepEqual, where a nil and an empty slice or
// map are equal, and a non-pointer zero value is what omitempty leaves out. Dropping null, false,
// 0, "", [] and {} members (recursively) gives JSON that compares the same way.
json::value rules::semantic(const json::value& v) {
  if (v.is_object()) {
    json::object out;
    for (const auto& kv : v.get_object()) {
      json::value x = semantic(kv.value());
      bool zero = x.is_null() || (x.is_bool() && !x.get_bool()) || (x.is_int64() && x.get_int64() == 0) ||
                  (x.is_string() && x.get_string().empty()) || (x.is_array() && x.get_array().empty()) ||
                  (x.is_object() && x.get_object().empty());
      if (!zero) out[kv.key()] = std::move(x);
    }
    return out;
  }
  if (v.is_array()) {
    json::array out;
    for (const auto& x : v.get_array()) out.push_back(semantic(x));
    return out;
  }
  return v;
}

std::optional<ApiError> validate_write(const ResourceInfo& r, const json::object& obj, std::vector<Cause> kind_causes) {
  std::vector<Cause> causes;
  object_meta(r, obj, causes);
  if (causes.empty() && kind_causes.empty()) return std::nullopt;
  if (causes.empty()) {
    causes = std::move(kind_causes);
  } else {
    causes.reserve(causes.size() + kind_causes.size());
    for (auto& c : kind_causes) causes.push_back(std::move(c));
  }
  return invalid(r, str(member_or_empty(obj, "metadata"), "name"), std::move(causes));
}

}  // namespace ksched::apiserver
