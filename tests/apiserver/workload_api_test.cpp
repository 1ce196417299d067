// scheduling.k8s.io/v1alpha1 Workload (v1.35's workload-aware scheduling) served through
// Api::handle: only while the GenericWorkload gate is on (discovery, OpenAPI, routing), create, get,
// list, update, the table, every rule of the strategy (apiserver/registry/scheduling) with
// upstream's messages, the pod's spec.workloadRef and kube-scheduler's bootstrap role.
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

constexpr const char* kWorkloads = "/apis/scheduling.k8s.io/v1alpha1/namespaces/default/workloads";
constexpr const char* kPods = "/api/v1/namespaces/default/pods";
constexpr const char* kTableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
constexpr const char* kAggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

std::string workload(std::string_view name, std::string_view spec) {
  return std::string(R"({"apiVersion":"scheduling.k8s.io/v1alpha1","kind":"Workload","metadata":{"name":")") +
         std::string(name) + R"("},"spec":)" + std::string(spec) + "}";
}

std::string pod(std::string_view name, std::string_view workload_ref) {
  return std::string(R"({"metadata":{"name":")") + std::string(name) +
         R"("},"spec":{"containers":[{"name":"c","image":"i"}],"workloadRef":)" + std::string(workload_ref) + "}}";
}

class WorkloadApiTest : public ApiHarness {
 protected:
  void enable(bool on) {
    FeatureGates g;
    g.GenericWorkload = on;
    api_.set_feature_gates(g);
    api_.bootstrap();  // reconciles the policy under the gates, as a server starting with them
  }
  // The causes of a 422, as "field: message" lines.
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
    return causes(call("POST", kWorkloads, workload("w", spec)));
  }
  // The versions /apis/scheduling.k8s.io lists.
  std::vector<std::string> group_versions() {
    std::vector<std::string> out;
    auto group = parse(call("GET", "/apis/scheduling.k8s.io"));
    for (const auto& v : group["versions"].as_array())
      out.emplace_back(v.at("version").as_string());
    return out;
  }
  // The verbs system:kube-scheduler has on workloads (a reconciled role holds them one rule each,
  // as upstream's reconciliation adds what is missing broken down).
  std::vector<std::string> scheduler_workload_verbs() {
    std::vector<std::string> verbs;
    auto role = parse(call("GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:kube-scheduler"));
    for (const auto& r : role["rules"].as_array()) {
      const auto& o = r.as_object();
      auto* res = o.if_contains("resources");
      auto* groups = o.if_contains("apiGroups");
      if (!res || !groups) continue;
      bool workloads = false, group = false;
      for (const auto& x : res->as_array()) workloads = workloads || x == "workloads";
      for (const auto& x : groups->as_array()) group = group || x == "scheduling.k8s.io";
      if (workloads && group)
        for (const auto& v : o.at("verbs").as_array()) verbs.emplace_back(v.as_string());
    }
    std::sort(verbs.begin(), verbs.end());
    return verbs;
  }
};

TEST_F(WorkloadApiTest, GateOffServesNothing) {
  EXPECT_EQ(group_versions(), std::vector<std::string>{"v1"});
  EXPECT_EQ(call("GET", "/apis/scheduling.k8s.io/v1alpha1").status, 404);
  EXPECT_EQ(call("GET", kWorkloads).status, 404);
  EXPECT_EQ(call("POST", kWorkloads, workload("w", R"({"podGroups":[{"name":"g","policy":{"basic":{}}}]})")).status,
            404);
  auto agg = call("GET", "/apis", "", "", kAggregated);
  EXPECT_EQ(agg.body.find("v1alpha1\""), std::string::npos);
  EXPECT_EQ(agg.body.find("\"workloads\""), std::string::npos);
  EXPECT_EQ(call("GET", "/openapi/v3").body.find("scheduling.k8s.io/v1alpha1"), std::string::npos);
  EXPECT_EQ(call("GET", "/openapi/v3/apis/scheduling.k8s.io/v1alpha1").status, 404);
  EXPECT_TRUE(scheduler_workload_verbs().empty());
  // The pod's field goes with the gate (dropPodFields).
  auto p = call("POST", kPods, pod("p", R"({"name":"w","podGroup":"g"})"));
  ASSERT_EQ(p.status, 201) << p.body;
  EXPECT_FALSE(parse(p)["spec"].as_object().contains("workloadRef"));
}

