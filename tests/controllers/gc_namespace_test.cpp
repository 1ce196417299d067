// The garbage collector and the namespace controller against the embedded API server
// (upstream: pkg/controller/garbagecollector and pkg/controller/namespace).
#include <gtest/gtest.h>

#include "fixture.h"

using namespace ksched;
using namespace ksched::testing;
using controllers::ReplicaSet;

namespace {

ReplicaSet make_rs(const std::string& ns, const std::string& name, int replicas) {
  ReplicaSet rs;
  rs.apiVersion = "apps/v1";
  rs.kind = "ReplicaSet";
  rs.metadata.name = name;
  rs.metadata.namespace_ = ns;
  rs.spec.replicas = replicas;
  rs.spec.selector = app_selector(name);
  rs.spec.template_ = pod_template(name);
  return rs;
}

client::DeleteOptions policy(const std::string& p) {
  client::DeleteOptions d;
  d.propagationPolicy = p;
  return d;
}

}  // namespace

class GarbageCollectorTest : public ControllersTest {
 protected:
  void SetUp() override {
    ControllersTest::SetUp();
    start_controllers({"replicaset-controller", "garbage-collector-controller"});
  }
  ReplicaSet running_rs(const std::string& name, int n) {
    auto rs = c()->create(make_rs("default", name, n));
    EXPECT_TRUE(rs.ok());
    EXPECT_TRUE(eventually([&] { return static_cast<int>(pods("default", "app=" + name).size()) == n; }));
    collector_caught_up();
    return *rs;
  }
  // The collector's graph has seen every pod event so far: a pod created now with a dangling
  // owner is collected only after its listener delivered the earlier events (they come in order).
  void collector_caught_up() {
    auto p = pause_pod("default", "probe-" + std::to_string(++probes));
    api::OwnerReference ref;
    ref.apiVersion = "v1";
    ref.kind = "ConfigMap";
    ref.name = "absent";
    ref.uid = "00000000-0000-0000-0000-00000000000" + std::to_string(probes % 10);
    p.metadata.ownerReferences.push_back(ref);
    ASSERT_TRUE(c()->create(p).ok());
    ASSERT_TRUE(eventually([&] { return !c()->get<api::Pod>("default", p.metadata.name).ok(); }));
  }
  int probes = 0;
};

// Background (kubectl's default): the owner goes at once; the collector then deletes every
// object whose owners are all gone.
TEST_F(GarbageCollectorTest, BackgroundDeletesDependentsAfterTheOwner) {
  running_rs("web", 3);
  ASSERT_TRUE(c()->remove<ReplicaSet>("default", "web", policy("Background")).ok());
  EXPECT_FALSE(c()->get<ReplicaSet>("default", "web").ok()) << "the owner is gone at once";
  ASSERT_TRUE(eventually([&] { return pods("default", "app=web").empty(); }));
}

// Foreground: the owner stays (deletionTimestamp, finalizer foregroundDeletion) until its
// blocking dependents are gone, then loses the finalizer and goes.
TEST_F(GarbageCollectorTest, ForegroundDeletesDependentsBeforeTheOwner) {
  running_rs("web", 2);
  ASSERT_TRUE(c()->remove<ReplicaSet>("default", "web", policy("Foreground")).ok());
  auto during = c()->get<ReplicaSet>("default", "web");
  if (during) {  // the collector may already be done
    EXPECT_TRUE(during->metadata.deletionTimestamp.has_value());
    bool fg = false;
    for (const auto& f : during->metadata.finalizers) fg = fg || f == "foregroundDeletion";
    EXPECT_TRUE(fg || during->metadata.finalizers.empty());
  }
  ASSERT_TRUE(eventually([&] { return !c()->get<ReplicaSet>("default", "web").ok(); }));
  EXPECT_TRUE(pods("default", "app=web").empty()) << "the dependents went first";
}

// Orphan: the dependents lose their ownerReference to the owner and stay.
TEST_F(GarbageCollectorTest, OrphanKeepsTheDependents) {
  auto rs = running_rs("web", 2);
  ASSERT_TRUE(c()->remove<ReplicaSet>("default", "web", policy("Orphan")).ok());
  ASSERT_TRUE(eventually([&] { return !c()->get<ReplicaSet>("default", "web").ok(); }));
  auto ps = pods("default", "app=web");
  ASSERT_EQ(ps.size(), 2u);
  for (const auto& p : ps) EXPECT_FALSE(has_owner(p.metadata, rs.metadata.uid));
}

// An object created with an ownerReference to an owner that does not exist is collected (the
// graph's virtual node for the owner turns out absent).
TEST_F(GarbageCollectorTest, CollectsObjectsWhoseOwnerNeverExisted) {
  auto p = pause_pod("default", "dangling");
  api::OwnerReference ref;
  ref.apiVersion = "apps/v1";
  ref.kind = "ReplicaSet";
  ref.name = "ghost";
  ref.uid = "00000000-0000-0000-0000-000000000001";
  p.metadata.ownerReferences.push_back(ref);
  ASSERT_TRUE(c()->create(p).ok());
  ASSERT_TRUE(eventually([&] { return !c()->get<api::Pod>("default", "dangling").ok(); }));
}

class NamespaceControllerTest : public ControllersTest {
 protected:
  void SetUp() override {
    ControllersTest::SetUp();
    start_nodes(1);
    start_binder();
    start_controllers({"replicaset-controller", "namespace-controller", "garbage-collector-controller"});
  }
};

// Upstream: deleting a namespace makes it Terminating; the controller deletes its content
// (graceful pods included, finished by the node), records the deletion conditions, then removes
// the "kubernetes" finalizer and the namespace is gone; nothing is left in it.
TEST_F(NamespaceControllerTest, DeletesTheContentThenTheNamespace) {
  api::Namespace ns;
  ns.apiVersion = "v1";
  ns.kind = "Namespace";
  ns.metadata.name = "team";
  ASSERT_TRUE(c()->create(ns).ok());
  ASSERT_TRUE(c()->create(make_rs("team", "web", 2)).ok());
  auto cm = c()->create(client::ResourceRef{.resource = "configmaps", .namespace_ = "team"},
                        R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings"},"data":{"a":"b"}})");
  ASSERT_TRUE(cm.ok()) << cm.error().to_string();
  ASSERT_TRUE(eventually([&] {
    int running = 0;
    for (const auto& p : pods("team")) running += p.status.phase == "Running";
    return running == 2;
  }));
  auto del = c()->remove<api::Namespace>("", "team");
  ASSERT_TRUE(del.ok()) << del.error().to_string();
  auto terminating = c()->get<api::Namespace>("", "team");
  if (terminating) {
    EXPECT_EQ(terminating->status.phase, "Terminating");
  }
  ASSERT_TRUE(eventually([&] { return !c()->get<api::Namespace>("", "team").ok(); }));
  EXPECT_TRUE(pods("team").empty());
  auto cms = c()->list(client::ResourceRef{.resource = "configmaps", .namespace_ = "team"});
  ASSERT_TRUE(cms.ok());
  EXPECT_EQ(cms->find("\"settings\""), std::string::npos) << *cms;
}
