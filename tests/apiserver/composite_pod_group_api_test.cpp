// CompositePodGroups (v1.37 alpha, KEP-6012, gate CompositePodGroup) through Api::handle:
// scheduling.k8s.io/v1alpha3 CompositePodGroup served only with GenericWorkload and
// CompositePodGroup (discovery, routing, RBAC), its strategy and rules (upstream's
// pkg/registry/scheduling/compositepodgroup/strategy.go and declarative_validation_test.go: the
// +k8s: tags of staging/src/k8s.io/api/scheduling/v1alpha3/types.go), the v1beta1 Workload's
// compositePodGroupTemplates (pkg/registry/scheduling/workload/declarative_validation_test.go
// and pkg/apis/scheduling/validation's handwritten ValidateWorkloadSpec rules) and the PodGroup's
// parentCompositePodGroupName (dropped without the gate unless stored).
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <string>
#include <vector>

#include "api/codec.h"
#include "api/scheduling.h"
#include "api_harness.h"

namespace ksched::apiserver {
namespace {

namespace json = boost::json;

constexpr const char* kCpgs = "/apis/scheduling.k8s.io/v1alpha3/namespaces/default/compositepodgroups";
constexpr const char* kPodGroups = "/apis/scheduling.k8s.io/v1beta1/namespaces/default/podgroups";
constexpr const char* kWorkloads = "/apis/scheduling.k8s.io/v1beta1/namespaces/default/workloads";
constexpr const char* kAggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
constexpr const char* kMergePatch = "application/merge-patch+json";

std::string object(std::string_view version, std::string_view kind, std::string_view name, std::string_view spec) {
  return std::string(R"({"apiVersion":"scheduling.k8s.io/)") + std::string(version) + R"(","kind":")" +
         std::string(kind) + R"(","metadata":{"name":")" + std::string(name) + R"("},"spec":)" + std::string(spec) + "}";
}
std::string cpg(std::string_view name, std::string_view spec) {
  return object("v1alpha3", "CompositePodGroup", name, spec);
}
std::string workload(std::string_view name, std::string_view spec) {
  return object("v1beta1", "Workload", name, spec);
}

// upstream's mkValidCompositePodGroup.
constexpr const char* kValidCpg =
    R"({"workloadRef":{"workloadName":"workload","templateName":"template"},"schedulingPolicy":{"basic":{}}})";
// A Workload of one composite template (gang of 2 groups) with two PodGroup templates.
constexpr const char* kCompositeWorkload = R"({"compositePodGroupTemplates":[{"name":"replica",
    "schedulingPolicy":{"gang":{"minGroupCount":2}},
    "podGroupTemplates":[{"name":"leader","schedulingPolicy":{"gang":{"minCount":1}}},
                         {"name":"workers","schedulingPolicy":{"gang":{"minCount":4}}}]}]})";

class CompositePodGroupApiTest : public ApiHarness {
 protected:
  void enable(bool generic_workload, bool composite) {
    FeatureGates g;
    g.GenericWorkload = generic_workload;
    g.CompositePodGroup = composite;
    api_.set_feature_gates(g);
    api_.bootstrap();
  }
  std::vector<std::string> causes(const Response& r) {
    std::vector<std::string> out;
    if (r.status != 422) {
      out.push_back("status " + std::to_string(r.status) + ": " + r.body);
      return out;
    }
    auto status = parse(r);
    for (const auto& c : status["details"].at("causes").as_array())
      out.push_back(std::string(c.at("field").as_string()) + ": " + std::string(c.at("message").as_string()));
    return out;
  }
  std::vector<std::string> cpg_causes(std::string_view spec) { return causes(call("POST", kCpgs, cpg("cpg", spec))); }
  std::vector<std::string> workload_causes(std::string_view spec) {
    return causes(call("POST", kWorkloads, workload("w", spec)));
  }
  std::vector<std::string> scheduler_verbs(std::string_view resource) {
    std::vector<std::string> verbs;
    auto role = parse(call("GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:kube-scheduler"));
    for (const auto& r : role["rules"].as_array()) {
      const auto& o = r.as_object();
      auto* res = o.if_contains("resources");
      if (!res) continue;
      bool match = false;
      for (const auto& x : res->as_array()) match = match || (x.is_string() && x.get_string() == resource);
      if (match)
        for (const auto& v : o.at("verbs").as_array()) verbs.emplace_back(v.as_string());
    }
    std::sort(verbs.begin(), verbs.end());
    return verbs;
  }
};

