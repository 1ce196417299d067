// The client's typed protobuf decoder (api/protobuf_codec.h) against the JSON codec: for every kind
// the scheduler lists and watches (and the ones it writes), a fixture encoded as upstream writes it
// decodes into the same struct as the JSON Go would write for it, compared by re-encoding both as
// JSON. Also lists, watch frames, unknown fields (a newer server) and broken input. Bytes built here
// by hand follow the field numbers of upstream's generated.proto (k8s.io/api).
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/codec.h"
#include "api/protobuf_codec.h"
#include "api/protobuf_json.h"
#include "api/resource.h"
#include "api/types.h"

namespace pb = ksched::api::protobuf;
namespace api = ksched::api;
namespace json = boost::json;

namespace {

const std::filesystem::path kFixtures = std::filesystem::path(KSCHED_SOURCE_DIR) / "tests/fixtures";

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The fixture as protobuf (upstream's bytes for it), then decoded both ways.
template <class T>
void expect_same_struct(const char* fixture) {
  SCOPED_TRACE(fixture);
  std::string src = read_file(kFixtures / fixture);
  ASSERT_FALSE(src.empty());
  auto bytes = pb::from_json(src);
  ASSERT_TRUE(bytes.ok()) << bytes.error();
  auto go_json = pb::to_json(*bytes, pb::UnknownFields::Reject);
  ASSERT_TRUE(go_json.ok()) << go_json.error();
  auto from_pb = pb::decode<T>(*bytes);
  ASSERT_TRUE(from_pb.ok()) << from_pb.error();
  auto from_json = api::decode<T>(*go_json);
  ASSERT_TRUE(from_json.ok()) << from_json.error();
  json::value a = json::parse(api::encode(*from_pb)), b = json::parse(api::encode(*from_json));
  EXPECT_EQ(a, b) << "protobuf: " << a << "\njson:     " << b;
  // And the struct holds the fixture's name (the comparison cannot pass on two empty structs).
  EXPECT_EQ(a.at("metadata").at("name"), json::parse(src).at("metadata").at("name"));
}

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
  return varint((field << 3) | 2) + varint(payload.size()) + std::string(payload);
}
std::string vfield(std::uint32_t field, std::uint64_t v) { return varint(field << 3) + varint(v); }
std::string envelope(std::string_view api_version, std::string_view kind, std::string_view raw) {
  return std::string("k8s\0", 4) + lfield(1, lfield(1, api_version) + lfield(2, kind)) + lfield(2, raw) + lfield(3, "") +
         lfield(4, "");
}

}  // namespace

TEST(ProtobufTyped, EveryKindTheSchedulerUsesDecodesAsItsJson) {
  expect_same_struct<api::Pod>("pod_full.json");
  expect_same_struct<api::Node>("node_full.json");
  expect_same_struct<api::PersistentVolume>("pv.json");
  expect_same_struct<api::PersistentVolume>("pv_intree.json");
  expect_same_struct<api::PersistentVolumeClaim>("pvc.json");
  expect_same_struct<api::PersistentVolumeClaim>("pvc_pending.json");
  expect_same_struct<api::StorageClass>("storageclass.json");
  expect_same_struct<api::CSINode>("csinode.json");
  expect_same_struct<api::CSIDriver>("csidriver.json");
  expect_same_struct<api::CSIStorageCapacity>("csistoragecapacity.json");
  expect_same_struct<api::ReplicaSet>("replicaset.json");
  expect_same_struct<api::StatefulSet>("statefulset.json");
  expect_same_struct<api::ReplicationController>("rc.json");
  expect_same_struct<api::DaemonSet>("daemonset.json");
  expect_same_struct<api::PodDisruptionBudget>("pdb_status.json");
  expect_same_struct<api::Namespace>("kubectl_namespace.json");
  expect_same_struct<api::Service>("kubectl_service.json");
  expect_same_struct<api::PriorityClass>("kubectl_priorityclass.json");
  expect_same_struct<api::Deployment>("kubectl_deployment.json");
  expect_same_struct<api::Event>("event_core.json");
  expect_same_struct<api::eventsv1::Event>("event_v1.json");
  expect_same_struct<api::Lease>("lease.json");
  expect_same_struct<api::RuntimeClass>("runtimeclass.json");
}

