// The API server stores only objects upstream's would (issue #38): every field's JSON type on every
// write path, the same validation on create and update, quantities as upstream parses them, the
// body's apiVersion/kind, fieldValidation (unknown and duplicate fields), and object size limits.
// Each test is named after the write it stops.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "api_harness.h"
#include "apiserver/endpoints/openapi.h"

namespace ksched::apiserver {
namespace {

namespace json = boost::json;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string kPodPrefix = "Pod in version \"v1\" cannot be handled as a Pod: ";

class ValidationTest : public ApiHarness {
 protected:
  static json::object base_pod(const std::string& name) {
    return json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                       R"("},"spec":{"containers":[{"name":"c","image":"nginx"}]}})")
        .as_object();
  }
  Response post(const std::string& path, const json::object& o, const std::string& query = "") {
    return call("POST", path + query, json::serialize(o));
  }
  Response post_pod(const json::object& o, const std::string& query = "") {
    return post("/api/v1/namespaces/default/pods", o, query);
  }
  Response pod_with(const std::string& name,
                    const std::function<void(json::object& spec, json::object& c)>& edit) {
    json::object p = base_pod(name);
    auto& spec = p["spec"].as_object();
    edit(spec, spec["containers"].as_array()[0].as_object());
    return post_pod(p);
  }
  std::size_t pod_count() {
    return parse(call("GET", "/api/v1/namespaces/default/pods"))["items"].as_array().size();
  }
  std::vector<std::string> warnings(const Response& r) {
    std::vector<std::string> out;
    for (const auto& [k, v] : r.headers)
      if (k == "Warning") out.push_back(v);
    return out;
  }
  // The causes of a 422 as "field: message" lines.
  static std::vector<std::string> causes(const Response& r) {
    std::vector<std::string> out;
    auto o = parse(r);
    if (auto* d = o.if_contains("details"); d && d->as_object().contains("causes"))
      for (const auto& c : d->as_object().at("causes").as_array())
        out.push_back(std::string(c.as_object().at("field").as_string()) + ": " +
                      std::string(c.as_object().at("message").as_string()));
    return out;
  }
};

// ------------------------------------------------------------------ field types

TEST_F(ValidationTest, WrongTypeForRunAsUserRefusedAndNothingStored) {
  auto r = pod_with("p", [](json::object& spec, json::object&) {
    spec["securityContext"] = json::object{{"runAsUser", "str"}};
  });
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(reason(r), "BadRequest");
  EXPECT_EQ(message(r), kPodPrefix +
                            "json: cannot unmarshal string into Go struct field "
                            "PodSecurityContext.spec.securityContext.runAsUser of type int64");
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/pods/p").status, 404);
}

TEST_F(ValidationTest, WrongTypesOfUnmodelledPodFieldsRefusedWithUpstreamsMessages) {
  struct Case {
    std::function<void(json::object&, json::object&)> edit;
    std::string message;
  };
  const Case cases[] = {
      {[](json::object& s, json::object&) { s["enableServiceLinks"] = "str"; },
       "json: cannot unmarshal string into Go struct field PodSpec.spec.enableServiceLinks of type bool"},
      {[](json::object& s, json::object&) { s["readinessGates"] = "str"; },
       "json: cannot unmarshal string into Go struct field PodSpec.spec.readinessGates of type "
       "[]v1.PodReadinessGate"},
      // A volume's sources are promoted from the embedded VolumeSource, which encoding/json names.
      {[](json::object& s, json::object&) {
         s["volumes"] = json::array{json::object{{"name", "v"}, {"emptyDir", "str"}}};
       },
       "json: cannot unmarshal string into Go struct field Volume.spec.volumes.VolumeSource.emptyDir of type "
       "v1.EmptyDirVolumeSource"},
      // IntOrString decodes a non-string as an int32 itself.
      {[](json::object&, json::object& c) {
         c["livenessProbe"] = json::object{{"httpGet", json::object{{"port", true}}}};
       },
       "json: cannot unmarshal bool into Go struct field "
       "HTTPGetAction.spec.containers.livenessProbe.ProbeHandler.httpGet.port "
       "of type int32"},
      {[](json::object& s, json::object&) { s["restartPolicy"] = 5; },
       "json: cannot unmarshal number into Go struct field PodSpec.spec.restartPolicy of type "
       "v1.RestartPolicy"},
      {[](json::object&, json::object& c) {
         c["ports"] = json::array{json::object{{"containerPort", 1.5}}};
       },
       "json: cannot unmarshal number 1.5 into Go struct field "
       "ContainerPort.spec.containers.ports.containerPort of type "
       "int32"},
      {[](json::object&, json::object& c) {
         c["resources"] = json::object{{"requests", "str"}};
       },
       "json: cannot unmarshal string into Go struct field "
       "ResourceRequirements.spec.containers.resources.requests of "
       "type v1.ResourceList"},
      {[](json::object&, json::object& c) {
         c["securityContext"] = json::object{{"capabilities", json::object{{"add", json::array{1}}}}};
       },
       "json: cannot unmarshal number into Go struct field "
       "Capabilities.spec.containers.securityContext.capabilities.add of "
       "type v1.Capability"},
  };
  int i = 0;
  for (const auto& c : cases) {
    auto r = pod_with("p" + std::to_string(i++), c.edit);
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_EQ(message(r), kPodPrefix + c.message);
  }
  EXPECT_EQ(pod_count(), 0u);
}

