// The ReplicaSet controller against the embedded API server (upstream: pkg/controller/replicaset).
#include <gtest/gtest.h>

#include <set>

#include "api/helpers.h"
#include "controllers/controller_utils.h"
#include "fixture.h"
#include "util/clock.h"

using namespace ksched;
using namespace ksched::testing;
using controllers::ReplicaSet;

namespace {

ReplicaSet make_rs(const std::string& name, int replicas) {
  ReplicaSet rs;
  rs.apiVersion = "apps/v1";
  rs.kind = "ReplicaSet";
  rs.metadata.name = name;
  rs.metadata.namespace_ = "default";
  rs.spec.replicas = replicas;
  rs.spec.selector = app_selector(name);
  rs.spec.template_ = pod_template(name);
  return rs;
}

}  // namespace

class ReplicaSetTest : public ControllersTest {
 protected:
  void SetUp() override {
    ControllersTest::SetUp();
    start_controllers({"replicaset-controller"});
  }
  void scale(const std::string& name, int n) {
    for (;;) {
      auto rs = c()->get<ReplicaSet>("default", name);
      ASSERT_TRUE(rs.ok());
      rs->spec.replicas = n;
      auto r = c()->update(*rs);
      if (r || !client::is_conflict(r.error())) {
        ASSERT_TRUE(r.ok()) << r.error().to_string();
        return;
      }
    }
  }
  // Waits until the ReplicaSet has observed its generation and reports `n` replicas, with `n` pods.
  bool settled(const std::string& name, int n) {
    return eventually([&] {
      auto rs = c()->get<ReplicaSet>("default", name);
      return rs && rs->status.observedGeneration == rs->metadata.generation && rs->status.replicas == n &&
             static_cast<int>(pods("default", "app=" + name).size()) == n;
    });
  }
};

// Upstream: manageReplicas creates the missing pods from the template, named by generateName
// "<rs>-" with a controller reference (controller and blockOwnerDeletion true), and the status
// counts them (calculateStatus / updateReplicaSetStatus with observedGeneration).
TEST_F(ReplicaSetTest, CreatesOwnedPodsNamedAfterTheReplicaSet) {
  auto rs = c()->create(make_rs("web", 3));
  ASSERT_TRUE(rs.ok()) << rs.error().to_string();
  ASSERT_TRUE(settled("web", 3));
  for (const auto& p : pods("default", "app=web")) {
    EXPECT_EQ(std::string_view(p.metadata.name).substr(0, 4), "web-");
    EXPECT_EQ(p.metadata.name.size(), 9u) << p.metadata.name;  // "web-" + 5 random characters
    ASSERT_EQ(p.metadata.ownerReferences.size(), 1u);
    const auto& ref = p.metadata.ownerReferences[0];
    EXPECT_EQ(ref.kind, "ReplicaSet");
    EXPECT_EQ(ref.apiVersion, "apps/v1");
    EXPECT_EQ(ref.uid, rs->metadata.uid);
    EXPECT_TRUE(ref.controller.value_or(false));
    EXPECT_TRUE(ref.blockOwnerDeletion.value_or(false));
    ASSERT_EQ(p.spec.containers.size(), 1u);
    EXPECT_EQ(p.spec.containers[0].image, "nginx");
  }
  auto st = c()->get<ReplicaSet>("default", "web");
  EXPECT_EQ(st->status.fullyLabeledReplicas, 3);
  EXPECT_EQ(st->status.readyReplicas, 0);  // nothing runs them here
}

TEST_F(ReplicaSetTest, ScalesUpAndDown) {
  ASSERT_TRUE(c()->create(make_rs("web", 2)).ok());
  ASSERT_TRUE(settled("web", 2));
  scale("web", 7);
  ASSERT_TRUE(settled("web", 7));
  scale("web", 3);
  ASSERT_TRUE(settled("web", 3));
  scale("web", 0);
  ASSERT_TRUE(settled("web", 0));
}

