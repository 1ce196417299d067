#include "scheduler/cache/node_tree.h"

#include <algorithm>

#include "util/log.h"

namespace ksched::scheduler::cache {

std::string zone_key(const api::Node& node) {
  const auto& l = node.metadata.labels;
  const std::string* zone = l.find("topology.kubernetes.io/zone");
  if (!zone) zone = l.find("failure-domain.beta.kubernetes.io/zone");
  const std::string* region = l.find("topology.kubernetes.io/region");
  if (!region) region = l.find("failure-domain.beta.kubernetes.io/region");
  std::string z = zone ? *zone : std::string();
  std::string r = region ? *region : std::string();
  if (z.empty() && r.empty()) return {};
  std::string key = r;
  key += ':';
  key += '\0';
  key += ':';
  key += z;
  return key;
}

void NodeTree::add_node(const api::Node& node) {
  std::string zone = zone_key(node);
  if (!names_.insert(node.metadata.name).second) {
    log::V(2).info("Did not add to the NodeTree because it already exists", {{"node", node.metadata.name}});
    return;
  }
  auto it = tree_.find(zone);
  if (it != tree_.end()) {
    it->second.push_back(node.metadata.name);
  } else {
    zones_.push_back(zone);
    tree_[zone] = {node.metadata.name};
  }
  ++num_nodes_;
}

util::Result<void> NodeTree::remove_node(const api::Node& node) {
  std::string zone = zone_key(node);
  auto it = tree_.find(zone);
  if (it != tree_.end()) {
    auto& names = it->second;
    auto pos = std::find(names.begin(), names.end(), node.metadata.name);
    if (pos != names.end()) {
      names.erase(pos);
      names_.erase(node.metadata.name);
      if (names.empty()) remove_zone(zone);
      --num_nodes_;
      return {};
    }
  }
  return util::make_error("node \"" + node.metadata.name + "\" in group \"" + zone + "\" was not found");
}

void NodeTree::update_node(const api::Node* old_node, const api::Node& new_node) {
  std::string old_zone = old_node ? zone_key(*old_node) : std::string();
  if (old_zone == zone_key(new_node)) return;
  if (old_node) (void)remove_node(*old_node);
  add_node(new_node);
}

void NodeTree::remove_zone(const std::string& zone) {
  tree_.erase(zone);
  zones_.erase(std::remove(zones_.begin(), zones_.end(), zone), zones_.end());
}

std::vector<std::string> NodeTree::list() const {
  std::vector<std::string> out;
  if (zones_.empty()) return out;
  out.reserve(num_nodes_);
  std::size_t exhausted = 0;
  for (std::size_t idx = 0; static_cast<int>(out.size()) < num_nodes_; ++idx) {
    if (exhausted >= zones_.size()) {
      log::error("all zones exhausted before reaching count of nodes expected");
      break;
    }
    for (const auto& z : zones_) {
      const auto& names = tree_.at(z);
      if (idx >= names.size()) {
        if (idx == names.size()) ++exhausted;
        continue;
      }
      out.push_back(names[idx]);
    }
  }
  return out;
}

}  // namespace ksched::scheduler::cache
