// Every fixture under tests/fixtures decodes into its type and encodes back to the same JSON value
// (order-insensitive comparison through Boost.JSON). kubectl_*.json come from the real kubectl
// (client dry-run); the others are hand-written objects shaped like API server responses.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "api/resource.h"
#include "api/types.h"

using namespace ksched::api;

namespace {

std::string read_fixture(const std::string& name) {
  std::ifstream in(std::string(KSCHED_SOURCE_DIR) + "/tests/fixtures/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// decode -> encode -> compare; then encode must be stable under a second decode/encode.
template <class T>
void expect_round_trip(const std::string& name) {
  SCOPED_TRACE(name);
  std::string in = read_fixture(name);
  ASSERT_FALSE(in.empty());
  auto obj = decode<T>(in);
  ASSERT_TRUE(obj.ok()) << obj.error();
  std::string out = encode(*obj);
  EXPECT_EQ(boost::json::parse(out), boost::json::parse(in)) << out;
  auto again = decode<T>(out);
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(encode(*again), out);
}

const std::map<std::string, std::function<void(const std::string&)>>& fixture_types() {
  static const std::map<std::string, std::function<void(const std::string&)>> m = {
      {"kubectl_pod.json", expect_round_trip<Pod>},
      {"kubectl_deployment.json", expect_round_trip<Deployment>},
      {"kubectl_namespace.json", expect_round_trip<Namespace>},
      {"kubectl_service.json", expect_round_trip<Service>},
      {"kubectl_priorityclass.json", expect_round_trip<PriorityClass>},
      {"kubectl_pdb.json", expect_round_trip<PodDisruptionBudget>},
      {"pod_full.json", expect_round_trip<Pod>},
      {"node_full.json", expect_round_trip<Node>},
      {"pv.json", expect_round_trip<PersistentVolume>},
      {"pv_intree.json", expect_round_trip<PersistentVolume>},
      {"pvc.json", expect_round_trip<PersistentVolumeClaim>},
      {"pvc_pending.json", expect_round_trip<PersistentVolumeClaim>},
      {"storageclass.json", expect_round_trip<StorageClass>},
      {"csinode.json", expect_round_trip<CSINode>},
      {"csidriver.json", expect_round_trip<CSIDriver>},
      {"csistoragecapacity.json", expect_round_trip<CSIStorageCapacity>},
      {"lease.json", expect_round_trip<Lease>},
      {"event_v1.json", expect_round_trip<eventsv1::Event>},
      {"event_core.json", expect_round_trip<Event>},
      {"replicaset.json", expect_round_trip<ReplicaSet>},
      {"statefulset.json", expect_round_trip<StatefulSet>},
      {"daemonset.json", expect_round_trip<DaemonSet>},
      {"pdb_status.json", expect_round_trip<PodDisruptionBudget>},
      {"status_notfound.json", expect_round_trip<Status>},
      {"status_invalid.json", expect_round_trip<Status>},
      {"podlist.json", expect_round_trip<List<Pod>>},
      {"watch_pod_added.json", expect_round_trip<WatchEvent<Pod>>},
      {"watch_bookmark.json", expect_round_trip<WatchEvent<Pod>>},
      {"binding.json", expect_round_trip<Binding>},
      {"rc.json", expect_round_trip<ReplicationController>},
      {"runtimeclass.json", expect_round_trip<RuntimeClass>},
      {"deviceclass.json", expect_round_trip<resourcev1::DeviceClass>},
      {"resourceclaim.json", expect_round_trip<resourcev1::ResourceClaim>},
      {"resourceclaimtemplate.json", expect_round_trip<resourcev1::ResourceClaimTemplate>},
      {"resourceslice.json", expect_round_trip<resourcev1::ResourceSlice>},
      {"resourceslice_pernode.json", expect_round_trip<resourcev1::ResourceSlice>},
      {"devicetaintrule.json", expect_round_trip<resourcev1beta2::DeviceTaintRule>},
      {"podgroup_v1beta1.json", expect_round_trip<schedulingv1beta1::PodGroup>},
      {"workload_v1beta1.json", expect_round_trip<schedulingv1beta1::Workload>},
      {"workload_composite_v1beta1.json", expect_round_trip<schedulingv1beta1::Workload>},
      {"compositepodgroup_v1alpha3.json", expect_round_trip<schedulingv1alpha3::CompositePodGroup>},
      {"workload_v1alpha1.json", expect_round_trip<schedulingv1alpha1::Workload>},
      {"pod_schedulinggroup.json", expect_round_trip<Pod>},
  };
  return m;
}

}  // namespace

TEST(RoundTrip, EveryFixtureHasATypeAndRoundTrips) {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(KSCHED_SOURCE_DIR) + "/tests/fixtures")) {
    if (entry.path().extension() != ".json") continue;
    const std::string name = entry.path().filename().string();
    auto it = fixture_types().find(name);
    ASSERT_NE(it, fixture_types().end()) << "fixture without a type: " << name;
    it->second(name);
    ++n;
  }
  EXPECT_EQ(n, static_cast<int>(fixture_types().size()));
}

