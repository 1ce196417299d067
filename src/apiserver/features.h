// The feature gates of kube-apiserver v1.35 that change what this server stores or answers, at
// their v1.35 defaults (pkg/features/kube_features.go). `ksched apiserver --feature-gates` sets
// them as upstream's flag does ("A=true,B=false").
#pragma once
#include <string_view>

#include "util/result.h"

namespace ksched::apiserver {

struct FeatureGates {
  // Beta, on since v1.34: pods' spec.resources (defaulting, validation, QoS class).
  bool PodLevelResources = true;
  // Alpha, off in v1.35: nodes' status.declaredFeatures is dropped unless it is on (or the node
  // already had them).
  bool NodeDeclaredFeatures = false;
  // Beta, on in v1.35: pods/binding (and a pod created with spec.nodeName) copies the node's
  // topology.kubernetes.io/zone and region labels onto the pod, and a binding's labels too.
  bool PodTopologyLabelsAdmission = true;
  // Beta, on in v1.35: a binding clears status.nominatedNodeName, and a status write may not set
  // it on a bound pod.
  bool ClearingNominatedNodeNameAfterBinding = true;
  // Beta, on since v1.27 / v1.34: a new pod's topology spread constraints get their
  // matchLabelKeys merged into the label selector.
  bool MatchLabelKeysInPodTopologySpread = true;
  bool MatchLabelKeysInPodTopologySpreadSelectorMerge = true;
  // Alpha, off in v1.35: spec.workloadRef and spec.schedulingGroup (GenericWorkload) and
  // lifecycle.stopSignal (ContainerStopSignals) are dropped from new pods.
  // GenericWorkload also serves scheduling.k8s.io/v1alpha1 Workload and v1beta1 PodGroup
  // (api/scheduling.h) and gives kube-scheduler's role access to them. (v1.37 makes it beta, still
  // off by default, so the default stays off.)
  bool GenericWorkload = false;
  bool ContainerStopSignals = false;
  // Alpha, off in v1.35: the scheduler's gang scheduling of a Workload's pod groups. It depends on
  // GenericWorkload (parse refuses it alone, as upstream); the API server only accepts it.
  bool GangScheduling = false;
  // Alpha, off (v1.36, KEP-5732): a PodGroup's (and a Workload template's) schedulingConstraints
  // (topology[].key) are kept and validated instead of dropped. Depends on GenericWorkload.
  bool TopologyAwareWorkloadScheduling = false;
  // Alpha, off in v1.37 (KEP-5710; not a v1.35 gate): a PodGroup's (and a v1beta1 Workload
  // template's) spec.preemptionPolicy may be set; without it the field is forbidden. With it the
  // Priority admission fills a new PodGroup's preemptionPolicy from its PriorityClass.
  bool PodGroupPreemptionPolicy = false;
  // Alpha, off (v1.36, KEP-5547; not a v1.35 gate): a Job's spec.scheduling (v1.37) is kept
  // instead of dropped (unless the stored Job has it), and the Job controller acts on it
  // (controllers/features.h). Depends on GenericWorkload.
  bool WorkloadWithJob = false;
  // Alpha, off in v1.37 (KEP-6012; not a v1.35 gate): scheduling.k8s.io/v1alpha3
  // CompositePodGroup is served, a v1beta1 Workload may have compositePodGroupTemplates and a
  // PodGroup spec.parentCompositePodGroupName (dropped without it unless stored). No declared
  // dependency was found upstream; the resource is served only with GenericWorkload as well.
  bool CompositePodGroup = false;
  // Alpha in v1.36, beta and still off in v1.37 (KEP-5729; not a v1.35 gate): a PodGroup's and a
  // v1beta1 Workload template's resourceClaims, and a PodGroup's status.resourceClaimStatuses, are
  // kept and validated instead of dropped (unless the stored object has them). Depends on
  // GenericWorkload.
  bool DRAWorkloadResourceClaims = false;

  // Whether the gate of that name is on; false for a name that is not one of these gates.
  bool enabled(std::string_view name) const;

  // "A=true,B=false" over `base` (v1.35's defaults when not given): upstream's --feature-gates
  // syntax and its messages for an unknown gate or a value that is not a boolean.
  static util::Result<FeatureGates> parse(std::string_view spec);
  static util::Result<FeatureGates> parse(std::string_view spec, const FeatureGates& base);
};

}  // namespace ksched::apiserver
