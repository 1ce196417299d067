// The Job controller's share of workload-aware scheduling (KEP-5547, gate WorkloadWithJob, alpha
// and off), after upstream's pkg/controller/job/job_scheduling_manager.go: a Job the controller
// manages gets, before its first pod, a Workload (scheduling.k8s.io/v1beta1) with one pod group
// template and a PodGroup (v1beta1) made from that template; its pods then carry
// spec.schedulingGroup.podGroupName. Both objects are owned by the Job (controller ownerRef), the
// PodGroup also by the Workload, so the garbage collector removes them with the Job.
//
// Which Jobs, and the template:
// - A Job with spec.scheduling (v1.37, JobSchedulingConfiguration) is managed unless its pod
//   template names a group of its own (spec.template.spec.schedulingGroup) or it has a controller
//   owner (a parent such as a CronJob or JobSet owns the workload), as upstream's
//   shouldManageWorkloadForJob. The template takes the field's schedulingPolicy (none: basic; gang
//   without minCount: minCount = parallelism), schedulingConstraints, disruptionMode and
//   resourceClaims; the PodGroup copies all four from the template.
// - A Job without it is managed only when gang-shaped (Indexed, parallelism > 1, completions ==
//   parallelism, no schedulingGroup in its template), with a gang of minCount = parallelism: v1.36's
//   isGangSchedulingEligible and buildPodGroupTemplates.
//
// Where ksched differs: upstream's newest controller (kubernetes/kubernetes commit 06aef7c6,
// v1.37 development) writes both objects at scheduling.k8s.io/v1alpha3, whose Workload and
// PodGroup have v1beta1's shape; ksched's server serves them at v1beta1, so they are written there.
// Not done from that controller: a Job without spec.scheduling is not given a basic Workload
// ("universal representation": every Job managed); a Job owned by a parent that delegates its
// PodGroup (upstream's GroupTemplateNameAnnotation) gets none; the managed-by annotation
// is not set; a changed gang minCount is not carried to existing objects (syncGangMinCount); the
// Workload and PodGroup are found by their computed names (v1.36), not by listing those that
// reference the Job; the template keeps v1.36's name "<job>-worker-0" (newest: "<job>-pgt-0").
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "api/scheduling.h"
#include "client/rest.h"
#include "controllers/events.h"
#include "controllers/types.h"

namespace ksched::controllers {

// v1.36's isGangSchedulingEligible, over a defaulted Job.
bool gang_scheduling_eligible(const Job& job);
// Whether the controller makes a Workload and PodGroup for the Job (see the header comment).
bool manages_workload(const Job& job);

// computeWorkloadName: "<job name, cut to fit>-<hash of the Job's UID>", at most 253 characters.
std::string workload_name_for_job(const Job& job);
// computePodGroupName: "<workload>-<template>-<hash of both>", the two names cut to share 253.
std::string pod_group_name_for(std::string_view workload_name, std::string_view template_name);
// The single pod group template of a Job's Workload: "<job>-worker-0".
std::string pod_group_template_name(const Job& job);

// The objects the controller creates (before the server fills uid, resourceVersion, ...).
api::schedulingv1beta1::Workload workload_for_job(const Job& job);
// The PodGroup made from the Workload's first template.
api::schedulingv1beta1::PodGroup pod_group_for(const Job& job, const api::schedulingv1beta1::Workload& workload);

// ensureWorkloadAndPodGroup: the name of the PodGroup the Job's new pods join, or nullopt when
// they join none (not managed; pods exist already and no PodGroup was made for them; the
// Workload has not exactly one template, which `job_ref` is told with an
// UnsupportedWorkloadStructure event). Creates the Workload, then the PodGroup, only while
// the Job has no pods (`has_pods` false); an object that exists already (found by its name, or
// AlreadyExists on create) is used as it is. An API error is returned: the sync is retried.
client::Result<std::optional<std::string>> ensure_workload_and_pod_group(client::RestClient& client, const Job& job,
                                                                         bool has_pods, Recorder& recorder,
                                                                         const api::ObjectReference& job_ref);

}  // namespace ksched::controllers
