// The web page's view of the cluster: records as the page reads them, and deltas that carry each
// changed object once, in its latest state, and nothing for changes the page cannot see.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/core.h"
#include "api/quantity.h"
#include "api/resource.h"
#include "localcluster/ui_state.h"

using ksched::localcluster::UiState;
namespace api = ksched::api;
namespace json = boost::json;

namespace {

api::Node node(const std::string& name) {
  api::Node n;
  n.metadata.name = name;
  n.metadata.labels.set("topology.kubernetes.io/zone", "zone-a");
  n.status.allocatable.set("cpu", api::Quantity::must("4"));
  n.status.allocatable.set("memory", api::Quantity::must("8Gi"));
  n.status.allocatable.set("pods", api::Quantity::must("110"));
  api::NodeCondition ready;
  ready.type = "Ready";
  ready.status = "True";
  n.status.conditions.push_back(ready);
  return n;
}

api::Pod pod(const std::string& name, const std::string& node_name = "") {
  api::Pod p;
  p.metadata.namespace_ = "ns";
  p.metadata.name = name;
  p.spec.nodeName = node_name;
  for (const char* cpu : {"100m", "250m"}) {
    api::Container c;
    c.name = std::string("c") + cpu;
    c.resources.requests.set("cpu", api::Quantity::must(cpu));
    c.resources.requests.set("memory", api::Quantity::must("64Mi"));
    p.spec.containers.push_back(c);
  }
  return p;
}

json::object parse(const std::string& s) { return json::parse(s).as_object(); }

std::vector<std::string> keys(const json::value& records, const char* field) {
  std::vector<std::string> out;
  for (const auto& r : records.as_array()) out.emplace_back(r.as_object().at(field).as_string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST(UiState, NodeRecord) {
  auto n = node("n1");
  n.spec.unschedulable = true;
  api::Taint t;
  t.key = "dedicated";
  t.value = "gpu";
  t.effect = "NoSchedule";
  n.spec.taints.push_back(t);
  const auto r = parse(UiState::node_record(n));
  EXPECT_EQ(r.at("name"), "n1");
  EXPECT_EQ(r.at("labels").at("topology.kubernetes.io/zone"), "zone-a");
  EXPECT_EQ(json::serialize(r.at("taints")), R"([{"key":"dedicated","value":"gpu","effect":"NoSchedule"}])");
  EXPECT_EQ(r.at("cpu").as_int64(), 4000);
  EXPECT_EQ(r.at("memory").as_int64(), 8LL << 30);
  EXPECT_EQ(r.at("pods").as_int64(), 110);
  EXPECT_EQ(r.at("ready"), true);
  EXPECT_EQ(r.at("unschedulable"), true);
}

TEST(UiState, PodRecordHasTheSchedulersRequestsAndReason) {
  auto p = pod("web");
  p.spec.priority = 1000;
  api::PodCondition c;
  c.type = "PodScheduled";
  c.status = "False";
  c.reason = "Unschedulable";
  c.message = "0/3 nodes are available: 3 Insufficient cpu.";
  p.status.conditions.push_back(c);
  p.status.nominatedNodeName = "n2";
  const auto r = parse(UiState::pod_record(p));
  EXPECT_EQ(r.at("key"), "ns/web");
  EXPECT_EQ(r.at("cpu").as_int64(), 350);  // summed over the containers, as the scheduler counts
  EXPECT_EQ(r.at("memory").as_int64(), 128LL << 20);
  EXPECT_EQ(r.at("priority").as_int64(), 1000);
  EXPECT_EQ(r.at("nominated"), "n2");
  EXPECT_EQ(r.at("reason"), "Unschedulable");
  EXPECT_EQ(r.at("message"), "0/3 nodes are available: 3 Insufficient cpu.");
  EXPECT_FALSE(r.contains("node"));

  const auto bound = parse(UiState::pod_record(pod("db", "n1")));
  EXPECT_EQ(bound.at("node"), "n1");
  EXPECT_FALSE(bound.contains("reason"));
  EXPECT_FALSE(bound.contains("priority"));
  EXPECT_FALSE(bound.contains("group"));

  // A gang member names its pod group (namespace/workload/podGroup, then the replica when set).
  auto member = pod("w-0");
  member.spec.workloadRef.emplace();
  member.spec.workloadRef->name = "train";
  member.spec.workloadRef->podGroup = "workers";
  EXPECT_EQ(parse(UiState::pod_record(member)).at("group"), "ns/train/workers");
  member.spec.workloadRef->podGroupReplicaKey = "r1";
  EXPECT_EQ(parse(UiState::pod_record(member)).at("group"), "ns/train/workers/r1");
  // A PodGroup member (v1.37's spec.schedulingGroup) names its PodGroup, which wins over a workloadRef.
  member.spec.schedulingGroup.emplace().podGroupName = "big";
  EXPECT_EQ(parse(UiState::pod_record(member)).at("group"), "ns/big");
}

TEST(UiState, DeltasCoalescePerObjectAndSkipInvisibleChanges) {
  UiState s;
  s.set_node(node("n1"));
  s.set_pod(pod("a"));
  s.set_pod(pod("a", "n1"));  // created, then bound: one entry, bound
  auto d = s.take_delta();
  ASSERT_TRUE(d);
  auto o = parse(*d);
  EXPECT_EQ(o.at("rev").as_int64(), 1);
  EXPECT_EQ(keys(o.at("nodes"), "name"), std::vector<std::string>{"n1"});
  ASSERT_EQ(o.at("pods").as_array().size(), 1u);
  EXPECT_EQ(o.at("pods").as_array()[0].at("node"), "n1");
  EXPECT_TRUE(o.at("deletedPods").as_array().empty());
  EXPECT_FALSE(s.take_delta()) << "nothing changed since";

  auto same = pod("a", "n1");
  same.metadata.labels.set("touched", "yes");  // not in the record: the page has nothing to learn
  s.set_pod(same);
  auto node_heartbeat = node("n1");
  node_heartbeat.metadata.resourceVersion = "99";
  s.set_node(node_heartbeat);
  EXPECT_FALSE(s.take_delta());
  EXPECT_EQ(s.revision(), 1u);
}

TEST(UiState, TerminalAndDeletedPodsLeave) {
  UiState s;
  s.set_pod(pod("done", "n1"));
  s.set_pod(pod("gone", "n1"));
  s.set_node(node("n1"));
  s.set_node(node("n2"));
  ASSERT_TRUE(s.take_delta());
  auto done = pod("done", "n1");
  done.status.phase = "Succeeded";  // the scheduler counts it no more
  s.set_pod(done);
  s.remove_pod("ns/gone");
  s.remove_pod("ns/never-seen");  // nothing to say
  s.remove_node("n2");
  auto o = parse(*s.take_delta());
  EXPECT_EQ(o.at("rev").as_int64(), 2);
  EXPECT_TRUE(o.at("pods").as_array().empty());
  EXPECT_EQ(json::serialize(o.at("deletedNodes")), R"(["n2"])");
  std::vector<std::string> deleted;
  for (const auto& k : o.at("deletedPods").as_array()) deleted.emplace_back(k.as_string());
  std::sort(deleted.begin(), deleted.end());
  EXPECT_EQ(deleted, (std::vector<std::string>{"ns/done", "ns/gone"}));
  EXPECT_EQ(s.pod_count(), 0u);
  EXPECT_EQ(s.node_count(), 1u);
}

TEST(UiState, SnapshotIsTheWholeStateAtTheCurrentRevision) {
  UiState s;
  s.set_node(node("n1"));
  s.set_pod(pod("a", "n1"));
  s.set_pod(pod("b"));
  EXPECT_FALSE(s.take_delta(/*encode=*/false));  // dropped unread; the revision still moves
  EXPECT_EQ(s.revision(), 1u);
  s.set_pod(pod("c"));  // not yet taken: in the snapshot, and again in the next delta
  auto o = parse(s.snapshot());
  EXPECT_EQ(o.at("rev").as_int64(), 1);
  EXPECT_EQ(keys(o.at("nodes"), "name"), std::vector<std::string>{"n1"});
  EXPECT_EQ(keys(o.at("pods"), "key"), (std::vector<std::string>{"ns/a", "ns/b", "ns/c"}));
  auto d = parse(*s.take_delta());
  EXPECT_EQ(d.at("rev").as_int64(), 2);
  EXPECT_EQ(keys(d.at("pods"), "key"), std::vector<std::string>{"ns/c"});
}

// DRA: a node's record lists its devices and who holds them; a claim's allocation, reservation
// and release re-send that node's record and no other.
TEST(UiState, NodeRecordsListTheirDevicesAndTheClaimAndPodHoldingEach) {
  namespace rv1 = api::resourcev1;
  UiState s;
  s.set_node(node("n1"));
  s.set_node(node("n2"));
  rv1::ResourceSlice slice;
  slice.metadata.name = "n1-gpu";
  slice.spec.driver = "gpu.ksched.dev";
  slice.spec.nodeName = "n1";
  slice.spec.pool.name = "n1";
  for (const char* d : {"gpu-0", "gpu-1"}) {
    rv1::Device dev;
    dev.name = d;
    slice.spec.devices.push_back(dev);
  }
  s.set_slice(slice);
  (void)s.take_delta();

  auto devices_of = [&](const std::string& name) -> json::value {
    const json::object snap = parse(s.snapshot());
    for (const auto& n : snap.at("nodes").as_array()) {
      if (n.at("name") == name.c_str()) return n.as_object().contains("devices") ? n.at("devices") : json::value{};
    }
    return json::value{};
  };
  EXPECT_EQ(json::serialize(devices_of("n1")), R"([{"name":"gpu.ksched.dev/n1/gpu-0"},{"name":"gpu.ksched.dev/n1/gpu-1"}])");
  EXPECT_TRUE(devices_of("n2").is_null());

  rv1::ResourceClaim claim;
  claim.metadata.namespace_ = "ns";
  claim.metadata.name = "a-gpu-x2k4q";
  rv1::AllocationResult alloc;
  rv1::DeviceRequestAllocationResult r;
  r.request = "gpu";
  r.driver = "gpu.ksched.dev";
  r.pool = "n1";
  r.device = "gpu-1";
  alloc.devices.results.push_back(r);
  claim.status.allocation = alloc;
  rv1::ResourceClaimConsumerReference ref;
  ref.resource = "pods";
  ref.name = "a";
  ref.uid = "a-uid";
  claim.status.reservedFor.push_back(ref);
  s.set_claim(claim);
  auto d = s.take_delta();
  ASSERT_TRUE(d);
  EXPECT_EQ(keys(parse(*d).at("nodes"), "name"), std::vector<std::string>{"n1"});  // n2 holds none of it
  EXPECT_EQ(json::serialize(devices_of("n1")),
            R"([{"name":"gpu.ksched.dev/n1/gpu-0"},{"name":"gpu.ksched.dev/n1/gpu-1","claim":"ns/a-gpu-x2k4q","pod":"ns/a"}])");

  s.set_claim(claim);  // the same allocation again: nothing to send
  EXPECT_FALSE(s.take_delta());
  s.remove_claim("ns/a-gpu-x2k4q");
  d = s.take_delta();
  ASSERT_TRUE(d);
  EXPECT_EQ(keys(parse(*d).at("nodes"), "name"), std::vector<std::string>{"n1"});
  EXPECT_EQ(json::serialize(devices_of("n1")), R"([{"name":"gpu.ksched.dev/n1/gpu-0"},{"name":"gpu.ksched.dev/n1/gpu-1"}])");
  s.remove_slice("n1-gpu");
  EXPECT_TRUE(devices_of("n1").is_null());
}
