#include "scheduler/app/app.h"

#include "scheduler/podgroup/metrics.h"

#include "scheduler/config/feature_gates.h"

#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <pthread.h>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <thread>

#include "api/apps.h"
#include "api/policy.h"
#include "api/storage.h"
#include "api/version.h"
#include "api/volume.h"
#include "client/rest.h"
#include "events/recorder.h"
#include "informer/factory.h"
#include "leaderelection/leader_elector.h"
#include "scheduler/app/delegated_auth.h"
#include "scheduler/app/options.h"
#include "scheduler/cluster_client.h"
#include "scheduler/cluster_lister.h"
#include "scheduler/config/features.h"
#include "scheduler/config/write.h"
#include "scheduler/eventhandlers.h"
#include "scheduler/explain/decision_log.h"
#include "scheduler/in_tree_registry.h"
#include "scheduler/metrics.h"
#include "scheduler/scheduler.h"
#include "serving/healthz.h"
#include "tls/certs.h"
#include "util/log.h"

namespace ksched::scheduler::app {

namespace {

constexpr const char* kComponent = "kube-scheduler";
constexpr std::string_view kUpstreamVersion = api::kKubernetesVersion;

std::string version_string() { return std::string(kUpstreamVersion) + "-ksched." + KSCHED_VERSION_STRING; }

api::ObjectReference pod_ref(const api::Pod& p) {
  api::ObjectReference r;
  r.kind = "Pod";
  r.apiVersion = "v1";
  r.namespace_ = p.metadata.namespace_;
  r.name = p.metadata.name;
  r.uid = p.metadata.uid;
  return r;
}

}  // namespace

struct SchedulerApp::Impl {
  AppOptions opts;
  std::shared_ptr<client::RestClient> client;
  std::shared_ptr<client::RestClient> events_client;
  std::unique_ptr<events::EventBroadcaster> broadcaster;
  std::map<std::string, std::shared_ptr<events::EventRecorder>> recorders;  // per profile
  std::unique_ptr<informer::SharedInformerFactory> factory;
  std::unique_ptr<InformerClusterLister> lister;
  std::unique_ptr<RestClusterClient> cluster_client;
  metrics::Registry registry;
  std::unique_ptr<metrics::SchedulerMetrics> metrics;
  std::unique_ptr<podgroup::PodGroupMetrics> pod_group_metrics;  // with GenericWorkload
  std::unique_ptr<podgroup::PlacementMetrics> placement_metrics;  // with TopologyAwareWorkloadScheduling
  framework::Registry plugins;
  // Before sched: the scheduler's cycle observer writes to it until the scheduler is gone.
  std::unique_ptr<explain::DecisionLog> decisions;
  std::unique_ptr<Scheduler> sched;
  std::unique_ptr<serving::SecureServer> server;
  serving::HealthEndpoint healthz{"healthz"}, livez{"livez"}, readyz{"readyz"};
  std::unique_ptr<leaderelection::LeaderElector> elector;
  std::thread elector_thread;
  std::vector<std::function<bool()>> handler_synced;
  std::string configz;

  std::mutex mu;
  std::condition_variable cv;
  bool stopped = false;
  bool stop_requested = false;
  bool torn_down = false;
  int exit_code = 0;
  std::atomic<bool> caches_synced{false};
  std::atomic<bool> leading{false};
  std::atomic<bool> shutting_down{false};

