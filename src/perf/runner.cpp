#include "perf/runner.h"

#include <algorithm>
#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fnmatch.h>
#include <fstream>
#include <random>
#include <sstream>
#include <mutex>
#include <set>
#include <thread>

#include "api/node.h"
#include "client/resources_dra.h"
#include "client/rest.h"
#include "etcd/local_etcd.h"
#include "localcluster/local_cluster.h"
#include "perf/pod_tracker.h"
#include "perf/procinfo.h"
#include "scheduler/app/app.h"
#include "scheduler/config/defaults.h"
#include "scheduler/config/features.h"
#include "scheduler/config/load.h"
#include "scheduler/dra/allocator.h"
#include "scheduler/scheduler.h"

namespace ksched::perf {
namespace json = boost::json;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Built-in templates used when a workload names none (the same shapes as upstream's defaults).
const char* kDefaultNode = R"({"apiVersion":"v1","kind":"Node","metadata":{"generateName":"scheduler-perf-"},
 "spec":{},"status":{"capacity":{"pods":"110","cpu":"4","memory":"32Gi"},
 "conditions":[{"type":"Ready","status":"True"}],"phase":"Running"}})";
const char* kDefaultPod = R"({"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"pod-"},
 "spec":{"containers":[{"name":"pause","image":"registry.k8s.io/pause:3.10","ports":[{"containerPort":80}],
 "resources":{"limits":{"cpu":"100m","memory":"500Mi"},"requests":{"cpu":"100m","memory":"500Mi"}}}]}})";

struct Failure {
  std::string message;
};

class Runner {
 public:
  Runner(const ResolvedWorkload& w, const RunOptions& o) : w_(w), o_(o) {}

  WorkloadResult run() {
    res_.name = w_.full_name();
    res_.params = w_.params;
    res_.scheduler = o_.scheduler;
    res_.threshold = w_.threshold;
    // Reset the peak-RSS mark so VmHWM covers this workload only (Linux >= 4.0).
    { std::ofstream("/proc/self/clear_refs") << "5"; }
    res_.rss_baseline_kb = status_kb("VmRSS");
    try {
      start_cluster();
      res_.rss_after_server_kb = status_kb("VmRSS");
      auto setup_start = Clock::now();
      run_ops(setup_start);
      res_.ok = true;
    } catch (const Failure& f) {
      res_.ok = false;
      res_.error = f.message;
    }
    stop_background();
    res_.rss_end_kb = status_kb("VmRSS");
    res_.peak_rss_kb = status_kb("VmHWM");
    if (o_.scheduler_pid > 0) res_.external_scheduler_peak_rss_kb = status_kb("VmHWM", o_.scheduler_pid);
    res_.rss_note = o_.scheduler == "in-process"
                        ? "one process holds the API server, the scheduler and the load generator: peakRssKiB is "
                          "its VmHWM for this workload (peak-RSS mark reset at the start). The server alone: "
                          "rssAfterServerStartKiB - rssBaselineKiB when idle; for its loaded size run the scheduler "
                          "externally (this process then holds only the server and the load generator)"
                        : (o_.kubeconfig.empty() ? "this process holds the API server and the load generator only; "
                                                   "the scheduler's RSS is externalSchedulerPeakRssKiB when --scheduler-pid is given"
                                                 : "the API server runs elsewhere; this process is the load generator only");
    if (tracker_) tracker_->stop();
    tracker_.reset();
    client_.reset();
    stop_scheduler();
    cluster_.reset();
    etcd_.reset();
    if (!temp_dir_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(temp_dir_, ec);
    }
    return res_;
  }

 private:
  // ------------------------------------------------------------------ cluster
  // Threads that appeared since `before` belong to `component` (the stack does not name all of its
  // threads, so the CPU breakdown attributes them by who started them).
  void attribute_new_threads(const std::vector<ThreadCpu>& before, const std::string& component) {
    std::set<int> old;
    for (const auto& t : before) old.insert(t.tid);
    for (const auto& t : thread_cpu_times())
      if (!old.count(t.tid) && !thread_component_.count(t.tid)) thread_component_[t.tid] = component;
  }

  void start_cluster() {
    client::RestConfig cfg;
    if (o_.kubeconfig.empty()) {
      localcluster::LocalClusterOptions lo;
      lo.nodes = 0;
      // The scheduler is started here rather than by LocalCluster so that the server's memory and
      // threads can be told apart from the scheduler's.
      lo.run_scheduler = false;
      lo.run_node_simulator = false;  // like scheduler_perf: no kubelet, bound pods stay as they are
      lo.controllers.clear();         // nor controllers
      // but DRA workloads have the ResourceClaim controller make each pod's claims from its
      // templates (and delete them with the pod), as upstream's scheduler_perf runs it.
      if (w_.uses_dra()) lo.controllers = {"resourceclaim-controller"};
      lo.scheduler_secure_port = -1;
      // The workload's gates are the cluster's, as scheduler_perf sets them process-wide (GenericWorkload
      // makes the server serve Workloads).
      lo.feature_gates = w_.feature_gates;
      // scheduler_perf's API server: upstream's integration harness disables these (its templates
      // set spec.priority without a PriorityClass, which the Priority plugin refuses).
      lo.disable_admission_plugins = {"ServiceAccount", "TaintNodesByCondition", "Priority",
                                      "StorageObjectInUseProtection"};
      lo.kubeconfig_out = o_.kubeconfig_out;
      lo.watch_history = 500000;
      if (o_.storage == "embedded" || o_.storage == "etcd") {
        // A fresh store per workload, removed afterwards.
        std::string tmpl = (o_.data_dir.empty() ? std::string("/tmp") : o_.data_dir) + "/ksched-bench-store.XXXXXX";
        if (!::mkdtemp(tmpl.data())) throw Failure{"cannot create a data directory like " + tmpl};
        temp_dir_ = tmpl;
        if (o_.storage == "embedded") lo.data_dir = temp_dir_;
      }
      if (o_.storage == "etcd") {
        auto e = etcd::LocalEtcd::start(temp_dir_ + "/etcd");
        if (!e) throw Failure{"starting etcd: " + e.error()};
        etcd_ = std::move(*e);
        lo.etcd_servers = {etcd_->url()};
      }
      res_.storage = o_.storage;
      auto before = thread_cpu_times();
      auto c = localcluster::LocalCluster::start(lo);
      if (!c) throw Failure{"starting the local cluster: " + c.error()};
      cluster_ = std::move(*c);
      attribute_new_threads(before, "server");
      res_.rss_after_server_kb = status_kb("VmRSS");
      cfg = cluster_->rest_config();
      if (o_.scheduler == "in-process") {
        // The scheduler binds as system:kube-scheduler, as upstream's does: what it costs the
        // server to authorize is part of what is measured.
        start_scheduler(cluster_->component_rest_config("kube-scheduler"));
      } else if (o_.on_note) {
        o_.on_note("embedded API server at " + cluster_->url() +
                   (o_.kubeconfig_out.empty() ? "" : " (kubeconfig: " + o_.kubeconfig_out + ")") +
                   "; waiting for an external scheduler to bind pods");
      }
    } else {
      auto c = client::load_kubeconfig({.explicit_path = o_.kubeconfig});
      if (!c) throw Failure{"loading " + o_.kubeconfig + ": " + c.error()};
      cfg = *c;
    }
    res_.rss_after_scheduler_kb = status_kb("VmRSS");
    // The bench must never be the bottleneck: no client-side throttling.
    cfg.qps = 100000;
    cfg.burst = 100000;
    cfg.user_agent = "ksched-bench";
    // The create workers' POSTs share connections (pipelined), as client-go's share one HTTP/2
    // connection: the load generator should cost the server what a real client does.
    cfg.pipeline_writes = true;
    auto before = thread_cpu_times();
    auto cl = client::RestClient::create(cfg);
    if (!cl) throw Failure{"creating the bench client: " + cl.error()};
    client_ = *cl;
    rest_cfg_ = cfg;
    tracker_ = std::make_unique<PodTracker>(client_);
    if (auto r = tracker_->start(); !r) throw Failure{r.error()};
    attribute_new_threads(before, "bench");
  }

