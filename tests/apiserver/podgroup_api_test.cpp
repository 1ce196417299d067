// scheduling.k8s.io/v1beta1 PodGroup (v1.37, KEP-5832) and the pod's spec.schedulingGroup served
// through Api::handle: only while the GenericWorkload gate is on (discovery, OpenAPI, routing),
// create/get/list/update/delete, the status subresource, defaulting, the strategy's rules
// (apiserver/registry/scheduling) with declarative validation's standard messages and the field
// paths of upstream's staging/src/k8s.io/api/scheduling/v1beta1/types.go +k8s: tags, the pod
// field's rules and gate drop, and kube-scheduler's bootstrap role.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <string>
#include <vector>

#include "api/codec.h"
#include "api/core.h"
#include "api/scheduling.h"
#include "api_harness.h"

namespace ksched::apiserver {
namespace {

namespace json = boost::json;

constexpr const char* kPodGroups = "/apis/scheduling.k8s.io/v1beta1/namespaces/default/podgroups";
constexpr const char* kPods = "/api/v1/namespaces/default/pods";
constexpr const char* kAggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
constexpr const char* kMergePatch = "application/merge-patch+json";

std::string pod_group(std::string_view name, std::string_view spec) {
  return std::string(R"({"apiVersion":"scheduling.k8s.io/v1beta1","kind":"PodGroup","metadata":{"name":")") +
         std::string(name) + R"("},"spec":)" + std::string(spec) + "}";
}

std::string pod(std::string_view name, std::string_view scheduling_group) {
  return std::string(R"({"metadata":{"name":")") + std::string(name) +
         R"("},"spec":{"containers":[{"name":"c","image":"i"}],"schedulingGroup":)" + std::string(scheduling_group) +
         "}}";
}

constexpr const char* kGang = R"({"schedulingPolicy":{"gang":{"minCount":2}}})";

