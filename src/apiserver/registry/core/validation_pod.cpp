// ValidatePodSpec and the container rules under it (upstream's pkg/apis/core/validation), for
// pods and for the pod templates of the workload kinds. Written from upstream's rules; what is
// checked is listed in docs/architecture.md ("API server write path").
#include <arpa/inet.h>

#include <algorithm>
#include <set>

#include "apiserver/registry/core/pod_resources.h"
#include "apiserver/write/validation_rules.h"
#include "util/go_format.h"

namespace ksched::apiserver::rules {

using util::go_quote;

namespace {

constexpr std::int64_t kMaxInt32 = 2147483647;

bool valid_ip(std::string_view s) {
  std::string t(s);
  unsigned char buf[16];
  return inet_pton(AF_INET, t.c_str(), buf) == 1 || inet_pton(AF_INET6, t.c_str(), buf) == 1;
}

// IsValidIPForLegacyField, for values never stored before.
void ip(Errors& e, std::string_view v, const Path& path) {
  if (v.empty())
    e.required(path);
  else if (!valid_ip(v))
    e.invalid_str(path, v, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)");
}

// ValidatePortNumOrName for an IntOrString member.
void port_num_or_name(Errors& e, const json::value* port, const Path& path) {
  if (!port || port->is_null()) {
    e.invalid_int(path, 0, inclusive_range(1, 65535));
    return;
  }
  if (port->is_string()) {
    each(e, port_name(port->get_string()), path, port->get_string());
  } else if (auto n = port->is_int64() ? std::optional<std::int64_t>(port->get_int64()) : std::nullopt; n) {
    if (*n < 1 || *n > 65535) e.invalid_int(path, *n, inclusive_range(1, 65535));
  }
}

// validateHandler: exactly one handler type, each checked.
void handler(Errors& e, const json::object& h, std::optional<std::int64_t> grace, const Path& path,
             bool lifecycle) {
  int count = 0;
  auto one = [&](std::string_view name) -> const json::object* {
    const json::object* o = obj(h, name);
    if (!o) return nullptr;
    if (count > 0) {
      e.forbidden(path.child(name), "may not specify more than 1 handler type");
      return nullptr;
    }
    ++count;
    return o;
  };
  if (const json::object* ex = one("exec")) {
    const json::array* cmd = arr(*ex, "command");
    const Path ep = path.child("exec");
    if (!cmd || cmd->empty()) e.required(ep.child("command"));
  }
  if (const json::object* g = one("httpGet")) {
    const Path p = path.child("httpGet");
    if (sv(*g, "path").empty()) e.required(p.child("path"));
    port_num_or_name(e, g->if_contains("port"), p.child("port"));
    std::string_view scheme = sv(*g, "scheme");
    if (scheme != "HTTP" && scheme != "HTTPS")
      e.not_supported(p.child("scheme"), go_quote(scheme), {"HTTP", "HTTPS"});
  }
  if (const json::object* t = one("tcpSocket")) {
    const Path tp = path.child("tcpSocket");
    port_num_or_name(e, t->if_contains("port"), tp.child("port"));
  }
  if (!lifecycle)
    if (const json::object* g = one("grpc")) {
      auto n = int_of(*g, "port").value_or(0);
      const Path gp = path.child("grpc");
      if (n < 1 || n > 65535) e.invalid_int(gp.child("port"), n, inclusive_range(1, 65535));
    }
  if (lifecycle)
    if (const json::object* s = one("sleep")) {
      std::int64_t secs = int_of(*s, "seconds").value_or(0);
      if (grace && (secs < 0 || secs > *grace))
        e.invalid_int(path.child("sleep"), secs,
                      "must be non-negative and less than terminationGracePeriodSeconds (" +
                          std::to_string(*grace) + ")");
    }
  if (count == 0) e.required(path, "must specify a handler type");
}

enum class ProbeKind { Liveness, Readiness, Startup };

void probe(Errors& e, const json::object* pr, std::optional<std::int64_t> grace, const Path& path,
           ProbeKind kind) {
  if (!pr) return;
  handler(e, *pr, grace, path, false);
  for (const char* f :
       {"initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"})
    if (auto v = int_of(*pr, f); v && *v < 0)
      e.invalid_int(path.child(f), *v, "must be greater than or equal to 0");
  if (auto t = int_of(*pr, "terminationGracePeriodSeconds"); t && *t <= 0)
    e.invalid_int(path.child("terminationGracePeriodSeconds"), *t, "must be greater than 0");
  if (kind != ProbeKind::Readiness) {
    std::int64_t st = int_of(*pr, "successThreshold").value_or(0);
    if (st != 1) e.invalid_int(path.child("successThreshold"), st, "must be 1");
  } else if (has(*pr, "terminationGracePeriodSeconds")) {
    e.invalid_int(path.child("terminationGracePeriodSeconds"),
                  int_of(*pr, "terminationGracePeriodSeconds").value_or(0),
                  "must not be set for readinessProbes");
  }
}

void lifecycle(Errors& e, const json::object& lc, std::optional<std::int64_t> grace, const Path& path) {
  if (const json::object* h = obj(lc, "postStart")) handler(e, *h, grace, path.child("postStart"), true);
  if (const json::object* h = obj(lc, "preStop")) handler(e, *h, grace, path.child("preStop"), true);
}

void container_ports(Errors& e, const json::array& ports, const Path& path) {
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < ports.size(); ++i) {
    if (!ports[i].is_object()) continue;
    const json::object& p = ports[i].get_object();
    const Path pp = path.index(i);
    if (std::string_view n = sv(p, "name"); !n.empty()) {
      std::vector<std::string> msgs = port_name(n);
      if (!msgs.empty())
        each(e, msgs, pp.child("name"), n);
      else if (!names.insert(n).second)
        e.duplicate(pp.child("name"), go_quote(n));
    }
    std::int64_t cp = int_of(p, "containerPort").value_or(0);
    if (cp == 0)
      e.required(pp.child("containerPort"));
    else if (cp < 1 || cp > 65535)
      e.invalid_int(pp.child("containerPort"), cp, inclusive_range(1, 65535));
    std::int64_t hp = int_of(p, "hostPort").value_or(0);
    if (hp != 0 && (hp < 1 || hp > 65535)) e.invalid_int(pp.child("hostPort"), hp, inclusive_range(1, 65535));
    std::string_view proto = sv(p, "protocol");
    if (proto.empty())
      e.required(pp.child("protocol"));
    else if (proto != "TCP" && proto != "UDP" && proto != "SCTP")
      e.not_supported(pp.child("protocol"), go_quote(proto), {"SCTP", "TCP", "UDP"});
  }
}

// AccumulateUniqueHostPorts over `containers` (all of a list, or one init container).
void host_port_conflicts(Errors& e,
                         const std::vector<std::pair<const json::object*, std::size_t>>& containers,
                         const Path& path) {
  std::set<std::string> seen;
  for (const auto& [c, ci] : containers) {
    const json::array* ports = arr(*c, "ports");
    if (!ports) continue;
    for (std::size_t pi = 0; pi < ports->size(); ++pi) {
      if (!(*ports)[pi].is_object()) continue;
      const json::object& p = (*ports)[pi].get_object();
      std::int64_t hp = int_of(p, "hostPort").value_or(0);
      if (hp == 0) continue;
      std::string k =
          std::string(sv(p, "protocol")) + "/" + std::string(sv(p, "hostIP")) + "/" + std::to_string(hp);
      if (!seen.insert(k).second) {
        const Path cp = path.index(ci), ps = cp.child("ports"), pp = ps.index(pi);
        e.duplicate(pp.child("hostPort"), go_quote(k));
      }
    }
  }
}

void env(Errors& e, const json::array& vars, const Path& path) {
  for (std::size_t i = 0; i < vars.size(); ++i) {
    if (!vars[i].is_object()) continue;
    const json::object& v = vars[i].get_object();
    const Path p = path.index(i);
    std::string_view name = sv(v, "name");
    if (name.empty())
      e.required(p.child("name"));
    else
      each(e, env_var_name(name), p.child("name"), name);
    const json::object* from = obj(v, "valueFrom");
    if (!from) continue;
    int sources = 0;
    for (const char* s : {"fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef", "fileKeyRef"})
      sources += has(*from, s) ? 1 : 0;
    const Path fp = p.child("valueFrom");
    if (sources == 0)
      e.invalid_str(fp, "",
                    "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` "
                    "or `fileKeyRef`");
    else if (!sv(v, "value").empty())
      e.invalid_str(fp, "", "may not be specified when `value` is not empty");
    else if (sources > 1)
      e.invalid_str(fp, "", "may not have more than one field specified at a time");
  }
}

void volume_mounts(Errors& e, const json::array& mounts, const std::set<std::string_view>& volumes,
                   const Path& path) {
  std::set<std::string_view> points;
  for (std::size_t i = 0; i < mounts.size(); ++i) {
    if (!mounts[i].is_object()) continue;
    const json::object& m = mounts[i].get_object();
    const Path p = path.index(i);
    std::string_view name = sv(m, "name"), mount_path = sv(m, "mountPath");
    if (name.empty()) e.required(p.child("name"));
    if (!volumes.count(name)) e.not_found(p.child("name"), go_quote(name));
    if (mount_path.empty()) e.required(p.child("mountPath"));
    if (!points.insert(mount_path).second) e.invalid_str(p.child("mountPath"), mount_path, "must be unique");
    if (!sv(m, "subPathExpr").empty() && !sv(m, "subPath").empty())
      e.invalid_str(p.child("subPathExpr"), sv(m, "subPathExpr"),
                    "subPathExpr and subPath are mutually exclusive");
  }
}

// ValidateSecurityContext's range checks.
void security_context(Errors& e, const json::object& sc, const Path& path) {
  if (auto u = int_of(sc, "runAsUser"); u && (*u < 0 || *u > kMaxInt32))
    e.invalid_int(path.child("runAsUser"), *u, inclusive_range(0, kMaxInt32));
  if (auto g = int_of(sc, "runAsGroup"); g && (*g < 0 || *g > kMaxInt32))
    e.invalid_int(path.child("runAsGroup"), *g, inclusive_range(0, kMaxInt32));
  if (std::string_view pm = sv(sc, "procMount"); has(sc, "procMount") && pm != "Default" && pm != "Unmasked")
    e.not_supported(path.child("procMount"), go_quote(pm), {"Default", "Unmasked"});
}

// validateResizePolicy: cpu and memory once each, NotRequired or RestartContainer, and only
// NotRequired under a pod restartPolicy of Never.
void resize_policy(Errors& e, const json::array& policies, std::string_view pod_restart_policy, const Path& path) {
  std::set<std::string_view> seen;
  for (std::size_t i = 0; i < policies.size(); ++i) {
    if (!policies[i].is_object()) continue;
    const json::object& p = policies[i].get_object();
    std::string_view name = sv(p, "resourceName"), policy = sv(p, "restartPolicy");
    if (!seen.insert(name).second) e.duplicate(path.index(i), go_quote(name));
    if (name.empty())
      e.required(path);
    else if (name != "cpu" && name != "memory")
      e.not_supported(path, go_quote(name), {"cpu", "memory"});
    if (policy.empty())
      e.required(path);
    else if (policy != "NotRequired" && policy != "RestartContainer")
      e.not_supported(path, go_quote(policy), {"NotRequired", "RestartContainer"});
    if (pod_restart_policy == "Never" && policy != "NotRequired")
      e.invalid_str(path, policy, "must be 'NotRequired' when `restartPolicy` is 'Never'");
  }
}

// validateContainerRestartPolicy (ContainerRestartRules, beta and on in v1.35): a container's own
// restartPolicy and its restartPolicyRules (at most 20, action Restart, exit codes In/NotIn with
// at most 255 values).
void container_restart_policy(Errors& e, const json::object& c, const Path& path) {
  const json::array* rules = arr(c, "restartPolicyRules");
  const bool has_rules = rules && !rules->empty();
  if (!has(c, "restartPolicy")) {
    if (!has_rules) return;
    e.required(path.child("restartPolicy"), "must specify restartPolicy when restart rules are used");
  } else if (std::string_view rp = sv(c, "restartPolicy"); rp != "Always" && rp != "Never" && rp != "OnFailure") {
    e.not_supported(path.child("restartPolicy"), go_quote(rp), {"Always", "Never", "OnFailure"});
  }
  if (!rules) return;
  const Path rules_path = path.child("restartPolicyRules");
  if (rules->size() > 20) e.too_long(rules_path, 20);
  for (std::size_t i = 0; i < rules->size(); ++i) {
    if (!(*rules)[i].is_object()) continue;
    const json::object& rule = (*rules)[i].get_object();
    const Path rp = rules_path.index(i);
    if (std::string_view action = sv(rule, "action"); action != "Restart")
      e.not_supported(rp.child("action"), go_quote(action), {"Restart"});
    if (const json::object* codes = obj(rule, "exitCodes")) {
      const Path cp = rp.child("exitCodes");
      if (std::string_view op = sv(*codes, "operator"); op != "In" && op != "NotIn")
        e.not_supported(cp.child("operator"), go_quote(op), {"In", "NotIn"});
      if (const json::array* values = arr(*codes, "values"); values && values->size() > 255)
        e.too_long(cp.child("values"), 255);
    } else {
      e.required(rp.child("exitCodes"), "must be specified");
    }
  }
}

// validateContainerCommon.
void container_common(Errors& e, const json::object& c, const std::set<std::string_view>& volumes,
                      std::string_view pod_restart_policy, const Path& path) {
  std::string_view name = sv(c, "name");
  if (name.empty())
    e.required(path.child("name"));
  else
    each(e, dns1123_label(name), path.child("name"), name);
  if (sv(c, "image").empty()) e.required(path.child("image"));
  std::string_view tmp = sv(c, "terminationMessagePolicy");
  if (tmp.empty())
    e.required(path.child("terminationMessagePolicy"));
  else if (tmp != "File" && tmp != "FallbackToLogsOnError")
    e.not_supported(path.child("terminationMessagePolicy"), go_quote(tmp), {"File", "FallbackToLogsOnError"});
  if (const json::array* p = arr(c, "ports")) container_ports(e, *p, path.child("ports"));
  if (const json::array* v = arr(c, "env")) env(e, *v, path.child("env"));
  if (const json::array* m = arr(c, "volumeMounts"))
    volume_mounts(e, *m, volumes, path.child("volumeMounts"));
  std::string_view pull = sv(c, "imagePullPolicy");
  if (pull.empty())
    e.required(path.child("imagePullPolicy"));
  else if (pull != "Always" && pull != "IfNotPresent" && pull != "Never")
    e.not_supported(path.child("imagePullPolicy"), go_quote(pull), {"Always", "IfNotPresent", "Never"});
  if (const json::object* res = obj(c, "resources"))
    resource_requirements(e, obj(*res, "limits"), obj(*res, "requests"), path.child("resources"),
                          ResourceNames::Container);
  if (const json::array* rp = arr(c, "resizePolicy"))
    resize_policy(e, *rp, pod_restart_policy, path.child("resizePolicy"));
  if (const json::object* sc = obj(c, "securityContext"))
    security_context(e, *sc, path.child("securityContext"));
}

std::vector<std::pair<const json::object*, std::size_t>> objects_of(const json::array* a) {
  std::vector<std::pair<const json::object*, std::size_t>> out;
  if (a)
    for (std::size_t i = 0; i < a->size(); ++i)
      if ((*a)[i].is_object()) out.emplace_back(&(*a)[i].get_object(), i);
  return out;
}

void containers(Errors& e, const json::array* cs, const std::set<std::string_view>& volumes,
                std::optional<std::int64_t> grace, std::string_view pod_restart_policy, const Path& path) {
  if (!cs || cs->empty()) {
    e.required(path);
    return;
  }
  std::set<std::string_view> names;
  auto list = objects_of(cs);
  for (const auto& [c, i] : list) {
    const Path p = path.index(i);
    container_common(e, *c, volumes, pod_restart_policy, p);
    if (!names.insert(sv(*c, "name")).second) e.duplicate(p.child("name"), go_quote(sv(*c, "name")));
    if (const json::object* lc = obj(*c, "lifecycle")) lifecycle(e, *lc, grace, p.child("lifecycle"));
    probe(e, obj(*c, "livenessProbe"), grace, p.child("livenessProbe"), ProbeKind::Liveness);
    probe(e, obj(*c, "readinessProbe"), grace, p.child("readinessProbe"), ProbeKind::Readiness);
    probe(e, obj(*c, "startupProbe"), grace, p.child("startupProbe"), ProbeKind::Startup);
    container_restart_policy(e, *c, p);
  }
  host_port_conflicts(e, list, path);
}

void init_containers(Errors& e, const json::array* ics, const json::array* regular,
                     const std::set<std::string_view>& volumes, std::optional<std::int64_t> grace,
                     std::string_view pod_restart_policy, const Path& path) {
  std::set<std::string_view> names;
  for (const auto& [c, i] : objects_of(regular)) names.insert(sv(*c, "name"));
  for (const auto& [c, i] : objects_of(ics)) {
    const Path p = path.index(i);
    container_common(e, *c, volumes, pod_restart_policy, p);
    // validateInitContainerRestartPolicy with ContainerRestartRules (beta, on in v1.35): Always
    // makes a restartable (sidecar) container without rules; another policy takes the regular
    // containers' rules.
    const bool always = has(*c, "restartPolicy") && sv(*c, "restartPolicy") == "Always";
    if (!has(*c, "restartPolicy")) {
      if (const json::array* rules = arr(*c, "restartPolicyRules"); rules && !rules->empty())
        e.required(p.child("restartPolicy"), "must specify restartPolicy when restart rules are used");
    } else if (always) {
      if (const json::array* rules = arr(*c, "restartPolicyRules"); rules && !rules->empty())
        e.forbidden(p.child("restartPolicyRules"),
                    "restartPolicyRules are not allowed for init containers with restart policy Always");
    } else {
      container_restart_policy(e, *c, p);
    }
    std::string_view name = sv(*c, "name");
    if (names.count(name))
      e.duplicate(p.child("name"), go_quote(name));
    else if (!name.empty())
      names.insert(name);
    // Each init container alone (they run one by one); upstream's path then says [0].
    host_port_conflicts(e, {{c, 0}}, path);
    if (always) {
      if (const json::object* lc = obj(*c, "lifecycle")) lifecycle(e, *lc, grace, p.child("lifecycle"));
      probe(e, obj(*c, "livenessProbe"), grace, p.child("livenessProbe"), ProbeKind::Liveness);
      probe(e, obj(*c, "readinessProbe"), grace, p.child("readinessProbe"), ProbeKind::Readiness);
      probe(e, obj(*c, "startupProbe"), grace, p.child("startupProbe"), ProbeKind::Startup);
    } else {
      for (const char* f : {"lifecycle", "livenessProbe", "readinessProbe", "startupProbe"})
        if (has(*c, f))
          e.forbidden(p.child(f), "may not be set for init containers without restartPolicy=Always");
    }
  }
}

// The volume sources upstream knows, in the order it checks them.
constexpr std::string_view kVolumeSources[] = {"emptyDir",
                                               "hostPath",
                                               "gitRepo",
                                               "gcePersistentDisk",
                                               "awsElasticBlockStore",
                                               "secret",
                                               "nfs",
                                               "iscsi",
                                               "glusterfs",
                                               "flocker",
                                               "persistentVolumeClaim",
                                               "rbd",
                                               "cinder",
                                               "cephfs",
                                               "quobyte",
                                               "downwardAPI",
                                               "fc",
                                               "flexVolume",
                                               "configMap",
                                               "azureFile",
                                               "vsphereVolume",
                                               "photonPersistentDisk",
                                               "portworxVolume",
                                               "azureDisk",
                                               "storageos",
                                               "projected",
                                               "scaleIO",
                                               "csi",
                                               "ephemeral",
                                               "image"};

void file_mode(Errors& e, const json::object& src, const Path& path) {
  if (auto m = int_of(src, "defaultMode"); m && (*m > 0777 || *m < 0))
    e.invalid_int(path.child("defaultMode"), *m,
                  "must be a number between 0 and 0777 (octal), both inclusive");
}

void volume_source(Errors& e, const json::object& v, const Path& path) {
  // A volume has a name and (almost always) one source: find the sources among its few members
  // rather than looking each of the thirty up; only several of them need upstream's order.
  std::string_view only;
  int present = 0;
  for (const auto& kv : v)
    if (kv.value().is_object() && std::find(std::begin(kVolumeSources), std::end(kVolumeSources), kv.key()) !=
                                      std::end(kVolumeSources)) {
      only = kv.key();
      ++present;
    }
  int count = 0;
  for (std::string_view s : kVolumeSources) {
    if (present == 1 && s != only) continue;
    const json::object* src = present == 0 ? nullptr : obj(v, s);
    if (!src) continue;
    const Path p = path.child(s == "gcePersistentDisk" ? std::string_view("persistentDisk") : s);
    if (count > 0 && s != "emptyDir") {
      e.forbidden(path.child(s), "may not specify more than 1 volume type");
      continue;
    }
    ++count;
    if (s == "emptyDir") {
      if (const json::value* sl = src->if_contains("sizeLimit"); sl && !sl->is_null())
        if (auto q = quantity_of(*sl); q && q->sign() < 0)
          e.forbidden(p.child("sizeLimit"), "SizeLimit field must be a valid resource quantity");
    } else if (s == "hostPath") {
      if (sv(*src, "path").empty()) e.required(p.child("path"));
    } else if (s == "secret") {
      if (sv(*src, "secretName").empty()) e.required(p.child("secretName"));
      file_mode(e, *src, p);
    } else if (s == "configMap") {
      if (sv(*src, "name").empty()) e.required(p.child("name"));
      file_mode(e, *src, p);
    } else if (s == "persistentVolumeClaim") {
      if (sv(*src, "claimName").empty()) e.required(p.child("claimName"));
    } else if (s == "nfs") {
      if (sv(*src, "server").empty()) e.required(p.child("server"));
      if (sv(*src, "path").empty()) e.required(p.child("path"));
    } else if (s == "csi") {
      if (sv(*src, "driver").empty()) e.required(p.child("driver"));
    } else if (s == "downwardAPI" || s == "projected") {
      file_mode(e, *src, p);
    }
  }
  if (count == 0) e.required(path, "must specify a volume type");
}

std::set<std::string_view> volumes(Errors& e, const json::array* vs, const Path& path) {
  std::set<std::string_view> names;
  for (const auto& [v, i] : objects_of(vs)) {
    const Path p = path.index(i);
    Errors el;
    volume_source(el, *v, p);
    std::string_view name = sv(*v, "name");
    if (name.empty())
      el.required(p.child("name"));
    else
      each(el, dns1123_label(name), p.child("name"), name);
    if (names.count(name)) el.duplicate(p.child("name"), go_quote(name));
    if (el.empty())
      names.insert(name);
    else
      e.append(std::move(el.causes));
  }
  return names;
}

void pod_security_context(Errors& e, const json::object& sc, const Path& path) {
  if (auto g = int_of(sc, "fsGroup"); g && (*g < 0 || *g > kMaxInt32))
    e.invalid_int(path.child("fsGroup"), *g, inclusive_range(0, kMaxInt32));
  if (auto u = int_of(sc, "runAsUser"); u && (*u < 0 || *u > kMaxInt32))
    e.invalid_int(path.child("runAsUser"), *u, inclusive_range(0, kMaxInt32));
  if (auto g = int_of(sc, "runAsGroup"); g && (*g < 0 || *g > kMaxInt32))
    e.invalid_int(path.child("runAsGroup"), *g, inclusive_range(0, kMaxInt32));
  if (const json::array* sg = arr(sc, "supplementalGroups"))
    for (std::size_t i = 0; i < sg->size(); ++i)
      if ((*sg)[i].is_int64() && ((*sg)[i].get_int64() < 0 || (*sg)[i].get_int64() > kMaxInt32))
        e.invalid_int(path.child("supplementalGroups").str() + "[" + std::to_string(i) + "]",
                      (*sg)[i].get_int64(), inclusive_range(0, kMaxInt32));
}

void weighted_terms(Errors& e, const json::array& terms, const Path& path, bool node) {
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (!terms[i].is_object()) continue;
    const json::object& t = terms[i].get_object();
    const Path p = path.index(i);
    std::int64_t w = int_of(t, "weight").value_or(0);
    if (w <= 0 || w > 100) e.invalid_int(p.child("weight"), w, "must be in the range 1-100");
    if (node) {
      if (const json::object* pref = obj(t, "preference"))
        node_selector_term(e, *pref, p.child("preference"));
    } else if (const json::object* pat = obj(t, "podAffinityTerm")) {
      const Path tp = p.child("podAffinityTerm");
      if (const json::object* ls = obj(*pat, "labelSelector"))
        label_selector(e, *ls, tp.child("labelSelector"));
      if (const json::object* ns = obj(*pat, "namespaceSelector"))
        label_selector(e, *ns, tp.child("namespaceSelector"));
      std::string_view key = sv(*pat, "topologyKey");
      if (key.empty())
        e.required(tp.child("topologyKey"), "can not be empty");
      else
        each(e, qualified_name(key), tp.child("topologyKey"), key);
    }
  }
}

