// Deployment controller (pkg/controller/deployment): owns ReplicaSets named
// "<deployment>-<pod-template-hash>", one per template; rolls from the old ones to the new one with
// RollingUpdate (maxSurge/maxUnavailable) or Recreate (old pods gone first), scales proportionally
// when the Deployment is resized mid-rollout, keeps revisionHistoryLimit old ReplicaSets with the
// revision annotations `kubectl rollout history` reads, and writes the status and the Available and
// Progressing conditions `kubectl rollout status` waits on (ProgressDeadlineExceeded after
// progressDeadlineSeconds without progress).
#pragma once
#include <memory>

#include "controllers/controller.h"
#include "controllers/controller_utils.h"
#include "controllers/deployment/util.h"
#include "controllers/events.h"
#include "controllers/types.h"

namespace ksched::controllers {

class DeploymentController final : public Controller {
 public:
  static constexpr int kMaxRetries = 15;  // upstream's maxRetries before a key is dropped
  explicit DeploymentController(const ControllerContext& ctx);
  ~DeploymentController() override;
  void run(int workers) override;
  void stop() override;
  bool has_synced() const override;

  util::Result<void> sync(const std::string& key);

 private:
  using RSPtr = deployment::RSPtr;
  struct State;  // one sync's view: the Deployment copy, its ReplicaSets, its pods by ReplicaSet

  void enqueue(const Deployment& d);
  Ptr<Deployment> resolve_controller(const std::string& ns, const api::OwnerReference& ref) const;
  void enqueue_selecting(const ReplicaSet& rs);
  void on_rs_add(const Ptr<ReplicaSet>& rs);
  void on_rs_update(const Ptr<ReplicaSet>& old, const Ptr<ReplicaSet>& cur);
  void on_rs_delete(const informer::Deleted<ReplicaSet>& d);
  void on_pod_delete(const informer::Deleted<api::Pod>& d);

  client::Result<void> sync_status_only(State& s);
  client::Result<void> sync_scaling(State& s);
  client::Result<void> check_paused_conditions(State& s);
  client::Result<bool> is_scaling_event(State& s);
  client::Result<void> rollout_rolling(State& s);
  client::Result<void> rollout_recreate(State& s);
  // getAllReplicaSetsAndSyncRevision: the new ReplicaSet (created when asked and missing) and the old ones.
  client::Result<std::pair<RSPtr, std::vector<RSPtr>>> all_replica_sets(State& s, bool create);
  client::Result<RSPtr> new_replica_set(State& s, const std::vector<RSPtr>& old, bool create);
  client::Result<void> scale(State& s, const RSPtr& new_rs, const std::vector<RSPtr>& old);
  // scaleReplicaSet: writes the new size (and the replicas annotations); true when the size changed.
  client::Result<bool> scale_replica_set(State& s, RSPtr& rs, std::int32_t size, std::string_view op);
  client::Result<bool> scale_and_record(State& s, RSPtr& rs, std::int32_t size);
  client::Result<bool> reconcile_new(State& s, const std::vector<RSPtr>& all, RSPtr& new_rs);
  client::Result<bool> reconcile_old(State& s, const std::vector<RSPtr>& all, std::vector<RSPtr> old,
                                     const RSPtr& new_rs);
  client::Result<void> cleanup(State& s, const std::vector<RSPtr>& old);
  client::Result<void> sync_deployment_status(State& s, const std::vector<RSPtr>& all, const RSPtr& new_rs);
  client::Result<void> sync_rollout_status(State& s, const std::vector<RSPtr>& all, const RSPtr& new_rs);
  DeploymentStatus calculate_status(const State& s, const std::vector<RSPtr>& all, const RSPtr& new_rs) const;
  client::Result<void> update_status(State& s);
  void requeue_stuck(const State& s, const DeploymentStatus& status);

  ControllerContext ctx_;
  std::shared_ptr<informer::SharedIndexInformer<Deployment>> d_informer_;
  std::shared_ptr<informer::SharedIndexInformer<ReplicaSet>> rs_informer_;
  std::shared_ptr<informer::SharedIndexInformer<api::Pod>> pod_informer_;
  std::vector<std::function<bool()>> synced_;
  Recorder recorder_;
  KeyWorkers workers_;
};

}  // namespace ksched::controllers
