// scheduling.k8s.io Workload served at v1alpha1 and v1beta1, stored at v1beta1 (issue #44;
// apiserver/conversion.h, registry/scheduling/conversion.h): a write in either version is read in
// the other, lists, watches (events and bookmarks), tables and field selectors answer in the
// request's version, discovery and OpenAPI list both versions, and v1beta1's own rules (v1.37's
// +k8s: tags of staging/src/k8s.io/api/scheduling/v1beta1/types.go) apply to v1beta1 writes.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "api/codec.h"
#include "api/scheduling.h"
#include "api_harness.h"
#include "apiserver/resources.h"
#include "apiserver/storage/watch_hub.h"

namespace ksched::apiserver {
namespace {

namespace json = boost::json;

constexpr const char* kAlpha = "/apis/scheduling.k8s.io/v1alpha1/namespaces/default/workloads";
constexpr const char* kBeta = "/apis/scheduling.k8s.io/v1beta1/namespaces/default/workloads";
constexpr const char* kTableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
constexpr const char* kAggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
constexpr const char* kMerge = "application/merge-patch+json";

std::string alpha(std::string_view name, std::string_view spec) {
  return std::string(R"({"apiVersion":"scheduling.k8s.io/v1alpha1","kind":"Workload","metadata":{"name":")") +
         std::string(name) + R"("},"spec":)" + std::string(spec) + "}";
}
std::string beta(std::string_view name, std::string_view spec) {
  return std::string(R"({"apiVersion":"scheduling.k8s.io/v1beta1","kind":"Workload","metadata":{"name":")") +
         std::string(name) + R"("},"spec":)" + std::string(spec) + "}";
}

class WorkloadVersionsTest : public ApiHarness {
 protected:
  WorkloadVersionsTest() {
    FeatureGates g;
    g.GenericWorkload = true;
    api_.set_feature_gates(g);
    api_.bootstrap();
  }
  std::vector<std::string> causes(const Response& r) {
    std::vector<std::string> out;
    if (r.status != 422) {
      out.push_back("status " + std::to_string(r.status) + ": " + r.body);
      return out;
    }
    auto status = parse(r);  // kept: the loop reads into it
    for (const auto& c : status["details"].at("causes").as_array())
      out.push_back(std::string(c.at("field").as_string()) + ": " + std::string(c.at("message").as_string()));
    return out;
  }
  std::vector<std::string> beta_causes(std::string_view spec) { return causes(call("POST", kBeta, beta("w", spec))); }
  // The events a watch has ready, each as its line on the wire.
  std::vector<json::object> drain(Response& w) {
    std::vector<json::object> out;
    bool closed = false;
    bool cols = false;
    for (const auto& it : w.watcher->drain(closed))
      out.push_back(
          json::parse(api_.format_watch_item(*w.watch_resource, it, false, IncludeObject::Metadata, cols)).as_object());
    return out;
  }
};

// The conversion both ways: pod groups are templates, policy is schedulingPolicy.
TEST_F(WorkloadVersionsTest, CreateAtV1alpha1ReadAtV1beta1AndBack) {
  auto created = call("POST", kAlpha,
                      alpha("job-1", R"({"controllerRef":{"apiGroup":"batch","kind":"Job","name":"job-1"},
                                         "podGroups":[{"name":"workers","policy":{"gang":{"minCount":4}}},
                                                      {"name":"driver","policy":{"basic":{}}}]})"));
  ASSERT_EQ(created.status, 201) << created.body;
  auto a = parse(created);
  EXPECT_EQ(a["apiVersion"], "scheduling.k8s.io/v1alpha1");
  EXPECT_EQ(a["spec"].at("podGroups").at(0).at("policy").at("gang").at("minCount"), 4);

  auto got = call("GET", std::string(kBeta) + "/job-1");
  ASSERT_EQ(got.status, 200) << got.body;
  auto b = parse(got);
  EXPECT_EQ(b["apiVersion"], "scheduling.k8s.io/v1beta1");
  EXPECT_EQ(b["kind"], "Workload");
  EXPECT_FALSE(b["spec"].as_object().contains("podGroups"));
  EXPECT_EQ(b["metadata"].at("uid"), a["metadata"].at("uid"));
  EXPECT_EQ(b["metadata"].at("resourceVersion"), a["metadata"].at("resourceVersion"));
  auto typed = api::decode<api::schedulingv1beta1::Workload>(got.body);
  ASSERT_TRUE(typed) << typed.error();
  ASSERT_EQ(typed->spec.podGroupTemplates.size(), 2u);
  EXPECT_EQ(typed->spec.podGroupTemplates[0].name, "workers");
  ASSERT_TRUE(typed->spec.podGroupTemplates[0].schedulingPolicy.gang);
  EXPECT_EQ(typed->spec.podGroupTemplates[0].schedulingPolicy.gang->minCount, 4);
  EXPECT_TRUE(typed->spec.podGroupTemplates[1].schedulingPolicy.basic.has_value());
  ASSERT_TRUE(typed->spec.controllerRef);
  EXPECT_EQ(typed->spec.controllerRef->name, "job-1");

  // Back at v1alpha1: the object as created.
  auto again = parse(call("GET", std::string(kAlpha) + "/job-1"));
  EXPECT_EQ(again, a);
  auto typed_alpha = api::decode<api::schedulingv1alpha1::Workload>(call("GET", std::string(kAlpha) + "/job-1").body);
  ASSERT_TRUE(typed_alpha) << typed_alpha.error();
  EXPECT_EQ(typed_alpha->spec.podGroups.at(1).name, "driver");
}