TEST(RoundTrip, FullPodFieldsAreModelled) {
  auto pod = decode<Pod>(read_fixture("pod_full.json"));
  ASSERT_TRUE(pod.ok()) << pod.error();
  const auto& s = pod->spec;
  ASSERT_TRUE(s.affinity && s.affinity->nodeAffinity && s.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution);
  EXPECT_EQ(s.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution->nodeSelectorTerms.size(), 2u);
  EXPECT_EQ(s.affinity->podAntiAffinity->preferredDuringSchedulingIgnoredDuringExecution[0].weight, 100);
  EXPECT_EQ(s.tolerations.size(), 3u);
  EXPECT_EQ(*s.tolerations[0].tolerationSeconds, 300);
  EXPECT_EQ(s.topologySpreadConstraints[0].minDomains, 2);
  EXPECT_EQ(s.initContainers[1].restartPolicy, "Always");
  EXPECT_EQ(s.containers[0].ports[1].hostPort, 9100);
  EXPECT_EQ(s.containers[0].resources.requests.find("memory")->value(), 512LL << 20);
  EXPECT_EQ(s.overhead.find("cpu")->milli_value(), 10);
  EXPECT_EQ(s.volumes[3].gcePersistentDisk->pdName, "pd-1");
  EXPECT_EQ(s.schedulingGates[0].name, "example.com/quota");
  EXPECT_EQ(pod->metadata.ownerReferences[0].controller, true);
  EXPECT_FALSE(pod->metadata.managedFields.empty());
  EXPECT_EQ(pod->status.conditions.size(), 4u);
  EXPECT_FALSE(pod->status.conditions[0].lastProbeTime.has_value());
  EXPECT_EQ(format_rfc3339(*pod->status.startTime), "2024-05-10T08:15:30Z");
}

// The v1.37 workload API (scheduling.k8s.io/v1beta1, KEP-5832) as upstream's
// staging/src/k8s.io/api/scheduling/v1beta1/types.go shapes it: the typed members are read, the
// members of gates not implemented (resourceClaims, resourceClaimStatuses) ride along in extra.
TEST(RoundTrip, PodGroupWorkloadAndSchedulingGroupAreModelled) {
  auto pg = decode<schedulingv1beta1::PodGroup>(read_fixture("podgroup_v1beta1.json"));
  ASSERT_TRUE(pg.ok()) << pg.error();
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
  EXPECT_TRUE(pg->spec.disruptionMode->all.has_value());
  EXPECT_FALSE(pg->spec.disruptionMode->single.has_value());
  EXPECT_EQ(pg->spec.priorityClassName, "high");
  EXPECT_EQ(pg->spec.priority, 1000);
  EXPECT_FALSE(pg->spec.preemptionPolicy);
  ASSERT_EQ(pg->status.conditions.size(), 1u);
  EXPECT_EQ(pg->status.conditions[0].type, schedulingv1beta1::kPodGroupInitiallyScheduled);
  EXPECT_EQ(pg->status.conditions[0].reason, schedulingv1beta1::kReasonUnschedulable);
  auto encoded = boost::json::parse(encode(*pg));
  EXPECT_EQ(encoded.at("status").at("resourceClaimStatuses").at(0).at("name"), "shared-gpu");
  EXPECT_EQ(encoded.at("spec").at("resourceClaims").at(0).at("resourceClaimTemplateName"), "gpu-template");

  auto wl = decode<schedulingv1beta1::Workload>(read_fixture("workload_v1beta1.json"));
  ASSERT_TRUE(wl.ok()) << wl.error();
  ASSERT_EQ(wl->spec.podGroupTemplates.size(), 2u);
  EXPECT_EQ(wl->spec.podGroupTemplates[0].name, "workers");
  EXPECT_EQ(wl->spec.podGroupTemplates[0].schedulingPolicy.gang->minCount, 4);
  EXPECT_EQ(wl->spec.podGroupTemplates[0].preemptionPolicy, "Never");
  EXPECT_TRUE(wl->spec.podGroupTemplates[1].schedulingPolicy.basic.has_value());
  ASSERT_TRUE(wl->spec.controllerRef);
  EXPECT_EQ(wl->spec.controllerRef->kind, "Job");

  auto pod = decode<Pod>(read_fixture("pod_schedulinggroup.json"));
  ASSERT_TRUE(pod.ok()) << pod.error();
  ASSERT_TRUE(pod->spec.schedulingGroup);
  EXPECT_EQ(pod->spec.schedulingGroup->podGroupName, "trainer-0");
  EXPECT_FALSE(pod->spec.workloadRef);
  // Absent stays absent on the way out.
  auto plain = decode<Pod>(read_fixture("kubectl_pod.json"));
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->spec.schedulingGroup);
  EXPECT_EQ(encode(*plain).find("schedulingGroup"), std::string::npos);
}

