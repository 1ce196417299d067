// RBAC evaluation over the stored (Cluster)Roles and (Cluster)RoleBindings, for SubjectAccessReview.
#pragma once
#include <string>
#include <vector>

#include "apiserver/storage.h"

namespace ksched::apiserver {

struct AccessAttributes {
  std::string user;
  std::vector<std::string> groups;
  bool resource_request = true;
  // Resource requests.
  std::string verb, group, resource, subresource, ns, name;
  // Non-resource requests.
  std::string path;
};

struct AccessDecision {
  bool allowed = false;
  std::string reason;
};

// system:masters is always allowed (upstream's privileged-group authorizer); otherwise a binding
// whose subject matches must reference a role with a matching rule.
AccessDecision authorize_rbac(const Store& store, const AccessAttributes& a);

}  // namespace ksched::apiserver