  util::Result<void> build();
  util::Result<void> start_serving();
  void start_informers_and_wait();
  util::Result<void> start_informers_only();
  void run_scheduling(std::stop_token token);
  void finish(int code);
  void teardown();
};

util::Result<void> SchedulerApp::Impl::build() {
  auto rest = opts.rest;
  if (rest.user_agent.empty()) rest.user_agent = client::default_user_agent(kComponent) + "/scheduler";
  rest.qps = opts.cfg.clientConnection.qps;
  rest.burst = opts.cfg.clientConnection.burst;
  rest.content_type = opts.cfg.clientConnection.contentType;  // protobuf unless configured otherwise
  rest.accept_content_types = opts.cfg.clientConnection.acceptContentTypes;
  // Writes from the binding workers (DRA claim status, bindings) and the dispatcher share connections
  // in group commits: with many in flight, one send and one receive serve a batch.
  rest.pipeline_writes = true;
  auto c = client::RestClient::create(rest);
  if (!c) return util::make_error("building client: " + c.error());
  client = *c;
  // Events go through their own client so event bursts never eat the scheduler's QPS budget; the
  // event writers' creates and patches are small, so they share connections (pipelined).
  auto events_rest = rest;
  events_rest.pipeline_writes = true;
  auto ec = client::RestClient::create(events_rest);
  if (!ec) return util::make_error("building events client: " + ec.error());
  events_client = *ec;
  broadcaster = std::make_unique<events::EventBroadcaster>(events_client);
  for (const auto& p : opts.cfg.profiles) recorders[p.schedulerName] = broadcaster->new_recorder(p.schedulerName);

  factory = std::make_unique<informer::SharedInformerFactory>(client);
  lister = std::make_unique<InformerClusterLister>();
  auto pods = scheduler_pod_informer(*factory);
  lister->pods = pods->lister();
  lister->namespaces = factory->informer_for<api::Namespace>()->lister();
  lister->services = factory->informer_for<api::Service>()->lister();
  lister->replicationControllers = factory->informer_for<api::ReplicationController>()->lister();
  lister->replicaSets = factory->informer_for<api::ReplicaSet>()->lister();
  lister->statefulSets = factory->informer_for<api::StatefulSet>()->lister();
  lister->pdbs = factory->informer_for<api::PodDisruptionBudget>()->lister();
  auto pvs = factory->informer_for<api::PersistentVolume>();
  auto pvcs = factory->informer_for<api::PersistentVolumeClaim>();
  auto scs = factory->informer_for<api::StorageClass>();
  auto csinodes = factory->informer_for<api::CSINode>();
  auto csidrivers = factory->informer_for<api::CSIDriver>();
  auto capacities = factory->informer_for<api::CSIStorageCapacity>();
  lister->pvs = pvs->lister();
  lister->pvcs = pvcs->lister();
  lister->storageClasses = scs->lister();
  lister->csiNodes = csinodes->lister();
  lister->csiDrivers = csidrivers->lister();
  lister->csiStorageCapacities = capacities->lister();

  cluster_client = std::make_unique<RestClusterClient>(
      client, [this](const api::Pod& regarding, const std::string& type, const std::string& reason,
                     const std::string& action, const std::string& note) {
        auto it = recorders.find(regarding.spec.schedulerName);
        auto& rec = it != recorders.end() ? it->second : recorders.begin()->second;
        rec->event(pod_ref(regarding), nullptr, type, reason, action, note);
      });

  metrics = std::make_unique<metrics::SchedulerMetrics>(registry);
  plugins = new_in_tree_registry();
  SchedulerOptions so;
  so.metrics = metrics.get();
  // Upstream registers the pod-group cycle's metrics with GenericWorkload; the cycle runs with
  // GangScheduling, which needs it.
  if (config::feature_enabled(opts.feature_gates, "GenericWorkload")) {
    pod_group_metrics = std::make_unique<podgroup::PodGroupMetrics>(registry);
    so.pod_group_metrics = pod_group_metrics.get();
  }
  if (config::feature_enabled(opts.feature_gates, "TopologyAwareWorkloadScheduling")) {
    placement_metrics = std::make_unique<podgroup::PlacementMetrics>(registry);
    so.placement_metrics = placement_metrics.get();
  }
  so.pod_max_in_unschedulable_pods_duration = opts.pod_max_in_unschedulable_pods_duration;
  // The gates the scheduler computes with (pod-level resources) are process-wide; an embedding
  // program (ksched bench, a workload's featureGates) gives them here.
  if (!opts.feature_gates.empty()) config::set_features(config::features_from_gates(opts.feature_gates));
  so.pop_from_backoff_q = config::feature_enabled(opts.feature_gates, "SchedulerPopFromBackoffQ");
  so.opportunistic_batching = config::feature_enabled(opts.feature_gates, "OpportunisticBatching");
  if (opts.explain_cache_size > 0) {
    decisions = std::make_unique<explain::DecisionLog>(opts.explain_cache_size);
    so.cycle_observer = [log = decisions.get()](framework::Framework& fwk, const api::Pod& pod, const std::string& node) {
      log->record(fwk, pod, node);
    };
  }
  auto cfg = opts.cfg;
  if (opts.parallelism > 0) {
    cfg.parallelism = opts.parallelism;
  } else {
    // Upstream's default of 16 goroutines is for many cores; on small machines extra threads
    // only add contention.
    int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    cfg.parallelism = std::min(cfg.parallelism, hw);
  }
  auto s = Scheduler::create(cfg, plugins, *cluster_client, *lister, so);
  if (!s) return util::make_error(s.error());
  sched = std::move(*s);

  handler_synced = add_all_event_handlers(*sched, *factory);

  configz = "{\"componentconfig\":" + config::write_config_json(opts.cfg) + "}";

  if (opts.cfg.leaderElection.leaderElect) {
    const auto& le = opts.cfg.leaderElection;
    if (le.resourceLock != "leases") {
      return util::make_error("leaderElection.resourceLock: Unsupported value: \"" + le.resourceLock +
                              "\": supported values: \"leases\"");
    }
    leaderelection::Config lc;
    std::string id = opts.identity.empty() ? leaderelection::new_identity() : opts.identity;
    lc.lock = std::make_shared<leaderelection::LeaseLock>(client, le.resourceNamespace, le.resourceName, id);
    lc.lease_duration = std::chrono::duration_cast<std::chrono::milliseconds>(le.leaseDuration);
    lc.renew_deadline = std::chrono::duration_cast<std::chrono::milliseconds>(le.renewDeadline);
    lc.retry_period = std::chrono::duration_cast<std::chrono::milliseconds>(le.retryPeriod);
    lc.release_on_cancel = true;
    lc.name = kComponent;
    lc.callbacks.on_started_leading = [this](std::stop_token token) { run_scheduling(token); };
    lc.callbacks.on_stopped_leading = [this] {
      leading = false;
      std::unique_lock l(mu);
      if (stop_requested) {
        log::info("Requested to terminate, exiting");
        l.unlock();
        finish(0);
      } else {
        log::error("Leaderelection lost");
        l.unlock();
        finish(1);
      }
    };
    lc.callbacks.on_new_leader = [id](const std::string& leader) {
      if (leader != id) log::info("New leader elected", {{"identity", leader}});
    };
    auto e = leaderelection::LeaderElector::create(std::move(lc));
    if (!e) return util::make_error("couldn't create leader elector: " + e.error());
    elector = std::move(*e);
  }

  healthz.add({"ping", [] { return std::nullopt; }});
  livez.add({"ping", [] { return std::nullopt; }});
  readyz.add({"ping", [] { return std::nullopt; }});
  if (elector) {
    auto watchdog = [this]() -> std::optional<std::string> {
      auto r = elector->check();
      if (!r) return r.error();
      return std::nullopt;
    };
    healthz.add({"leaderElection", watchdog});
    readyz.add({"leaderElection", watchdog});
  }
  readyz.add({"sched-handler-sync", [this]() -> std::optional<std::string> {
                if (!caches_synced) return std::string("waiting for informers to sync");
                for (const auto& f : handler_synced) {
                  if (!f()) return std::string("waiting for event handlers to sync");
                }
                return std::nullopt;
              }});
  readyz.add({"shutdown", [this]() -> std::optional<std::string> {
                if (shutting_down) return std::string("process is shutting down");
                return std::nullopt;
              }});
  return {};
}

// Fails fast, with one clear line, when the API server cannot be reached or refuses our
// credentials, instead of retrying list/watch forever with nothing ready.
util::Result<void> probe_api_server(client::RestClient& c, const std::string& host) {
  auto delay = std::chrono::milliseconds(500);
  std::string last;
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto r = c.raw("GET", "/version");
    if (r && r->status == 200) return {};
    if (r && (r->status == 401 || r->status == 403)) {
      return util::make_error("the API server at " + host + " refused our credentials (HTTP " +
                              std::to_string(r->status) + "); check the kubeconfig's user");
    }
    last = r ? "HTTP " + std::to_string(r->status) : r.error().to_string();
    std::this_thread::sleep_for(delay);
    delay *= 2;
  }
  return util::make_error("unable to reach the API server at " + host + ": " + last);
}

