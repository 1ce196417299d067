// The pod-group state: group keys, membership through adds/updates/deletes, policy lookup.
#include <gtest/gtest.h>

#include "scheduler/podgroup/manager.h"
#include "scheduler_testing/builders.h"
#include "scheduler_testing/workloads.h"

namespace ksched::scheduler::podgroup {
namespace {

namespace s1 = api::schedulingv1alpha1;

PodPtr member(const std::string& name, const std::string& workload, const std::string& group,
              const std::string& replica = "", const std::string& ns = "default") {
  return std::make_shared<const api::Pod>(
      testing::MakePod().Name(name).UID(name + "-uid").Namespace(ns).WorkloadRef(workload, group, replica).Obj());
}

WorkloadPtr workload(const std::string& name) { return testing::MakeGangWorkload(name, 3, /*with_basic_driver=*/true); }

TEST(PodGroupKey, NamesNamespaceWorkloadGroupAndReplica) {
  EXPECT_EQ(group_key(*member("a", "job", "workers", "r1")), "default/job/workers/r1");
  api::Pod plain;
  EXPECT_EQ(group_key(plain), "");
  EXPECT_TRUE(same_group(*member("a", "job", "workers"), *member("b", "job", "workers")));
  EXPECT_FALSE(same_group(*member("a", "job", "workers", "r1"), *member("b", "job", "workers", "r2")));
  EXPECT_FALSE(same_group(*member("a", "job", "workers"), *member("b", "job", "workers", "", "other")));
  EXPECT_FALSE(same_group(*member("a", "job", "workers"), plain));
}

TEST(PodGroupManager, CountsMembersByGroupAcrossAddsUpdatesAndDeletes) {
  Manager m;
  auto a = member("a", "job", "workers");
  auto b = member("b", "job", "workers");
  auto other = member("c", "job", "workers", "r2");
  m.on_pod_add(a);
  m.on_pod_add(b);
  m.on_pod_add(other);
  const std::string key = group_key(*a);
  EXPECT_EQ(m.all_pods_count(key), 2u);
  EXPECT_EQ(m.all_pods_count(group_key(*other)), 1u);
  // An update (the binding) keeps the count and shows the new object.
  auto bound = std::make_shared<api::Pod>(*a);
  bound->spec.nodeName = "n1";
  m.on_pod_update(a, bound);
  EXPECT_EQ(m.all_pods_count(key), 2u);
  int assigned = 0;
  for (const auto& p : m.pods(key)) assigned += !p->spec.nodeName.empty();
  EXPECT_EQ(assigned, 1);
  m.on_pod_delete(bound);
  m.on_pod_delete(b);
  EXPECT_EQ(m.all_pods_count(key), 0u);
  EXPECT_EQ(m.group_count(), 1u);  // empty groups are dropped
}

TEST(PodGroupManager, PolicyComesFromTheWorkloadsPodGroup) {
  Manager m;
  EXPECT_EQ(m.policy(*member("a", "job", "workers")).kind, Policy::Kind::NoWorkload);
  m.on_workload_add(workload("job"));
  auto p = m.policy(*member("a", "job", "workers"));
  EXPECT_EQ(p.kind, Policy::Kind::Gang);
  EXPECT_EQ(p.minCount, 3);
  EXPECT_EQ(m.policy(*member("a", "job", "driver")).kind, Policy::Kind::Basic);
  EXPECT_EQ(m.policy(*member("a", "job", "nope")).kind, Policy::Kind::NoPodGroup);
  m.on_workload_delete(workload("job"));
  EXPECT_EQ(m.policy(*member("a", "job", "workers")).kind, Policy::Kind::NoWorkload);
}

}  // namespace
}  // namespace ksched::scheduler::podgroup
