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
// Lookups come from the controller manager's informers, through indexes (informers.h): a
// Workload by its spec.controllerRef (upstream's workloadByJobName; the same index finds a
// delegated Job's parent Workload, which upstream finds by listing the namespace from its
// lister) and a PodGroup by the Workload its spec.workloadRef names (podGroupByWorkloadName). No
// list reaches the server. Names are deterministic (the Workload's from the Job's UID, the
// PodGroup's from the Workload and template), so a cache that lags cannot make a second object:
// the create fails with AlreadyExists. Upstream then requeues the Job and finds the object on a
// later sync; ksched also remembers what it created until its informer shows it
// (SchedulingObjects, as the pod expectations do), so the next sync uses the object at once.
// A Workload or PodGroup event requeues the Job named by its ownerReferences (enqueueJobFromOwnerRef
// of upstream's first form of this file, kubernetes/kubernetes@2f913129; its later forms, v1.36's
// and PR #140188's (fork snapshots wojtek-t/kubernetes@8f3f103a, liggitt/kubernetes@f3a2b7ea),
// register the indexes only), and a Workload event requeues the Jobs its controllerRef's parent
// delegated a PodGroup to: a new delegated Job whose parent's Workload (or template) is not there
// yet makes no pods and waits for that event, so that its pods join the group.
//
// Where ksched differs: upstream writes scheduling.k8s.io/v1alpha3, whose Workload and PodGroup
// have v1beta1's shape; ksched's server serves them at v1beta1, so they are written there.
// Upstream's closed PRs #140303 (a managed-by annotation on created objects) and #140305
// (CronJob-owned Jobs as roots) are not followed, as upstream did not merge them.
#pragma once
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/scheduling.h"
#include "client/rest.h"
#include "controllers/events.h"
#include "controllers/types.h"
#include "informer/store.h"
#include "util/clock.h"

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

// Where ensure_workload_and_pod_group finds Workloads and PodGroups: the informers' indexers
// (informers.h: kWorkloadByControllerRefIndex, kPodGroupByWorkloadIndex) and the objects the
// controller created that they do not show yet. A created object is remembered until its
// informer reports it (observed / gone) or for five minutes (Expectations::kTimeout), so an
// event that never comes cannot leave a ghost. Thread-safe.
class SchedulingObjects {
 public:
  using Workload = api::schedulingv1beta1::Workload;
  using PodGroup = api::schedulingv1beta1::PodGroup;
  static constexpr std::chrono::minutes kCreatedTimeout{5};

  SchedulingObjects(const informer::Indexer<Workload>& workloads, const informer::Indexer<PodGroup>& pod_groups,
                    const util::Clock& clock = util::RealClock::instance())
      : workloads_(workloads), pod_groups_(pod_groups), clock_(clock) {}

  // The Workloads of namespace `ns` whose spec.controllerRef is (api_group, kind, name).
  std::vector<informer::Ptr<Workload>> workloads_referencing(std::string_view api_group, std::string_view kind,
                                                             std::string_view ns, std::string_view name) const;
  // The PodGroups of namespace `ns` whose spec.workloadRef names `workload_name`.
  std::vector<informer::Ptr<PodGroup>> pod_groups_of(std::string_view ns, std::string_view workload_name) const;

  // The server returned this object from a create.
  void created(informer::Ptr<Workload> w);
  void created(informer::Ptr<PodGroup> p);
  // The informer delivered an event for the object of this key ("ns/name"): from now on its cache
  // answers for it.
  void workload_observed(const std::string& key);
  void pod_group_observed(const std::string& key);
  // Objects created and not yet observed (tests).
  std::size_t pending() const;

 private:
  template <class T>
  struct Created {
    informer::Ptr<T> obj;
    util::Clock::time_point at;
  };
  template <class T, class Match>
  void append_created(std::vector<informer::Ptr<T>>& out, const std::map<std::string, Created<T>>& created,
                      Match match) const;

  const informer::Indexer<Workload>& workloads_;
  const informer::Indexer<PodGroup>& pod_groups_;
  const util::Clock& clock_;
  mutable std::mutex mu_;
  std::map<std::string, Created<Workload>> created_workloads_;
  std::map<std::string, Created<PodGroup>> created_pod_groups_;
};

// What ensure_workload_and_pod_group decided for the pods about to be made.
struct JobPodGroup {
  // The PodGroup they join; nullopt: none (not managed; not new and nothing found; ambiguous
  // objects).
  std::optional<std::string> name;
  // A new delegated Job whose parent's Workload, or the template it names, is not there yet:
  // make no pods now (the Workload's event requeues the Job).
  bool wait_for_parent = false;
};

// ensureWorkloadAndPodGroup: creates objects only when `new_job` (is_new_job). A controlled
// Workload without exactly one template, and any API error (AlreadyExists included: an object of
// the computed name that the Job does not control), is returned as an error: the sync is
// retried. Reads `objects` only; writes go through `client`.
client::Result<JobPodGroup> ensure_workload_and_pod_group(client::RestClient& client, SchedulingObjects& objects,
                                                          const Job& job, bool new_job, Recorder& recorder,
                                                          const api::ObjectReference& job_ref);

}  // namespace ksched::controllers
