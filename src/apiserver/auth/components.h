// The identities of ksched's own components: each gets a token of its own from the server
// (Server::component_kubeconfig) and only the RBAC bindings its upstream counterpart has, never the
// admin token.
#pragma once
#include <array>
#include <string_view>

namespace ksched::apiserver {

struct ComponentIdentity {
  std::string_view component;  // the name callers ask for (and of the token file in DIR/pki)
  std::string_view user;
  std::string_view group;  // "" = none besides system:authenticated
};

// kube-scheduler and kube-controller-manager are upstream's users, bound by upstream's policy.
// The kubelet stand-in serves every simulated node, so it has no per-node identity
// (system:node:<name>) for a Node authorizer to restrict: it is one user in system:nodes, bound
// (ksched:node-simulator) to system:node's rules without those the Node authorizer grants a node
// only for objects its own pods reference (secrets, configmaps, volumes, claims, tokens).
inline constexpr std::array<ComponentIdentity, 3> kComponents = {{
    {"kube-scheduler", "system:kube-scheduler", ""},
    {"kube-controller-manager", "system:kube-controller-manager", ""},
    {"node-simulator", "system:node-simulator", "system:nodes"},
}};

inline const ComponentIdentity* find_component(std::string_view component) {
  for (const auto& c : kComponents)
    if (c.component == component) return &c;
  return nullptr;
}

}  // namespace ksched::apiserver
