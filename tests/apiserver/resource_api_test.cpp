// resource.k8s.io served through Api::handle: the v1 kinds and v1beta2 DeviceTaintRule (create,
// get, list, tables, field selectors, discovery), their defaults, the status subresource's rules,
// and what the strategies (apiserver/registry/resource) refuse, with upstream's field errors.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "api_harness.h"
#include "apiserver/endpoints/discovery.h"

namespace ksched::apiserver {
namespace {

namespace json = boost::json;

constexpr const char* kClasses = "/apis/resource.k8s.io/v1/deviceclasses";
constexpr const char* kClaims = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims";
constexpr const char* kTemplates = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaimtemplates";
constexpr const char* kSlices = "/apis/resource.k8s.io/v1/resourceslices";
constexpr const char* kTaintRules = "/apis/resource.k8s.io/v1beta2/devicetaintrules";
constexpr const char* kTableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

std::string claim(std::string_view name, std::string_view devices) {
  return std::string(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":")") +
         std::string(name) + R"("},"spec":{"devices":)" + std::string(devices) + "}}";
}

std::string slice(std::string_view name, std::string_view node, std::string_view extra = "") {
  return std::string(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":")") +
         std::string(name) + R"("},"spec":{"driver":"gpu.ksched.dev","pool":{"name":")" + std::string(node) +
         R"(","generation":1,"resourceSliceCount":1},"nodeName":")" + std::string(node) + R"(",)" +
         (extra.empty() ? std::string(R"("devices":[{"name":"gpu-0","attributes":{"model":{"string":"A100"},"index":{"int":0}},"capacity":{"memory":{"value":"80Gi"}}}])")
                        : std::string(extra)) +
         "}}";
}

class ResourceApiTest : public ApiHarness {
 protected:
  // The causes of a 422, as "field: message" lines.
  std::vector<std::string> causes(const Response& r) {
    std::vector<std::string> out;
    if (r.status != 422) {
      out.push_back("status " + std::to_string(r.status) + ": " + r.body);
      return out;
    }
    auto o = parse(r);
    for (const auto& c : o["details"].at("causes").as_array())
      out.push_back(std::string(c.at("field").as_string()) + ": " + std::string(c.at("message").as_string()));
    return out;
  }
};

TEST_F(ResourceApiTest, DeviceClassCreateGetListGeneration) {
  auto created = call("POST", kClasses,
                      R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu.ksched.dev"},
                          "spec":{"selectors":[{"cel":{"expression":"device.driver == \"gpu.ksched.dev\""}}]}})");
  ASSERT_EQ(created.status, 201) << created.body;
  auto o = parse(created);
  EXPECT_EQ(o["kind"], "DeviceClass");
  EXPECT_EQ(o["apiVersion"], "resource.k8s.io/v1");
  EXPECT_EQ(o["metadata"].at("generation"), 1);
  EXPECT_FALSE(o["metadata"].as_object().contains("namespace"));
  // A spec change counts a generation; a label change does not.
  auto updated = call("PATCH", std::string(kClasses) + "/gpu.ksched.dev",
                      R"({"spec":{"config":[{"opaque":{"driver":"gpu.ksched.dev","parameters":{"mode":"fast"}}}]}})",
                      "application/merge-patch+json");
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_EQ(parse(updated)["metadata"].at("generation"), 2);
  auto labelled = call("PATCH", std::string(kClasses) + "/gpu.ksched.dev", R"({"metadata":{"labels":{"a":"b"}}})",
                       "application/merge-patch+json");
  EXPECT_EQ(parse(labelled)["metadata"].at("generation"), 2);
  auto list = parse(call("GET", kClasses));
  EXPECT_EQ(list["kind"], "DeviceClassList");
  ASSERT_EQ(list["items"].as_array().size(), 1u);
}

