#include "scheduler/queue/nominator.h"

#include <algorithm>

namespace ksched::scheduler::queue {

void Nominator::add_nominated_pod(const framework::PodInfoPtr& pi,
                                  const std::optional<framework::NominatingInfo>& info) {
  std::lock_guard l(mu_);
  add_locked(pi, info);
}

void Nominator::add_locked(const framework::PodInfoPtr& pi, const std::optional<framework::NominatingInfo>& info) {
  const api::Pod& pod = *pi->pod;
  // Never keep two entries for one pod.
  delete_locked(pod);
  std::string node;
  if (info && info->mode == framework::NominatingInfo::Mode::Override) {
    node = info->nominatedNodeName;
  } else {
    node = pod.status.nominatedNodeName;
  }
  if (node.empty()) return;
  if (lookup_) {
    auto current = lookup_(pod.metadata.namespace_, pod.metadata.name);
    if (!current || !current->spec.nodeName.empty()) return;
  }
  node_of_uid_[pod.metadata.uid] = node;
  count_.store(node_of_uid_.size(), std::memory_order_release);
  auto& list = by_node_[node];
  for (const auto& p : list)
    if (p->pod->metadata.uid == pod.metadata.uid) return;
  list.push_back(pi);
}

void Nominator::delete_nominated_pod_if_exists(const api::Pod& pod) {
  std::lock_guard l(mu_);
  delete_locked(pod);
}

void Nominator::delete_locked(const api::Pod& pod) {
  auto it = node_of_uid_.find(pod.metadata.uid);
  if (it == node_of_uid_.end()) return;
  auto nit = by_node_.find(it->second);
  if (nit != by_node_.end()) {
    auto& list = nit->second;
    list.erase(std::remove_if(list.begin(), list.end(),
                              [&](const framework::PodInfoPtr& p) { return p->pod->metadata.uid == pod.metadata.uid; }),
               list.end());
    if (list.empty()) by_node_.erase(nit);
  }
  node_of_uid_.erase(it);
  count_.store(node_of_uid_.size(), std::memory_order_release);
}

void Nominator::update_nominated_pod(const api::Pod& old_pod, const framework::PodInfoPtr& new_pi) {
  std::lock_guard l(mu_);
  // An update that carries no nominatedNodeName (old or new) may arrive right after preemption
  // nominated the pod in memory; keep that nomination then. Every other case follows the object.
  std::optional<framework::NominatingInfo> info;
  if (old_pod.status.nominatedNodeName.empty() && new_pi->pod->status.nominatedNodeName.empty()) {
    auto it = node_of_uid_.find(old_pod.metadata.uid);
    if (it != node_of_uid_.end()) {
      info = framework::NominatingInfo{framework::NominatingInfo::Mode::Override, it->second};
    }
  }
  delete_locked(old_pod);
  add_locked(new_pi, info);
}

std::vector<framework::PodInfoPtr> Nominator::nominated_pods_for_node(std::string_view node_name) const {
  if (count_.load(std::memory_order_acquire) == 0) return {};
  std::lock_guard l(mu_);
  auto it = by_node_.find(node_name);
  if (it == by_node_.end()) return {};
  return it->second;
}

std::string Nominator::nominated_node_of(std::string_view uid) const {
  std::lock_guard l(mu_);
  auto it = node_of_uid_.find(std::string(uid));
  return it == node_of_uid_.end() ? std::string() : it->second;
}

std::size_t Nominator::size() const {
  std::lock_guard l(mu_);
  return node_of_uid_.size();
}

}  // namespace ksched::scheduler::queue
