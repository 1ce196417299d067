// podgroup::HierarchyTracker: upstream's TestHierarchyTracker
// (pkg/scheduler/framework/plugins/gangscheduling/hierarchy_tracker_test.go, the version with
// OnPodAdd/OnPodGroupAdd/OnCompositePodGroupAdd), case by case, with each step's expected ready
// counts; and the root walk.
#include "scheduler/podgroup/hierarchy.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace ksched::scheduler::podgroup {
namespace {

namespace sv1b1 = api::schedulingv1beta1;
namespace sv1a3 = api::schedulingv1alpha3;

// A PodGroup in ns1: gang of min_count, or basic when min_count is unset.
sv1b1::PodGroup pod_group(const std::string& name, std::optional<std::string> parent, std::optional<int> min_count) {
  sv1b1::PodGroup pg;
  pg.metadata.namespace_ = "ns1";
  pg.metadata.name = name;
  pg.spec.parentCompositePodGroupName = std::move(parent);
  if (min_count) {
    sv1b1::GangSchedulingPolicy gang;
    gang.minCount = *min_count;
    pg.spec.schedulingPolicy.gang = gang;
  }
  else
    pg.spec.schedulingPolicy.basic = sv1b1::BasicSchedulingPolicy{};
  return pg;
}

sv1a3::CompositePodGroup composite(const std::string& name, std::optional<std::string> parent,
                                   std::optional<int> min_group_count) {
  sv1a3::CompositePodGroup cpg;
  cpg.metadata.namespace_ = "ns1";
  cpg.metadata.name = name;
  cpg.spec.parentCompositePodGroupName = std::move(parent);
  if (min_group_count) {
    sv1a3::CompositeGangSchedulingPolicy gang;
    gang.minGroupCount = *min_group_count;
    cpg.spec.schedulingPolicy.gang = gang;
  }
  else
    cpg.spec.schedulingPolicy.basic = sv1a3::CompositeBasicSchedulingPolicy{};
  return cpg;
}

api::Pod pod(const std::string& name, const std::string& uid, const std::string& group) {
  api::Pod p;
  p.metadata.namespace_ = "ns1";
  p.metadata.name = name;
  p.metadata.uid = uid;
  api::PodSchedulingGroup g;
  g.podGroupName = group;
  p.spec.schedulingGroup = g;
  return p;
}

HierarchyKey cpg_key(const std::string& name) { return HierarchyKey::composite("ns1", name); }

// "3-level hierarchy propagation (Root CPG -> Mid CPG -> PG1, PG2)".
TEST(HierarchyTracker, ThreeLevelPropagation) {
  HierarchyTracker t;
  t.on_composite(composite("root-cpg", std::nullopt, 1));
  t.on_composite(composite("mid-cpg", "root-cpg", 2));
  t.on_pod_group(pod_group("pg1", "mid-cpg", 2));
  t.on_pod_group(pod_group("pg2", "mid-cpg", 1));
  EXPECT_EQ(t.ready_children(cpg_key("root-cpg")), 0);
  EXPECT_EQ(t.ready_children(cpg_key("mid-cpg")), 0);
  t.on_pod_add(pod("pod-1a", "uid-1a", "pg1"));  // pg1's minCount 2 not met
  EXPECT_EQ(t.ready_children(cpg_key("mid-cpg")), 0);
  t.on_pod_add(pod("pod-1b", "uid-1b", "pg1"));  // pg1 ready; mid needs 2
  EXPECT_EQ(t.ready_children(cpg_key("root-cpg")), 0);
  EXPECT_EQ(t.ready_children(cpg_key("mid-cpg")), 1);
  t.on_pod_add(pod("pod-2a", "uid-2a", "pg2"));  // pg2 ready -> mid ready -> root has 1
  EXPECT_EQ(t.ready_children(cpg_key("root-cpg")), 1);
  EXPECT_EQ(t.ready_children(cpg_key("mid-cpg")), 2);
  auto root = t.root(HierarchyKey::pod_group("ns1", "pg1"));
  ASSERT_TRUE(root);
  EXPECT_EQ(root->key, cpg_key("root-cpg"));
  EXPECT_TRUE(root->ready);
  t.on_pod_delete(pod("pod-1b", "uid-1b", "pg1"));  // pg1 unready -> mid unready -> root unready
  EXPECT_EQ(t.ready_children(cpg_key("root-cpg")), 0);
  EXPECT_EQ(t.ready_children(cpg_key("mid-cpg")), 1);
  EXPECT_FALSE(t.root(HierarchyKey::pod_group("ns1", "pg1"))->ready);
  // The same pod twice counts once.
  t.on_pod_add(pod("pod-2a", "uid-2a", "pg2"));
  EXPECT_EQ(t.ready_children(HierarchyKey::pod_group("ns1", "pg2")), 1);
}

// "Out of order arrival (Pod arrives before PG, PG arrives before CPG)".
TEST(HierarchyTracker, OutOfOrderArrival) {
  HierarchyTracker t;
  t.on_pod_add(pod("pod-1a", "uid-1a", "pg1"));
  t.on_pod_add(pod("pod-1b", "uid-1b", "pg1"));
  EXPECT_EQ(t.ready_children(cpg_key("root-cpg")), 0);
  t.on_pod_group(pod_group("pg1", "root-cpg", 2));  // quorum already met: root gets 1
  EXPECT_EQ(t.ready_children(cpg_key("root-cpg")), 1);
  // The parent is only named so far (FindRootGroupReadiness's dangling parent): no root.
  EXPECT_FALSE(t.root(HierarchyKey::pod_group("ns1", "pg1")));
  t.on_composite(composite("root-cpg", std::nullopt, 1));
  EXPECT_EQ(t.ready_children(cpg_key("root-cpg")), 1);
  auto root = t.root(HierarchyKey::pod_group("ns1", "pg1"));
  ASSERT_TRUE(root);
  EXPECT_EQ(root->key, cpg_key("root-cpg"));
  EXPECT_TRUE(root->ready);
}

// "Re-parenting PodGroup moves readiness count across CPGs".
TEST(HierarchyTracker, ReparentingMovesReadiness) {
  HierarchyTracker t;
  t.on_composite(composite("cpg1", std::nullopt, 1));
  t.on_composite(composite("cpg2", std::nullopt, 1));
  t.on_pod_group(pod_group("pg-reparent", "cpg1", 1));
  t.on_pod_add(pod("pod-reparent", "uid-reparent", "pg-reparent"));
  EXPECT_EQ(t.ready_children(cpg_key("cpg1")), 1);
  EXPECT_EQ(t.ready_children(cpg_key("cpg2")), 0);
  t.on_pod_group(pod_group("pg-reparent", "cpg2", 1));
  EXPECT_EQ(t.ready_children(cpg_key("cpg1")), 0);
  EXPECT_EQ(t.ready_children(cpg_key("cpg2")), 1);
  t.on_pod_group_delete(pod_group("pg-reparent", "cpg2", 1));
  EXPECT_EQ(t.ready_children(cpg_key("cpg1")), 0);
  EXPECT_EQ(t.ready_children(cpg_key("cpg2")), 0);
}

// "Basic scheduling policy evaluates readiness on first pod".
TEST(HierarchyTracker, BasicPolicyIsReadyWithOnePod) {
  HierarchyTracker t;
  t.on_composite(composite("root-basic", std::nullopt, std::nullopt));
  t.on_pod_group(pod_group("child-basic", "root-basic", std::nullopt));
  EXPECT_EQ(t.ready_children(cpg_key("root-basic")), 0);
  t.on_pod_add(pod("pod-basic-1", "uid-basic-1", "child-basic"));
  EXPECT_EQ(t.ready_children(cpg_key("root-basic")), 1);
  EXPECT_TRUE(t.root(HierarchyKey::pod_group("ns1", "child-basic"))->ready);
  t.on_pod_delete(pod("pod-basic-1", "uid-basic-1", "child-basic"));
  EXPECT_EQ(t.ready_children(cpg_key("root-basic")), 0);
}

// Upstream's nil-safety case has no C++ counterpart (references); a pod naming no PodGroup and
// deletes of untracked objects change nothing.
TEST(HierarchyTracker, PodsWithoutAGroupAndUnknownDeletesAreIgnored) {
  HierarchyTracker t;
  api::Pod plain;
  plain.metadata.namespace_ = "ns1";
  plain.metadata.name = "plain";
  t.on_pod_add(plain);
  t.on_pod_delete(plain);
  t.on_pod_group_delete(pod_group("none", std::nullopt, 1));
  t.on_composite_delete(composite("none", std::nullopt, 1));
  EXPECT_EQ(t.ready_children(cpg_key("root-cpg")), 0);
  EXPECT_FALSE(t.root(HierarchyKey::pod_group("ns1", "none")));
}

// A cycle of parents (two CompositePodGroups naming each other) ends the walks: root() gives
// nothing and readiness propagation stops at the depth bound.
TEST(HierarchyTracker, ACycleOfParentsHasNoRoot) {
  HierarchyTracker t;
  t.on_composite(composite("a", "b", 1));
  t.on_composite(composite("b", "a", 1));
  t.on_pod_group(pod_group("pg", "a", 1));
  t.on_pod_add(pod("p", "uid-p", "pg"));
  EXPECT_FALSE(t.root(HierarchyKey::pod_group("ns1", "pg")));
  EXPECT_FALSE(t.root(cpg_key("b")));
}

}  // namespace
}  // namespace ksched::scheduler::podgroup