class PodGroupApiTest : public ApiHarness {
 protected:
  void enable(bool on) {
    FeatureGates g;
    g.GenericWorkload = on;
    api_.set_feature_gates(g);
    api_.bootstrap();  // reconciles the policy under the gates
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
  std::vector<std::string> create_causes(std::string_view spec) {
    return causes(call("POST", kPodGroups, pod_group("pg", spec)));
  }
  std::vector<std::string> patch_causes(std::string_view patch, std::string_view sub = "") {
    std::string target = std::string(kPodGroups) + "/pg";
    if (!sub.empty()) target += "/" + std::string(sub);
    return causes(call("PATCH", target, std::string(patch), kMergePatch));
  }
  // The verbs system:kube-scheduler has on `resource` of scheduling.k8s.io.
  std::vector<std::string> scheduler_verbs(std::string_view resource) {
    std::vector<std::string> verbs;
    auto role = parse(call("GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:kube-scheduler"));
    for (const auto& r : role["rules"].as_array()) {
      const auto& o = r.as_object();
      auto* res = o.if_contains("resources");
      auto* groups = o.if_contains("apiGroups");
      if (!res || !groups) continue;
      bool match = false, group = false;
      for (const auto& x : res->as_array()) match = match || (x.is_string() && x.get_string() == resource);
      for (const auto& x : groups->as_array()) group = group || x == "scheduling.k8s.io";
      if (match && group)
        for (const auto& v : o.at("verbs").as_array()) verbs.emplace_back(v.as_string());
    }
    std::sort(verbs.begin(), verbs.end());
    return verbs;
  }
};

// The gate off: no v1beta1 anywhere (upstream registers the storage only with GenericWorkload,
// FeatureGateAPIRequirements), and the pod's field is dropped (dropDisabledPodFields).
TEST_F(PodGroupApiTest, GateOffServesNothing) {
  EXPECT_EQ(call("GET", "/apis/scheduling.k8s.io/v1beta1").status, 404);
  EXPECT_EQ(call("GET", kPodGroups).status, 404);
  EXPECT_EQ(call("POST", kPodGroups, pod_group("pg", kGang)).status, 404);
  auto agg = call("GET", "/apis", "", "", kAggregated);
  EXPECT_EQ(agg.body.find("\"podgroups\""), std::string::npos);
  EXPECT_EQ(call("GET", "/openapi/v3/apis/scheduling.k8s.io/v1beta1").status, 404);
  EXPECT_TRUE(scheduler_verbs("podgroups").empty());
  auto p = call("POST", kPods, pod("p", R"({"podGroupName":"pg"})"));
  ASSERT_EQ(p.status, 201) << p.body;
  EXPECT_FALSE(parse(p)["spec"].as_object().contains("schedulingGroup"));
}

// The gate on: discovery lists podgroups and podgroups/status, the OpenAPI v3 document of
// v1beta1 has the kind, and kube-scheduler reads PodGroups and writes their status (KEP-5832).
TEST_F(PodGroupApiTest, GateOnDiscoveryOpenApiAndRbac) {
  enable(true);
  auto list = parse(call("GET", "/apis/scheduling.k8s.io/v1beta1"));
  std::vector<std::string> names;
  for (const auto& r : list["resources"].as_array()) names.emplace_back(r.at("name").as_string());
  // (and the Workload, served at v1beta1 beside v1alpha1: workload_versions_test.cpp)
  EXPECT_EQ(names, (std::vector<std::string>{"podgroups", "podgroups/status", "workloads"}));
  const auto& res = list["resources"].as_array()[0].as_object();
  EXPECT_EQ(res.at("kind"), "PodGroup");
  EXPECT_EQ(res.at("singularName"), "podgroup");
  EXPECT_EQ(res.at("namespaced"), true);
  EXPECT_EQ(parse(call("GET", "/apis/scheduling.k8s.io"))["preferredVersion"].at("version"), "v1");
  EXPECT_NE(call("GET", "/apis", "", "", kAggregated).body.find("\"podgroups\""), std::string::npos);
  auto doc = call("GET", "/openapi/v3/apis/scheduling.k8s.io/v1beta1");
  ASSERT_EQ(doc.status, 200);
  auto schemas = parse(doc)["components"].at("schemas").as_object();
  ASSERT_TRUE(schemas.contains("io.k8s.api.scheduling.v1beta1.PodGroup"));
  EXPECT_EQ(schemas.at("io.k8s.api.scheduling.v1beta1.WorkloadReference").at("properties").at("templateName").at("type"),
            "string");
  EXPECT_EQ(scheduler_verbs("podgroups"), (std::vector<std::string>{"get", "list", "watch"}));
  EXPECT_EQ(scheduler_verbs("podgroups/status"), (std::vector<std::string>{"patch", "update"}));
  EXPECT_EQ(scheduler_verbs("workloads"), (std::vector<std::string>{"get", "list", "watch"}));
}

// Create, defaulting (disruptionMode {single: {}}), the status dropped on create and kept on a
// spec write, a status write keeping the spec, the typed decode of what the server wrote.
TEST_F(PodGroupApiTest, CreateGetListStatusAndDelete) {
  enable(true);
  // The Priority admission computes spec.priority from the class: a given 10 must match it.
  ASSERT_EQ(call("POST", "/apis/scheduling.k8s.io/v1/priorityclasses", R"({"metadata":{"name":"ten"},"value":10})").status,
            201);
  auto created = call("POST", kPodGroups,
                      pod_group("trainer-0", R"({"workloadRef":{"workloadName":"trainer","templateName":"workers"},
                                                 "schedulingPolicy":{"gang":{"minCount":4}},"priorityClassName":"ten","priority":10},
                                                 "status":{"conditions":[{"type":"X","status":"True"}]})"));
  ASSERT_EQ(created.status, 201) << created.body;
  auto o = parse(created);
  EXPECT_EQ(o["apiVersion"], "scheduling.k8s.io/v1beta1");
  EXPECT_EQ(o["kind"], "PodGroup");
  EXPECT_EQ(o["metadata"].at("namespace"), "default");
  EXPECT_FALSE(o["metadata"].as_object().contains("generation"));
  EXPECT_EQ(o["spec"].at("disruptionMode"), (json::object{{"single", json::object()}}));
  EXPECT_TRUE(!o.contains("status") || !o["status"].as_object().contains("conditions")) << created.body;

  const std::string url = std::string(kPodGroups) + "/trainer-0";
  // The scheduler's write: the condition through /status.
  auto status = call("PATCH", url + "/status",
                     R"({"spec":{"priority":99},"status":{"conditions":[{"type":"PodGroupInitiallyScheduled",
                         "status":"True","reason":"Scheduled","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]}})",
                     kMergePatch);
  ASSERT_EQ(status.status, 200) << status.body;
  EXPECT_EQ(parse(status)["spec"].at("priority"), 10);  // a status write keeps the spec
  auto typed = api::decode<api::schedulingv1beta1::PodGroup>(call("GET", url).body);
  ASSERT_TRUE(typed) << typed.error();
  ASSERT_TRUE(typed->spec.schedulingPolicy.gang);
  EXPECT_EQ(typed->spec.schedulingPolicy.gang->minCount, 4);
  ASSERT_TRUE(typed->spec.workloadRef);
  EXPECT_EQ(typed->spec.workloadRef->templateName, "workers");
  ASSERT_EQ(typed->status.conditions.size(), 1u);
  EXPECT_EQ(typed->status.conditions[0].type, api::schedulingv1beta1::kPodGroupInitiallyScheduled);

  // A spec write may change minCount and keeps the stored status.
  auto scaled = call("PATCH", url, R"({"spec":{"schedulingPolicy":{"gang":{"minCount":6}}},"status":null})", kMergePatch);
  ASSERT_EQ(scaled.status, 200) << scaled.body;
  EXPECT_EQ(parse(scaled)["spec"].at("schedulingPolicy").at("gang").at("minCount"), 6);
  EXPECT_EQ(parse(scaled)["status"].at("conditions").at(0).at("reason"), "Scheduled");

  auto list = parse(call("GET", kPodGroups));
  EXPECT_EQ(list["kind"], "PodGroupList");
  EXPECT_EQ(list["items"].as_array().size(), 1u);
  EXPECT_EQ(parse(call("GET", "/apis/scheduling.k8s.io/v1beta1/podgroups"))["items"].as_array().size(), 1u);
  EXPECT_EQ(call("DELETE", url).status, 200);
  EXPECT_EQ(call("GET", url).status, 404);
}

// The +k8s: tags of v1beta1 PodGroupSpec and their standard messages.
TEST_F(PodGroupApiTest, CreateValidation) {
  enable(true);
  EXPECT_EQ(create_causes("{}"),
            std::vector<std::string>{"spec.schedulingPolicy: Invalid value: \"\": must specify one of: `basic`, `gang`"});
  EXPECT_EQ(create_causes(R"({"schedulingPolicy":{"basic":{},"gang":{"minCount":1}}})"),
            std::vector<std::string>{"spec.schedulingPolicy: Invalid value: \"{`basic`, `gang`}\": must specify exactly "
                                     "one of: `basic`, `gang`"});
  EXPECT_EQ(create_causes(R"({"schedulingPolicy":{"gang":{}}})"),
            std::vector<std::string>{"spec.schedulingPolicy.gang.minCount: Required value"});
  EXPECT_EQ(create_causes(R"({"schedulingPolicy":{"gang":{"minCount":-1}}})"),
            std::vector<std::string>{
                "spec.schedulingPolicy.gang.minCount: Invalid value: -1: must be greater than or equal to 1"});
  EXPECT_EQ(create_causes(R"({"workloadRef":{},"schedulingPolicy":{"basic":{}}})"),
            (std::vector<std::string>{"spec.workloadRef.workloadName: Required value",
                                      "spec.workloadRef.templateName: Required value"}));
  EXPECT_EQ(create_causes(R"({"workloadRef":{"workloadName":"Work_load","templateName":"Tpl"},"schedulingPolicy":{"basic":{}}})"),
            (std::vector<std::string>{
                "spec.workloadRef.workloadName: Invalid value: \"Work_load\": a lowercase RFC 1123 subdomain must "
                "consist of lower case alphanumeric characters, '-' or '.', and must start and end with an "
                "alphanumeric character (e.g. 'example.com', regex used for validation is "
                "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                "spec.workloadRef.templateName: Invalid value: \"Tpl\": a lowercase RFC 1123 label must consist of "
                "lower case alphanumeric characters or '-', and must start and end with an alphanumeric character "
                "(e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"}));
  EXPECT_EQ(create_causes(R"({"schedulingPolicy":{"basic":{}},"disruptionMode":{"single":{},"all":{}}})"),
            std::vector<std::string>{
                "spec.disruptionMode: Invalid value: \"{`single`, `all`}\": must specify exactly one of: `single`, `all`"});
  // A given priority meets the Priority admission first (it differs from the computed 0); the
  // maximum is checked on a Workload template (workload_versions_test).
  const std::string over = create_causes(R"({"schedulingPolicy":{"basic":{}},"priority":1000000001})").at(0);
  EXPECT_EQ(over.substr(0, 11), "status 403:");
  EXPECT_NE(over.find("the integer value of priority (1000000001) must not be provided in pod group spec; priority "
                      "admission controller computed 0 from the given PriorityClass name"),
            std::string::npos)
      << over;
  // So does a class name, which must name a PriorityClass (its format is checked on a Workload template).
  EXPECT_NE(create_causes(R"({"schedulingPolicy":{"basic":{}},"priorityClassName":"High"})").at(0).find(
                "is forbidden: no PriorityClass with name High was found"),
            std::string::npos);
  // PodGroupPreemptionPolicy is off by default: +k8s:ifDisabled(...)=+k8s:forbidden.
  EXPECT_EQ(create_causes(R"({"schedulingPolicy":{"basic":{}},"preemptionPolicy":"Never"})"),
            std::vector<std::string>{"spec.preemptionPolicy: Forbidden"});
  // A wrong JSON type is the typed decode's 400.
  EXPECT_EQ(call("POST", kPodGroups, pod_group("pg", R"({"schedulingPolicy":{"gang":{"minCount":"2"}}})")).status, 400);
  // Fields of gates this server does not have are dropped on create (dropDisabledPodGroupFields).
  auto dropped = call("POST", kPodGroups,
                      pod_group("pg", R"({"schedulingPolicy":{"basic":{}},"schedulingConstraints":{"topology":[{"key":"rack"}]},
                                          "resourceClaims":[{"name":"c","resourceClaimName":"rc"}]})"));
  ASSERT_EQ(dropped.status, 201) << dropped.body;
  EXPECT_FALSE(parse(dropped)["spec"].as_object().contains("schedulingConstraints"));
  EXPECT_FALSE(parse(dropped)["spec"].as_object().contains("resourceClaims"));
}

// TopologyAwareWorkloadScheduling (v1.36, KEP-5732) on: spec.schedulingConstraints is kept, its
// topology has at most 1 item (+k8s:maxItems=1), each key is required and a label key
// (+k8s:format=k8s-label-key), and the field is immutable.
TEST_F(PodGroupApiTest, TopologyConstraintIsKeptValidatedAndImmutableWithItsGate) {
  FeatureGates g;
  g.GenericWorkload = true;
  g.TopologyAwareWorkloadScheduling = true;
  api_.set_feature_gates(g);
  api_.bootstrap();
  EXPECT_EQ(create_causes(R"({"schedulingPolicy":{"basic":{}},"schedulingConstraints":{"topology":[{"key":"a.io/x"},{"key":"a.io/y"}]}})"),
            std::vector<std::string>{"spec.schedulingConstraints.topology: Too many: 2: must have at most 1 item"});
  EXPECT_EQ(create_causes(R"({"schedulingPolicy":{"basic":{}},"schedulingConstraints":{"topology":[{}]}})"),
            std::vector<std::string>{"spec.schedulingConstraints.topology[0].key: Required value"});
  auto bad = create_causes(R"({"schedulingPolicy":{"basic":{}},"schedulingConstraints":{"topology":[{"key":"-rack"}]}})");
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].rfind("spec.schedulingConstraints.topology[0].key: Invalid value: \"-rack\": ", 0), 0u) << bad[0];
  auto kept = call("POST", kPodGroups,
                   pod_group("pg", R"({"schedulingPolicy":{"gang":{"minCount":2}},"schedulingConstraints":{"topology":[{"key":"example.com/rack"}]}})"));
  ASSERT_EQ(kept.status, 201) << kept.body;
  EXPECT_EQ(parse(kept)["spec"].at("schedulingConstraints").at("topology").at(0).at("key"), "example.com/rack");
  EXPECT_EQ(patch_causes(R"({"spec":{"schedulingConstraints":{"topology":[{"key":"example.com/zone"}]}}})"),
            std::vector<std::string>{"spec.schedulingConstraints: Invalid value: null: field is immutable"});
}

