// `ksched up`: the embedded default — API server, simulated nodes and the scheduler in one process.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <fstream>

#include "controllers/controller_manager.h"
#include "localcluster/demo.h"
#include "localcluster/local_cluster.h"
#include "localcluster/ui_server.h"
#include "scheduler/app/app.h"
#include "subcommand.h"
#include "util/log.h"

namespace {

int run_up(int argc, char** argv) {
  CLI::App app{"Start a local cluster: API server, simulated nodes and ksched's scheduler", "ksched up"};
  ksched::localcluster::LocalClusterOptions o;
  o.listen = "127.0.0.1:6443";
  o.kubeconfig_out = "./kubeconfig";
  bool demo = false, exit_when_done = false, ephemeral = false;
  std::string data_dir = "./.ksched";
  int verbosity = 0, timeout = 120;
  app.add_option("--listen", o.listen, "API server address (host:port; port 0 picks a free one)")->capture_default_str();
  app.add_option("--kubeconfig-out", o.kubeconfig_out, "Where to write the admin kubeconfig")->capture_default_str();
  app.add_option("--nodes", o.nodes, "Simulated nodes to create")->capture_default_str()->check(CLI::Range(0, 100000));
  app.add_option("--node-template", o.node_template, "Node YAML/JSON used as the template for simulated nodes")
      ->check(CLI::ExistingFile);
  app.add_option("--config", o.scheduler_config, "KubeSchedulerConfiguration for the scheduler")->check(CLI::ExistingFile);
  app.add_option("--scheduler-secure-port", o.scheduler_secure_port,
                 "Scheduler's HTTPS port for /healthz, /metrics (0 = any free port, -1 = off)")
      ->capture_default_str();
  std::string ui_listen = "127.0.0.1:6480";
  app.add_option("--ui-listen", ui_listen,
                 "Address of the web page (nodes, pods, pending pods, explanations; plain HTTP); \"\" = off, port 0 = any")
      ->capture_default_str();
  app.add_option("--data-dir", data_dir,
                 "Durable store (write-ahead log, snapshots, CA and admin token): a restart on the same directory "
                 "finds every object and the same kubeconfig")
      ->capture_default_str();
  app.add_flag("--ephemeral", ephemeral, "Keep everything in memory only (lost at exit); --demo implies it");
  app.add_flag("--demo", demo, "Create a mixed demo workload, wait until it settles and print a summary");
  app.add_flag("--exit-when-done", exit_when_done, "With --demo: exit after the summary instead of staying up");
  app.add_option("--timeout", timeout, "With --demo: seconds to wait for the workload to settle")->capture_default_str();
  bool no_controllers = false;
  app.add_option("--controllers", o.controllers,
                 "Controllers to run, as kube-controller-manager's --controllers: '*' every one, 'foo' foo, '-foo' "
                 "not foo (deployment-controller, replicaset-controller, daemonset-controller, job-controller, "
                 "statefulset-controller, namespace-controller, garbage-collector-controller)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_flag("--no-controllers", no_controllers,
               "Run no controllers: only bare pods are scheduled, as before kube-controller-manager");
  app.add_option("--node-zones", o.node_zones,
                 "topology.kubernetes.io/zone values the simulated nodes take in turn (comma separated); a node "
                 "template's own zone label wins")
      ->delimiter(',');
  app.add_option("--node-region", o.node_region, "topology.kubernetes.io/region of the simulated nodes");
  app.add_option("-v,--v", verbosity, "Log verbosity");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  ksched::log::init(verbosity);
  if (no_controllers) o.controllers.clear();
  // The demo's scene is made for an empty cluster; a kept store would hold the last run's.
  o.data_dir = ephemeral || demo ? std::string() : data_dir;

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // every thread started below inherits the mask

  std::fprintf(stderr, "Starting the API server with %d simulated nodes, the controllers and the scheduler...\n",
               o.nodes);
  auto cluster = ksched::localcluster::LocalCluster::start(o);
  if (!cluster) {
    std::fprintf(stderr, "Error: %s\n", cluster.error().c_str());
    return 1;
  }
  auto* sched = (*cluster)->scheduler_app();
  std::printf("Local cluster is up.\n");
  std::printf("  API server:  %s\n", (*cluster)->url().c_str());
  std::printf("  store:       %s\n", o.data_dir.empty() ? "in memory (lost at exit)" : o.data_dir.c_str());
  if (auto* cm = (*cluster)->controller_manager()) {
    std::string names;
    for (const auto& n : cm->running()) names += (names.empty() ? "" : ", ") + n.substr(0, n.rfind("-controller"));
    std::printf("  controllers: %s\n", names.c_str());
  } else {
    std::printf("  controllers: none (--no-controllers)\n");
  }
  if (!o.kubeconfig_out.empty()) {
    std::printf("  kubeconfig:  %s\n\n", o.kubeconfig_out.c_str());
    std::printf("Use it with kubectl, for example:\n");
    std::printf("  export KUBECONFIG=%s\n", o.kubeconfig_out.c_str());
    std::printf("  kubectl get nodes\n");
    std::printf("  kubectl create deployment web --image=nginx --replicas=5 && kubectl get pods -o wide\n");
  }
  std::unique_ptr<ksched::localcluster::UiServer> ui;
  if (!ui_listen.empty()) {
    // The page is an extra: a taken port costs the page, not the cluster.
    auto u = ksched::localcluster::UiServer::start(ui_listen, (*cluster)->rest_config());
    if (u) {
      ui = std::move(*u);
      std::printf("  web page:    %s\n", ui->url().c_str());
    } else {
      std::fprintf(stderr, "Warning: the web page is not served: %s\n", u.error().c_str());
    }
  }
  if (sched && sched->secure_port()) {
    std::printf("  scheduler:   https://127.0.0.1:%u/healthz (and /readyz, /metrics with the admin token)\n",
                sched->secure_port());
  }
  std::fflush(stdout);

  if (demo) {
    ksched::localcluster::DemoOptions d;
    d.timeout = std::chrono::seconds(timeout);
    d.progress = isatty(STDERR_FILENO);
    auto rep = ksched::localcluster::run_demo(**cluster, d);
    if (!rep) {
      std::fprintf(stderr, "Error: demo failed: %s\n", rep.error().c_str());
      return 1;
    }
    std::printf("\n%s", ksched::localcluster::format_report(*rep).c_str());
    std::fflush(stdout);
    if (exit_when_done) return rep->settled ? 0 : 1;
  }
  std::printf("\nPress Ctrl-C to stop.\n");
  std::fflush(stdout);
  int sig = 0;
  sigwait(&signals, &sig);
  std::fprintf(stderr, "Stopping...\n");
  if (ui) ui->stop();
  (*cluster)->stop();
  return 0;
}

ksched::cmd::RegisterSubcommand reg("up", "Run a local cluster: API server, simulated nodes, scheduler (--demo)", run_up);

}  // namespace
