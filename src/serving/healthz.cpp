#include "serving/healthz.h"

#include <algorithm>

#include "util/log.h"

namespace ksched::serving {

namespace {
std::string url_decode(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out.push_back(static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else if (s[i] == '+') {
      out.push_back(' ');
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}
}  // namespace

std::vector<std::string> HttpRequest::query_params(const std::string& key) const {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= query.size()) {
    auto amp = query.find('&', pos);
    if (amp == std::string::npos) amp = query.size();
    std::string kv = query.substr(pos, amp - pos);
    auto eq = kv.find('=');
    std::string k = url_decode(kv.substr(0, eq));
    if (k == key) out.push_back(eq == std::string::npos ? std::string() : url_decode(kv.substr(eq + 1)));
    pos = amp + 1;
  }
  return out;
}
std::string HttpRequest::query_param(const std::string& key) const {
  auto v = query_params(key);
  return v.empty() ? std::string() : v.front();
}
bool HttpRequest::has_query_param(const std::string& key) const { return !query_params(key).empty(); }

void HealthEndpoint::add(HealthCheck c) {
  std::lock_guard l(mu_);
  checks_.push_back(std::move(c));
}

HttpResponse HealthEndpoint::serve(const HttpRequest& req) const {
  std::vector<HealthCheck> checks;
  {
    std::lock_guard l(mu_);
    checks = checks_;
  }
  const std::string base = "/" + name_;
  HttpResponse resp;
  resp.headers["X-Content-Type-Options"] = "nosniff";
  resp.headers["Cache-Control"] = "no-cache, private";
  // A single check: /readyz/<check>.
  if (req.path.size() > base.size() + 1) {
    std::string which = req.path.substr(base.size() + 1);
    for (const auto& c : checks) {
      if (c.name != which) continue;
      if (auto err = c.check()) {
        log::info("Health check failed", {{"endpoint", name_}, {"check", c.name}, {"reason", *err}});
        resp.status = 500;
        resp.body = "internal server error: " + *err + "\n";
      } else {
        resp.body = "ok";
      }
      return resp;
    }
    resp.status = 404;
    resp.body = "404 page not found\n";
    return resp;
  }
  auto excluded = req.query_params("exclude");
  bool verbose = req.has_query_param("verbose");
  std::string detail;
  bool failed = false;
  for (const auto& c : checks) {
    if (std::find(excluded.begin(), excluded.end(), c.name) != excluded.end()) {
      detail += "[+]" + c.name + " excluded: ok\n";
      continue;
    }
    if (auto err = c.check()) {
      failed = true;
      log::V(1).info("Health check failed", {{"endpoint", name_}, {"check", c.name}, {"reason", *err}});
      detail += "[-]" + c.name + " failed: reason withheld\n";
    } else {
      detail += "[+]" + c.name + " ok\n";
    }
  }
  if (failed) {
    resp.status = 500;
    resp.body = detail + name_ + " check failed\n";
  } else if (verbose) {
    resp.body = detail + name_ + " check passed\n";
  } else {
    resp.body = "ok";
  }
  return resp;
}

}  // namespace ksched::serving