// CompositePodGroups (v1.37 alpha): kubernetes/api master's scheduling/v1alpha3 CompositePodGroup and
// the v1beta1 Workload's recursive compositePodGroupTemplates, typed (none of it left in extra).
TEST(RoundTrip, CompositePodGroupAndTemplateTreeAreModelled) {
  auto cpg = decode<schedulingv1alpha3::CompositePodGroup>(read_fixture("compositepodgroup_v1alpha3.json"));
  ASSERT_TRUE(cpg.ok()) << cpg.error();
  EXPECT_EQ(cpg->spec.parentCompositePodGroupName, "job-root");
  ASSERT_TRUE(cpg->spec.workloadRef);
  EXPECT_EQ(cpg->spec.workloadRef->templateName, "replica");
  ASSERT_TRUE(cpg->spec.schedulingPolicy.gang);
  EXPECT_EQ(cpg->spec.schedulingPolicy.gang->minGroupCount, 2);
  ASSERT_TRUE(cpg->spec.schedulingConstraints);
  EXPECT_EQ(cpg->spec.schedulingConstraints->topology.at(0).key, "topology.kubernetes.io/rack");
  ASSERT_TRUE(cpg->spec.disruptionMode);
  EXPECT_TRUE(cpg->spec.disruptionMode->all.has_value());
  EXPECT_EQ(cpg->spec.priority, 1000);
  EXPECT_EQ(cpg->spec.preemptionPolicy, "Never");
  ASSERT_EQ(cpg->status.conditions.size(), 1u);
  EXPECT_EQ(cpg->status.conditions[0].type, schedulingv1beta1::kCompositePodGroupInitiallyScheduled);
  EXPECT_TRUE(cpg->spec.extra.empty());

  auto wl = decode<schedulingv1beta1::Workload>(read_fixture("workload_composite_v1beta1.json"));
  ASSERT_TRUE(wl.ok()) << wl.error();
  EXPECT_TRUE(wl->spec.podGroupTemplates.empty());
  EXPECT_TRUE(wl->spec.extra.empty());
  ASSERT_EQ(wl->spec.compositePodGroupTemplates.size(), 1u);
  const auto& replica = wl->spec.compositePodGroupTemplates[0];
  EXPECT_EQ(replica.schedulingPolicy.gang->minGroupCount, 2);
  ASSERT_EQ(replica.podGroupTemplates.size(), 2u);
  EXPECT_EQ(replica.podGroupTemplates[1].schedulingPolicy.gang->minCount, 4);
  ASSERT_EQ(replica.compositePodGroupTemplates.size(), 1u);
  EXPECT_TRUE(replica.compositePodGroupTemplates[0].schedulingPolicy.basic.has_value());
  EXPECT_EQ(replica.compositePodGroupTemplates[0].podGroupTemplates.at(0).name, "logger");
}

