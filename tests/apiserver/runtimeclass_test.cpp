// node.k8s.io/v1 RuntimeClass: served through Api::handle (create/get/list/table/delete, protobuf
// bodies, discovery, OpenAPI) and validate_runtime_class's upstream field errors.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "api_harness.h"
#include "apiserver/endpoints/handlers.h"
#include "apiserver/endpoints/openapi.h"
#include "apiserver/registry/node/runtimeclass.h"
#include "util/clock.h"

namespace ksched::apiserver {
namespace {

namespace json = boost::json;

constexpr const char* kCollection = "/apis/node.k8s.io/v1/runtimeclasses";
constexpr const char* kTableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

constexpr const char* kGvisor = R"({"apiVersion":"node.k8s.io/v1","kind":"RuntimeClass",
  "metadata":{"name":"gvisor","labels":{"sandbox":"true"}},
  "handler":"runsc",
  "overhead":{"podFixed":{"cpu":"250m","memory":"120Mi"}},
  "scheduling":{"nodeSelector":{"runtime":"gvisor"},
    "tolerations":[{"key":"sandbox","operator":"Equal","value":"gvisor","effect":"NoSchedule"}]}})";

using RuntimeClassApiTest = ApiHarness;

TEST_F(RuntimeClassApiTest, CreateGetListTableDelete) {
  auto created = call("POST", kCollection, kGvisor);
  ASSERT_EQ(created.status, 201) << created.body;
  auto o = parse(created);
  EXPECT_EQ(o["kind"], "RuntimeClass");
  EXPECT_EQ(o["apiVersion"], "node.k8s.io/v1");
  EXPECT_EQ(o["handler"], "runsc");
  EXPECT_EQ(o["overhead"].at("podFixed").at("memory"), "120Mi");
  EXPECT_EQ(o["scheduling"].at("tolerations").as_array()[0].at("value"), "gvisor");
  auto& meta = o["metadata"].as_object();
  EXPECT_FALSE(meta["uid"].as_string().empty());
  EXPECT_FALSE(meta["resourceVersion"].as_string().empty());
  EXPECT_FALSE(meta.contains("namespace"));

  auto dup = call("POST", kCollection, kGvisor);
  EXPECT_EQ(dup.status, 409);
  EXPECT_EQ(message(dup), "runtimeclasses.node.k8s.io \"gvisor\" already exists");

  auto got = call("GET", std::string(kCollection) + "/gvisor");
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(parse(got)["handler"], "runsc");
  EXPECT_EQ(parse(got)["metadata"].at("uid"), meta["uid"]);

  ASSERT_EQ(call("POST", kCollection, R"({"metadata":{"name":"kata"},"handler":"kata-fc"})").status, 201);
  auto list = parse(call("GET", kCollection));
  EXPECT_EQ(list["kind"], "RuntimeClassList");
  EXPECT_EQ(list["apiVersion"], "node.k8s.io/v1");
  ASSERT_EQ(list["items"].as_array().size(), 2u);
  EXPECT_EQ(list["items"].as_array()[0].at("metadata").at("name"), "gvisor");
  EXPECT_EQ(list["items"].as_array()[1].at("handler"), "kata-fc");

  // kubectl get runtimeclass: NAME, HANDLER, AGE as upstream's printer.
  auto table = parse(call("GET", kCollection, "", "", kTableAccept));
  EXPECT_EQ(table["kind"], "Table");
  auto cols = table["columnDefinitions"].as_array();
  ASSERT_EQ(cols.size(), 3u);
  EXPECT_EQ(cols[0].at("name"), "Name");
  EXPECT_EQ(cols[0].at("format"), "name");
  EXPECT_EQ(cols[1].at("name"), "Handler");
  EXPECT_EQ(cols[1].at("type"), "string");
  EXPECT_EQ(cols[2].at("name"), "Age");
  auto rows = table["rows"].as_array();
  ASSERT_EQ(rows.size(), 2u);
  auto cells = rows[0].at("cells").as_array();
  ASSERT_EQ(cells.size(), 3u);
  EXPECT_EQ(cells[0], "gvisor");
  EXPECT_EQ(cells[1], "runsc");
  EXPECT_TRUE(cells[2].is_string());
  EXPECT_NE(cells[2].as_string(), "<unknown>");
  EXPECT_EQ(rows[1].at("cells").as_array()[1], "kata-fc");

  auto del = call("DELETE", std::string(kCollection) + "/gvisor");
  ASSERT_EQ(del.status, 200) << del.body;
  auto gone = call("GET", std::string(kCollection) + "/gvisor");
  EXPECT_EQ(gone.status, 404);
  EXPECT_EQ(message(gone), "runtimeclasses.node.k8s.io \"gvisor\" not found");
  EXPECT_EQ(parse(call("GET", kCollection))["items"].as_array().size(), 1u);
}

