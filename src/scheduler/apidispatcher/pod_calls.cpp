#include "scheduler/apidispatcher/pod_calls.h"

#include "scheduler/framework/interface.h"

namespace ksched::scheduler::apidispatcher {

namespace {

api::Pod target_of(const api::Pod& pod) {
  api::Pod t;
  t.metadata.namespace_ = pod.metadata.namespace_;
  t.metadata.name = pod.metadata.name;
  t.metadata.uid = pod.metadata.uid;
  return t;
}

std::optional<api::Time> opt(const api::OptionalTime& t) { return static_cast<std::optional<api::Time>>(t); }

const api::PodCondition* find_condition(const std::vector<api::PodCondition>& cs, std::string_view type) {
  for (const auto& c : cs) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

// Upstream conditionNeedsUpdate: the condition is new, or its status, reason, message or
// lastProbeTime differ (lastTransitionTime does not count).
bool condition_needs_update(const std::vector<api::PodCondition>& cs, const api::PodCondition& c) {
  const api::PodCondition* old = find_condition(cs, c.type);
  if (!old) return true;
  return !(c.status == old->status && c.reason == old->reason && c.message == old->message &&
           opt(c.lastProbeTime) == opt(old->lastProbeTime));
}

}  // namespace

PodStatusPatchCall::SeenStatus PodStatusPatchCall::seen_of(const api::Pod& pod) {
  return {pod.status.conditions, pod.status.nominatedNodeName};
}

PodStatusPatchCall::PodStatusPatchCall(const api::Pod& pod, std::optional<api::PodCondition> condition,
                                       std::optional<std::string> nominated_node_name)
    : target_(target_of(pod)),
      uid_(pod.metadata.uid),
      seen_(seen_of(pod)),
      condition_(std::move(condition)),
      nominated_(std::move(nominated_node_name)) {}

bool PodStatusPatchCall::is_noop() const {
  std::lock_guard lk(mu_);
  if (nominated_ && seen_.nominatedNodeName != *nominated_) return false;
  return !condition_ || !condition_needs_update(seen_.conditions, *condition_);
}

framework::Status PodStatusPatchCall::merge(const ApiCall& older) {
  const auto* o = dynamic_cast<const PodStatusPatchCall*>(&older);
  if (!o) {
    return framework::Status::error("unexpected error: call of type " + std::string(call_type_name(older.type())) +
                                    " is not of type pod_status_patch");
  }
  std::scoped_lock lk(mu_, o->mu_);
  if (!nominated_ && o->nominated_) nominated_ = o->nominated_;
  if (!condition_ && o->condition_) condition_ = o->condition_;
  return {};
}

void PodStatusPatchCall::sync(const api::Pod& pod) {
  std::lock_guard lk(mu_);
  // Once execution started, its inputs are fixed (upstream: the executed flag).
  if (!executed_) seen_ = seen_of(pod);
}

framework::Status PodStatusPatchCall::execute(framework::ClusterClient& client) {
  std::optional<api::PodCondition> condition;
  std::optional<std::string> nominated;
  {
    std::lock_guard lk(mu_);
    executed_ = true;
    // Upstream syncStatus against the status last seen: send only what still changes it.
    const bool nnn_needs_update = nominated_ && seen_.nominatedNodeName != *nominated_;
    if (condition_) {
      api::PodCondition c = *condition_;
      const api::PodCondition* old = find_condition(seen_.conditions, c.type);
      // UpdatePodCondition: lastTransitionTime moves only when the status flips.
      if (old && old->status == c.status) c.lastTransitionTime = old->lastTransitionTime;
      const bool changed = !old || !(c.status == old->status && c.reason == old->reason &&
                                     c.message == old->message && opt(c.lastProbeTime) == opt(old->lastProbeTime) &&
                                     opt(c.lastTransitionTime) == opt(old->lastTransitionTime));
      if (changed) condition = std::move(c);
    }
    if (nnn_needs_update) nominated = *nominated_;
  }
  if (!condition && !nominated) return {};  // nothing left to change
  return client.patch_pod_status(target_, condition, nominated);
}

PodBindingCall::PodBindingCall(const api::Pod& pod, std::string node_name)
    : target_(target_of(pod)), uid_(pod.metadata.uid), node_(std::move(node_name)) {}

framework::Status PodBindingCall::execute(framework::ClusterClient& client) { return client.bind(target_, node_); }

}  // namespace ksched::scheduler::apidispatcher
