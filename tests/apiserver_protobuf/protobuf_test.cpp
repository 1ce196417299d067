// Protobuf request bodies -> JSON. Golden bodies were captured from kubectl v1.32 (`kubectl create
// <type>` against a loopback capture server, tests/fixtures/protobuf/capture.sh); the expected JSON
// is kubectl's own `--dry-run=client -o json` for the same command, i.e. Go's encoding of the very
// struct that was marshalled to protobuf.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "apiserver/endpoints/protobuf.h"

namespace pb = ksched::apiserver::protobuf;
namespace json = boost::json;

namespace {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::filesystem::path kFixtures = std::filesystem::path(KSCHED_SOURCE_DIR) / "tests/fixtures/protobuf";

json::value decode_ok(std::string_view body) {
  auto r = pb::to_json(body);
  EXPECT_TRUE(r.ok()) << r.error();
  if (!r.ok()) return nullptr;
  return json::parse(*r);
}

// ---- a tiny encoder for hand-built bodies ------------------------------------------------

std::string varint(std::uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
  return out;
}
std::string tag(std::uint32_t field, std::uint32_t wire) { return varint((static_cast<std::uint64_t>(field) << 3) | wire); }
std::string vfield(std::uint32_t field, std::uint64_t v) { return tag(field, 0) + varint(v); }
std::string lfield(std::uint32_t field, std::string_view payload) {
  return tag(field, 2) + varint(payload.size()) + std::string(payload);
}
std::string envelope(std::string_view api_version, std::string_view kind, std::string_view raw) {
  std::string type_meta = lfield(1, api_version) + lfield(2, kind);
  return std::string("k8s\0", 4) + lfield(1, type_meta) + lfield(2, raw) + lfield(3, "") + lfield(4, "");
}
std::string time_msg(std::int64_t seconds, std::int32_t nanos = 0) {
  return vfield(1, static_cast<std::uint64_t>(seconds)) + vfield(2, static_cast<std::uint64_t>(static_cast<std::int64_t>(nanos)));
}
std::string meta(std::string_view name, std::string_view ns) { return lfield(1, name) + lfield(3, ns); }

}  // namespace

TEST(ProtobufGolden, EveryCapturedKubectlBodyMatchesKubectlJson) {
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kFixtures)) {
    if (entry.path().extension() != ".pb") continue;
    auto json_path = entry.path();
    json_path.replace_extension(".json");
    SCOPED_TRACE(entry.path().filename().string());
    ASSERT_TRUE(std::filesystem::exists(json_path));
    std::string body = read_file(entry.path());
    auto got = decode_ok(body);
    auto want = json::parse(read_file(json_path));
    EXPECT_EQ(got, want) << "got:  " << json::serialize(got) << "\nwant: " << json::serialize(want);
    ++checked;
  }
  // namespace, configmap, 3 secrets, serviceaccount, priorityclass, 5 services, 2 deployments, job,
  // cronjob, 2 pdbs, quota, role, rolebinding, 2 clusterroles, clusterrolebinding, ingress.
  EXPECT_EQ(checked, 25);
}

TEST(ProtobufGolden, DeploymentDetails) {
  auto v = decode_ok(read_file(kFixtures / "deployment_cmd.pb"));
  auto& c = v.at("spec").at("template").at("spec").at("containers").at(0);
  EXPECT_EQ(c.at("command"), json::parse(R"(["sleep","3600"])"));
  EXPECT_EQ(c.at("resources"), json::object());
  EXPECT_EQ(v.at("spec").at("strategy"), json::object());
  EXPECT_EQ(v.at("status"), json::object());
  EXPECT_TRUE(v.at("metadata").at("creationTimestamp").is_null());
}

TEST(ProtobufGolden, ConfigMapBinaryDataAndServiceTargetPorts) {
  auto cm = decode_ok(read_file(kFixtures / "configmap.pb"));
  EXPECT_EQ(cm.at("binaryData").at("bin"), "AAH//g==");
  EXPECT_EQ(cm.at("metadata").at("namespace"), "ns1");
  auto svc = decode_ok(read_file(kFixtures / "service_clusterip.pb"));
  EXPECT_EQ(svc.at("spec").at("ports").at(0).at("targetPort"), 8080);
  EXPECT_EQ(svc.at("spec").at("ports").at(1).at("targetPort"), "https");
}

