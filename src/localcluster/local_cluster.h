// A local cluster in one process: the embedded API server, simulated nodes kept by the kubelet
// stand-in, the controllers of kube-controller-manager and ksched's scheduler, all talking over
// loopback TLS like separate processes, each with its own identity and RBAC bindings (never the
// admin token).
// Used by `ksched up` and `ksched bench`.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "client/config.h"
#include "util/result.h"

namespace ksched::client {
class RestClient;
}
namespace ksched::scheduler::app {
class SchedulerApp;
}
namespace ksched::controllers {
class ControllerManager;
}

namespace ksched::localcluster {

struct LocalClusterOptions {
  std::string listen = "127.0.0.1:0";
  std::string kubeconfig_out;        // written when non-empty
  int nodes = 100;                   // simulated nodes created at start
  std::string node_template;         // Node YAML/JSON file; "" = built-in template
  bool run_scheduler = true;         // ksched's scheduler in-process
  std::string scheduler_config;      // KubeSchedulerConfiguration file; "" = defaults
  bool run_node_simulator = true;    // kubelet stand-in (pods -> Running)
  // kube-controller-manager's controllers (src/controllers), as its --controllers list: "*" all,
  // "name" one, "-name" not that one. Empty: none run (the server then deletes a namespace's
  // content itself and ignores propagationPolicy).
  std::vector<std::string> controllers{"*"};
  std::vector<std::string> node_zones;  // the kubelet stand-in's topology.kubernetes.io/zone values
  std::string node_region;              // and topology.kubernetes.io/region
  // The simulated DRA drivers every node runs (nodesim/dra_driver.h: "gpu.ksched.dev=8,model=A100").
  std::string dra_devices;
  std::size_t watch_history = 200000;
  std::string data_dir;              // durable store here ("" = memory only, lost at exit)
  std::vector<std::string> etcd_servers;  // etcd mode: objects in this etcd (data_dir then keeps credentials)
  int scheduler_secure_port = 0;     // 0 = pick a free port; -1 = do not serve
  std::vector<std::string> disable_admission_plugins;  // the API server's (kube-apiserver's flag)
  // Feature gates set for the whole cluster, as one --feature-gates given to every component
  // (already checked against v1.35's registry: scheduler::app::parse_feature_gates). The API
  // server takes those it acts on (apiserver/features.h), the in-process scheduler all of v1.35's,
  // the controller manager all of them (it acts on GenericWorkload and WorkloadWithJob, a v1.36
  // gate the scheduler's registry lacks: controllers/features.h); the kubelet stand-in has no
  // gated behaviour yet.
  std::map<std::string, bool> feature_gates;
};

class LocalCluster {
 public:
  static util::Result<std::unique_ptr<LocalCluster>> start(LocalClusterOptions opts);
  ~LocalCluster();  // stops everything

  void stop();
  // The admin's client configuration (what tools and `kubectl` use).
  const client::RestConfig& rest_config() const;
  // A component's own identity (apiserver/auth/components.h: "kube-scheduler", "kube-controller-manager",
  // "node-simulator"), with the admin configuration's limits and transport settings.
  client::RestConfig component_rest_config(std::string_view component) const;
  std::shared_ptr<client::RestClient> client() const;
  std::string kubeconfig() const;
  std::string url() const;
  scheduler::app::SchedulerApp* scheduler_app() const;  // nullptr without an in-process scheduler
  controllers::ControllerManager* controller_manager() const;  // nullptr without controllers

  struct Impl;

 private:
  explicit LocalCluster(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ksched::localcluster
