#include "scheduler/podgroup/manager.h"

#include <algorithm>
#include <limits>

#include "api/helpers.h"

namespace ksched::scheduler::podgroup {

namespace {

std::string workload_key(std::string_view ns, std::string_view name) {
  std::string k;
  k.reserve(ns.size() + 1 + name.size());
  k.append(ns).append("/").append(name);
  return k;
}

}  // namespace

const std::string* pod_group_name(const api::Pod& pod) {
  const auto& g = pod.spec.schedulingGroup;
  return g && g->podGroupName ? &*g->podGroupName : nullptr;
}

bool has_group(const api::Pod& pod) { return pod_group_name(pod) != nullptr || pod.spec.workloadRef; }

std::string group_key(const api::Pod& pod) {
  if (const std::string* pg = pod_group_name(pod)) return workload_key(pod.metadata.namespace_, *pg);
  if (!pod.spec.workloadRef) return {};
  const auto& r = *pod.spec.workloadRef;
  std::string k;
  k.reserve(pod.metadata.namespace_.size() + r.name.size() + r.podGroup.size() + r.podGroupReplicaKey.size() + 3);
  k.append(pod.metadata.namespace_).append("/").append(r.name).append("/").append(r.podGroup).append("/");
  k.append(r.podGroupReplicaKey);
  return k;
}

std::string pod_group_key(std::string_view ns, std::string_view name) { return workload_key(ns, name); }

bool same_group(const api::Pod& a, const api::Pod& b) {
  const std::string* pa = pod_group_name(a);
  const std::string* pb = pod_group_name(b);
  if (pa || pb) return pa && pb && *pa == *pb && a.metadata.namespace_ == b.metadata.namespace_;
  if (!a.spec.workloadRef || !b.spec.workloadRef) return false;
  const auto& x = *a.spec.workloadRef;
  const auto& y = *b.spec.workloadRef;
  return x.name == y.name && x.podGroup == y.podGroup && x.podGroupReplicaKey == y.podGroupReplicaKey &&
         a.metadata.namespace_ == b.metadata.namespace_;
}

void Manager::on_workload_add(const WorkloadPtr& w) {
  std::lock_guard l(mu_);
  workloads_[workload_key(w->metadata.namespace_, w->metadata.name)] = w;
}

void Manager::on_workload_update(const WorkloadPtr& w) { on_workload_add(w); }

void Manager::on_workload_delete(const WorkloadPtr& w) {
  std::lock_guard l(mu_);
  workloads_.erase(workload_key(w->metadata.namespace_, w->metadata.name));
}

void Manager::reindex_child(ChildIndex& index, std::string_view ns, const std::string& key,
                            const std::optional<std::string>* old_parent, const std::optional<std::string>* new_parent) {
  const std::string* from = old_parent && *old_parent ? &**old_parent : nullptr;
  const std::string* to = new_parent && *new_parent ? &**new_parent : nullptr;
  if (from && to && *from == *to) return;
  if (from) {
    if (auto it = index.find(workload_key(ns, *from)); it != index.end()) {
      it->second.erase(key);
      if (it->second.empty()) index.erase(it);
    }
  }
  if (to) index[workload_key(ns, *to)].insert(key);
}

void Manager::on_pod_group_add(const PodGroupPtr& pg) {
  {
    std::lock_guard l(mu_);
    std::string key = workload_key(pg->metadata.namespace_, pg->metadata.name);
    PodGroupPtr& slot = pod_groups_[key];
    if (hierarchies_) {
      reindex_child(pod_group_children_, pg->metadata.namespace_.view(), key,
                    slot ? &slot->spec.parentCompositePodGroupName : nullptr, &pg->spec.parentCompositePodGroupName);
    }
    slot = pg;
  }
  if (hierarchies_) tracker_.on_pod_group(*pg);
}

void Manager::on_pod_group_update(const PodGroupPtr& pg) { on_pod_group_add(pg); }

void Manager::on_pod_group_delete(const PodGroupPtr& pg) {
  {
    std::lock_guard l(mu_);
    auto it = pod_groups_.find(workload_key(pg->metadata.namespace_, pg->metadata.name));
    if (it != pod_groups_.end()) {
      if (hierarchies_) {
        reindex_child(pod_group_children_, pg->metadata.namespace_.view(), it->first,
                      &it->second->spec.parentCompositePodGroupName, nullptr);
      }
      pod_groups_.erase(it);
    }
  }
  if (hierarchies_) tracker_.on_pod_group_delete(*pg);
}

void Manager::on_composite_add(const CompositePodGroupPtr& cpg) {
  if (!hierarchies_) return;
  {
    std::lock_guard l(mu_);
    std::string key = workload_key(cpg->metadata.namespace_, cpg->metadata.name);
    CompositePodGroupPtr& slot = composites_[key];
    reindex_child(composite_children_, cpg->metadata.namespace_.view(), key,
                  slot ? &slot->spec.parentCompositePodGroupName : nullptr, &cpg->spec.parentCompositePodGroupName);
    slot = cpg;
  }
  tracker_.on_composite(*cpg);
  // A composite's arrival can complete a root's quorum: what callers derived is stale.
  membership_version_.fetch_add(1, std::memory_order_acq_rel);
}

void Manager::on_composite_delete(const CompositePodGroupPtr& cpg) {
  if (!hierarchies_) return;
  {
    std::lock_guard l(mu_);
    auto it = composites_.find(workload_key(cpg->metadata.namespace_, cpg->metadata.name));
    if (it != composites_.end()) {
      reindex_child(composite_children_, cpg->metadata.namespace_.view(), it->first,
                    &it->second->spec.parentCompositePodGroupName, nullptr);
      composites_.erase(it);
    }
  }
  tracker_.on_composite_delete(*cpg);
  membership_version_.fetch_add(1, std::memory_order_acq_rel);
}

CompositePodGroupPtr Manager::composite(std::string_view ns, std::string_view name) const {
  std::lock_guard l(mu_);
  auto it = composites_.find(workload_key(ns, name));
  return it == composites_.end() ? nullptr : it->second;
}

Manager::HierarchyPosition Manager::hierarchy_of(const api::Pod& pod) const {
  HierarchyPosition out;
  if (!hierarchies_) return out;
  const std::string* name = pod_group_name(pod);
  if (name == nullptr) return out;
  PodGroupPtr pg = pod_group(pod.metadata.namespace_, *name);
  if (!pg || !pg->spec.parentCompositePodGroupName) return out;
  out.in_hierarchy = true;
  out.parent = *pg->spec.parentCompositePodGroupName;
  out.root = tracker_.root(HierarchyKey::composite(pod.metadata.namespace_, out.parent));
  return out;
}

std::optional<Tree> Manager::tree(const HierarchyKey& root) const {
  if (root.kind != HierarchyKey::Kind::CompositePodGroup) return std::nullopt;
  std::lock_guard l(mu_);
  auto rit = composites_.find(workload_key(root.ns, root.name));
  if (rit == composites_.end()) return std::nullopt;
  Tree t;
  auto composite_min = [](const api::schedulingv1alpha3::CompositePodGroup& c) {
    return c.spec.schedulingPolicy.gang ? static_cast<int>(c.spec.schedulingPolicy.gang->minGroupCount) : 1;
  };
  TreeNode r;
  r.key = root;
  r.composite = rit->second;
  r.min = composite_min(*rit->second);
  t.nodes.push_back(std::move(r));
  std::vector<int> depth{1};
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    if (t.nodes[i].key.kind != HierarchyKey::Kind::CompositePodGroup) continue;
    // Bounded as upstream's walks: a layout deeper than the API allows (or a cycle) is cut there.
    if (depth[i] >= api::schedulingv1beta1::kWorkloadMaxTreeDepth) continue;
    // Children in name order (a parent is always in its child's namespace).
    const std::string parent = workload_key(root.ns, t.nodes[i].key.name);
    static const std::set<std::string, std::less<>> kNone;
    const auto children = [&](const ChildIndex& index) -> const std::set<std::string, std::less<>>& {
      auto it = index.find(parent);
      return it == index.end() ? kNone : it->second;
    };
    for (const std::string& child : children(composite_children_)) {
      auto cit = composites_.find(child);
      if (cit == composites_.end()) continue;
      const auto& c = cit->second;
      TreeNode n;
      n.key = HierarchyKey::composite(root.ns, c->metadata.name.view());
      n.parent = static_cast<int>(i);
      n.composite = c;
      n.min = composite_min(*c);
      t.nodes[i].children.push_back(static_cast<int>(t.nodes.size()));
      t.nodes.push_back(std::move(n));
      depth.push_back(depth[i] + 1);
    }
    for (const std::string& child : children(pod_group_children_)) {
      auto pit = pod_groups_.find(child);
      if (pit == pod_groups_.end()) continue;
      const auto& pg = pit->second;
      TreeNode n;
      n.key = HierarchyKey::pod_group(root.ns, pg->metadata.name.view());
      n.parent = static_cast<int>(i);
      n.podGroup = pg;
      n.min = pg->spec.schedulingPolicy.gang ? static_cast<int>(pg->spec.schedulingPolicy.gang->minCount) : 1;
      t.nodes[i].children.push_back(static_cast<int>(t.nodes.size()));
      t.nodes.push_back(std::move(n));
      depth.push_back(depth[i] + 1);
    }
  }
  return t;
}