// kube-scheduler's writes (not producible with kubectl): built with the same field numbers.
TEST(ProtobufScheduler, Binding) {
  std::string raw = lfield(1, meta("web-0", "ns1") + lfield(5, "uid-1") + lfield(8, "")) +
                    lfield(2, lfield(1, "Node") + lfield(3, "node-a"));
  auto v = decode_ok(envelope("v1", "Binding", raw));
  EXPECT_EQ(v, json::parse(R"({"kind":"Binding","apiVersion":"v1",
    "metadata":{"name":"web-0","namespace":"ns1","uid":"uid-1","creationTimestamp":null},
    "target":{"kind":"Node","name":"node-a"}})"));
}

TEST(ProtobufScheduler, LeaseWithMicroTimes) {
  std::string spec = lfield(1, "host1_abc") + vfield(2, 15) + lfield(3, time_msg(1736935445, 123456789)) +
                     lfield(4, time_msg(1736935450, 5000)) + vfield(5, 0);
  std::string raw = lfield(1, meta("kube-scheduler", "kube-system") + lfield(6, "42")) + lfield(2, spec);
  auto v = decode_ok(envelope("coordination.k8s.io/v1", "Lease", raw));
  EXPECT_EQ(v, json::parse(R"({"kind":"Lease","apiVersion":"coordination.k8s.io/v1",
    "metadata":{"name":"kube-scheduler","namespace":"kube-system","resourceVersion":"42","creationTimestamp":null},
    "spec":{"holderIdentity":"host1_abc","leaseDurationSeconds":15,"acquireTime":"2025-01-15T10:04:05.123456Z",
            "renewTime":"2025-01-15T10:04:10.000005Z","leaseTransitions":0}})"));
}

TEST(ProtobufScheduler, EventsV1Event) {
  std::string regarding = lfield(1, "Pod") + lfield(2, "ns1") + lfield(3, "web-0") + lfield(4, "u1") +
                          lfield(5, "v1") + lfield(6, "42");
  std::string raw = lfield(1, meta("web-0.181a2b3c4d5e6f70", "ns1") + lfield(8, time_msg(1736935445))) +
                    lfield(2, time_msg(1736935445, 123456000)) + lfield(4, "default-scheduler") +
                    lfield(5, "default-scheduler-host1") + lfield(6, "Binding") + lfield(7, "Scheduled") +
                    lfield(8, regarding) + lfield(10, "Successfully assigned ns1/web-0 to node-a") + lfield(11, "Normal") +
                    lfield(12, "") + lfield(13, "") + lfield(14, "") + vfield(15, 0);
  auto v = decode_ok(envelope("events.k8s.io/v1", "Event", raw));
  EXPECT_EQ(v, json::parse(R"({"kind":"Event","apiVersion":"events.k8s.io/v1",
    "metadata":{"name":"web-0.181a2b3c4d5e6f70","namespace":"ns1","creationTimestamp":"2025-01-15T10:04:05Z"},
    "eventTime":"2025-01-15T10:04:05.123456Z","reportingController":"default-scheduler",
    "reportingInstance":"default-scheduler-host1","action":"Binding","reason":"Scheduled",
    "regarding":{"kind":"Pod","namespace":"ns1","name":"web-0","uid":"u1","apiVersion":"v1","resourceVersion":"42"},
    "note":"Successfully assigned ns1/web-0 to node-a","type":"Normal","deprecatedSource":{},
    "deprecatedFirstTimestamp":null,"deprecatedLastTimestamp":null})"));
}

TEST(ProtobufScheduler, EventSeries) {
  std::string raw = lfield(1, meta("e", "ns1")) + lfield(2, time_msg(0, 1000)) +
                    lfield(3, vfield(1, 3) + lfield(2, time_msg(60)));
  auto v = decode_ok(envelope("events.k8s.io/v1", "Event", raw));
  EXPECT_EQ(v.at("eventTime"), "1970-01-01T00:00:00.000001Z");
  EXPECT_EQ(v.at("series"), json::parse(R"({"count":3,"lastObservedTime":"1970-01-01T00:01:00.000000Z"})"));
}

