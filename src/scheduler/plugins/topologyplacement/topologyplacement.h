// TopologyPlacement (KEP-5732, TopologyAwareWorkloadScheduling, alpha): the PlacementGenerate
// plugin that splits the nodes by the PodGroup's topology key, so that the pod-group cycle tries
// the group within one domain at a time.
//
// Upstream: pkg/scheduler/framework/plugins/topologyaware/topology_placement.go (the newest in the
// index, on v1alpha2 types; the field names are v1beta1's schedulingConstraints.topology[].key).
// A group without a PodGroup (or CompositePodGroup) object or without a topology constraint gets
// the parent placement unchanged; a CompositePodGroup's constraint splits the nodes as a PodGroup's
// does, for the whole tree under it. Otherwise one placement per distinct value of the key among the parent's nodes (nodes
// without the label are in none), named by the value, in value order (upstream: map order). When
// members of the group are already placed, only their domain is offered; members placed in two
// domains, or on a node without the label, are an error.
#pragma once
#include <string_view>

#include "scheduler/framework/interface.h"

namespace ksched::scheduler::plugins::topologyplacement {

inline constexpr std::string_view kName = "TopologyPlacement";

class TopologyPlacement final : public framework::PlacementGeneratePlugin {
 public:
  explicit TopologyPlacement(const framework::NodeInfoLister& nodes) : nodes_(nodes) {}
  std::string_view name() const override { return kName; }
  framework::Status generate_placements(const framework::PodGroupInfo& group, const framework::Placement& parent,
                                        std::vector<framework::Placement>& out) override;

 private:
  const framework::NodeInfoLister& nodes_;  // the snapshot, for the placed members' nodes
};

// The group's topology key, or nullptr when it has none (the first of at most one constraint).
const std::string* topology_key(const framework::PodGroupInfo& group);

util::Result<std::shared_ptr<framework::Plugin>> make_topology_placement(const framework::PluginArgs& args,
                                                                         framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::topologyplacement
