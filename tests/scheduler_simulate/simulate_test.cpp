// simulate(): the real scheduler over an in-memory cluster, offline; and the dump reader.
#include "scheduler/simulate/simulator.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "scheduler/config/defaults.h"
#include "scheduler/config/features.h"

namespace ksched::scheduler::simulate {
namespace {

const char* kCluster = R"(
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: big, labels: {kubernetes.io/hostname: big}}
  status:
    allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
    capacity: {cpu: "4", memory: 8Gi, pods: "110"}
- apiVersion: v1
  kind: Node
  metadata: {name: small, labels: {kubernetes.io/hostname: small}}
  status:
    allocatable: {cpu: "2", memory: 4Gi, pods: "110"}
    capacity: {cpu: "2", memory: 4Gi, pods: "110"}
- apiVersion: v1
  kind: Pod
  metadata: {name: old, namespace: apps, uid: old-uid}
  spec:
    nodeName: small
    priority: 0
    containers: [{name: c, image: pause, resources: {requests: {cpu: "2", memory: 1Gi}}}]
- apiVersion: v1
  kind: Pod
  metadata: {name: waiting, namespace: apps, uid: waiting-uid}
  spec:
    containers: [{name: c, image: pause}]
- apiVersion: scheduling.k8s.io/v1
  kind: PriorityClass
  metadata: {name: high}
  value: 1000
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: ignored, namespace: apps}
)";

ClusterObjects objects(const char* text) {
  ClusterObjects c;
  auto r = add_objects(text, c);
  EXPECT_TRUE(r.ok()) << r.error();
  return c;
}

SimulateOptions options() {
  SimulateOptions o;
  o.cfg = config::default_configuration();
  o.parallelism = 2;
  return o;
}

TEST(ClusterObjects, ReadsAListOfMixedKindsAndCountsWhatTheSchedulerDoesNotRead) {
  const auto c = objects(kCluster);
  EXPECT_EQ(c.nodes.size(), 2u);
  EXPECT_EQ(c.pods.size(), 2u);
  EXPECT_EQ(c.priorityClasses.size(), 1u);
  EXPECT_EQ(c.skippedKinds.at("ConfigMap"), 1u);
}

TEST(ClusterObjects, ABadItemIsNamedAndNothingOfItsDocumentIsKept) {
  ClusterObjects c;
  auto r = add_objects(R"({"kind":"List","items":[{"kind":"Node","metadata":{"name":"a"}},)"
                       R"({"kind":"Pod","metadata":{"name":"p","namespace":"ns"},"spec":{"priority":"high"}}]})",
                       c);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("items[1] (Pod ns/p)"), std::string::npos) << r.error();
  EXPECT_TRUE(c.nodes.empty());
  EXPECT_FALSE(add_objects("{\"kind\":\"List\",\"items\":[", c).ok());
  EXPECT_FALSE(add_objects("kind: [unclosed", c).ok());
  auto no_kind = add_objects(R"({"metadata":{"name":"x"}})", c);
  ASSERT_FALSE(no_kind.ok());
  EXPECT_NE(no_kind.error().find("no kind"), std::string::npos);
}

TEST(ClusterObjects, AnEmptyObjectIsRefusedAndAMissingFileSaysWhy) {
  ClusterObjects c;
  auto r = add_objects("{}", c);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "an object with neither kind nor name");
  auto f = load_objects_file("/nonexistent/dump.json");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error(), "cannot read /nonexistent/dump.json: No such file or directory");
}