TEST_F(ResourceApiTest, ClaimDefaultsAndTable) {
  auto created = call("POST", kClaims,
                      claim("gpu", R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.ksched.dev",
                                        "tolerations":[{"key":"k","value":"v"}]}},
                                     {"name":"any","firstAvailable":[{"name":"big","deviceClassName":"gpu.ksched.dev"},
                                        {"name":"all","deviceClassName":"gpu.ksched.dev","allocationMode":"All"}]}]})"));
  ASSERT_EQ(created.status, 201) << created.body;
  auto o = parse(created);
  auto& reqs = o["spec"].at("devices").at("requests").as_array();
  // SetDefaults_ExactDeviceRequest / DeviceSubRequest and the toleration operator.
  EXPECT_EQ(reqs[0].at("exactly").at("allocationMode"), "ExactCount");
  EXPECT_EQ(reqs[0].at("exactly").at("count"), 1);
  EXPECT_EQ(reqs[0].at("exactly").at("tolerations").as_array()[0].at("operator"), "Equal");
  EXPECT_EQ(reqs[1].at("firstAvailable").as_array()[0].at("count"), 1);
  EXPECT_EQ(reqs[1].at("firstAvailable").as_array()[1].at("allocationMode"), "All");
  EXPECT_FALSE(reqs[1].at("firstAvailable").as_array()[1].as_object().contains("count"));
  // A status sent on create is dropped (the scheduler's and the drivers').
  auto with_status = call("POST", kClaims,
                          R"({"metadata":{"name":"s"},"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"c"}}]}},
                              "status":{"reservedFor":[{"resource":"pods","name":"p","uid":"u"}]}})");
  ASSERT_EQ(with_status.status, 201) << with_status.body;
  EXPECT_FALSE(parse(with_status).contains("status"));

  auto table = parse(call("GET", kClaims, "", "", kTableAccept));
  auto cols = table["columnDefinitions"].as_array();
  ASSERT_EQ(cols.size(), 3u);
  EXPECT_EQ(cols[1].at("name"), "State");
  auto cells = table["rows"].as_array()[0].at("cells").as_array();
  EXPECT_EQ(cells[0], "gpu");
  EXPECT_EQ(cells[1], "pending");
}

TEST_F(ResourceApiTest, ClaimStatusSubresourceRules) {
  ASSERT_EQ(call("POST", kClaims, claim("c", R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu"}}]})")).status, 201);
  const std::string status_path = std::string(kClaims) + "/c/status";
  // reservedFor needs an allocation.
  auto r = call("PATCH", status_path, R"({"status":{"reservedFor":[{"resource":"pods","name":"p","uid":"u1"}]}})",
                "application/merge-patch+json");
  EXPECT_EQ(causes(r), std::vector<std::string>{"status.reservedFor: Forbidden: may not be specified when `allocated` is not set"});
  // An allocation naming an unknown request and a bad pool is refused field by field.
  r = call("PATCH", status_path,
           R"({"status":{"allocation":{"devices":{"results":[{"request":"cpu","driver":"gpu.ksched.dev","pool":"Node_1","device":"gpu-0"}]}}}})",
           "application/merge-patch+json");
  EXPECT_EQ(causes(r),
            (std::vector<std::string>{
                "status.allocation.devices.results[0].request: Invalid value: \"cpu\": must be the name of a request in "
                "the claim or the name of a request and a subrequest separated by '/'",
                "status.allocation.devices.results[0].pool: Invalid value: \"Node_1\": a lowercase RFC 1123 subdomain "
                "must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an "
                "alphanumeric character (e.g. 'example.com', regex used for validation is "
                "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"}));
  // A good allocation and reservation, and the labels of a status write are the stored ones.
  r = call("PATCH", status_path,
           R"({"metadata":{"labels":{"x":"y"}},"status":{"allocation":{"devices":{"results":[{"request":"gpu","driver":"gpu.ksched.dev","pool":"node-1","device":"gpu-0",
               "tolerations":[{"key":"k","operator":"Exists"}]}]}},
               "reservedFor":[{"resource":"pods","name":"p","uid":"u1"}]}})",
           "application/merge-patch+json");
  ASSERT_EQ(r.status, 200) << r.body;
  auto o = parse(r);
  EXPECT_EQ(o["status"].at("reservedFor").as_array().size(), 1u);
  EXPECT_FALSE(o["metadata"].as_object().contains("labels"));
  // The allocation is immutable once set.
  r = call("PATCH", status_path,
           R"({"status":{"allocation":{"devices":{"results":[{"request":"gpu","driver":"gpu.ksched.dev","pool":"node-1","device":"gpu-1"}]}}}})",
           "application/merge-patch+json");
  ASSERT_EQ(r.status, 422);
  auto c = causes(r);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_TRUE(c[0].starts_with("status.allocation: Invalid value: ")) << c[0];
  EXPECT_TRUE(c[0].ends_with(": field is immutable")) << c[0];
  // The same reservation twice is a duplicate.
  r = call("PATCH", status_path,
           R"({"status":{"reservedFor":[{"resource":"pods","name":"p","uid":"u1"},{"resource":"pods","name":"p","uid":"u1"}]}})",
           "application/merge-patch+json");
  EXPECT_EQ(causes(r), std::vector<std::string>{"status.reservedFor[1]: Duplicate value: \"u1\""});
  // The table shows it allocated and reserved.
  auto table = parse(call("GET", kClaims, "", "", kTableAccept));
  EXPECT_EQ(table["rows"].as_array()[0].at("cells").as_array()[1], "allocated,reserved");
  // The spec is immutable.
  r = call("PATCH", std::string(kClaims) + "/c",
           R"({"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"other"}}]}}})",
           "application/merge-patch+json");
  ASSERT_EQ(r.status, 422);
  c = causes(r);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_TRUE(c[0].starts_with("spec: Invalid value: ")) << c[0];
  EXPECT_TRUE(c[0].ends_with(": field is immutable")) << c[0];
  // A main-resource update keeps the status (and may change metadata).
  r = call("PATCH", std::string(kClaims) + "/c", R"({"metadata":{"finalizers":["resource.kubernetes.io/delete-protection"]},"status":null})",
           "application/merge-patch+json");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(parse(r)["status"].at("reservedFor").as_array().size(), 1u);
}

