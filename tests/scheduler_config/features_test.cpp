// The scheduler's process-wide feature gates (scheduler/config/features.h).
#include "scheduler/config/features.h"

#include <gtest/gtest.h>

#include "scheduler/config/defaults.h"

namespace ksched::scheduler::config {
namespace {

TEST(Features, V135DefaultsAndGatesGiven) {
  const Features d = features_from_gates({});
  EXPECT_TRUE(d.podLevelResources);      // beta, on since v1.34
  EXPECT_FALSE(d.nodeDeclaredFeatures);  // alpha in v1.35
  const Features f = features_from_gates({{"PodLevelResources", false}, {"NodeDeclaredFeatures", true}, {"Other", true}});
  EXPECT_FALSE(f.podLevelResources);
  EXPECT_TRUE(f.nodeDeclaredFeatures);
  // AllAlpha / AllBeta turn on the gates of their stage that are not named on their own.
  EXPECT_TRUE(features_from_gates({{"AllAlpha", true}}).nodeDeclaredFeatures);
  EXPECT_FALSE(features_from_gates({{"AllAlpha", true}, {"NodeDeclaredFeatures", false}}).nodeDeclaredFeatures);
  EXPECT_FALSE(features_from_gates({{"AllBeta", true}, {"PodLevelResources", false}}).podLevelResources);
}

TEST(Features, GangSchedulingNeedsGenericWorkloadAndAppendsItsPlugin) {
  EXPECT_FALSE(features_from_gates({}).gangScheduling);  // alpha in v1.35
  EXPECT_FALSE(features_from_gates({{"GangScheduling", true}}).gangScheduling);
  EXPECT_TRUE(features_from_gates({{"GangScheduling", true}, {"GenericWorkload", true}}).gangScheduling);
  ScopedFeatures on(Features{.gangScheduling = true});
  EXPECT_EQ(default_plugins().multiPoint.enabled.back().name, names::GangScheduling);
}

// v1.36's TopologyAwareWorkloadScheduling (alpha, off): acts in the gang cycle only, so it needs
// GangScheduling (and GenericWorkload through it); its plugins join the default profile after it.
TEST(Features, TopologyAwareWorkloadSchedulingNeedsGangSchedulingAndAppendsItsPlugins) {
  EXPECT_FALSE(features_from_gates({}).topologyAwareWorkloadScheduling);
  EXPECT_FALSE(features_from_gates({{"TopologyAwareWorkloadScheduling", true}}).topologyAwareWorkloadScheduling);
  EXPECT_TRUE(features_from_gates({{"TopologyAwareWorkloadScheduling", true},
                                   {"GangScheduling", true},
                                   {"GenericWorkload", true}})
                  .topologyAwareWorkloadScheduling);
  ScopedFeatures on(Features{.gangScheduling = true, .topologyAwareWorkloadScheduling = true});
  const auto& enabled = default_plugins().multiPoint.enabled;
  ASSERT_GE(enabled.size(), 3u);
  EXPECT_EQ(enabled[enabled.size() - 3].name, names::GangScheduling);
  EXPECT_EQ(enabled[enabled.size() - 2].name, names::TopologyPlacement);
  EXPECT_EQ(enabled.back().name, names::PodGroupPodsCount);
}

TEST(Features, ScopedFeaturesRestoreAndDriveTheDefaultPlugins) {
  const auto count = [] { return default_plugins().multiPoint.enabled.size(); };
  const auto without = count();
  {
    ScopedFeatures on(Features{.nodeDeclaredFeatures = true});
    EXPECT_TRUE(features().nodeDeclaredFeatures);
    EXPECT_EQ(count(), without + 1);
    EXPECT_EQ(default_plugins().multiPoint.enabled.back().name, names::NodeDeclaredFeatures);
  }
  EXPECT_FALSE(features().nodeDeclaredFeatures);
  EXPECT_EQ(count(), without);
}

}  // namespace
}  // namespace ksched::scheduler::config
