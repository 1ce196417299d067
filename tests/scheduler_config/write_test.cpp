#include <gtest/gtest.h>

#include <cstdlib>

#include "scheduler/config/defaults.h"
#include "scheduler/config/write.h"
#include "test_helpers.h"

namespace ksched::scheduler::config {
namespace {

using testing::doc;
using testing::must_decode;

// The head of kube-scheduler --write-config-to output for an empty v1 config (keys sorted,
// sequences not indented under their key, every default present).
constexpr const char* kDefaultHead = R"(apiVersion: kubescheduler.config.k8s.io/v1
clientConnection:
  acceptContentTypes: ""
  burst: 100
  contentType: application/vnd.kubernetes.protobuf
  kubeconfig: ""
  qps: 50
enableContentionProfiling: true
enableProfiling: true
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: true
  leaseDuration: 15s
  renewDeadline: 10s
  resourceLock: leases
  resourceName: kube-scheduler
  resourceNamespace: kube-system
  retryPeriod: 2s
parallelism: 16
percentageOfNodesToScore: 0
podInitialBackoffSeconds: 1
podMaxBackoffSeconds: 10
profiles:
- pluginConfig:
  - args:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: DefaultPreemptionArgs
      minCandidateNodesAbsolute: 100
      minCandidateNodesPercentage: 10
    name: DefaultPreemption
  - args:
      apiVersion: kubescheduler.config.k8s.io/v1
      filterTimeout: 10s
      kind: DynamicResourcesArgs
    name: DynamicResources
  - args:
      apiVersion: kubescheduler.config.k8s.io/v1
      hardPodAffinityWeight: 1
      ignorePreferredTermsOfExistingPods: false
      kind: InterPodAffinityArgs
    name: InterPodAffinity
  - args:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: NodeAffinityArgs
    name: NodeAffinity
  - args:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: NodeResourcesBalancedAllocationArgs
      resources:
      - name: cpu
        weight: 1
      - name: memory
        weight: 1
    name: NodeResourcesBalancedAllocation
  - args:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: NodeResourcesFitArgs
      scoringStrategy:
        resources:
        - name: cpu
          weight: 1
        - name: memory
          weight: 1
        type: LeastAllocated
    name: NodeResourcesFit
  - args:
      apiVersion: kubescheduler.config.k8s.io/v1
      defaultingType: System
      kind: PodTopologySpreadArgs
    name: PodTopologySpread
  - args:
      apiVersion: kubescheduler.config.k8s.io/v1
      bindTimeoutSeconds: 600
      kind: VolumeBindingArgs
    name: VolumeBinding
  plugins:
    bind: {}
    filter: {}
    multiPoint:
      enabled:
      - name: SchedulingGates
        weight: 0
      - name: PrioritySort
        weight: 0
)";

TEST(SchedulerConfigWrite, DefaultConfigLooksLikeUpstreamWriteConfigTo) {
  std::string out = write_config(default_configuration());
  EXPECT_EQ(out.substr(0, std::string(kDefaultHead).size()), kDefaultHead) << out;
  EXPECT_NE(out.find("      - name: TaintToleration\n        weight: 3\n"), std::string::npos);
  // v1.35's default_plugins.go (applyDynamicResources): right before DefaultPreemption, weight 2.
  EXPECT_NE(out.find("      - name: InterPodAffinity\n        weight: 2\n      - name: DynamicResources\n        weight: 2\n"
                     "      - name: DefaultPreemption\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("    permit: {}\n    postBind: {}\n    postFilter: {}\n    preBind: {}\n    preEnqueue: {}\n"
                     "    preFilter: {}\n    preScore: {}\n    queueSort: {}\n    reserve: {}\n    score: {}\n"
                     "  schedulerName: default-scheduler\n"),
            std::string::npos)
      << out;
  // No extenders / delayCacheUntilActive when unset (omitempty).
  EXPECT_EQ(out.find("extenders"), std::string::npos);
  EXPECT_EQ(out.find("delayCacheUntilActive"), std::string::npos);
}

constexpr const char* kRich = R"(parallelism: 4
leaderElection:
  leaderElect: false
  leaseDuration: 1m30s
  renewDeadline: 1m
  retryPeriod: 1500ms
clientConnection:
  qps: 12.5
  kubeconfig: "/path: with colon"
enableProfiling: false
percentageOfNodesToScore: 35
delayCacheUntilActive: true
profiles:
- schedulerName: first
  percentageOfNodesToScore: 70
  plugins:
    multiPoint:
      enabled:
      - name: TaintToleration
        weight: 9
      disabled:
      - name: ImageLocality
    filter:
      disabled:
      - name: "*"
      enabled:
      - name: NodeName
    score:
      enabled:
      - name: MyScore
        weight: 3
  pluginConfig:
  - name: MyScore
    args:
      nested: {list: [1, 2.5, "x"], flag: true, "true": "yes"}
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints:
      - maxSkew: 3
        topologyKey: kubernetes.io/hostname
        whenUnsatisfiable: ScheduleAnyway
  - name: NodeAffinity
    args:
      addedAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions:
            - {key: pool, operator: In, values: ["1", b]}
  - name: NodeResourcesFit
    args:
      ignoredResources: [example.com/ignored]
      scoringStrategy:
        type: RequestedToCapacityRatio
        resources: [{name: cpu, weight: 3}]
        requestedToCapacityRatio:
          shape: [{utilization: 0, score: 10}, {utilization: 100, score: 0}]
- schedulerName: second
  plugins:
    multiPoint:
      enabled:
      - name: TaintToleration
        weight: 9
extenders:
- urlPrefix: https://ext:8443/
  filterVerb: filter
  weight: 2
  httpTimeout: 250ms
  tlsConfig:
    certData: Y2VydA==
  managedResources:
  - name: example.com/gpu
    ignoredByScheduler: true
)";

