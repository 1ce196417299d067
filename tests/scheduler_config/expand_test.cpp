#include <gtest/gtest.h>

#include "scheduler/config/defaults.h"
#include "scheduler/config/expand.h"
#include "scheduler/config/features.h"
#include "test_helpers.h"

namespace ksched::scheduler::config {
namespace {

using testing::must_decode;
using V = std::vector<std::string>;

ExpandedPlugins must_expand(const KubeSchedulerProfile& prof) {
  auto r = expand_plugins(prof, in_tree_capabilities());
  EXPECT_TRUE(r.ok()) << r.error();
  return r.ok() ? *r : ExpandedPlugins{};
}

std::string expand_error(const std::string& body, PluginCapabilities caps = in_tree_capabilities()) {
  auto cfg = must_decode(body);
  auto r = expand_plugins(cfg.profiles.at(0), caps);
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string() : r.error();
}

TEST(SchedulerConfigExpand, DefaultProfileMatchesUpstreamPerPointLists) {
  auto e = must_expand(default_configuration().profiles[0]);
  // v1.35: DynamicResources (DRA is GA) sits right before DefaultPreemption with weight 2
  // (default_plugins.go, applyDynamicResources).
  EXPECT_EQ(e.at(ExtensionPoint::PreEnqueue), (V{"SchedulingGates", "DynamicResources", "DefaultPreemption"}));
  EXPECT_EQ(e.at(ExtensionPoint::QueueSort), V{"PrioritySort"});
  EXPECT_EQ(e.at(ExtensionPoint::PreFilter),
            (V{"NodeAffinity", "NodePorts", "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits",
               "VolumeBinding", "VolumeZone", "PodTopologySpread", "InterPodAffinity", "DynamicResources"}));
  EXPECT_EQ(e.at(ExtensionPoint::Filter),
            (V{"NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts", "NodeResourcesFit",
               "VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone", "PodTopologySpread",
               "InterPodAffinity", "DynamicResources"}));
  EXPECT_EQ(e.at(ExtensionPoint::PostFilter), (V{"DynamicResources", "DefaultPreemption"}));
  EXPECT_EQ(e.at(ExtensionPoint::PreScore),
            (V{"TaintToleration", "NodeAffinity", "NodeResourcesFit", "VolumeBinding", "PodTopologySpread",
               "InterPodAffinity", "NodeResourcesBalancedAllocation"}));
  EXPECT_EQ(e.at(ExtensionPoint::Score),
            (V{"TaintToleration", "NodeAffinity", "NodeResourcesFit", "VolumeBinding", "PodTopologySpread",
               "InterPodAffinity", "DynamicResources", "NodeResourcesBalancedAllocation", "ImageLocality"}));
  EXPECT_EQ(e.at(ExtensionPoint::Reserve), (V{"VolumeBinding", "DynamicResources"}));
  EXPECT_TRUE(e.at(ExtensionPoint::Permit).empty());
  EXPECT_EQ(e.at(ExtensionPoint::PreBind), (V{"VolumeBinding", "DynamicResources"}));
  EXPECT_EQ(e.at(ExtensionPoint::Bind), V{"DefaultBinder"});
  EXPECT_TRUE(e.at(ExtensionPoint::PostBind).empty());
  EXPECT_EQ(e.score_weights, (std::vector<std::pair<std::string, std::int32_t>>{
                                 {"TaintToleration", 3},
                                 {"NodeAffinity", 2},
                                 {"NodeResourcesFit", 1},
                                 {"VolumeBinding", 1},
                                 {"PodTopologySpread", 2},
                                 {"InterPodAffinity", 2},
                                 {"DynamicResources", 2},
                                 {"NodeResourcesBalancedAllocation", 1},
                                 {"ImageLocality", 1},
                             }));
  int sum = 0;
  for (const auto& [n, w] : e.score_weights) sum += w;
  EXPECT_EQ(sum, 15);
}

TEST(SchedulerConfigExpand, DisabledAtOnePointOnlyRemovesItThere) {
  auto cfg = must_decode("profiles:\n- plugins:\n    filter:\n      disabled:\n      - name: NodePorts\n");
  auto e = must_expand(cfg.profiles[0]);
  const auto& f = e.at(ExtensionPoint::Filter);
  EXPECT_EQ(std::count(f.begin(), f.end(), "NodePorts"), 0);
  EXPECT_EQ(f.size(), 12u);
  const auto& pf = e.at(ExtensionPoint::PreFilter);
  EXPECT_EQ(std::count(pf.begin(), pf.end(), "NodePorts"), 1);
}

TEST(SchedulerConfigExpand, DisabledInMultiPointRemovesFromEveryPoint) {
  auto cfg = must_decode("profiles:\n- plugins:\n    multiPoint:\n      disabled:\n      - name: TaintToleration\n");
  auto e = must_expand(cfg.profiles[0]);
  for (ExtensionPoint ep : kSpecificExtensionPoints) {
    const auto& l = e.at(ep);
    EXPECT_EQ(std::count(l.begin(), l.end(), "TaintToleration"), 0) << extension_point_field(ep);
  }
  EXPECT_EQ(e.weight_of("TaintToleration"), 0);
}

TEST(SchedulerConfigExpand, SpecificScoreEntryOverridesMultiPointWeightAndGoesFirst) {
  auto cfg = must_decode(
      "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: ImageLocality\n        weight: 5\n");
  auto e = must_expand(cfg.profiles[0]);
  const auto& s = e.at(ExtensionPoint::Score);
  ASSERT_EQ(s.size(), 9u);
  EXPECT_EQ(s[0], "ImageLocality");
  EXPECT_EQ(std::count(s.begin(), s.end(), "ImageLocality"), 1);
  EXPECT_EQ(e.weight_of("ImageLocality"), 5);
  EXPECT_EQ(e.weight_of("TaintToleration"), 3);
}

// The pod-group cycle's points (upstream v1 Plugins.PlacementGenerate / PlacementScore): filled
// from multiPoint like the others, with PlacementScore weights as Score's (a specific entry wins).
TEST(SchedulerConfigExpand, PlacementPointsExpandFromMultiPointWithTheirWeights) {
  auto without = must_expand(default_configuration().profiles[0]);
  EXPECT_TRUE(without.at(ExtensionPoint::PlacementGenerate).empty());
  EXPECT_EQ(without.at(ExtensionPoint::PlacementScore), V{"NodeResourcesFit"});

  ScopedFeatures on(Features{.gangScheduling = true, .topologyAwareWorkloadScheduling = true});
  auto e = must_expand(default_configuration().profiles[0]);
  EXPECT_EQ(e.at(ExtensionPoint::PlacementGenerate), V{"TopologyPlacement"});
  EXPECT_EQ(e.at(ExtensionPoint::PlacementScore), (V{"NodeResourcesFit", "PodGroupPodsCount"}));
  EXPECT_EQ(e.placement_score_weights,
            (std::vector<std::pair<std::string, std::int32_t>>{{"NodeResourcesFit", 1}, {"PodGroupPodsCount", 1}}));

  auto cfg = must_decode(
      "profiles:\n- plugins:\n    placementScore:\n      enabled:\n      - name: PodGroupPodsCount\n        weight: 4\n"
      "      disabled:\n      - name: NodeResourcesFit\n");
  auto w = must_expand(cfg.profiles[0]);
  EXPECT_EQ(w.at(ExtensionPoint::PlacementScore), V{"PodGroupPodsCount"});
  EXPECT_EQ(w.placement_score_weights.front(), (std::pair<std::string, std::int32_t>{"PodGroupPodsCount", 4}));

  EXPECT_EQ(expand_error("profiles:\n- plugins:\n    placementGenerate:\n      enabled:\n      - name: NodeResourcesFit\n"),
            "plugin \"NodeResourcesFit\" does not extend PlacementGeneratePlugin plugin");
}

TEST(SchedulerConfigExpand, StarAtOnePointKeepsOnlyThatPointsEnabledList) {
  auto cfg = must_decode(R"(profiles:
- plugins:
    filter:
      disabled:
      - name: "*"
      enabled:
      - name: NodeName
      - name: TaintToleration
)");
  auto e = must_expand(cfg.profiles[0]);
  EXPECT_EQ(e.at(ExtensionPoint::Filter), (V{"NodeName", "TaintToleration"}));
  EXPECT_EQ(e.at(ExtensionPoint::PreFilter).size(), 10u);
}

TEST(SchedulerConfigExpand, OutOfTreePluginViaMultiPointLandsOnItsPoints) {
  auto caps = [](std::string_view name) -> std::optional<std::vector<ExtensionPoint>> {
    if (name == "Custom") return std::vector<ExtensionPoint>{ExtensionPoint::Filter, ExtensionPoint::Score};
    return in_tree_capabilities()(name);
  };
  auto cfg = must_decode(R"(profiles:
- plugins:
    multiPoint:
      enabled:
      - name: Custom
        weight: 4
    score:
      disabled:
      - name: Custom
)");
  auto r = expand_plugins(cfg.profiles[0], caps);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->at(ExtensionPoint::Filter).back(), "Custom");
  const auto& s = r->at(ExtensionPoint::Score);
  EXPECT_EQ(std::count(s.begin(), s.end(), "Custom"), 0);
}

TEST(SchedulerConfigExpand, FrameworkInitErrors) {
  EXPECT_EQ(expand_error("profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: Foo\n"),
            "FilterPlugin \"Foo\" does not exist");
  EXPECT_EQ(expand_error("profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: PrioritySort\n"),
            "plugin \"PrioritySort\" does not extend FilterPlugin plugin");
  EXPECT_EQ(expand_error(
                "profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: NodeName\n      - name: NodeName\n"),
            "plugin \"NodeName\" already registered as \"FilterPlugin\"");
  // Re-enabling a default via multiPoint replaces it in place; naming it twice duplicates it.
  EXPECT_TRUE(expand_plugins(must_decode("profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: NodeName\n")
                                 .profiles[0],
                             in_tree_capabilities())
                  .ok());
  EXPECT_EQ(expand_error("profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: ImageLocality\n"
                         "      - name: ImageLocality\n"),
            "plugin \"ImageLocality\" already registered as \"ScorePlugin\"");
  EXPECT_EQ(expand_error("profiles:\n- plugins:\n    queueSort:\n      disabled:\n      - name: \"*\"\n"),
            "only one queue sort plugin required for profile with scheduler name \"default-scheduler\", but got 0");
  EXPECT_EQ(expand_error("profiles:\n- plugins:\n    multiPoint:\n      disabled:\n      - name: DefaultBinder\n"),
            "at least one bind plugin is needed for profile with scheduler name \"default-scheduler\"");
}

TEST(SchedulerConfigExpand, SpecificListsAreCheckedBeforeMultiPointExpansion) {
  // Upstream's NewFramework: updatePluginList for every point, then expandMultiPointPlugins.
  EXPECT_EQ(expand_error("profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: Unknown\n"
                         "    score:\n      enabled:\n      - name: Bar\n"),
            "ScorePlugin \"Bar\" does not exist");
}

}  // namespace
}  // namespace ksched::scheduler::config
