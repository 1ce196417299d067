// The API server as kube-apiserver v1.35 answers for the objects the scheduler and kubectl use:
// what it stores and returns for quantities, defaults, the pod and node strategies, bindings and
// graceful deletion. Each expectation names the upstream source it follows (k8s.io/kubernetes
// v1.35.4 unless said otherwise).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api_harness.h"
#include "apiserver/features.h"
#include "apiserver/timeutil.h"

namespace ksched::apiserver {
namespace {

namespace json = boost::json;
using ::testing::HasSubstr;

class UpstreamV135Test : public ApiHarness {
 protected:
  static json::value at(const json::value& root, std::initializer_list<std::string_view> path) {
    json::value v = root;
    for (auto k : path) {
      if (!v.is_object() || !v.as_object().contains(k)) return nullptr;
      v = v.as_object().at(k);
    }
    return v;
  }
  static json::object container(const json::object& pod, std::size_t i = 0) {
    return pod.at("spec").as_object().at("containers").as_array()[i].as_object();
  }
  Response create_pod(const std::string& name, const std::string& spec_extra = "",
                      const std::string& container_extra = "", const std::string& meta_extra = "") {
    return call("POST", "/api/v1/namespaces/default/pods",
                R"({"metadata":{"name":")" + name + "\"" + meta_extra + R"(},"spec":{)" + spec_extra +
                    R"("containers":[{"name":"c","image":"nginx:1.27")" + container_extra + "}]}}");
  }
  Response create_node(const std::string& name, const std::string& labels = "{}") {
    return call("POST", "/api/v1/nodes", R"({"metadata":{"name":")" + name + R"(","labels":)" + labels + "}}");
  }
  Response bind(const std::string& pod, const std::string& node, const std::string& meta_extra = "") {
    return call("POST", "/api/v1/namespaces/default/pods/" + pod + "/binding",
                R"({"metadata":{"name":")" + pod + "\"" + meta_extra + R"(},"target":{"kind":"Node","name":")" +
                    node + R"("}})");
  }
  json::object get_pod(const std::string& name) { return parse(call("GET", "/api/v1/namespaces/default/pods/" + name)); }
  std::vector<std::string> causes(const Response& r) {
    std::vector<std::string> out;
    auto o = parse(r);
    if (!o.contains("details")) return out;
    for (const auto& c : o["details"].as_object()["causes"].as_array())
      out.push_back(std::string(c.as_object().at("field").as_string()) + ": " +
                    std::string(c.as_object().at("message").as_string()));
    return out;
  }
  // The watch events of pods since `rv`, as (type, object) pairs.
  std::vector<std::pair<std::string, json::object>> pod_events_since(std::int64_t rv) {
    auto w = call("GET", "/api/v1/namespaces/default/pods?watch=1&resourceVersion=" + std::to_string(rv));
    EXPECT_TRUE(w.watcher);
    std::vector<std::pair<std::string, json::object>> out;
    if (!w.watcher) return out;
    bool closed = false, cols = false;
    for (const auto& it : w.watcher->drain(closed)) {
      auto ev = json::parse(api_.format_watch_item(*w.watch_resource, it, false, IncludeObject::Object, cols)).as_object();
      out.emplace_back(std::string(ev["type"].as_string()), ev["object"].as_object());
    }
    return out;
  }
};

// ------------------------------------------------------------------ quantities on the wire

// apimachinery resource/quantity.go ParseQuantity keeps the input as the quantity's text when it
// is canonical already ("+1", "1E3", "1.500", "100Mi"), and the v1 defaulting's
// SetDefaults_ResourceList (pkg/apis/core/v1/defaults.go) rounds every ResourceList value up to
// milli-units with RoundUp(-3): "100n" becomes "1m". Other quantities are not rounded.
TEST_F(UpstreamV135Test, QuantitiesComeBackAsKubeApiserverWritesThem) {
  auto r = create_pod("q", R"("volumes":[{"name":"v","emptyDir":{"sizeLimit":"100n"}}],)",
                      R"(,"resources":{"requests":{"cpu":"100n","memory":"1E3","ephemeral-storage":"1.500"},)"
                      R"("limits":{"cpu":"+1","memory":"100Mi","ephemeral-storage":"2000m"}})");
  ASSERT_EQ(r.status, 201) << r.body;
  for (const auto& pod : {parse(r), get_pod("q")}) {
    auto c = container(pod);
    EXPECT_EQ(at(c, {"resources", "requests", "cpu"}), "1m");
    EXPECT_EQ(at(c, {"resources", "requests", "memory"}), "1E3");
    EXPECT_EQ(at(c, {"resources", "requests", "ephemeral-storage"}), "1.500");
    EXPECT_EQ(at(c, {"resources", "limits", "cpu"}), "+1");
    EXPECT_EQ(at(c, {"resources", "limits", "memory"}), "100Mi");
    EXPECT_EQ(at(c, {"resources", "limits", "ephemeral-storage"}), "2");
    EXPECT_EQ(at(pod, {"spec", "volumes"}).as_array()[0].as_object()["emptyDir"].as_object()["sizeLimit"], "100n");
  }
  // Requests default to limits as the limits' own text (SetDefaults_Pod copies the Quantity).
  auto d = create_pod("d", "", R"(,"resources":{"limits":{"cpu":"+2","memory":"1024Mi"}})");
  ASSERT_EQ(d.status, 201) << d.body;
  EXPECT_EQ(at(container(parse(d)), {"resources", "requests", "cpu"}), "+2");
  EXPECT_EQ(at(container(parse(d)), {"resources", "requests", "memory"}), "1Gi");
  // Node capacity and allocatable are ResourceLists too (SetObjectDefaults_Node).
  auto n = call("POST", "/api/v1/nodes", R"({"metadata":{"name":"n"},"status":{"capacity":{"cpu":"0.0001","pods":"110"}}})");
  ASSERT_EQ(n.status, 201) << n.body;
  EXPECT_EQ(at(parse(n), {"status", "capacity", "cpu"}), "1m");
  EXPECT_EQ(at(parse(n), {"status", "allocatable", "cpu"}), "1m");
  EXPECT_EQ(at(parse(n), {"status", "capacity", "pods"}), "110");
}