  // The same in-process scheduler LocalCluster would start (defaults with raised client limits,
  // no leader election, no secure port).
  void start_scheduler(const client::RestConfig& rest) {
    scheduler::app::AppOptions ao;
    // The gates first: the default profile is built from them (GangScheduling and NodeDeclaredFeatures
    // join it, as upstream's applyFeatureGates), and they are process-wide (a previous run's must not stay).
    scheduler::config::set_features(scheduler::config::features_from_gates(w_.feature_gates));
    if (!o_.scheduler_config.empty()) {
      auto cfg = scheduler::config::load_config_file(o_.scheduler_config);
      if (!cfg) throw Failure{cfg.error()};
      ao.cfg = *cfg;
    } else {
      ao.cfg = scheduler::config::default_configuration();
      // Upstream's 50/100 client limits would cap binding at ~50 pods/s; scheduler_perf raises them too.
      ao.cfg.clientConnection.qps = 5000;
      ao.cfg.clientConnection.burst = 10000;
      // The embedded server stores JSON, so protobuf (kube-scheduler's default, right against
      // kube-apiserver) makes it transcode every pod version the scheduler watches: SchedulingBasic
      // 5000 nodes measured 8,675-8,985 pods/s with protobuf vs 9,985-10,666 with JSON in process.
      ao.cfg.clientConnection.contentType = "application/json";
    }
    ao.cfg.leaderElection.leaderElect = false;
    ao.feature_gates = w_.feature_gates;
    ao.rest = rest;
    ao.rest.user_agent.clear();
    ao.serve = false;
    auto before = thread_cpu_times();
    auto app = scheduler::app::SchedulerApp::create(std::move(ao));
    if (!app) throw Failure{"creating the scheduler: " + app.error()};
    own_app_ = std::move(*app);
    if (auto r = own_app_->start(); !r) throw Failure{"starting the scheduler: " + r.error()};
    app_ = own_app_.get();
    auto deadline = Clock::now() + std::chrono::seconds(60);
    while (!app_->ready() && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (!app_->ready()) throw Failure{"the in-process scheduler did not become ready within 60 s"};
    attribute_new_threads(before, "scheduler");
  }

  void stop_scheduler() {
    if (!own_app_) return;
    app_ = nullptr;
    own_app_->request_stop();
    own_app_->wait();
    own_app_.reset();
  }

  std::string metrics_text() {
    if (app_) return app_->metrics_text();
    if (o_.metrics_url.empty()) return {};
    // host = scheme://host:port of the URL; the rest is the path.
    auto scheme_end = o_.metrics_url.find("://");
    auto path_start = o_.metrics_url.find('/', scheme_end == std::string::npos ? 0 : scheme_end + 3);
    client::RestConfig mc;
    mc.host = o_.metrics_url.substr(0, path_start);
    mc.insecure = true;  // the scheduler's serving certificate is usually self-signed
    mc.bearer_token = o_.metrics_token.empty() ? rest_cfg_.bearer_token : o_.metrics_token;
    mc.cert_pem = rest_cfg_.cert_pem;
    mc.key_pem = rest_cfg_.key_pem;
    mc.qps = 1000;
    mc.burst = 1000;
    mc.timeout = std::chrono::seconds(10);
    auto t = client::Transport::create(mc);
    if (!t) return {};
    client::HttpRequest req;
    req.target = path_start == std::string::npos ? "/metrics" : o_.metrics_url.substr(path_start);
    req.accept = "text/plain";
    auto r = (*t)->round_trip(req);
    if (!r || r->status != 200) {
      if (o_.on_note && !metrics_warned_) o_.on_note("cannot read scheduler metrics from " + o_.metrics_url);
      metrics_warned_ = true;
      return {};
    }
    return r->body;
  }

  // ------------------------------------------------------------------ templates
  const json::object& template_of(const std::string& path, const char* builtin) {
    std::lock_guard<std::mutex> lk(tmpl_mu_);
    auto key = path.empty() ? std::string("builtin:") + builtin : path;
    auto it = templates_.find(key);
    if (it != templates_.end()) return it->second;
    json::value v;
    if (path.empty()) {
      v = json::parse(builtin);
    } else {
      auto r = load_yaml_file(path);
      if (!r) throw Failure{r.error()};
      v = std::move(*r);
    }
    if (!v.is_object()) throw Failure{path + ": a template must be one object"};
    return templates_.emplace(key, std::move(v.as_object())).first->second;
  }

  // A template file's text if it has {{ }} actions (rendered per object), else "" (parsed once by
  // template_of).
  std::string templated_text_of(const std::string& path) {
    std::lock_guard<std::mutex> lk(tmpl_mu_);
    auto it = template_texts_.find(path);
    if (it != template_texts_.end()) return it->second;
    std::ifstream in(path);
    if (!in) throw Failure{"cannot read " + path};
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    if (text.find("{{") == std::string::npos) text.clear();
    return template_texts_.emplace(path, std::move(text)).first->second;
  }

  static json::object& obj_at(json::object& o, std::string_view k) {
    auto& v = o[k];
    if (!v.is_object()) v = json::object();
    return v.as_object();
  }

  // ------------------------------------------------------------------ requests
  void create_raw(const client::ResourceRef& r, std::string body) {
    auto res = client_->create(r, std::move(body));
    if (!res && !client::is_already_exists(res.error()))
      throw Failure{"creating " + r.resource + (r.namespace_.empty() ? "" : " in " + r.namespace_) + ": " +
                    res.error().to_string()};
  }

  static constexpr long kPodsPerRequestBatch = 16;

  // Runs f(i) for i in [0,n) on create_workers threads; the first failure stops the rest.
  // With a phase, progress is reported while waiting; without one the caller reports (bindings).
  template <class F>
  void parallel(long n, const std::string& phase, F&& f) {
    parallel_impl(n, &phase, std::forward<F>(f));
  }
  template <class F>
  void parallel_quiet(long n, F&& f) {
    parallel_impl(n, nullptr, std::forward<F>(f));
  }
  template <class F>
  void parallel_impl(long n, const std::string* phase, F&& f) {
    std::atomic<long> next{0}, done{0};
    std::mutex err_mu;
    std::optional<Failure> err;
    int workers = static_cast<int>(std::min<long>(std::max(1, o_.create_workers), std::max<long>(1, n)));
    std::vector<std::thread> ts;
    for (int t = 0; t < workers; ++t)
      ts.emplace_back([&] {
        set_thread_name("bench-create");
        for (;;) {
          long i = next.fetch_add(1);
          if (i >= n) return;
          {
            std::lock_guard<std::mutex> lk(err_mu);
            if (err) return;
          }
          try {
            f(i);
          } catch (const Failure& e) {
            std::lock_guard<std::mutex> lk(err_mu);
            if (!err) err = e;
            return;
          }
          done.fetch_add(1);
        }
      });
    if (phase) {
      auto t0 = Clock::now();
      while (done.load() < n) {
        {
          std::lock_guard<std::mutex> lk(err_mu);
          if (err) break;
        }
        progress(*phase, done.load(), n, 0, seconds_since(t0));
        tracker_->wait_change(Clock::now() + std::chrono::milliseconds(200));
      }
    }
    for (auto& t : ts) t.join();
    if (err) throw *err;
  }

  void progress(const std::string& phase, long done, long total, double rate, double elapsed) {
    if (o_.on_progress) o_.on_progress(Progress{phase, done, total, rate, elapsed});
  }

  void ensure_namespace(const std::string& ns, const std::string& tmpl_path = {}) {
    {
      std::lock_guard<std::mutex> lk(ns_mu_);
      if (namespaces_.count(ns)) return;
    }
    json::object o;
    if (!tmpl_path.empty()) o = template_of(tmpl_path, "");
    o["apiVersion"] = "v1";
    o["kind"] = "Namespace";
    auto& meta = obj_at(o, "metadata");
    meta.erase("generateName");
    meta["name"] = ns;
    create_raw(client::ResourceRef{.resource = "namespaces"}, json::serialize(o));
    std::lock_guard<std::mutex> lk(ns_mu_);
    namespaces_.insert(ns);
  }

  // ------------------------------------------------------------------ ops
  void run_ops(Clock::time_point setup_start) {
    for (std::size_t i = 0; i < w_.ops.size(); ++i) {
      const Op& op = w_.ops[i];
      if (op.opcode == "createNodes") create_nodes(op);
      else if (op.opcode == "createNamespaces") create_namespaces(op);
      else if (op.opcode == "createPods" && op.steady_state) create_pods_steadily(op, op.namespace_.empty() ? "namespace-" + std::to_string(i) : op.namespace_, setup_start);
      else if (op.opcode == "createPods") create_pods(op, op.namespace_.empty() ? "namespace-" + std::to_string(i) : op.namespace_, setup_start);
      else if (op.opcode == "createResourceDriver") create_resource_driver(op);
      else if (op.opcode == "createAny") create_any(op);
      else if (op.opcode == "allocResourceClaims") alloc_resource_claims(op);
      else if (op.opcode == "createPodSets") {
        for (int k = 0; k < op.count; ++k) create_pods(op.create_pods_op.front(), op.namespace_prefix + "-" + std::to_string(k), setup_start);
      } else if (op.opcode == "churn") start_churn(op, "namespace-" + std::to_string(i));
      else if (op.opcode == "barrier") barrier(op);
      else if (op.opcode == "deletePods") delete_pods(op);
      else if (op.opcode == "sleep") std::this_thread::sleep_for(std::chrono::duration<double>(op.duration_seconds));
    }
  }

  void create_nodes(const Op& op) {
    // A template with {{ }} actions (upstream's topology-aware node template: name and labels from
    // .Index) is rendered per node, its name kept as rendered; otherwise it is parsed once.
    const std::string text = op.node_template_path.empty() ? std::string() : templated_text_of(op.node_template_path);
    const json::object* tmpl = text.empty() ? &template_of(op.node_template_path, kDefaultNode) : nullptr;
    long base = node_counter_;
    node_counter_ += op.count;
    parallel(op.count, "createNodes", [&](long i) {
      json::object n;
      if (tmpl) {
        n = *tmpl;
      } else {
        auto r = render_template(text, i, op.template_params, op.template_text_params);
        if (!r) throw Failure{op.node_template_path + ": " + r.error()};
        auto v = yaml_to_json(*r);
        if (!v) throw Failure{op.node_template_path + ": " + v.error()};
        if (!v->is_object()) throw Failure{op.node_template_path + ": a template must be one object"};
        n = std::move(v->as_object());
      }
      n["apiVersion"] = "v1";
      n["kind"] = "Node";
      auto& meta = obj_at(n, "metadata");
      std::string name;
      if (auto* nm = meta.if_contains("name"); nm && nm->is_string()) {
        name = std::string(nm->as_string());
        if (op.count > 1 && tmpl) name += "-" + std::to_string(i);
      } else {
        std::string gen = "scheduler-perf-";
        if (auto* g = meta.if_contains("generateName"); g && g->is_string()) gen = std::string(g->as_string());
        name = gen + std::to_string(base + i);
      }
      meta.erase("generateName");
      meta["name"] = name;
      auto& labels = obj_at(meta, "labels");
      // What a kubelet would set; topology keys in the templates rely on it.
      labels["kubernetes.io/hostname"] = name;
      if (!op.label_key.empty()) labels[op.label_key] = op.label_values[static_cast<std::size_t>(i) % op.label_values.size()];
      auto& status = obj_at(n, "status");
      auto& cap = obj_at(status, "capacity");
      for (const auto& [k, v] : op.node_allocatable) cap[k] = v;
      // The API server defaults allocatable to capacity; do it here too so any server behaves alike.
      if (!status.contains("allocatable")) status["allocatable"] = cap;
      else
        for (const auto& [k, v] : op.node_allocatable) obj_at(status, "allocatable")[k] = v;
      create_raw(client::ResourceRef{.resource = "nodes"}, json::serialize(n));
      if (!op.csi_node_allocatable.empty()) {
        json::array drivers;
        for (const auto& [driver, count] : op.csi_node_allocatable)
          drivers.push_back(json::object{{"name", driver}, {"nodeID", name}, {"allocatable", json::object{{"count", count}}}});
        json::object csi{{"apiVersion", "storage.k8s.io/v1"},
                         {"kind", "CSINode"},
                         {"metadata", json::object{{"name", name}}},
                         {"spec", json::object{{"drivers", std::move(drivers)}}}};
        create_raw(client::ResourceRef{.group = "storage.k8s.io", .resource = "csinodes"}, json::serialize(csi));
      }
    });
  }

  void create_namespaces(const Op& op) {
    for (int k = 0; k < op.count; ++k) ensure_namespace(op.prefix + "-" + std::to_string(k), op.namespace_template_path);
  }

  std::string pod_body(const json::object& tmpl, const std::string& ns, const std::string& name, const std::string& claim) {
    json::object p = tmpl;
    p["apiVersion"] = "v1";
    p["kind"] = "Pod";
    auto& meta = obj_at(p, "metadata");
    meta.erase("generateName");
    meta["name"] = name;
    meta["namespace"] = ns;
    if (!claim.empty()) {
      auto& spec = obj_at(p, "spec");
      auto& vols = spec["volumes"];
      if (!vols.is_array()) vols = json::array();
      vols.as_array().push_back(json::object{{"name", "vol"}, {"persistentVolumeClaim", json::object{{"claimName", claim}}}});
    }
    return json::serialize(p);
  }

  // PV + PVC pre-bound to each other (as scheduler_perf does), so VolumeBinding sees bound claims.
  void create_volume_pair(const Op& op, const std::string& ns, const std::string& pod, std::string& claim) {
    std::string pv_name = "pv-" + ns + "-" + pod;
    claim = "pvc-" + pod;
    json::object pv = template_of(op.pv_template_path, "");
    pv["apiVersion"] = "v1";
    pv["kind"] = "PersistentVolume";
    auto& pm = obj_at(pv, "metadata");
    pm.erase("generateName");
    pm["name"] = pv_name;
    auto& pspec = obj_at(pv, "spec");
    pspec["claimRef"] = json::object{{"namespace", ns}, {"name", claim}};
    // CSI volume handles must be unique per volume.
    if (auto* csi = pspec.if_contains("csi"); csi && csi->is_object()) csi->as_object()["volumeHandle"] = pv_name;
    pv["status"] = json::object{{"phase", "Bound"}};
    create_raw(client::ResourceRef{.resource = "persistentvolumes"}, json::serialize(pv));
    json::object pvc = template_of(op.pvc_template_path, "");
    pvc["apiVersion"] = "v1";
    pvc["kind"] = "PersistentVolumeClaim";
    auto& cm = obj_at(pvc, "metadata");
    cm.erase("generateName");
    cm["name"] = claim;
    cm["namespace"] = ns;
    // What the PV controller writes once it has bound the pair; VolumeBinding treats the claim as
    // fully bound only with it.
    obj_at(cm, "annotations")["pv.kubernetes.io/bind-completed"] = "yes";
    obj_at(pvc, "spec")["volumeName"] = pv_name;
    json::object cstatus{{"phase", "Bound"}};
    if (auto* st = pspec.if_contains("capacity")) cstatus["capacity"] = *st;
    if (auto* am = pspec.if_contains("accessModes")) cstatus["accessModes"] = *am;
    pvc["status"] = std::move(cstatus);
    create_raw(client::ResourceRef{.resource = "persistentvolumeclaims", .namespace_ = ns}, json::serialize(pvc));
  }

  // Why one unbound pod of `ns` is pending, from its PodScheduled condition (for failure messages).
  std::string unbound_pod_reason(const std::string& ns) {
    auto body = client_->list(client::ResourceRef{.resource = "pods", .namespace_ = ns}, {});
    if (!body) return {};
    boost::system::error_code ec;
    auto v = json::parse(*body, ec);
    if (ec || !v.is_object()) return {};
    auto* items = v.as_object().if_contains("items");
    if (!items || !items->is_array()) return {};
    std::size_t bound = 0;
    std::string first;
    for (const auto& item : items->as_array()) {
      const auto& o = item.as_object();
      auto* spec = o.if_contains("spec");
      if (spec && spec->is_object() && spec->as_object().contains("nodeName")) {
        ++bound;
        continue;
      }
      if (!first.empty()) continue;
      std::string name = json::value_to<std::string>(o.at("metadata").at("name"));
      auto* status = o.if_contains("status");
      if (status && status->is_object())
        if (auto* conds = status->as_object().if_contains("conditions"); conds && conds->is_array())
          for (const auto& c : conds->as_array())
            if (c.is_object() && c.as_object().contains("type") && c.at("type") == "PodScheduled") {
              std::string reason = c.as_object().contains("reason") ? json::value_to<std::string>(c.at("reason")) : "";
              std::string msg = c.as_object().contains("message") ? json::value_to<std::string>(c.at("message")) : "";
              first = "pod " + ns + "/" + name + ": " + reason + ": " + msg;
            }
      if (first.empty()) first = "pod " + ns + "/" + name + " has no PodScheduled condition (never attempted)";
    }
    // Tells a scheduler that stopped apart from a pod watch that missed bindings.
    return "the API server lists " + std::to_string(bound) + " of " + std::to_string(items->as_array().size()) +
           " pods of " + ns + " as bound" + (first.empty() ? "" : "; " + first);
  }

  void create_pods(const Op& op, const std::string& ns, Clock::time_point setup_start) {
    ensure_namespace(ns);
    std::vector<const json::object*> tmpls;
    // Per template: its text when it has {{ }} actions (rendered per pod, then parsed), else empty.
    std::vector<std::string> texts;
    auto add_template = [&](const std::string& path) {
      texts.push_back(path.empty() ? std::string() : templated_text_of(path));
      tmpls.push_back(texts.back().empty() ? &template_of(path, kDefaultPod) : nullptr);
    };
    if (op.pod_template_paths.empty()) {
      add_template(op.pod_template_path.empty() ? w_.default_pod_template_path : op.pod_template_path);
    } else {
      for (const auto& p : op.pod_template_paths) add_template(p);
    }
    long before_bound = tracker_->counts(ns).ever_bound;
    long expected_total = (created_in_ns_[ns] += op.count);
    std::vector<std::string> before_snapshot;
    Clock::time_point t0;
    MeasureStart before;
    if (op.collect_metrics) before = start_measuring(setup_start);
    t0 = Clock::now();
    std::string prefix = ns + "-pod-";
    long base = pod_counter_[ns];
    pod_counter_[ns] += op.count;
    // A gang workload's measured pods: pod i is a member of gang i / podsPerGroup (its template's
    // {{DivideInt .Index .podsPerGroup}}); each gang's placement is reported.
    const auto per_group = op.template_params.find("podsPerGroup");
    const int gang_size = op.collect_metrics && per_group != op.template_params.end() ? per_group->second : 0;
    if (gang_size > 0) tracker_->log_bindings(ns);
    // Creation runs in the background so that sampling starts with the first pod, like upstream.
    std::atomic<bool> create_done{false};
    std::optional<Failure> create_err;
    std::thread creator([&] {
      try {
        // Each worker creates its pods kPodsPerRequestBatch at a time, pipelined on one
        // connection: a client with many pods to create sends them together, and the load
        // generator spends its CPU on requests rather than on waking threads for each answer.
        const long batches = (op.count + kPodsPerRequestBatch - 1) / kPodsPerRequestBatch;
        const client::ResourceRef pods{.resource = "pods", .namespace_ = ns};
        parallel_quiet(batches, [&](long b) {
          std::vector<std::string> bodies;
          // A rendered template is parsed once for the pods that render it alike (a gang's members).
          std::string last_text;
          json::object last_parsed;
          for (long i = b * kPodsPerRequestBatch; i < std::min<long>(op.count, (b + 1) * kPodsPerRequestBatch); ++i) {
            std::string name = prefix + std::to_string(base + i);
            std::string claim;
            if (!op.pv_template_path.empty()) create_volume_pair(op, ns, name, claim);
            const std::size_t t = static_cast<std::size_t>(base + i) % tmpls.size();
            if (tmpls[t] != nullptr) {
              bodies.push_back(pod_body(*tmpls[t], ns, name, claim));
              continue;
            }
            // {{.Index}} is the pod's index within this operation, as scheduler_perf's.
            auto text = render_template(texts[t], i, op.template_params, op.template_text_params);
            if (!text) throw Failure{"pod template: " + text.error()};
            if (*text != last_text) {
              auto v = yaml_to_json(*text);
              if (!v || !v->is_object()) throw Failure{"pod template: " + (v ? std::string("not one object") : v.error())};
              last_parsed = std::move(v->as_object());
              last_text = std::move(*text);
            }
            bodies.push_back(pod_body(last_parsed, ns, name, claim));
          }
          for (auto& res : client_->create_all(pods, std::move(bodies)))
            if (!res && !client::is_already_exists(res.error()))
              throw Failure{"creating pods in " + ns + ": " + res.error().to_string()};
        });
      } catch (const Failure& f) {
        create_err = f;
      }
      create_done = true;
    });
    struct Join {
      std::thread& t;
      ~Join() {
        if (t.joinable()) t.join();
      }
    } join{creator};

    const std::string phase = (op.collect_metrics ? "measure " : "createPods ") + ns;
    if (op.skip_wait_to_completion && !op.collect_metrics) {
      while (!create_done) tracker_->wait_change(Clock::now() + std::chrono::milliseconds(100));
      creator.join();
      if (create_err) throw *create_err;
      return;
    }
    ThroughputSampler sampler;
    auto next_tick = t0 + std::chrono::seconds(1);
    long last_progress = -1;
    auto last_progress_at = Clock::now();
    double rate = 0;
    long target = expected_total - (op.collect_metrics ? 0 : 0);
    for (;;) {
      auto c = tracker_->counts(ns);
      long bound_now = c.ever_bound - before_bound;
      if (c.ever_bound >= target && create_done) break;
      if (create_done && create_err) throw *create_err;
      auto now = Clock::now();
      if (now >= next_tick) {
        double t = std::chrono::duration<double>(now - t0).count();
        if (op.collect_metrics) {
          std::size_t n = sampler.samples().size();
          sampler.add_reading(t, bound_now);
          if (sampler.samples().size() > n) rate = sampler.samples().back();
        }
        next_tick += std::chrono::seconds(1);
        if (next_tick < now) next_tick = now + std::chrono::seconds(1);
      }
      if (c.ever_bound != last_progress) {
        last_progress = c.ever_bound;
        last_progress_at = now;
      } else if (std::chrono::duration<double>(now - last_progress_at).count() > o_.stall_seconds) {
        std::string why = tracker_->watch_error();
        std::string sample = unbound_pod_reason(ns);
        throw Failure{"lost pods: " + std::to_string(target - c.ever_bound) + " of " + std::to_string(op.count) +
                      " pods in namespace " + ns + " were never bound (no binding for " +
                      std::to_string(static_cast<int>(o_.stall_seconds)) + " s" +
                      (o_.scheduler == "external" ? "; is a scheduler watching this API server?" : "") +
                      (why.empty() ? "" : "; pod watch: " + why) + ")" + (sample.empty() ? "" : "; e.g. " + sample)};
      }
      progress(phase, bound_now, op.count, rate, std::chrono::duration<double>(now - t0).count());
      tracker_->wait_change(std::min(next_tick, now + std::chrono::milliseconds(200)));
    }
    creator.join();
    if (create_err) throw *create_err;
    auto c = tracker_->counts(ns);
    progress(phase, c.ever_bound - before_bound, op.count, rate, seconds_since(t0));
    if (!op.collect_metrics) return;

    // ---- measured phase summary
    double end_t = std::chrono::duration<double>(c.last_bound - t0).count();
    if (end_t <= 0) end_t = seconds_since(t0);
    sampler.finish(end_t, c.ever_bound - before_bound);
    res_.measured_pods = op.count;
    res_.measured_bound = c.ever_bound - before_bound;
    res_.measured_seconds = end_t;
    summarize_measure(ns, sampler, before);
    if (gang_size > 0) summarize_gangs(ns, prefix, base, op.count, gang_size, t0);
  }

  // Each gang's first and last member binding, from the tracker's log of the namespace.
  void summarize_gangs(const std::string& ns, const std::string& prefix, long base, long count, int gang_size,
                       Clock::time_point t0) {
    const long n = (count + gang_size - 1) / gang_size;
    std::vector<GangPlacement> gangs(static_cast<std::size_t>(n));
    for (long g = 0; g < n; ++g) gangs[static_cast<std::size_t>(g)].gang = g;
    for (const auto& [name, at] : tracker_->bindings(ns)) {
      if (!name.starts_with(prefix)) continue;
      const long i = std::strtol(name.c_str() + prefix.size(), nullptr, 10) - base;
      if (i < 0 || i >= count) continue;
      auto& g = gangs[static_cast<std::size_t>(i / gang_size)];
      const double t = std::chrono::duration<double>(at - t0).count();
      if (g.members_bound == 0 || t < g.first_bound) g.first_bound = t;
      if (g.members_bound == 0 || t > g.last_bound) g.last_bound = t;
      ++g.members_bound;
    }
    for (const auto& [name, at] : tracker_->arrivals(ns)) {
      if (!name.starts_with(prefix)) continue;
      const long i = std::strtol(name.c_str() + prefix.size(), nullptr, 10) - base;
      if (i < 0 || i >= count) continue;
      auto& g = gangs[static_cast<std::size_t>(i / gang_size)];
      g.last_seen = std::max(g.last_seen, std::chrono::duration<double>(at - t0).count());
    }
    std::vector<double> spans, placements;
    double max_span = 0, max_placement = 0;
    for (const auto& g : gangs) {
      if (g.members_bound == 0) continue;
      spans.push_back(g.last_bound - g.first_bound);
      max_span = std::max(max_span, spans.back());
      placements.push_back(g.last_bound - g.last_seen);
      max_placement = std::max(max_placement, placements.back());
    }
    res_.gang_span = summarize_throughput(spans);  // scheduler_perf's percentile rule, any samples
    res_.gang_span_max = max_span;
    res_.gang_placement = summarize_throughput(placements);
    res_.gang_placement_max = max_placement;
    res_.gangs = std::move(gangs);
  }

  // The measured phase's figures, once its pods are counted (res_.measured_*) and sampled: CPU by
  // stage and thread, the scheduler's metrics, events.
  // What the measured phase's figures are taken against (the one createPods that collects them).
  struct MeasureStart {
    std::string metrics;
    std::vector<ThreadCpu> cpu;
    double proc = 0, etcd = 0;
  };

  MeasureStart start_measuring(Clock::time_point setup_start) {
    if (measured_) throw Failure{"only one createPods operation per workload may collect metrics"};
    measured_ = true;
    res_.setup_seconds = seconds_since(setup_start);
    MeasureStart m;
    m.metrics = metrics_text();
    m.cpu = thread_cpu_times();
    m.proc = process_cpu_seconds();
    if (etcd_) m.etcd = etcd_->cpu_seconds();
    return m;
  }

  void summarize_measure(const std::string& ns, const ThroughputSampler& sampler, const MeasureStart& before) {
    const std::vector<ThreadCpu>& cpu_before = before.cpu;
    const double proc_before = before.proc, etcd_before = before.etcd;
    const std::string& metrics_before = before.metrics;
    res_.throughput = summarize_throughput(sampler.samples());
    res_.series = sampler.series();
    auto cpu_after = thread_cpu_times();
    res_.process_cpu_seconds = process_cpu_seconds() - proc_before;
    if (etcd_) res_.etcd_cpu_seconds = etcd_->cpu_seconds() - etcd_before;
    res_.thread_cpu_seconds = cpu_by_thread_name(cpu_before, cpu_after);
    std::map<std::string, double> stages;
    double accounted = 0;
    {
      std::map<int, double> base;
      for (const auto& t : cpu_before) base[t.tid] = t.seconds;
      for (const auto& t : cpu_after) {
        auto b = base.find(t.tid);
        double d = t.seconds - (b == base.end() ? 0 : b->second);
        if (d <= 0) continue;
        accounted += d;
        auto comp = thread_component_.find(t.tid);
        res_.top_threads.push_back(StageCpu{(comp == thread_component_.end() ? std::string("new") : comp->second) + "/" +
                                                t.name + "#" + std::to_string(t.tid),
                                            d});
        std::string stage = stage_of_thread(t.name);
        // Unnamed threads: attribute by the component that started them.
        if (stage.rfind("other", 0) == 0 && comp != thread_component_.end()) stage = comp->second + " (unnamed threads)";
        else if (stage.rfind("other", 0) == 0) stage = "threads born during the run (unnamed)";
        stages[stage] += d;
      }
    }
    // Threads that ended before the second snapshot (the bench's create workers) are only in the
    // process total.
    double exited = res_.process_cpu_seconds - accounted;
    if (exited > 0.005) stages["exited threads (bench create workers)"] += exited;
    for (const auto& [st, sec] : stages) res_.stage_cpu.push_back(StageCpu{st, sec});
    std::sort(res_.top_threads.begin(), res_.top_threads.end(), [](const auto& a, const auto& b) { return a.seconds > b.seconds; });
    if (res_.top_threads.size() > 12) res_.top_threads.resize(12);
    std::sort(res_.stage_cpu.begin(), res_.stage_cpu.end(), [](const auto& a, const auto& b) { return a.seconds > b.seconds; });
    // The bench sees a pod bound once the server stores its binding; the scheduler counts the
    // attempt when the bind request has returned. Wait for the binding cycles still in flight so
    // that the metrics cover every measured pod.
    if (app_)
      if (auto* s = app_->scheduler()) s->wait_for_bindings(std::chrono::seconds(30));
    std::string metrics_after = metrics_text();
    if (!metrics_after.empty()) {
      auto h = parse_histogram(metrics_after, "scheduler_scheduling_attempt_duration_seconds", {{"result", "scheduled"}})
                   .minus(parse_histogram(metrics_before, "scheduler_scheduling_attempt_duration_seconds",
                                          {{"result", "scheduled"}}));
      if (!h.empty()) {
        res_.attempt_latency.available = true;
        res_.attempt_latency.count = h.count;
        res_.attempt_latency.average = h.sum / h.count;
        res_.attempt_latency.perc50 = h.quantile(0.50);
        res_.attempt_latency.perc90 = h.quantile(0.90);
        res_.attempt_latency.perc95 = h.quantile(0.95);
        res_.attempt_latency.perc99 = h.quantile(0.99);
      }
      auto ext_after = histogram_sums_by(metrics_after, "scheduler_framework_extension_point_duration_seconds", "extension_point");
      auto ext_before = histogram_sums_by(metrics_before, "scheduler_framework_extension_point_duration_seconds", "extension_point");
      for (const auto& [k, v] : ext_after) res_.extension_point_seconds[k] = v - ext_before[k];
      auto batched_after = counter_sums_by(metrics_after, "scheduler_batch_attempts_total", "result");
      auto batched_before = counter_sums_by(metrics_before, "scheduler_batch_attempts_total", "result");
      res_.batched_pods = static_cast<long>(batched_after["hint_used"] - batched_before["hint_used"]);
    }
    // After the CPU figures: the scheduler writes events in the background and drops them when
    // its queue is full, so say how many of the measured pods' events the server had by the end.
    res_.events_written = count_events(ns);
  }

  long count_events(const std::string& ns) {
    auto body = client_->list(client::ResourceRef{.group = "events.k8s.io", .resource = "events", .namespace_ = ns}, {});
    if (!body) return -1;
    boost::system::error_code ec;
    auto v = json::parse(*body, ec);
    if (ec || !v.is_object()) return -1;
    auto* items = v.as_object().if_contains("items");
    return items && items->is_array() ? static_cast<long>(items->as_array().size()) : -1;
  }

  // ------------------------------------------------------------------ steady state
  // upstream's steadyState createPods: `count` pods; once all of them are scheduled they are
  // deleted (grace period 0, claims left to the ResourceClaim controller) and the next `count` are
  // created, for `duration`. The rate is scheduled pods per second over the duration.
  void create_pods_steadily(const Op& op, const std::string& ns, Clock::time_point setup_start) {
    ensure_namespace(ns);
    const json::object& tmpl =
        template_of(op.pod_template_path.empty() ? w_.default_pod_template_path : op.pod_template_path, kDefaultPod);
    MeasureStart before;
    if (op.collect_metrics) before = start_measuring(setup_start);
    const client::ResourceRef pods{.resource = "pods", .namespace_ = ns};
    const std::string prefix = ns + "-pod-";
    auto create_batch = [&] {
      std::vector<std::string> bodies;
      const long base = pod_counter_[ns];
      pod_counter_[ns] += op.count;
      for (long i = 0; i < op.count; ++i) bodies.push_back(pod_body(tmpl, ns, prefix + std::to_string(base + i), ""));
      for (auto& res : client_->create_all(pods, std::move(bodies)))
        if (!res && !client::is_already_exists(res.error()))
          throw Failure{"creating pods in " + ns + ": " + res.error().to_string()};
    };
    const long before_bound = tracker_->counts(ns).ever_bound;
    const auto t0 = Clock::now();
    const auto end = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(op.duration_seconds));
    create_batch();
    long batches_done = 0;
    ThroughputSampler sampler;
    auto next_tick = t0 + std::chrono::seconds(1);
    double rate = 0;
    const std::string phase = (op.collect_metrics ? "measure " : "steadyState ") + ns;
    long scheduled = 0;
    for (;;) {
      const auto now = Clock::now();
      scheduled = tracker_->counts(ns).ever_bound - before_bound;
      if (now >= end) break;
      if (scheduled >= (batches_done + 1) * op.count) {
        // The whole batch is scheduled: start over with a new one.
        ++batches_done;
        client::DeleteOptions d;
        d.gracePeriodSeconds = 0;
        d.propagationPolicy = "Background";
        if (auto r = client_->delete_collection(pods, {}, d); !r)
          throw Failure{"deleting the scheduled pods of " + ns + ": " + r.error().to_string()};
        create_batch();
        continue;
      }
      if (now >= next_tick) {
        const double t = std::chrono::duration<double>(now - t0).count();
        std::size_t n = sampler.samples().size();
        sampler.add_reading(t, scheduled);
        if (sampler.samples().size() > n) rate = sampler.samples().back();
        next_tick += std::chrono::seconds(1);
        if (next_tick < now) next_tick = now + std::chrono::seconds(1);
      }
      progress(phase, scheduled, scheduled + op.count, rate, std::chrono::duration<double>(now - t0).count());
      tracker_->wait_change(std::min({next_tick, end, now + std::chrono::milliseconds(200)}));
    }
    // As upstream: a steady state in which nothing got scheduled is a failure, not a rate of 0.
    if (scheduled == 0)
      throw Failure{"no pod at all got scheduled in " + ns + " within " + std::to_string(op.duration_seconds) +
                    " s; " + unbound_pod_reason(ns)};
    if (!op.collect_metrics) return;
    sampler.finish(op.duration_seconds, scheduled);
    res_.measured_pods = scheduled;
    res_.measured_bound = scheduled;
    res_.measured_seconds = op.duration_seconds;
    summarize_measure(ns, sampler, before);
  }