void pod_affinity_terms(Errors& e, const json::array& terms, const Path& path) {
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (!terms[i].is_object()) continue;
    const json::object& t = terms[i].get_object();
    const Path p = path.index(i);
    if (const json::object* ls = obj(t, "labelSelector")) label_selector(e, *ls, p.child("labelSelector"));
    if (const json::object* ns = obj(t, "namespaceSelector"))
      label_selector(e, *ns, p.child("namespaceSelector"));
    std::string_view key = sv(t, "topologyKey");
    if (key.empty())
      e.required(p.child("topologyKey"), "can not be empty");
    else
      each(e, qualified_name(key), p.child("topologyKey"), key);
  }
}

void affinity(Errors& e, const json::object& a, const Path& path) {
  if (const json::object* na = obj(a, "nodeAffinity")) {
    const Path p = path.child("nodeAffinity");
    if (const json::object* req = obj(*na, "requiredDuringSchedulingIgnoredDuringExecution"))
      node_selector(e, *req, p.child("requiredDuringSchedulingIgnoredDuringExecution"));
    if (const json::array* pref = arr(*na, "preferredDuringSchedulingIgnoredDuringExecution"))
      weighted_terms(e, *pref, p.child("preferredDuringSchedulingIgnoredDuringExecution"), true);
  }
  for (std::string_view kind : {"podAffinity", "podAntiAffinity"}) {
    const json::object* pa = obj(a, kind);
    if (!pa) continue;
    const Path p = path.child(kind);
    if (const json::array* req = arr(*pa, "requiredDuringSchedulingIgnoredDuringExecution"))
      pod_affinity_terms(e, *req, p.child("requiredDuringSchedulingIgnoredDuringExecution"));
    if (const json::array* pref = arr(*pa, "preferredDuringSchedulingIgnoredDuringExecution"))
      weighted_terms(e, *pref, p.child("preferredDuringSchedulingIgnoredDuringExecution"), false);
  }
}

