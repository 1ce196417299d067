// ValidatePodSpec and the container rules under it (upstream's pkg/apis/core/validation), for
// pods and for the pod templates of the workload kinds. Written from upstream's rules; what is
// checked is listed in docs/architecture.md ("API server write path").
#include <arpa/inet.h>

#include <algorithm>
#include <set>

#include "apiserver/validation_rules.h"
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
void ip(Errors& e, std::string_view v, const std::string& path) {
  if (v.empty())
    e.required(path);
  else if (!valid_ip(v))
    e.invalid_str(path, v, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)");
}

// ValidatePortNumOrName for an IntOrString member.
void port_num_or_name(Errors& e, const json::value* port, const std::string& path) {
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
void handler(Errors& e, const json::object& h, std::optional<std::int64_t> grace, const std::string& path,
             bool lifecycle) {
  int count = 0;
  auto one = [&](std::string_view name) -> const json::object* {
    const json::object* o = obj(h, name);
    if (!o) return nullptr;
    if (count > 0) {
      e.forbidden(child(path, name), "may not specify more than 1 handler type");
      return nullptr;
    }
    ++count;
    return o;
  };
  if (const json::object* ex = one("exec")) {
    const json::array* cmd = arr(*ex, "command");
    if (!cmd || cmd->empty()) e.required(child(child(path, "exec"), "command"));
  }
  if (const json::object* g = one("httpGet")) {
    std::string p = child(path, "httpGet");
    if (sv(*g, "path").empty()) e.required(child(p, "path"));
    port_num_or_name(e, g->if_contains("port"), child(p, "port"));
    std::string_view scheme = sv(*g, "scheme");
    if (scheme != "HTTP" && scheme != "HTTPS")
      e.not_supported(child(p, "scheme"), go_quote(scheme), {"HTTP", "HTTPS"});
  }
  if (const json::object* t = one("tcpSocket"))
    port_num_or_name(e, t->if_contains("port"), child(child(path, "tcpSocket"), "port"));
  if (!lifecycle)
    if (const json::object* g = one("grpc")) {
      auto n = int_of(*g, "port").value_or(0);
      if (n < 1 || n > 65535) e.invalid_int(child(child(path, "grpc"), "port"), n, inclusive_range(1, 65535));
    }
  if (lifecycle)
    if (const json::object* s = one("sleep")) {
      std::int64_t secs = int_of(*s, "seconds").value_or(0);
      if (grace && (secs < 0 || secs > *grace))
        e.invalid_int(child(path, "sleep"), secs,
                      "must be non-negative and less than terminationGracePeriodSeconds (" +
                          std::to_string(*grace) + ")");
    }
  if (count == 0) e.required(path, "must specify a handler type");
}

enum class ProbeKind { Liveness, Readiness, Startup };

void probe(Errors& e, const json::object* pr, std::optional<std::int64_t> grace, const std::string& path,
           ProbeKind kind) {
  if (!pr) return;
  handler(e, *pr, grace, path, false);
  for (const char* f :
       {"initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"})
    if (auto v = int_of(*pr, f); v && *v < 0)
      e.invalid_int(child(path, f), *v, "must be greater than or equal to 0");
  if (auto t = int_of(*pr, "terminationGracePeriodSeconds"); t && *t <= 0)
    e.invalid_int(child(path, "terminationGracePeriodSeconds"), *t, "must be greater than 0");
  if (kind != ProbeKind::Readiness) {
    std::int64_t st = int_of(*pr, "successThreshold").value_or(0);
    if (st != 1) e.invalid_int(child(path, "successThreshold"), st, "must be 1");
  } else if (has(*pr, "terminationGracePeriodSeconds")) {
    e.invalid_int(child(path, "terminationGracePeriodSeconds"),
                  int_of(*pr, "terminationGracePeriodSeconds").value_or(0),
                  "must not be set for readinessProbes");
  }
}

void lifecycle(Errors& e, const json::object& lc, std::optional<std::int64_t> grace,
               const std::string& path) {
  if (const json::object* h = obj(lc, "postStart")) handler(e, *h, grace, child(path, "postStart"), true);
  if (const json::object* h = obj(lc, "preStop")) handler(e, *h, grace, child(path, "preStop"), true);
}

void container_ports(Errors& e, const json::array& ports, const std::string& path) {
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < ports.size(); ++i) {
    if (!ports[i].is_object()) continue;
    const json::object& p = ports[i].get_object();
    std::string ip = index(path, i);
    if (std::string_view n = sv(p, "name"); !n.empty()) {
      std::vector<std::string> msgs = port_name(n);
      if (!msgs.empty())
        each(e, msgs, child(ip, "name"), n);
      else if (!names.insert(n).second)
        e.duplicate(child(ip, "name"), go_quote(n));
    }
    std::int64_t cp = int_of(p, "containerPort").value_or(0);
    if (cp == 0)
      e.required(child(ip, "containerPort"));
    else if (cp < 1 || cp > 65535)
      e.invalid_int(child(ip, "containerPort"), cp, inclusive_range(1, 65535));
    std::int64_t hp = int_of(p, "hostPort").value_or(0);
    if (hp != 0 && (hp < 1 || hp > 65535))
      e.invalid_int(child(ip, "hostPort"), hp, inclusive_range(1, 65535));
    std::string_view proto = sv(p, "protocol");
    if (proto.empty())
      e.required(child(ip, "protocol"));
    else if (proto != "TCP" && proto != "UDP" && proto != "SCTP")
      e.not_supported(child(ip, "protocol"), go_quote(proto), {"SCTP", "TCP", "UDP"});
  }
}