TEST_F(RuntimeClassApiTest, ClusterScopedAndNamedAsUpstream) {
  // No namespaced path for a cluster-scoped resource.
  EXPECT_EQ(call("POST", "/apis/node.k8s.io/v1/namespaces/default/runtimeclasses", kGvisor).status, 404);
  // Object names are DNS-1123 subdomains; the Invalid message names the kind with its group.
  auto bad = call("POST", kCollection, R"({"metadata":{"name":"Bad_Name"},"handler":"runc"})");
  EXPECT_EQ(bad.status, 422);
  EXPECT_EQ(message(bad).rfind("RuntimeClass.node.k8s.io \"Bad_Name\" is invalid: metadata.name: Invalid value: "
                               "\"Bad_Name\": a lowercase RFC 1123 subdomain",
                               0),
            0u)
      << message(bad);
}

TEST_F(RuntimeClassApiTest, Discovery) {
  auto groups = parse(call("GET", "/apis"));
  bool group = false;
  for (const auto& g : groups["groups"].as_array())
    if (g.at("name") == "node.k8s.io") {
      group = true;
      EXPECT_EQ(g.at("preferredVersion").at("groupVersion"), "node.k8s.io/v1");
    }
  EXPECT_TRUE(group);

  auto list = call("GET", "/apis/node.k8s.io/v1");
  ASSERT_EQ(list.status, 200) << list.body;
  auto resources = parse(list)["resources"].as_array();
  ASSERT_EQ(resources.size(), 1u);  // no subresources
  const auto& r = resources[0].as_object();
  EXPECT_EQ(r.at("name"), "runtimeclasses");
  EXPECT_EQ(r.at("singularName"), "runtimeclass");
  EXPECT_EQ(r.at("kind"), "RuntimeClass");
  EXPECT_EQ(r.at("namespaced"), false);
  EXPECT_TRUE(!r.contains("shortNames") || r.at("shortNames").as_array().empty());
  std::vector<std::string> verbs;
  for (const auto& v : r.at("verbs").as_array()) verbs.emplace_back(v.as_string());
  EXPECT_EQ(verbs, (std::vector<std::string>{"create", "delete", "deletecollection", "get", "list", "patch", "update",
                                             "watch"}));
}

TEST_F(RuntimeClassApiTest, OpenApiDescribesTheKind) {
  const std::string& doc = openapi::v3_document("apis/node.k8s.io/v1");
  ASSERT_FALSE(doc.empty());
  auto d = json::parse(doc).as_object();
  EXPECT_TRUE(d["paths"].as_object().contains("/apis/node.k8s.io/v1/runtimeclasses/{name}"));
  auto& schemas = d["components"].as_object()["schemas"].as_object();
  ASSERT_TRUE(schemas.contains("io.k8s.api.node.v1.RuntimeClass"));
  auto& rc = schemas["io.k8s.api.node.v1.RuntimeClass"].as_object();
  EXPECT_EQ(rc["x-kubernetes-group-version-kind"].as_array()[0],
            json::parse(R"({"group":"node.k8s.io","kind":"RuntimeClass","version":"v1"})"));
  auto& props = rc["properties"].as_object();
  EXPECT_EQ(props["handler"].at("type"), "string");
  EXPECT_EQ(props["overhead"].at("$ref"), "#/components/schemas/io.k8s.api.node.v1.Overhead");
  EXPECT_EQ(props["scheduling"].at("$ref"), "#/components/schemas/io.k8s.api.node.v1.Scheduling");
  auto& sched = schemas["io.k8s.api.node.v1.Scheduling"].as_object()["properties"].as_object();
  EXPECT_EQ(sched["tolerations"].at("items").at("$ref"), "#/components/schemas/io.k8s.api.core.v1.Toleration");
  EXPECT_EQ(sched["nodeSelector"].at("additionalProperties").at("type"), "string");
  auto& overhead = schemas["io.k8s.api.node.v1.Overhead"].as_object()["properties"].as_object();
  EXPECT_EQ(overhead["podFixed"].at("additionalProperties").at("$ref"),
            "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity");
}