util::Result<void> SchedulerApp::Impl::start_serving() {
  if (!opts.serve) return {};
  auto so = opts.serving;
  server = std::make_unique<serving::SecureServer>(so);
  // Delegated authn/authz clients: the given kubeconfig (or an in-process caller's client), else
  // in-cluster, else none (anonymous callers; only always-allowed paths are served), as upstream
  // with RemoteKubeConfigFileOptional.
  auto delegate_client = [&](const std::string& kubeconfig,
                             const char* what) -> util::Result<std::shared_ptr<client::RestClient>> {
    util::Result<client::RestConfig> rc = util::make_error("");
    if (!kubeconfig.empty()) {
      client::KubeconfigOptions ko;
      ko.explicit_path = kubeconfig;
      rc = client::load_kubeconfig(ko);
      if (!rc) return util::make_error(std::string("invalid --") + what + "-kubeconfig: " + rc.error());
    } else if (opts.delegation_rest) {
      rc = *opts.delegation_rest;
    } else {
      rc = client::in_cluster_config();
      if (!rc) {
        log::V(2).info("No delegated client configured", {{"for", what}});
        return std::shared_ptr<client::RestClient>();
      }
    }
    auto c = client::RestClient::create(*rc);
    if (!c) return util::make_error(c.error());
    return *c;
  };
  auto authn = delegate_client(opts.authentication_kubeconfig, "authentication");
  if (!authn) return util::make_error(authn.error());
  auto authz = delegate_client(opts.authorization_kubeconfig, "authorization");
  if (!authz) return util::make_error(authz.error());
  // Upstream's start-up warnings for the same situation (DelegatingAuthenticationOptions and
  // DelegatingAuthorizationOptions): without them an operator sees only 403s on /metrics.
  if (!*authn) {
    log::warning("No authentication-kubeconfig provided in order to lookup client-ca-file in "
                 "configmap/extension-apiserver-authentication in kube-system, so client certificate "
                 "authentication won't work.");
    log::warning("No authentication-kubeconfig provided in order to lookup requestheader-client-ca-file in "
                 "configmap/extension-apiserver-authentication in kube-system, so request-header client "
                 "certificate authentication won't work.");
  }
  if (!*authz) log::warning("No authorization-kubeconfig provided, so SubjectAccessReview of authorization tokens won't work.");
  server->set_authorizer(std::make_shared<DelegatedAuthorizer>(*authn, *authz));
  server->handle("/healthz", [this](const auto& r) { return healthz.serve(r); }, true);
  server->handle("/livez", [this](const auto& r) { return livez.serve(r); }, true);
  server->handle("/readyz", [this](const auto& r) { return readyz.serve(r); }, true);
  server->handle("/metrics", [this](const auto&) {
    return serving::HttpResponse{200, "text/plain; version=0.0.4; charset=utf-8", registry.expose(), {}};
  });
  server->handle("/configz", [this](const auto&) {
    return serving::HttpResponse{200, "application/json", configz, {}};
  });
  server->handle("/debug/explain", [this](const serving::HttpRequest& r) {
    if (!decisions) {
      return serving::HttpResponse{404, "text/plain; charset=utf-8", "explained decisions are off: start with --explain-cache-size N\n", {}};
    }
    if (!r.has_query_param("pod")) return serving::HttpResponse{200, "application/json", decisions->list_json(), {}};
    if (auto j = decisions->get_json(r.query_param("pod"))) return serving::HttpResponse{200, "application/json", *j, {}};
    return serving::HttpResponse{404, "text/plain; charset=utf-8", "no decision kept for pod " + r.query_param("pod") + "\n", {}};
  });
  return server->start();
}

