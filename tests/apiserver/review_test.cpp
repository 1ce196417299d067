// TokenReview and SubjectAccessReview: answered from the server's tokens and stored RBAC, not stored.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "apiserver/auth/auth.h"
#include "apiserver/endpoints/handlers.h"
#include "util/clock.h"

namespace ksched::apiserver {
namespace {

namespace json = boost::json;

class ReviewTest : public ::testing::Test {
 protected:
  ReviewTest() : api_(1000, clock_) {
    api_.bootstrap();
    auth_.add("admin-token", UserInfo{"admin", "admin", {"system:masters", "system:authenticated"}});
    auth_.add("bob-token", UserInfo{"bob", "1001", {"dev"}});
    auth_.add("sched-token", UserInfo{"system:kube-scheduler", "s", {}});
    api_.set_authenticator(&auth_);
  }

  Response post(const std::string& target, const std::string& body, const UserInfo* user = &admin_user()) {
    Request r;
    r.user = user;
    r.method = "POST";
    r.path = target;
    r.body = body;
    r.content_type = "application/json";
    r.accept = "application/json";
    return api_.handle(r);
  }
  static json::object parse(const Response& r) { return json::parse(r.body).as_object(); }

  json::object token_review(const std::string& token) {
    auto r = post("/apis/authentication.k8s.io/v1/tokenreviews",
                  R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":")" + token + R"("}})");
    EXPECT_EQ(r.status, 201) << r.body;
    return parse(r)["status"].as_object();
  }

  json::object sar(const std::string& spec) {
    auto r = post("/apis/authorization.k8s.io/v1/subjectaccessreviews",
                  R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":)" + spec + "}");
    EXPECT_EQ(r.status, 201) << r.body;
    return parse(r)["status"].as_object();
  }
  bool allowed(const std::string& spec) { return sar(spec)["allowed"].as_bool(); }

