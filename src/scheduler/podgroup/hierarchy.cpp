#include "scheduler/podgroup/hierarchy.h"

#include <functional>
#include <mutex>

namespace ksched::scheduler::podgroup {

std::size_t HierarchyKeyHash::operator()(const HierarchyKey& k) const noexcept {
  std::size_t h = std::hash<std::string>{}(k.ns);
  h = h * 31 + std::hash<std::string>{}(k.name);
  return h * 2 + static_cast<std::size_t>(k.kind);
}

namespace {

std::string pod_id(const api::Pod& pod) {
  if (!pod.metadata.uid.empty()) return std::string(pod.metadata.uid);
  return std::string(pod.metadata.namespace_) + "/" + std::string(pod.metadata.name);
}

const std::string* group_of(const api::Pod& pod) {
  const auto& g = pod.spec.schedulingGroup;
  return g && g->podGroupName ? &*g->podGroupName : nullptr;
}

}  // namespace

bool HierarchyTracker::ready(const HierarchyKey& key, const Group& g) {
  if (key.kind == HierarchyKey::Kind::PodGroup) return static_cast<int>(g.pods.size()) >= g.min_count;
  return g.ready_children >= g.min_count;
}

HierarchyTracker::Group& HierarchyTracker::get_or_create(const HierarchyKey& key) {
  return groups_.try_emplace(key).first->second;
}

// A parent's readiness flips at most once per child change; only a flip goes further up. The walk
// is bounded by the tree depth so that a cycle of parents (the API cannot stop one between
// objects) ends.
void HierarchyTracker::propagate(const std::optional<HierarchyKey>& parent, int delta) {
  std::optional<HierarchyKey> at = parent;
  for (int depth = 0; at && delta != 0 && depth <= api::schedulingv1beta1::kWorkloadMaxTreeDepth; ++depth) {
    Group& g = get_or_create(*at);
    const bool was = ready(*at, g);
    g.ready_children += delta;
    const bool now = ready(*at, g);
    if (was == now) return;
    delta = now ? 1 : -1;
    at = g.parent;
  }
}

void HierarchyTracker::set_quorum_and_parent(const HierarchyKey& key, std::optional<HierarchyKey> parent,
                                             int min_count) {
  Group& g = get_or_create(key);
  const bool was = ready(key, g);
  std::optional<HierarchyKey> old_parent = g.parent;
  g.min_count = min_count;
  g.parent = parent;
  g.known = true;
  const bool now = ready(key, g);
  if (old_parent != parent) {
    if (was) propagate(old_parent, -1);
    if (now) propagate(parent, 1);
    return;
  }
  if (was != now) propagate(parent, now ? 1 : -1);
}

void HierarchyTracker::remove(const HierarchyKey& key) {
  auto it = groups_.find(key);
  if (it == groups_.end()) return;
  if (ready(key, it->second)) propagate(it->second.parent, -1);
  groups_.erase(it);
}

int HierarchyTracker::ready_children(const HierarchyKey& key) const {
  std::shared_lock lock(mu_);
  auto it = groups_.find(key);
  if (it == groups_.end()) return 0;
  return key.kind == HierarchyKey::Kind::PodGroup ? static_cast<int>(it->second.pods.size())
                                                  : it->second.ready_children;
}

void HierarchyTracker::on_pod_add(const api::Pod& pod) {
  const std::string* name = group_of(pod);
  if (!name) return;
  const HierarchyKey key = HierarchyKey::pod_group(pod.metadata.namespace_, *name);
  std::unique_lock lock(mu_);
  Group& g = get_or_create(key);
  const bool was = ready(key, g);
  if (!g.pods.insert(pod_id(pod)).second) return;
  if (!was && ready(key, g)) propagate(g.parent, 1);
}

void HierarchyTracker::on_pod_delete(const api::Pod& pod) {
  const std::string* name = group_of(pod);
  if (!name) return;
  const HierarchyKey key = HierarchyKey::pod_group(pod.metadata.namespace_, *name);
  std::unique_lock lock(mu_);
  auto it = groups_.find(key);
  if (it == groups_.end()) return;
  Group& g = it->second;
  const bool was = ready(key, g);
  if (g.pods.erase(pod_id(pod)) == 0) return;
  if (was && !ready(key, g)) propagate(g.parent, -1);
}

void HierarchyTracker::on_pod_group(const api::schedulingv1beta1::PodGroup& pg) {
  const auto& spec = pg.spec;
  const int min_count = spec.schedulingPolicy.gang ? spec.schedulingPolicy.gang->minCount : 1;
  std::optional<HierarchyKey> parent;
  if (spec.parentCompositePodGroupName)
    parent = HierarchyKey::composite(pg.metadata.namespace_, *spec.parentCompositePodGroupName);
  std::unique_lock lock(mu_);
  set_quorum_and_parent(HierarchyKey::pod_group(pg.metadata.namespace_, pg.metadata.name), std::move(parent),
                        min_count);
}

void HierarchyTracker::on_pod_group_delete(const api::schedulingv1beta1::PodGroup& pg) {
  std::unique_lock lock(mu_);
  remove(HierarchyKey::pod_group(pg.metadata.namespace_, pg.metadata.name));
}

void HierarchyTracker::on_composite(const api::schedulingv1alpha3::CompositePodGroup& cpg) {
  const auto& spec = cpg.spec;
  const int min_count = spec.schedulingPolicy.gang ? spec.schedulingPolicy.gang->minGroupCount : 1;
  std::optional<HierarchyKey> parent;
  if (spec.parentCompositePodGroupName)
    parent = HierarchyKey::composite(cpg.metadata.namespace_, *spec.parentCompositePodGroupName);
  std::unique_lock lock(mu_);
  set_quorum_and_parent(HierarchyKey::composite(cpg.metadata.namespace_, cpg.metadata.name), std::move(parent),
                        min_count);
}

void HierarchyTracker::on_composite_delete(const api::schedulingv1alpha3::CompositePodGroup& cpg) {
  std::unique_lock lock(mu_);
  remove(HierarchyKey::composite(cpg.metadata.namespace_, cpg.metadata.name));
}

std::optional<HierarchyTracker::Root> HierarchyTracker::root(const HierarchyKey& key) const {
  std::shared_lock lock(mu_);
  const HierarchyKey* at = &key;
  for (int depth = 0; depth < api::schedulingv1beta1::kWorkloadMaxTreeDepth; ++depth) {
    auto it = groups_.find(*at);
    if (it == groups_.end() || !it->second.known) return std::nullopt;
    if (!it->second.parent) return Root{*at, ready(*at, it->second)};
    at = &*it->second.parent;
  }
  return std::nullopt;
}

}  // namespace ksched::scheduler::podgroup
