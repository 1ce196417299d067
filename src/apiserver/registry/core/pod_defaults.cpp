// SetDefaults_Pod and SetDefaults_PodSpec with what is under them (containers, probes, volumes:
// pkg/apis/core/v1/defaults.go and the declarative defaults of zz_generated.defaults.go): the pod
// strategy's set_defaults, and the pod templates' of the workload kinds (pod_template.h).
#include "apiserver/registry/core/pod_rules.h"

#include <boost/json.hpp>

#include "apiserver/json_access.h"
#include "apiserver/registry/core/pod_resources.h"
#include "apiserver/registry/core/pod_template.h"

namespace ksched::apiserver {

namespace json = boost::json;

namespace {


// SetDefaults_Probe and its handlers (a gRPC probe's service defaults to "", declaratively).
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
  if (auto* g = object_member(*p, "grpc")) set_default(*g, "service", "");
}

// What parsers.ParseImageName makes of an image's tag (pkg/util/parsers): the reference's tag,
// "latest" when it has neither tag nor digest, nothing ("") when it has only a digest or does not
// parse as a normalized Docker reference (distribution/reference's grammar, checked here for what
// decides the outcome: lowercase path components, the tag's and the digest's forms).
std::string_view image_tag(std::string_view image) {
  auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (image.empty() || image.size() > 255 + 72 + 128) return {};
  std::string_view digest;
  if (auto at = image.find('@'); at != std::string_view::npos) {
    digest = image.substr(at + 1);
    image = image.substr(0, at);
    // algorithm ":" encoded; sha256 (the one in use) is 64 lowercase hex digits.
    auto colon = digest.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 == digest.size()) return {};
    std::string_view algo = digest.substr(0, colon), hex = digest.substr(colon + 1);
    for (char c : algo)
      if (!lower_alnum(c) && c != '+' && c != '.' && c != '_' && c != '-') return {};
    if (algo == "sha256") {
      if (hex.size() != 64) return {};
      for (char c : hex)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return {};
    } else if (algo == "sha384" || algo == "sha512") {
      if (hex.size() != (algo == "sha384" ? 96u : 128u)) return {};
    } else {
      return {};  // go-digest knows no other algorithm
    }
  }
  std::string_view tag;
  auto slash = image.rfind('/');
  auto colon = image.rfind(':');
  if (colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash)) {
    tag = image.substr(colon + 1);
    image = image.substr(0, colon);
    if (tag.empty() || tag.size() > 128) return {};
    auto word = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; };
    if (!word(tag[0])) return {};
    for (char c : tag)
      if (!word(c) && c != '.' && c != '-') return {};
  }
  if (image.empty()) return {};
  // The first component is a registry when it looks like one (a dot, a port, "localhost", or an
  // uppercase letter); the path components after it must be lowercase.
  std::string_view path = image;
  if (auto first = image.find('/'); first != std::string_view::npos) {
    std::string_view domain = image.substr(0, first);
    bool is_domain = domain == "localhost" || domain.find_first_of(".:") != std::string_view::npos;
    for (char c : domain) is_domain = is_domain || (c >= 'A' && c <= 'Z');
    if (is_domain) path = image.substr(first + 1);
  }
  if (path.empty()) return {};
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    std::string_view comp = path.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    // [a-z0-9]+ ((\.|_|__|-+)[a-z0-9]+)*
    if (comp.empty() || !lower_alnum(comp.front()) || !lower_alnum(comp.back())) return {};
    for (std::size_t i = 0; i < comp.size(); ++i) {
      char c = comp[i];
      if (lower_alnum(c) || c == '-') continue;
      if (c == '.' && lower_alnum(comp[i + 1])) continue;
      if (c == '_' && (lower_alnum(comp[i + 1]) || (comp[i + 1] == '_' && lower_alnum(comp[i + 2])))) {
        if (comp[i + 1] == '_') ++i;
        continue;
      }
      return {};
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (!tag.empty()) return tag;
  return digest.empty() ? std::string_view("latest") : std::string_view();
}

std::string_view pull_policy_for(std::string_view image) {
  return image_tag(image) == "latest" ? "Always" : "IfNotPresent";
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
  c.reserve(c.size() + 4);  // room for the members set below: one table, not a growth per member
  set_default(c, "terminationMessagePath", "/dev/termination-log");
  set_default(c, "terminationMessagePolicy", "File");
  if (str_view(c, "imagePullPolicy").empty()) c["imagePullPolicy"] = pull_policy_for(str_view(c, "image"));
  set_default(c, "resources", json::object());
  each_object(array_member(c, "ports"), [](json::object& p) { set_default(p, "protocol", "TCP"); });
  each_object(array_member(c, "env"), [](json::object& e) {
    if (auto* vf = object_member(e, "valueFrom")) {
      if (auto* fr = object_member(*vf, "fieldRef")) set_default(*fr, "apiVersion", "v1");
      if (auto* fk = object_member(*vf, "fileKeyRef")) set_default(*fk, "optional", false);
    }
  });
  for (const char* probe : {"livenessProbe", "readinessProbe", "startupProbe"}) default_probe(object_member(c, probe));
  if (auto* lc = object_member(c, "lifecycle")) {
    default_lifecycle_handler(object_member(*lc, "postStart"));
    default_lifecycle_handler(object_member(*lc, "preStop"));
  }
}

void default_field_refs(json::object* downward_api) {
  if (!downward_api) return;
  each_object(array_member(*downward_api, "items"), [](json::object& item) {
    if (auto* fr = object_member(item, "fieldRef")) set_default(*fr, "apiVersion", "v1");
  });
}

