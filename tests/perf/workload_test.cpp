#include <gtest/gtest.h>

#include "perf/workload.h"

#include <fstream>
#include <sstream>

namespace ksched::perf {
namespace {

const char* kConfig = R"(
- name: Basic
  defaultPodTemplatePath: templates/pod.yaml
  workloadTemplate:
  - opcode: createNodes
    countParam: $initNodes
    labelNodePrepareStrategy:
      labelKey: topology.kubernetes.io/zone
      labelValues: [a, b]
  - opcode: createPods
    countParam: $initPods
  - opcode: createPods
    countParam: $measurePods
    collectMetrics: true
    namespace: measured
  workloads:
  - name: small
    labels: [standard]
    params: {initNodes: 20, initPods: 10, measurePods: 50}
  - name: big
    threshold: 680
    params: {initNodes: 5000, initPods: 1000, measurePods: 10000}
- name: Churny
  workloadTemplate:
  - opcode: churn
    mode: recreate
    templatePaths: [templates/node.yaml]
    intervalMilliseconds: 1000
  - opcode: createPodSets
    countParam: $sets
    namespacePrefix: init-ns
    createPodsOp:
      opcode: createPods
      countParam: $perSet
  workloads:
  - name: one
    params: {sets: 3, perSet: 4}
)";

TEST(WorkloadConfig, ParsesTestCasesWorkloadsAndResolvesParams) {
  auto cfg = parse_config(kConfig, "/base");
  ASSERT_TRUE(cfg) << cfg.error();
  ASSERT_EQ(cfg->test_cases.size(), 2u);
  auto r = resolve(*cfg, "Basic");  // first workload by default
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->full_name(), "Basic/small");
  ASSERT_EQ(r->ops.size(), 3u);
  EXPECT_EQ(r->ops[0].opcode, "createNodes");
  EXPECT_EQ(r->ops[0].count, 20);
  EXPECT_EQ(r->ops[0].label_key, "topology.kubernetes.io/zone");
  EXPECT_EQ(r->ops[0].label_values, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(r->ops[1].count, 10);
  EXPECT_FALSE(r->ops[1].collect_metrics);
  EXPECT_EQ(r->ops[2].count, 50);
  EXPECT_TRUE(r->ops[2].collect_metrics);
  EXPECT_EQ(r->ops[2].namespace_, "measured");
  EXPECT_EQ(r->default_pod_template_path, "/base/templates/pod.yaml");

  auto big = resolve(*cfg, "Basic/big");
  ASSERT_TRUE(big) << big.error();
  EXPECT_EQ(big->threshold, 680);
  EXPECT_EQ(big->ops[2].count, 10000);

  auto c = resolve(*cfg, "Churny/one");
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->ops[0].mode, "recreate");
  EXPECT_EQ(c->ops[0].template_paths, (std::vector<std::string>{"/base/templates/node.yaml"}));
  EXPECT_EQ(c->ops[1].count, 3);
  ASSERT_EQ(c->ops[1].create_pods_op.size(), 1u);
  EXPECT_EQ(c->ops[1].create_pods_op[0].count, 4);
}

TEST(WorkloadConfig, OverridesReplaceParamsAndDropTheThreshold) {
  auto cfg = parse_config(kConfig, "/base");
  ASSERT_TRUE(cfg) << cfg.error();
  auto r = resolve(*cfg, "Basic/big", {{"initNodes", 7}, {"measurePods", 9}});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->ops[0].count, 7);
  EXPECT_EQ(r->ops[1].count, 1000);
  EXPECT_EQ(r->ops[2].count, 9);
  EXPECT_EQ(r->threshold, 0);  // upstream's threshold only applies to upstream's sizes
  EXPECT_EQ(r->full_name(), "Basic/big[initNodes=7,measurePods=9]");
  auto bad = resolve(*cfg, "Churny/one", {{"initPods", 3}});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("no param initPods"), std::string::npos) << bad.error();
}

TEST(WorkloadConfig, LabelsSelectWorkloads) {
  auto cfg = parse_config(kConfig, "/base");
  ASSERT_TRUE(cfg) << cfg.error();
  EXPECT_EQ(workloads_with_label(*cfg, "standard"), (std::vector<std::string>{"Basic/small"}));
  EXPECT_EQ(workloads_with_label(*cfg, "").size(), 3u);
}