// What v1alpha1 has no field for is not shown there; it stays stored (v1beta1) until a write
// through v1alpha1 replaces the spec, as upstream loses what an older version lacks.
TEST_F(WorkloadVersionsTest, CreateAtV1beta1ReadAtV1alpha1) {
  auto created = call("POST", kBeta,
                      beta("w", R"({"podGroupTemplates":[{"name":"g","schedulingPolicy":{"gang":{"minCount":2}},
                                    "disruptionMode":{"all":{}},"priorityClassName":"high","priority":10}]})"));
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(parse(created)["apiVersion"], "scheduling.k8s.io/v1beta1");
  auto a = parse(call("GET", std::string(kAlpha) + "/w"));
  EXPECT_EQ(a["apiVersion"], "scheduling.k8s.io/v1alpha1");
  EXPECT_EQ(a["spec"].at("podGroups"),
            json::parse(R"([{"name":"g","policy":{"gang":{"minCount":2}}}])"));
  EXPECT_FALSE(a["spec"].as_object().contains("podGroupTemplates"));
  auto b = parse(call("GET", std::string(kBeta) + "/w"));
  EXPECT_EQ(b["spec"].at("podGroupTemplates").at(0).at("priorityClassName"), "high");
  EXPECT_EQ(b["spec"].at("podGroupTemplates").at(0).at("disruptionMode"), json::parse(R"({"all":{}})"));

  // A v1alpha1 write (metadata only) carries the v1alpha1 spec back: the v1beta1-only fields go.
  auto labelled = call("PATCH", std::string(kAlpha) + "/w", R"({"metadata":{"labels":{"team":"ml"}}})", kMerge);
  ASSERT_EQ(labelled.status, 200) << labelled.body;
  auto after = parse(call("GET", std::string(kBeta) + "/w"));
  EXPECT_EQ(after["metadata"].at("labels").at("team"), "ml");
  EXPECT_EQ(after["spec"].at("podGroupTemplates"),
            json::parse(R"([{"name":"g","schedulingPolicy":{"gang":{"minCount":2}}}])"));
}