TEST_F(WorkloadApiTest, GateOnDiscoveryAndOpenApi) {
  enable(true);
  // v1beta1 (PodGroup, podgroup_api_test.cpp) comes before v1alpha1, as upstream orders versions.
  EXPECT_EQ(group_versions(), (std::vector<std::string>{"v1", "v1beta1", "v1alpha1"}));
  EXPECT_EQ(parse(call("GET", "/apis/scheduling.k8s.io"))["preferredVersion"].at("version"), "v1");
  auto list = parse(call("GET", "/apis/scheduling.k8s.io/v1alpha1"));
  ASSERT_EQ(list["resources"].as_array().size(), 1u);  // no subresources in v1.35
  const auto& res = list["resources"].as_array()[0].as_object();
  EXPECT_EQ(res.at("name"), "workloads");
  EXPECT_EQ(res.at("singularName"), "workload");
  EXPECT_EQ(res.at("kind"), "Workload");
  EXPECT_EQ(res.at("namespaced"), true);
  auto agg = call("GET", "/apis", "", "", kAggregated);
  EXPECT_NE(agg.body.find("\"workloads\""), std::string::npos);
  EXPECT_NE(call("GET", "/openapi/v3").body.find("apis/scheduling.k8s.io/v1alpha1"), std::string::npos);
  auto doc = call("GET", "/openapi/v3/apis/scheduling.k8s.io/v1alpha1");
  ASSERT_EQ(doc.status, 200);
  auto schemas = parse(doc)["components"].at("schemas").as_object();
  ASSERT_TRUE(schemas.contains("io.k8s.api.scheduling.v1alpha1.Workload"));
  auto gang = schemas.at("io.k8s.api.scheduling.v1alpha1.GangSchedulingPolicy").as_object();
  EXPECT_EQ(gang.at("properties").at("minCount").at("type"), "integer");
  EXPECT_EQ(scheduler_workload_verbs(), (std::vector<std::string>{"get", "list", "watch"}));
}

TEST_F(WorkloadApiTest, CreateGetListUpdateAndTable) {
  enable(true);
  auto created = call("POST", kWorkloads,
                      workload("job-1", R"({"controllerRef":{"apiGroup":"batch","kind":"Job","name":"job-1"},
                                             "podGroups":[{"name":"workers","policy":{"gang":{"minCount":4}}},
                                                          {"name":"driver","policy":{"basic":{}}}]})"));
  ASSERT_EQ(created.status, 201) << created.body;
  auto o = parse(created);
  EXPECT_EQ(o["apiVersion"], "scheduling.k8s.io/v1alpha1");
  EXPECT_EQ(o["kind"], "Workload");
  EXPECT_EQ(o["metadata"].at("namespace"), "default");
  EXPECT_FALSE(o["metadata"].as_object().contains("generation"));
  EXPECT_EQ(o["spec"].at("podGroups").at(0).at("policy").at("gang").at("minCount"), 4);
  EXPECT_EQ(o["spec"].at("podGroups").at(1).at("policy").at("basic"), json::object());

  auto got = call("GET", std::string(kWorkloads) + "/job-1");
  ASSERT_EQ(got.status, 200);
  // The typed codec reads what the server wrote.
  auto typed = api::decode<api::schedulingv1alpha1::Workload>(got.body);
  ASSERT_TRUE(typed) << typed.error();
  ASSERT_EQ(typed->spec.podGroups.size(), 2u);
  EXPECT_EQ(typed->spec.podGroups[0].name, "workers");
  ASSERT_TRUE(typed->spec.podGroups[0].policy.gang);
  EXPECT_EQ(typed->spec.podGroups[0].policy.gang->minCount, 4);
  EXPECT_TRUE(typed->spec.podGroups[1].policy.basic.has_value());
  ASSERT_TRUE(typed->spec.controllerRef);
  EXPECT_EQ(typed->spec.controllerRef->kind, "Job");

  auto list = parse(call("GET", kWorkloads));
  EXPECT_EQ(list["kind"], "WorkloadList");
  ASSERT_EQ(list["items"].as_array().size(), 1u);
  auto all = parse(call("GET", "/apis/scheduling.k8s.io/v1alpha1/workloads"));
  EXPECT_EQ(all["items"].as_array().size(), 1u);

  // Metadata may change; the spec may not.
  auto labelled = call("PATCH", std::string(kWorkloads) + "/job-1", R"({"metadata":{"labels":{"team":"ml"}}})",
                       "application/merge-patch+json");
  ASSERT_EQ(labelled.status, 200) << labelled.body;

  auto table = parse(call("GET", kWorkloads, "", "", kTableAccept));
  EXPECT_EQ(table["kind"], "Table");
  auto cols = table["columnDefinitions"].as_array();
  ASSERT_EQ(cols.size(), 2u);
  EXPECT_EQ(cols[0].at("name"), "Name");
  EXPECT_EQ(cols[1].at("name"), "Age");
  EXPECT_EQ(table["rows"].at(0).at("cells").at(0), "job-1");

  EXPECT_EQ(call("DELETE", std::string(kWorkloads) + "/job-1").status, 200);
  EXPECT_EQ(call("GET", std::string(kWorkloads) + "/job-1").status, 404);
}

