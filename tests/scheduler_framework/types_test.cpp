#include <gtest/gtest.h>

#include "scheduler/config/features.h"
#include "scheduler/framework/types.h"
#include "scheduler_testing/testing.h"

namespace ksched::scheduler::framework {
namespace {
using testing::MakeNode;
using testing::MakePod;

TEST(ComputePodRequests, SumsContainers) {
  auto p = MakePod().Name("p").Req({{"cpu", "1"}, {"memory", "1Gi"}}).Req({{"cpu", "500m"}}).Obj();
  auto r = compute_pod_requests(p);
  EXPECT_EQ(r.milliCPU, 1500);
  EXPECT_EQ(r.memory, 1024LL * 1024 * 1024);
}

TEST(ComputePodRequests, InitContainerPeakWins) {
  // containers: 1 cpu; init: 3 cpu -> max(1, 3) = 3
  auto p = MakePod().Name("p").Req({{"cpu", "1"}}).InitReq({{"cpu", "3"}}).InitReq({{"cpu", "2"}}).Obj();
  EXPECT_EQ(compute_pod_requests(p).milliCPU, 3000);
}

TEST(ComputePodRequests, SidecarsAddToContainersAndToLaterInitContainers) {
  // sidecar 1 cpu (restartable), then init 2 cpu -> init use = 2 + 1 = 3.
  // reqs = containers(1) + sidecar(1) = 2; max(2, 3) = 3.
  auto p = MakePod().Name("p").Req({{"cpu", "1"}}).SidecarReq({{"cpu", "1"}}).InitReq({{"cpu", "2"}}).Obj();
  EXPECT_EQ(compute_pod_requests(p).milliCPU, 3000);
  // init before the sidecar does not see it: init 2, then sidecar 1 -> peak max(2, 1) = 2;
  // reqs = 1 + 1 = 2 -> 2.
  auto q = MakePod().Name("q").Req({{"cpu", "1"}}).InitReq({{"cpu", "2"}}).SidecarReq({{"cpu", "1"}}).Obj();
  EXPECT_EQ(compute_pod_requests(q).milliCPU, 2000);
}

TEST(ComputePodRequests, OverheadAddedAfterMax) {
  auto p = MakePod().Name("p").Req({{"cpu", "1"}}).InitReq({{"cpu", "2"}}).Overhead({{"cpu", "250m"}}).Obj();
  EXPECT_EQ(compute_pod_requests(p).milliCPU, 2250);
}

TEST(ComputePodRequests, NonZeroDefaultsOnlyForMissingKeys) {
  auto empty = MakePod().Name("p").Container("img").Obj();
  auto r = compute_pod_requests(empty, true);
  EXPECT_EQ(r.milliCPU, kDefaultMilliCPURequest);
  EXPECT_EQ(r.memory, kDefaultMemoryRequest);
  EXPECT_EQ(compute_pod_requests(empty, false).milliCPU, 0);

  auto zero = MakePod().Name("p").Req({{"cpu", "0"}, {"memory", "0"}}).Obj();
  auto z = compute_pod_requests(zero, true);
  EXPECT_EQ(z.milliCPU, 0);  // explicit zero stays zero
  EXPECT_EQ(z.memory, 0);

  auto cpu_only = MakePod().Name("p").Req({{"cpu", "300m"}}).Req({{"memory", "1Mi"}}).Obj();
  auto c = compute_pod_requests(cpu_only, true);
  EXPECT_EQ(c.milliCPU, 300 + 100);
  EXPECT_EQ(c.memory, kDefaultMemoryRequest + 1024 * 1024);
}

TEST(ComputePodRequests, ScalarsAndIgnoredNames) {
  auto p = MakePod().Name("p").Req({{"example.com/gpu", "2"}, {"hugepages-2Mi", "4Mi"}, {"foo", "1"}}).Obj();
  auto r = compute_pod_requests(p, true);
  EXPECT_EQ(r.get("example.com/gpu"), 2);
  EXPECT_EQ(r.get("hugepages-2Mi"), 4 * 1024 * 1024);
  EXPECT_EQ(r.get("foo"), 0);
  EXPECT_EQ(r.scalarResources.size(), 2u);
}

// ---- pod-level resources (PodLevelResources, on by default since v1.34)

constexpr std::int64_t kMi = 1024 * 1024;

// Upstream pkg/api/v1/resource helpers_test TestGetResourceRequest, "pod level resources cpu req,
// container cpu req" and "pod level resources mem req, container mem req": the pod level wins.
TEST(ComputePodRequests, PodLevelRequestReplacesContainerSum) {
  auto p = MakePod().Name("p").Req({{"cpu", "500m"}}).Req({{"cpu", "500m"}}).PodLevelReq({{"cpu", "2"}}).Obj();
  EXPECT_EQ(compute_pod_requests(p).milliCPU, 2000);
  auto m = MakePod().Name("p").Req({{"memory", "80Mi"}}).PodLevelReq({{"memory", "100Mi"}}).Obj();
  EXPECT_EQ(compute_pod_requests(m).memory, 100 * kMi);
}

// "pod level resources mem req, container cpu req": memory from the pod level, cpu from the
// containers (and their init containers' peak).
TEST(ComputePodRequests, PodLevelMemoryOnlyKeepsContainerCpu) {
  auto p = MakePod().Name("p").Req({{"cpu", "1"}, {"memory", "1Gi"}}).InitReq({{"cpu", "3"}}).PodLevelReq({{"memory", "2Gi"}}).Obj();
  auto r = compute_pod_requests(p);
  EXPECT_EQ(r.milliCPU, 3000);
  EXPECT_EQ(r.memory, 2048 * kMi);
}

// "cpu overhead and req": the overhead is added after the pod level replaced the sum.
TEST(ComputePodRequests, OverheadAddsToPodLevelRequests) {
  auto p = MakePod().Name("p").Req({{"cpu", "1"}}).PodLevelReq({{"cpu", "2"}}).Overhead({{"cpu", "250m"}}).Obj();
  EXPECT_EQ(compute_pod_requests(p).milliCPU, 2250);
}

// Only cpu, memory and hugepages-* are pod-level resources: others at pod level are ignored, and
// a pod whose spec.resources names only those has no pod-level requests.
TEST(ComputePodRequests, UnsupportedPodLevelResourcesAreIgnored) {
  auto p = MakePod().Name("p").Req({{"example.com/gpu", "1"}, {"hugepages-2Mi", "2Mi"}})
               .PodLevelReq({{"example.com/gpu", "4"}, {"hugepages-2Mi", "8Mi"}, {"ephemeral-storage", "1Gi"}}).Obj();
  auto r = compute_pod_requests(p);
  EXPECT_EQ(r.get("example.com/gpu"), 1);
  EXPECT_EQ(r.get("hugepages-2Mi"), 8 * kMi);
  EXPECT_EQ(r.ephemeralStorage, 0);
  auto only_unsupported = MakePod().Name("q").Req({{"cpu", "1"}}).PodLevelReq({{"example.com/gpu", "4"}}).Obj();
  EXPECT_FALSE(has_pod_level_requests(only_unsupported));
  EXPECT_TRUE(has_pod_level_requests(p));
  auto limits_only = MakePod().Name("l").Req({{"cpu", "1"}}).PodLevelLim({{"cpu", "4"}}).Obj();
  EXPECT_FALSE(has_pod_level_requests(limits_only));
  EXPECT_TRUE(has_pod_level_resources(limits_only));
  EXPECT_EQ(compute_pod_requests(limits_only).milliCPU, 1000);  // limits are not requests
}

// With the gate off, spec.resources is ignored: the containers' sum.
TEST(ComputePodRequests, GateOffUsesContainerSum) {
  config::ScopedFeatures off(config::Features{.podLevelResources = false});
  auto p = MakePod().Name("p").Req({{"cpu", "500m"}}).Req({{"cpu", "500m"}}).PodLevelReq({{"cpu", "2"}}).Obj();
  EXPECT_EQ(compute_pod_requests(p).milliCPU, 1000);
  auto info = PodInfo::make(std::make_shared<const api::Pod>(p));
  EXPECT_EQ(info->requests.milliCPU, 1000);
  EXPECT_EQ(info->nonZeroRequests.milliCPU, 1000);
  EXPECT_EQ(info->nonZeroRequests.memory, kDefaultMemoryRequest * 2);
}

// Upstream types_test TestCalculatePodResources ("pod-level resources ..."): the non-zero requests
// a NodeInfo sums take the default only for a resource that neither the pod level nor any
// container requests; the scorers' non-zero requests (resourceAllocationScorer) default every
// container that lacks one, and the pod level still replaces the sum.
TEST(PodInfo, NonZeroRequestsWithPodLevelResources) {
  // Pod-level cpu 2, containers without requests: cpu 2; memory defaulted per container (none
  // names it), 2 x 200Mi.
  auto p = MakePod().Name("p").Container("a").Container("b").PodLevelReq({{"cpu", "2"}}).Obj();
  auto info = PodInfo::make(std::make_shared<const api::Pod>(p));
  EXPECT_EQ(info->requests.milliCPU, 2000);
  EXPECT_EQ(info->requests.memory, 0);
  EXPECT_EQ(info->nonZeroRequests.milliCPU, 2000);
  EXPECT_EQ(info->nonZeroRequests.memory, 2 * kDefaultMemoryRequest);
  auto scoring = compute_pod_requests(p, true);
  EXPECT_EQ(scoring.milliCPU, 2000);
  EXPECT_EQ(scoring.memory, 2 * kDefaultMemoryRequest);

  // One container names memory: no default for the other one in the NodeInfo's sum.
  auto q = MakePod().Name("q").Req({{"memory", "1Mi"}}).Container("b").PodLevelReq({{"cpu", "2"}}).Obj();
  auto qi = PodInfo::make(std::make_shared<const api::Pod>(q));
  EXPECT_EQ(qi->nonZeroRequests.memory, kMi);
  EXPECT_EQ(qi->nonZeroRequests.milliCPU, 2000);
  // The scorers default the container without memory.
  EXPECT_EQ(compute_pod_requests(q, true).memory, kMi + kDefaultMemoryRequest);

  // Pod-level cpu and memory: nothing is defaulted.
  auto full = MakePod().Name("f").Container("a").PodLevelReq({{"cpu", "300m"}, {"memory", "64Mi"}}).Obj();
  auto fi = PodInfo::make(std::make_shared<const api::Pod>(full));
  EXPECT_EQ(fi->nonZeroRequests.milliCPU, 300);
  EXPECT_EQ(fi->nonZeroRequests.memory, 64 * kMi);
}

// A NodeInfo adds and subtracts what the PodInfo computed, pod-level requests included.
TEST(NodeInfo, AccountsPodLevelRequests) {
  NodeInfo ni(MakeNode().Name("n").Capacity({{"cpu", "4"}, {"memory", "4Gi"}, {"pods", "10"}}).Ptr());
  auto a = MakePod().Name("a").Node("n").Req({{"cpu", "1"}}).PodLevelReq({{"cpu", "3"}}).Obj();
  auto b = MakePod().Name("b").Node("n").Req({{"cpu", "1"}}).Obj();
  ni.add_pod(PodInfo::make(std::make_shared<const api::Pod>(a)));
  ni.add_pod(PodInfo::make(std::make_shared<const api::Pod>(b)));
  EXPECT_EQ(ni.requested.milliCPU, 4000);
  EXPECT_EQ(ni.nonZeroRequested.milliCPU, 4000);
  ASSERT_TRUE(ni.remove_pod(a));
  EXPECT_EQ(ni.requested.milliCPU, 1000);
  EXPECT_EQ(ni.nonZeroRequested.milliCPU, 1000);
}

TEST(HostPortInfo, DefaultsAndConflicts) {
  HostPortInfo h;
  h.add("", "", 80);  // 0.0.0.0/TCP
  EXPECT_TRUE(h.check_conflict("127.0.0.1", "TCP", 80));
  EXPECT_TRUE(h.check_conflict("", "", 80));
  EXPECT_FALSE(h.check_conflict("127.0.0.1", "UDP", 80));
  EXPECT_FALSE(h.check_conflict("127.0.0.1", "TCP", 0));
  h.add("10.0.0.1", "UDP", 53);
  EXPECT_TRUE(h.check_conflict("0.0.0.0", "UDP", 53));
  EXPECT_FALSE(h.check_conflict("10.0.0.2", "UDP", 53));
  EXPECT_EQ(h.size(), 2u);
  h.remove("10.0.0.1", "UDP", 53);
  EXPECT_FALSE(h.check_conflict("0.0.0.0", "UDP", 53));
  h.add("1.1.1.1", "TCP", 0);
  EXPECT_EQ(h.size(), 1u);
}

TEST(NodeInfo, AddRemovePodKeepsSums) {
  NodeInfo ni(MakeNode().Name("n").Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}}).Ptr());
  EXPECT_EQ(ni.allocatable.milliCPU, 4000);
  EXPECT_EQ(ni.allocatable.allowedPodNumber, 110);
  auto g0 = ni.generation;
  auto a = MakePod().Name("a").Node("n").Req({{"cpu", "1"}}).HostPort(8080).PVC("c1").Info();
  auto b = MakePod()
               .Name("b")
               .Node("n")
               .Container("img")
               .PodAntiAffinityExists("app", "zone", testing::AffinityKind::Required)
               .PVC("c1")
               .Info();
  ni.add_pod(a);
  ni.add_pod(b);
  EXPECT_GT(ni.generation, g0);
  EXPECT_EQ(ni.requested.milliCPU, 1000);
  EXPECT_EQ(ni.nonZeroRequested.milliCPU, 1000 + 100 + 100);  // a: 1000 (+ hostport container 100), b: 100
  EXPECT_EQ(ni.podsWithAffinity.size(), 1u);
  EXPECT_EQ(ni.podsWithRequiredAntiAffinity.size(), 1u);
  EXPECT_EQ(*ni.pvcRefCounts.find("default/c1"), 2);
  EXPECT_TRUE(ni.usedPorts.check_conflict("", "TCP", 8080));

  auto g1 = ni.generation;
  EXPECT_TRUE(ni.remove_pod(*a->pod));
  EXPECT_GT(ni.generation, g1);
  EXPECT_FALSE(ni.remove_pod(*a->pod));
  EXPECT_EQ(ni.requested.milliCPU, 0);
  EXPECT_EQ(ni.nonZeroRequested.milliCPU, 100);
  EXPECT_EQ(*ni.pvcRefCounts.find("default/c1"), 1);
  EXPECT_FALSE(ni.usedPorts.check_conflict("", "TCP", 8080));
  EXPECT_TRUE(ni.remove_pod(*b->pod));
  EXPECT_TRUE(ni.podsWithAffinity.empty());
  EXPECT_TRUE(ni.pvcRefCounts.empty());

  auto c = ni.clone();
  EXPECT_EQ(c->name(), "n");
  EXPECT_EQ(c->generation, ni.generation);
}

