// Controllers across an API server restart on a durable store: the informers' watches break, the
// server's history starts over at the recovered revision, so the reflectors get 410 Gone and list
// again; the ReplicaSet controller must then neither lose nor duplicate pods.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "fixture.h"

using namespace ksched;
using namespace ksched::testing;
using controllers::ReplicaSet;

class RestartTest : public ControllersTest {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ksched-controllers-restart.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir = tmpl;
    start_server_with_controllers(0, dir);
    port = server->port();
    start_controllers({"replicaset-controller"});
  }
  void TearDown() override {
    ControllersTest::TearDown();
    std::filesystem::remove_all(dir);
  }
  bool settled(int n) {
    return eventually([&] {
      auto rs = c()->get<ReplicaSet>("default", "web");
      return rs && rs->status.observedGeneration == rs->metadata.generation && rs->status.replicas == n &&
             static_cast<int>(pods("default", "app=web").size()) == n;
    });
  }
  std::string dir;
  std::uint16_t port = 0;
};

TEST_F(RestartTest, NoDuplicatePodsAfterRestartAndRelist) {
  ReplicaSet rs;
  rs.apiVersion = "apps/v1";
  rs.kind = "ReplicaSet";
  rs.metadata.name = "web";
  rs.metadata.namespace_ = "default";
  rs.spec.replicas = 5;
  rs.spec.selector = app_selector("web");
  rs.spec.template_ = pod_template("web");
  ASSERT_TRUE(c()->create(rs).ok());
  ASSERT_TRUE(settled(5));
  // A write the controllers' informers do not watch: after the restart their last revision is
  // older than the store's, below its (empty) history.
  ASSERT_TRUE(c()->create(client::ResourceRef{.resource = "configmaps", .namespace_ = "default"},
                          R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bump"}})")
                  .ok());
  auto before = manager->informer_counts();

  server->stop();
  server.reset();
  start_server_with_controllers(port, dir);
  EXPECT_EQ(pods("default", "app=web").size(), 5u) << "the durable store kept the pods";

  // The informers list again (410 Gone for their old revision), the controller finds its 5 pods
  // and, asked for 7, creates exactly 2.
  ASSERT_TRUE(eventually([&] { return manager->informer_counts().lists > before.lists; }));
  ASSERT_TRUE(c()->patch<ReplicaSet>("default", "web", client::PatchType::Merge, R"({"spec":{"replicas":7}})").ok());
  ASSERT_TRUE(settled(7));
  auto after = manager->informer_counts();
  EXPECT_GT(after.lists, before.lists);
  // Every pod has the ReplicaSet as controller, and none is a duplicate of an old one.
  auto ps = pods("default", "app=web");
  EXPECT_EQ(ps.size(), 7u);
  std::set<std::string> names;
  for (const auto& p : ps) names.insert(std::string(p.metadata.name));
  EXPECT_EQ(names.size(), 7u);
}