TEST(WorkloadConfig, ErrorsNameTheProblem) {
  struct Case {
    const char* yaml;
    const char* want;
  } cases[] = {
      {"- name: X\n  workloadTemplate:\n  - opcode: explode\n  workloads:\n  - name: w\n", "unknown opcode \"explode\""},
      {"- name: X\n  workloadTemplate:\n  - opcode: createPods\n    countParam: $nope\n  workloads:\n  - name: w\n",
       "unknown param $nope"},
      {"- name: X\n  workloadTemplate:\n  - opcode: churn\n    mode: sideways\n    templatePaths: [a]\n  workloads:\n  - name: w\n",
       "churn mode"},
      {"- name: X\n  workloads:\n  - name: w\n", "workloadTemplate"},
      {"name: X\n", "list of test cases"},
      {"- name: X\n  workloadTemplate:\n  - opcode: createPods\n    count: 1\n  workloads:\n  - name: w\n- name: X\n"
       "  workloadTemplate:\n  - opcode: createPods\n    count: 1\n  workloads:\n  - name: w\n",
       "duplicate test case X"},
      {"- [unclosed\n", "invalid YAML"},
  };
  for (const auto& c : cases) {
    auto r = parse_config(c.yaml, ".");
    ASSERT_FALSE(r) << c.yaml;
    EXPECT_NE(r.error().find(c.want), std::string::npos) << "got: " << r.error();
  }
  auto cfg = parse_config(kConfig, "/base");
  ASSERT_TRUE(cfg);
  EXPECT_FALSE(resolve(*cfg, "Nope"));
  EXPECT_FALSE(resolve(*cfg, "Basic/nope"));
}

TEST(WorkloadConfig, FeatureGatesOfTheWorkloadOverTheTestCaseAndTemplateLists) {
  const char* yaml = R"(
- name: Gated
  featureGates: {OpportunisticBatching: true, SchedulerQueueingHints: false}
  workloadTemplate:
  - opcode: createPods
    count: 4
    podTemplatePaths: [templates/a.yaml, templates/b.yaml]
  workloads:
  - name: gateOn
  - name: gateOff
    featureGates: {OpportunisticBatching: false}
)";
  auto cfg = parse_config(yaml, "/base");
  ASSERT_TRUE(cfg) << cfg.error();
  auto on = resolve(*cfg, "Gated/gateOn");
  ASSERT_TRUE(on) << on.error();
  EXPECT_EQ(on->feature_gates, (std::map<std::string, bool>{{"OpportunisticBatching", true}, {"SchedulerQueueingHints", false}}));
  EXPECT_EQ(on->ops[0].pod_template_paths,
            (std::vector<std::string>{"/base/templates/a.yaml", "/base/templates/b.yaml"}));
  auto off = resolve(*cfg, "Gated/gateOff");
  ASSERT_TRUE(off) << off.error();
  EXPECT_EQ(off->feature_gates.at("OpportunisticBatching"), false);
  EXPECT_EQ(off->feature_gates.at("SchedulerQueueingHints"), false);

  auto bad = parse_config("- name: X\n  featureGates: {A: 1}\n  workloadTemplate:\n  - opcode: createPods\n    count: 1\n"
                          "  workloads:\n  - name: w\n",
                          ".");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("feature gate A must be true or false"), std::string::npos) << bad.error();
}

TEST(YamlToJson, KeepsQuotedScalarsAsStringsAndTypesPlainOnes) {
  auto v = yaml_to_json("a: \"110\"\nb: 110\nc: 1.5\nd: true\ne: 32Gi\nf: ''\ng: [1, x]\n");
  ASSERT_TRUE(v) << v.error();
  const auto& o = v->as_object();
  EXPECT_TRUE(o.at("a").is_string());
  EXPECT_EQ(o.at("b").as_int64(), 110);
  EXPECT_DOUBLE_EQ(o.at("c").as_double(), 1.5);
  EXPECT_TRUE(o.at("d").as_bool());
  EXPECT_EQ(o.at("e").as_string(), "32Gi");
  EXPECT_EQ(o.at("f").as_string(), "");
  EXPECT_EQ(o.at("g").as_array().size(), 2u);
}

const char* kDra = R"(
- name: Dra
  workloadTemplate:
  - opcode: createResourceDriver
    driverName: test-driver.cdi.k8s.io
    nodes: scheduler-perf-dra-*
    maxClaimsPerNodeParam: $maxClaimsPerNode
  - opcode: createAny
    templatePath: templates/deviceclass.yaml
  - opcode: createAny
    templatePath: templates/claim.yaml
    countParam: $initClaims
    namespace: init
  - opcode: allocResourceClaims
    namespace: init
  - opcode: createPods
    namespace: test
    count: 10
    steadyState: true
    durationParam: $duration
    collectMetrics: true
  workloads:
  - name: one
    params: {maxClaimsPerNode: 8, initClaims: 5, duration: 1m30s}
)";