TEST(ProtobufTyped, ResourceKindsDecodeAsTheirJson) {
  namespace r = api::resourcev1;
  expect_same_struct<r::DeviceClass>("deviceclass.json");
  expect_same_struct<r::ResourceClaim>("resourceclaim.json");
  expect_same_struct<r::ResourceClaimTemplate>("resourceclaimtemplate.json");
  expect_same_struct<r::ResourceSlice>("resourceslice.json");
  expect_same_struct<r::ResourceSlice>("resourceslice_pernode.json");
  expect_same_struct<api::resourcev1beta2::DeviceTaintRule>("devicetaintrule.json");
}

// scheduling.k8s.io: v1.35's v1alpha1 Workload (release-1.35 scheduling/v1alpha1/generated.proto),
// v1.37's v1beta1 Workload and PodGroup (kubernetes/api master scheduling/v1beta1/generated.proto).
TEST(ProtobufTyped, SchedulingKindsDecodeAsTheirJson) {
  expect_same_struct<api::schedulingv1alpha1::Workload>("workload_v1alpha1.json");
  expect_same_struct<api::schedulingv1beta1::Workload>("workload_v1beta1.json");
  expect_same_struct<api::schedulingv1beta1::PodGroup>("podgroup_v1beta1.json");
  // CompositePodGroups (v1.37 alpha): the recursive template tree and the v1alpha3 kind.
  expect_same_struct<api::schedulingv1beta1::Workload>("workload_composite_v1beta1.json");
  expect_same_struct<api::schedulingv1alpha3::CompositePodGroup>("compositepodgroup_v1alpha3.json");
}

// A PodGroup as upstream's marshaller numbers it (PodGroup {1 metadata, 2 spec, 3 status};
// PodGroupSpec {2 workloadRef, 3 schedulingPolicy, 4 schedulingConstraints, 5 resourceClaims,
// 6 disruptionMode, 7 priorityClassName, 8 priority, 9 preemptionPolicy}; PodGroupStatus
// {1 conditions, 2 resourceClaimStatuses}) lands in the typed members, resourceClaims and
// resourceClaimStatuses (DRAWorkloadResourceClaims) included.
TEST(ProtobufTyped, PodGroupFromUpstreamNumbering) {
  std::string spec = lfield(2, lfield(1, "trainer") + lfield(2, "workers")) +  // workloadRef
                     lfield(3, lfield(2, vfield(1, 4))) +                       // schedulingPolicy.gang.minCount
                     lfield(4, lfield(1, lfield(1, "topology.kubernetes.io/rack"))) +
                     lfield(5, lfield(1, "gpu") + lfield(3, "gpu-template")) +  // resourceClaims[0]
                     lfield(6, lfield(2, "")) +                                 // disruptionMode.all
                     lfield(7, "high") + vfield(8, 1000) + lfield(9, "Never");
  std::string condition = lfield(1, "PodGroupInitiallyScheduled") + lfield(2, "True") + vfield(3, 1) +
                          lfield(4, vfield(1, 1778400931) + vfield(2, 0)) + lfield(5, "Scheduled") + lfield(6, "");
  std::string status = lfield(1, condition) + lfield(2, lfield(1, "gpu") + lfield(2, "pg-gpu-x"));
  std::string raw = lfield(1, lfield(1, "pg") + lfield(3, "ml")) + lfield(2, spec) + lfield(3, status);
  auto pg = pb::decode<api::schedulingv1beta1::PodGroup>(envelope("scheduling.k8s.io/v1beta1", "PodGroup", raw));
  ASSERT_TRUE(pg.ok()) << pg.error();
  EXPECT_EQ(std::string_view(pg->kind), "PodGroup");
  EXPECT_EQ(pg->metadata.name, "pg");
  EXPECT_EQ(pg->metadata.namespace_, "ml");
  ASSERT_TRUE(pg->spec.workloadRef);
  EXPECT_EQ(pg->spec.workloadRef->workloadName, "trainer");
  EXPECT_EQ(pg->spec.workloadRef->templateName, "workers");
  ASSERT_TRUE(pg->spec.schedulingPolicy.gang);
  EXPECT_FALSE(pg->spec.schedulingPolicy.basic);
  EXPECT_EQ(pg->spec.schedulingPolicy.gang->minCount, 4);
  ASSERT_TRUE(pg->spec.schedulingConstraints);
  ASSERT_EQ(pg->spec.schedulingConstraints->topology.size(), 1u);
  EXPECT_EQ(pg->spec.schedulingConstraints->topology[0].key, "topology.kubernetes.io/rack");
  ASSERT_TRUE(pg->spec.disruptionMode);
  EXPECT_TRUE(pg->spec.disruptionMode->all);
  EXPECT_FALSE(pg->spec.disruptionMode->single);
  EXPECT_EQ(pg->spec.priorityClassName, "high");
  EXPECT_EQ(pg->spec.priority, std::optional<std::int32_t>(1000));
  EXPECT_EQ(pg->spec.preemptionPolicy, std::optional<std::string>("Never"));
  ASSERT_EQ(pg->status.conditions.size(), 1u);
  EXPECT_EQ(pg->status.conditions[0].type, "PodGroupInitiallyScheduled");
  EXPECT_EQ(pg->status.conditions[0].status, "True");
  EXPECT_EQ(pg->status.conditions[0].reason, "Scheduled");
  ASSERT_EQ(pg->spec.resourceClaims.size(), 1u);
  EXPECT_EQ(pg->spec.resourceClaims[0].name, "gpu");
  EXPECT_EQ(pg->spec.resourceClaims[0].resourceClaimTemplateName, std::optional<std::string>("gpu-template"));
  ASSERT_EQ(pg->status.resourceClaimStatuses.size(), 1u);
  EXPECT_EQ(pg->status.resourceClaimStatuses[0].resourceClaimName, std::optional<std::string>("pg-gpu-x"));
  json::value j = json::parse(api::encode(*pg));
  EXPECT_EQ(j.at("spec").at("resourceClaims"),
            json::parse(R"([{"name":"gpu","resourceClaimTemplateName":"gpu-template"}])"));
  EXPECT_EQ(j.at("status").at("resourceClaimStatuses"), json::parse(R"([{"name":"gpu","resourceClaimName":"pg-gpu-x"}])"));
}