TEST(ProtobufPod, SpecAndStatusAsTheSchedulerReadsThem) {
  std::string resources = lfield(1, lfield(1, "cpu") + lfield(2, lfield(1, "500m"))) +
                          lfield(2, lfield(1, "memory") + lfield(2, lfield(1, "64Mi")));
  std::string env = lfield(1, "A") + lfield(3, lfield(4, lfield(1, lfield(1, "sec")) + lfield(2, "key")));
  std::string container = lfield(1, "app") + lfield(2, "nginx") + lfield(6, vfield(3, 80) + lfield(4, "TCP")) +
                          lfield(7, env) + lfield(8, resources) + lfield(13, "/dev/termination-log") +
                          lfield(14, "IfNotPresent") + lfield(20, "File");
  std::string toleration = lfield(1, "node.kubernetes.io/not-ready") + lfield(2, "Exists") + lfield(4, "NoExecute") + vfield(5, 300);
  std::string node_term = lfield(1, lfield(1, "zone") + lfield(2, "In") + lfield(3, "a") + lfield(3, "b"));
  std::string affinity = lfield(1, lfield(1, lfield(1, node_term)));
  std::string tsc = vfield(1, 1) + lfield(2, "zone") + lfield(3, "DoNotSchedule") + lfield(4, lfield(1, lfield(1, "app") + lfield(2, "web")));
  std::string spec = lfield(2, container) + lfield(3, "Always") + vfield(4, 30) + lfield(6, "ClusterFirst") +
                     lfield(7, lfield(1, "disk") + lfield(2, "ssd")) + lfield(14, "") + lfield(18, affinity) +
                     lfield(19, "default-scheduler") + lfield(22, toleration) + vfield(25, 0) + lfield(33, tsc) +
                     vfield(30, 1) + lfield(31, "PreemptLowerPriority") + lfield(38, lfield(1, "gate"));
  std::string cond = lfield(1, "PodScheduled") + lfield(2, "False") + lfield(3, "") + lfield(4, time_msg(1736935445)) +
                     lfield(5, "Unschedulable");
  std::string status = lfield(1, "Pending") + lfield(2, cond) + lfield(9, "Burstable");
  std::string raw = lfield(1, meta("web-0", "ns1") + lfield(11, lfield(1, "app") + lfield(2, "web"))) +
                    lfield(2, spec) + lfield(3, status);
  auto v = decode_ok(envelope("v1", "Pod", raw));
  EXPECT_EQ(v, json::parse(R"({"kind":"Pod","apiVersion":"v1",
    "metadata":{"name":"web-0","namespace":"ns1","labels":{"app":"web"},"creationTimestamp":null},
    "spec":{"containers":[{"name":"app","image":"nginx","ports":[{"containerPort":80,"protocol":"TCP"}],
        "env":[{"name":"A","valueFrom":{"secretKeyRef":{"name":"sec","key":"key"}}}],
        "resources":{"limits":{"cpu":"500m"},"requests":{"memory":"64Mi"}},
        "terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],
      "restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","nodeSelector":{"disk":"ssd"},
      "securityContext":{},
      "affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[
          {"matchExpressions":[{"key":"zone","operator":"In","values":["a","b"]}]}]}}},
      "schedulerName":"default-scheduler",
      "tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],
      "priority":0,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority",
      "topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule",
          "labelSelector":{"matchLabels":{"app":"web"}}}],
      "schedulingGates":[{"name":"gate"}]},
    "status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","lastProbeTime":null,
        "lastTransitionTime":"2025-01-15T10:04:05Z","reason":"Unschedulable"}],"qosClass":"Burstable"}})"));
}