// AccumulateUniqueHostPorts over `containers` (all of a list, or one init container).
void host_port_conflicts(Errors& e,
                         const std::vector<std::pair<const json::object*, std::size_t>>& containers,
                         const std::string& path) {
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
      if (!seen.insert(k).second)
        e.duplicate(child(index(child(index(path, ci), "ports"), pi), "hostPort"), go_quote(k));
    }
  }
}

void env(Errors& e, const json::array& vars, const std::string& path) {
  for (std::size_t i = 0; i < vars.size(); ++i) {
    if (!vars[i].is_object()) continue;
    const json::object& v = vars[i].get_object();
    std::string p = index(path, i);
    std::string_view name = sv(v, "name");
    if (name.empty())
      e.required(child(p, "name"));
    else
      each(e, env_var_name(name), child(p, "name"), name);
    const json::object* from = obj(v, "valueFrom");
    if (!from) continue;
    int sources = 0;
    for (const char* s : {"fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef", "fileKeyRef"})
      sources += has(*from, s) ? 1 : 0;
    std::string fp = child(p, "valueFrom");
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
                   const std::string& path) {
  std::set<std::string_view> points;
  for (std::size_t i = 0; i < mounts.size(); ++i) {
    if (!mounts[i].is_object()) continue;
    const json::object& m = mounts[i].get_object();
    std::string p = index(path, i);
    std::string_view name = sv(m, "name"), mount_path = sv(m, "mountPath");
    if (name.empty()) e.required(child(p, "name"));
    if (!volumes.count(name)) e.not_found(child(p, "name"), go_quote(name));
    if (mount_path.empty()) e.required(child(p, "mountPath"));
    if (!points.insert(mount_path).second) e.invalid_str(child(p, "mountPath"), mount_path, "must be unique");
    if (!sv(m, "subPathExpr").empty() && !sv(m, "subPath").empty())
      e.invalid_str(child(p, "subPathExpr"), sv(m, "subPathExpr"),
                    "subPathExpr and subPath are mutually exclusive");
  }
}

// ValidateSecurityContext's range checks.
void security_context(Errors& e, const json::object& sc, const std::string& path) {
  if (auto u = int_of(sc, "runAsUser"); u && (*u < 0 || *u > kMaxInt32))
    e.invalid_int(child(path, "runAsUser"), *u, inclusive_range(0, kMaxInt32));
  if (auto g = int_of(sc, "runAsGroup"); g && (*g < 0 || *g > kMaxInt32))
    e.invalid_int(child(path, "runAsGroup"), *g, inclusive_range(0, kMaxInt32));
  if (std::string_view pm = sv(sc, "procMount"); has(sc, "procMount") && pm != "Default" && pm != "Unmasked")
    e.not_supported(child(path, "procMount"), go_quote(pm), {"Default", "Unmasked"});
}

// validateContainerCommon.
void container_common(Errors& e, const json::object& c, const std::set<std::string_view>& volumes,
                      const std::string& path) {
  std::string_view name = sv(c, "name");
  if (name.empty())
    e.required(child(path, "name"));
  else
    each(e, dns1123_label(name), child(path, "name"), name);
  if (sv(c, "image").empty()) e.required(child(path, "image"));
  std::string_view tmp = sv(c, "terminationMessagePolicy");
  if (tmp.empty())
    e.required(child(path, "terminationMessagePolicy"));
  else if (tmp != "File" && tmp != "FallbackToLogsOnError")
    e.not_supported(child(path, "terminationMessagePolicy"), go_quote(tmp),
                    {"File", "FallbackToLogsOnError"});
  if (const json::array* p = arr(c, "ports")) container_ports(e, *p, child(path, "ports"));
  if (const json::array* v = arr(c, "env")) env(e, *v, child(path, "env"));
  if (const json::array* m = arr(c, "volumeMounts"))
    volume_mounts(e, *m, volumes, child(path, "volumeMounts"));
  std::string_view pull = sv(c, "imagePullPolicy");
  if (pull.empty())
    e.required(child(path, "imagePullPolicy"));
  else if (pull != "Always" && pull != "IfNotPresent" && pull != "Never")
    e.not_supported(child(path, "imagePullPolicy"), go_quote(pull), {"Always", "IfNotPresent", "Never"});
  if (const json::object* res = obj(c, "resources"))
    resource_requirements(e, obj(*res, "limits"), obj(*res, "requests"), child(path, "resources"),
                          ResourceNames::Container);
  if (const json::object* sc = obj(c, "securityContext"))
    security_context(e, *sc, child(path, "securityContext"));
}

std::vector<std::pair<const json::object*, std::size_t>> objects_of(const json::array* a) {
  std::vector<std::pair<const json::object*, std::size_t>> out;
  if (a)
    for (std::size_t i = 0; i < a->size(); ++i)
      if ((*a)[i].is_object()) out.emplace_back(&(*a)[i].get_object(), i);
  return out;
}

void containers(Errors& e, const json::array* cs, const std::set<std::string_view>& volumes,
                std::optional<std::int64_t> grace, const std::string& path) {
  if (!cs || cs->empty()) {
    e.required(path);
    return;
  }
  std::set<std::string_view> names;
  auto list = objects_of(cs);
  for (const auto& [c, i] : list) {
    std::string p = index(path, i);
    container_common(e, *c, volumes, p);
    if (!names.insert(sv(*c, "name")).second) e.duplicate(child(p, "name"), go_quote(sv(*c, "name")));
    if (const json::object* lc = obj(*c, "lifecycle")) lifecycle(e, *lc, grace, child(p, "lifecycle"));
    probe(e, obj(*c, "livenessProbe"), grace, child(p, "livenessProbe"), ProbeKind::Liveness);
    probe(e, obj(*c, "readinessProbe"), grace, child(p, "readinessProbe"), ProbeKind::Readiness);
    probe(e, obj(*c, "startupProbe"), grace, child(p, "startupProbe"), ProbeKind::Startup);
    if (has(*c, "restartPolicy"))
      e.forbidden(child(p, "restartPolicy"), "may not be set for non-init containers");
  }
  host_port_conflicts(e, list, path);
}

void init_containers(Errors& e, const json::array* ics, const json::array* regular,
                     const std::set<std::string_view>& volumes, std::optional<std::int64_t> grace,
                     const std::string& path) {
  std::set<std::string_view> names;
  for (const auto& [c, i] : objects_of(regular)) names.insert(sv(*c, "name"));
  for (const auto& [c, i] : objects_of(ics)) {
    std::string p = index(path, i);
    container_common(e, *c, volumes, p);
    bool always = false;
    if (has(*c, "restartPolicy")) {
      std::string_view rp = sv(*c, "restartPolicy");
      always = rp == "Always";
      if (!always) e.not_supported(child(p, "restartPolicy"), go_quote(rp), {"Always"});
    } else if (const json::array* rules = arr(*c, "restartPolicyRules"); rules && !rules->empty()) {
      e.required(child(p, "restartPolicy"), "must specify restartPolicy when restart rules are used");
    }
    std::string_view name = sv(*c, "name");
    if (names.count(name))
      e.duplicate(child(p, "name"), go_quote(name));
    else if (!name.empty())
      names.insert(name);
    host_port_conflicts(e, {{c, 0}}, path + "[" + std::to_string(i) + "]");
    if (always) {
      if (const json::object* lc = obj(*c, "lifecycle")) lifecycle(e, *lc, grace, child(p, "lifecycle"));
      probe(e, obj(*c, "livenessProbe"), grace, child(p, "livenessProbe"), ProbeKind::Liveness);
      probe(e, obj(*c, "readinessProbe"), grace, child(p, "readinessProbe"), ProbeKind::Readiness);
      probe(e, obj(*c, "startupProbe"), grace, child(p, "startupProbe"), ProbeKind::Startup);
    } else {
      for (const char* f : {"lifecycle", "livenessProbe", "readinessProbe", "startupProbe"})
        if (has(*c, f))
          e.forbidden(child(p, f), "may not be set for init containers without restartPolicy=Always");
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

void file_mode(Errors& e, const json::object& src, const std::string& path) {
  if (auto m = int_of(src, "defaultMode"); m && (*m > 0777 || *m < 0))
    e.invalid_int(child(path, "defaultMode"), *m,
                  "must be a number between 0 and 0777 (octal), both inclusive");
}

void volume_source(Errors& e, const json::object& v, const std::string& path) {
  int count = 0;
  for (std::string_view s : kVolumeSources) {
    const json::object* src = obj(v, s);
    if (!src) continue;
    std::string p = child(path, s == "gcePersistentDisk" ? std::string_view("persistentDisk") : s);
    if (count > 0 && s != "emptyDir") {
      e.forbidden(child(path, s), "may not specify more than 1 volume type");
      continue;
    }
    ++count;
    if (s == "emptyDir") {
      if (const json::value* sl = src->if_contains("sizeLimit"); sl && !sl->is_null())
        if (auto q = quantity_of(*sl); q && q->sign() < 0)
          e.forbidden(child(p, "sizeLimit"), "SizeLimit field must be a valid resource quantity");
    } else if (s == "hostPath") {
      if (sv(*src, "path").empty()) e.required(child(p, "path"));
    } else if (s == "secret") {
      if (sv(*src, "secretName").empty()) e.required(child(p, "secretName"));
      file_mode(e, *src, p);
    } else if (s == "configMap") {
      if (sv(*src, "name").empty()) e.required(child(p, "name"));
      file_mode(e, *src, p);
    } else if (s == "persistentVolumeClaim") {
      if (sv(*src, "claimName").empty()) e.required(child(p, "claimName"));
    } else if (s == "nfs") {
      if (sv(*src, "server").empty()) e.required(child(p, "server"));
      if (sv(*src, "path").empty()) e.required(child(p, "path"));
    } else if (s == "csi") {
      if (sv(*src, "driver").empty()) e.required(child(p, "driver"));
    } else if (s == "downwardAPI" || s == "projected") {
      file_mode(e, *src, p);
    }
  }
  if (count == 0) e.required(path, "must specify a volume type");
}

std::set<std::string_view> volumes(Errors& e, const json::array* vs, const std::string& path) {
  std::set<std::string_view> names;
  for (const auto& [v, i] : objects_of(vs)) {
    std::string p = index(path, i);
    Errors el;
    volume_source(el, *v, p);
    std::string_view name = sv(*v, "name");
    if (name.empty())
      el.required(child(p, "name"));
    else
      each(el, dns1123_label(name), child(p, "name"), name);
    if (names.count(name)) el.duplicate(child(p, "name"), go_quote(name));
    if (el.empty())
      names.insert(name);
    else
      e.append(std::move(el.causes));
  }
  return names;
}

void pod_security_context(Errors& e, const json::object& sc, const std::string& path) {
  if (auto g = int_of(sc, "fsGroup"); g && (*g < 0 || *g > kMaxInt32))
    e.invalid_int(child(path, "fsGroup"), *g, inclusive_range(0, kMaxInt32));
  if (auto u = int_of(sc, "runAsUser"); u && (*u < 0 || *u > kMaxInt32))
    e.invalid_int(child(path, "runAsUser"), *u, inclusive_range(0, kMaxInt32));
  if (auto g = int_of(sc, "runAsGroup"); g && (*g < 0 || *g > kMaxInt32))
    e.invalid_int(child(path, "runAsGroup"), *g, inclusive_range(0, kMaxInt32));
  if (const json::array* sg = arr(sc, "supplementalGroups"))
    for (std::size_t i = 0; i < sg->size(); ++i)
      if ((*sg)[i].is_int64() && ((*sg)[i].get_int64() < 0 || (*sg)[i].get_int64() > kMaxInt32))
        e.invalid_int(index(child(path, "supplementalGroups"), i), (*sg)[i].get_int64(),
                      inclusive_range(0, kMaxInt32));
}

void weighted_terms(Errors& e, const json::array& terms, const std::string& path, bool node) {
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (!terms[i].is_object()) continue;
    const json::object& t = terms[i].get_object();
    std::string p = index(path, i);
    std::int64_t w = int_of(t, "weight").value_or(0);
    if (w <= 0 || w > 100) e.invalid_int(child(p, "weight"), w, "must be in the range 1-100");
    if (node) {
      if (const json::object* pref = obj(t, "preference"))
        node_selector_term(e, *pref, child(p, "preference"));
    } else if (const json::object* pat = obj(t, "podAffinityTerm")) {
      std::string tp = child(p, "podAffinityTerm");
      if (const json::object* ls = obj(*pat, "labelSelector"))
        label_selector(e, *ls, child(tp, "labelSelector"));
      if (const json::object* ns = obj(*pat, "namespaceSelector"))
        label_selector(e, *ns, child(tp, "namespaceSelector"));
      std::string_view key = sv(*pat, "topologyKey");
      if (key.empty())
        e.required(child(tp, "topologyKey"), "can not be empty");
      else
        each(e, qualified_name(key), child(tp, "topologyKey"), key);
    }
  }
}

void pod_affinity_terms(Errors& e, const json::array& terms, const std::string& path) {
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (!terms[i].is_object()) continue;
    const json::object& t = terms[i].get_object();
    std::string p = index(path, i);
    if (const json::object* ls = obj(t, "labelSelector")) label_selector(e, *ls, child(p, "labelSelector"));
    if (const json::object* ns = obj(t, "namespaceSelector"))
      label_selector(e, *ns, child(p, "namespaceSelector"));
    std::string_view key = sv(t, "topologyKey");
    if (key.empty())
      e.required(child(p, "topologyKey"), "can not be empty");
    else
      each(e, qualified_name(key), child(p, "topologyKey"), key);
  }
}

void affinity(Errors& e, const json::object& a, const std::string& path) {
  if (const json::object* na = obj(a, "nodeAffinity")) {
    std::string p = child(path, "nodeAffinity");
    if (const json::object* req = obj(*na, "requiredDuringSchedulingIgnoredDuringExecution"))
      node_selector(e, *req, child(p, "requiredDuringSchedulingIgnoredDuringExecution"));
    if (const json::array* pref = arr(*na, "preferredDuringSchedulingIgnoredDuringExecution"))
      weighted_terms(e, *pref, child(p, "preferredDuringSchedulingIgnoredDuringExecution"), true);
  }
  for (std::string_view kind : {"podAffinity", "podAntiAffinity"}) {
    const json::object* pa = obj(a, kind);
    if (!pa) continue;
    std::string p = child(path, kind);
    if (const json::array* req = arr(*pa, "requiredDuringSchedulingIgnoredDuringExecution"))
      pod_affinity_terms(e, *req, child(p, "requiredDuringSchedulingIgnoredDuringExecution"));
    if (const json::array* pref = arr(*pa, "preferredDuringSchedulingIgnoredDuringExecution"))
      weighted_terms(e, *pref, child(p, "preferredDuringSchedulingIgnoredDuringExecution"), false);
  }
}

void topology_spread(Errors& e, const json::array& cs, const std::string& path) {
  for (std::size_t i = 0; i < cs.size(); ++i) {
    if (!cs[i].is_object()) continue;
    const json::object& c = cs[i].get_object();
    std::string p = index(path, i);
    std::int64_t skew = int_of(c, "maxSkew").value_or(0);
    if (skew <= 0) e.invalid_int(child(p, "maxSkew"), skew, "must be greater than zero");
    if (sv(c, "topologyKey").empty()) e.required(child(p, "topologyKey"), "can not be empty");
    std::string_view action = sv(c, "whenUnsatisfiable");
    if (action != "DoNotSchedule" && action != "ScheduleAnyway")
      e.not_supported(child(p, "whenUnsatisfiable"), go_quote(action), {"DoNotSchedule", "ScheduleAnyway"});
    for (std::size_t j = i + 1; j < cs.size(); ++j) {
      if (!cs[j].is_object()) continue;
      const json::object& o = cs[j].get_object();
      if (sv(o, "topologyKey") == sv(c, "topologyKey") && sv(o, "whenUnsatisfiable") == action) {
        e.duplicate(child(p, "{topologyKey, whenUnsatisfiable}"),
                    go_quote("{" + std::string(sv(c, "topologyKey")) + ", " + std::string(action) + "}"));
        break;
      }
    }
    if (auto md = int_of(c, "minDomains")) {
      if (*md <= 0) e.invalid_int(child(p, "minDomains"), *md, "must be greater than zero");
      if (action != "DoNotSchedule")
        e.invalid_int(
            child(p, "minDomains"), *md,
            "can only use minDomains if whenUnsatisfiable=DoNotSchedule, not " + std::string(action));
    }
    for (std::string_view f : {"nodeAffinityPolicy", "nodeTaintsPolicy"})
      if (has(c, f) && sv(c, f) != "Honor" && sv(c, f) != "Ignore")
        e.not_supported(child(p, f), go_quote(sv(c, f)), {"Honor", "Ignore"});
    if (const json::object* ls = obj(c, "labelSelector")) label_selector(e, *ls, child(p, "labelSelector"));
  }
}

void dns_config(Errors& e, const json::object* dc, std::string_view policy, const std::string& path) {
  if (policy == "None") {
    if (!dc) {
      e.required(path, "must provide `dnsConfig` when `dnsPolicy` is None");
      return;
    }
    const json::array* ns = arr(*dc, "nameservers");
    if (!ns || ns->empty()) {
      e.required(child(path, "nameservers"),
                 "must provide at least one DNS nameserver when `dnsPolicy` is None");
      return;
    }
  }
  if (!dc) return;
  if (const json::array* ns = arr(*dc, "nameservers"))
    for (std::size_t i = 0; i < ns->size(); ++i)
      if ((*ns)[i].is_string()) ip(e, (*ns)[i].get_string(), index(child(path, "nameservers"), i));
  if (const json::array* opts = arr(*dc, "options"))
    for (std::size_t i = 0; i < opts->size(); ++i)
      if ((*opts)[i].is_object() && sv((*opts)[i].get_object(), "name").empty())
        e.required(index(child(path, "options"), i), "must not be empty");
}

}  // namespace

void pod_spec(Errors& e, const json::object& spec, const std::string& path, bool is_pod) {
  if (!has(spec, "terminationGracePeriodSeconds")) e.required(child(path, "terminationGracePeriodSeconds"));
  std::optional<std::int64_t> grace = int_of(spec, "terminationGracePeriodSeconds");
  std::set<std::string_view> vols = volumes(e, arr(spec, "volumes"), child(path, "volumes"));
  containers(e, arr(spec, "containers"), vols, grace, child(path, "containers"));
  init_containers(e, arr(spec, "initContainers"), arr(spec, "containers"), vols, grace,
                  child(path, "initContainers"));
  if (const json::object* res = obj(spec, "resources"))
    resource_requirements(e, obj(*res, "limits"), obj(*res, "requests"), child(path, "resources"),
                          ResourceNames::Pod);
  // Under hostNetwork a pod's host ports are its container ports (a template may leave them 0).
  if (bool_of(spec, "hostNetwork"))
    for (const auto& [c, ci] : objects_of(arr(spec, "containers")))
      for (const auto& [p, pi] : objects_of(arr(*c, "ports"))) {
        std::int64_t hp = int_of(*p, "hostPort").value_or(0), cp = int_of(*p, "containerPort").value_or(0);
        if ((is_pod || hp != 0) && hp != cp)
          e.invalid_int(child(index(child(index(child(path, "containers"), ci), "ports"), pi), "hostPort"),
                        hp, "must match `containerPort` when `hostNetwork` is true");
      }
  std::string_view rp = sv(spec, "restartPolicy");
  if (rp.empty())
    e.required(child(path, "restartPolicy"));
  else if (rp != "Always" && rp != "OnFailure" && rp != "Never")
    e.not_supported(child(path, "restartPolicy"), go_quote(rp), {"Always", "OnFailure", "Never"});
  std::string_view dp = sv(spec, "dnsPolicy");
  if (dp.empty())
    e.required(child(path, "dnsPolicy"));
  else if (dp != "ClusterFirstWithHostNet" && dp != "ClusterFirst" && dp != "Default" && dp != "None")
    e.not_supported(child(path, "dnsPolicy"), go_quote(dp),
                    {"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"});
  if (const json::object* ns = obj(spec, "nodeSelector")) labels(e, *ns, child(path, "nodeSelector"));
  if (const json::object* sc = obj(spec, "securityContext"))
    pod_security_context(e, *sc, child(path, "securityContext"));
  if (const json::object* a = obj(spec, "affinity")) affinity(e, *a, child(path, "affinity"));
  dns_config(e, obj(spec, "dnsConfig"), dp, child(path, "dnsConfig"));
  if (const json::array* rg = arr(spec, "readinessGates"))
    for (const auto& [g, i] : objects_of(rg))
      each(e, qualified_name(sv(*g, "conditionType")),
           child(index(child(path, "readinessGates"), i), "conditionType"), sv(*g, "conditionType"));
  if (const json::array* sg = arr(spec, "schedulingGates")) {
    std::set<std::string_view> seen;
    for (const auto& [g, i] : objects_of(sg)) {
      std::string p = index(child(path, "schedulingGates"), i);
      each(e, qualified_name(sv(*g, "name")), p, sv(*g, "name"));
      if (!seen.insert(sv(*g, "name")).second) e.duplicate(p, go_quote(sv(*g, "name")));
    }
  }
  if (const json::array* tsc = arr(spec, "topologySpreadConstraints"))
    topology_spread(e, *tsc, child(path, "topologySpreadConstraints"));
  for (std::string_view f : {"serviceAccountName", "nodeName"})
    if (std::string_view v = sv(spec, f); !v.empty()) each(e, dns1123_subdomain(v), child(path, f), v);
  if (auto ads = int_of(spec, "activeDeadlineSeconds"); ads && (*ads < 1 || *ads > kMaxInt32))
    e.invalid_int(child(path, "activeDeadlineSeconds"), *ads, inclusive_range(1, kMaxInt32));
  else if (const json::value* v = spec.if_contains("activeDeadlineSeconds"); v && v->is_uint64() && !ads)
    e.invalid(child(path, "activeDeadlineSeconds"), json::serialize(*v), inclusive_range(1, kMaxInt32));
  for (std::string_view f : {"hostname", "subdomain"})
    if (std::string_view v = sv(spec, f); !v.empty()) each(e, dns1123_label(v), child(path, f), v);
  if (const json::array* t = arr(spec, "tolerations"); t && !t->empty())
    tolerations(e, *t, child(path, "tolerations"));
  if (const json::array* ha = arr(spec, "hostAliases"))
    for (const auto& [h, i] : objects_of(ha)) {
      std::string p = index(child(path, "hostAliases"), i);
      ip(e, sv(*h, "ip"), child(p, "ip"));
      if (const json::array* names = arr(*h, "hostnames"))
        for (std::size_t j = 0; j < names->size(); ++j)
          if ((*names)[j].is_string())
            each(e, dns1123_subdomain((*names)[j].get_string()), index(child(p, "hostnames"), j),
                 (*names)[j].get_string());
    }
  if (std::string_view v = sv(spec, "priorityClassName"); !v.empty())
    each(e, dns1123_subdomain(v), child(path, "priorityClassName"), v);
  if (has(spec, "runtimeClassName")) {
    std::string_view v = sv(spec, "runtimeClassName");
    each(e, dns1123_subdomain(v), child(path, "runtimeClassName"), v);
  }
  if (has(spec, "preemptionPolicy")) {
    std::string_view v = sv(spec, "preemptionPolicy");
    if (v.empty())
      e.required(child(path, "preemptionPolicy"));
    else if (v != "PreemptLowerPriority" && v != "Never")
      e.not_supported(child(path, "preemptionPolicy"), go_quote(v), {"PreemptLowerPriority", "Never"});
  }
  if (const json::object* oh = obj(spec, "overhead"))
    resource_requirements(e, oh, nullptr, child(path, "overhead"), ResourceNames::Container);
  if (const json::object* os = obj(spec, "os")) {
    std::string_view n = sv(*os, "name");
    if (n.empty())
      e.required(child(child(path, "os"), "name"));
    else if (n != "linux" && n != "windows")
      e.not_supported(child(path, "os"), go_quote(n), {"linux", "windows"});
  }
}

}  // namespace ksched::apiserver::rules
