// JSON -> protobuf as upstream writes it, content negotiation, and the server's protobuf answers
// (get, list, watch, errors) through Api::handle.
//
// Byte-exactness is checked two ways: every body kubectl v1.32 sent (tests/fixtures/protobuf/*.pb,
// Go's own marshalling) must come back byte for byte from its JSON, and a few objects are compared
// with bytes built here by hand from the field numbers of k8s.io/api's generated.proto and the rules
// of Go's generated marshallers (fields in number order; non-pointer fields always, zero values
// included; pointers and []byte only when set; map entries sorted by key, key and value always).
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/protobuf_codec.h"
#include "api/protobuf_json.h"
#include "api/status_error.h"
#include "apiserver/auth/auth.h"
#include "apiserver/endpoints/handlers.h"
#include "apiserver/endpoints/protobuf.h"
#include "apiserver/features.h"
#include "client/resources.h"
#include "client/resources_dra.h"
#include "client/resources_scheduling.h"
#include "util/clock.h"

namespace pb = ksched::api::protobuf;
namespace apb = ksched::apiserver::protobuf;
namespace json = boost::json;
using ksched::apiserver::Api;
using ksched::apiserver::Request;
using ksched::apiserver::Response;

namespace {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
const std::filesystem::path kFixtures = std::filesystem::path(KSCHED_SOURCE_DIR) / "tests/fixtures";

std::string varint(std::uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
  return out;
}
std::string vfield(std::uint32_t field, std::uint64_t v) { return varint((field << 3) | 0) + varint(v); }
std::string lfield(std::uint32_t field, std::string_view payload) {
  return varint((field << 3) | 2) + varint(payload.size()) + std::string(payload);
}
std::string envelope(std::string_view api_version, std::string_view kind, std::string_view raw) {
  return std::string("k8s\0", 4) + lfield(1, lfield(1, api_version) + lfield(2, kind)) + lfield(2, raw) + lfield(3, "") +
         lfield(4, "");
}
// ObjectMeta with name, namespace and uid: 1 name, 2 generateName, 3 namespace, 4 selfLink, 5 uid,
// 6 resourceVersion, 7 generation (varint), 8 creationTimestamp (an empty Time when zero).
std::string object_meta(std::string_view name, std::string_view ns, std::string_view uid, std::string_view rv = "",
                        std::string_view created = "") {
  return lfield(1, name) + lfield(2, "") + lfield(3, ns) + lfield(4, "") + lfield(5, uid) + lfield(6, rv) + vfield(7, 0) +
         lfield(8, created);
}
std::string hex(std::string_view s) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out += d[c >> 4];
    out += d[c & 15];
    out += ' ';
  }
  return out;
}

}  // namespace

TEST(ProtobufEncode, EveryKubectlBodyComesBackByteForByte) {
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kFixtures / "protobuf")) {
    if (entry.path().extension() != ".pb") continue;
    SCOPED_TRACE(entry.path().filename().string());
    std::string body = read_file(entry.path());
    auto j = pb::to_json(body);
    ASSERT_TRUE(j.ok()) << j.error();
    auto back = pb::from_json(*j);
    ASSERT_TRUE(back.ok()) << back.error();
    EXPECT_EQ(hex(*back), hex(body));
    ++checked;
  }
  EXPECT_EQ(checked, 25);
}

TEST(ProtobufEncode, BindingAsKubeSchedulerSendsIt) {
  auto got = pb::from_json(read_file(kFixtures / "binding.json"));
  ASSERT_TRUE(got.ok()) << got.error();
  // Binding {1 metadata, 2 target}; ObjectReference {1 kind, 2 namespace, 3 name, 4 uid,
  // 5 apiVersion, 6 resourceVersion, 7 fieldPath}.
  std::string target = lfield(1, "Node") + lfield(2, "") + lfield(3, "node-a-1") + lfield(4, "") + lfield(5, "") +
                       lfield(6, "") + lfield(7, "");
  std::string raw = lfield(1, object_meta("web", "shop", "1f0b3a4e-2c55-4c1e-9a4b-8f6e2a1d9c01")) + lfield(2, target);
  EXPECT_EQ(hex(*got), hex(envelope("v1", "Binding", raw)));
}