// Every field of upstream's Pod, walked from the schema the server serves, set to each JSON type
// its Go type refuses: each write is a 400 and nothing is stored.
class FieldMutations {
 public:
  struct Mutation {
    std::vector<std::string> path;  // keys; "[0]" is the first element of an array
    json::value value;
  };

  explicit FieldMutations(const json::object& defs) : defs_(defs) {}

  std::vector<Mutation> of(std::string_view def) {
    std::vector<std::string> path, seen{std::string(def)};
    walk_object(defs_.at(def).as_object(), path, seen);
    return std::move(out_);
  }

 private:
  static std::string_view ref_name(const json::object& s) {
    if (auto* r = s.if_contains("$ref")) {
      std::string_view v = r->as_string();
      return v.substr(v.rfind('/') + 1);
    }
    return {};
  }

  void add(const std::vector<std::string>& path, std::initializer_list<json::value> values) {
    for (const auto& v : values) out_.push_back(Mutation{path, v});
  }

  void walk_object(const json::object& schema, std::vector<std::string>& path,
                   std::vector<std::string>& seen) {
    auto* props = schema.if_contains("properties");
    if (!props) return;
    for (const auto& kv : props->as_object()) {
      path.emplace_back(kv.key());
      walk_field(kv.value().as_object(), path, seen);
      path.pop_back();
    }
  }

  void walk_field(const json::object& s, std::vector<std::string>& path, std::vector<std::string>& seen) {
    std::string_view ref = ref_name(s);
    if (!ref.empty()) {
      if (ref.ends_with(".Quantity")) return add(path, {true, json::object(), json::array(), "abc"});
      if (ref.ends_with(".IntOrString")) return add(path, {true, 1.5, json::object(), json::array()});
      if (ref.ends_with(".Time") || ref.ends_with(".MicroTime"))
        return add(path, {5, true, json::object(), json::array(), "yesterday"});
      const json::object& target = defs_.at(ref).as_object();
      if (!target.contains("properties")) return;  // opaque
      add(path, {"str", 5, true, json::array()});
      if (std::find(seen.begin(), seen.end(), ref) != seen.end() || path.size() > 14) return;
      seen.emplace_back(ref);
      walk_object(target, path, seen);
      seen.pop_back();
      return;
    }
    std::string_view type =
        s.contains("type") ? std::string_view(s.at("type").as_string()) : std::string_view();
    if (type == "string") {
      if (s.contains("format") && s.at("format").as_string() == "int-or-string")
        return add(path, {true, 1.5});
      return add(path, {5, true, json::object(), json::array()});
    }
    if (type == "integer") return add(path, {"str", true, 1.5, json::object(), json::array()});
    if (type == "boolean") return add(path, {"str", 5, json::object(), json::array()});
    if (type == "number") return add(path, {"str", true, json::object(), json::array()});
    if (type == "array") {
      add(path, {"str", 5, true, json::object()});
      path.emplace_back("[0]");
      walk_field(s.at("items").as_object(), path, seen);
      path.pop_back();
      return;
    }
    if (type == "object" && s.contains("additionalProperties")) {
      add(path, {"str", 5, true, json::array()});
      path.emplace_back("k");
      walk_field(s.at("additionalProperties").as_object(), path, seen);
      path.pop_back();
    }
  }

  const json::object& defs_;
  std::vector<Mutation> out_;
};

// Sets `v` at `path` in `o`, creating what is missing ("[0]": the array's first element).
void set_path(json::value& o, const std::vector<std::string>& path, std::size_t i, const json::value& v) {
  if (i == path.size()) {
    o = v;
    return;
  }
  if (path[i] == "[0]") {
    if (!o.is_array() || o.as_array().empty()) o = json::array{json::object()};
    set_path(o.as_array()[0], path, i + 1, v);
    return;
  }
  if (!o.is_object()) o = json::object();
  set_path(o.as_object()[path[i]], path, i + 1, v);
}

TEST_F(ValidationTest, EveryPodFieldOfAWrongJsonTypeIsRefusedAndNothingStored) {
  const auto& defs = openapi::definitions(openapi::Flavor::V2);
  auto mutations = FieldMutations(defs).of(openapi::kind_definition("", "Pod"));
  // Upstream's Pod has some 600 fields under it (spec, status, metadata).
  ASSERT_GT(mutations.size(), 2500u);
  std::set<std::string> fields;
  int n = 0;
  for (const auto& m : mutations) {
    json::value pod = base_pod("m" + std::to_string(n++));
    set_path(pod, m.path, 0, m.value);
    std::string where;
    for (const auto& p : m.path) where += (where.empty() || p == "[0]" ? "" : ".") + p;
    fields.insert(where);
    auto r = post_pod(pod.as_object());
    ASSERT_EQ(r.status, 400) << where << " = " << json::serialize(m.value) << ": " << r.body;
    std::string msg = message(r);
    EXPECT_TRUE(msg.starts_with(kPodPrefix) || msg.starts_with("the object provided is unrecognized"))
        << where << ": " << msg;
  }
  EXPECT_GT(fields.size(), 600u);
  EXPECT_EQ(pod_count(), 0u);
}

