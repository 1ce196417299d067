#include "scheduler/cache/snapshot.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <set>

namespace ksched::scheduler::cache {

Snapshot::Snapshot(const std::vector<framework::PodPtr>& pods, const std::vector<framework::NodePtr>& nodes) {
  std::map<std::string, framework::ImageStateSummary> images;
  for (const auto& n : nodes) {
    std::set<std::string> seen;
    for (const auto& img : n->status.images) {
      for (const auto& name : img.names) {
        if (!seen.insert(name).second) continue;
        auto& st = images[name];
        st.size = img.sizeBytes;
        ++st.numNodes;
      }
    }
  }
  for (const auto& n : nodes) {
    auto ni = std::make_shared<framework::NodeInfo>(n);
    for (const auto& img : n->status.images) {
      for (const auto& name : img.names) ni->imageStates.set(name, images[name]);
    }
    node_info_map_[n->metadata.name] = ni;
    node_info_list_.push_back(ni);
  }
  for (const auto& p : pods) {
    auto& ni = node_info_map_[p->spec.nodeName];
    if (!ni) ni = std::make_shared<framework::NodeInfo>();
    ni->add_pod(framework::PodInfo::make(p));
  }
  for (const auto& ni : node_info_list_) {
    if (!ni->podsWithAffinity.empty()) have_pods_with_affinity_.push_back(ni);
    if (!ni->podsWithRequiredAntiAffinity.empty()) have_pods_with_required_anti_affinity_.push_back(ni);
  }
  for (const auto& [_, ni] : node_info_map_) {
    for (const auto& [k, _c] : ni->pvcRefCounts) used_pvc_set_.insert(k);
  }
}

Snapshot::Snapshot() {
  static std::atomic<std::uint64_t> next_id{1};
  id_ = next_id.fetch_add(1, std::memory_order_relaxed);
}

void Snapshot::record_step(std::int64_t from, bool nodes_changed) {
  if (nodes_changed) {
    history_.clear();
    history_base_ = generation_;
    return;
  }
  if (delta_.updated.empty() || from == generation_) return;
  history_.push_back(Step{from, delta_.updated});
  if (history_.size() > kHistorySteps) {
    history_.pop_front();
    history_base_ = history_.front().from;
  }
}

bool Snapshot::changed_since(Version v, std::vector<const framework::NodeInfo*>& out) const {
  out.clear();
  if (id_ == 0 || v.lister != id_ || v.generation < history_base_ || v.generation > generation_) return false;
  if (v.generation == generation_) return true;
  auto it = history_.begin();
  while (it != history_.end() && it->from != v.generation) ++it;
  if (it == history_.end()) return false;  // not a version this snapshot had
  for (; it != history_.end(); ++it) out.insert(out.end(), it->nodes.begin(), it->nodes.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return true;
}

framework::NodeInfoPtr Snapshot::get(std::string_view node_name) const {
  auto it = node_info_map_.find(node_name);
  return it == node_info_map_.end() ? nullptr : it->second;
}

bool Snapshot::is_pvc_used_by_pods(std::string_view key) const { return used_pvc_set_.find(key) != used_pvc_set_.end(); }

}  // namespace ksched::scheduler::cache
