#include "apiserver/auth/rbac_escalation.h"

#include <boost/json.hpp>

#include "apiserver/json_access.h"
#include "apiserver/auth/rbac_authorizer.h"

namespace ksched::apiserver {

namespace json = boost::json;

namespace {

constexpr std::string_view kRbacGroup = "rbac.authorization.k8s.io";

ApiError forbidden(const ResourceInfo& r, const std::string& name, const std::string& why) {
  // apierrors.NewForbidden(GroupResource{rbac.authorization.k8s.io, <plural>}, name, err).
  ApiError e{403, "Forbidden",
             r.qualified_resource() + (name.empty() ? "" : " " + go_quote(name)) + " is forbidden: " + why};
  e.name = name;
  e.group = r.group;
  e.kind = r.plural;
  return e;
}

// ConfirmNoEscalation: the user's own rules in the namespace must cover `rules`.
std::optional<std::string> escalation(const Authorizer& authz, const UserInfo& user, std::string_view ns,
                                      const std::vector<PolicyRule>& rules) {
  UserRules own = authz.rbac().rules_for(user, ns);
  std::vector<PolicyRule> missing;
  if (rules_cover(own.rules, rules, &missing)) return std::nullopt;
  std::string msg = "user " + go_quote(user.name) + " (groups=" + go_quote_list(user.groups) +
                    ") is attempting to grant RBAC permissions not currently held:";
  for (const auto& d : describe_missing_rules(missing)) msg += "\n" + d;
  if (!own.errors.empty()) {
    // The resolver's aggregate error, printed inside the []error upstream collects it in.
    msg += "; resolution errors: [" + aggregate_errors(own.errors) + "]";
  }
  return msg;
}

bool authorized(const Authorizer& authz, const UserInfo& user, std::string_view verb, std::string_view group,
                std::string_view resource, std::string_view name, std::string_view ns) {
  Attributes a;
  a.user = &user;
  a.verb = verb;
  a.resource_request = true;
  a.group = group;
  a.version = "*";
  a.resource = resource;
  a.name = name;
  a.ns = ns;
  return authz.allows(a);
}

// rbacregistry.IsOnlyMutatingGCFields: the objects differ at most in ownerReferences and finalizers.
bool only_gc_fields_changed(const json::object& next, const json::object& old) {
  auto strip = [](json::object o) {
    if (auto* m = o.if_contains("metadata"); m && m->is_object()) {
      for (const char* k : {"ownerReferences", "finalizers", "resourceVersion", "managedFields"})
        m->get_object().erase(k);
    }
    return o;
  };
  return strip(next) == strip(old);
}

const json::object* member(const json::object& o, std::string_view k) {
  auto* v = o.if_contains(k);
  return v && v->is_object() ? &v->get_object() : nullptr;
}

}  // namespace

bool is_rbac_kind(const ResourceInfo& r) {
  return r.group == kRbacGroup && (r.plural == "roles" || r.plural == "clusterroles" ||
                                   r.plural == "rolebindings" || r.plural == "clusterrolebindings");
}

std::optional<ApiError> check_rbac_write(const Authorizer& authz, const UserInfo& user, const ResourceInfo& r,
                                         std::string_view ns, std::string_view url_name,
                                         const json::object& obj, const json::object* old) {
  // EscalationAllowed (system:masters); under AlwaysAllow the bind and escalate checks the
  // policy-based storage asks the authorizer always pass.
  if (authz.mode() == AuthorizationMode::AlwaysAllow || is_privileged(user)) return std::nullopt;
  if (old && only_gc_fields_changed(obj, *old)) return std::nullopt;
  const json::object* meta = member(obj, "metadata");
  const std::string name = meta ? str(*meta, "name") : std::string();
  const bool cluster = !r.namespaced;
  const std::string_view scope = cluster ? std::string_view() : ns;

  if (r.plural == "roles" || r.plural == "clusterroles") {
    // RoleEscalationAuthorized: the escalate verb on the role the request names.
    if (authorized(authz, user, "escalate", r.group, r.plural, url_name, scope)) return std::nullopt;
    if (auto why = escalation(authz, user, scope, policy_rules_of(obj.if_contains("rules"))))
      return forbidden(r, name, *why);
    if (r.plural == "clusterroles" && obj.contains("aggregationRule")) {
      const json::value* before = old ? old->if_contains("aggregationRule") : nullptr;
      const bool changed = !before || *before != obj.at("aggregationRule");
      // An aggregation rule can gather anything: it takes every permission there is.
      static const std::vector<PolicyRule> kFullAuthority = {PolicyRule{{"*"}, {"*"}, {"*"}, {}, {}},
                                                             PolicyRule{{"*"}, {}, {}, {}, {"*"}}};
      if (changed && escalation(authz, user, "", kFullAuthority))
        return forbidden(r, name, "must have cluster-admin privileges to use the aggregationRule");
    }
    return std::nullopt;
  }

  // Bindings: the bind verb on the referenced role, or holding its rules.
  const json::object* ref = member(obj, "roleRef");
  const std::string kind = ref ? str(*ref, "kind") : std::string();
  const std::string role = ref ? str(*ref, "name") : std::string();
  const std::string group = ref ? str(*ref, "apiGroup") : std::string();
  if ((kind == "ClusterRole" || kind == "Role") &&
      authorized(authz, user, "bind", group, kind == "ClusterRole" ? "clusterroles" : "roles", role, scope))
    return std::nullopt;
  auto rules = authz.rbac().role_reference_rules(kind, role, scope);
  if (!rules) return rules.error();
  if (auto why = escalation(authz, user, scope, *rules)) return forbidden(r, name, *why);
  return std::nullopt;
}

}  // namespace ksched::apiserver
