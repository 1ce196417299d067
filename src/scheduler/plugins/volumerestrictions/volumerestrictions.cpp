#include "scheduler/plugins/volumerestrictions/volumerestrictions.h"

#include <set>

#include "scheduler/plugins/volumebinding/volume_util.h"

namespace ksched::scheduler::plugins::volumerestrictions {

using framework::ClusterEvent;
using framework::ClusterEventWithHint;
using framework::QueueingHint;
using framework::Status;

// Rejections shared by every node a pod is rejected on (see FixedReasons).
const framework::FixedReasons kFixedErrReasonDiskConflict{std::string(kErrReasonDiskConflict)};
const framework::FixedReasons kFixedErrReasonReadWriteOncePodConflict{std::string(kErrReasonReadWriteOncePodConflict)};

namespace {

constexpr std::string_view kPreFilterStateKey = "PreFilterVolumeRestrictions";

struct PreFilterState final : framework::StateData {
  std::set<std::string, std::less<>> readWriteOncePodPVCs;  // claim names (pod's namespace)
  int conflictingPVCRefCount = 0;
  std::vector<std::size_t> diskVolumes;  // indices of the pod's inline disks to check
  std::shared_ptr<framework::StateData> clone() const override { return std::make_shared<PreFilterState>(*this); }
  bool read_after_scheduling() const override { return false; }  // Filter/Score only

  int conflicts_for(const api::Pod& pod) const {
    int n = 0;
    for (const auto& v : pod.spec.volumes) {
      if (v.persistentVolumeClaim && readWriteOncePodPVCs.count(v.persistentVolumeClaim->claimName)) ++n;
    }
    return n;
  }
};

bool needs_restrictions_check(const api::Volume& v) {
  return v.gcePersistentDisk || v.awsElasticBlockStore || v.rbd || v.iscsi;
}

bool have_overlap(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (const auto& x : a) {
    for (const auto& y : b) {
      if (x == y) return true;
    }
  }
  return false;
}

bool satisfy_volume_conflicts(const api::Pod& pod, const std::vector<std::size_t>& disk_volumes,
                              const framework::NodeInfo& ni) {
  for (const std::size_t i : disk_volumes) {
    for (const auto& existing : ni.pods) {
      if (is_volume_conflict(pod.spec.volumes[i], *existing->pod)) return false;
    }
  }
  return true;
}

std::vector<std::size_t> disk_volume_indices(const api::Pod& pod) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < pod.spec.volumes.size(); ++i) {
    if (needs_restrictions_check(pod.spec.volumes[i])) out.push_back(i);
  }
  return out;
}

}  // namespace

bool is_volume_conflict(const api::Volume& v, const api::Pod& existing) {
  for (const auto& ev : existing.spec.volumes) {
    // The same disk may be shared only when every user mounts it read-only (EBS: never).
    if (v.gcePersistentDisk && ev.gcePersistentDisk && v.gcePersistentDisk->pdName == ev.gcePersistentDisk->pdName &&
        !(v.gcePersistentDisk->readOnly && ev.gcePersistentDisk->readOnly)) {
      return true;
    }
    if (v.awsElasticBlockStore && ev.awsElasticBlockStore &&
        v.awsElasticBlockStore->volumeID == ev.awsElasticBlockStore->volumeID) {
      return true;
    }
    if (v.iscsi && ev.iscsi && v.iscsi->iqn == ev.iscsi->iqn && !(v.iscsi->readOnly && ev.iscsi->readOnly)) {
      return true;
    }
    // RBD images are the same when they share a monitor, the pool and the image name.
    if (v.rbd && ev.rbd && have_overlap(v.rbd->monitors, ev.rbd->monitors) && v.rbd->pool == ev.rbd->pool &&
        v.rbd->image == ev.rbd->image && !(v.rbd->readOnly && ev.rbd->readOnly)) {
      return true;
    }
  }
  return false;
}

Status VolumeRestrictions::pre_filter(framework::CycleState& state, const api::Pod& pod,
                                      const std::vector<framework::NodeInfoPtr>&, framework::PreFilterResult&) {
  auto s = std::make_shared<PreFilterState>();
  s->diskVolumes = disk_volume_indices(pod);
  const auto& lister = handle_.lister();
  for (const auto& v : pod.spec.volumes) {
    if (!v.persistentVolumeClaim) continue;
    const auto& claim = v.persistentVolumeClaim->claimName;
    auto pvc = lister.get_pvc(pod.metadata.namespace_, claim);
    if (!pvc) return Status::unresolvable(volumebinding::pvc_not_found(claim));
    if (!volumebinding::contains_access_mode(pvc->spec.accessModes, volumebinding::kReadWriteOncePod)) continue;
    s->readWriteOncePodPVCs.insert(pvc->metadata.name);
  }
  const auto& storage = handle_.snapshot_storage_infos();
  for (const auto& claim : s->readWriteOncePodPVCs) {
    // At most one pod can be using a ReadWriteOncePod claim.
    if (storage.is_pvc_used_by_pods(pod.metadata.namespace_ + "/" + claim)) ++s->conflictingPVCRefCount;
  }
  if (s->diskVolumes.empty() && s->conflictingPVCRefCount == 0) return Status::skip();
  state.write(std::string(kPreFilterStateKey), std::move(s));
  return {};
}

