// The objects a fresh server holds (namespaces, system PriorityClasses, the bootstrap RBAC
// policy of bootstrap_policy.h, reconciled into one an older server stored) and the simulated
// nodes of `--nodes`.
#include "api/version.h"
#include "apiserver/auth/bootstrap_policy.h"
#include "apiserver/endpoints/handlers_impl.h"

namespace ksched::apiserver {

namespace {
void ensure_policy_object(Api::Impl& impl, const BootstrapObject& b);
}

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
  for (const auto& o : bootstrap_policy(feature_gates_)) ensure_policy_object(impl, o);
}

namespace {

json::array rules_json(const std::vector<PolicyRule>& rules) {
  auto arr = [](const std::vector<std::string>& v) {
    json::array a;
    for (const auto& s : v) a.emplace_back(s);
    return a;
  };
  json::array out;
  for (const auto& r : rules) {
    json::object o{{"verbs", arr(r.verbs)}};
    if (!r.api_groups.empty()) o["apiGroups"] = arr(r.api_groups);
    if (!r.resources.empty()) o["resources"] = arr(r.resources);
    if (!r.resource_names.empty()) o["resourceNames"] = arr(r.resource_names);
    if (!r.non_resource_urls.empty()) o["nonResourceURLs"] = arr(r.non_resource_urls);
    out.push_back(std::move(o));
  }
  return out;
}

// Upstream's reconciliation of a bootstrap object that already exists (a data directory or an etcd
// an older server wrote): when it still says rbac.authorization.kubernetes.io/autoupdate=true, what
// the policy has and it lacks is added (rules not covered, subjects, labels, annotations); nothing
// is removed. Returns whether `cur` changed.
bool reconcile(const json::object& want, json::object& cur, bool role) {
  auto& meta = meta_of(cur);
  const auto* ann = obj_at(meta, "annotations");
  if (!ann || str(*ann, "rbac.authorization.kubernetes.io/autoupdate") != "true") return false;
  bool changed = false;
  const auto& want_meta = want.at("metadata").as_object();
  for (const char* k : {"labels", "annotations"}) {
    auto& have = meta[k];
    if (!have.is_object()) have = json::object();
    for (const auto& kv : want_meta.at(k).as_object())
      if (!have.get_object().contains(kv.key())) {
        have.get_object()[kv.key()] = kv.value();
        changed = true;
      }
  }
  if (role) {
    std::vector<PolicyRule> have = policy_rules_of(cur.if_contains("rules"));
    std::vector<PolicyRule> expected = policy_rules_of(want.if_contains("rules"));
    std::vector<const PolicyRule*> owner;
    for (const auto& r : have) owner.push_back(&r);
    std::vector<PolicyRule> missing;
    if (!rules_cover(owner, expected, &missing)) {
      have.insert(have.end(), missing.begin(), missing.end());
      cur["rules"] = rules_json(have);
      changed = true;
    }
    if (want.contains("aggregationRule") && !cur.contains("aggregationRule")) {
      cur["aggregationRule"] = want.at("aggregationRule");
      changed = true;
    }
    return changed;
  }
  auto* ws = want.if_contains("subjects");
  if (!ws) return changed;
  auto& subjects = cur["subjects"];
  if (!subjects.is_array()) subjects = json::array();
  for (const auto& s : ws->as_array()) {
    bool present = false;
    for (const auto& h : subjects.get_array())
      present = present || (h.is_object() && str(h.get_object(), "kind") == str(s.as_object(), "kind") &&
                            str(h.get_object(), "name") == str(s.as_object(), "name") &&
                            str(h.get_object(), "namespace") == str(s.as_object(), "namespace"));
    if (!present) {
      subjects.get_array().push_back(s);
      changed = true;
    }
  }
  return changed;
}

void ensure_policy_object(Api::Impl& impl, const BootstrapObject& b) {
  const ResourceInfo& r = *find_resource("rbac.authorization.k8s.io", "v1", b.plural);
  json::object o = b.object;
  auto created = impl.do_create(r, b.ns, o, false);
  if (created || created.err->code != 409) return;
  const bool role = b.plural == "clusterroles" || b.plural == "roles";
  const std::string name = meta_str(b.object, "name");
  (void)impl.guaranteed_update(r, b.ns, name, "", false, [&](json::object& cur, json::object& next) -> std::optional<ApiError> {
    next = cur;
    if (!reconcile(b.object, next, role)) return ApiError{304, "Unchanged", ""};  // nothing to write
    meta_of(next)["resourceVersion"] = meta_str(cur, "resourceVersion");
    return std::nullopt;
  });
}

}  // namespace

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
    // A v1.35 kubelet leaves kubeProxyVersion empty (DisableNodeKubeProxyVersion, on since v1.33).
    json::object info{{"kubeletVersion", api::kKubernetesVersion}, {"kubeProxyVersion", ""},
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