// Updates and patches in the version other than the create's, each under its version's rules.
TEST_F(WorkloadVersionsTest, UpdateAndPatchInTheOtherVersion) {
  ASSERT_EQ(call("POST", kAlpha, alpha("w", R"({"podGroups":[{"name":"a","policy":{"gang":{"minCount":2}}}]})")).status,
            201);
  // v1beta1 lets a gang's minCount change (workload scaling); v1alpha1 does not.
  auto scaled = call("PATCH", std::string(kBeta) + "/w",
                     R"({"spec":{"podGroupTemplates":[{"name":"a","schedulingPolicy":{"gang":{"minCount":5}}}]}})", kMerge);
  ASSERT_EQ(scaled.status, 200) << scaled.body;
  EXPECT_EQ(parse(scaled)["apiVersion"], "scheduling.k8s.io/v1beta1");
  EXPECT_EQ(parse(call("GET", std::string(kAlpha) + "/w"))["spec"].at("podGroups").at(0).at("policy").at("gang").at("minCount"),
            5);
  EXPECT_EQ(causes(call("PATCH", std::string(kAlpha) + "/w",
                        R"({"spec":{"podGroups":[{"name":"a","policy":{"gang":{"minCount":6}}}]}})", kMerge)),
            std::vector<std::string>{"podGroups: Invalid value: [{\"Name\":\"a\",\"Policy\":{\"Basic\":null,"
                                     "\"Gang\":{\"MinCount\":6}}}]: field is immutable"});
  // A PUT of the object read at v1alpha1 (its resourceVersion a precondition), seen at v1beta1.
  auto cur = parse(call("GET", std::string(kAlpha) + "/w"));
  cur["metadata"].as_object()["labels"] = json::object{{"team", "ml"}};
  auto put = call("PUT", std::string(kAlpha) + "/w", json::serialize(cur));
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_EQ(parse(put)["apiVersion"], "scheduling.k8s.io/v1alpha1");
  auto b = parse(call("GET", std::string(kBeta) + "/w"));
  EXPECT_EQ(b["metadata"].at("labels").at("team"), "ml");
  EXPECT_EQ(b["spec"].at("podGroupTemplates").at(0).at("schedulingPolicy").at("gang").at("minCount"), 5);
  // The stale resourceVersion is a conflict whichever version it was read at.
  auto stale = json::parse(beta("w", R"({"podGroupTemplates":[{"name":"a","schedulingPolicy":{"gang":{"minCount":5}}}]})"));
  stale.as_object()["metadata"].as_object()["resourceVersion"] = cur["metadata"].at("resourceVersion");
  EXPECT_EQ(call("PUT", std::string(kBeta) + "/w", json::serialize(stale)).status, 409);
  // A body of the other version is refused, as upstream's create and update handlers do.
  auto wrong = call("POST", kBeta, alpha("x", R"({"podGroups":[{"name":"a","policy":{"basic":{}}}]})"));
  EXPECT_EQ(wrong.status, 400) << wrong.body;
  EXPECT_EQ(message(wrong), "the API version in the data (scheduling.k8s.io/v1alpha1) does not match the expected API "
                            "version (scheduling.k8s.io/v1beta1)");
  EXPECT_EQ(call("DELETE", std::string(kBeta) + "/w").status, 200);
  EXPECT_EQ(call("GET", std::string(kAlpha) + "/w").status, 404);
}

TEST_F(WorkloadVersionsTest, ListWatchTableAndFieldSelectorInEachVersion) {
  auto wa = call("GET", std::string(kAlpha) + "?watch=1");
  ASSERT_TRUE(wa.watcher) << wa.body;
  auto wb = call("GET", std::string(kBeta) + "?watch=1");
  ASSERT_TRUE(wb.watcher) << wb.body;
  ASSERT_EQ(call("POST", kAlpha, alpha("w", R"({"podGroups":[{"name":"a","policy":{"basic":{}}}]})")).status, 201);
  ASSERT_EQ(call("POST", kBeta, beta("v", R"({"podGroupTemplates":[{"name":"b","schedulingPolicy":{"basic":{}}}]})")).status,
            201);
  // Watch events: the stored (v1beta1) objects in each watch's version.
  auto ea = drain(wa);
  ASSERT_EQ(ea.size(), 2u);
  for (const auto& e : ea) {
    EXPECT_EQ(e.at("type"), "ADDED");
    EXPECT_EQ(e.at("object").at("apiVersion"), "scheduling.k8s.io/v1alpha1");
    EXPECT_TRUE(e.at("object").at("spec").as_object().contains("podGroups"));
  }
  auto eb = drain(wb);
  ASSERT_EQ(eb.size(), 2u);
  for (const auto& e : eb) {
    EXPECT_EQ(e.at("object").at("apiVersion"), "scheduling.k8s.io/v1beta1");
    EXPECT_TRUE(e.at("object").at("spec").as_object().contains("podGroupTemplates"));
  }
  // Lists: items carry no kind/apiVersion (the list has them) and the request's shape.
  auto la = parse(call("GET", kAlpha));
  EXPECT_EQ(la["apiVersion"], "scheduling.k8s.io/v1alpha1");
  ASSERT_EQ(la["items"].as_array().size(), 2u);
  for (const auto& it : la["items"].as_array()) {
    EXPECT_FALSE(it.as_object().contains("apiVersion"));
    EXPECT_TRUE(it.at("spec").as_object().contains("podGroups"));
  }
  auto lb = parse(call("GET", "/apis/scheduling.k8s.io/v1beta1/workloads"));
  EXPECT_EQ(lb["apiVersion"], "scheduling.k8s.io/v1beta1");
  ASSERT_EQ(lb["items"].as_array().size(), 2u);
  for (const auto& it : lb["items"].as_array()) EXPECT_TRUE(it.at("spec").as_object().contains("podGroupTemplates"));
  // Field selectors on either version.
  auto sel = parse(call("GET", std::string(kAlpha) + "?fieldSelector=metadata.name%3Dv"));
  ASSERT_EQ(sel["items"].as_array().size(), 1u);
  EXPECT_EQ(sel["items"].at(0).at("spec").at("podGroups").at(0).at("name"), "b");
  // Tables (kubectl get): the default columns; includeObject=Object embeds the request's version.
  auto table = parse(call("GET", std::string(kBeta) + "?includeObject=Object", "", "", kTableAccept));
  EXPECT_EQ(table["kind"], "Table");
  ASSERT_EQ(table["rows"].as_array().size(), 2u);
  EXPECT_EQ(table["rows"].at(0).at("object").at("apiVersion"), "scheduling.k8s.io/v1beta1");
  // A watch from the start with bookmarks: the initial events and the end bookmark in the version.
  auto wi = call("GET", std::string(kAlpha) +
                            "?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan");
  ASSERT_TRUE(wi.watcher) << wi.body;
  auto ei = drain(wi);
  ASSERT_EQ(ei.size(), 3u);
  EXPECT_EQ(ei[0].at("object").at("apiVersion"), "scheduling.k8s.io/v1alpha1");
  EXPECT_EQ(ei[2].at("type"), "BOOKMARK");
  EXPECT_EQ(ei[2].at("object").at("apiVersion"), "scheduling.k8s.io/v1alpha1");
  EXPECT_EQ(ei[2].at("object").at("kind"), "Workload");
}