TEST(ProtobufEncode, PodWithLabelsResourcesTolerationsAndStatus) {
  std::string pod_json = R"({"kind":"Pod","apiVersion":"v1",
    "metadata":{"name":"p","namespace":"ns","uid":"u","resourceVersion":"7","creationTimestamp":"2025-01-15T10:04:05Z",
      "labels":{"b":"2","a":"1"}},
    "spec":{"containers":[{"name":"c","image":"img","resources":{"requests":{"cpu":"100m","memory":"1Gi"}}}],
      "nodeName":"n1","priority":0,
      "tolerations":[{"key":"k","operator":"Exists","effect":"NoSchedule","tolerationSeconds":-1}]},
    "status":{"phase":"Pending"}})";
  auto got = pb::from_json(pod_json);
  ASSERT_TRUE(got.ok()) << got.error();
  // Labels: map entries sorted by key, {1 key, 2 value}.
  std::string labels = lfield(11, lfield(1, "a") + lfield(2, "1")) + lfield(11, lfield(1, "b") + lfield(2, "2"));
  std::string meta = lfield(1, "p") + lfield(2, "") + lfield(3, "ns") + lfield(4, "") + lfield(5, "u") + lfield(6, "7") +
                     vfield(7, 0) + lfield(8, vfield(1, 1736935445) + vfield(2, 0)) + labels;
  // ResourceRequirements {1 limits, 2 requests, 3 claims}; Quantity {1 string}.
  std::string requests = lfield(2, lfield(1, "cpu") + lfield(2, lfield(1, "100m"))) +
                         lfield(2, lfield(1, "memory") + lfield(2, lfield(1, "1Gi")));
  // Container: 1 name, 2 image, 5 workingDir, 8 resources, 13 terminationMessagePath,
  // 14 imagePullPolicy, 16 stdin, 17 stdinOnce, 18 tty, 20 terminationMessagePolicy.
  std::string container = lfield(1, "c") + lfield(2, "img") + lfield(5, "") + lfield(8, requests) + lfield(13, "") +
                          lfield(14, "") + vfield(16, 0) + vfield(17, 0) + vfield(18, 0) + lfield(20, "");
  // Toleration {1 key, 2 operator, 3 value, 4 effect, 5 tolerationSeconds (pointer)}: -1 as a
  // ten-byte varint.
  std::string toleration = lfield(1, "k") + lfield(2, "Exists") + lfield(3, "") + lfield(4, "NoSchedule") +
                           vfield(5, static_cast<std::uint64_t>(std::int64_t{-1}));
  // PodSpec: 2 containers, 3 restartPolicy, 6 dnsPolicy, 8 serviceAccountName, 9 serviceAccount,
  // 10 nodeName, 11 hostNetwork, 12 hostPID, 13 hostIPC, 16 hostname, 17 subdomain,
  // 19 schedulerName, 22 tolerations, 24 priorityClassName, 25 priority (pointer).
  std::string spec = lfield(2, container) + lfield(3, "") + lfield(6, "") + lfield(8, "") + lfield(9, "") +
                     lfield(10, "n1") + vfield(11, 0) + vfield(12, 0) + vfield(13, 0) + lfield(16, "") + lfield(17, "") +
                     lfield(19, "") + lfield(22, toleration) + lfield(24, "") + vfield(25, 0);
  // PodStatus: 1 phase, 3 message, 4 reason, 5 hostIP, 6 podIP, 9 qosClass, 11 nominatedNodeName,
  // 14 resize, 17 observedGeneration.
  std::string status = lfield(1, "Pending") + lfield(3, "") + lfield(4, "") + lfield(5, "") + lfield(6, "") +
                       lfield(9, "") + lfield(11, "") + lfield(14, "") + vfield(17, 0);
  EXPECT_EQ(hex(*got), hex(envelope("v1", "Pod", lfield(1, meta) + lfield(2, spec) + lfield(3, status))));
}

TEST(ProtobufEncode, NodeWithTaintsAndIntOrStringAndMicroTime) {
  auto node = pb::from_json(R"({"kind":"Node","apiVersion":"v1","metadata":{"name":"n"},
    "spec":{"taints":[{"key":"k","effect":"NoSchedule"}]},
    "status":{"allocatable":{"pods":"110"}}})");
  ASSERT_TRUE(node.ok()) << node.error();
  // NodeSpec: 1 podCIDR, 3 providerID, 4 unschedulable, 5 taints, 2 externalID -> number order.
  std::string taint = lfield(1, "k") + lfield(2, "") + lfield(3, "NoSchedule");
  std::string spec = lfield(1, "") + lfield(2, "") + lfield(3, "") + vfield(4, 0) + lfield(5, taint);
  // NodeStatus: 2 allocatable, 3 phase, 6 daemonEndpoints {1 kubeletEndpoint {1 Port}},
  // 7 nodeInfo (ten strings, all written).
  std::string info;
  for (std::uint32_t f = 1; f <= 10; ++f) info += lfield(f, "");
  std::string status = lfield(2, lfield(1, "pods") + lfield(2, lfield(1, "110"))) + lfield(3, "") +
                       lfield(6, lfield(1, vfield(1, 0))) + lfield(7, info);
  EXPECT_EQ(hex(*node), hex(envelope("v1", "Node", lfield(1, object_meta("n", "", "")) + lfield(2, spec) + lfield(3, status))));

  // PodDisruptionBudgetSpec.maxUnavailable: IntOrString {1 type, 2 intVal, 3 strVal}, all written.
  auto pdb = pb::from_json(R"({"kind":"PodDisruptionBudget","apiVersion":"policy/v1","metadata":{"name":"b"},
    "spec":{"maxUnavailable":"50%"}})");
  ASSERT_TRUE(pdb.ok()) << pdb.error();
  std::string pdb_spec = lfield(3, vfield(1, 1) + vfield(2, 0) + lfield(3, "50%"));
  // PodDisruptionBudgetStatus: 1 observedGeneration, 3..6 the counts.
  std::string pdb_status = vfield(1, 0) + vfield(3, 0) + vfield(4, 0) + vfield(5, 0) + vfield(6, 0);
  EXPECT_EQ(hex(*pdb), hex(envelope("policy/v1", "PodDisruptionBudget",
                                    lfield(1, object_meta("b", "", "")) + lfield(2, pdb_spec) + lfield(3, pdb_status))));

  // Lease.spec.renewTime: MicroTime {1 seconds, 2 nanos} with the microseconds.
  auto lease = pb::from_json(R"({"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"l"},
    "spec":{"holderIdentity":"h","renewTime":"2025-01-15T10:04:05.123456Z"}})");
  ASSERT_TRUE(lease.ok()) << lease.error();
  std::string lease_spec = lfield(1, "h") + lfield(4, vfield(1, 1736935445) + vfield(2, 123456000));
  EXPECT_EQ(hex(*lease), hex(envelope("coordination.k8s.io/v1", "Lease", lfield(1, object_meta("l", "", "")) + lfield(2, lease_spec))));
}