TEST(Simulate, PlacesPodsInOrderAndReportsUtilizationBeforeAndAfter) {
  const auto cluster = objects(kCluster);
  const auto given = objects(R"(
apiVersion: v1
kind: Pod
metadata: {generateName: web-}
spec:
  containers: [{name: c, image: pause, resources: {requests: {cpu: "1", memory: 1Gi}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: db, namespace: data}
spec:
  containers: [{name: c, image: pause, resources: {requests: {cpu: "3"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: huge, namespace: data}
spec:
  containers: [{name: c, image: pause, resources: {requests: {cpu: "8"}}}]
)");
  auto r = simulate(cluster, given.pods, options());
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->nodes, 2u);
  EXPECT_EQ(r->existingPods, 1u);
  EXPECT_EQ(r->pendingPodsIgnored, 1u);
  ASSERT_EQ(r->placements.size(), 3u);
  EXPECT_EQ(r->placements[0].pod, "default/web-sim0");
  EXPECT_EQ(r->placements[0].node, "big");  // small is full
  EXPECT_EQ(r->placements[1].pod, "data/db");
  EXPECT_EQ(r->placements[1].node, "big");  // the 3 CPUs web left
  EXPECT_EQ(r->scheduled, 2u);
  EXPECT_EQ(r->placements[2].node, "");
  EXPECT_EQ(r->placements[2].reason.rfind("0/2 nodes are available: 2 Insufficient cpu.", 0), 0u) << r->placements[2].reason;
  ASSERT_EQ(r->before.size(), 2u);
  EXPECT_EQ(r->before[0].name, "big");
  EXPECT_EQ(r->before[0].milliCPU, 0);
  EXPECT_EQ(r->after[0].milliCPU, 4000);
  EXPECT_EQ(r->after[0].pods, 2);
  EXPECT_EQ(r->before[1].milliCPU, 2000);
  EXPECT_EQ(r->after[1].milliCPU, 2000);
}

TEST(Simulate, AHigherPriorityPodPreemptsAndLandsWhereItsVictimWas) {
  const auto cluster = objects(kCluster);
  const auto given = objects(R"(
apiVersion: v1
kind: Pod
metadata: {name: filler, namespace: apps}
spec:
  containers: [{name: c, image: pause, resources: {requests: {cpu: "4"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: vip, namespace: apps}
spec:
  priorityClassName: high
  containers: [{name: c, image: pause, resources: {requests: {cpu: "2"}}}]
)");
  auto r = simulate(cluster, given.pods, options());
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->placements.size(), 2u);
  // Both nodes are full of priority-0 pods: vip preempts one of them (which one is preemption's
  // random pick among equal candidates, as upstream's) and is bound where it was.
  ASSERT_EQ(r->evicted.size(), 1u);
  const bool filler_evicted = r->evicted[0] == "apps/filler";
  if (!filler_evicted) {
    EXPECT_EQ(r->evicted[0], "apps/old");
  }
  const std::string victim_node = filler_evicted ? "big" : "small";
  EXPECT_EQ(r->placements[0].evicted, filler_evicted);
  EXPECT_EQ(r->placements[0].node, filler_evicted ? "" : "big");
  EXPECT_EQ(r->placements[1].nominatedNode, victim_node);
  EXPECT_EQ(r->placements[1].node, victim_node);
  EXPECT_EQ(r->scheduled, filler_evicted ? 1u : 2u);
}

TEST(Simulate, SameInputsSamePlacements) {
  const auto cluster = objects(kCluster);
  ClusterObjects given;
  std::string pods;
  for (int i = 0; i < 12; ++i) {
    pods += "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p" + std::to_string(i) +
            "}\nspec:\n  containers: [{name: c, image: pause, resources: {requests: {cpu: 100m}}}]\n";
  }
  ASSERT_TRUE(add_objects(pods, given).ok());
  auto a = simulate(cluster, given.pods, options());
  auto b = simulate(cluster, given.pods, options());
  ASSERT_TRUE(a.ok() && b.ok());
  for (std::size_t i = 0; i < a->placements.size(); ++i) EXPECT_EQ(a->placements[i].node, b->placements[i].node) << i;
  EXPECT_EQ(a->scheduled, 12u);
}

TEST(Simulate, APodNamingAMissingPriorityClassIsRefusedAsAdmissionWouldAndTheOthersStillRun) {
  const auto cluster = objects(kCluster);
  const auto given = objects("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  priorityClassName: nosuch\n"
                             "  containers: [{name: c, image: pause}]\n---\n"
                             "apiVersion: v1\nkind: Pod\nmetadata: {name: other}\nspec:\n  containers: [{name: c, image: pause}]\n");
  auto r = simulate(cluster, given.pods, options());
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->placements.size(), 2u);
  EXPECT_EQ(r->placements[0].pod, "default/x");
  EXPECT_TRUE(r->placements[0].notAdmitted);
  EXPECT_EQ(r->placements[0].node, "");
  EXPECT_EQ(r->placements[0].reason, "pods \"x\" is forbidden: no PriorityClass with name nosuch was found");
  EXPECT_EQ(r->placements[1].node, "big");
  EXPECT_EQ(r->scheduled, 1u);
  const std::string text = to_text(*r);
  EXPECT_NE(text.find("  default/x      not admitted: pods \"x\" is forbidden"), std::string::npos) << text;
}

// The text report: singular and plural, no rate for a handful of pods, an aligned table.
TEST(Simulate, TextReportReadsRight) {
  const auto cluster = objects(kCluster);
  const auto given = objects("apiVersion: v1\nkind: Pod\nmetadata: {name: a-long-pod-name}\nspec:\n"
                             "  containers: [{name: c, image: pause, resources: {requests: {cpu: 500m}}}]\n---\n"
                             "apiVersion: v1\nkind: Pod\nmetadata: {name: b}\nspec:\n  containers: [{name: c, image: pause}]\n");
  auto r = simulate(cluster, given.pods, options());
  ASSERT_TRUE(r.ok()) << r.error();
  const std::string text = to_text(*r);
  EXPECT_NE(text.find("Cluster: 2 nodes, 1 bound pod (1 unbound pod of the dump left out"), std::string::npos) << text;
  EXPECT_NE(text.find("Scheduled 2 of 2 pods in "), std::string::npos) << text;
  EXPECT_EQ(text.find("pods/s"), std::string::npos) << text;
  EXPECT_NE(text.find("  default/a-long-pod-name  -> "), std::string::npos) << text;
  EXPECT_NE(text.find("  default/b                -> "), std::string::npos) << text;
  // Every row of the utilization table starts its columns at the same offsets as the header.
  const auto table = text.substr(text.find("  NODE"));
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < table.size();) {
    const auto end = table.find('\n', at);
    lines.push_back(table.substr(at, end - at));
    at = end + 1;
  }
  ASSERT_EQ(lines.size(), 3u) << table;
  const auto cpu_col = lines[0].find("CPU");
  for (const auto& l : lines) {
    EXPECT_NE(l[cpu_col], ' ') << l;
    EXPECT_EQ(l[cpu_col - 1], ' ') << l;
  }
  EXPECT_EQ(lines[1].rfind("  big  ", 0), 0u) << lines[1];
}

// Dynamic Resource Allocation offline: DeviceClasses, ResourceSlices and ResourceClaims of the dump
// feed the scheduler; each given pod gets its claims from templates as the ResourceClaim controller
// would make them; an allocated claim of the dump holds its device. The objects carry the API
// server's defaults (allocationMode, count), as `kubectl get -o json` writes them.
const char* kGpuCluster = R"(
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: gpu-0, labels: {kubernetes.io/hostname: gpu-0}},
   status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: gpu-1, labels: {kubernetes.io/hostname: gpu-1}},
   status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}}
- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {name: gpu}
  spec: {selectors: [{cel: {expression: 'device.driver == "gpu.ksched.dev"'}}]}
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: gpu-0-slice}
  spec:
    driver: gpu.ksched.dev
    nodeName: gpu-0
    pool: {name: gpu-0, generation: 1, resourceSliceCount: 1}
    devices: [{name: gpu-0}, {name: gpu-1}]
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: gpu-1-slice}
  spec:
    driver: gpu.ksched.dev
    nodeName: gpu-1
    pool: {name: gpu-1, generation: 1, resourceSliceCount: 1}
    devices: [{name: gpu-0}]
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: taken, namespace: ml, uid: taken-uid, resourceVersion: "41"}
  spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu, allocationMode: ExactCount, count: 1}}]}}
  status:
    allocation:
      devices: {results: [{request: gpu, driver: gpu.ksched.dev, pool: gpu-1, device: gpu-0}]}
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaimTemplate
  metadata: {name: one-gpu, namespace: ml}
  spec:
    spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu, allocationMode: ExactCount, count: 1}}]}}
)";

std::string gpu_pod(const std::string& name, const std::string& tmpl) {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: ml}\nspec:\n"
         "  containers: [{name: c, image: pause, resources: {claims: [{name: gpu}]}}]\n"
         "  resourceClaims: [{name: gpu, resourceClaimTemplateName: " + tmpl + "}]\n";
}