TEST(SchedulerConfigWrite, RoundTripWriteLoadIsStable) {
  auto first = must_decode(kRich);
  std::string written = write_config(first);
  auto again = decode_config(written);
  ASSERT_TRUE(again.ok()) << again.error() << "\n" << written;
  EXPECT_EQ(write_config(*again), written);

  const auto& a = first;
  const auto& b = *again;
  EXPECT_EQ(b.parallelism, a.parallelism);
  EXPECT_EQ(b.leaderElection, a.leaderElection);
  EXPECT_EQ(b.clientConnection, a.clientConnection);
  EXPECT_EQ(b.clientConnection.kubeconfig, "/path: with colon");
  EXPECT_EQ(b.enableProfiling, false);
  EXPECT_EQ(b.enableContentionProfiling, false);
  EXPECT_EQ(b.percentageOfNodesToScore, 35);
  EXPECT_TRUE(b.delayCacheUntilActive);
  EXPECT_EQ(b.extenders, a.extenders);
  EXPECT_EQ(b.extenders[0].tlsConfig->certData, "cert");
  ASSERT_EQ(b.profiles.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(b.profiles[i].schedulerName, a.profiles[i].schedulerName);
    EXPECT_EQ(b.profiles[i].percentageOfNodesToScore, a.profiles[i].percentageOfNodesToScore);
    // Plugins compare equal except unset weights, which are written as 0.
    for (ExtensionPoint ep : kSpecificExtensionPoints) {
      EXPECT_EQ(testing::names_of(b.profiles[i].plugins.at(ep).enabled),
                testing::names_of(a.profiles[i].plugins.at(ep).enabled));
    }
    EXPECT_EQ(testing::names_of(b.profiles[i].plugins.multiPoint.enabled),
              testing::names_of(a.profiles[i].plugins.multiPoint.enabled));
    ASSERT_EQ(b.profiles[i].pluginConfig.size(), a.profiles[i].pluginConfig.size());
    for (std::size_t j = 0; j < a.profiles[i].pluginConfig.size(); ++j) {
      const auto& pa = a.profiles[i].pluginConfig[j];
      const auto& pb = b.profiles[i].pluginConfig[j];
      EXPECT_EQ(pb.name, pa.name);
      EXPECT_EQ(write_args(pb.name, pb.args), write_args(pa.name, pa.args));
    }
  }
  auto* mine = b.profiles[0].args_for<UnknownArgs>("MyScore");
  ASSERT_NE(mine, nullptr);
  EXPECT_EQ(mine->json, R"({"nested":{"flag":true,"list":[1,2.5,"x"],"true":"yes"}})");
  auto* fit = b.profiles[0].args_for<NodeResourcesFitArgs>("NodeResourcesFit");
  ASSERT_NE(fit, nullptr);
  EXPECT_EQ(*fit, *a.profiles[0].args_for<NodeResourcesFitArgs>("NodeResourcesFit"));
  auto* na = b.profiles[0].args_for<NodeAffinityArgs>("NodeAffinity");
  ASSERT_NE(na, nullptr);
  EXPECT_EQ(na->addedAffinity->requiredDuringSchedulingIgnoredDuringExecution->nodeSelectorTerms[0]
                .matchExpressions[0]
                .values,
            (std::vector<std::string>{"1", "b"}));
  // Valid as a whole (it went through the same defaulting path).
  EXPECT_TRUE(load_config(written).ok()) << load_config(written).error();
}