TEST(ProtobufEncode, EverySchedulerFixtureRoundTripsThroughGoJson) {
  // Each kind the scheduler watches: its JSON -> protobuf -> the JSON Go writes -> protobuf gives
  // the same bytes (the encoding keeps every field the tables know), and the JSON keeps the
  // fixture's scheduler-relevant content.
  const char* files[] = {"pod_full.json",  "node_full.json",    "pv.json",        "pv_intree.json", "pvc.json",
                         "pvc_pending.json", "storageclass.json", "csinode.json", "csidriver.json",
                         "csistoragecapacity.json", "replicaset.json", "statefulset.json", "rc.json",
                         "daemonset.json", "pdb_status.json", "event_v1.json", "event_core.json", "lease.json",
                         "runtimeclass.json", "kubectl_namespace.json", "kubectl_service.json",
                         "kubectl_priorityclass.json", "kubectl_deployment.json", "deviceclass.json",
                         "resourceclaim.json", "resourceclaimtemplate.json", "resourceslice.json",
                         "resourceslice_pernode.json", "pod_schedulinggroup.json", "workload_v1alpha1.json",
                         "workload_v1beta1.json", "podgroup_v1beta1.json"};
  for (const char* f : files) {
    SCOPED_TRACE(f);
    std::string src = read_file(kFixtures / f);
    std::size_t dropped = 0;
    auto bytes = pb::from_json(src, &dropped);
    ASSERT_TRUE(bytes.ok()) << bytes.error();
    EXPECT_EQ(dropped, 0u);
    auto go_json = pb::to_json(*bytes);
    ASSERT_TRUE(go_json.ok()) << go_json.error();
    auto again = pb::from_json(*go_json);
    ASSERT_TRUE(again.ok()) << again.error();
    EXPECT_EQ(hex(*again), hex(*bytes));
    auto orig = json::parse(src).as_object();
    auto rendered = json::parse(*go_json).as_object();
    EXPECT_EQ(rendered.at("metadata").at("name"), orig.at("metadata").at("name"));
    if (orig.contains("spec")) {
      // Every member the fixture's spec has survives (Go may add zero values; it drops only the
      // empty values of omitempty fields, e.g. storageClassName "").
      for (const auto& kv : orig.at("spec").as_object()) {
        if (kv.value().is_null() || (kv.value().is_string() && kv.value().as_string().empty())) continue;
        EXPECT_TRUE(rendered.at("spec").as_object().contains(kv.key())) << kv.key();
      }
    }
  }
}

TEST(ProtobufEncode, DeviceTaintRuleWithUpstreamsFieldNumbers) {
  auto got = pb::from_json(R"({"kind":"DeviceTaintRule","apiVersion":"resource.k8s.io/v1beta2","metadata":{"name":"r"},
    "spec":{"deviceSelector":{"driver":"d","device":"gpu-0"},
      "taint":{"key":"k","effect":"NoSchedule","timeAdded":"2025-01-15T10:04:05Z"}},
    "status":{"conditions":[{"type":"EvictionInProgress","status":"True","observedGeneration":2,
      "lastTransitionTime":"2025-01-15T10:04:05Z","reason":"R","message":"m"}]}})");
  ASSERT_TRUE(got.ok()) << got.error();
  // DeviceTaintRuleSpec {1 deviceSelector (pointer), 2 taint}; DeviceTaintSelector {2 driver,
  // 3 pool, 4 device}, each a pointer written only when set; DeviceTaint {1 key, 2 value,
  // 3 effect, 4 timeAdded (pointer)}; Time {1 seconds, 2 nanos}.
  std::string time = vfield(1, 1736935445) + vfield(2, 0);
  std::string spec = lfield(1, lfield(2, "d") + lfield(4, "gpu-0")) +
                     lfield(2, lfield(1, "k") + lfield(2, "") + lfield(3, "NoSchedule") + lfield(4, time));
  // DeviceTaintRuleStatus {1 conditions}; metav1.Condition {1 type, 2 status, 3 observedGeneration,
  // 4 lastTransitionTime, 5 reason, 6 message}.
  std::string condition = lfield(1, "EvictionInProgress") + lfield(2, "True") + vfield(3, 2) + lfield(4, time) +
                          lfield(5, "R") + lfield(6, "m");
  EXPECT_EQ(hex(*got), hex(envelope("resource.k8s.io/v1beta2", "DeviceTaintRule",
                                    lfield(1, object_meta("r", "", "")) + lfield(2, spec) + lfield(3, lfield(1, condition)))));

  // The fixture: JSON -> protobuf -> the JSON Go writes -> the same bytes, every field kept.
  std::size_t dropped = 0;
  auto bytes = pb::from_json(read_file(kFixtures / "devicetaintrule.json"), &dropped);
  ASSERT_TRUE(bytes.ok()) << bytes.error();
  EXPECT_EQ(dropped, 0u);
  auto go_json = pb::to_json(*bytes);
  ASSERT_TRUE(go_json.ok()) << go_json.error();
  auto again = pb::from_json(*go_json);
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(hex(*again), hex(*bytes));
  EXPECT_EQ(json::parse(*go_json), json::parse(read_file(kFixtures / "devicetaintrule.json")));
}

