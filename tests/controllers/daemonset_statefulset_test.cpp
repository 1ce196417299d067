// The DaemonSet and StatefulSet controllers against the embedded API server, with the kubelet
// stand-in and a binder standing in for the scheduler (upstream: pkg/controller/daemon and
// pkg/controller/statefulset).
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <set>

#include "controllers/daemon/daemon_set.h"
#include "fixture.h"

using namespace ksched;
using namespace ksched::testing;
using controllers::DaemonSet;
using controllers::StatefulSet;

namespace {

DaemonSet make_ds(const std::string& name) {
  DaemonSet ds;
  ds.apiVersion = "apps/v1";
  ds.kind = "DaemonSet";
  ds.metadata.name = name;
  ds.metadata.namespace_ = "default";
  ds.spec.selector = app_selector(name);
  ds.spec.template_ = pod_template(name, "fluentd");
  return ds;
}

StatefulSet make_sts(const std::string& name, int replicas) {
  StatefulSet s;
  s.apiVersion = "apps/v1";
  s.kind = "StatefulSet";
  s.metadata.name = name;
  s.metadata.namespace_ = "default";
  s.spec.replicas = replicas;
  s.spec.serviceName = name;
  s.spec.selector = app_selector(name);
  s.spec.template_ = pod_template(name, "postgres");
  return s;
}

}  // namespace

class DaemonSetTest : public ControllersTest {
 protected:
  void SetUp() override {
    ControllersTest::SetUp();
    start_nodes(3);
    start_binder();
    start_controllers({"daemonset-controller"});
  }
  // Daemon pods by the node their affinity pins them to.
  std::map<std::string, int> per_node(const std::string& app) {
    std::map<std::string, int> out;
    for (const auto& p : pods("default", "app=" + app)) {
      if (p.metadata.deletionTimestamp) continue;
      const auto& terms = p.spec.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution->nodeSelectorTerms;
      out[terms.at(0).matchFields.at(0).values.at(0)]++;
    }
    return out;
  }
};

// Upstream: one pod per eligible node, pinned by a required node affinity on metadata.name
// (matchFields) that replaces the template's own, with the daemon tolerations and the
// controller-revision-hash label; a node added later gets its pod; status counts them.
TEST_F(DaemonSetTest, RunsOnePodPerNodeIncludingNodesAddedLater) {
  auto ds = make_ds("agent");
  api::NodeSelectorRequirement r;
  r.key = "kubernetes.io/os";
  r.operator_ = "In";
  r.values = {"linux"};
  api::NodeSelectorTerm t;
  t.matchExpressions.push_back(r);
  ds.spec.template_.spec.affinity.emplace().nodeAffinity.emplace().requiredDuringSchedulingIgnoredDuringExecution.emplace()
      .nodeSelectorTerms.push_back(t);
  ASSERT_TRUE(c()->create(ds).ok());
  // The kubelet stand-in labels nodes kubernetes.io/os=linux, which the template's affinity wants.
  ASSERT_TRUE(eventually([&] { return per_node("agent") == std::map<std::string, int>{{"node-0", 1}, {"node-1", 1}, {"node-2", 1}}; }));
  ASSERT_TRUE(eventually([&] {
    auto d = c()->get<DaemonSet>("default", "agent");
    return d && d->status.desiredNumberScheduled == 3 && d->status.numberReady == 3 &&
           d->status.updatedNumberScheduled == 3 && d->status.numberAvailable == 3 &&
           d->status.observedGeneration == d->metadata.generation;
  }));
  for (const auto& p : pods("default", "app=agent")) {
    EXPECT_FALSE(p.metadata.labels.get("controller-revision-hash").empty());
    EXPECT_EQ(p.metadata.labels.get("pod-template-generation"), "1");
    const auto& terms = p.spec.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution->nodeSelectorTerms;
    ASSERT_EQ(terms.size(), 1u);
    EXPECT_TRUE(terms[0].matchExpressions.empty()) << "the template's required terms are replaced";
    EXPECT_EQ(terms[0].matchFields[0].key, "metadata.name");
    std::set<std::string> tol;
    for (const auto& x : p.spec.tolerations) tol.insert(x.key + ":" + x.effect);
    for (const char* want : {"node.kubernetes.io/not-ready:NoExecute", "node.kubernetes.io/unreachable:NoExecute",
                             "node.kubernetes.io/disk-pressure:NoSchedule", "node.kubernetes.io/memory-pressure:NoSchedule",
                             "node.kubernetes.io/pid-pressure:NoSchedule", "node.kubernetes.io/unschedulable:NoSchedule"})
      EXPECT_TRUE(tol.count(want)) << want;
  }
  add_node("node-3");
  ASSERT_TRUE(eventually([&] { return per_node("agent").count("node-3") == 1; }));
  ASSERT_TRUE(eventually([&] {
    auto d = c()->get<DaemonSet>("default", "agent");
    return d && d->status.desiredNumberScheduled == 4 && d->status.numberAvailable == 4;
  }));
}