TEST_F(ValidationTest, WrongTypesRefusedOnUpdatePatchAndStatusWritesToo) {
  ASSERT_EQ(post_pod(base_pod("p")).status, 201);
  auto stored = call("GET", "/api/v1/namespaces/default/pods/p").body;
  auto pod = parse(call("GET", "/api/v1/namespaces/default/pods/p"));
  // PUT with a wrong type.
  json::object put = pod;
  put["spec"].as_object()["enableServiceLinks"] = "str";
  auto r = call("PUT", "/api/v1/namespaces/default/pods/p", json::serialize(put));
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(
      message(r),
      kPodPrefix +
          "json: cannot unmarshal string into Go struct field PodSpec.spec.enableServiceLinks of type bool");
  // A status write: its whole body is decoded, as upstream decodes it.
  json::object status = pod;
  status["status"].as_object()["hostIPs"] = "str";
  r = call("PUT", "/api/v1/namespaces/default/pods/p/status", json::serialize(status));
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_THAT(message(r), HasSubstr("Go struct field PodStatus.status.hostIPs of type []v1.HostIP"));
  // Patches: the patched object cannot be decoded, upstream's patcher answers 422 on "patch".
  for (const char* type : {"application/merge-patch+json", "application/strategic-merge-patch+json"}) {
    r = call("PATCH", "/api/v1/namespaces/default/pods/p",
             R"({"spec":{"securityContext":{"runAsUser":"root"}}})", type);
    EXPECT_EQ(r.status, 422) << type << r.body;
    EXPECT_THAT(message(r), StartsWith(" \"\" is invalid: patch: Invalid value: \"{"));
    EXPECT_THAT(message(r), HasSubstr("json: cannot unmarshal string into Go struct field "
                                      "PodSecurityContext.spec.securityContext.runAsUser of type int64"));
  }
  r = call("PATCH", "/api/v1/namespaces/default/pods/p/status",
           R"([{"op":"add","path":"/status/podIPs","value":7}])", "application/json-patch+json");
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/pods/p").body, stored);
}

// ------------------------------------------------------------------ quantities

TEST_F(ValidationTest, NegativeCpuRequestRefused) {
  auto r = pod_with("p", [](json::object&, json::object& c) {
    c["resources"] = json::object{{"requests", json::object{{"cpu", "-1000"}}}};
  });
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(message(r),
            "Pod \"p\" is invalid: spec.containers[0].resources.requests[cpu]: Invalid value: \"-1k\": "
            "must be greater than or equal to 0");
}

TEST_F(ValidationTest, NegativeMemoryLimitAndOverheadRefused) {
  auto r = pod_with("p", [](json::object&, json::object& c) {
    c["resources"] = json::object{{"limits", json::object{{"memory", "-1Gi"}}}};
  });
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_THAT(
      causes(r),
      ::testing::ElementsAre(
          "spec.containers[0].resources.limits[memory]: Invalid value: \"-1Gi\": must be greater than "
          "or equal to 0",
          "spec.containers[0].resources.requests[memory]: Invalid value: \"-1Gi\": must be greater "
          "than or equal to 0"));
  // A pod's overhead comes from its RuntimeClass (admission refuses any other), whose podFixed must
  // not be negative; a pod template's overhead is validated as the pod's would be.
  r = call("POST", "/apis/node.k8s.io/v1/runtimeclasses",
           R"({"metadata":{"name":"rc"},"handler":"h","overhead":{"podFixed":{"cpu":"-1"}}})");
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_THAT(message(r),
              HasSubstr("overhead.limits[cpu]: Invalid value: \"-1\": must be greater than or equal to 0"));
  r = call(
      "POST", "/api/v1/namespaces/default/podtemplates",
      R"({"metadata":{"name":"t"},"template":{"spec":{"overhead":{"cpu":"-1"},"containers":[{"name":"c","image":"x"}]}}})");
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(message(r),
            "PodTemplate \"t\" is invalid: template.spec.overhead.limits[cpu]: Invalid value: \"-1\": must "
            "be greater than or equal to 0");
}

TEST_F(ValidationTest, NegativeNodeCapacityAndAllocatableRefused) {
  auto r = call(
      "POST", "/api/v1/nodes",
      R"({"metadata":{"name":"n"},"status":{"capacity":{"cpu":"-32"},"allocatable":{"memory":"-1Gi"}}})");
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_THAT(causes(r),
              ::testing::ElementsAre(
                  "status.capacity.cpu: Invalid value: \"-32\": must be greater than or equal to 0",
                  "status.allocatable.memory: Invalid value: \"-1Gi\": must be greater than or equal to 0"));
  // And through the status subresource of a valid node.
  ASSERT_EQ(call("POST", "/api/v1/nodes", R"({"metadata":{"name":"ok"},"status":{"capacity":{"cpu":"32"}}})")
                .status,
            201);
  r = call("PATCH", "/api/v1/nodes/ok/status", R"({"status":{"allocatable":{"cpu":"-1"}}})",
           "application/merge-patch+json");
  EXPECT_EQ(r.status, 422) << r.body;
}

TEST_F(ValidationTest, NegativeQuotaAndNonPositiveClaimRefused) {
  auto r = call("POST", "/api/v1/namespaces/default/resourcequotas",
                R"({"metadata":{"name":"q"},"spec":{"hard":{"requests.cpu":"-1","pods":"1500m"}}})");
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_THAT(causes(r),
              ::testing::UnorderedElementsAre(
                  "spec.hard[requests.cpu]: Invalid value: \"-1\": must be greater than or equal to 0",
                  "spec.hard[pods]: Invalid value: \"1500m\": must be an integer"));
  r = call(
      "POST", "/api/v1/namespaces/default/persistentvolumeclaims",
      R"({"metadata":{"name":"c"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"-1Gi"}}}})");
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(message(r),
            "PersistentVolumeClaim \"c\" is invalid: spec.resources[storage]: Invalid value: \"-1Gi\": "
            "must be greater than zero");
}

