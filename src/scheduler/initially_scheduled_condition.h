// The InitiallyScheduled condition the pod-group cycles write on a PodGroup and on a
// CompositePodGroup (schedule_pod_group.cpp, schedule_composite_pod_group.cpp): one rule for both.
#pragma once
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/scheduling.h"
#include "scheduler/framework/status.h"

namespace ksched::scheduler {

// The condition `type` to write for a cycle's `outcome` (success: True "Scheduled", upstream's
// literal; else False with SchedulerError or Unschedulable and the outcome's message), or nothing
// when `current` already has it True (terminal, upstream's API comment) or unchanged. The
// transition time is kept while the status stays, else `now` in whole seconds (metav1.Time).
inline std::optional<api::Condition> initially_scheduled_condition(std::string_view type,
                                                                   const framework::Status& outcome,
                                                                   const std::vector<api::Condition>& current,
                                                                   std::chrono::system_clock::time_point now) {
  namespace sb1 = api::schedulingv1beta1;
  api::Condition c;
  c.type = std::string(type);
  if (outcome.is_success()) {
    c.status = "True";
    c.reason = "Scheduled";
  } else {
    c.status = "False";
    c.reason = std::string(outcome.is_error() ? sb1::kReasonSchedulerError : sb1::kReasonUnschedulable);
    c.message = outcome.message();
  }
  const api::Condition* old = nullptr;
  for (const auto& oc : current)
    if (oc.type == c.type) old = &oc;
  if (old && (old->status == "True" || (old->status == c.status && old->reason == c.reason && old->message == c.message)))
    return std::nullopt;
  if (old && old->status == c.status) {
    c.lastTransitionTime = old->lastTransitionTime;
  } else {
    c.lastTransitionTime = api::Time{
        std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count() / 1'000'000'000 *
        1'000'000'000};
  }
  return c;
}

}  // namespace ksched::scheduler