void SchedulerApp::Impl::start_informers_and_wait() {
  factory->start();
  for (;;) {
    auto synced = factory->wait_for_cache_sync(std::chrono::seconds(1));
    bool all = true;
    for (const auto& [name, ok] : synced) all = all && ok;
    if (all) break;
    std::lock_guard l(mu);
    if (stop_requested) return;
  }
  caches_synced = true;
  log::V(1).info("Caches are synced");
}

util::Result<void> SchedulerApp::Impl::start_informers_only() {
  start_informers_and_wait();
  if (!caches_synced) return util::make_error("stopped before the caches synced");
  // The handlers have seen the initial lists once each informer has delivered them.
  for (const auto& synced : handler_synced) {
    while (!synced()) {
      std::unique_lock l(mu);
      if (stop_requested) return util::make_error("stopped before the event handlers synced");
      cv.wait_for(l, std::chrono::milliseconds(10));
    }
  }
  return {};
}

void SchedulerApp::Impl::run_scheduling(std::stop_token token) {
  leading = true;
  if (!caches_synced) start_informers_and_wait();
  sched->run();
  // Leadership ends by the token; a stop request ends it through the elector (teardown).
  std::stop_callback wake(token, [this] {
    std::lock_guard l(mu);
    cv.notify_all();
  });
  std::unique_lock l(mu);
  cv.wait(l, [&] { return token.stop_requested() || stop_requested; });
  l.unlock();
  sched->stop();
  sched->wait_for_bindings(std::chrono::seconds(30));
}

