// ReplicaSet controller (pkg/controller/replicaset): keeps spec.replicas active pods that match
// the selector and carry the ReplicaSet as their controller, adopting orphans and releasing pods it
// no longer selects. Creates in slow-start batches of at most 500 per sync, deletes the pods
// upstream's ranking puts first, waits for the informer to see its own creations and deletions
// (expectations) before it acts again, and writes status (replicas, fullyLabeledReplicas,
// readyReplicas, availableReplicas, observedGeneration, the ReplicaFailure condition).
#pragma once
#include <memory>

#include "controllers/controller.h"
#include "controllers/controller_utils.h"
#include "controllers/events.h"
#include "controllers/types.h"

namespace ksched::controllers {

class ReplicaSetController final : public Controller {
 public:
  static constexpr int kBurstReplicas = 500;  // upstream's BurstReplicas
  explicit ReplicaSetController(const ControllerContext& ctx);
  ~ReplicaSetController() override;
  void run(int workers) override;
  void stop() override;
  bool has_synced() const override;

  // One sync of the ReplicaSet with this key (tests call it directly).
  util::Result<void> sync(const std::string& key);

 private:
  void enqueue(const ReplicaSet& rs);
  void enqueue_selecting(const api::Pod& pod);  // orphans: every ReplicaSet that selects the pod
  Ptr<ReplicaSet> resolve_controller(const std::string& ns, const api::OwnerReference& ref) const;
  void on_pod_add(const Ptr<api::Pod>& p);
  void on_pod_update(const Ptr<api::Pod>& old, const Ptr<api::Pod>& cur);
  void on_pod_delete(const informer::Deleted<api::Pod>& d);
  client::Result<void> manage_replicas(const std::vector<Ptr<api::Pod>>& active, const ReplicaSet& rs,
                                       const std::string& key);
  std::vector<Ptr<api::Pod>> indirectly_related_pods(const ReplicaSet& rs) const;

  ControllerContext ctx_;
  std::shared_ptr<informer::SharedIndexInformer<ReplicaSet>> rs_informer_;
  std::shared_ptr<informer::SharedIndexInformer<api::Pod>> pod_informer_;
  std::vector<std::function<bool()>> synced_;
  Expectations expectations_;
  Recorder recorder_;
  KeyWorkers workers_;
};

}  // namespace ksched::controllers
