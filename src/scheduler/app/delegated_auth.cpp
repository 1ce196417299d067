#include "scheduler/app/delegated_auth.h"

#include <boost/json.hpp>

#include "client/rest.h"
#include "util/log.h"

namespace ksched::scheduler::app {

namespace json = boost::json;

DelegatedAuthorizer::DelegatedAuthorizer(std::shared_ptr<client::RestClient> authn,
                                         std::shared_ptr<client::RestClient> authz, std::chrono::seconds cache_ttl)
    : authn_(std::move(authn)), authz_(std::move(authz)), ttl_(cache_ttl) {}

std::optional<serving::UserInfo> DelegatedAuthorizer::authenticate(const serving::HttpRequest& req) {
  if (req.bearer_token.empty() || !authn_) {
    return serving::UserInfo{"system:anonymous", {"system:unauthenticated"}};
  }
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard l(mu_);
    if (auto it = tokens_.find(req.bearer_token); it != tokens_.end() && it->second.expires > now) {
      return it->second.value;
    }
  }
  json::object body{{"apiVersion", "authentication.k8s.io/v1"},
                    {"kind", "TokenReview"},
                    {"spec", json::object{{"token", req.bearer_token}}}};
  client::ResourceRef ref;
  ref.group = "authentication.k8s.io";
  ref.resource = "tokenreviews";
  auto r = authn_->create(ref, json::serialize(body));
  if (!r) {
    // Not cached: the next request asks again.
    log::error("Unable to authenticate the request", {{"err", r.error().to_string()}});
    return std::nullopt;
  }
  std::optional<serving::UserInfo> user;
  try {
    auto v = json::parse(*r);
    const auto* status = v.as_object().if_contains("status");
    if (status && status->is_object()) {
      const auto& st = status->as_object();
      const auto* ok = st.if_contains("authenticated");
      if (ok && ok->is_bool() && ok->as_bool()) {
        serving::UserInfo u;
        if (const auto* usr = st.if_contains("user"); usr && usr->is_object()) {
          if (const auto* n = usr->as_object().if_contains("username"); n && n->is_string()) {
            u.name = std::string(n->as_string());
          }
          if (const auto* g = usr->as_object().if_contains("groups"); g && g->is_array()) {
            for (const auto& x : g->as_array()) {
              if (x.is_string()) u.groups.emplace_back(x.as_string());
            }
          }
        }
        user = std::move(u);
      }
    }
  } catch (const std::exception& e) {
    log::error("Malformed TokenReview response", {{"err", e.what()}});
    return std::nullopt;
  }
  std::lock_guard l(mu_);
  tokens_[req.bearer_token] = {user, now + ttl_};
  return user;
}

bool DelegatedAuthorizer::authorize(const serving::UserInfo& user, const std::string& verb, const std::string& path) {
  if (!authz_) return false;
  const auto now = std::chrono::steady_clock::now();
  std::string key = user.name + "\n" + verb + "\n" + path;
  for (const auto& g : user.groups) key += "\n" + g;
  {
    std::lock_guard l(mu_);
    if (auto it = decisions_.find(key); it != decisions_.end() && it->second.expires > now) return it->second.value;
  }
  json::array groups;
  for (const auto& g : user.groups) groups.emplace_back(g);
  json::object body{{"apiVersion", "authorization.k8s.io/v1"},
                    {"kind", "SubjectAccessReview"},
                    {"spec", json::object{{"user", user.name},
                                          {"groups", groups},
                                          {"nonResourceAttributes", json::object{{"path", path}, {"verb", verb}}}}}};
  client::ResourceRef ref;
  ref.group = "authorization.k8s.io";
  ref.resource = "subjectaccessreviews";
  auto r = authz_->create(ref, json::serialize(body));
  if (!r) {
    log::error("Unable to authorize the request", {{"err", r.error().to_string()}});
    return false;
  }
  bool allowed = false;
  try {
    auto v = json::parse(*r);
    if (const auto* st = v.as_object().if_contains("status"); st && st->is_object()) {
      if (const auto* a = st->as_object().if_contains("allowed"); a && a->is_bool()) allowed = a->as_bool();
    }
  } catch (const std::exception& e) {
    log::error("Malformed SubjectAccessReview response", {{"err", e.what()}});
    return false;
  }
  std::lock_guard l(mu_);
  decisions_[key] = {allowed, now + ttl_};
  return allowed;
}

}  // namespace ksched::scheduler::app