TEST(ProtobufPod, NodeWithAllocatableAndTaints) {
  auto qty = [](std::string_view k, std::string_view v) { return lfield(1, k) + lfield(2, lfield(1, v)); };
  std::string spec = vfield(4, 1) + lfield(5, lfield(1, "dedicated") + lfield(2, "gpu") + lfield(3, "NoSchedule"));
  std::string status = lfield(1, qty("cpu", "4")) + lfield(2, qty("cpu", "3900m")) + lfield(2, qty("pods", "110")) +
                       lfield(4, lfield(1, "Ready") + lfield(2, "True") + lfield(3, time_msg(1736935445))) +
                       lfield(5, lfield(1, "InternalIP") + lfield(2, "10.0.0.1")) +
                       lfield(7, lfield(7, "v1.32.0") + lfield(10, "amd64"));
  std::string raw = lfield(1, lfield(1, "node-a")) + lfield(2, spec) + lfield(3, status);
  auto v = decode_ok(envelope("v1", "Node", raw));
  EXPECT_EQ(v, json::parse(R"({"kind":"Node","apiVersion":"v1","metadata":{"name":"node-a","creationTimestamp":null},
    "spec":{"unschedulable":true,"taints":[{"key":"dedicated","value":"gpu","effect":"NoSchedule"}]},
    "status":{"capacity":{"cpu":"4"},"allocatable":{"cpu":"3900m","pods":"110"},
      "conditions":[{"type":"Ready","status":"True","lastHeartbeatTime":"2025-01-15T10:04:05Z","lastTransitionTime":null}],
      "addresses":[{"type":"InternalIP","address":"10.0.0.1"}],
      "daemonEndpoints":{"kubeletEndpoint":{"Port":0}},
      "nodeInfo":{"machineID":"","systemUUID":"","bootID":"","kernelVersion":"","osImage":"",
        "containerRuntimeVersion":"","kubeletVersion":"v1.32.0","kubeProxyVersion":"","operatingSystem":"",
        "architecture":"amd64"}}})"));
}

TEST(ProtobufNode, RuntimeClassWithOverheadAndScheduling) {
  // node.k8s.io/v1 generated.proto: RuntimeClass {1 metadata, 2 handler, 3 overhead, 4 scheduling},
  // Overhead {1 podFixed}, Scheduling {1 nodeSelector, 2 tolerations}.
  auto qty = [](std::string_view k, std::string_view v) { return lfield(1, k) + lfield(2, lfield(1, v)); };
  std::string overhead = lfield(1, qty("cpu", "250m")) + lfield(1, qty("memory", "120Mi"));
  std::string tol1 = lfield(1, "sandbox") + lfield(2, "Equal") + lfield(3, "gvisor") + lfield(4, "NoSchedule");
  std::string tol2 = lfield(1, "dedicated") + lfield(2, "Exists") + lfield(4, "NoExecute") + vfield(5, 60);
  std::string scheduling = lfield(1, lfield(1, "runtime") + lfield(2, "gvisor")) + lfield(2, tol1) + lfield(2, tol2);
  std::string raw = lfield(1, lfield(1, "gvisor") + lfield(11, lfield(1, "sandbox") + lfield(2, "true"))) +
                    lfield(2, "runsc") + lfield(3, overhead) + lfield(4, scheduling);
  auto v = decode_ok(envelope("node.k8s.io/v1", "RuntimeClass", raw));
  EXPECT_EQ(v, json::parse(R"({"kind":"RuntimeClass","apiVersion":"node.k8s.io/v1",
    "metadata":{"name":"gvisor","labels":{"sandbox":"true"},"creationTimestamp":null},
    "handler":"runsc",
    "overhead":{"podFixed":{"cpu":"250m","memory":"120Mi"}},
    "scheduling":{"nodeSelector":{"runtime":"gvisor"},
      "tolerations":[{"key":"sandbox","operator":"Equal","value":"gvisor","effect":"NoSchedule"},
                     {"key":"dedicated","operator":"Exists","effect":"NoExecute","tolerationSeconds":60}]}})"))
      << json::serialize(v);

  // handler has no omitempty in Go (rendered even when empty); nil overhead/scheduling are
  // omitted, empty ones are rendered as {}.
  auto bare = decode_ok(envelope("node.k8s.io/v1", "RuntimeClass", lfield(1, lfield(1, "rc")) + lfield(4, "")));
  EXPECT_EQ(bare, json::parse(R"({"kind":"RuntimeClass","apiVersion":"node.k8s.io/v1",
    "metadata":{"name":"rc","creationTimestamp":null},"handler":"","scheduling":{}})"))
      << json::serialize(bare);

  // A field number RuntimeClass does not have is an error naming the message.
  auto r = pb::to_json(envelope("node.k8s.io/v1", "RuntimeClass", lfield(1, lfield(1, "rc")) + lfield(5, "x")));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("RuntimeClass"), std::string::npos) << r.error();
}

