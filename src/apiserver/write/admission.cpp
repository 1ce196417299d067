#include "apiserver/write/admission.h"

#include <algorithm>

#include <boost/json.hpp>
#include <mutex>
#include <string>

#include "apiserver/json_access.h"
#include "apiserver/registry/core/pod_strategy.h"

namespace ksched::apiserver {

namespace json = boost::json;

namespace {

// How admission errors name the object: its name, else its generateName, else "Unknown".
std::string display_name(const json::object& obj) {
  auto* m = object_member(obj, "metadata");
  std::string n = m ? str(*m, "name") : std::string();
  if (n.empty() && m) n = str(*m, "generateName");
  return n.empty() ? "Unknown" : n;
}

// admission.NewForbidden: `<resource> "<name>" is forbidden: <why>`.
ApiError forbidden(const ResourceInfo& r, const std::string& name, const std::string& why) {
  ApiError e{403, "Forbidden", r.qualified_resource() + " \"" + name + "\" is forbidden: " + why};
  e.name = name;
  e.group = r.group;
  e.kind = r.plural;
  return e;
}

std::optional<json::object> load(const Store& store, std::string_view group, std::string_view plural,
                                 std::string_view name) {
  const ResourceInfo* r = find_resource(group, "v1", plural);
  if (!r) return std::nullopt;
  auto o = store.get(r->id, "", name);
  if (!o) return std::nullopt;
  json::value v = json::parse(o->json);
  if (!v.is_object()) return std::nullopt;
  return std::move(v.get_object());
}

// ------------------------------------------------------------------ DefaultTolerationSeconds
// Pods tolerate node.kubernetes.io/not-ready and /unreachable (NoExecute) for 300 s unless they
// already tolerate them.
void default_toleration_seconds(json::object& pod) {
  auto& spec = ensure_object(pod, "spec");
  auto& tv = spec["tolerations"];
  if (!tv.is_array()) tv = json::array();
  auto& tols = tv.get_array();
  tols.reserve(tols.size() + 2);  // at most two added: one allocation, not a growth per toleration
  for (const char* key : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
    bool has = false;
    for (const auto& t : tols) {
      if (!t.is_object()) continue;
      const auto& to = t.get_object();
      std::string_view k = str_view(to, "key"), eff = str_view(to, "effect");
      if ((k == key || (k.empty() && str_view(to, "operator") == "Exists")) && (eff.empty() || eff == "NoExecute"))
        has = true;
    }
    if (has) continue;
    json::object tol(4);  // built in place: an initializer list would build each member twice
    tol.emplace("key", key);
    tol.emplace("operator", "Exists");
    tol.emplace("effect", "NoExecute");
    tol.emplace("tolerationSeconds", 300);
    tols.emplace_back(std::move(tol));
  }
}

// ------------------------------------------------------------------ Priority
struct PriorityChoice {
  std::string class_name;
  std::int64_t value = 0;
  std::string policy = "PreemptLowerPriority";
};

std::int64_t int_of(const json::object& o, std::string_view k) {
  auto* v = o.if_contains(k);
  return v && v->is_int64() ? v->get_int64() : 0;
}

// The global default class (the lowest value if several claim it), or priority 0. Every pod
// create without a class asks: the answer is kept until a PriorityClass changes.
PriorityChoice default_priority(const Store& store) {
  const ResourceInfo* pcr = find_resource("scheduling.k8s.io", "v1", "priorityclasses");
  static std::mutex mu;
  static std::uint64_t cached_store = 0;
  static std::int64_t cached_rv = -1;
  static PriorityChoice cached;
  // Read before the list, so that a list newer than the revision can be kept under it (and is
  // redone next time), never an older one.
  const std::int64_t rv = store.resource_revision(pcr->id);
  {
    std::lock_guard l(mu);
    if (cached_store == store.id() && cached_rv == rv) return cached;
  }
  PriorityChoice c;
  auto all = store.list(pcr->id, Store::ListOptions{});
  if (!all) return c;
  bool found = false;
  for (const auto& o : all->items) {
    if (o->json.find("\"globalDefault\":true") == std::string::npos) continue;
    json::value v = json::parse(o->json);
    const auto& pc = v.get_object();
    std::int64_t value = int_of(pc, "value");
    if (found && value >= c.value) continue;
    found = true;
    c.class_name = name_of(pc);
    c.value = value;
    std::string policy = str(pc, "preemptionPolicy");
    c.policy = policy.empty() ? "PreemptLowerPriority" : policy;
  }
  std::lock_guard l(mu);
  cached_store = store.id();
  cached_rv = rv;
  cached = c;
  return c;
}

// Priority admission's part common to a pod and a PodGroup: the PriorityClass `spec` names (none:
// the global default; unknown: Forbidden), a given priority that differs from the class's value
// refused (and, `with_policy`, a given preemptionPolicy that differs from the class's), then the
// class's name, value (and policy) set in `spec`. `what` names the spec in the refusals.
std::optional<ApiError> resolve_priority(const ResourceInfo& r, const std::string& name, json::object& spec,
                                         const Store& store, std::string_view what, bool with_policy) {
  PriorityChoice c;
  std::string requested = str(spec, "priorityClassName");
  if (requested.empty()) {
    c = default_priority(store);
  } else {
    auto pc = load(store, "scheduling.k8s.io", "priorityclasses", requested);
    if (!pc) return forbidden(r, name, "no PriorityClass with name " + requested + " was found");
    c.class_name = requested;
    c.value = int_of(*pc, "value");
    std::string policy = str(*pc, "preemptionPolicy");
    c.policy = policy.empty() ? "PreemptLowerPriority" : policy;
  }
  if (auto* p = spec.if_contains("priority"); p && !p->is_null()) {
    std::int64_t given = p->is_int64() ? p->get_int64() : 0;
    if (given != c.value)
      return forbidden(r, name, "the integer value of priority (" + std::to_string(given) + ") must not be provided in " +
                                    std::string(what) + " spec; priority admission controller computed " +
                                    std::to_string(c.value) + " from the given PriorityClass name");
  }
  if (with_policy) {
    if (auto* p = spec.if_contains("preemptionPolicy"); p && p->is_string() && p->get_string() != c.policy)
      return forbidden(r, name, "the string value of PreemptionPolicy (" + std::string(p->get_string()) +
                                    ") must not be provided in " + std::string(what) +
                                    " spec; priority admission controller computed " + c.policy +
                                    " from the given PriorityClass name");
  }
  if (!c.class_name.empty()) spec["priorityClassName"] = c.class_name;
  spec["priority"] = c.value;
  if (with_policy) spec["preemptionPolicy"] = c.policy;
  return std::nullopt;
}

std::optional<ApiError> admit_pod_priority(const ResourceInfo& r, WriteVerb verb, json::object& pod,
                                           const json::object* old, const Store& store) {
  auto& spec = ensure_object(pod, "spec");
  if (verb == WriteVerb::Update) {
    // Priority was resolved on create; an update that leaves it out keeps it.
    const json::object* old_spec = old ? object_member(*old, "spec") : nullptr;
    if (!old_spec) return std::nullopt;
    for (const char* f : {"priority", "preemptionPolicy"})
      if (!spec.contains(f))
        if (auto* p = old_spec->if_contains(f)) spec[f] = *p;
    return std::nullopt;
  }
  return resolve_priority(r, display_name(pod), spec, store, "pod", /*with_policy=*/true);
}

// The Priority plugin on a PodGroup create (scheduling.k8s.io/v1beta1, KEP-5710; upstream's
// TestAdmitPodGroup): priorityClassName resolved as a pod's (empty: the global default class, whose
// name is then set, or priority 0 without one; unknown: Forbidden), spec.priority set to its value
// (a given priority that differs is refused), and with PodGroupPreemptionPolicy spec.preemptionPolicy
// from the class (PreemptLowerPriority when the class has none). An update is left alone. The
// refusal messages say "pod group spec" where the pod's say "pod spec": upstream's wording for a
// PodGroup was not found in the sources at hand.
std::optional<ApiError> admit_pod_group_priority(const ResourceInfo& r, json::object& pg, const Store& store,
                                                 const FeatureGates& gates) {
  auto& spec = ensure_object(pg, "spec");
  return resolve_priority(r, display_name(pg), spec, store, "pod group", gates.PodGroupPreemptionPolicy);
}

// A second global default is refused (upstream's validatePriorityClass).
std::optional<ApiError> admit_priority_class(const ResourceInfo& r, const json::object& pc, const Store& store) {
  auto* gd = pc.if_contains("globalDefault");
  if (!gd || !gd->is_bool() || !gd->get_bool()) return std::nullopt;
  PriorityChoice current = default_priority(store);
  std::string name = name_of(pc);
  if (!current.class_name.empty() && current.class_name != name)
    return forbidden(r, name, "PriorityClass " + current.class_name + " is already marked as default. Only one default can exist");
  return std::nullopt;
}

// ------------------------------------------------------------------ RuntimeClass
// Whether toleration `ss` tolerates everything `t` does (upstream's isSuperset).
bool tolerates_superset(const json::object& ss, const json::object& t) {
  if (ss == t) return true;
  std::string ss_key = str(ss, "key"), ss_op = str(ss, "operator"), ss_eff = str(ss, "effect");
  if (!(ss_key.empty() && ss_op == "Exists") && ss_key != str(t, "key")) return false;
  if (!ss_eff.empty() && ss_eff != str(t, "effect")) return false;
  if (ss_eff == "NoExecute") {
    const json::value* a = ss.if_contains("tolerationSeconds");
    if (a && a->is_int64()) {
      const json::value* b = t.if_contains("tolerationSeconds");
      if (!b || !b->is_int64() || b->get_int64() > a->get_int64()) return false;
    }
  }
  if (ss_op == "Exists") return true;
  std::string t_op = str(t, "operator");
  return (t_op.empty() || t_op == "Equal") && str(ss, "value") == str(t, "value");
}

// MergeTolerations: the pod's then the class's, without any that another one already covers.
json::array merge_tolerations(const json::array& pod, const json::array& cls) {
  std::vector<const json::object*> all;
  for (const auto* list : {&pod, &cls})
    for (const auto& t : *list)
      if (t.is_object()) all.push_back(&t.get_object());
  json::array out;
  for (std::size_t i = 0; i < all.size(); ++i) {
    bool covered = false;
    for (const auto& kept : out) covered = covered || tolerates_superset(kept.get_object(), *all[i]);
    for (std::size_t j = i + 1; j < all.size() && !covered; ++j)
      covered = *all[j] != *all[i] && tolerates_superset(*all[j], *all[i]);
    if (!covered) out.push_back(*all[i]);
  }
  return out;
}

// The class's overhead becomes the pod's, its node selector and tolerations are merged in.
std::optional<ApiError> admit_pod_runtime_class(const ResourceInfo& r, json::object& pod, const Store& store) {
  auto& spec = ensure_object(pod, "spec");
  std::string rc_name = str(spec, "runtimeClassName");
  const json::value* pod_overhead = spec.if_contains("overhead");
  bool has_pod_overhead = pod_overhead && pod_overhead->is_object() && !pod_overhead->get_object().empty();
  if (rc_name.empty()) {
    if (has_pod_overhead)
      return forbidden(r, display_name(pod), "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead");
    return std::nullopt;
  }
  auto rc = load(store, "node.k8s.io", "runtimeclasses", rc_name);
  if (!rc) return forbidden(r, display_name(pod), "pod rejected: RuntimeClass \"" + rc_name + "\" not found");
  const json::object* overhead = object_member(*rc, "overhead");
  const json::object* pod_fixed = overhead ? object_member(*overhead, "podFixed") : nullptr;
  if (pod_fixed) {
    if (has_pod_overhead && pod_overhead->get_object() != *pod_fixed)
      return forbidden(r, display_name(pod), "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
    spec["overhead"] = *pod_fixed;
  } else if (has_pod_overhead) {
    return forbidden(r, display_name(pod), "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead");
  }
  const json::object* sched = object_member(*rc, "scheduling");
  if (!sched) return std::nullopt;
  if (const json::object* sel = object_member(*sched, "nodeSelector"); sel && !sel->empty()) {
    auto& pod_sel = ensure_object(spec, "nodeSelector");
    for (const auto& kv : *sel) {
      if (auto* cur = pod_sel.if_contains(kv.key())) {
        if (*cur != kv.value())
          return forbidden(r, display_name(pod),
                           "conflict: runtimeClass.scheduling.nodeSelector[" + std::string(kv.key()) +
                               "] = " + std::string(kv.value().is_string() ? kv.value().get_string() : "") +
                               "; pod.spec.nodeSelector[" + std::string(kv.key()) + "] = " +
                               std::string(cur->is_string() ? cur->get_string() : ""));
        continue;
      }
      pod_sel[kv.key()] = kv.value();
    }
  }
  if (auto* tv = sched->if_contains("tolerations"); tv && tv->is_array() && !tv->get_array().empty()) {
    auto& pt = spec["tolerations"];
    if (!pt.is_array()) pt = json::array();
    pt = merge_tolerations(pt.get_array(), tv->get_array());
  }
  return std::nullopt;
}

bool is_pod(const ResourceInfo& r) { return r.group.empty() && r.kind == "Pod"; }
bool is_priority_class(const ResourceInfo& r) { return r.group == "scheduling.k8s.io" && r.kind == "PriorityClass"; }
bool is_pod_group(const ResourceInfo& r) { return r.group == "scheduling.k8s.io" && r.kind == "PodGroup"; }

}  // namespace

// ------------------------------------------------------------------ PodTopologyLabels
// A pod created bound to a node (spec.nodeName) gets the node's topology.kubernetes.io/zone and
// region labels (PodTopologyLabelsAdmission, beta in v1.35; plugin/pkg/admission/
// podtopologylabels admitPod). A node that does not exist adds nothing. Bindings: handlers.
static void admit_pod_topology_labels(json::object& obj, const Store& store) {
  const json::object* spec = object_member(obj, "spec");
  std::string_view node_name = spec ? str_view(*spec, "nodeName") : std::string_view();
  if (node_name.empty()) return;
  auto node = load(store, "", "nodes", node_name);
  if (!node) return;
  json::object copy = topology_labels(*node);
  if (copy.empty()) return;
  auto& labels = ensure_object(ensure_object(obj, "metadata"), "labels");
  for (auto& kv : copy) labels[kv.key()] = std::move(kv.value());
}

util::Result<AdmissionPlugins> AdmissionPlugins::with_disabled(const std::vector<std::string>& names) {
  // Upstream's AllOrderedPlugins (pkg/kubeapiserver/options/plugins.go).
  static constexpr std::string_view kKnown[] = {
      "AlwaysAdmit", "NamespaceAutoProvision", "NamespaceLifecycle", "NamespaceExists",
      "LimitPodHardAntiAffinityTopology", "LimitRanger", "ServiceAccount", "NodeRestriction",
      "TaintNodesByCondition", "AlwaysPullImages", "ImagePolicyWebhook", "PodSecurity", "PodNodeSelector",
      "Priority", "DefaultTolerationSeconds", "PodTolerationRestriction", "EventRateLimit",
      "ExtendedResourceToleration", "DefaultStorageClass", "StorageObjectInUseProtection",
      "OwnerReferencesPermissionEnforcement", "PersistentVolumeClaimResize", "RuntimeClass",
      "CertificateApproval", "CertificateSigning", "ClusterTrustBundleAttest", "CertificateSubjectRestriction",
      "DefaultIngressClass", "DenyServiceExternalIPs", "PodTopologyLabels", "PodGroupWorkloadExists",
      "NodeDeclaredFeatureValidator", "PodResizeValidator", "MutatingAdmissionPolicy",
      "MutatingAdmissionWebhook", "ValidatingAdmissionPolicy", "ValidatingAdmissionWebhook", "ResourceQuota",
      "AlwaysDeny"};
  AdmissionPlugins p;
  for (const auto& n : names) {
    if (std::find(std::begin(kKnown), std::end(kKnown), n) == std::end(kKnown))
      return util::make_error("disable-admission-plugins plugin \"" + n + "\" is unknown");
    if (n == "Priority") p.priority = false;
    if (n == "DefaultTolerationSeconds") p.default_toleration_seconds = false;
    if (n == "RuntimeClass") p.runtime_class = false;
    if (n == "PodTopologyLabels") p.pod_topology_labels = false;
  }
  return p;
}

std::optional<ApiError> admit_mutating(const ResourceInfo& r, WriteVerb verb, std::string_view, json::object& obj,
                                       const json::object* old, const Store& store, const FeatureGates& gates,
                                       const AdmissionPlugins& plugins) {
  if (is_pod_group(r)) {
    if (plugins.priority && verb == WriteVerb::Create && gates.GenericWorkload)
      return admit_pod_group_priority(r, obj, store, gates);
    return std::nullopt;
  }
  if (!is_pod(r)) return std::nullopt;
  // kube-apiserver's plugin order: Priority, DefaultTolerationSeconds, ..., RuntimeClass, ...,
  // PodTopologyLabels.
  if (plugins.priority)
    if (auto e = admit_pod_priority(r, verb, obj, old, store)) return e;
  if (verb != WriteVerb::Create) return std::nullopt;
  if (plugins.default_toleration_seconds) default_toleration_seconds(obj);
  if (plugins.runtime_class)
    if (auto e = admit_pod_runtime_class(r, obj, store)) return e;
  if (plugins.pod_topology_labels && gates.PodTopologyLabelsAdmission) admit_pod_topology_labels(obj, store);
  return std::nullopt;
}

std::optional<ApiError> admit_validating(const ResourceInfo& r, WriteVerb, const json::object& obj, const Store& store,
                                         const AdmissionPlugins& plugins) {
  if (plugins.priority && is_priority_class(r)) return admit_priority_class(r, obj, store);
  return std::nullopt;
}

}  // namespace ksched::apiserver