// DRAWorkloadResourceClaims (KEP-5729; alpha in v1.36, beta and off in v1.37) on: spec.resourceClaims
// is kept and validated as v1.37's PodGroupResourceClaim tags say (+k8s:maxItems=4, a list-map
// keyed by a DNS-label name, a union of resourceClaimName and resourceClaimTemplateName) and is
// immutable; a status write's resourceClaimStatuses must name spec entries (upstream's
// validatePodGroupResourceClaimStatuses). Off: a status write's resourceClaimStatuses are dropped
// (dropDisabledPodGroupStatusFields), as the spec's are on create (CreateValidation).
TEST_F(PodGroupApiTest, ResourceClaimsAreKeptValidatedAndImmutableWithTheirGate) {
  FeatureGates g;
  g.GenericWorkload = true;
  g.DRAWorkloadResourceClaims = true;
  api_.set_feature_gates(g);
  api_.bootstrap();
  EXPECT_EQ(create_causes(R"({"schedulingPolicy":{"basic":{}},"resourceClaims":[{"name":"a","resourceClaimName":"c"},
                             {"name":"b","resourceClaimName":"c"},{"name":"c","resourceClaimName":"c"},
                             {"name":"d","resourceClaimName":"c"},{"name":"e","resourceClaimName":"c"}]})"),
            std::vector<std::string>{"spec.resourceClaims: Too many: 5: must have at most 4 items"});
  EXPECT_EQ(create_causes(R"({"schedulingPolicy":{"basic":{}},"resourceClaims":[{"name":"gpu"}]})"),
            std::vector<std::string>{"spec.resourceClaims[0]: Invalid value: \"\": must specify one of: "
                                     "`resourceClaimName`, `resourceClaimTemplateName`"});
  EXPECT_EQ(create_causes(R"({"schedulingPolicy":{"basic":{}},"resourceClaims":[{"name":"gpu","resourceClaimName":"c"},
                             {"name":"gpu","resourceClaimTemplateName":"t"}]})"),
            std::vector<std::string>{"spec.resourceClaims[1]: Duplicate value: {\"name\":\"gpu\",\"resourceClaimTemplateName\":\"t\"}"});
  auto kept = call("POST", kPodGroups,
                   pod_group("pg", R"({"schedulingPolicy":{"gang":{"minCount":2}},
                                       "resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"gpu-template"}]})"));
  ASSERT_EQ(kept.status, 201) << kept.body;
  EXPECT_EQ(parse(kept)["spec"].at("resourceClaims"),
            json::parse(R"([{"name":"gpu","resourceClaimTemplateName":"gpu-template"}])"));
  EXPECT_EQ(patch_causes(R"({"spec":{"resourceClaims":[{"name":"gpu","resourceClaimName":"mine"}]}})"),
            std::vector<std::string>{"spec.resourceClaims: Invalid value: null: field is immutable"});
  EXPECT_EQ(patch_causes(R"({"status":{"resourceClaimStatuses":[{"name":"tpu","resourceClaimName":"pg-tpu-x"}]}})",
                         "status"),
            std::vector<std::string>{"status.resourceClaimStatuses[0].name: Invalid value: \"tpu\": must match the "
                                     "name of an entry in `spec.resourceClaims`"});
  auto written = call("PATCH", std::string(kPodGroups) + "/pg/status",
                      R"({"status":{"resourceClaimStatuses":[{"name":"gpu","resourceClaimName":"pg-gpu-abcde"}]}})",
                      kMergePatch);
  ASSERT_EQ(written.status, 200) << written.body;
  EXPECT_EQ(parse(written)["status"].at("resourceClaimStatuses"),
            json::parse(R"([{"name":"gpu","resourceClaimName":"pg-gpu-abcde"}])"));

  // Gate off: a PodGroup without claims gets no resourceClaimStatuses.
  enable(true);
  ASSERT_EQ(call("POST", kPodGroups, pod_group("plain", R"({"schedulingPolicy":{"basic":{}}})")).status, 201);
  auto dropped = call("PATCH", std::string(kPodGroups) + "/plain/status",
                      R"({"status":{"resourceClaimStatuses":[{"name":"gpu","resourceClaimName":"x"}]}})", kMergePatch);
  ASSERT_EQ(dropped.status, 200) << dropped.body;
  EXPECT_FALSE(parse(dropped)["status"].is_object() &&
               parse(dropped)["status"].as_object().contains("resourceClaimStatuses"))
      << dropped.body;
}

