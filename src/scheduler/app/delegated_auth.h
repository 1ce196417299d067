// Delegated authentication and authorization of the secure port (upstream's
// DelegatingAuthenticationOptions / DelegatingAuthorizationOptions): bearer tokens are checked with
// a TokenReview, requests with a SubjectAccessReview, both against the cluster's API server, and
// both answers cached for 10 s like upstream's defaults.
#pragma once
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "serving/secure_serving.h"

namespace ksched::client {
class RestClient;
}

namespace ksched::scheduler::app {

class DelegatedAuthorizer final : public serving::RequestAuthorizer {
 public:
  // Either client may be null: no authentication client = every request is anonymous; no
  // authorization client = everything that is not always-allowed is denied (upstream's behaviour
  // without the kubeconfigs).
  DelegatedAuthorizer(std::shared_ptr<client::RestClient> authn, std::shared_ptr<client::RestClient> authz,
                      std::chrono::seconds cache_ttl = std::chrono::seconds(10));

  std::optional<serving::UserInfo> authenticate(const serving::HttpRequest& req) override;
  bool authorize(const serving::UserInfo& user, const std::string& verb, const std::string& path) override;

 private:
  template <class V>
  struct Entry {
    V value;
    std::chrono::steady_clock::time_point expires;
  };
  std::shared_ptr<client::RestClient> authn_, authz_;
  std::chrono::seconds ttl_;
  std::mutex mu_;
  std::map<std::string, Entry<std::optional<serving::UserInfo>>> tokens_;
  std::map<std::string, Entry<bool>> decisions_;
};

}  // namespace ksched::scheduler::app