// NodeShouldRunDaemonPod: a NoSchedule taint the pods do not tolerate keeps a node out (and a
// pod already there may stay); NoExecute makes it leave.
TEST(DaemonSetPlacement, TaintsAndSelectorsDecide) {
  auto ds = make_ds("agent");
  api::Node n = bare_node("n");
  n.metadata.labels.set("disk", "ssd");
  EXPECT_EQ(controllers::DaemonSetController::should_run(n, ds), std::make_pair(true, true));
  ds.spec.template_.spec.nodeSelector.set("disk", "hdd");
  EXPECT_EQ(controllers::DaemonSetController::should_run(n, ds), std::make_pair(false, false));
  ds.spec.template_.spec.nodeSelector = {};
  api::Taint t;
  t.key = "dedicated";
  t.effect = "NoSchedule";
  n.spec.taints.push_back(t);
  EXPECT_EQ(controllers::DaemonSetController::should_run(n, ds), std::make_pair(false, true));
  n.spec.taints[0].effect = "NoExecute";
  EXPECT_EQ(controllers::DaemonSetController::should_run(n, ds), std::make_pair(false, false));
  n.spec.taints[0].key = "node.kubernetes.io/unreachable";  // tolerated by every daemon pod
  EXPECT_EQ(controllers::DaemonSetController::should_run(n, ds), std::make_pair(true, true));
}

class StatefulSetTest : public ControllersTest {
 protected:
  void SetUp() override {
    ControllersTest::SetUp();
    start_nodes(2);
    start_binder();
    start_controllers({"statefulset-controller"});
  }
};

// Upstream's OrderedReady: <set>-0, -1, -2 created one at a time, each after its predecessor is
// Running and Ready, with the pod-name and pod-index labels, hostname and subdomain; scaled down
// from the highest ordinal; the status as `kubectl rollout status sts` reads it.
TEST_F(StatefulSetTest, CreatesPodsInOrderAndRemovesThemInReverse) {
  informer::SharedInformerFactory f(new_client());
  auto inf = f.informer_for<api::Pod>();
  std::mutex mu;
  std::vector<std::string> created;
  std::map<std::string, bool> ready_when_next_created;
  auto h = std::make_shared<informer::ResourceEventHandlerFuncs<api::Pod>>();
  h->add = [&](const informer::Ptr<api::Pod>& p, bool) {
    std::lock_guard l(mu);
    if (!created.empty()) {
      auto prev = inf->lister().get("default", created.back());
      bool ready = false;
      if (prev)
        for (const auto& c : prev->status.conditions) ready = ready || (c.type == "Ready" && c.status == "True");
      ready_when_next_created[created.back()] = ready;
    }
    created.push_back(std::string(p->metadata.name));
  };
  inf->add_event_handler(h);
  f.start();
  f.wait_for_cache_sync(std::chrono::seconds(10));

  ASSERT_TRUE(c()->create(make_sts("db", 3)).ok());
  ASSERT_TRUE(eventually([&] {
    auto s = c()->get<StatefulSet>("default", "db");
    return s && s->status.readyReplicas == 3 && s->status.replicas == 3 && s->status.updatedReplicas == 3 &&
           s->status.currentRevision == s->status.updateRevision && !s->status.updateRevision.empty();
  }));
  {
    std::lock_guard l(mu);
    EXPECT_EQ(created, (std::vector<std::string>{"db-0", "db-1", "db-2"}));
    EXPECT_TRUE(ready_when_next_created["db-0"]) << "db-1 created before db-0 was Ready";
    EXPECT_TRUE(ready_when_next_created["db-1"]) << "db-2 created before db-1 was Ready";
  }
  for (const auto& p : pods("default", "app=db")) {
    EXPECT_EQ(p.metadata.labels.get("statefulset.kubernetes.io/pod-name"), p.metadata.name);
    EXPECT_EQ(p.metadata.labels.get("apps.kubernetes.io/pod-index"), std::string(p.metadata.name).substr(3));
    auto spec = api::encode(p.spec);
    EXPECT_NE(spec.find("\"hostname\":\"" + std::string(p.metadata.name) + "\""), std::string::npos) << spec;
    EXPECT_NE(spec.find("\"subdomain\":\"db\""), std::string::npos) << spec;
  }
  ASSERT_TRUE(c()->patch<StatefulSet>("default", "db", client::PatchType::Merge, R"({"spec":{"replicas":1}})").ok());
  ASSERT_TRUE(eventually([&] {
    auto ps = pods("default", "app=db");
    return ps.size() == 1 && ps[0].metadata.name == "db-0";
  }));
  f.shutdown();
}

// Parallel: every pod at once, no waiting for readiness; and a template change rolls the pods
// to the new revision.
TEST_F(StatefulSetTest, ParallelCreatesAllAtOnceAndRollsUpdates) {
  auto s = make_sts("cache", 3);
  s.spec.podManagementPolicy = "Parallel";
  ASSERT_TRUE(c()->create(s).ok());
  ASSERT_TRUE(eventually([&] {
    auto x = c()->get<StatefulSet>("default", "cache");
    return x && x->status.readyReplicas == 3;
  }));
  auto before = c()->get<StatefulSet>("default", "cache");
  std::string rev1 = before->status.updateRevision;
  ASSERT_TRUE(c()->patch<StatefulSet>("default", "cache", client::PatchType::StrategicMerge,
                                      R"({"spec":{"template":{"spec":{"containers":[{"name":"app","image":"postgres:17"}]}}}})")
                  .ok());
  ASSERT_TRUE(eventually([&] {
    auto x = c()->get<StatefulSet>("default", "cache");
    return x && x->status.updateRevision != rev1 && x->status.currentRevision == x->status.updateRevision &&
           x->status.updatedReplicas == 3 && x->status.readyReplicas == 3;
  }));
  for (const auto& p : pods("default", "app=cache")) EXPECT_EQ(p.spec.containers[0].image, "postgres:17");
}
