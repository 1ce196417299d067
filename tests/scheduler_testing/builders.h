// Fluent pod/node builders for scheduler tests, in the spirit of upstream's
// pkg/scheduler/testing (st.MakePod().Name("p").Req({{"cpu", "1"}}).Obj()).
// Header-only; quantities are parsed with api::Quantity::must (throws on a bad literal).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "api/core.h"
#include "api/quantity.h"
#include "scheduler/framework/types.h"

namespace ksched::scheduler::testing {

using ResourceMap = std::vector<std::pair<std::string, std::string>>;  // {{"cpu","1"},{"memory","1Gi"}}

inline api::ResourceList resource_list(const ResourceMap& m) {
  api::ResourceList rl;
  for (const auto& [k, v] : m) rl.set(k, api::Quantity::must(v));
  return rl;
}

inline api::StringMap string_map(const std::vector<std::pair<std::string, std::string>>& m) {
  api::StringMap s;
  for (const auto& [k, v] : m) s.set(k, v);
  return s;
}

// metav1.LabelSelector builder: MakeLabelSelector().Label("app","web").Exists("tier").Obj().
class LabelSelectorWrapper {
 public:
  LabelSelectorWrapper& Label(std::string k, std::string v) {
    s_.matchLabels.set(std::move(k), std::move(v));
    return *this;
  }
  LabelSelectorWrapper& In(std::string k, std::vector<std::string> vals) { return expr(std::move(k), "In", std::move(vals)); }
  LabelSelectorWrapper& NotIn(std::string k, std::vector<std::string> vals) {
    return expr(std::move(k), "NotIn", std::move(vals));
  }
  LabelSelectorWrapper& Exists(std::string k) { return expr(std::move(k), "Exists", {}); }
  LabelSelectorWrapper& NotExist(std::string k) { return expr(std::move(k), "DoesNotExist", {}); }
  api::LabelSelector Obj() const { return s_; }

 private:
  LabelSelectorWrapper& expr(std::string k, std::string op, std::vector<std::string> vals) {
    api::LabelSelectorRequirement r;
    r.key = std::move(k);
    r.operator_ = std::move(op);
    r.values = std::move(vals);
    s_.matchExpressions.push_back(std::move(r));
    return *this;
  }
  api::LabelSelector s_;
};
inline LabelSelectorWrapper MakeLabelSelector() { return {}; }

enum class AffinityKind { Required, Preferred };

class PodWrapper {
 public:
  PodWrapper() {
    pod_.apiVersion = "v1";
    pod_.kind = "Pod";
    pod_.metadata.namespace_ = "default";
  }