// validateResourceRequirements quotes quantities with String(): the kept text.
TEST_F(UpstreamV135Test, ValidationQuotesQuantitiesAsUpstreamPrintsThem) {
  auto r = create_pod("v", "", R"(,"resources":{"requests":{"cpu":"+3"},"limits":{"cpu":"2.000"}})");
  ASSERT_EQ(r.status, 422);
  EXPECT_THAT(causes(r), ::testing::ElementsAre(
                             "spec.containers[0].resources.requests: Invalid value: \"+3\": must be less than or equal "
                             "to cpu limit of 2"));
}

// ------------------------------------------------------------------ defaults

// SetDefaults_Container: the pull policy follows parsers.ParseImageName's tag ("latest" when the
// reference has neither tag nor digest; none when it does not parse).
TEST_F(UpstreamV135Test, ImagePullPolicyFollowsTheParsedReference) {
  const std::string digest = "sha256:" + std::string(64, 'a');
  struct Case {
    std::string image, want;
  } cases[] = {{"nginx", "Always"},
               {"nginx:latest", "Always"},
               {"nginx:1.27", "IfNotPresent"},
               {"registry.example.com:5000/team/app", "Always"},
               {"localhost/app:latest", "Always"},
               {"nginx@" + digest, "IfNotPresent"},
               {"nginx:latest@" + digest, "Always"},
               {"Nginx", "IfNotPresent"},  // not a valid reference: no tag
               {"nginx@sha256:abc", "IfNotPresent"}};
  int i = 0;
  for (const auto& c : cases) {
    std::string name = "p" + std::to_string(i++);
    auto r = call("POST", "/api/v1/namespaces/default/pods",
                  R"({"metadata":{"name":")" + name + R"("},"spec":{"containers":[{"name":"c","image":")" + c.image +
                      R"("}]}})");
    ASSERT_EQ(r.status, 201) << c.image << ": " << r.body;
    EXPECT_EQ(at(container(parse(r)), {"imagePullPolicy"}), json::value(c.want)) << c.image;
  }
}

// SetObjectDefaults_Pod's per-source defaults (zz_generated.defaults.go) and
// SetDefaults_ServiceAccountTokenProjection; SetDefaults_Container's terminationMessagePath/Policy
// and the zero-value structs upstream always serialises.
TEST_F(UpstreamV135Test, PodDefaultsAsTheV1Defaulters) {
  auto r = create_pod("defaults",
                      R"("volumes":[{"name":"r","rbd":{"monitors":["m"],"image":"i"}},)"
                      R"({"name":"t","projected":{"sources":[{"serviceAccountToken":{"path":"token"}},)"
                      R"({"downwardAPI":{"items":[{"path":"n","fieldRef":{"fieldPath":"metadata.name"}}]}}]}},)"
                      R"({"name":"e","ephemeral":{"volumeClaimTemplate":{"spec":{"accessModes":["ReadWriteOnce"],)"
                      R"("resources":{"requests":{"storage":"1Gi"}}}}}}],)",
                      R"(,"livenessProbe":{"grpc":{"port":8080}})");
  ASSERT_EQ(r.status, 201) << r.body;
  auto pod = parse(r);
  auto vols = at(pod, {"spec", "volumes"}).as_array();
  EXPECT_EQ(at(vols[0], {"rbd", "pool"}), "rbd");
  EXPECT_EQ(at(vols[0], {"rbd", "user"}), "admin");
  EXPECT_EQ(at(vols[0], {"rbd", "keyring"}), "/etc/ceph/keyring");
  auto sources = at(vols[1], {"projected", "sources"}).as_array();
  EXPECT_EQ(at(sources[0], {"serviceAccountToken", "expirationSeconds"}), 3600);
  EXPECT_EQ(at(sources[1], {"downwardAPI", "items"}).as_array()[0].as_object()["fieldRef"].as_object()["apiVersion"],
            "v1");
  EXPECT_EQ(at(vols[1], {"projected", "defaultMode"}), 420);
  EXPECT_EQ(at(vols[2], {"ephemeral", "volumeClaimTemplate", "spec", "volumeMode"}), "Filesystem");
  auto c = container(pod);
  EXPECT_EQ(at(c, {"livenessProbe", "grpc", "service"}), "");
  EXPECT_EQ(at(c, {"terminationMessagePath"}), "/dev/termination-log");
  EXPECT_EQ(at(c, {"terminationMessagePolicy"}), "File");
  EXPECT_EQ(at(c, {"resources"}), json::object());
  EXPECT_EQ(at(pod, {"spec", "dnsPolicy"}), "ClusterFirst");
  EXPECT_EQ(at(pod, {"spec", "restartPolicy"}), "Always");
  EXPECT_EQ(at(pod, {"spec", "schedulerName"}), "default-scheduler");
  EXPECT_EQ(at(pod, {"spec", "securityContext"}), json::object());
  EXPECT_EQ(at(pod, {"spec", "terminationGracePeriodSeconds"}), 30);
  EXPECT_EQ(at(pod, {"spec", "enableServiceLinks"}), true);
}

