// The client's typed protobuf decoder (api/protobuf_codec.h) against the JSON codec: for every kind
// the scheduler lists and watches (and the ones it writes), a fixture encoded as upstream writes it
// decodes into the same struct as the JSON Go would write for it, compared by re-encoding both as
// JSON. Also lists, watch frames, unknown fields (a newer server) and broken input.
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
