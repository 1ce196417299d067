// The Job controller's share of workload-aware scheduling (KEP-5547, gate WorkloadWithJob, alpha
// in v1.36 and off), as upstream v1.36's pkg/controller/job/job_scheduling_manager.go: a Job whose
// pods must all run at once (Indexed, parallelism > 1, completions == parallelism, no
// schedulingGroup of its own in the pod template) gets, before its first pod, a Workload with one
// gang pod group of minCount = parallelism and a PodGroup made from it; its pods then carry
// spec.schedulingGroup.podGroupName. Both objects are owned by the Job (controller ownerRef), the
// PodGroup also by the Workload, so the garbage collector removes them with the Job.
//
// Where ksched differs: upstream v1.36 writes both at scheduling.k8s.io/v1alpha2 (v1.37:
// v1beta1); ksched's server serves the Workload at v1alpha1 only (no version conversion) and the
// PodGroup at v1beta1. So the Workload is v1alpha1's shape (spec.podGroups[0] = the template:
// name "<job>-worker-0", policy gang.minCount) and the PodGroup v1beta1's (spec.workloadRef
// {workloadName, templateName}, schedulingPolicy copied from the Workload's group).
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "api/scheduling.h"
#include "client/rest.h"
#include "controllers/events.h"
#include "controllers/types.h"

namespace ksched::controllers {

// isGangSchedulingEligible, over a defaulted Job.
bool gang_scheduling_eligible(const Job& job);

// computeWorkloadName: "<job name, cut to fit>-<hash of the Job's UID>", at most 253 characters.
std::string workload_name_for_job(const Job& job);
// computePodGroupName: "<workload>-<template>-<hash of both>", the two names cut to share 253.
std::string pod_group_name_for(std::string_view workload_name, std::string_view template_name);
// The single pod group (template) of a Job's Workload: "<job>-worker-0".
std::string pod_group_template_name(const Job& job);

// The objects the controller creates (before the server fills uid, resourceVersion, ...).
api::schedulingv1alpha1::Workload workload_for_job(const Job& job);
api::schedulingv1beta1::PodGroup pod_group_for(const Job& job, const api::schedulingv1alpha1::Workload& workload);

// ensureWorkloadAndPodGroup: the name of the PodGroup the Job's new pods join, or nullopt when
// they join none (not eligible; pods exist already and no PodGroup was made for them; the
// Workload has not exactly one pod group, which `job_ref` is told with an
// UnsupportedWorkloadStructure event). Creates the Workload, then the PodGroup, only while
// the Job has no pods (`has_pods` false); an object that exists already (found by its name, or
// AlreadyExists on create) is used as it is. An API error is returned: the sync is retried.
client::Result<std::optional<std::string>> ensure_workload_and_pod_group(client::RestClient& client, const Job& job,
                                                                         bool has_pods, Recorder& recorder,
                                                                         const api::ObjectReference& job_ref);

}  // namespace ksched::controllers