// Update rules: the policy's kind is fixed (basic immutable, gang NoSet/NoUnset), minCount may
// change; workloadRef, disruptionMode, priorityClassName and priority are immutable. A status
// write validates the conditions.
TEST_F(PodGroupApiTest, UpdateAndStatusRules) {
  enable(true);
  ASSERT_EQ(call("POST", kPodGroups,
                 pod_group("pg", R"({"workloadRef":{"workloadName":"w","templateName":"t"},"schedulingPolicy":{"gang":{"minCount":2}}})"))
                .status,
            201);
  EXPECT_EQ(patch_causes(R"({"spec":{"schedulingPolicy":{"gang":null,"basic":{}}}})"),
            (std::vector<std::string>{"spec.schedulingPolicy.basic: Invalid value: null: field is immutable",
                                      "spec.schedulingPolicy.gang: Invalid value: null: field cannot be cleared once set"}));
  EXPECT_EQ(patch_causes(R"({"spec":{"workloadRef":{"templateName":"u"}}})"),
            std::vector<std::string>{"spec.workloadRef: Invalid value: null: field is immutable"});
  EXPECT_EQ(patch_causes(R"({"spec":{"priority":5,"disruptionMode":{"single":null,"all":{}}}})"),
            (std::vector<std::string>{"spec.disruptionMode: Invalid value: null: field is immutable",
                                      "spec.priority: Invalid value: null: field is immutable"}));
  EXPECT_EQ(call("PATCH", std::string(kPodGroups) + "/pg", R"({"spec":{"schedulingPolicy":{"gang":{"minCount":3}}}})",
                 kMergePatch)
                .status,
            200);
  EXPECT_EQ(patch_causes(R"({"status":{"conditions":[{"type":"PodGroupInitiallyScheduled","status":"Maybe",
                             "reason":"Unschedulable","lastTransitionTime":"2026-01-01T00:00:00Z"}]}})",
                         "status"),
            std::vector<std::string>{
                "status.conditions[0].status: Unsupported value: \"Maybe\": supported values: \"False\", \"True\", "
                "\"Unknown\""});

  ASSERT_EQ(call("POST", kPodGroups, pod_group("basic", R"({"schedulingPolicy":{"basic":{}}})")).status, 201);
  EXPECT_EQ(causes(call("PATCH", std::string(kPodGroups) + "/basic",
                        R"({"spec":{"schedulingPolicy":{"basic":null,"gang":{"minCount":2}}}})", kMergePatch)),
            (std::vector<std::string>{"spec.schedulingPolicy.basic: Invalid value: null: field is immutable",
                                      "spec.schedulingPolicy.gang: Invalid value: null: field cannot be set once created"}));
}

