// Upstream's bootstrap RBAC policy (plugin/pkg/auth/authorizer/rbac/bootstrappolicy: policy.go,
// controller_policy.go, namespace_policy.go) as of v1.34/v1.35 with default feature gates, as its
// generated testdata (cluster-roles.yaml, controller-roles.yaml) lists it: each rule here is one
// entry there, with its lists in the same (sorted) order, so the two can be compared line by line.
// Only the roles this project's components and users need are kept (see docs/architecture.md,
// "Authorization").
#include "apiserver/auth/bootstrap_policy.h"

#include <algorithm>
#include <initializer_list>
#include <map>

#include "apiserver/auth/components.h"
#include "apiserver/features.h"

namespace ksched::apiserver {

namespace json = boost::json;

namespace {

using Strings = std::initializer_list<std::string_view>;

// rbacv1helpers.NewRule(verbs...).Groups(...).Resources(...).Names(...) / .URLs(...).
struct Rule {
  std::vector<std::string> verbs, groups, resources, names, urls;

  Rule&& in(Strings g) && {
    groups.assign(g.begin(), g.end());
    return std::move(*this);
  }
  Rule&& on(Strings r) && {
    resources.assign(r.begin(), r.end());
    return std::move(*this);
  }
  Rule&& named(Strings n) && {
    names.assign(n.begin(), n.end());
    return std::move(*this);
  }
  Rule&& urls_(Strings u) && {
    urls.assign(u.begin(), u.end());
    return std::move(*this);
  }