TEST_F(WorkloadApiTest, CreateValidation) {
  enable(true);
  EXPECT_EQ(create_causes("{}"), std::vector<std::string>{"spec.podGroups: Required value: must have at least one item"});
  std::string nine;
  for (int i = 0; i < 9; ++i)
    nine += std::string(i ? "," : "") + R"({"name":"g)" + std::to_string(i) + R"(","policy":{"basic":{}}})";
  EXPECT_EQ(create_causes(R"({"podGroups":[)" + nine + "]}"),
            std::vector<std::string>{"spec.podGroups: Too many: 9: must have at most 8 items"});
  EXPECT_EQ(create_causes(R"({"podGroups":[{"policy":{"basic":{}}}]})"),
            std::vector<std::string>{
                "spec.podGroups[0].name: Invalid value: \"\": a lowercase RFC 1123 label must consist of lower "
                "case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. "
                "'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"});
  EXPECT_EQ(create_causes(R"({"podGroups":[{"name":"Workers","policy":{"basic":{}}}]})"),
            std::vector<std::string>{
                "spec.podGroups[0].name: Invalid value: \"Workers\": a lowercase RFC 1123 label must consist of lower "
                "case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. "
                "'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"});
  EXPECT_EQ(create_causes(R"({"podGroups":[{"name":"a","policy":{"basic":{}}},{"name":"a","policy":{"gang":{"minCount":2}}}]})"),
            std::vector<std::string>{"spec.podGroups[1].name: Duplicate value: \"a\""});
  EXPECT_EQ(create_causes(R"({"podGroups":[{"name":"a","policy":{}}]})"),
            std::vector<std::string>{"spec.podGroups[0].policy: Required value: exactly one of `basic`, `gang` is required"});
  EXPECT_EQ(create_causes(R"({"podGroups":[{"name":"a"}]})"),
            std::vector<std::string>{"spec.podGroups[0].policy: Required value: exactly one of `basic`, `gang` is required"});
  EXPECT_EQ(create_causes(R"({"podGroups":[{"name":"a","policy":{"basic":{},"gang":{"minCount":1}}}]})"),
            std::vector<std::string>{"spec.podGroups[0].policy: Invalid value: \"{`basic`, `gang`}\": exactly one of "
                                     "`basic`, `gang` is required, but multiple fields are set"});
  EXPECT_EQ(create_causes(R"({"podGroups":[{"name":"a","policy":{"gang":{}}}]})"),
            std::vector<std::string>{"spec.podGroups[0].policy.gang.minCount: Invalid value: 0: must be greater than zero"});
  EXPECT_EQ(create_causes(R"({"podGroups":[{"name":"a","policy":{"gang":{"minCount":-2}}}]})"),
            std::vector<std::string>{"spec.podGroups[0].policy.gang.minCount: Invalid value: -2: must be greater than zero"});
  EXPECT_EQ(create_causes(R"({"controllerRef":{"apiGroup":"Batch_","kind":"a/b","name":".."},
                             "podGroups":[{"name":"a","policy":{"basic":{}}}]})"),
            (std::vector<std::string>{
                "spec.controllerRef.apiGroup: Invalid value: \"Batch_\": a lowercase RFC 1123 subdomain must consist of "
                "lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character "
                "(e.g. 'example.com', regex used for validation is "
                "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                "spec.controllerRef.kind: Invalid value: \"a/b\": may not contain '/'",
                "spec.controllerRef.name: Invalid value: \"..\": may not be '..'"}));
  EXPECT_EQ(create_causes(R"({"controllerRef":{},"podGroups":[{"name":"a","policy":{"basic":{}}}]})"),
            (std::vector<std::string>{"spec.controllerRef.kind: Required value", "spec.controllerRef.name: Required value"}));
  // The Workload's own name is a DNS subdomain.
  EXPECT_EQ(causes(call("POST", kWorkloads, workload("Bad_Name", R"({"podGroups":[{"name":"a","policy":{"basic":{}}}]})")))
                .at(0)
                .substr(0, 46),
            "metadata.name: Invalid value: \"Bad_Name\": a lo");
  // A wrong JSON type is the typed decode's 400.
  auto typed = call("POST", kWorkloads, workload("w", R"({"podGroups":[{"name":"a","policy":{"gang":{"minCount":"2"}}}]})"));
  EXPECT_EQ(typed.status, 400) << typed.body;
}