// ---- protobuf request bodies (client-go typed clients with the protobuf content type) ----

std::string varint(std::uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
  return out;
}
std::string lfield(std::uint32_t field, std::string_view payload) {
  std::string out = varint((static_cast<std::uint64_t>(field) << 3) | 2);
  out.append(varint(payload.size())).append(payload);
  return out;
}

TEST_F(RuntimeClassApiTest, ProtobufCreate) {
  std::string type_meta = lfield(1, "node.k8s.io/v1") + lfield(2, "RuntimeClass");
  std::string quantity = lfield(1, "cpu") + lfield(2, lfield(1, "100m"));
  std::string raw = lfield(1, lfield(1, "youki")) + lfield(2, "youki") + lfield(3, lfield(1, quantity)) +
                    lfield(4, lfield(1, lfield(1, "runtime") + lfield(2, "youki")));
  std::string body = std::string("k8s\0", 4) + lfield(1, type_meta) + lfield(2, raw) + lfield(3, "") + lfield(4, "");
  auto r = call("POST", kCollection, body, "application/vnd.kubernetes.protobuf");
  ASSERT_EQ(r.status, 201) << r.body;
  auto got = parse(call("GET", std::string(kCollection) + "/youki"));
  EXPECT_EQ(got["handler"], "youki");
  EXPECT_EQ(got["overhead"].at("podFixed").at("cpu"), "100m");
  EXPECT_EQ(got["scheduling"].at("nodeSelector").at("runtime"), "youki");
}

// Protobuf bodies go through the same write pipeline: canonical quantities on create and on a
// protobuf PUT, and the handler stays immutable.
TEST_F(RuntimeClassApiTest, ProtobufWritesAreCanonicalisedAndValidated) {
  auto body = [](const std::string& handler, const std::string& cpu, const std::string& rv) {
    std::string type_meta = lfield(1, "node.k8s.io/v1") + lfield(2, "RuntimeClass");
    std::string meta = lfield(1, "pb");
    if (!rv.empty()) meta += lfield(6, rv);  // ObjectMeta.resourceVersion
    std::string quantity = lfield(1, "cpu") + lfield(2, lfield(1, cpu));
    std::string raw = lfield(1, meta) + lfield(2, handler) + lfield(3, lfield(1, quantity));
    return std::string("k8s\0", 4) + lfield(1, type_meta) + lfield(2, raw) + lfield(3, "") + lfield(4, "");
  };
  const std::string pb = "application/vnd.kubernetes.protobuf";
  auto created = call("POST", kCollection, body("runc", "0.25", ""), pb);
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(parse(created)["overhead"].at("podFixed").at("cpu"), "250m");
  std::string rv(parse(created)["metadata"].at("resourceVersion").as_string());
  auto put = call("PUT", std::string(kCollection) + "/pb", body("runc", "1.5", rv), pb);
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_EQ(parse(call("GET", std::string(kCollection) + "/pb"))["overhead"].at("podFixed").at("cpu"), "1500m");
  auto bad = call("PUT", std::string(kCollection) + "/pb", body("crun", "1", ""), pb);
  EXPECT_EQ(bad.status, 422) << bad.body;
  EXPECT_NE(message(bad).find("handler: Invalid value: \"crun\": field is immutable"), std::string::npos) << bad.body;
  auto junk = call("POST", kCollection, body("runc", "lots", ""), pb);
  EXPECT_EQ(junk.status, 400) << junk.body;
}

// ---- validate_runtime_class ---------------------------------------------------------------