  // ------------------------------------------------------------------ DRA
  // upstream's createResourceDriver: for each node whose name matches the glob, one ResourceSlice
  // of the driver (its own pool, named after the node) with maxClaimsPerNode devices
  // "instance-<i>" carrying the attributes and capacity upstream's harness gives them.
  void create_resource_driver(const Op& op) {
    auto body = client_->list(client::ResourceRef{.resource = "nodes"}, {});
    if (!body) throw Failure{"listing nodes: " + body.error().to_string()};
    boost::system::error_code ec;
    auto v = json::parse(*body, ec);
    if (ec || !v.is_object() || !v.as_object().contains("items")) throw Failure{"listing nodes: not a list"};
    std::vector<std::string> names;
    for (const auto& item : v.at("items").as_array()) {
      std::string name = json::value_to<std::string>(item.at("metadata").at("name"));
      if (::fnmatch(op.nodes.c_str(), name.c_str(), 0) == 0) names.push_back(std::move(name));
    }
    const client::ResourceRef slices{.group = "resource.k8s.io", .resource = "resourceslices"};
    parallel(static_cast<long>(names.size()), "createResourceDriver", [&](long i) {
      const std::string& node = names[static_cast<std::size_t>(i)];
      json::array devices;
      for (int d = 0; d < op.max_claims_per_node; ++d) {
        devices.push_back(json::object{
            {"name", "instance-" + std::to_string(d)},
            {"attributes", json::object{{"model", json::object{{"string", "A100"}}},
                                        {"family", json::object{{"string", "GPU"}}},
                                        {"driverVersion", json::object{{"version", "1.2.3"}}},
                                        {"dra.example.com/numa", json::object{{"int", d}}}}},
            {"capacity", json::object{{"memory", json::object{{"value", "1Gi"}}}}}});
      }
      json::object slice{{"apiVersion", "resource.k8s.io/v1"},
                         {"kind", "ResourceSlice"},
                         {"metadata", json::object{{"name", node}}},
                         {"spec", json::object{{"driver", op.driver_name},
                                               {"nodeName", node},
                                               {"pool", json::object{{"name", node}, {"generation", 0}, {"resourceSliceCount", 1}}},
                                               {"devices", std::move(devices)}}}};
      create_raw(slices, json::serialize(slice));
    });
    if (o_.on_note)
      o_.on_note("createResourceDriver " + op.driver_name + ": " + std::to_string(names.size()) + " ResourceSlices of " +
                 std::to_string(op.max_claims_per_node) + " devices");
  }