// Workload v1alpha1 {2 spec {1 controllerRef, 2 podGroups {1 name, 3 policy {2 basic, 3 gang {1
// minCount}}}}} (v1.35's numbers, 2 unused in PodGroup), and v1beta1 {2 spec {2 podGroupTemplates
// {1 name, 2 schedulingPolicy {1 basic, 2 gang}, 7 priority}}}.
TEST(ProtobufTyped, WorkloadsFromUpstreamNumbering) {
  std::string groups = lfield(2, lfield(1, "workers") + lfield(3, lfield(3, vfield(1, 8)))) +
                       lfield(2, lfield(1, "driver") + lfield(3, lfield(2, "")));
  std::string spec = lfield(1, lfield(1, "batch") + lfield(2, "Job") + lfield(3, "j")) + groups;
  auto w = pb::decode<api::schedulingv1alpha1::Workload>(
      envelope("scheduling.k8s.io/v1alpha1", "Workload", lfield(1, lfield(1, "w")) + lfield(2, spec)));
  ASSERT_TRUE(w.ok()) << w.error();
  ASSERT_TRUE(w->spec.controllerRef);
  EXPECT_EQ(w->spec.controllerRef->kind, "Job");
  ASSERT_EQ(w->spec.podGroups.size(), 2u);
  EXPECT_EQ(w->spec.podGroups[0].name, "workers");
  ASSERT_TRUE(w->spec.podGroups[0].policy.gang);
  EXPECT_EQ(w->spec.podGroups[0].policy.gang->minCount, 8);
  EXPECT_TRUE(w->spec.podGroups[1].policy.basic);
  EXPECT_FALSE(w->spec.podGroups[1].policy.gang);

  std::string tmpl = lfield(1, "workers") + lfield(2, lfield(2, vfield(1, 3))) + vfield(7, 50);
  auto b = pb::decode<api::schedulingv1beta1::Workload>(
      envelope("scheduling.k8s.io/v1beta1", "Workload", lfield(1, lfield(1, "w")) + lfield(2, lfield(2, tmpl))));
  ASSERT_TRUE(b.ok()) << b.error();
  ASSERT_EQ(b->spec.podGroupTemplates.size(), 1u);
  EXPECT_EQ(b->spec.podGroupTemplates[0].name, "workers");
  ASSERT_TRUE(b->spec.podGroupTemplates[0].schedulingPolicy.gang);
  EXPECT_EQ(b->spec.podGroupTemplates[0].schedulingPolicy.gang->minCount, 3);
  EXPECT_EQ(b->spec.podGroupTemplates[0].priority, std::optional<std::int32_t>(50));
  // A v1beta1 body is not a v1alpha1 Workload: the kinds' messages differ.
  EXPECT_FALSE(pb::decode<api::schedulingv1alpha1::Workload>(
                   envelope("scheduling.k8s.io/v1beta1", "Workload", lfield(1, lfield(1, "w")) + lfield(2, lfield(2, tmpl))))
                   .ok());
}

