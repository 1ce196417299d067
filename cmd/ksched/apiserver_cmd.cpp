// `ksched apiserver`: the embedded Kubernetes-compatible API server as a standalone process.
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <pthread.h>

#include "apiserver/server.h"
#include "client/config.h"
#include "client/rest.h"
#include "controllers/controller_manager.h"
#include "scheduler/config/load.h"
#include "subcommand.h"
#include "util/log.h"

namespace {

int run_apiserver(int argc, char** argv) {
  ksched::apiserver::Options opts;
  opts.listen = "127.0.0.1:6443";
  std::string kubeconfig_out = "./kubeconfig";
  bool no_tls = false;
  int verbosity = 0;
  std::string storage = "memory";
  CLI::App app{"Embedded Kubernetes-compatible API server", "ksched apiserver"};
  app.add_option("--listen", opts.listen, "host:port to listen on (port 0 picks a free port)")->capture_default_str();
  app.add_option("--kubeconfig-out", kubeconfig_out, "write a kubeconfig for this server here")->capture_default_str();
  app.add_flag("--tls,!--no-tls", opts.tls, "serve HTTPS with a generated CA (default) or plain HTTP");
  app.add_option("--token-file", opts.token_file, "static token CSV: token,user,uid,\"group1,group2\"")
      ->check(CLI::ExistingFile);
  app.add_option("--authorization-mode", opts.authorization_mode,
                 "RBAC: every request is authorized against the stored Roles and bindings (system:masters always "
                 "allowed); AlwaysAllow: every authenticated request is")
      ->check(CLI::IsMember({"RBAC", "AlwaysAllow"}))
      ->capture_default_str();
  app.add_option("--anonymous-auth", opts.anonymous_auth,
                 "requests without a bearer token are system:anonymous (group system:unauthenticated), authorized "
                 "like any other; false: they get 401")
      ->capture_default_str();
  app.add_option("--nodes", opts.nodes, "create this many simulated Node objects at start")->check(CLI::NonNegativeNumber);
  app.add_option("--node-template", opts.node_template, "YAML/JSON Node template for --nodes")->check(CLI::ExistingFile);
  app.add_option("--watch-history", opts.watch_history, "events kept for watch resumption")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--io-threads", opts.io_threads, "HTTP io threads")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--storage", storage,
                 "memory: objects live in this process only; embedded: durable in --data-dir (write-ahead log with "
                 "group commit, snapshots); etcd: in the etcd cluster of --etcd-servers, which several servers may "
                 "share. --data-dir alone implies embedded, --etcd-servers etcd")
      ->check(CLI::IsMember({"memory", "embedded", "etcd"}))
      ->capture_default_str();
  app.add_option("--etcd-servers", opts.etcd_servers, "etcd members to connect to (http(s)://host:port, comma separated)")
      ->delimiter(',');
  app.add_option("--etcd-cafile", opts.etcd_cafile, "SSL Certificate Authority file used to secure etcd communication")
      ->check(CLI::ExistingFile);
  app.add_option("--etcd-certfile", opts.etcd_certfile, "SSL certification file used to secure etcd communication")
      ->check(CLI::ExistingFile);
  app.add_option("--etcd-keyfile", opts.etcd_keyfile, "SSL key file used to secure etcd communication")
      ->check(CLI::ExistingFile);
  app.add_option("--etcd-prefix", opts.etcd_prefix, "the prefix to prepend to all resource paths in etcd")
      ->capture_default_str();
  std::string compaction_interval = "5m0s";
  app.add_option("--etcd-compaction-interval", compaction_interval,
                 "the interval of compaction requests; 0 disables compaction from this server")
      ->capture_default_str();
  app.add_option("--data-dir", opts.data_dir,
                 "directory of the embedded durable store (also keeps the CA, serving certificate and admin token)");
  app.add_option("--wal-segment-bytes", opts.wal_segment_bytes,
                 "log segment size at which a snapshot is taken and older segments removed")
      ->check(CLI::Range(std::size_t{1} << 16, std::size_t{1} << 34))
      ->capture_default_str();
  app.add_option("--max-request-body-bytes", opts.limits.max_request_body_bytes,
                 "largest request body accepted (413 above it; upstream's MaxRequestBodyBytes); 0 = no limit")
      ->capture_default_str();
  app.add_option("--max-requests-inflight", opts.limits.max_requests_inflight,
                 "read-only requests served at once; more are answered 429 (watches and system:masters exempt); "
                 "0 = no limit")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--max-mutating-requests-inflight", opts.limits.max_mutating_requests_inflight,
                 "mutating requests served at once; more are answered 429; 0 = no limit")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  std::vector<std::string> controllers;
  app.add_option("--controllers", controllers,
                 "run kube-controller-manager's controllers in this process against this server; a list as "
                 "kube-controller-manager's --controllers ('*' every one, 'foo', '-foo'), '*' when given no value")
      ->expected(0, 1)
      ->delimiter(',');
  std::string feature_gates;
  app.add_option("--feature-gates", feature_gates,
                 "A set of key=value pairs for kube-apiserver's feature gates that change what is stored "
                 "(PodLevelResources, NodeDeclaredFeatures, PodTopologyLabelsAdmission, ...; v1.35's defaults)");
  app.add_option("--disable-admission-plugins", opts.disable_admission_plugins,
                 "admission plugins to turn off (kube-apiserver's flag; of those ksched runs: Priority, "
                 "DefaultTolerationSeconds, RuntimeClass, PodTopologyLabels)")
      ->delimiter(',');
  app.add_option("-v,--v", verbosity, "log verbosity");
  (void)no_tls;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 1;
  }
  ksched::log::init(verbosity);
  opts.kubeconfig_out = kubeconfig_out;
  if (auto g = ksched::apiserver::FeatureGates::parse(feature_gates); !g) {
    std::fprintf(stderr, "ksched apiserver: --feature-gates: %s\n", g.error().c_str());
    return 1;
  } else {
    opts.feature_gates = *g;
  }
  if (app.count("--storage") && storage == "memory" && !opts.data_dir.empty()) {
    std::fprintf(stderr, "ksched apiserver: --storage=memory and --data-dir contradict each other\n");
    return 1;
  }
  if (!opts.etcd_servers.empty() && app.count("--storage") && storage != "etcd") {
    std::fprintf(stderr, "ksched apiserver: --etcd-servers needs --storage=etcd (or no --storage)\n");
    return 1;
  }
  if (storage == "etcd" && opts.etcd_servers.empty()) {
    std::fprintf(stderr, "ksched apiserver: --storage=etcd needs --etcd-servers\n");
    return 1;
  }
  if (auto d = ksched::scheduler::config::parse_duration(compaction_interval); !d || d->count() < 0) {
    std::fprintf(stderr, "ksched apiserver: --etcd-compaction-interval: %s\n",
                 d ? "must not be negative" : d.error().c_str());
    return 1;
  } else {
    opts.etcd_compaction_interval_seconds =
        static_cast<int>(std::chrono::duration_cast<std::chrono::seconds>(*d).count());
  }
  if (storage == "embedded" && opts.data_dir.empty()) {
    std::fprintf(stderr, "ksched apiserver: --storage=embedded needs --data-dir\n");
    return 1;
  }

  // Block the shutdown signals before threads start so only sigwait sees them.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);

  bool run_controllers = app.count("--controllers") > 0;
  std::erase(controllers, std::string());  // `--controllers` given no value
  if (run_controllers && controllers.empty()) controllers = {"*"};
  if (run_controllers)
    if (auto names = ksched::controllers::enabled_controllers(controllers); !names) {
      std::fprintf(stderr, "ksched apiserver: --controllers: %s\n", names.error().c_str());
      return 1;
    }
  opts.controller_manager = run_controllers;
  ksched::apiserver::Server server(opts);
  auto r = server.start();
  if (!r) {
    std::fprintf(stderr, "ksched apiserver: %s\n", r.error().c_str());
    return 1;
  }
  std::unique_ptr<ksched::controllers::ControllerManager> manager;
  if (run_controllers) {
    // A client of this server like any other, as kube-controller-manager's own identity.
    auto cfg = ksched::client::kubeconfig_from_string(server.component_kubeconfig("kube-controller-manager"));
    if (!cfg) {
      std::fprintf(stderr, "ksched apiserver: %s\n", cfg.error().c_str());
      return 1;
    }
    cfg->qps = 100000;
    cfg->burst = 100000;
    cfg->user_agent = ksched::client::default_user_agent("kube-controller-manager");
    cfg->pipeline_writes = true;  // the workers' writes share connections (as in ksched up)
    auto c = ksched::client::RestClient::create(*cfg);
    if (!c) {
      std::fprintf(stderr, "ksched apiserver: %s\n", c.error().c_str());
      return 1;
    }
    ksched::controllers::ControllerManagerOptions co;
    co.controllers = controllers;
    auto m = ksched::controllers::ControllerManager::start(*c, co);
    if (!m) {
      std::fprintf(stderr, "ksched apiserver: starting the controllers: %s\n", m.error().c_str());
      return 1;
    }
    manager = std::move(*m);
  }
  int sig = 0;
  sigwait(&set, &sig);
  ksched::log::info("Shutting down API server", {{"signal", sig}});
  if (manager) manager->stop();
  server.stop();
  return 0;
}

ksched::cmd::RegisterSubcommand reg("apiserver", "run the embedded Kubernetes-compatible API server", run_apiserver);

}  // namespace