// pod.spec.schedulingGroup (KEP-5832): typed, a DNS-subdomain podGroupName, immutable with the
// rest of the spec; the PodGroup need not exist.
TEST_F(PodGroupApiTest, PodSchedulingGroup) {
  enable(true);
  auto p = call("POST", kPods, pod("p", R"({"podGroupName":"trainer-0"})"));
  ASSERT_EQ(p.status, 201) << p.body;
  EXPECT_EQ(parse(p)["spec"].at("schedulingGroup"), (json::object{{"podGroupName", "trainer-0"}}));
  auto typed = api::decode<api::Pod>(call("GET", std::string(kPods) + "/p").body);
  ASSERT_TRUE(typed) << typed.error();
  ASSERT_TRUE(typed->spec.schedulingGroup);
  EXPECT_EQ(typed->spec.schedulingGroup->podGroupName, "trainer-0");
  EXPECT_NE(api::encode(*typed).find(R"("schedulingGroup":{"podGroupName":"trainer-0"})"), std::string::npos);

  auto changed = call("PATCH", std::string(kPods) + "/p", R"({"spec":{"schedulingGroup":{"podGroupName":"other"}}})",
                      kMergePatch);
  ASSERT_EQ(changed.status, 422) << changed.body;
  EXPECT_NE(message(changed).find("pod updates may not change fields other than"), std::string::npos);

  EXPECT_EQ(causes(call("POST", kPods, pod("q", R"({"podGroupName":"Trainer_0"})"))),
            std::vector<std::string>{
                "spec.schedulingGroup.podGroupName: Invalid value: \"Trainer_0\": a lowercase RFC 1123 subdomain must "
                "consist of lower case alphanumeric characters, '-' or '.', and must start and end with an "
                "alphanumeric character (e.g. 'example.com', regex used for validation is "
                "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"});
  EXPECT_EQ(causes(call("POST", kPods, pod("r", "{}"))),
            std::vector<std::string>{"spec.schedulingGroup: Invalid value: \"\": must specify one of: `podGroupName`"});
}