TEST(ProtobufEncode, ValuesOfTheWrongTypeAreCountedAndLeftOut) {
  std::size_t dropped = 0;
  auto r = pb::from_json(R"({"kind":"Namespace","apiVersion":"v1","metadata":{"name":7,"generation":"x"}})", &dropped);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(dropped, 2u);
  EXPECT_FALSE(pb::from_json(R"({"kind":"Foo","apiVersion":"example.com/v1"})").ok());
  EXPECT_FALSE(pb::from_json("[1]").ok());
}

// ---- content negotiation ---------------------------------------------------------------------

TEST(ProtobufNegotiation, AsUpstreamOrdersAndMatchesClauses) {
  using O = apb::Output;
  EXPECT_EQ(apb::negotiate("application/vnd.kubernetes.protobuf, */*", true), O::Protobuf);
  EXPECT_EQ(apb::negotiate("application/vnd.kubernetes.protobuf,application/json", true), O::Protobuf);
  EXPECT_EQ(apb::negotiate("application/vnd.kubernetes.protobuf, */*", false), O::Json);  // no tables: */* is JSON
  EXPECT_EQ(apb::negotiate("application/json, application/vnd.kubernetes.protobuf", true), O::Json);
  EXPECT_EQ(apb::negotiate("application/json;q=0.5, application/vnd.kubernetes.protobuf", true), O::Protobuf);
  EXPECT_EQ(apb::negotiate("application/vnd.kubernetes.protobuf;q=0.9, application/json", true), O::Json);
  EXPECT_EQ(apb::negotiate("*/*;q=0.8, application/vnd.kubernetes.protobuf;q=0.8", true), O::Protobuf);  // specific first
  EXPECT_EQ(apb::negotiate("application/vnd.kubernetes.protobuf;stream=watch", true), O::Protobuf);
  EXPECT_EQ(apb::negotiate("application/vnd.kubernetes.protobuf;stream=other, application/json", true), O::Json);
  EXPECT_EQ(apb::negotiate("application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/json", true),
            O::Json);
  EXPECT_EQ(apb::negotiate("application/*", true), O::Json);
  EXPECT_EQ(apb::negotiate("", true), O::Json);
  EXPECT_EQ(apb::negotiate("text/html", true), O::Json);
  EXPECT_EQ(apb::negotiate("application/vnd.kubernetes.protobuf;q=x, application/json;q=0.1", true), O::Json);  // q 0
}

// ---- the server's answers ---------------------------------------------------------------------

class ProtobufServer : public ::testing::Test {
 protected:
  ProtobufServer() : api_(1000, clock_) { api_.bootstrap(); }
  Response call(const std::string& method, const std::string& target, const std::string& body = "",
                const std::string& accept = "application/json", const std::string& content_type = "application/json") {
    Request r;
    r.method = method;
    auto q = target.find('?');
    r.path = target.substr(0, q);
    if (q != std::string::npos) r.query = ksched::apiserver::parse_query(target.substr(q + 1));
    r.body = body;
    r.content_type = content_type;
    r.accept = accept;
    r.user = &ksched::apiserver::admin_user();
    return api_.handle(r);
  }
  void create_pod(const std::string& name, const std::string& node = "") {
    std::string body = R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":")" + name +
                       R"(","labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"pause"}])" +
                       (node.empty() ? "" : R"(,"nodeName":")" + node + "\"") + "}}";
    auto r = call("POST", "/api/v1/namespaces/default/pods", body);
    ASSERT_EQ(r.status, 201) << r.body;
  }
  static constexpr const char* kProto = "application/vnd.kubernetes.protobuf, */*";

  ksched::util::FakeClock clock_;
  Api api_;
};

TEST_F(ProtobufServer, GetAnswersTheStoredObjectsEncodingOnceMade) {
  create_pod("a");
  auto j = call("GET", "/api/v1/namespaces/default/pods/a");
  auto p = call("GET", "/api/v1/namespaces/default/pods/a", "", kProto);
  ASSERT_EQ(p.status, 200);
  EXPECT_EQ(p.content_type, "application/vnd.kubernetes.protobuf");
  // The protobuf body is the JSON body's encoding.
  auto from_json = pb::from_json(j.body);
  ASSERT_TRUE(from_json.ok());
  EXPECT_EQ(hex(p.body), hex(*from_json));
  // The encoding is kept with the stored object: a second read returns the same bytes from it.
  auto obj = api_.store().get_published(ksched::apiserver::find_resource("", "v1", "pods")->id, "default", "a");
  ASSERT_NE(obj->protobuf.get(), nullptr);
  auto p2 = call("GET", "/api/v1/namespaces/default/pods/a", "", kProto);
  EXPECT_EQ(p2.body, p.body);
  // JSON clients are unaffected.
  EXPECT_EQ(j.content_type, "application/json");
  EXPECT_EQ(j.body.front(), '{');
}

