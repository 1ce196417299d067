#include "scheduler/plugins/gangscheduling/gangscheduling.h"

#include <fmt/format.h>

#include "scheduler/podgroup/manager.h"

namespace ksched::scheduler::plugins::gangscheduling {

using framework::ClusterEvent;
using framework::ClusterEventWithHint;
using framework::QueueingHint;
using framework::Status;
using Kind = podgroup::Policy::Kind;

Status GangScheduling::pre_enqueue(const api::Pod& pod) {
  const std::string* pod_group_name = podgroup::pod_group_name(pod);
  if (!pod_group_name && !pod.spec.workloadRef) return {};
  const podgroup::Policy policy = groups_.policy(pod);
  if (pod_group_name && policy.kind == Kind::NoWorkload) {
    // v1.37's words (preEnqueueHierarchiesDisabled).
    return Status::unresolvable(
        fmt::format("waiting for pod's pod group \"{}\" to appear in scheduling queue", *pod_group_name));
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
    if (added == nullptr || !podgroup::same_group(pod, *added)) return QueueingHint::Skip;
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
  const auto names_pod_group = [](const api::Pod& pod, const api::schedulingv1beta1::PodGroup& pg) {
    const std::string* name = podgroup::pod_group_name(pod);
    return name != nullptr && *name == pg.metadata.name.view() && pod.metadata.namespace_ == pg.metadata.namespace_;
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
  return {std::move(pod_added), std::move(workload_added), std::move(pod_group_added), std::move(pod_group_updated)};
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