void SchedulerApp::Impl::finish(int code) {
  std::lock_guard l(mu);
  if (stopped) return;
  stopped = true;
  exit_code = code;
  cv.notify_all();
}

void SchedulerApp::Impl::teardown() {
  {
    std::lock_guard l(mu);
    if (torn_down) return;
    torn_down = true;
  }
  shutting_down = true;
  if (elector) {
    elector->stop();  // releases the lease (ReleaseOnCancel)
    if (elector_thread.joinable()) elector_thread.join();
  } else if (sched) {
    sched->stop();
    sched->wait_for_bindings(std::chrono::seconds(30));
  }
  if (factory) factory->shutdown();
  if (broadcaster) broadcaster->shutdown();
  if (broadcaster && opts.schedule) {
    // Dropped events are by design (a bounded queue and per-object limits, as upstream's), but an
    // operator should be able to see how many.
    const auto st = broadcaster->stats();
    log::info("Event broadcaster stopped", {{"recorded", std::to_string(st.recorded)},
                                            {"created", std::to_string(st.created)},
                                            {"patched", std::to_string(st.patched)},
                                            {"droppedQueueFull", std::to_string(st.dropped_queue_full)},
                                            {"droppedRateLimited", std::to_string(st.dropped_rate_limited)},
                                            {"failed", std::to_string(st.failed)}});
  }
  if (server) server->stop();
}