TEST_F(ProtobufServer, ListEnvelopeListMetaAndItems) {
  create_pod("a");
  create_pod("b", "n1");
  auto r = call("GET", "/api/v1/namespaces/default/pods?limit=1", "", kProto);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.content_type, "application/vnd.kubernetes.protobuf");
  auto list = pb::to_json(r.body, pb::UnknownFields::Reject);
  ASSERT_TRUE(list.ok()) << list.error();
  auto v = json::parse(*list).as_object();
  EXPECT_EQ(v.at("kind"), "PodList");
  EXPECT_EQ(v.at("items").as_array().size(), 1u);
  EXPECT_EQ(v.at("items").at(0).at("metadata").at("name"), "a");
  EXPECT_FALSE(v.at("metadata").at("continue").as_string().empty());
  EXPECT_EQ(v.at("metadata").at("remainingItemCount"), 1);
  auto all = call("GET", "/api/v1/pods", "", kProto);
  auto allv = json::parse(pb::to_json(all.body).value()).as_object();
  EXPECT_EQ(allv.at("items").as_array().size(), 2u);
  EXPECT_EQ(allv.at("items").at(1).at("spec").at("nodeName"), "n1");
  // A Table request stays JSON, as upstream serves what kubectl asks.
  auto t = call("GET", "/api/v1/pods", "", "application/json;as=Table;v=v1;g=meta.k8s.io, application/json");
  EXPECT_EQ(t.content_type, "application/json");
  EXPECT_NE(t.body.find("\"kind\":\"Table\""), std::string::npos);
}

TEST_F(ProtobufServer, ErrorsAreStatusesInProtobufForProtobufClients) {
  auto r = call("GET", "/api/v1/namespaces/default/pods/missing", "", kProto);
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.content_type, "application/vnd.kubernetes.protobuf");
  auto s = pb::to_json(r.body);
  ASSERT_TRUE(s.ok()) << s.error();
  auto v = json::parse(*s).as_object();
  EXPECT_EQ(v.at("kind"), "Status");
  EXPECT_EQ(v.at("reason"), "NotFound");
  EXPECT_EQ(v.at("code"), 404);
  EXPECT_EQ(v.at("message"), "pods \"missing\" not found");
  auto e = ksched::api::StatusError::from_response(r.status, r.body);
  EXPECT_TRUE(ksched::api::is_not_found(e));
  EXPECT_EQ(e.message, "pods \"missing\" not found");
  auto j = call("GET", "/api/v1/namespaces/default/pods/missing");
  EXPECT_EQ(j.content_type, "application/json");
}

TEST_F(ProtobufServer, ProtobufBodiesAreAccepted) {
  auto body = pb::from_json(R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"x"},
    "spec":{"containers":[{"name":"c","image":"pause"}]}})");
  ASSERT_TRUE(body.ok());
  auto r = call("POST", "/api/v1/namespaces/default/pods", *body, "application/json", "application/vnd.kubernetes.protobuf");
  EXPECT_EQ(r.status, 201) << r.body;
  auto bind = pb::from_json(R"({"kind":"Binding","apiVersion":"v1","metadata":{"name":"x","namespace":"default"},
    "target":{"kind":"Node","name":"n1"}})");
  auto b = call("POST", "/api/v1/namespaces/default/pods/x/binding", *bind, kProto, "application/vnd.kubernetes.protobuf");
  EXPECT_EQ(b.status, 201) << b.body;
  auto got = call("GET", "/api/v1/namespaces/default/pods/x");
  EXPECT_EQ(json::parse(got.body).at("spec").at("nodeName"), "n1");
}

