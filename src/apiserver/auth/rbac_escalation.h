// RBAC's escalation checks on writes of the RBAC kinds, as upstream's policy-based storage
// (pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased): a user may
// write a role only with rules it holds itself (or the escalate verb on it), and bind a role only
// when it holds that role's rules itself (or the bind verb on it). system:masters is exempt.
#pragma once
#include <boost/json/fwd.hpp>
#include <optional>
#include <string_view>

#include "apiserver/auth/authorization.h"
#include "apiserver/resources.h"

namespace ksched::apiserver {

// Whether `r` is one of the four kinds the checks apply to.
bool is_rbac_kind(const ResourceInfo& r);

// The error that refuses the write of `obj` by `user`, or nullopt. `ns` is the request's namespace,
// `url_name` the name in the URL ("" for a create), `old` the stored object on an update (an update
// that changes only ownerReferences and finalizers, what the garbage collector writes, passes).
std::optional<ApiError> check_rbac_write(const Authorizer& authz, const UserInfo& user, const ResourceInfo& r,
                                         std::string_view ns, std::string_view url_name,
                                         const boost::json::object& obj, const boost::json::object* old);

}  // namespace ksched::apiserver
