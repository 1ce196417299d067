// The write pipeline (canonicalise -> default -> admit -> validate) through Api::handle, for every
// verb and body encoding that reaches it: upstream's canonical values, defaults and errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api_harness.h"

namespace ksched::apiserver {
namespace {

namespace json = boost::json;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class WritePipelineTest : public ApiHarness {
 protected:
  static json::value at(const json::object& o, std::initializer_list<std::string_view> path) {
    json::value v = o;
    for (auto k : path) {
      if (!v.is_object() || !v.as_object().contains(k)) return nullptr;
      v = v.as_object().at(k);
    }
    return v;
  }

  Response create_pod(const std::string& name, const std::string& spec_extra = "",
                      const std::string& container_extra = "") {
    return call("POST", "/api/v1/namespaces/default/pods",
                R"({"metadata":{"name":")" + name + R"("},"spec":{)" + spec_extra +
                    R"("containers":[{"name":"c","image":"nginx")" + container_extra + "}]}}");
  }
  Response create_class(const std::string& name, std::int64_t value, const std::string& extra = "") {
    return call("POST", "/apis/scheduling.k8s.io/v1/priorityclasses",
                R"({"metadata":{"name":")" + name + R"("},"value":)" + std::to_string(value) + extra + "}");
  }
};

// ------------------------------------------------------------------ quantities

TEST_F(WritePipelineTest, QuantitiesAreStoredCanonical) {
  auto r = create_pod("q", "",
                      R"(,"resources":{"requests":{"cpu":0.5,"memory":"1024Mi","ephemeral-storage":"1.5Gi"},)"
                      R"("limits":{"cpu":"2000m","memory":1073741824}})");
  ASSERT_EQ(r.status, 201) << r.body;
  auto c = parse(r)["spec"].as_object()["containers"].as_array()[0].as_object();
  EXPECT_EQ(at(c, {"resources", "requests", "cpu"}), "500m");
  EXPECT_EQ(at(c, {"resources", "requests", "memory"}), "1Gi");
  EXPECT_EQ(at(c, {"resources", "requests", "ephemeral-storage"}), "1536Mi");
  EXPECT_EQ(at(c, {"resources", "limits", "cpu"}), "2");
  EXPECT_EQ(at(c, {"resources", "limits", "memory"}), "1073741824");
  // Read back from storage, not only the create response.
  auto got = parse(call("GET", "/api/v1/namespaces/default/pods/q"));
  EXPECT_EQ(at(got["spec"].as_object()["containers"].as_array()[0].as_object(), {"resources", "requests", "cpu"}),
            "500m");
}

TEST_F(WritePipelineTest, NodeQuantitiesWrittenAsNumbersComeBackAsUpstreamPrintsThem) {
  auto r = call("POST", "/api/v1/nodes",
                R"({"metadata":{"name":"n1"},"status":{"capacity":{"pods":110,"cpu":1.1e2,"memory":"8Gi"}}})");
  ASSERT_EQ(r.status, 201) << r.body;
  auto o = parse(r);
  EXPECT_EQ(at(o, {"status", "capacity", "pods"}), "110");
  EXPECT_EQ(at(o, {"status", "capacity", "cpu"}), "110");
  EXPECT_EQ(at(o, {"status", "allocatable", "pods"}), "110");  // allocatable defaults to capacity
}

TEST_F(WritePipelineTest, AnInvalidQuantityIsABadRequestOnEveryVerb) {
  auto r = create_pod("bad", "", R"(,"resources":{"requests":{"cpu":"one"}})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(reason(r), "BadRequest");
  EXPECT_EQ(message(r),
            "Pod in version \"v1\" cannot be handled as a Pod: quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  ASSERT_EQ(call("POST", "/api/v1/nodes", R"({"metadata":{"name":"n2"}})").status, 201);
  // A patch's result that does not decode is upstream's patcher's 422 on "patch".
  auto p = call("PATCH", "/api/v1/nodes/n2/status", R"({"status":{"capacity":{"cpu":"1x"}}})",
                "application/merge-patch+json");
  EXPECT_EQ(p.status, 422) << p.body;
  EXPECT_THAT(message(p), StartsWith(" \"\" is invalid: patch: Invalid value: \"{"));
  EXPECT_THAT(message(p), HasSubstr("\": quantities must match the regular expression"));
}

TEST_F(WritePipelineTest, YamlBodiesKeepNumbersAsNumbers) {
  auto r = call("POST", "/api/v1/namespaces/default/pods",
                "metadata:\n  name: from-yaml\nspec:\n  containers:\n  - name: c\n    image: nginx\n    resources:\n"
                "      requests:\n        cpu: 0.5\n        memory: 64Mi\n    ports:\n    - containerPort: 8080\n",
                "application/yaml");
  ASSERT_EQ(r.status, 201) << r.body;
  auto c = parse(r)["spec"].as_object()["containers"].as_array()[0].as_object();
  EXPECT_EQ(at(c, {"resources", "requests", "cpu"}), "500m");
  EXPECT_EQ(c["ports"].as_array()[0].as_object()["containerPort"], 8080);
  auto bad = call("POST", "/api/v1/namespaces/default/pods", "metadata: [unclosed\n", "application/yaml");
  EXPECT_EQ(bad.status, 400);
  EXPECT_THAT(message(bad), StartsWith("error converting YAML to JSON: yaml: line "));
}

// ------------------------------------------------------------------ defaulting

TEST_F(WritePipelineTest, RequestsDefaultToLimitsAndTheQosClassFollows) {
  auto r = create_pod("g", "", R"(,"resources":{"limits":{"cpu":"1","memory":"1Gi"},"requests":{"cpu":"500m"}})");
  ASSERT_EQ(r.status, 201) << r.body;
  auto o = parse(r);
  auto c = o["spec"].as_object()["containers"].as_array()[0].as_object();
  EXPECT_EQ(at(c, {"resources", "requests", "cpu"}), "500m");  // given: kept
  EXPECT_EQ(at(c, {"resources", "requests", "memory"}), "1Gi");  // missing: from the limit
  EXPECT_EQ(at(o, {"status", "qosClass"}), "Burstable");
  auto g = parse(create_pod("g2", "", R"(,"resources":{"limits":{"cpu":"1","memory":"1Gi"}})"));
  EXPECT_EQ(at(g, {"status", "qosClass"}), "Guaranteed");
}

TEST_F(WritePipelineTest, HostNetworkPodsGetHostPortsFromContainerPorts) {
  auto r = create_pod("hn", R"("hostNetwork":true,)", R"(,"ports":[{"containerPort":8080},{"containerPort":9090,"hostPort":9090}])");
  ASSERT_EQ(r.status, 201) << r.body;
  auto ports = parse(r)["spec"].as_object()["containers"].as_array()[0].as_object()["ports"].as_array();
  EXPECT_EQ(ports[0].as_object()["hostPort"], 8080);
  EXPECT_EQ(ports[1].as_object()["hostPort"], 9090);
  auto plain = create_pod("nohn", "", R"(,"ports":[{"containerPort":8080}])");
  auto p2 = parse(plain)["spec"].as_object()["containers"].as_array()[0].as_object()["ports"].as_array();
  EXPECT_FALSE(p2[0].as_object().contains("hostPort"));
}

TEST_F(WritePipelineTest, ANodeWithoutStatusGetsUpstreamsZeroValues) {
  auto r = call("POST", "/api/v1/nodes", R"({"metadata":{"name":"bare"}})");
  ASSERT_EQ(r.status, 201) << r.body;
  auto o = parse(r);
  EXPECT_EQ(o["spec"], json::object());
  EXPECT_EQ(at(o, {"status", "daemonEndpoints", "kubeletEndpoint", "Port"}), 0);
  EXPECT_EQ(at(o, {"status", "nodeInfo", "kubeletVersion"}), "");
  EXPECT_EQ(at(o, {"status", "nodeInfo", "machineID"}), "");
}

// ------------------------------------------------------------------ Priority admission

TEST_F(WritePipelineTest, PriorityClassesGetTheirDefaultsAndLimits) {
  auto r = create_class("high", 1000);
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(parse(r)["preemptionPolicy"], "PreemptLowerPriority");
  auto big = create_class("huge", 1000000001);
  EXPECT_EQ(big.status, 422);
  EXPECT_THAT(message(big), HasSubstr("value: Forbidden: maximum allowed value of a user defined priority is 1000000000"));
  auto sys = create_class("system-mine", 5);
  EXPECT_EQ(sys.status, 422);
  EXPECT_THAT(message(sys), HasSubstr("metadata.name: Forbidden: priority class names with 'system-' prefix are "
                                      "reserved for system use only. error: system-mine is not a known system "
                                      "priority class"));
  auto bad_policy = create_class("odd", 5, R"(,"preemptionPolicy":"Sometimes")");
  EXPECT_EQ(bad_policy.status, 422);
  EXPECT_THAT(message(bad_policy), HasSubstr(R"(preemptionPolicy: Unsupported value: "Sometimes": supported values: "Never", "PreemptLowerPriority")"));
  auto change = call("PATCH", "/apis/scheduling.k8s.io/v1/priorityclasses/high", R"({"value":2000})",
                     "application/merge-patch+json");
  EXPECT_EQ(change.status, 422);
  EXPECT_THAT(message(change), HasSubstr("value: Forbidden: may not be changed in an update."));
}

TEST_F(WritePipelineTest, OnlyOneGlobalDefaultClass) {
  ASSERT_EQ(create_class("d1", 10, R"(,"globalDefault":true)").status, 201);
  auto second = create_class("d2", 20, R"(,"globalDefault":true)");
  EXPECT_EQ(second.status, 403);
  EXPECT_EQ(message(second), "priorityclasses.scheduling.k8s.io \"d2\" is forbidden: PriorityClass d1 is already "
                             "marked as default. Only one default can exist");
  // A pod without a class gets the default one.
  auto pod = parse(create_pod("p"));
  EXPECT_EQ(at(pod, {"spec", "priorityClassName"}), "d1");
  EXPECT_EQ(at(pod, {"spec", "priority"}), 10);
}

// The default class is remembered between pod creates, and forgotten when any class changes.
TEST_F(WritePipelineTest, PodsFollowTheGlobalDefaultClassAsItComesAndGoes) {
  EXPECT_EQ(at(parse(create_pod("before")), {"spec", "priority"}), 0);
  ASSERT_EQ(create_class("other", 5).status, 201);
  EXPECT_EQ(at(parse(create_pod("still")), {"spec", "priority"}), 0);
  ASSERT_EQ(create_class("dflt", 7, R"(,"globalDefault":true)").status, 201);
  auto pod = parse(create_pod("after"));
  EXPECT_EQ(at(pod, {"spec", "priorityClassName"}), "dflt");
  EXPECT_EQ(at(pod, {"spec", "priority"}), 7);
  ASSERT_EQ(call("DELETE", "/apis/scheduling.k8s.io/v1/priorityclasses/dflt").status, 200);
  auto last = parse(create_pod("gone"));
  EXPECT_EQ(at(last, {"spec", "priority"}), 0);
  EXPECT_FALSE(last["spec"].as_object().contains("priorityClassName"));
}

TEST_F(WritePipelineTest, PodsTakePriorityAndPreemptionPolicyFromTheirClass) {
  ASSERT_EQ(create_class("polite", 100, R"(,"preemptionPolicy":"Never")").status, 201);
  auto r = create_pod("nice", R"("priorityClassName":"polite",)");
  ASSERT_EQ(r.status, 201) << r.body;
  auto o = parse(r);
  EXPECT_EQ(at(o, {"spec", "priority"}), 100);
  EXPECT_EQ(at(o, {"spec", "preemptionPolicy"}), "Never");
  auto plain = parse(create_pod("plain"));
  EXPECT_EQ(at(plain, {"spec", "priority"}), 0);
  EXPECT_EQ(at(plain, {"spec", "preemptionPolicy"}), "PreemptLowerPriority");

  auto raw = create_pod("raw", R"("priorityClassName":"polite","priority":5,)");
  EXPECT_EQ(raw.status, 403);
  EXPECT_EQ(reason(raw), "Forbidden");
  EXPECT_EQ(message(raw), "pods \"raw\" is forbidden: the integer value of priority (5) must not be provided in pod "
                          "spec; priority admission controller computed 100 from the given PriorityClass name");
  auto policy = create_pod("pol", R"("priorityClassName":"polite","preemptionPolicy":"PreemptLowerPriority",)");
  EXPECT_EQ(policy.status, 403);
  EXPECT_EQ(message(policy), "pods \"pol\" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) "
                             "must not be provided in pod spec; priority admission controller computed Never from "
                             "the given PriorityClass name");
  auto missing = create_pod("m", R"("priorityClassName":"nope",)");
  EXPECT_EQ(missing.status, 403);
  EXPECT_EQ(message(missing), "pods \"m\" is forbidden: no PriorityClass with name nope was found");
}

// scheduler_perf's server (ksched bench) runs without the Priority plugin, as upstream's
// integration harness does: its templates set spec.priority without a class.
TEST_F(WritePipelineTest, PriorityDisabledKeepsARawPriorityAndSkipsTheClassChecks) {
  auto plugins = AdmissionPlugins::with_disabled({"Priority", "ServiceAccount"});
  ASSERT_TRUE(plugins) << plugins.error();
  EXPECT_FALSE(plugins->priority);
  EXPECT_TRUE(plugins->default_toleration_seconds);
  api_.set_admission_plugins(*plugins);
  auto raw = create_pod("raw", R"("priority":10,)");
  ASSERT_EQ(raw.status, 201) << raw.body;
  auto o = parse(raw);
  EXPECT_EQ(at(o, {"spec", "priority"}), 10);
  EXPECT_EQ(create_pod("m", R"("priorityClassName":"nope",)").status, 201);
  // Two global defaults: the plugin's validation of PriorityClasses is off with it.
  ASSERT_EQ(create_class("d1", 1, R"(,"globalDefault":true)").status, 201);
  EXPECT_EQ(create_class("d2", 2, R"(,"globalDefault":true)").status, 201);
}

TEST_F(WritePipelineTest, DisablingAnUnknownAdmissionPluginIsUpstreamsError) {
  auto p = AdmissionPlugins::with_disabled({"Priority", "NoSuchPlugin"});
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error(), "disable-admission-plugins plugin \"NoSuchPlugin\" is unknown");
}

// ------------------------------------------------------------------ pod update validation

TEST_F(WritePipelineTest, PodSpecFieldsOtherThanImagesAreImmutable) {
  auto created = parse(create_pod("im"));
  auto next = created;
  next["spec"].as_object()["schedulerName"] = "other-scheduler";
  auto r = call("PUT", "/api/v1/namespaces/default/pods/im", json::serialize(next));
  EXPECT_EQ(r.status, 422);
  EXPECT_THAT(message(r), StartsWith("Pod \"im\" is invalid: spec: Forbidden: pod updates may not change fields "
                                     "other than `spec.containers[*].image`,`spec.initContainers[*].image`,"
                                     "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing "
                                     "tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if "
                                     "it was previously negative)\n"));
  EXPECT_THAT(message(r), HasSubstr("- spec.schedulerName: \"default-scheduler\"\n+ spec.schedulerName: \"other-scheduler\""));
  auto details = parse(r)["details"].as_object()["causes"].as_array()[0].as_object();
  EXPECT_EQ(details["field"], "spec");
  EXPECT_EQ(details["reason"], "FieldValueForbidden");

  // The image, a lower activeDeadlineSeconds and an added toleration are allowed.
  auto ok = created;
  auto& spec = ok["spec"].as_object();
  spec["containers"].as_array()[0].as_object()["image"] = "nginx:1.27";
  spec["activeDeadlineSeconds"] = 60;
  spec["tolerations"].as_array().push_back(json::object{{"key", "k"}, {"operator", "Exists"}});
  auto ok_r = call("PUT", "/api/v1/namespaces/default/pods/im", json::serialize(ok));
  ASSERT_EQ(ok_r.status, 200) << ok_r.body;

  // Removing a toleration is not.
  auto fewer = parse(ok_r);
  fewer["spec"].as_object()["tolerations"].as_array().pop_back();
  auto f = call("PUT", "/api/v1/namespaces/default/pods/im", json::serialize(fewer));
  EXPECT_EQ(f.status, 422);
  EXPECT_THAT(message(f), HasSubstr("spec.tolerations: Forbidden: existing toleration can not be modified except its "
                                    "tolerationSeconds"));
}

TEST_F(WritePipelineTest, PatchesThatAddOrRemoveContainersAreRefused) {
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods",
                 R"({"metadata":{"name":"two"},"spec":{"containers":[{"name":"a","image":"x"},{"name":"b","image":"y"}]}})")
                .status,
            201);
  auto merge = call("PATCH", "/api/v1/namespaces/default/pods/two",
                    R"({"spec":{"containers":[{"name":"a","image":"x"}]}})", "application/merge-patch+json");
  EXPECT_EQ(merge.status, 422);
  EXPECT_EQ(message(merge), "Pod \"two\" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers");
  auto json_patch = call("PATCH", "/api/v1/namespaces/default/pods/two", R"([{"op":"remove","path":"/spec/containers/1"}])",
                         "application/json-patch+json");
  EXPECT_EQ(json_patch.status, 422);
  auto smp = call("PATCH", "/api/v1/namespaces/default/pods/two",
                  R"({"spec":{"containers":[{"name":"c","image":"z"}]}})", "application/strategic-merge-patch+json");
  EXPECT_EQ(smp.status, 422);
  EXPECT_THAT(message(smp), HasSubstr("pod updates may not add or remove containers"));
  // Status writes do not touch the spec and stay allowed.
  auto st = call("PATCH", "/api/v1/namespaces/default/pods/two/status", R"({"status":{"phase":"Running"}})",
                 "application/merge-patch+json");
  EXPECT_EQ(st.status, 200) << st.body;
}

TEST_F(WritePipelineTest, UpdatesKeepThePriorityResolvedOnCreate) {
  ASSERT_EQ(create_class("mid", 50).status, 201);
  auto created = parse(create_pod("keep", R"("priorityClassName":"mid",)"));
  auto next = created;
  next["spec"].as_object().erase("priority");
  next["metadata"].as_object()["labels"] = json::object{{"x", "y"}};
  auto r = call("PUT", "/api/v1/namespaces/default/pods/keep", json::serialize(next));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(at(parse(r), {"spec", "priority"}), 50);
}

// ------------------------------------------------------------------ typed decoding

TEST_F(WritePipelineTest, FieldsOfTheWrongJsonTypeAreRefusedAsUpstreamsDecoderDoes) {
  auto r = call("POST", "/api/v1/namespaces/default/pods", R"({"metadata":{"name":"t"},"spec":{"containers":["nginx"]}})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(reason(r), "BadRequest");
  EXPECT_EQ(message(r), "Pod in version \"v1\" cannot be handled as a Pod: json: cannot unmarshal string into Go "
                        "struct field PodSpec.spec.containers of type v1.Container");
  auto port = create_pod("t2", "", R"(,"ports":[{"containerPort":80.5}])");
  EXPECT_EQ(port.status, 400);
  EXPECT_THAT(message(port), HasSubstr("json: cannot unmarshal number 80.5 into Go struct field "
                                       "ContainerPort.spec.containers.ports.containerPort of type int32"));
  auto deploy = call("POST", "/apis/apps/v1/namespaces/default/deployments",
                     R"({"metadata":{"name":"d"},"spec":{"replicas":"3"}})");
  EXPECT_EQ(deploy.status, 400);
  EXPECT_THAT(message(deploy), HasSubstr("cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"));
  // Patches are checked after they apply, like any other write (upstream's patcher answers 422).
  ASSERT_EQ(create_pod("t3").status, 201);
  auto patch = call("PATCH", "/api/v1/namespaces/default/pods/t3", R"({"metadata":{"labels":["x"]}})",
                    "application/merge-patch+json");
  EXPECT_EQ(patch.status, 422);
  EXPECT_THAT(message(patch), HasSubstr("cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string"));
}

// ------------------------------------------------------------------ RuntimeClass admission

TEST_F(WritePipelineTest, RuntimeClassesAreValidated) {
  auto bad = call("POST", "/apis/node.k8s.io/v1/runtimeclasses", R"({"metadata":{"name":"rc"},"handler":"Run_C"})");
  EXPECT_EQ(bad.status, 422);
  EXPECT_THAT(message(bad), StartsWith("RuntimeClass.node.k8s.io \"rc\" is invalid: handler: Invalid value: \"Run_C\": "
                                       "a lowercase RFC 1123 label must consist of"));
  ASSERT_EQ(call("POST", "/apis/node.k8s.io/v1/runtimeclasses", R"({"metadata":{"name":"rc"},"handler":"runc"})").status, 201);
  auto change = call("PATCH", "/apis/node.k8s.io/v1/runtimeclasses/rc", R"({"handler":"crun"})", "application/merge-patch+json");
  EXPECT_EQ(change.status, 422);
  EXPECT_THAT(message(change), HasSubstr("handler: Invalid value: \"crun\": field is immutable"));
}

TEST_F(WritePipelineTest, PodsTakeOverheadNodeSelectorAndTolerationsFromTheirRuntimeClass) {
  ASSERT_EQ(call("POST", "/apis/node.k8s.io/v1/runtimeclasses",
                 R"({"metadata":{"name":"kata"},"handler":"kata","overhead":{"podFixed":{"cpu":0.25,"memory":"120Mi"}},)"
                 R"("scheduling":{"nodeSelector":{"sandbox":"kata"},"tolerations":[{"key":"sandbox","operator":"Exists"}]}})")
                .status,
            201);
  auto r = create_pod("k", R"("runtimeClassName":"kata","nodeSelector":{"zone":"a"},)");
  ASSERT_EQ(r.status, 201) << r.body;
  auto o = parse(r);
  EXPECT_EQ(at(o, {"spec", "overhead"}), (json::object{{"cpu", "250m"}, {"memory", "120Mi"}}));
  EXPECT_EQ(at(o, {"spec", "nodeSelector"}), (json::object{{"zone", "a"}, {"sandbox", "kata"}}));
  auto tols = at(o, {"spec", "tolerations"}).as_array();
  EXPECT_EQ(tols.size(), 3u);  // DefaultTolerationSeconds' two, then the class's (plugin order)
  EXPECT_EQ(tols[2].as_object()["key"], "sandbox");

  auto clash = create_pod("k2", R"("runtimeClassName":"kata","nodeSelector":{"sandbox":"gvisor"},)");
  EXPECT_EQ(clash.status, 403);
  EXPECT_EQ(message(clash), "pods \"k2\" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox] = "
                            "kata; pod.spec.nodeSelector[sandbox] = gvisor");
  auto overhead = create_pod("k3", R"("runtimeClassName":"kata","overhead":{"cpu":"1"},)");
  EXPECT_EQ(overhead.status, 403);
  EXPECT_EQ(message(overhead), "pods \"k3\" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's "
                               "defined Overhead");
  auto same = create_pod("k4", R"("runtimeClassName":"kata","overhead":{"cpu":"250m","memory":"120Mi"},)");
  EXPECT_EQ(same.status, 201) << same.body;
  auto missing = create_pod("k5", R"("runtimeClassName":"nope",)");
  EXPECT_EQ(missing.status, 403);
  EXPECT_EQ(message(missing), "pods \"k5\" is forbidden: pod rejected: RuntimeClass \"nope\" not found");
  auto orphan = create_pod("k6", R"("overhead":{"cpu":"1"},)");
  EXPECT_EQ(orphan.status, 403);
  EXPECT_EQ(message(orphan), "pods \"k6\" is forbidden: pod rejected: Pod Overhead set without corresponding "
                             "RuntimeClass defined Overhead");
}

}  // namespace
}  // namespace ksched::apiserver