void topology_spread(Errors& e, const json::array& cs, const Path& path) {
  for (std::size_t i = 0; i < cs.size(); ++i) {
    if (!cs[i].is_object()) continue;
    const json::object& c = cs[i].get_object();
    const Path p = path.index(i);
    std::int64_t skew = int_of(c, "maxSkew").value_or(0);
    if (skew <= 0) e.invalid_int(p.child("maxSkew"), skew, "must be greater than zero");
    if (sv(c, "topologyKey").empty()) e.required(p.child("topologyKey"), "can not be empty");
    std::string_view action = sv(c, "whenUnsatisfiable");
    if (action != "DoNotSchedule" && action != "ScheduleAnyway")
      e.not_supported(p.child("whenUnsatisfiable"), go_quote(action), {"DoNotSchedule", "ScheduleAnyway"});
    for (std::size_t j = i + 1; j < cs.size(); ++j) {
      if (!cs[j].is_object()) continue;
      const json::object& o = cs[j].get_object();
      if (sv(o, "topologyKey") == sv(c, "topologyKey") && sv(o, "whenUnsatisfiable") == action) {
        e.duplicate(p.child("{topologyKey, whenUnsatisfiable}"),
                    go_quote("{" + std::string(sv(c, "topologyKey")) + ", " + std::string(action) + "}"));
        break;
      }
    }
    if (auto md = int_of(c, "minDomains")) {
      if (*md <= 0) e.invalid_int(p.child("minDomains"), *md, "must be greater than zero");
      if (action != "DoNotSchedule")
        e.invalid_int(
            p.child("minDomains"), *md,
            "can only use minDomains if whenUnsatisfiable=DoNotSchedule, not " + std::string(action));
    }
    for (std::string_view f : {"nodeAffinityPolicy", "nodeTaintsPolicy"})
      if (has(c, f) && sv(c, f) != "Honor" && sv(c, f) != "Ignore")
        e.not_supported(p.child(f), go_quote(sv(c, f)), {"Honor", "Ignore"});
    if (const json::object* ls = obj(c, "labelSelector")) label_selector(e, *ls, p.child("labelSelector"));
  }
}

