// StatefulSet controller (pkg/controller/statefulset): pods with stable identities
// "<set>-<ordinal>" (labels statefulset.kubernetes.io/pod-name and apps.kubernetes.io/pod-index,
// hostname and subdomain), one PersistentVolumeClaim "<claim>-<set>-<ordinal>" per
// volumeClaimTemplate. OrderedReady creates them one at a time, each once its predecessors are
// Running and Ready, and removes them in reverse order; Parallel creates and removes without
// waiting. Revisions are ControllerRevisions (the pods' controller-revision-hash label names
// theirs); RollingUpdate replaces pods from the highest ordinal down to the partition, one at a
// time, OnDelete when they are deleted. Status (replicas, ready, available, current, updated,
// currentRevision, updateRevision) is what `kubectl rollout status sts` reads. Not implemented:
// maxUnavailable above 1, persistentVolumeClaimRetentionPolicy (claims are always retained).
#pragma once
#include <memory>

#include "controllers/controller.h"
#include "controllers/controller_utils.h"
#include "controllers/events.h"
#include "controllers/types.h"

namespace ksched::controllers {

class StatefulSetController final : public Controller {
 public:
  explicit StatefulSetController(const ControllerContext& ctx);
  ~StatefulSetController() override;
  void run(int workers) override;
  void stop() override;
  bool has_synced() const override;

  util::Result<void> sync(const std::string& key);

 private:
  struct Revisions;
  Ptr<StatefulSet> resolve_controller(const std::string& ns, const api::OwnerReference& ref) const;
  void on_pod_event(const api::Pod* old, const api::Pod& pod);
  client::Result<Revisions> revisions(const StatefulSet& set);
  client::Result<StatefulSetStatus> update_set(const StatefulSet& set, const Revisions& revs,
                                               std::vector<Ptr<api::Pod>> pods);
  api::Pod new_pod(const StatefulSet& set, const Revisions& revs, int ordinal) const;
  client::Result<void> create_pod(const StatefulSet& set, const api::Pod& pod);
  client::Result<void> delete_pod(const StatefulSet& set, const api::Pod& pod);

  ControllerContext ctx_;
  std::shared_ptr<informer::SharedIndexInformer<StatefulSet>> set_informer_;
  std::shared_ptr<informer::SharedIndexInformer<api::Pod>> pod_informer_;
  std::shared_ptr<informer::SharedIndexInformer<ControllerRevision>> rev_informer_;
  std::vector<std::function<bool()>> synced_;
  Recorder recorder_;
  KeyWorkers workers_;
};

}  // namespace ksched::controllers