// An object stored at v1alpha1 (a data directory or etcd written before v1beta1 was served) is
// read at both versions, as upstream decodes any stored version.
TEST_F(WorkloadVersionsTest, ObjectStoredAtV1alpha1IsReadAtBothVersions) {
  const ResourceInfo* stored = find_resource("scheduling.k8s.io", "v1beta1", "workloads");
  ASSERT_NE(stored, nullptr);
  EXPECT_EQ(find_resource("scheduling.k8s.io", "v1alpha1", "workloads")->storage, stored->id);
  json::object old = json::parse(R"({"kind":"Workload","apiVersion":"scheduling.k8s.io/v1alpha1",
      "metadata":{"name":"old","namespace":"default","uid":"u1","creationTimestamp":"2026-01-01T00:00:00Z"},
      "spec":{"podGroups":[{"name":"a","policy":{"gang":{"minCount":3}}}]}})").as_object();
  ASSERT_EQ(api_.store().put(stored->id, old, 0).status, Store::CommitStatus::Ok);
  auto b = parse(call("GET", std::string(kBeta) + "/old"));
  EXPECT_EQ(b["apiVersion"], "scheduling.k8s.io/v1beta1");
  EXPECT_EQ(b["spec"].at("podGroupTemplates").at(0).at("schedulingPolicy").at("gang").at("minCount"), 3);
  auto a = parse(call("GET", std::string(kAlpha) + "/old"));
  EXPECT_EQ(a["spec"].at("podGroups").at(0).at("policy").at("gang").at("minCount"), 3);
  // The next write stores it at v1beta1.
  ASSERT_EQ(call("PATCH", std::string(kBeta) + "/old", R"({"metadata":{"labels":{"x":"y"}}})", kMerge).status, 200);
  auto raw = api_.store().get(stored->id, "default", "old");
  ASSERT_TRUE(raw);
  EXPECT_TRUE(raw->json.starts_with(R"({"kind":"Workload","apiVersion":"scheduling.k8s.io/v1beta1")")) << raw->json;
}