TEST_F(ResourceApiTest, ClaimSpecRules) {
  struct Case {
    const char* devices;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {R"({"requests":[{"name":"gpu"}]})",
       {"spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required"}},
      {R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"c"},"firstAvailable":[{"name":"a","deviceClassName":"c"}]}]})",
       {"spec.devices.requests[0]: Invalid value: null: exactly one of `exactly` or `firstAvailable` is required, but "
        "multiple fields are set"}},
      {R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"c","allocationMode":"All","count":2}}]})",
       {"spec.devices.requests[0].exactly.count: Invalid value: 2: must not be specified when allocationMode is 'All'"}},
      {R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"c","count":-1}}]})",
       {"spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero"}},
      {R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"c","allocationMode":"Some"}}]})",
       {"spec.devices.requests[0].exactly.allocationMode: Unsupported value: \"Some\": supported values: \"All\", \"ExactCount\""}},
      {R"({"requests":[{"name":"gpu","exactly":{}}]})", {"spec.devices.requests[0].exactly.deviceClassName: Required value"}},
      {R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"c"}},{"name":"gpu","exactly":{"deviceClassName":"c"}}]})",
       {"spec.devices.requests[1]: Duplicate value: \"gpu\""}},
      {R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"c","selectors":[{}]}}]})",
       {"spec.devices.requests[0].exactly.selectors[0].cel: Required value"}},
      {R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"c","tolerations":[{"operator":"Exists","value":"v"}]}}]})",
       {"spec.devices.requests[0].exactly.tolerations[0].value: Invalid value: \"v\": must be empty for operator `Exists`"}},
      {R"({"requests":[{"name":"gpu","exactly":{"deviceClassName":"c","tolerations":[{"key":"k","effect":"PreferNoSchedule"}]}}]})",
       {"spec.devices.requests[0].exactly.tolerations[0].effect: Unsupported value: \"PreferNoSchedule\": supported "
        "values: \"NoExecute\", \"NoSchedule\", \"None\""}},
      {R"({"requests":[{"name":"a","exactly":{"deviceClassName":"c"}}],"constraints":[{"requests":["b"],"matchAttribute":"model"}]})",
       {"spec.devices.constraints[0].requests[0]: Invalid value: \"b\": must be the name of a request in the claim or "
        "the name of a request and a subrequest separated by '/'",
        "spec.devices.constraints[0].matchAttribute: Invalid value: \"model\": a fully qualified name must be a domain "
        "and a name separated by a slash"}},
      {R"({"requests":[{"name":"a","exactly":{"deviceClassName":"c"}}],"constraints":[{}]})",
       {"spec.devices.constraints[0]: Required value: exactly one of \"matchAttribute\" or \"distinctAttribute\" is "
        "required, but multiple fields are set"}},
      {R"({"requests":[{"name":"a","exactly":{"deviceClassName":"c"}}],"config":[{"requests":["a"]}]})",
       {"spec.devices.config[0].opaque: Required value"}},
      {R"({"requests":[{"name":"a","exactly":{"deviceClassName":"c"}}],"config":[{"opaque":{"driver":"gpu.ksched.dev"}}]})",
       {"spec.devices.config[0].opaque.parameters: Required value"}},
  };
  int i = 0;
  for (const auto& c : cases) {
    auto r = call("POST", kClaims, claim("c" + std::to_string(i++), c.devices));
    EXPECT_EQ(causes(r), c.want) << c.devices;
  }
  // 33 requests: only the count is reported.
  std::string many = R"({"requests":[)";
  for (int n = 0; n < 33; ++n) many += (n ? "," : "") + std::string(R"({"name":"r)") + std::to_string(n) + R"(","exactly":{"deviceClassName":"c"}})";
  many += "]}";
  EXPECT_EQ(causes(call("POST", kClaims, claim("many", many))),
            std::vector<std::string>{"spec.devices.requests: Too many: 33: must have at most 32 items"});
  // A selector over the length limit is refused before it is compiled.
  std::string long_expr(10 * 1024 + 1, 'x');
  EXPECT_EQ(causes(call("POST", kClaims,
                        claim("long", R"({"requests":[{"name":"a","exactly":{"deviceClassName":"c","selectors":[{"cel":{"expression":")" +
                                          long_expr + R"("}}]}}]})"))),
            std::vector<std::string>{"spec.devices.requests[0].exactly.selectors[0].cel.expression: Too long: may not be more than 10240 bytes"});
}