void dns_config(Errors& e, const json::object* dc, std::string_view policy, const Path& path) {
  if (policy == "None") {
    if (!dc) {
      e.required(path, "must provide `dnsConfig` when `dnsPolicy` is None");
      return;
    }
    const json::array* ns = arr(*dc, "nameservers");
    if (!ns || ns->empty()) {
      e.required(path.child("nameservers"),
                 "must provide at least one DNS nameserver when `dnsPolicy` is None");
      return;
    }
  }
  if (!dc) return;
  if (const json::array* ns = arr(*dc, "nameservers"))
    for (std::size_t i = 0; i < ns->size(); ++i)
      if ((*ns)[i].is_string()) {
        const Path np = path.child("nameservers");
        ip(e, (*ns)[i].get_string(), np.index(i));
      }
  if (const json::array* opts = arr(*dc, "options"))
    for (std::size_t i = 0; i < opts->size(); ++i)
      if ((*opts)[i].is_object() && sv((*opts)[i].get_object(), "name").empty())
        e.required(path.child("options").str() + "[" + std::to_string(i) + "]", "must not be empty");
}

// validatePodResources and validatePodResourceConsistency: pod-level resources are not for a
// Windows pod and have no claims; their names are pod-level ones; the containers' aggregate
// requests fit in the pod's requests, their aggregate hugepages limits in the pod's limits, and
// each regular container's limits in the pod's limits.
void pod_resources(Errors& e, const json::object& spec, const json::object& res, const Path& path) {
  if (const json::object* os = obj(spec, "os"); os && sv(*os, "name") == "windows") {
    e.forbidden(path, "may not be set for a windows pod");
    return;
  }
  if (res.contains("claims") && !res.at("claims").is_null())
    e.forbidden(path.child("claims"), "claims may not be set for Resources at pod-level");
  const json::object* limits = obj(res, "limits");
  const json::object* requests = obj(res, "requests");
  resource_requirements(e, limits, requests, path, ResourceNames::Pod);
  auto text = [](const json::value& v) { return v.is_string() ? std::string(v.get_string()) : std::string(); };
  const Path req_path = path.child("requests");
  if (requests)
    for (const auto& [name, total] : aggregate_container_resources(spec, "requests")) {
      const json::value* pod = requests->if_contains(name);
      if (!pod) continue;
      auto q = quantity_of(*pod);
      if (q && total.value > *q)
        e.invalid_str(req_path.key(name), text(*pod),
                      "must be greater than or equal to aggregate container requests of " + total.text);
    }
  if (!limits) return;
  const Path lim_path = path.child("limits");
  for (const auto& [name, total] : aggregate_container_resources(spec, "limits")) {
    if (!is_hugepages_resource(name)) continue;
    const json::value* pod = limits->if_contains(name);
    if (!pod) continue;
    auto q = quantity_of(*pod);
    if (q && total.value > *q)
      e.invalid_str(lim_path.key(name), text(*pod),
                    "must be greater than or equal to aggregate container limits of " + total.text);
  }
  if (const json::array* cs = arr(spec, "containers"))
    for (std::size_t i = 0; i < cs->size(); ++i) {
      if (!(*cs)[i].is_object()) continue;
      const json::object* cres = obj((*cs)[i].get_object(), "resources");
      const json::object* climits = cres ? obj(*cres, "limits") : nullptr;
      if (!climits) continue;
      const Path cp = path.child("containers"), ci = cp.index(i);
      for (const auto& kv : *climits) {
        const json::value* pod = limits->if_contains(kv.key());
        if (!pod) continue;
        auto cq = quantity_of(kv.value()), pq = quantity_of(*pod);
        if (cq && pq && *cq > *pq) {
          // Upstream's path names the resource before "limits": resources.containers[0][cpu].limits.
          const Path ck = ci.key(kv.key());
          e.invalid_str(ck.child("limits"), text(kv.value()), "must be less than or equal to pod limits of " + text(*pod));
        }
      }
    }
}