TEST(ProtobufTyped, ResourceClaimMembersLandInTheirMembers) {
  auto bytes = pb::from_json(read_file(kFixtures / "resourceclaim.json"));
  ASSERT_TRUE(bytes.ok()) << bytes.error();
  auto c = pb::decode<api::resourcev1::ResourceClaim>(*bytes);
  ASSERT_TRUE(c.ok()) << c.error();
  ASSERT_EQ(c->spec.devices.requests.size(), 2u);
  ASSERT_TRUE(c->spec.devices.requests[0].exactly);
  EXPECT_EQ(c->spec.devices.requests[0].exactly->count, 2);
  EXPECT_EQ(c->spec.devices.requests[1].firstAvailable.size(), 2u);
  ASSERT_TRUE(c->status.allocation);
  ASSERT_EQ(c->status.allocation->devices.results.size(), 2u);
  EXPECT_EQ(std::string_view(c->status.allocation->devices.results[1].request), "nic/fast");
  ASSERT_EQ(c->status.reservedFor.size(), 1u);
  EXPECT_EQ(std::string_view(c->status.reservedFor[0].name), "pod-1");
}

TEST(ProtobufTyped, PodFieldsLandInTheirMembers) {
  auto bytes = pb::from_json(read_file(kFixtures / "pod_full.json"));
  ASSERT_TRUE(bytes.ok());
  auto via_json = api::decode<api::Pod>(read_file(kFixtures / "pod_full.json"));
  auto pod = pb::decode<api::Pod>(*bytes);
  ASSERT_TRUE(pod.ok()) << pod.error();
  ASSERT_TRUE(via_json.ok());
  EXPECT_EQ(pod->metadata.name, via_json->metadata.name);
  EXPECT_EQ(pod->metadata.namespace_, via_json->metadata.namespace_);
  EXPECT_EQ(pod->metadata.uid, via_json->metadata.uid);
  EXPECT_EQ(pod->metadata.labels.size(), via_json->metadata.labels.size());
  ASSERT_EQ(pod->spec.containers.size(), via_json->spec.containers.size());
  EXPECT_EQ(pod->spec.containers[0].name, via_json->spec.containers[0].name);
  EXPECT_EQ(pod->spec.nodeName, via_json->spec.nodeName);
  EXPECT_EQ(pod->spec.tolerations.size(), via_json->spec.tolerations.size());
}

// The pod's spec.schedulingGroup (kubernetes/api master core/v1/generated.proto: PodSpec
// `optional PodSchedulingGroup schedulingGroup = 43`, PodSchedulingGroup `optional string
// podGroupName = 1`): JSON -> protobuf -> typed pod and Go's JSON, the member set from both.
TEST(ProtobufTyped, PodSchedulingGroupRoundTrips) {
  expect_same_struct<api::Pod>("pod_schedulinggroup.json");
  auto bytes = pb::from_json(read_file(kFixtures / "pod_schedulinggroup.json"));
  ASSERT_TRUE(bytes.ok()) << bytes.error();
  // Field 43, length-delimited (tag 43<<3|2 = 0xda 0x02), holding {1: "trainer-0"}.
  EXPECT_NE(bytes->find(std::string("\xda\x02\x0b\x0a\x09trainer-0")), std::string::npos);
  auto pod = pb::decode<api::Pod>(*bytes);
  ASSERT_TRUE(pod.ok()) << pod.error();
  ASSERT_TRUE(pod->spec.schedulingGroup);
  EXPECT_EQ(pod->spec.schedulingGroup->podGroupName, std::optional<std::string>("trainer-0"));
  auto go_json = pb::to_json(*bytes, pb::UnknownFields::Reject);
  ASSERT_TRUE(go_json.ok()) << go_json.error();
  EXPECT_EQ(json::parse(*go_json).at("spec").at("schedulingGroup"), json::parse(R"({"podGroupName":"trainer-0"})"));
  // A pod without one has neither the field on the wire nor the member.
  auto plain = pb::from_json(R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p"},"spec":{"containers":[{"name":"c"}]}})");
  ASSERT_TRUE(plain.ok()) << plain.error();
  EXPECT_EQ(plain->find(std::string("\xda\x02")), std::string::npos);
  auto plain_pod = pb::decode<api::Pod>(*plain);
  ASSERT_TRUE(plain_pod.ok()) << plain_pod.error();
  EXPECT_FALSE(plain_pod->spec.schedulingGroup);
  EXPECT_EQ(api::encode(*plain_pod).find("schedulingGroup"), std::string::npos);
}

