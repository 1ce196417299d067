#include "apiserver/defaults.h"

#include <boost/json.hpp>

#include "apiserver/json_access.h"

namespace ksched::apiserver {

namespace json = boost::json;

namespace {

template <class F>
void each_object(json::array* a, F&& f) {
  if (!a) return;
  for (auto& x : *a)
    if (x.is_object()) f(x.get_object());
}

// SetDefaults_Probe and its handlers.
void default_probe(json::object* p) {
  if (!p) return;
  set_default(*p, "timeoutSeconds", 1);
  set_default(*p, "periodSeconds", 10);
  set_default(*p, "successThreshold", 1);
  set_default(*p, "failureThreshold", 3);
  if (auto* h = object_member(*p, "httpGet")) {
    set_default(*h, "path", "/");
    set_default(*h, "scheme", "HTTP");
  }
}

void default_lifecycle_handler(json::object* h) {
  if (!h) return;
  if (auto* g = object_member(*h, "httpGet")) {
    set_default(*g, "path", "/");
    set_default(*g, "scheme", "HTTP");
  }
}

// SetDefaults_Container, SetDefaults_ContainerPort, SetDefaults_EnvVar's fieldRef, probes.
void default_container(json::object& c) {
  set_default(c, "terminationMessagePath", "/dev/termination-log");
  set_default(c, "terminationMessagePolicy", "File");
  if (str_view(c, "imagePullPolicy").empty()) {
    std::string_view image = str_view(c, "image");
    auto slash = image.rfind('/');
    std::string_view last = slash == std::string_view::npos ? image : image.substr(slash + 1);
    bool digest = image.find('@') != std::string_view::npos;
    auto colon = last.find(':');
    bool latest = !digest && (colon == std::string_view::npos || last.substr(colon + 1) == "latest");
    c["imagePullPolicy"] = latest ? "Always" : "IfNotPresent";
  }
  set_default(c, "resources", json::object());
  each_object(array_member(c, "ports"), [](json::object& p) { set_default(p, "protocol", "TCP"); });
  each_object(array_member(c, "env"), [](json::object& e) {
    if (auto* vf = object_member(e, "valueFrom"))
      if (auto* fr = object_member(*vf, "fieldRef")) set_default(*fr, "apiVersion", "v1");
  });
  for (const char* probe : {"livenessProbe", "readinessProbe", "startupProbe"}) default_probe(object_member(c, probe));
  if (auto* lc = object_member(c, "lifecycle")) {
    default_lifecycle_handler(object_member(*lc, "postStart"));
    default_lifecycle_handler(object_member(*lc, "preStop"));
  }
}

// SetDefaults_Volume and the per-source defaults (file modes 0644, hostPath type "").
void default_volume(json::object& v) {
  bool has_source = false;
  for (const auto& kv : v)
    if (kv.key() != "name") has_source = true;
  if (!has_source) v["emptyDir"] = json::object();
  for (const char* src : {"secret", "configMap", "downwardAPI", "projected"})
    if (auto* s = object_member(v, src)) set_default(*s, "defaultMode", 420);
  if (auto* hp = object_member(v, "hostPath")) set_default(*hp, "type", "");
  if (auto* iscsi = object_member(v, "iscsi")) set_default(*iscsi, "iscsiInterface", "default");
}

// SetDefaults_PodSpec: what every pod spec (pods and templates) gets.
void default_pod_spec(json::object& spec) {
  set_default(spec, "dnsPolicy", "ClusterFirst");
  set_default(spec, "restartPolicy", "Always");
  set_default(spec, "securityContext", json::object());
  set_default(spec, "terminationGracePeriodSeconds", 30);
  set_default(spec, "schedulerName", "default-scheduler");
  // The deprecated serviceAccount names the account when serviceAccountName does not.
  if (std::string_view sa = str_view(spec, "serviceAccount"); !sa.empty() && str_view(spec, "serviceAccountName").empty())
    spec["serviceAccountName"] = json::string(sa);
  for (const char* list : {"containers", "initContainers", "ephemeralContainers"})
    each_object(array_member(spec, list), default_container);
  each_object(array_member(spec, "volumes"), default_volume);
}

// SetDefaults_Pod: requests default to limits (per resource, when unset), service links on, and
// under hostNetwork an unset hostPort takes the containerPort.
void default_pod(json::object& pod) {
  auto& spec = ensure_object(pod, "spec");
  default_pod_spec(spec);
  set_default(spec, "enableServiceLinks", true);
  bool host_network = false;
  if (auto* hn = spec.if_contains("hostNetwork"); hn && hn->is_bool()) host_network = hn->get_bool();
  for (const char* list : {"containers", "initContainers"}) {
    each_object(array_member(spec, list), [&](json::object& c) {
      if (auto* res = object_member(c, "resources"); res && object_member(*res, "limits") && !object_member(*res, "limits")->empty()) {
        auto& requests = ensure_object(*res, "requests");  // may rehash `res`: look limits up after
        for (const auto& kv : *object_member(*res, "limits"))
          if (!requests.contains(kv.key())) requests[kv.key()] = kv.value();
      }
      if (!host_network) return;
      each_object(array_member(c, "ports"), [](json::object& p) {
        auto* hp = p.if_contains("hostPort");
        bool unset = !hp || hp->is_null() || (hp->is_int64() && hp->get_int64() == 0);
        if (unset)
          if (auto* cp = p.if_contains("containerPort")) {
            json::value port = *cp;  // copied first: inserting hostPort may move the members
            p["hostPort"] = std::move(port);
          }
      });
    });
  }
}

// A node always has a spec and a status; the status' daemonEndpoints and nodeInfo are structs
// upstream always serialises, and allocatable defaults to capacity (SetDefaults_NodeStatus).
void default_node(json::object& node) {
  ensure_object(node, "spec");
  auto& status = ensure_object(node, "status");
  auto& de = ensure_object(status, "daemonEndpoints");
  auto& ke = ensure_object(de, "kubeletEndpoint");
  set_default(ke, "Port", 0);
  auto& info = ensure_object(status, "nodeInfo");
  for (const char* f : {"machineID", "systemUUID", "bootID", "kernelVersion", "osImage", "containerRuntimeVersion",
                        "kubeletVersion", "kubeProxyVersion", "operatingSystem", "architecture"})
    set_default(info, f, "");
  if (auto* cap = object_member(status, "capacity"); cap && !status.contains("allocatable")) {
    json::object copy = *cap;  // copied first: inserting allocatable may move the members
    status["allocatable"] = std::move(copy);
  }
}

void default_template(json::object* parent, std::string_view key) {
  if (!parent) return;
  if (auto* t = object_member(*parent, key))
    if (auto* spec = object_member(*t, "spec")) default_pod_spec(*spec);
}

// SetDefaults_Deployment, _ReplicaSet, _StatefulSet, _DaemonSet (apps/v1): what the controllers and
// `kubectl rollout` read as set.
void default_apps(std::string_view kind, json::object& spec) {
  if (kind == "Deployment" || kind == "ReplicaSet" || kind == "StatefulSet") set_default(spec, "replicas", 1);
  if (kind == "Deployment") {
    auto& strategy = ensure_object(spec, "strategy");
    set_default(strategy, "type", "RollingUpdate");
    if (str_view(strategy, "type") == "RollingUpdate") {
      auto& ru = ensure_object(strategy, "rollingUpdate");
      set_default(ru, "maxUnavailable", "25%");
      set_default(ru, "maxSurge", "25%");
    }
    set_default(spec, "revisionHistoryLimit", 10);
    set_default(spec, "progressDeadlineSeconds", 600);
  } else if (kind == "DaemonSet") {
    auto& strategy = ensure_object(spec, "updateStrategy");
    set_default(strategy, "type", "RollingUpdate");
    if (str_view(strategy, "type") == "RollingUpdate") {
      auto& ru = ensure_object(strategy, "rollingUpdate");
      set_default(ru, "maxUnavailable", 1);
      set_default(ru, "maxSurge", 0);
    }
    set_default(spec, "revisionHistoryLimit", 10);
  } else if (kind == "StatefulSet") {
    set_default(spec, "podManagementPolicy", "OrderedReady");
    auto& strategy = ensure_object(spec, "updateStrategy");
    if (str_view(strategy, "type").empty()) {
      strategy["type"] = "RollingUpdate";
      ensure_object(strategy, "rollingUpdate");
    }
    if (str_view(strategy, "type") == "RollingUpdate")
      if (auto* ru = object_member(strategy, "rollingUpdate")) set_default(*ru, "partition", 0);
    auto& retention = ensure_object(spec, "persistentVolumeClaimRetentionPolicy");
    set_default(retention, "whenDeleted", "Retain");
    set_default(retention, "whenScaled", "Retain");
    set_default(spec, "revisionHistoryLimit", 10);
  }
}

// SetDefaults_Job (batch/v1).
void default_job(json::object& job) {
  auto& spec = ensure_object(job, "spec");
  auto absent = [&](std::string_view k) { return !spec.contains(k) || spec.at(k).is_null(); };
  if (absent("completions") && absent("parallelism")) {
    spec["completions"] = 1;
    spec["parallelism"] = 1;
  }
  set_default(spec, "parallelism", 1);
  set_default(spec, "backoffLimit", absent("backoffLimitPerIndex") ? 6 : 2147483647);
  auto& meta = ensure_object(job, "metadata");
  if (auto* t = object_member(spec, "template"))
    if (auto* tm = object_member(*t, "metadata"))
      if (auto* labels = object_member(*tm, "labels"); labels && !labels->empty()) {
        auto* own = object_member(meta, "labels");
        if (!own || own->empty()) meta["labels"] = *labels;
      }
  set_default(spec, "completionMode", "NonIndexed");
  set_default(spec, "suspend", false);
  set_default(spec, "podReplacementPolicy", absent("podFailurePolicy") ? "TerminatingOrFailed" : "Failed");
}

}  // namespace

void apply_defaults(const ResourceInfo& r, json::object& obj) {
  const std::string& k = r.kind;
  if (r.group.empty()) {
    if (k == "Pod") return default_pod(obj);
    if (k == "Node") return default_node(obj);
    if (k == "ReplicationController") return default_template(object_member(obj, "spec"), "template");
    if (k == "PodTemplate") return default_template(&obj, "template");
    return;
  }
  if (r.group == "scheduling.k8s.io" && k == "PriorityClass") {
    set_default(obj, "preemptionPolicy", "PreemptLowerPriority");
    return;
  }
  if (r.group == "apps") {
    if (auto* spec = object_member(obj, "spec")) default_apps(k, *spec);
    return default_template(object_member(obj, "spec"), "template");
  }
  if (r.group == "batch") {
    if (k == "Job") default_job(obj);
    json::object* spec = object_member(obj, "spec");
    if (k == "CronJob" && spec)
      if (auto* jt = object_member(*spec, "jobTemplate")) spec = object_member(*jt, "spec");
    return default_template(spec, "template");
  }
}

}  // namespace ksched::apiserver
