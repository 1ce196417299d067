// RBAC over the stored (Cluster)Roles and (Cluster)RoleBindings, as upstream's RBAC authorizer
// (plugin/pkg/auth/authorizer/rbac) and its rule resolver (pkg/registry/rbac/validation).
//
// The four kinds are compiled into an index rather than read per request: for each subject (a user
// name, a group name; ServiceAccount subjects become their user names) the grants that apply to it,
// cluster-wide and per namespace, each pointing at its role's rules with their verbs as a bit set.
// A request looks up the user and each of its groups, then scans only their rules: no JSON, no
// allocation. The index is rebuilt when any of the four kinds changes (the store's per-resource
// revisions, read without a lock, say when); each thread keeps the index it last used, so the hot
// path takes no lock and touches no shared reference count.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/auth/authorization.h"
#include "apiserver/storage/storage.h"

namespace ksched::apiserver {

// rbacv1.PolicyRule as stored.
struct PolicyRule {
  std::vector<std::string> verbs, api_groups, resources, resource_names, non_resource_urls;
};

// RuleAllows: whether one rule grants the request (upstream's matching, "*" wildcards, "*/sub"
// for a subresource of any resource, trailing-"*" URL prefixes).
bool rule_allows(const Attributes& a, const PolicyRule& rule);
// validation.Covers: whether `owner` grants everything `servant` does; the servant rules it does
// not cover, broken down to one verb/group/resource/name each, go to `missing`.
bool rules_cover(const std::vector<const PolicyRule*>& owner, const std::vector<PolicyRule>& servant,
                 std::vector<PolicyRule>* missing);
// The missing rules merged as CompactRules does, each printed as rbacv1helpers.CompactString, sorted
// and de-duplicated: what the escalation error lists.
std::vector<std::string> describe_missing_rules(const std::vector<PolicyRule>& missing);
// utilerrors.NewAggregate(errs).Error(): one message alone, several de-duplicated in brackets.
std::string aggregate_errors(const std::vector<std::string>& errs);
// Reads a role's "rules" array; entries that are not objects are skipped.
std::vector<PolicyRule> policy_rules_of(const boost::json::value* rules);

class RbacIndex;

// The rules of a user in a namespace ("" = cluster-wide bindings only), and the errors met
// resolving them (bindings to roles that do not exist), as RulesFor.
struct UserRules {
  std::vector<const PolicyRule*> rules;
  std::vector<std::string> errors;
  std::shared_ptr<const RbacIndex> keep;  // the rules point into this
};

class RbacAuthorizer {
 public:
  explicit RbacAuthorizer(const Store& store);
  ~RbacAuthorizer();

  // Allowed or no opinion (RBAC never denies). The fast path: no text is built, the thread's
  // cached index is used while the four kinds are unchanged.
  bool allows(const Attributes& a) const;
  // The same decision with upstream's reason: "RBAC: allowed by ClusterRoleBinding ..." (the first
  // binding, in name order, that allows) or, denied, the resolution errors ("RBAC: clusterrole...
  // not found"), else "".
  AuthorizationResult authorize(const Attributes& a) const;
  UserRules rules_for(const UserInfo& user, std::string_view ns) const;
  // The rules a role reference grants (the binding's namespace for a Role), or the NotFound error
  // upstream's GetRoleReferenceRules returns.
  util::Result<std::vector<PolicyRule>, ApiError> role_reference_rules(std::string_view kind,
                                                                       std::string_view name,
                                                                       std::string_view binding_ns) const;

 private:
  struct Generation {
    std::int64_t v[4] = {0, 0, 0, 0};
    bool operator==(const Generation&) const = default;
  };
  Generation generation() const;
  // The index for the current generation; the reference is the calling thread's and stays valid
  // until this thread calls current() again.
  const RbacIndex& current() const;
  std::shared_ptr<const RbacIndex> shared() const;

  const Store& store_;
  int ids_[4];  // clusterrolebindings, rolebindings, clusterroles, roles
  const std::uint64_t instance_;
  mutable std::mutex mu_;
  mutable std::shared_ptr<const RbacIndex> latest_;  // guarded by mu_
  mutable Generation latest_gen_;
};

}  // namespace ksched::apiserver