// validatePodResourceClaims: names unique DNS labels, exactly one of the claim or its template.
// Returns the names, which containers' resources.claims must refer to.
std::set<std::string_view> pod_resource_claims(Errors& e, const json::array* claims, const Path& path) {
  std::set<std::string_view> names;
  for (const auto& [c, i] : objects_of(claims)) {
    const Path p = path.index(i);
    std::string_view name = sv(*c, "name");
    if (name.empty())
      e.required(p.child("name"));
    else if (names.count(name))
      e.duplicate(p.child("name"), go_quote(name));
    else {
      each(e, dns1123_label(name), p.child("name"), name);
      names.insert(name);
    }
    bool by_name = has(*c, "resourceClaimName"), by_template = has(*c, "resourceClaimTemplateName");
    // The bad value is the internal Go struct, which encoding/json writes with its field names.
    // (The lambda captures a copy of the binding: clang 14 cannot capture structured bindings.)
    auto rendered = [&, c = c] {
      json::object go{{"Name", name},
                      {"ResourceClaimName", by_name ? json::value(sv(*c, "resourceClaimName")) : json::value(nullptr)},
                      {"ResourceClaimTemplateName",
                       by_template ? json::value(sv(*c, "resourceClaimTemplateName")) : json::value(nullptr)}};
      return json::serialize(go);
    };
    if (by_name && by_template)
      e.invalid(p, rendered(), "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified");
    if (!by_name && !by_template)
      e.invalid(p, rendered(), "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`");
    for (const char* k : {"resourceClaimName", "resourceClaimTemplateName"})
      if (has(*c, k)) each(e, dns1123_subdomain(sv(*c, k)), p.child(k), sv(*c, k));
  }
  return names;
}