// dropDisabledPodFields: a stored pod's field survives an update with the gate turned off.
TEST_F(PodGroupApiTest, GateTurnedOffKeepsAStoredPodsSchedulingGroup) {
  enable(true);
  ASSERT_EQ(call("POST", kPods, pod("p", R"({"podGroupName":"pg"})")).status, 201);
  enable(false);
  auto labelled = call("PATCH", std::string(kPods) + "/p", R"({"metadata":{"labels":{"a":"b"}}})", kMergePatch);
  ASSERT_EQ(labelled.status, 200) << labelled.body;
  EXPECT_EQ(parse(labelled)["spec"].at("schedulingGroup").at("podGroupName"), "pg");
  EXPECT_EQ(call("GET", kPodGroups).status, 404);
}


// The Priority admission plugin on a PodGroup create (upstream TestAdmitPodGroup): the class's value
// becomes spec.priority; no class takes the global default (its name is set) or 0; an unknown class
// or a given priority that differs is refused; an update is not admitted again. With
// PodGroupPreemptionPolicy the class's preemptionPolicy is set too, and the field may be given.
TEST_F(PodGroupApiTest, PriorityAdmissionResolvesPriorityClassName) {
  enable(true);
  const std::string classes = "/apis/scheduling.k8s.io/v1/priorityclasses";
  ASSERT_EQ(call("POST", classes, R"({"metadata":{"name":"high"},"value":1000,"preemptionPolicy":"Never"})").status, 201);
  auto spec_of = [&](const Response& r) { return parse(r)["spec"].as_object(); };

  auto none = call("POST", kPodGroups, pod_group("none", R"({"schedulingPolicy":{"basic":{}}})"));
  ASSERT_EQ(none.status, 201) << none.body;
  EXPECT_EQ(spec_of(none).at("priority"), 0);
  EXPECT_FALSE(spec_of(none).contains("priorityClassName"));

  auto high = call("POST", kPodGroups, pod_group("high", R"({"schedulingPolicy":{"basic":{}},"priorityClassName":"high"})"));
  ASSERT_EQ(high.status, 201) << high.body;
  EXPECT_EQ(spec_of(high).at("priority"), 1000);
  EXPECT_FALSE(spec_of(high).contains("preemptionPolicy"));  // PodGroupPreemptionPolicy is off

  auto same = call("POST", kPodGroups,
                   pod_group("same", R"({"schedulingPolicy":{"basic":{}},"priorityClassName":"high","priority":1000})"));
  EXPECT_EQ(same.status, 201) << same.body;
  auto differs = call("POST", kPodGroups,
                      pod_group("differs", R"({"schedulingPolicy":{"basic":{}},"priorityClassName":"high","priority":9999})"));
  EXPECT_EQ(differs.status, 403);
  auto missing = call("POST", kPodGroups, pod_group("missing", R"({"schedulingPolicy":{"basic":{}},"priorityClassName":"nope"})"));
  EXPECT_EQ(missing.status, 403);
  EXPECT_NE(missing.body.find(R"(podgroups.scheduling.k8s.io \"missing\" is forbidden: no PriorityClass with name nope was found)"),
            std::string::npos)
      << missing.body;

  ASSERT_EQ(call("POST", classes, R"({"metadata":{"name":"def"},"value":7,"globalDefault":true})").status, 201);
  auto defaulted = call("POST", kPodGroups, pod_group("defaulted", R"({"schedulingPolicy":{"basic":{}}})"));
  ASSERT_EQ(defaulted.status, 201) << defaulted.body;
  EXPECT_EQ(spec_of(defaulted).at("priorityClassName"), "def");
  EXPECT_EQ(spec_of(defaulted).at("priority"), 7);
  // An update is not admitted again: the stored priority stays.
  auto relabelled = call("PATCH", std::string(kPodGroups) + "/none", R"({"metadata":{"labels":{"a":"b"}}})", kMergePatch);
  ASSERT_EQ(relabelled.status, 200) << relabelled.body;
  EXPECT_EQ(spec_of(relabelled).at("priority"), 0);

  FeatureGates g;
  g.GenericWorkload = true;
  g.PodGroupPreemptionPolicy = true;
  api_.set_feature_gates(g);
  auto never = call("POST", kPodGroups, pod_group("never", R"({"schedulingPolicy":{"basic":{}},"priorityClassName":"high"})"));
  ASSERT_EQ(never.status, 201) << never.body;
  EXPECT_EQ(spec_of(never).at("preemptionPolicy"), "Never");
  auto lower = call("POST", kPodGroups, pod_group("lower", R"({"schedulingPolicy":{"basic":{}},"priorityClassName":"def"})"));
  ASSERT_EQ(lower.status, 201) << lower.body;
  EXPECT_EQ(spec_of(lower).at("preemptionPolicy"), "PreemptLowerPriority");
  EXPECT_EQ(call("POST", kPodGroups,
                 pod_group("clash", R"({"schedulingPolicy":{"basic":{}},"priorityClassName":"high","preemptionPolicy":"PreemptLowerPriority"})"))
                .status,
            403);
  // With the gate the field is validated as an enum (a Workload template, which admission leaves alone).
  auto bad = call("POST", "/apis/scheduling.k8s.io/v1beta1/namespaces/default/workloads",
                  R"({"metadata":{"name":"w"},"spec":{"podGroupTemplates":[{"name":"a","schedulingPolicy":{"basic":{}},"preemptionPolicy":"Sometimes"}]}})");
  EXPECT_EQ(causes(bad), std::vector<std::string>{"spec.podGroupTemplates[0].preemptionPolicy: Unsupported value: \"Sometimes\": "
                                                  "supported values: \"Never\", \"PreemptLowerPriority\""});
}

}  // namespace
}  // namespace ksched::apiserver
