// The scheduler's pod-group state (workload-aware scheduling, issue #44): which Workloads exist,
// which pods belong to each pod group, and what a group's policy asks. The queue's PreEnqueue
// (GangScheduling), the pod-group cycle (Scheduler::schedule_pod_group) and its PlacementFeasible
// check read it; the informers' handlers feed it.
//
// Upstream: v1.35's backend/workloadmanager (PodGroupInfo: all pods of a group, keyed by the pod's
// workloadRef), and v1.36+'s backend/cache/podgroupstate.go (a group's pods and how many are
// scheduled). Today a pod names its group through v1.35's spec.workloadRef (the Workload, its pod
// group and replica key); the group's policy is the Workload's spec.podGroups entry. Where v1.36+
// made the PodGroup an object of its own (spec.schedulingGroup.podGroupName), the key and the
// policy lookup are the only two things that change.
//
// Thread-safe: the handlers run on informer threads, PreEnqueue inside the queue's lock, the
// pod-group cycle on the scheduling thread. Lock order: the queue's lock, then this one (never
// call into the queue while holding it).
#pragma once
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/core.h"
#include "api/scheduling.h"

namespace ksched::scheduler::podgroup {

using PodPtr = std::shared_ptr<const api::Pod>;
using WorkloadPtr = std::shared_ptr<const api::schedulingv1alpha1::Workload>;

// The group a pod belongs to: "<namespace>/<workload>/<podGroup>/<replicaKey>", or empty for a
// pod without a workloadRef (the common case: a null check, no allocation).
std::string group_key(const api::Pod& pod);
// Whether two pods belong to one group (group_key(a) == group_key(b), both non-empty), without
// building the keys.
bool same_group(const api::Pod& a, const api::Pod& b);

// What the pod's group asks for, from its Workload.
struct Policy {
  enum class Kind { NoWorkload, NoPodGroup, Basic, Gang } kind = Kind::NoWorkload;
  std::int32_t minCount = 0;  // Gang only
};

class Manager {
 public:
  // ---- fed by the informers (any thread)
  void on_workload_add(const WorkloadPtr& w);
  void on_workload_update(const WorkloadPtr& w);
  void on_workload_delete(const WorkloadPtr& w);
  // Any pod with a workloadRef, assigned or not (the pod informer's every event).
  void on_pod_add(const PodPtr& pod);
  void on_pod_update(const PodPtr& old_pod, const PodPtr& new_pod);
  void on_pod_delete(const PodPtr& pod);

  // ---- read
  Policy policy(const api::Pod& pod) const;
  // The Workload the pod names, or null.
  WorkloadPtr workload(std::string_view ns, std::string_view name) const;
  // How many pods of the group exist (unscheduled and assigned): PreEnqueue's quorum.
  std::size_t all_pods_count(const std::string& key) const;
  // The group's pods as the informer last showed them (assigned ones have spec.nodeName).
  std::vector<PodPtr> pods(const std::string& key) const;
  std::size_t group_count() const;
  // Changes whenever a pod joins or leaves any group: what a caller derived from the counts above
  // is still true while it has not changed.
  std::uint64_t membership_version() const { return membership_version_.load(std::memory_order_acquire); }

 private:
  struct Group {
    std::unordered_map<std::string, PodPtr> pods;  // by uid
  };
  mutable std::mutex mu_;
  std::map<std::string, WorkloadPtr, std::less<>> workloads_;  // "<ns>/<name>"
  std::unordered_map<std::string, Group> groups_;
  std::atomic<std::uint64_t> membership_version_{0};
};

}  // namespace ksched::scheduler::podgroup