TEST(ProtobufPod, VolumesIncludingInlineConfigMapAndEphemeralClaim) {
  // Volume embeds VolumeSource as its field 2; JSON flattens it (json:",inline").
  std::string cm_volume = lfield(1, "cfg") + lfield(2, lfield(19, lfield(1, lfield(1, "app-config")) + vfield(3, 420)));
  std::string claim_spec = lfield(1, "ReadWriteOnce") + lfield(2, lfield(2, lfield(1, "storage") + lfield(2, lfield(1, "1Gi")))) +
                           lfield(5, "fast");
  std::string eph_volume = lfield(1, "scratch") + lfield(2, lfield(29, lfield(1, lfield(2, claim_spec))));
  std::string pvc_volume = lfield(1, "data") + lfield(2, lfield(10, lfield(1, "claim-1")));
  std::string raw = lfield(1, meta("p", "ns")) +
                    lfield(2, lfield(1, cm_volume) + lfield(1, eph_volume) + lfield(1, pvc_volume) +
                                  lfield(2, lfield(1, "c") + lfield(9, lfield(1, "cfg") + lfield(3, "/etc/cfg") + vfield(2, 1))));
  auto v = decode_ok(envelope("v1", "Pod", raw));
  EXPECT_EQ(v.at("spec").at("volumes"), json::parse(R"([
    {"name":"cfg","configMap":{"name":"app-config","defaultMode":420}},
    {"name":"scratch","ephemeral":{"volumeClaimTemplate":{"metadata":{"creationTimestamp":null},
      "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},"storageClassName":"fast"}}}},
    {"name":"data","persistentVolumeClaim":{"claimName":"claim-1"}}])"));
  EXPECT_EQ(v.at("spec").at("containers").at(0).at("volumeMounts"),
            json::parse(R"([{"name":"cfg","readOnly":true,"mountPath":"/etc/cfg"}])"));
  EXPECT_EQ(v.at("status"), json::object());
}

TEST(ProtobufWire, RepeatedScalarsPackedOrNot) {
  std::string sc_unpacked = vfield(4, 1000) + vfield(4, 2000);
  std::string sc_packed = lfield(4, varint(1000) + varint(2000));
  for (const auto& sc : {sc_unpacked, sc_packed}) {
    std::string raw = lfield(1, meta("p", "")) + lfield(2, lfield(14, sc));
    auto v = decode_ok(envelope("v1", "Pod", raw));
    EXPECT_EQ(v.at("spec").at("securityContext").at("supplementalGroups"), json::parse("[1000,2000]"));
  }
}

TEST(ProtobufWire, RepeatedMessageOccurrencesMergeAndLastScalarWins) {
  // metadata split over two occurrences: protobuf merges them; name given twice: the last wins.
  std::string raw = lfield(1, lfield(1, "first")) + lfield(1, lfield(1, "second") + lfield(3, "ns"));
  auto v = decode_ok(envelope("v1", "Namespace", raw));
  EXPECT_EQ(v.at("metadata").at("name"), "second");
  EXPECT_EQ(v.at("metadata").at("namespace"), "ns");
  EXPECT_EQ(v.at("spec"), json::object());
  EXPECT_EQ(v.at("status"), json::object());
}

TEST(ProtobufWire, NegativeInt32AndLargeInt64) {
  std::string raw = lfield(1, meta("pc", "")) + vfield(2, static_cast<std::uint64_t>(std::int64_t{-5}));
  auto v = decode_ok(envelope("scheduling.k8s.io/v1", "PriorityClass", raw));
  EXPECT_EQ(v.at("value"), -5);
  std::string raw2 = lfield(1, lfield(1, "n") + vfield(7, 1ULL << 40));
  auto v2 = decode_ok(envelope("v1", "Namespace", raw2));
  EXPECT_EQ(v2.at("metadata").at("generation"), std::int64_t{1} << 40);
}

TEST(ProtobufWire, InvalidUtf8IsReplacedAsGoDoes) {
  std::string raw = lfield(1, meta(std::string("a\xff", 2), ""));
  auto r = pb::to_json(envelope("v1", "Namespace", raw));
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(json::parse(*r).at("metadata").at("name"), "a\xef\xbf\xbd");
}

TEST(ProtobufWire, TimeOutOfGoRangeIsRejected) {
  std::string raw = lfield(1, lfield(1, "n") + lfield(8, time_msg(-62135596801LL)));  // 0000-12-31T23:59:59Z
  auto r = pb::to_json(envelope("v1", "Namespace", raw));
  ASSERT_TRUE(r.ok()) << r.error();
  std::string raw2 = lfield(1, lfield(1, "n") + lfield(8, time_msg(-62167219201LL)));  // year -1
  auto r2 = pb::to_json(envelope("v1", "Namespace", raw2));
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.error().find("metadata.creationTimestamp"), std::string::npos) << r2.error();
}

// ---- malformed input -------------------------------------------------------------------------

TEST(ProtobufErrors, BadMagic) {
  auto r = pb::to_json(R"({"kind":"Namespace"})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("k8s\\0"), std::string::npos) << r.error();
  EXPECT_FALSE(pb::to_json("").ok());
  EXPECT_FALSE(pb::to_json(std::string("k8s", 3)).ok());
}

TEST(ProtobufErrors, EveryTruncationOfARealBodyFailsCleanly) {
  std::string body = read_file(kFixtures / "deployment.pb");
  ASSERT_GT(body.size(), 100u);
  int failures = 0;
  for (std::size_t n = 4; n < body.size(); ++n) {
    auto r = pb::to_json(std::string_view(body).substr(0, n));
    if (!r.ok()) ++failures;
  }
  // A prefix can only succeed if it ends exactly between top-level envelope fields after the raw
  // object (contentEncoding/contentType are the last 4 bytes), so nearly all must fail.
  EXPECT_GE(failures, static_cast<int>(body.size()) - 4 - 4);
  auto r = pb::to_json(std::string_view(body).substr(0, body.size() / 2));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("truncated"), std::string::npos) << r.error();
}

TEST(ProtobufErrors, UnknownKindNamesIt) {
  auto r = pb::to_json(envelope("apps/v1", "ControllerRevision", lfield(1, meta("s", "ns"))));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("ControllerRevision"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("apps/v1"), std::string::npos) << r.error();
}

TEST(ProtobufErrors, UnknownFieldNamesMessageAndPath) {
  std::string raw = lfield(1, meta("n", "")) + lfield(2, lfield(1, "kubernetes") + vfield(9, 1));
  auto r = pb::to_json(envelope("v1", "Namespace", raw));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("unknown field number 9"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("NamespaceSpec"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("spec"), std::string::npos) << r.error();
}

TEST(ProtobufErrors, WrongWireType) {
  // metadata.name as a varint.
  std::string raw = lfield(1, vfield(1, 7));
  auto r = pb::to_json(envelope("v1", "Namespace", raw));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("metadata.name"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("wire type varint"), std::string::npos) << r.error();
  // an int field as length-delimited (not a repeated field, so not packed).
  std::string raw2 = lfield(1, meta("pc", "")) + lfield(2, "xx");
  auto r2 = pb::to_json(envelope("scheduling.k8s.io/v1", "PriorityClass", raw2));
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.error().find("value"), std::string::npos) << r2.error();
  // invalid wire types 3/4 (groups) and 6/7.
  for (std::uint32_t wire : {3u, 4u, 6u, 7u}) {
    auto r3 = pb::to_json(envelope("v1", "Namespace", lfield(1, tag(1, wire) + "abc")));
    EXPECT_FALSE(r3.ok()) << wire;
  }
}

TEST(ProtobufErrors, EnvelopeProblems) {
  EXPECT_FALSE(pb::to_json(std::string("k8s\0", 4) + lfield(2, "")).ok());  // no typeMeta
  std::string with_encoding = std::string("k8s\0", 4) + lfield(1, lfield(1, "v1") + lfield(2, "Namespace")) +
                              lfield(2, "") + lfield(3, "gzip");
  auto r = pb::to_json(with_encoding);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("gzip"), std::string::npos);
  std::string over_long = std::string("k8s\0", 4) + "\x0a\xff\xff\xff\xff\x0f";
  EXPECT_FALSE(pb::to_json(over_long).ok());
  std::string bad_varint = std::string("k8s\0", 4) + std::string(11, '\xff');
  EXPECT_FALSE(pb::to_json(bad_varint).ok());
}

TEST(ProtobufErrors, BadEmbeddedValues) {
  std::string quota = lfield(1, meta("q", "")) + lfield(2, lfield(1, lfield(1, "cpu") + lfield(2, lfield(1, "1 core"))));
  auto r = pb::to_json(envelope("v1", "ResourceQuota", quota));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("spec.hard[cpu]"), std::string::npos) << r.error();
  std::string pdb = lfield(1, meta("p", "")) + lfield(2, lfield(1, vfield(1, 7)));
  auto r2 = pb::to_json(envelope("policy/v1", "PodDisruptionBudget", pdb));
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.error().find("spec.minAvailable"), std::string::npos) << r2.error();
}