// SetDefaults_PersistentVolume, SetDefaults_PersistentVolumeClaim(Spec), SetDefaults_Secret,
// SetDefaults_Service, SetDefaults_ReplicationController, SetDefaults_LimitRangeItem.
TEST_F(UpstreamV135Test, CoreKindDefaults) {
  auto pv = call("POST", "/api/v1/persistentvolumes",
                 R"({"metadata":{"name":"pv"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],)"
                 R"("hostPath":{"path":"/tmp"}}})");
  ASSERT_EQ(pv.status, 201) << pv.body;
  EXPECT_EQ(at(parse(pv), {"spec", "persistentVolumeReclaimPolicy"}), "Retain");
  EXPECT_EQ(at(parse(pv), {"spec", "volumeMode"}), "Filesystem");
  EXPECT_EQ(at(parse(pv), {"status", "phase"}), "Pending");
  auto pvc = call("POST", "/api/v1/namespaces/default/persistentvolumeclaims",
                  R"({"metadata":{"name":"c"},"spec":{"accessModes":["ReadWriteOnce"],)"
                  R"("resources":{"requests":{"storage":"1Gi"}}}})");
  ASSERT_EQ(pvc.status, 201) << pvc.body;
  EXPECT_EQ(at(parse(pvc), {"spec", "volumeMode"}), "Filesystem");
  EXPECT_EQ(at(parse(pvc), {"status", "phase"}), "Pending");
  auto secret = call("POST", "/api/v1/namespaces/default/secrets", R"({"metadata":{"name":"s"}})");
  ASSERT_EQ(secret.status, 201) << secret.body;
  EXPECT_EQ(at(parse(secret), {"type"}), "Opaque");
  auto svc = call("POST", "/api/v1/namespaces/default/services",
                  R"({"metadata":{"name":"svc"},"spec":{"ports":[{"port":80}]}})");
  ASSERT_EQ(svc.status, 201) << svc.body;
  auto spec = at(parse(svc), {"spec"});
  EXPECT_EQ(at(spec, {"type"}), "ClusterIP");
  EXPECT_EQ(at(spec, {"sessionAffinity"}), "None");
  EXPECT_EQ(at(spec, {"internalTrafficPolicy"}), "Cluster");
  EXPECT_EQ(at(spec, {"ports"}).as_array()[0].as_object()["protocol"], "TCP");
  EXPECT_EQ(at(spec, {"ports"}).as_array()[0].as_object()["targetPort"], 80);
  auto rc = call("POST", "/api/v1/namespaces/default/replicationcontrollers",
                 R"({"metadata":{"name":"rc"},"spec":{"template":{"metadata":{"labels":{"app":"x"}},)"
                 R"("spec":{"containers":[{"name":"c","image":"nginx"}]}}}})");
  ASSERT_EQ(rc.status, 201) << rc.body;
  EXPECT_EQ(at(parse(rc), {"spec", "selector", "app"}), "x");
  EXPECT_EQ(at(parse(rc), {"spec", "replicas"}), 1);
  EXPECT_EQ(at(parse(rc), {"metadata", "labels", "app"}), "x");
  auto lr = call("POST", "/api/v1/namespaces/default/limitranges",
                 R"({"metadata":{"name":"lr"},"spec":{"limits":[{"type":"Container","max":{"cpu":"2"},)"
                 R"("min":{"memory":"1Mi"}}]}})");
  ASSERT_EQ(lr.status, 201) << lr.body;
  auto item = at(parse(lr), {"spec", "limits"}).as_array()[0];
  EXPECT_EQ(at(item, {"default", "cpu"}), "2");
  EXPECT_EQ(at(item, {"defaultRequest", "cpu"}), "2");
  EXPECT_EQ(at(item, {"defaultRequest", "memory"}), "1Mi");
}

// ------------------------------------------------------------------ pod-level resources

