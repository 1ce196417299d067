// ResourceClaim controller (kube-controller-manager's resource-claim-controller,
// pkg/controller/resourceclaim), as upstream v1.35:
//  - for each pod claim naming a ResourceClaimTemplate, creates the pod's claim from the template:
//    generateName `<pod>-<pod claim name>-` (both shortened in proportion past 57 characters),
//    the template's labels and annotations plus `resource.kubernetes.io/pod-claim-name`, the pod as
//    controlling owner (blockOwnerDeletion), the template's spec; then records it in the pod's
//    status.resourceClaimStatuses. A claim it made before (found by owner and annotation) is reused,
//    so a failed status write never makes a second one; a missing template is an error the pod's
//    FailedResourceClaimCreation event names, retried with backoff.
//  - reserves an allocated claim for a scheduled pod that is not in its reservedFor yet;
//  - removes pods that are gone, replaced or done from claims' reservedFor; a claim no one holds
//    any more is deallocated (allocation cleared, the delete-protection finalizer removed), and a
//    claim made for a pod that will not run is deleted.
// Work items are "pod:<ns>/<name>" and "claim:<ns>/<name>", as upstream's queue.
#pragma once
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>

#include "api/resource.h"
#include "controllers/controller.h"
#include "controllers/events.h"

namespace ksched::controllers {

class ResourceClaimController final : public Controller {
 public:
  // Upstream's index of pods by the claims they use ("<ns>/<claim name>").
  static constexpr const char* kPodResourceClaimIndex = "pod-resource-claim-index";

  explicit ResourceClaimController(const ControllerContext& ctx);
  ~ResourceClaimController() override;
  void run(int workers) override;
  void stop() override;
  bool has_synced() const override;

  // One sync of a work item (tests call it directly).
  util::Result<void> sync(const std::string& key);

 private:
  using Claim = api::resourcev1::ResourceClaim;
  using Template = api::resourcev1::ResourceClaimTemplate;

  void enqueue_pod(const api::Pod& pod, bool deleted);
  void enqueue_claim(const Claim& claim, bool deleted);
  bool pod_needs_work(const api::Pod& pod) const;
  util::Result<void> sync_pod(const std::string& ns, const std::string& name);
  util::Result<void> sync_claim(const std::string& ns, const std::string& name);
  // Creates (or finds) the claim of one pod claim; adds "<pod claim>" -> claim name to `made`.
  util::Result<void> handle_claim(const api::Pod& pod, const api::PodResourceClaim& pc,
                                  std::map<std::string, std::string>& made);
  informer::Ptr<Claim> claim_made_for(const api::Pod& pod, std::string_view pod_claim) const;
  informer::Ptr<Claim> cached_claim(const std::string& ns, const std::string& name) const;

  ControllerContext ctx_;
  std::shared_ptr<informer::SharedIndexInformer<api::Pod>> pods_;
  std::shared_ptr<informer::SharedIndexInformer<Claim>> claims_;
  std::shared_ptr<informer::SharedIndexInformer<Template>> templates_;
  std::vector<std::function<bool()>> synced_;
  Recorder recorder_;

  // Claims this controller created that its informer may not show yet (upstream's mutation
  // cache), by namespace/name; dropped once the informer has them.
  mutable std::mutex created_mu_;
  std::map<std::string, informer::Ptr<Claim>> created_;
  // The same claims by their controlling pod's UID (claim_made_for looks them up per pod sync).
  std::unordered_multimap<std::string, informer::Ptr<Claim>> created_by_pod_;
  void forget_created_locked(const std::string& key);
  // UIDs of pods seen deleted (upstream's deletedObjects LRU): their reservations go without a
  // lookup. Bounded.
  mutable std::mutex deleted_mu_;
  std::set<std::string> deleted_pods_;
  std::deque<std::string> deleted_order_;

  KeyWorkers workers_;
};

}  // namespace ksched::controllers