// Upstream's FeatureGateAPIRequirements: compositepodgroups only with CompositePodGroup (and
// GenericWorkload here). Off: no v1alpha3 in discovery or OpenAPI, 404 on its URLs, no RBAC rule.
TEST_F(CompositePodGroupApiTest, ServedOnlyWithBothGates) {
  for (auto [generic, composite] : {std::pair{false, false}, {true, false}, {false, true}}) {
    enable(generic, composite);
    SCOPED_TRACE(std::to_string(generic) + std::to_string(composite));
    EXPECT_EQ(call("GET", "/apis/scheduling.k8s.io/v1alpha3").status, 404);
    EXPECT_EQ(call("GET", kCpgs).status, 404);
    EXPECT_EQ(call("POST", kCpgs, cpg("cpg", kValidCpg)).status, 404);
    EXPECT_EQ(call("GET", "/apis", "", "", kAggregated).body.find("\"compositepodgroups\""), std::string::npos);
    EXPECT_EQ(call("GET", "/openapi/v3/apis/scheduling.k8s.io/v1alpha3").status, 404);
    EXPECT_TRUE(scheduler_verbs("compositepodgroups").empty());
  }
  enable(true, true);
  auto list = parse(call("GET", "/apis/scheduling.k8s.io/v1alpha3"));
  std::vector<std::string> names;
  for (const auto& r : list["resources"].as_array()) names.emplace_back(r.at("name").as_string());
  EXPECT_EQ(names, (std::vector<std::string>{"compositepodgroups", "compositepodgroups/status"}));
  EXPECT_EQ(list["resources"].as_array()[0].at("kind"), "CompositePodGroup");
  EXPECT_EQ(list["resources"].as_array()[0].at("namespaced"), true);
  EXPECT_NE(call("GET", "/apis", "", "", kAggregated).body.find("\"compositepodgroups\""), std::string::npos);
  auto doc = call("GET", "/openapi/v3/apis/scheduling.k8s.io/v1alpha3");
  ASSERT_EQ(doc.status, 200);
  auto openapi = parse(doc);
  const auto& schemas = openapi["components"].at("schemas").as_object();
  ASSERT_TRUE(schemas.contains("io.k8s.api.scheduling.v1alpha3.CompositePodGroup"));
  EXPECT_EQ(schemas.at("io.k8s.api.scheduling.v1alpha3.CompositeGangSchedulingPolicy")
                .at("properties")
                .at("minGroupCount")
                .at("type"),
            "integer");
  EXPECT_EQ(scheduler_verbs("compositepodgroups"), (std::vector<std::string>{"get", "list", "watch"}));
  EXPECT_EQ(scheduler_verbs("compositepodgroups/status"), (std::vector<std::string>{"patch", "update"}));
}

