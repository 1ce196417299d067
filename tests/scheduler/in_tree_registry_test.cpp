// The in-tree registry (src/scheduler/in_tree_registry.cpp) holds every plugin, under upstream's names.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "scheduler/config/defaults.h"
#include "scheduler/in_tree_registry.h"

namespace ksched::scheduler {
namespace {

TEST(InTreeRegistry, HoldsExactlyTheUpstreamInTreePlugins) {
  // Upstream NewInTreeRegistry (v1.35: DynamicResources, NodeDeclaredFeatures, GangScheduling;
  // v1.36: TopologyPlacement and PodGroupPodsCount).
  const std::set<std::string> want = {
      "DynamicResources",   "DefaultBinder",      "DefaultPreemption", "ImageLocality",    "InterPodAffinity",
      "NodeAffinity",       "NodeDeclaredFeatures", "NodeName",       "NodePorts",        "NodeResourcesBalancedAllocation",
      "NodeResourcesFit",   "NodeUnschedulable", "NodeVolumeLimits", "PodTopologySpread",
      "PrioritySort",       "SchedulingGates",   "TaintToleration",  "VolumeBinding",
      "VolumeRestrictions", "VolumeZone",         "GangScheduling",   "TopologyPlacement", "PodGroupPodsCount",
  };
  auto reg = new_in_tree_registry();
  std::set<std::string> got;
  for (const auto& [name, factory] : reg.all()) {
    got.insert(name);
    EXPECT_TRUE(static_cast<bool>(factory)) << name;
  }
  EXPECT_EQ(got, want);
}

TEST(InTreeRegistry, HoldsEveryPluginOfTheDefaultProfile) {
  auto reg = new_in_tree_registry();
  const auto cfg = config::default_configuration();
  ASSERT_FALSE(cfg.profiles.empty());
  for (const auto& p : cfg.profiles.front().plugins.multiPoint.enabled) {
    EXPECT_NE(reg.find(p.name), nullptr) << p.name;
  }
}

}  // namespace
}  // namespace ksched::scheduler