// defaultPodRequests / defaultHugePagePodLimits (pkg/apis/core/v1/defaults.go): with pod-level
// limits, unset pod-level requests are the containers' aggregate (overcommittable resources),
// else the pod-level limit; hugepages limits the containers set become the pod's.
TEST_F(UpstreamV135Test, PodLevelResourcesDefaults) {
  auto r = call("POST", "/api/v1/namespaces/default/pods", R"({"metadata":{"name":"plr"},"spec":{
      "resources":{"limits":{"cpu":"4","memory":"4Gi"}},
      "initContainers":[{"name":"side","image":"busybox:1","restartPolicy":"Always",
                         "resources":{"requests":{"cpu":"500m"}}},
                        {"name":"init","image":"busybox:1","resources":{"requests":{"cpu":"3"}}}],
      "containers":[{"name":"a","image":"nginx:1","resources":{"requests":{"cpu":"1"}}},
                    {"name":"b","image":"nginx:1","resources":{"requests":{"cpu":"1"},
                                                                "limits":{"hugepages-2Mi":"4Mi","memory":"1Gi"}}}]}})");
  ASSERT_EQ(r.status, 201) << r.body;
  auto pod = parse(r);
  // cpu: max(1 + 1 + 0.5, 3 + 0.5) = 3500m; memory: the containers' 1Gi (b's request defaulted
  // from its limit); hugepages: the containers' limit, and then the request from the limit.
  EXPECT_EQ(at(pod, {"spec", "resources", "requests", "cpu"}), "3500m");
  EXPECT_EQ(at(pod, {"spec", "resources", "requests", "memory"}), "1Gi");
  EXPECT_EQ(at(pod, {"spec", "resources", "limits", "hugepages-2Mi"}), "4Mi");
  EXPECT_EQ(at(pod, {"spec", "resources", "requests", "hugepages-2Mi"}), "4Mi");
  // With no container requests the pod-level requests are the pod-level limits.
  auto only = create_pod("only", R"("resources":{"limits":{"cpu":"2","memory":"1Gi"}},)");
  ASSERT_EQ(only.status, 201) << only.body;
  EXPECT_EQ(at(parse(only), {"spec", "resources", "requests"}), (json::object{{"cpu", "2"}, {"memory", "1Gi"}}));
  // ComputePodQOS reads the pod-level resources when set: Guaranteed here, although the container
  // sets nothing.
  EXPECT_EQ(at(parse(only), {"status", "qosClass"}), "Guaranteed");
}

// validatePodResources / validatePodResourceName / validatePodResourceConsistency
// (pkg/apis/core/validation/validation.go).
TEST_F(UpstreamV135Test, PodLevelResourcesValidation) {
  auto names = create_pod("n", R"("resources":{"requests":{"ephemeral-storage":"1Gi"}},)");
  ASSERT_EQ(names.status, 422) << names.body;
  EXPECT_THAT(causes(names), ::testing::ElementsAre(
                                 "spec.resources.requests[ephemeral-storage]: Unsupported value: \"ephemeral-storage\": "
                                 "supported values: \"cpu\", \"hugepages-\", \"memory\""));
  auto consistency =
      create_pod("c", R"("resources":{"requests":{"cpu":"1","memory":"1Gi"},"limits":{"cpu":"2","memory":"1Gi"}},)",
                 R"(,"resources":{"requests":{"cpu":"1500m","memory":"512Mi"},"limits":{"memory":"2Gi"}})");
  ASSERT_EQ(consistency.status, 422) << consistency.body;
  EXPECT_THAT(causes(consistency),
              ::testing::ElementsAre(
                  "spec.resources.requests[cpu]: Invalid value: \"1\": must be greater than or equal to aggregate "
                  "container requests of 1500m",
                  "spec.resources.containers[0][memory].limits: Invalid value: \"2Gi\": must be less than or equal "
                  "to pod limits of 1Gi"));
  auto windows = create_pod("w", R"("os":{"name":"windows"},"resources":{"requests":{"cpu":"1"}},)");
  ASSERT_EQ(windows.status, 422);
  EXPECT_THAT(causes(windows), ::testing::Contains("spec.resources: Forbidden: may not be set for a windows pod"));
  auto claims = create_pod("cl", R"("resources":{"claims":[{"name":"x"}]},)");
  ASSERT_EQ(claims.status, 422);
  EXPECT_THAT(causes(claims),
              ::testing::Contains("spec.resources.claims: Forbidden: claims may not be set for Resources at pod-level"));
}

// ComputePodQOS (pkg/apis/core/helper/qos/qos.go): init containers count, quantities are summed
// over the containers, only cpu and memory above zero matter; PrepareForCreate keeps a qosClass
// the client sent (GetPodQOS reads the status before it is reset).
TEST_F(UpstreamV135Test, QosClassAsComputePodQOS) {
  auto sum = call("POST", "/api/v1/namespaces/default/pods", R"({"metadata":{"name":"sum"},"spec":{"containers":[
      {"name":"a","image":"nginx:1","resources":{"limits":{"cpu":"1","memory":"1Gi"}}},
      {"name":"b","image":"nginx:1","resources":{"limits":{"cpu":"500m","memory":"+1Gi"}}}]}})");
  ASSERT_EQ(sum.status, 201) << sum.body;
  EXPECT_EQ(at(parse(sum), {"status", "qosClass"}), "Guaranteed");  // quantities compared, not texts
  auto init = call("POST", "/api/v1/namespaces/default/pods", R"({"metadata":{"name":"init"},"spec":{
      "initContainers":[{"name":"i","image":"busybox:1","resources":{"requests":{"cpu":"100m"}}}],
      "containers":[{"name":"a","image":"nginx:1","resources":{"limits":{"cpu":"1","memory":"1Gi"}}}]}})");
  ASSERT_EQ(init.status, 201) << init.body;
  EXPECT_EQ(at(parse(init), {"status", "qosClass"}), "Burstable");  // the init container has no limits
  auto zero = create_pod("zero", "", R"(,"resources":{"requests":{"cpu":"0","ephemeral-storage":"1Gi"}})");
  ASSERT_EQ(zero.status, 201) << zero.body;
  EXPECT_EQ(at(parse(zero), {"status", "qosClass"}), "BestEffort");
  auto client = call("POST", "/api/v1/namespaces/default/pods",
                     R"({"metadata":{"name":"client"},"spec":{"containers":[{"name":"c","image":"nginx:1"}]},)"
                     R"("status":{"qosClass":"Guaranteed","phase":"Running"}})");
  ASSERT_EQ(client.status, 201) << client.body;
  EXPECT_EQ(at(parse(client), {"status"}), (json::object{{"phase", "Pending"}, {"qosClass", "Guaranteed"}}));
}

