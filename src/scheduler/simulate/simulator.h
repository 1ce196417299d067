// What-if scheduling offline: the real Scheduler (queue, cache, profiles, plugins, preemption) over
// a cluster read from a dump, with no API server and no network. The scheduler's writes (bindings,
// preemption's deletions, nominations, events) go to an in-memory cluster, whose changes reach the
// scheduler's event handlers between cycles as an informer would deliver them.
//
// Pods are scheduled in the order given: each pod is added and its cycle run before the next is
// added. A pod that preempts is retried at once after its victims are gone (the queue's backoff is
// served on a simulated clock, so a simulation takes no wall time waiting). Tie-breaks among equal
// scores are drawn from a fixed seed; preemption's pick among equally good candidates stays random
// as upstream's (its search starts at a random node), so runs with preemption may differ there.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "scheduler/config/types.h"
#include "scheduler/simulate/cluster_objects.h"
#include "util/result.h"

namespace ksched::scheduler::simulate {

struct SimulateOptions {
  config::KubeSchedulerConfiguration cfg;  // defaulted and validated
  int parallelism = 0;                     // Filter/Score workers; 0 = hardware threads
  std::uint64_t seed = 1;                  // tie-breaks
};

struct Placement {
  std::string pod;            // namespace/name
  std::string node;           // where it was bound; empty when it was not
  std::string reason;         // why not: the scheduler's FailedScheduling message
  std::string nominatedNode;  // set when it preempted (or nominated) there
  std::vector<std::string> devices;  // DRA devices its claims were allocated, "driver/pool/device"
  bool evicted = false;       // placed, then preempted by a later pod
  // Refused before scheduling, as the API server's admission would have refused its creation
  // (e.g. a PriorityClass that does not exist); reason holds admission's message.
  bool notAdmitted = false;
};

struct NodeUsage {
  std::string name;
  std::int64_t milliCPU = 0, milliCPUAllocatable = 0;
  std::int64_t memory = 0, memoryAllocatable = 0;
  std::int64_t pods = 0, podsAllocatable = 0;
  // DRA devices of the node's own ResourceSlices, and how many allocated claims hold.
  std::int64_t devices = 0, devicesTotal = 0;
};

// A gang left pending, with the member that blocks it: the pod-group cycle tried once more on the
// final state (Scheduler::dry_run_pod_group), as `ksched explain` does.
struct PendingGang {
  std::string group;      // "<namespace>/<workload>/<podGroup>", or a PodGroup's "<namespace>/<name>"
  std::int32_t minCount = 0;
  std::size_t placed = 0;   // members placed in that try, those bound before included
  std::string blocking;     // the first member that fits nowhere (namespace/name)
  std::string why;          // its FitError's message
  std::string verdict;      // PlacementFeasible's message
};

struct Report {
  std::vector<Placement> placements;  // in the order the pods were given
  std::vector<std::string> evicted;   // every preemption victim, namespace/name, in order
  std::vector<PendingGang> pendingGangs;  // gangs with their quorum that stayed pending
  std::vector<NodeUsage> before, after;
  std::size_t nodes = 0;
  std::size_t existingPods = 0;        // bound pods of the dump, in the cache from the start
  std::size_t pendingPodsIgnored = 0;  // unbound pods of the dump: not scheduled
  std::size_t scheduled = 0;           // pods of `pods` bound (and not evicted later)
  std::chrono::nanoseconds scheduleTime{0};  // wall time from the first pod added to the last cycle
};

// `cluster` is the dump; `pods` the pods to schedule. Given pods are defaulted as the API server
// would (namespace, name from generateName, uid, schedulerName, priority from PriorityClasses); a pod
// the API server would refuse is reported as not admitted and the others are still scheduled.
// Errors: a given pod without name or generateName, or a scheduler that cannot be built.
util::Result<Report> simulate(const ClusterObjects& cluster, const std::vector<std::shared_ptr<const api::Pod>>& pods,
                              const SimulateOptions& opts);

std::string to_text(const Report& r);
std::string to_json(const Report& r);

}  // namespace ksched::scheduler::simulate
