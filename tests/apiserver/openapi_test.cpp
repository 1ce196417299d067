// OpenAPI schemas generated from the API structs, the v2/v3 documents and aggregated discovery.
#include "apiserver/endpoints/openapi.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <functional>
#include <map>
#include <set>

#include "apiserver/auth/auth.h"
#include "apiserver/endpoints/handlers.h"
#include "apiserver/resources.h"
#include "util/clock.h"

namespace ksched::apiserver {
namespace {

namespace json = boost::json;
using openapi::Flavor;

constexpr const char* kV3 = "#/components/schemas/";

const json::object& def(Flavor f, std::string_view name) {
  const auto* d = openapi::definitions(f).if_contains(name);
  EXPECT_NE(d, nullptr) << name;
  static const json::object none;
  return d ? d->as_object() : none;
}

const json::object& prop(const json::object& schema, std::string_view name) {
  static const json::object none;
  const auto* props = schema.if_contains("properties");
  const auto* p = props ? props->as_object().if_contains(name) : nullptr;
  EXPECT_NE(p, nullptr) << "missing property " << name;
  return p ? p->as_object() : none;
}

std::string ref(const json::object& s) {
  const auto* r = s.if_contains("$ref");
  return r ? std::string(r->as_string()) : "";
}

TEST(OpenApiTest, PodSchemaFollowsSpecToContainers) {
  const auto& pod = def(Flavor::V3, "io.k8s.api.core.v1.Pod");
  auto gvk = pod.at("x-kubernetes-group-version-kind").as_array();
  ASSERT_EQ(gvk.size(), 1u);
  EXPECT_EQ(gvk[0], (json::object{{"group", ""}, {"kind", "Pod"}, {"version", "v1"}}));
  EXPECT_FALSE(pod.at("description").as_string().empty());
  EXPECT_EQ(ref(prop(pod, "metadata")), std::string(kV3) + "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  EXPECT_EQ(ref(prop(pod, "spec")), std::string(kV3) + "io.k8s.api.core.v1.PodSpec");
  EXPECT_EQ(prop(pod, "kind").at("type"), "string");

  const auto& spec = def(Flavor::V3, "io.k8s.api.core.v1.PodSpec");
  const auto& containers = prop(spec, "containers");
  EXPECT_EQ(containers.at("type"), "array");
  EXPECT_EQ(ref(containers.at("items").as_object()), std::string(kV3) + "io.k8s.api.core.v1.Container");
  // List merge semantics come from the server's strategic merge patch.
  EXPECT_EQ(containers.at("x-kubernetes-patch-merge-key"), "name");
  EXPECT_EQ(containers.at("x-kubernetes-patch-strategy"), "merge");
  EXPECT_FALSE(prop(spec, "tolerations").contains("x-kubernetes-patch-merge-key"));
  EXPECT_EQ(prop(spec, "nodeSelector").at("additionalProperties"), (json::object{{"type", "string"}}));
  EXPECT_EQ(prop(spec, "priority"), (json::object{{"type", "integer"}, {"format", "int32"}}));
  EXPECT_EQ(prop(spec, "activeDeadlineSeconds"), (json::object{{"type", "integer"}, {"format", "int64"}}));
  EXPECT_EQ(prop(spec, "hostNetwork"), (json::object{{"type", "boolean"}}));
  // Boxed/optional members are their value's schema.
  EXPECT_EQ(ref(prop(spec, "affinity")), std::string(kV3) + "io.k8s.api.core.v1.Affinity");

  const auto& c = def(Flavor::V3, "io.k8s.api.core.v1.Container");
  EXPECT_EQ(prop(c, "name").at("type"), "string");
  EXPECT_EQ(prop(c, "image").at("type"), "string");
  EXPECT_EQ(prop(c, "ports").at("x-kubernetes-patch-merge-key"), "containerPort");
  EXPECT_EQ(ref(prop(c, "resources")), std::string(kV3) + "io.k8s.api.core.v1.ResourceRequirements");
  const auto& rr = def(Flavor::V3, "io.k8s.api.core.v1.ResourceRequirements");
  EXPECT_EQ(ref(prop(rr, "limits").at("additionalProperties").as_object()),
            std::string(kV3) + "io.k8s.apimachinery.pkg.api.resource.Quantity");

  const auto& meta = def(Flavor::V3, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  EXPECT_EQ(ref(prop(meta, "creationTimestamp")),
            std::string(kV3) + "io.k8s.apimachinery.pkg.apis.meta.v1.Time");
  EXPECT_EQ(prop(meta, "finalizers").at("x-kubernetes-patch-strategy"), "merge");
  EXPECT_EQ(prop(meta, "ownerReferences").at("x-kubernetes-patch-merge-key"), "uid");
  EXPECT_EQ(def(Flavor::V3, "io.k8s.apimachinery.pkg.apis.meta.v1.Time"),
            (json::object{{"type", "string"}, {"format", "date-time"}}));
}

TEST(OpenApiTest, LeafTypesInBothFlavors) {
  const auto& q3 = def(Flavor::V3, "io.k8s.apimachinery.pkg.api.resource.Quantity");
  EXPECT_EQ(q3.at("oneOf").as_array().size(), 2u);
  EXPECT_EQ(def(Flavor::V2, "io.k8s.apimachinery.pkg.api.resource.Quantity"),
            (json::object{{"type", "string"}}));
  const auto& ios3 = def(Flavor::V3, "io.k8s.apimachinery.pkg.util.intstr.IntOrString");
  EXPECT_EQ(ios3.at("x-kubernetes-int-or-string"), true);
  EXPECT_EQ(ios3.at("format"), "int-or-string");
  EXPECT_EQ(def(Flavor::V2, "io.k8s.apimachinery.pkg.util.intstr.IntOrString").at("format"), "int-or-string");
  const auto& pdb = def(Flavor::V3, "io.k8s.api.policy.v1.PodDisruptionBudgetSpec");
  EXPECT_EQ(ref(prop(pdb, "minAvailable")),
            std::string(kV3) + "io.k8s.apimachinery.pkg.util.intstr.IntOrString");
  const auto& apps = def(Flavor::V3, "io.k8s.api.apps.v1.Deployment");
  EXPECT_EQ(prop(apps, "status"),
            (json::object{{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}));
  // The pod template the typed spec keeps verbatim is described by a schema-only addition.
  const auto& dspec = def(Flavor::V3, "io.k8s.api.apps.v1.DeploymentSpec");
  EXPECT_EQ(ref(prop(dspec, "template")), std::string(kV3) + "io.k8s.api.core.v1.PodTemplateSpec");
  EXPECT_EQ(ref(prop(dspec, "selector")),
            std::string(kV3) + "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector");
  // Members kept verbatim by the typed structs, described by schema-only additions.
  const auto& c = def(Flavor::V3, "io.k8s.api.core.v1.Container");
  EXPECT_EQ(prop(c, "env").at("x-kubernetes-patch-merge-key"), "name");
  EXPECT_EQ(prop(c, "volumeMounts").at("x-kubernetes-patch-merge-key"), "mountPath");
  EXPECT_EQ(ref(prop(c, "env").at("items").as_object()), std::string(kV3) + "io.k8s.api.core.v1.EnvVar");
  EXPECT_EQ(
      prop(def(Flavor::V3, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"), "managedFields").at("type"),
      "array");
  EXPECT_EQ(ref(prop(def(Flavor::V3, "io.k8s.api.core.v1.Namespace"), "spec")),
            std::string(kV3) + "io.k8s.api.core.v1.NamespaceSpec");
  // v2 refs point into #/definitions.
  EXPECT_EQ(ref(prop(def(Flavor::V2, "io.k8s.api.core.v1.Pod"), "spec")),
            "#/definitions/io.k8s.api.core.v1.PodSpec");
}

// Calls `fn` on every schema nested in `v` (properties, items, additionalProperties, oneOf...).
void walk(const json::value& v, const std::function<void(const json::object&)>& fn) {
  if (v.is_object()) {
    fn(v.get_object());
    for (const auto& kv : v.get_object()) walk(kv.value(), fn);
  } else if (v.is_array()) {
    for (const auto& e : v.get_array()) walk(e, fn);
  }
}

TEST(OpenApiTest, EveryStructIsANamedDefinition) {
  // An unnamed struct is inlined as {"type":"object","properties":...} inside another schema; the
  // name table in openapi.cpp must cover every struct.
  for (const auto& kv : openapi::definitions(Flavor::V3)) {
    const auto& props = kv.value().as_object().if_contains("properties");
    if (!props) continue;
    for (const auto& p : props->as_object()) {
      walk(p.value(), [&](const json::object& o) {
        EXPECT_FALSE(o.contains("properties")) << kv.key() << "." << p.key() << " is an unnamed struct";
      });
    }
  }
}

TEST(OpenApiTest, EveryServedKindHasASchemaInItsGroupVersionDocument) {
  auto index = json::parse(openapi::v3_index()).as_object();
  for (const auto& r : all_resources()) {
    std::string gv = r.group.empty() ? "api/" + r.version : "apis/" + r.group + "/" + r.version;
    SCOPED_TRACE(gv + " " + r.kind);
    std::string_view name = openapi::kind_definition(r.group, r.version, r.kind);  // a kind may be served at several versions
    ASSERT_FALSE(name.empty());
    const auto& entry = index.at("paths").as_object().at(gv).as_object();
    EXPECT_TRUE(
        std::string(entry.at("serverRelativeURL").as_string()).starts_with("/openapi/v3/" + gv + "?hash="));

    auto doc = json::parse(openapi::v3_document(gv)).as_object();
    const auto& schemas = doc.at("components").as_object().at("schemas").as_object();
    ASSERT_TRUE(schemas.contains(name));
    json::object want{{"group", r.group}, {"kind", r.kind}, {"version", r.version}};
    bool found = false;
    for (const auto& g : schemas.at(name).as_object().at("x-kubernetes-group-version-kind").as_array())
      found = found || g == want;
    EXPECT_TRUE(found);
    // The kind's item path carries the GVK (explain reads it) and fieldValidation (apply reads it).
    std::string path = r.gv_path() + (r.namespaced ? "/namespaces/{namespace}/" : "/") + r.plural + "/{name}";
    const auto& patch = doc.at("paths").as_object().at(path).as_object().at("patch").as_object();
    EXPECT_EQ(patch.at("x-kubernetes-group-version-kind").as_object().at("kind").as_string(), r.kind);
    bool field_validation = false;
    for (const auto& p : patch.at("parameters").as_array())
      field_validation = field_validation || p.as_object().at("name") == "fieldValidation";
    EXPECT_TRUE(field_validation);
    // No strategic-merge-patch body: kubectl must not compute apply patches from these schemas.
    EXPECT_FALSE(patch.contains("requestBody"));
    const auto& put = doc.at("paths").as_object().at(path).as_object().at("put").as_object();
    EXPECT_EQ(put.at("requestBody").at("content").at("application/json").at("schema").at("$ref").as_string(),
              std::string(kV3) + std::string(name));
  }
}

TEST(OpenApiTest, DocumentsAreSelfContained) {
  auto check = [](const json::object& doc, const json::object& schemas, const std::string& prefix) {
    walk(doc, [&](const json::object& o) {
      const auto* r = o.if_contains("$ref");
      if (!r) return;
      std::string s(r->as_string());
      ASSERT_TRUE(s.starts_with(prefix)) << s;
      EXPECT_TRUE(schemas.contains(s.substr(prefix.size()))) << s;
    });
  };
  auto index = json::parse(openapi::v3_index()).as_object();
  for (const auto& kv : index.at("paths").as_object()) {
    auto doc = json::parse(openapi::v3_document(kv.key())).as_object();
    EXPECT_EQ(doc.at("openapi"), "3.0.0");
    check(doc, doc.at("components").as_object().at("schemas").as_object(), kV3);
  }
  EXPECT_EQ(openapi::v3_document("apis/nope/v1"), "");
  auto v2 = json::parse(openapi::v2_document()).as_object();
  EXPECT_EQ(v2.at("swagger"), "2.0");
  const auto& defs = v2.at("definitions").as_object();
  EXPECT_TRUE(
      defs.at("io.k8s.api.apps.v1.Deployment").as_object().contains("x-kubernetes-group-version-kind"));
  check(v2, defs, "#/definitions/");
  // apps/v1 pulls in the core types its pod templates use.
  auto apps = json::parse(openapi::v3_document("apis/apps/v1")).as_object();
  EXPECT_TRUE(
      apps.at("components").as_object().at("schemas").as_object().contains("io.k8s.api.core.v1.Container"));
}

// Job's spec.scheduling (v1.37, JobSchedulingConfiguration; issue #44), which `kubectl explain
// job.spec.scheduling` reads: upstream's definition names (batch/v1 for the configuration,
// scheduling/v1alpha3 for its WorkloadPodGroup* blocks) in both flavors, and in the batch/v1 v3
// document. Upstream's generated documents list a gated field whatever its gate, and so do these.
TEST(OpenApiTest, JobSpecScheduling) {
  for (auto [flavor, prefix] : {std::pair{Flavor::V3, std::string(kV3)}, std::pair{Flavor::V2, std::string("#/definitions/")}}) {
    const auto& spec = def(flavor, "io.k8s.api.batch.v1.JobSpec");
    EXPECT_EQ(ref(prop(spec, "scheduling")), prefix + "io.k8s.api.batch.v1.JobSchedulingConfiguration");
    const auto& cfg = def(flavor, "io.k8s.api.batch.v1.JobSchedulingConfiguration");
    EXPECT_EQ(ref(prop(cfg, "schedulingPolicy")), prefix + "io.k8s.api.scheduling.v1alpha3.WorkloadPodGroupSchedulingPolicy");
    EXPECT_EQ(ref(prop(cfg, "schedulingConstraints")),
              prefix + "io.k8s.api.scheduling.v1alpha3.WorkloadPodGroupSchedulingConstraints");
    EXPECT_EQ(ref(prop(cfg, "disruptionMode")), prefix + "io.k8s.api.scheduling.v1alpha3.WorkloadPodGroupDisruptionMode");
    const auto& claims = prop(cfg, "resourceClaims");
    EXPECT_EQ(claims.at("type"), "array");
    EXPECT_EQ(ref(claims.at("items").as_object()), prefix + "io.k8s.api.scheduling.v1alpha3.WorkloadPodGroupResourceClaim");
    const auto& policy = def(flavor, "io.k8s.api.scheduling.v1alpha3.WorkloadPodGroupSchedulingPolicy");
    EXPECT_EQ(ref(prop(policy, "gang")), prefix + "io.k8s.api.scheduling.v1alpha3.WorkloadPodGroupGangSchedulingPolicy");
    EXPECT_EQ(ref(prop(policy, "basic")), prefix + "io.k8s.api.scheduling.v1alpha3.WorkloadPodGroupBasicSchedulingPolicy");
    EXPECT_EQ(prop(def(flavor, "io.k8s.api.scheduling.v1alpha3.WorkloadPodGroupGangSchedulingPolicy"), "minCount"),
              (json::object{{"type", "integer"}, {"format", "int32"}}));
    const auto& constraints = def(flavor, "io.k8s.api.scheduling.v1alpha3.WorkloadPodGroupSchedulingConstraints");
    EXPECT_EQ(ref(prop(constraints, "topology").at("items").as_object()),
              prefix + "io.k8s.api.scheduling.v1alpha3.TopologyConstraint");
    const auto& mode = def(flavor, "io.k8s.api.scheduling.v1alpha3.WorkloadPodGroupDisruptionMode");
    EXPECT_EQ(ref(prop(mode, "all")), prefix + "io.k8s.api.scheduling.v1alpha3.WorkloadPodGroupAllDisruptionMode");
    EXPECT_EQ(ref(prop(mode, "single")), prefix + "io.k8s.api.scheduling.v1alpha3.WorkloadPodGroupSingleDisruptionMode");
    const auto& claim = def(flavor, "io.k8s.api.scheduling.v1alpha3.WorkloadPodGroupResourceClaim");
    EXPECT_EQ(prop(claim, "resourceClaimTemplateName").at("type"), "string");
  }
  // The batch/v1 document (what explain reads) carries them, and so do CronJob's job templates.
  auto batch = json::parse(openapi::v3_document("apis/batch/v1")).as_object();
  const auto& schemas = batch.at("components").as_object().at("schemas").as_object();
  EXPECT_TRUE(schemas.contains("io.k8s.api.batch.v1.JobSchedulingConfiguration"));
  EXPECT_TRUE(schemas.contains("io.k8s.api.scheduling.v1alpha3.WorkloadPodGroupGangSchedulingPolicy"));
  EXPECT_EQ(ref(prop(def(Flavor::V3, "io.k8s.api.batch.v1.JobTemplateSpec"), "spec")),
            std::string(kV3) + "io.k8s.api.batch.v1.JobSpec");
}

// ---------------------------------------------------------------- over Api::handle

class OpenApiHttpTest : public ::testing::Test {
 protected:
  OpenApiHttpTest() : api_(100, clock_) { api_.bootstrap(); }
  Response get(const std::string& path, const std::string& accept) {
    Request r;
    r.user = &admin_user();
    r.method = "GET";
    r.path = path;
    r.accept = accept;
    return api_.handle(r);
  }
  static std::string header(const Response& r, std::string_view k) {
    for (const auto& [hk, hv] : r.headers)
      if (hk == k) return hv;
    return "";
  }
  util::FakeClock clock_;
  Api api_;
};

constexpr const char* kAggV2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
constexpr const char* kAggV2Beta1 =
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";

TEST_F(OpenApiHttpTest, AggregatedDiscoveryForCoreGroup) {
  // What client-go sends: v2, then v2beta1, then legacy JSON at lower priority.
  auto r = get("/api", std::string(kAggV2) + "," + kAggV2Beta1 + ",application/json;q=0.9");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, kAggV2);
  EXPECT_EQ(header(r, "Vary"), "Accept");
  auto o = json::parse(r.body).as_object();
  EXPECT_EQ(o["kind"], "APIGroupDiscoveryList");
  EXPECT_EQ(o["apiVersion"], "apidiscovery.k8s.io/v2");
  auto items = o["items"].as_array();
  ASSERT_EQ(items.size(), 1u);
  EXPECT_FALSE(items[0].at("metadata").as_object().contains("name"));
  auto versions = items[0].at("versions").as_array();
  ASSERT_EQ(versions.size(), 1u);
  EXPECT_EQ(versions[0].at("version"), "v1");
  EXPECT_EQ(versions[0].at("freshness"), "Current");
  const json::object* pods = nullptr;
  const json::object* nodes = nullptr;
  for (const auto& res : versions[0].at("resources").as_array()) {
    if (res.at("resource") == "pods") pods = &res.as_object();
    if (res.at("resource") == "nodes") nodes = &res.as_object();
  }
  ASSERT_TRUE(pods && nodes);
  EXPECT_EQ(pods->at("responseKind"), (json::object{{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}));
  EXPECT_EQ(pods->at("scope"), "Namespaced");
  EXPECT_EQ(nodes->at("scope"), "Cluster");
  EXPECT_EQ(pods->at("singularResource"), "pod");
  EXPECT_EQ(pods->at("shortNames"), json::array{"po"});
  EXPECT_EQ(pods->at("categories"), json::array{"all"});
  EXPECT_EQ(pods->at("verbs").as_array().size(), 8u);
  std::map<std::string, json::object> subs;
  for (const auto& s : pods->at("subresources").as_array())
    subs[std::string(s.at("subresource").as_string())] = s.as_object();
  ASSERT_EQ(subs.size(), 3u);
  EXPECT_EQ(subs["eviction"].at("responseKind"),
            (json::object{{"group", "policy"}, {"version", "v1"}, {"kind", "Eviction"}}));
  EXPECT_EQ(subs["binding"].at("verbs"), json::array{"create"});
  EXPECT_EQ(subs["status"].at("responseKind").at("kind"), "Pod");
  EXPECT_EQ(subs["status"].at("verbs"), (json::array{"get", "patch", "update"}));
}

TEST_F(OpenApiHttpTest, AggregatedDiscoveryForGroups) {
  auto r = get("/apis", kAggV2Beta1);
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, kAggV2Beta1);
  auto o = json::parse(r.body).as_object();
  EXPECT_EQ(o["apiVersion"], "apidiscovery.k8s.io/v2beta1");
  std::vector<std::string> names;
  for (const auto& it : o["items"].as_array()) {
    names.emplace_back(it.at("metadata").at("name").as_string());
    for (const auto& v : it.at("versions").as_array())
      for (const auto& res : v.at("resources").as_array())
        EXPECT_EQ(res.at("responseKind").at("group"), it.at("metadata").at("name"));
  }
  EXPECT_EQ(names, api_groups(FeatureGates{}));
  // Deployments' scale subresource answers with autoscaling/v1 Scale.
  auto apps = o["items"].as_array()[0].as_object();
  ASSERT_EQ(apps["metadata"].at("name"), "apps");
  bool scale = false;
  for (const auto& res : apps["versions"].as_array()[0].at("resources").as_array()) {
    if (res.at("resource") != "deployments") continue;
    for (const auto& s : res.at("subresources").as_array())
      if (s.at("subresource") == "scale")
        scale = s.at("responseKind") ==
                json::object{{"group", "autoscaling"}, {"version", "v1"}, {"kind", "Scale"}};
  }
  EXPECT_TRUE(scale);
}

TEST_F(OpenApiHttpTest, LegacyDiscoveryUnlessAggregatedIsPreferred) {
  for (std::string accept : std::vector<std::string>{
           "", "application/json", "*/*", "application/json;q=1," + std::string(kAggV2) + ";q=0.5",
           "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
           "application/json",
           std::string("application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList")}) {
    SCOPED_TRACE(accept);
    auto a = get("/api", accept);
    EXPECT_EQ(a.content_type, "application/json");
    EXPECT_EQ(json::parse(a.body).at("kind"), "APIVersions");
    EXPECT_EQ(header(a, "Vary"), "Accept");
    auto g = get("/apis", accept);
    EXPECT_EQ(json::parse(g.body).at("kind"), "APIGroupList");
  }
  // A higher q on the aggregated form selects it even when listed second.
  auto r = get("/apis", "application/json;q=0.5, " + std::string(kAggV2));
  EXPECT_EQ(r.content_type, kAggV2);
}

// A minimal protobuf reader: the length-delimited fields of one message, by field number.
std::multimap<std::uint32_t, std::string_view> pb_fields(std::string_view m) {
  std::multimap<std::uint32_t, std::string_view> out;
  auto varint = [&]() {
    std::uint64_t v = 0;
    for (int shift = 0; !m.empty(); shift += 7) {
      auto b = static_cast<unsigned char>(m.front());
      m.remove_prefix(1);
      v |= std::uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) break;
    }
    return v;
  };
  while (!m.empty()) {
    std::uint64_t key = varint();
    EXPECT_EQ(key & 7, 2u) << "only length-delimited fields are written";
    std::uint64_t n = varint();
    out.emplace(static_cast<std::uint32_t>(key >> 3), m.substr(0, n));
    m.remove_prefix(std::min<std::size_t>(n, m.size()));
  }
  return out;
}

TEST_F(OpenApiHttpTest, OpenApiV2InJsonAndProtobuf) {
  auto r = get("/openapi/v2", "application/json");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(json::parse(r.body).at("swagger"), "2.0");
  EXPECT_EQ(get("/openapi/v2", "").status, 200);
  EXPECT_EQ(get("/openapi/v2", "text/html").status, 406);

  // What kubectl sends; gnostic's openapi_v2.Document comes back.
  auto pb = get("/openapi/v2", std::string(openapi::kV2ProtobufAccept));
  ASSERT_EQ(pb.status, 200);
  EXPECT_EQ(pb.content_type, "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
  auto doc = pb_fields(pb.body);
  EXPECT_EQ(doc.find(1)->second, "2.0");                                    // swagger
  EXPECT_EQ(pb_fields(doc.find(2)->second).find(1)->second, "Kubernetes");  // info.title
  ASSERT_EQ(doc.count(9), 1u);                                              // definitions
  std::map<std::string, std::string_view> defs;
  for (const auto& [n, named] : pb_fields(doc.find(9)->second)) {
    auto f = pb_fields(named);  // NamedSchema{name = 1, value = 2}
    defs[std::string(f.find(1)->second)] = f.find(2)->second;
  }
  EXPECT_EQ(defs.size(), openapi::definitions(Flavor::V2).size());
  ASSERT_TRUE(defs.count("io.k8s.api.core.v1.Pod"));
  auto pod = pb_fields(defs["io.k8s.api.core.v1.Pod"]);
  EXPECT_EQ(pb_fields(pod.find(22)->second).find(1)->second, "object");  // type
  bool gvk = false;
  for (auto [it, end] = pod.equal_range(31); it != end; ++it) {  // vendor extensions
    auto named = pb_fields(it->second);
    if (named.find(1)->second != "x-kubernetes-group-version-kind") continue;
    auto yaml = pb_fields(named.find(2)->second).find(2)->second;  // Any.yaml
    gvk = json::parse(yaml) == json::array{json::object{{"group", ""}, {"kind", "Pod"}, {"version", "v1"}}};
  }
  EXPECT_TRUE(gvk);
  std::map<std::string, std::string_view> props;  // properties.additional_properties
  for (const auto& [n, named] : pb_fields(pod.find(25)->second)) {
    auto f = pb_fields(named);
    props[std::string(f.find(1)->second)] = f.find(2)->second;
  }
  EXPECT_EQ(pb_fields(props["spec"]).find(1)->second, "#/definitions/io.k8s.api.core.v1.PodSpec");  // $ref

  auto v3 = get("/openapi/v3/api/v1", "application/json");
  ASSERT_EQ(v3.status, 200);
  EXPECT_TRUE(
      json::parse(v3.body).at("components").at("schemas").as_object().contains("io.k8s.api.core.v1.Pod"));
}

}  // namespace
}  // namespace ksched::apiserver