TEST(SchedulerConfigWrite, AmbiguousStringsAreQuoted) {
  std::string out = write_config(must_decode(kRich));
  EXPECT_NE(out.find("              values:\n              - \"1\"\n              - b\n"), std::string::npos) << out;
  EXPECT_NE(out.find("kubeconfig: '/path: with colon'\n"), std::string::npos);
  EXPECT_NE(out.find("      disabled:\n      - name: '*'\n      enabled:\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\"true\": \"yes\"\n"), std::string::npos) << out;
  EXPECT_NE(out.find("httpTimeout: 250ms\n"), std::string::npos);
  EXPECT_NE(out.find("qps: 12.5\n"), std::string::npos);
}

TEST(SchedulerConfigWrite, WriteArgsOmitsArgsLessPlugins) {
  EXPECT_EQ(write_args("ImageLocality", std::monostate{}), "");
  EXPECT_EQ(write_args("X", UnknownArgs{}), "");
  EXPECT_EQ(write_args("VolumeBinding", VolumeBindingArgs{}),
            "apiVersion: kubescheduler.config.k8s.io/v1\nbindTimeoutSeconds: 600\nkind: VolumeBindingArgs\n");
}

}  // namespace
}  // namespace ksched::scheduler::config

namespace ksched::scheduler::config {
namespace {

TEST(SchedulerConfigWrite, StringsQuoteLikeGoYamlAndSurviveReload) {
  const std::pair<std::string, std::string> cases[] = {
      {"", "\"\""},
      {"plain/path", "plain/path"},
      {"yes", "\"yes\""},
      {"Off", "\"Off\""},
      {"~", "\"~\""},
      {"1.5", "\"1.5\""},
      {"-12", "\"-12\""},
      {"0x1F", "\"0x1F\""},
      {"1e3", "\"1e3\""},
      {"1:20", "\"1:20\""},
      {"*", "'*'"},
      {"a: b", "'a: b'"},
      {"it's: x", "'it''s: x'"},
      {"-", "'-'"},
      {"-x", "-x"},
      {"x#y", "x#y"},
      {"x #y", "'x #y'"},
      {" lead", "' lead'"},
      {"tab\there", "\"tab\\there\""},
      {"{a}", "'{a}'"},
      {"a,b", "a,b"},
      {"nan", "nan"},
  };
  for (const auto& [in, want] : cases) {
    KubeSchedulerConfiguration cfg = default_configuration();
    cfg.clientConnection.kubeconfig = in;
    std::string out = write_config(cfg);
    EXPECT_NE(out.find("\n  kubeconfig: " + want + "\n"), std::string::npos) << in << "\n" << out.substr(0, 200);
    auto back = decode_config(out);
    ASSERT_TRUE(back.ok()) << in << ": " << back.error();
    EXPECT_EQ(back->clientConnection.kubeconfig, in);
  }
}

}  // namespace
}  // namespace ksched::scheduler::config

namespace ksched::scheduler::config {
namespace {

TEST(SchedulerConfigWrite, JsonFormDecodesToTheSameConfiguration) {
  auto cfg = testing::must_decode(kRich);
  std::string json = write_config_json(cfg);
  ASSERT_FALSE(json.empty());
  EXPECT_EQ(json.front(), '{');
  EXPECT_EQ(json.find('\n'), std::string::npos);
  EXPECT_NE(json.find(R"("leaderElection":{"leaderElect":false,"leaseDuration":"1m30s")"), std::string::npos) << json;
  auto back = decode_config(json);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(write_config(*back), write_config(cfg));
}

}  // namespace
}  // namespace ksched::scheduler::config
