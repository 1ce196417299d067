// CompositePodGroup hierarchies (v1.37 alpha, KEP-6012, gate CompositePodGroup): how many children
// of each group are ready, counted incrementally as pods, PodGroups and CompositePodGroups come and
// go, so that PreEnqueue can ask in O(1) whether a group's quorum is met and, walking up, whether
// the root's is.
//
// Follows upstream's pkg/scheduler/framework/plugins/gangscheduling/hierarchy_tracker.go (the
// version with OnPodAdd / OnPodGroupAdd / OnCompositePodGroupAdd): a PodGroup is ready when it has
// minCount pods (1 for a basic policy), a CompositePodGroup when minGroupCount of its children are
// ready (1 for basic); a group that changes readiness adds or takes one from its parent's count,
// and so on up. Objects may arrive in any order: a group first named by a pod or a child is
// tracked with a quorum of 1 and no parent until its own object arrives, which sets both (a parent
// change moves the group's readiness from the old parent to the new one).
//
// Not yet wired into the scheduler (no CompositePodGroup informer or gate there); thread-safe for
// when it is: a shared mutex, readers (ready_children, root) in parallel.
#pragma once
#include <cstdint>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "api/core.h"
#include "api/scheduling.h"

namespace ksched::scheduler::podgroup {

// A group of the hierarchy: a PodGroup or a CompositePodGroup, by namespace and name.
struct HierarchyKey {
  enum class Kind : std::uint8_t { PodGroup, CompositePodGroup };
  Kind kind = Kind::PodGroup;
  std::string ns;
  std::string name;

  static HierarchyKey pod_group(std::string_view ns, std::string_view name) {
    return {Kind::PodGroup, std::string(ns), std::string(name)};
  }
  static HierarchyKey composite(std::string_view ns, std::string_view name) {
    return {Kind::CompositePodGroup, std::string(ns), std::string(name)};
  }
  bool operator==(const HierarchyKey&) const = default;
};

struct HierarchyKeyHash {
  std::size_t operator()(const HierarchyKey& k) const noexcept;
};

class HierarchyTracker {
 public:
  // Ready children of the group (its pods for a PodGroup, its ready child groups for a
  // CompositePodGroup); 0 for a group not tracked.
  int ready_children(const HierarchyKey& key) const;

  // A pod naming a PodGroup (spec.schedulingGroup.podGroupName) joins or leaves it; pods naming
  // none are ignored. A pod's group never changes (the field is immutable), so there is no update.
  void on_pod_add(const api::Pod& pod);
  void on_pod_delete(const api::Pod& pod);
  // Add and update alike: the group's quorum and parent from the object.
  void on_pod_group(const api::schedulingv1beta1::PodGroup& pg);
  void on_pod_group_delete(const api::schedulingv1beta1::PodGroup& pg);
  void on_composite(const api::schedulingv1alpha3::CompositePodGroup& cpg);
  void on_composite_delete(const api::schedulingv1alpha3::CompositePodGroup& cpg);

  // The top of the hierarchy above `key` (the key itself when it has no parent) and whether its
  // quorum is met. Null when a group on the way is only named, not seen (its object has not
  // arrived: upstream's dangling parent), or the walk does not end within WorkloadMaxTreeDepth
  // links (a cycle or a tree deeper than the API allows).
  struct Root {
    HierarchyKey key;
    bool ready = false;
  };
  std::optional<Root> root(const HierarchyKey& key) const;

 private:
  struct Group {
    std::optional<HierarchyKey> parent;
    int min_count = 1;
    std::unordered_set<std::string> pods;  // PodGroup: uids (namespace/name without one)
    int ready_children = 0;                // CompositePodGroup
    bool known = false;                    // its object has been seen (not only named)
  };
  static bool ready(const HierarchyKey& key, const Group& g);
  Group& get_or_create(const HierarchyKey& key);
  void propagate(const std::optional<HierarchyKey>& parent, int delta);
  void set_quorum_and_parent(const HierarchyKey& key, std::optional<HierarchyKey> parent, int min_count);
  void remove(const HierarchyKey& key);

  mutable std::shared_mutex mu_;
  std::unordered_map<HierarchyKey, Group, HierarchyKeyHash> groups_;
};

}  // namespace ksched::scheduler::podgroup