TEST_F(ValidationTest, QuantitiesParseAsUpstreamDoes) {
  struct Case {
    json::value in;
    std::string stored;  // "" = refused
  };
  const Case cases[] = {
      {"  1", "1"},  // UnmarshalJSON trims white space
      {"1\t", "1"},
      {"99999999999999999999999Ei", "9223372036854775807"},  // BinarySI is capped at MaxInt64
      {"1.5Gi", "1536Mi"},
      {0.5, "500m"},
      {"1 ", "1"},
      {"1 Gi", ""},
      {"one", ""},
      {"1Qi", ""},
      {"--1", ""},
  };
  int i = 0;
  for (const auto& c : cases) {
    std::string name = "q" + std::to_string(i++);
    auto r = pod_with(name, [&](json::object&, json::object& ctr) {
      ctr["resources"] = json::object{{"limits", json::object{{"ephemeral-storage", c.in}}}};
    });
    if (c.stored.empty()) {
      EXPECT_EQ(r.status, 400) << json::serialize(c.in);
      EXPECT_THAT(message(r), StartsWith(kPodPrefix)) << json::serialize(c.in);
      continue;
    }
    ASSERT_EQ(r.status, 201) << json::serialize(c.in) << r.body;
    auto got = parse(call("GET", "/api/v1/namespaces/default/pods/" + name));
    EXPECT_EQ(got["spec"]
                  .as_object()["containers"]
                  .as_array()[0]
                  .as_object()["resources"]
                  .as_object()["limits"]
                  .as_object()["ephemeral-storage"],
              json::value(c.stored))
        << json::serialize(c.in);
  }
  auto bad = pod_with("bad", [](json::object&, json::object& ctr) {
    ctr["resources"] = json::object{{"limits", json::object{{"cpu", "1 Gi"}}}};
  });
  EXPECT_EQ(message(bad), kPodPrefix +
                              "quantities must match the regular expression "
                              "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
}

// ------------------------------------------------------------------ create == update

TEST_F(ValidationTest, ActiveDeadlineSecondsOutOfRangeRefusedOnCreateAndUpdate) {
  ASSERT_EQ(post_pod(base_pod("live")).status, 201);
  for (std::int64_t v : {-1LL, 0LL, 2147483648LL}) {
    auto r = pod_with("p", [&](json::object& spec, json::object&) { spec["activeDeadlineSeconds"] = v; });
    EXPECT_EQ(r.status, 422) << v;
    EXPECT_EQ(message(r), "Pod \"p\" is invalid: spec.activeDeadlineSeconds: Invalid value: " +
                              std::to_string(v) + ": must be between 1 and 2147483647, inclusive");
    auto pod = parse(call("GET", "/api/v1/namespaces/default/pods/live"));
    pod["spec"].as_object()["activeDeadlineSeconds"] = v;
    auto u = call("PUT", "/api/v1/namespaces/default/pods/live", json::serialize(pod));
    EXPECT_EQ(u.status, 422) << v;
    EXPECT_THAT(message(u), HasSubstr("spec.activeDeadlineSeconds: Invalid value: " + std::to_string(v) +
                                      ": must be between 1 and 2147483647, inclusive"));
  }
}

TEST_F(ValidationTest, ContainerPortOutOfRangeRefusedOnCreateAndUpdate) {
  ASSERT_EQ(post_pod(base_pod("live")).status, 201);
  const std::pair<std::int64_t, std::string> cases[] = {
      {0, "spec.containers[0].ports[0].containerPort: Required value"},
      {-1,
       "spec.containers[0].ports[0].containerPort: Invalid value: -1: must be between 1 and 65535, "
       "inclusive"},
      {70000,
       "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, "
       "inclusive"}};
  for (const auto& [port, cause] : cases) {
    auto r = pod_with("p", [&](json::object&, json::object& c) {
      c["ports"] = json::array{json::object{{"containerPort", port}}};
    });
    EXPECT_EQ(r.status, 422) << port;
    EXPECT_THAT(causes(r), ::testing::Contains(cause));
    // The same object PUT back (ports are part of the immutable spec, and still invalid first).
    auto pod = parse(call("GET", "/api/v1/namespaces/default/pods/live"));
    pod["spec"].as_object()["containers"].as_array()[0].as_object()["ports"] =
        json::array{json::object{{"containerPort", port}, {"protocol", "TCP"}}};
    auto u = call("PUT", "/api/v1/namespaces/default/pods/live", json::serialize(pod));
    EXPECT_EQ(u.status, 422);
    EXPECT_THAT(causes(u), ::testing::Contains(cause));
  }
}

// Rules checked on both paths: each spec edit is refused on create with the cause shown, and a
// valid object's update to the same spec (a PodTemplate, whose template may change) with it too.
TEST_F(ValidationTest, EveryPodSpecRuleRejectsOnCreateAndOnUpdate) {
  struct Case {
    std::function<void(json::object& spec, json::object& c)> edit;
    std::string cause;     // with the pod's "spec" prefix
    bool admitted = true;  // false: a pod with it is refused by admission first (a template is not)
  };
  const Case cases[] = {
      {[](auto& s, auto&) { s["restartPolicy"] = "Sometimes"; },
       "spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", "
       "\"Never\""},
      {[](auto& s, auto&) { s["dnsPolicy"] = "Bad"; },
       "spec.dnsPolicy: Unsupported value: \"Bad\": supported values: \"ClusterFirstWithHostNet\", "
       "\"ClusterFirst\", "
       "\"Default\", \"None\""},
      {[](auto&, auto& c) { c["name"] = "Bad_Name"; },
       "spec.containers[0].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 label must consist of "
       "lower case "
       "alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. "
       "'my-name',  or "
       "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"},
      {[](auto&, auto& c) {
         c["ports"] = json::array{json::object{{"containerPort", 80}, {"hostPort", 70000}}};
       },
       "spec.containers[0].ports[0].hostPort: Invalid value: 70000: must be between 1 and 65535, inclusive"},
      {[](auto&, auto& c) {
         c["ports"] = json::array{json::object{{"containerPort", 80}, {"protocol", "ICMP"}}};
       },
       "spec.containers[0].ports[0].protocol: Unsupported value: \"ICMP\": supported values: \"SCTP\", "
       "\"TCP\", \"UDP\""},
      {[](auto&, auto& c) {
         c["resources"] =
             json::object{{"requests", json::object{{"cpu", "2"}}}, {"limits", json::object{{"cpu", "1"}}}};
       },
       "spec.containers[0].resources.requests: Invalid value: \"2\": must be less than or equal to cpu limit "
       "of 1"},
      {[](auto&, auto& c) {
         c["resources"] = json::object{{"requests", json::object{{"cpu", "-1"}}}};
       },
       "spec.containers[0].resources.requests[cpu]: Invalid value: \"-1\": must be greater than or equal to "
       "0"},
      {[](auto&, auto& c) {
         c["resources"] = json::object{{"requests", json::object{{"bogus", "1"}}}};
       },
       "spec.containers[0].resources.requests[bogus]: Invalid value: \"bogus\": must be a standard resource "
       "type or "
       "fully qualified"},
      {[](auto&, auto& c) {
         c["livenessProbe"] =
             json::object{{"exec", json::object{{"command", json::array{"x"}}}}, {"periodSeconds", -1}};
       },
       "spec.containers[0].livenessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to "
       "0"},
      {[](auto&, auto& c) {
         c["readinessProbe"] = json::object{{"periodSeconds", 1}};
       },
       "spec.containers[0].readinessProbe: Required value: must specify a handler type"},
      {[](auto&, auto& c) {
         c["securityContext"] = json::object{{"runAsUser", -1}};
       },
       "spec.containers[0].securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, "
       "inclusive"},
      {[](auto& s, auto&) {
         s["securityContext"] = json::object{{"fsGroup", 4294967296LL}};
       },
       "spec.securityContext.fsGroup: Invalid value: 4294967296: must be between 0 and 2147483647, "
       "inclusive"},
      {[](auto& s, auto&) {
         s["tolerations"] = json::array{json::object{{"key", "k"}, {"operator", "Exists"}, {"value", "v"}}};
       },
       "spec.tolerations[0].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'"},
      {[](auto& s, auto&) {
         s["topologySpreadConstraints"] = json::array{
             json::object{{"maxSkew", 0}, {"topologyKey", "zone"}, {"whenUnsatisfiable", "DoNotSchedule"}}};
       },
       "spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero"},
      {[](auto& s, auto&) {
         s["affinity"] = json::object{
             {"nodeAffinity",
              json::object{{"preferredDuringSchedulingIgnoredDuringExecution",
                            json::array{json::object{{"weight", 101}, {"preference", json::object()}}}}}}};
       },
       "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: "
       "101: must be "
       "in the range 1-100"},
      {[](auto& s, auto&) {
         s["volumes"] = json::array{json::object{{"name", "v"}}, json::object{{"name", "v"}}};
       },
       "spec.volumes[1].name: Duplicate value: \"v\""},
      {[](auto&, auto& c) {
         c["volumeMounts"] = json::array{json::object{{"name", "missing"}, {"mountPath", "/m"}}};
       },
       "spec.containers[0].volumeMounts[0].name: Not found: \"missing\""},
      {[](auto& s, auto&) {
         s["schedulingGates"] = json::array{json::object{{"name", "g"}}, json::object{{"name", "g"}}};
       },
       "spec.schedulingGates[1]: Duplicate value: \"g\""},
      {[](auto& s, auto&) { s["priorityClassName"] = "Not_A_Name"; },
       "spec.priorityClassName: Invalid value: \"Not_A_Name\": a lowercase RFC 1123 subdomain must consist "
       "of lower case "
       "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
       "'example.com', "
       "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
       false},
      {[](auto& s, auto&) {
         s["overhead"] = json::object{{"memory", "-1"}};
       },
       "spec.overhead.limits[memory]: Invalid value: \"-1\": must be greater than or equal to 0", false},
  };
  ASSERT_EQ(
      call("POST", "/api/v1/namespaces/default/podtemplates",
           R"({"metadata":{"name":"t"},"template":{"spec":{"containers":[{"name":"c","image":"nginx"}]}}})")
          .status,
      201);
  int i = 0;
  for (const auto& c : cases) {
    std::string name = "p" + std::to_string(i++);
    auto r = pod_with(name, c.edit);
    EXPECT_EQ(r.status, c.admitted ? 422 : 403) << c.cause;
    if (c.admitted) {
      EXPECT_THAT(causes(r), ::testing::Contains(c.cause)) << r.body;
    }
    // The same rule in a template, on create and on update.
    json::object tmpl =
        json::parse(
            R"({"metadata":{"name":"new"},"template":{"spec":{"containers":[{"name":"c","image":"nginx"}]}}})")
            .as_object();
    auto& tspec = tmpl["template"].as_object()["spec"].as_object();
    c.edit(tspec, tspec["containers"].as_array()[0].as_object());
    auto tc = post("/api/v1/namespaces/default/podtemplates", tmpl);
    EXPECT_EQ(tc.status, 422) << c.cause;
    EXPECT_THAT(causes(tc), ::testing::Contains("template." + c.cause)) << tc.body;
    auto t = parse(call("GET", "/api/v1/namespaces/default/podtemplates/t"));
    auto& spec = t["template"].as_object()["spec"].as_object();
    c.edit(spec, spec["containers"].as_array()[0].as_object());
    auto u = call("PUT", "/api/v1/namespaces/default/podtemplates/t", json::serialize(t));
    EXPECT_EQ(u.status, 422) << c.cause;
    EXPECT_THAT(causes(u), ::testing::Contains("template." + c.cause)) << u.body;
  }
  EXPECT_EQ(pod_count(), 0u);
}

TEST_F(ValidationTest, EveryCreatedObjectIsAcceptedWhenPutBackUnchanged) {
  const std::pair<std::string, std::string> objects[] = {
      {"/api/v1/namespaces/default/pods",
       R"({"metadata":{"name":"full","labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"nginx",)"
       R"("ports":[{"containerPort":80,"name":"http"}],"env":[{"name":"A","value":"1"}],)"
       R"("resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"cpu":"1","memory":"128Mi"}},)"
       R"("livenessProbe":{"httpGet":{"port":"http"}},"readinessProbe":{"tcpSocket":{"port":80}},)"
       R"("volumeMounts":[{"name":"data","mountPath":"/data"}],"securityContext":{"runAsUser":1000}}],)"
       R"("initContainers":[{"name":"init","image":"busybox","command":["true"]}],)"
       R"("volumes":[{"name":"data","emptyDir":{"sizeLimit":"1Gi"}}],"activeDeadlineSeconds":60,)"
       R"("tolerations":[{"key":"k","operator":"Equal","value":"v","effect":"NoExecute","tolerationSeconds":5}],)"
       R"("topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway"}],)"
       R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":)"
       R"([{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]}]}]}}},)"
       R"("securityContext":{"fsGroup":2000},"schedulingGates":[{"name":"g"}]}})"},
      {"/api/v1/nodes", R"({"metadata":{"name":"n"},"spec":{"taints":[{"key":"k","effect":"NoSchedule"}]},)"
                        R"("status":{"capacity":{"cpu":"32","memory":"256Gi","pods":"110"}}})"},
      {"/api/v1/namespaces/default/configmaps",
       R"({"metadata":{"name":"cm"},"data":{"a":"b"},"binaryData":{"c":"ZA=="}})"},
      {"/api/v1/namespaces/default/secrets",
       R"({"metadata":{"name":"s"},"stringData":{"a":"b"},"type":"Opaque"})"},
      {"/api/v1/namespaces/default/resourcequotas",
       R"({"metadata":{"name":"q"},"spec":{"hard":{"pods":"10","requests.cpu":"4"}}})"},
      {"/api/v1/namespaces/default/limitranges",
       R"({"metadata":{"name":"l"},"spec":{"limits":[{"type":"Container","min":{"cpu":"10m"},"max":{"cpu":"2"},)"
       R"("default":{"cpu":"500m"},"defaultRequest":{"cpu":"100m"}}]}})"},
      {"/api/v1/namespaces/default/persistentvolumeclaims",
       R"({"metadata":{"name":"c"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}})"},
      {"/api/v1/persistentvolumes",
       R"({"metadata":{"name":"v"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/x"}}})"},
      {"/apis/apps/v1/namespaces/default/deployments",
       R"({"metadata":{"name":"d"},"spec":{"replicas":2,"selector":{"matchLabels":{"a":"b"}},)"
       R"("template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"nginx",)"
       R"("resources":{"requests":{"cpu":"1"}}}]}}}})"},
      {"/apis/batch/v1/namespaces/default/jobs",
       R"({"metadata":{"name":"j"},"spec":{"template":{"spec":{"restartPolicy":"Never",)"
       R"("containers":[{"name":"c","image":"busybox"}]}}}})"},
  };
  for (const auto& [path, body] : objects) {
    auto c = call("POST", path, body);
    ASSERT_EQ(c.status, 201) << path << ": " << c.body;
    auto created = parse(c);
    std::string name(created["metadata"].as_object()["name"].as_string());
    auto u = call("PUT", path + "/" + name, json::serialize(created), "application/json");
    EXPECT_EQ(u.status, 200) << path << ": " << u.body;
    EXPECT_TRUE(warnings(u).empty()) << path;
  }
}

