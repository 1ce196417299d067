// The scheduler's ClusterClient with SchedulerAsyncAPICalls on: pod bindings and pod status
// patches go through the dispatcher, everything else straight to the wrapped client. As upstream's
// APICacher users do, a binding waits for its call's end (DefaultBinder: BindPod then WaitOnFinish;
// skipped or overwritten count as success), while a status patch returns once queued
// (schedule_one's updatePod, preemption's clearing of nominations).
#pragma once
#include "scheduler/apidispatcher/dispatcher.h"
#include "scheduler/framework/interface.h"

namespace ksched::scheduler::apidispatcher {

class AsyncClusterClient final : public framework::ClusterClient {
 public:
  // Both must outlive this client; `dispatcher` executes through `direct`.
  AsyncClusterClient(framework::ClusterClient& direct, Dispatcher& dispatcher)
      : direct_(direct), dispatcher_(dispatcher) {}

  framework::Status bind(const api::Pod& pod, const std::string& node_name) override;
  // One call per pod, all queued before the first wait.
  std::vector<framework::Status> bind_all(const std::vector<Binding>& bindings) override;
  framework::Status patch_pod_status(const api::Pod& pod, const std::optional<api::PodCondition>& condition,
                                     const std::optional<std::string>& nominated_node_name) override;

  framework::Status delete_pod(const api::Pod& pod) override { return direct_.delete_pod(pod); }
  void event(const api::Pod& regarding, const std::string& type, const std::string& reason, const std::string& action,
             const std::string& note) override {
    direct_.event(regarding, type, reason, action, note);
  }
  framework::Status update_pv(const api::PersistentVolume& pv) override { return direct_.update_pv(pv); }
  framework::Status update_pvc(const api::PersistentVolumeClaim& pvc) override { return direct_.update_pvc(pvc); }
  ClaimAnswer get_resource_claim(std::string_view ns, std::string_view name) override {
    return direct_.get_resource_claim(ns, name);
  }
  ClaimAnswer update_resource_claim(const api::resourcev1::ResourceClaim& claim, bool status) override {
    return direct_.update_resource_claim(claim, status);
  }
  ClaimAnswer create_resource_claim(const api::resourcev1::ResourceClaim& claim) override {
    return direct_.create_resource_claim(claim);
  }
  framework::Status delete_resource_claim(std::string_view ns, std::string_view name) override {
    return direct_.delete_resource_claim(ns, name);
  }
  framework::Status patch_pod_extended_resource_claim_status(
      const api::Pod& pod, const api::PodExtendedResourceClaimStatus& status) override {
    return direct_.patch_pod_extended_resource_claim_status(pod, status);
  }
  framework::Status patch_pod_group_status(std::string_view ns, std::string_view name,
                                           const api::Condition& condition) override {
    return direct_.patch_pod_group_status(ns, name, condition);
  }
  framework::Status patch_composite_pod_group_status(std::string_view ns, std::string_view name,
                                                     const api::Condition& condition) override {
    return direct_.patch_composite_pod_group_status(ns, name, condition);
  }

 private:
  framework::ClusterClient& direct_;
  Dispatcher& dispatcher_;
};

}  // namespace ksched::scheduler::apidispatcher
