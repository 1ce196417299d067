// Snapshot of the cache taken at the start of each scheduling cycle (upstream
// backend/cache/snapshot.go). NodeInfo objects keep their identity across incremental updates so
// the node list is rebuilt only when nodes appear or vanish (and the PVC set when PVC use flips);
// a node whose pods with affinity come or go just joins or leaves the affinity lists.
#pragma once
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "scheduler/framework/types.h"

namespace ksched::scheduler::cache {

class Cache;

class Snapshot final : public framework::NodeInfoLister, public framework::StorageInfoLister {
 public:
  // A snapshot the Cache keeps up to date: it records which nodes each update changed.
  Snapshot();
  // Upstream NewSnapshot(pods, nodes): NodeInfos in `nodes` order with images summarised. It keeps
  // no history: callers may edit its NodeInfos directly.
  Snapshot(const std::vector<framework::PodPtr>& pods, const std::vector<framework::NodePtr>& nodes);
  // Versions name one snapshot object's content; a copy would share them.
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;

  const std::vector<framework::NodeInfoPtr>& list() const override { return node_info_list_; }
  const std::vector<framework::NodeInfoPtr>& have_pods_with_affinity_list() const override {
    return have_pods_with_affinity_;
  }
  const std::vector<framework::NodeInfoPtr>& have_pods_with_required_anti_affinity_list() const override {
    return have_pods_with_required_anti_affinity_;
  }
  framework::NodeInfoPtr get(std::string_view node_name) const override;
  bool is_pvc_used_by_pods(std::string_view key) const override;

  std::int64_t generation() const { return generation_; }
  Version version() const override { return {id_, generation_}; }
  bool changed_since(Version v, std::vector<const framework::NodeInfo*>& out) const override;
  // Kept up to date by the Cache; a snapshot without history says false (its callers may edit it).
  bool hostnames_by_position() const override { return hostnames_by_position_; }

  // What the last Cache::update_snapshot changed, for opportunistic batching: the NodeInfos it
  // copied (only their pods changed), or `structural` when a node was added, deleted or its Node
  // object replaced, or the affinity/anti-affinity/PVC lists were rebuilt.
  struct Delta {
    std::vector<const framework::NodeInfo*> updated;
    bool structural = false;
  };
  const Delta& last_delta() const { return delta_; }
  std::size_t num_nodes() const { return node_info_list_.size(); }

 private:
  friend class Cache;
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, framework::NodeInfoPtr, StringHash, std::equal_to<>> node_info_map_;
  std::vector<framework::NodeInfoPtr> node_info_list_;
  // In tree order as of the last full rebuild; nodes that joined since are at the end.
  std::vector<framework::NodeInfoPtr> have_pods_with_affinity_;
  std::vector<framework::NodeInfoPtr> have_pods_with_required_anti_affinity_;
  std::unordered_set<std::string, StringHash, std::equal_to<>> used_pvc_set_;
  std::int64_t generation_ = 0;
  Delta delta_;
  bool hostnames_by_position_ = false;

  // Recorded by Cache::update_snapshot: one step per update that changed pods only, newest last,
  // at most kHistorySteps. An update that adds, removes or replaces a node clears it (rebuilt
  // affinity lists do not: only the changed nodes can have entered or left them); versions older
  // than history_base_ are unknown.
  static constexpr std::size_t kHistorySteps = 64;
  struct Step {
    std::int64_t from = 0;  // the generation the update started from
    std::vector<const framework::NodeInfo*> nodes;
  };
  void record_step(std::int64_t from, bool nodes_changed);
  std::uint64_t id_ = 0;  // 0: no history
  std::deque<Step> history_;
  std::int64_t history_base_ = 0;
};

}  // namespace ksched::scheduler::cache