// ------------------------------------------------------------------ containers (v1.35 beta gates)

// validateContainerRestartPolicy / validateInitContainerRestartPolicy with ContainerRestartRules
// (beta, on in v1.35), validatePodHostName (HostnameOverride, beta), validateResizePolicy.
TEST_F(UpstreamV135Test, ContainerRestartRulesHostnameOverrideAndResizePolicy) {
  auto ok = create_pod("rules", "",
                       R"(,"restartPolicy":"Never","restartPolicyRules":[{"action":"Restart",)"
                       R"("exitCodes":{"operator":"In","values":[42]}}])");
  EXPECT_EQ(ok.status, 201) << ok.body;
  auto bad = create_pod("bad", "",
                        R"(,"restartPolicy":"Sometimes","restartPolicyRules":[{"action":"RestartAllContainers"},)"
                        R"({"action":"Restart","exitCodes":{"operator":"Is"}}])");
  ASSERT_EQ(bad.status, 422);
  EXPECT_THAT(causes(bad),
              ::testing::ElementsAre(
                  "spec.containers[0].restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", "
                  "\"Never\", \"OnFailure\"",
                  "spec.containers[0].restartPolicyRules[0].action: Unsupported value: \"RestartAllContainers\": "
                  "supported values: \"Restart\"",
                  "spec.containers[0].restartPolicyRules[0].exitCodes: Required value: must be specified",
                  "spec.containers[0].restartPolicyRules[1].exitCodes.operator: Unsupported value: \"Is\": "
                  "supported values: \"In\", \"NotIn\""));
  auto sidecar = call("POST", "/api/v1/namespaces/default/pods", R"({"metadata":{"name":"sidecar"},"spec":{
      "initContainers":[{"name":"s","image":"busybox:1","restartPolicy":"Always",
                         "restartPolicyRules":[{"action":"Restart","exitCodes":{"operator":"In","values":[1]}}]},
                        {"name":"once","image":"busybox:1","restartPolicy":"OnFailure"}],
      "containers":[{"name":"c","image":"nginx:1"}]}})");
  ASSERT_EQ(sidecar.status, 422);
  EXPECT_THAT(causes(sidecar), ::testing::ElementsAre("spec.initContainers[0].restartPolicyRules: Forbidden: "
                                                      "restartPolicyRules are not allowed for init containers with "
                                                      "restart policy Always"));
  auto host = create_pod("host", R"("hostnameOverride":"Not_A_Name","setHostnameAsFQDN":true,)");
  ASSERT_EQ(host.status, 422);
  EXPECT_THAT(causes(host), ::testing::Contains("spec.hostnameOverride: Forbidden: may not be specified when "
                                                "setHostnameAsFQDN is true"));
  EXPECT_THAT(causes(host), ::testing::Contains(HasSubstr("spec.hostnameOverride: Invalid value: \"Not_A_Name\"")));
  EXPECT_EQ(create_pod("named", R"("hostnameOverride":"web-1.example",)").status, 201);
  auto resize = create_pod("resize", R"("restartPolicy":"Never",)",
                           R"(,"resizePolicy":[{"resourceName":"cpu","restartPolicy":"RestartContainer"}])");
  ASSERT_EQ(resize.status, 422);
  EXPECT_THAT(causes(resize), ::testing::ElementsAre("spec.containers[0].resizePolicy: Invalid value: "
                                                     "\"RestartContainer\": must be 'NotRequired' when "
                                                     "`restartPolicy` is 'Never'"));
}

// ------------------------------------------------------------------ the pod strategy

