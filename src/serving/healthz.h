// Health checks as k8s.io/apiserver/pkg/server/healthz: named checks served at /healthz, /livez and
// /readyz, each also at /<endpoint>/<check>; `?verbose` lists every check, `?exclude=<name>` skips one.
// Failure bodies name the failed check but withhold its reason, as upstream does.
#pragma once
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "serving/http.h"

namespace ksched::serving {

// A check returns nullopt when healthy, or the reason it is not (logged, not served).
struct HealthCheck {
  std::string name;
  std::function<std::optional<std::string>()> check;
};

class HealthEndpoint {
 public:
  explicit HealthEndpoint(std::string name) : name_(std::move(name)) {}
  void add(HealthCheck c);
  // Serves `path` == "/<name>" or "/<name>/<check>".
  HttpResponse serve(const HttpRequest& req) const;
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  mutable std::mutex mu_;
  std::vector<HealthCheck> checks_;
};

}  // namespace ksched::serving
