#include "scheduler/queue/events.h"

namespace ksched::scheduler::queue {

using framework::ClusterEvent;
using framework::EventResource;

ClusterEvent make_event(EventResource r, std::uint32_t action, std::string label) {
  ClusterEvent e;
  e.resource = r;
  e.actionType = action;
  e.label = std::move(label);
  return e;
}

ClusterEvent event_unschedulable_timeout() {
  return make_event(EventResource::WildCard, framework::kAll, kUnschedulableTimeout);
}
ClusterEvent event_force_activate() { return make_event(EventResource::WildCard, framework::kAll, kForceActivate); }
ClusterEvent event_assigned_pod_add() { return make_event(EventResource::AssignedPod, framework::kAdd, "AssignedPodAdd"); }
ClusterEvent event_assigned_pod_delete() {
  return make_event(EventResource::AssignedPod, framework::kDelete, "AssignedPodDelete");
}

namespace {

// A request shrank or disappeared (any resource, including scalars).
bool scaled_down(const api::Pod& new_pod, const api::Pod& old_pod) {
  auto nr = framework::compute_pod_requests(new_pod);
  auto orq = framework::compute_pod_requests(old_pod);
  if (orq.milliCPU > nr.milliCPU || orq.memory > nr.memory || orq.ephemeralStorage > nr.ephemeralStorage) return true;
  for (const auto& [name, v] : orq.scalarResources) {
    const auto* n = nr.scalarResources.find(name);
    if (!n || v > *n) return true;
  }
  return false;
}

// Upstream extractPodGeneratedResourceClaimChange: status.resourceClaimStatuses changed (the
// ResourceClaim controller recorded the claims it made from templates).
bool generated_resource_claims_changed(const api::Pod& new_pod, const api::Pod& old_pod) {
  static const std::vector<api::PodResourceClaimStatus> none;
  const auto& a = new_pod.status.resourceClaimStatuses ? *new_pod.status.resourceClaimStatuses : none;
  const auto& b = old_pod.status.resourceClaimStatuses ? *old_pod.status.resourceClaimStatuses : none;
  if (a.size() != b.size()) return true;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].resourceClaimName != b[i].resourceClaimName) return true;
  }
  return false;
}

}  // namespace

std::vector<ClusterEvent> pod_scheduling_property_change(const api::Pod& new_pod, const api::Pod& old_pod) {
  const bool assigned = !new_pod.spec.nodeName.empty();
  const EventResource r = assigned ? EventResource::AssignedPod : EventResource::UnscheduledPod;
  const std::string prefix = assigned ? "AssignedPod" : "UnscheduledPod";
  std::vector<ClusterEvent> out;
  if (!(new_pod.metadata.labels == old_pod.metadata.labels))
    out.push_back(make_event(r, framework::kUpdatePodLabel, prefix + "LabelChange"));
  if (scaled_down(new_pod, old_pod))
    out.push_back(make_event(r, framework::kUpdatePodScaleDown, prefix + "ScaleDown"));
  if (new_pod.spec.schedulingGates.empty() && !old_pod.spec.schedulingGates.empty())
    out.push_back(make_event(r, framework::kUpdatePodSchedulingGatesEliminated, prefix + "SchedulingGatesEliminated"));
  // Tolerations can only be added (API validation), so a length change is the signal.
  if (new_pod.spec.tolerations.size() != old_pod.spec.tolerations.size())
    out.push_back(make_event(r, framework::kUpdatePodTolerations, prefix + "TolerationChange"));
  if (generated_resource_claims_changed(new_pod, old_pod))
    out.push_back(make_event(r, framework::kUpdatePodGeneratedResourceClaim, prefix + "GeneratedResourceClaimChange"));
  if (out.empty()) out.push_back(make_event(r, framework::kUpdateOther, prefix + "Update"));
  return out;
}

}  // namespace ksched::scheduler::queue
