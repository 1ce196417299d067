// kube-scheduler's command line (cmd/kube-scheduler/app/options): upstream's flag names, defaults
// and precedence. With --config only the leader-election flags override the file; without it the
// deprecated flags (--kubeconfig, --kube-api-qps, ...) fill the configuration.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/config/types.h"
#include "util/result.h"

namespace ksched::scheduler::app {

struct Options {
  std::string config_file;
  std::string write_config_to;
  std::string master;

  // Deprecated flags: only used without --config.
  std::string kubeconfig;
  std::optional<float> kube_api_qps;
  std::optional<int> kube_api_burst;
  std::string kube_api_content_type;
  std::optional<bool> profiling;
  std::optional<bool> contention_profiling;
  config::Duration pod_max_in_unschedulable_pods_duration = std::chrono::minutes(5);

  // Leader election: each set flag overrides the file.
  std::optional<bool> leader_elect;
  std::optional<config::Duration> leader_elect_lease_duration;
  std::optional<config::Duration> leader_elect_renew_deadline;
  std::optional<config::Duration> leader_elect_retry_period;
  std::optional<std::string> leader_elect_resource_lock;
  std::optional<std::string> leader_elect_resource_name;
  std::optional<std::string> leader_elect_resource_namespace;

  // Secure serving, authentication, authorization.
  int secure_port = 10259;
  std::string bind_address = "0.0.0.0";
  std::string cert_dir;
  std::string tls_cert_file;
  std::string tls_private_key_file;
  std::string authentication_kubeconfig;
  bool authentication_tolerate_lookup_failure = true;
  std::string authorization_kubeconfig;
  std::vector<std::string> authorization_always_allow_paths = {"/healthz", "/readyz", "/livez"};

  // ksched's own: keep this many explained decisions for /debug/explain (0: off).
  int explain_cache_size = 0;

  std::map<std::string, bool> feature_gates;
  std::vector<std::string> feature_gate_warnings;  // GA or deprecated gates set: logged at start-up
  int verbosity = 0;
  std::string logging_format = "text";
  bool show_version = false;
  bool show_help = false;
};

// Parses argv (argv[0] is the program). Errors read like upstream's: `unknown flag: --foo`,
// `invalid argument "x" for "--secure-port" flag: ...`.
util::Result<Options> parse_flags(int argc, const char* const* argv);
std::string usage();

// The effective configuration: file (or defaults plus deprecated flags), then leader-election flags,
// then validation. Errors name the file or the field.
util::Result<config::KubeSchedulerConfiguration> effective_config(const Options& o);

// `--feature-gates` as kube-scheduler parses it (component-base's featureGate.Set over v1.35's
// registry, config/feature_gates.h): "A=true,B=false" to the gates set; an unknown or locked gate
// is upstream's error (`invalid argument "..." for "--feature-gates" flag: unrecognized feature
// gate: X`); GA and deprecated gates set come back in `warnings`. `ksched up` uses it too.
util::Result<std::map<std::string, bool>> parse_feature_gates(const std::string& spec,
                                                              std::vector<std::string>& warnings);


}  // namespace ksched::scheduler::app
