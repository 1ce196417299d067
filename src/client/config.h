// Client configuration: what client-go calls rest.Config, loaded from a kubeconfig (clientcmd rules)
// or from the in-cluster service account.
#pragma once
#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "util/result.h"

namespace ksched::client {

struct RestConfig {
  std::string host;          // https://127.0.0.1:6443 (scheme, host, port; no path)
  std::string ca_pem;        // trusted CA bundle (PEM); empty = system default roots
  std::string cert_pem;      // client certificate (PEM)
  std::string key_pem;       // client key (PEM)
  std::string bearer_token;  // Authorization: Bearer <token>
  std::string token_file;    // when set, the token is re-read from it (at most once a minute)
  bool insecure = false;     // insecure-skip-tls-verify
  std::string tls_server_name;
  float qps = 50;
  int burst = 100;
  std::string user_agent;
  std::chrono::milliseconds timeout{0};  // per-request; 0 = none (watches never time out by this)
  std::string namespace_;                // context namespace ("default" when unset)
  // Every request but GETs and watches is pipelined with concurrent ones (HttpRequest::pipelined):
  // for a client whose many threads send small writes, like the bench's load generator.
  bool pipeline_writes = false;
  // client-go's ContentConfig. content_type: the media type of the objects the typed calls send,
  // and (unless accept_content_types is set) ask for, as "<content_type>, */*";
  // "application/vnd.kubernetes.protobuf" or "" / "application/json". Kinds without protobuf
  // tables (api/protobuf_schema.h) are sent and asked for in JSON whatever it says, and any answer
  // the server sends in JSON is read as JSON.
  std::string content_type;
  std::string accept_content_types;
  bool prefers_protobuf() const;
};

struct KubeconfigOptions {
  std::string explicit_path;            // --kubeconfig; must exist when given
  std::optional<std::string> kubeconfig_env;  // value of $KUBECONFIG; nullopt = read the environment
  std::optional<std::string> home;      // $HOME; nullopt = read the environment
  std::string context;                  // --context override
  std::string cluster;                  // --cluster override
  std::string user;                     // --user override
};

// Loads and merges kubeconfig files following clientcmd's precedence: --kubeconfig, else every file
// listed in $KUBECONFIG (':' separated; first file to define a name or current-context wins;
// missing files skipped), else ~/.kube/config.
util::Result<RestConfig> load_kubeconfig(const KubeconfigOptions& opts);

// Parses one kubeconfig document (base_dir resolves relative file references).
util::Result<RestConfig> kubeconfig_from_string(const std::string& yaml, const std::string& base_dir = ".",
                                                const std::string& context = {});

struct InClusterOptions {
  std::string root = "/var/run/secrets/kubernetes.io/serviceaccount";
  std::optional<std::string> service_host;  // nullopt = $KUBERNETES_SERVICE_HOST
  std::optional<std::string> service_port;  // nullopt = $KUBERNETES_SERVICE_PORT
};
util::Result<RestConfig> in_cluster_config(const InClusterOptions& opts = {});

// Default User-Agent, client-go style: "<component>/<version> (linux/amd64) ksched".
std::string default_user_agent(const std::string& component = "ksched");

}  // namespace ksched::client