// DRA's operations: createResourceDriver's driver, glob and devices per node; createAny's
// template and count (one unless told); a steady-state createPods with its duration from a
// duration param.
TEST(WorkloadConfig, DraOperationsAndDurationParams) {
  auto cfg = parse_config(kDra, "/base");
  ASSERT_TRUE(cfg) << cfg.error();
  auto w = resolve(*cfg, "Dra/one");
  ASSERT_TRUE(w) << w.error();
  ASSERT_EQ(w->ops.size(), 5u);
  EXPECT_EQ(w->ops[0].driver_name, "test-driver.cdi.k8s.io");
  EXPECT_EQ(w->ops[0].nodes, "scheduler-perf-dra-*");
  EXPECT_EQ(w->ops[0].max_claims_per_node, 8);
  EXPECT_EQ(w->ops[1].template_path, "/base/templates/deviceclass.yaml");
  EXPECT_EQ(w->ops[1].count, 1);
  EXPECT_EQ(w->ops[2].count, 5);
  EXPECT_EQ(w->ops[2].namespace_, "init");
  EXPECT_EQ(w->ops[3].opcode, "allocResourceClaims");
  EXPECT_TRUE(w->ops[4].steady_state);
  EXPECT_DOUBLE_EQ(w->ops[4].duration_seconds, 90);
  EXPECT_TRUE(w->uses_dra());
  EXPECT_EQ(parse_duration("500ms"), 0.5);
  EXPECT_EQ(parse_duration("2s"), 2.0);
  EXPECT_FALSE(parse_duration("2 s"));
  EXPECT_FALSE(parse_duration("ten"));

  auto bad = [](std::string text, std::string_view from, std::string_view to) {
    text.replace(text.find(from), from.size(), to);
    return parse_config(text, "/base");
  };
  auto r = bad(kDra, "duration: 1m30s", "duration: soon");
  ASSERT_FALSE(r);
  // A string param that is no duration is text, usable in templateParams but not as durationParam.
  EXPECT_NE(r.error().find("durationParam $duration is \"soon\", not a duration such as 10s"), std::string::npos) << r.error();
  r = bad(kDra, "durationParam: $duration", "durationParam: $later");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("durationParam refers to unknown duration param $later"), std::string::npos) << r.error();
  r = bad(kDra, "    driverName: test-driver.cdi.k8s.io\n", "");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("createResourceDriver needs driverName"), std::string::npos) << r.error();
  r = bad(kDra, "    durationParam: $duration\n", "");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("a steadyState createPods needs a positive count and duration"), std::string::npos) << r.error();
}

