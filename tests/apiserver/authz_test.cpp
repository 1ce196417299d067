// Authorization of every request (authorization.h, rbac_authorizer.h, rbac_escalation.h): request-info
// parsing as upstream reads a request, the RBAC decisions and upstream's Forbidden texts for each
// kind of request the security review of issue #38 made as a user allowed only `get pods` in
// team-a, RBAC's escalation checks, anonymous requests, the self-reviews kubectl auth can-i uses,
// and the identities of ksched's own components.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "api_harness.h"
#include "apiserver/auth/auth.h"
#include "apiserver/auth/authorization.h"
#include "apiserver/auth/bootstrap_policy.h"
#include "apiserver/auth/components.h"
#include "apiserver/auth/rbac_authorizer.h"
#include "apiserver/endpoints/request_info.h"

namespace ksched::apiserver {
namespace {

namespace json = boost::json;

// ------------------------------------------------------------------------------ request info

struct InfoCase {
  std::string method, target;
  bool resource;
  std::string verb, group, ns, resource_name, subresource, name;
};

RequestInfo info_of(const std::string& method, const std::string& target, std::string& path_storage,
                    std::vector<std::pair<std::string, std::string>>& query_storage) {
  auto q = target.find('?');
  path_storage = target.substr(0, q);
  query_storage.clear();
  if (q != std::string::npos) query_storage = parse_query(target.substr(q + 1));
  return parse_request_info(method, path_storage, query_storage);
}

TEST(RequestInfoTest, ReadsRequestsAsUpstream) {
  const std::vector<InfoCase> cases = {
      // Resource requests: the verb from the method, list/watch/deletecollection without a name.
      {"GET", "/api/v1/namespaces", true, "list", "", "", "namespaces", "", ""},
      {"GET", "/api/v1/namespaces/other", true, "get", "", "other", "namespaces", "", "other"},
      {"GET", "/api/v1/namespaces/other/pods", true, "list", "", "other", "pods", "", ""},
      {"GET", "/api/v1/namespaces/other/pods/foo", true, "get", "", "other", "pods", "", "foo"},
      {"HEAD", "/api/v1/namespaces/other/pods/foo", true, "get", "", "other", "pods", "", "foo"},
      {"GET", "/api/v1/namespaces/other/pods/foo/status", true, "get", "", "other", "pods", "status", "foo"},
      {"GET", "/api/v1/pods", true, "list", "", "", "pods", "", ""},
      {"GET", "/api/v1/pods?watch=true", true, "watch", "", "", "pods", "", ""},
      {"GET", "/api/v1/pods?watch=1", true, "watch", "", "", "pods", "", ""},
      {"GET", "/api/v1/pods?watch=FALSE", true, "list", "", "", "pods", "", ""},
      {"GET", "/api/v1/pods?watch=0", true, "list", "", "", "pods", "", ""},
      {"POST", "/api/v1/namespaces/other/pods", true, "create", "", "other", "pods", "", ""},
      {"PUT", "/api/v1/namespaces/other/pods/foo", true, "update", "", "other", "pods", "", "foo"},
      {"PATCH", "/api/v1/namespaces/other/pods/foo/status", true, "patch", "", "other", "pods", "status",
       "foo"},
      {"DELETE", "/api/v1/namespaces/other/pods/foo", true, "delete", "", "other", "pods", "", "foo"},
      {"DELETE", "/api/v1/namespaces/other/pods", true, "deletecollection", "", "other", "pods", "", ""},
      {"POST", "/api/v1/namespaces/other/pods/foo/binding", true, "create", "", "other", "pods", "binding",
       "foo"},
      {"POST", "/api/v1/namespaces/other/pods/foo/eviction", true, "create", "", "other", "pods", "eviction",
       "foo"},
      {"POST", "/api/v1/namespaces/other/bindings", true, "create", "", "other", "bindings", "", ""},
      {"PUT", "/api/v1/namespaces/other/finalize", true, "update", "", "other", "namespaces", "finalize",
       "other"},
      {"PUT", "/api/v1/namespaces/other/status", true, "update", "", "other", "namespaces", "status",
       "other"},
      {"GET", "/apis/apps/v1/namespaces/other/deployments/d/scale", true, "get", "apps", "other",
       "deployments", "scale", "d"},
      {"GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles", true, "list", "rbac.authorization.k8s.io",
       "", "clusterroles", "", ""},
      // A list that names one object by field selector authorizes as a request for it.
      {"GET", "/api/v1/namespaces/other/pods?fieldSelector=metadata.name%3Dfoo", true, "list", "", "other",
       "pods", "", "foo"},
      {"GET", "/api/v1/nodes?fieldSelector=metadata.name%3Dn1&watch=1", true, "watch", "", "", "nodes", "",
       "n1"},
      {"GET", "/api/v1/nodes?fieldSelector=metadata.name%21%3Dn1", true, "list", "", "", "nodes", "", ""},
      {"GET", "/api/v1/nodes?fieldSelector=metadata.name%3D..", true, "list", "", "", "nodes", "", ""},
      // The deprecated /watch/ and /proxy/ path prefixes.
      {"GET", "/api/v1/watch/namespaces/other/pods", true, "watch", "", "other", "pods", "", ""},
      {"GET", "/api/v1/watch/pods", true, "watch", "", "", "pods", "", ""},
      {"GET", "/api/v1/proxy/namespaces/other/pods/foo/a/b", true, "proxy", "", "other", "pods", "", "foo"},
      // Non-resource requests: the lower-case method.
      {"GET", "/api", false, "get", "", "", "", "", ""},
      {"GET", "/api/v1", false, "get", "", "", "", "", ""},
      {"GET", "/apis", false, "get", "", "", "", "", ""},
      {"GET", "/apis/apps", false, "get", "", "", "", "", ""},
      {"GET", "/apis/apps/v1", false, "get", "", "", "", "", ""},
      {"GET", "/healthz", false, "get", "", "", "", "", ""},
      {"POST", "/healthz/ping", false, "post", "", "", "", "", ""},
      {"GET", "/openapi/v3/apis/apps/v1", false, "get", "", "", "", "", ""},
      {"GET", "/", false, "get", "", "", "", "", ""},
  };
  for (const auto& c : cases) {
    std::string path;
    std::vector<std::pair<std::string, std::string>> query;
    RequestInfo i = info_of(c.method, c.target, path, query);
    SCOPED_TRACE(c.method + " " + c.target);
    EXPECT_FALSE(i.malformed);
    EXPECT_EQ(i.resource_request, c.resource);
    EXPECT_EQ(i.verb, c.verb);
    EXPECT_EQ(i.group, c.group);
    EXPECT_EQ(i.ns, c.ns);
    EXPECT_EQ(i.resource, c.resource_name);
    EXPECT_EQ(i.subresource, c.subresource);
    EXPECT_EQ(i.name(), c.name);
    EXPECT_EQ(i.path, path);
  }
  std::string path;
  std::vector<std::pair<std::string, std::string>> query;
  EXPECT_TRUE(info_of("GET", "/api/v1/watch", path, query).malformed);
}

// ------------------------------------------------------------------------------ the attacks

// The security review's setup: `limited` (a token-file user, so also system:authenticated) may only
// get pods in team-a, through a Role and a RoleBinding.
class AuthzTest : public ApiHarness {
 protected:
  AuthzTest() {
    admin("POST", "/api/v1/namespaces", R"({"metadata":{"name":"team-a"}})");
    admin(
        "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/roles",
        R"({"metadata":{"name":"pod-getter"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]})");
    admin(
        "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings",
        R"({"metadata":{"name":"limited-get-pods"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"pod-getter"},)"
        R"("subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"limited"}]})");
    admin("POST", "/api/v1/namespaces/team-a/pods", kPod);
    admin("POST", "/api/v1/namespaces/team-a/secrets",
          R"({"metadata":{"name":"db"},"stringData":{"password":"x"}})");
    admin("POST", "/api/v1/namespaces/kube-system/secrets",
          R"({"metadata":{"name":"root"},"stringData":{"k":"v"}})");
  }

  void admin(const std::string& method, const std::string& target, const std::string& body = "") {
    auto r = call(method, target, body);
    ASSERT_LT(r.status, 300) << method << " " << target << ": " << r.body;
  }
  Response as(const UserInfo& u, const std::string& method, const std::string& target,
              const std::string& body = "", const std::string& content_type = "application/json") {
    return call(method, target, body, content_type, "application/json", &u);
  }
  // The request is refused with exactly upstream's Forbidden Status.
  void expect_forbidden(const UserInfo& u, const std::string& method, const std::string& target,
                        const std::string& message, const std::string& body = "",
                        const std::string& content_type = "application/json") {
    SCOPED_TRACE(method + " " + target);
    auto r = as(u, method, target, body, content_type);
    ASSERT_EQ(r.status, 403) << r.body;
    auto s = parse(r);
    EXPECT_EQ(s["kind"], "Status");
    EXPECT_EQ(s["status"], "Failure");
    EXPECT_EQ(s["reason"], "Forbidden");
    EXPECT_EQ(s["code"], 403);
    EXPECT_EQ(std::string(s["message"].as_string()), message);
  }

  static constexpr const char* kPod =
      R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"pause"}]}})";
  UserInfo limited{"limited", "1001", {"system:authenticated"}};
};