// podStrategy.PrepareForCreate sets generation 1 and updatePodGeneration bumps it on spec
// changes (PodObservedGenerationTracking, GA in v1.35); status writes and bindings leave it
// (setPodNodeAndMetadata does not bump it); the first graceful deletion bumps it
// (rest.BeforeDelete).
TEST_F(UpstreamV135Test, PodGeneration) {
  ASSERT_EQ(create_node("n1").status, 201);
  ASSERT_EQ(create_pod("g").status, 201);
  EXPECT_EQ(at(get_pod("g"), {"metadata", "generation"}), 1);
  auto img = call("PATCH", "/api/v1/namespaces/default/pods/g",
                  R"({"spec":{"containers":[{"name":"c","image":"nginx:1.28"}]}})",
                  "application/strategic-merge-patch+json");
  ASSERT_EQ(img.status, 200) << img.body;
  EXPECT_EQ(at(parse(img), {"metadata", "generation"}), 2);
  auto labels = call("PATCH", "/api/v1/namespaces/default/pods/g", R"({"metadata":{"labels":{"a":"b"}}})",
                     "application/merge-patch+json");
  EXPECT_EQ(at(parse(labels), {"metadata", "generation"}), 2);
  auto st = call("PATCH", "/api/v1/namespaces/default/pods/g/status", R"({"status":{"phase":"Pending"}})",
                 "application/merge-patch+json");
  EXPECT_EQ(at(parse(st), {"metadata", "generation"}), 2);
  ASSERT_EQ(bind("g", "n1").status, 201);
  EXPECT_EQ(at(get_pod("g"), {"metadata", "generation"}), 2);
  auto del = call("DELETE", "/api/v1/namespaces/default/pods/g", R"({"gracePeriodSeconds":30})");
  ASSERT_EQ(del.status, 200);
  EXPECT_EQ(at(parse(del), {"metadata", "generation"}), 3);
  // Shortening the grace period does not bump it again.
  auto shorter = call("DELETE", "/api/v1/namespaces/default/pods/g", R"({"gracePeriodSeconds":10})");
  EXPECT_EQ(at(parse(shorter), {"metadata", "generation"}), 3);
}

// podStatusStrategy.PrepareForUpdate: preserveOldObservedGeneration keeps the stored
// observedGeneration of the status and of each condition (by type, in order) when a write leaves
// it 0, and an empty qosClass is the stored one; ValidatePodStatusUpdate refuses negative
// generations and a changed qosClass.
TEST_F(UpstreamV135Test, PodStatusWritesKeepObservedGenerations) {
  ASSERT_EQ(create_pod("s").status, 201);
  auto put = call("PATCH", "/api/v1/namespaces/default/pods/s/status",
                  R"({"status":{"observedGeneration":1,"conditions":[)"
                  R"({"type":"Ready","status":"False","observedGeneration":1},)"
                  R"({"type":"PodScheduled","status":"False","observedGeneration":1}]}})",
                  "application/merge-patch+json");
  ASSERT_EQ(put.status, 200) << put.body;
  auto next = call("PATCH", "/api/v1/namespaces/default/pods/s/status",
                   R"({"status":{"observedGeneration":null,"qosClass":null,"conditions":[)"
                   R"({"type":"Ready","status":"True"},{"type":"PodScheduled","status":"False"}]}})",
                   "application/merge-patch+json");
  ASSERT_EQ(next.status, 200) << next.body;
  auto status = at(parse(next), {"status"});
  EXPECT_EQ(at(status, {"observedGeneration"}), 1);
  EXPECT_EQ(at(status, {"qosClass"}), "BestEffort");
  const json::value conditions = at(status, {"conditions"});
  for (const auto& c : conditions.as_array()) EXPECT_EQ(at(c, {"observedGeneration"}), 1);
  auto negative = call("PATCH", "/api/v1/namespaces/default/pods/s/status",
                       R"({"status":{"observedGeneration":-1,"qosClass":"Guaranteed"}})", "application/merge-patch+json");
  ASSERT_EQ(negative.status, 422);
  EXPECT_THAT(causes(negative),
              ::testing::ElementsAre("status.observedGeneration: Invalid value: -1: must be a non-negative integer",
                                     "status.qosClass: Invalid value: \"Guaranteed\": field is immutable"));
}

// mutatePodAffinity / mutateTopologySpreadConstraints: at creation the pod's values of the
// matchLabelKeys (In) and mismatchLabelKeys (NotIn) join the terms' label selectors.
TEST_F(UpstreamV135Test, MatchLabelKeysMergeIntoSelectorsAtCreation) {
  auto r = call("POST", "/api/v1/namespaces/default/pods", R"({"metadata":{"name":"m","labels":{"app":"web","rev":"7"}},
    "spec":{"containers":[{"name":"c","image":"nginx:1"}],
      "affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
        {"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname",
         "matchLabelKeys":["rev"],"mismatchLabelKeys":["missing"]}]}},
      "topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule",
        "labelSelector":{"matchLabels":{"app":"web"}},"matchLabelKeys":["rev"]}]}})");
  ASSERT_EQ(r.status, 201) << r.body;
  auto pod = parse(r);
  json::array want{json::object{{"key", "rev"}, {"operator", "In"}, {"values", json::array{"7"}}}};
  auto term = at(pod, {"spec", "affinity", "podAntiAffinity", "requiredDuringSchedulingIgnoredDuringExecution"})
                  .as_array()[0];
  EXPECT_EQ(at(term, {"labelSelector", "matchExpressions"}), want);
  EXPECT_EQ(at(at(pod, {"spec", "topologySpreadConstraints"}).as_array()[0], {"labelSelector", "matchExpressions"}),
            want);
}

// PrepareForCreate's applySchedulingGatedCondition goes through podutil.UpdatePodCondition, which
// stamps lastTransitionTime.
TEST_F(UpstreamV135Test, SchedulingGatedConditionHasATransitionTime) {
  auto r = create_pod("gated", R"("schedulingGates":[{"name":"example.com/wait"}],)");
  ASSERT_EQ(r.status, 201) << r.body;
  auto c = at(parse(r), {"status", "conditions"}).as_array()[0];
  EXPECT_EQ(at(c, {"reason"}), "SchedulingGated");
  EXPECT_TRUE(at(c, {"lastTransitionTime"}).is_string());
  EXPECT_TRUE(at(c, {"lastProbeTime"}).is_null());
}

