// framework::ClusterClient over the REST client: pods/binding, pod deletion, pods/status
// strategic-merge patches (upstream util.PatchPodStatus), and events through an injected sink
// (the events.k8s.io recorder), so the scheduling thread never blocks on event delivery.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "scheduler/framework/interface.h"

namespace ksched::client {
class RestClient;
}

namespace ksched::scheduler {

class RestClusterClient final : public framework::ClusterClient {
 public:
  using EventSink = std::function<void(const api::Pod& regarding, const std::string& type, const std::string& reason,
                                       const std::string& action, const std::string& note)>;
  // `events` empty = events are only logged (V(2)).
  RestClusterClient(std::shared_ptr<client::RestClient> client, EventSink events = {});

  framework::Status bind(const api::Pod& pod, const std::string& node_name) override;
  // One pipelined write for all of them (RestClient::bind_all).
  std::vector<framework::Status> bind_all(const std::vector<Binding>& bindings) override;
  framework::Status delete_pod(const api::Pod& pod) override;
  framework::Status patch_pod_status(const api::Pod& pod, const std::optional<api::PodCondition>& condition,
                                     const std::optional<std::string>& nominated_node_name) override;
  void event(const api::Pod& regarding, const std::string& type, const std::string& reason, const std::string& action,
             const std::string& note) override;
  // PUT of the whole object (VolumeBinding's PreBind).
  framework::Status update_pv(const api::PersistentVolume& pv) override;
  framework::Status update_pvc(const api::PersistentVolumeClaim& pvc) override;
  // ResourceClaims (DynamicResources).
  ClaimAnswer get_resource_claim(std::string_view ns, std::string_view name) override;
  ClaimAnswer update_resource_claim(const api::resourcev1::ResourceClaim& claim, bool status) override;
  ClaimAnswer create_resource_claim(const api::resourcev1::ResourceClaim& claim) override;
  framework::Status delete_resource_claim(std::string_view ns, std::string_view name) override;
  // Strategic-merge patch {"status":{"extendedResourceClaimStatus":...}} (upstream PatchPodStatus).
  framework::Status patch_pod_extended_resource_claim_status(
      const api::Pod& pod, const api::PodExtendedResourceClaimStatus& status) override;
  // Strategic-merge patch {"status":{"conditions":[condition]}} of podgroups/status (v1beta1).
  framework::Status patch_pod_group_status(std::string_view ns, std::string_view name,
                                           const api::Condition& condition) override;
  // The same of compositepodgroups/status (v1alpha3).
  framework::Status patch_composite_pod_group_status(std::string_view ns, std::string_view name,
                                                     const api::Condition& condition) override;

  // The patch body patch_pod_status sends (exposed for tests).
  static std::string pod_status_patch(const std::optional<api::PodCondition>& condition,
                                      const std::optional<std::string>& nominated_node_name);

 private:
  std::shared_ptr<client::RestClient> client_;
  EventSink events_;
};

}  // namespace ksched::scheduler