TEST_F(WorkloadVersionsTest, DiscoveryAndOpenApiListBothVersions) {
  auto group = parse(call("GET", "/apis/scheduling.k8s.io"));
  std::vector<std::string> versions;
  for (const auto& v : group["versions"].as_array()) versions.emplace_back(v.at("version").as_string());
  EXPECT_EQ(versions, (std::vector<std::string>{"v1", "v1beta1", "v1alpha1"}));
  EXPECT_EQ(group["preferredVersion"].at("version"), "v1");  // the group's, as upstream (PriorityClass)
  auto names = [&](const std::string& gv) {
    std::vector<std::string> out;
    auto list = parse(call("GET", "/apis/scheduling.k8s.io/" + gv));
    for (const auto& r : list["resources"].as_array())
      out.emplace_back(r.at("name").as_string());
    return out;
  };
  EXPECT_EQ(names("v1beta1"), (std::vector<std::string>{"podgroups", "podgroups/status", "workloads"}));
  EXPECT_EQ(names("v1alpha1"), std::vector<std::string>{"workloads"});
  // Aggregated discovery: workloads under both versions of the group, v1beta1 first (the version
  // kubectl takes for `kubectl get workloads`).
  auto agg = parse(call("GET", "/apis", "", "", kAggregated));
  std::vector<std::string> with_workloads;
  for (const auto& g : agg["items"].as_array()) {
    if (g.at("metadata").at("name") != "scheduling.k8s.io") continue;
    for (const auto& v : g.at("versions").as_array())
      for (const auto& r : v.at("resources").as_array())
        if (r.at("resource") == "workloads") {
          with_workloads.emplace_back(v.at("version").as_string());
          EXPECT_EQ(r.at("responseKind").at("version"), v.at("version"));
        }
  }
  EXPECT_EQ(with_workloads, (std::vector<std::string>{"v1beta1", "v1alpha1"}));
  auto index = call("GET", "/openapi/v3").body;
  EXPECT_NE(index.find("apis/scheduling.k8s.io/v1beta1"), std::string::npos);
  EXPECT_NE(index.find("apis/scheduling.k8s.io/v1alpha1"), std::string::npos);
  auto doc = parse(call("GET", "/openapi/v3/apis/scheduling.k8s.io/v1beta1"));
  const auto& schemas = doc["components"].at("schemas").as_object();
  ASSERT_TRUE(schemas.contains("io.k8s.api.scheduling.v1beta1.Workload"));
  EXPECT_EQ(schemas.at("io.k8s.api.scheduling.v1beta1.Workload").at("x-kubernetes-group-version-kind").at(0).at("version"),
            "v1beta1");
  EXPECT_NE(json::serialize(doc["paths"]).find("#/components/schemas/io.k8s.api.scheduling.v1beta1.Workload"),
            std::string::npos);
}

// v1beta1's rules: v1.37's +k8s: tags, declarative validation's messages.
TEST_F(WorkloadVersionsTest, V1beta1CreateValidation) {
  // CompositePodGroup off: the union names only podGroupTemplates (upstream's "empty
  // podGroupTemplates" case; composite_pod_group_api_test.cpp has the gate on).
  EXPECT_EQ(beta_causes("{}"),
            std::vector<std::string>{"spec: Invalid value: \"\": must specify one of: `podGroupTemplates`"});
  std::string nine;
  for (int i = 0; i < 9; ++i)
    nine += std::string(i ? "," : "") + R"({"name":"g)" + std::to_string(i) + R"(","schedulingPolicy":{"basic":{}}})";
  EXPECT_EQ(beta_causes(R"({"podGroupTemplates":[)" + nine + "]}"),
            std::vector<std::string>{"spec.podGroupTemplates: Too many: 9: must have at most 8 items"});
  EXPECT_EQ(beta_causes(R"({"podGroupTemplates":[{"schedulingPolicy":{"basic":{}}}]})"),
            std::vector<std::string>{"spec.podGroupTemplates[0].name: Required value"});
  EXPECT_EQ(beta_causes(R"({"podGroupTemplates":[{"name":"a","schedulingPolicy":{}}]})"),
            std::vector<std::string>{
                "spec.podGroupTemplates[0].schedulingPolicy: Invalid value: \"\": must specify one of: `basic`, `gang`"});
  EXPECT_EQ(beta_causes(R"({"podGroupTemplates":[{"name":"a","schedulingPolicy":{"gang":{"minCount":-1}}}]})"),
            std::vector<std::string>{"spec.podGroupTemplates[0].schedulingPolicy.gang.minCount: Invalid value: -1: must "
                                     "be greater than or equal to 1"});
  EXPECT_EQ(beta_causes(R"({"podGroupTemplates":[{"name":"a","schedulingPolicy":{"basic":{}}},
                                                  {"name":"a","schedulingPolicy":{"basic":{}}}]})"),
            std::vector<std::string>{
                "spec.podGroupTemplates[1]: Duplicate value: {\"name\":\"a\",\"schedulingPolicy\":{\"basic\":{}}}"});
  EXPECT_EQ(beta_causes(R"({"podGroupTemplates":[{"name":"a","schedulingPolicy":{"basic":{}},
                             "disruptionMode":{"single":{},"all":{}},"priority":1000000001,"preemptionPolicy":"Never"}]})"),
            (std::vector<std::string>{
                "spec.podGroupTemplates[0].disruptionMode: Invalid value: \"{`single`, `all`}\": must specify exactly "
                "one of: `single`, `all`",
                "spec.podGroupTemplates[0].priority: Invalid value: 1000000001: must be less than or equal to 1000000000",
                "spec.podGroupTemplates[0].preemptionPolicy: Forbidden"}));
  EXPECT_EQ(beta_causes(R"({"compositePodGroupTemplates":[{"name":"c"}]})"),
            std::vector<std::string>{"spec.compositePodGroupTemplates: Forbidden"});
  EXPECT_EQ(beta_causes(R"({"controllerRef":{"kind":"Job"},"podGroupTemplates":[{"name":"a","schedulingPolicy":{"basic":{}}}]})"),
            std::vector<std::string>{"spec.controllerRef.name: Required value"});
  // Fields of gates this server does not have are dropped, as upstream's dropDisabledWorkloadFields.
  auto created = call("POST", kBeta,
                      beta("w", R"({"podGroupTemplates":[{"name":"a","schedulingPolicy":{"basic":{}},
                                    "schedulingConstraints":{"topology":[{"key":"zone"}]}}]})"));
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_FALSE(parse(created)["spec"].at("podGroupTemplates").at(0).as_object().contains("schedulingConstraints"));
}