TEST_F(ValidationTest, ScaleToANegativeOrHugeReplicaCountRefused) {
  ASSERT_EQ(call("POST", "/apis/apps/v1/namespaces/default/deployments",
                 R"({"metadata":{"name":"d"},"spec":{"replicas":1,"selector":{"matchLabels":{"a":"b"}},)"
                 R"("template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"x"}]}}}})")
                .status,
            201);
  auto r = call("PATCH", "/apis/apps/v1/namespaces/default/deployments/d/scale", R"({"spec":{"replicas":1099511627776}})",
                "application/merge-patch+json");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(message(r), "Scale in version \"v1\" cannot be handled as a Scale: json: cannot unmarshal number "
                        "1099511627776 into Go struct field ScaleSpec.spec.replicas of type int32");
  r = call("PATCH", "/apis/apps/v1/namespaces/default/deployments/d/scale", R"({"spec":{"replicas":-1}})",
           "application/merge-patch+json");
  EXPECT_EQ(r.status, 422);
  EXPECT_THAT(message(r), HasSubstr("spec.replicas: Invalid value: -1: must be greater than or equal to 0"));
  auto d = parse(call("GET", "/apis/apps/v1/namespaces/default/deployments/d"));
  EXPECT_EQ(d["spec"].as_object()["replicas"], 1);
}

