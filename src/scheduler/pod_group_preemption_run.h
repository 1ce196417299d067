// Workload-aware preemption run by the pod-group cycles (schedule_pod_group.cpp for a gang,
// schedule_composite_pod_group.cpp for a CompositePodGroup tree): upstream's runWorkloadAwarePreemption
// and PodGroupPostFilter around framework/preemption's PodGroupEvaluator.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/cache/snapshot.h"
#include "scheduler/framework/preemption/pod_group_preemption.h"
#include "scheduler/framework/runtime.h"
#include "scheduler/podgroup/manager.h"
#include "scheduler/podgroup/metrics.h"
#include "util/clock.h"

namespace ksched::scheduler {

// Who preempts, as events and DisruptionTarget conditions name it: `kind` "podgroup" or
// "compositepodgroup"; `uid` the object's (empty: the first member's PodGroup's or Workload's, as
// found by the manager).
struct GroupPreemptorName {
  std::string_view kind = "podgroup";
  std::string uid;
};

// Preemption for `preemptor` (its group key, members in the cycle's order, `scheduled` or `tree` set
// by the caller; its priority and policy are filled here from groups->preemptor_view), whose cycle was
// just rejected as Unschedulable; `snapshot` is up to date (the cycle's tentative members undone). On
// success the victims are evicted and `nominated` holds each member's node ("" = not placed); on a
// rejection `keep_nominations` says whether the members keep theirs (an earlier preemption's victims
// still going). Records upstream's workload-preemption metrics in `pm`.
framework::Status preempt_for_pod_group(framework::Framework& fwk, framework::preemption::GroupPreemptor& preemptor,
                                        const GroupPreemptorName& name, podgroup::Manager* groups,
                                        const cache::Snapshot& snapshot, std::vector<std::string>& nominated,
                                        bool& keep_nominations, podgroup::PodGroupMetrics* pm, util::Clock& clock);

}  // namespace ksched::scheduler