TEST_F(ProtobufServer, WatchFramesAndAnExpiredWatchsErrorFrame) {
  create_pod("a");
  auto w = call("GET", "/api/v1/namespaces/default/pods?watch=1&allowWatchBookmarks=true", "", kProto);
  ASSERT_TRUE(w.watcher);
  EXPECT_TRUE(w.watch_protobuf);
  bool closed = false;
  auto items = w.watcher->drain(closed);
  ASSERT_FALSE(items.empty());
  std::string out;
  api_.append_watch_frame(*w.watch_resource, items[0], out);
  ASSERT_GE(out.size(), 4u);
  std::size_t n = (std::size_t(static_cast<unsigned char>(out[0])) << 24) | (std::size_t(static_cast<unsigned char>(out[1])) << 16) |
                  (std::size_t(static_cast<unsigned char>(out[2])) << 8) | std::size_t(static_cast<unsigned char>(out[3]));
  EXPECT_EQ(n, out.size() - 4);
  auto ev = pb::read_watch_event(std::string_view(out).substr(4));
  ASSERT_TRUE(ev.ok()) << ev.error();
  EXPECT_EQ(ev->type, "ADDED");
  auto obj = json::parse(pb::to_json(ev->object).value());
  EXPECT_EQ(obj.at("metadata").at("name"), "a");
  EXPECT_EQ(obj.at("kind"), "Pod");

  // A bookmark carries the kind with only the revision.
  ksched::apiserver::WatchItem bm;
  bm.kind = ksched::apiserver::WatchItem::Kind::InitialEnd;
  bm.rv = 42;
  out.clear();
  api_.append_watch_frame(*w.watch_resource, bm, out);
  auto bev = pb::read_watch_event(std::string_view(out).substr(4));
  ASSERT_TRUE(bev.ok());
  EXPECT_EQ(bev->type, "BOOKMARK");
  auto bobj = json::parse(pb::to_json(bev->object).value());
  EXPECT_EQ(bobj.at("metadata").at("resourceVersion"), "42");
  EXPECT_EQ(bobj.at("metadata").at("annotations").at("k8s.io/initial-events-end"), "true");

  // A watch from a compacted revision: 200 with one ERROR frame holding a 410 Status.
  for (int i = 0; i < 5; ++i) create_pod("p" + std::to_string(i));
  api_.store().compact(api_.store().revision());
  auto old = call("GET", "/api/v1/namespaces/default/pods?watch=1&resourceVersion=2", "", kProto);
  EXPECT_FALSE(old.watcher);
  EXPECT_EQ(old.content_type, "application/vnd.kubernetes.protobuf;stream=watch");
  auto eev = pb::read_watch_event(std::string_view(old.body).substr(4));
  ASSERT_TRUE(eev.ok()) << eev.error();
  EXPECT_EQ(eev->type, "ERROR");
  auto err = ksched::api::StatusError::from_response(500, eev->object);
  EXPECT_EQ(err.code, 410);
  EXPECT_TRUE(ksched::api::is_gone(err));
}

TEST_F(ProtobufServer, EveryKindTheSchedulerWatchesIsServedInProtobuf) {
  using namespace ksched;
  const client::ResourceInfo* infos[] = {
      &client::ResourceFor<api::Pod>::info,          &client::ResourceFor<api::Node>::info,
      &client::ResourceFor<api::Namespace>::info,    &client::ResourceFor<api::Service>::info,
      &client::ResourceFor<api::ReplicationController>::info, &client::ResourceFor<api::ReplicaSet>::info,
      &client::ResourceFor<api::StatefulSet>::info,  &client::ResourceFor<api::PodDisruptionBudget>::info,
      &client::ResourceFor<api::PersistentVolume>::info, &client::ResourceFor<api::PersistentVolumeClaim>::info,
      &client::ResourceFor<api::StorageClass>::info, &client::ResourceFor<api::CSINode>::info,
      &client::ResourceFor<api::CSIDriver>::info,    &client::ResourceFor<api::CSIStorageCapacity>::info,
      &client::ResourceFor<api::resourcev1::DeviceClass>::info,
      &client::ResourceFor<api::resourcev1::ResourceClaim>::info,
      &client::ResourceFor<api::resourcev1::ResourceClaimTemplate>::info,
      &client::ResourceFor<api::resourcev1::ResourceSlice>::info,
      &client::ResourceFor<api::schedulingv1alpha1::Workload>::info,
      &client::ResourceFor<api::schedulingv1beta1::PodGroup>::info};
  for (const auto* info : infos) {
    SCOPED_TRACE(std::string(info->kind));
    const auto* r = apiserver::find_resource(info->group, info->version, info->resource);
    ASSERT_NE(r, nullptr);
    EXPECT_TRUE(apb::encodable(*r));
    EXPECT_TRUE(apb::list_encodable(*r));
  }
}

TEST_F(ProtobufServer, DeviceTaintRuleIsServedAndAcceptedInProtobuf) {
  const std::string path = "/apis/resource.k8s.io/v1beta2/devicetaintrules";
  const auto* r = ksched::apiserver::find_resource("resource.k8s.io", "v1beta2", "devicetaintrules");
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(apb::encodable(*r));
  EXPECT_TRUE(apb::list_encodable(*r));
  // Created from a protobuf body (writes answer JSON): stored with its spec (the server sets no
  // status on create).
  auto obj = json::parse(read_file(kFixtures / "devicetaintrule.json")).as_object();
  obj["metadata"] = json::object{{"name", "maint"}};
  auto body = pb::from_json(json::serialize(obj));
  ASSERT_TRUE(body.ok()) << body.error();
  auto posted = call("POST", path, *body, kProto, "application/vnd.kubernetes.protobuf");
  ASSERT_EQ(posted.status, 201) << posted.body;
  auto j = call("GET", path + "/maint");
  ASSERT_EQ(j.status, 200) << j.body;
  auto stored = json::parse(j.body);
  EXPECT_EQ(stored.at("spec").at("deviceSelector").at("device"), "gpu-0");
  EXPECT_EQ(stored.at("spec").at("taint").at("effect"), "NoExecute");
  EXPECT_EQ(stored.at("spec").at("taint").at("timeAdded"), "2026-12-01T09:05:00Z");
  // Read back in protobuf: the encoding of its JSON; a list too.
  auto p = call("GET", path + "/maint", "", kProto);
  ASSERT_EQ(p.status, 200) << p.body;
  EXPECT_EQ(p.content_type, "application/vnd.kubernetes.protobuf");
  auto from_json = pb::from_json(j.body);
  ASSERT_TRUE(from_json.ok()) << from_json.error();
  EXPECT_EQ(hex(p.body), hex(*from_json));
  auto l = call("GET", path, "", kProto);
  ASSERT_EQ(l.status, 200) << l.body;
  EXPECT_EQ(l.content_type, "application/vnd.kubernetes.protobuf");
  auto list = pb::to_json(l.body);
  ASSERT_TRUE(list.ok()) << list.error();
  auto items = json::parse(*list).at("items").as_array();
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].at("spec").at("taint").at("key"), "example.com/maintenance");
}

