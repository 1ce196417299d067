// The Deployment controller against the embedded API server, with the ReplicaSet controller, the
// kubelet stand-in and a binder standing in for the scheduler (upstream: pkg/controller/deployment).
#include <gtest/gtest.h>

#include <mutex>
#include <set>

#include "api/helpers.h"
#include "controllers/deployment/util.h"
#include "fixture.h"

using namespace ksched;
using namespace ksched::testing;
using controllers::Deployment;
using controllers::ReplicaSet;

namespace {

Deployment make_deployment(const std::string& name, int replicas) {
  Deployment d;
  d.apiVersion = "apps/v1";
  d.kind = "Deployment";
  d.metadata.name = name;
  d.metadata.namespace_ = "default";
  d.spec.replicas = replicas;
  d.spec.selector = app_selector(name);
  d.spec.template_ = pod_template(name);
  return d;
}

const controllers::DeploymentCondition* condition(const Deployment& d, std::string_view type) {
  return controllers::deployment::get_condition(d.status, type);
}

}  // namespace

class DeploymentTest : public ControllersTest {
 protected:
  void SetUp() override {
    ControllersTest::SetUp();
    start_nodes(3);
    start_binder();
    start_controllers({"deployment-controller", "replicaset-controller"});
  }
  std::vector<ReplicaSet> replica_sets() {
    auto l = c()->list<ReplicaSet>("default");
    return l ? l->items : std::vector<ReplicaSet>{};
  }
  // The rollout is complete as `kubectl rollout status` sees it.
  bool rolled_out(const std::string& name) {
    return eventually([&] {
      auto d = c()->get<Deployment>("default", name);
      if (!d || d->status.observedGeneration < d->metadata.generation) return false;
      int want = d->spec.replicas.value_or(1);
      return d->status.updatedReplicas == want && d->status.replicas == want && d->status.availableReplicas == want;
    });
  }
  void set_image(const std::string& name, const std::string& image) {
    for (;;) {
      auto d = c()->get<Deployment>("default", name);
      ASSERT_TRUE(d.ok());
      d->spec.template_.spec.containers[0].image = image;
      auto r = c()->update(*d);
      if (r) return;
      ASSERT_TRUE(client::is_conflict(r.error())) << r.error().to_string();
    }
  }
};

// Upstream: getNewReplicaSet creates "<deployment>-<pod-template-hash>" owned by the Deployment,
// the hash in its labels, selector and template; the Deployment's revision 1 and the replica
// annotations (desired-replicas, max-replicas = replicas + maxSurge); once the pods are available
// the status counts them and the conditions are Available/MinimumReplicasAvailable and
// Progressing/NewReplicaSetAvailable.
TEST_F(DeploymentTest, CreatesAReplicaSetNamedByItsTemplateHashAndCompletes) {
  auto d = c()->create(make_deployment("web", 3));
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  ASSERT_TRUE(rolled_out("web"));
  auto rss = replica_sets();
  ASSERT_EQ(rss.size(), 1u);
  const auto& rs = rss[0];
  std::string hash(rs.metadata.labels.get("pod-template-hash"));
  ASSERT_FALSE(hash.empty());
  EXPECT_EQ(rs.metadata.name, "web-" + hash);
  EXPECT_EQ(rs.spec.selector->matchLabels.get("pod-template-hash"), hash);
  EXPECT_EQ(rs.spec.template_.metadata.labels.get("pod-template-hash"), hash);
  EXPECT_TRUE(has_owner(rs.metadata, d->metadata.uid));
  EXPECT_EQ(rs.metadata.annotations.get("deployment.kubernetes.io/revision"), "1");
  EXPECT_EQ(rs.metadata.annotations.get("deployment.kubernetes.io/desired-replicas"), "3");
  EXPECT_EQ(rs.metadata.annotations.get("deployment.kubernetes.io/max-replicas"), "4");  // 3 + ceil(25% of 3)
  for (const auto& p : pods("default", "app=web")) {
    EXPECT_EQ(p.status.phase, "Running");
    EXPECT_EQ(p.metadata.labels.get("pod-template-hash"), hash);
  }
  auto got = c()->get<Deployment>("default", "web");
  EXPECT_EQ(got->metadata.annotations.get("deployment.kubernetes.io/revision"), "1");
  EXPECT_EQ(got->status.readyReplicas, 3);
  EXPECT_EQ(got->status.unavailableReplicas, 0);
  ASSERT_TRUE(eventually([&] {
    auto x = c()->get<Deployment>("default", "web");
    const auto* p = x ? condition(*x, "Progressing") : nullptr;
    return p && p->reason == "NewReplicaSetAvailable";
  }));
  got = c()->get<Deployment>("default", "web");
  const auto* avail = condition(*got, "Available");
  ASSERT_NE(avail, nullptr);
  EXPECT_EQ(avail->status, "True");
  EXPECT_EQ(avail->reason, "MinimumReplicasAvailable");
  EXPECT_EQ(avail->message, "Deployment has minimum availability.");
  const auto* prog = condition(*got, "Progressing");
  EXPECT_EQ(prog->status, "True");
  EXPECT_EQ(prog->message, "ReplicaSet \"" + std::string(rs.metadata.name) + "\" has successfully progressed.");
}

