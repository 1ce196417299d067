// `ksched up`: the embedded default — API server, simulated nodes and the scheduler in one process.
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <string>

#include "controllers/controller_manager.h"
#include "localcluster/demo.h"
#include "localcluster/local_cluster.h"
#include "localcluster/ui_server.h"
#include "nodesim/dra_driver.h"
#include "scheduler/app/app.h"
#include "scheduler/app/options.h"
#include "subcommand.h"
#include "util/log.h"

namespace {

// Whether something listens on host:port now: a bind with SO_REUSEADDR, as the servers bind, fails
// only then (a port left in TIME_WAIT counts as free). Unparsable addresses count as free: the
// server that binds them reports the error.
bool address_taken(const std::string& hostport) {
  const auto colon = hostport.rfind(':');
  if (colon == std::string::npos) return false;
  std::string host = hostport.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  const std::string port = hostport.substr(colon + 1);
  if (port.empty() || port == "0") return false;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV;
  addrinfo* ai = nullptr;
  if (getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &ai) != 0 || ai == nullptr) return false;
  bool taken = false;
  const int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
  if (fd >= 0) {
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    taken = bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno == EADDRINUSE;
    close(fd);
  }
  freeaddrinfo(ai);
  return taken;
}

// host:port -> host:0 (any free port on the same address).
std::string any_port(const std::string& hostport) { return hostport.substr(0, hostport.rfind(':')) + ":0"; }

