// Cluster objects read from files: what `kubectl get nodes,pods,pdb,pv,pvc,storageclasses,csinodes,
// priorityclasses,deviceclasses,resourceslices,resourceclaims,resourceclaimtemplates,workloads,
// podgroups -A -o json` writes (a List of mixed kinds), or YAML documents (a pods file, which may
// hold the Workloads and PodGroups its pods name).
#pragma once
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/resource.h"
#include "api/scheduling.h"
#include "api/types.h"
#include "util/result.h"

namespace ksched::scheduler::simulate {

struct ClusterObjects {
  std::vector<std::shared_ptr<const api::Node>> nodes;
  std::vector<std::shared_ptr<const api::Pod>> pods;
  std::vector<std::shared_ptr<const api::Namespace>> namespaces;
  std::vector<std::shared_ptr<const api::PodDisruptionBudget>> pdbs;
  std::vector<std::shared_ptr<const api::PersistentVolume>> pvs;
  std::vector<std::shared_ptr<const api::PersistentVolumeClaim>> pvcs;
  std::vector<std::shared_ptr<const api::StorageClass>> storageClasses;
  std::vector<std::shared_ptr<const api::CSINode>> csiNodes;
  std::vector<std::shared_ptr<const api::CSIDriver>> csiDrivers;
  std::vector<std::shared_ptr<const api::PriorityClass>> priorityClasses;
  // resource.k8s.io/v1 (Dynamic Resource Allocation)
  std::vector<std::shared_ptr<const api::resourcev1::DeviceClass>> deviceClasses;
  std::vector<std::shared_ptr<const api::resourcev1::ResourceSlice>> resourceSlices;
  std::vector<std::shared_ptr<const api::resourcev1::ResourceClaim>> resourceClaims;
  std::vector<std::shared_ptr<const api::resourcev1::ResourceClaimTemplate>> resourceClaimTemplates;
  // scheduling.k8s.io/v1alpha1 (v1.35's workload-aware scheduling): the pod groups' policies
  std::vector<std::shared_ptr<const api::schedulingv1alpha1::Workload>> workloads;
  // scheduling.k8s.io/v1beta1 (v1.37): PodGroups, which pods name in spec.schedulingGroup
  std::vector<std::shared_ptr<const api::schedulingv1beta1::PodGroup>> podGroups;
  std::map<std::string, std::size_t> skippedKinds;  // kinds the scheduler does not read, by count
};

// Adds the objects of `text` to `out`: a JSON object (a List's items are taken one by one), a
// JSON array, or YAML documents of either. Errors name the item that failed ("items[12] (Pod
// default/web): ..."); nothing of a document that fails is kept.
util::Result<void> add_objects(std::string_view text, ClusterObjects& out);
util::Result<ClusterObjects> load_objects_file(const std::string& path);

}  // namespace ksched::scheduler::simulate