// validateResourceClaimNames: a container's resources.claims name the pod's claims (or one request
// of a claim), each once.
void container_claims(Errors& e, const json::array* cs, const std::set<std::string_view>& pod_claims,
                      const Path& path) {
  for (const auto& [c, ci] : objects_of(cs)) {
    const json::object* res = obj(*c, "resources");
    const json::array* claims = res ? arr(*res, "claims") : nullptr;
    const Path ip = path.index(ci), rp = ip.child("resources"), cp = rp.child("claims");
    std::set<std::string> keys;
    for (const auto& [rc, i] : objects_of(claims)) {
      const Path p = cp.index(i);
      std::string name(sv(*rc, "name"));
      std::string_view request = sv(*rc, "request");
      if (name.empty()) {
        e.required(p);
        continue;
      }
      if (keys.count(name)) {
        e.duplicate(p, go_quote(name));
      } else {
        std::string key = name;
        if (!request.empty()) {
          each(e, dns1123_label(request), p.child("request"), request);
          key += "/" + std::string(request);
        }
        if (keys.count(key)) {
          e.duplicate(p, go_quote(key));
        } else if (request.empty()) {
          for (const auto& k : keys)
            if (k.starts_with(name + "/")) e.duplicate(p, go_quote(name));
        }
        keys.insert(key);
      }
      if (!pod_claims.count(name)) {
        std::string detail = "must be one of the names in pod.spec.resourceClaims";
        if (pod_claims.empty()) {
          detail += " which is empty";
        } else {
          detail += ": ";
          bool first = true;
          for (auto n : pod_claims) {
            detail.append(first ? "" : ", ").append(n);
            first = false;
          }
        }
        e.not_found(p, go_quote(name), detail);
      }
    }
  }
}

}  // namespace

