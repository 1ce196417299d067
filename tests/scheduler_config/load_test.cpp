#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "scheduler/config/load.h"
#include "util/go_format.h"
#include "test_helpers.h"

namespace ksched::scheduler::config {
namespace {

using testing::doc;
using testing::must_decode;
using namespace std::chrono_literals;

std::string decode_error(const std::string& text) {
  auto r = decode_config(text);
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string() : r.error();
}

TEST(SchedulerConfigLoad, UnknownTopLevelFieldIsAStrictError) {
  EXPECT_EQ(decode_error(doc("foo: 1\n")), "strict decoding error: unknown field \"foo\"");
}

TEST(SchedulerConfigLoad, UnknownNestedFieldsNameTheirPath) {
  EXPECT_EQ(decode_error(doc("profiles:\n- schedulerName: a\n  foo: 1\n")),
            "strict decoding error: unknown field \"profiles[0].foo\"");
  EXPECT_EQ(decode_error(doc("profiles:\n- plugins:\n    score:\n      enabled:\n      - name: X\n        wieght: 2\n")),
            "strict decoding error: unknown field \"profiles[0].plugins.score.enabled[0].wieght\"");
  EXPECT_EQ(decode_error(doc("leaderElection:\n  leaseDurationn: 1s\nbar: true\n")),
            "strict decoding error: unknown field \"leaderElection.leaseDurationn\", unknown field \"bar\"");
  // Removed in v1 (internal-only fields).
  EXPECT_EQ(decode_error(doc("healthzBindAddress: 0.0.0.0:10251\n")),
            "strict decoding error: unknown field \"healthzBindAddress\"");
}

TEST(SchedulerConfigLoad, DuplicateFieldIsAStrictError) {
  EXPECT_EQ(decode_error(doc("parallelism: 2\nparallelism: 3\n")),
            "strict decoding error: duplicate field \"parallelism\"");
}

TEST(SchedulerConfigLoad, UnknownFieldInPluginArgsNamesPluginAndEntry) {
  EXPECT_EQ(decode_error(doc(R"(profiles:
- pluginConfig:
  - name: DefaultPreemption
    args:
      minCandidateNodesPercentage: 5
      foo: bar
)")),
            "strict decoding error: decoding .profiles[0].pluginConfig[0]: strict decoding error: decoding args for "
            "plugin DefaultPreemption: strict decoding error: unknown field \"foo\"");
  EXPECT_NE(decode_error(doc(R"(profiles:
- pluginConfig:
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints:
      - maxSkew: 1
        topologyKey: zone
        whenUnsatisfiable: DoNotSchedule
        selector: {}
)")).find("unknown field \"defaultConstraints[0].selector\""),
            std::string::npos);
}

TEST(SchedulerConfigLoad, ArgsOfAnotherKindAreRejected) {
  auto err = decode_error(doc(R"(profiles:
- pluginConfig:
  - name: DefaultPreemption
    args:
      kind: InterPodAffinityArgs
)"));
  EXPECT_NE(err.find("args for plugin DefaultPreemption were not of type DefaultPreemptionArgs"), std::string::npos)
      << err;
}

TEST(SchedulerConfigLoad, ApiVersionAndKindAreChecked) {
  EXPECT_EQ(decode_error("apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n"),
            "no kind \"KubeSchedulerConfiguration\" is registered for version \"kubescheduler.config.k8s.io/v1beta3\"");
  EXPECT_EQ(decode_error("apiVersion: kubescheduler.config.k8s.io/v1\nkind: Foo\n"),
            "no kind \"Foo\" is registered for version \"kubescheduler.config.k8s.io/v1\"");
  EXPECT_EQ(decode_error("apiVersion: kubescheduler.config.k8s.io/v1\n"),
            "Object 'Kind' is missing in the configuration");
  EXPECT_EQ(decode_error("kind: KubeSchedulerConfiguration\n"), "Object 'apiVersion' is missing in the configuration");
  EXPECT_EQ(decode_error(""), "Object 'Kind' is missing in the configuration");
}

TEST(SchedulerConfigLoad, BadYamlReportsLineAndColumn) {
  auto err = decode_error(doc("profiles:\n  - schedulerName: a\n   bad: [\n"));
  EXPECT_EQ(err.rfind("yaml: line ", 0), 0u) << err;
  auto err2 = decode_error(doc("parallelism: 4\n  x: y\n"));
  EXPECT_EQ(err2.rfind("yaml: line 4", 0), 0u) << err2;
}

TEST(SchedulerConfigLoad, TypeErrorsCarryLineAndPath) {
  EXPECT_EQ(decode_error(doc("parallelism: abc\n")),
            "line 3, column 14: parallelism: cannot unmarshal string \"abc\" into int32");
  EXPECT_EQ(decode_error(doc("parallelism: \"4\"\n")),
            "line 3, column 14: parallelism: cannot unmarshal string \"4\" into int32");
  EXPECT_EQ(decode_error(doc("parallelism: 4294967296\n")),
            "line 3, column 14: parallelism: cannot unmarshal number 4294967296 into int32 (out of range)");
  EXPECT_EQ(decode_error(doc("profiles: {}\n")), "line 3, column 11: profiles: cannot unmarshal object into array");
  EXPECT_EQ(decode_error(doc("leaderElection:\n  leaseDuration: 15\n")),
            "line 4, column 18: leaderElection.leaseDuration: time: missing unit in duration \"15\"");
  EXPECT_EQ(decode_error(doc("enableProfiling: maybe\n")),
            "line 3, column 18: enableProfiling: cannot unmarshal string \"maybe\" into bool");
  // Bytes outside the base64 alphabet (the fuzzer's find: high bytes crashed the decoder).
  EXPECT_EQ(decode_error(doc("extenders:\n- urlPrefix: x\n  tlsConfig:\n    caData: \"a\xc3\xa9" "b=\"\n")),
            "line 6, column 13: extenders[0].tlsConfig.caData: illegal base64 data");
  EXPECT_EQ(decode_error(doc("extenders:\n- urlPrefix: x\n  tlsConfig:\n    caData: aGk=aGk=\n")),
            "line 6, column 13: extenders[0].tlsConfig.caData: illegal base64 data");
}

TEST(SchedulerConfigLoad, DecodesEveryTopLevelField) {
  auto cfg = must_decode(R"(parallelism: 8
leaderElection:
  leaderElect: false
  leaseDuration: 1m30s
  renewDeadline: 20s
  retryPeriod: 500ms
  resourceLock: leases
  resourceName: sched
  resourceNamespace: ns
clientConnection:
  kubeconfig: /etc/kube.conf
  acceptContentTypes: application/json
  contentType: application/json
  qps: 12.5
  burst: 30
enableProfiling: true
enableContentionProfiling: false
percentageOfNodesToScore: 40
podInitialBackoffSeconds: 2
podMaxBackoffSeconds: 20
delayCacheUntilActive: true
extenders:
- urlPrefix: http://127.0.0.1:8888/
  filterVerb: filter
  prioritizeVerb: prioritize
  weight: 3
  bindVerb: bind
  enableHTTPS: true
  tlsConfig:
    insecure: true
    serverName: ext
    caData: aGVsbG8=
  httpTimeout: 2s
  nodeCacheCapable: true
  managedResources:
  - name: example.com/foo
    ignoredByScheduler: true
  ignorable: true
)");
  EXPECT_EQ(cfg.parallelism, 8);
  EXPECT_FALSE(cfg.leaderElection.leaderElect);
  EXPECT_EQ(cfg.leaderElection.leaseDuration, 90s);
  EXPECT_EQ(cfg.leaderElection.renewDeadline, 20s);
  EXPECT_EQ(cfg.leaderElection.retryPeriod, 500ms);
  EXPECT_EQ(cfg.leaderElection.resourceName, "sched");
  EXPECT_EQ(cfg.leaderElection.resourceNamespace, "ns");
  EXPECT_EQ(cfg.clientConnection.kubeconfig, "/etc/kube.conf");
  EXPECT_EQ(cfg.clientConnection.acceptContentTypes, "application/json");
  EXPECT_EQ(cfg.clientConnection.contentType, "application/json");
  EXPECT_EQ(cfg.clientConnection.qps, 12.5F);
  EXPECT_EQ(cfg.clientConnection.burst, 30);
  EXPECT_FALSE(cfg.enableContentionProfiling);
  EXPECT_EQ(cfg.percentageOfNodesToScore, 40);
  EXPECT_EQ(cfg.podInitialBackoffSeconds, 2);
  EXPECT_EQ(cfg.podMaxBackoffSeconds, 20);
  EXPECT_TRUE(cfg.delayCacheUntilActive);
  ASSERT_EQ(cfg.extenders.size(), 1u);
  const auto& x = cfg.extenders[0];
  EXPECT_EQ(x.urlPrefix, "http://127.0.0.1:8888/");
  EXPECT_EQ(x.filterVerb, "filter");
  EXPECT_EQ(x.prioritizeVerb, "prioritize");
  EXPECT_EQ(x.weight, 3);
  EXPECT_EQ(x.bindVerb, "bind");
  EXPECT_TRUE(x.enableHTTPS);
  ASSERT_TRUE(x.tlsConfig.has_value());
  EXPECT_TRUE(x.tlsConfig->insecure);
  EXPECT_EQ(x.tlsConfig->serverName, "ext");
  EXPECT_EQ(x.tlsConfig->caData, "hello");
  EXPECT_EQ(x.httpTimeout, 2s);
  EXPECT_TRUE(x.nodeCacheCapable);
  ASSERT_EQ(x.managedResources.size(), 1u);
  EXPECT_EQ(x.managedResources[0].name, "example.com/foo");
  EXPECT_TRUE(x.managedResources[0].ignoredByScheduler);
  EXPECT_TRUE(x.ignorable);
}

TEST(SchedulerConfigLoad, JsonDocumentsDecodeLikeYaml) {
  auto r = decode_config(R"({"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration",
    "parallelism":4,"profiles":[{"schedulerName":"json-sched","plugins":{"score":{"disabled":[{"name":"ImageLocality"}]}}}]})");
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->parallelism, 4);
  ASSERT_EQ(r->profiles.size(), 1u);
  EXPECT_EQ(r->profiles[0].schedulerName, "json-sched");
  EXPECT_EQ(r->profiles[0].plugins.score.disabled.size(), 1u);
}

TEST(SchedulerConfigLoad, PluginArgsWithCoreTypesDecode) {
  auto cfg = must_decode(R"(profiles:
- pluginConfig:
  - name: PodTopologySpread
    args:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: PodTopologySpreadArgs
      defaultingType: List
      defaultConstraints:
      - maxSkew: 2
        topologyKey: topology.kubernetes.io/zone
        whenUnsatisfiable: ScheduleAnyway
        minDomains: 3
        nodeTaintsPolicy: Honor
        matchLabelKeys: [app]
  - name: NodeAffinity
    args:
      addedAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions:
            - key: pool
              operator: In
              values: [a, b]
        preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 10
          preference:
            matchFields:
            - key: metadata.name
              operator: NotIn
              values: [n1]
)");
  const auto& prof = cfg.profiles[0];
  auto* pts = prof.args_for<PodTopologySpreadArgs>("PodTopologySpread");
  ASSERT_NE(pts, nullptr);
  EXPECT_EQ(pts->defaultingType, "List");
  ASSERT_EQ(pts->defaultConstraints.size(), 1u);
  const auto& c = pts->defaultConstraints[0];
  EXPECT_EQ(c.maxSkew, 2);
  EXPECT_EQ(c.topologyKey, "topology.kubernetes.io/zone");
  EXPECT_EQ(c.whenUnsatisfiable, "ScheduleAnyway");
  EXPECT_EQ(c.minDomains, 3);
  EXPECT_EQ(c.nodeTaintsPolicy, "Honor");
  EXPECT_FALSE(c.nodeAffinityPolicy.has_value());
  EXPECT_EQ(c.matchLabelKeys, std::vector<std::string>{"app"});
  EXPECT_FALSE(c.labelSelector.has_value());

  auto* na = prof.args_for<NodeAffinityArgs>("NodeAffinity");
  ASSERT_NE(na, nullptr);
  ASSERT_TRUE(na->addedAffinity.has_value());
  ASSERT_TRUE(na->addedAffinity->requiredDuringSchedulingIgnoredDuringExecution.has_value());
  const auto& terms = na->addedAffinity->requiredDuringSchedulingIgnoredDuringExecution->nodeSelectorTerms;
  ASSERT_EQ(terms.size(), 1u);
  ASSERT_EQ(terms[0].matchExpressions.size(), 1u);
  EXPECT_EQ(terms[0].matchExpressions[0].key, "pool");
  EXPECT_EQ(terms[0].matchExpressions[0].operator_, "In");
  EXPECT_EQ(terms[0].matchExpressions[0].values, (std::vector<std::string>{"a", "b"}));
  const auto& pref = na->addedAffinity->preferredDuringSchedulingIgnoredDuringExecution;
  ASSERT_EQ(pref.size(), 1u);
  EXPECT_EQ(pref[0].weight, 10);
  ASSERT_EQ(pref[0].preference.matchFields.size(), 1u);
  EXPECT_EQ(pref[0].preference.matchFields[0].key, "metadata.name");
}

TEST(SchedulerConfigLoad, NullValuesMeanUnset) {
  auto cfg = must_decode("parallelism: null\nprofiles: ~\npercentageOfNodesToScore:\n");
  EXPECT_EQ(cfg.parallelism, 16);
  EXPECT_EQ(cfg.profiles.size(), 1u);
  EXPECT_EQ(cfg.percentageOfNodesToScore, 0);
}

TEST(SchedulerConfigLoad, LoadConfigValidatesAndLoadsFiles) {
  auto bad = load_config(doc("parallelism: 0\n"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "parallelism: Invalid value: 0: should be an integer value greater than zero");

  std::string path = std::string(KSCHED_BINARY_DIR) + "/scheduler_config_load_test.yaml";
  {
    std::ofstream out(path);
    out << doc("parallelism: 3\n");
  }
  auto ok = load_config_file(path);
  std::remove(path.c_str());
  ASSERT_TRUE(ok.ok()) << ok.error();
  EXPECT_EQ(ok->parallelism, 3);
  auto missing = load_config_file(path);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find(path), std::string::npos);
}

TEST(SchedulerConfigDuration, ParsesGoDurations) {
  EXPECT_EQ(*parse_duration("15s"), 15s);
  EXPECT_EQ(*parse_duration("1m30s"), 90s);
  EXPECT_EQ(*parse_duration("1.5h"), 90min);
  EXPECT_EQ(*parse_duration("300ms"), 300ms);
  EXPECT_EQ(*parse_duration("2h45m"), 165min);
  EXPECT_EQ(*parse_duration("-2s"), -2s);
  EXPECT_EQ(*parse_duration("0"), Duration{0});
  EXPECT_EQ(*parse_duration("1us"), 1us);
  EXPECT_EQ(*parse_duration("1\xC2\xB5s"), 1us);
  EXPECT_EQ(*parse_duration(".5s"), 500ms);
  EXPECT_EQ(parse_duration("").error(), "time: invalid duration \"\"");
  EXPECT_EQ(parse_duration("abc").error(), "time: invalid duration \"abc\"");
  EXPECT_EQ(parse_duration("10").error(), "time: missing unit in duration \"10\"");
  EXPECT_EQ(parse_duration("3d").error(), "time: unknown unit \"d\" in duration \"3d\"");
}

// The duration text round-trips through parse_duration (formatting is util::go_duration's).
TEST(SchedulerConfigDuration, ParsesWhatGoPrints) {
  for (const char* s : {"1h2m3.5s", "250ms", "45m0s", "10s", "1.5\xC2\xB5s", "-2s"})
    EXPECT_EQ(util::go_duration(*parse_duration(s)), s);
}

}  // namespace
}  // namespace ksched::scheduler::config

