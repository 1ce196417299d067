// VolumeRestrictions: inline disks that cannot be shared (GCE PD, AWS EBS, RBD, iSCSI with
// upstream's read-only rules) and ReadWriteOncePod claims already used by another pod.
#pragma once
#include <memory>
#include <string_view>

#include "scheduler/framework/interface.h"

namespace ksched::scheduler::plugins::volumerestrictions {

inline constexpr std::string_view kName = "VolumeRestrictions";
inline constexpr std::string_view kErrReasonDiskConflict = "node(s) had no available disk";
inline constexpr std::string_view kErrReasonReadWriteOncePodConflict =
    "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode";

// Whether `v` (of the incoming pod) conflicts with any volume of `existing`.
bool is_volume_conflict(const api::Volume& v, const api::Pod& existing);

class VolumeRestrictions final : public framework::SignPlugin,
                                 public framework::PreFilterPlugin,
                                 public framework::PreFilterExtensions,
                                 public framework::FilterPlugin,
                                 public framework::EnqueueExtensions {
 public:
  explicit VolumeRestrictions(framework::Handle& handle) : handle_(handle) {}
  std::string_view name() const override { return kName; }
  void sign_pod(const api::Pod& pod, framework::PodSignature& sig) const override;
  // Looks up the pod's claims (missing one → U&U not-found), counts ReadWriteOncePod claims already
  // in use; Skip when there is neither an inline disk to check nor such a conflict.
  framework::Status pre_filter(framework::CycleState& state, const api::Pod& pod,
                               const std::vector<framework::NodeInfoPtr>& nodes,
                               framework::PreFilterResult& result) override;
  framework::PreFilterExtensions* pre_filter_extensions() override { return this; }
  framework::Status add_pod(framework::CycleState& state, const api::Pod& pod_to_schedule,
                            const framework::PodInfoPtr& pod_to_add, const framework::NodeInfo& node_info) override;
  framework::Status remove_pod(framework::CycleState& state, const api::Pod& pod_to_schedule,
                               const framework::PodInfoPtr& pod_to_remove,
                               const framework::NodeInfo& node_info) override;
  // Unschedulable: disk conflict with a pod on the node, or a ReadWriteOncePod claim in use.
  framework::Status filter(const framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info) override;
  // Pod/Delete (a conflicting pod went away), Node/Add, PVC/Add (a missing claim appeared).
  std::vector<framework::ClusterEventWithHint> events_to_register() const override;

 private:
  framework::Handle& handle_;
};

util::Result<std::shared_ptr<framework::Plugin>> make_volume_restrictions(const framework::PluginArgs& args,
                                                                          framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::volumerestrictions