TEST(NodeInfo, KeepsUnschedulableAndTaintFlagsOfTheCurrentNode) {
  NodeInfo ni(MakeNode().Name("n").Ptr());
  EXPECT_FALSE(ni.unschedulable());
  EXPECT_FALSE(ni.has_taints());
  ni.set_node(MakeNode().Name("n").Unschedulable(true).Taint("k", "v", "NoSchedule").Ptr());
  EXPECT_TRUE(ni.unschedulable());
  EXPECT_TRUE(ni.has_taints());
  EXPECT_EQ(ni.name_view(), "n");
  auto copy = ni.clone();
  EXPECT_EQ(copy->name_view(), "n");
  EXPECT_TRUE(copy->unschedulable());
  EXPECT_TRUE(copy->has_taints());
  ni.set_node(MakeNode().Name("n").Ptr());  // cordon and taint lifted
  EXPECT_FALSE(ni.unschedulable());
  EXPECT_FALSE(ni.has_taints());
  ni.set_node(MakeNode().Name("n").Unschedulable(true).Ptr());
  ni.remove_node();
  EXPECT_FALSE(ni.unschedulable());
  EXPECT_EQ(ni.name_view(), "");
  NodeInfo long_name(MakeNode().Name("a-node-name-longer-than-fifteen-characters").Ptr());
  EXPECT_EQ(long_name.name_view(), "a-node-name-longer-than-fifteen-characters");
}