// ------------------------------------------------------------------ apiVersion and kind

TEST_F(ValidationTest, BodyOfAnotherVersionOrKindIsRefused) {
  struct Case {
    std::string body;
    std::string message;
  };
  const std::string scheme = " in scheme \"k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30\"";
  const Case cases[] = {
      {R"({"apiVersion":"v2","kind":"Pod","metadata":{"name":"p"}})",
       "Pod in version \"v2\" cannot be handled as a Pod: no kind \"Pod\" is registered for version \"v2\"" +
           scheme},
      {R"({"apiVersion":"v1","kind":"123","metadata":{"name":"p"}})",
       "123 in version \"v1\" cannot be handled as a Pod: no kind \"123\" is registered for version \"v1\"" +
           scheme},
      {R"({"apiVersion":"v1","kind":123,"metadata":{"name":"p"}})",
       "the object provided is unrecognized (must be of type Pod): couldn't get version/kind; json parse "
       "error: json: "
       "cannot unmarshal number into Go struct field .kind of type string "
       "({\"apiVersion\":\"v1\",\"kind\":123, ...)"},
      {R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"p"}})",
       "Node in version \"v1\" cannot be handled as a Pod: converting (v1.Node) to (core.Pod): unknown "
       "conversion"},
      {R"({"apiVersion":"apps/v1","kind":"Pod","metadata":{"name":"p"}})",
       "Pod in version \"v1\" cannot be handled as a Pod: no kind \"Pod\" is registered for version "
       "\"apps/v1\"" +
           scheme},
      {R"({"apiVersion":"a/b/c","metadata":{"name":"p"}})",
       "the object provided is unrecognized (must be of type Pod): unexpected GroupVersion string: a/b/c "
       "({\"apiVersion\":\"a/b/c\",\"metadat ...)"},
  };
  for (const auto& c : cases) {
    auto r = call("POST", "/api/v1/namespaces/default/pods", c.body);
    EXPECT_EQ(r.status, 400) << c.body;
    EXPECT_EQ(message(r), c.message);
  }
  // The events.k8s.io Event converts to the same internal type as core's, in another group version.
  auto r = call("POST", "/api/v1/namespaces/default/events",
                R"({"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"e"}})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(message(r),
            "the API version in the data (events.k8s.io/v1) does not match the expected API version (v1)");
  // Update bodies are checked the same way.
  ASSERT_EQ(post_pod(base_pod("live")).status, 201);
  auto pod = parse(call("GET", "/api/v1/namespaces/default/pods/live"));
  pod["apiVersion"] = "v2";
  r = call("PUT", "/api/v1/namespaces/default/pods/live", json::serialize(pod));
  EXPECT_EQ(r.status, 400);
  EXPECT_THAT(message(r), StartsWith("Pod in version \"v2\" cannot be handled as a Pod: no kind"));
  EXPECT_EQ(pod_count(), 1u);
}