TEST_F(AuthzTest, LimitedUserCanDoWhatItsRoleAllows) {
  auto r = as(limited, "GET", "/api/v1/namespaces/team-a/pods/p");
  EXPECT_EQ(r.status, 200) << r.body;
  // And what every authenticated user may: discovery, health, self-reviews.
  EXPECT_EQ(as(limited, "GET", "/api").status, 200);
  EXPECT_EQ(as(limited, "GET", "/apis/apps/v1").status, 200);
  EXPECT_EQ(as(limited, "GET", "/version").status, 200);
  EXPECT_EQ(as(limited, "GET", "/openapi/v3").status, 200);
}

TEST_F(AuthzTest, LimitedUserCannotListSecretsAcrossNamespaces) {
  expect_forbidden(
      limited, "GET", "/api/v1/secrets",
      R"(secrets is forbidden: User "limited" cannot list resource "secrets" in API group "" at the cluster scope)");
  expect_forbidden(
      limited, "GET", "/api/v1/secrets?watch=1",
      R"(secrets is forbidden: User "limited" cannot watch resource "secrets" in API group "" at the cluster scope)");
  expect_forbidden(
      limited, "GET", "/api/v1/namespaces/team-a/secrets",
      R"(secrets is forbidden: User "limited" cannot list resource "secrets" in API group "" in the namespace "team-a")");
  expect_forbidden(
      limited, "GET", "/api/v1/namespaces/kube-system/secrets",
      R"(secrets is forbidden: User "limited" cannot list resource "secrets" in API group "" in the namespace "kube-system")");
  expect_forbidden(
      limited, "GET", "/api/v1/namespaces/team-a/secrets/db",
      R"(secrets "db" is forbidden: User "limited" cannot get resource "secrets" in API group "" in the namespace "team-a")");
  // Details name the resource and the object.
  auto r = parse(as(limited, "GET", "/api/v1/namespaces/team-a/secrets/db"));
  EXPECT_EQ(r["details"], (json::object{{"name", "db"}, {"kind", "secrets"}}));
}

TEST_F(AuthzTest, LimitedUserCannotListPodsItMayOnlyGet) {
  expect_forbidden(
      limited, "GET", "/api/v1/namespaces/team-a/pods",
      R"(pods is forbidden: User "limited" cannot list resource "pods" in API group "" in the namespace "team-a")");
  expect_forbidden(
      limited, "GET", "/api/v1/pods",
      R"(pods is forbidden: User "limited" cannot list resource "pods" in API group "" at the cluster scope)");
  expect_forbidden(
      limited, "GET", "/api/v1/namespaces/default/pods/p",
      R"(pods "p" is forbidden: User "limited" cannot get resource "pods" in API group "" in the namespace "default")");
}

TEST_F(AuthzTest, LimitedUserCannotCreatePods) {
  expect_forbidden(
      limited, "POST", "/api/v1/namespaces/team-a/pods",
      R"(pods is forbidden: User "limited" cannot create resource "pods" in API group "" in the namespace "team-a")",
      R"({"metadata":{"name":"evil"},"spec":{"containers":[{"name":"c","image":"x"}]}})");
  expect_forbidden(
      limited, "POST", "/api/v1/namespaces/default/pods",
      R"(pods is forbidden: User "limited" cannot create resource "pods" in API group "" in the namespace "default")",
      R"({"metadata":{"name":"evil"},"spec":{"containers":[{"name":"c","image":"x"}]}})");
  EXPECT_EQ(call("GET", "/api/v1/namespaces/team-a/pods/evil").status, 404);
}