  // upstream's createAny: `count` objects of any kind from a template, in the op's namespace when
  // the kind is namespaced.
  void create_any(const Op& op) {
    std::ifstream in(op.template_path);
    if (!in) throw Failure{"cannot read " + op.template_path};
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    const bool numbered = text.find("{{") != std::string::npos;
    auto object = [&](long i) {
      std::string rendered = text;
      if (numbered) {
        auto r = render_template(text, i, op.template_params, op.template_text_params);
        if (!r) throw Failure{op.template_path + ": " + r.error()};
        rendered = std::move(*r);
      }
      auto v = yaml_to_json(rendered);
      if (!v) throw Failure{op.template_path + ": " + v.error()};
      if (!v->is_object()) throw Failure{op.template_path + ": a template must be one object"};
      return std::move(v->as_object());
    };
    const json::object first = object(0);
    const std::string api_version = first.contains("apiVersion") ? json::value_to<std::string>(first.at("apiVersion")) : "v1";
    const std::string kind = first.contains("kind") ? json::value_to<std::string>(first.at("kind")) : "";
    if (kind.empty()) throw Failure{op.template_path + ": the template has no kind"};
    client::ResourceRef r;
    if (auto slash = api_version.find('/'); slash != std::string::npos) {
      r.group = api_version.substr(0, slash);
      r.version = api_version.substr(slash + 1);
    } else {
      r.version = api_version;
    }
    r.resource = kind;
    std::transform(r.resource.begin(), r.resource.end(), r.resource.begin(), [](unsigned char c) { return std::tolower(c); });
    r.resource += r.resource.ends_with("s") ? "es" : "s";
    // The kinds DRA workloads create; a namespace given for a cluster-scoped kind is ignored.
    static const std::set<std::string> cluster_scoped{"deviceclasses", "resourceslices",
                                                      "devicetaintrules", "nodes", "namespaces", "priorityclasses",
                                                      "storageclasses", "persistentvolumes"};
    const bool namespaced = !cluster_scoped.count(r.resource);
    if (namespaced) {
      r.namespace_ = op.namespace_.empty() ? "default" : op.namespace_;
      ensure_namespace(r.namespace_);
    }
    parallel(op.count, "createAny " + kind, [&](long i) {
      json::object o = i == 0 ? first : object(i);
      if (namespaced) obj_at(o, "metadata")["namespace"] = r.namespace_;
      create_raw(r, json::serialize(o));
    });
  }

