// rbac.authorization.k8s.io/v1 is served as stored resources with upstream's bootstrap roles.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>

#include "api_harness.h"
#include "apiserver/endpoints/handlers.h"
#include "util/clock.h"

namespace ksched::apiserver {
namespace {

namespace json = boost::json;

using RbacTest = ApiHarness;

TEST_F(RbacTest, BootstrapPolicyIsPresent) {
  auto g = call("GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:kube-scheduler");
  ASSERT_EQ(g.status, 200) << g.body;
  auto role = parse(g);
  EXPECT_EQ(role["kind"], "ClusterRole");
  EXPECT_EQ(role["metadata"].as_object()["labels"].as_object()["kubernetes.io/bootstrapping"], "rbac-defaults");
  bool binds = false;
  for (const auto& rule : role["rules"].as_array()) {
    for (const auto& res : rule.as_object().at("resources").as_array()) binds = binds || res == "pods/binding";
  }
  EXPECT_TRUE(binds);
  EXPECT_EQ(call("GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:volume-scheduler").status, 200);
  EXPECT_EQ(call("GET", "/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/roles/"
                        "extension-apiserver-authentication-reader")
                .status,
            200);
  EXPECT_EQ(call("GET", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/"
                        "extension-apiserver-authentication-reader")
                .status,
            404);
}

TEST_F(RbacTest, DiscoveryAndCrud) {
  auto d = call("GET", "/apis/rbac.authorization.k8s.io/v1");
  ASSERT_EQ(d.status, 200) << d.body;
  std::map<std::string, bool> namespaced;
  auto disc = parse(d);
  for (const auto& r : disc["resources"].as_array())
    namespaced[std::string(r.as_object().at("name").as_string())] = r.as_object().at("namespaced").as_bool();
  EXPECT_EQ(namespaced.size(), 4u);
  EXPECT_TRUE(namespaced["roles"]);
  EXPECT_TRUE(namespaced["rolebindings"]);
  EXPECT_FALSE(namespaced["clusterroles"]);
  EXPECT_FALSE(namespaced["clusterrolebindings"]);

  auto c = call("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
                R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"ksched:reader"},)"
                R"("roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},)"
                R"("subjects":[{"kind":"User","name":"alice"}]})");
  ASSERT_EQ(c.status, 201) << c.body;
  auto l = call("GET", "/apis/rbac.authorization.k8s.io/v1/rolebindings");
  ASSERT_EQ(l.status, 200);
  auto list = parse(l);
  EXPECT_EQ(list["kind"], "RoleBindingList");
  bool found = false;
  for (const auto& it : list["items"].as_array())
    found = found || it.as_object().at("metadata").as_object().at("name") == "ksched:reader";
  EXPECT_TRUE(found);
  auto t = call("GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles", "", "application/json",
                "application/json;as=Table;v=v1;g=meta.k8s.io");
  ASSERT_EQ(t.status, 200);
  EXPECT_EQ(parse(t)["kind"], "Table");
  EXPECT_EQ(call("DELETE", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/ksched:reader").status,
            200);
  EXPECT_EQ(call("GET", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/ksched:reader").status,
            404);
}

}  // namespace
}  // namespace ksched::apiserver