  json::object to_json() const {
    auto arr = [](const std::vector<std::string>& v) {
      json::array a;
      for (const auto& s : v) a.emplace_back(s);
      return a;
    };
    // rbacv1.PolicyRule's field order.
    json::object o{{"verbs", arr(verbs)}};
    if (!groups.empty()) o["apiGroups"] = arr(groups);
    if (!resources.empty()) o["resources"] = arr(resources);
    if (!names.empty()) o["resourceNames"] = arr(names);
    if (!urls.empty()) o["nonResourceURLs"] = arr(urls);
    return o;
  }
  bool operator==(const Rule&) const = default;
};

Rule verbs(Strings v) { return Rule{{v.begin(), v.end()}, {}, {}, {}, {}}; }
// The verb sets of policy.go, in the sorted order the testdata prints.
Rule read() { return verbs({"get", "list", "watch"}); }
Rule write() { return verbs({"create", "delete", "deletecollection", "patch", "update"}); }
Rule read_write() {
  return verbs({"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"});
}
Rule read_update() { return verbs({"get", "list", "patch", "update", "watch"}); }
// eventsRule(): both event APIs.
Rule events_rule() { return verbs({"create", "patch", "update"}).in({"", "events.k8s.io"}).on({"events"}); }

struct Subject {
  std::string_view kind, name, ns;
};
Subject user(std::string_view n) { return {"User", n, ""}; }
Subject group(std::string_view n) { return {"Group", n, ""}; }
Subject service_account(std::string_view ns, std::string_view n) { return {"ServiceAccount", n, ns}; }

struct RoleSpec {
  std::string name;
  std::vector<Rule> rules;
  std::map<std::string, std::string> labels = {};
  std::string_view aggregate_from = "";  // the label an aggregated role's aggregationRule selects
};

struct BindingSpec {
  std::string name;
  std::string_view role_kind;  // ClusterRole or Role
  std::string role;
  std::vector<Subject> subjects;
};

constexpr std::string_view kAggregateToAdmin = "rbac.authorization.k8s.io/aggregate-to-admin";
constexpr std::string_view kAggregateToEdit = "rbac.authorization.k8s.io/aggregate-to-edit";
constexpr std::string_view kAggregateToView = "rbac.authorization.k8s.io/aggregate-to-view";

// The tables keep one rule a line, as the testdata lists them.
// clang-format off
// ---------------------------------------------------------------------------- cluster roles
// At v1.35's default gates; cluster_roles() below adds what gates that are on add.
std::vector<RoleSpec> cluster_roles_at_defaults() {
  return {
      {"cluster-admin",
       {
           verbs({"*"}).in({"*"}).on({"*"}),
           verbs({"*"}).urls_({"*"}),
       }},
      {"system:discovery",
       {
           verbs({"get"}).urls_({"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*",
                                 "/readyz", "/version", "/version/"}),
       }},
      {"system:monitoring",
       {
           verbs({"get"}).urls_({"/healthz", "/healthz/*", "/livez", "/livez/*", "/metrics", "/metrics/slis", "/readyz",
                                 "/readyz/*"}),
       }},
      {"system:basic-user",
       {
           verbs({"create"}).in({"authorization.k8s.io"}).on({"selfsubjectaccessreviews", "selfsubjectrulesreviews"}),
           verbs({"create"}).in({"authentication.k8s.io"}).on({"selfsubjectreviews"}),
       }},
      {"system:public-info-viewer",
       {
           verbs({"get"}).urls_({"/healthz", "/livez", "/readyz", "/version", "/version/"}),
       }},
      {"admin", {}, {}, kAggregateToAdmin},
      {"edit", {}, {{std::string(kAggregateToAdmin), "true"}}, kAggregateToEdit},
      {"view", {}, {{std::string(kAggregateToEdit), "true"}}, kAggregateToView},
      {"system:aggregate-to-admin",
       {
           verbs({"create"}).in({"authorization.k8s.io"}).on({"localsubjectaccessreviews"}),
           read_write().in({"rbac.authorization.k8s.io"}).on({"rolebindings", "roles"}),
       },
       {{std::string(kAggregateToAdmin), "true"}}},
      {"system:aggregate-to-edit",
       {
           read().in({""}).on({"pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets", "services/proxy"}),
           verbs({"impersonate"}).in({""}).on({"serviceaccounts"}),
           write().in({""}).on({"pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"}),
           verbs({"create"}).in({""}).on({"pods/eviction"}),
           write().in({""}).on({"configmaps", "events", "persistentvolumeclaims", "replicationcontrollers",
                                "replicationcontrollers/scale", "secrets", "serviceaccounts", "services",
                                "services/proxy"}),
           verbs({"create"}).in({""}).on({"serviceaccounts/token"}),
           write().in({"apps"}).on({"daemonsets", "deployments", "deployments/rollback", "deployments/scale",
                                    "replicasets", "replicasets/scale", "statefulsets", "statefulsets/scale"}),
           write().in({"autoscaling"}).on({"horizontalpodautoscalers"}),
           write().in({"batch"}).on({"cronjobs", "jobs"}),
           write().in({"extensions"}).on({"daemonsets", "deployments", "deployments/rollback", "deployments/scale",
                                          "ingresses", "networkpolicies", "replicasets", "replicasets/scale",
                                          "replicationcontrollers/scale"}),
           write().in({"policy"}).on({"poddisruptionbudgets"}),
           write().in({"networking.k8s.io"}).on({"ingresses", "networkpolicies"}),
           read_write().in({"coordination.k8s.io"}).on({"leases"}),
       },
       {{std::string(kAggregateToEdit), "true"}}},
      {"system:aggregate-to-view",
       {
           read().in({""}).on({"configmaps", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status", "pods",
                               "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts", "services",
                               "services/status"}),
           read().in({""}).on({"bindings", "events", "limitranges", "namespaces/status", "pods/log", "pods/status",
                               "replicationcontrollers/status", "resourcequotas", "resourcequotas/status"}),
           read().in({""}).on({"namespaces"}),
           read().in({"discovery.k8s.io"}).on({"endpointslices"}),
           read().in({"apps"}).on({"controllerrevisions", "daemonsets", "daemonsets/status", "deployments",
                                   "deployments/scale", "deployments/status", "replicasets", "replicasets/scale",
                                   "replicasets/status", "statefulsets", "statefulsets/scale", "statefulsets/status"}),
           read().in({"autoscaling"}).on({"horizontalpodautoscalers", "horizontalpodautoscalers/status"}),
           read().in({"batch"}).on({"cronjobs", "cronjobs/status", "jobs", "jobs/status"}),
           read().in({"extensions"}).on({"daemonsets", "daemonsets/status", "deployments", "deployments/scale",
                                         "deployments/status", "ingresses", "ingresses/status", "networkpolicies",
                                         "replicasets", "replicasets/scale", "replicasets/status",
                                         "replicationcontrollers/scale"}),
           read().in({"policy"}).on({"poddisruptionbudgets", "poddisruptionbudgets/status"}),
           read().in({"networking.k8s.io"}).on({"ingresses", "ingresses/status", "networkpolicies"}),
       },
       {{std::string(kAggregateToView), "true"}}},
      {"system:auth-delegator",
       {
           verbs({"create"}).in({"authentication.k8s.io"}).on({"tokenreviews"}),
           verbs({"create"}).in({"authorization.k8s.io"}).on({"subjectaccessreviews"}),
       }},
      {"system:kube-controller-manager",
       {
           events_rule(),
           verbs({"create"}).in({"coordination.k8s.io"}).on({"leases"}),
           verbs({"get", "update"}).in({"coordination.k8s.io"}).on({"leases"}).named({"kube-controller-manager"}),
           verbs({"create"}).in({""}).on({"secrets", "serviceaccounts"}),
           verbs({"delete"}).in({""}).on({"secrets"}),
           verbs({"get"}).in({""}).on({"configmaps", "namespaces", "secrets", "serviceaccounts"}),
           verbs({"update"}).in({""}).on({"secrets", "serviceaccounts"}),
           verbs({"create"}).in({"authentication.k8s.io"}).on({"tokenreviews"}),
           verbs({"create"}).in({"authorization.k8s.io"}).on({"subjectaccessreviews"}),
           verbs({"list", "watch"}).in({"*"}).on({"*"}),
           verbs({"create"}).in({""}).on({"serviceaccounts/token"}),
       }},
      {"system:kube-dns",
       {
           verbs({"list", "watch"}).in({""}).on({"endpoints", "services"}),
       }},
      {"system:kube-scheduler",
       {
           events_rule(),
           verbs({"create"}).in({"coordination.k8s.io"}).on({"leases"}),
           verbs({"get", "list", "update", "watch"}).in({"coordination.k8s.io"}).on({"leases"}).named({"kube-scheduler"}),
           read_write().in({"coordination.k8s.io"}).on({"leasecandidates"}),
           read().in({""}).on({"nodes"}),
           verbs({"delete", "get", "list", "watch"}).in({""}).on({"pods"}),
           verbs({"create"}).in({""}).on({"bindings", "pods/binding"}),
           verbs({"patch", "update"}).in({""}).on({"pods/status"}),
           read().in({""}).on({"replicationcontrollers", "services"}),
           read().in({"apps", "extensions"}).on({"replicasets"}),
           read().in({"apps"}).on({"statefulsets"}),
           read().in({"policy"}).on({"poddisruptionbudgets"}),
           read().in({""}).on({"persistentvolumeclaims", "persistentvolumes"}),
           verbs({"create"}).in({"authentication.k8s.io"}).on({"tokenreviews"}),
           verbs({"create"}).in({"authorization.k8s.io"}).on({"subjectaccessreviews"}),
           read().in({"storage.k8s.io"}).on({"csinodes"}),
           read().in({"storage.k8s.io"}).on({"volumeattachments"}),
           read().in({""}).on({"namespaces"}),
           read().in({"storage.k8s.io"}).on({"csidrivers"}),
           read().in({"storage.k8s.io"}).on({"csistoragecapacities"}),
           read().in({"resource.k8s.io"}).on({"deviceclasses"}),
           read_update().in({"resource.k8s.io"}).on({"resourceclaims"}),
           read_update().in({"resource.k8s.io"}).on({"resourceclaims/status"}),
           read_update().in({""}).on({"pods/finalizers"}),
           read().in({"resource.k8s.io"}).on({"resourceslices"}),
       }},
      {"system:node",
       {
           verbs({"create"}).in({"authentication.k8s.io"}).on({"tokenreviews"}),
           verbs({"create"}).in({"authorization.k8s.io"}).on({"localsubjectaccessreviews", "subjectaccessreviews"}),
           read().in({""}).on({"services"}),
           verbs({"create", "get", "list", "watch"}).in({""}).on({"nodes"}),
           verbs({"patch", "update"}).in({""}).on({"nodes/status"}),
           verbs({"patch", "update"}).in({""}).on({"nodes"}),
           verbs({"create", "patch", "update"}).in({""}).on({"events"}),
           read().in({""}).on({"pods"}),
           verbs({"create", "delete"}).in({""}).on({"pods"}),
           verbs({"patch", "update"}).in({""}).on({"pods/status"}),
           verbs({"create"}).in({""}).on({"pods/eviction"}),
           read().in({""}).on({"configmaps", "secrets"}),
           verbs({"get"}).in({""}).on({"persistentvolumeclaims", "persistentvolumes"}),
           verbs({"get"}).in({""}).on({"endpoints"}),
           verbs({"create", "get", "list", "watch"}).in({"certificates.k8s.io"}).on({"certificatesigningrequests"}),
           verbs({"create", "delete", "get", "patch", "update"}).in({"coordination.k8s.io"}).on({"leases"}),
           verbs({"get"}).in({"storage.k8s.io"}).on({"volumeattachments"}),
           verbs({"create"}).in({""}).on({"serviceaccounts/token"}),
           verbs({"get", "patch", "update"}).in({""}).on({"persistentvolumeclaims/status"}),
           read().in({"storage.k8s.io"}).on({"csidrivers"}),
           verbs({"create", "delete", "get", "patch", "update"}).in({"storage.k8s.io"}).on({"csinodes"}),
           read().in({"node.k8s.io"}).on({"runtimeclasses"}),
           verbs({"get"}).in({"resource.k8s.io"}).on({"resourceclaims"}),
           verbs({"deletecollection"}).in({"resource.k8s.io"}).on({"resourceslices"}),
       }},
      {"system:node-proxier",
       {
           verbs({"list", "watch"}).in({""}).on({"endpoints", "services"}),
           read().in({""}).on({"nodes"}),
           events_rule(),
           verbs({"list", "watch"}).in({"discovery.k8s.io"}).on({"endpointslices"}),
       }},
      {"system:service-account-issuer-discovery",
       {
           verbs({"get"}).urls_({"/.well-known/openid-configuration", "/.well-known/openid-configuration/",
                                 "/openid/v1/jwks", "/openid/v1/jwks/"}),
       }},
      {"system:volume-scheduler",
       {
           read_update().in({""}).on({"persistentvolumes"}),
           read().in({"storage.k8s.io"}).on({"storageclasses"}),
           read_update().in({""}).on({"persistentvolumeclaims"}),
       }},
  };
}

// The rules the gates add (upstream's policy appends them when the gate is on): GenericWorkload
// lets the scheduler read Workloads (v1.35) and PodGroups, and write a PodGroup's status (its
// PodGroupInitiallyScheduled condition; KEP-5832).
std::vector<RoleSpec> cluster_roles(const FeatureGates& gates) {
  std::vector<RoleSpec> roles = cluster_roles_at_defaults();
  for (auto& r : roles)
    if (r.name == "system:kube-scheduler" && gates.GenericWorkload) {
      r.rules.push_back(read().in({"scheduling.k8s.io"}).on({"workloads"}));
      r.rules.push_back(read().in({"scheduling.k8s.io"}).on({"podgroups"}));
      r.rules.push_back(verbs({"patch", "update"}).in({"scheduling.k8s.io"}).on({"podgroups/status"}));
      // CompositePodGroup: the scheduler reads the hierarchy and writes its
      // CompositePodGroupInitiallyScheduled condition, as it does for a PodGroup (the same verbs;
      // upstream's newest policy.go was not readable).
      if (gates.CompositePodGroup) {
        r.rules.push_back(read().in({"scheduling.k8s.io"}).on({"compositepodgroups"}));
        r.rules.push_back(verbs({"patch", "update"}).in({"scheduling.k8s.io"}).on({"compositepodgroups/status"}));
      }
    }
  return roles;
}

// ---------------------------------------------------------------------------- controller roles
// system:controller:<name>, bound upstream to the ServiceAccount kube-system/<name>: the controllers
// this project runs or will run.
std::vector<RoleSpec> controller_roles() {
  return {
      {"daemon-set-controller",
       {
           read().in({"apps", "extensions"}).on({"daemonsets"}),
           verbs({"update"}).in({"apps", "extensions"}).on({"daemonsets/status"}),
           verbs({"update"}).in({"apps", "extensions"}).on({"daemonsets/finalizers"}),
           verbs({"list", "watch"}).in({""}).on({"nodes"}),
           verbs({"create", "delete", "list", "patch", "watch"}).in({""}).on({"pods"}),
           verbs({"create"}).in({""}).on({"pods/binding"}),
           verbs({"create", "delete", "get", "list", "patch", "update", "watch"}).in({"apps"}).on({"controllerrevisions"}),
           events_rule(),
       }},
      {"deployment-controller",
       {
           verbs({"get", "list", "update", "watch"}).in({"apps", "extensions"}).on({"deployments"}),
           verbs({"update"}).in({"apps", "extensions"}).on({"deployments/status"}),
           verbs({"update"}).in({"apps", "extensions"}).on({"deployments/finalizers"}),
           verbs({"create", "delete", "get", "list", "patch", "update", "watch"}).in({"apps", "extensions"}).on({"replicasets"}),
           verbs({"get", "list", "update", "watch"}).in({""}).on({"pods"}),
           events_rule(),
       }},
      {"generic-garbage-collector",
       {
           verbs({"delete", "get", "list", "patch", "update", "watch"}).in({"*"}).on({"*"}),
           events_rule(),
       }},
      {"job-controller",
       {
           verbs({"get", "list", "patch", "update", "watch"}).in({"batch"}).on({"jobs"}),
           verbs({"update"}).in({"batch"}).on({"jobs/status"}),
           verbs({"update"}).in({"batch"}).on({"jobs/finalizers"}),
           verbs({"create", "delete", "list", "patch", "watch"}).in({""}).on({"pods"}),
           events_rule(),
       }},
      {"namespace-controller",
       {
           verbs({"delete", "get", "list", "watch"}).in({""}).on({"namespaces"}),
           verbs({"update"}).in({""}).on({"namespaces/finalize", "namespaces/status"}),
           verbs({"delete", "deletecollection", "get", "list"}).in({"*"}).on({"*"}),
       }},
      {"replicaset-controller",
       {
           verbs({"get", "list", "update", "watch"}).in({"apps", "extensions"}).on({"replicasets"}),
           verbs({"update"}).in({"apps", "extensions"}).on({"replicasets/status"}),
           verbs({"update"}).in({"apps", "extensions"}).on({"replicasets/finalizers"}),
           verbs({"create", "delete", "list", "patch", "watch"}).in({""}).on({"pods"}),
           events_rule(),
       }},
      {"resource-claim-controller",
       {
           read().in({""}).on({"pods"}),
           verbs({"update"}).in({""}).on({"pods/finalizers"}),
           verbs({"create", "delete", "get", "list", "watch"}).in({"resource.k8s.io"}).on({"resourceclaims"}),
           verbs({"patch", "update"}).in({"resource.k8s.io"}).on({"resourceclaims", "resourceclaims/status"}),
           verbs({"patch", "update"}).in({""}).on({"pods/status"}),
           events_rule(),
       }},
      {"statefulset-controller",
       {
           verbs({"list", "watch"}).in({""}).on({"pods"}),
           read().in({"apps"}).on({"statefulsets"}),
           verbs({"update"}).in({"apps"}).on({"statefulsets/status"}),
           verbs({"update"}).in({"apps"}).on({"statefulsets/finalizers"}),
           verbs({"create", "delete", "get", "patch", "update"}).in({""}).on({"pods"}),
           verbs({"create", "delete", "get", "list", "patch", "update", "watch"}).in({"apps"}).on({"controllerrevisions"}),
           verbs({"create", "get", "list", "watch"}).in({""}).on({"persistentvolumeclaims"}),
           events_rule(),
           verbs({"delete", "update"}).in({""}).on({"persistentvolumeclaims"}),
           verbs({"update"}).in({""}).on({"pods/finalizers"}),
       }},
  };
}

// ---------------------------------------------------------------------------- cluster role bindings
std::vector<BindingSpec> cluster_role_bindings() {
  return {
      {"cluster-admin", "ClusterRole", "cluster-admin", {group("system:masters")}},
      {"system:monitoring", "ClusterRole", "system:monitoring", {group("system:monitoring")}},
      {"system:discovery", "ClusterRole", "system:discovery", {group("system:authenticated")}},
      {"system:basic-user", "ClusterRole", "system:basic-user", {group("system:authenticated")}},
      {"system:public-info-viewer", "ClusterRole", "system:public-info-viewer",
       {group("system:authenticated"), group("system:unauthenticated")}},
      {"system:node-proxier", "ClusterRole", "system:node-proxier", {user("system:kube-proxy")}},
      {"system:kube-controller-manager", "ClusterRole", "system:kube-controller-manager",
       {user("system:kube-controller-manager")}},
      {"system:kube-dns", "ClusterRole", "system:kube-dns", {service_account("kube-system", "kube-dns")}},
      {"system:kube-scheduler", "ClusterRole", "system:kube-scheduler", {user("system:kube-scheduler")}},
      {"system:volume-scheduler", "ClusterRole", "system:volume-scheduler", {user("system:kube-scheduler")}},
      // Deprecated since the Node authorizer: kept without subjects, as upstream.
      {"system:node", "ClusterRole", "system:node", {}},
      {"system:service-account-issuer-discovery", "ClusterRole", "system:service-account-issuer-discovery",
       {group("system:serviceaccounts")}},
  };
}

// ---------------------------------------------------------------------------- namespace roles (kube-system)
std::vector<RoleSpec> kube_system_roles() {
  return {
      {"extension-apiserver-authentication-reader",
       {
           read().in({""}).on({"configmaps"}).named({"extension-apiserver-authentication"}),
       }},
  };
}

std::vector<BindingSpec> kube_system_role_bindings() {
  return {
      {"system::extension-apiserver-authentication-reader", "Role", "extension-apiserver-authentication-reader",
       {user("system:kube-controller-manager"), user("system:kube-scheduler")}},
  };
}

// clang-format on

// ---------------------------------------------------------------------------- ksched's components
// The node simulator's role: system:node's rules without those the Node authorizer would limit to
// objects of the node's own pods (configmaps, secrets, volumes and their claims, volume
// attachments, service account tokens, resource claims and slices), plus its DRA drivers' rules.
RoleSpec node_simulator_role(const RoleSpec& system_node) {
  static const std::vector<std::string> graph_only = {"configmaps",
                                                      "secrets",
                                                      "persistentvolumeclaims",
                                                      "persistentvolumes",
                                                      "persistentvolumeclaims/status",
                                                      "volumeattachments",
                                                      "serviceaccounts/token",
                                                      "resourceclaims",
                                                      "resourceslices"};
  RoleSpec r{"ksched:node-simulator", {}};
  for (const auto& rule : system_node.rules) {
    bool keep = true;
    for (const auto& res : rule.resources)
      for (const auto& g : graph_only) keep = keep && res != g;
    if (keep) r.rules.push_back(rule);
  }
  // The simulated DRA drivers (nodesim/dra_driver.h) publish every node's ResourceSlices, as a
  // driver's own DaemonSet role allows a real one; the kubelet stand-in prepares the claims of the
  // pods it runs and, serving every node, watches all of them (the Node authorizer would allow a
  // node only `get` of its own pods' claims). A driver whose devices have binding conditions sets
  // them in the claim's status.devices, as a real driver's controller does with its own role.
  r.rules.push_back(read_write().in({"resource.k8s.io"}).on({"resourceslices"}));
  r.rules.push_back(read().in({"resource.k8s.io"}).on({"resourceclaims"}));
  r.rules.push_back(verbs({"patch", "update"}).in({"resource.k8s.io"}).on({"resourceclaims/status"}));
  return r;
}

// ---------------------------------------------------------------------------- objects
json::object metadata(std::string_view name, const std::map<std::string, std::string>& extra_labels) {
  json::object labels{{"kubernetes.io/bootstrapping", "rbac-defaults"}};
  for (const auto& [k, v] : extra_labels) labels[k] = v;
  return json::object{{"name", name},
                      {"labels", std::move(labels)},
                      {"annotations", json::object{{"rbac.authorization.kubernetes.io/autoupdate", "true"}}}};
}

json::object role_object(std::string_view kind, const RoleSpec& r, const std::vector<Rule>& rules) {
  json::array a;
  for (const auto& rule : rules) a.push_back(rule.to_json());
  json::object o{{"kind", kind},
                 {"apiVersion", "rbac.authorization.k8s.io/v1"},
                 {"metadata", metadata(r.name, r.labels)}};
  if (!r.aggregate_from.empty()) {
    o["aggregationRule"] =
        json::object{{"clusterRoleSelectors",
                      json::array{json::object{{"matchLabels", json::object{{r.aggregate_from, "true"}}}}}}};
  }
  o["rules"] = std::move(a);
  return o;
}

json::object binding_object(std::string_view kind, const BindingSpec& b) {
  json::array subjects;
  for (const auto& s : b.subjects) {
    json::object so{{"kind", s.kind}, {"name", s.name}};
    if (s.kind == "ServiceAccount")
      so["namespace"] = s.ns;
    else
      so["apiGroup"] = "rbac.authorization.k8s.io";
    subjects.push_back(std::move(so));
  }
  json::object o{
      {"kind", kind},
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"metadata", metadata(b.name, {})},
      {"roleRef",
       json::object{{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", b.role_kind}, {"name", b.role}}}};
  if (!subjects.empty()) o["subjects"] = std::move(subjects);
  return o;
}

// What upstream's clusterrole-aggregation controller writes into an aggregated role: the rules of
// every other cluster role carrying the selected label, by role name, without duplicates.
std::vector<Rule> aggregated_rules(const std::vector<RoleSpec>& roles, const RoleSpec& target,
                                   std::map<std::string, std::vector<Rule>>& done) {
  if (auto it = done.find(target.name); it != done.end()) return it->second;
  std::map<std::string, const RoleSpec*> sources;  // by name
  for (const auto& r : roles) {
    if (r.name == target.name) continue;
    auto l = r.labels.find(std::string(target.aggregate_from));
    if (l != r.labels.end() && l->second == "true") sources.emplace(r.name, &r);
  }
  std::vector<Rule> out;
  for (const auto& [name, r] : sources) {
    const std::vector<Rule>& rules = r->aggregate_from.empty() ? r->rules : aggregated_rules(roles, *r, done);
    for (const auto& rule : rules)
      if (std::find(out.begin(), out.end(), rule) == out.end()) out.push_back(rule);
  }
  done[target.name] = out;
  return out;
}

std::vector<BootstrapObject> build(const FeatureGates& gates) {
  std::vector<BootstrapObject> out;
  std::vector<RoleSpec> roles = cluster_roles(gates);
  const RoleSpec* system_node = nullptr;
  for (const auto& r : roles)
    if (r.name == "system:node") system_node = &r;
  RoleSpec nodesim = node_simulator_role(*system_node);
  std::map<std::string, std::vector<Rule>> aggregated;
  for (const auto& r : roles) {
    const std::vector<Rule>& rules =
        r.aggregate_from.empty() ? r.rules : aggregated_rules(roles, r, aggregated);
    out.push_back({"clusterroles", "", role_object("ClusterRole", r, rules)});
  }
  std::vector<std::string> controller_names;
  for (auto r : controller_roles()) {
    // WorkloadWithJob (which needs GenericWorkload): the Job controller makes a Job's Workload
    // and PodGroup (controllers/job/job_scheduling.h); it reads and creates them, and updates
    // them when the Job's gang minCount changes.
    if (r.name == "job-controller" && gates.GenericWorkload)
      r.rules.push_back(
          verbs({"create", "get", "list", "watch", "update", "patch"}).in({"scheduling.k8s.io"}).on({"workloads", "podgroups"}));
    // DRAWorkloadResourceClaims: the ResourceClaim controller reads PodGroups and writes their
    // status.resourceClaimStatuses.
    if (r.name == "resource-claim-controller" && gates.GenericWorkload && gates.DRAWorkloadResourceClaims) {
      r.rules.push_back(read().in({"scheduling.k8s.io"}).on({"podgroups"}));
      r.rules.push_back(verbs({"patch", "update"}).in({"scheduling.k8s.io"}).on({"podgroups/status"}));
    }
    controller_names.push_back(r.name);
    r.name = "system:controller:" + r.name;
    out.push_back({"clusterroles", "", role_object("ClusterRole", r, r.rules)});
  }
  out.push_back({"clusterroles", "", role_object("ClusterRole", nodesim, nodesim.rules)});

  for (const auto& b : cluster_role_bindings())
    out.push_back({"clusterrolebindings", "", binding_object("ClusterRoleBinding", b)});
  for (const auto& c : controller_names) {
    std::string name = "system:controller:" + c;
    BindingSpec b{name, "ClusterRole", name, {service_account("kube-system", c)}};
    out.push_back({"clusterrolebindings", "", binding_object("ClusterRoleBinding", b)});
  }
  // ksched's controller manager runs every controller under its own identity (upstream's
  // kube-controller-manager without --use-service-account-credentials), so it holds each
  // controller's role.
  const std::string_view kcm = find_component("kube-controller-manager")->user;
  for (const auto& c : controller_names) {
    std::string role = "system:controller:" + c;
    BindingSpec b{"ksched:kube-controller-manager:" + c, "ClusterRole", role, {user(kcm)}};
    out.push_back({"clusterrolebindings", "", binding_object("ClusterRoleBinding", b)});
  }
  const ComponentIdentity& sim = *find_component("node-simulator");
  out.push_back(
      {"clusterrolebindings", "",
       binding_object(
           "ClusterRoleBinding",
           BindingSpec{"ksched:node-simulator", "ClusterRole", "ksched:node-simulator", {user(sim.user)}})});

  for (const auto& r : kube_system_roles())
    out.push_back({"roles", "kube-system", role_object("Role", r, r.rules)});
  for (const auto& b : kube_system_role_bindings())
    out.push_back({"rolebindings", "kube-system", binding_object("RoleBinding", b)});
  return out;
}

}  // namespace

const std::vector<BootstrapObject>& bootstrap_policy() {
  static const std::vector<BootstrapObject> objects = build(FeatureGates{});
  return objects;
}

const std::vector<BootstrapObject>& bootstrap_policy(const FeatureGates& gates) {
  if (!gates.GenericWorkload) return bootstrap_policy();
  static const std::vector<BootstrapObject> objects = [] {
    FeatureGates g;
    g.GenericWorkload = true;
    return build(g);
  }();
  static const std::vector<BootstrapObject> with_composite = [] {
    FeatureGates g;
    g.GenericWorkload = true;
    g.CompositePodGroup = true;
    return build(g);
  }();
  return gates.CompositePodGroup ? with_composite : objects;
}

}  // namespace ksched::apiserver