void Manager::on_pod_add(const PodPtr& pod) {
  std::string key = group_key(*pod);
  if (key.empty()) return;
  // The tracker first: a reader that sees the pod counted below sees its tree counted too.
  if (hierarchies_) tracker_.on_pod_add(*pod);
  std::lock_guard l(mu_);
  auto [it, added] = groups_[std::move(key)].pods.insert_or_assign(pod->metadata.uid, pod);
  if (added) membership_version_.fetch_add(1, std::memory_order_acq_rel);
}

void Manager::on_pod_update(const PodPtr& old_pod, const PodPtr& new_pod) {
  // schedulingGroup and workloadRef are immutable, but a pod may be deleted and recreated under one name: key by uid.
  if (old_pod && old_pod->metadata.uid != new_pod->metadata.uid) on_pod_delete(old_pod);
  on_pod_add(new_pod);
}

void Manager::on_pod_delete(const PodPtr& pod) {
  const std::string key = group_key(*pod);
  if (key.empty()) return;
  if (hierarchies_) tracker_.on_pod_delete(*pod);
  std::lock_guard l(mu_);
  auto it = groups_.find(key);
  if (it == groups_.end()) return;
  if (it->second.pods.erase(pod->metadata.uid) > 0) membership_version_.fetch_add(1, std::memory_order_acq_rel);
  if (it->second.pods.empty()) groups_.erase(it);
}

