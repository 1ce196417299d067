#include "scheduler/plugins/volumezone/volumezone.h"

#include "scheduler/plugins/volumebinding/volume_util.h"

namespace ksched::scheduler::plugins::volumezone {

using framework::ClusterEvent;
using framework::ClusterEventWithHint;
using framework::QueueingHint;
using framework::Status;

// Rejections shared by every node a pod is rejected on (see FixedReasons).
const framework::FixedReasons kFixedErrReasonConflict{std::string(kErrReasonConflict)};

namespace {

constexpr std::string_view kPreFilterStateKey = "PreFilterVolumeZone";
constexpr std::string_view kBetaZone = "failure-domain.beta.kubernetes.io/zone";
constexpr std::string_view kBetaRegion = "failure-domain.beta.kubernetes.io/region";
constexpr std::string_view kZone = "topology.kubernetes.io/zone";
constexpr std::string_view kRegion = "topology.kubernetes.io/region";
constexpr std::string_view kTopologyLabels[] = {kBetaZone, kBetaRegion, kZone, kRegion};

struct PVTopology {
  std::string pvName;
  std::string_view key;     // one of kTopologyLabels
  std::string_view gaKey;   // the GA label to try when the node lacks a beta one
  std::set<std::string, std::less<>> values;
};

struct PreFilterState final : framework::StateData {
  std::vector<PVTopology> topologies;
  std::shared_ptr<framework::StateData> clone() const override { return std::make_shared<PreFilterState>(*this); }
  bool read_after_scheduling() const override { return false; }  // Filter/Score only
};

std::string_view to_ga_label(std::string_view key) {
  if (key == kBetaZone) return kZone;
  if (key == kBetaRegion) return kRegion;
  return key;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

void pv_topologies(const api::PersistentVolume& pv, std::vector<PVTopology>& out) {
  for (const auto key : kTopologyLabels) {
    const auto* value = pv.metadata.labels.find(key);
    if (value == nullptr) continue;
    auto zones = label_zones_to_set(*value);
    if (!zones) continue;  // unparsable label: ignored, as upstream logs and moves on
    out.push_back(PVTopology{pv.metadata.name, key, to_ga_label(key), std::move(*zones)});
  }
}

// Upstream getPVbyPod: returns a non-success status for lookup problems.
Status pod_pv_topologies(const framework::ClusterLister& lister, const api::Pod& pod, std::vector<PVTopology>& out) {
  for (const auto& v : pod.spec.volumes) {
    if (!v.persistentVolumeClaim) continue;
    const auto& claim = v.persistentVolumeClaim->claimName;
    if (claim.empty()) return Status::unresolvable("PersistentVolumeClaim had no name");
    auto pvc = lister.get_pvc(pod.metadata.namespace_, claim);
    if (!pvc) return Status::unresolvable(volumebinding::pvc_not_found(claim));
    const auto& pv_name = pvc->spec.volumeName;
    if (pv_name.empty()) {
      const std::string sc_name = volumebinding::pvc_storage_class(*pvc);
      if (sc_name.empty()) return Status::unresolvable("PersistentVolumeClaim had no pv name and storageClass name");
      auto sc = lister.get_storage_class(sc_name);
      if (!sc) return Status::unresolvable(volumebinding::storage_class_not_found(sc_name));
      if (!sc->volumeBindingMode) {
        return Status::unresolvable("VolumeBindingMode not set for StorageClass \"" + sc_name + "\"");
      }
      // Unbound delayed-binding claims are VolumeBinding's business.
      if (*sc->volumeBindingMode == volumebinding::kVolumeBindingWaitForFirstConsumer) continue;
      return Status::unresolvable("PersistentVolume had no name");
    }
    auto pv = lister.get_pv(pv_name);
    if (!pv) return Status::unresolvable(volumebinding::pv_not_found(pv_name));
    pv_topologies(*pv, out);
  }
  return {};
}

bool node_has_topology_label(const api::Node& node) {
  for (const auto key : kTopologyLabels) {
    if (node.metadata.labels.contains(key)) return true;
  }
  return false;
}

bool topology_labels_equal(const api::PersistentVolume& a, const api::PersistentVolume& b) {
  for (const auto key : kTopologyLabels) {
    if (a.metadata.labels.get(key) != b.metadata.labels.get(key) ||
        a.metadata.labels.contains(key) != b.metadata.labels.contains(key)) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<std::set<std::string, std::less<>>> label_zones_to_set(std::string_view value) {
  std::set<std::string, std::less<>> out;
  constexpr std::string_view kDelimiter = "__";
  while (true) {
    const auto pos = value.find(kDelimiter);
    const auto part = trim(value.substr(0, pos));
    if (part.empty()) return std::nullopt;
    out.emplace(part);
    if (pos == std::string_view::npos) break;
    value.remove_prefix(pos + kDelimiter.size());
  }
  return out;
}

Status VolumeZone::pre_filter(framework::CycleState& state, const api::Pod& pod,
                              const std::vector<framework::NodeInfoPtr>&, framework::PreFilterResult&) {
  auto s = std::make_shared<PreFilterState>();
  auto st = pod_pv_topologies(handle_.lister(), pod, s->topologies);
  if (!st.is_success()) return st;
  if (s->topologies.empty()) return Status::skip();
  state.write(std::string(kPreFilterStateKey), std::move(s));
  return {};
}

Status VolumeZone::filter(const framework::CycleState& state, const api::Pod& pod,
                          const framework::NodeInfo& node_info) {
  if (pod.spec.volumes.empty()) return {};
  const std::vector<PVTopology>* topologies = nullptr;
  std::vector<PVTopology> fallback;
  if (const auto* s = state.read<PreFilterState>(kPreFilterStateKey)) {
    topologies = &s->topologies;
  } else {
    auto st = pod_pv_topologies(handle_.lister(), pod, fallback);
    if (!st.is_success()) return st;
    topologies = &fallback;
  }
  const api::Node* node = node_info.node();
  if (node == nullptr) return Status::error("node not found");
  // A node without any zone/region label (single-zone clusters) accepts every volume.
  if (!node_has_topology_label(*node)) return {};
  for (const auto& t : *topologies) {
    const std::string* v = node->metadata.labels.find(t.key);
    if (v == nullptr) v = node->metadata.labels.find(t.gaKey);
    if (v == nullptr || !t.values.count(*v)) return Status(framework::Code::UnschedulableAndUnresolvable, kFixedErrReasonConflict);
  }
  return {};
}

std::vector<ClusterEventWithHint> VolumeZone::events_to_register() const {
  ClusterEventWithHint sc_added;
  sc_added.event = ClusterEvent{framework::EventResource::StorageClass, framework::kAdd, {}};
  sc_added.hint = [](const api::Pod&, const std::shared_ptr<const void>&, const std::shared_ptr<const void>& newObj) {
    const auto* sc = static_cast<const api::StorageClass*>(newObj.get());
    // Only a WaitForFirstConsumer class lets an unbound claim pass this plugin.
    if (sc && sc->volumeBindingMode && *sc->volumeBindingMode == volumebinding::kVolumeBindingWaitForFirstConsumer) {
      return QueueingHint::Queue;
    }
    return QueueingHint::Skip;
  };
  ClusterEventWithHint node_event;
  node_event.event = ClusterEvent{framework::EventResource::Node, framework::kAdd | framework::kUpdateNodeLabel, {}};
  ClusterEventWithHint pvc_event;
  pvc_event.event = ClusterEvent{framework::EventResource::PersistentVolumeClaim, framework::kAdd | framework::kUpdate, {}};
  pvc_event.hint = [](const api::Pod& pod, const std::shared_ptr<const void>&, const std::shared_ptr<const void>& newObj) {
    // Any change to a claim the pod uses (created, bound, class set) may help it.
    const auto* pvc = static_cast<const api::PersistentVolumeClaim*>(newObj.get());
    if (pvc == nullptr || pvc->metadata.namespace_ != pod.metadata.namespace_) return QueueingHint::Skip;
    for (const auto& v : pod.spec.volumes) {
      if (v.persistentVolumeClaim && v.persistentVolumeClaim->claimName == pvc->metadata.name) return QueueingHint::Queue;
    }
    return QueueingHint::Skip;
  };
  ClusterEventWithHint pv_event;
  pv_event.event = ClusterEvent{framework::EventResource::PersistentVolume, framework::kAdd | framework::kUpdate, {}};
  pv_event.hint = [](const api::Pod&, const std::shared_ptr<const void>& oldObj, const std::shared_ptr<const void>& newObj) {
    const auto* pv = static_cast<const api::PersistentVolume*>(newObj.get());
    if (pv == nullptr) return QueueingHint::Skip;
    const auto* old = static_cast<const api::PersistentVolume*>(oldObj.get());
    if (old == nullptr) return QueueingHint::Queue;
    return topology_labels_equal(*old, *pv) ? QueueingHint::Skip : QueueingHint::Queue;
  };
  return {std::move(sc_added), std::move(node_event), std::move(pvc_event), std::move(pv_event)};
}

util::Result<std::shared_ptr<framework::Plugin>> make_volume_zone(const framework::PluginArgs&,
                                                                  framework::Handle& handle) {
  return std::shared_ptr<framework::Plugin>(std::make_shared<VolumeZone>(handle));
}

void VolumeZone::sign_pod(const api::Pod& pod, framework::PodSignature& sig) const {
  framework::sign_volumes(pod, sig);
}

}  // namespace ksched::scheduler::plugins::volumezone