// compositepodgroup/strategy.go: disruptionMode defaulted to {single: {}}, status cleared on
// create and kept on update, a status write keeping spec; the typed decode of what was written.
TEST_F(CompositePodGroupApiTest, CreateDefaultsStatusAndTypedDecode) {
  enable(true, true);
  auto created = call("POST", kCpgs,
                      cpg("replica-0", R"({"parentCompositePodGroupName":"job-root",
                          "workloadRef":{"workloadName":"job","templateName":"replica"},
                          "schedulingPolicy":{"gang":{"minGroupCount":2}},"priority":7},
                          "status":{"conditions":[{"type":"X","status":"True"}]})"));
  ASSERT_EQ(created.status, 201) << created.body;
  auto o = parse(created);
  EXPECT_EQ(o["apiVersion"], "scheduling.k8s.io/v1alpha3");
  EXPECT_EQ(o["spec"].at("disruptionMode"), (json::object{{"single", json::object()}}));
  EXPECT_TRUE(!o.contains("status") || !o["status"].as_object().contains("conditions")) << created.body;
  const std::string url = std::string(kCpgs) + "/replica-0";
  auto status = call("PATCH", url + "/status",
                     R"({"spec":{"priority":99},"status":{"conditions":[{"type":"CompositePodGroupInitiallyScheduled",
                         "status":"True","reason":"Scheduled","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]}})",
                     kMergePatch);
  ASSERT_EQ(status.status, 200) << status.body;
  EXPECT_EQ(parse(status)["spec"].at("priority"), 7);
  auto typed = api::decode<api::schedulingv1alpha3::CompositePodGroup>(call("GET", url).body);
  ASSERT_TRUE(typed) << typed.error();
  ASSERT_TRUE(typed->spec.parentCompositePodGroupName);
  EXPECT_EQ(*typed->spec.parentCompositePodGroupName, "job-root");
  ASSERT_TRUE(typed->spec.schedulingPolicy.gang);
  EXPECT_EQ(typed->spec.schedulingPolicy.gang->minGroupCount, 2);
  ASSERT_EQ(typed->status.conditions.size(), 1u);
  EXPECT_EQ(typed->status.conditions[0].type, api::schedulingv1beta1::kCompositePodGroupInitiallyScheduled);
  auto relabel = call("PATCH", url, R"({"metadata":{"labels":{"a":"b"}},"status":null})", kMergePatch);
  ASSERT_EQ(relabel.status, 200) << relabel.body;
  EXPECT_EQ(parse(relabel)["status"].at("conditions").at(0).at("reason"), "Scheduled");
  EXPECT_EQ(parse(call("GET", kCpgs))["kind"], "CompositePodGroupList");
  EXPECT_EQ(call("DELETE", url).status, 200);
}

// compositepodgroup declarative_validation_test.go's TestDeclarativeValidate cases.
TEST_F(CompositePodGroupApiTest, CreateValidation) {
  enable(true, true);
  EXPECT_EQ(cpg_causes(R"({"parentCompositePodGroupName":"invalid/name","workloadRef":{"workloadName":"w","templateName":"t"},
                          "schedulingPolicy":{"basic":{}}})")
                .at(0)
                .rfind("spec.parentCompositePodGroupName: Invalid value: \"invalid/name\": a lowercase RFC 1123 subdomain",
                       0),
            0u);
  EXPECT_EQ(cpg_causes(R"({"workloadRef":{"workloadName":"w","templateName":"t"},"schedulingPolicy":{"basic":{}},
                          "priority":1000000001})"),
            std::vector<std::string>{"spec.priority: Invalid value: 1000000001: must be less than or equal to 1000000000"});
  EXPECT_EQ(cpg_causes(R"({"workloadRef":{"workloadName":"w","templateName":"t"},"schedulingPolicy":{}})"),
            std::vector<std::string>{"spec.schedulingPolicy: Invalid value: \"\": must specify one of: `basic`, `gang`"});
  EXPECT_EQ(cpg_causes(R"({"workloadRef":{"workloadName":"w","templateName":"t"},"schedulingPolicy":{"gang":{"minGroupCount":0}}})"),
            std::vector<std::string>{"spec.schedulingPolicy.gang.minGroupCount: Required value"});
  EXPECT_EQ(cpg_causes(R"({"workloadRef":{"workloadName":"w","templateName":"t"},"schedulingPolicy":{"gang":{"minGroupCount":-1}}})"),
            std::vector<std::string>{
                "spec.schedulingPolicy.gang.minGroupCount: Invalid value: -1: must be greater than or equal to 1"});
  EXPECT_EQ(cpg_causes(R"({"schedulingPolicy":{"basic":{}}})"), std::vector<std::string>{"spec.workloadRef: Required value"});
  EXPECT_EQ(cpg_causes(R"({"workloadRef":{"workloadName":"w"},"schedulingPolicy":{"basic":{}}})"),
            std::vector<std::string>{"spec.workloadRef.templateName: Required value"});
  EXPECT_EQ(cpg_causes(R"({"workloadRef":{"workloadName":"w","templateName":"invalid/template"},"schedulingPolicy":{"basic":{}}})")
                .at(0)
                .rfind("spec.workloadRef.templateName: Invalid value: \"invalid/template\": a lowercase RFC 1123 label", 0),
            0u);
  EXPECT_EQ(cpg_causes(R"({"workloadRef":{"workloadName":"w","templateName":"t"},"schedulingPolicy":{"basic":{}},
                          "preemptionPolicy":"Never"})"),
            std::vector<std::string>{"spec.preemptionPolicy: Forbidden"});
  // schedulingConstraints without TopologyAwareWorkloadScheduling is dropped (dropDisabledCPGSchedulingConstraintsFields).
  auto dropped = call("POST", kCpgs,
                      cpg("c", R"({"workloadRef":{"workloadName":"w","templateName":"t"},"schedulingPolicy":{"basic":{}},
                                  "schedulingConstraints":{"topology":[{"key":"rack"}]}})"));
  ASSERT_EQ(dropped.status, 201) << dropped.body;
  EXPECT_FALSE(parse(dropped)["spec"].as_object().contains("schedulingConstraints"));
}

