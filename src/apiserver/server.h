// Embedded Kubernetes-compatible API server (MVCC store in memory, optionally durable on disk;
// HTTP/1.1 + TLS).
// Public in-process interface: tests and the `ksched apiserver` command start it through this.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/features.h"
#include "apiserver/endpoints/request_limits.h"
#include "util/result.h"

namespace ksched::apiserver {

struct Options {
  std::string listen = "127.0.0.1:0";   // port 0 = pick a free port
  bool tls = true;
  std::string token_file;               // empty = only the generated admin and component tokens are accepted
  // "RBAC" (every request is authorized against the stored RBAC policy) or "AlwaysAllow".
  std::string authorization_mode = "RBAC";
  // Requests without a bearer token are system:anonymous (group system:unauthenticated), as
  // upstream's --anonymous-auth; false: 401. Without TLS (loopback development mode) a request
  // without credentials is admin instead (see http_server.cpp).
  bool anonymous_auth = true;
  std::string kubeconfig_out;           // written on start when non-empty
  std::size_t watch_history = 100000;   // events kept for watch resumption
  int io_threads = 2;
  // Simulated Node objects (label type=simulated) created when the cluster is new: always in
  // memory, only on the first start of a data directory or etcd prefix (as real nodes register
  // once, nodes a user deleted stay deleted across restarts).
  int nodes = 0;
  std::string node_template;            // YAML/JSON Node template file for them ("" = built-in: 32 cpu, 256Gi, 110 pods)
  // Durable store in this directory (write-ahead log + snapshots, durable_log.h), with the CA, the
  // serving certificate and the admin token kept beside it so that clients' kubeconfigs survive a
  // restart. "" = memory only: everything is lost when the process ends.
  std::string data_dir;
  std::size_t wal_segment_bytes = std::size_t{64} << 20;
  // etcd mode (etcd_storage.h): objects live in etcd and this server caches them; several servers
  // may share one etcd. Exclusive with data_dir's store (data_dir then keeps credentials only).
  std::vector<std::string> etcd_servers;  // http(s)://host:port of the members
  std::string etcd_cafile, etcd_certfile, etcd_keyfile;
  std::string etcd_prefix = "/registry";
  int etcd_compaction_interval_seconds = 300;  // 0 = never compact
  RequestLimits limits;                   // request_limits.h: body, headers, timeouts, in flight
  // A controller manager runs against this server (Api::set_controller_manager): namespaces wait
  // for the namespace controller, and propagationPolicy adds the garbage collector's finalizers.
  bool controller_manager = false;
  // kube-apiserver's feature gates that change what is stored (features.h), v1.35's defaults.
  FeatureGates feature_gates;
  // kube-apiserver's --disable-admission-plugins (names upstream knows; see write/admission.h).
  std::vector<std::string> disable_admission_plugins;
};

class Server {
 public:
  explicit Server(Options opts);
  ~Server();                              // stops
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  util::Result<void> start();             // returns once listening
  void stop();                            // closes watches cleanly
  std::uint16_t port() const;
  std::string url() const;                // https://127.0.0.1:PORT (http:// without TLS)
  std::string ca_pem() const;             // PEM of the generated CA ("" with --no-tls)
  std::string admin_token() const;
  std::string kubeconfig() const;         // kubeconfig text (cluster+user+context "ksched")
  // The kubeconfig of one of ksched's components (components.h: "kube-scheduler",
  // "kube-controller-manager", "node-simulator"): its own token and user, never the admin's. The
  // tokens are made at start and, with a data directory, kept in DIR/pki like the admin token.
  // Empty for an unknown component.
  std::string component_kubeconfig(std::string_view component) const;
  std::string component_token(std::string_view component) const;
  void compact(std::int64_t revision);    // for tests: drop history up to revision (forces 410)

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ksched::apiserver