// Bytes as upstream's marshaller writes them for a pod in a PodGroup (Pod {1 metadata {1 name},
// 2 spec {2 containers {1 name}, 43 schedulingGroup {1 podGroupName}}}) decode into the member, and
// the server's protobuf -> JSON renders it.
TEST(ProtobufTyped, SchedulingGroupFromUpstreamWireBytes) {
  std::string spec = lfield(2, lfield(1, "c")) + lfield(43, lfield(1, "pg-1"));
  ASSERT_EQ(spec.substr(5, 2), std::string("\xda\x02"));  // the tag as Go writes it
  std::string body = envelope("v1", "Pod", lfield(1, lfield(1, "m-0")) + lfield(2, spec));
  auto pod = pb::decode<api::Pod>(body);
  ASSERT_TRUE(pod.ok()) << pod.error();
  EXPECT_EQ(pod->metadata.name, "m-0");
  ASSERT_TRUE(pod->spec.schedulingGroup);
  EXPECT_EQ(pod->spec.schedulingGroup->podGroupName, std::optional<std::string>("pg-1"));
  auto go_json = pb::to_json(body, pb::UnknownFields::Reject);
  ASSERT_TRUE(go_json.ok()) << go_json.error();
  EXPECT_EQ(json::parse(*go_json).at("spec").at("schedulingGroup"), json::parse(R"({"podGroupName":"pg-1"})"));
  // An empty PodSchedulingGroup (no podGroupName: a pointer, absent) is the member with no name.
  auto empty = pb::decode<api::Pod>(envelope("v1", "Pod", lfield(1, lfield(1, "m-1")) + lfield(2, lfield(43, ""))));
  ASSERT_TRUE(empty.ok()) << empty.error();
  ASSERT_TRUE(empty->spec.schedulingGroup);
  EXPECT_FALSE(empty->spec.schedulingGroup->podGroupName);
}

// A Job's spec.scheduling (kubernetes/api master batch/v1/generated.proto: JobSpec `optional
// JobSchedulingConfiguration scheduling = 17`, its four members 1-4 of scheduling/v1alpha3's
// WorkloadPodGroup* messages): JSON -> protobuf -> Go's JSON keeps every member, empty messages
// ({basic: {}}, {all: {}}) included.
TEST(ProtobufTyped, JobSpecSchedulingRoundTrips) {
  const std::string scheduling =
      R"({"schedulingPolicy":{"gang":{"minCount":3}},"schedulingConstraints":{"topology":[{"key":"zone"}]},)"
      R"("disruptionMode":{"all":{}},"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"t"}]})";
  const std::string job = R"({"kind":"Job","apiVersion":"batch/v1","metadata":{"name":"j"},"spec":{"parallelism":4,)"
                          R"("template":{"spec":{"containers":[{"name":"c"}]}},"scheduling":)" +
                          scheduling + "}}";
  auto bytes = pb::from_json(job);
  ASSERT_TRUE(bytes.ok()) << bytes.error();
  // Field 17, length-delimited: tag 17<<3|2 = 0x8a 0x01; inside, schedulingPolicy (1) {gang (2) {minCount (1) = 3}}.
  EXPECT_NE(bytes->find(std::string("\x8a\x01")), std::string::npos);
  EXPECT_NE(bytes->find(std::string("\x0a\x04\x12\x02\x08\x03")), std::string::npos);
  auto go_json = pb::to_json(*bytes, pb::UnknownFields::Reject);
  ASSERT_TRUE(go_json.ok()) << go_json.error();
  EXPECT_EQ(json::parse(*go_json).at("spec").at("scheduling"), json::parse(scheduling));
  auto basic = pb::from_json(R"({"kind":"Job","apiVersion":"batch/v1","metadata":{"name":"j"},)"
                             R"("spec":{"scheduling":{"schedulingPolicy":{"basic":{}}}}})");
  ASSERT_TRUE(basic.ok()) << basic.error();
  auto basic_json = pb::to_json(*basic, pb::UnknownFields::Reject);
  ASSERT_TRUE(basic_json.ok()) << basic_json.error();
  EXPECT_EQ(json::parse(*basic_json).at("spec").at("scheduling"), json::parse(R"({"schedulingPolicy":{"basic":{}}})"));
}