// TestDeclarativeValidateUpdate: every spec field is immutable (the policy as a whole), a status
// write validates the conditions (TestDeclarativeValidateStatusUpdate).
TEST_F(CompositePodGroupApiTest, UpdateRules) {
  enable(true, true);
  ASSERT_EQ(call("POST", kCpgs,
                 cpg("cpg", R"({"parentCompositePodGroupName":"parent1","workloadRef":{"workloadName":"w","templateName":"t"},
                               "schedulingPolicy":{"gang":{"minGroupCount":2}},"priorityClassName":"low","priority":100})"))
                .status,
            201);
  auto patch = [&](std::string_view body, std::string_view sub = "") {
    std::string target = std::string(kCpgs) + "/cpg";
    if (!sub.empty()) target += "/" + std::string(sub);
    return causes(call("PATCH", target, std::string(body), kMergePatch));
  };
  EXPECT_EQ(patch(R"({"spec":{"parentCompositePodGroupName":"parent2"}})"),
            std::vector<std::string>{"spec.parentCompositePodGroupName: Invalid value: null: field is immutable"});
  EXPECT_EQ(patch(R"({"spec":{"priority":200}})"),
            std::vector<std::string>{"spec.priority: Invalid value: null: field is immutable"});
  EXPECT_EQ(patch(R"({"spec":{"priorityClassName":"high"}})"),
            std::vector<std::string>{"spec.priorityClassName: Invalid value: null: field is immutable"});
  EXPECT_EQ(patch(R"({"spec":{"schedulingPolicy":{"gang":{"minGroupCount":5}}}})"),
            std::vector<std::string>{"spec.schedulingPolicy: Invalid value: null: field is immutable"});
  EXPECT_EQ(patch(R"({"spec":{"workloadRef":null}})"),
            (std::vector<std::string>{"spec.workloadRef: Required value",
                                      "spec.workloadRef: Invalid value: null: field is immutable"}));
  EXPECT_EQ(patch(R"({"spec":{"workloadRef":{"templateName":"other-template"}}})"),
            std::vector<std::string>{"spec.workloadRef: Invalid value: null: field is immutable"});
  EXPECT_EQ(patch(R"({"status":{"conditions":[{"type":"CompositePodGroupInitiallyScheduled","status":"True",
                      "reason":"Scheduled","observedGeneration":-1,"lastTransitionTime":"2026-01-01T00:00:00Z"}]}})",
                  "status")
                .at(0)
                .rfind("status.conditions[0].observedGeneration: Invalid value: -1", 0),
            0u);
}

