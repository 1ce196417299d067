// The shared informers the controllers take from the manager's factory. Every controller asks
// through these functions, so the first request (which fixes an informer's options) always asks
// for the same indexers and decoding.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/core.h"
#include "api/resource.h"
#include "api/scheduling.h"
#include "controllers/controller.h"
#include "controllers/types.h"

namespace ksched::controllers {

// Objects by the UID of their controller, orphans by their namespace (upstream's
// controllerUIDIndex and OrphanPodIndexKeyForNamespace); pods also by node.
inline constexpr const char* kControllerUIDIndex = "controllerUID";
inline std::string orphan_index_key(std::string_view ns) { return "orphan:" + std::string(ns); }
inline constexpr const char* kNodeNameIndex = "nodeName";

std::shared_ptr<informer::SharedIndexInformer<api::Pod>> pod_informer(const ControllerContext& ctx);
std::shared_ptr<informer::SharedIndexInformer<api::Node>> node_informer(const ControllerContext& ctx);
std::shared_ptr<informer::SharedIndexInformer<ReplicaSet>> replica_set_informer(const ControllerContext& ctx);
std::shared_ptr<informer::SharedIndexInformer<Deployment>> deployment_informer(const ControllerContext& ctx);
std::shared_ptr<informer::SharedIndexInformer<DaemonSet>> daemon_set_informer(const ControllerContext& ctx);
std::shared_ptr<informer::SharedIndexInformer<StatefulSet>> stateful_set_informer(const ControllerContext& ctx);
std::shared_ptr<informer::SharedIndexInformer<ControllerRevision>> controller_revision_informer(
    const ControllerContext& ctx);
std::shared_ptr<informer::SharedIndexInformer<Job>> job_informer(const ControllerContext& ctx);
// resource.k8s.io: claims indexed by their controller's UID (the pod a claim was made for).
std::shared_ptr<informer::SharedIndexInformer<api::resourcev1::ResourceClaim>> resource_claim_informer(
    const ControllerContext& ctx);
std::shared_ptr<informer::SharedIndexInformer<api::resourcev1::ResourceClaimTemplate>>
resource_claim_template_informer(const ControllerContext& ctx);

// scheduling.k8s.io/v1beta1, for the Job controller with WorkloadWithJob (asked for only with the
// gate on, so no watch is opened otherwise). Workloads are indexed by their spec.controllerRef,
// PodGroups by the Workload their spec.workloadRef names, and Jobs that a parent delegated a
// PodGroup to (annotation scheduling.k8s.io/group-template-name) by that parent. Upstream's
// workloadByJobName and podGroupByWorkloadName indexes (pkg/controller/job/
// job_scheduling_manager.go as merged by PR #140188); keying Workloads by the whole reference
// also finds a parent's Workload without listing the namespace. The references carry names, not
// UIDs: a caller checks ownership (controller ownerReference UID) before acting.
inline constexpr const char* kWorkloadByControllerRefIndex = "workloadByControllerRef";
inline constexpr const char* kPodGroupByWorkloadIndex = "podGroupByWorkload";
inline constexpr const char* kJobByDelegatingParentIndex = "jobByDelegatingParent";
// "<apiGroup>/<kind>/<namespace>/<name>": the value of both Workload and Job indexes ("" group:
// core).
std::string controller_ref_index_key(std::string_view api_group, std::string_view kind, std::string_view ns,
                                     std::string_view name);
// "<namespace>/<workload>".
std::string workload_ref_index_key(std::string_view ns, std::string_view workload_name);
// The group of an ownerReference's apiVersion (schema.ParseGroupVersion: "group/version", or
// "version" for the core group); nullopt when it does not parse.
std::optional<std::string_view> api_group_of(std::string_view api_version);

// The index functions (tests fill an Indexer with them).
std::vector<std::string> workload_controller_ref_values(const api::schedulingv1beta1::Workload& w);
std::vector<std::string> pod_group_workload_values(const api::schedulingv1beta1::PodGroup& p);

std::shared_ptr<informer::SharedIndexInformer<api::schedulingv1beta1::Workload>> workload_informer(
    const ControllerContext& ctx);
std::shared_ptr<informer::SharedIndexInformer<api::schedulingv1beta1::PodGroup>> pod_group_informer(
    const ControllerContext& ctx);

// The objects whose controller reference has this UID (through kControllerUIDIndex).
template <class T>
std::vector<informer::Ptr<T>> owned_by(const informer::Indexer<T>& idx, std::string_view uid) {
  return idx.by_index(kControllerUIDIndex, std::string(uid));
}
// Those of `owner` and the orphans of its namespace (controller.FilterPodsByOwner with orphans).
template <class T>
std::vector<informer::Ptr<T>> owned_or_orphans(const informer::Indexer<T>& idx, const api::ObjectMeta& owner) {
  auto out = owned_by(idx, owner.uid);
  auto more = idx.by_index(kControllerUIDIndex, orphan_index_key(owner.namespace_));
  out.insert(out.end(), more.begin(), more.end());
  return out;
}

}  // namespace ksched::controllers
