#include "scheduler/app/options.h"

#include <CLI/CLI.hpp>

#include <charconv>
#include <fstream>
#include <sstream>

#include "scheduler/config/feature_gates.h"
#include "scheduler/config/defaults.h"
#include "scheduler/config/load.h"
#include "scheduler/config/validation.h"

namespace ksched::scheduler::app {

namespace {

// pflag accepts "-v=2" and "--v=2"; CLI11 wants the long form for "=".
std::vector<std::string> normalise(int argc, const char* const* argv) {
  std::vector<std::string> out;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("-v=", 0) == 0) a = "--v=" + a.substr(3);
    out.push_back(a);
  }
  return out;
}

util::Result<config::Duration> duration_flag(const std::string& flag, const std::string& v) {
  auto d = config::parse_duration(v);
  if (!d) return util::make_error("invalid argument \"" + v + "\" for \"--" + flag + "\" flag: " + d.error());
  return *d;
}

}  // namespace

// Upstream featureGate.Set: comma-separated name=bool pairs (names and values trimmed), then the
// gates' own rules (unknown, locked); GA and deprecated settings come back as warnings.
util::Result<std::map<std::string, bool>> parse_feature_gates(const std::string& s, std::vector<std::string>& warnings) {
  std::map<std::string, bool> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    auto eq = item.find('=');
    if (eq == std::string::npos) {
      return util::make_error("invalid argument \"" + s + "\" for \"--feature-gates\" flag: missing bool value for " +
                              item);
    }
    auto trim = [](std::string t) {
      const auto first = t.find_first_not_of(" \t\n\r\v\f");
      if (first == std::string::npos) return std::string();
      return t.substr(first, t.find_last_not_of(" \t\n\r\v\f") - first + 1);
    };
    std::string k = trim(item.substr(0, eq)), v = trim(item.substr(eq + 1));
    bool b;
    if (v == "true" || v == "1" || v == "t" || v == "T" || v == "TRUE" || v == "True") {
      b = true;
    } else if (v == "false" || v == "0" || v == "f" || v == "F" || v == "FALSE" || v == "False") {
      b = false;
    } else {
      return util::make_error("invalid argument \"" + s + "\" for \"--feature-gates\" flag: invalid value of " + k +
                              "=" + v + ", err: strconv.ParseBool: parsing \"" + v + "\": invalid syntax");
    }
    out[k] = b;
  }
  auto checked = config::check_feature_gates(out);
  if (!checked) return util::make_error("invalid argument \"" + s + "\" for \"--feature-gates\" flag: " + checked.error());
  warnings = std::move(*checked);
  return out;
}