  // Name also sets the uid when none was given (upstream tests do UID(name) by hand).
  PodWrapper& Name(std::string n) {
    if (pod_.metadata.uid.empty()) pod_.metadata.uid = n;
    pod_.metadata.name = std::move(n);
    return *this;
  }
  PodWrapper& Namespace(std::string ns) {
    pod_.metadata.namespace_ = std::move(ns);
    return *this;
  }
  PodWrapper& UID(std::string uid) {
    pod_.metadata.uid = std::move(uid);
    return *this;
  }
  PodWrapper& ResourceVersion(std::string rv) {
    pod_.metadata.resourceVersion = std::move(rv);
    return *this;
  }
  PodWrapper& Label(std::string k, std::string v) {
    pod_.metadata.labels.set(std::move(k), std::move(v));
    return *this;
  }
  PodWrapper& Labels(const std::vector<std::pair<std::string, std::string>>& l) {
    for (const auto& [k, v] : l) pod_.metadata.labels.set(k, v);
    return *this;
  }
  PodWrapper& Annotation(std::string k, std::string v) {
    pod_.metadata.annotations.set(std::move(k), std::move(v));
    return *this;
  }
  PodWrapper& OwnerReference(std::string name, std::string kind, std::string api_version) {
    api::OwnerReference o;
    o.name = std::move(name);
    o.kind = std::move(kind);
    o.apiVersion = std::move(api_version);
    o.uid = o.name;
    o.controller = true;
    pod_.metadata.ownerReferences.push_back(std::move(o));
    return *this;
  }
  PodWrapper& Terminating() {
    pod_.metadata.deletionTimestamp = api::Time{1};
    return *this;
  }
  PodWrapper& Node(std::string node) {
    pod_.spec.nodeName = std::move(node);
    return *this;
  }
  PodWrapper& NominatedNodeName(std::string node) {
    pod_.status.nominatedNodeName = std::move(node);
    return *this;
  }
  PodWrapper& SchedulerName(std::string s) {
    pod_.spec.schedulerName = std::move(s);
    return *this;
  }
  PodWrapper& Priority(std::int32_t p) {
    pod_.spec.priority = p;
    return *this;
  }
  // spec.workloadRef (v1.35, GenericWorkload): the Workload and pod group the pod belongs to.
  PodWrapper& WorkloadRef(std::string workload, std::string group, std::string replica = "") {
    auto& r = pod_.spec.workloadRef.emplace();
    r.name = std::move(workload);
    r.podGroup = std::move(group);
    r.podGroupReplicaKey = std::move(replica);
    return *this;
  }
  // v1.37's spec.schedulingGroup.podGroupName (upstream st.MakePod().PodGroupName).
  PodWrapper& PodGroupName(std::string name) {
    pod_.spec.schedulingGroup.emplace().podGroupName = std::move(name);
    return *this;
  }
  PodWrapper& PriorityClassName(std::string n) {
    pod_.spec.priorityClassName = std::move(n);
    return *this;
  }
  PodWrapper& PreemptionPolicy(std::string p) {
    pod_.spec.preemptionPolicy = std::move(p);
    return *this;
  }
  PodWrapper& Phase(std::string p) {
    pod_.status.phase = std::move(p);
    return *this;
  }
  PodWrapper& StartTime(api::Time t) {
    pod_.status.startTime = t;
    return *this;
  }
  PodWrapper& Condition(std::string type, std::string status, std::string reason = {}) {
    api::PodCondition c;
    c.type = std::move(type);
    c.status = std::move(status);
    c.reason = std::move(reason);
    pod_.status.conditions.push_back(std::move(c));
    return *this;
  }

  // A container with an image (no requests).
  PodWrapper& Container(std::string image) {
    api::Container c;
    c.name = "con" + std::to_string(pod_.spec.containers.size());
    c.image = std::move(image);
    pod_.spec.containers.push_back(std::move(c));
    return *this;
  }
  // A new container with these requests (upstream st.Req).
  PodWrapper& Req(const ResourceMap& reqs) {
    api::Container c;
    c.name = "con" + std::to_string(pod_.spec.containers.size());
    c.image = "pause";
    c.resources.requests = resource_list(reqs);
    pod_.spec.containers.push_back(std::move(c));
    return *this;
  }
  // Limits on the last container (adds one when there is none).
  PodWrapper& Lim(const ResourceMap& lims) {
    if (pod_.spec.containers.empty()) Container("pause");
    pod_.spec.containers.back().resources.limits = resource_list(lims);
    return *this;
  }
  // A regular (run-to-completion) init container.
  PodWrapper& InitReq(const ResourceMap& reqs) {
    api::Container c;
    c.name = "init" + std::to_string(pod_.spec.initContainers.size());
    c.image = "pause";
    c.resources.requests = resource_list(reqs);
    pod_.spec.initContainers.push_back(std::move(c));
    return *this;
  }
  // A restartable init container (sidecar, restartPolicy: Always).
  PodWrapper& SidecarReq(const ResourceMap& reqs) {
    InitReq(reqs);
    pod_.spec.initContainers.back().restartPolicy = "Always";
    return *this;
  }
  // Pod-level requests / limits (spec.resources, PodLevelResources).
  PodWrapper& PodLevelReq(const ResourceMap& reqs) {
    if (!pod_.spec.resources) pod_.spec.resources.emplace();
    pod_.spec.resources->requests = resource_list(reqs);
    return *this;
  }
  PodWrapper& PodLevelLim(const ResourceMap& lims) {
    if (!pod_.spec.resources) pod_.spec.resources.emplace();
    pod_.spec.resources->limits = resource_list(lims);
    return *this;
  }
  PodWrapper& Overhead(const ResourceMap& o) {
    pod_.spec.overhead = resource_list(o);
    return *this;
  }
  // Host port on a new container (protocol "" = TCP, hostIP "" = 0.0.0.0 as upstream defaults).
  PodWrapper& HostPort(std::int32_t port, std::string protocol = "TCP", std::string host_ip = {}) {
    api::ContainerPort p;
    p.hostPort = port;
    p.containerPort = port;
    p.protocol = std::move(protocol);
    p.hostIP = std::move(host_ip);
    api::Container c;
    c.name = "con" + std::to_string(pod_.spec.containers.size());
    c.image = "pause";
    c.ports.push_back(std::move(p));
    pod_.spec.containers.push_back(std::move(c));
    return *this;
  }
  PodWrapper& ContainerPorts(std::vector<api::ContainerPort> ports) {
    api::Container c;
    c.name = "con" + std::to_string(pod_.spec.containers.size());
    c.image = "pause";
    c.ports = std::move(ports);
    pod_.spec.containers.push_back(std::move(c));
    return *this;
  }