  // upstream's allocResourceClaims: every claim of the namespace not allocated yet is allocated by
  // the structured allocator on a random node that can take it (what the scheduler would have
  // done for a pod), written to the claim's status without reserving it.
  void alloc_resource_claims(const Op& op) {
    namespace resourceapi = api::resourcev1;
    namespace dra = scheduler::dra;
    auto claims = client_->list<resourceapi::ResourceClaim>(op.namespace_);
    if (!claims) throw Failure{"listing ResourceClaims: " + claims.error().to_string()};
    auto all_claims = client_->list<resourceapi::ResourceClaim>("");
    if (!all_claims) throw Failure{"listing ResourceClaims: " + all_claims.error().to_string()};
    auto slice_list = client_->list<resourceapi::ResourceSlice>("");
    if (!slice_list) throw Failure{"listing ResourceSlices: " + slice_list.error().to_string()};
    auto class_list = client_->list<resourceapi::DeviceClass>("");
    if (!class_list) throw Failure{"listing DeviceClasses: " + class_list.error().to_string()};
    auto node_list = client_->list<api::Node>("");
    if (!node_list) throw Failure{"listing nodes: " + node_list.error().to_string()};

    dra::DeviceIdSet allocated;
    auto hold = [&](const resourceapi::ResourceClaim& c) {
      if (!c.status.allocation) return;
      for (const auto& d : c.status.allocation->devices.results)
        allocated.insert(dra::DeviceId{std::string(std::string_view(d.driver)), std::string(std::string_view(d.pool)),
                                       std::string(std::string_view(d.device))});
    };
    for (const auto& c : all_claims->items) hold(c);
    // Per node: its slices and the node-less ones, as the scheduler's plugin hands them over.
    std::vector<std::shared_ptr<const resourceapi::ResourceSlice>> node_less;
    std::map<std::string, std::vector<std::shared_ptr<const resourceapi::ResourceSlice>>, std::less<>> by_node;
    for (auto& s : slice_list->items) {
      auto sp = std::make_shared<const resourceapi::ResourceSlice>(std::move(s));
      if (sp->spec.nodeName) by_node[*sp->spec.nodeName].push_back(sp);
      else node_less.push_back(sp);
    }
    for (auto& [_, v] : by_node) v.insert(v.end(), node_less.begin(), node_less.end());
    std::map<std::string, std::shared_ptr<const resourceapi::DeviceClass>, std::less<>> classes;
    for (auto& c : class_list->items) {
      const std::string name(c.metadata.name);
      classes[name] = std::make_shared<const resourceapi::DeviceClass>(std::move(c));
    }
    const dra::DeviceClassLookup lookup = [&](std::string_view name) -> std::shared_ptr<const resourceapi::DeviceClass> {
      auto it = classes.find(name);
      return it == classes.end() ? nullptr : it->second;
    };
    auto gate = [&](const char* name, bool def) {
      auto it = w_.feature_gates.find(name);
      return it == w_.feature_gates.end() ? def : it->second;
    };
    dra::Features features;
    features.adminAccess = gate("DRAAdminAccess", true);
    features.prioritizedList = gate("DRAPrioritizedList", true);
    features.partitionableDevices = gate("DRAPartitionableDevices", false);
    features.deviceTaints = gate("DRADeviceTaints", false);
    cel::Cache cel_cache(64);
    dra::SelectorCache results;
    std::vector<const api::Node*> nodes;
    for (const auto& n : node_list->items) nodes.push_back(&n);
    std::mt19937 rng(20261206);  // reproducible placements
    const std::vector<std::shared_ptr<const resourceapi::ResourceSlice>> none;
    long done = 0;
    const long total = static_cast<long>(claims->items.size());
    for (auto& claim : claims->items) {
      if (claim.status.allocation) continue;
      std::shuffle(nodes.begin(), nodes.end(), rng);
      bool placed = false;
      for (const api::Node* node : nodes) {
        auto it = by_node.find(std::string_view(node->metadata.name));
        const auto& slices = it == by_node.end() ? node_less : it->second;
        if (slices.empty()) continue;
        dra::Allocator a(features, &allocated, &lookup, slices, cel_cache, &results);
        const resourceapi::ResourceClaim* one[] = {&claim};
        auto r = a.allocate(*node, one);
        if (!r) throw Failure{"allocating claim " + std::string(claim.metadata.name) + ": " + r.error().message};
        if (!r->found()) continue;
        claim.status.allocation = std::move(r->results[0]);
        auto updated = client_->update_status(claim);
        if (!updated) throw Failure{"writing the allocation of claim " + std::string(claim.metadata.name) + ": " + updated.error().to_string()};
        hold(claim);
        placed = true;
        break;
      }
      if (!placed)
        throw Failure{"could not allocate claim " + std::to_string(done) + " out of " + std::to_string(total) + " (" +
                      std::string(claim.metadata.name) + ")"};
      ++done;
      if (done % 100 == 0) progress("allocResourceClaims", done, total, 0, 0);
    }
    if (o_.on_note) o_.on_note("allocResourceClaims: allocated " + std::to_string(done) + " ResourceClaims in " + op.namespace_);
  }