std::vector<Cause> validate(std::string_view js) { return validate_runtime_class(json::parse(js).as_object()); }

std::string render(const std::vector<Cause>& cs) {
  std::string s;
  for (const auto& c : cs) s.append(c.field).append(" [").append(c.reason).append("] ").append(c.message).append("\n");
  return s;
}

const std::string kLabelMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
    "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

TEST(ValidateRuntimeClass, ValidObjectsHaveNoCauses) {
  EXPECT_TRUE(validate(kGvisor).empty()) << render(validate(kGvisor));
  EXPECT_TRUE(validate(R"({"metadata":{"name":"a"},"handler":"bar-baz"})").empty());
  EXPECT_TRUE(validate(R"({"handler":"runc","overhead":{"podFixed":{"cpu":"10","memory":"10G"}},"scheduling":{}})")
                  .empty());
  EXPECT_TRUE(validate(R"({"handler":"runc","overhead":null,"scheduling":{"nodeSelector":{"a.io/b":""},"tolerations":[
      {"operator":"Exists"},{"key":"k","operator":"Exists","effect":"NoExecute","tolerationSeconds":30},
      {"key":"example.com/k","value":"v"},{"key":"k","operator":"Equal","value":"v","effect":"PreferNoSchedule"},
      {"key":"example.com/k","value":"v","effect":"NoSchedule"}]}})")
                  .empty());
  EXPECT_TRUE(
      validate(R"({"handler":"runc","overhead":{"podFixed":{"cpu":"1","hugepages-2Mi":"4Mi","example.com/gpu":"2"}}})")
          .empty());
}

TEST(ValidateRuntimeClass, HandlerIsARequiredDns1123Label) {
  auto missing = validate(R"({"metadata":{"name":"empty"}})");
  ASSERT_EQ(missing.size(), 1u) << render(missing);
  EXPECT_EQ(missing[0].field, "handler");
  EXPECT_EQ(missing[0].reason, "FieldValueInvalid");
  EXPECT_EQ(missing[0].message, "Invalid value: \"\": " + kLabelMsg);

  auto bad = validate(R"({"handler":"&@#$"})");
  ASSERT_EQ(bad.size(), 1u) << render(bad);
  EXPECT_EQ(bad[0].message, "Invalid value: \"&@#$\": " + kLabelMsg);
  EXPECT_EQ(validate(R"({"handler":"Runc"})").size(), 1u);
  EXPECT_EQ(validate(R"({"handler":"run.c"})").size(), 1u);
  EXPECT_EQ(validate(R"({"handler":"-runc"})").size(), 1u);

  // The length and the pattern are separate messages.
  std::string long_ok(64, 'a');
  auto too_long = validate(R"({"handler":")" + long_ok + "\"}");
  ASSERT_EQ(too_long.size(), 1u) << render(too_long);
  EXPECT_EQ(too_long[0].message, "Invalid value: \"" + long_ok + "\": must be no more than 63 characters");
  std::string long_bad = long_ok + "_";
  auto both = validate(R"({"handler":")" + long_bad + "\"}");
  ASSERT_EQ(both.size(), 2u) << render(both);
  EXPECT_EQ(both[1].message, "Invalid value: \"" + long_bad + "\": " + kLabelMsg);
  EXPECT_TRUE(validate(R"({"handler":")" + std::string(63, 'a') + "\"}").empty());

  auto number = validate(R"({"handler":5})");
  ASSERT_EQ(number.size(), 1u);
  EXPECT_EQ(number[0].field, "handler");
}