  PodWrapper& NodeSelector(const std::vector<std::pair<std::string, std::string>>& sel) {
    for (const auto& [k, v] : sel) pod_.spec.nodeSelector.set(k, v);
    return *this;
  }
  // Adds a required node affinity term with one expression (upstream st.NodeAffinityIn: each call
  // adds an expression to the first term).
  PodWrapper& NodeAffinityIn(std::string key, std::vector<std::string> vals) {
    return node_affinity_expr(std::move(key), "In", std::move(vals));
  }
  PodWrapper& NodeAffinityNotIn(std::string key, std::vector<std::string> vals) {
    return node_affinity_expr(std::move(key), "NotIn", std::move(vals));
  }
  PodWrapper& NodeAffinityExists(std::string key) { return node_affinity_expr(std::move(key), "Exists", {}); }
  PodWrapper& NodeAffinity(api::NodeAffinity na) {
    ensure_affinity().nodeAffinity = std::move(na);
    return *this;
  }
  PodWrapper& PreferredNodeAffinity(std::int32_t weight, api::NodeSelectorTerm term) {
    auto& a = ensure_affinity();
    if (!a.nodeAffinity) a.nodeAffinity.emplace();
    api::PreferredSchedulingTerm t;
    t.weight = weight;
    t.preference = std::move(term);
    a.nodeAffinity->preferredDuringSchedulingIgnoredDuringExecution.push_back(std::move(t));
    return *this;
  }

  // Pod (anti-)affinity with an explicit term.
  PodWrapper& PodAffinity(std::string topology_key, api::LabelSelector sel, AffinityKind kind,
                          std::int32_t weight = 1, std::vector<std::string> namespaces = {},
                          std::optional<api::LabelSelector> ns_selector = std::nullopt) {
    auto& a = ensure_affinity();
    if (!a.podAffinity) a.podAffinity.emplace();
    add_term(*a.podAffinity, std::move(topology_key), std::move(sel), kind, weight, std::move(namespaces),
             std::move(ns_selector));
    return *this;
  }
  PodWrapper& PodAntiAffinity(std::string topology_key, api::LabelSelector sel, AffinityKind kind,
                              std::int32_t weight = 1, std::vector<std::string> namespaces = {},
                              std::optional<api::LabelSelector> ns_selector = std::nullopt) {
    auto& a = ensure_affinity();
    if (!a.podAntiAffinity) a.podAntiAffinity.emplace();
    add_term(*a.podAntiAffinity, std::move(topology_key), std::move(sel), kind, weight, std::move(namespaces),
             std::move(ns_selector));
    return *this;
  }
  // Upstream st.PodAffinityExists(labelKey, topologyKey, kind) and friends.
  PodWrapper& PodAffinityExists(std::string label_key, std::string topology_key, AffinityKind kind) {
    return PodAffinity(std::move(topology_key), MakeLabelSelector().Exists(std::move(label_key)).Obj(), kind);
  }
  PodWrapper& PodAntiAffinityExists(std::string label_key, std::string topology_key, AffinityKind kind) {
    return PodAntiAffinity(std::move(topology_key), MakeLabelSelector().Exists(std::move(label_key)).Obj(), kind);
  }
  PodWrapper& PodAffinityIn(std::string label_key, std::string topology_key, std::vector<std::string> vals,
                            AffinityKind kind) {
    return PodAffinity(std::move(topology_key), MakeLabelSelector().In(std::move(label_key), std::move(vals)).Obj(),
                       kind);
  }
  PodWrapper& PodAntiAffinityIn(std::string label_key, std::string topology_key, std::vector<std::string> vals,
                                AffinityKind kind) {
    return PodAntiAffinity(std::move(topology_key),
                           MakeLabelSelector().In(std::move(label_key), std::move(vals)).Obj(), kind);
  }

