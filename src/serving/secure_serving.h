// HTTPS server for the scheduler's endpoints (upstream's SecureServingInfo): TLS with the given or a
// self-signed certificate, HTTP/1.1 keep-alive, and the filter chain authn -> authz -> handler.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "serving/http.h"
#include "util/result.h"

namespace ksched::serving {

struct UserInfo {
  std::string name;
  std::vector<std::string> groups;
};

// Decides who is calling (TokenReview delegation) and whether they may (SubjectAccessReview).
class RequestAuthorizer {
 public:
  virtual ~RequestAuthorizer() = default;
  // nullopt = unauthenticated (401). An anonymous user is {"system:anonymous", {"system:unauthenticated"}}.
  virtual std::optional<UserInfo> authenticate(const HttpRequest& req) = 0;
  // Non-resource request: verb (get/post/...) on path.
  virtual bool authorize(const UserInfo& user, const std::string& verb, const std::string& path) = 0;
};

struct SecureServingOptions {
  std::string bind_address = "0.0.0.0";
  std::uint16_t port = 10259;  // 0 = pick a free port (tests)
  std::string cert_pem;        // empty = generate a self-signed pair
  std::string key_pem;
  std::vector<std::string> always_allow_paths = {"/healthz", "/readyz", "/livez"};
};

class SecureServer {
 public:
  explicit SecureServer(SecureServingOptions opts);
  ~SecureServer();
  SecureServer(const SecureServer&) = delete;
  SecureServer& operator=(const SecureServer&) = delete;

  // Exact path, or a prefix when `prefix` is true ("/readyz" serves "/readyz/..." too).
  void handle(const std::string& path, HttpHandler h, bool prefix = false);
  // Without an authorizer, only always-allowed paths are served (everything else is 403), like
  // upstream with no --authorization-kubeconfig.
  void set_authorizer(std::shared_ptr<RequestAuthorizer> a);

  util::Result<void> start();
  void stop();
  std::uint16_t port() const;
  // CA of the self-signed pair (for tests); "" when a certificate was given.
  std::string self_signed_ca_pem() const;

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace ksched::serving
