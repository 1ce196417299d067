// NodeResourcesFit: Filter on requested vs allocatable (every shortfall reported), Score with
// LeastAllocated / MostAllocated / RequestedToCapacityRatio over the configured resources.
//
// DRAExtendedResource (off by default, as at v1.35): an extended resource that a DeviceClass maps
// is not checked on a node whose allocatable lacks it (or has 0): DynamicResources allocates it
// there through DRA. Then pods are not signed, and a DeviceClass that maps a resource the pod
// requests queues it. Not done: scoring such resources by their devices (upstream counts the
// class's devices on the node when a scored resource is DRA-backed; here it scores 0).
#pragma once
#include <memory>
#include <set>
#include <string_view>

#include "api/resource.h"
#include "scheduler/config/types.h"
#include "scheduler/framework/interface.h"
#include "scheduler/plugins/noderesources/resource_allocation.h"

namespace ksched::scheduler::dra {
class Manager;
}

namespace ksched::scheduler::plugins::noderesources {

inline constexpr std::string_view kFitName = "NodeResourcesFit";
inline constexpr std::string_view kTooManyPods = "Too many pods";

// One shortfall found by fits_request (upstream InsufficientResource).
struct InsufficientResource {
  std::string resourceName;
  std::string reason;
  std::int64_t requested = 0;
  std::int64_t used = 0;
  std::int64_t capacity = 0;
};

// Upstream noderesources.Fits: every resource the node cannot satisfy for `pod`. With `dra` (the
// DRA state, given only when DRAExtendedResource is on) resources its classes map are left to DRA
// on a node without them.
std::vector<InsufficientResource> fits(const api::Pod& pod, const framework::NodeInfo& node_info,
                                       const std::set<std::string, std::less<>>& ignored_resources = {},
                                       const std::set<std::string, std::less<>>& ignored_groups = {},
                                       const dra::Manager* dra = nullptr);

// Upstream isSchedulableAfterDeviceClassEvent (DRAExtendedResource): Queue when the added or
// updated class maps an extended resource the pod requests (an update only when its
// extendedResourceName changed).
framework::QueueingHint is_schedulable_after_device_class_change(
    const api::Pod& pod, const api::resourcev1::DeviceClass* original,
    const api::resourcev1::DeviceClass* modified);

class Fit final : public framework::SignPlugin,
                  public framework::PreFilterPlugin,
                  public framework::FilterPlugin,
                  public framework::PreScorePlugin,
                  public framework::ScorePlugin,
                  public framework::PlacementScorePlugin,
                  public framework::EnqueueExtensions {
 public:
  // `dra`: the DRA state (Handle::dra_manager; may be null), used only with DRAExtendedResource on.
  static util::Result<std::shared_ptr<Fit>> create(const config::NodeResourcesFitArgs& args,
                                                   const dra::Manager* dra = nullptr);

  std::string_view name() const override { return kFitName; }
  void sign_pod(const api::Pod& pod, framework::PodSignature& sig) const override;
  // Stores the pod's requests (init containers, sidecars and overhead included).
  framework::Status pre_filter(framework::CycleState& state, const api::Pod& pod,
                               const std::vector<framework::NodeInfoPtr>& nodes,
                               framework::PreFilterResult& result) override;
  // Unschedulable with every reason: "Too many pods", "Insufficient cpu", "Insufficient <name>" ...
  framework::Status filter(const framework::CycleState& state, const api::Pod& pod,
                           const framework::NodeInfo& node_info) override;
  // Its Filter errors only on a missing PreFilter state or node object: the same for every node.
  bool filter_error_depends_on_node() const override { return false; }
  framework::Status pre_score(framework::CycleState& state, const api::Pod& pod,
                              const std::vector<framework::NodeInfoPtr>& nodes) override;
  framework::Status score(const framework::CycleState& state, const api::Pod& pod,
                          const framework::NodeInfo& node_info, std::int64_t& score) override;
  // PlacementScore (v1.36's NodeResourcesFit placement scorer, TopologyAwareWorkloadScheduling):
  // MostAllocated over the placement as one node, whatever the per-pod strategy, with the
  // configured resources and weights. Each resource sums the allocatable of the placement's nodes
  // and their non-zero requests plus the proposed members' (non-zero) requests: a placement the
  // group fills more scores higher (bin packing of groups).
  framework::Status score_placement(const framework::PodGroupInfo& group,
                                    const framework::PodGroupAssignments& assignments,
                                    std::int64_t& score) override;
  // Pod/Delete (assigned pod freed resources), Node/Add|UpdateNodeAllocatable (pod now fits);
  // with DRAExtendedResource, DeviceClass/Add|Update.
  std::vector<framework::ClusterEventWithHint> events_to_register() const override;

 private:
  enum class Strategy { LeastAllocated, MostAllocated, RequestedToCapacityRatio };
  std::int64_t score_node(const framework::NodeInfo& ni, const std::vector<std::int64_t>& pod_requests) const;

  const dra::Manager* dra_ = nullptr;  // with DRAExtendedResource only
  bool extended_resources_ = false;    // DRAExtendedResource
  std::set<std::string, std::less<>> ignoredResources_;
  std::set<std::string, std::less<>> ignoredResourceGroups_;
  Strategy strategy_ = Strategy::LeastAllocated;
  std::vector<ScoredResource> resources_;
  std::vector<std::pair<std::int64_t, std::int64_t>> shape_;  // (utilization, score×10)
};

util::Result<std::shared_ptr<framework::Plugin>> make_node_resources_fit(const framework::PluginArgs& args,
                                                                         framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::noderesources