TEST(PodInfo, ParsesAffinityTermsWithNamespaces) {
  auto pi = MakePod()
                .Name("p")
                .Namespace("ns1")
                .PodAffinityIn("app", "zone", {"web"}, testing::AffinityKind::Required)
                .PodAntiAffinity("host", testing::MakeLabelSelector().Label("x", "y").Obj(),
                                 testing::AffinityKind::Preferred, 7, {"a", "b"})
                .Info();
  ASSERT_EQ(pi->requiredAffinityTerms.size(), 1u);
  const auto& t = pi->requiredAffinityTerms[0];
  EXPECT_EQ(t.namespaces, (std::set<std::string, std::less<>>{"ns1"}));
  EXPECT_TRUE(t.namespaceSelector.is_nothing());
  ASSERT_EQ(pi->preferredAntiAffinityTerms.size(), 1u);
  EXPECT_EQ(pi->preferredAntiAffinityTerms[0].weight, 7);
  EXPECT_EQ(pi->preferredAntiAffinityTerms[0].term.namespaces, (std::set<std::string, std::less<>>{"a", "b"}));

  auto web = MakePod().Name("w").Namespace("ns1").Label("app", "web").Obj();
  auto other_ns = MakePod().Name("w").Namespace("ns2").Label("app", "web").Obj();
  EXPECT_TRUE(t.matches(web, nullptr));
  EXPECT_FALSE(t.matches(other_ns, nullptr));
}

