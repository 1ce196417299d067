// The objects a fresh server holds (namespaces, system PriorityClasses, the bootstrap RBAC
// policy) and the simulated nodes of `--nodes`.
#include "apiserver/handlers_impl.h"

namespace ksched::apiserver {

void Api::bootstrap() {
  Impl impl{*this, store_};
  const ResourceInfo& nsr = *find_resource("", "v1", "namespaces");
  for (const char* n : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    json::object o{{"metadata", json::object{{"name", n}}}};
    (void)impl.do_create(nsr, "", o, false);
  }
  const ResourceInfo& pcr = *find_resource("scheduling.k8s.io", "v1", "priorityclasses");
  for (auto [n, v] : {std::pair{"system-node-critical", 2000001000}, std::pair{"system-cluster-critical", 2000000000}}) {
    json::object o{{"metadata", json::object{{"name", n}}},
                   {"value", v},
                   {"preemptionPolicy", "PreemptLowerPriority"},
                   {"description", "Used for system critical pods that must not be moved from their current node."}};
    (void)impl.do_create(pcr, "", o, false);
  }
  // The bootstrap RBAC policy a scheduler relies on (rules as upstream's bootstrap policy).
  auto create_rbac = [&](std::string_view plural, const std::string& ns, std::string_view body) {
    json::object o = json::parse(body).as_object();
    auto& meta = o["metadata"].as_object();
    meta["labels"] = json::object{{"kubernetes.io/bootstrapping", "rbac-defaults"}};
    meta["annotations"] = json::object{{"rbac.authorization.kubernetes.io/autoupdate", "true"}};
    (void)impl.do_create(*find_resource("rbac.authorization.k8s.io", "v1", plural), ns, o, false);
  };
  create_rbac("clusterroles", "", R"({"metadata":{"name":"cluster-admin"},"rules":[
    {"apiGroups":["*"],"resources":["*"],"verbs":["*"]},{"nonResourceURLs":["*"],"verbs":["*"]}]})");
  create_rbac("clusterrolebindings", "", R"({"metadata":{"name":"cluster-admin"},
    "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"cluster-admin"},
    "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"system:masters"}]})");
  create_rbac("clusterroles", "", R"({"metadata":{"name":"system:kube-scheduler"},"rules":[
    {"apiGroups":["","events.k8s.io"],"resources":["events"],"verbs":["create","patch","update"]},
    {"apiGroups":["coordination.k8s.io"],"resources":["leases"],"verbs":["create"]},
    {"apiGroups":["coordination.k8s.io"],"resourceNames":["kube-scheduler"],"resources":["leases"],"verbs":["get","update"]},
    {"apiGroups":[""],"resources":["nodes"],"verbs":["get","list","watch"]},
    {"apiGroups":[""],"resources":["pods"],"verbs":["delete","get","list","watch"]},
    {"apiGroups":[""],"resources":["bindings","pods/binding"],"verbs":["create"]},
    {"apiGroups":[""],"resources":["pods/status"],"verbs":["patch","update"]},
    {"apiGroups":[""],"resources":["replicationcontrollers","services"],"verbs":["get","list","watch"]},
    {"apiGroups":["apps","extensions"],"resources":["replicasets"],"verbs":["get","list","watch"]},
    {"apiGroups":["apps"],"resources":["statefulsets"],"verbs":["get","list","watch"]},
    {"apiGroups":["policy"],"resources":["poddisruptionbudgets"],"verbs":["get","list","watch"]},
    {"apiGroups":[""],"resources":["persistentvolumeclaims","persistentvolumes"],"verbs":["get","list","watch"]},
    {"apiGroups":["authentication.k8s.io"],"resources":["tokenreviews"],"verbs":["create"]},
    {"apiGroups":["authorization.k8s.io"],"resources":["subjectaccessreviews"],"verbs":["create"]},
    {"apiGroups":["storage.k8s.io"],"resources":["csinodes"],"verbs":["get","list","watch"]},
    {"apiGroups":[""],"resources":["namespaces"],"verbs":["get","list","watch"]},
    {"apiGroups":["storage.k8s.io"],"resources":["csidrivers"],"verbs":["get","list","watch"]},
    {"apiGroups":["storage.k8s.io"],"resources":["csistoragecapacities"],"verbs":["get","list","watch"]}]})");
  create_rbac("clusterrolebindings", "", R"({"metadata":{"name":"system:kube-scheduler"},
    "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"system:kube-scheduler"},
    "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"system:kube-scheduler"}]})");
  create_rbac("clusterroles", "", R"({"metadata":{"name":"system:volume-scheduler"},"rules":[
    {"apiGroups":[""],"resources":["persistentvolumes"],"verbs":["get","list","patch","update","watch"]},
    {"apiGroups":["storage.k8s.io"],"resources":["storageclasses"],"verbs":["get","list","watch"]},
    {"apiGroups":[""],"resources":["persistentvolumeclaims"],"verbs":["get","list","patch","update","watch"]}]})");
  create_rbac("clusterrolebindings", "", R"({"metadata":{"name":"system:volume-scheduler"},
    "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"system:volume-scheduler"},
    "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"system:kube-scheduler"}]})");
  create_rbac("roles", "kube-system", R"({"metadata":{"name":"extension-apiserver-authentication-reader"},"rules":[
    {"apiGroups":[""],"resourceNames":["extension-apiserver-authentication"],"resources":["configmaps"],
     "verbs":["get","list","watch"]}]})");
  create_rbac("rolebindings", "kube-system", R"({"metadata":{"name":"system::extension-apiserver-authentication-reader"},
    "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"extension-apiserver-authentication-reader"},
    "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"system:kube-controller-manager"},
                {"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"system:kube-scheduler"}]})");
}

