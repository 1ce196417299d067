#include "localcluster/local_cluster.h"

#include "apiserver/server.h"
#include "client/rest.h"
#include "controllers/controller_manager.h"
#include "nodesim/simulator.h"
#include "scheduler/app/app.h"
#include "scheduler/config/defaults.h"
#include "scheduler/config/features.h"
#include "scheduler/config/load.h"
#include "util/log.h"

namespace ksched::localcluster {

struct LocalCluster::Impl {
  LocalClusterOptions opts;
  std::unique_ptr<apiserver::Server> server;
  client::RestConfig rest;
  std::shared_ptr<client::RestClient> client;
  std::unique_ptr<nodesim::Simulator> simulator;
  std::unique_ptr<controllers::ControllerManager> controllers;
  std::unique_ptr<scheduler::app::SchedulerApp> scheduler;
  bool stopped = false;
};

namespace {

// The API server's share of the cluster's gates: those apiserver::FeatureGates knows (a gate it
// does not act on is the scheduler's alone; upstream's components share one registry, ours keep
// their own lists), through its own parser, which checks the dependencies kube_features.go declares
// (GangScheduling needs GenericWorkload).
util::Result<apiserver::FeatureGates> server_gates(const std::map<std::string, bool>& gates) {
  std::string spec;
  for (const auto& [name, on] : gates) {
    if (!apiserver::FeatureGates::parse(name + "=false")) continue;  // not one of the server's gates
    spec += (spec.empty() ? "" : ",") + name + (on ? "=true" : "=false");
  }
  return apiserver::FeatureGates::parse(spec);
}

// The admin configuration with the component's token: same server, CA, limits and transport.
client::RestConfig component_rest(const LocalCluster::Impl& im, std::string_view component) {
  client::RestConfig c = im.rest;
  c.bearer_token = im.server->component_token(component);
  return c;
}

}  // namespace

LocalCluster::LocalCluster(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

LocalCluster::~LocalCluster() { stop(); }

util::Result<std::unique_ptr<LocalCluster>> LocalCluster::start(LocalClusterOptions opts) {
  auto im = std::make_unique<Impl>();
  im->opts = opts;

  apiserver::Options so;
  so.listen = opts.listen;
  so.tls = true;
  so.kubeconfig_out = opts.kubeconfig_out;
  so.watch_history = opts.watch_history;
  so.nodes = opts.nodes;
  so.node_template = opts.node_template;
  so.data_dir = opts.data_dir;
  so.etcd_servers = opts.etcd_servers;
  so.controller_manager = !opts.controllers.empty();
  so.disable_admission_plugins = opts.disable_admission_plugins;
  auto gates = server_gates(opts.feature_gates);
  if (!gates) return util::make_error("--feature-gates: " + gates.error());
  // The controllers' gates' dependencies, checked before anything starts.
  if (auto cf = controllers::controller_features(opts.feature_gates); !cf)
    return util::make_error("--feature-gates: " + cf.error());
  so.feature_gates = *gates;
  im->server = std::make_unique<apiserver::Server>(so);
  if (auto r = im->server->start(); !r) return util::make_error("starting the API server: " + r.error());

  auto rest = client::kubeconfig_from_string(im->server->kubeconfig());
  if (!rest) return util::make_error("reading the API server's kubeconfig: " + rest.error());
  im->rest = *rest;
  // Tools create thousands of objects: the client-side limiter must not be what is measured.
  im->rest.qps = 100000;
  im->rest.burst = 100000;
  im->rest.user_agent = client::default_user_agent("ksched");
  auto c = client::RestClient::create(im->rest);
  if (!c) return util::make_error("building a client: " + c.error());
  im->client = *c;

  if (opts.run_node_simulator) {
    auto sim_client = client::RestClient::create(component_rest(*im, "node-simulator"));
    if (!sim_client) return util::make_error("building the node simulator's client: " + sim_client.error());
    nodesim::Options no;
    no.zones = opts.node_zones;
    no.region = opts.node_region;
    auto drivers = nodesim::parse_dra_devices(opts.dra_devices);
    if (!drivers) return util::make_error(drivers.error());
    no.dra_drivers = std::move(*drivers);
    im->simulator = std::make_unique<nodesim::Simulator>(*sim_client, no);
    im->simulator->start();
  }

  if (!opts.controllers.empty()) {
    auto cm_rest = component_rest(*im, "kube-controller-manager");
    // Fifty resource-claim workers write claims and pod statuses at once: their writes share
    // connections in group commits (one send and one receive per batch), as client-go's share one
    // HTTP/2 connection.
    cm_rest.pipeline_writes = true;
    auto cm_client = client::RestClient::create(cm_rest);
    if (!cm_client) return util::make_error("building the controllers' client: " + cm_client.error());
    controllers::ControllerManagerOptions co;
    co.controllers = opts.controllers;
    co.feature_gates = opts.feature_gates;
    auto cm = controllers::ControllerManager::start(*cm_client, co);
    if (!cm) return util::make_error("starting the controllers: " + cm.error());
    im->controllers = std::move(*cm);
  }

  if (opts.run_scheduler) {
    scheduler::app::AppOptions ao;
    // The gates first: the default profile is built from them (GangScheduling and NodeDeclaredFeatures
    // join it, as upstream's applyFeatureGates), and they are process-wide (a previous run's must not stay).
    scheduler::config::set_features(scheduler::config::features_from_gates(opts.feature_gates));
    if (!opts.scheduler_config.empty()) {
      auto cfg = scheduler::config::load_config_file(opts.scheduler_config);
      if (!cfg) return util::make_error(cfg.error());
      ao.cfg = *cfg;
    } else {
      ao.cfg = scheduler::config::default_configuration();
      // Upstream's 50/100 client limits would cap binding at ~50 pods/s; scheduler_perf raises
      // them too. A user-given config keeps its own values.
      ao.cfg.clientConnection.qps = 5000;
      ao.cfg.clientConnection.burst = 10000;
      // The embedded server stores JSON, so protobuf (kube-scheduler's default, right against
      // kube-apiserver) makes it transcode every pod version the scheduler watches: SchedulingBasic
      // 5000 nodes measured 8,675-8,985 pods/s with protobuf vs 9,985-10,666 with JSON in process.
      ao.cfg.clientConnection.contentType = "application/json";
    }
    ao.cfg.leaderElection.leaderElect = false;  // one scheduler in this process
    // The scheduler's registry is v1.35's: the controllers' newer gates are not its to check.
    for (const auto& [name, on] : opts.feature_gates)
      if (!controllers::is_controller_only_gate(name)) ao.feature_gates[name] = on;
    ao.rest = component_rest(*im, "kube-scheduler");
    ao.rest.user_agent.clear();
    ao.serve = opts.scheduler_secure_port >= 0;
    // /metrics and /configz are authorized by the local API server (TokenReview and
    // SubjectAccessReview, which system:kube-scheduler may create), so the admin token from the
    // kubeconfig can read them.
    ao.delegation_rest = ao.rest;
    ao.serving.bind_address = "127.0.0.1";
    ao.serving.port = static_cast<std::uint16_t>(std::max(0, opts.scheduler_secure_port));
    auto app = scheduler::app::SchedulerApp::create(std::move(ao));
    if (!app) return util::make_error("creating the scheduler: " + app.error());
    im->scheduler = std::move(*app);
    if (auto r = im->scheduler->start(); !r) return util::make_error("starting the scheduler: " + r.error());
  }
  return std::unique_ptr<LocalCluster>(new LocalCluster(std::move(im)));
}

void LocalCluster::stop() {
  if (!impl_ || impl_->stopped) return;
  impl_->stopped = true;
  // Reverse order of start: clients of the server first, the server last.
  if (impl_->scheduler) {
    impl_->scheduler->request_stop();
    impl_->scheduler->wait();
    impl_->scheduler.reset();
  }
  if (impl_->controllers) impl_->controllers->stop();
  if (impl_->simulator) impl_->simulator->stop();
  impl_->server->stop();
}

const client::RestConfig& LocalCluster::rest_config() const { return impl_->rest; }
client::RestConfig LocalCluster::component_rest_config(std::string_view component) const {
  return component_rest(*impl_, component);
}
std::shared_ptr<client::RestClient> LocalCluster::client() const { return impl_->client; }
std::string LocalCluster::kubeconfig() const { return impl_->server->kubeconfig(); }
std::string LocalCluster::url() const { return impl_->server->url(); }
scheduler::app::SchedulerApp* LocalCluster::scheduler_app() const { return impl_->scheduler.get(); }
controllers::ControllerManager* LocalCluster::controller_manager() const { return impl_->controllers.get(); }

}  // namespace ksched::localcluster