// SetDefaults_Volume and the per-source defaults, the declarative ones included
// (pkg/apis/core/v1/zz_generated.defaults.go SetObjectDefaults_Pod): file modes 0644, hostPath
// type "", iSCSI, RBD, Azure disk and ScaleIO settings, field references' apiVersion, service
// account tokens valid an hour, an ephemeral claim's volumeMode, an image volume's pull policy.
void default_volume(json::object& v) {
  bool has_source = false;
  for (const auto& kv : v)
    if (kv.key() != "name") has_source = true;
  if (!has_source) v["emptyDir"] = json::object();
  for (const char* src : {"secret", "configMap", "downwardAPI", "projected"})
    if (auto* s = object_member(v, src)) set_default(*s, "defaultMode", 420);
  if (auto* hp = object_member(v, "hostPath")) set_default(*hp, "type", "");
  if (auto* iscsi = object_member(v, "iscsi")) set_default(*iscsi, "iscsiInterface", "default");
  if (auto* rbd = object_member(v, "rbd")) {
    if (str_view(*rbd, "pool").empty()) (*rbd)["pool"] = "rbd";
    if (str_view(*rbd, "user").empty()) (*rbd)["user"] = "admin";
    if (str_view(*rbd, "keyring").empty()) (*rbd)["keyring"] = "/etc/ceph/keyring";
  }
  if (auto* ad = object_member(v, "azureDisk")) {
    set_default(*ad, "cachingMode", "ReadWrite");
    set_default(*ad, "fsType", "ext4");
    set_default(*ad, "readOnly", false);
    set_default(*ad, "kind", "Shared");
  }
  if (auto* sio = object_member(v, "scaleIO")) {
    if (str_view(*sio, "storageMode").empty()) (*sio)["storageMode"] = "ThinProvisioned";
    if (str_view(*sio, "fsType").empty()) (*sio)["fsType"] = "xfs";
  }
  default_field_refs(object_member(v, "downwardAPI"));
  if (auto* pr = object_member(v, "projected"))
    each_object(array_member(*pr, "sources"), [](json::object& src) {
      default_field_refs(object_member(src, "downwardAPI"));
      if (auto* sat = object_member(src, "serviceAccountToken")) set_default(*sat, "expirationSeconds", 3600);
    });
  if (auto* eph = object_member(v, "ephemeral"))
    if (auto* tmpl = object_member(*eph, "volumeClaimTemplate"))
      set_default(ensure_object(*tmpl, "spec"), "volumeMode", "Filesystem");
  // ImageVolume (beta, on in v1.35): the pull policy follows the reference's tag.
  if (auto* img = object_member(v, "image"); img && str_view(*img, "pullPolicy").empty())
    (*img)["pullPolicy"] = pull_policy_for(str_view(*img, "reference"));
}

// SetDefaults_PodSpec: what every pod spec (pods and templates) gets.
void default_pod_spec(json::object& spec) {
  // Room for the members defaulting and admission add (five here, enableServiceLinks,
  // tolerations): one table, not a growth per member.
  spec.reserve(spec.size() + 7);
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

// defaultHugePagePodLimits (pkg/apis/core/v1/defaults.go): with pod-level resources partly set,
// a hugepages limit the containers have and the pod has neither as limit nor request becomes
// the pod's limit, their aggregate.
void default_hugepage_pod_limits(json::object& spec) {
  json::object* res = object_member(spec, "resources");
  if (!res) return;
  const json::object* limits = object_member(*res, "limits");
  const json::object* requests = object_member(*res, "requests");
  if ((!limits || limits->empty()) && (!requests || requests->empty())) return;
  json::object pod_limits = limits ? *limits : json::object();
  for (const auto& [name, total] : aggregate_container_resources(spec, "limits")) {
    if (!is_supported_pod_level_resource(name) || !is_hugepages_resource(name)) continue;
    if (requests && requests->contains(name)) continue;
    if (!pod_limits.contains(name)) pod_limits[name] = total.text;
  }
  if (!pod_limits.empty()) (*res)["limits"] = std::move(pod_limits);
}

// defaultPodRequests: with pod-level limits, each pod-level request left unset is the containers'
// aggregate request of that resource (overcommittable ones), else the pod-level limit.
void default_pod_requests(json::object& spec) {
  json::object* res = object_member(spec, "resources");
  if (!res) return;
  const json::object* limits = object_member(*res, "limits");
  if (!limits || limits->empty()) return;
  json::object pod_requests;
  if (const json::object* r = object_member(*res, "requests")) pod_requests = *r;
  for (const auto& [name, total] : aggregate_container_resources(spec, "requests"))
    if (!pod_requests.contains(name) && is_supported_pod_level_resource(name) && is_overcommit_allowed(name))
      pod_requests[name] = total.text;
  for (const auto& kv : *limits)
    if (!pod_requests.contains(kv.key()) && is_supported_pod_level_resource(kv.key()))
      pod_requests[kv.key()] = kv.value();
  if (!pod_requests.empty()) (*res)["requests"] = std::move(pod_requests);
}

}  // namespace

void default_pod_template(json::object* parent, std::string_view key) {
  if (!parent) return;
  if (auto* t = object_member(*parent, key))
    if (auto* spec = object_member(*t, "spec")) default_pod_spec(*spec);
}

// SetDefaults_Pod: requests default to limits (per resource, when unset), then the pod-level
// resources' defaults, service links on, and under hostNetwork an unset hostPort takes the
// containerPort.
void registry::core::default_pod(json::object& pod, const FeatureGates& gates) {
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
    });
  }
  // Pod-level requests are defaulted after the containers' (PodLevelResources, beta in v1.34).
  if (gates.PodLevelResources) {
    default_hugepage_pod_limits(spec);
    default_pod_requests(spec);
  }
  for (const char* list : {"containers", "initContainers"}) {
    each_object(array_member(spec, list), [&](json::object& c) {
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

}  // namespace ksched::apiserver
