#include "scheduler/plugins/nodevolumelimits/nodevolumelimits.h"

#include <algorithm>
#include <random>

#include "scheduler/plugins/volumebinding/volume_util.h"

namespace ksched::scheduler::plugins::nodevolumelimits {

using framework::ClusterEvent;
using framework::ClusterEventWithHint;
using framework::QueueingHint;
using framework::Status;

namespace {

constexpr std::string_view kPreFilterStateKey = "PreFilterNodeVolumeLimits";

// The pod's new volumes grouped by driver, with the node allocatable key of each driver.
struct DriverVolumes {
  std::string driver;
  std::string limitKey;  // attachable-volumes-csi-<driver>
  std::vector<std::string> uniqueNames;
};

struct PreFilterState final : framework::StateData {
  Status lookupError;  // non-success: returned by Filter for every node, as upstream does
  std::vector<DriverVolumes> drivers;
  std::shared_ptr<framework::StateData> clone() const override { return std::make_shared<PreFilterState>(*this); }
};

bool has_claim_volumes(const api::Pod& pod) {
  for (const auto& v : pod.spec.volumes) {
    if (v.persistentVolumeClaim || v.ephemeral) return true;
  }
  return false;
}

}  // namespace

CSILimits::CSILimits(framework::Handle& handle) : handle_(handle) {
  std::random_device rd;
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 32; ++i) randomVolumeIDPrefix_.push_back(kHex[rd() % 16]);
}

Status CSILimits::attachable_volumes(const api::Pod& pod, bool new_pod, std::vector<VolumeRef>& out) const {
  const auto& lister = handle_.lister();
  for (const auto& v : pod.spec.volumes) {
    bool ephemeral = false;
    auto claim = volumebinding::volume_claim_name(pod, v, &ephemeral);
    if (!claim) continue;  // inline volumes: only migrated in-tree ones would count (not supported)
    if (claim->empty()) return Status::error("PersistentVolumeClaim had no name");
    auto pvc = lister.get_pvc(pod.metadata.namespace_, *claim);
    if (!pvc) {
      // A new pod cannot run without it; an existing pod's stale claim is simply not counted.
      if (new_pod) {
        return Status::unresolvable("looking up PVC " + pod.metadata.namespace_ + "/" + *claim + ": " +
                                    volumebinding::pvc_not_found(*claim));
      }
      continue;
    }
    if (ephemeral) {
      auto err = volumebinding::ephemeral_volume_owner_error(pod, *pvc);
      if (!err.empty()) return Status::error(std::move(err));
    }
    std::string driver, handle;
    std::shared_ptr<const api::PersistentVolume> pv;
    if (!pvc->spec.volumeName.empty()) pv = lister.get_pv(pvc->spec.volumeName);
    if (pv) {
      if (!pv->spec.csi) continue;  // not a CSI volume
      driver = pv->spec.csi->driver;
      handle = pv->spec.csi->volumeHandle;
    } else {
      // Not bound (or PV gone): count it against the class's provisioner under a unique handle.
      const std::string sc_name = volumebinding::pvc_storage_class(*pvc);
      if (sc_name.empty()) continue;
      auto sc = lister.get_storage_class(sc_name);
      if (!sc) continue;
      driver = sc->provisioner;
      handle = randomVolumeIDPrefix_ + "-" + pvc->metadata.namespace_ + "/" + pvc->metadata.name;
    }
    if (driver.empty() || handle.empty()) continue;
    out.push_back(VolumeRef{driver, driver + "/" + handle});
  }
  return {};
}

Status CSILimits::pre_filter(framework::CycleState& state, const api::Pod& pod,
                             const std::vector<framework::NodeInfoPtr>&, framework::PreFilterResult&) {
  if (!has_claim_volumes(pod)) return Status::skip();
  auto s = std::make_shared<PreFilterState>();
  std::vector<VolumeRef> vols;
  s->lookupError = attachable_volumes(pod, /*new_pod=*/true, vols);
  if (s->lookupError.is_success()) {
    for (auto& v : vols) {
      auto it = std::find_if(s->drivers.begin(), s->drivers.end(), [&](const DriverVolumes& d) { return d.driver == v.driver; });
      if (it == s->drivers.end()) {
        s->drivers.push_back(DriverVolumes{v.driver, std::string(kCSIAttachLimitPrefix) + v.driver, {}});
        it = s->drivers.end() - 1;
      }
      // The same volume used twice by the pod counts once.
      if (std::find(it->uniqueNames.begin(), it->uniqueNames.end(), v.uniqueName) == it->uniqueNames.end()) {
        it->uniqueNames.push_back(std::move(v.uniqueName));
      }
    }
  }
  state.write(std::string(kPreFilterStateKey), std::move(s));
  return {};
}