// Upstream: getPodsToDelete ranks unassigned pods before assigned ones (ActivePodsWithRanks).
TEST_F(ReplicaSetTest, ScaleDownDeletesUnassignedPodsFirst) {
  ASSERT_TRUE(c()->create(bare_node("n1")).ok());
  ASSERT_TRUE(c()->create(make_rs("web", 5)).ok());
  ASSERT_TRUE(settled("web", 5));
  auto ps = pods("default", "app=web");
  std::set<std::string> bound;
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(c()->bind("default", ps[i].metadata.name, ps[i].metadata.uid, "n1").ok());
    bound.insert(std::string(ps[i].metadata.name));
  }
  // The controller's cache must have seen the bindings: delete an unbound pod after them and
  // wait for its replacement (pod events reach the controller in order).
  std::string gone(ps[4].metadata.name);
  ASSERT_TRUE(c()->remove<api::Pod>("default", gone).ok());
  ASSERT_TRUE(eventually([&] {
    auto now = pods("default", "app=web");
    return now.size() == 5 && std::none_of(now.begin(), now.end(), [&](const api::Pod& p) { return p.metadata.name == gone; });
  }));
  scale("web", 2);
  ASSERT_TRUE(settled("web", 2));
  std::set<std::string> left;
  for (const auto& p : pods("default", "app=web")) left.insert(std::string(p.metadata.name));
  EXPECT_EQ(left, bound);
}

// Upstream: ClaimPods adopts an orphan the selector matches (a patch adds the controller
// reference) and releases an owned pod whose labels no longer match; the released pod is replaced.
TEST_F(ReplicaSetTest, AdoptsOrphansAndReleasesPodsItNoLongerSelects) {
  auto orphan = pause_pod("default", "stray");
  orphan.metadata.labels.set("app", "web");
  ASSERT_TRUE(c()->create(orphan).ok());
  // The controller's cache has the orphan once it counts a pod created after it.
  ASSERT_TRUE(c()->create(make_rs("probe", 1)).ok());
  ASSERT_TRUE(settled("probe", 1));
  auto rs = c()->create(make_rs("web", 2));
  ASSERT_TRUE(rs.ok());
  ASSERT_TRUE(settled("web", 2));
  auto stray = c()->get<api::Pod>("default", "stray");
  ASSERT_TRUE(stray.ok());
  EXPECT_TRUE(has_owner(stray->metadata, rs->metadata.uid)) << "the orphan was adopted";

  // Relabel it: released, and a new pod takes its place.
  ASSERT_TRUE(c()->patch<api::Pod>("default", "stray", client::PatchType::Merge,
                                   R"({"metadata":{"labels":{"app":"other"}}})")
                  .ok());
  ASSERT_TRUE(eventually([&] {
    auto p = c()->get<api::Pod>("default", "stray");
    return p && p->metadata.ownerReferences.empty();
  }));
  ASSERT_TRUE(settled("web", 2));
  for (const auto& p : pods("default", "app=web")) EXPECT_NE(p.metadata.name, "stray");
}

// A pod deleted gracefully (deletionTimestamp set, still on its node) is no longer active: the
// ReplicaSet replaces it at once rather than when the node finishes the deletion.
TEST_F(ReplicaSetTest, ReplacesAPodAsSoonAsItsGracefulDeletionStarts) {
  ASSERT_TRUE(c()->create(bare_node("n1")).ok());
  ASSERT_TRUE(c()->create(make_rs("web", 1)).ok());
  ASSERT_TRUE(settled("web", 1));
  auto p = pods("default", "app=web")[0];
  ASSERT_TRUE(c()->bind("default", p.metadata.name, p.metadata.uid, "n1").ok());
  ASSERT_TRUE(c()->remove<api::Pod>("default", p.metadata.name).ok());  // grace 30 s: it stays, terminating
  ASSERT_TRUE(eventually([&] {
    int active = 0, terminating = 0;
    for (const auto& q : pods("default", "app=web")) (q.metadata.deletionTimestamp ? terminating : active)++;
    return active == 1 && terminating == 1;
  }));
}

// ---------------------------------------------------------------- units

// Upstream's ControllerExpectations: satisfied once every expected creation and deletion was
// observed, or after the five-minute timeout; deletions count only for the keys expected.
TEST(Expectations, SatisfiedWhenObservedOrExpired) {
  util::FakeClock clock;
  controllers::Expectations e(clock);
  EXPECT_TRUE(e.satisfied("ns/rs"));
  e.expect_creations("ns/rs", 2);
  EXPECT_FALSE(e.satisfied("ns/rs"));
  e.creation_observed("ns/rs");
  EXPECT_FALSE(e.satisfied("ns/rs"));
  e.creation_observed("ns/rs");
  EXPECT_TRUE(e.satisfied("ns/rs"));

  e.expect_deletions("ns/rs", {"ns/a", "ns/b"});
  e.deletion_observed("ns/rs", "ns/other");  // not expected: no effect
  e.deletion_observed("ns/rs", "ns/a");
  e.deletion_observed("ns/rs", "ns/a");  // counted once
  EXPECT_FALSE(e.satisfied("ns/rs"));
  clock.step(std::chrono::minutes(5) + std::chrono::seconds(1));
  EXPECT_TRUE(e.satisfied("ns/rs")) << "expired";
  e.expect_creations("ns/rs", 1);
  e.lower_creations("ns/rs", 1);
  EXPECT_TRUE(e.satisfied("ns/rs"));
}