  util::FakeClock clock_;
  TokenAuthenticator auth_;
  Api api_;
};

TEST_F(ReviewTest, TokenReviewAuthenticatesServerTokens) {
  auto admin = token_review("admin-token");
  EXPECT_EQ(admin["authenticated"], true);
  EXPECT_EQ(admin["user"].as_object()["username"], "admin");
  EXPECT_EQ(admin["user"].as_object()["groups"], (json::array{"system:masters", "system:authenticated"}));

  auto bob = token_review("bob-token");
  EXPECT_EQ(bob["authenticated"], true);
  EXPECT_EQ(bob["user"].as_object()["uid"], "1001");
  EXPECT_EQ(bob["user"].as_object()["groups"], (json::array{"dev", "system:authenticated"}));

  auto nobody = token_review("wrong");
  EXPECT_FALSE(nobody.contains("authenticated"));
  EXPECT_TRUE(nobody["user"].as_object().empty());

  auto empty = post("/apis/authentication.k8s.io/v1/tokenreviews", R"({"spec":{}})");
  EXPECT_EQ(empty.status, 422);
  // Not stored: only create is served.
  Request get;
  get.user = &admin_user();
  get.method = "GET";
  get.path = "/apis/authentication.k8s.io/v1/tokenreviews";
  EXPECT_EQ(api_.handle(get).status, 405);
}

TEST_F(ReviewTest, SubjectAccessReviewEvaluatesRbac) {
  // system:masters is always allowed.
  EXPECT_TRUE(allowed(R"({"user":"admin","groups":["system:masters"],"nonResourceAttributes":{"path":"/metrics","verb":"get"}})"));
  // No binding: denied, without a reason (RBAC has one only for roles it could not resolve).
  auto bob = sar(R"({"user":"bob","groups":["dev","system:authenticated"],"nonResourceAttributes":{"path":"/metrics","verb":"get"}})");
  EXPECT_EQ(bob["allowed"], false);
  EXPECT_FALSE(bob.contains("reason"));

  // The bootstrap binding of system:kube-scheduler.
  auto sched = sar(R"({"user":"system:kube-scheduler","resourceAttributes":{"verb":"create","resource":"pods","subresource":"binding","namespace":"x"}})");
  EXPECT_EQ(sched["allowed"], true);
  EXPECT_EQ(sched["reason"],
            "RBAC: allowed by ClusterRoleBinding \"system:kube-scheduler\" of ClusterRole \"system:kube-scheduler\" to User "
            "\"system:kube-scheduler\"");
  EXPECT_FALSE(allowed(R"({"user":"system:kube-scheduler","resourceAttributes":{"verb":"create","resource":"pods","namespace":"x"}})"));
  // resourceNames restrict: the lease named kube-scheduler only.
  EXPECT_TRUE(allowed(R"({"user":"system:kube-scheduler","resourceAttributes":{"verb":"update","group":"coordination.k8s.io","resource":"leases","name":"kube-scheduler","namespace":"kube-system"}})"));
  EXPECT_FALSE(allowed(R"({"user":"system:kube-scheduler","resourceAttributes":{"verb":"update","group":"coordination.k8s.io","resource":"leases","name":"other","namespace":"kube-system"}})"));

  // Non-resource wildcards, through a group binding.
  ASSERT_EQ(post("/apis/rbac.authorization.k8s.io/v1/clusterroles",
                 R"({"metadata":{"name":"metrics-reader"},"rules":[{"nonResourceURLs":["/metrics","/debug/*"],"verbs":["get"]}]})")
                .status,
            201);
  ASSERT_EQ(post("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
                 R"({"metadata":{"name":"dev-metrics"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"metrics-reader"},)"
                 R"("subjects":[{"kind":"Group","name":"dev"}]})")
                .status,
            201);
  EXPECT_TRUE(allowed(R"({"user":"bob","groups":["dev"],"nonResourceAttributes":{"path":"/metrics","verb":"get"}})"));
  EXPECT_TRUE(allowed(R"({"user":"bob","groups":["dev"],"nonResourceAttributes":{"path":"/debug/pprof/heap","verb":"get"}})"));
  EXPECT_FALSE(allowed(R"({"user":"bob","groups":["dev"],"nonResourceAttributes":{"path":"/metrics","verb":"post"}})"));
  EXPECT_FALSE(allowed(R"({"user":"bob","groups":["ops"],"nonResourceAttributes":{"path":"/metrics","verb":"get"}})"));

  // Namespaced RoleBinding to a ServiceAccount: only in its namespace.
  ASSERT_EQ(post("/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
                 R"({"metadata":{"name":"pod-reader"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get","list"]}]})")
                .status,
            201);
  ASSERT_EQ(post("/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
                 R"({"metadata":{"name":"sa-reads"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"pod-reader"},)"
                 R"("subjects":[{"kind":"ServiceAccount","name":"ci","namespace":"default"}]})")
                .status,
            201);
  const std::string sa = R"("user":"system:serviceaccount:default:ci")";
  EXPECT_TRUE(allowed("{" + sa + R"(,"resourceAttributes":{"verb":"list","resource":"pods","namespace":"default"}})"));
  EXPECT_FALSE(allowed("{" + sa + R"(,"resourceAttributes":{"verb":"list","resource":"pods","namespace":"kube-system"}})"));
  EXPECT_FALSE(allowed("{" + sa + R"(,"resourceAttributes":{"verb":"delete","resource":"pods","namespace":"default"}})"));
  EXPECT_FALSE(allowed("{" + sa + R"(,"resourceAttributes":{"verb":"list","group":"apps","resource":"pods","namespace":"default"}})"));

  // Exactly one of the attribute kinds, and a subject.
  EXPECT_EQ(post("/apis/authorization.k8s.io/v1/subjectaccessreviews", R"({"spec":{"user":"bob"}})").status, 422);
  EXPECT_EQ(post("/apis/authorization.k8s.io/v1/subjectaccessreviews",
                 R"({"spec":{"nonResourceAttributes":{"path":"/metrics","verb":"get"}}})")
                .status,
            422);
}

}  // namespace
}  // namespace ksched::apiserver