  PodWrapper& Toleration(std::string key, std::string op, std::string value, std::string effect) {
    api::Toleration t;
    t.key = std::move(key);
    t.operator_ = std::move(op);
    t.value = std::move(value);
    t.effect = std::move(effect);
    pod_.spec.tolerations.push_back(std::move(t));
    return *this;
  }
  PodWrapper& Tolerations(std::vector<api::Toleration> ts) {
    for (auto& t : ts) pod_.spec.tolerations.push_back(std::move(t));
    return *this;
  }

  // Upstream st.SpreadConstraint(maxSkew, tpKey, mode, selector, minDomains, affinityPolicy, taintsPolicy, matchLabelKeys).
  PodWrapper& SpreadConstraint(std::int32_t max_skew, std::string topology_key, std::string when_unsatisfiable,
                               std::optional<api::LabelSelector> selector,
                               std::optional<std::int32_t> min_domains = std::nullopt,
                               std::optional<std::string> node_affinity_policy = std::nullopt,
                               std::optional<std::string> node_taints_policy = std::nullopt,
                               std::vector<std::string> match_label_keys = {}) {
    api::TopologySpreadConstraint c;
    c.maxSkew = max_skew;
    c.topologyKey = std::move(topology_key);
    c.whenUnsatisfiable = std::move(when_unsatisfiable);
    c.labelSelector = std::move(selector);
    c.minDomains = min_domains;
    c.nodeAffinityPolicy = std::move(node_affinity_policy);
    c.nodeTaintsPolicy = std::move(node_taints_policy);
    c.matchLabelKeys = std::move(match_label_keys);
    pod_.spec.topologySpreadConstraints.push_back(std::move(c));
    return *this;
  }

  PodWrapper& Volume(api::Volume v) {
    pod_.spec.volumes.push_back(std::move(v));
    return *this;
  }
  PodWrapper& PVC(std::string claim_name, bool read_only = false) {
    api::Volume v;
    v.name = claim_name;
    v.persistentVolumeClaim.emplace();
    v.persistentVolumeClaim->claimName = std::move(claim_name);
    v.persistentVolumeClaim->readOnly = read_only;
    pod_.spec.volumes.push_back(std::move(v));
    return *this;
  }
  PodWrapper& SchedulingGates(const std::vector<std::string>& gates) {
    for (const auto& g : gates) {
      api::PodSchedulingGate sg;
      sg.name = g;
      pod_.spec.schedulingGates.push_back(std::move(sg));
    }
    return *this;
  }

  const api::Pod& Obj() const { return pod_; }
  framework::PodPtr Ptr() const { return std::make_shared<const api::Pod>(pod_); }
  framework::PodInfoPtr Info() const { return framework::PodInfo::make(Ptr()); }
  // Direct access for fields the builder does not cover.
  api::Pod& mut() { return pod_; }

 private:
  api::Affinity& ensure_affinity() {
    if (!pod_.spec.affinity) pod_.spec.affinity.emplace();
    return *pod_.spec.affinity;
  }
  PodWrapper& node_affinity_expr(std::string key, std::string op, std::vector<std::string> vals) {
    auto& a = ensure_affinity();
    if (!a.nodeAffinity) a.nodeAffinity.emplace();
    auto& req = a.nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution;
    if (!req) req.emplace();
    if (req->nodeSelectorTerms.empty()) req->nodeSelectorTerms.emplace_back();
    api::NodeSelectorRequirement r;
    r.key = std::move(key);
    r.operator_ = std::move(op);
    r.values = std::move(vals);
    req->nodeSelectorTerms.front().matchExpressions.push_back(std::move(r));
    return *this;
  }
  static void add_term(api::PodAffinity& pa, std::string topology_key, api::LabelSelector sel, AffinityKind kind,
                       std::int32_t weight, std::vector<std::string> namespaces,
                       std::optional<api::LabelSelector> ns_selector) {
    api::PodAffinityTerm t;
    t.topologyKey = std::move(topology_key);
    t.labelSelector = std::move(sel);
    t.namespaces = std::move(namespaces);
    t.namespaceSelector = std::move(ns_selector);
    if (kind == AffinityKind::Required) {
      pa.requiredDuringSchedulingIgnoredDuringExecution.push_back(std::move(t));
    } else {
      api::WeightedPodAffinityTerm w;
      w.weight = weight;
      w.podAffinityTerm = std::move(t);
      pa.preferredDuringSchedulingIgnoredDuringExecution.push_back(std::move(w));
    }
  }