TEST(ValidateRuntimeClass, OverheadIsCheckedAsContainerLimits) {
  auto cs = validate(R"({"handler":"runc","overhead":{"podFixed":{
      "cpu":"-1","foo":"1","example.com/gpu":"500m","hugepages-2Mi":"3Mi"}}})");
  ASSERT_EQ(cs.size(), 5u) << render(cs);
  EXPECT_EQ(cs[0].field, "overhead.limits[cpu]");
  EXPECT_EQ(cs[0].message, "Invalid value: \"-1\": must be greater than or equal to 0");
  EXPECT_EQ(cs[1].field, "overhead.limits[foo]");
  EXPECT_EQ(cs[1].message, "Invalid value: \"foo\": must be a standard resource type or fully qualified");
  EXPECT_EQ(cs[2].field, "overhead.limits[foo]");
  EXPECT_EQ(cs[2].message, "Invalid value: \"foo\": must be a standard resource for containers");
  EXPECT_EQ(cs[3].field, "overhead.limits[example.com/gpu]");
  EXPECT_EQ(cs[3].message, "Invalid value: \"500m\": must be an integer");
  EXPECT_EQ(cs[4].field, "overhead.limits[hugepages-2Mi]");
  EXPECT_EQ(cs[4].message, "Invalid value: \"3Mi\": 3Mi is not positive integer multiple of hugepages-2Mi");

  // upstream's own error case: a name that is neither standard nor prefixed.
  EXPECT_FALSE(validate(R"({"handler":"bar","overhead":{"podFixed":{"my.org":"10m"}}})").empty());
  auto pods = validate(R"({"handler":"bar","overhead":{"podFixed":{"pods":"1"}}})");
  ASSERT_EQ(pods.size(), 1u) << render(pods);
  EXPECT_EQ(pods[0].message, "Invalid value: \"pods\": must be a standard resource for containers");

  auto huge_only = validate(R"({"handler":"runc","overhead":{"podFixed":{"hugepages-1Gi":"2Gi"}}})");
  ASSERT_EQ(huge_only.size(), 1u) << render(huge_only);
  EXPECT_EQ(huge_only[0].field, "overhead");
  EXPECT_EQ(huge_only[0].reason, "FieldValueForbidden");
  EXPECT_EQ(huge_only[0].message, "Forbidden: HugePages require cpu or memory");

  auto garbage = validate(R"({"handler":"runc","overhead":{"podFixed":{"cpu":"lots"}}})");
  ASSERT_EQ(garbage.size(), 1u);
  EXPECT_EQ(garbage[0].field, "overhead.limits[cpu]");
}

TEST(ValidateRuntimeClass, NodeSelectorKeysAndValuesAreLabels) {
  auto key = validate(R"({"handler":"bar","scheduling":{"nodeSelector":{"not a valid key!!!":"nope"}}})");
  ASSERT_EQ(key.size(), 1u) << render(key);
  EXPECT_EQ(key[0].field, "scheduling.nodeSelector");
  EXPECT_EQ(key[0].message,
            "Invalid value: \"not a valid key!!!\": name part must consist of alphanumeric characters, '-', '_' or "
            "'.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
            "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");

  auto prefix = validate(R"({"handler":"bar","scheduling":{"nodeSelector":{"Example.com/a":"x","/b":"y","a/b/c":"z"}}})");
  ASSERT_EQ(prefix.size(), 3u) << render(prefix);
  EXPECT_EQ(prefix[0].message.rfind("Invalid value: \"Example.com/a\": prefix part a lowercase RFC 1123 subdomain", 0),
            0u);
  EXPECT_EQ(prefix[1].message, "Invalid value: \"/b\": prefix part must be non-empty");
  EXPECT_EQ(prefix[2].message.rfind("Invalid value: \"a/b/c\": a qualified name must consist of", 0), 0u);
  EXPECT_NE(prefix[2].message.find("with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"),
            std::string::npos);

  std::string long_value(64, 'v');
  auto value = validate(R"({"handler":"bar","scheduling":{"nodeSelector":{"a":")" + long_value + R"(","b":"-x"}}})");
  ASSERT_EQ(value.size(), 2u) << render(value);
  EXPECT_EQ(value[0].message, "Invalid value: \"" + long_value + "\": must be no more than 63 characters");
  EXPECT_EQ(value[1].message.rfind("Invalid value: \"-x\": a valid label must be an empty string or consist of", 0), 0u);
}

