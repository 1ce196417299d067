// NodeVolumeLimits (upstream CSILimits): the number of unique CSI volumes per driver on a node must
// stay within the driver's CSINode allocatable count (or the node's attachable-volumes-csi-<driver>
// allocatable). In-tree volumes are counted against the CSI driver they migrate to (CSI migration,
// v1.32 rules): PVs with an awsElasticBlockStore, gcePersistentDisk, azureDisk or cinder source,
// unbound claims whose class uses the in-tree provisioner, and inline pod volumes of those types,
// on nodes that have a CSINode object. Portworx counts only where the CSINode's migrated-plugins
// annotation lists it; azureFile and vsphereVolume are never counted (no migration check passes).
#pragma once
#include <memory>
#include <string_view>

#include "scheduler/framework/interface.h"

namespace ksched::scheduler::plugins::nodevolumelimits {

inline constexpr std::string_view kName = "NodeVolumeLimits";
inline constexpr std::string_view kErrReasonMaxVolumeCountExceeded = "node(s) exceed max volume count";
inline constexpr std::string_view kCSIAttachLimitPrefix = "attachable-volumes-csi-";
// CSINode annotation listing the in-tree plugins migrated on that node (comma separated).
inline constexpr std::string_view kMigratedPluginsAnnotation = "storage.alpha.kubernetes.io/migrated-plugins";

class CSILimits final : public framework::SignPlugin,
                        public framework::PreFilterPlugin,
                        public framework::FilterPlugin,
                        public framework::EnqueueExtensions {
 public:
  explicit CSILimits(framework::Handle& handle);
  std::string_view name() const override { return kName; }
  void sign_pod(const api::Pod& pod, framework::PodSignature& sig) const override;
  // Skip for pods without PVC, generic ephemeral or migratable in-tree inline volumes; otherwise
  // resolves the pod's volumes (driver, handle) once for every node. Whether a translated in-tree
  // volume counts depends on the node's CSINode, so that part is decided in Filter.
  framework::Status pre_filter(framework::CycleState& state, const api::Pod& pod,
                               const std::vector<framework::NodeInfoPtr>& nodes,
                               framework::PreFilterResult& result) override;
  framework::Status filter(const framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info) override;
  // CSINode/Add, Pod/Delete (an assigned pod with limited volumes went away), PVC/Add.
  std::vector<framework::ClusterEventWithHint> events_to_register() const override;

  // One attachable volume of a pod, in volume order: driver and "<driver>/<handle>".
  struct VolumeRef {
    std::string driver;
    std::string uniqueName;
    // Non-empty for a translated in-tree volume: counted only on nodes where migration of this
    // plugin is on.
    std::string inTreePlugin;
    // Non-success: the volume could not be resolved. Without inTreePlugin the scan stopped here;
    // with it, the failure (an inline volume that does not translate) applies only where migration
    // is on.
    framework::Status error;
  };

 private:
  // Upstream filterAttachableVolumes without the per-node migration check (see VolumeRef).
  void attachable_volumes(const api::Pod& pod, bool new_pod, std::vector<VolumeRef>& out) const;

  framework::Handle& handle_;
  std::string randomVolumeIDPrefix_;  // for claims not bound yet: counted by class provisioner
};

util::Result<std::shared_ptr<framework::Plugin>> make_node_volume_limits(const framework::PluginArgs& args,
                                                                         framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::nodevolumelimits
