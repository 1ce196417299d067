// The scheduler's feature gates that change what it computes, process-wide as upstream's
// utilfeature.DefaultFeatureGate: the requests a PodInfo caches are computed in the cache and the
// queue, far from any plugin's arguments, and upstream reads the global gate there too. Set once at
// start-up (kube-scheduler's --feature-gates), before the configuration is defaulted and the
// scheduler built; tests that flip a gate restore it (ScopedFeatures).
#pragma once
#include <map>
#include <string>

namespace ksched::scheduler::config {

struct Features {
  // Beta, on since v1.34: pod.spec.resources (pod-level requests) replace the containers' sum for
  // cpu, memory and hugepages-* in every request the scheduler computes.
  bool podLevelResources = true;
  // Alpha, off in v1.35: the NodeDeclaredFeatures plugin joins the default profile and matches
  // pods' inferred feature requirements against node.status.declaredFeatures.
  bool nodeDeclaredFeatures = false;
  // Beta, on since v1.33: preemption evicts its victims off the scheduling cycle, and
  // DefaultPreemption's PreEnqueue keeps the preemptor out of activeQ until that is done.
  bool schedulerAsyncPreemption = true;
  // Beta, on since v1.35 (KEP-5278): the binding cycle sets status.nominatedNodeName before a
  // PreBind or Permit that waits, so others see where the pod is expected to land.
  bool nominatedNodeNameForExpectation = true;
  // Alpha, off in v1.35 (issue #44), with GenericWorkload on which it depends: the GangScheduling
  // plugin joins the default profile, the scheduler keeps its pod-group state (Workload informer)
  // and runs gangs' pod-group cycle.
  bool gangScheduling = false;
  // Alpha, off (v1.36, KEP-5732), with GangScheduling: a gang whose PodGroup has
  // schedulingConstraints.topology is placed within one domain of the key (the TopologyPlacement
  // and PodGroupPodsCount plugins join the default profile; the pod-group cycle tries placements).
  bool topologyAwareWorkloadScheduling = false;
  // Alpha, off in v1.37 (KEP-5710; not a v1.35 gate): workload-aware preemption reads a PodGroup's
  // own spec.preemptionPolicy instead of its members' (scheduler/podgroup's PreemptorView).
  bool podGroupPreemptionPolicy = false;
  // Alpha, off in v1.37 (KEP-6012; not a v1.35 gate), with GangScheduling: PodGroups may name a
  // parent CompositePodGroup (CompositePodGroup informer, podgroup::HierarchyTracker); PreEnqueue
  // waits for the root composite's quorum and the pod-group cycle places the whole tree.
  bool compositePodGroup = false;
  // Beta, off in v1.35 (KEP-5229): pod bindings and status patches go through the asynchronous
  // API-call dispatcher (src/scheduler/apidispatcher), one call per pod at a time, merged or
  // overwritten by relevance, and its three metrics are registered.
  bool schedulerAsyncAPICalls = false;
  // Dynamic Resource Allocation (issue #43), at v1.35's maturity: the structured allocator and the
  // DynamicResources plugin read these (dra::Features).
  bool draAdminAccess = true;            // beta, on
  bool draPrioritizedList = true;        // beta, on
  bool draPartitionableDevices = false;  // alpha, off (beta, on in v1.36)
  bool draDeviceTaints = false;          // alpha, off (beta, on in v1.36)
  bool draConsumableCapacity = false;    // alpha, off (beta, on in v1.36)
  bool draExtendedResource = false;      // alpha, off (beta, on in v1.36; GA in v1.37)
  // Device binding conditions (KEP-5007) need both: PreBind waits for the devices' conditions in
  // status.devices, which DRAResourceClaimDeviceStatus lets drivers write.
  bool draDeviceBindingConditions = false;   // alpha, off (beta, on in v1.36)
  bool draResourceClaimDeviceStatus = true;  // beta, on
  // Alpha in v1.36, beta and off in v1.37 (KEP-5729; not a v1.35 gate), with GenericWorkload: a
  // claim a pod shares with its PodGroup (its spec.resourceClaims entry equals one of the
  // PodGroup's, or the PodGroup controls the claim) is reserved for the PodGroup, and the members
  // of a gang see the allocation another member made in the same cycle.
  bool draWorkloadResourceClaims = false;
  bool draDeviceBindingAndStatus() const { return draDeviceBindingConditions && draResourceClaimDeviceStatus; }
};

// The current gates (v1.35's defaults until set_features is called). Read from any thread;
// written only while no scheduler runs.
const Features& features();
void set_features(const Features& f);
// The gates as --feature-gates' "Name" -> value sets them (feature_enabled: AllAlpha/AllBeta,
// v1.35's defaults).
Features features_from_gates(const std::map<std::string, bool>& gates);

// Sets the gates for a scope and restores the previous ones (tests).
class ScopedFeatures {
 public:
  explicit ScopedFeatures(const Features& f) : saved_(features()) { set_features(f); }
  ~ScopedFeatures() { set_features(saved_); }
  ScopedFeatures(const ScopedFeatures&) = delete;
  ScopedFeatures& operator=(const ScopedFeatures&) = delete;

 private:
  Features saved_;
};

}  // namespace ksched::scheduler::config