TEST(RoundTrip, OtherKindsAreModelled) {
  auto node = decode<Node>(read_fixture("node_full.json"));
  ASSERT_TRUE(node.ok());
  EXPECT_EQ(node->status.allocatable.find("cpu")->milli_value(), 1930);
  EXPECT_EQ(node->spec.taints[1].timeAdded->unixNanos, parse_rfc3339("2024-05-10T09:00:00Z")->unixNanos);
  EXPECT_EQ(node->status.images[0].sizeBytes, 70544635);

  auto pv = decode<PersistentVolume>(read_fixture("pv.json"));
  ASSERT_TRUE(pv.ok());
  EXPECT_EQ(pv->spec.csi->volumeHandle, "vol-1");
  EXPECT_EQ(pv->spec.claimRef->name, "web-data");
  EXPECT_EQ(pv->spec.nodeAffinity->required->nodeSelectorTerms[0].matchExpressions[0].values[0], "us-east-1a");

  auto pvc = decode<PersistentVolumeClaim>(read_fixture("pvc_pending.json"));
  ASSERT_TRUE(pvc.ok());
  ASSERT_TRUE(pvc->spec.storageClassName.has_value());
  EXPECT_EQ(*pvc->spec.storageClassName, "");

  auto lease = decode<Lease>(read_fixture("lease.json"));
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ(format_rfc3339(*lease->spec.renewTime), "2024-05-10T09:10:12.345678Z");
  EXPECT_EQ(*lease->spec.leaseDurationSeconds, 15);

  auto rc = decode<RuntimeClass>(read_fixture("runtimeclass.json"));
  ASSERT_TRUE(rc.ok()) << rc.error();
  EXPECT_EQ(rc->handler, "runsc");
  ASSERT_TRUE(rc->overhead.has_value());
  EXPECT_EQ(rc->overhead->podFixed.find("cpu")->milli_value(), 250);
  ASSERT_TRUE(rc->scheduling.has_value());
  EXPECT_EQ(*rc->scheduling->nodeSelector.find("runtime"), "gvisor");
  ASSERT_EQ(rc->scheduling->tolerations.size(), 2u);
  EXPECT_EQ(rc->scheduling->tolerations[1].operator_, "Exists");
  EXPECT_EQ(*rc->scheduling->tolerations[1].tolerationSeconds, 60);

  auto pdb = decode<PodDisruptionBudget>(read_fixture("kubectl_pdb.json"));
  ASSERT_TRUE(pdb.ok());
  EXPECT_EQ(pdb->spec.minAvailable->strVal, "50%");
  auto pdb2 = decode<PodDisruptionBudget>(read_fixture("pdb_status.json"));
  ASSERT_TRUE(pdb2.ok());
  EXPECT_TRUE(pdb2->spec.maxUnavailable->is_int());
  EXPECT_EQ(pdb2->status.disruptedPods.size(), 1u);

  auto csinode = decode<CSINode>(read_fixture("csinode.json"));
  ASSERT_TRUE(csinode.ok());
  EXPECT_EQ(*csinode->spec.drivers[0].allocatable->count, 25);

  auto cap = decode<CSIStorageCapacity>(read_fixture("csistoragecapacity.json"));
  ASSERT_TRUE(cap.ok());
  EXPECT_EQ(cap->maximumVolumeSize->to_string(), "16Ti");

  auto ev = decode<eventsv1::Event>(read_fixture("event_v1.json"));
  ASSERT_TRUE(ev.ok());
  EXPECT_EQ(ev->series->count, 3);
  EXPECT_EQ(ev->regarding.name, "web-7d4b9c8f6d-x2x9k");

  auto sc = decode<StorageClass>(read_fixture("storageclass.json"));
  ASSERT_TRUE(sc.ok());
  EXPECT_EQ(*sc->volumeBindingMode, "WaitForFirstConsumer");
  EXPECT_EQ(sc->allowedTopologies[0].matchLabelExpressions[0].values.size(), 2u);

  auto dep = decode<Deployment>(read_fixture("kubectl_deployment.json"));
  ASSERT_TRUE(dep.ok());
  EXPECT_EQ(*dep->spec.replicas, 3);
  EXPECT_EQ(dep->spec.selector->matchLabels.get("app"), "web");

  auto bm = decode<WatchEvent<Pod>>(read_fixture("watch_bookmark.json"));
  ASSERT_TRUE(bm.ok());
  EXPECT_EQ(bm->object.metadata.resourceVersion, "12345");
}
