#include "scheduler/cache/cache.h"

#include <sstream>

#include "api/helpers.h"

#include "util/log.h"

namespace ksched::scheduler::cache {

namespace {

// The cache keys pods by UID (upstream framework.GetPodKey).
util::Result<std::string_view> pod_uid(const api::Pod& pod) {
  if (pod.metadata.uid.empty()) return util::make_error("cannot get cache key for pod with empty UID");
  return std::string_view(pod.metadata.uid);
}

}  // namespace

Cache::Cache(std::chrono::nanoseconds ttl, const util::Clock& clock) : ttl_(ttl), clock_(clock) {}

Cache::~Cache() {
  {
    std::lock_guard l(stop_mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (cleanup_thread_.joinable()) cleanup_thread_.join();
}

void Cache::start_cleanup(std::chrono::milliseconds period) {
  if (cleanup_thread_.joinable()) return;
  cleanup_thread_ = std::thread([this, period] {
    std::unique_lock l(stop_mu_);
    while (!stop_cv_.wait_for(l, period, [&] { return stopping_; })) {
      l.unlock();
      cleanup_expired_assumed_pods();
      l.lock();
    }
  });
}

// ---------------------------------------------------------------- node list

Cache::List::iterator Cache::node_item(const std::string& name) {
  auto it = nodes_.find(name);
  if (it != nodes_.end()) return it->second;
  list_.push_front(Item{name, std::make_shared<framework::NodeInfo>()});
  nodes_[name] = list_.begin();
  return list_.begin();
}

void Cache::move_to_head(List::iterator it) { list_.splice(list_.begin(), list_, it); }

void Cache::remove_from_list(const std::string& name) {
  auto it = nodes_.find(name);
  if (it == nodes_.end()) {
    log::error("No node info with given name found in the cache", {{"node", name}});
    return;
  }
  list_.erase(it->second);
  nodes_.erase(it);
}

// ---------------------------------------------------------------- pods

util::Result<void> Cache::add_pod_locked(framework::PodInfoPtr pi, bool assumed) {
  auto key = pod_uid(*pi->pod);
  if (!key) return util::make_error(key.error());
  auto it = node_item(pi->pod->spec.nodeName);
  it->info->add_pod(pi);
  move_to_head(it);
  auto [ps, inserted] = pod_states_.try_emplace(std::string(*key));
  if (!inserted && ps->second.assumed) --assumed_count_;
  ps->second = PodState{std::move(pi), std::nullopt, false, assumed};
  if (assumed) ++assumed_count_;
  return {};
}

util::Result<void> Cache::remove_pod_locked(const api::Pod& pod) {
  auto key = pod_uid(pod);
  if (!key) return util::make_error(key.error());
  auto it = nodes_.find(pod.spec.nodeName);
  if (it == nodes_.end()) {
    log::error("Node not found when trying to remove pod", {{"node", pod.spec.nodeName}, {"pod", api::key_of(pod)}});
  } else {
    auto& ni = *it->second->info;
    if (!ni.remove_pod(pod)) {
      return util::make_error("no corresponding pod " + pod.metadata.name + " in pods of node " + pod.spec.nodeName);
    }
    if (ni.pods.empty() && !ni.node()) {
      remove_from_list(pod.spec.nodeName);
    } else {
      move_to_head(it->second);
    }
  }
  if (auto ps = pod_states_.find(*key); ps != pod_states_.end()) {
    if (ps->second.assumed) --assumed_count_;
    pod_states_.erase(ps);
  }
  return {};
}

util::Result<void> Cache::update_pod_locked(const api::Pod& old_pod, framework::PodPtr new_pod) {
  if (auto r = remove_pod_locked(old_pod); !r) return r;
  return add_pod_locked(framework::PodInfo::make(std::move(new_pod)), false);
}

util::Result<void> Cache::assume_pod(framework::PodPtr pod) { return assume_pod(framework::PodInfo::make(std::move(pod))); }

util::Result<void> Cache::assume_pod(framework::PodInfoPtr pi) {
  auto key = pod_uid(*pi->pod);
  if (!key) return util::make_error(key.error());
  std::lock_guard l(mu_);
  if (pod_states_.count(*key)) {
    return util::make_error("pod " + std::string(*key) + "(" + api::key_of(*pi->pod) + ") is in the cache, so can't be assumed");
  }
  return add_pod_locked(std::move(pi), true);
}

util::Result<void> Cache::finish_binding(const api::Pod& pod) {
  auto key = pod_uid(pod);
  if (!key) return util::make_error(key.error());
  std::lock_guard l(mu_);
  auto it = pod_states_.find(*key);
  if (it != pod_states_.end() && it->second.assumed) {
    if (ttl_.count() == 0) {
      it->second.deadline.reset();
    } else {
      it->second.deadline = clock_.now() + std::chrono::duration_cast<util::Clock::duration>(ttl_);
    }
    it->second.bindingFinished = true;
  }
  return {};
}

util::Result<void> Cache::forget_pod(const api::Pod& pod) {
  auto key = pod_uid(pod);
  if (!key) return util::make_error(key.error());
  std::lock_guard l(mu_);
  auto it = pod_states_.find(*key);
  if (it != pod_states_.end() && it->second.podInfo->pod->spec.nodeName != pod.spec.nodeName) {
    return util::make_error("pod " + std::string(*key) + "(" + api::key_of(pod) + ") was assumed on " + pod.spec.nodeName +
                            " but assigned to " + it->second.podInfo->pod->spec.nodeName);
  }
  if (it != pod_states_.end() && it->second.assumed) return remove_pod_locked(pod);
  return util::make_error("pod " + std::string(*key) + "(" + api::key_of(pod) + ") wasn't assumed so cannot be forgotten");
}

util::Result<void> Cache::add_pod(framework::PodPtr pod) {
  auto key = pod_uid(*pod);
  if (!key) return util::make_error(key.error());
  std::lock_guard l(mu_);
  auto it = pod_states_.find(*key);
  if (it != pod_states_.end() && it->second.assumed) {
    // Confirm: replace the assumed copy with the informer's (possibly on another node).
    framework::PodPtr assumed = it->second.podInfo->pod;
    if (auto r = update_pod_locked(*assumed, pod); !r) {
      log::error("Error occurred while updating pod", {{"pod", api::key_of(*pod)}, {"err", r.error()}});
    }
    if (assumed->spec.nodeName != pod->spec.nodeName) {
      log::info("Pod was added to a different node than it was assumed",
                {{"pod", api::key_of(*pod)}, {"assumedNode", assumed->spec.nodeName}, {"currentNode", pod->spec.nodeName}});
    }
    return {};
  }
  if (it == pod_states_.end()) {
    // New, or an assumed pod that expired before its Add arrived.
    if (auto r = add_pod_locked(framework::PodInfo::make(pod), false); !r) {
      log::error("Error occurred while adding pod", {{"pod", api::key_of(*pod)}, {"err", r.error()}});
    }
    return {};
  }
  return util::make_error("pod " + std::string(*key) + "(" + api::key_of(*pod) + ") was already in added state");
}

util::Result<void> Cache::update_pod(const framework::PodPtr& old_pod, framework::PodPtr new_pod) {
  auto key = pod_uid(*old_pod);
  if (!key) return util::make_error(key.error());
  std::lock_guard l(mu_);
  auto it = pod_states_.find(*key);
  if (it == pod_states_.end()) {
    return util::make_error("pod " + std::string(*key) + "(" + api::key_of(*old_pod) +
                            ") is not added to scheduler cache, so cannot be updated");
  }
  if (it->second.assumed) {
    return util::make_error("assumed pod " + std::string(*key) + "(" + api::key_of(*old_pod) + ") should not be updated");
  }
  if (it->second.podInfo->pod->spec.nodeName != new_pod->spec.nodeName) {
    // Upstream exits the process here: the cache would be corrupted.
    log::error("Pod updated on a different node than previously added to", {{"pod", api::key_of(*old_pod)}});
    return util::make_error("pod " + std::string(*key) + "(" + api::key_of(*old_pod) +
                            ") updated on a different node than previously added to");
  }
  // Remove what the cache holds (its sums), add the new version.
  framework::PodPtr cached = it->second.podInfo->pod;
  return update_pod_locked(*cached, std::move(new_pod));
}

util::Result<void> Cache::remove_pod(const api::Pod& pod) {
  auto key = pod_uid(pod);
  if (!key) return util::make_error(key.error());
  std::lock_guard l(mu_);
  auto it = pod_states_.find(*key);
  if (it == pod_states_.end()) {
    return util::make_error("pod " + std::string(*key) + "(" + api::key_of(pod) +
                            ") is not found in scheduler cache, so cannot be removed from it");
  }
  framework::PodPtr cached = it->second.podInfo->pod;
  if (cached->spec.nodeName != pod.spec.nodeName) {
    log::error("Pod was added to a different node than it was assumed",
               {{"pod", api::key_of(pod)}, {"assumedNode", pod.spec.nodeName}, {"currentNode", cached->spec.nodeName}});
    if (!pod.spec.nodeName.empty()) {
      return util::make_error("pod " + std::string(*key) + "(" + api::key_of(pod) + ") removed from a different node than cached");
    }
  }
  return remove_pod_locked(*cached);
}

bool Cache::is_assumed_pod(const api::Pod& pod) const {
  std::lock_guard l(mu_);
  auto it = pod_states_.find(std::string_view(pod.metadata.uid));
  return it != pod_states_.end() && it->second.assumed;
}

util::Result<framework::PodPtr> Cache::get_pod(const api::Pod& pod) const {
  auto key = pod_uid(pod);
  if (!key) return util::make_error(key.error());
  std::lock_guard l(mu_);
  auto it = pod_states_.find(*key);
  if (it == pod_states_.end()) {
    return util::make_error("pod " + std::string(*key) + "(" + api::key_of(pod) + ") does not exist in scheduler cache");
  }
  return it->second.podInfo->pod;
}

void Cache::cleanup_expired_assumed_pods() {
  std::lock_guard l(mu_);
  if (ttl_.count() == 0) return;
  auto now = clock_.now();
  std::vector<framework::PodPtr> expired;
  for (const auto& [key, ps] : pod_states_) {
    if (!ps.assumed || !ps.bindingFinished) continue;  // confirmed, or binding still in progress
    if (ps.deadline && now > *ps.deadline) expired.push_back(ps.podInfo->pod);
  }
  for (const auto& p : expired) {
    log::info("Pod expired", {{"podKey", p->metadata.uid}, {"pod", api::key_of(*p)}});
    if (auto r = remove_pod_locked(*p); !r) log::error("ExpirePod failed", {{"pod", api::key_of(*p)}, {"err", r.error()}});
  }
}

// ---------------------------------------------------------------- nodes

void Cache::add_node_image_states(const api::Node& node, framework::NodeInfo& ni) {
  api::FlatMap<framework::ImageStateSummary> sums;
  for (const auto& img : node.status.images) {
    for (const auto& name : img.names) {
      auto& st = image_states_[name];
      if (st.nodes.empty()) st.size = img.sizeBytes;
      st.nodes.insert(node.metadata.name);
      // Summary as of now (upstream createImageStateSummary).
      if (!sums.contains(name)) sums.set(name, {st.size, static_cast<int>(st.nodes.size())});
    }
  }
  ni.imageStates = std::move(sums);
}

void Cache::remove_node_image_states(const api::Node* node) {
  if (!node) return;
  for (const auto& img : node->status.images) {
    for (const auto& name : img.names) {
      auto it = image_states_.find(name);
      if (it == image_states_.end()) continue;
      it->second.nodes.erase(node->metadata.name);
      if (it->second.nodes.empty()) image_states_.erase(it);
    }
  }
}

framework::NodeInfoPtr Cache::add_node(framework::NodePtr node) {
  std::lock_guard l(mu_);
  const auto& name = node->metadata.name;
  auto found = nodes_.find(name);
  List::iterator it;
  if (found == nodes_.end()) {
    it = node_item(name);
  } else {
    it = found->second;
    remove_node_image_states(it->info->node());
  }
  move_to_head(it);
  tree_.add_node(*node);
  add_node_image_states(*node, *it->info);
  it->info->set_node(std::move(node));
  return it->info->clone();
}

framework::NodeInfoPtr Cache::update_node(const framework::NodePtr& old_node, framework::NodePtr new_node) {
  std::lock_guard l(mu_);
  const auto& name = new_node->metadata.name;
  auto found = nodes_.find(name);
  List::iterator it;
  const api::Node* old_for_tree = old_node.get();
  if (found == nodes_.end()) {
    it = node_item(name);
    tree_.add_node(*new_node);
  } else {
    it = found->second;
    remove_node_image_states(it->info->node());
    // A node-less NodeInfo (node deleted while pods remained) is not in the tree.
    if (!it->info->node()) {
      tree_.add_node(*new_node);
      old_for_tree = new_node.get();
    }
  }
  move_to_head(it);
  tree_.update_node(old_for_tree, *new_node);
  add_node_image_states(*new_node, *it->info);
  it->info->set_node(std::move(new_node));
  return it->info->clone();
}

util::Result<void> Cache::remove_node(const api::Node& node) {
  std::lock_guard l(mu_);
  auto found = nodes_.find(node.metadata.name);
  if (found == nodes_.end()) return util::make_error("node " + node.metadata.name + " is not found");
  auto it = found->second;
  // Images of the node object the cache holds (the caller's copy may be a tombstone).
  framework::NodePtr held = it->info->node_ptr();
  it->info->remove_node();
  // Keep the NodeInfo while pods remain: their deletions may arrive later on another watch.
  if (it->info->pods.empty()) {
    remove_from_list(node.metadata.name);
  } else {
    move_to_head(it);
  }
  auto r = tree_.remove_node(held ? *held : node);
  remove_node_image_states(held ? held.get() : &node);
  return r;
}

// ---------------------------------------------------------------- snapshot

void Cache::rebuild_snapshot_lists(Snapshot& s, bool update_all) const {
  s.have_pods_with_affinity_.clear();
  s.have_pods_with_required_anti_affinity_.clear();
  s.used_pvc_set_.clear();
  auto note = [&](const framework::NodeInfoPtr& ni) {
    if (!ni->podsWithAffinity.empty()) s.have_pods_with_affinity_.push_back(ni);
    if (!ni->podsWithRequiredAntiAffinity.empty()) s.have_pods_with_required_anti_affinity_.push_back(ni);
    for (const auto& [k, _] : ni->pvcRefCounts) s.used_pvc_set_.insert(k);
  };
  if (update_all) {
    s.node_info_list_.clear();
    s.node_info_list_.reserve(tree_.num_nodes());
    for (const auto& name : tree_.list()) {
      auto it = s.node_info_map_.find(name);
      if (it == s.node_info_map_.end() || !it->second) {
        log::error("Node exists in nodeTree but not in NodeInfoMap, this should not happen", {{"node", name}});
        continue;
      }
      it->second->set_list_position(static_cast<std::uint32_t>(s.node_info_list_.size()));
      s.node_info_list_.push_back(it->second);
      note(it->second);
    }
    check_snapshot_hostnames(s);
  } else {
    for (const auto& ni : s.node_info_list_) note(ni);
  }
}

void Cache::check_snapshot_hostnames(Snapshot& s) {
  std::unordered_set<std::string_view> seen;
  seen.reserve(s.node_info_list_.size());
  bool unique = true;
  for (const auto& ni : s.node_info_list_) {
    const std::string_view h = ni->hostname_label();
    if (h.data() != nullptr && !seen.insert(h).second) {
      unique = false;
      break;
    }
  }
  s.hostnames_by_position_ = unique;
}

void Cache::update_snapshot_affinity_lists(Snapshot& s, const std::vector<AffinityFlip>& flips) {
  // No reader depends on the lists' order (they are summed over), so a node that joins goes to
  // the end and one that leaves is erased in place: a cycle that places a pod with affinity on a
  // large cluster no longer walks every node.
  auto flip = [](std::vector<framework::NodeInfoPtr>& list, const framework::NodeInfoPtr& ni, bool member) {
    if (member) {
      list.push_back(ni);
    } else if (auto it = std::find(list.begin(), list.end(), ni); it != list.end()) {
      list.erase(it);
    }
  };
  for (const auto& f : flips) {
    if (f.affinity) flip(s.have_pods_with_affinity_, f.node, !f.node->podsWithAffinity.empty());
    if (f.anti) flip(s.have_pods_with_required_anti_affinity_, f.node, !f.node->podsWithRequiredAntiAffinity.empty());
  }
}

util::Result<void> Cache::update_snapshot(Snapshot& s) {
  std::lock_guard l(mu_);
  bool update_all = false, update_affinity = false, update_anti = false, update_pvcs = false;
  bool node_replaced = false;
  bool hostnames_changed = false;
  std::vector<AffinityFlip> flips;
  s.delta_.updated.clear();
  const std::int64_t from_generation = s.generation_;
  for (const auto& item : list_) {
    if (item.info->generation <= s.generation_) break;  // the rest were in the last snapshot
    if (!item.info->node()) continue;
    auto& existing = s.node_info_map_[item.name];
    if (!existing) {
      update_all = true;
      existing = std::make_shared<framework::NodeInfo>();
    }
    const auto& fresh = *item.info;
    const bool replaced = existing->node() != fresh.node();
    if (replaced) node_replaced = true;
    s.delta_.updated.push_back(existing.get());
    const bool affinity_flips = existing->podsWithAffinity.empty() != fresh.podsWithAffinity.empty();
    const bool anti_flips =
        existing->podsWithRequiredAntiAffinity.empty() != fresh.podsWithRequiredAntiAffinity.empty();
    if (affinity_flips || anti_flips) flips.push_back({existing, affinity_flips, anti_flips});
    update_affinity = update_affinity || affinity_flips;
    update_anti = update_anti || anti_flips;
    if (!update_pvcs) {
      if (existing->pvcRefCounts.size() != fresh.pvcRefCounts.size()) {
        update_pvcs = true;
      } else {
        for (const auto& [k, _] : fresh.pvcRefCounts) {
          if (!existing->pvcRefCounts.contains(k)) {
            update_pvcs = true;
            break;
          }
        }
      }
    }
    // A relabelled hostname may make two nodes share one (or stop sharing); only a new Node
    // object can carry new labels, so a pod landing costs no comparison.
    if (replaced && (existing->hostname_label() != fresh.hostname_label() ||
                     (existing->hostname_label().data() == nullptr) != (fresh.hostname_label().data() == nullptr))) {
      hostnames_changed = true;
    }
    // Copy in place: the snapshot's lists hold this same object, at the same position.
    const std::uint32_t position = existing->list_position();
    *existing = fresh;
    existing->set_list_position(position);
    // numNodes as of this copy (upstream computes it from the image's node set in Snapshot()).
    for (auto it = existing->imageStates.begin(); it != existing->imageStates.end(); ++it) {
      auto st = image_states_.find(it->first);
      if (st != image_states_.end()) {
        existing->imageStates.find(it->first)->numNodes = static_cast<int>(st->second.nodes.size());
      }
    }
  }
  if (!list_.empty()) s.generation_ = list_.front().info->generation;

  // Nodes deleted from the tree may still be in the snapshot map.
  if (static_cast<int>(s.node_info_map_.size()) > tree_.num_nodes()) {
    for (auto it = s.node_info_map_.begin(); it != s.node_info_map_.end();) {
      auto n = nodes_.find(it->first);
      if (n == nodes_.end() || !n->second->info->node()) {
        it = s.node_info_map_.erase(it);
      } else {
        ++it;
      }
    }
    update_all = true;
  }
  if (update_all || update_pvcs) {
    rebuild_snapshot_lists(s, update_all);
  } else if (update_affinity || update_anti) {
    update_snapshot_affinity_lists(s, flips);
  }
  if (hostnames_changed && !update_all) check_snapshot_hostnames(s);
  s.delta_.structural = update_all || update_affinity || update_anti || update_pvcs || node_replaced;
  s.record_step(from_generation, update_all || node_replaced);

  if (static_cast<int>(s.node_info_list_.size()) != tree_.num_nodes()) {
    std::string msg = "snapshot state is not consistent, length of NodeInfoList=" +
                      std::to_string(s.node_info_list_.size()) +
                      " not equal to length of nodes in tree=" + std::to_string(tree_.num_nodes()) +
                      " , length of NodeInfoMap=" + std::to_string(s.node_info_map_.size()) +
                      ", length of nodes in cache=" + std::to_string(nodes_.size()) + ", trying to recover";
    log::error(msg);
    rebuild_snapshot_lists(s, true);
    s.delta_.structural = true;
    s.record_step(from_generation, true);
    return util::make_error(msg);
  }
  return {};
}

// ---------------------------------------------------------------- introspection

int Cache::node_count() const {
  std::lock_guard l(mu_);
  return tree_.num_nodes();
}
int Cache::pod_count() const {
  // Upstream's cache_size{type="pods"} is len(podStates): every cached pod, assumed ones included.
  // It is read every cycle, so it must not walk the nodes.
  std::lock_guard l(mu_);
  return static_cast<int>(pod_states_.size());
}
int Cache::assumed_pod_count() const {
  std::lock_guard l(mu_);
  return static_cast<int>(assumed_count_);
}
std::map<std::string, framework::ImageStateSummary> Cache::image_states() const {
  std::lock_guard l(mu_);
  std::map<std::string, framework::ImageStateSummary> out;
  for (const auto& [name, st] : image_states_) out[name] = {st.size, static_cast<int>(st.nodes.size())};
  return out;
}
std::vector<std::string> Cache::node_tree_order() const {
  std::lock_guard l(mu_);
  return tree_.list();
}

Cache::Dump Cache::dump() const {
  std::lock_guard l(mu_);
  Dump d;
  for (const auto& item : list_) d.nodes[item.name] = item.info->clone();
  for (const auto& [key, ps] : pod_states_) {
    if (ps.assumed) d.assumedPods.insert(key);
  }
  return d;
}

std::string Cache::dump_string() const {
  Dump d = dump();
  std::ostringstream os;
  os << "Dump of cached NodeInfo\n";
  for (const auto& [name, ni] : d.nodes) {
    os << "Node name: " << name << (ni->node() ? "" : " (node object deleted)") << "\n";
    os << "Requested resources: cpu=" << ni->requested.milliCPU << "m memory=" << ni->requested.memory
       << " ephemeral-storage=" << ni->requested.ephemeralStorage << "\n";
    os << "Allocatable resources: cpu=" << ni->allocatable.milliCPU << "m memory=" << ni->allocatable.memory
       << " pods=" << ni->allocatable.allowedPodNumber << "\n";
    os << "Scheduled Pods(number: " << ni->pods.size() << "):\n";
    for (const auto& p : ni->pods) {
      os << "name: " << p->pod->metadata.name << ", namespace: " << p->pod->metadata.namespace_
         << ", uid: " << p->pod->metadata.uid << ", phase: " << p->pod->status.phase
         << (d.assumedPods.count(p->pod->metadata.uid) ? ", assumed" : "") << "\n";
    }
  }
  return os.str();
}

}  // namespace ksched::scheduler::cache