// ------------------------------------------------------------------ fieldValidation

TEST_F(ValidationTest, UnknownFieldWarnedByDefaultAndDropped) {
  json::object p = base_pod("p");
  p["spec"].as_object()["foo"] = 1;
  p["spec"].as_object()["containers"].as_array()[0].as_object()["bar"] = "x";
  auto r = post_pod(p);
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(warnings(r), (std::vector<std::string>{"299 - \"unknown field \\\"spec.containers[0].bar\\\"\"",
                                                   "299 - \"unknown field \\\"spec.foo\\\"\""}));
  auto got = parse(call("GET", "/api/v1/namespaces/default/pods/p"));
  EXPECT_FALSE(got["spec"].as_object().contains("foo"));
  EXPECT_FALSE(got["spec"].as_object()["containers"].as_array()[0].as_object().contains("bar"));
  // Ignore drops them without a word.
  p["metadata"].as_object()["name"] = "q";
  r = post_pod(p, "?fieldValidation=Ignore");
  ASSERT_EQ(r.status, 201);
  EXPECT_TRUE(warnings(r).empty());
}

TEST_F(ValidationTest, StrictFieldValidationRefusesUnknownAndDuplicateFields) {
  json::object p = base_pod("p");
  p["spec"].as_object()["foo"] = 1;
  auto r = post_pod(p, "?fieldValidation=Strict");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(message(r), kPodPrefix + "strict decoding error: unknown field \"spec.foo\"");
  // A repeated key: refused under Strict, a warning otherwise (the last value is kept).
  const std::string dup =
      R"({"metadata":{"name":"d","labels":{"a":"1","a":"2"}},"spec":{"containers":[{"name":"c","image":"x","image":"nginx"}]}})";
  r = call("POST", "/api/v1/namespaces/default/pods?fieldValidation=Strict", dup);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(message(r), kPodPrefix +
                            "strict decoding error: duplicate field \"metadata.labels.a\", "
                            "duplicate field \"spec.containers[0].image\"");
  r = call("POST", "/api/v1/namespaces/default/pods", dup);
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(warnings(r),
            (std::vector<std::string>{"299 - \"duplicate field \\\"metadata.labels.a\\\"\"",
                                      "299 - \"duplicate field \\\"spec.containers[0].image\\\"\""}));
  EXPECT_EQ(parse(r)["spec"].as_object()["containers"].as_array()[0].as_object()["image"], "nginx");
  EXPECT_EQ(pod_count(), 1u);
  // The same on update and patch.
  auto pod = parse(call("GET", "/api/v1/namespaces/default/pods/d"));
  pod["spec"].as_object()["foo"] = 1;
  r = call("PUT", "/api/v1/namespaces/default/pods/d?fieldValidation=Strict", json::serialize(pod));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(message(r), kPodPrefix + "strict decoding error: unknown field \"spec.foo\"");
  r = call("PATCH", "/api/v1/namespaces/default/pods/d?fieldValidation=Strict", R"({"metadata":{"foo":1}})",
           "application/merge-patch+json");
  EXPECT_EQ(r.status, 422);
  EXPECT_THAT(message(r), HasSubstr("strict decoding error: unknown field \"metadata.foo\""));
  r = call("PATCH", "/api/v1/namespaces/default/pods/d", R"({"metadata":{"labels":{"b":"1","b":"2"}}})",
           "application/merge-patch+json");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(warnings(r), (std::vector<std::string>{"299 - \"duplicate field \\\"metadata.labels.b\\\"\""}));
}

