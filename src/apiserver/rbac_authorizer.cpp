#include "apiserver/rbac_authorizer.h"

#include <boost/json.hpp>

#include "apiserver/resources.h"

namespace ksched::apiserver {

namespace json = boost::json;

namespace {

std::string str_of(const json::object& o, std::string_view k) {
  auto* v = o.if_contains(k);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

// Whether the string array `o[k]` contains `want` (or "*" when `star`).
bool list_has(const json::object& o, std::string_view k, std::string_view want, bool star = true) {
  auto* v = o.if_contains(k);
  if (!v || !v->is_array()) return false;
  for (const auto& e : v->get_array()) {
    if (!e.is_string()) continue;
    if (e.get_string() == want || (star && e.get_string() == "*")) return true;
  }
  return false;
}

bool resource_matches(const json::object& rule, const AccessAttributes& a) {
  auto* v = rule.if_contains("resources");
  if (!v || !v->is_array()) return false;
  std::string combined = a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
  for (const auto& e : v->get_array()) {
    if (!e.is_string()) continue;
    std::string_view r = e.get_string();
    if (r == "*" || r == combined) return true;
    // "*/status" grants a subresource of every resource.
    if (!a.subresource.empty() && r == "*/" + a.subresource) return true;
  }
  return false;
}

bool path_matches(const json::object& rule, std::string_view path) {
  auto* v = rule.if_contains("nonResourceURLs");
  if (!v || !v->is_array()) return false;
  for (const auto& e : v->get_array()) {
    if (!e.is_string()) continue;
    std::string_view u = e.get_string();
    if (u == "*" || u == path) return true;
    if (!u.empty() && u.back() == '*' && path.starts_with(u.substr(0, u.size() - 1))) return true;
  }
  return false;
}

bool rule_allows(const json::object& rule, const AccessAttributes& a) {
  if (!list_has(rule, "verbs", a.verb)) return false;
  if (!a.resource_request) return path_matches(rule, a.path);
  if (!list_has(rule, "apiGroups", a.group)) return false;
  if (!resource_matches(rule, a)) return false;
  auto* names = rule.if_contains("resourceNames");
  if (!names || !names->is_array() || names->get_array().empty()) return true;
  return !a.name.empty() && list_has(rule, "resourceNames", a.name, false);
}

bool subject_matches(const json::object& s, const AccessAttributes& a) {
  std::string kind = str_of(s, "kind"), name = str_of(s, "name");
  if (kind == "User") return name == a.user;
  if (kind == "Group") {
    for (const auto& g : a.groups)
      if (g == name) return true;
    return false;
  }
  if (kind == "ServiceAccount") return a.user == "system:serviceaccount:" + str_of(s, "namespace") + ":" + name;
  return false;
}

ObjPtr get_by(const Store& store, std::string_view plural, std::string_view ns, std::string_view name) {
  return store.get(find_resource("rbac.authorization.k8s.io", "v1", plural)->id, ns, name);
}

// Evaluates the bindings of one kind; `binding_ns` is "" for ClusterRoleBindings.
std::optional<std::string> allowed_by(const Store& store, std::string_view binding_plural, std::string_view binding_ns,
                                      const AccessAttributes& a) {
  const ResourceInfo& br = *find_resource("rbac.authorization.k8s.io", "v1", binding_plural);
  Store::ListOptions lo;
  lo.ns = binding_ns;
  auto bindings = store.list(br.id, lo);
  if (!bindings) return std::nullopt;
  for (const auto& b : bindings->items) {
    json::value bv = json::parse(b->json);
    if (!bv.is_object()) continue;
    const auto& bo = bv.get_object();
    auto* subs = bo.if_contains("subjects");
    if (!subs || !subs->is_array()) continue;
    const json::object* who = nullptr;
    for (const auto& s : subs->get_array())
      if (s.is_object() && subject_matches(s.get_object(), a)) who = &s.get_object();
    if (!who) continue;
    auto* ref = bo.if_contains("roleRef");
    if (!ref || !ref->is_object()) continue;
    std::string role_kind = str_of(ref->get_object(), "kind"), role_name = str_of(ref->get_object(), "name");
    ObjPtr role = role_kind == "ClusterRole" ? get_by(store, "clusterroles", "", role_name)
                  : role_kind == "Role"      ? get_by(store, "roles", binding_ns, role_name)
                                             : nullptr;
    if (!role) continue;
    json::value rv = json::parse(role->json);
    auto* rules = rv.is_object() ? rv.get_object().if_contains("rules") : nullptr;
    if (!rules || !rules->is_array()) continue;
    for (const auto& rule : rules->get_array()) {
      if (!rule.is_object() || !rule_allows(rule.get_object(), a)) continue;
      std::string where = binding_ns.empty() ? "ClusterRoleBinding \"" + b->name + "\""
                                             : "RoleBinding \"" + b->name + "/" + std::string(binding_ns) + "\"";
      return "RBAC: allowed by " + where + " of " + role_kind + " \"" + role_name + "\" to " + str_of(*who, "kind") +
             " \"" + str_of(*who, "name") + "\"";
    }
  }
  return std::nullopt;
}

}  // namespace

AccessDecision authorize_rbac(const Store& store, const AccessAttributes& a) {
  for (const auto& g : a.groups)
    if (g == "system:masters") return {true, ""};
  if (auto why = allowed_by(store, "clusterrolebindings", "", a)) return {true, *why};
  if (a.resource_request && !a.ns.empty()) {
    if (auto why = allowed_by(store, "rolebindings", a.ns, a)) return {true, *why};
  }
  return {false, "no RBAC policy matched"};
}

}  // namespace ksched::apiserver