TEST_F(WorkloadApiTest, UpdateRules) {
  enable(true);
  ASSERT_EQ(call("POST", kWorkloads, workload("w", R"({"podGroups":[{"name":"a","policy":{"gang":{"minCount":2}}}]})")).status,
            201);
  // A controller reference may be added later...
  auto added = call("PATCH", std::string(kWorkloads) + "/w", R"({"spec":{"controllerRef":{"kind":"Job","name":"j"}}})",
                    "application/merge-patch+json");
  ASSERT_EQ(added.status, 200) << added.body;
  // ...but not changed or removed once set. An update validates the whole spec again, and v1.35
  // names the immutable fields from the root.
  EXPECT_EQ(causes(call("PUT", std::string(kWorkloads) + "/w",
                        workload("w", R"({"controllerRef":{"kind":"Job","name":"a/b"},"podGroups":[{"name":"a","policy":{"gang":{"minCount":2}}}]})"))),
            (std::vector<std::string>{
                "spec.controllerRef.name: Invalid value: \"a/b\": may not contain '/'",
                "controllerRef: Invalid value: {\"APIGroup\":\"\",\"Kind\":\"Job\",\"Name\":\"a/b\"}: field is immutable"}));
  EXPECT_EQ(causes(call("PATCH", std::string(kWorkloads) + "/w", R"({"spec":{"controllerRef":null}})",
                        "application/merge-patch+json")),
            std::vector<std::string>{"controllerRef: Invalid value: null: field is immutable"});
  // The pod groups are immutable.
  EXPECT_EQ(causes(call("PATCH", std::string(kWorkloads) + "/w",
                        R"({"spec":{"podGroups":[{"name":"a","policy":{"gang":{"minCount":3}}}]}})",
                        "application/merge-patch+json")),
            std::vector<std::string>{"podGroups: Invalid value: [{\"Name\":\"a\",\"Policy\":{\"Basic\":null,"
                                     "\"Gang\":{\"MinCount\":3}}}]: field is immutable"});
  EXPECT_EQ(causes(call("PATCH", std::string(kWorkloads) + "/w", R"({"spec":{"podGroups":[]}})",
                        "application/merge-patch+json")),
            (std::vector<std::string>{"spec.podGroups: Required value: must have at least one item",
                                      "podGroups: Invalid value: []: field is immutable"}));
}