// A repeated key is found however it is spelt (an escape hands the key to the parser in parts)
// and however long it is, in an object above the size that compares keys one by one.
TEST_F(ValidationTest, RepeatedKeysFoundWhateverTheirSpellingAndLength) {
  std::string labels;
  for (int i = 0; i < 20; ++i) labels += "\"label-number-" + std::to_string(i) + "\":\"v\",";
  const std::string dup = R"({"metadata":{"name":"e","labels":{)" + labels +
                          R"("a":"1","\u0061":"2","label-number-7":"w"}},)"
                          R"("spec":{"containers":[{"name":"c","image":"x"}]}})";
  auto r = call("POST", "/api/v1/namespaces/default/pods?fieldValidation=Strict", dup);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(message(r), kPodPrefix +
                            "strict decoding error: duplicate field \"metadata.labels.a\", "
                            "duplicate field \"metadata.labels.label-number-7\"");
  EXPECT_EQ(pod_count(), 0u);
}

TEST_F(ValidationTest, InvalidFieldValidationValueRefused) {
  auto r = post_pod(base_pod("p"), "?fieldValidation=strict");
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(message(r),
            "CreateOptions.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported value: \"strict\": "
            "supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"");
  auto o = parse(r);
  EXPECT_EQ(o["details"].as_object()["group"], "meta.k8s.io");
  EXPECT_EQ(o["details"].as_object()["kind"], "CreateOptions");
  r = call("PUT", "/api/v1/namespaces/default/pods/p?fieldValidation=x", json::serialize(base_pod("p")));
  EXPECT_THAT(
      message(r),
      StartsWith("UpdateOptions.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported value: \"x\""));
  EXPECT_EQ(pod_count(), 0u);
}

// ------------------------------------------------------------------ sizes and immutability

TEST_F(ValidationTest, ConfigMapAndSecretOverOneMebibyteRefused) {
  std::string big(1024 * 1024 + 1, 'x');
  auto r = call("POST", "/api/v1/namespaces/default/configmaps",
                R"({"metadata":{"name":"cm"},"data":{"k":")" + big + R"("}})");
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(message(r), "ConfigMap \"cm\" is invalid: : Too long: may not be more than 1048576 bytes");
  // Exactly 1 MiB is allowed.
  r = call("POST", "/api/v1/namespaces/default/configmaps",
           R"({"metadata":{"name":"ok"},"data":{"k":")" + big.substr(1) + R"("}})");
  EXPECT_EQ(r.status, 201);
  // Secrets count decoded data, stringData included.
  r = call("POST", "/api/v1/namespaces/default/secrets",
           R"({"metadata":{"name":"s"},"stringData":{"k":")" + big + R"("}})");
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(message(r), "Secret \"s\" is invalid: data: Too long: may not be more than 1048576 bytes");
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/secrets/s").status, 404);
}

TEST_F(ValidationTest, ImmutableConfigMapKeepsItsData) {
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/configmaps",
                 R"({"metadata":{"name":"cm"},"data":{"a":"1"},"immutable":true})")
                .status,
            201);
  auto r = call("PATCH", "/api/v1/namespaces/default/configmaps/cm", R"({"data":{"a":"2"}})",
                "application/merge-patch+json");
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(message(r),
            "ConfigMap \"cm\" is invalid: data: Forbidden: field is immutable when `immutable` is set");
}

TEST_F(ValidationTest, SecretStringDataIsStoredAsData) {
  auto r = call("POST", "/api/v1/namespaces/default/secrets",
                R"({"metadata":{"name":"s"},"data":{"a":"eA=="},"stringData":{"a":"hello","b":"x"}})");
  ASSERT_EQ(r.status, 201) << r.body;
  auto s = parse(call("GET", "/api/v1/namespaces/default/secrets/s"));
  EXPECT_FALSE(s.contains("stringData"));
  EXPECT_EQ(s["data"].as_object()["a"], "aGVsbG8=");
  EXPECT_EQ(s["data"].as_object()["b"], "eA==");
  r = call("POST", "/api/v1/namespaces/default/secrets",
           R"({"metadata":{"name":"bad"},"data":{"a":"not base64!"}})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(message(r),
            "Secret in version \"v1\" cannot be handled as a Secret: illegal base64 data at input byte 3");
}

}  // namespace
}  // namespace ksched::apiserver
