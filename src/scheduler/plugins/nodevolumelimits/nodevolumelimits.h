// NodeVolumeLimits (upstream CSILimits): the number of unique CSI volumes per driver on a node must
// stay within the driver's CSINode allocatable count (or the node's attachable-volumes-csi-<driver>
// allocatable). In-tree volumes migrated to CSI are not counted (no CSI migration support).
#pragma once
#include <memory>
#include <string_view>

#include "scheduler/framework/interface.h"

namespace ksched::scheduler::plugins::nodevolumelimits {

inline constexpr std::string_view kName = "NodeVolumeLimits";
inline constexpr std::string_view kErrReasonMaxVolumeCountExceeded = "node(s) exceed max volume count";
inline constexpr std::string_view kCSIAttachLimitPrefix = "attachable-volumes-csi-";

class CSILimits final : public framework::PreFilterPlugin,
                        public framework::FilterPlugin,
                        public framework::EnqueueExtensions {
 public:
  explicit CSILimits(framework::Handle& handle);
  std::string_view name() const override { return kName; }
  // Skip for pods without PVC or generic ephemeral volumes; otherwise resolves the pod's CSI
  // volumes (driver, handle) once for every node.
  framework::Status pre_filter(framework::CycleState& state, const api::Pod& pod,
                               const std::vector<framework::NodeInfoPtr>& nodes,
                               framework::PreFilterResult& result) override;
  framework::Status filter(const framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info) override;
  // CSINode/Add, Pod/Delete (an assigned pod with claims went away), PVC/Add.
  std::vector<framework::ClusterEventWithHint> events_to_register() const override;

  // One attachable volume: driver and "<driver>/<handle>".
  struct VolumeRef {
    std::string driver;
    std::string uniqueName;
  };

 private:
  // Upstream filterAttachableVolumes; returns a non-success status for a new pod's missing claim.
  framework::Status attachable_volumes(const api::Pod& pod, bool new_pod, std::vector<VolumeRef>& out) const;

  framework::Handle& handle_;
  std::string randomVolumeIDPrefix_;  // for claims not bound yet: counted by class provisioner
};

util::Result<std::shared_ptr<framework::Plugin>> make_node_volume_limits(const framework::PluginArgs& args,
                                                                         framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::nodevolumelimits