TEST_F(WorkloadApiTest, PodWorkloadRef) {
  enable(true);
  auto p = call("POST", kPods, pod("p", R"({"name":"job-1","podGroup":"workers","podGroupReplicaKey":"r0"})"));
  ASSERT_EQ(p.status, 201) << p.body;
  EXPECT_EQ(parse(p)["spec"].at("workloadRef"),
            (json::object{{"name", "job-1"}, {"podGroup", "workers"}, {"podGroupReplicaKey", "r0"}}));
  // The Workload need not exist; the typed pod carries the reference.
  auto typed = api::decode<api::Pod>(call("GET", std::string(kPods) + "/p").body);
  ASSERT_TRUE(typed) << typed.error();
  ASSERT_TRUE(typed->spec.workloadRef);
  EXPECT_EQ(typed->spec.workloadRef->name, "job-1");
  EXPECT_EQ(typed->spec.workloadRef->podGroup, "workers");
  EXPECT_EQ(typed->spec.workloadRef->podGroupReplicaKey, "r0");
  EXPECT_NE(api::encode(*typed).find(R"("workloadRef":{"name":"job-1","podGroup":"workers","podGroupReplicaKey":"r0"})"),
            std::string::npos);

  // Immutable, as the rest of the pod spec.
  auto changed = call("PATCH", std::string(kPods) + "/p", R"({"spec":{"workloadRef":{"podGroup":"driver"}}})",
                      "application/merge-patch+json");
  ASSERT_EQ(changed.status, 422) << changed.body;
  EXPECT_NE(message(changed).find("pod updates may not change fields other than"), std::string::npos);

  EXPECT_EQ(causes(call("POST", kPods, pod("q", R"({"name":"Job_1","podGroup":"","podGroupReplicaKey":"R"})"))),
            (std::vector<std::string>{
                "spec.workloadRef.name: Invalid value: \"Job_1\": a lowercase RFC 1123 subdomain must consist of lower "
                "case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
                "'example.com', regex used for validation is "
                "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                "spec.workloadRef.podGroup: Invalid value: \"\": a lowercase RFC 1123 label must consist of lower case "
                "alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. "
                "'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
                "spec.workloadRef.podGroupReplicaKey: Invalid value: \"R\": a lowercase RFC 1123 label must consist of "
                "lower case alphanumeric characters or '-', and must start and end with an alphanumeric character "
                "(e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"}));
}

TEST(WorkloadFeatureGates, GangSchedulingNeedsGenericWorkload) {
  EXPECT_EQ(FeatureGates::parse("GangScheduling=true").error(),
            "GangScheduling is enabled, but depends on features that are disabled: [GenericWorkload]");
  auto g = FeatureGates::parse("GenericWorkload=true,GangScheduling=true");
  ASSERT_TRUE(g) << g.error();
  EXPECT_TRUE(g->GangScheduling);
  EXPECT_TRUE(g->enabled("GenericWorkload"));
  EXPECT_FALSE(FeatureGates{}.enabled("GenericWorkload"));
  EXPECT_FALSE(FeatureGates{}.enabled("NoSuchGate"));
}

TEST_F(WorkloadApiTest, GateTurnedOffKeepsAStoredPodsReference) {
  enable(true);
  ASSERT_EQ(call("POST", kPods, pod("p", R"({"name":"w","podGroup":"g"})")).status, 201);
  enable(false);
  // An update of a pod that already has the field keeps it (dropDisabledWorkloadRef).
  auto labelled = call("PATCH", std::string(kPods) + "/p", R"({"metadata":{"labels":{"a":"b"}}})",
                       "application/merge-patch+json");
  ASSERT_EQ(labelled.status, 200) << labelled.body;
  EXPECT_EQ(parse(labelled)["spec"].at("workloadRef").at("podGroup"), "g");
  EXPECT_EQ(call("GET", kWorkloads).status, 404);
}

}  // namespace
}  // namespace ksched::apiserver