void pod_resource_claim_statuses(Errors& e, const json::array* statuses, const json::array* claims, const Path& path) {
  std::set<std::string_view> known, seen;
  for (const auto& [c, i] : objects_of(claims)) known.insert(sv(*c, "name"));
  for (const auto& [st, i] : objects_of(statuses)) {
    const Path p = path.index(i);
    std::string_view name = sv(*st, "name");
    if (!known.count(name)) e.invalid_str(p.child("name"), name, "must match the name of an entry in `spec.resourceClaims`");
    if (!seen.insert(name).second) e.duplicate(p.child("name"), go_quote(name));
    if (has(*st, "resourceClaimName"))
      each(e, dns1123_subdomain(sv(*st, "resourceClaimName")), p.child("name"), sv(*st, "resourceClaimName"));
  }
}

void pod_spec(Errors& e, const json::object& spec, const Path& path, bool is_pod) {
  if (!has(spec, "terminationGracePeriodSeconds")) e.required(path.child("terminationGracePeriodSeconds"));
  std::optional<std::int64_t> grace = int_of(spec, "terminationGracePeriodSeconds");
  std::set<std::string_view> vols = volumes(e, arr(spec, "volumes"), path.child("volumes"));
  const std::string_view restart_policy = sv(spec, "restartPolicy");
  containers(e, arr(spec, "containers"), vols, grace, restart_policy, path.child("containers"));
  init_containers(e, arr(spec, "initContainers"), arr(spec, "containers"), vols, grace, restart_policy,
                  path.child("initContainers"));
  if (const json::object* res = obj(spec, "resources")) pod_resources(e, spec, *res, path.child("resources"));
  // Under hostNetwork a pod's host ports are its container ports (a template may leave them 0).
  if (bool_of(spec, "hostNetwork"))
    for (const auto& [c, ci] : objects_of(arr(spec, "containers")))
      for (const auto& [p, pi] : objects_of(arr(*c, "ports"))) {
        std::int64_t hp = int_of(*p, "hostPort").value_or(0), cp = int_of(*p, "containerPort").value_or(0);
        if ((is_pod || hp != 0) && hp != cp)
          e.invalid_int(path.child("containers").str() + "[" + std::to_string(ci) + "].ports[" +
                            std::to_string(pi) + "].hostPort",
                        hp, "must match `containerPort` when `hostNetwork` is true");
      }
  std::string_view rp = sv(spec, "restartPolicy");
  if (rp.empty())
    e.required(path.child("restartPolicy"));
  else if (rp != "Always" && rp != "OnFailure" && rp != "Never")
    e.not_supported(path.child("restartPolicy"), go_quote(rp), {"Always", "OnFailure", "Never"});
  std::string_view dp = sv(spec, "dnsPolicy");
  if (dp.empty())
    e.required(path.child("dnsPolicy"));
  else if (dp != "ClusterFirstWithHostNet" && dp != "ClusterFirst" && dp != "Default" && dp != "None")
    e.not_supported(path.child("dnsPolicy"), go_quote(dp),
                    {"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"});
  if (const json::object* ns = obj(spec, "nodeSelector")) labels(e, *ns, path.child("nodeSelector"));
  if (const json::object* sc = obj(spec, "securityContext"))
    pod_security_context(e, *sc, path.child("securityContext"));
  if (const json::object* a = obj(spec, "affinity")) affinity(e, *a, path.child("affinity"));
  dns_config(e, obj(spec, "dnsConfig"), dp, path.child("dnsConfig"));
  if (const json::array* rg = arr(spec, "readinessGates")) {
    const Path gates = path.child("readinessGates");
    for (const auto& [g, i] : objects_of(rg)) {
      const Path gi = gates.index(i);
      each(e, qualified_name(sv(*g, "conditionType")), gi.child("conditionType"), sv(*g, "conditionType"));
    }
  }
  if (const json::array* sg = arr(spec, "schedulingGates")) {
    const Path gates = path.child("schedulingGates");
    std::set<std::string_view> seen;
    for (const auto& [g, i] : objects_of(sg)) {
      const Path p = gates.index(i);
      each(e, qualified_name(sv(*g, "name")), p, sv(*g, "name"));
      if (!seen.insert(sv(*g, "name")).second) e.duplicate(p, go_quote(sv(*g, "name")));
    }
  }
  if (const json::array* tsc = arr(spec, "topologySpreadConstraints"))
    topology_spread(e, *tsc, path.child("topologySpreadConstraints"));
  for (std::string_view f : {"serviceAccountName", "nodeName"})
    if (std::string_view v = sv(spec, f); !v.empty()) each(e, dns1123_subdomain(v), path.child(f), v);
  if (auto ads = int_of(spec, "activeDeadlineSeconds"); ads && (*ads < 1 || *ads > kMaxInt32))
    e.invalid_int(path.child("activeDeadlineSeconds"), *ads, inclusive_range(1, kMaxInt32));
  for (std::string_view f : {"hostname", "subdomain"})
    if (std::string_view v = sv(spec, f); !v.empty()) each(e, dns1123_label(v), path.child(f), v);
  // validatePodHostName (HostnameOverride, beta and on in v1.35).
  if (has(spec, "hostnameOverride")) {
    std::string_view v = sv(spec, "hostnameOverride");
    const Path p = path.child("hostnameOverride");
    if (bool_of(spec, "setHostnameAsFQDN")) e.forbidden(p, "may not be specified when setHostnameAsFQDN is true");
    if (bool_of(spec, "hostNetwork")) e.forbidden(p, "may not be specified when hostNetwork is true");
    if (v.size() > 64) e.too_long(p, 64);
    each(e, dns1123_subdomain(v), p, v);
  }
  if (const json::array* t = arr(spec, "tolerations"); t && !t->empty())
    tolerations(e, *t, path.child("tolerations"));
  if (const json::array* ha = arr(spec, "hostAliases")) {
    const Path aliases = path.child("hostAliases");
    for (const auto& [h, i] : objects_of(ha)) {
      const Path p = aliases.index(i), hostnames = p.child("hostnames");
      ip(e, sv(*h, "ip"), p.child("ip"));
      if (const json::array* names = arr(*h, "hostnames"))
        for (std::size_t j = 0; j < names->size(); ++j)
          if ((*names)[j].is_string())
            each(e, dns1123_subdomain((*names)[j].get_string()), hostnames.index(j),
                 (*names)[j].get_string());
    }
  }
  if (std::string_view v = sv(spec, "priorityClassName"); !v.empty())
    each(e, dns1123_subdomain(v), path.child("priorityClassName"), v);
  if (has(spec, "runtimeClassName")) {
    std::string_view v = sv(spec, "runtimeClassName");
    each(e, dns1123_subdomain(v), path.child("runtimeClassName"), v);
  }
  if (has(spec, "preemptionPolicy")) {
    std::string_view v = sv(spec, "preemptionPolicy");
    if (v.empty())
      e.required(path.child("preemptionPolicy"));
    else if (v != "PreemptLowerPriority" && v != "Never")
      e.not_supported(path.child("preemptionPolicy"), go_quote(v), {"PreemptLowerPriority", "Never"});
  }
  if (const json::object* oh = obj(spec, "overhead"))
    resource_requirements(e, oh, nullptr, path.child("overhead"), ResourceNames::Container);
  std::set<std::string_view> claims = pod_resource_claims(e, arr(spec, "resourceClaims"), path.child("resourceClaims"));
  container_claims(e, arr(spec, "initContainers"), claims, path.child("initContainers"));
  container_claims(e, arr(spec, "containers"), claims, path.child("containers"));
  if (const json::object* os = obj(spec, "os")) {
    std::string_view n = sv(*os, "name");
    if (n.empty())
      e.required(path.child("os").str() + ".name");
    else if (n != "linux" && n != "windows")
      e.not_supported(path.child("os"), go_quote(n), {"linux", "windows"});
  }
  // validateWorkloadReference (v1.35, GenericWorkload): the Workload's name is a DNS subdomain, the
  // pod group's and the replica key (when set) DNS labels; the Workload need not exist.
  if (const json::object* ref = obj(spec, "workloadRef")) {
    const Path p = path.child("workloadRef");
    each(e, dns1123_subdomain(sv(*ref, "name")), p.child("name"), sv(*ref, "name"));
    each(e, dns1123_label(sv(*ref, "podGroup")), p.child("podGroup"), sv(*ref, "podGroup"));
    if (std::string_view key = sv(*ref, "podGroupReplicaKey"); !key.empty())
      each(e, dns1123_label(key), p.child("podGroupReplicaKey"), key);
  }
  // spec.schedulingGroup (v1.37, KEP-5832, GenericWorkload): a union of one member (declarative
  // validation's message when it is empty), podGroupName, a DNS subdomain; the PodGroup need not
  // exist.
  if (const json::object* group = obj(spec, "schedulingGroup")) {
    const Path p = path.child("schedulingGroup");
    if (!has(*group, "podGroupName"))
      e.invalid_str(p, "", "must specify one of: `podGroupName`");
    else
      each(e, dns1123_subdomain(sv(*group, "podGroupName")), p.child("podGroupName"), sv(*group, "podGroupName"));
  }
}

}  // namespace ksched::apiserver::rules
