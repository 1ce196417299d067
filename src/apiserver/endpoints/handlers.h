// Request routing and the REST verbs over the store: the part of the server that is independent
// of HTTP framing, so tests can drive it directly.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "apiserver/features.h"
#include "apiserver/endpoints/request_info.h"
#include "apiserver/resources.h"
#include "apiserver/storage/storage.h"
#include "apiserver/endpoints/table.h"
#include "apiserver/storage/watch_hub.h"
#include "apiserver/write/admission.h"
#include "util/clock.h"
#include "util/result.h"

namespace ksched::apiserver {

class TokenAuthenticator;
class Authorizer;
struct UserInfo;
enum class AuthorizationMode;

struct Request {
  std::string method;  // GET POST PUT PATCH DELETE
  std::string path;    // percent-decoded, without the query
  std::vector<std::pair<std::string, std::string>> query;
  std::string content_type;
  std::string accept;
  std::string body;
  // Who asks: the HTTP layer's authenticated user (or system:anonymous). Every request is authorized
  // for this user before it is routed; a request without one is refused (500), as upstream's filter
  // refuses a request that reached it unauthenticated.
  const UserInfo* user = nullptr;
  const std::string* param(std::string_view key) const {
    for (const auto& [k, v] : query)
      if (k == key) return &v;
    return nullptr;
  }
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  // Set for a streaming watch: the HTTP layer streams this watcher's events.
  std::shared_ptr<Watcher> watcher;
  const ResourceInfo* watch_resource = nullptr;
  bool watch_table = false;
  bool watch_protobuf = false;  // length-prefixed protobuf WatchEvents (;stream=watch) instead of JSON lines
  IncludeObject watch_include = IncludeObject::Metadata;
  int timeout_seconds = 0;
  bool bookmarks = false;
  // The revision of the last change this request made (0: none): the answer goes out only once
  // the store's durable log holds it.
  std::int64_t commit_rv = 0;
};

// Parses "a=b&c=%20d" into decoded pairs ('+' is a space as in Go's url.ParseQuery).
std::vector<std::pair<std::string, std::string>> parse_query(std::string_view q);
std::string percent_decode(std::string_view s, bool plus_is_space);

class Api {
 public:
  explicit Api(std::size_t watch_history, util::Clock& clock = util::RealClock::instance());
  ~Api();

  // Authorizes the request (authorization.h), then routes it.
  Response handle(const Request& req);
  Store& store() { return store_; }
  // RBAC by default; AlwaysAllow admits every authenticated request.
  void set_authorization_mode(AuthorizationMode m);
  const Authorizer& authorizer() const { return *authorizer_; }

  // Namespaces default/kube-system/kube-public/kube-node-lease and the system PriorityClasses.
  void bootstrap();
  // N simulated nodes from a YAML/JSON template ("" = built-in 32 cpu / 256Gi / 110 pods).
  util::Result<void> create_nodes(int n, const std::string& template_path);
  // Completes graceful pod deletions whose deadline has passed (kubelet stand-in fallback).
  void reap_deletions();
  void set_server_address(std::string a) { server_address_ = std::move(a); }
  // The server's bearer tokens, which TokenReview checks (none set: every review is unauthenticated).
  void set_authenticator(const TokenAuthenticator* a) { authenticator_ = a; }
  const TokenAuthenticator* authenticator() const { return authenticator_; }
  // A controller manager runs against this server (src/controllers): a namespace being deleted
  // waits for the namespace controller to empty and finalize it, and a delete with
  // propagationPolicy Orphan or Foreground (or a kind's default Orphan) adds the garbage
  // collector's finalizer, as upstream's registry does. Off: the namespace's content is deleted
  // at once and propagationPolicy is ignored, since nothing would remove those finalizers.
  void set_controller_manager(bool on) { controller_manager_ = on; }
  bool controller_manager() const { return controller_manager_; }
  // The feature gates the write path follows (features.h; v1.35's defaults unless set).
  void set_feature_gates(const FeatureGates& g) { feature_gates_ = g; }
  const FeatureGates& feature_gates() const { return feature_gates_; }
  // The admission plugins writes run (write/admission.h; all unless some are disabled).
  void set_admission_plugins(const AdmissionPlugins& p) { admission_plugins_ = p; }
  const AdmissionPlugins& admission_plugins() const { return admission_plugins_; }

  // One watch event as a newline-terminated JSON line (a one-row Table when `table`).
  std::string format_watch_item(const ResourceInfo& r, const WatchItem& it, bool table, IncludeObject include,
                                bool& columns_sent) const;
  // One watch event as a protobuf frame (4-byte length, WatchEvent); a stored object's encoding is
  // made once and shared by every protobuf watcher (apiserver/endpoints/protobuf.h).
  void append_watch_frame(const ResourceInfo& r, const WatchItem& it, std::string& out) const;
  std::int64_t now_unix() const;

  struct Impl;

 private:
  Store store_;
  std::unique_ptr<Authorizer> authorizer_;  // reads store_
  util::Clock& clock_;
  std::string server_address_ = "127.0.0.1:6443";
  const TokenAuthenticator* authenticator_ = nullptr;
  bool controller_manager_ = false;
  FeatureGates feature_gates_;
  AdmissionPlugins admission_plugins_;
};

}  // namespace ksched::apiserver