TEST(Simulate, PodsWithClaimsFromTemplatesGetDevicesUntilNoneIsFree) {
  const auto cluster = objects(kGpuCluster);
  ASSERT_EQ(cluster.deviceClasses.size(), 1u);
  ASSERT_EQ(cluster.resourceSlices.size(), 2u);
  ASSERT_EQ(cluster.resourceClaims.size(), 1u);
  ASSERT_EQ(cluster.resourceClaimTemplates.size(), 1u);
  const std::string pods = gpu_pod("train-0", "one-gpu") + "---\n" + gpu_pod("train-1", "one-gpu") + "---\n" +
                           gpu_pod("train-2", "one-gpu") + "---\n" + gpu_pod("lost", "nosuch");
  const auto given = objects(pods.c_str());
  auto r = simulate(cluster, given.pods, options());
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->placements.size(), 4u);
  // gpu-1's only device is held by the dump's claim: both free GPUs are on gpu-0.
  EXPECT_EQ(r->placements[0].node, "gpu-0");
  EXPECT_EQ(r->placements[1].node, "gpu-0");
  std::vector<std::string> got;
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(r->placements[i].devices.size(), 1u);
    got.push_back(r->placements[i].devices[0]);
  }
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::string>{"gpu.ksched.dev/gpu-0/gpu-0", "gpu.ksched.dev/gpu-0/gpu-1"}));
  EXPECT_EQ(r->placements[2].node, "");
  EXPECT_EQ(r->placements[2].reason, "0/2 nodes are available: 2 cannot allocate all claims. still not schedulable, "
                                     "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.")
      << r->placements[2].reason;
  EXPECT_EQ(r->placements[3].node, "");
  EXPECT_EQ(r->placements[3].reason,
            "resource claim template \"nosuch\": resourceclaimtemplate.resource.k8s.io \"nosuch\" not found");
  EXPECT_EQ(r->scheduled, 2u);
  // Devices per node: 1 of 1 held on gpu-1 from the start; gpu-0 goes from 0 to 2 of 2.
  ASSERT_EQ(r->after.size(), 2u);
  EXPECT_EQ(r->before[0].devices, 0);
  EXPECT_EQ(r->after[0].devices, 2);
  EXPECT_EQ(r->after[0].devicesTotal, 2);
  EXPECT_EQ(r->before[1].devices, 1);
  EXPECT_EQ(r->after[1].devicesTotal, 1);
  const std::string text = to_text(*r);
  EXPECT_NE(text.find("DEVICES"), std::string::npos) << text;
  EXPECT_NE(text.find("0 -> 2/2"), std::string::npos) << text;
  EXPECT_NE(text.find("devices: gpu.ksched.dev/gpu-0/"), std::string::npos) << text;
}

}  // namespace
}  // namespace ksched::scheduler::simulate

