#include <gtest/gtest.h>

#include "scheduler/config/defaults.h"
#include "scheduler/config/features.h"
#include "scheduler/config/validation.h"
#include "test_helpers.h"

namespace ksched::scheduler::config {
namespace {

using testing::doc;
using namespace std::chrono_literals;

std::string load_error(const std::string& body) {
  auto r = load_config(doc(body));
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string() : r.error();
}

TEST(SchedulerConfigValidation, DefaultConfigurationIsValid) {
  EXPECT_TRUE(validation_errors(default_configuration()).empty());
  EXPECT_TRUE(load_config(doc("")).ok());
}

TEST(SchedulerConfigValidation, TopLevelNumbers) {
  EXPECT_EQ(load_error("parallelism: -1\n"),
            "parallelism: Invalid value: -1: should be an integer value greater than zero");
  EXPECT_EQ(load_error("percentageOfNodesToScore: 101\n"),
            "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]");
  EXPECT_EQ(load_error("podInitialBackoffSeconds: 0\n"),
            "podInitialBackoffSeconds: Invalid value: 0: must be greater than 0");
  EXPECT_EQ(load_error("podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 4\n"),
            "podMaxBackoffSeconds: Invalid value: 4: must be greater than or equal to PodInitialBackoffSeconds");
  EXPECT_EQ(load_error("clientConnection:\n  burst: -3\n"),
            "clientConnection.burst: Invalid value: -3: must be non-negative");
}

TEST(SchedulerConfigValidation, SeveralErrorsAggregateInBrackets) {
  EXPECT_EQ(load_error("parallelism: 0\npodInitialBackoffSeconds: -1\n"),
            "[parallelism: Invalid value: 0: should be an integer value greater than zero, "
            "podInitialBackoffSeconds: Invalid value: -1: must be greater than 0]");
  EXPECT_EQ(aggregate_errors({"a", "b", "a"}), "[a, b]");
  EXPECT_EQ(aggregate_errors({}), "");
}

TEST(SchedulerConfigValidation, LeaderElectionDurations) {
  EXPECT_EQ(load_error("leaderElection:\n  leaseDuration: 5s\n"),
            "leaderElection.leaseDuration: Invalid value: 10s: LeaseDuration must be greater than RenewDeadline");
  EXPECT_EQ(load_error("leaderElection:\n  renewDeadline: 2s\n  retryPeriod: 2s\n"),
            "leaderElection.renewDeadline: Invalid value: 2s: renewDeadline must be greater than "
            "retryPeriod*JitterFactor");
  EXPECT_EQ(load_error("leaderElection:\n  retryPeriod: -1s\n"),
            "leaderElection.retryPeriod: Invalid value: -1s: must be greater than zero");
  EXPECT_EQ(load_error("leaderElection:\n  resourceLock: endpoints\n"),
            "leaderElection.resourceLock: Invalid value: \"endpoints\": resourceLock value must be \"leases\"");
  // Not checked when leader election is off.
  EXPECT_TRUE(load_config(doc("leaderElection:\n  leaderElect: false\n  leaseDuration: 1s\n")).ok());
}

TEST(SchedulerConfigValidation, ProfilesNeedDistinctNonEmptyNames) {
  EXPECT_EQ(load_error("profiles:\n- schedulerName: a\n- schedulerName: a\n"),
            "profiles[1].schedulerName: Duplicate value: \"profiles[0].schedulerName\"");
  EXPECT_EQ(load_error("profiles:\n- schedulerName: a\n- {}\n"), "profiles[1].schedulerName: Required value");
  EXPECT_EQ(load_error("profiles:\n- schedulerName: a\n  percentageOfNodesToScore: -1\n"),
            "profiles[0].percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]");
  EXPECT_TRUE(load_config(doc("profiles:\n- schedulerName: a\n- schedulerName: b\n")).ok());
}

TEST(SchedulerConfigValidation, QueueSortMustBeTheSameInEveryProfile) {
  EXPECT_EQ(load_error(R"(profiles:
- schedulerName: a
- schedulerName: b
  plugins:
    queueSort:
      enabled:
      - name: CustomSort
)"),
            "profiles[1].plugins.queueSort: Invalid value: {CustomSort}: must be the same for all profiles");
}

TEST(SchedulerConfigValidation, RemovedPluginsAreRejected) {
  EXPECT_EQ(load_error("profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: EBSLimits\n"),
            "profiles[0].plugins.filter.enabled[0]: Invalid value: \"EBSLimits\": was invalid in version "
            "\"kubescheduler.config.k8s.io/v1\" (KubeSchedulerConfiguration is version "
            "\"kubescheduler.config.k8s.io/v1\")");
}

TEST(SchedulerConfigValidation, DuplicatePluginConfig) {
  EXPECT_EQ(load_error(R"(profiles:
- pluginConfig:
  - name: MyPlugin
  - name: MyPlugin
)"),
            "profiles[0].pluginConfig[1]: Duplicate value: \"MyPlugin\"");
}

TEST(SchedulerConfigValidation, PodTopologySpreadArgs) {
  EXPECT_EQ(load_error(R"(profiles:
- pluginConfig:
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints:
      - maxSkew: 0
        topologyKey: zone
        whenUnsatisfiable: DoNotSchedule
)"),
            "profiles[0].pluginConfig[0].args.defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, "
            "inf)");
  PodTopologySpreadArgs a;
  a.defaultingType = "System";
  api::TopologySpreadConstraint c;
  c.maxSkew = 1;
  c.topologyKey = "zone";
  c.whenUnsatisfiable = "Sometimes";
  c.labelSelector.emplace();
  a.defaultConstraints = {c, c};
  a.defaultConstraints[1].whenUnsatisfiable = "Sometimes";
  auto errs = validate_plugin_args(a, "");
  EXPECT_EQ(errs, (std::vector<std::string>{
                      "defaultingType: Invalid value: \"System\": when .defaultConstraints are not empty",
                      "defaultConstraints[0].whenUnsatisfiable: Unsupported value: \"Sometimes\": supported values: "
                      "\"DoNotSchedule\", \"ScheduleAnyway\"",
                      "defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector, as they "
                      "deduced for each pod",
                      "defaultConstraints[1].whenUnsatisfiable: Unsupported value: \"Sometimes\": supported values: "
                      "\"DoNotSchedule\", \"ScheduleAnyway\"",
                      "defaultConstraints[1].labelSelector: Forbidden: constraint must not define a selector, as they "
                      "deduced for each pod",
                      "defaultConstraints[1]: Duplicate value: \"{zone, Sometimes}\"",
                  }));
  PodTopologySpreadArgs bad_type;
  bad_type.defaultingType = "Other";
  EXPECT_EQ(validate_plugin_args(bad_type, "args"),
            std::vector<std::string>{
                "args.defaultingType: Unsupported value: \"Other\": supported values: \"System\", \"List\""});
  PodTopologySpreadArgs no_key;
  no_key.defaultingType = "List";
  no_key.defaultConstraints.emplace_back();
  no_key.defaultConstraints[0].maxSkew = 1;
  EXPECT_EQ(validate_plugin_args(no_key, ""),
            (std::vector<std::string>{"defaultConstraints[0].topologyKey: Required value: can not be empty",
                                      "defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty"}));
}

TEST(SchedulerConfigValidation, NodeResourcesFitArgs) {
  EXPECT_EQ(load_error(R"(profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: LeastAllocated
        resources:
        - name: cpu
          weight: 101
)"),
            "profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight: Invalid value: 101: resource weight "
            "of cpu not in valid range (0, 100]");
  NodeResourcesFitArgs a;
  a.scoringStrategy.type = "Fancy";
  a.ignoredResourceGroups = {"example.com/x"};
  a.scoringStrategy.requestedToCapacityRatio = RequestedToCapacityRatioParam{{{10, 1}}};
  EXPECT_EQ(validate_plugin_args(a, ""),
            (std::vector<std::string>{
                "ignoredResourceGroups[0]: Invalid value: \"example.com/x\": resource group name can't contain '/'",
                "scoringStrategy.type: Unsupported value: \"Fancy\": supported values: \"LeastAllocated\", "
                "\"MostAllocated\", \"RequestedToCapacityRatio\"",
            }));
  NodeResourcesFitArgs rtcr;
  rtcr.scoringStrategy.type = "RequestedToCapacityRatio";
  EXPECT_EQ(validate_plugin_args(rtcr, ""),
            std::vector<std::string>{"scoringStrategy.requestedToCapacityRatio: Required value: must be specified "
                                     "when type is RequestedToCapacityRatio"});
  rtcr.scoringStrategy.requestedToCapacityRatio = RequestedToCapacityRatioParam{{{50, 5}, {40, 11}}};
  EXPECT_EQ(validate_plugin_args(rtcr, ""),
            (std::vector<std::string>{
                "scoringStrategy.shape[1].utilization: Invalid value: 40: values must be "
                "sorted in increasing order",
                "scoringStrategy.shape[1].score: Invalid value: 11: not in valid range [0, 10]",
            }));
  rtcr.scoringStrategy.requestedToCapacityRatio->shape.clear();
  EXPECT_EQ(validate_plugin_args(rtcr, ""),
            std::vector<std::string>{"scoringStrategy.shape: Required value: at least one "
                                     "point must be specified"});
}

TEST(SchedulerConfigValidation, DefaultPreemptionArgs) {
  DefaultPreemptionArgs a{101, -1};
  EXPECT_EQ(validate_plugin_args(a, ""),
            (std::vector<std::string>{"minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]",
                                      "minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"}));
  EXPECT_EQ(load_error(R"(profiles:
- pluginConfig:
  - name: DefaultPreemption
    args:
      minCandidateNodesPercentage: 0
      minCandidateNodesAbsolute: 0
)"),
            "[profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the "
            "same time as minCandidateNodesAbsolute, profiles[0].pluginConfig[0].args.minCandidateNodesAbsolute: "
            "Invalid value: 0: cannot be zero at the same time as minCandidateNodesPercentage]");
}

// Upstream ValidateDynamicResourcesArgs at v1.35's gates (DRASchedulerFilterTimeout on, binding
// conditions off); decoding defaults filterTimeout to 10s and keeps a given value.
TEST(SchedulerConfigValidation, DynamicResourcesArgs) {
  EXPECT_TRUE(validate_plugin_args(DynamicResourcesArgs{}, "a").empty());
  EXPECT_EQ(DynamicResourcesArgs{}.filterTimeout, std::optional<Duration>(std::chrono::seconds(10)));
  DynamicResourcesArgs d;
  d.filterTimeout = -std::chrono::seconds(1);
  d.bindingTimeout = std::chrono::seconds(5);
  EXPECT_EQ(validate_plugin_args(d, "a"),
            (std::vector<std::string>{"a.filterTimeout: Invalid value: \"-1s\": must be zero or positive",
                                      "a.bindingTimeout: Forbidden: DRADeviceBindingConditions or "
                                      "DRAResourceClaimDeviceStatus feature gate is disabled"}));
  auto cfg = testing::must_decode(R"(profiles:
- pluginConfig:
  - name: DynamicResources
    args:
      filterTimeout: 2m
)");
  auto* got = cfg.profiles[0].template args_for<DynamicResourcesArgs>("DynamicResources");
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(got->filterTimeout, std::optional<Duration>(std::chrono::minutes(2)));
  EXPECT_FALSE(got->bindingTimeout.has_value());
}

// Upstream ValidateDynamicResourcesArgs and SetDefaults_DynamicResourcesArgs with
// DRADeviceBindingConditions on (DRAResourceClaimDeviceStatus on by default): bindingTimeout must
// be at least 1s and defaults to 600s, in given args and in the args defaulting adds.
TEST(SchedulerConfigValidation, DynamicResourcesBindingTimeoutWithTheGatesOn) {
  Features f = features();
  f.draDeviceBindingConditions = true;
  ScopedFeatures gates(f);
  DynamicResourcesArgs d;
  d.bindingTimeout = std::chrono::milliseconds(500);
  EXPECT_EQ(validate_plugin_args(d, "a"),
            std::vector<std::string>{"a.bindingTimeout: Invalid value: \"500ms\": must be at least 1 second"});
  d.bindingTimeout = std::chrono::seconds(1);
  EXPECT_TRUE(validate_plugin_args(d, "a").empty());
  auto cfg = testing::must_decode(R"(profiles:
- pluginConfig:
  - name: DynamicResources
    args:
      filterTimeout: 2m
)");
  auto* got = cfg.profiles[0].template args_for<DynamicResourcesArgs>("DynamicResources");
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(got->bindingTimeout, std::optional<Duration>(std::chrono::seconds(600)));
  auto added = default_args_for("DynamicResources");
  ASSERT_TRUE(std::holds_alternative<DynamicResourcesArgs>(added));
  EXPECT_EQ(std::get<DynamicResourcesArgs>(added).bindingTimeout, std::optional<Duration>(std::chrono::seconds(600)));
  // DRAResourceClaimDeviceStatus off: forbidden again, and no default.
  f.draResourceClaimDeviceStatus = false;
  ScopedFeatures without_status(f);
  EXPECT_EQ(validate_plugin_args(d, "a").size(), 1u);
  EXPECT_FALSE(std::get<DynamicResourcesArgs>(default_args_for("DynamicResources")).bindingTimeout);
}

TEST(SchedulerConfigValidation, OtherArgs) {
  EXPECT_EQ(validate_plugin_args(InterPodAffinityArgs{101, false}, "a"),
            std::vector<std::string>{"a.hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"});
  NodeResourcesBalancedAllocationArgs ba;
  ba.resources = {{"cpu", 1}, {"cpu", 2}};
  EXPECT_EQ(validate_plugin_args(ba, ""),
            (std::vector<std::string>{"resources[1].name: Duplicate value: \"cpu\"",
                                      "resources[1].weight: Invalid value: 2: must be 1"}));
  VolumeBindingArgs vb;
  vb.bindTimeoutSeconds = -1;
  EXPECT_EQ(validate_plugin_args(vb, ""),
            std::vector<std::string>{
                "bindTimeoutSeconds: Invalid value: -1: invalid BindTimeoutSeconds, should not be a negative value"});
  vb.bindTimeoutSeconds = 1;
  vb.shape = {{0, 0}};
  ASSERT_EQ(validate_plugin_args(vb, "").size(), 1u);
  EXPECT_NE(validate_plugin_args(vb, "")[0].find("turn on the feature gate VolumeCapacityPriority"),
            std::string::npos);
}

TEST(SchedulerConfigValidation, NodeAffinityArgs) {
  EXPECT_EQ(load_error(R"(profiles:
- pluginConfig:
  - name: NodeAffinity
    args:
      addedAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions:
            - key: pool
              operator: Within
            - key: pool
              operator: In
            - key: pool
              operator: Exists
              values: [x]
            - key: cores
              operator: Gt
              values: [many]
          - matchFields:
            - key: metadata.uid
              operator: In
              values: [x]
            - key: metadata.name
              operator: In
              values: [a, b]
)"),
            "[profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution."
            "nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: \"Within\": supported values: "
            "\"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\", "
            "profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution."
            "nodeSelectorTerms[0].matchExpressions[1].values: Invalid value: []string{}: for 'in', 'notin' operators, "
            "values set can't be empty, "
            "profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution."
            "nodeSelectorTerms[0].matchExpressions[2].values: Invalid value: []string{\"x\"}: values set must be empty "
            "for exists and does not exist, "
            "profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution."
            "nodeSelectorTerms[0].matchExpressions[3].values[0]: Invalid value: \"many\": for 'Gt', 'Lt' operators, "
            "the value must be an integer, "
            "profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution."
            "nodeSelectorTerms[1].matchFields[0].key: Invalid value: \"metadata.uid\": not a valid field selector key, "
            "profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution."
            "nodeSelectorTerms[1].matchFields[1].values: Invalid value: []string{\"a\", \"b\"}: must have one "
            "element]");
}

TEST(SchedulerConfigValidation, Extenders) {
  EXPECT_EQ(load_error(R"(extenders:
- urlPrefix: http://a
  prioritizeVerb: prio
  bindVerb: bind
- urlPrefix: http://b
  bindVerb: bind
  weight: 1
  managedResources:
  - name: example.com/foo
  - name: example.com/foo
  - name: cpu
)"),
            "[extenders[0].weight: Invalid value: 0: must have a positive weight applied to it, "
            "extenders[1].managedResources[1].name: Invalid value: \"example.com/foo\": duplicate extender managed "
            "resource name, "
            "extenders[1].managedResources[2].name: Invalid value: \"cpu\": is an invalid extended resource name, "
            "extenders: Invalid value: \"found 2 extenders implementing bind\": only one extender can implement bind]");
}

}  // namespace
}  // namespace ksched::scheduler::config