// Selectors are compiled when written (upstream's validateCELSelector): the CEL layer's messages.
TEST_F(ResourceApiTest, SelectorsThatDoNotCompileAreRefused) {
  auto with_selector = [](const std::string& expression) {
    return R"({"requests":[{"name":"a","exactly":{"deviceClassName":"c","selectors":[{"cel":{"expression":)" +
           json::serialize(json::value(expression)) + "}}]}}]}";
  };
  const std::string path = "spec.devices.requests[0].exactly.selectors[0].cel.expression";
  EXPECT_EQ(causes(call("POST", kClaims, claim("not-bool", with_selector("device.driver")))),
            std::vector<std::string>{path + R"(: Invalid value: "device.driver": must evaluate to bool or the unknown type, not string)"});
  auto bad = causes(call("POST", kClaims, claim("no-overload", with_selector("device.driver > 1"))));
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].rfind(path + R"(: Invalid value: "device.driver > 1": compilation failed: ERROR: <input>:1:15: )"
                                R"(found no matching overload for '_>_' applied to '(string, int)')", 0),
            0u)
      << bad[0];
  std::string expensive = "int('1'.find('[0-9]*')) < 100";
  for (int i = 0; i < 7; ++i) expensive = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x" + std::to_string(i) + ", " + expensive + ")";
  EXPECT_EQ(causes(call("POST", kClaims, claim("costly", with_selector(expensive)))),
            std::vector<std::string>{path + ": Forbidden: too complex, exceeds cost limit"});
  // A DeviceClass's selectors too; a valid one is accepted.
  auto cls = [](const std::string& expression) {
    return R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"x"},"spec":{"selectors":[{"cel":{"expression":)" +
           json::serialize(json::value(expression)) + "}}]}}";
  };
  EXPECT_EQ(causes(call("POST", kClasses, cls("1 + 1"))),
            std::vector<std::string>{
                R"(spec.selectors[0].cel.expression: Invalid value: "1 + 1": must evaluate to bool or the unknown type, not int)"});
  EXPECT_EQ(call("POST", kClasses, cls(R"(device.attributes["gpu.ksched.dev"].model == "A100")")).status, 201);
}

TEST_F(ResourceApiTest, AdminAccessNeedsTheNamespaceLabel) {
  const std::string body = claim("admin", R"({"requests":[{"name":"a","exactly":{"deviceClassName":"c","adminAccess":true}}]})");
  EXPECT_EQ(causes(call("POST", kClaims, body)),
            std::vector<std::string>{"spec.devices.requests[0].exactly.adminAccess: Forbidden: admin access to devices "
                                     "requires the `resource.kubernetes.io/admin-access: true` label on the containing namespace"});
  ASSERT_EQ(call("PATCH", "/api/v1/namespaces/default", R"({"metadata":{"labels":{"resource.kubernetes.io/admin-access":"true"}}})",
                 "application/merge-patch+json")
                .status,
            200);
  EXPECT_EQ(call("POST", kClaims, body).status, 201);
}

TEST_F(ResourceApiTest, TemplateRulesAndImmutableSpec) {
  auto r = call("POST", kTemplates,
                R"({"metadata":{"name":"gpu"},"spec":{"metadata":{"labels":{"app":"x"}},
                    "spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.ksched.dev"}}]}}}})");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(parse(r)["spec"].at("spec").at("devices").at("requests").as_array()[0].at("exactly").at("count"), 1);
  r = call("POST", kTemplates,
           R"({"metadata":{"name":"bad"},"spec":{"metadata":{"labels":{"a b":"x"}},"spec":{"devices":{"requests":[{"name":"Gpu","exactly":{"deviceClassName":"c"}}]}}}})");
  auto c = causes(r);
  ASSERT_EQ(c.size(), 2u) << r.body;
  EXPECT_TRUE(c[0].starts_with("spec.metadata.labels: Invalid value: \"a b\"")) << c[0];
  EXPECT_TRUE(c[1].starts_with("spec.spec.devices.requests[0].name: Invalid value: \"Gpu\": a lowercase RFC 1123 label")) << c[1];
  r = call("PATCH", std::string(kTemplates) + "/gpu", R"({"spec":{"metadata":{"labels":{"app":"y"}}}})",
           "application/merge-patch+json");
  c = causes(r);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_TRUE(c[0].starts_with("spec: Invalid value: ") && c[0].ends_with("field is immutable")) << c[0];
}