WorkloadPtr Manager::workload(std::string_view ns, std::string_view name) const {
  std::lock_guard l(mu_);
  auto it = workloads_.find(workload_key(ns, name));
  return it == workloads_.end() ? nullptr : it->second;
}

PodGroupPtr Manager::pod_group(std::string_view ns, std::string_view name) const {
  std::lock_guard l(mu_);
  auto it = pod_groups_.find(workload_key(ns, name));
  return it == pod_groups_.end() ? nullptr : it->second;
}

std::optional<std::int32_t> Manager::pod_group_priority(std::string_view ns, std::string_view name) const {
  std::lock_guard l(mu_);
  auto it = pod_groups_.find(workload_key(ns, name));
  if (it == pod_groups_.end()) return std::nullopt;
  return it->second->spec.priority.value_or(0);
}

Policy Manager::policy(const api::Pod& pod) const {
  Policy p;
  if (const std::string* name = pod_group_name(pod)) {
    PodGroupPtr pg = pod_group(pod.metadata.namespace_, *name);
    if (!pg) return p;
    // The API makes the policy exactly one of basic and gang; a PodGroup with neither is treated
    // as basic, as upstream's isPGReady does (no gang, no quorum).
    if (const auto& gang = pg->spec.schedulingPolicy.gang) {
      p.kind = Policy::Kind::Gang;
      p.minCount = gang->minCount;
    } else {
      p.kind = Policy::Kind::Basic;
    }
    return p;
  }
  if (!pod.spec.workloadRef) return p;
  WorkloadPtr w = workload(pod.metadata.namespace_, pod.spec.workloadRef->name);
  if (!w) return p;
  p.kind = Policy::Kind::NoPodGroup;
  for (const auto& g : w->spec.podGroups) {
    if (g.name != pod.spec.workloadRef->podGroup) continue;
    if (g.policy.gang) {
      p.kind = Policy::Kind::Gang;
      p.minCount = g.policy.gang->minCount;
    } else {
      p.kind = Policy::Kind::Basic;
    }
    break;
  }
  return p;
}