TEST_F(AuthzTest, LimitedUserCannotBindPods) {
  const std::string binding = R"({"metadata":{"name":"p"},"target":{"kind":"Node","name":"n1"}})";
  expect_forbidden(
      limited, "POST", "/api/v1/namespaces/team-a/pods/p/binding",
      R"(pods "p" is forbidden: User "limited" cannot create resource "pods/binding" in API group "" in the namespace "team-a")",
      binding);
  expect_forbidden(
      limited, "POST", "/api/v1/namespaces/team-a/bindings",
      R"(bindings is forbidden: User "limited" cannot create resource "bindings" in API group "" in the namespace "team-a")",
      binding);
  auto pod = parse(call("GET", "/api/v1/namespaces/team-a/pods/p"));
  EXPECT_FALSE(pod["spec"].as_object().contains("nodeName"));
}

TEST_F(AuthzTest, LimitedUserCannotEvictOrDeletePods) {
  expect_forbidden(
      limited, "POST", "/api/v1/namespaces/team-a/pods/p/eviction",
      R"(pods "p" is forbidden: User "limited" cannot create resource "pods/eviction" in API group "" in the namespace "team-a")",
      R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p"}})");
  expect_forbidden(
      limited, "DELETE", "/api/v1/namespaces/team-a/pods/p",
      R"(pods "p" is forbidden: User "limited" cannot delete resource "pods" in API group "" in the namespace "team-a")");
  expect_forbidden(
      limited, "DELETE", "/api/v1/namespaces/team-a/pods",
      R"(pods is forbidden: User "limited" cannot deletecollection resource "pods" in API group "" in the namespace "team-a")");
  EXPECT_EQ(call("GET", "/api/v1/namespaces/team-a/pods/p").status, 200);
}

TEST_F(AuthzTest, LimitedUserCannotChangePods) {
  expect_forbidden(
      limited, "PUT", "/api/v1/namespaces/team-a/pods/p",
      R"(pods "p" is forbidden: User "limited" cannot update resource "pods" in API group "" in the namespace "team-a")",
      kPod);
  expect_forbidden(
      limited, "PATCH", "/api/v1/namespaces/team-a/pods/p",
      R"(pods "p" is forbidden: User "limited" cannot patch resource "pods" in API group "" in the namespace "team-a")",
      R"({"metadata":{"labels":{"a":"b"}}})", "application/merge-patch+json");
  expect_forbidden(
      limited, "PATCH", "/api/v1/namespaces/team-a/pods/p/status",
      R"(pods "p" is forbidden: User "limited" cannot patch resource "pods/status" in API group "" in the namespace "team-a")",
      R"({"status":{"phase":"Running"}})", "application/merge-patch+json");
}

TEST_F(AuthzTest, LimitedUserCannotGrantItselfClusterAdmin) {
  const std::string rb =
      R"({"metadata":{"name":"escalate"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"cluster-admin"},)"
      R"("subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"limited"}]})";
  expect_forbidden(
      limited, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings",
      R"(rolebindings.rbac.authorization.k8s.io is forbidden: User "limited" cannot create resource "rolebindings" in API group "rbac.authorization.k8s.io" in the namespace "team-a")",
      rb);
  expect_forbidden(
      limited, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
      R"(clusterrolebindings.rbac.authorization.k8s.io is forbidden: User "limited" cannot create resource "clusterrolebindings" in API group "rbac.authorization.k8s.io" at the cluster scope)",
      rb);
  expect_forbidden(
      limited, "PATCH", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/roles/pod-getter",
      R"(roles.rbac.authorization.k8s.io "pod-getter" is forbidden: User "limited" cannot patch resource "roles" in API group "rbac.authorization.k8s.io" in the namespace "team-a")",
      R"({"rules":[{"apiGroups":["*"],"resources":["*"],"verbs":["*"]}]})", "application/merge-patch+json");
  EXPECT_EQ(call("GET", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings/escalate").status,
            404);
}

TEST_F(AuthzTest, LimitedUserCannotListNodesOrNamespaces) {
  expect_forbidden(
      limited, "GET", "/api/v1/nodes",
      R"(nodes is forbidden: User "limited" cannot list resource "nodes" in API group "" at the cluster scope)");
  expect_forbidden(
      limited, "GET", "/api/v1/namespaces",
      R"(namespaces is forbidden: User "limited" cannot list resource "namespaces" in API group "" at the cluster scope)");
  // A namespace is read in its own namespace: no RoleBinding there lets limited get it.
  expect_forbidden(
      limited, "GET", "/api/v1/namespaces/team-a",
      R"(namespaces "team-a" is forbidden: User "limited" cannot get resource "namespaces" in API group "" in the namespace "team-a")");
}

TEST_F(AuthzTest, LimitedUserCannotReadOtherKindsOrPaths) {
  expect_forbidden(
      limited, "GET", "/apis/apps/v1/namespaces/team-a/deployments",
      R"(deployments.apps is forbidden: User "limited" cannot list resource "deployments" in API group "apps" in the namespace "team-a")");
  expect_forbidden(
      limited, "GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles",
      R"(clusterroles.rbac.authorization.k8s.io is forbidden: User "limited" cannot list resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope)");
  // A resource the server does not serve is authorized first, as upstream's filter runs before routing.
  expect_forbidden(
      limited, "GET", "/apis/example.com/v1/widgets",
      R"(widgets.example.com is forbidden: User "limited" cannot list resource "widgets" in API group "example.com" at the cluster scope)");
  expect_forbidden(limited, "GET", "/metrics", R"(forbidden: User "limited" cannot get path "/metrics")");
}

// The Forbidden message must not read as HTML.
TEST_F(AuthzTest, ForbiddenMessageIsSanitized) {
  expect_forbidden(
      limited, "GET", "/api/v1/namespaces/<b>/secrets",
      R"(secrets is forbidden: User "limited" cannot list resource "secrets" in API group "" in the namespace "&lt;b&gt;")");
  expect_forbidden(limited, "GET", "/x&y", R"(forbidden: User "limited" cannot get path "/x&amp;y")");
}