namespace {

std::shared_ptr<const api::Pod> ranked_pod(const std::string& name, const std::string& node, const std::string& phase,
                                           bool ready, std::int64_t created_s, std::int64_t ready_s = 0,
                                           int restarts = 0, const std::string& cost = {}) {
  api::Pod p;
  p.metadata.name = name;
  p.metadata.uid = "uid-" + name;
  p.spec.nodeName = node;
  p.status.phase = phase;
  p.metadata.creationTimestamp = api::Time{created_s * 1'000'000'000};
  if (!cost.empty()) p.metadata.annotations.set("controller.kubernetes.io/pod-deletion-cost", cost);
  if (ready) {
    api::PodCondition c;
    c.type = "Ready";
    c.status = "True";
    c.lastTransitionTime = api::Time{ready_s * 1'000'000'000};
    p.status.conditions.push_back(c);
  }
  api::ContainerStatus cs;
  cs.restartCount = restarts;
  p.status.containerStatuses.push_back(cs);
  return std::make_shared<const api::Pod>(std::move(p));
}

std::vector<std::string> names(const std::vector<std::shared_ptr<const api::Pod>>& v) {
  std::vector<std::string> out;
  for (const auto& p : v) out.emplace_back(p->metadata.name);
  return out;
}

}  // namespace

// Upstream's ActivePodsWithRanks order, rule by rule.
TEST(PodDeletionOrder, FollowsUpstreamRanking) {
  const std::int64_t now = 1'000'000;
  api::Time t{now * 1'000'000'000};
  // 1. unassigned < assigned; 2. Pending < Unknown < Running; 3. not ready < ready.
  std::vector<std::shared_ptr<const api::Pod>> v = {
      ranked_pod("running-ready", "n1", "Running", true, now - 100, now - 50),
      ranked_pod("running", "n1", "Running", false, now - 100),
      ranked_pod("unknown", "n1", "Unknown", false, now - 100),
      ranked_pod("pending", "n1", "Pending", false, now - 100),
      ranked_pod("unassigned", "", "Pending", false, now - 100),
  };
  controllers::sort_pods_for_deletion(v, {}, t);
  EXPECT_EQ(names(v), (std::vector<std::string>{"unassigned", "pending", "unknown", "running", "running-ready"}));

  // 4. lower deletion cost first; 5. more colocated related pods first.
  v = {ranked_pod("cheap", "n1", "Running", true, now - 100, now - 50, 0, "-5"),
       ranked_pod("alone", "n2", "Running", true, now - 100, now - 50),
       ranked_pod("crowded", "n3", "Running", true, now - 100, now - 50)};
  std::vector<std::shared_ptr<const api::Pod>> related = {v[2], ranked_pod("x", "n3", "Running", true, now - 9),
                                                          v[1]};
  controllers::sort_pods_for_deletion(v, related, t);
  EXPECT_EQ(names(v), (std::vector<std::string>{"cheap", "crowded", "alone"}));

  // 6. ready for a shorter time first, on a log2 scale of the time since (3 s and 4 s fall in one
  // bucket, so the tie goes by UID although b became ready later);
  // 7. more restarts first; 8. newer first.
  v = {ranked_pod("old-ready", "n1", "Running", true, now - 1000, now - 1000),
       ranked_pod("b-new-ready", "n1", "Running", true, now - 1000, now - 3),
       ranked_pod("a-new-ready", "n1", "Running", true, now - 1000, now - 4)};
  controllers::sort_pods_for_deletion(v, {}, t);
  EXPECT_EQ(names(v), (std::vector<std::string>{"a-new-ready", "b-new-ready", "old-ready"}));
  v = {ranked_pod("calm", "n1", "Running", false, now - 100), ranked_pod("flaky", "n1", "Running", false, now - 100, 0, 4)};
  controllers::sort_pods_for_deletion(v, {}, t);
  EXPECT_EQ(names(v), (std::vector<std::string>{"flaky", "calm"}));
  v = {ranked_pod("older", "n1", "Running", false, now - 5000), ranked_pod("newer", "n1", "Running", false, now - 10)};
  controllers::sort_pods_for_deletion(v, {}, t);
  EXPECT_EQ(names(v), (std::vector<std::string>{"newer", "older"}));
}