// Upstream's rolling update: the ReplicaSets together never ask for more than replicas +
// maxSurge pods, the new one takes revision 2 and the old one is scaled to 0 and kept.
TEST_F(DeploymentTest, RollingUpdateStaysWithinMaxSurge) {
  auto dep = make_deployment("web", 4);
  dep.spec.strategy.type = "RollingUpdate";
  dep.spec.strategy.rollingUpdate.emplace();
  dep.spec.strategy.rollingUpdate->maxSurge = api::IntOrString::from_int(1);
  dep.spec.strategy.rollingUpdate->maxUnavailable = api::IntOrString::from_int(0);
  ASSERT_TRUE(c()->create(dep).ok());
  ASSERT_TRUE(rolled_out("web"));

  // Watch every ReplicaSet change through the rollout.
  informer::SharedInformerFactory f(new_client());
  auto inf = f.informer_for<ReplicaSet>();
  std::mutex mu;
  int most = 0;
  auto h = std::make_shared<informer::ResourceEventHandlerFuncs<ReplicaSet>>();
  auto look = [&] {
    int sum = 0;
    for (const auto& rs : inf->lister().list()) sum += rs->spec.replicas.value_or(1);
    std::lock_guard l(mu);
    most = std::max(most, sum);
  };
  h->add = [&](const informer::Ptr<ReplicaSet>&, bool) { look(); };
  h->update = [&](const informer::Ptr<ReplicaSet>&, const informer::Ptr<ReplicaSet>&) { look(); };
  inf->add_event_handler(h);
  f.start();
  f.wait_for_cache_sync(std::chrono::seconds(10));

  set_image("web", "nginx:1.25");
  ASSERT_TRUE(eventually([&] {
    auto d = c()->get<Deployment>("default", "web");
    return d && d->metadata.annotations.get("deployment.kubernetes.io/revision") == "2";
  }));
  ASSERT_TRUE(rolled_out("web"));
  ASSERT_TRUE(eventually([&] {
    int old_replicas = -1;
    for (const auto& rs : replica_sets())
      if (rs.spec.template_.spec.containers[0].image == "nginx") old_replicas = rs.spec.replicas.value_or(1);
    return old_replicas == 0;
  }));
  f.shutdown();
  {
    std::lock_guard l(mu);
    EXPECT_LE(most, 5) << "replicas + maxSurge";
  }
  auto rss = replica_sets();
  ASSERT_EQ(rss.size(), 2u);
  for (const auto& rs : rss) {
    bool fresh = rs.spec.template_.spec.containers[0].image == "nginx:1.25";
    EXPECT_EQ(rs.metadata.annotations.get("deployment.kubernetes.io/revision"), fresh ? "2" : "1");
    EXPECT_EQ(rs.spec.replicas.value_or(1), fresh ? 4 : 0);
  }
  for (const auto& p : pods("default", "app=web"))
    if (!p.metadata.deletionTimestamp) {
      EXPECT_EQ(p.spec.containers[0].image, "nginx:1.25");
    }
}

// Upstream's Recreate: the old ReplicaSet goes to 0 and its pods are gone before the new one
// is scaled up; both never run pods at once.
TEST_F(DeploymentTest, RecreateStopsTheOldPodsFirst) {
  auto dep = make_deployment("db", 2);
  dep.spec.strategy.type = "Recreate";
  ASSERT_TRUE(c()->create(dep).ok());
  ASSERT_TRUE(rolled_out("db"));
  informer::SharedInformerFactory f(new_client());
  auto inf = f.informer_for<api::Pod>();
  std::mutex mu;
  bool overlap = false;
  auto h = std::make_shared<informer::ResourceEventHandlerFuncs<api::Pod>>();
  auto look = [&] {
    std::set<std::string> images;
    for (const auto& p : inf->lister().list())
      if (p->metadata.labels.get("app") == "db") images.insert(std::string(p->spec.containers[0].image));
    std::lock_guard l(mu);
    if (images.size() > 1) overlap = true;
  };
  h->add = [&](const informer::Ptr<api::Pod>&, bool) { look(); };
  h->update = [&](const informer::Ptr<api::Pod>&, const informer::Ptr<api::Pod>&) { look(); };
  inf->add_event_handler(h);
  f.start();
  f.wait_for_cache_sync(std::chrono::seconds(10));
  set_image("db", "postgres:17");
  ASSERT_TRUE(eventually([&] {
    auto d = c()->get<Deployment>("default", "db");
    return d && d->metadata.annotations.get("deployment.kubernetes.io/revision") == "2";
  }));
  ASSERT_TRUE(rolled_out("db"));
  f.shutdown();
  std::lock_guard l(mu);
  EXPECT_FALSE(overlap) << "old and new pods existed at the same time";
}

