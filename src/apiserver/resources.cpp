#include "apiserver/resources.h"

#include <algorithm>
#include <boost/json.hpp>
#include <memory>
#include <stdexcept>

#include "apiserver/registry/events/event_conversion.h"
#include "apiserver/registry/scheduling/conversion.h"

namespace ksched::apiserver {

namespace json = boost::json;

bool ResourceInfo::has_sub(std::string_view s) const {
  for (const auto& x : subresources)
    if (x == s) return true;
  return false;
}

namespace {

std::vector<ResourceInfo> build() {
  std::vector<ResourceInfo> v;
  auto add = [&](std::string group, std::string version, std::string plural, std::string singular, std::string kind,
                 bool ns, std::vector<std::string> shorts, std::vector<std::string> subs,
                 std::vector<std::string> fields = {}, bool gen = false, std::vector<std::string> cats = {}) {
    ResourceInfo r;
    r.id = static_cast<int>(v.size());
    r.group = std::move(group);
    r.version = std::move(version);
    r.plural = std::move(plural);
    r.singular = std::move(singular);
    r.kind = std::move(kind);
    r.namespaced = ns;
    r.short_names = std::move(shorts);
    r.subresources = std::move(subs);
    r.extra_fields = std::move(fields);
    r.tracks_generation = gen;
    r.categories = std::move(cats);
    r.storage = r.id;
    v.push_back(std::move(r));
  };
  // core/v1
  add("", "v1", "pods", "pod", "Pod", true, {"po"}, {"binding", "eviction", "status"},
      {"spec.nodeName", "spec.host", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
       "spec.hostNetwork", "status.phase", "status.podIP", "status.podIPs", "status.nominatedNodeName"},
      /*gen=*/true, {"all"});  // metadata.generation: PodObservedGenerationTracking, GA in v1.35
  add("", "v1", "bindings", "binding", "Binding", true, {}, {});
  v.back().create_only = true;
  add("", "v1", "nodes", "node", "Node", false, {"no"}, {"status"}, {"spec.unschedulable"});
  add("", "v1", "namespaces", "namespace", "Namespace", false, {"ns"}, {"finalize", "status"}, {"status.phase"});
  add("", "v1", "services", "service", "Service", true, {"svc"}, {"status"}, {"spec.clusterIP", "spec.type"}, false,
      {"all"});
  add("", "v1", "endpoints", "endpoints", "Endpoints", true, {"ep"}, {});
  add("", "v1", "configmaps", "configmap", "ConfigMap", true, {"cm"}, {});
  add("", "v1", "secrets", "secret", "Secret", true, {}, {}, {"type"});
  add("", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", true, {"sa"}, {});
  add("", "v1", "events", "event", "Event", true, {"ev"}, {},
      {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
       "involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason",
       "reportingComponent", "source", "type"});
  add("", "v1", "persistentvolumes", "persistentvolume", "PersistentVolume", false, {"pv"}, {"status"});
  add("", "v1", "persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim", true, {"pvc"},
      {"status"});
  add("", "v1", "replicationcontrollers", "replicationcontroller", "ReplicationController", true, {"rc"},
      {"scale", "status"}, {"status.replicas"}, true, {"all"});
  add("", "v1", "podtemplates", "podtemplate", "PodTemplate", true, {}, {});
  add("", "v1", "limitranges", "limitrange", "LimitRange", true, {"limits"}, {});
  add("", "v1", "resourcequotas", "resourcequota", "ResourceQuota", true, {"quota"}, {"status"});
  // apps/v1
  add("apps", "v1", "deployments", "deployment", "Deployment", true, {"deploy"}, {"scale", "status"}, {}, true,
      {"all"});
  add("apps", "v1", "replicasets", "replicaset", "ReplicaSet", true, {"rs"}, {"scale", "status"},
      {"status.replicas"}, true, {"all"});
  add("apps", "v1", "statefulsets", "statefulset", "StatefulSet", true, {"sts"}, {"scale", "status"}, {}, true,
      {"all"});
  add("apps", "v1", "daemonsets", "daemonset", "DaemonSet", true, {"ds"}, {"status"}, {}, true, {"all"});
  add("apps", "v1", "controllerrevisions", "controllerrevision", "ControllerRevision", true, {}, {});
  // batch/v1
  add("batch", "v1", "jobs", "job", "Job", true, {}, {"status"}, {"status.successful"}, true, {"all"});
  add("batch", "v1", "cronjobs", "cronjob", "CronJob", true, {"cj"}, {"status"}, {}, true, {"all"});
  // policy/v1
  add("policy", "v1", "poddisruptionbudgets", "poddisruptionbudget", "PodDisruptionBudget", true, {"pdb"},
      {"status"}, {}, true);
  // storage.k8s.io/v1
  add("storage.k8s.io", "v1", "storageclasses", "storageclass", "StorageClass", false, {"sc"}, {});
  add("storage.k8s.io", "v1", "csinodes", "csinode", "CSINode", false, {}, {});
  add("storage.k8s.io", "v1", "csidrivers", "csidriver", "CSIDriver", false, {}, {});
  add("storage.k8s.io", "v1", "csistoragecapacities", "csistoragecapacity", "CSIStorageCapacity", true, {}, {});
  add("storage.k8s.io", "v1", "volumeattachments", "volumeattachment", "VolumeAttachment", false, {}, {"status"});
  // coordination.k8s.io/v1
  add("coordination.k8s.io", "v1", "leases", "lease", "Lease", true, {}, {});
  // scheduling.k8s.io/v1
  add("scheduling.k8s.io", "v1", "priorityclasses", "priorityclass", "PriorityClass", false, {"pc"}, {});
  // scheduling.k8s.io/v1beta1 PodGroup and Workload (v1.37, KEP-5832), served with
  // GenericWorkload, listed before v1alpha1 as upstream orders a group's versions by priority
  // (so clients that pick a resource's first listed version, as kubectl, use v1beta1).
  add("scheduling.k8s.io", "v1beta1", "podgroups", "podgroup", "PodGroup", true, {}, {"status"});
  v.back().gate = "GenericWorkload";
  // The Workload is stored at v1beta1 and served at v1beta1 and v1alpha1 (v1.35's, which the
  // scheduler reads), converted (registry/scheduling/conversion.h).
  add("scheduling.k8s.io", "v1beta1", "workloads", "workload", "Workload", true, {}, {});
  v.back().gate = "GenericWorkload";
  v.back().conversion = &registry::scheduling::workload_conversion();
  // scheduling.k8s.io/v1alpha3 CompositePodGroup (v1.37 alpha, KEP-6012), served with GenericWorkload
  // and CompositePodGroup (upstream's FeatureGateAPIRequirements ties it to the latter; the group's
  // PodGroups, which it groups, need the former).
  add("scheduling.k8s.io", "v1alpha3", "compositepodgroups", "compositepodgroup", "CompositePodGroup", true, {},
      {"status"});
  v.back().gate = "GenericWorkload";
  v.back().also_gate = "CompositePodGroup";
  // scheduling.k8s.io/v1alpha1 (v1.35; rules: registry/scheduling/), served with GenericWorkload.
  add("scheduling.k8s.io", "v1alpha1", "workloads", "workload", "Workload", true, {}, {});
  v.back().gate = "GenericWorkload";
  v.back().conversion = &registry::scheduling::workload_conversion();
  // node.k8s.io/v1
  add("node.k8s.io", "v1", "runtimeclasses", "runtimeclass", "RuntimeClass", false, {}, {});
  // resource.k8s.io/v1 and v1beta2 (rules: registry/resource/)
  add("resource.k8s.io", "v1", "deviceclasses", "deviceclass", "DeviceClass", false, {}, {}, {}, true);
  add("resource.k8s.io", "v1", "resourceclaims", "resourceclaim", "ResourceClaim", true, {}, {"status"});
  add("resource.k8s.io", "v1", "resourceclaimtemplates", "resourceclaimtemplate", "ResourceClaimTemplate", true, {},
      {});
  add("resource.k8s.io", "v1", "resourceslices", "resourceslice", "ResourceSlice", false, {}, {},
      {"spec.driver", "spec.nodeName"}, true);
  add("resource.k8s.io", "v1beta2", "devicetaintrules", "devicetaintrule", "DeviceTaintRule", false, {}, {"status"},
      {}, true);
  // events.k8s.io/v1
  add("events.k8s.io", "v1", "events", "event", "Event", true, {"ev"}, {});
  v.back().conversion = &event_conversion();  // a view of core/v1 Events
  // rbac.authorization.k8s.io/v1
  add("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "clusterrolebinding", "ClusterRoleBinding", false, {},
      {});
  add("rbac.authorization.k8s.io", "v1", "clusterroles", "clusterrole", "ClusterRole", false, {}, {});
  add("rbac.authorization.k8s.io", "v1", "rolebindings", "rolebinding", "RoleBinding", true, {}, {});
  add("rbac.authorization.k8s.io", "v1", "roles", "role", "Role", true, {}, {});
  // Reviews are answered, never stored.
  add("authentication.k8s.io", "v1", "tokenreviews", "tokenreview", "TokenReview", false, {}, {});
  v.back().create_only = true;
  add("authorization.k8s.io", "v1", "subjectaccessreviews", "subjectaccessreview", "SubjectAccessReview", false, {},
      {});
  v.back().create_only = true;
  add("authorization.k8s.io", "v1", "localsubjectaccessreviews", "localsubjectaccessreview", "LocalSubjectAccessReview",
      true, {}, {});
  v.back().create_only = true;
  add("authorization.k8s.io", "v1", "selfsubjectaccessreviews", "selfsubjectaccessreview", "SelfSubjectAccessReview",
      false, {}, {});
  v.back().create_only = true;
  add("authorization.k8s.io", "v1", "selfsubjectrulesreviews", "selfsubjectrulesreview", "SelfSubjectRulesReview", false,
      {}, {});
  v.back().create_only = true;
  add("authentication.k8s.io", "v1", "selfsubjectreviews", "selfsubjectreview", "SelfSubjectReview", false, {}, {});
  v.back().create_only = true;
  // A converted resource's objects live in its storage version's table.
  for (auto& r : v) {
    if (!r.conversion) continue;
    const Conversion& c = *r.conversion;
    bool found = false;
    for (const auto& s : v)
      if (s.group == c.storage_group && s.version == c.storage_version && s.plural == c.storage_plural) {
        r.storage = s.id;
        found = true;
      }
    if (!found) throw std::logic_error("resource table: no storage version for " + r.plural + "." + r.group);
  }
  return v;
}

// The value at `path` (object keys from the root), or null.
const json::value* value_at(const json::object& o, const std::vector<std::string>& path) {
  const json::object* cur = &o;
  for (std::size_t i = 0;; ++i) {
    auto it = cur->find(path[i]);
    if (it == cur->end()) return nullptr;
    if (i + 1 == path.size()) return &it->value();
    if (!it->value().is_object()) return nullptr;
    cur = &it->value().get_object();
  }
}

std::string scalar_string(const json::value* v, std::string_view dflt) {
  if (!v) return std::string(dflt);
  if (v->is_string()) return std::string(v->get_string());
  if (v->is_bool()) return v->get_bool() ? "true" : "false";
  if (v->is_int64()) return std::to_string(v->get_int64());
  if (v->is_uint64()) return std::to_string(v->get_uint64());
  return std::string(dflt);
}

}  // namespace

const std::vector<ResourceInfo>& all_resources() {
  static const std::vector<ResourceInfo> v = build();
  return v;
}

const ResourceInfo& resource_by_id(int id) { return all_resources()[static_cast<size_t>(id)]; }

const ResourceInfo* find_resource(std::string_view group, std::string_view version, std::string_view plural) {
  for (const auto& r : all_resources())
    if (r.group == group && r.version == version && r.plural == plural) return &r;
  return nullptr;
}

bool is_served(const ResourceInfo& r, const FeatureGates& gates) {
  return (r.gate.empty() || gates.enabled(r.gate)) && (r.also_gate.empty() || gates.enabled(r.also_gate));
}

bool serves_group_version(std::string_view group, std::string_view version, const FeatureGates& gates) {
  for (const auto& r : all_resources())
    if (r.group == group && r.version == version && is_served(r, gates)) return true;
  return false;
}

const ResourceInfo* find_resource_by_kind(std::string_view group, std::string_view kind) {
  for (const auto& r : all_resources())
    if (r.group == group && r.kind == kind) return &r;
  return nullptr;
}

const ResourceInfo* find_resource_by_kind(std::string_view group, std::string_view version, std::string_view kind) {
  for (const auto& r : all_resources())
    if (r.group == group && r.version == version && r.kind == kind) return &r;
  return nullptr;
}

std::vector<std::string> api_groups(const FeatureGates& gates) {
  std::vector<std::string> g;
  for (const auto& r : all_resources()) {
    if (r.group.empty() || !is_served(r, gates)) continue;
    bool seen = false;
    for (const auto& x : g) seen = seen || x == r.group;
    if (!seen) g.push_back(r.group);
  }
  return g;
}

Pairs extract_labels(const json::object& obj) {
  Pairs p;
  static const std::vector<std::string> kLabels{"metadata", "labels"};
  const json::value* l = value_at(obj, kLabels);
  if (l && l->is_object()) {
    for (const auto& kv : l->get_object())
      if (kv.value().is_string()) p.set(std::string(kv.key()), std::string(kv.value().get_string()));
  }
  return p;
}

namespace {

// Where each selectable field of a resource comes from, in the order of its sorted names: worked
// out once per resource, since every write of an object extracts them.
struct FieldSource {
  std::vector<std::string> path;  // object keys from the root
  std::string dflt;               // the value when the path is absent
  bool joined_pod_ips = false;    // status.podIPs: the IPs joined by ","
};
struct FieldPlan {
  std::shared_ptr<const fields::FieldSet::Names> names;
  std::vector<FieldSource> sources;  // sources[i] gives (*names)[i]
};

FieldSource source_of(const std::string& field) {
  FieldSource s;
  std::string_view path = field;
  if (field == "spec.host") path = "spec.nodeName";
  else if (field == "source") path = "source.component";
  if (field == "spec.unschedulable" || field == "spec.hostNetwork") s.dflt = "false";
  else if (field == "status.replicas" || field == "status.successful") s.dflt = "0";
  s.joined_pod_ips = field == "status.podIPs";
  for (std::size_t dot; (dot = path.find('.')) != std::string_view::npos; path.remove_prefix(dot + 1))
    s.path.emplace_back(path.substr(0, dot));
  s.path.emplace_back(path);
  return s;
}

const FieldPlan& field_plan(const ResourceInfo& r) {
  static const std::vector<FieldPlan> plans = [] {
    std::vector<FieldPlan> v;
    for (const auto& res : all_resources()) {
      fields::FieldSet::Names names{"metadata.name", "metadata.namespace"};
      for (const auto& f : res.extra_fields)
        if (std::find(names.begin(), names.end(), f) == names.end()) names.push_back(f);
      std::sort(names.begin(), names.end());
      FieldPlan p;
      for (const auto& n : names) p.sources.push_back(source_of(n));
      p.names = std::make_shared<const fields::FieldSet::Names>(std::move(names));
      v.push_back(std::move(p));
    }
    return v;
  }();
  return plans[static_cast<std::size_t>(r.id)];
}

}  // namespace

fields::FieldSet extract_fields(const ResourceInfo& r, const json::object& obj) {
  const FieldPlan& plan = field_plan(r);
  std::vector<std::string> values;
  values.reserve(plan.sources.size());
  for (const auto& src : plan.sources) {
    const json::value* v = value_at(obj, src.path);
    if (!src.joined_pod_ips) {
      values.push_back(scalar_string(v, src.dflt));
      continue;
    }
    std::string ips;
    if (v && v->is_array()) {
      for (const auto& e : v->get_array()) {
        if (!e.is_object()) continue;
        if (!ips.empty()) ips += ",";
        ips += scalar_string(e.get_object().if_contains("ip"), "");
      }
    }
    values.push_back(std::move(ips));
  }
  return fields::FieldSet(plan.names, std::move(values));
}

util::Result<void> check_field_selector_field(const ResourceInfo& r, std::string_view field) {
  if (field == "metadata.name" || field == "metadata.namespace") return {};
  for (const auto& f : r.extra_fields)
    if (f == field) return {};
  if (r.extra_fields.empty())
    return util::make_error("\"" + std::string(field) +
                            "\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"");
  return util::make_error("field label not supported: " + std::string(field));
}

}  // namespace ksched::apiserver