  api::Pod pod_;
};
inline PodWrapper MakePod() { return {}; }

class NodeWrapper {
 public:
  NodeWrapper() {
    node_.apiVersion = "v1";
    node_.kind = "Node";
  }
  // Like upstream st.MakeNode().Name: no hostname label is added (use Label for that).
  NodeWrapper& Name(std::string n) {
    if (node_.metadata.uid.empty()) node_.metadata.uid = n;
    node_.metadata.name = std::move(n);
    return *this;
  }
  NodeWrapper& UID(std::string uid) {
    node_.metadata.uid = std::move(uid);
    return *this;
  }
  NodeWrapper& Label(std::string k, std::string v) {
    node_.metadata.labels.set(std::move(k), std::move(v));
    return *this;
  }
  NodeWrapper& Labels(const std::vector<std::pair<std::string, std::string>>& l) {
    for (const auto& [k, v] : l) node_.metadata.labels.set(k, v);
    return *this;
  }
  NodeWrapper& Zone(std::string zone, std::string region = {}) {
    node_.metadata.labels.set("topology.kubernetes.io/zone", std::move(zone));
    if (!region.empty()) node_.metadata.labels.set("topology.kubernetes.io/region", std::move(region));
    return *this;
  }
  NodeWrapper& DeclaredFeatures(std::vector<std::string> f) {
    node_.status.declaredFeatures = std::move(f);
    return *this;
  }
  // Sets both capacity and allocatable (upstream st.Capacity).
  NodeWrapper& Capacity(const ResourceMap& r) {
    node_.status.capacity = resource_list(r);
    node_.status.allocatable = node_.status.capacity;
    return *this;
  }
  NodeWrapper& Allocatable(const ResourceMap& r) {
    node_.status.allocatable = resource_list(r);
    return *this;
  }
  // image name -> size in bytes; each call adds one image entry with one name.
  NodeWrapper& Image(std::string name, std::int64_t size) {
    api::ContainerImage img;
    img.names.push_back(std::move(name));
    img.sizeBytes = size;
    node_.status.images.push_back(std::move(img));
    return *this;
  }
  NodeWrapper& Images(const std::vector<std::pair<std::string, std::int64_t>>& imgs) {
    for (const auto& [n, s] : imgs) Image(n, s);
    return *this;
  }
  NodeWrapper& Taint(std::string key, std::string value, std::string effect) {
    api::Taint t;
    t.key = std::move(key);
    t.value = std::move(value);
    t.effect = std::move(effect);
    node_.spec.taints.push_back(std::move(t));
    return *this;
  }
  NodeWrapper& Taints(std::vector<api::Taint> ts) {
    for (auto& t : ts) node_.spec.taints.push_back(std::move(t));
    return *this;
  }
  NodeWrapper& Unschedulable(bool u) {
    node_.spec.unschedulable = u;
    return *this;
  }
  NodeWrapper& Condition(std::string type, std::string status) {
    api::NodeCondition c;
    c.type = std::move(type);
    c.status = std::move(status);
    node_.status.conditions.push_back(std::move(c));
    return *this;
  }

  const api::Node& Obj() const { return node_; }
  framework::NodePtr Ptr() const { return std::make_shared<const api::Node>(node_); }
  api::Node& mut() { return node_; }

 private:
  api::Node node_;
};
inline NodeWrapper MakeNode() { return {}; }

}  // namespace ksched::scheduler::testing
