// Cluster events the queue itself produces or derives (upstream framework/events.go).
#pragma once
#include <string>
#include <vector>

#include "api/core.h"
#include "scheduler/framework/types.h"

namespace ksched::scheduler::queue {

// Event labels used for scheduler_queue_incoming_pods_total{event} besides cluster-event labels.
inline constexpr const char* kPodAdd = "PodAdd";
inline constexpr const char* kPodUpdate = "PodUpdate";
inline constexpr const char* kScheduleAttemptFailure = "ScheduleAttemptFailure";
inline constexpr const char* kBackoffComplete = "BackoffComplete";
inline constexpr const char* kForceActivate = "ForceActivate";
inline constexpr const char* kUnschedulableTimeout = "UnschedulableTimeout";
inline constexpr const char* kPopFromBackoffQ = "PopFromBackoffQ";

framework::ClusterEvent make_event(framework::EventResource r, std::uint32_t action, std::string label);

// Wildcard events: every pod with rejectors is worth retrying.
framework::ClusterEvent event_unschedulable_timeout();
framework::ClusterEvent event_force_activate();

framework::ClusterEvent event_assigned_pod_add();
framework::ClusterEvent event_assigned_pod_delete();

// Events describing a pod update (labels, scale-down, gates removed, tolerations added), or one
// generic update event when none of those changed. Resource is AssignedPod when new has a node.
std::vector<framework::ClusterEvent> pod_scheduling_property_change(const api::Pod& new_pod, const api::Pod& old_pod);

}  // namespace ksched::scheduler::queue