std::string usage() {
  std::string text = R"(The Kubernetes scheduler (ksched) is a control plane process which assigns Pods to Nodes.

Usage:
  kube-scheduler [flags]

Misc flags:
      --config string                            The path to the configuration file.
      --master string                            The address of the Kubernetes API server (overrides any value in kubeconfig)
      --write-config-to string                   If set, write the configuration values to this file and exit.

Secure serving flags:
      --bind-address ip                          The IP address on which to listen for the --secure-port port. (default 0.0.0.0)
      --cert-dir string                          The directory where the TLS certs are located. Ignored if --tls-cert-file and --tls-private-key-file are provided.
      --secure-port int                          The port on which to serve HTTPS with authentication and authorization. If 0, don't serve HTTPS at all. (default 10259)
      --tls-cert-file string                     File containing the default x509 Certificate for HTTPS.
      --tls-private-key-file string              File containing the default x509 private key matching --tls-cert-file.

Authentication flags:
      --authentication-kubeconfig string         kubeconfig file pointing at the 'core' kubernetes server with enough rights to create tokenreviews.authentication.k8s.io.
      --authentication-tolerate-lookup-failure   If true, failures to look up missing authentication configuration from the cluster are not considered fatal. (default true)

Authorization flags:
      --authorization-always-allow-paths strings A list of HTTP paths to skip during authorization. (default [/healthz,/readyz,/livez])
      --authorization-kubeconfig string          kubeconfig file pointing at the 'core' kubernetes server with enough rights to create subjectaccessreviews.authorization.k8s.io.

Deprecated flags:
      --contention-profiling                     DEPRECATED: enable block profiling, if profiling is enabled. (default true)
      --kube-api-burst int32                     DEPRECATED: burst to use while talking with kubernetes apiserver. (default 100)
      --kube-api-content-type string             DEPRECATED: content type of requests sent to apiserver. (default "application/vnd.kubernetes.protobuf")
      --kube-api-qps float32                     DEPRECATED: QPS to use while talking with kubernetes apiserver. (default 50)
      --kubeconfig string                        DEPRECATED: path to kubeconfig file with authorization and master location information.
      --pod-max-in-unschedulable-pods-duration duration   DEPRECATED: the maximum time a pod can stay in unschedulablePods. (default 5m0s)
      --profiling                                DEPRECATED: enable profiling via web interface host:port/debug/pprof/. (default true)

Leader election flags:
      --leader-elect                             Start a leader election client and gain leadership before executing the main loop. (default true)
      --leader-elect-lease-duration duration     (default 15s)
      --leader-elect-renew-deadline duration     (default 10s)
      --leader-elect-resource-lock string        (default "leases")
      --leader-elect-resource-name string        (default "kube-scheduler")
      --leader-elect-resource-namespace string   (default "kube-system")
      --leader-elect-retry-period duration       (default 2s)

ksched flags:
      --explain-cache-size int                   Keep this many of the last scheduling decisions, explained plugin by plugin, at /debug/explain (behind authentication and authorization). Each costs a second Filter and Score pass. (default 0: off)

Feature gate flags:
      --feature-gates mapStringBool              A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:
@FEATURE_GATES@
Logs flags:
      --logging-format string                    Sets the log format. Permitted formats: "json", "text". (default "text")
  -v, --v Level                                  number for the log level verbosity

Global flags:
  -h, --help                                     help for kube-scheduler
      --version                                  Print version information and quit
)";
  // The gate list goes where pflag prints the flag's multi-line usage, aligned under its text.
  std::string gates;
  for (const auto& line : config::feature_gate_help_lines()) gates += std::string(49, ' ') + line + "\n";
  text.replace(text.find("@FEATURE_GATES@"), std::string_view("@FEATURE_GATES@").size(), gates);
  return text;
}