TEST(ProtobufContentType, Detection) {
  EXPECT_TRUE(pb::is_protobuf("application/vnd.kubernetes.protobuf"));
  EXPECT_TRUE(pb::is_protobuf("application/vnd.kubernetes.protobuf; charset=utf-8"));
  EXPECT_TRUE(pb::is_protobuf(" Application/VND.Kubernetes.Protobuf;stream=watch"));
  EXPECT_FALSE(pb::is_protobuf("application/json"));
  EXPECT_FALSE(pb::is_protobuf("application/vnd.kubernetes.protobuf-x"));
  EXPECT_FALSE(pb::is_protobuf(""));
}

TEST(ProtobufKinds, ListsEverySupportedKind) {
  auto kinds = pb::supported_kinds();
  // Every root kind of the tables (scripts/protobuf_schema_tables.py's roots with their lists, the
  // authorization reviews, and the meta/v1 kinds Status, DeleteOptions and WatchEvent).
  EXPECT_EQ(kinds.size(), 79u);
  for (const char* k : {"v1/Pod", "v1/PodList", "v1/Node", "v1/NodeList", "storage.k8s.io/v1/CSIStorageCapacityList",
                        "policy/v1/PodDisruptionBudgetList", "apps/v1/ReplicaSetList", "*/WatchEvent", "*/Status"})
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), k), kinds.end()) << k;
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "authorization.k8s.io/v1/SelfSubjectAccessReview"), kinds.end());
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "node.k8s.io/v1/RuntimeClass"), kinds.end());
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "events.k8s.io/v1/Event"), kinds.end());
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "coordination.k8s.io/v1/Lease"), kinds.end());
  for (const char* k : {"resource.k8s.io/v1/DeviceClassList", "resource.k8s.io/v1/ResourceClaim",
                        "resource.k8s.io/v1/ResourceClaimTemplateList", "resource.k8s.io/v1/ResourceSlice",
                        "resource.k8s.io/v1beta2/DeviceTaintRule", "resource.k8s.io/v1beta2/DeviceTaintRuleList"})
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), k), kinds.end()) << k;
  for (const char* k : {"scheduling.k8s.io/v1alpha1/Workload", "scheduling.k8s.io/v1alpha1/WorkloadList",
                        "scheduling.k8s.io/v1beta1/Workload", "scheduling.k8s.io/v1beta1/WorkloadList",
                        "scheduling.k8s.io/v1beta1/PodGroup", "scheduling.k8s.io/v1beta1/PodGroupList",
                        "scheduling.k8s.io/v1alpha3/CompositePodGroup",
                        "scheduling.k8s.io/v1alpha3/CompositePodGroupList"})
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), k), kinds.end()) << k;
}