// The v1beta1 Workload's compositePodGroupTemplates: forbidden without the gate (and the union's
// message names only podGroupTemplates), allowed with it; workload declarative_validation_test.go.
TEST_F(CompositePodGroupApiTest, WorkloadCompositeTemplatesNeedTheGate) {
  enable(true, false);
  EXPECT_EQ(workload_causes(kCompositeWorkload),
            std::vector<std::string>{"spec.compositePodGroupTemplates: Forbidden"});
  EXPECT_EQ(workload_causes(R"({"podGroupTemplates":[]})"),
            std::vector<std::string>{"spec: Invalid value: \"\": must specify one of: `podGroupTemplates`"});
  enable(true, true);
  auto created = call("POST", kWorkloads, workload("job", kCompositeWorkload));
  ASSERT_EQ(created.status, 201) << created.body;
  auto typed = api::decode<api::schedulingv1beta1::Workload>(call("GET", std::string(kWorkloads) + "/job").body);
  ASSERT_TRUE(typed) << typed.error();
  ASSERT_EQ(typed->spec.compositePodGroupTemplates.size(), 1u);
  const auto& replica = typed->spec.compositePodGroupTemplates[0];
  ASSERT_TRUE(replica.schedulingPolicy.gang);
  EXPECT_EQ(replica.schedulingPolicy.gang->minGroupCount, 2);
  ASSERT_EQ(replica.podGroupTemplates.size(), 2u);
  EXPECT_EQ(replica.podGroupTemplates[1].name, "workers");
  // Stored with the gate, the Workload stays writable after the gate is turned off (ratcheting).
  enable(true, false);
  EXPECT_EQ(call("PATCH", std::string(kWorkloads) + "/job", R"({"metadata":{"labels":{"a":"b"}}})", kMergePatch).status,
            200);
}

