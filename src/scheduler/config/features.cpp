#include "scheduler/config/features.h"

#include "scheduler/config/feature_gates.h"

namespace ksched::scheduler::config {

namespace {
// Written at start-up or by a test between scheduler runs, read everywhere after: a plain object,
// as upstream's gates are fixed once the component runs.
Features g_features;
}  // namespace

const Features& features() { return g_features; }

void set_features(const Features& f) { g_features = f; }

Features features_from_gates(const std::map<std::string, bool>& gates) {
  Features f;
  f.podLevelResources = feature_enabled(gates, "PodLevelResources");
  f.nodeDeclaredFeatures = feature_enabled(gates, "NodeDeclaredFeatures");
  f.schedulerAsyncPreemption = feature_enabled(gates, "SchedulerAsyncPreemption");
  f.nominatedNodeNameForExpectation = feature_enabled(gates, "NominatedNodeNameForExpectation");
  // Upstream declares GangScheduling dependent on GenericWorkload (v1.35 kube_features.go) and
  // refuses it alone; ksched's gates have no dependency check, so the pair is required here.
  f.gangScheduling = feature_enabled(gates, "GangScheduling") && feature_enabled(gates, "GenericWorkload");
  // Upstream declares it dependent on GenericWorkload; it acts only in the gang cycle here.
  f.topologyAwareWorkloadScheduling = feature_enabled(gates, "TopologyAwareWorkloadScheduling") && f.gangScheduling;
  f.podGroupPreemptionPolicy = feature_enabled(gates, "PodGroupPreemptionPolicy");
  // Upstream declares it dependent on GenericWorkload; only GangScheduling's state and cycle read it.
  f.compositePodGroup = feature_enabled(gates, "CompositePodGroup") && f.gangScheduling;
  f.schedulerAsyncAPICalls = feature_enabled(gates, "SchedulerAsyncAPICalls");
  f.draAdminAccess = feature_enabled(gates, "DRAAdminAccess");
  f.draPrioritizedList = feature_enabled(gates, "DRAPrioritizedList");
  f.draPartitionableDevices = feature_enabled(gates, "DRAPartitionableDevices");
  f.draDeviceTaints = feature_enabled(gates, "DRADeviceTaints");
  f.draConsumableCapacity = feature_enabled(gates, "DRAConsumableCapacity");
  f.draExtendedResource = feature_enabled(gates, "DRAExtendedResource");
  f.draDeviceBindingConditions = feature_enabled(gates, "DRADeviceBindingConditions");
  f.draResourceClaimDeviceStatus = feature_enabled(gates, "DRAResourceClaimDeviceStatus");
  // Upstream declares it dependent on GenericWorkload (the PodGroup API).
  f.draWorkloadResourceClaims =
      feature_enabled(gates, "DRAWorkloadResourceClaims") && feature_enabled(gates, "GenericWorkload");
  return f;
}

}  // namespace ksched::scheduler::config
