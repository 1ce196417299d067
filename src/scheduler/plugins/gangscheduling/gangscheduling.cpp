#include "scheduler/plugins/gangscheduling/gangscheduling.h"

#include <fmt/format.h>

#include "scheduler/podgroup/manager.h"

namespace ksched::scheduler::plugins::gangscheduling {

using framework::ClusterEvent;
using framework::ClusterEventWithHint;
using framework::QueueingHint;
using framework::Status;
using Kind = podgroup::Policy::Kind;

namespace {

// v1.37's checkCPGHierarchyReadiness: the root composite above the pod's PodGroup has
// minGroupCount ready children (the tracker's count, O(1)); the message names the root, or the
// PodGroup's parent while the way up is not complete.
Status hierarchy_ready(const podgroup::Manager& groups, const podgroup::Manager::HierarchyPosition& at) {
  if (!at.root) {
    return Status::unresolvable(fmt::format("waiting for composite pod group \"{}\" tree to meet quorum", at.parent));
  }
  const podgroup::CompositePodGroupPtr root = groups.composite(at.root->key.ns, at.root->key.name);
  int min_group_count = 1;
  if (root && root->spec.schedulingPolicy.gang) min_group_count = root->spec.schedulingPolicy.gang->minGroupCount;
  if (!root || groups.hierarchy().ready_children(at.root->key) < min_group_count) {
    return Status::unresolvable(
        fmt::format("waiting for composite pod group \"{}\" tree to meet quorum", at.root->key.name));
  }
  return {};
}

// The key of the hierarchy's root above the pod's PodGroup (upstream GetRootKeyForGroup): the
// PodGroup itself when it has no parent; nullopt while the way up is not known.
std::optional<podgroup::HierarchyKey> root_of(const podgroup::Manager& groups, std::string_view ns,
                                              std::string_view pod_group) {
  const podgroup::PodGroupPtr pg = groups.pod_group(ns, pod_group);
  if (!pg) return std::nullopt;
  if (!pg->spec.parentCompositePodGroupName) return podgroup::HierarchyKey::pod_group(ns, pod_group);
  auto r = groups.hierarchy().root(podgroup::HierarchyKey::composite(ns, *pg->spec.parentCompositePodGroupName));
  if (!r) return std::nullopt;
  return std::move(r->key);
}

// upstream areSameHierarchy: the pod's PodGroup and `target` have one root.
bool same_hierarchy(const podgroup::Manager& groups, const api::Pod& pod, const podgroup::HierarchyKey& target) {
  const std::string* name = podgroup::pod_group_name(pod);
  if (name == nullptr) return false;
  auto a = root_of(groups, pod.metadata.namespace_, *name);
  if (!a) return false;
  std::optional<podgroup::HierarchyKey> b;
  if (target.kind == podgroup::HierarchyKey::Kind::PodGroup) {
    b = root_of(groups, target.ns, target.name);
  } else {
    if (auto r = groups.hierarchy().root(target)) b = std::move(r->key);
  }
  return b && *a == *b;
}

}  // namespace

Status GangScheduling::pre_enqueue(const api::Pod& pod) {
  const std::string* pod_group_name = podgroup::pod_group_name(pod);
  if (!pod_group_name && !pod.spec.workloadRef) return {};
  const podgroup::Policy policy = groups_.policy(pod);
  if (pod_group_name && policy.kind == Kind::NoWorkload) {
    // v1.37's words (preEnqueueHierarchiesDisabled and preEnqueueWithHierarchies).
    return Status::unresolvable(
        fmt::format("waiting for pod's pod group \"{}\" to appear in scheduling queue", *pod_group_name));
  }
  // v1.37's preEnqueueWithHierarchies: a PodGroup under a CompositePodGroup waits for the root's
  // quorum over the whole tree, not for its own minCount.
  if (pod_group_name && groups_.hierarchies()) {
    const auto at = groups_.hierarchy_of(pod);
    if (at.in_hierarchy) return hierarchy_ready(groups_, at);
  }
  switch (policy.kind) {
    case Kind::NoWorkload:
      // v1.35's words, "pods's" included.
      return Status::unresolvable(
          fmt::format("waiting for pods's workload \"{}\" to appear in scheduling queue", pod.spec.workloadRef->name));
    case Kind::NoPodGroup:
      return Status::unresolvable(fmt::format("pod group \"{}\" doesn't exist for a workload \"{}\"",
                                              pod.spec.workloadRef->podGroup, pod.spec.workloadRef->name));
    case Kind::Basic:
      return {};
    case Kind::Gang:
      break;
  }
  if (groups_.all_pods_count(podgroup::group_key(pod)) < static_cast<std::size_t>(policy.minCount)) {
    return Status::unresolvable("waiting for minCount pods from a gang to appear in scheduling queue");
  }
  return {};
}

namespace {

// Whether the pod's group lets its members through the quorum gate: a group that is not (or not
// yet known as) a gang always does (PreEnqueue decides as before), a gang once minCount pods exist.
bool group_has_quorum(const podgroup::Manager& groups, const api::Pod& pod) {
  const podgroup::Policy policy = groups.policy(pod);
  return policy.kind != Kind::Gang ||
         groups.all_pods_count(podgroup::group_key(pod)) >= static_cast<std::size_t>(policy.minCount);
}

}  // namespace

bool GangScheduling::quorum_after_add(const api::Pod& added) const {
  const std::uint64_t version = groups_.membership_version();
  {
    std::lock_guard l(memo_mu_);
    if (memo_pod_ == &added && memo_version_ == version) return memo_quorum_;
  }
  const bool quorum = group_has_quorum(groups_, added);
  std::lock_guard l(memo_mu_);
  memo_pod_ = &added;
  memo_version_ = version;
  memo_quorum_ = quorum;
  return quorum;
}

Status GangScheduling::placement_feasible(const api::Pod& member, const framework::PlacementProgress& progress) {
  const podgroup::Policy policy = groups_.policy(member);
  // Upstream's getMinCount: 1 for a group that is not a gang.
  const int min_count = policy.kind == Kind::Gang ? policy.minCount : 1;
  if (progress.remaining + progress.scheduled < min_count) {
    return Status::unschedulable(fmt::format("minCount ({}) cannot be satisfied: {} scheduled, {} remaining", min_count,
                                             progress.scheduled, progress.remaining));
  }
  if (progress.scheduled < min_count) {
    return Status(framework::Code::Wait, fmt::format("minCount ({}) is not yet satisfied: {} scheduled, {} remaining",
                                                     min_count, progress.scheduled, progress.remaining));
  }
  return {};
}

std::vector<ClusterEventWithHint> GangScheduling::events_to_register() const {
  ClusterEventWithHint pod_added;
  pod_added.event = ClusterEvent{framework::EventResource::Pod, framework::kAdd, {}};
  pod_added.hint = [this](const api::Pod& pod, const std::shared_ptr<const void>&,
                          const std::shared_ptr<const void>& newObj) {
    const auto* added = static_cast<const api::Pod*>(newObj.get());
    // A pod of the same Workload, pod group and replica may complete the gang (upstream v1.35's
    // hint queues on any such pod). ksched also skips while the group is still short of minCount:
    // PreEnqueue would gate the pod again, so moving it is wasted work, and for a gang of 1,000
    // every arriving member would move every waiting one (10 gangs of 1,000: 5 million moves).
    if (added == nullptr) return QueueingHint::Skip;
    // v1.37 with CompositePodGroup: any pod of the same hierarchy (areSameHierarchy); ksched skips
    // while the root's quorum is not met, as it does for a gang's own.
    if (groups_.hierarchies() && podgroup::pod_group_name(pod) && podgroup::pod_group_name(*added)) {
      const auto at = groups_.hierarchy_of(pod);
      if (at.in_hierarchy) {
        const std::string* added_group = podgroup::pod_group_name(*added);
        if (!same_hierarchy(groups_, pod, podgroup::HierarchyKey::pod_group(added->metadata.namespace_, *added_group))) {
          return QueueingHint::Skip;
        }
        return hierarchy_ready(groups_, at).is_success() ? QueueingHint::Queue : QueueingHint::Skip;
      }
    }
    if (!podgroup::same_group(pod, *added)) return QueueingHint::Skip;
    return quorum_after_add(*added) ? QueueingHint::Queue : QueueingHint::Skip;
  };
  ClusterEventWithHint workload_added;
  workload_added.event = ClusterEvent{framework::EventResource::Workload, framework::kAdd, {}};
  workload_added.hint = [](const api::Pod& pod, const std::shared_ptr<const void>&,
                           const std::shared_ptr<const void>& newObj) {
    const auto* w = static_cast<const api::schedulingv1alpha1::Workload*>(newObj.get());
    if (w == nullptr || !pod.spec.workloadRef || pod.metadata.namespace_ != w->metadata.namespace_ ||
        pod.spec.workloadRef->name != w->metadata.name) {
      return QueueingHint::Skip;
    }
    return QueueingHint::Queue;
  };
  // v1.37: PodGroup/Add of the pod's PodGroup, and PodGroup/Update when a gang's minCount drops
  // (isSchedulableAfterPodGroupAdded / isSchedulableAfterPodGroupUpdated; the policy's kind is
  // fixed at creation, and a minCount that did not decrease lets no waiting pod through).
  // With CompositePodGroup, upstream's areSameHierarchy: a PodGroup of the pod's tree.
  const auto names_pod_group = [this](const api::Pod& pod, const api::schedulingv1beta1::PodGroup& pg) {
    const std::string* name = podgroup::pod_group_name(pod);
    if (name == nullptr) return false;
    if (*name == pg.metadata.name.view() && pod.metadata.namespace_ == pg.metadata.namespace_) return true;
    return groups_.hierarchies() &&
           same_hierarchy(groups_, pod, podgroup::HierarchyKey::pod_group(pg.metadata.namespace_, pg.metadata.name.view()));
  };
  ClusterEventWithHint pod_group_added;
  pod_group_added.event = ClusterEvent{framework::EventResource::PodGroup, framework::kAdd, {}};
  pod_group_added.hint = [names_pod_group](const api::Pod& pod, const std::shared_ptr<const void>&,
                                           const std::shared_ptr<const void>& newObj) {
    const auto* pg = static_cast<const api::schedulingv1beta1::PodGroup*>(newObj.get());
    return pg != nullptr && names_pod_group(pod, *pg) ? QueueingHint::Queue : QueueingHint::Skip;
  };
  ClusterEventWithHint pod_group_updated;
  pod_group_updated.event = ClusterEvent{framework::EventResource::PodGroup, framework::kUpdate, {}};
  pod_group_updated.hint = [names_pod_group](const api::Pod& pod, const std::shared_ptr<const void>& oldObj,
                                             const std::shared_ptr<const void>& newObj) {
    const auto* old_pg = static_cast<const api::schedulingv1beta1::PodGroup*>(oldObj.get());
    const auto* new_pg = static_cast<const api::schedulingv1beta1::PodGroup*>(newObj.get());
    if (old_pg == nullptr || new_pg == nullptr || !names_pod_group(pod, *new_pg)) return QueueingHint::Skip;
    const auto& old_gang = old_pg->spec.schedulingPolicy.gang;
    const auto& new_gang = new_pg->spec.schedulingPolicy.gang;
    if (!old_gang || !new_gang || new_gang->minCount >= old_gang->minCount) return QueueingHint::Skip;
    return QueueingHint::Queue;
  };
  std::vector<ClusterEventWithHint> out{std::move(pod_added), std::move(workload_added), std::move(pod_group_added),
                                        std::move(pod_group_updated)};
  if (groups_.hierarchies()) {
    // v1.37: CompositePodGroup/Add of the pod's tree (isSchedulableAfterCompositePodGroupAdded).
    ClusterEventWithHint composite_added;
    composite_added.event = ClusterEvent{framework::EventResource::CompositePodGroup, framework::kAdd, {}};
    composite_added.hint = [this](const api::Pod& pod, const std::shared_ptr<const void>&,
                                  const std::shared_ptr<const void>& newObj) {
      const auto* c = static_cast<const api::schedulingv1alpha3::CompositePodGroup*>(newObj.get());
      if (c == nullptr || !podgroup::pod_group_name(pod)) return QueueingHint::Skip;
      return same_hierarchy(groups_, pod, podgroup::HierarchyKey::composite(c->metadata.namespace_, c->metadata.name.view()))
                 ? QueueingHint::Queue
                 : QueueingHint::Skip;
    };
    out.push_back(std::move(composite_added));
  }
  return out;
}

void group_keys_of_pod(const api::Pod& pod, std::vector<std::string>& out) {
  if (auto k = podgroup::group_key(pod); !k.empty()) out.push_back(std::move(k));
}

std::optional<std::string> group_key_of_event(const podgroup::Manager& groups, const std::shared_ptr<const void>& old_obj,
                                              const std::shared_ptr<const void>& new_obj) {
  const auto* pod = static_cast<const api::Pod*>((new_obj ? new_obj : old_obj).get());
  // No pod at all: nothing to rule out by.
  if (pod == nullptr) return std::nullopt;
  // Empty (no group, or a group short of its quorum): concerns no indexed pod.
  if (!podgroup::has_group(*pod) || !group_has_quorum(groups, *pod)) return std::string();
  return podgroup::group_key(*pod);
}

void workload_keys_of_pod(const api::Pod& pod, std::vector<std::string>& out) {
  if (!pod.spec.workloadRef) return;
  std::string k(pod.metadata.namespace_.view());
  k.append("/").append(pod.spec.workloadRef->name);
  out.push_back(std::move(k));
}

std::optional<std::string> workload_key_of_event(const std::shared_ptr<const void>& old_obj,
                                                 const std::shared_ptr<const void>& new_obj) {
  const auto* w = static_cast<const api::schedulingv1alpha1::Workload*>((new_obj ? new_obj : old_obj).get());
  if (w == nullptr) return std::nullopt;
  std::string k(w->metadata.namespace_.view());
  k.append("/").append(w->metadata.name.view());
  return k;
}

void pod_group_keys_of_pod(const api::Pod& pod, std::vector<std::string>& out) {
  const std::string* name = podgroup::pod_group_name(pod);
  if (name == nullptr) return;
  std::string k(pod.metadata.namespace_.view());
  k.append("/").append(*name);
  out.push_back(std::move(k));
}

std::optional<std::string> pod_group_key_of_event(const std::shared_ptr<const void>& old_obj,
                                                  const std::shared_ptr<const void>& new_obj) {
  const auto* pg = static_cast<const api::schedulingv1beta1::PodGroup*>((new_obj ? new_obj : old_obj).get());
  if (pg == nullptr) return std::nullopt;
  std::string k(pg->metadata.namespace_.view());
  k.append("/").append(pg->metadata.name.view());
  return k;
}

util::Result<std::shared_ptr<framework::Plugin>> make_gang_scheduling(const framework::PluginArgs&,
                                                                      framework::Handle& handle) {
  podgroup::Manager* groups = handle.pod_group_manager();
  if (groups == nullptr) return util::make_error("the scheduler keeps no pod-group state for GangScheduling");
  return std::shared_ptr<framework::Plugin>(std::make_shared<GangScheduling>(*groups));
}

}  // namespace ksched::scheduler::plugins::gangscheduling