TEST(ValidateRuntimeClass, TolerationsAsUpstream) {
  // upstream's test: one bad key among valid tolerations is one error.
  auto one = validate(R"({"handler":"bar","scheduling":{"tolerations":[
      {"key":"valid","operator":"Exists","effect":"NoSchedule"},
      {"key":"not a valid key!!!","operator":"Exists","effect":"NoSchedule"}]}})");
  ASSERT_EQ(one.size(), 1u) << render(one);
  EXPECT_EQ(one[0].field, "scheduling.tolerations[1].key");
  // ... and with a bad nodeSelector key as well, two.
  EXPECT_EQ(validate(R"({"handler":"bar","scheduling":{"nodeSelector":{"not a valid key!!!":"nope"},"tolerations":[
      {"key":"valid","operator":"Exists","effect":"NoSchedule"},
      {"key":"not a valid toleration key!!!","operator":"Exists","effect":"NoSchedule"}]}})")
                .size(),
            2u);

  auto cs = validate(R"({"handler":"bar","scheduling":{"tolerations":[
      {"operator":"Equal","value":"v"},
      {"key":"k","operator":"Exists","value":"v"},
      {"key":"k","operator":"In"},
      {"key":"k","effect":"NoSchedule","tolerationSeconds":5},
      {"key":"k","value":"bad value","effect":"Sometimes"}]}})");
  ASSERT_EQ(cs.size(), 6u) << render(cs);
  EXPECT_EQ(cs[0].field, "scheduling.tolerations[0].operator");
  EXPECT_EQ(cs[0].message,
            "Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values "
            "and all keys\"");
  EXPECT_EQ(cs[1].field, "scheduling.tolerations[1].operator");
  EXPECT_EQ(cs[1].message,
            "Invalid value: core.Toleration{Key:\"k\", Operator:\"Exists\", Value:\"v\", Effect:\"\", "
            "TolerationSeconds:(*int64)(nil)}: value must be empty when `operator` is 'Exists'");
  EXPECT_EQ(cs[2].field, "scheduling.tolerations[2].operator");
  EXPECT_EQ(cs[2].reason, "FieldValueNotSupported");
  EXPECT_EQ(cs[2].message, "Unsupported value: \"In\": supported values: \"Equal\", \"Exists\"");
  EXPECT_EQ(cs[3].field, "scheduling.tolerations[3].effect");
  EXPECT_EQ(cs[3].message, "Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set");
  EXPECT_EQ(cs[4].field, "scheduling.tolerations[4].operator");
  EXPECT_EQ(cs[4].message.rfind("Invalid value: \"bad value\": a valid label must be an empty string", 0), 0u);
  EXPECT_EQ(cs[5].field, "scheduling.tolerations[4].effect");
  EXPECT_EQ(cs[5].message,
            "Unsupported value: \"Sometimes\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"");

  // The same key, operator, value and effect twice (tolerationSeconds aside) is a duplicate.
  auto dup = validate(R"({"handler":"bar","scheduling":{"tolerations":[
      {"key":"k","operator":"Exists","effect":"NoExecute","tolerationSeconds":1},
      {"key":"k","operator":"Exists","effect":"NoExecute","tolerationSeconds":2},
      {"key":"k","operator":"Exists","effect":"NoSchedule"}]}})");
  ASSERT_EQ(dup.size(), 1u) << render(dup);
  EXPECT_EQ(dup[0].field, "scheduling.tolerations[1]");
  EXPECT_EQ(dup[0].reason, "FieldValueDuplicate");
  EXPECT_EQ(dup[0].message.rfind("Duplicate value: core.Toleration{Key:\"k\", Operator:\"Exists\"", 0), 0u)
      << dup[0].message;
}

TEST(ValidateRuntimeClass, UpdateKeepsTheHandler) {
  auto old = json::parse(R"({"metadata":{"name":"a"},"handler":"runc"})").as_object();
  auto same = json::parse(R"({"metadata":{"name":"a","labels":{"x":"y"}},"handler":"runc"})").as_object();
  EXPECT_TRUE(validate_runtime_class_update(same, old).empty());
  auto changed = json::parse(R"({"metadata":{"name":"a"},"handler":"crun"})").as_object();
  auto cs = validate_runtime_class_update(changed, old);
  ASSERT_EQ(cs.size(), 1u) << render(cs);
  EXPECT_EQ(cs[0].field, "handler");
  EXPECT_EQ(cs[0].message, "Invalid value: \"crun\": field is immutable");
}

}  // namespace
}  // namespace ksched::apiserver