// The +k8s: tags through the tree and the handwritten ValidateWorkloadSpec rules.
TEST_F(CompositePodGroupApiTest, WorkloadCompositeTemplateRules) {
  enable(true, true);
  EXPECT_EQ(workload_causes(R"({"podGroupTemplates":[],"compositePodGroupTemplates":[]})"),
            std::vector<std::string>{
                "spec: Invalid value: \"\": must specify one of: `podGroupTemplates`, `compositePodGroupTemplates`"});
  EXPECT_EQ(workload_causes(R"({"podGroupTemplates":[{"name":"a","schedulingPolicy":{"basic":{}}}],
      "compositePodGroupTemplates":[{"name":"c","schedulingPolicy":{"basic":{}},
        "podGroupTemplates":[{"name":"b","schedulingPolicy":{"basic":{}}}]}]})"),
            std::vector<std::string>{"spec: Invalid value: \"{`podGroupTemplates`, `compositePodGroupTemplates`}\": must "
                                     "specify exactly one of: `podGroupTemplates`, `compositePodGroupTemplates`"});
  // cpg empty children (MarkFromImperative: the handwritten rule, value the template's name).
  EXPECT_EQ(workload_causes(R"({"compositePodGroupTemplates":[{"name":"cpg-0","schedulingPolicy":{"basic":{}}}]})"),
            std::vector<std::string>{"spec.compositePodGroupTemplates[0]: Invalid value: \"cpg-0\": must have at least "
                                     "one child PodGroupTemplate or CompositePodGroupTemplate"});
  // cpg policy missing / minGroupCount 0 / negative.
  EXPECT_EQ(workload_causes(R"({"compositePodGroupTemplates":[{"name":"c","schedulingPolicy":{"gang":{"minGroupCount":-1}},
      "podGroupTemplates":[{"name":"p","schedulingPolicy":{"basic":{}}}]}]})"),
            std::vector<std::string>{"spec.compositePodGroupTemplates[0].schedulingPolicy.gang.minGroupCount: Invalid "
                                     "value: -1: must be greater than or equal to 1"});
  // nested pg empty name, nested disruptionMode union.
  EXPECT_EQ(workload_causes(R"({"compositePodGroupTemplates":[{"name":"c","schedulingPolicy":{"basic":{}},
      "podGroupTemplates":[{"schedulingPolicy":{"basic":{}},"disruptionMode":{"single":{},"all":{}}}]}]})"),
            (std::vector<std::string>{
                "spec.compositePodGroupTemplates[0].podGroupTemplates[0].name: Required value",
                "spec.compositePodGroupTemplates[0].podGroupTemplates[0].disruptionMode: Invalid value: \"{`single`, "
                "`all`}\": must specify exactly one of: `single`, `all`"}));
  // duplicate nested compositePodGroupTemplates (the list-map key).
  auto dup = workload_causes(R"({"compositePodGroupTemplates":[{"name":"c","schedulingPolicy":{"basic":{}},
      "compositePodGroupTemplates":[{"name":"sub","schedulingPolicy":{"basic":{}},"podGroupTemplates":[{"name":"p","schedulingPolicy":{"basic":{}}}]},
                                    {"name":"sub","schedulingPolicy":{"basic":{}},"podGroupTemplates":[{"name":"q","schedulingPolicy":{"basic":{}}}]}]}]})");
  ASSERT_FALSE(dup.empty());
  EXPECT_EQ(dup[0].rfind("spec.compositePodGroupTemplates[0].compositePodGroupTemplates[1]: Duplicate value: ", 0), 0u)
      << dup[0];
  // A name used in two lists of the tree (validateWorkloadTemplateNamesUniqueness).
  EXPECT_EQ(workload_causes(R"({"compositePodGroupTemplates":[{"name":"c","schedulingPolicy":{"basic":{}},
      "podGroupTemplates":[{"name":"c","schedulingPolicy":{"basic":{}}}]}]})"),
            std::vector<std::string>{"spec.compositePodGroupTemplates[0].podGroupTemplates[0].name: Duplicate value: \"c\""});
  // cpg priorityClassName differing from its children's (validateWorkloadPriority).
  EXPECT_EQ(workload_causes(R"({"compositePodGroupTemplates":[{"name":"c","schedulingPolicy":{"basic":{}},
      "priorityClassName":"my-priority","podGroupTemplates":[{"name":"p","schedulingPolicy":{"basic":{}}}]}]})"),
            std::vector<std::string>{"spec: Invalid value: null: detected multiple priority configurations"});
  // The same rule holds for a Workload without composite templates.
  EXPECT_EQ(workload_causes(R"({"podGroupTemplates":[{"name":"a","schedulingPolicy":{"basic":{}},"priority":1},
      {"name":"b","schedulingPolicy":{"basic":{}},"priority":2}]})"),
            std::vector<std::string>{"spec: Invalid value: null: detected multiple priority configurations"});
  // Depth: four nested composite levels exceed WorkloadMaxTreeDepth (4) with the PodGroup leaves.
  const std::string leaf = R"("podGroupTemplates":[{"name":"p","schedulingPolicy":{"basic":{}}}])";
  auto level = [&](const std::string& name, const std::string& inner) {
    return R"({"name":")" + name + R"(","schedulingPolicy":{"basic":{}},)" + inner + "}";
  };
  const std::string three = level("l1", R"("compositePodGroupTemplates":[)" +
                                            level("l2", R"("compositePodGroupTemplates":[)" + level("l3", leaf) + "]") +
                                            "]");
  EXPECT_EQ(call("POST", kWorkloads, workload("three", R"({"compositePodGroupTemplates":[)" + three + "]}")).status, 201);
  const std::string four =
      level("l1", R"("compositePodGroupTemplates":[)" +
                      level("l2", R"("compositePodGroupTemplates":[)" +
                                      level("l3", R"("compositePodGroupTemplates":[)" + level("l4", leaf) + "]") + "]") +
                      "]");
  auto deep = workload_causes(R"({"compositePodGroupTemplates":[)" + four + "]}");
  ASSERT_EQ(deep.size(), 1u);
  EXPECT_EQ(deep[0].rfind("spec.compositePodGroupTemplates[0]: Invalid value: ", 0), 0u) << deep[0];
  EXPECT_NE(deep[0].find(": maximum template hierarchy depth is 4"), std::string::npos) << deep[0];
}