  // ------------------------------------------------------------------ background ops
  void start_churn(const Op& op, const std::string& ns) {
    ensure_namespace(ns);
    std::vector<json::object> tmpls;
    for (const auto& p : op.template_paths) tmpls.push_back(template_of(p, ""));
    background_.emplace_back([this, op, ns, tmpls] {
      set_thread_name("bench-churn");
      // recreate: keep `number` live objects per template, deleting the oldest and creating a new one
      // each interval; create: add one object per template each interval.
      std::vector<std::vector<std::pair<client::ResourceRef, std::string>>> live(tmpls.size());
      long serial = 0;
      auto next = Clock::now();
      while (!stop_bg_) {
        for (std::size_t t = 0; t < tmpls.size() && !stop_bg_; ++t) {
          json::object o = tmpls[t];
          std::string kind = o.contains("kind") && o["kind"].is_string() ? std::string(o["kind"].as_string()) : "Pod";
          std::string plural = kind;
          std::transform(plural.begin(), plural.end(), plural.begin(), [](unsigned char c) { return std::tolower(c); });
          plural += "s";
          bool cluster_scoped = kind == "Node";
          client::ResourceRef r{.resource = plural, .namespace_ = cluster_scoped ? "" : ns};
          if (op.mode == "recreate" && static_cast<int>(live[t].size()) >= op.number) {
            auto victim = live[t].front();
            live[t].erase(live[t].begin());
            client::ResourceRef d = victim.first;
            d.name = victim.second;
            (void)client_->remove(d);
          }
          auto& meta = obj_at(o, "metadata");
          std::string gen = "churn-";
          if (auto* g = meta.if_contains("generateName"); g && g->is_string()) gen = std::string(g->as_string());
          meta.erase("generateName");
          std::string name = gen + std::to_string(serial++);
          meta["name"] = name;
          if (cluster_scoped) obj_at(meta, "labels")["kubernetes.io/hostname"] = name;
          else meta["namespace"] = ns;
          if (client_->create(r, json::serialize(o))) live[t].emplace_back(r, name);
        }
        next += std::chrono::milliseconds(op.interval_ms);
        std::unique_lock<std::mutex> lk(bg_mu_);
        bg_cv_.wait_until(lk, next, [&] { return stop_bg_.load(); });
      }
    });
  }

