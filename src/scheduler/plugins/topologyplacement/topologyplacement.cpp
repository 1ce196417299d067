#include "scheduler/plugins/topologyplacement/topologyplacement.h"

#include <map>
#include <optional>

#include "api/scheduling.h"

namespace ksched::scheduler::plugins::topologyplacement {

using framework::Status;

const std::string* topology_key(const framework::PodGroupInfo& group) {
  // A PodGroup's or a CompositePodGroup's schedulingConstraints (their shapes differ by type only).
  const auto first_key = [](const auto& constraints) -> const std::string* {
    if (!constraints || constraints->topology.empty()) return nullptr;
    return &constraints->topology.front().key;
  };
  if (group.podGroup) return first_key(group.podGroup->spec.schedulingConstraints);
  if (group.compositePodGroup) return first_key(group.compositePodGroup->spec.schedulingConstraints);
  return nullptr;
}

Status TopologyPlacement::generate_placements(const framework::PodGroupInfo& group, const framework::Placement& parent,
                                              std::vector<framework::Placement>& out) {
  const std::string* key = topology_key(group);
  if (!key) {
    out.push_back(parent);
    return {};
  }
  // The domain of the members placed before this cycle: the group stays there.
  std::optional<std::string> required;
  for (const auto& node_name : group.scheduledNodes) {
    const framework::NodeInfoPtr ni = nodes_.get(node_name);
    if (!ni || !ni->node()) {
      return Status::error("cannot determine domain for already scheduled pods: getting node for pod group " +
                           group.key + ": node \"" + node_name + "\" not found");
    }
    const std::string* domain = ni->node()->metadata.labels.find(*key);
    if (!domain) {
      return Status::error("cannot determine domain for already scheduled pods: no topology domain found for pod group " +
                           group.key + " on node " + node_name);
    }
    if (required && *required != *domain) {
      return Status::error("cannot determine domain for already scheduled pods: more than 1 domain found for pod group: " +
                           *required + ", " + *domain);
    }
    required = *domain;
  }
  std::map<std::string_view, framework::Placement::NodeList> by_domain;
  for (const auto& ni : parent.nodes()) {
    if (!ni || !ni->node()) continue;
    const std::string* domain = ni->node()->metadata.labels.find(*key);
    if (!domain || (required && *required != *domain)) continue;
    by_domain[*domain].push_back(ni);
  }
  for (auto& [domain, nodes] : by_domain) {
    // A domain that is the whole parent (a rack-constrained group inside a placement cut by the
    // same rack) shares the parent's list: the cycle then sees the same nodes and reuses its work.
    if (nodes.size() == parent.nodes().size()) {
      out.emplace_back(std::string(domain), parent.node_list);
    } else {
      out.emplace_back(std::string(domain), std::move(nodes));
    }
  }
  return {};
}

util::Result<std::shared_ptr<framework::Plugin>> make_topology_placement(const framework::PluginArgs& /*args*/,
                                                                         framework::Handle& handle) {
  return std::shared_ptr<framework::Plugin>(std::make_shared<TopologyPlacement>(handle.snapshot_node_infos()));
}

}  // namespace ksched::scheduler::plugins::topologyplacement