Status CSILimits::filter(const framework::CycleState& state, const api::Pod& pod, const framework::NodeInfo& node_info) {
  if (pod.spec.volumes.empty()) return {};
  const auto* s = state.read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) return Status::error("error reading \"PreFilterNodeVolumeLimits\" from cycleState: not found");
  if (!s->lookupError.is_success()) return s->lookupError;
  if (s->drivers.empty()) return {};
  const api::Node* node = node_info.node();
  if (node == nullptr) return Status::error("node not found");

  // Limit per driver the pod uses: CSINode allocatable count wins over the node's allocatable.
  auto csi_node = handle_.lister().get_csi_node(node->metadata.name);
  std::vector<std::optional<std::int64_t>> limits(s->drivers.size());
  bool any_limit = false;
  for (std::size_t i = 0; i < s->drivers.size(); ++i) {
    if (const auto* v = node_info.allocatable.scalarResources.find(s->drivers[i].limitKey)) limits[i] = *v;
    if (csi_node) {
      for (const auto& d : csi_node->spec.drivers) {
        if (d.name == s->drivers[i].driver && d.allocatable && d.allocatable->count) limits[i] = *d.allocatable->count;
      }
    }
    any_limit = any_limit || limits[i].has_value();
  }
  if (!any_limit) return {};

  // Unique volumes already attached, per driver of interest.
  std::vector<std::vector<std::string>> attached(s->drivers.size());
  std::vector<VolumeRef> vols;
  for (const auto& existing : node_info.pods) {
    vols.clear();
    auto st = attachable_volumes(*existing->pod, /*new_pod=*/false, vols);
    if (!st.is_success()) return Status::error(st.message());
    for (auto& v : vols) {
      for (std::size_t i = 0; i < s->drivers.size(); ++i) {
        if (s->drivers[i].driver != v.driver) continue;
        auto& a = attached[i];
        if (std::find(a.begin(), a.end(), v.uniqueName) == a.end()) a.push_back(std::move(v.uniqueName));
        break;
      }
    }
  }
  for (std::size_t i = 0; i < s->drivers.size(); ++i) {
    if (!limits[i]) continue;
    std::int64_t new_count = 0;
    for (const auto& u : s->drivers[i].uniqueNames) {
      // A volume already attached to the node is not new.
      if (std::find(attached[i].begin(), attached[i].end(), u) == attached[i].end()) ++new_count;
    }
    if (new_count == 0) continue;
    if (static_cast<std::int64_t>(attached[i].size()) + new_count > *limits[i]) {
      return Status::unschedulable(std::string(kErrReasonMaxVolumeCountExceeded));
    }
  }
  return {};
}

std::vector<ClusterEventWithHint> CSILimits::events_to_register() const {
  ClusterEventWithHint csi_node;
  csi_node.event = ClusterEvent{framework::EventResource::CSINode, framework::kAdd, {}};
  ClusterEventWithHint pod_deleted;
  pod_deleted.event = ClusterEvent{framework::EventResource::Pod, framework::kDelete, {}};
  pod_deleted.hint = [](const api::Pod&, const std::shared_ptr<const void>& oldObj, const std::shared_ptr<const void>&) {
    const auto* deleted = static_cast<const api::Pod*>(oldObj.get());
    if (deleted == nullptr || deleted->spec.nodeName.empty()) return QueueingHint::Skip;
    return has_claim_volumes(*deleted) ? QueueingHint::Queue : QueueingHint::Skip;
  };
  ClusterEventWithHint pvc_added;
  pvc_added.event = ClusterEvent{framework::EventResource::PersistentVolumeClaim, framework::kAdd, {}};
  return {std::move(csi_node), std::move(pod_deleted), std::move(pvc_added)};
}

util::Result<std::shared_ptr<framework::Plugin>> make_node_volume_limits(const framework::PluginArgs&,
                                                                         framework::Handle& handle) {
  return std::shared_ptr<framework::Plugin>(std::make_shared<CSILimits>(handle));
}

}  // namespace ksched::scheduler::plugins::nodevolumelimits
