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
// With DRAWorkloadResourceClaims (KEP-5729; needs GenericWorkload), as upstream's controller_test.go
// of the v1.37 development tree has it (the stored version with PodGroup cases; no commit recorded;
// staging/.../resourceclaim/podgroup.go at 892c6ccad8b8):
//  - a PodGroup's spec.resourceClaims entry naming a template gets one claim for the whole group:
//    generateName `<podgroup>-<claim>-`, the PodGroup as controlling owner, the template's
//    metadata plus the pod-claim-name annotation; recorded in the PodGroup's
//    status.resourceClaimStatuses;
//  - a pod whose spec.resourceClaims entry equals one of its PodGroup's (same name, same claim or
//    template) makes no claim of its own: the PodGroup's claim is recorded in the pod's status once
//    the PodGroup has it (a pod whose PodGroup is not known yet is an error, retried);
//  - a scheduled pod's use of such a claim reserves it for the PodGroup (reservedFor
//    {scheduling.k8s.io, podgroups, name, uid}), not for the pod; that entry goes when the
//    PodGroup is gone (with the gate off it is left alone), and then the claim is deallocated.
// Work items are "pod:<ns>/<name>", "podgroup:<ns>/<name>" and "claim:<ns>/<name>", as upstream's
// queue.
#pragma once
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>

#include "api/resource.h"
#include "api/scheduling.h"
#include "controllers/controller.h"
#include "controllers/events.h"

namespace ksched::controllers {

class ResourceClaimController final : public Controller {
 public:
  // Upstream's index of pods by the claims they use ("<ns>/<claim name>").
  static constexpr const char* kPodResourceClaimIndex = "pod-resource-claim-index";
  // Pods with claims by their PodGroup ("<ns>/<podGroupName>"), so that a PodGroup's new
  // resourceClaimStatuses reach its pods (DRAWorkloadResourceClaims).
  static constexpr const char* kPodByPodGroupIndex = "pod-by-podgroup-index";

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
  using PodGroup = api::schedulingv1beta1::PodGroup;

  void enqueue_pod(const api::Pod& pod, bool deleted);
  void enqueue_claim(const Claim& claim, bool deleted);
  void enqueue_pod_group(const PodGroup& group, bool deleted);
  bool pod_needs_work(const api::Pod& pod) const;
  util::Result<void> sync_pod(const std::string& ns, const std::string& name);
  util::Result<void> sync_pod_group(const std::string& ns, const std::string& name);
  util::Result<void> sync_claim(const std::string& ns, const std::string& name);
  // Creates (or finds) the claim of one pod claim; adds "<pod claim>" -> claim name to `made`.
  // `group`: the pod's PodGroup when the gate is on (null: none, or not known).
  util::Result<void> handle_claim(const api::Pod& pod, const PodGroup* group, const api::PodResourceClaim& pc,
                                  std::map<std::string, std::string>& made);
  // The claim made from `tmpl` for `claim` of `owner` (a pod or a PodGroup): found (made before,
  // its name not recorded yet) or created now.
  util::Result<informer::Ptr<Claim>> make_claim(const api::ObjectMeta& owner, std::string_view api_version,
                                                std::string_view kind, std::string_view claim,
                                                const std::string& template_name);
  // A claim this controller made for `claim` of the owner with this UID (its informer's or one it
  // created that the informer does not show yet).
  informer::Ptr<Claim> claim_made_for(std::string_view owner_uid, std::string_view claim) const;
  informer::Ptr<Claim> cached_claim(const std::string& ns, const std::string& name) const;
  // The pod's PodGroup, with the gate on and the PodGroup in the informer; else null.
  informer::Ptr<PodGroup> pod_group_of(const api::Pod& pod) const;
  bool consumer_deleted(std::string_view uid) const;

  ControllerContext ctx_;
  std::shared_ptr<informer::SharedIndexInformer<api::Pod>> pods_;
  std::shared_ptr<informer::SharedIndexInformer<Claim>> claims_;
  std::shared_ptr<informer::SharedIndexInformer<Template>> templates_;
  // DRAWorkloadResourceClaims only (null with the gate off).
  std::shared_ptr<informer::SharedIndexInformer<PodGroup>> pod_groups_;
  std::vector<std::function<bool()>> synced_;
  Recorder recorder_;

  // Claims this controller created that its informer may not show yet (upstream's mutation
  // cache), by namespace/name; dropped once the informer has them.
  mutable std::mutex created_mu_;
  std::map<std::string, informer::Ptr<Claim>> created_;
  // The same claims by their controlling owner's UID (a pod's or a PodGroup's; claim_made_for
  // looks them up per sync).
  std::unordered_multimap<std::string, informer::Ptr<Claim>> created_by_owner_;
  void forget_created_locked(const std::string& key);
  // UIDs of pods (and PodGroups) seen deleted (upstream's deletedObjects LRU): their reservations
  // go without a lookup. Bounded.
  mutable std::mutex deleted_mu_;
  std::set<std::string> deleted_consumers_;
  std::deque<std::string> deleted_order_;
  void remember_deleted(std::string uid);

  KeyWorkers workers_;
};

}  // namespace ksched::controllers
