// Job controller (pkg/controller/job): runs a Job's pods to completion. Keeps
// min(parallelism, completions - succeeded) pods active (parallelism while no pod has succeeded,
// when completions is unset); Indexed Jobs give each pod its completion index (annotation and
// label batch.kubernetes.io/job-completion-index, hostname <job>-<index>, JOB_COMPLETION_INDEX)
// and record completedIndexes. Pods carry the batch.kubernetes.io/job-tracking finalizer, so each
// finished pod is counted exactly once (through status.uncountedTerminatedPods) before it may
// go. The Job fails once more pods failed than backoffLimit (or its OnFailure containers
// restarted that often), or after activeDeadlineSeconds; replacements of failed pods wait an
// exponential backoff (10 s doubling to 10 min). Terminal conditions come as upstream writes
// them: SuccessCriteriaMet then Complete, FailureTarget then Failed, once no pod is terminating.
// With WorkloadWithJob (alpha, off; needs GenericWorkload), a Job without a controller owner gets
// a Workload and a PodGroup before its first pod (basic unless spec.scheduling says otherwise), a
// child Job whose parent delegated its PodGroup gets that PodGroup, and the pods join the group
// (job_scheduling.h). The objects are found in Workload and PodGroup informers (started only with
// the gate), whose events requeue the Jobs concerned.
// Not implemented: podFailurePolicy, successPolicy, backoffLimitPerIndex, ttlSecondsAfterFinished.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "controllers/controller.h"
#include "controllers/controller_utils.h"
#include "controllers/events.h"
#include "controllers/job/job_scheduling.h"
#include "controllers/types.h"

namespace ksched::controllers {

class JobController final : public Controller {
 public:
  static constexpr int kMaxPodCreateDeletePerSync = 500;
  static constexpr std::chrono::seconds kDefaultPodFailureBackoff{10};
  static constexpr std::chrono::minutes kMaxPodFailureBackoff{10};
  static constexpr std::chrono::seconds kSyncJobBatchPeriod{1};

  explicit JobController(const ControllerContext& ctx);
  ~JobController() override;
  void run(int workers) override;
  void stop() override;
  bool has_synced() const override;

  util::Result<void> sync(const std::string& key);

 private:
  struct SyncCtx;
  Ptr<Job> resolve_controller(const std::string& ns, const api::OwnerReference& ref) const;
  void enqueue_batched(const Job& j);
  void on_pod_add(const Ptr<api::Pod>& p);
  void on_pod_update(const Ptr<api::Pod>& old, const Ptr<api::Pod>& cur);
  void on_pod_delete(const informer::Deleted<api::Pod>& d, bool final);
  util::Result<void> sync_orphan_pod(const std::string& key);
  // WorkloadWithJob: a Workload or PodGroup event requeues the Job its ownerReferences name
  // (enqueueJobFromOwnerRef); a Workload event also the Jobs its controllerRef's parent delegated
  // a PodGroup to.
  void add_scheduling_informers();
  void enqueue_owning_job(const api::ObjectMeta& meta);
  void enqueue_delegated_jobs(const api::schedulingv1beta1::Workload& w);

  client::Result<std::int32_t> manage(SyncCtx& c);
  client::Result<void> track_status(SyncCtx& c, bool needs_update);
  // Removes the tracking finalizer from the pods (pipelined); the UIDs it was removed from.
  std::set<std::string> remove_finalizers(const std::vector<Ptr<api::Pod>>& pods, std::optional<client::ApiError>& err);
  client::Result<void> write_status(SyncCtx& c);

  ControllerContext ctx_;
  std::shared_ptr<informer::SharedIndexInformer<Job>> job_informer_;
  std::shared_ptr<informer::SharedIndexInformer<api::Pod>> pod_informer_;
  std::shared_ptr<informer::SharedIndexInformer<api::schedulingv1beta1::Workload>> workload_informer_;
  std::shared_ptr<informer::SharedIndexInformer<api::schedulingv1beta1::PodGroup>> pod_group_informer_;
  std::unique_ptr<SchedulingObjects> scheduling_objects_;  // with the gate only
  std::vector<std::function<bool()>> synced_;
  Expectations expectations_;
  Recorder recorder_;
  // Pods whose finalizer removal is on its way (finalizerExpectations), by Job key.
  std::mutex mu_;
  std::map<std::string, std::set<std::string>> removing_finalizer_;
  struct Backoff {
    int failures_after_success = 0;
    util::Clock::time_point last_failure{};
  };
  std::map<std::string, Backoff> backoff_;
  KeyWorkers workers_;
  KeyWorkers orphan_workers_;
};

// The completion indexes of status.completedIndexes ("1,3-5") and back.
std::vector<std::pair<int, int>> parse_index_intervals(std::string_view s, int completions);
std::string format_index_intervals(const std::vector<std::pair<int, int>>& intervals);

}  // namespace ksched::controllers
