// Authorization on the request path (authorization.h): what every request costs before it is
// routed. The scheduler's binding (system:kube-scheduler, create pods/binding) is the hot one; a
// denial, a read through a namespace's RoleBinding, and the same under a thousand bindings show the
// index's lookups do not grow with the policy. Reports time per authorization.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "apiserver/auth/auth.h"
#include "apiserver/auth/authorization.h"
#include "apiserver/endpoints/handlers.h"
#include "apiserver/endpoints/request_info.h"

namespace {

using namespace ksched::apiserver;

void post(Api& api, const std::string& path, const std::string& body) {
  Request r{"POST", path, {}, "application/json", "application/json", body, &admin_user()};
  if (api.handle(r).status != 201) std::abort();
}

// The bootstrap policy and limited's Role in team-a; `large` adds a thousand users with a
// RoleBinding each across ten namespaces, and a hundred group ClusterRoleBindings.
std::unique_ptr<Api> make_api(bool large) {
  auto api = std::make_unique<Api>(1000);
  api->bootstrap();
  post(*api, "/api/v1/namespaces", R"({"metadata":{"name":"team-a"}})");
  post(
      *api, "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/roles",
      R"({"metadata":{"name":"pod-getter"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]})");
  post(
      *api, "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings",
      R"({"metadata":{"name":"limited"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"pod-getter"},)"
      R"("subjects":[{"kind":"User","name":"limited"}]})");
  if (!large) return api;
  for (int ns = 0; ns < 10; ++ns)
    post(*api, "/api/v1/namespaces", R"({"metadata":{"name":"ns-)" + std::to_string(ns) + R"("}})");
  for (int i = 0; i < 1000; ++i)
    post(*api, "/apis/rbac.authorization.k8s.io/v1/namespaces/ns-" + std::to_string(i % 10) + "/rolebindings",
         R"({"metadata":{"name":"u)" + std::to_string(i) +
             R"("},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"edit"},)"
             R"("subjects":[{"kind":"User","name":"user-)" +
             std::to_string(i) + R"("}]})");
  for (int i = 0; i < 100; ++i)
    post(*api, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
         R"({"metadata":{"name":"c)" + std::to_string(i) +
             R"("},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},)"
             R"("subjects":[{"kind":"Group","name":"group-)" +
             std::to_string(i) + R"("}]})");
  return api;
}

Api& bootstrapped(int large) {
  static const std::unique_ptr<Api> plain = make_api(false);
  static const std::unique_ptr<Api> big = make_api(true);
  return large ? *big : *plain;
}

const UserInfo kScheduler{"system:kube-scheduler", "", {"system:authenticated"}};
const UserInfo kLimited{"limited", "", {"system:authenticated"}};

// The decision alone, from parsed attributes: the index lookups and the rule scan.
void run_decision(benchmark::State& state, const UserInfo& user, const char* method, const char* path,
                  bool want) {
  const Authorizer& authz = bootstrapped(static_cast<int>(state.range(0))).authorizer();
  const std::vector<std::pair<std::string, std::string>> query;
  RequestInfo info = parse_request_info(method, path, query);
  Attributes a = attributes_of(user, info);
  if (authz.allows(a) != want) state.SkipWithError("unexpected decision");
  for (auto _ : state) benchmark::DoNotOptimize(authz.allows(a));
}

void BM_AuthorizeSchedulerBinding(benchmark::State& state) {
  run_decision(state, kScheduler, "POST", "/api/v1/namespaces/default/pods/pod-1/binding", true);
}
BENCHMARK(BM_AuthorizeSchedulerBinding)->Arg(0)->Arg(1)->ArgName("largePolicy");
BENCHMARK(BM_AuthorizeSchedulerBinding)->Arg(0)->ArgName("largePolicy")->Threads(2);

void BM_AuthorizeNamespacedRead(benchmark::State& state) {
  run_decision(state, kLimited, "GET", "/api/v1/namespaces/team-a/pods/p", true);
}
BENCHMARK(BM_AuthorizeNamespacedRead)->Arg(0)->Arg(1)->ArgName("largePolicy");

void BM_AuthorizeDenied(benchmark::State& state) {
  run_decision(state, kLimited, "GET", "/api/v1/secrets", false);
}
BENCHMARK(BM_AuthorizeDenied)->Arg(0)->Arg(1)->ArgName("largePolicy");

// What Api::handle adds per request: reading the request (method, path, query) into attributes.
void BM_AuthorizeSchedulerBindingFromRequest(benchmark::State& state) {
  const Authorizer& authz = bootstrapped(0).authorizer();
  const std::string path = "/api/v1/namespaces/default/pods/pod-1/binding";
  const std::vector<std::pair<std::string, std::string>> query;
  for (auto _ : state) {
    RequestInfo info = parse_request_info("POST", path, query);
    benchmark::DoNotOptimize(authz.allows(attributes_of(kScheduler, info)));
  }
}
BENCHMARK(BM_AuthorizeSchedulerBindingFromRequest);

// The slow path a denied request takes for its message: the reason and the Forbidden Status.
void BM_ForbiddenResponse(benchmark::State& state) {
  const Authorizer& authz = bootstrapped(0).authorizer();
  const std::vector<std::pair<std::string, std::string>> query;
  RequestInfo info = parse_request_info("GET", "/api/v1/secrets", query);
  Attributes a = attributes_of(kLimited, info);
  for (auto _ : state) {
    auto r = authz.authorize(a);
    benchmark::DoNotOptimize(forbidden_error(a, r.reason).to_json());
  }
}
BENCHMARK(BM_ForbiddenResponse);

}  // namespace

BENCHMARK_MAIN();
