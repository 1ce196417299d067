// kube-scheduler's --feature-gates: the v1.35 gate list and component-base featuregate's rules.
#include "scheduler/config/feature_gates.h"

#include <gtest/gtest.h>

#include <algorithm>


namespace ksched::scheduler::config {
namespace {

// Defaults as v1.35.4's versioned specs give them.
TEST(FeatureGates, DefaultsAreThoseOfV135) {
  const std::map<std::string, bool> none;
  EXPECT_TRUE(feature_enabled(none, "SchedulerQueueingHints"));    // GA in 1.34, locked
  EXPECT_TRUE(feature_enabled(none, "SchedulerPopFromBackoffQ"));  // beta, on since 1.33
  EXPECT_TRUE(feature_enabled(none, "SchedulerAsyncPreemption"));  // beta, on since 1.33
  EXPECT_FALSE(feature_enabled(none, "SchedulerAsyncAPICalls"));   // beta, off in 1.34 and 1.35
  EXPECT_TRUE(feature_enabled(none, "DynamicResourceAllocation")); // GA in 1.34
  EXPECT_TRUE(feature_enabled(none, "PodLevelResources"));         // beta, on since 1.34
  EXPECT_TRUE(feature_enabled(none, "OpportunisticBatching"));     // beta in 1.35
  EXPECT_FALSE(feature_enabled(none, "GangScheduling"));           // alpha in 1.35
  EXPECT_FALSE(feature_enabled(none, "NodeDeclaredFeatures"));     // alpha in 1.35
  EXPECT_FALSE(feature_enabled(none, "NoSuchGate"));
  const FeatureSpec* dra = find_feature_gate("DynamicResourceAllocation");
  ASSERT_NE(dra, nullptr);
  EXPECT_EQ(dra->stage, FeatureStage::GA);
  EXPECT_TRUE(dra->locked);
  auto all = feature_gates_v135();
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end(), [](const FeatureSpec& a, const FeatureSpec& b) { return a.name < b.name; }));
}

TEST(FeatureGates, UnknownNamesAreRefusedWithUpstreamsText) {
  auto r = check_feature_gates({{"SchedulerPopFromBackoffQ", false}, {"Bogus", true}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "unrecognized feature gate: Bogus");
  // v1.32's gates that upstream removed since are unknown now.
  EXPECT_FALSE(check_feature_gates({{"VolumeCapacityPriority", true}}).ok());
}

TEST(FeatureGates, LockedGatesCannotBeFlipped) {
  auto r = check_feature_gates({{"SchedulerQueueingHints", false}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "cannot set feature gate SchedulerQueueingHints to false, feature is locked to true");
  // Setting a locked GA gate to its default is allowed, with upstream's warning.
  auto same = check_feature_gates({{"SchedulerQueueingHints", true}});
  ASSERT_TRUE(same.ok()) << same.error();
  EXPECT_EQ(*same,
            (std::vector<std::string>{"Setting GA feature gate SchedulerQueueingHints=true. It will be removed in a future release."}));
}

TEST(FeatureGates, AllAlphaAndAllBetaSetEveryGateOfTheirStageNotNamed) {
  std::map<std::string, bool> set{{"AllAlpha", true}, {"NodeDeclaredFeatures", false}};
  EXPECT_TRUE(feature_enabled(set, "GangScheduling"));
  EXPECT_FALSE(feature_enabled(set, "NodeDeclaredFeatures"));  // named explicitly
  EXPECT_TRUE(feature_enabled(set, "SchedulerPopFromBackoffQ"));  // beta: untouched
  set = {{"AllBeta", false}};
  EXPECT_FALSE(feature_enabled(set, "SchedulerPopFromBackoffQ"));
  EXPECT_TRUE(feature_enabled(set, "SchedulerQueueingHints"));  // GA: untouched
  EXPECT_TRUE(check_feature_gates({{"AllAlpha", true}, {"AllBeta", true}}).ok());
}

TEST(FeatureGates, HelpListsAlphaAndBetaGatesOnly) {
  auto lines = feature_gate_help_lines();
  auto has = [&](std::string_view l) { return std::find(lines.begin(), lines.end(), l) != lines.end(); };
  EXPECT_TRUE(has("AllAlpha=true|false (ALPHA - default=false)"));
  EXPECT_TRUE(has("SchedulerPopFromBackoffQ=true|false (BETA - default=true)"));
  EXPECT_TRUE(has("GangScheduling=true|false (ALPHA - default=false)"));
  for (const auto& l : lines) EXPECT_EQ(l.find("SchedulerQueueingHints"), std::string::npos) << "GA gates are not listed";
}

}  // namespace
}  // namespace ksched::scheduler::config