TEST_F(AuthzTest, MissingRoleIsTheDenialReason) {
  admin(
      "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings",
      R"({"metadata":{"name":"dangling"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"gone"},)"
      R"("subjects":[{"kind":"User","name":"limited"}]})");
  expect_forbidden(
      limited, "GET", "/api/v1/namespaces/team-a/configmaps",
      R"(configmaps is forbidden: User "limited" cannot list resource "configmaps" in API group "" in the namespace "team-a": RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found)");
}

// ------------------------------------------------------------------------------ policy changes

TEST_F(AuthzTest, GrantsAndRevocationsTakeEffectAtOnce) {
  expect_forbidden(
      limited, "GET", "/api/v1/namespaces/team-a/secrets",
      R"(secrets is forbidden: User "limited" cannot list resource "secrets" in API group "" in the namespace "team-a")");
  admin(
      "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings",
      R"({"metadata":{"name":"view"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"edit"},)"
      R"("subjects":[{"kind":"Group","name":"system:authenticated"}]})");
  EXPECT_EQ(as(limited, "GET", "/api/v1/namespaces/team-a/secrets").status, 200);
  EXPECT_EQ(as(limited, "GET", "/api/v1/namespaces/default/secrets").status, 403);
  admin("DELETE", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings/view");
  EXPECT_EQ(as(limited, "GET", "/api/v1/namespaces/team-a/secrets").status, 403);
  // A role's rules changing changes what its bindings grant.
  admin(
      "PUT", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/roles/pod-getter",
      R"({"metadata":{"name":"pod-getter"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get","list"]}]})");
  EXPECT_EQ(as(limited, "GET", "/api/v1/namespaces/team-a/pods").status, 200);
  admin("DELETE", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/roles/pod-getter");
  EXPECT_EQ(as(limited, "GET", "/api/v1/namespaces/team-a/pods/p").status, 403);
}

// Requests on several threads while the policy changes: each thread keeps the index it last used
// (rbac_authorizer.h); once a change is committed, every thread's next request sees it.
TEST_F(AuthzTest, ConcurrentRequestsSeeEveryPolicyChange) {
  const std::string binding =
      R"({"metadata":{"name":"secrets"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"edit"},)"
      R"("subjects":[{"kind":"User","name":"limited"}]})";
  // phase % 4: 0 no binding, 1 being created, 2 bound, 3 being deleted; -1: stop.
  std::atomic<int> phase{0};
  std::atomic<int> wrong{0}, checked{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&] {
      for (;;) {
        const int before = phase.load();
        if (before < 0) return;
        const int status = as(limited, "GET", "/api/v1/namespaces/team-a/secrets").status;
        const int after = phase.load();
        // Only a decision taken wholly within a settled phase is checked.
        if (before != after || before % 2 != 0) continue;
        ++checked;
        if (status != (before % 4 == 2 ? 200 : 403)) ++wrong;
      }
    });
  }
  // In each settled phase, wait until the readers made a few decisions in it (bounded).
  auto settle = [&] {
    const int target = checked.load() + 8;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (checked.load() < target && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  };
  settle();
  for (int i = 0; i < 20; ++i) {
    phase.fetch_add(1);
    admin("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings", binding);
    phase.fetch_add(1);
    settle();
    phase.fetch_add(1);
    admin("DELETE", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings/secrets");
    phase.fetch_add(1);
    settle();
  }
  phase.store(-1);
  for (auto& t : readers) t.join();
  EXPECT_GE(checked.load(), 8 * 41);
  EXPECT_EQ(wrong.load(), 0);
}

TEST_F(AuthzTest, ServiceAccountSubjectsMatchTheirUserName) {
  admin(
      "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings",
      R"({"metadata":{"name":"sa"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},)"
      R"("subjects":[{"kind":"ServiceAccount","name":"ci"}]})");
  UserInfo sa{"system:serviceaccount:team-a:ci", "", {"system:serviceaccounts", "system:authenticated"}};
  EXPECT_EQ(as(sa, "GET", "/api/v1/namespaces/team-a/pods").status, 200);
  EXPECT_EQ(as(sa, "GET", "/api/v1/namespaces/default/pods").status, 403);
  UserInfo other{"system:serviceaccount:default:ci", "", {"system:authenticated"}};
  EXPECT_EQ(as(other, "GET", "/api/v1/namespaces/team-a/pods").status, 403);
}

// ------------------------------------------------------------------------------ escalation

class EscalationTest : public AuthzTest {
 protected:
  EscalationTest() {
    // ns-admin: upstream's admin role in team-a (it may write roles and role bindings there).
    admin(
        "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings",
        R"({"metadata":{"name":"ns-admin"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"admin"},)"
        R"("subjects":[{"kind":"User","name":"ns-admin"}]})");
  }
  UserInfo ns_admin{"ns-admin", "", {"system:authenticated"}};
  static std::string binding(const std::string& name, const std::string& kind, const std::string& role) {
    return R"({"metadata":{"name":")" + name +
           R"("},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":")" + kind + R"(","name":")" +
           role + R"("},"subjects":[{"kind":"User","name":"limited"}]})";
  }
};

