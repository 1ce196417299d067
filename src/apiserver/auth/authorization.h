// Authorization of every request, as kube-apiserver's WithAuthorization filter and its authorizer
// chain: members of system:masters are always allowed (the privileged-group authorizer), then the
// configured mode decides (RBAC, or AlwaysAllow). A denied request gets upstream's Forbidden
// Status, word for word.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/auth/auth.h"
#include "apiserver/endpoints/request_info.h"
#include "apiserver/status.h"
#include "util/result.h"

namespace ksched::apiserver {

class Store;
class RbacAuthorizer;

enum class AuthorizationMode { AlwaysAllow, RBAC };
// "RBAC" or "AlwaysAllow" (kube-apiserver's --authorization-mode names).
util::Result<AuthorizationMode> parse_authorization_mode(std::string_view s);

// authorizer.Attributes: who asks to do what. Views: whatever they point into must outlive them.
struct Attributes {
  const UserInfo* user = nullptr;  // never null when authorized
  std::string_view verb;
  bool resource_request = false;
  std::string_view path;  // non-resource requests
  std::string_view group, version, resource, subresource, ns, name;
};
Attributes attributes_of(const UserInfo& user, const RequestInfo& info);

struct AuthorizationResult {
  bool allowed = false;
  std::string reason;  // upstream's reason text ("" when it has none)
};

// responsewriters.ForbiddenStatusError: 403, reason Forbidden, details {group, kind: resource,
// name}, message `<resource>[.<group>] ["<name>"] is forbidden: User "<u>" cannot <verb> resource
// "<res>[/<sub>]" in API group "<g>" in the namespace "<ns>"` (or `at the cluster scope`), or
// `forbidden: User "<u>" cannot <verb> path "<path>"`; ": <reason>" follows when there is one.
ApiError forbidden_error(const Attributes& a, std::string_view reason);

class Authorizer {
 public:
  explicit Authorizer(const Store& store);
  ~Authorizer();

  void set_mode(AuthorizationMode m) { mode_ = m; }
  AuthorizationMode mode() const { return mode_; }
  // The decision alone (the request path).
  bool allows(const Attributes& a) const;
  // The decision with its reason (reviews, and the Forbidden message of a denied request).
  AuthorizationResult authorize(const Attributes& a) const;
  const RbacAuthorizer& rbac() const { return *rbac_; }

 private:
  AuthorizationMode mode_ = AuthorizationMode::RBAC;
  std::unique_ptr<RbacAuthorizer> rbac_;
};

// Go's %q of a string, as upstream's messages quote names, verbs and paths.
std::string go_quote(std::string_view s);
// Go's %q of a []string: ["a" "b"].
std::string go_quote_list(const std::vector<std::string>& v);

// Whether the user is in system:masters (upstream's privileged group: always allowed, and exempt
// from RBAC's escalation checks).
bool is_privileged(const UserInfo& user);

}  // namespace ksched::apiserver