// Update: no composite template added or removed at any level, a template's fields immutable
// (+k8s:update=NoAddItem/NoRemoveItem, +k8s:immutable), as for podGroupTemplates.
TEST_F(CompositePodGroupApiTest, WorkloadCompositeTemplatesUpdate) {
  enable(true, true);
  ASSERT_EQ(call("POST", kWorkloads, workload("job", kCompositeWorkload)).status, 201);
  auto update = [&](std::string_view spec) {
    auto current = parse(call("GET", std::string(kWorkloads) + "/job"));
    current["spec"] = json::parse(spec);
    return causes(call("PUT", std::string(kWorkloads) + "/job", json::serialize(current)));
  };
  EXPECT_EQ(update(R"({"compositePodGroupTemplates":[{"name":"replica","schedulingPolicy":{"gang":{"minGroupCount":2}},
      "podGroupTemplates":[{"name":"leader","schedulingPolicy":{"gang":{"minCount":1}}}]}]})"),
            std::vector<std::string>{"spec.compositePodGroupTemplates[0].podGroupTemplates: Forbidden: cannot remove items"});
  EXPECT_EQ(update(R"({"compositePodGroupTemplates":[{"name":"replica","schedulingPolicy":{"gang":{"minGroupCount":2}},
      "priority":5,"podGroupTemplates":[{"name":"leader","schedulingPolicy":{"gang":{"minCount":1}},"priority":5},
      {"name":"workers","schedulingPolicy":{"gang":{"minCount":4}},"priority":5}]}]})"),
            (std::vector<std::string>{
                "spec.compositePodGroupTemplates[0].priority: Invalid value: null: field is immutable",
                "spec.compositePodGroupTemplates[0].podGroupTemplates[0].priority: Invalid value: null: field is immutable",
                "spec.compositePodGroupTemplates[0].podGroupTemplates[1].priority: Invalid value: null: field is "
                "immutable"}));
  EXPECT_EQ(update(R"({"compositePodGroupTemplates":[{"name":"other","schedulingPolicy":{"gang":{"minGroupCount":2}},
      "podGroupTemplates":[{"name":"leader","schedulingPolicy":{"gang":{"minCount":1}}}]}]})"),
            (std::vector<std::string>{"spec.compositePodGroupTemplates[0]: Forbidden: cannot add new items",
                                      "spec.compositePodGroupTemplates: Forbidden: cannot remove items"}));
}

// The PodGroup's parentCompositePodGroupName: dropped without the gate unless stored; with it a
// DNS subdomain, immutable, and +k8s:dependentRequired("workloadRef").
TEST_F(CompositePodGroupApiTest, PodGroupParent) {
  enable(true, false);
  auto dropped = call("POST", kPodGroups,
                      object("v1beta1", "PodGroup", "pg",
                             R"({"parentCompositePodGroupName":"root","workloadRef":{"workloadName":"w","templateName":"t"},
                                 "schedulingPolicy":{"basic":{}}})"));
  ASSERT_EQ(dropped.status, 201) << dropped.body;
  EXPECT_FALSE(parse(dropped)["spec"].as_object().contains("parentCompositePodGroupName"));
  enable(true, true);
  EXPECT_EQ(causes(call("POST", kPodGroups,
                        object("v1beta1", "PodGroup", "orphan",
                               R"({"parentCompositePodGroupName":"root","schedulingPolicy":{"basic":{}}})"))),
            std::vector<std::string>{
                "spec.workloadRef: Required value: must be specified when `parentCompositePodGroupName` is set"});
  auto kept = call("POST", kPodGroups,
                   object("v1beta1", "PodGroup", "child",
                          R"({"parentCompositePodGroupName":"root","workloadRef":{"workloadName":"w","templateName":"t"},
                              "schedulingPolicy":{"gang":{"minCount":2}}})"));
  ASSERT_EQ(kept.status, 201) << kept.body;
  auto typed = api::decode<api::schedulingv1beta1::PodGroup>(kept.body);
  ASSERT_TRUE(typed) << typed.error();
  ASSERT_TRUE(typed->spec.parentCompositePodGroupName);
  EXPECT_EQ(*typed->spec.parentCompositePodGroupName, "root");
  EXPECT_EQ(causes(call("PATCH", std::string(kPodGroups) + "/child", R"({"spec":{"parentCompositePodGroupName":"other"}})",
                        kMergePatch)),
            std::vector<std::string>{"spec.parentCompositePodGroupName: Invalid value: null: field is immutable"});
  // Stored with the gate, kept on a write after the gate is turned off.
  enable(true, false);
  auto relabeled =
      call("PATCH", std::string(kPodGroups) + "/child", R"({"metadata":{"labels":{"a":"b"}}})", kMergePatch);
  ASSERT_EQ(relabeled.status, 200) << relabeled.body;
  EXPECT_EQ(parse(relabeled)["spec"].at("parentCompositePodGroupName"), "root");
}

}  // namespace
}  // namespace ksched::apiserver