TEST_F(ResourceApiTest, SliceRulesTableAndFieldSelectors) {
  auto r = call("POST", kSlices, slice("node-1-gpu", "node-1"));
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(parse(r)["metadata"].at("generation"), 1);
  ASSERT_EQ(call("POST", kSlices, slice("node-2-gpu", "node-2")).status, 201);
  // kubectl get resourceslices: NAME, NODE, DRIVER, POOL, AGE.
  auto table = parse(call("GET", kSlices, "", "", kTableAccept));
  auto cols = table["columnDefinitions"].as_array();
  ASSERT_EQ(cols.size(), 5u);
  EXPECT_EQ(cols[1].at("name"), "Node");
  EXPECT_EQ(cols[2].at("name"), "Driver");
  EXPECT_EQ(cols[3].at("name"), "Pool");
  auto cells = table["rows"].as_array()[0].at("cells").as_array();
  EXPECT_EQ(cells[1], "node-1");
  EXPECT_EQ(cells[2], "gpu.ksched.dev");
  EXPECT_EQ(cells[3], "node-1");
  // The field selectors the scheduler and the kubelet use.
  auto list = parse(call("GET", std::string(kSlices) + "?fieldSelector=spec.nodeName%3Dnode-2"));
  ASSERT_EQ(list["items"].as_array().size(), 1u);
  EXPECT_EQ(list["items"].as_array()[0].at("metadata").at("name"), "node-2-gpu");
  list = parse(call("GET", std::string(kSlices) + "?fieldSelector=spec.driver%3Dother.dev"));
  EXPECT_TRUE(list["items"].as_array().empty());
  auto bad = call("GET", std::string(kSlices) + "?fieldSelector=spec.pool.name%3Dx");
  EXPECT_EQ(bad.status, 400);

  // Spec rules.
  EXPECT_EQ(causes(call("POST", kSlices,
                        R"({"metadata":{"name":"s1"},"spec":{"driver":"gpu.ksched.dev","pool":{"name":"p","resourceSliceCount":0}}})")),
            (std::vector<std::string>{
                "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero",
                "spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"}));
  EXPECT_EQ(causes(call("POST", kSlices,
                        R"({"metadata":{"name":"s2"},"spec":{"driver":"gpu.ksched.dev","pool":{"name":"p","resourceSliceCount":1},
                            "nodeName":"n","allNodes":true}})")),
            std::vector<std::string>{
                "spec: Invalid value: \"{`nodeName`, `allNodes`}\": exactly one of `nodeName`, `nodeSelector`, "
                "`allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set"});
  EXPECT_EQ(causes(call("POST", kSlices,
                        slice("s3", "n", R"("devices":[{"name":"d","attributes":{"1x":{"string":"s"},"a":{"int":1,"bool":true},
                            "v":{"version":"1.0"}}}])"))),
            (std::vector<std::string>{
                "spec.devices[0].attributes: Invalid value: \"1x\": a valid C identifier must start with alphabetic "
                "character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name', or "
                "'MY_NAME', or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')",
                "spec.devices[0].attributes[a]: Invalid value: {\"IntValue\":1,\"BoolValue\":true,\"StringValue\":null,"
                "\"VersionValue\":null}: exactly one value must be specified",
                "spec.devices[0].attributes[v].version: Invalid value: \"1.0\": must be a string compatible with semver.org spec 2.0.0"}));
  EXPECT_EQ(causes(call("POST", kSlices,
                        slice("s4", "n", R"("devices":[{"name":"d","consumesCounters":[{"counterSet":"c","counters":{"m":{"value":"1"}}}]}],
                              "sharedCounters":[{"name":"c","counters":{"m":{"value":"1"}}}])"))),
            std::vector<std::string>{"spec: Invalid value: \"\": only one of `sharedCounters` or `devices` is allowed"});
  EXPECT_EQ(causes(call("POST", kSlices, slice("s5", "n", R"("devices":[{"name":"d","nodeName":"n"}])"))),
            std::vector<std::string>{"spec.devices[0]: Invalid value: null: `nodeName`, `nodeSelector` and `allNodes` can only "
                                     "be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec"});
  EXPECT_EQ(causes(call("POST", kSlices, slice("s6", "n", R"("devices":[{"name":"d","taints":[{"key":"k","effect":"Bad"}]}])"))),
            std::vector<std::string>{"spec.devices[0].taints[0].effect: Unsupported value: \"Bad\": supported values: "
                                     "\"NoExecute\", \"NoSchedule\", \"None\""});
  // The capacity's key in the path outlives its shortened copy (ASan found the path reading it
  // after it was freed).
  EXPECT_EQ(causes(call("POST", kSlices,
                        slice("s7", "n", R"("devices":[{"name":"d","capacity":{"memory":{"value":"1Gi","requestPolicy":{"default":"1Gi"}},
                              "gpu.ksched.dev/bandwidth":{"value":"1","requestPolicy":{"default":"1"}}}}])"))),
            (std::vector<std::string>{
                "spec.devices[0].capacity[memory].requestPolicy: Forbidden: allowMultipleAllocations must be true",
                "spec.devices[0].capacity[gpu.ksched.dev/bandwidth].requestPolicy: Forbidden: allowMultipleAllocations must be true"}));
  // The pool's name, the driver and the node are immutable; the generation may go anywhere >= 0.
  r = call("PATCH", std::string(kSlices) + "/node-1-gpu", R"({"spec":{"nodeName":"node-9","pool":{"generation":0}}})",
           "application/merge-patch+json");
  EXPECT_EQ(causes(r), std::vector<std::string>{"spec.nodeName: Invalid value: \"node-9\": field is immutable"});
  r = call("PATCH", std::string(kSlices) + "/node-1-gpu", R"({"spec":{"pool":{"generation":0}}})", "application/merge-patch+json");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(parse(r)["metadata"].at("generation"), 2);
}