// ------------------------------------------------------------------ bindings

// The binding storage (setPodNodeAndMetadata) clears status.nominatedNodeName
// (ClearingNominatedNodeNameAfterBinding, beta in v1.35) and copies the binding's labels; the
// PodTopologyLabels admission plugin (beta in v1.35) adds the node's topology.kubernetes.io zone
// and region to them, and to a pod created bound to a node.
TEST_F(UpstreamV135Test, BindingCopiesTopologyLabelsAndClearsTheNomination) {
  ASSERT_EQ(create_node("n1", R"({"topology.kubernetes.io/zone":"z1","topology.kubernetes.io/region":"r1","other":"x"})")
                .status,
            201);
  ASSERT_EQ(create_pod("b", "", "", R"(,"labels":{"topology.kubernetes.io/zone":"mine"})").status, 201);
  ASSERT_EQ(call("PATCH", "/api/v1/namespaces/default/pods/b/status", R"({"status":{"nominatedNodeName":"n1"}})",
                 "application/merge-patch+json")
                .status,
            200);
  auto r = bind("b", "n1", R"(,"labels":{"team":"a"})");
  ASSERT_EQ(r.status, 201) << r.body;
  auto pod = get_pod("b");
  EXPECT_EQ(at(pod, {"metadata", "labels"}), (json::object{{"topology.kubernetes.io/zone", "z1"},
                                                           {"topology.kubernetes.io/region", "r1"},
                                                           {"team", "a"}}));
  EXPECT_TRUE(at(pod, {"status", "nominatedNodeName"}).is_null());
  // A nomination on a bound pod is refused (ValidatePodStatusUpdate).
  auto again = call("PATCH", "/api/v1/namespaces/default/pods/b/status", R"({"status":{"nominatedNodeName":"n2"}})",
                    "application/merge-patch+json");
  EXPECT_EQ(again.status, 422);
  EXPECT_THAT(causes(again), ::testing::ElementsAre("status.nominatedNodeName: Forbidden: may not be set on pods "
                                                    "that are already bound to a node"));
  auto direct = create_pod("direct", R"("nodeName":"n1",)");
  ASSERT_EQ(direct.status, 201) << direct.body;
  EXPECT_EQ(at(parse(direct), {"metadata", "labels", "topology.kubernetes.io/zone"}), "z1");
  EXPECT_TRUE(at(parse(direct), {"metadata", "labels", "other"}).is_null());
}

// ------------------------------------------------------------------ graceful deletion

// rest.BeforeDelete + the store's Delete (apiserver registry/rest/delete.go,
// registry/generic/registry/store.go) with the pod strategy's CheckGracefulDelete: a bound pod is
// MODIFIED with deletionTimestamp and deletionGracePeriodSeconds; the kubelet's delete with grace
// 0 shortens it (MODIFIED, deletionGracePeriodSeconds 0) and then deletes it (DELETED); a pod on
// no node is MODIFIED with grace 0 and DELETED at once.
TEST_F(UpstreamV135Test, GracefulDeletionEventSequence) {
  ASSERT_EQ(create_node("n1").status, 201);
  ASSERT_EQ(create_pod("bound").status, 201);
  ASSERT_EQ(create_pod("unbound").status, 201);
  ASSERT_EQ(bind("bound", "n1").status, 201);
  const std::int64_t rv = api_.store().revision();
  auto d = call("DELETE", "/api/v1/namespaces/default/pods/bound");
  ASSERT_EQ(d.status, 200);
  EXPECT_EQ(at(parse(d), {"metadata", "deletionGracePeriodSeconds"}), 30);  // the pod's terminationGracePeriodSeconds
  clock_.step(std::chrono::seconds(2));
  auto k = call("DELETE", "/api/v1/namespaces/default/pods/bound",
                R"({"gracePeriodSeconds":0,"preconditions":{"uid":")" +
                    std::string(at(parse(d), {"metadata", "uid"}).as_string()) + R"("}})");
  ASSERT_EQ(k.status, 200) << k.body;
  ASSERT_EQ(call("DELETE", "/api/v1/namespaces/default/pods/unbound").status, 200);
  auto events = pod_events_since(rv);
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(events[0].first, "MODIFIED");
  EXPECT_EQ(at(events[0].second, {"metadata", "deletionGracePeriodSeconds"}), 30);
  EXPECT_EQ(events[1].first, "MODIFIED");
  EXPECT_EQ(at(events[1].second, {"metadata", "deletionGracePeriodSeconds"}), 0);
  // The shortened deadline is now: the old one moved back by 30 s and forward by 0 lies behind.
  EXPECT_EQ(at(events[1].second, {"metadata", "deletionTimestamp"}), json::value(format_rfc3339(api_.now_unix())));
  EXPECT_EQ(events[2].first, "DELETED");
  EXPECT_EQ(at(events[2].second, {"metadata", "name"}), "bound");
  EXPECT_EQ(events[3].first, "MODIFIED");
  EXPECT_EQ(at(events[3].second, {"metadata", "deletionGracePeriodSeconds"}), 0);
  EXPECT_EQ(events[4].first, "DELETED");
  EXPECT_EQ(at(events[4].second, {"metadata", "name"}), "unbound");
}