Status VolumeRestrictions::add_pod(framework::CycleState& state, const api::Pod&,
                                   const framework::PodInfoPtr& pod_to_add, const framework::NodeInfo&) {
  auto* s = state.read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) return Status::error("error reading \"PreFilterVolumeRestrictions\" from cycleState: not found");
  s->conflictingPVCRefCount += s->conflicts_for(*pod_to_add->pod);
  return {};
}

Status VolumeRestrictions::remove_pod(framework::CycleState& state, const api::Pod&,
                                      const framework::PodInfoPtr& pod_to_remove, const framework::NodeInfo&) {
  auto* s = state.read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) return Status::error("error reading \"PreFilterVolumeRestrictions\" from cycleState: not found");
  s->conflictingPVCRefCount -= s->conflicts_for(*pod_to_remove->pod);
  return {};
}

Status VolumeRestrictions::filter(const framework::CycleState& state, const api::Pod& pod,
                                  const framework::NodeInfo& node_info) {
  const auto* s = state.read<PreFilterState>(kPreFilterStateKey);
  const bool disks_ok = s ? satisfy_volume_conflicts(pod, s->diskVolumes, node_info)
                          : satisfy_volume_conflicts(pod, disk_volume_indices(pod), node_info);
  if (!disks_ok) return Status(framework::Code::Unschedulable, kFixedErrReasonDiskConflict);
  if (s == nullptr) return Status::error("error reading \"PreFilterVolumeRestrictions\" from cycleState: not found");
  if (s->conflictingPVCRefCount != 0) return Status(framework::Code::Unschedulable, kFixedErrReasonReadWriteOncePodConflict);
  return {};
}

std::vector<ClusterEventWithHint> VolumeRestrictions::events_to_register() const {
  ClusterEventWithHint pod_deleted;
  pod_deleted.event = ClusterEvent{framework::EventResource::Pod, framework::kDelete, {}};
  pod_deleted.hint = [](const api::Pod& pod, const std::shared_ptr<const void>& oldObj,
                        const std::shared_ptr<const void>&) {
    const auto* deleted = static_cast<const api::Pod*>(oldObj.get());
    if (deleted == nullptr || deleted->metadata.namespace_ != pod.metadata.namespace_) return QueueingHint::Skip;
    for (const auto i : disk_volume_indices(pod)) {
      if (is_volume_conflict(pod.spec.volumes[i], *deleted)) return QueueingHint::Queue;
    }
    // It may have been holding one of our ReadWriteOncePod claims.
    for (const auto& v : pod.spec.volumes) {
      if (!v.persistentVolumeClaim) continue;
      for (const auto& dv : deleted->spec.volumes) {
        if (dv.persistentVolumeClaim && dv.persistentVolumeClaim->claimName == v.persistentVolumeClaim->claimName) {
          return QueueingHint::Queue;
        }
      }
    }
    return QueueingHint::Skip;
  };
  ClusterEventWithHint node_added;
  node_added.event = ClusterEvent{framework::EventResource::Node, framework::kAdd, {}};
  ClusterEventWithHint pvc_added;
  pvc_added.event = ClusterEvent{framework::EventResource::PersistentVolumeClaim, framework::kAdd, {}};
  pvc_added.hint = [](const api::Pod& pod, const std::shared_ptr<const void>&, const std::shared_ptr<const void>& newObj) {
    const auto* pvc = static_cast<const api::PersistentVolumeClaim*>(newObj.get());
    if (pvc == nullptr || pvc->metadata.namespace_ != pod.metadata.namespace_) return QueueingHint::Skip;
    for (const auto& v : pod.spec.volumes) {
      if (v.persistentVolumeClaim && v.persistentVolumeClaim->claimName == pvc->metadata.name) return QueueingHint::Queue;
    }
    return QueueingHint::Skip;
  };
  return {std::move(pod_deleted), std::move(node_added), std::move(pvc_added)};
}

util::Result<std::shared_ptr<framework::Plugin>> make_volume_restrictions(const framework::PluginArgs&,
                                                                          framework::Handle& handle) {
  return std::shared_ptr<framework::Plugin>(std::make_shared<VolumeRestrictions>(handle));
}

void VolumeRestrictions::sign_pod(const api::Pod& pod, framework::PodSignature& sig) const {
  framework::sign_volumes(pod, sig);
}

}  // namespace ksched::scheduler::plugins::volumerestrictions