// (Every template carries priority 5: pkg/apis/scheduling/validation's validateWorkloadPriority
// allows one priority configuration per Workload.)
TEST_F(WorkloadVersionsTest, V1beta1UpdateRules) {
  ASSERT_EQ(call("POST", kBeta,
                 beta("w", R"({"podGroupTemplates":[{"name":"a","schedulingPolicy":{"gang":{"minCount":2}},"priority":5},
                                                    {"name":"b","schedulingPolicy":{"basic":{}},"priority":5}]})"))
                .status,
            201);
  auto patch = [&](std::string_view spec) {
    return causes(call("PATCH", std::string(kBeta) + "/w", R"({"spec":)" + std::string(spec) + "}", kMerge));
  };
  // controllerRef is immutable, unlike v1alpha1's (which may be set later).
  EXPECT_EQ(patch(R"({"controllerRef":{"kind":"Job","name":"j"}})"),
            std::vector<std::string>{"spec.controllerRef: Invalid value: null: field is immutable"});
  EXPECT_EQ(patch(R"({"podGroupTemplates":[{"name":"a","schedulingPolicy":{"gang":{"minCount":2}},"priority":5},
                                            {"name":"b","schedulingPolicy":{"basic":{}},"priority":5},
                                            {"name":"c","schedulingPolicy":{"basic":{}},"priority":5}]})"),
            std::vector<std::string>{"spec.podGroupTemplates[2]: Forbidden: cannot add new items"});
  EXPECT_EQ(patch(R"({"podGroupTemplates":[{"name":"a","schedulingPolicy":{"gang":{"minCount":2}},"priority":5}]})"),
            std::vector<std::string>{"spec.podGroupTemplates: Forbidden: cannot remove items"});
  EXPECT_EQ(patch(R"({"podGroupTemplates":[{"name":"a","schedulingPolicy":{"basic":{}},"priority":6},
                                            {"name":"b","schedulingPolicy":{"gang":{"minCount":1}},"priority":5}]})"),
            (std::vector<std::string>{
                "spec: Invalid value: null: detected multiple priority configurations",
                "spec.podGroupTemplates[0].schedulingPolicy.basic: Invalid value: null: field is immutable",
                "spec.podGroupTemplates[0].schedulingPolicy.gang: Invalid value: null: field cannot be cleared once set",
                "spec.podGroupTemplates[0].priority: Invalid value: null: field is immutable",
                "spec.podGroupTemplates[1].schedulingPolicy.basic: Invalid value: null: field is immutable",
                "spec.podGroupTemplates[1].schedulingPolicy.gang: Invalid value: null: field cannot be set once created"}));
  // Reordering is no add or remove; a gang's minCount may change.
  auto ok = call("PATCH", std::string(kBeta) + "/w",
                 R"({"spec":{"podGroupTemplates":[{"name":"b","schedulingPolicy":{"basic":{}},"priority":5},
                     {"name":"a","schedulingPolicy":{"gang":{"minCount":7}},"priority":5}]}})",
                 kMerge);
  EXPECT_EQ(ok.status, 200) << ok.body;
}

}  // namespace
}  // namespace ksched::apiserver