TEST_F(EscalationTest, NamespaceAdminCannotBindClusterAdmin) {
  expect_forbidden(
      ns_admin, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings",
      "rolebindings.rbac.authorization.k8s.io \"escalate\" is forbidden: user \"ns-admin\" "
      "(groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n"
      "{APIGroups:[\"*\"], Resources:[\"*\"], Verbs:[\"*\"]}\n{NonResourceURLs:[\"*\"], Verbs:[\"*\"]}",
      binding("escalate", "ClusterRole", "cluster-admin"));
  auto r = parse(as(ns_admin, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings",
                    binding("escalate", "ClusterRole", "cluster-admin")));
  EXPECT_EQ(
      r["details"],
      (json::object{{"name", "escalate"}, {"group", "rbac.authorization.k8s.io"}, {"kind", "rolebindings"}}));
  EXPECT_EQ(call("GET", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings/escalate").status,
            404);
}

TEST_F(EscalationTest, BindingARoleWhoseRulesYouHoldIsAllowed) {
  // view's rules are a subset of admin's.
  auto r = as(ns_admin, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings",
              binding("viewer", "ClusterRole", "view"));
  EXPECT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(as(limited, "GET", "/api/v1/namespaces/team-a/configmaps").status, 200);
  // A binding to a role that does not exist: its NotFound.
  r = as(ns_admin, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings",
         binding("x", "Role", "nope"));
  EXPECT_EQ(r.status, 404) << r.body;
  EXPECT_EQ(message(r), R"(roles.rbac.authorization.k8s.io "nope" not found)");
}

TEST_F(EscalationTest, TheBindVerbAllowsBindingWithoutHoldingTheRules) {
  admin(
      "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles",
      R"({"metadata":{"name":"bind-cluster-admin"},"rules":[{"apiGroups":["rbac.authorization.k8s.io"],"resources":["clusterroles"],"verbs":["bind"],"resourceNames":["cluster-admin"]}]})");
  admin(
      "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings",
      R"({"metadata":{"name":"binder"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"bind-cluster-admin"},)"
      R"("subjects":[{"kind":"User","name":"ns-admin"}]})");
  auto r = as(ns_admin, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings",
              binding("granted", "ClusterRole", "cluster-admin"));
  EXPECT_EQ(r.status, 201) << r.body;
  // Only within team-a: cluster-admin through a RoleBinding is admin of the namespace.
  EXPECT_EQ(as(limited, "GET", "/api/v1/namespaces/team-a/secrets").status, 200);
  EXPECT_EQ(as(limited, "GET", "/api/v1/namespaces/kube-system/secrets").status, 403);
}

TEST_F(EscalationTest, RolesCannotGrantMoreThanTheirAuthorHolds) {
  expect_forbidden(
      ns_admin, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/roles",
      "roles.rbac.authorization.k8s.io \"nodes\" is forbidden: user \"ns-admin\" "
      "(groups=[\"system:authenticated\"]) "
      "is attempting to grant RBAC permissions not currently held:\n"
      "{APIGroups:[\"\"], Resources:[\"nodes\"], Verbs:[\"get\" \"list\"]}",
      R"({"metadata":{"name":"nodes"},"rules":[{"apiGroups":[""],"resources":["nodes","pods"],"verbs":["get","list"]}]})");
  auto r = as(
      ns_admin, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/roles",
      R"({"metadata":{"name":"reader"},"rules":[{"apiGroups":[""],"resources":["pods","configmaps"],"verbs":["get","list"]}]})");
  EXPECT_EQ(r.status, 201) << r.body;
  // An update is checked too, after the patch applies.
  expect_forbidden(ns_admin, "PATCH", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/roles/reader",
                   "roles.rbac.authorization.k8s.io \"reader\" is forbidden: user \"ns-admin\" "
                   "(groups=[\"system:authenticated\"]) "
                   "is attempting to grant RBAC permissions not currently held:\n"
                   "{APIGroups:[\"\"], Resources:[\"nodes\"], Verbs:[\"get\"]}",
                   R"({"rules":[{"apiGroups":[""],"resources":["nodes"],"verbs":["get"]}]})",
                   "application/merge-patch+json");
  // The garbage collector's writes (owner references, finalizers) pass whatever the role holds.
  admin("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/roles",
        R"({"metadata":{"name":"big"},"rules":[{"apiGroups":["*"],"resources":["*"],"verbs":["*"]}]})");
  r = as(ns_admin, "PATCH", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/roles/big",
         R"({"metadata":{"finalizers":["example.com/x"]}})", "application/merge-patch+json");
  EXPECT_EQ(r.status, 200) << r.body;
}

TEST_F(EscalationTest, SystemMastersIsExempt) {
  auto r = call("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings",
                binding("by-admin", "ClusterRole", "cluster-admin"));
  EXPECT_EQ(r.status, 201) << r.body;
}

// ------------------------------------------------------------------------------ anonymous, modes

TEST_F(AuthzTest, AnonymousMayReadHealthAndVersionOnly) {
  const UserInfo& anon = TokenAuthenticator::anonymous_user();
  EXPECT_EQ(anon.name, "system:anonymous");
  EXPECT_EQ(anon.groups, std::vector<std::string>{"system:unauthenticated"});
  for (const char* p : {"/healthz", "/livez", "/readyz", "/version", "/version/"})
    EXPECT_EQ(as(anon, "GET", p).status, 200) << p;
  expect_forbidden(
      anon, "GET", "/api/v1/pods",
      R"(pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" at the cluster scope)");
  expect_forbidden(anon, "GET", "/api", R"(forbidden: User "system:anonymous" cannot get path "/api")");
  expect_forbidden(anon, "GET", "/healthz/ping",
                   R"(forbidden: User "system:anonymous" cannot get path "/healthz/ping")");
}

TEST_F(AuthzTest, SystemMastersIsAlwaysAllowed) {
  UserInfo root{"someone", "", {"system:masters"}};
  // Even with no binding at all (the privileged-group authorizer, not RBAC).
  call("DELETE", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/cluster-admin");
  EXPECT_EQ(as(root, "GET", "/api/v1/secrets").status, 200);
  EXPECT_EQ(as(root, "DELETE", "/api/v1/namespaces/team-a/pods/p").status, 200);
}

TEST_F(AuthzTest, AlwaysAllowModeAdmitsEveryAuthenticatedRequest) {
  api_.set_authorization_mode(AuthorizationMode::AlwaysAllow);
  EXPECT_EQ(as(limited, "GET", "/api/v1/secrets").status, 200);
  EXPECT_EQ(as(TokenAuthenticator::anonymous_user(), "GET", "/api/v1/nodes").status, 200);
  EXPECT_FALSE(parse_authorization_mode("ABAC").ok());
  EXPECT_EQ(*parse_authorization_mode("AlwaysAllow"), AuthorizationMode::AlwaysAllow);
}

TEST_F(AuthzTest, RequestWithoutUserIsRefused) {
  Request r;
  r.method = "GET";
  r.path = "/api/v1/pods";
  EXPECT_EQ(api_.handle(r).status, 500);
}

// ------------------------------------------------------------------------------ reviews

TEST_F(AuthzTest, SelfSubjectAccessReviewAnswersForTheCaller) {
  auto ssar = [&](const std::string& attrs) {
    auto r = as(
        limited, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
        R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":)" + attrs + "}");
    EXPECT_EQ(r.status, 201) << r.body;
    return parse(r);
  };
  auto yes = ssar(R"({"resourceAttributes":{"namespace":"team-a","verb":"get","resource":"pods"}})");
  EXPECT_EQ(yes["kind"], "SelfSubjectAccessReview");
  EXPECT_EQ(yes["status"].as_object()["allowed"], true);
  EXPECT_EQ(
      yes["status"].as_object()["reason"],
      R"(RBAC: allowed by RoleBinding "limited-get-pods/team-a" of Role "pod-getter" to User "limited")");
  auto no = ssar(R"({"resourceAttributes":{"verb":"list","resource":"secrets"}})");
  EXPECT_EQ(no["status"].as_object()["allowed"], false);
  EXPECT_FALSE(no["status"].as_object().contains("reason"));
  auto path = ssar(R"({"nonResourceAttributes":{"verb":"get","path":"/version"}})");
  EXPECT_EQ(path["status"].as_object()["allowed"], true);
  EXPECT_EQ(
      path["status"].as_object()["reason"],
      R"(RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated")");
  auto bad = as(limited, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", R"({"spec":{}})");
  EXPECT_EQ(bad.status, 422);
  EXPECT_EQ(message(bad),
            "SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: spec.resourceAttributes: "
            "Invalid value: \"null\": exactly one of nonResourceAttributes or resourceAttributes must be "
            "specified");
  // Anonymous callers may not ask (system:basic-user is bound to authenticated users only).
  expect_forbidden(
      TokenAuthenticator::anonymous_user(), "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
      R"(selfsubjectaccessreviews.authorization.k8s.io is forbidden: User "system:anonymous" cannot create resource "selfsubjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope)",
      R"({"spec":{"resourceAttributes":{"verb":"get","resource":"pods"}}})");
}

TEST_F(AuthzTest, SelfSubjectRulesReviewListsTheCallersRules) {
  auto r = as(
      limited, "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
      R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","spec":{"namespace":"team-a"}})");
  ASSERT_EQ(r.status, 201) << r.body;
  auto st = parse(r)["status"].as_object();
  EXPECT_EQ(st["incomplete"], false);
  bool get_pods = false, ssar = false;
  for (const auto& rule : st["resourceRules"].as_array()) {
    const auto& o = rule.as_object();
    if (o.at("resources") == json::array{"pods"} && o.at("verbs") == json::array{"get"}) get_pods = true;
    for (const auto& res : o.at("resources").as_array()) ssar = ssar || res == "selfsubjectaccessreviews";
  }
  EXPECT_TRUE(get_pods);
  EXPECT_TRUE(ssar);
  bool version = false;
  for (const auto& rule : st["nonResourceRules"].as_array())
    for (const auto& u : rule.as_object().at("nonResourceURLs").as_array())
      version = version || u == "/version";
  EXPECT_TRUE(version);
  // In another namespace the RoleBinding does not apply.
  auto other = parse(as(limited, "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
                        R"({"spec":{"namespace":"default"}})"));
  for (const auto& rule : other["status"].as_object()["resourceRules"].as_array())
    EXPECT_NE(rule.as_object().at("resources"), json::array{"pods"});
  auto none = as(limited, "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", R"({"spec":{}})");
  EXPECT_EQ(none.status, 400);
  EXPECT_EQ(message(none), "no namespace on request");
}

TEST_F(AuthzTest, LocalSubjectAccessReviewIsScopedToItsNamespace) {
  auto lsar = [&](const std::string& url_ns, const std::string& attr_ns) {
    return as(UserInfo{"boss", "", {"system:masters"}}, "POST",
              "/apis/authorization.k8s.io/v1/namespaces/" + url_ns + "/localsubjectaccessreviews",
              R"({"spec":{"user":"limited","resourceAttributes":{"namespace":")" + attr_ns +
                  R"(","verb":"get","resource":"pods"}}})");
  };
  auto r = lsar("team-a", "team-a");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(parse(r)["status"].as_object()["allowed"], true);
  EXPECT_EQ(parse(r)["metadata"].as_object()["namespace"], "team-a");
  r = lsar("team-a", "default");
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(
      message(r),
      "LocalSubjectAccessReview.authorization.k8s.io \"\" is invalid: spec.resourceAttributes.namespace: "
      "Invalid value: \"default\": must match metadata.namespace");
  // limited may not ask for others (upstream's admin role grants localsubjectaccessreviews).
  expect_forbidden(
      limited, "POST", "/apis/authorization.k8s.io/v1/namespaces/team-a/localsubjectaccessreviews",
      R"(localsubjectaccessreviews.authorization.k8s.io is forbidden: User "limited" cannot create resource "localsubjectaccessreviews" in API group "authorization.k8s.io" in the namespace "team-a")",
      R"({"spec":{"user":"x","resourceAttributes":{"namespace":"team-a","verb":"get","resource":"pods"}}})");
}