TEST(PodInfo, NamespaceSelectorOnlyHasNoOwnNamespace) {
  auto pi = MakePod()
                .Name("p")
                .Namespace("ns1")
                .PodAffinity("zone", testing::MakeLabelSelector().Label("app", "web").Obj(),
                             testing::AffinityKind::Required, 1, {},
                             testing::MakeLabelSelector().Label("team", "a").Obj())
                .Info();
  const auto& t = pi->requiredAffinityTerms.at(0);
  EXPECT_TRUE(t.namespaces.empty());
  api::StringMap team_a;
  team_a.set("team", "a");
  auto web = MakePod().Name("w").Namespace("ns9").Label("app", "web").Obj();
  EXPECT_TRUE(t.matches(web, &team_a));
  EXPECT_FALSE(t.matches(web, nullptr));
}

TEST(PodInfo, ParseErrorRecorded) {
  api::LabelSelector bad;
  api::LabelSelectorRequirement r;
  r.key = "app";
  r.operator_ = "Bogus";
  bad.matchExpressions.push_back(r);
  auto pi = MakePod().Name("p").PodAffinity("zone", bad, testing::AffinityKind::Required).Info();
  EXPECT_FALSE(pi->parseError.empty());
}

TEST(NodeToStatus, KeepsOneVerdictPerNodeInTheOrderFirstSet) {
  NodeToStatus m;
  EXPECT_EQ(m.get("a"), nullptr);
  // Enough nodes to grow the table several times past a reservation.
  m.reserve(10);
  for (int i = 0; i < 3000; ++i) m.set("node-" + std::to_string(i), Status(Code::Unschedulable, "r" + std::to_string(i)));
  m.set("node-7", Status(Code::UnschedulableAndUnresolvable, "again"));
  EXPECT_EQ(m.size(), 3000u);
  ASSERT_NE(m.get("node-7"), nullptr);
  EXPECT_EQ(m.get("node-7")->code(), Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(m.get("node-7")->message(), "again");
  EXPECT_EQ(m.get("node-2999")->message(), "r2999");
  EXPECT_EQ(m.get("node-3000"), nullptr);
  EXPECT_EQ(m.get_or_absent("node-3000").code(), Code::UnschedulableAndUnresolvable);
  int i = 0;
  m.for_each([&](std::string_view node, const Status&) { EXPECT_EQ(node, "node-" + std::to_string(i++)); });
  EXPECT_EQ(i, 3000);
  NodeToStatus copy = m;
  EXPECT_EQ(copy.get("node-1234")->message(), "r1234");
}

TEST(Status, FixedReasonsAreSharedUntilAppendedTo) {
  static const FixedReasons kWhy{std::string("node(s) didn't fit")};
  Status a(Code::Unschedulable, kWhy);
  Status b = a;
  EXPECT_EQ(&a.reasons(), &kWhy.list());
  EXPECT_EQ(&b.reasons(), &kWhy.list());
  EXPECT_EQ(b.message(), "node(s) didn't fit");
  b.append_reason("and more");
  EXPECT_EQ(b.message(), "node(s) didn't fit, and more");
  EXPECT_EQ(a.message(), "node(s) didn't fit");
  EXPECT_EQ(kWhy.list().size(), 1u);
  EXPECT_TRUE(a == Status(Code::Unschedulable, "node(s) didn't fit"));
  // Plugin names are interned: equal names are the same object.
  a.with_plugin("NodePorts");
  b.with_plugin(std::string("Node") + "Ports");
  EXPECT_EQ(&a.plugin(), &b.plugin());
  EXPECT_EQ(a.plugin(), "NodePorts");
  EXPECT_TRUE(Status().plugin().empty());
}

// Reasons of its own are copied with the Status (each copy changes alone) and moved without copying.
TEST(Status, OwnReasonsAreCopiedDeepAndMovedAway) {
  Status a(Code::UnschedulableAndUnresolvable, std::vector<std::string>{"first", "second"});
  a.with_plugin("NodeAffinity");
  Status b = a;
  b.append_reason("third");
  EXPECT_EQ(a.message(), "first, second");
  EXPECT_EQ(b.message(), "first, second, third");
  EXPECT_EQ(b.plugin(), "NodeAffinity");
  const std::vector<std::string>* own = &b.reasons();
  Status c = std::move(b);
  EXPECT_EQ(&c.reasons(), own);  // the same vector, not a copy
  EXPECT_EQ(c.code(), Code::UnschedulableAndUnresolvable);
  c = a;
  EXPECT_EQ(c.message(), "first, second");
  EXPECT_NE(&c.reasons(), &a.reasons());
  EXPECT_TRUE(Status(Code::Unschedulable).reasons().empty());
  EXPECT_TRUE(Status(Code::Unschedulable, std::vector<std::string>{}).message().empty());
}

TEST(FitError, FormatsSortedReasonHistogram) {
  FitError fe;
  fe.numAllNodes = 3;
  fe.diagnosis.nodeToStatus.set("n1", Status::unschedulable("Insufficient cpu"));
  fe.diagnosis.nodeToStatus.set(
      "n2", Status::unresolvable("node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"));
  fe.diagnosis.nodeToStatus.set(
      "n3", Status::unresolvable("node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"));
  fe.diagnosis.postFilterMsg =
      "preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not "
      "helpful for scheduling.";
  EXPECT_EQ(fe.error(),
            "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint "
            "{node-role.kubernetes.io/control-plane: }. preemption: 0/3 nodes are available: 1 No preemption "
            "victims found for incoming pod, 2 Preemption is not helpful for scheduling.");
}

// Shared (fixed) and owned reasons with the same text count together, however they interleave.
TEST(FitError, CountsFixedAndOwnedReasonsAlike) {
  static const FixedReasons kAnti{std::string("node(s) didn't match pod anti-affinity rules")};
  static const FixedReasons kTwo{std::vector<std::string>{"Insufficient cpu", "Insufficient memory"}};
  FitError fe;
  fe.numAllNodes = 7;
  auto& m = fe.diagnosis.nodeToStatus;
  m.set("n1", Status(Code::Unschedulable, kAnti));
  m.set("n2", Status(Code::Unschedulable, kAnti));
  m.set("n3", Status(Code::Unschedulable, kTwo));
  m.set("n4", Status(Code::Unschedulable, kAnti));
  m.set("n5", Status::unschedulable("node(s) didn't match pod anti-affinity rules"));
  m.set("n6", Status::unschedulable("Insufficient cpu"));
  m.set("n7", Status(Code::Unschedulable, kTwo));
  EXPECT_EQ(fe.error(),
            "0/7 nodes are available: 2 Insufficient memory, 3 Insufficient cpu, "
            "4 node(s) didn't match pod anti-affinity rules.");
}

TEST(FitError, PreFilterMessageReplacesHistogramAndAbsentNodesCount) {
  FitError fe;
  fe.numAllNodes = 5;
  fe.diagnosis.preFilterMsg = "node(s) didn't satisfy plugin(s) [A B] simultaneously";
  fe.diagnosis.nodeToStatus.set("n1", Status::unschedulable("ignored"));
  EXPECT_EQ(fe.error(), "0/5 nodes are available: node(s) didn't satisfy plugin(s) [A B] simultaneously.");

  FitError absent;
  absent.numAllNodes = 4;
  absent.diagnosis.nodeToStatus.set("n1", Status::unschedulable("Too many pods"));
  absent.diagnosis.nodeToStatus.set_absent(Status::unresolvable("node(s) didn't match Pod's node affinity/selector"));
  // Multiple reasons of one status are counted separately; "10" sorts before "3" as a string.
  EXPECT_EQ(absent.error(),
            "0/4 nodes are available: 1 Too many pods, 3 node(s) didn't match Pod's node affinity/selector.");
  FitError none;
  none.numAllNodes = 0;
  EXPECT_EQ(none.error(), "0/0 nodes are available:");
}

TEST(ClusterEvent, Match) {
  ClusterEvent reg{EventResource::Node, kAdd | kUpdateNodeLabel, "x"};
  EXPECT_TRUE(reg.match({EventResource::Node, kUpdateNodeLabel, "NodeLabelChange"}));
  EXPECT_FALSE(reg.match({EventResource::Node, kUpdateNodeTaint, "NodeTaintChange"}));
  EXPECT_FALSE(reg.match({EventResource::Pod, kAdd, "PodAdd"}));
  ClusterEvent pod{EventResource::Pod, kDelete, ""};
  EXPECT_TRUE(pod.match({EventResource::AssignedPod, kDelete, "AssignedPodDelete"}));
  EXPECT_FALSE(ClusterEvent({EventResource::AssignedPod, kDelete, ""}).match({EventResource::Pod, kDelete, ""}));
  ClusterEvent wild{};
  EXPECT_TRUE(wild.match({EventResource::CSINode, kAdd, ""}));
  ClusterEvent any_res{EventResource::WildCard, kDelete, ""};
  EXPECT_TRUE(any_res.match({EventResource::PersistentVolume, kDelete, ""}));
  EXPECT_FALSE(any_res.match({EventResource::PersistentVolume, kAdd, ""}));
}

TEST(PreFilterResult, Merge) {
  PreFilterResult all;
  PreFilterResult a{std::set<std::string>{"n1", "n2"}};
  PreFilterResult b{std::set<std::string>{"n2", "n3"}};
  EXPECT_TRUE(all.merge(all).all_nodes());
  EXPECT_EQ(*all.merge(a).nodeNames, (std::set<std::string>{"n1", "n2"}));
  EXPECT_EQ(*a.merge(all).nodeNames, (std::set<std::string>{"n1", "n2"}));
  EXPECT_EQ(*a.merge(b).nodeNames, (std::set<std::string>{"n2"}));
}

}  // namespace
}  // namespace ksched::scheduler::framework
