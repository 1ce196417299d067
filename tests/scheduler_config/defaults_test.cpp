#include <gtest/gtest.h>

#include "scheduler/config/defaults.h"
#include "scheduler/config/write.h"
#include "test_helpers.h"

namespace ksched::scheduler::config {
namespace {

using testing::doc;
using testing::must_decode;
using testing::names_of;
using namespace std::chrono_literals;

TEST(SchedulerConfigDefaults, EmptyConfigMatchesUpstreamV1Defaults) {
  auto cfg = must_decode("");
  EXPECT_EQ(cfg.parallelism, 16);
  EXPECT_TRUE(cfg.leaderElection.leaderElect);
  EXPECT_EQ(cfg.leaderElection.leaseDuration, 15s);
  EXPECT_EQ(cfg.leaderElection.renewDeadline, 10s);
  EXPECT_EQ(cfg.leaderElection.retryPeriod, 2s);
  EXPECT_EQ(cfg.leaderElection.resourceLock, "leases");
  EXPECT_EQ(cfg.leaderElection.resourceName, "kube-scheduler");
  EXPECT_EQ(cfg.leaderElection.resourceNamespace, "kube-system");
  EXPECT_EQ(cfg.clientConnection.contentType, "application/vnd.kubernetes.protobuf");
  EXPECT_EQ(cfg.clientConnection.qps, 50.0F);
  EXPECT_EQ(cfg.clientConnection.burst, 100);
  EXPECT_TRUE(cfg.enableProfiling);
  EXPECT_TRUE(cfg.enableContentionProfiling);
  ASSERT_TRUE(cfg.percentageOfNodesToScore.has_value());
  EXPECT_EQ(*cfg.percentageOfNodesToScore, 0);
  EXPECT_EQ(cfg.podInitialBackoffSeconds, 1);
  EXPECT_EQ(cfg.podMaxBackoffSeconds, 10);
  EXPECT_TRUE(cfg.extenders.empty());
  EXPECT_FALSE(cfg.delayCacheUntilActive);

  ASSERT_EQ(cfg.profiles.size(), 1u);
  const auto& prof = cfg.profiles[0];
  EXPECT_EQ(prof.schedulerName, "default-scheduler");
  EXPECT_FALSE(prof.percentageOfNodesToScore.has_value());

  std::vector<Plugin> want = {
      {"SchedulingGates", {}},     {"PrioritySort", {}},       {"NodeUnschedulable", {}},
      {"NodeName", {}},            {"TaintToleration", 3},     {"NodeAffinity", 2},
      {"NodePorts", {}},           {"NodeResourcesFit", 1},    {"VolumeRestrictions", {}},
      {"NodeVolumeLimits", {}},    {"VolumeBinding", {}},      {"VolumeZone", {}},
      {"PodTopologySpread", 2},    {"InterPodAffinity", 2},    {"DynamicResources", 2},
      {"DefaultPreemption", {}},
      {"NodeResourcesBalancedAllocation", 1}, {"ImageLocality", 1}, {"DefaultBinder", {}},
  };
  EXPECT_EQ(prof.plugins.multiPoint.enabled, want);
  EXPECT_TRUE(prof.plugins.multiPoint.disabled.empty());
  for (ExtensionPoint ep : kSpecificExtensionPoints) {
    EXPECT_TRUE(prof.plugins.at(ep).enabled.empty()) << extension_point_field(ep);
    EXPECT_TRUE(prof.plugins.at(ep).disabled.empty()) << extension_point_field(ep);
  }

  std::vector<std::string> cfg_names;
  for (const auto& pc : prof.pluginConfig) cfg_names.push_back(pc.name);
  EXPECT_EQ(cfg_names, (std::vector<std::string>{"DefaultPreemption", "DynamicResources", "InterPodAffinity", "NodeAffinity",
                                                 "NodeResourcesBalancedAllocation", "NodeResourcesFit",
                                                 "PodTopologySpread", "VolumeBinding"}));
  auto* dp = prof.args_for<DefaultPreemptionArgs>("DefaultPreemption");
  ASSERT_NE(dp, nullptr);
  EXPECT_EQ(dp->minCandidateNodesPercentage, 10);
  EXPECT_EQ(dp->minCandidateNodesAbsolute, 100);
  auto* ipa = prof.args_for<InterPodAffinityArgs>("InterPodAffinity");
  ASSERT_NE(ipa, nullptr);
  EXPECT_EQ(ipa->hardPodAffinityWeight, 1);
  EXPECT_FALSE(ipa->ignorePreferredTermsOfExistingPods);
  auto* na = prof.args_for<NodeAffinityArgs>("NodeAffinity");
  ASSERT_NE(na, nullptr);
  EXPECT_FALSE(na->addedAffinity.has_value());
  auto* ba = prof.args_for<NodeResourcesBalancedAllocationArgs>("NodeResourcesBalancedAllocation");
  ASSERT_NE(ba, nullptr);
  EXPECT_EQ(ba->resources, (std::vector<ResourceSpec>{{"cpu", 1}, {"memory", 1}}));
  auto* fit = prof.args_for<NodeResourcesFitArgs>("NodeResourcesFit");
  ASSERT_NE(fit, nullptr);
  EXPECT_EQ(fit->scoringStrategy.type, "LeastAllocated");
  EXPECT_EQ(fit->scoringStrategy.resources, (std::vector<ResourceSpec>{{"cpu", 1}, {"memory", 1}}));
  EXPECT_FALSE(fit->scoringStrategy.requestedToCapacityRatio.has_value());
  EXPECT_TRUE(fit->ignoredResources.empty());
  auto* pts = prof.args_for<PodTopologySpreadArgs>("PodTopologySpread");
  ASSERT_NE(pts, nullptr);
  EXPECT_EQ(pts->defaultingType, "System");
  EXPECT_TRUE(pts->defaultConstraints.empty());
  auto* vb = prof.args_for<VolumeBindingArgs>("VolumeBinding");
  ASSERT_NE(vb, nullptr);
  EXPECT_EQ(vb->bindTimeoutSeconds, 600);
  EXPECT_TRUE(vb->shape.empty());
  // Wrong type or unknown plugin: no args.
  EXPECT_EQ(prof.args_for<VolumeBindingArgs>("NodeResourcesFit"), nullptr);
  EXPECT_EQ(prof.args_for<VolumeBindingArgs>("ImageLocality"), nullptr);
}

TEST(SchedulerConfigDefaults, ProgrammaticDefaultsEqualDecodedEmptyDocument) {
  EXPECT_EQ(write_config(default_configuration()), write_config(must_decode("")));
}

TEST(SchedulerConfigDefaults, ExtensionPointTableCoversEveryDefaultPlugin) {
  const auto& table = default_plugin_extension_points();
  for (const auto& p : default_plugins().multiPoint.enabled) {
    EXPECT_TRUE(table.contains(p.name)) << p.name;
  }
  EXPECT_EQ(table.at("VolumeBinding"),
            (std::vector<ExtensionPoint>{ExtensionPoint::PreFilter, ExtensionPoint::Filter, ExtensionPoint::PreScore,
                                         ExtensionPoint::Score, ExtensionPoint::Reserve, ExtensionPoint::PreBind}));
  EXPECT_EQ(table.at("DefaultBinder"), std::vector<ExtensionPoint>{ExtensionPoint::Bind});
}

TEST(SchedulerConfigDefaults, DisablingOneDefaultFilterIsRecordedAtThatPoint) {
  auto cfg = must_decode(R"(profiles:
- plugins:
    filter:
      disabled:
      - name: NodePorts
)");
  const auto& p = cfg.profiles[0].plugins;
  EXPECT_EQ(names_of(p.filter.disabled), std::vector<std::string>{"NodePorts"});
  EXPECT_TRUE(p.filter.enabled.empty());
  // multiPoint keeps every default; expansion (expand_test) drops NodePorts from Filter only.
  EXPECT_EQ(p.multiPoint.enabled.size(), 19u);  // v1.35's 18 with DynamicResources
}

TEST(SchedulerConfigDefaults, MultiPointEntryOverridesDefaultWeightInPlace) {
  auto cfg = must_decode(R"(profiles:
- plugins:
    multiPoint:
      enabled:
      - name: TaintToleration
        weight: 7
      - name: MyPlugin
        weight: 4
)");
  const auto& mp = cfg.profiles[0].plugins.multiPoint.enabled;
  ASSERT_EQ(mp.size(), 20u);
  EXPECT_EQ(mp[4].name, "TaintToleration");
  EXPECT_EQ(mp[4].weight, 7);
  EXPECT_EQ(mp.back().name, "MyPlugin");
  EXPECT_EQ(mp.back().weight, 4);
}

TEST(SchedulerConfigDefaults, StarDisablesAllDefaultsButKeepsUserEnabled) {
  auto cfg = must_decode(R"(profiles:
- plugins:
    multiPoint:
      disabled:
      - name: "*"
      enabled:
      - name: PrioritySort
      - name: NodeName
      - name: DefaultBinder
)");
  const auto& mp = cfg.profiles[0].plugins.multiPoint;
  EXPECT_EQ(names_of(mp.enabled), (std::vector<std::string>{"PrioritySort", "NodeName", "DefaultBinder"}));
  EXPECT_EQ(names_of(mp.disabled), std::vector<std::string>{"*"});
  // Only those plugins with args types get default args.
  EXPECT_TRUE(cfg.profiles[0].pluginConfig.empty());
}

TEST(SchedulerConfigDefaults, MergePluginSetFollowsUpstreamRules) {
  PluginSet defaults{{{"A", {}}, {"B", 2}, {"C", {}}}, {}};
  // Disabled default dropped; re-enabled default replaced in place; new ones appended in order;
  // duplicates of a new plugin are kept (the framework reports them).
  PluginSet custom{{{"X", {}}, {"B", 5}, {"X", {}}}, {{"C", {}}}};
  PluginSet merged = merge_plugin_set(defaults, custom);
  EXPECT_EQ(merged.enabled, (std::vector<Plugin>{{"A", {}}, {"B", 5}, {"X", {}}, {"X", {}}}));
  EXPECT_EQ(names_of(merged.disabled), std::vector<std::string>{"C"});

  PluginSet star{{{"B", {}}}, {{"*", {}}}};
  EXPECT_EQ(merge_plugin_set(defaults, star).enabled, (std::vector<Plugin>{{"B", {}}}));
}

TEST(SchedulerConfigDefaults, GivenArgsAreDefaultedAndMissingOnesAdded) {
  auto cfg = must_decode(R"(profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources:
        - name: cpu
        - name: example.com/gpu
          weight: 5
  - name: NodeResourcesBalancedAllocation
    args: {}
  - name: PodTopologySpread
    args:
      defaultConstraints: []
  - name: MyPlugin
    args:
      foo: [1, "two", true]
)");
  const auto& prof = cfg.profiles[0];
  auto* fit = prof.args_for<NodeResourcesFitArgs>("NodeResourcesFit");
  ASSERT_NE(fit, nullptr);
  EXPECT_EQ(fit->scoringStrategy.type, "MostAllocated");
  EXPECT_EQ(fit->scoringStrategy.resources, (std::vector<ResourceSpec>{{"cpu", 1}, {"example.com/gpu", 5}}));
  auto* ba = prof.args_for<NodeResourcesBalancedAllocationArgs>("NodeResourcesBalancedAllocation");
  ASSERT_NE(ba, nullptr);
  EXPECT_EQ(ba->resources, default_resource_spec());
  auto* pts = prof.args_for<PodTopologySpreadArgs>("PodTopologySpread");
  ASSERT_NE(pts, nullptr);
  EXPECT_EQ(pts->defaultingType, "System");
  auto* mine = prof.args_for<UnknownArgs>("MyPlugin");
  ASSERT_NE(mine, nullptr);
  EXPECT_EQ(mine->json, R"({"foo":[1,"two",true]})");

  // User entries first in their order, then defaults for the remaining in-tree plugins (sorted).
  std::vector<std::string> names;
  for (const auto& pc : prof.pluginConfig) names.push_back(pc.name);
  EXPECT_EQ(names, (std::vector<std::string>{"NodeResourcesFit", "NodeResourcesBalancedAllocation", "PodTopologySpread",
                                             "MyPlugin", "DefaultPreemption", "DynamicResources", "InterPodAffinity", "NodeAffinity",
                                             "VolumeBinding"}));
}

TEST(SchedulerConfigDefaults, ScoringStrategyWithoutResourcesGetsDefaultResources) {
  auto cfg = must_decode(R"(profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: RequestedToCapacityRatio
        requestedToCapacityRatio:
          shape:
          - {utilization: 0, score: 0}
          - {utilization: 100, score: 10}
)");
  auto* fit = cfg.profiles[0].args_for<NodeResourcesFitArgs>("NodeResourcesFit");
  ASSERT_NE(fit, nullptr);
  EXPECT_EQ(fit->scoringStrategy.resources, default_resource_spec());
  ASSERT_TRUE(fit->scoringStrategy.requestedToCapacityRatio.has_value());
  EXPECT_EQ(fit->scoringStrategy.requestedToCapacityRatio->shape,
            (std::vector<UtilizationShapePoint>{{0, 0}, {100, 10}}));
}

TEST(SchedulerConfigDefaults, SchedulerNameDefaultsOnlyForASingleProfile) {
  auto one = must_decode("profiles:\n- percentageOfNodesToScore: 20\n");
  EXPECT_EQ(one.profiles[0].schedulerName, "default-scheduler");
  EXPECT_EQ(one.profiles[0].percentageOfNodesToScore, 20);
  auto two = must_decode("profiles:\n- schedulerName: a\n- {}\n");
  EXPECT_EQ(two.profiles[1].schedulerName, "");
}

TEST(SchedulerConfigDefaults, ContentionProfilingFollowsProfilingWhenUnset) {
  EXPECT_FALSE(must_decode("enableProfiling: false\n").enableContentionProfiling);
  auto both = must_decode("enableProfiling: false\nenableContentionProfiling: true\n");
  EXPECT_FALSE(both.enableProfiling);
  EXPECT_TRUE(both.enableContentionProfiling);
}

TEST(SchedulerConfigDefaults, ZeroValuesFallBackToComponentDefaults) {
  auto cfg = must_decode(R"(clientConnection:
  qps: 0
  burst: 0
  contentType: ""
leaderElection:
  leaseDuration: 0s
  resourceLock: ""
)");
  EXPECT_EQ(cfg.clientConnection.qps, 50.0F);
  EXPECT_EQ(cfg.clientConnection.burst, 100);
  EXPECT_EQ(cfg.clientConnection.contentType, "application/vnd.kubernetes.protobuf");
  EXPECT_EQ(cfg.leaderElection.leaseDuration, 15s);
  EXPECT_EQ(cfg.leaderElection.resourceLock, "leases");
}

}  // namespace
}  // namespace ksched::scheduler::config