// The committed workload set: every upstream test case the issue asks for is defined, every
// workload resolves, and every template it names parses.
TEST(CommittedWorkloads, AllDefinedAndTemplatesLoad) {
  auto cfg = load_config_dir(std::string(KSCHED_SOURCE_DIR) + "/bench/workloads");
  ASSERT_TRUE(cfg) << cfg.error();
  for (const char* name :
       {"SchedulingBasic", "SchedulingPodAntiAffinity", "SchedulingPodAffinity", "SchedulingPreferredPodAffinity",
        "SchedulingPreferredPodAntiAffinity", "SchedulingNodeAffinity", "TopologySpreading", "PreferredTopologySpreading",
        "SchedulingRequiredPodAntiAffinityWithNSSelector", "SchedulingDaemonset", "Unschedulable",
        "SchedulingWithMixedChurn", "PreemptionBasic", "PreemptionAsync", "SchedulingWhileGated", "SchedulingCSIPVs",
        "SchedulingWithResourceClaimTemplate/2000pods_100nodes", "SchedulingWithResourceClaimTemplate/5000pods_500nodes",
        "SteadyStateClusterResourceClaimTemplate/empty_500nodes", "SteadyStateClusterResourceClaimTemplate/half_500nodes",
        "SteadyStateClusterResourceClaimTemplate/full_500nodes", "SteadyStateClusterResourceClaimTemplateFirstAvailable",
        "SchedulingWithResourceClaimTemplateToleration", "CPGBasicScheduling", "CPGGangScheduling",
        "CPGTopologyAwareScheduling", "CPGPreemptionBasic", "CPGPreemptionCPG", "CPGPreemptionAffinity"}) {
    auto r = resolve(*cfg, name);
    EXPECT_TRUE(r) << name << ": " << (r ? "" : r.error());
  }
  auto basic = resolve(*cfg, "SchedulingBasic/5000Nodes_50000Pods");
  ASSERT_TRUE(basic);
  EXPECT_EQ(basic->params.at("initNodes"), 5000);
  EXPECT_EQ(basic->params.at("measurePods"), 50000);
  EXPECT_GT(workloads_with_label(*cfg, "standard").size(), 10u);
  // Upstream's sizes for the DRA workloads issue #43 measures.
  auto dra = resolve(*cfg, "SchedulingWithResourceClaimTemplate/5000pods_500nodes");
  ASSERT_TRUE(dra);
  EXPECT_EQ(dra->params.at("nodesWithDRA"), 500);
  EXPECT_EQ(dra->params.at("initPods") + dra->params.at("measurePods"), 5000);
  EXPECT_EQ(dra->params.at("maxClaimsPerNode"), 10);
  EXPECT_TRUE(dra->uses_dra());
  auto full = resolve(*cfg, "SteadyStateClusterResourceClaimTemplate/full_500nodes");
  ASSERT_TRUE(full);
  EXPECT_EQ(full->params.at("initClaims"), 4990);
  EXPECT_EQ(full->ops.back().count, 10);
  EXPECT_TRUE(full->ops.back().steady_state);
  EXPECT_DOUBLE_EQ(full->ops.back().duration_seconds, 10);
  EXPECT_FALSE(basic->uses_dra());
  for (const auto& name : workloads_with_label(*cfg, "")) {
    auto r = resolve(*cfg, name);
    ASSERT_TRUE(r) << r.error();
    std::vector<std::string> paths{r->default_pod_template_path};
    for (const auto& op : r->ops) {
      for (const auto& p : {op.node_template_path, op.pod_template_path, op.namespace_template_path, op.pv_template_path,
                            op.pvc_template_path, op.template_path})
        paths.push_back(p);
      for (const auto& p : op.template_paths) paths.push_back(p);
    }
    for (const auto& p : paths) {
      if (p.empty() || p == r->base_dir || p.back() == '/') continue;
      // A template with {{ }} actions parses once rendered with its operation's params.
      std::map<std::string, int> params;
      std::map<std::string, std::string> text_params;
      for (const auto& op : r->ops)
        if (op.pod_template_path == p || op.template_path == p) {
          params = op.template_params;
          text_params = op.template_text_params;
        }
      std::ifstream in(p);
      std::stringstream text;
      text << in.rdbuf();
      auto rendered = render_template(text.str(), 0, params, text_params);
      ASSERT_TRUE(rendered) << name << ": " << p << ": " << rendered.error();
      auto t = yaml_to_json(*rendered);
      EXPECT_TRUE(t && t->is_object()) << name << ": " << p << ": " << (t ? "not an object" : t.error());
    }
  }
  // Issue #44's gang workloads: upstream's test case name, gangs of 8 and of 1,000 (one Workload
  // per gang, countMultiplierParam pods).
  auto gangs = resolve(*cfg, "GangScheduling/5000Nodes_1000Gangs_8000Pods");
  ASSERT_TRUE(gangs) << gangs.error();
  ASSERT_EQ(gangs->ops.size(), 3u);
  EXPECT_EQ(gangs->ops[1].opcode, "createAny");
  EXPECT_EQ(gangs->ops[1].count, 1000);
  EXPECT_EQ(gangs->ops[2].count, 8000);
  EXPECT_EQ(gangs->ops[2].template_params.at("podsPerGroup"), 8);
  EXPECT_TRUE(gangs->feature_gates.at("GangScheduling"));
  auto big = resolve(*cfg, "GangScheduling/5000Nodes_10Gangs_10000Pods_1000PerGroup");
  ASSERT_TRUE(big) << big.error();
  EXPECT_EQ(big->ops[2].count, 10000);
  // Upstream's cpg/performance-config.yaml CPGPreemptionBasic: its string param gangCpuRequest
  // reaches the gang pods' template as text; the victims' counts reach theirs as numbers.
  auto preempt = resolve(*cfg, "CPGPreemptionBasic/100Nodes_10PreemptorCPGs_20Groups_100Pods_Evicting_1000InitPods");
  ASSERT_TRUE(preempt) << preempt.error();
  ASSERT_EQ(preempt->ops.size(), 6u);
  EXPECT_EQ(preempt->ops[2].count, 1000);
  EXPECT_EQ(preempt->ops[2].template_params.at("podsCount"), 1000);
  EXPECT_EQ(preempt->ops[5].count, 100);
  EXPECT_EQ(preempt->ops[5].template_text_params.at("cpuRequest"), "3970m");
  EXPECT_TRUE(preempt->ops[5].collect_metrics);
}

