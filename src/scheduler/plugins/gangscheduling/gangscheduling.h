// GangScheduling (workload-aware scheduling, issue #44): all-or-nothing placement of a pod group
// whose Workload gives it a gang policy.
//
// Upstream: pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go. PreEnqueue keeps a
// gang's pods out of activeQ until minCount of them exist: for a pod naming a v1beta1 PodGroup
// (spec.schedulingGroup) v1.37's gate and messages, for a pod naming a v1alpha1 Workload
// (spec.workloadRef) v1.35's (podgroup/manager.h: which wins when a pod has both). PlacementFeasible is v1.36+'s: the
// pod-group cycle asks it before the first member and after each, and stops as soon as the
// members left cannot bring the group to minCount. There is no Permit: since v1.36 the pod-group
// cycle commits the whole placement or nothing (v1.35 held members at Permit until minCount
// waited; one cycle for the group makes that wait, and its timeout, unnecessary).
// Enabled in the default profile with the GangScheduling gate (alpha, off), as upstream's
// applyFeatureGates appends it.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/framework/interface.h"

namespace ksched::scheduler::plugins::gangscheduling {

inline constexpr std::string_view kName = "GangScheduling";

class GangScheduling final : public framework::PreEnqueuePlugin,
                             public framework::PlacementFeasiblePlugin,
                             public framework::EnqueueExtensions {
 public:
  explicit GangScheduling(podgroup::Manager& groups) : groups_(groups) {}
  std::string_view name() const override { return kName; }
  // U&U while the pod's PodGroup, Workload or Workload pod group is missing, or fewer than
  // minCount pods of a gang exist; Success for pods naming no group and for basic groups.
  framework::Status pre_enqueue(const api::Pod& pod) override;
  // Unschedulable when remaining + scheduled < minCount; Wait while scheduled < minCount;
  // Success once minCount are scheduled (or the group is not a gang).
  framework::Status placement_feasible(const api::Pod& member, const framework::PlacementProgress& progress) override;
  // Pod/Add of a pod of the same group; Workload/Add of the pod's Workload (immutable, so no
  // updates, as v1.35); PodGroup/Add of the pod's PodGroup and PodGroup/Update lowering its gang's
  // minCount (v1.37).
  std::vector<framework::ClusterEventWithHint> events_to_register() const override;

 private:
  // Whether a pod of `added`'s group now passes the quorum gate; remembered for one (added pod,
  // membership version), since the queue asks the hint once per waiting member of the group.
  bool quorum_after_add(const api::Pod& added) const;

  podgroup::Manager& groups_;
  mutable std::mutex memo_mu_;
  mutable const void* memo_pod_ = nullptr;
  mutable std::uint64_t memo_version_ = 0;
  mutable bool memo_quorum_ = false;
};

// The scheduling queue's indexes for GangScheduling's hints (queue::UnschedulablePodIndex). A pod
// event concerns the pods of the event pod's group (the Pod/Add hint Skips a pod of another group:
// podgroup::same_group), and none while that group is short of its quorum (the hint Skips them all:
// without this, each of a gang's n arriving members would ask every member already waiting, n²/2
// hints); a Workload event concerns the pods naming that Workload ("ns/name", the Workload/Add
// hint's own rule), a PodGroup event the pods naming that PodGroup ("ns/name"). A pod naming no
// group waits on none of them.
void group_keys_of_pod(const api::Pod& pod, std::vector<std::string>& out);
std::optional<std::string> group_key_of_event(const podgroup::Manager& groups, const std::shared_ptr<const void>& old_obj,
                                              const std::shared_ptr<const void>& new_obj);
void workload_keys_of_pod(const api::Pod& pod, std::vector<std::string>& out);
std::optional<std::string> workload_key_of_event(const std::shared_ptr<const void>& old_obj,
                                                 const std::shared_ptr<const void>& new_obj);

void pod_group_keys_of_pod(const api::Pod& pod, std::vector<std::string>& out);
std::optional<std::string> pod_group_key_of_event(const std::shared_ptr<const void>& old_obj,
                                                  const std::shared_ptr<const void>& new_obj);

util::Result<std::shared_ptr<framework::Plugin>> make_gang_scheduling(const framework::PluginArgs& args,
                                                                      framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::gangscheduling