TEST_F(ProtobufServer, ResourceKindsAreServedAndAcceptedInProtobuf) {
  // A ResourceSlice written as JSON is read back in protobuf (get, list) as the encoding of its
  // JSON, and its typed decoding keeps the devices; a DeviceClass sent as a protobuf body is stored.
  std::string slice = read_file(kFixtures / "resourceslice.json");
  auto obj = json::parse(slice).as_object();
  obj["metadata"] = json::object{{"name", "s1"}};
  // Counter sets and the devices that consume them go in separate slices of a pool (validation).
  auto& spec = obj["spec"].as_object();
  spec.erase("sharedCounters");
  for (auto& d : spec["devices"].as_array()) d.as_object().erase("consumesCounters");
  auto created = call("POST", "/apis/resource.k8s.io/v1/resourceslices", json::serialize(obj));
  ASSERT_EQ(created.status, 201) << created.body;
  auto j = call("GET", "/apis/resource.k8s.io/v1/resourceslices/s1");
  auto p = call("GET", "/apis/resource.k8s.io/v1/resourceslices/s1", "", kProto);
  ASSERT_EQ(p.status, 200) << p.body;
  EXPECT_EQ(p.content_type, "application/vnd.kubernetes.protobuf");
  auto from_json = pb::from_json(j.body);
  ASSERT_TRUE(from_json.ok()) << from_json.error();
  EXPECT_EQ(hex(p.body), hex(*from_json));
  auto typed = pb::decode<ksched::api::resourcev1::ResourceSlice>(p.body);
  ASSERT_TRUE(typed.ok()) << typed.error();
  ASSERT_EQ(typed->spec.devices.size(), 2u);
  EXPECT_EQ(std::string_view(typed->spec.devices[0].name), "gpu-0");
  EXPECT_EQ(typed->spec.devices[0].attributes.size(), 4u);
  auto l = call("GET", "/apis/resource.k8s.io/v1/resourceslices", "", kProto);
  ASSERT_EQ(l.status, 200) << l.body;
  EXPECT_EQ(l.content_type, "application/vnd.kubernetes.protobuf");
  auto list = pb::decode<ksched::api::List<ksched::api::resourcev1::ResourceSlice>>(l.body);
  ASSERT_TRUE(list.ok()) << list.error();
  ASSERT_EQ(list->items.size(), 1u);
  EXPECT_EQ(list->items[0].metadata.name, "s1");

  auto cls = pb::from_json(read_file(kFixtures / "deviceclass.json"));
  ASSERT_TRUE(cls.ok()) << cls.error();
  auto posted = call("POST", "/apis/resource.k8s.io/v1/deviceclasses", *cls, kProto, "application/vnd.kubernetes.protobuf");
  ASSERT_EQ(posted.status, 201) << posted.body;
  auto back = call("GET", "/apis/resource.k8s.io/v1/deviceclasses/gpu.example.com");
  ASSERT_EQ(back.status, 200) << back.body;
  auto class_spec = json::parse(back.body).at("spec");
  EXPECT_EQ(class_spec.at("extendedResourceName"), "example.com/gpu");
  EXPECT_EQ(class_spec.at("config").at(0).at("opaque").at("parameters").at("sharing").at("strategy"), "TimeSlicing");
  EXPECT_EQ(class_spec.at("selectors").as_array().size(), 2u);
}