namespace ksched::scheduler::simulate {
namespace {

std::string gang(const std::string& workload, int min_count, const std::string& cpu, int members) {
  std::string out = "apiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\nmetadata: {name: " + workload +
                    ", namespace: ml}\nspec:\n  podGroups: [{name: workers, policy: {gang: {minCount: " +
                    std::to_string(min_count) + "}}}]\n";
  for (int i = 0; i < members; ++i) {
    out += "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + workload + "-" + std::to_string(i) +
           ", namespace: ml}\nspec:\n  workloadRef: {name: " + workload +
           ", podGroup: workers}\n  containers: [{name: c, image: pause, resources: {requests: {cpu: \"" + cpu +
           "\"}}}]\n";
  }
  return out;
}

// Gangs offline as live (issue #44): the pods file holds the Workloads beside their members.
TEST(Simulate, GangsArePlacedWholeOrNotAtAllWithTheirReasons) {
  config::Features gates = config::features();
  gates.gangScheduling = true;
  const config::ScopedFeatures scoped(gates);
  auto cluster = objects(kCluster);
  // big has 4 CPUs free, small none: "train" (3 x 1 CPU) fits whole; "wide" (3 x 2 CPUs) cannot;
  // "short" never has the 3 members its minimum asks for.
  const std::string text = gang("train", 3, "1", 3) + "---\n" + gang("wide", 3, "2", 3) + "---\n" + gang("short", 3, "1", 2);
  const auto given = objects(text.c_str());
  ASSERT_EQ(given.workloads.size(), 3u);
  cluster.workloads = given.workloads;
  auto r = simulate(cluster, given.pods, options());
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->placements.size(), 8u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(r->placements[i].node, "big") << r->placements[i].pod;
  for (int i = 3; i < 6; ++i) {
    EXPECT_EQ(r->placements[i].node, "") << r->placements[i].pod;
    EXPECT_NE(r->placements[i].reason.find("minCount (3) cannot be satisfied"), std::string::npos)
        << r->placements[i].reason;
  }
  for (int i = 6; i < 8; ++i) {
    EXPECT_EQ(r->placements[i].node, "");
    EXPECT_EQ(r->placements[i].reason, "waiting for minCount pods from a gang to appear in scheduling queue");
  }
  EXPECT_EQ(r->scheduled, 3u);
  // The pending gang names its blocking member (the cycle tried once more, as ksched explain does):
  // wide-0 fits nowhere and the 2 left cannot reach minCount 3; "short" has no quorum, no cycle.
  ASSERT_EQ(r->pendingGangs.size(), 1u);
  EXPECT_EQ(r->pendingGangs[0].group, "ml/wide/workers");
  EXPECT_EQ(r->pendingGangs[0].blocking, "ml/wide-0");
  EXPECT_EQ(r->pendingGangs[0].placed, 0u);
  EXPECT_EQ(r->pendingGangs[0].verdict, "minCount (3) cannot be satisfied: 0 scheduled, 2 remaining");
  EXPECT_EQ(r->pendingGangs[0].why, "0/2 nodes are available: 2 Insufficient cpu.");
  // The example of docs/explain.md, as written.
  EXPECT_NE(to_text(*r).find("Pending gangs (the pod-group cycle tried once more):\n"
                             "  ml/wide/workers: 0 of minCount 3 placed (minCount (3) cannot be satisfied: 0 scheduled, 2 "
                             "remaining)\n    blocking member ml/wide-0: 0/2 nodes are available: 2 Insufficient cpu.\n"),
            std::string::npos)
      << to_text(*r);

  // A pods file's Workload without a namespace is in "default", with its pods.
  std::string plain = gang("solo", 2, "1", 2);
  for (std::size_t at; (at = plain.find(", namespace: ml")) != std::string::npos;) plain.erase(at, 15);
  const auto solo = objects(plain.c_str());
  cluster.workloads = solo.workloads;
  r = simulate(cluster, solo.pods, options());
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->placements.size(), 2u);
  EXPECT_EQ(r->placements[0].pod, "default/solo-0");
  EXPECT_EQ(r->scheduled, 2u) << r->placements[0].reason;
}


// The same with v1.37's PodGroups (spec.schedulingGroup.podGroupName) read from a dump's List as
// `kubectl get ...,podgroups -A -o json` writes it: the gang that fits is placed whole, the one that
// does not stays pending whole and is named by its PodGroup under Pending gangs.
TEST(Simulate, PodGroupGangsFromTheDumpArePlacedWholeOrNotAtAll) {
  config::Features gates = config::features();
  gates.gangScheduling = true;
  const config::ScopedFeatures scoped(gates);
  auto cluster = objects(kCluster);
  const auto dumped = objects(R"({"apiVersion":"v1","kind":"List","items":[
    {"apiVersion":"scheduling.k8s.io/v1beta1","kind":"PodGroup","metadata":{"name":"train","namespace":"ml"},
     "spec":{"schedulingPolicy":{"gang":{"minCount":3}}}},
    {"apiVersion":"scheduling.k8s.io/v1beta1","kind":"PodGroup","metadata":{"name":"wide","namespace":"ml"},
     "spec":{"schedulingPolicy":{"gang":{"minCount":3}}}}]})");
  ASSERT_EQ(dumped.podGroups.size(), 2u);
  cluster.podGroups = dumped.podGroups;
  std::string text;
  for (const auto& [group, cpu] : {std::pair<std::string, std::string>{"train", "1"}, {"wide", "2"}}) {
    for (int i = 0; i < 3; ++i) {
      if (!text.empty()) text += "---\n";
      text += "apiVersion: v1\nkind: Pod\nmetadata: {name: " + group + "-" + std::to_string(i) +
              ", namespace: ml}\nspec:\n  schedulingGroup: {podGroupName: " + group +
              "}\n  containers: [{name: c, image: pause, resources: {requests: {cpu: \"" + cpu + "\"}}}]\n";
    }
  }
  const auto given = objects(text.c_str());
  auto r = simulate(cluster, given.pods, options());
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->placements.size(), 6u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(r->placements[i].node, "big") << r->placements[i].pod;
  for (int i = 3; i < 6; ++i) {
    EXPECT_EQ(r->placements[i].node, "") << r->placements[i].pod;
    EXPECT_NE(r->placements[i].reason.find("minCount (3) cannot be satisfied"), std::string::npos)
        << r->placements[i].reason;
  }
  ASSERT_EQ(r->pendingGangs.size(), 1u);
  EXPECT_EQ(r->pendingGangs[0].group, "ml/wide");
  EXPECT_EQ(r->pendingGangs[0].blocking, "ml/wide-0");
}

}  // namespace
}  // namespace ksched::scheduler::simulate