template <typename Fn>
void Manager::walk_up_locked(std::string_view ns, const api::schedulingv1beta1::PodGroup& pg, Fn&& fn) const {
  if (!hierarchies_ || !pg.spec.parentCompositePodGroupName) return;
  const std::string* parent = &*pg.spec.parentCompositePodGroupName;
  for (int depth = 1; parent && depth < api::schedulingv1beta1::kWorkloadMaxTreeDepth; ++depth) {
    auto it = composites_.find(workload_key(ns, *parent));
    if (it == composites_.end()) break;
    const auto& spec = it->second->spec;
    fn(it->first, spec);
    parent = spec.parentCompositePodGroupName ? &*spec.parentCompositePodGroupName : nullptr;
  }
}

VictimView Manager::victim_view(const api::Pod& pod) const {
  VictimView v;
  if (const std::string* name = pod_group_name(pod)) {
    v.groupMember = true;
    PodGroupPtr pg = pod_group(pod.metadata.namespace_, *name);
    if (!pg) return v;
    v.priority = pg->spec.priority.value_or(0);
    if (pg->spec.disruptionMode && pg->spec.disruptionMode->all) v.unit = group_key(pod);
    // Upstream getPodPriority / getHighestAllAncestor over traverseHierarchyUp: the priority of
    // the last group reached going up (the root, unless a parent is missing), and the unit of
    // the highest group with disruptionMode all (a composite's: every scheduled pod under it).
    if (!hierarchies_ || !pg->spec.parentCompositePodGroupName) return v;
    std::lock_guard l(mu_);
    walk_up_locked(pod.metadata.namespace_.view(), *pg, [&](const std::string& key, const auto& spec) {
      v.priority = spec.priority.value_or(0);
      if (spec.disruptionMode && spec.disruptionMode->all) {
        v.unit = "composite:" + key;
        v.composite = true;
      }
    });
    return v;
  }
  if (pod.spec.workloadRef && policy(pod).kind == Policy::Kind::Gang) v.unit = group_key(pod);
  return v;
}

PreemptorView Manager::preemptor_view(const std::vector<PodPtr>& members, bool pod_group_preemption_policy) const {
  PreemptorView v;
  const bool member_says_never = std::any_of(members.begin(), members.end(), [](const PodPtr& m) {
    return m->spec.preemptionPolicy && *m->spec.preemptionPolicy == "Never";
  });
  if (members.empty()) return v;
  const api::Pod& first = *members.front();
  if (const std::string* name = pod_group_name(first)) {
    if (PodGroupPtr pg = pod_group(first.metadata.namespace_, *name)) {
      v.priority = pg->spec.priority.value_or(0);
      const std::optional<std::string>* policy = &pg->spec.preemptionPolicy;
      // Under composites the tree's root preempts (the highest group reached, as getPodPriority).
      std::unique_lock l(mu_, std::defer_lock);
      if (hierarchies_ && pg->spec.parentCompositePodGroupName) {
        l.lock();
        walk_up_locked(first.metadata.namespace_.view(), *pg, [&](const std::string&, const auto& spec) {
          v.priority = spec.priority.value_or(0);
          policy = &spec.preemptionPolicy;
        });
      }
      v.never = pod_group_preemption_policy ? *policy && **policy == "Never" : member_says_never;
      return v;
    }
  }
  v.priority = std::numeric_limits<std::int32_t>::max();
  for (const auto& m : members) v.priority = std::min(v.priority, api::pod_priority(*m));
  v.never = member_says_never;
  return v;
}

std::size_t Manager::all_pods_count(const std::string& key) const {
  std::lock_guard l(mu_);
  auto it = groups_.find(key);
  return it == groups_.end() ? 0 : it->second.pods.size();
}

std::vector<PodPtr> Manager::pods(const std::string& key) const {
  std::vector<PodPtr> out;
  std::lock_guard l(mu_);
  auto it = groups_.find(key);
  if (it == groups_.end()) return out;
  out.reserve(it->second.pods.size());
  for (const auto& [uid, p] : it->second.pods) out.push_back(p);
  return out;
}

std::size_t Manager::group_count() const {
  std::lock_guard l(mu_);
  return groups_.size();
}

}  // namespace ksched::scheduler::podgroup
