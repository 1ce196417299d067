// The RBAC objects a fresh server holds: upstream's bootstrap policy (cluster roles, their bindings,
// the kube-system role bindings and the system:controller:* roles of the controllers this project
// runs), plus the bindings of ksched's own component identities (components.h).
#pragma once
#include <boost/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace ksched::apiserver {

struct BootstrapObject {
  std::string_view plural;  // clusterroles, clusterrolebindings, roles, rolebindings
  std::string ns;           // "" for the cluster-scoped kinds
  boost::json::object object;
};

// In creation order: roles before the bindings that reference them. Every object carries upstream's
// label kubernetes.io/bootstrapping=rbac-defaults and annotation
// rbac.authorization.kubernetes.io/autoupdate=true.
const std::vector<BootstrapObject>& bootstrap_policy();
// The policy under these gates: the rules upstream adds when a gate is on (GenericWorkload: the
// scheduler reads Workloads).
struct FeatureGates;
const std::vector<BootstrapObject>& bootstrap_policy(const FeatureGates& gates);

}  // namespace ksched::apiserver