TEST_F(ResourceApiTest, SliceTaintsDefaultTheirTimeAndUppercaseDriversWarn) {
  auto r = call("POST", kSlices,
                R"({"metadata":{"name":"t"},"spec":{"driver":"GPU.ksched.dev","pool":{"name":"p","resourceSliceCount":1},"nodeName":"n",
                    "devices":[{"name":"d","taints":[{"key":"k","effect":"NoSchedule"}]}]}})");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_TRUE(parse(r)["spec"].at("devices").as_array()[0].at("taints").as_array()[0].as_object().contains("timeAdded"));
  bool warned = false;
  for (const auto& [k, v] : r.headers)
    warned = warned || (k == "Warning" && v.find("driver names should be lowercase; \\\"GPU.ksched.dev\\\" contains uppercase") !=
                                              std::string::npos);
  EXPECT_TRUE(warned);
}

TEST_F(ResourceApiTest, UnknownFieldsAreDroppedOrRefusedAsUpstream) {
  auto r = call("POST", std::string(kClaims) + "?fieldValidation=Strict",
                claim("x", R"({"requests":[{"name":"a","exactly":{"deviceClassName":"c","bogus":1}}]})"));
  ASSERT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(message(r),
            "ResourceClaim in version \"v1\" cannot be handled as a ResourceClaim: strict decoding error: unknown field "
            "\"spec.devices.requests[0].exactly.bogus\"");
  r = call("POST", kClaims, claim("y", R"({"requests":[{"name":"a","exactly":{"deviceClassName":"c","count":"two"}}]})"));
  ASSERT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(message(r),
            "ResourceClaim in version \"v1\" cannot be handled as a ResourceClaim: json: cannot unmarshal string into Go "
            "struct field ExactDeviceRequest.spec.devices.requests.exactly.count of type int64");
}