// Scaling (the sync path): the one active ReplicaSet follows spec.replicas both ways, its
// desired-replicas annotation with it.
TEST_F(DeploymentTest, ScalesUpAndDown) {
  ASSERT_TRUE(c()->create(make_deployment("web", 2)).ok());
  ASSERT_TRUE(rolled_out("web"));
  for (int n : {5, 1}) {
    auto r = c()->patch<Deployment>("default", "web", client::PatchType::Merge,
                                    R"({"spec":{"replicas":)" + std::to_string(n) + "}}");
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    ASSERT_TRUE(rolled_out("web"));
    ASSERT_TRUE(eventually([&] { return static_cast<int>(pods("default", "app=web").size()) == n; }));
    auto rss = replica_sets();
    ASSERT_EQ(rss.size(), 1u);
    EXPECT_EQ(rss[0].metadata.annotations.get("deployment.kubernetes.io/desired-replicas"), std::to_string(n));
  }
}

// Upstream's cleanupDeployment: old ReplicaSets beyond revisionHistoryLimit are deleted, oldest
// revision first, once they are empty.
TEST_F(DeploymentTest, KeepsRevisionHistoryLimitOldReplicaSets) {
  auto dep = make_deployment("web", 1);
  dep.spec.revisionHistoryLimit = 1;
  ASSERT_TRUE(c()->create(dep).ok());
  ASSERT_TRUE(rolled_out("web"));
  for (const char* image : {"nginx:1", "nginx:2", "nginx:3"}) {
    set_image("web", image);
    ASSERT_TRUE(eventually([&] {
      auto d = c()->get<Deployment>("default", "web");
      return d && d->status.observedGeneration == d->metadata.generation;
    }));
    ASSERT_TRUE(rolled_out("web"));
  }
  ASSERT_TRUE(eventually([&] { return replica_sets().size() == 2u; }));
  std::set<std::string> revisions;
  for (const auto& rs : replica_sets())
    revisions.insert(std::string(rs.metadata.annotations.get("deployment.kubernetes.io/revision")));
  EXPECT_EQ(revisions, (std::set<std::string>{"3", "4"}));
}

// Upstream's progress check: without progress for progressDeadlineSeconds the Progressing
// condition turns False with ProgressDeadlineExceeded (what makes `kubectl rollout status` fail).
TEST_F(DeploymentTest, ReportsProgressDeadlineExceeded) {
  auto dep = make_deployment("stuck", 1);
  dep.spec.progressDeadlineSeconds = 1;
  dep.spec.template_.spec.schedulingGates.push_back(api::PodSchedulingGate{"wait", {}, {}});  // never bound
  ASSERT_TRUE(c()->create(dep).ok());
  ASSERT_TRUE(eventually(
      [&] {
        auto d = c()->get<Deployment>("default", "stuck");
        const auto* p = d ? condition(*d, "Progressing") : nullptr;
        return p && p->status == "False" && p->reason == "ProgressDeadlineExceeded";
      },
      std::chrono::seconds(20)));
  auto d = c()->get<Deployment>("default", "stuck");
  auto rss = replica_sets();
  ASSERT_EQ(rss.size(), 1u);
  EXPECT_EQ(condition(*d, "Progressing")->message,
            "ReplicaSet \"" + std::string(rss[0].metadata.name) + "\" has timed out progressing.");
  EXPECT_EQ(condition(*d, "Available")->status, "False");
}

// ---------------------------------------------------------------- units

// Upstream's ResolveFenceposts and NewRSNewReplicas arithmetic.
TEST(DeploymentUtil, FencepostsAndNewReplicas) {
  using namespace controllers::deployment;
  auto d = make_deployment("x", 10);
  apply_defaults(d);
  EXPECT_EQ(max_surge(d), 3);        // 25% of 10 rounded up
  EXPECT_EQ(max_unavailable(d), 2);  // 25% of 10 rounded down
  d.spec.replicas = 1;
  EXPECT_EQ(max_surge(d), 1);
  EXPECT_EQ(max_unavailable(d), 0);
  d.spec.strategy.rollingUpdate->maxSurge = api::IntOrString::from_int(0);
  d.spec.strategy.rollingUpdate->maxUnavailable = api::IntOrString::from_string("10%");
  EXPECT_EQ(max_unavailable(d), 1) << "both rounded to zero: one unavailable";

  auto rs = [](int n) {
    auto r = std::make_shared<ReplicaSet>();
    r->spec.replicas = n;
    return r;
  };
  d.spec.replicas = 10;
  d.spec.strategy.rollingUpdate->maxSurge = api::IntOrString::from_int(3);
  auto fresh = rs(2), old = rs(8);
  EXPECT_EQ(new_rs_new_replicas(d, {fresh, old}, *fresh), 5);  // up to 13 in all
  fresh = rs(9);
  old = rs(4);
  EXPECT_EQ(new_rs_new_replicas(d, {fresh, old}, *fresh), 9);  // 13 already
  d.spec.strategy.type = "Recreate";
  EXPECT_EQ(new_rs_new_replicas(d, {fresh, old}, *fresh), 10);
}