int run_up(int argc, char** argv) {
  CLI::App app{"Start a local cluster: API server, simulated nodes and ksched's scheduler", "ksched up"};
  ksched::localcluster::LocalClusterOptions o;
  o.listen = "127.0.0.1:6443";
  o.kubeconfig_out = "./kubeconfig";
  bool demo = false, exit_when_done = false, ephemeral = false;
  std::string data_dir = "./.ksched";
  int verbosity = 0, timeout = 120;
  auto* listen_opt =
      app.add_option("--listen", o.listen,
                     "API server address (host:port; port 0 picks a free one; with --demo a taken default does too)")
          ->capture_default_str();
  auto* kubeconfig_opt =
      app.add_option("--kubeconfig-out", o.kubeconfig_out,
                     "Where to write the admin kubeconfig (not written by --demo --exit-when-done unless given)")
          ->capture_default_str();
  app.add_option("--nodes", o.nodes, "Simulated nodes to create")->capture_default_str()->check(CLI::Range(0, 100000));
  app.add_option("--node-template", o.node_template, "Node YAML/JSON used as the template for simulated nodes")
      ->check(CLI::ExistingFile);
  app.add_option("--config", o.scheduler_config, "KubeSchedulerConfiguration for the scheduler")->check(CLI::ExistingFile);
  auto* sched_port_opt = app.add_option("--scheduler-secure-port", o.scheduler_secure_port,
                                        "Scheduler's HTTPS port for /healthz, /metrics (0 = any free port, -1 = off)")
                             ->capture_default_str();
  std::string ui_listen = "127.0.0.1:6480";
  auto* ui_opt = app.add_option("--ui-listen", ui_listen,
                                "Address of the live web page (nodes, pods, pending pods, explanations; plain HTTP); "
                                "\"\" = off, port 0 = any; a taken default takes any free port")
                     ->capture_default_str();
  app.add_option("--data-dir", data_dir,
                 "Durable store (write-ahead log, snapshots, CA and admin token): a restart on the same directory "
                 "finds every object and the same kubeconfig")
      ->capture_default_str();
  app.add_flag("--ephemeral", ephemeral, "Keep everything in memory only (lost at exit); --demo implies it");
  app.add_flag("--demo", demo, "Create a mixed demo workload, wait until it settles and print a summary");
  app.add_flag("--exit-when-done", exit_when_done,
               "With --demo: exit after the summary instead of staying up (then no kubeconfig, web page or "
               "scheduler port unless asked for)");
  app.add_option("--timeout", timeout, "With --demo: seconds to wait for the workload to settle")->capture_default_str();
  bool no_controllers = false;
  app.add_option("--controllers", o.controllers,
                 "Controllers to run, as kube-controller-manager's --controllers: '*' every one, 'foo' foo, '-foo' "
                 "not foo (deployment-controller, replicaset-controller, daemonset-controller, job-controller, "
                 "statefulset-controller, resourceclaim-controller, namespace-controller, garbage-collector-controller)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_flag("--no-controllers", no_controllers,
               "Run no controllers: only bare pods are scheduled, as before kube-controller-manager");
  app.add_option("--node-zones", o.node_zones,
                 "topology.kubernetes.io/zone values the simulated nodes take in turn (comma separated); a node "
                 "template's own zone label wins")
      ->delimiter(',');
  app.add_option("--node-region", o.node_region, "topology.kubernetes.io/region of the simulated nodes");
  std::vector<std::string> dra_devices;
  app.add_option("--dra-devices", dra_devices,
                 "Simulated DRA drivers on every node, published as ResourceSlices: DRIVER=COUNT[,model=M][,memory=Q]"
                 "[,slices=N][,partitions=P][,bindingConditions=T[,attachFailures=N]], several separated by ';' or given again (e.g. "
                 "gpu.ksched.dev=8,model=A100); "
                 "a node template's nodesim.ksched.io/dra-devices annotation replaces them on its nodes");
  std::string feature_gates;
  app.add_option("--feature-gates", feature_gates,
                 "Feature gates for every component, as upstream's --feature-gates (\"A=true,B=false\"; v1.35's "
                 "gates and defaults, plus the controllers' WorkloadWithJob, alpha in v1.36): e.g. "
                 "GenericWorkload=true,GangScheduling=true for gang scheduling, and WorkloadWithJob=true for "
                 "the Job controller to give gang Jobs their Workload and PodGroup");
  app.add_option("-v,--v", verbosity, "Log verbosity");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  ksched::log::init(verbosity);
  // kube-scheduler's parser (v1.35's whole registry: an unknown gate is upstream's "unrecognized
  // feature gate" error); LocalCluster gives the API server its share through the server's parser.
  // The controllers' newer gates (WorkloadWithJob, v1.36) are taken out first and parsed apart.
  std::vector<std::string> gate_warnings;
  auto split = ksched::controllers::split_controller_only_gates(feature_gates);
  if (!split) {
    std::fprintf(stderr, "Error: %s\n", split.error().c_str());
    return 2;
  }
  if (auto g = ksched::scheduler::app::parse_feature_gates(split->rest, gate_warnings); !g) {
    std::string msg = g.error();
    // Upstream's message quotes the whole flag value.
    if (const std::string quoted = "\"" + split->rest + "\""; msg.compare(0, 18 + quoted.size(), "invalid argument " + quoted + " ") == 0)
      msg = "invalid argument \"" + feature_gates + "\"" + msg.substr(17 + quoted.size());
    std::fprintf(stderr, "Error: %s\n", msg.c_str());
    return 2;
  } else {
    o.feature_gates = std::move(*g);
    o.feature_gates.insert(split->controller_only.begin(), split->controller_only.end());
  }
  for (const auto& w : gate_warnings) std::fprintf(stderr, "Warning: %s\n", w.c_str());
  if (no_controllers) o.controllers.clear();
  for (const auto& d : dra_devices) o.dra_devices += (o.dra_devices.empty() ? "" : ";") + d;
  if (auto parsed = ksched::nodesim::parse_dra_devices(o.dra_devices); !parsed) {
    std::fprintf(stderr, "Error: %s\n", parsed.error().c_str());
    return 2;
  }
  // The demo's scene is made for an empty cluster; a kept store would hold the last run's.
  o.data_dir = ephemeral || demo ? std::string() : data_dir;
  const bool exits = demo && exit_when_done;
  // A cluster that exits after its summary serves nobody afterwards: no kubeconfig for a server
  // that is gone, no page, no scheduler port, unless asked for by name.
  if (exits) {
    if (!kubeconfig_opt->count()) o.kubeconfig_out.clear();
    if (!ui_opt->count()) ui_listen.clear();
    if (!sched_port_opt->count()) o.scheduler_secure_port = -1;
  }
  if (!o.kubeconfig_out.empty()) o.kubeconfig_out = std::filesystem::absolute(o.kubeconfig_out).lexically_normal();

  // Ports. The demo's cluster is ephemeral, so a taken default (another local cluster) costs it
  // nothing: it takes a free port and says so. A kept cluster stays where its kubeconfig says,
  // and a taken address is an error that names the way out.
  std::string api_note, ui_note;
  if (address_taken(o.listen)) {
    if (demo && !listen_opt->count()) {
      api_note = " (" + o.listen + " was taken)";
      o.listen = any_port(o.listen);
    } else {
      std::fprintf(stderr,
                   "Error: %s is in use (another local cluster?); stop it, or give --listen %s for any free port\n",
                   o.listen.c_str(), any_port(o.listen).c_str());
      return 1;
    }
  }
  if (!ui_listen.empty() && !ui_opt->count() && address_taken(ui_listen)) {
    ui_note = " (" + ui_listen + " was taken)";
    ui_listen = any_port(ui_listen);
  }

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
  std::unique_ptr<ksched::localcluster::UiServer> ui;
  if (!ui_listen.empty()) {
    // The page is an extra: a port it cannot have costs the page, not the cluster.
    auto u = ksched::localcluster::UiServer::start(ui_listen, (*cluster)->rest_config());
    if (u) {
      ui = std::move(*u);
    } else {
      std::fprintf(stderr, "Warning: the web page is not served: %s\n", u.error().c_str());
    }
  }
  if (!exits) {
    std::printf("Local cluster is up.\n");
    std::printf("  API server:  %s%s\n", (*cluster)->url().c_str(), api_note.c_str());
    std::printf("  store:       %s\n", o.data_dir.empty() ? "in memory (lost at exit)" : o.data_dir.c_str());
    if (auto* cm = (*cluster)->controller_manager()) {
      std::string names;
      for (const auto& n : cm->running()) names += (names.empty() ? "" : ", ") + n.substr(0, n.rfind("-controller"));
      std::printf("  controllers: %s\n", names.c_str());
    } else {
      std::printf("  controllers: none (--no-controllers)\n");
    }
    if (ui) std::printf("  web page:    %s%s\n", ui->url().c_str(), ui_note.c_str());
    if (sched && sched->secure_port()) {
      std::printf("  scheduler:   https://127.0.0.1:%u/healthz (and /readyz, /metrics with the admin token)\n",
                  sched->secure_port());
    }
    if (!o.kubeconfig_out.empty()) std::printf("  kubeconfig:  %s\n", o.kubeconfig_out.c_str());
    std::fflush(stdout);
  }

  if (demo) {
    ksched::localcluster::DemoOptions d;
    d.timeout = std::chrono::seconds(timeout);
    d.progress = isatty(STDERR_FILENO);
    auto rep = ksched::localcluster::run_demo(**cluster, d);
    if (!rep) {
      std::fprintf(stderr, "Error: demo failed: %s\n", rep.error().c_str());
      return 1;
    }
    std::printf("%s%s", exits ? "" : "\n", ksched::localcluster::format_report(*rep).c_str());
    if (exits) {
      std::printf("  cluster:       API server %s%s, in memory, stopped after this summary\n",
                  (*cluster)->url().c_str(), api_note.c_str());
      std::fflush(stdout);
      if (ui) ui->stop();
      (*cluster)->stop();
      return rep->settled ? 0 : 1;
    }
  }
  if (!o.kubeconfig_out.empty()) {
    std::printf("\nUse it with kubectl, for example:\n");
    std::printf("  export KUBECONFIG=%s\n", o.kubeconfig_out.c_str());
    std::printf("  kubectl get nodes\n");
    std::printf("  kubectl create deployment web --image=nginx --replicas=5 && kubectl get pods -o wide\n");
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