TEST_F(ResourceApiTest, DeviceTaintRuleInV1beta2) {
  auto r = call("POST", kTaintRules,
                R"({"apiVersion":"resource.k8s.io/v1beta2","kind":"DeviceTaintRule","metadata":{"name":"maint"},
                    "spec":{"deviceSelector":{"driver":"gpu.ksched.dev","pool":"node-1"},"taint":{"key":"maintenance","effect":"NoSchedule"}}})");
  ASSERT_EQ(r.status, 201) << r.body;
  auto o = parse(r);
  EXPECT_EQ(o["apiVersion"], "resource.k8s.io/v1beta2");
  std::string added(o["spec"].at("taint").at("timeAdded").as_string());
  EXPECT_FALSE(added.empty());
  // A changed effect whose time the client left as it was gets the write's time.
  clock_.step(std::chrono::seconds(90));
  r = call("PATCH", std::string(kTaintRules) + "/maint", R"({"spec":{"taint":{"effect":"NoExecute"}}})",
           "application/merge-patch+json");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_NE(parse(r)["spec"].at("taint").at("timeAdded").as_string(), added);
  EXPECT_EQ(parse(r)["metadata"].at("generation"), 2);
  // Status conditions follow metav1's rules.
  r = call("PATCH", std::string(kTaintRules) + "/maint/status",
           R"({"status":{"conditions":[{"type":"EvictionInProgress","status":"Maybe","reason":"x"}]}})",
           "application/merge-patch+json");
  EXPECT_EQ(causes(r),
            (std::vector<std::string>{
                "status.conditions[0].status: Unsupported value: \"Maybe\": supported values: \"False\", \"True\", \"Unknown\"",
                "status.conditions[0].lastTransitionTime: Required value"}));
  EXPECT_EQ(causes(call("POST", kTaintRules,
                        R"({"metadata":{"name":"bad"},"spec":{"taint":{"key":"k"}}})")),
            std::vector<std::string>{"spec.taint.effect: Required value"});
}