util::Result<void> Api::create_nodes(int n, const std::string& template_path) {
  json::object tmpl;
  if (!template_path.empty()) {
    std::ifstream in(template_path);
    if (!in) return util::make_error("cannot read node template \"" + template_path + "\"");
    std::stringstream ss;
    ss << in.rdbuf();
    try {
      json::value v = api::yaml_to_json(YAML::Load(ss.str()));
      if (!v.is_object()) return util::make_error("node template \"" + template_path + "\" is not an object");
      tmpl = std::move(v.get_object());
    } catch (const std::exception& e) {
      return util::make_error("node template \"" + template_path + "\": " + e.what());
    }
  } else {
    json::object res{{"cpu", "32"}, {"memory", "256Gi"}, {"pods", "110"}, {"ephemeral-storage", "100Gi"}};
    tmpl = json::object{{"status", json::object{{"capacity", res}, {"allocatable", res}}}};
  }
  Impl impl{*this, store_};
  const ResourceInfo& nr = *find_resource("", "v1", "nodes");
  for (int i = 0; i < n; ++i) {
    json::object o = tmpl;
    std::string name = "node-" + std::to_string(i);
    auto& meta = meta_of(o);
    meta["name"] = name;
    auto& labels = meta["labels"];
    if (!labels.is_object()) labels = json::object();
    labels.get_object()["type"] = "simulated";
    labels.get_object()["kubernetes.io/hostname"] = name;
    labels.get_object()["kubernetes.io/os"] = "linux";
    auto& st = o["status"];
    if (!st.is_object()) st = json::object();
    auto& so = st.get_object();
    if (!so.contains("allocatable") && so.contains("capacity")) so["allocatable"] = so["capacity"];
    std::string ts = format_rfc3339(now_unix());
    so["conditions"] = json::array{json::object{{"type", "Ready"},
                                                {"status", "True"},
                                                {"reason", "KubeletReady"},
                                                {"message", "kubelet is posting ready status"},
                                                {"lastHeartbeatTime", ts},
                                                {"lastTransitionTime", ts}}};
    so["addresses"] = json::array{json::object{{"type", "InternalIP"}, {"address", "10.0." + std::to_string(i / 250) + "." + std::to_string(i % 250 + 1)}},
                                  json::object{{"type", "Hostname"}, {"address", name}}};
    // Every NodeSystemInfo field is required by typed clients (e.g. the Python models).
    json::object info{{"kubeletVersion", "v1.32.0"},       {"kubeProxyVersion", "v1.32.0"},
                      {"osImage", "ksched simulated"},     {"kernelVersion", "6.1.0"},
                      {"containerRuntimeVersion", "sim://1.0"}, {"operatingSystem", "linux"},
                      {"architecture", "amd64"},           {"machineID", name},
                      {"systemUUID", new_uid()},           {"bootID", new_uid()}};
    if (auto* ni = so.if_contains("nodeInfo"); ni && ni->is_object())
      for (const auto& kv : ni->get_object()) info[kv.key()] = kv.value();
    so["nodeInfo"] = std::move(info);
    auto res = impl.do_create(nr, "", o, false);
    if (!res && res.err->code != 409) return util::make_error("creating node " + name + ": " + res.err->message);
  }
  return {};
}

}  // namespace ksched::apiserver