TEST_F(AuthzTest, SelfSubjectReviewReturnsTheCaller) {
  auto r = as(limited, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", R"({})");
  ASSERT_EQ(r.status, 201) << r.body;
  auto u = parse(r)["status"].as_object()["userInfo"].as_object();
  EXPECT_EQ(u["username"], "limited");
  EXPECT_EQ(u["groups"], (json::array{"system:authenticated"}));
}

TEST_F(AuthzTest, ReviewKindsAreInDiscovery) {
  auto d = parse(call("GET", "/apis/authorization.k8s.io/v1"));
  std::map<std::string, bool> seen;
  for (const auto& r : d["resources"].as_array())
    seen[std::string(r.as_object().at("name").as_string())] = r.as_object().at("namespaced").as_bool();
  EXPECT_EQ(seen, (std::map<std::string, bool>{{"localsubjectaccessreviews", true},
                                               {"selfsubjectaccessreviews", false},
                                               {"selfsubjectrulesreviews", false},
                                               {"subjectaccessreviews", false}}));
  auto openapi = parse(call("GET", "/openapi/v3/apis/authorization.k8s.io/v1"));
  const auto& schemas = openapi["components"].as_object()["schemas"].as_object();
  for (const char* k : {"io.k8s.api.authorization.v1.SelfSubjectAccessReview",
                        "io.k8s.api.authorization.v1.SelfSubjectRulesReview",
                        "io.k8s.api.authorization.v1.LocalSubjectAccessReview"})
    EXPECT_TRUE(schemas.contains(k)) << k;
}

// ------------------------------------------------------------------------------ components

TEST_F(AuthzTest, SchedulerIdentityMayBindButNotCreatePods) {
  UserInfo sched{"system:kube-scheduler", "", {"system:authenticated"}};
  auto r = as(sched, "POST", "/api/v1/namespaces/team-a/pods/p/binding",
              R"({"metadata":{"name":"p"},"target":{"kind":"Node","name":"n1"}})");
  EXPECT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(as(sched, "GET", "/api/v1/pods?watch=1&resourceVersion=0").status, 200);
  EXPECT_EQ(as(sched, "PATCH", "/api/v1/namespaces/team-a/pods/p/status", R"({"status":{}})",
               "application/merge-patch+json")
                .status,
            200);
  expect_forbidden(
      sched, "POST", "/api/v1/namespaces/team-a/pods",
      R"(pods is forbidden: User "system:kube-scheduler" cannot create resource "pods" in API group "" in the namespace "team-a")",
      kPod);
  expect_forbidden(
      sched, "GET", "/api/v1/namespaces/team-a/secrets",
      R"(secrets is forbidden: User "system:kube-scheduler" cannot list resource "secrets" in API group "" in the namespace "team-a")");
  // Leader election: its own lease only.
  EXPECT_EQ(as(sched, "POST", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases",
               R"({"metadata":{"name":"kube-scheduler"},"spec":{}})")
                .status,
            201);
  EXPECT_EQ(as(sched, "PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler",
               R"({"metadata":{"name":"kube-scheduler"},"spec":{"holderIdentity":"me"}})")
                .status,
            200);
  admin("POST", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases",
        R"({"metadata":{"name":"other"},"spec":{}})");
  EXPECT_EQ(as(sched, "PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/other",
               R"({"metadata":{"name":"other"},"spec":{"holderIdentity":"me"}})")
                .status,
            403);
}

TEST_F(AuthzTest, NodeSimulatorIdentityMayRunPodsButNotReadSecrets) {
  const ComponentIdentity& c = *find_component("node-simulator");
  UserInfo sim{std::string(c.user), "", {std::string(c.group), "system:authenticated"}};
  EXPECT_EQ(as(sim, "GET", "/api/v1/nodes").status, 200);
  EXPECT_EQ(as(sim, "GET", "/api/v1/pods?watch=1").status, 200);
  EXPECT_EQ(as(sim, "PATCH", "/api/v1/namespaces/team-a/pods/p/status", R"({"status":{"phase":"Running"}})",
               "application/merge-patch+json")
                .status,
            200);
  expect_forbidden(
      sim, "GET", "/api/v1/namespaces/team-a/secrets/db",
      R"(secrets "db" is forbidden: User "system:node-simulator" cannot get resource "secrets" in API group "" in the namespace "team-a")");
  expect_forbidden(
      sim, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
      R"(clusterrolebindings.rbac.authorization.k8s.io is forbidden: User "system:node-simulator" cannot create resource "clusterrolebindings" in API group "rbac.authorization.k8s.io" at the cluster scope)",
      "{}");
  EXPECT_EQ(as(sim, "DELETE", "/api/v1/namespaces/team-a/pods/p").status, 200);
}

// The simulated DRA drivers publish ResourceSlices and the kubelet stand-in watches claims; the
// claim controller (under the controller manager's identity) makes and releases claims.
TEST_F(AuthzTest, DraComponentsHoldWhatTheirWritesNeed) {
  const ComponentIdentity& c = *find_component("node-simulator");
  UserInfo sim{std::string(c.user), "", {std::string(c.group), "system:authenticated"}};
  const std::string slice =
      R"({"metadata":{"name":"n-gpu-0"},"spec":{"driver":"gpu.ksched.dev","pool":{"name":"n","generation":1,)"
      R"("resourceSliceCount":1},"nodeName":"n","devices":[{"name":"gpu-0"}]}})";
  EXPECT_EQ(as(sim, "POST", "/apis/resource.k8s.io/v1/resourceslices", slice).status, 201);
  EXPECT_EQ(as(sim, "GET", "/apis/resource.k8s.io/v1/resourceslices?watch=1&fieldSelector=spec.nodeName%3Dn").status, 200);
  EXPECT_EQ(as(sim, "GET", "/apis/resource.k8s.io/v1/resourceclaims?watch=1").status, 200);
  EXPECT_EQ(as(sim, "DELETE", "/apis/resource.k8s.io/v1/resourceslices/n-gpu-0").status, 200);
  expect_forbidden(
      sim, "POST", "/apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims",
      R"(resourceclaims.resource.k8s.io is forbidden: User "system:node-simulator" cannot create resource "resourceclaims" in API group "resource.k8s.io" in the namespace "team-a")",
      "{}");

  UserInfo kcm{"system:kube-controller-manager", "", {"system:authenticated"}};
  EXPECT_EQ(as(kcm, "GET", "/apis/resource.k8s.io/v1/resourceclaimtemplates?watch=1").status, 200);
  EXPECT_EQ(as(kcm, "POST", "/apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims",
               R"({"metadata":{"name":"p-gpu-x"},"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu"}}]}}})")
                .status,
            201);
  EXPECT_EQ(as(kcm, "PATCH", "/apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims/p-gpu-x/status",
               R"({"status":{}})", "application/merge-patch+json")
                .status,
            200);
  EXPECT_EQ(as(kcm, "DELETE", "/apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims/p-gpu-x").status, 200);
  expect_forbidden(
      kcm, "POST", "/apis/resource.k8s.io/v1/resourceslices",
      R"(resourceslices.resource.k8s.io is forbidden: User "system:kube-controller-manager" cannot create resource "resourceslices" in API group "resource.k8s.io" at the cluster scope)",
      "{}");
}

TEST_F(AuthzTest, ControllerManagerIdentityHoldsItsControllersRoles) {
  UserInfo kcm{"system:kube-controller-manager", "", {"system:authenticated"}};
  EXPECT_EQ(as(kcm, "GET", "/apis/apps/v1/replicasets?watch=1").status, 200);  // list/watch anything
  EXPECT_EQ(as(kcm, "POST", "/api/v1/namespaces/team-a/pods",
               R"({"metadata":{"name":"rs-1"},"spec":{"containers":[{"name":"c","image":"pause"}]}})")
                .status,
            201);
  EXPECT_EQ(as(kcm, "DELETE", "/api/v1/namespaces/team-a/pods/rs-1").status, 200);
  expect_forbidden(
      kcm, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
      R"(clusterrolebindings.rbac.authorization.k8s.io is forbidden: User "system:kube-controller-manager" cannot create resource "clusterrolebindings" in API group "rbac.authorization.k8s.io" at the cluster scope)",
      "{}");
}

// ------------------------------------------------------------------------------ bootstrap policy

TEST_F(AuthzTest, BootstrapPolicyIsWholeAndAggregated) {
  std::set<std::string> roles;
  for (const auto& o : bootstrap_policy())
    if (o.plural == "clusterroles")
      roles.insert(std::string(o.object.at("metadata").as_object().at("name").as_string()));
  for (const char* r :
       {"cluster-admin", "admin", "edit", "view", "system:discovery", "system:basic-user",
        "system:public-info-viewer", "system:kube-scheduler", "system:volume-scheduler", "system:node",
        "system:kube-controller-manager", "system:controller:deployment-controller",
        "system:controller:replicaset-controller", "system:controller:job-controller",
        "system:controller:daemon-set-controller", "system:controller:statefulset-controller",
        "system:controller:namespace-controller", "system:controller:generic-garbage-collector",
        "system:controller:resource-claim-controller"})
    EXPECT_TRUE(roles.count(r)) << r;
  // Every binding's role exists.
  for (const auto& o : bootstrap_policy()) {
    if (o.plural != "clusterrolebindings") continue;
    std::string role(o.object.at("roleRef").as_object().at("name").as_string());
    EXPECT_TRUE(roles.count(role)) << role;
  }
  // admin > edit > view, as the aggregation controller leaves them.
  UserInfo v{"v", "", {}}, e{"e", "", {}}, a{"a", "", {}};
  for (auto [user, role] : {std::pair{"v", "view"}, std::pair{"e", "edit"}, std::pair{"a", "admin"}})
    admin("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings",
          std::string(R"({"metadata":{"name":")") + user +
              R"("},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":")" + role +
              R"("},"subjects":[{"kind":"User","name":")" + user + R"("}]})");
  EXPECT_EQ(as(v, "GET", "/api/v1/namespaces/team-a/pods").status, 200);
  EXPECT_EQ(as(v, "GET", "/api/v1/namespaces/team-a/secrets").status, 403);
  EXPECT_EQ(as(e, "GET", "/api/v1/namespaces/team-a/secrets").status, 200);
  EXPECT_EQ(as(e, "GET", "/apis/apps/v1/namespaces/team-a/deployments").status, 200);  // from view
  EXPECT_EQ(as(e, "GET", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/roles").status, 403);
  EXPECT_EQ(as(a, "GET", "/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/roles").status, 200);
  EXPECT_NE(as(a, "GET", "/api/v1/namespaces/team-a/pods/p/log").status, 403);  // from view, through edit
}

// The Job controller makes a Job's Workload and PodGroup with GenericWorkload (and passes a
// changed gang minCount on to both: controllers/job/job_scheduling.h), so its role may update them.
TEST(BootstrapPolicyTest, JobControllerMayCreateAndUpdateWorkloadsAndPodGroupsWithGenericWorkload) {
  auto scheduling_verbs = [](const FeatureGates& gates) {
    std::set<std::string> verbs;
    for (const auto& o : bootstrap_policy(gates)) {
      if (o.plural != "clusterroles" ||
          o.object.at("metadata").as_object().at("name").as_string() != "system:controller:job-controller")
        continue;
      for (const auto& rule : o.object.at("rules").as_array()) {
        const auto& r = rule.as_object();
        const auto* groups = r.if_contains("apiGroups");
        if (!groups || groups->as_array().empty() || groups->as_array()[0].as_string() != "scheduling.k8s.io") continue;
        std::set<std::string> resources;
        for (const auto& res : r.at("resources").as_array()) resources.insert(std::string(res.as_string()));
        EXPECT_EQ(resources, (std::set<std::string>{"podgroups", "workloads"}));
        for (const auto& v : r.at("verbs").as_array()) verbs.insert(std::string(v.as_string()));
      }
    }
    return verbs;
  };
  FeatureGates on;
  on.GenericWorkload = true;
  EXPECT_EQ(scheduling_verbs(on), (std::set<std::string>{"create", "get", "list", "patch", "update", "watch"}));
  EXPECT_TRUE(scheduling_verbs(FeatureGates{}).empty());
}

TEST(RbacRulesTest, CoversAndCompactsAsUpstream) {
  PolicyRule all{{"*"}, {"*"}, {"*"}, {}, {}};
  PolicyRule pods{{"get", "list"}, {""}, {"pods", "pods/status"}, {}, {}};
  PolicyRule star_status{{"get"}, {""}, {"*/status"}, {}, {}};
  PolicyRule named{{"get"}, {""}, {"pods"}, {"a", "b"}, {}};
  PolicyRule urls{{"get"}, {}, {}, {}, {"/healthz/*"}};
  std::vector<PolicyRule> missing;
  EXPECT_TRUE(rules_cover({&all}, {pods, named}, nullptr));
  EXPECT_FALSE(rules_cover({&pods}, {all}, &missing));
  EXPECT_TRUE(rules_cover({&star_status}, {PolicyRule{{"get"}, {""}, {"nodes/status"}, {}, {}}}, nullptr));
  EXPECT_TRUE(rules_cover({&pods}, {named}, nullptr));
  EXPECT_FALSE(rules_cover({&named}, {pods}, nullptr));
  EXPECT_TRUE(rules_cover({&urls}, {PolicyRule{{"get"}, {}, {}, {}, {"/healthz/etcd"}}}, nullptr));
  missing.clear();
  EXPECT_FALSE(
      rules_cover({&named}, {PolicyRule{{"get", "watch"}, {""}, {"pods"}, {"a", "c"}, {}}}, &missing));
  EXPECT_EQ(describe_missing_rules(missing),
            (std::vector<std::string>{
                R"({APIGroups:[""], Resources:["pods"], ResourceNames:["a"], Verbs:["watch"]})",
                R"({APIGroups:[""], Resources:["pods"], ResourceNames:["c"], Verbs:["get" "watch"]})"}));
  // RuleAllows: "*/sub" matches a subresource only; names restrict; URL prefixes end in "*".
  UserInfo u{"u", "", {}};
  Attributes a{&u, "get", true, "", "", "v1", "nodes", "status", "", "n1"};
  EXPECT_TRUE(rule_allows(a, star_status));
  a.subresource = "";
  EXPECT_FALSE(rule_allows(a, star_status));
  Attributes p{&u, "get", false, "/healthz/etcd", "", "", "", "", "", ""};
  EXPECT_TRUE(rule_allows(p, urls));
  p.path = "/healthz";
  EXPECT_FALSE(rule_allows(p, urls));
}

}  // namespace
}  // namespace ksched::apiserver