TEST_F(ResourceApiTest, DiscoveryServesBothVersions) {
  auto group = parse(call("GET", "/apis/resource.k8s.io"));
  auto versions = group["versions"].as_array();
  ASSERT_EQ(versions.size(), 2u);
  EXPECT_EQ(versions[0].at("version"), "v1");
  EXPECT_EQ(versions[1].at("version"), "v1beta2");
  EXPECT_EQ(group["preferredVersion"].at("version"), "v1");
  auto v1 = parse(call("GET", "/apis/resource.k8s.io/v1"));
  std::vector<std::string> names;
  for (const auto& res : v1["resources"].as_array()) names.emplace_back(res.at("name").as_string());
  EXPECT_EQ(names, (std::vector<std::string>{"deviceclasses", "resourceclaims", "resourceclaims/status",
                                             "resourceclaimtemplates", "resourceslices"}));
  auto beta = parse(call("GET", "/apis/resource.k8s.io/v1beta2"));
  ASSERT_EQ(beta["resources"].as_array().size(), 2u);
  EXPECT_EQ(beta["resources"].as_array()[0].at("kind"), "DeviceTaintRule");
}

TEST_F(ResourceApiTest, PodResourceClaimRules) {
  auto pod = [](std::string_view name, std::string_view claims, std::string_view container_claims = "") {
    return std::string(R"({"metadata":{"name":")") + std::string(name) +
           R"("},"spec":{"containers":[{"name":"c","image":"i")" +
           (container_claims.empty() ? std::string() : R"(,"resources":{"claims":)" + std::string(container_claims) + "}") +
           R"(}],"resourceClaims":)" + std::string(claims) + "}}";
  };
  auto r = call("POST", "/api/v1/namespaces/default/pods",
                pod("ok", R"([{"name":"gpu","resourceClaimTemplateName":"gpu"}])", R"([{"name":"gpu"}])"));
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(parse(r)["spec"].at("resourceClaims").as_array()[0].at("resourceClaimTemplateName"), "gpu");
  EXPECT_EQ(causes(call("POST", "/api/v1/namespaces/default/pods", pod("both", R"([{"name":"gpu","resourceClaimName":"a","resourceClaimTemplateName":"b"}])"))),
            std::vector<std::string>{"spec.resourceClaims[0]: Invalid value: {\"Name\":\"gpu\",\"ResourceClaimName\":\"a\","
                                     "\"ResourceClaimTemplateName\":\"b\"}: at most one of `resourceClaimName` or "
                                     "`resourceClaimTemplateName` may be specified"});
  EXPECT_EQ(causes(call("POST", "/api/v1/namespaces/default/pods", pod("none", R"([{"name":"gpu"}])"))),
            std::vector<std::string>{"spec.resourceClaims[0]: Invalid value: {\"Name\":\"gpu\",\"ResourceClaimName\":null,"
                                     "\"ResourceClaimTemplateName\":null}: must specify one of: `resourceClaimName`, "
                                     "`resourceClaimTemplateName`"});
  EXPECT_EQ(causes(call("POST", "/api/v1/namespaces/default/pods",
                        pod("ref", R"([{"name":"gpu","resourceClaimName":"a"}])", R"([{"name":"nic"}])"))),
            std::vector<std::string>{"spec.containers[0].resources.claims[0]: Not found: \"nic\": must be one of the names "
                                     "in pod.spec.resourceClaims: gpu"});
  // The status names only the pod's claims; the spec's claims may not change.
  r = call("PATCH", "/api/v1/namespaces/default/pods/ok/status",
           R"({"status":{"resourceClaimStatuses":[{"name":"nic","resourceClaimName":"ok-nic-abcde"}]}})",
           "application/merge-patch+json");
  EXPECT_EQ(causes(r), std::vector<std::string>{"status.resourceClaimStatuses[0].name: Invalid value: \"nic\": must match "
                                                "the name of an entry in `spec.resourceClaims`"});
  r = call("PATCH", "/api/v1/namespaces/default/pods/ok/status",
           R"({"status":{"resourceClaimStatuses":[{"name":"gpu","resourceClaimName":"ok-gpu-abcde"}]}})",
           "application/merge-patch+json");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(parse(r)["status"].at("resourceClaimStatuses").as_array()[0].at("resourceClaimName"), "ok-gpu-abcde");
  r = call("PATCH", "/api/v1/namespaces/default/pods/ok", R"({"spec":{"resourceClaims":[{"name":"gpu","resourceClaimName":"x"}]}})",
           "application/merge-patch+json");
  EXPECT_EQ(r.status, 422);
}

}  // namespace
}  // namespace ksched::apiserver
