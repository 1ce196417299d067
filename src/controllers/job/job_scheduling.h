// The Job controller's share of workload-aware scheduling (KEP-5547, gate WorkloadWithJob, alpha
// and off). Follows upstream's pkg/controller/job/job_scheduling_manager.go as merged by
// kubernetes/kubernetes PR #140188 (July 2026, v1.37 development: getManagementMode, delegated
// PodGroups, isNewJob, discovery by reference), and its job_scheduling_manager_test.go.
//
// Which Jobs (getManagementMode), with the gate on:
// - A Job whose pod template names a group of its own (spec.template.spec.schedulingGroup: the
//   user brought the PodGroup) gets nothing.
// - A Job with no controller owner is a root: it gets a Workload (scheduling.k8s.io/v1beta1) with
//   one pod group template "<job>-pgt-0" and a PodGroup made from it. Every such Job, not only
//   gang-shaped ones ("universal representation"): without spec.scheduling the template is basic.
// - A Job with a controller owner (JobSet, CronJob, anything) is a child: its parent owns the
//   Workload. If the Job carries scheduling.k8s.io/group-template-name (the parent delegated the
//   PodGroup), the controller makes only the PodGroup, from that template of the Workload whose
//   spec.controllerRef names the parent; otherwise nothing.
// The template takes spec.scheduling's schedulingPolicy (none: basic; gang without minCount:
// parallelism, at least 1), schedulingConstraints, disruptionMode and resourceClaims, and the pod
// template's priorityClassName; the PodGroup copies them from the template.
//
// Objects are created only for a Job that never started (isNewJob: no pods, no startTime, no
// succeeded or failed pods, never suspended); a started Job reuses what it finds. Only objects
// controlled by the Job (controller ownerRef with its UID) are used: a user's Workload or PodGroup
// that merely references the Job is ignored, and two of them are ambiguous (normal scheduling).
// A root Job's PodGroup is owned by the Job (controller) and the Workload; a delegated one by the
// Job alone. A changed gang minCount is passed on (root: from spec.scheduling to the Workload and
// PodGroup; delegated: from the parent's template to the PodGroup).
//
// Where ksched differs: upstream writes scheduling.k8s.io/v1alpha3, whose Workload and PodGroup
// have v1beta1's shape; ksched's server serves them at v1beta1, so they are written there.
// Upstream finds them in informer indexes; ksched lists the namespace's Workloads (and PodGroups)
// from the server each time the controller is about to create pods. Upstream's closed PRs
// #140303 (a managed-by annotation on created objects) and #140305 (CronJob-owned Jobs as roots)
// are not followed, as upstream did not merge them.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "api/scheduling.h"
#include "client/rest.h"
#include "controllers/events.h"
#include "controllers/types.h"

namespace ksched::controllers {

// The annotation by which a parent controller names the template of its Workload that a child
// Job's PodGroup is made from (KEP-6089's GroupTemplateNameAnnotation).
inline constexpr std::string_view kGroupTemplateNameAnnotation = "scheduling.k8s.io/group-template-name";

// getManagementMode, for a Job seen with the gate on.
enum class WorkloadManagement {
  kNone,          // user's own PodGroup, or a parent that delegates nothing
  kBoth,          // root Job: Workload and PodGroup
  kPodGroupOnly,  // child Job whose parent delegated the PodGroup
};
WorkloadManagement workload_management(const Job& job);
// shouldManageWorkloadForJob.
bool manages_workload(const Job& job);
// isNewJob, over the Job as stored (before this sync sets startTime) and whether it has pods.
bool is_new_job(const Job& job, bool has_pods);

// computeWorkloadName: "<job name, cut to fit>-<hash of the Job's UID>", at most 253 characters.
std::string workload_name_for_job(const Job& job);
// computePodGroupName: "<workload>-<template>-<hash of both>", the two names cut to share 253.
std::string pod_group_name_for(std::string_view workload_name, std::string_view template_name);
// podGroupTemplateName: the single template of a Job's Workload, "<job>-pgt-0".
std::string pod_group_template_name(const Job& job);

// generateWorkload: the Workload the controller creates for a root Job (before the server fills
// uid, resourceVersion, ...).
api::schedulingv1beta1::Workload workload_for_job(const Job& job);
// createPodGroup's object: the PodGroup made from `workload`'s template `template_name` (empty:
// the first), owned by the Job and, when `link_workload_owner`, by the Workload. Nullopt when the
// Workload has no such template.
std::optional<api::schedulingv1beta1::PodGroup> pod_group_for(const Job& job,
                                                               const api::schedulingv1beta1::Workload& workload,
                                                               std::string_view template_name = {},
                                                               bool link_workload_owner = true);

// ensureWorkloadAndPodGroup: the name of the PodGroup the Job's new pods join, or nullopt when
// they join none (not managed; not new and nothing found; ambiguous objects; a delegated Job's
// parent Workload or template not there yet). Creates objects only when `new_job` (is_new_job).
// A controlled Workload without exactly one template, and any API error (AlreadyExists
// included: the next sync finds the object), is returned as an error: the sync is retried.
client::Result<std::optional<std::string>> ensure_workload_and_pod_group(client::RestClient& client, const Job& job,
                                                                         bool new_job, Recorder& recorder,
                                                                         const api::ObjectReference& job_ref);

}  // namespace ksched::controllers