// BeforeDelete on a pod already being deleted: an equal or longer grace period changes nothing;
// a shorter one whose deadline has passed becomes "now" with the shortest graceful period, 1 s.
TEST_F(UpstreamV135Test, RepeatedDeletesOnlyShortenTheGracePeriod) {
  ASSERT_EQ(create_node("n1").status, 201);
  ASSERT_EQ(create_pod("p").status, 201);
  ASSERT_EQ(bind("p", "n1").status, 201);
  auto first = call("DELETE", "/api/v1/namespaces/default/pods/p", R"({"gracePeriodSeconds":30})");
  ASSERT_EQ(first.status, 200);
  const std::int64_t rv = api_.store().revision();
  auto longer = call("DELETE", "/api/v1/namespaces/default/pods/p", R"({"gracePeriodSeconds":60})");
  EXPECT_EQ(at(parse(longer), {"metadata"}), at(parse(first), {"metadata"}));
  EXPECT_EQ(api_.store().revision(), rv);  // nothing written
  clock_.step(std::chrono::seconds(25));
  auto shorter = call("DELETE", "/api/v1/namespaces/default/pods/p", R"({"gracePeriodSeconds":3})");
  ASSERT_EQ(shorter.status, 200);
  EXPECT_EQ(at(parse(shorter), {"metadata", "deletionGracePeriodSeconds"}), 1);
  EXPECT_EQ(at(parse(shorter), {"metadata", "deletionTimestamp"}), json::value(format_rfc3339(api_.now_unix())));
}

// ------------------------------------------------------------------ nodes

// NodeDeclaredFeatures is alpha and off in v1.35: the node strategy drops status.declaredFeatures;
// with the gate on they are stored and validated (validateNodeDeclaredFeatures).
TEST_F(UpstreamV135Test, NodeDeclaredFeaturesFollowTheirGate) {
  auto off = call("POST", "/api/v1/nodes",
                  R"({"metadata":{"name":"off"},"status":{"declaredFeatures":["InPlacePodVerticalScaling"]}})");
  ASSERT_EQ(off.status, 201) << off.body;
  EXPECT_TRUE(at(parse(off), {"status", "declaredFeatures"}).is_null());
  FeatureGates gates;
  gates.NodeDeclaredFeatures = true;
  api_.set_feature_gates(gates);
  auto on = call("POST", "/api/v1/nodes",
                 R"({"metadata":{"name":"on"},"status":{"declaredFeatures":["A/sub","B"]}})");
  ASSERT_EQ(on.status, 201) << on.body;
  EXPECT_EQ(at(parse(on), {"status", "declaredFeatures"}), (json::array{"A/sub", "B"}));
  auto bad = call("POST", "/api/v1/nodes",
                  R"({"metadata":{"name":"bad"},"status":{"declaredFeatures":["lower","B","B","A"]}})");
  ASSERT_EQ(bad.status, 422);
  EXPECT_THAT(causes(bad),
              ::testing::ElementsAre(
                  "status.declaredFeatures[0]: Invalid value: \"lower\": invalid feature name \"lower\": must start "
                  "with an UpperCamelCase segment, with subsequent segments separated by '/' (e.g., MyFeature or "
                  "MyFeature/mySubFeature), and contain only alphanumeric characters and slashes",
                  // "lower" > "B" as Go compares strings (bytes): out of order too.
                  "status.declaredFeatures[1]: Invalid value: \"B\": list must be sorted alphabetically",
                  "status.declaredFeatures[2]: Duplicate value: \"B\"",
                  "status.declaredFeatures[3]: Invalid value: \"A\": list must be sorted alphabetically"));
  // Turned off again, a node that has them keeps them (dropDisabledFields checks the stored node).
  api_.set_feature_gates(FeatureGates{});
  auto keep = call("PATCH", "/api/v1/nodes/on/status", R"({"status":{"declaredFeatures":["A/sub","B","C"]}})",
                   "application/merge-patch+json");
  ASSERT_EQ(keep.status, 200) << keep.body;
  EXPECT_EQ(at(parse(keep), {"status", "declaredFeatures"}), (json::array{"A/sub", "B", "C"}));
}

// --feature-gates: component-base's syntax and messages.
TEST(FeatureGatesTest, ParsesUpstreamSyntax) {
  auto g = FeatureGates::parse("NodeDeclaredFeatures=true, PodLevelResources=false");
  ASSERT_TRUE(g);
  EXPECT_TRUE(g->NodeDeclaredFeatures);
  EXPECT_FALSE(g->PodLevelResources);
  EXPECT_TRUE(g->PodTopologyLabelsAdmission);
  EXPECT_EQ(FeatureGates::parse("Nope=true").error(), "unrecognized feature gate: Nope");
  EXPECT_EQ(FeatureGates::parse("PodLevelResources=maybe").error(),
            "invalid value of PodLevelResources=maybe, err: strconv.ParseBool: parsing \"maybe\": invalid syntax");
  EXPECT_EQ(FeatureGates::parse("PodLevelResources").error(), "missing bool value for PodLevelResources");
}

}  // namespace
}  // namespace ksched::apiserver
