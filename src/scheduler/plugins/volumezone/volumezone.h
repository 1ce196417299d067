// VolumeZone: a pod's bound PersistentVolumes labelled with a zone/region can only be used on
// nodes in that zone/region (multi-zone values are "__"-separated).
#pragma once
#include <memory>
#include <set>
#include <string_view>

#include "scheduler/framework/interface.h"

namespace ksched::scheduler::plugins::volumezone {

inline constexpr std::string_view kName = "VolumeZone";
inline constexpr std::string_view kErrReasonConflict = "node(s) had no available volume zone";

// "a__b" → {a, b} with spaces trimmed; nullopt when an element is empty (upstream LabelZonesToSet).
std::optional<std::set<std::string, std::less<>>> label_zones_to_set(std::string_view value);

class VolumeZone final : public framework::SignPlugin,
                         public framework::PreFilterPlugin,
                         public framework::FilterPlugin,
                         public framework::EnqueueExtensions {
 public:
  explicit VolumeZone(framework::Handle& handle) : handle_(handle) {}
  std::string_view name() const override { return kName; }
  void sign_pod(const api::Pod& pod, framework::PodSignature& sig) const override;
  // Collects the topology labels of the PVs bound to the pod's claims; Skip when there are none.
  // Unbound WaitForFirstConsumer claims are skipped; other lookup problems are U&U.
  framework::Status pre_filter(framework::CycleState& state, const api::Pod& pod,
                               const std::vector<framework::NodeInfoPtr>& nodes,
                               framework::PreFilterResult& result) override;
  framework::Status filter(const framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info) override;
  // StorageClass/Add, Node/Add|UpdateNodeLabel, PVC/Add|Update, PV/Add|Update.
  std::vector<framework::ClusterEventWithHint> events_to_register() const override;

 private:
  framework::Handle& handle_;
};

util::Result<std::shared_ptr<framework::Plugin>> make_volume_zone(const framework::PluginArgs& args,
                                                                  framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::volumezone
