// DaemonSet controller (pkg/controller/daemon): one pod per node the DaemonSet should run on (its
// nodeSelector, required node affinity and the taints its pods do not tolerate decide), nodes
// added later included. Pods are placed by the scheduler: each carries a required node affinity on
// metadata.name (matchFields) for its node, replacing any required node affinity of the template,
// and the tolerations upstream adds (not-ready and unreachable NoExecute, the pressure and
// unschedulable NoSchedule taints, network-unavailable for hostNetwork). Revisions are
// ControllerRevisions named by the template's hash (the pods' controller-revision-hash label);
// RollingUpdate replaces old pods within maxUnavailable, OnDelete leaves them. Status counts what
// `kubectl rollout status ds` reads. Not implemented: maxSurge > 0 (treated as 0).
#pragma once
#include <map>
#include <memory>

#include "api/helpers.h"
#include "controllers/controller.h"
#include "controllers/controller_utils.h"
#include "controllers/events.h"
#include "controllers/types.h"

namespace ksched::controllers {

class DaemonSetController final : public Controller {
 public:
  static constexpr int kBurstReplicas = 250;
  explicit DaemonSetController(const ControllerContext& ctx);
  ~DaemonSetController() override;
  void run(int workers) override;
  void stop() override;
  bool has_synced() const override;

  util::Result<void> sync(const std::string& key);

  // NodeShouldRunDaemonPod: {should run a pod there, may keep one running there}.
  static std::pair<bool, bool> should_run(const api::Node& node, const DaemonSet& ds);
  // The template with the DaemonSet's tolerations (AddOrUpdateDaemonPodTolerations).
  static void add_daemon_tolerations(api::PodSpec& spec);

 private:
  using NodePods = std::map<std::string, std::vector<Ptr<api::Pod>>>;
  void enqueue(const DaemonSet& ds) { workers_.add(api::key_of(ds)); }
  Ptr<DaemonSet> resolve_controller(const std::string& ns, const api::OwnerReference& ref) const;
  void on_pod_event(const api::Pod& pod, bool created, bool deleted);
  void on_node_change(const api::Node* old, const api::Node& cur);
  client::Result<NodePods> node_pods(const DaemonSet& ds);
  client::Result<std::pair<Ptr<ControllerRevision>, std::vector<Ptr<ControllerRevision>>>> construct_history(
      const DaemonSet& ds);
  client::Result<void> manage(const DaemonSet& ds, const std::vector<Ptr<api::Node>>& nodes, const std::string& hash);
  client::Result<void> rolling_update(const DaemonSet& ds, const std::vector<Ptr<api::Node>>& nodes,
                                      const std::string& hash);
  client::Result<void> sync_nodes(const DaemonSet& ds, const std::vector<std::string>& pods_to_delete,
                                  const std::vector<std::string>& nodes_needing_pods, const std::string& hash);
  client::Result<void> update_status(const DaemonSet& ds, const std::vector<Ptr<api::Node>>& nodes,
                                     const std::string& hash, bool observed);
  client::Result<void> cleanup_history(const DaemonSet& ds, const std::vector<Ptr<ControllerRevision>>& old);

  ControllerContext ctx_;
  std::shared_ptr<informer::SharedIndexInformer<DaemonSet>> ds_informer_;
  std::shared_ptr<informer::SharedIndexInformer<api::Pod>> pod_informer_;
  std::shared_ptr<informer::SharedIndexInformer<api::Node>> node_informer_;
  std::shared_ptr<informer::SharedIndexInformer<ControllerRevision>> rev_informer_;
  std::vector<std::function<bool()>> synced_;
  Expectations expectations_;
  Recorder recorder_;
  KeyWorkers workers_;
};

}  // namespace ksched::controllers