util::Result<Options> parse_flags(int argc, const char* const* argv) {
  Options o;
  CLI::App app{"kube-scheduler"};
  app.set_help_flag();  // we print our own usage
  app.allow_windows_style_options(false);
  bool help = false, version = false;
  std::string qps, burst, lease, renew, retry, unsched, gates, verbosity;
  std::string leader_elect, profiling, contention, tolerate;
  std::string lock, lname, lns;
  std::vector<std::string> always_allow;  // one comma list per occurrence; occurrences add up (pflag StringSlice)
  std::string secure_port;
  app.add_flag("-h,--help", help);
  app.add_flag("--version", version);
  app.add_option("--config", o.config_file);
  app.add_option("--write-config-to", o.write_config_to);
  app.add_option("--master", o.master);
  app.add_option("--kubeconfig", o.kubeconfig);
  app.add_option("--kube-api-qps", qps);
  app.add_option("--kube-api-burst", burst);
  app.add_option("--kube-api-content-type", o.kube_api_content_type);
  app.add_option("--profiling", profiling)->expected(0, 1)->default_str("true");
  app.add_option("--contention-profiling", contention)->expected(0, 1)->default_str("true");
  app.add_option("--pod-max-in-unschedulable-pods-duration", unsched);
  app.add_option("--explain-cache-size", o.explain_cache_size)->check(CLI::NonNegativeNumber);
  app.add_option("--leader-elect", leader_elect)->expected(0, 1);
  app.add_option("--leader-elect-lease-duration", lease);
  app.add_option("--leader-elect-renew-deadline", renew);
  app.add_option("--leader-elect-retry-period", retry);
  app.add_option("--leader-elect-resource-lock", lock);
  app.add_option("--leader-elect-resource-name", lname);
  app.add_option("--leader-elect-resource-namespace", lns);
  app.add_option("--secure-port", secure_port);
  app.add_option("--bind-address", o.bind_address);
  app.add_option("--cert-dir", o.cert_dir);
  app.add_option("--tls-cert-file", o.tls_cert_file);
  app.add_option("--tls-private-key-file", o.tls_private_key_file);
  app.add_option("--authentication-kubeconfig", o.authentication_kubeconfig);
  app.add_option("--authentication-tolerate-lookup-failure", tolerate)->expected(0, 1);
  app.add_option("--authorization-kubeconfig", o.authorization_kubeconfig);
  app.add_option("--authorization-always-allow-paths", always_allow)
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_option("--feature-gates", gates);
  app.add_option("-v,--v", verbosity);
  app.add_option("--logging-format", o.logging_format);

  auto args = normalise(argc, argv);
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ExtrasError& e) {
    std::string first = e.what();
    // "The following arguments were not expected: --foo" -> upstream's wording.
    auto pos = first.find(": ");
    std::string what = pos == std::string::npos ? first : first.substr(pos + 2);
    auto sp = what.find(' ');
    if (sp != std::string::npos) what = what.substr(0, sp);
    return util::make_error("unknown flag: " + what);
  } catch (const CLI::ParseError& e) {
    return util::make_error(e.what());
  }
  o.show_help = help;
  o.show_version = version;

  auto parse_bool = [](const std::string& flag, const std::string& v, bool given) -> util::Result<bool> {
    if (!given || v.empty() || v == "true") return true;
    if (v == "false") return false;
    return util::make_error("invalid argument \"" + v + "\" for \"--" + flag +
                            "\" flag: strconv.ParseBool: parsing \"" + v + "\": invalid syntax");
  };
  auto count = [&](const char* name) { return app.get_option(name)->count() > 0; };

  if (count("--leader-elect")) {
    auto b = parse_bool("leader-elect", leader_elect, true);
    if (!b) return util::make_error(b.error());
    o.leader_elect = *b;
  }
  if (count("--profiling")) {
    auto b = parse_bool("profiling", profiling, true);
    if (!b) return util::make_error(b.error());
    o.profiling = *b;
  }
  if (count("--contention-profiling")) {
    auto b = parse_bool("contention-profiling", contention, true);
    if (!b) return util::make_error(b.error());
    o.contention_profiling = *b;
  }
  if (count("--authentication-tolerate-lookup-failure")) {
    auto b = parse_bool("authentication-tolerate-lookup-failure", tolerate, true);
    if (!b) return util::make_error(b.error());
    o.authentication_tolerate_lookup_failure = *b;
  }
  auto parse_int = [](const std::string& flag, const std::string& v) -> util::Result<long long> {
    long long out = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (ec != std::errc() || p != v.data() + v.size()) {
      return util::make_error("invalid argument \"" + v + "\" for \"--" + flag + "\" flag: strconv.ParseInt: parsing \"" +
                              v + "\": invalid syntax");
    }
    return out;
  };
  if (count("--secure-port")) {
    auto p = parse_int("secure-port", secure_port);
    if (!p) return util::make_error(p.error());
    if (*p < 0 || *p > 65535) {
      return util::make_error("--secure-port " + secure_port + " must be between 0 and 65535, inclusive. 0 for turning off secure port");
    }
    o.secure_port = static_cast<int>(*p);
  }
  if (count("--kube-api-burst")) {
    auto p = parse_int("kube-api-burst", burst);
    if (!p) return util::make_error(p.error());
    o.kube_api_burst = static_cast<int>(*p);
  }
  if (count("--kube-api-qps")) {
    try {
      std::size_t used = 0;
      float f = std::stof(qps, &used);
      if (used != qps.size()) throw std::invalid_argument(qps);
      o.kube_api_qps = f;
    } catch (const std::exception&) {
      return util::make_error("invalid argument \"" + qps + "\" for \"--kube-api-qps\" flag: strconv.ParseFloat: parsing \"" +
                              qps + "\": invalid syntax");
    }
  }
  if (count("-v")) {
    auto p = parse_int("v", verbosity);
    if (!p) return util::make_error(p.error());
    o.verbosity = static_cast<int>(*p);
  }
  struct DurFlag {
    const char* name;
    std::string* value;
    std::optional<config::Duration>* out;
  };
  for (auto& d : {DurFlag{"leader-elect-lease-duration", &lease, &o.leader_elect_lease_duration},
                  DurFlag{"leader-elect-renew-deadline", &renew, &o.leader_elect_renew_deadline},
                  DurFlag{"leader-elect-retry-period", &retry, &o.leader_elect_retry_period}}) {
    if (!count((std::string("--") + d.name).c_str())) continue;
    auto v = duration_flag(d.name, *d.value);
    if (!v) return util::make_error(v.error());
    *d.out = *v;
  }
  if (count("--pod-max-in-unschedulable-pods-duration")) {
    auto v = duration_flag("pod-max-in-unschedulable-pods-duration", unsched);
    if (!v) return util::make_error(v.error());
    o.pod_max_in_unschedulable_pods_duration = *v;
  }
  if (count("--leader-elect-resource-lock")) o.leader_elect_resource_lock = lock;
  if (count("--leader-elect-resource-name")) o.leader_elect_resource_name = lname;
  if (count("--leader-elect-resource-namespace")) o.leader_elect_resource_namespace = lns;
  if (count("--authorization-always-allow-paths")) {
    o.authorization_always_allow_paths.clear();
    for (const auto& list : always_allow) {
      std::stringstream ss(list);
      std::string p;
      while (std::getline(ss, p, ',')) {
        if (!p.empty()) o.authorization_always_allow_paths.push_back(p);
      }
    }
  }
  if (count("--feature-gates")) {
    auto g = parse_feature_gates(gates, o.feature_gate_warnings);
    if (!g) return util::make_error(g.error());
    o.feature_gates = *g;
  }
  if (o.logging_format != "text" && o.logging_format != "json") {
    return util::make_error("invalid argument \"" + o.logging_format +
                            "\" for \"--logging-format\" flag: format must be one of: json, text");
  }
  return o;
}

