// The shared informers the controllers take from the manager's factory. Every controller asks
// through these functions, so the first request (which fixes an informer's options) always asks
// for the same indexers and decoding.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "api/core.h"
#include "api/resource.h"
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
