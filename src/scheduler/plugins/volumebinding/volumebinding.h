// VolumeBinding: pods with PersistentVolumeClaims. PreFilter rejects unbound Immediate claims;
// Filter checks bound PVs' node affinity, finds the smallest matching available PV for each unbound
// WaitForFirstConsumer claim, or checks that the class can provision on the node (allowed
// topologies, CSIStorageCapacity). Reserve assumes the choices; PreBind writes them through the
// client (PV.spec.claimRef, PVC selected-node annotation) and waits until the claims are bound.
#pragma once
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>

#include "scheduler/config/types.h"
#include "scheduler/framework/interface.h"
#include "util/clock.h"

namespace ksched::scheduler::plugins::volumebinding {

inline constexpr std::string_view kName = "VolumeBinding";
inline constexpr std::string_view kErrReasonBindConflict = "node(s) didn't find available persistent volumes to bind";
inline constexpr std::string_view kErrReasonNodeConflict = "node(s) had volume node affinity conflict";
inline constexpr std::string_view kErrReasonNotEnoughSpace = "node(s) did not have enough free storage";
inline constexpr std::string_view kErrReasonPVNotExist =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
inline constexpr std::string_view kErrReasonUnboundImmediate = "pod has unbound immediate PersistentVolumeClaims";

using PVPtr = std::shared_ptr<const api::PersistentVolume>;
using PVCPtr = std::shared_ptr<const api::PersistentVolumeClaim>;

// Assumed PV/PVC versions layered over the informer listers (upstream AssumeCache): an assumed
// object is returned until the lister's copy changes resourceVersion (the API write arrived) or
// the assumption is restored. Thread-safe: Reserve, Unreserve and PreBind run on different threads.
class AssumeCache {
 public:
  PVPtr get_pv(const framework::ClusterLister& lister, std::string_view name);
  PVCPtr get_pvc(const framework::ClusterLister& lister, std::string_view ns, std::string_view name);
  std::vector<PVPtr> list_pvs(const framework::ClusterLister& lister);
  void assume_pv(PVPtr pv, std::string base_resource_version);
  void assume_pvc(PVCPtr pvc, std::string base_resource_version);
  void restore_pv(const std::string& name);
  void restore_pvc(const std::string& ns, const std::string& name);

 private:
  PVPtr overlay_pv(PVPtr informer);
  std::mutex mu_;
  std::map<std::string, std::pair<PVPtr, std::string>> pvs_;    // name → (assumed, base RV)
  std::map<std::string, std::pair<PVCPtr, std::string>> pvcs_;  // ns/name → (assumed, base RV)
};

// A static binding chosen for a claim (upstream BindingInfo) and what one node needs.
struct BindingInfo {
  PVPtr pv;
  PVCPtr pvc;
};
struct PodVolumes {
  std::vector<BindingInfo> staticBindings;
  std::vector<PVCPtr> dynamicProvisions;
};

class VolumeBinding final : public framework::SignPlugin,
                            public framework::PreFilterPlugin,
                            public framework::FilterPlugin,
                            public framework::PreScorePlugin,
                            public framework::ScorePlugin,
                            public framework::ReservePlugin,
                            public framework::PreBindPlugin,
                            public framework::EnqueueExtensions {
 public:
  VolumeBinding(framework::Handle& handle, const config::VolumeBindingArgs& args);

  std::string_view name() const override { return kName; }
  void sign_pod(const api::Pod& pod, framework::PodSignature& sig) const override;
  framework::Status pre_filter(framework::CycleState& state, const api::Pod& pod,
                               const std::vector<framework::NodeInfoPtr>& nodes,
                               framework::PreFilterResult& result) override;
  // U&U with every applicable reason (node affinity conflict, no PV to bind, not enough storage,
  // claim bound to a missing PV).
  framework::Status filter(const framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info) override;
  // Capacity scoring needs the VolumeCapacityPriority gate (off): always Skip.
  framework::Status pre_score(framework::CycleState& state, const api::Pod& pod,
                              const std::vector<framework::NodeInfoPtr>& nodes) override;
  framework::Status score(const framework::CycleState& state, const api::Pod& pod,
                          const framework::NodeInfo& node_info, std::int64_t& score) override;
  framework::Status reserve(framework::CycleState& state, const api::Pod& pod, const std::string& node_name) override;
  void unreserve(framework::CycleState& state, const api::Pod& pod, const std::string& node_name) override;
  // Updates PVs/PVCs through Handle::client() and polls the listers (1 s) until every claim is
  // bound, a binding is undone, or bindTimeoutSeconds passes.
  framework::Status pre_bind(framework::CycleState& state, const api::Pod& pod, const std::string& node_name) override;
  // Quick when every claim is bound already (or the state is missing: an immediate error).
  bool pre_bind_is_quick(const framework::CycleState& state, const api::Pod& pod) const override;
  // Upstream PreBindPreFlight: Skip when every claim is bound; an error when the cycle state is
  // missing or holds no volumes for the node (as PreBind would fail).
  framework::Status pre_bind_pre_flight(const framework::CycleState& state, const api::Pod& pod,
                             const std::string& node_name) override;
  std::vector<framework::ClusterEventWithHint> events_to_register() const override;

  // Test hooks: the clock for the PreBind deadline and how to wait between polls (the wait
  // returns true when the scheduler stops; by default it waits on Handle::stop_signal()).
  void set_clock(const util::Clock* clock) { clock_ = clock; }
  void set_sleep(std::function<bool(std::chrono::milliseconds)> sleep) { sleep_ = std::move(sleep); }
  AssumeCache& assume_cache() { return cache_; }

 private:
  framework::Handle& handle_;
  std::chrono::seconds bindTimeout_;
  const util::Clock* clock_;
  std::function<bool(std::chrono::milliseconds)> sleep_;
  AssumeCache cache_;
};

util::Result<std::shared_ptr<framework::Plugin>> make_volume_binding(const framework::PluginArgs& args,
                                                                     framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::volumebinding