  void delete_pods(const Op& op) {
    auto pods = tracker_->live_pods(op.namespace_);
    auto task = [this, op, pods] {
      set_thread_name("bench-delete");
      auto next = Clock::now();
      auto step = std::chrono::microseconds(op.delete_pods_per_second > 0 ? 1000000 / op.delete_pods_per_second : 0);
      for (const auto& name : pods) {
        if (stop_bg_) return;
        (void)client_->remove(client::ResourceRef{.resource = "pods", .namespace_ = op.namespace_, .name = name});
        next += step;
        std::unique_lock<std::mutex> lk(bg_mu_);
        bg_cv_.wait_until(lk, next, [&] { return stop_bg_.load(); });
      }
    };
    if (op.skip_wait_to_completion) background_.emplace_back(task);
    else task();
  }

  void barrier(const Op& op) {
    std::vector<std::string> nss = op.namespaces;
    if (nss.empty())
      for (const auto& [ns, _] : created_in_ns_) nss.push_back(ns);
    bool attempted = op.stage_requirement == "Attempted";
    auto t0 = Clock::now();
    auto last_change = Clock::now();
    long last = -1;
    for (;;) {
      long waiting = 0;
      for (const auto& ns : nss) {
        auto c = tracker_->counts(ns);
        waiting += c.live - (attempted ? c.live_attempted : c.live_bound);
      }
      if (waiting <= 0) return;
      if (waiting != last) {
        last = waiting;
        last_change = Clock::now();
      } else if (seconds_since(last_change) > o_.stall_seconds) {
        throw Failure{"barrier (" + op.stage_requirement + "): " + std::to_string(waiting) + " pods never got there"};
      }
      progress("barrier " + op.stage_requirement, 0, waiting, 0, seconds_since(t0));
      tracker_->wait_change(Clock::now() + std::chrono::milliseconds(200));
    }
  }