namespace ksched::scheduler::config {
namespace {

// Every prefix and a set of single-byte corruptions of a rich document either decode or fail
// with a message; none may crash or produce an empty error.
TEST(SchedulerConfigLoad, TruncatedAndCorruptedDocumentsFailCleanly) {
  const std::string text = doc(R"(parallelism: 4
leaderElection:
  leaseDuration: 1m30s
profiles:
- schedulerName: s
  plugins:
    multiPoint:
      disabled: [{name: "*"}]
      enabled: [{name: PrioritySort}, {name: DefaultBinder, weight: 2}]
  pluginConfig:
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]
  - name: Custom
    args: {a: [1, {b: c}]}
extenders:
- urlPrefix: http://x
  httpTimeout: 3s
)");
  std::size_t ok = 0;
  for (std::size_t n = 0; n <= text.size(); ++n) {
    auto r = load_config(text.substr(0, n));
    if (r.ok()) {
      ++ok;
    } else {
      EXPECT_FALSE(r.error().empty()) << n;
    }
  }
  EXPECT_GT(ok, 0u);
  const char replacements[] = {'\0', ':', '-', '[', '{', '"', '\'', ' ', '\n', '9', '&', '*', '!'};
  for (std::size_t i = 0; i < text.size(); ++i) {
    for (char c : replacements) {
      std::string t = text;
      t[i] = c;
      auto r = load_config(t);
      if (!r.ok()) {
        EXPECT_FALSE(r.error().empty()) << i;
      }
    }
  }
}

}  // namespace
}  // namespace ksched::scheduler::config
