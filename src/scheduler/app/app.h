// The kube-scheduler program as a library (upstream cmd/kube-scheduler/app/server.go): start-up in
// upstream's order, secure serving of health/metrics/configz, informers, leader election, and the
// scheduling loop. `bin/kube-scheduler` is a thin main over run_kube_scheduler(); `ksched up` and
// `ksched bench` embed a SchedulerApp in-process through the same path.
#pragma once
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <memory>
#include <string>

#include "client/config.h"
#include "scheduler/config/types.h"
#include "serving/secure_serving.h"
#include "util/result.h"

namespace ksched::scheduler {
class Scheduler;
}

namespace ksched::scheduler::app {

struct Options;

struct AppOptions {
  config::KubeSchedulerConfiguration cfg;  // effective and validated
  client::RestConfig rest;                 // how to reach the API server
  bool serve = true;                       // false = no secure port (upstream --secure-port=0)
  serving::SecureServingOptions serving;
  std::string authentication_kubeconfig;
  std::string authorization_kubeconfig;
  // In-process callers: the client for the delegated TokenReviews and SubjectAccessReviews when no
  // kubeconfig file is named above (ksched up passes the scheduler's own identity).
  std::optional<client::RestConfig> delegation_rest;
  bool authentication_tolerate_lookup_failure = true;
  std::map<std::string, bool> feature_gates;
  std::chrono::nanoseconds pod_max_in_unschedulable_pods_duration = std::chrono::minutes(5);
  std::string identity;  // leader-election identity; "" = "<hostname>_<uuid>"
  // Parallelism of Filter/Score; 0 = min(cfg.parallelism, hardware threads).
  int parallelism = 0;
  // false: informers and cache only. start() returns once they are synced and the scheduling
  // loop never runs, so nothing is bound and no event is sent (tools that inspect: ksched explain).
  bool schedule = true;
  // Explained decisions kept for /debug/explain (explain::DecisionLog); 0: off.
  std::size_t explain_cache_size = 0;
};

// Builds AppOptions from parsed flags: effective config, kubeconfig/--master/in-cluster, serving.
util::Result<AppOptions> app_options_from_flags(const Options& flags);

class SchedulerApp {
 public:
  static util::Result<std::unique_ptr<SchedulerApp>> create(AppOptions opts);
  ~SchedulerApp();
  SchedulerApp(const SchedulerApp&) = delete;
  SchedulerApp& operator=(const SchedulerApp&) = delete;

  // Upstream's Run up to the scheduling loop: configz, event broadcaster, secure serving,
  // informers + cache sync (unless delayed until leading), then the loop directly or under
  // leader election. Returns once that has begun; errors are start-up failures.
  util::Result<void> start();
  // Blocks until the app stops. Exit code: 0 after request_stop(), 1 when leadership was lost.
  int wait();
  // Stop scheduling, finish in-flight bindings, release the lease, stop informers. Thread-safe,
  // idempotent; safe to call from a signal-watching thread.
  void request_stop();

  bool ready() const;      // caches synced and handlers synced (and leading, with leader election)
  bool is_leader() const;  // true without leader election once running
  std::uint16_t secure_port() const;
  std::string serving_ca_pem() const;  // self-signed CA when no certificate was given
  std::string metrics_text() const;    // the /metrics body
  Scheduler* scheduler();              // nullptr before start()

  struct Impl;

 private:
  explicit SchedulerApp(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A scheduler that never schedules, started and synced (AppOptions::schedule = false, no serving,
// no leader election): its profiles, cache and snapshot as the real one would have them, for tools
// that look (ksched explain, the local cluster's web page). `config_file` "" = the defaults.
// `feature_gates` as kube-scheduler's --feature-gates (GangScheduling: the pod-group state that
// `ksched explain` shows for a gang's member).
util::Result<std::unique_ptr<SchedulerApp>> start_inspector(const client::RestConfig& rest,
                                                            const std::string& config_file = {},
                                                            const std::map<std::string, bool>& feature_gates = {});

// The whole program: flags, logging, version, --write-config-to, signals; returns the exit code.
int run_kube_scheduler(int argc, char** argv);

}  // namespace ksched::scheduler::app