SchedulerApp::SchedulerApp(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

SchedulerApp::~SchedulerApp() {
  request_stop();
  impl_->teardown();
}

util::Result<std::unique_ptr<SchedulerApp>> SchedulerApp::create(AppOptions opts) {
  // Gates set programmatically (the bench's workloads) obey the flag's rules too.
  if (auto checked = config::check_feature_gates(opts.feature_gates); !checked)
    return util::make_error("feature gates: " + checked.error());
  auto impl = std::make_unique<Impl>();
  impl->opts = std::move(opts);
  if (auto r = impl->build(); !r) return util::make_error(r.error());
  return std::unique_ptr<SchedulerApp>(new SchedulerApp(std::move(impl)));
}

util::Result<void> SchedulerApp::start() {
  auto& im = *impl_;
  if (!im.opts.schedule) {
    if (auto r = probe_api_server(*im.client, im.opts.rest.host); !r) return r;
    return im.start_informers_only();
  }
  log::info("Starting Kubernetes Scheduler", {{"version", version_string()}});
  if (auto r = probe_api_server(*im.client, im.opts.rest.host); !r) return r;
  im.broadcaster->start_recording_to_sink();
  if (auto r = im.start_serving(); !r) return r;
  // Without leader election (or without delayCacheUntilActive) caches fill before competing.
  if (!im.elector || !im.opts.cfg.delayCacheUntilActive) {
    im.start_informers_and_wait();
  }
  if (im.elector) {
    im.elector_thread = std::thread([&im] { im.elector->run(); });
  } else {
    im.leading = true;
    im.sched->run();
  }
  return {};
}

int SchedulerApp::wait() {
  auto& im = *impl_;
  {
    std::unique_lock l(im.mu);
    im.cv.wait(l, [&] { return im.stopped || im.stop_requested; });
  }
  im.teardown();
  std::lock_guard l(im.mu);
  // Lost leadership before anyone asked us to stop: exit 1 (upstream "leaderelection lost").
  return im.exit_code;
}

void SchedulerApp::request_stop() {
  auto& im = *impl_;
  std::lock_guard l(im.mu);
  im.stop_requested = true;
  im.shutting_down = true;
  im.cv.notify_all();
}

bool SchedulerApp::ready() const {
  auto& im = *impl_;
  if (!im.caches_synced) return false;
  for (const auto& f : im.handler_synced) {
    if (!f()) return false;
  }
  return !im.elector || im.leading;
}

bool SchedulerApp::is_leader() const { return impl_->leading; }
std::uint16_t SchedulerApp::secure_port() const { return impl_->server ? impl_->server->port() : 0; }
std::string SchedulerApp::serving_ca_pem() const { return impl_->server ? impl_->server->self_signed_ca_pem() : ""; }
std::string SchedulerApp::metrics_text() const { return impl_->registry.expose(); }
Scheduler* SchedulerApp::scheduler() { return impl_->sched.get(); }

// ---------------------------------------------------------------- flags -> AppOptions

util::Result<std::unique_ptr<SchedulerApp>> start_inspector(const client::RestConfig& rest, const std::string& config_file,
                                                            const std::map<std::string, bool>& feature_gates) {
  // Before the configuration is defaulted: GangScheduling joins the default profile.
  config::set_features(config::features_from_gates(feature_gates));
  Options flags;
  flags.config_file = config_file;
  flags.leader_elect = false;
  flags.master = rest.host;  // the connection itself is `rest`, set below
  auto opts = app_options_from_flags(flags);
  if (!opts) return util::make_error(opts.error());
  opts->rest = rest;
  opts->serve = false;
  opts->schedule = false;
  opts->feature_gates = feature_gates;
  opts->cfg.leaderElection.leaderElect = false;
  auto app = SchedulerApp::create(std::move(*opts));
  if (!app) return util::make_error(app.error());
  if (auto r = (*app)->start(); !r) return util::make_error(r.error());
  return std::move(*app);
}

util::Result<AppOptions> app_options_from_flags(const Options& flags) {
  AppOptions a;
  auto cfg = effective_config(flags);
  if (!cfg) return util::make_error(cfg.error());
  a.cfg = std::move(*cfg);

  // clientcmd.BuildConfigFromFlags(master, kubeconfig): in-cluster when both are empty.
  const std::string& kubeconfig = a.cfg.clientConnection.kubeconfig;
  if (!kubeconfig.empty()) {
    client::KubeconfigOptions ko;
    ko.explicit_path = kubeconfig;
    auto rc = client::load_kubeconfig(ko);
    if (!rc) return util::make_error("invalid kubeconfig \"" + kubeconfig + "\": " + rc.error());
    a.rest = std::move(*rc);
    if (!flags.master.empty()) a.rest.host = flags.master;
  } else if (!flags.master.empty()) {
    a.rest.host = flags.master;
  } else {
    log::warning("Neither --kubeconfig nor --master was specified. Using the inClusterConfig. This might not work.");
    auto rc = client::in_cluster_config();
    if (!rc) {
      return util::make_error("no --kubeconfig or clientConnection.kubeconfig given, and in-cluster configuration failed: " +
                              rc.error());
    }
    a.rest = std::move(*rc);
  }

  a.serve = flags.secure_port != 0;
  a.serving.bind_address = flags.bind_address;
  a.serving.port = static_cast<std::uint16_t>(flags.secure_port);
  a.serving.always_allow_paths = flags.authorization_always_allow_paths;
  if (!flags.tls_cert_file.empty() || !flags.tls_private_key_file.empty()) {
    if (flags.tls_cert_file.empty() || flags.tls_private_key_file.empty()) {
      return util::make_error("both --tls-cert-file and --tls-private-key-file must be given");
    }
    auto cert = tls::read_pem_file(flags.tls_cert_file);
    if (!cert) return util::make_error(cert.error());
    auto key = tls::read_pem_file(flags.tls_private_key_file);
    if (!key) return util::make_error(key.error());
    a.serving.cert_pem = *cert;
    a.serving.key_pem = *key;
  } else if (!flags.cert_dir.empty()) {
    // Upstream writes the generated pair to --cert-dir as kube-scheduler.crt/.key and reuses it.
    std::string crt = flags.cert_dir + "/kube-scheduler.crt", key = flags.cert_dir + "/kube-scheduler.key";
    auto c = tls::read_pem_file(crt);
    auto k = tls::read_pem_file(key);
    if (c && k) {
      a.serving.cert_pem = *c;
      a.serving.key_pem = *k;
    } else {
      auto pair = tls::generate_self_signed_serving("localhost");
      if (!pair) return util::make_error(pair.error());
      std::ofstream(crt) << pair->cert_pem;
      std::ofstream(key) << pair->key_pem;
      a.serving.cert_pem = pair->cert_pem;
      a.serving.key_pem = pair->key_pem;
    }
  }
  a.authentication_kubeconfig = flags.authentication_kubeconfig;
  a.authorization_kubeconfig = flags.authorization_kubeconfig;
  a.authentication_tolerate_lookup_failure = flags.authentication_tolerate_lookup_failure;
  a.feature_gates = flags.feature_gates;
  a.pod_max_in_unschedulable_pods_duration = flags.pod_max_in_unschedulable_pods_duration;
  a.explain_cache_size = static_cast<std::size_t>(flags.explain_cache_size);
  return a;
}

// ---------------------------------------------------------------- the program

int run_kube_scheduler(int argc, char** argv) {
  auto flags = parse_flags(argc, argv);
  if (!flags) {
    std::fprintf(stderr, "Error: %s\n", flags.error().c_str());
    std::fprintf(stderr, "Run 'kube-scheduler --help' for usage.\n");
    return 1;
  }
  if (flags->show_help) {
    std::fputs(usage().c_str(), stdout);
    return 0;
  }
  if (flags->show_version) {
    std::printf("Kubernetes %s\n", version_string().c_str());
    return 0;
  }
  log::init(flags->verbosity, flags->logging_format == "json" ? log::Format::Json : log::Format::Text);
  for (const auto& w : flags->feature_gate_warnings) log::warning(w);
  // Before the configuration is defaulted: NodeDeclaredFeatures joins the default plugins.
  config::set_features(config::features_from_gates(flags->feature_gates));
  if (!flags->write_config_to.empty()) {
    auto cfg = effective_config(*flags);
    if (!cfg) {
      std::fprintf(stderr, "Error: %s\n", cfg.error().c_str());
      return 1;
    }
    std::ofstream out(flags->write_config_to);
    out << config::write_config(*cfg);
    if (!out) {
      std::fprintf(stderr, "Error: writing %s failed\n", flags->write_config_to.c_str());
      return 1;
    }
    log::info("Wrote configuration", {{"file", flags->write_config_to}});
    return 0;
  }
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // before any thread starts, so all inherit it
  auto opts = app_options_from_flags(*flags);
  if (!opts) {
    std::fprintf(stderr, "Error: %s\n", opts.error().c_str());
    return 1;
  }
  auto app = SchedulerApp::create(std::move(*opts));
  if (!app) {
    std::fprintf(stderr, "Error: %s\n", app.error().c_str());
    return 1;
  }
  // SIGINT/SIGTERM are blocked in every thread and taken by one watcher with sigwait, which turns
  // them into request_stop(); SIGUSR1 ends the watcher when the app stops by itself.
  SchedulerApp* a = app->get();
  std::thread watcher([a, set = signals] {
    int sig = 0;
    sigwait(&set, &sig);
    if (sig == SIGUSR1) return;
    log::info("Received signal, shutting down", {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}});
    a->request_stop();
  });
  auto started = a->start();
  int code = 1;
  if (!started) {
    std::fprintf(stderr, "Error: %s\n", started.error().c_str());
  } else {
    code = a->wait();
  }
  pthread_kill(watcher.native_handle(), SIGUSR1);
  watcher.join();
  return code;
}

}  // namespace ksched::scheduler::app