// scheduler_perf's object templates: {{.Index}}, a templateParams value, DivideInt; errors name
// what is wrong.
TEST(WorkloadTemplate, RendersIndexParamsAndDivideInt) {
  const std::map<std::string, int> params{{"podsPerGroup", 8}};
  auto r = render_template("name: gang-{{DivideInt .Index .podsPerGroup}}-{{.Index}} min: {{ .podsPerGroup }}", 17, params);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, "name: gang-2-17 min: 8");
  EXPECT_EQ(*render_template("no actions", 3, {}), "no actions");
  r = render_template("{{.missing}}", 0, params);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find(".missing"), std::string::npos) << r.error();
  r = render_template("{{DivideInt .Index .zero}}", 1, {{"zero", 0}});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("divides by zero"), std::string::npos) << r.error();
  r = render_template("{{printf .Index}}", 1, {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("unsupported template action {{printf .Index}}"), std::string::npos) << r.error();
  EXPECT_FALSE(render_template("gang-{{.Index", 1, {}));
  // A literal argument, as upstream's topology-aware node template divides by one.
  r = render_template("zone-{{DivideInt .Index 1000}} rack-{{DivideInt .Index 100}}", 2517, {});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, "zone-2 rack-25");
}

// Upstream's cpg/templates/pod-low-priority.yaml host port, AddInt over a nested Mod and DivideInt:
// 10 pods on 2 nodes cycle through 5 ports; a text param is substituted as written, and arithmetic
// on it, Mod by 0, or an unbalanced parenthesis is an error.
TEST(WorkloadTemplate, RendersNestedAddIntModAndTextParams) {
  const std::map<std::string, int> params{{"podsCount", 10}, {"nodesCount", 2}};
  const std::map<std::string, std::string> texts{{"cpuRequest", "3970m"}};
  const char* port = "hostPort: {{AddInt 8000 (Mod .Index (DivideInt .podsCount .nodesCount))}}";
  std::vector<std::string> ports;
  for (long i : {0, 4, 5, 7}) {
    auto r = render_template(port, i, params);
    ASSERT_TRUE(r) << r.error();
    ports.push_back(*r);
  }
  EXPECT_EQ(ports, (std::vector<std::string>{"hostPort: 8000", "hostPort: 8004", "hostPort: 8000", "hostPort: 8002"}));
  auto r = render_template("cpu: {{.cpuRequest}} pod-{{ .Index }}", 3, params, texts);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(*r, "cpu: 3970m pod-3");
  r = render_template("{{DivideInt .cpuRequest 2}}", 3, params, texts);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find(".cpuRequest, which is text"), std::string::npos) << r.error();
  r = render_template("{{Mod .Index (DivideInt .nodesCount .podsCount)}}", 3, params);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("divides by zero"), std::string::npos) << r.error();
  r = render_template("{{AddInt 1 (Mod .Index 2}}", 3, params);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("unsupported template action"), std::string::npos) << r.error();
  EXPECT_FALSE(render_template("{{AddInt 1 2 3}}", 0, {}));
}

// countMultiplierParam multiplies the count; templateParams take numbers and $params.
TEST(WorkloadConfig, CountMultiplierAndTemplateParams) {
  auto cfg = parse_config(R"(
- name: G
  workloadTemplate:
  - opcode: createPods
    countParam: $groups
    countMultiplierParam: $size
    templateParams: {podsPerGroup: $size, fixed: 3, cpu: 100m, mem: $mem}
  workloads:
  - name: one
    params: {groups: 4, size: 5, mem: 1Gi}
)", "/base");
  ASSERT_TRUE(cfg) << cfg.error();
  auto w = resolve(*cfg, "G/one");
  ASSERT_TRUE(w) << w.error();
  EXPECT_EQ(w->ops[0].count, 20);
  EXPECT_EQ(w->ops[0].template_params.at("podsPerGroup"), 5);
  EXPECT_EQ(w->ops[0].template_params.at("fixed"), 3);
  // Strings, written or from a string $param, are text (upstream's cpuRequest: 3970m).
  EXPECT_EQ(w->ops[0].template_text_params.at("cpu"), "100m");
  EXPECT_EQ(w->ops[0].template_text_params.at("mem"), "1Gi");
  EXPECT_FALSE(w->ops[0].template_params.count("cpu"));
  auto bad = parse_config(R"(
- name: G
  workloadTemplate:
  - opcode: createPods
    count: 2
    templateParams: {cpu: $cpu}
  workloads:
  - name: one
)", "/base");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("templateParams.cpu refers to unknown param $cpu"), std::string::npos) << bad.error();
}

}  // namespace
}  // namespace ksched::perf