util::Result<config::KubeSchedulerConfiguration> effective_config(const Options& o) {
  config::KubeSchedulerConfiguration cfg;
  if (!o.config_file.empty()) {
    std::ifstream in(o.config_file, std::ios::binary);
    if (!in) return util::make_error("open " + o.config_file + ": no such file or directory");
    std::stringstream text;
    text << in.rdbuf();
    auto loaded = config::decode_config(text.str());
    if (!loaded) return util::make_error("failed to load config file \"" + o.config_file + "\": " + loaded.error());
    cfg = std::move(*loaded);
  } else {
    cfg = config::default_configuration();
    // Deprecated flags apply only without --config.
    if (!o.kubeconfig.empty()) cfg.clientConnection.kubeconfig = o.kubeconfig;
    if (o.kube_api_qps) cfg.clientConnection.qps = *o.kube_api_qps;
    if (o.kube_api_burst) cfg.clientConnection.burst = *o.kube_api_burst;
    if (!o.kube_api_content_type.empty()) cfg.clientConnection.contentType = o.kube_api_content_type;
    if (o.profiling) cfg.enableProfiling = *o.profiling;
    if (o.contention_profiling) cfg.enableContentionProfiling = *o.contention_profiling;
  }
  auto& le = cfg.leaderElection;
  if (o.leader_elect) le.leaderElect = *o.leader_elect;
  if (o.leader_elect_lease_duration) le.leaseDuration = *o.leader_elect_lease_duration;
  if (o.leader_elect_renew_deadline) le.renewDeadline = *o.leader_elect_renew_deadline;
  if (o.leader_elect_retry_period) le.retryPeriod = *o.leader_elect_retry_period;
  if (o.leader_elect_resource_lock) le.resourceLock = *o.leader_elect_resource_lock;
  if (o.leader_elect_resource_name) le.resourceName = *o.leader_elect_resource_name;
  if (o.leader_elect_resource_namespace) le.resourceNamespace = *o.leader_elect_resource_namespace;
  auto valid = config::validate(cfg);
  if (!valid) return util::make_error(valid.error());
  return cfg;
}

}  // namespace ksched::scheduler::app