// scheduling.k8s.io with GenericWorkload (issue #44): a PodGroup and Workloads sent as protobuf
// bodies are stored;
// PodGroups, v1alpha1 and v1beta1 Workloads and a member pod are read back in protobuf as the
// encoding of their JSON, and their typed decoding holds the group (the pod's spec.schedulingGroup,
// field 43), as kube-scheduler's informers read them.
TEST_F(ProtobufServer, SchedulingKindsAndPodGroupMembersAreServedInProtobuf) {
  ksched::apiserver::FeatureGates gates;
  gates.GenericWorkload = true;
  api_.set_feature_gates(gates);
  api_.bootstrap();
  namespace sch = ksched::api::schedulingv1beta1;
  const std::string groups = "/apis/scheduling.k8s.io/v1beta1/namespaces/default/podgroups";
  auto body = pb::from_json(R"({"apiVersion":"scheduling.k8s.io/v1beta1","kind":"PodGroup","metadata":{"name":"pg"},
    "spec":{"schedulingPolicy":{"gang":{"minCount":2}},"priorityClassName":"","disruptionMode":{"all":{}}}})");
  ASSERT_TRUE(body.ok()) << body.error();
  auto posted = call("POST", groups, *body, kProto, "application/vnd.kubernetes.protobuf");
  ASSERT_EQ(posted.status, 201) << posted.body;
  auto j = call("GET", groups + "/pg");
  ASSERT_EQ(j.status, 200) << j.body;
  EXPECT_EQ(json::parse(j.body).at("spec").at("schedulingPolicy").at("gang").at("minCount"), 2);
  auto p = call("GET", groups + "/pg", "", kProto);
  ASSERT_EQ(p.status, 200) << p.body;
  EXPECT_EQ(p.content_type, "application/vnd.kubernetes.protobuf");
  auto from_json = pb::from_json(j.body);
  ASSERT_TRUE(from_json.ok()) << from_json.error();
  EXPECT_EQ(hex(p.body), hex(*from_json));
  auto typed = pb::decode<sch::PodGroup>(p.body);
  ASSERT_TRUE(typed.ok()) << typed.error();
  ASSERT_TRUE(typed->spec.schedulingPolicy.gang);
  EXPECT_EQ(typed->spec.schedulingPolicy.gang->minCount, 2);
  ASSERT_TRUE(typed->spec.disruptionMode);
  EXPECT_TRUE(typed->spec.disruptionMode->all);
  auto l = call("GET", groups, "", kProto);
  ASSERT_EQ(l.status, 200) << l.body;
  EXPECT_EQ(l.content_type, "application/vnd.kubernetes.protobuf");
  auto list = pb::decode<ksched::api::List<sch::PodGroup>>(l.body);
  ASSERT_TRUE(list.ok()) << list.error();
  ASSERT_EQ(list->items.size(), 1u);
  EXPECT_EQ(list->items[0].metadata.name, "pg");

  auto member = call("POST", "/api/v1/namespaces/default/pods",
                     R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"m"},"spec":{"containers":[{"name":"c","image":"i"}],
                         "schedulingGroup":{"podGroupName":"pg"}}})");
  ASSERT_EQ(member.status, 201) << member.body;
  auto pods = call("GET", "/api/v1/namespaces/default/pods", "", kProto);
  ASSERT_EQ(pods.status, 200) << pods.body;
  EXPECT_EQ(pods.content_type, "application/vnd.kubernetes.protobuf");
  auto pod_list = pb::decode<ksched::api::List<ksched::api::Pod>>(pods.body);
  ASSERT_TRUE(pod_list.ok()) << pod_list.error();
  ASSERT_EQ(pod_list->items.size(), 1u);
  ASSERT_TRUE(pod_list->items[0].spec.schedulingGroup);
  EXPECT_EQ(pod_list->items[0].spec.schedulingGroup->podGroupName, std::optional<std::string>("pg"));

  for (const char* version : {"v1alpha1", "v1beta1"}) {
    SCOPED_TRACE(version);
    std::string path = std::string("/apis/scheduling.k8s.io/") + version + "/namespaces/default/workloads";
    std::string spec = std::string(version) == "v1alpha1"
                           ? R"({"podGroups":[{"name":"workers","policy":{"gang":{"minCount":3}}}]})"
                           : R"({"podGroupTemplates":[{"name":"workers","schedulingPolicy":{"gang":{"minCount":3}}}]})";
    std::string name = std::string("w-") + version;
    // Sent as a protobuf body, as a typed client sends it (v1beta1's template renders its unset
    // schedulingConstraints as null, upstream's json tag having no omitempty).
    auto wbody = pb::from_json(std::string(R"({"apiVersion":"scheduling.k8s.io/)") + version +
                               R"(","kind":"Workload","metadata":{"name":")" + name + R"("},"spec":)" + spec + "}");
    ASSERT_TRUE(wbody.ok()) << wbody.error();
    auto created = call("POST", path, *wbody, kProto, "application/vnd.kubernetes.protobuf");
    ASSERT_EQ(created.status, 201) << created.body;
    auto wj = call("GET", path + "/" + name);
    auto wp = call("GET", path + "/" + name, "", kProto);
    ASSERT_EQ(wp.status, 200) << wp.body;
    EXPECT_EQ(wp.content_type, "application/vnd.kubernetes.protobuf");
    auto w_from_json = pb::from_json(wj.body);
    ASSERT_TRUE(w_from_json.ok()) << w_from_json.error();
    EXPECT_EQ(hex(wp.body), hex(*w_from_json));
    if (std::string(version) == "v1alpha1") {
      auto w = pb::decode<ksched::api::schedulingv1alpha1::Workload>(wp.body);
      ASSERT_TRUE(w.ok()) << w.error();
      ASSERT_EQ(w->spec.podGroups.size(), 1u);
      ASSERT_TRUE(w->spec.podGroups[0].policy.gang);
      EXPECT_EQ(w->spec.podGroups[0].policy.gang->minCount, 3);
    } else {
      auto w = pb::decode<sch::Workload>(wp.body);
      ASSERT_TRUE(w.ok()) << w.error();
      ASSERT_EQ(w->spec.podGroupTemplates.size(), 1u);
      ASSERT_TRUE(w->spec.podGroupTemplates[0].schedulingPolicy.gang);
      EXPECT_EQ(w->spec.podGroupTemplates[0].schedulingPolicy.gang->minCount, 3);
    }
  }
}