  void stop_background() {
    stop_bg_ = true;
    bg_cv_.notify_all();
    for (auto& t : background_)
      if (t.joinable()) t.join();
    background_.clear();
  }

  const ResolvedWorkload& w_;
  const RunOptions& o_;
  WorkloadResult res_;
  std::unique_ptr<localcluster::LocalCluster> cluster_;
  std::string temp_dir_;  // a data directory of our own, removed at the end
  std::unique_ptr<etcd::LocalEtcd> etcd_;  // etcd mode: the workload's own etcd
  scheduler::app::SchedulerApp* app_ = nullptr;
  std::unique_ptr<scheduler::app::SchedulerApp> own_app_;
  std::map<int, std::string> thread_component_;  // tid -> server | scheduler | bench
  client::RestConfig rest_cfg_;
  std::shared_ptr<client::RestClient> client_;
  std::unique_ptr<PodTracker> tracker_;
  std::mutex tmpl_mu_;
  std::map<std::string, json::object> templates_;
  std::map<std::string, std::string> template_texts_;  // templated_text_of
  std::mutex ns_mu_;
  std::set<std::string> namespaces_;
  std::map<std::string, long> created_in_ns_;
  std::map<std::string, long> pod_counter_;
  long node_counter_ = 0;
  bool measured_ = false;
  bool metrics_warned_ = false;
  std::atomic<bool> stop_bg_{false};
  std::mutex bg_mu_;
  std::condition_variable bg_cv_;
  std::vector<std::thread> background_;
};

}  // namespace

WorkloadResult run_workload(const ResolvedWorkload& w, const RunOptions& opts) { return Runner(w, opts).run(); }

}  // namespace ksched::perf