TEST(ProtobufTyped, ListsAndTheirMetadata) {
  std::string pod = *pb::from_json(R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","namespace":"d"}})");
  // The item's message: the envelope's raw (field 2).
  auto env = pb::read_envelope(pod);
  ASSERT_TRUE(env.ok());
  // PodList {1 metadata ListMeta {2 resourceVersion, 3 continue, 4 remainingItemCount}, 2 items}.
  std::string list_meta = lfield(2, "17") + lfield(3, "tok");
  std::string raw = lfield(1, list_meta) + lfield(2, env->raw) + lfield(2, env->raw);
  auto list = pb::decode<api::List<api::Pod>>(envelope("v1", "PodList", raw));
  ASSERT_TRUE(list.ok()) << list.error();
  EXPECT_EQ(list->metadata.resourceVersion, "17");
  EXPECT_EQ(list->metadata.continue_, "tok");
  ASSERT_EQ(list->items.size(), 2u);
  EXPECT_EQ(list->items[1].metadata.name, "a");
  EXPECT_EQ(list->items[1].metadata.namespace_, "d");
}

TEST(ProtobufTyped, WatchFrameRoundTrip) {
  std::string node = *pb::from_json(R"({"kind":"Node","apiVersion":"v1","metadata":{"name":"n1"}})");
  auto env = pb::read_envelope(node);
  ASSERT_TRUE(env.ok());
  std::string frame;
  pb::put_watch_event(frame, "MODIFIED", "v1", "Node", env->raw);
  EXPECT_EQ(frame.size(), pb::watch_event_size("MODIFIED", "v1", "Node", env->raw.size()));
  // WatchEvent {1 type, 2 object RawExtension {1 raw}}: the object is the whole body.
  EXPECT_EQ(frame, lfield(1, "MODIFIED") + lfield(2, lfield(1, node)));
  auto ev = pb::read_watch_event(frame);
  ASSERT_TRUE(ev.ok()) << ev.error();
  EXPECT_EQ(ev->type, "MODIFIED");
  auto n = pb::decode<api::Node>(ev->object);
  ASSERT_TRUE(n.ok()) << n.error();
  EXPECT_EQ(n->metadata.name, "n1");
  EXPECT_FALSE(pb::read_watch_event("\x0a\x05" "AD").ok());  // truncated
  EXPECT_FALSE(pb::read_watch_event("").ok());                // no type
}

TEST(ProtobufTyped, FieldsNewerThanTheTablesAreSkipped) {
  auto env = pb::read_envelope(*pb::from_json(R"({"kind":"Node","apiVersion":"v1","metadata":{"name":"n1"}})"));
  ASSERT_TRUE(env.ok());
  // Field 99 (length-delimited) and 98 (varint) of Node, unknown to the tables.
  std::string raw = std::string(env->raw) + lfield(99, "future") + varint((98 << 3) | 0) + varint(5);
  auto n = pb::decode<api::Node>(envelope("v1", "Node", raw));
  ASSERT_TRUE(n.ok()) << n.error();
  EXPECT_EQ(n->metadata.name, "n1");
}

TEST(ProtobufTyped, BrokenInputIsAnErrorNamingTheProblem) {
  std::string pod = *pb::from_json(R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"a"}})");
  for (std::size_t cut : {5ul, pod.size() / 2, pod.size() - 1}) {
    auto r = pb::decode<api::Pod>(std::string_view(pod).substr(0, cut));
    EXPECT_FALSE(r.ok()) << cut;
  }
  // Another kind than the struct takes.
  std::string node = *pb::from_json(R"({"kind":"Node","apiVersion":"v1","metadata":{"name":"n"}})");
  auto wrong = pb::decode<api::Pod>(node);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().find("Node"), std::string::npos) << wrong.error();
  // A string field holding a varint.
  auto bad = pb::decode<api::Pod>(envelope("v1", "Pod", lfield(1, varint((1 << 3) | 0) + varint(3))));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("metadata.name"), std::string::npos) << bad.error();
}
