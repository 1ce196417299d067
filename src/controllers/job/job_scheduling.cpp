#include "controllers/job/job_scheduling.h"

#include <algorithm>

#include "api/codec.h"
#include "controllers/controller_utils.h"
#include "controllers/hash.h"
#include "controllers/informers.h"
#include "util/log.h"

namespace ksched::controllers {

namespace wl = api::schedulingv1beta1;
namespace pg = api::schedulingv1beta1;

namespace {

constexpr std::size_t kDNS1123SubdomainMaxLength = 253;
constexpr std::string_view kJobApiVersion = "batch/v1";
constexpr std::string_view kJobKind = "Job";
constexpr std::string_view kWorkloadApiVersion = "scheduling.k8s.io/v1beta1";
// The v1beta1 resources: the typed client helpers map only v1alpha1's Workload (the scheduler's
// client headers list what it watches), so the controller names them here.
constexpr client::ResourceInfo kWorkloadResource{"scheduling.k8s.io", "v1beta1", "workloads", "Workload", true};
constexpr client::ResourceInfo kPodGroupResource{"scheduling.k8s.io", "v1beta1", "podgroups", "PodGroup", true};

std::string hash_digits(Fnv32a& h) { return safe_encode_string(std::to_string(h.sum())); }

template <class T>
client::Result<T> decoded(client::Result<std::string> body) {
  if (!body) return body.error();
  auto v = api::decode<T>(*body);
  if (!v) {
    client::ApiError e;
    e.message = "unable to decode response: " + v.error();
    e.reason = "DecodeError";
    return e;
  }
  return std::move(*v);
}

template <class T>
client::Result<std::optional<T>> get_named(client::RestClient& c, const client::ResourceInfo& resource,
                                           std::string_view ns, std::string_view name) {
  auto r = decoded<T>(c.get(client::ResourceRef::of(resource, ns, name)));
  if (r) return std::optional<T>(std::move(*r));
  if (client::is_not_found(r.error())) return std::optional<T>();
  return r.error();
}

bool controlled_by_job(const api::ObjectMeta& meta, const Job& job) {
  const api::OwnerReference* owner = controller_of(meta);
  return owner != nullptr && owner->uid == job.metadata.uid;
}

client::ApiError error_of(std::string message) {
  client::ApiError e;
  e.message = std::move(message);
  return e;
}

using WorkloadPtr = informer::Ptr<wl::Workload>;
using PodGroupPtr = informer::Ptr<pg::PodGroup>;

// listWorkloadsForJob (the index: spec.controllerRef names the Job) filtered to those the Job
// controls (filterControlledByJob: a controller ownerRef with its UID; the reference holds a name
// only).
std::vector<WorkloadPtr> workloads_controlled_by(const SchedulingObjects& objects, const Job& job) {
  auto out = objects.workloads_referencing("batch", kJobKind, job.metadata.namespace_, job.metadata.name);
  std::erase_if(out, [&](const WorkloadPtr& w) { return !controlled_by_job(w->metadata, job); });
  return out;
}

// listPodGroupsForWorkload filtered to those the Job controls.
std::vector<PodGroupPtr> pod_groups_controlled_by(const SchedulingObjects& objects, const Job& job,
                                                  std::string_view workload_name) {
  auto out = objects.pod_groups_of(job.metadata.namespace_, workload_name);
  std::erase_if(out, [&](const PodGroupPtr& p) { return !controlled_by_job(p->metadata, job); });
  return out;
}

const wl::PodGroupTemplate* template_named(const wl::Workload& w, std::string_view name) {
  if (w.spec.podGroupTemplates.empty()) return nullptr;
  if (name.empty()) return &w.spec.podGroupTemplates[0];
  for (const auto& t : w.spec.podGroupTemplates)
    if (t.name == name) return &t;
  return nullptr;
}

// getOrCreateWorkload: the one Workload the Job controls, created when there is none and the Job
// is new; nullopt for none (not new) or several (ambiguous: normal scheduling).
client::Result<WorkloadPtr> get_or_create_workload(client::RestClient& c, SchedulingObjects& objects, const Job& job,
                                                   bool new_job, Recorder& recorder,
                                                   const api::ObjectReference& job_ref) {
  auto matched = workloads_controlled_by(objects, job);
  if (matched.size() > 1) {
    log::error("Found several Workloads referencing the Job, falling back to default scheduling",
               {{"job", std::string(job.metadata.namespace_) + "/" + std::string(job.metadata.name)},
                {"count", std::to_string(matched.size())}});
    return WorkloadPtr();
  }
  if (matched.size() == 1) {
    // validateWorkloadStructure: an error, so that the Job is retried and the problem shows.
    const auto& w = *matched.front();
    if (w.spec.podGroupTemplates.size() != 1)
      return error_of("workload " + std::string(w.metadata.namespace_) + "/" + std::string(w.metadata.name) +
                      " for job " + std::string(job.metadata.namespace_) + "/" + std::string(job.metadata.name) +
                      " has " + std::to_string(w.spec.podGroupTemplates.size()) +
                      " PodGroupTemplates, want exactly 1");
    return std::move(matched.front());
  }
  if (!new_job) return WorkloadPtr();
  auto created = decoded<wl::Workload>(
      c.create(client::ResourceRef::of(kWorkloadResource, job.metadata.namespace_), api::encode(workload_for_job(job))));
  if (!created) {
    recorder.eventf(job_ref, events::kWarning, "FailedWorkloadCreate", "Failed to create Workload for Job {}: {}",
                    job.metadata.name, created.error().message);
    return created.error();
  }
  recorder.eventf(job_ref, events::kNormal, "WorkloadCreated", "Created Workload {} for Job {}",
                  created->metadata.name, job.metadata.name);
  auto w = std::make_shared<const wl::Workload>(std::move(*created));
  objects.created(w);
  return WorkloadPtr(std::move(w));
}

// createPodGroup, with its event; the object is remembered in `objects` until its informer shows
// it.
client::Result<PodGroupPtr> create_pod_group(client::RestClient& c, SchedulingObjects& objects, const Job& job,
                                             const wl::Workload& workload, std::string_view template_name,
                                             bool link_workload_owner, Recorder& recorder,
                                             const api::ObjectReference& job_ref) {
  auto group = pod_group_for(job, workload, template_name, link_workload_owner);
  if (!group)
    return error_of("PodGroupTemplate \"" + std::string(template_name) + "\" not found in workload " +
                    std::string(workload.metadata.namespace_) + "/" + std::string(workload.metadata.name));
  auto created = decoded<pg::PodGroup>(
      c.create(client::ResourceRef::of(kPodGroupResource, job.metadata.namespace_), api::encode(*group)));
  if (!created) return created.error();
  recorder.eventf(job_ref, events::kNormal, "PodGroupCreated", "Created PodGroup {} for Job {}",
                  created->metadata.name, job.metadata.name);
  auto p = std::make_shared<const pg::PodGroup>(std::move(*created));
  objects.created(p);
  return PodGroupPtr(std::move(p));
}

// getOrCreatePodGroup: the one PodGroup of the Workload the Job controls, created when there is
// none and the Job is new; nullopt otherwise (not new, or ambiguous).
client::Result<PodGroupPtr> get_or_create_pod_group(client::RestClient& c, SchedulingObjects& objects, const Job& job,
                                                    const wl::Workload& workload, bool new_job, Recorder& recorder,
                                                    const api::ObjectReference& job_ref) {
  auto matched = pod_groups_controlled_by(objects, job, workload.metadata.name);
  if (matched.size() > 1) {
    log::error("Found several PodGroups referencing the Workload, falling back to default scheduling",
               {{"workload", std::string(workload.metadata.namespace_) + "/" + std::string(workload.metadata.name)},
                {"count", std::to_string(matched.size())}});
    return PodGroupPtr();
  }
  if (matched.size() == 1) return std::move(matched.front());
  if (!new_job) return PodGroupPtr();
  return create_pod_group(c, objects, job, workload, {}, true, recorder, job_ref);
}

// Sets a gang's minCount on the named object (Get, change, Update; again on a conflict, five
// attempts as retry.RetryOnConflict's DefaultRetry). `min_count_of` finds the gang's minCount in
// the object, null when its policy is not a gang (then nothing is written).
template <class T, class MinCountOf>
client::Result<bool> update_min_count(client::RestClient& c, const client::ResourceInfo& resource, std::string_view ns,
                                      std::string_view name, std::int32_t want, MinCountOf min_count_of) {
  for (int attempt = 0;; ++attempt) {
    auto current = get_named<T>(c, resource, ns, name);
    if (!current) return current.error();
    if (!*current) return false;
    std::int32_t* min_count = min_count_of(**current);
    if (min_count == nullptr || *min_count == want) return false;
    *min_count = want;
    auto written = c.update(client::ResourceRef::of(resource, ns, name), api::encode(**current));
    if (written) return true;
    if (!client::is_conflict(written.error()) || attempt == 4) return written.error();
  }
}

// syncGangMinCount (elastic scaling): a gang Job whose minCount changed passes it on to the
// Workload's template and the PodGroup this controller made for it (controller ownerRef to the
// Job); only minCount, which is all the API lets change.
client::Result<void> sync_gang_min_count(client::RestClient& c, const Job& job, const wl::Workload& workload,
                                         const pg::PodGroup* group) {
  if (!controlled_by_job(workload.metadata, job)) return {};
  const wl::Workload desired = workload_for_job(job);
  const auto& gang = desired.spec.podGroupTemplates.at(0).schedulingPolicy.gang;
  if (!gang) return {};
  const std::string ns(job.metadata.namespace_);
  if (workload.spec.podGroupTemplates.size() == 1 && workload.spec.podGroupTemplates[0].schedulingPolicy.gang &&
      workload.spec.podGroupTemplates[0].schedulingPolicy.gang->minCount != gang->minCount) {
    auto r = update_min_count<wl::Workload>(
        c, kWorkloadResource, ns, std::string(workload.metadata.name), gang->minCount,
        [](wl::Workload& w) -> std::int32_t* {
          if (w.spec.podGroupTemplates.size() != 1 || !w.spec.podGroupTemplates[0].schedulingPolicy.gang) return nullptr;
          return &w.spec.podGroupTemplates[0].schedulingPolicy.gang->minCount;
        });
    if (!r) return r.error();
  }
  if (group != nullptr && controlled_by_job(group->metadata, job) && group->spec.schedulingPolicy.gang &&
      group->spec.schedulingPolicy.gang->minCount != gang->minCount) {
    auto r = update_min_count<pg::PodGroup>(c, kPodGroupResource, ns, std::string(group->metadata.name), gang->minCount,
                                            [](pg::PodGroup& p) -> std::int32_t* {
                                              if (!p.spec.schedulingPolicy.gang) return nullptr;
                                              return &p.spec.schedulingPolicy.gang->minCount;
                                            });
    if (!r) return r.error();
  }
  return {};
}

// findParentWorkload: the Workload whose spec.controllerRef names the Job's controller owner (the
// first, as upstream's walk of the namespace's Workloads takes the first it meets).
WorkloadPtr find_parent_workload(const SchedulingObjects& objects, const Job& job) {
  const api::OwnerReference* parent = controller_of(job.metadata);
  if (parent == nullptr) return nullptr;
  auto group = api_group_of(parent->apiVersion);
  if (!group) return nullptr;
  auto found = objects.workloads_referencing(*group, parent->kind, job.metadata.namespace_, parent->name);
  return found.empty() ? nullptr : std::move(found.front());
}

// getOrCreateDelegatedPodGroup: a child Job's PodGroup, from the template its parent named, in
// the parent's Workload; then syncDelegatedPodGroupMinCount (the parent's template is the source
// of the gang's size). While the parent's Workload or template is not there: a new Job waits for
// it, a started one goes on without a group.
client::Result<JobPodGroup> get_or_create_delegated_pod_group(client::RestClient& c, SchedulingObjects& objects,
                                                              const Job& job, bool new_job, Recorder& recorder,
                                                              const api::ObjectReference& job_ref) {
  JobPodGroup out;
  WorkloadPtr parent = find_parent_workload(objects, job);
  const std::string template_name(job.metadata.annotations.get(kGroupTemplateNameAnnotation));
  const wl::PodGroupTemplate* t = parent ? template_named(*parent, template_name) : nullptr;
  if (t == nullptr) {
    out.wait_for_parent = new_job;
    return out;
  }
  auto matched = pod_groups_controlled_by(objects, job, parent->metadata.name);
  PodGroupPtr group;
  if (!matched.empty()) {
    group = std::move(matched.front());
  } else if (new_job) {
    // The parent owns its Workload alone: the PodGroup does not name it as an owner.
    auto created = create_pod_group(c, objects, job, *parent, template_name, false, recorder, job_ref);
    if (!created) return created.error();
    group = std::move(*created);
  }
  if (group && t->schedulingPolicy.gang && group->spec.schedulingPolicy.gang &&
      group->spec.schedulingPolicy.gang->minCount != t->schedulingPolicy.gang->minCount) {
    auto r = update_min_count<pg::PodGroup>(c, kPodGroupResource, job.metadata.namespace_,
                                            std::string(group->metadata.name), t->schedulingPolicy.gang->minCount,
                                            [](pg::PodGroup& p) -> std::int32_t* {
                                              if (!p.spec.schedulingPolicy.gang) return nullptr;
                                              return &p.spec.schedulingPolicy.gang->minCount;
                                            });
    if (!r) return r.error();
  }
  if (group) out.name = std::string(group->metadata.name);
  return out;
}

}  // namespace

std::vector<informer::Ptr<wl::Workload>> SchedulingObjects::workloads_referencing(std::string_view api_group,
                                                                                  std::string_view kind,
                                                                                  std::string_view ns,
                                                                                  std::string_view name) const {
  auto out = workloads_.by_index(kWorkloadByControllerRefIndex, controller_ref_index_key(api_group, kind, ns, name));
  append_created(out, created_workloads_, [&](const wl::Workload& w) {
    const auto& ref = w.spec.controllerRef;
    return w.metadata.namespace_ == ns && ref && ref->apiGroup == api_group && ref->kind == kind && ref->name == name;
  });
  return out;
}

std::vector<informer::Ptr<pg::PodGroup>> SchedulingObjects::pod_groups_of(std::string_view ns,
                                                                          std::string_view workload_name) const {
  auto out = pod_groups_.by_index(kPodGroupByWorkloadIndex, workload_ref_index_key(ns, workload_name));
  append_created(out, created_pod_groups_, [&](const pg::PodGroup& p) {
    return p.metadata.namespace_ == ns && p.spec.workloadRef && p.spec.workloadRef->workloadName == workload_name;
  });
  return out;
}

template <class T, class Match>
void SchedulingObjects::append_created(std::vector<informer::Ptr<T>>& out,
                                       const std::map<std::string, Created<T>>& created, Match match) const {
  std::lock_guard l(mu_);
  if (created.empty()) return;
  const auto now = clock_.now();
  for (const auto& [key, entry] : created) {
    if (now - entry.at > kCreatedTimeout || !match(*entry.obj)) continue;
    // The cache may have caught up between the index read and here: one copy of each object.
    const bool listed = std::any_of(out.begin(), out.end(), [&](const informer::Ptr<T>& o) {
      return o->metadata.name == entry.obj->metadata.name;
    });
    if (!listed) out.push_back(entry.obj);
  }
}

void SchedulingObjects::created(informer::Ptr<Workload> w) {
  std::lock_guard l(mu_);
  auto key = informer::meta_namespace_key(*w);
  created_workloads_[std::move(key)] = Created<Workload>{std::move(w), clock_.now()};
}

void SchedulingObjects::created(informer::Ptr<PodGroup> p) {
  std::lock_guard l(mu_);
  auto key = informer::meta_namespace_key(*p);
  created_pod_groups_[std::move(key)] = Created<PodGroup>{std::move(p), clock_.now()};
}

void SchedulingObjects::workload_observed(const std::string& key) {
  std::lock_guard l(mu_);
  created_workloads_.erase(key);
}

void SchedulingObjects::pod_group_observed(const std::string& key) {
  std::lock_guard l(mu_);
  created_pod_groups_.erase(key);
}

std::size_t SchedulingObjects::pending() const {
  std::lock_guard l(mu_);
  return created_workloads_.size() + created_pod_groups_.size();
}

WorkloadManagement workload_management(const Job& job) {
  if (job.spec.template_.spec.schedulingGroup) return WorkloadManagement::kNone;
  if (controller_of(job.metadata) == nullptr) return WorkloadManagement::kBoth;
  if (job.metadata.annotations.contains(kGroupTemplateNameAnnotation)) return WorkloadManagement::kPodGroupOnly;
  return WorkloadManagement::kNone;
}

bool manages_workload(const Job& job) { return workload_management(job) != WorkloadManagement::kNone; }

bool is_new_job(const Job& job, bool has_pods) {
  // Each sign alone has gaps (pods may be collected, startTime is reset on suspension); the
  // terminal counters and the Suspended condition persist.
  if (has_pods || job.status.startTime || job.status.succeeded != 0 || job.status.failed != 0) return false;
  for (const auto& c : job.status.conditions)
    if (c.type == "Suspended") return false;
  return true;
}

std::string workload_name_for_job(const Job& job) {
  // Upstream hashes the go-spew dump of the UID (hashutil.DeepHashObject, "%#v"), which writes a
  // named string type as (types.UID)"<uid>".
  Fnv32a h;
  h.write("(types.UID)\"");
  h.write(job.metadata.uid);
  h.write("\"");
  const std::string hash = hash_digits(h);
  std::string prefix(job.metadata.name);
  const std::size_t max_prefix = kDNS1123SubdomainMaxLength - hash.size() - 1;
  if (prefix.size() > max_prefix) prefix.resize(max_prefix);
  return prefix + "-" + hash;
}

std::string pod_group_name_for(std::string_view workload_name, std::string_view template_name) {
  Fnv32a h;
  h.write(workload_name);
  h.write(template_name);
  const std::string hash = hash_digits(h);
  const std::size_t max_available = kDNS1123SubdomainMaxLength - hash.size() - 2;
  std::string_view w = workload_name, t = template_name;
  if (w.size() + t.size() > max_available) {
    // Each part keeps up to half; a short part leaves the rest to the other.
    const std::size_t half = max_available / 2;
    if (w.size() <= half) {
      t = t.substr(0, max_available - w.size());
    } else if (t.size() <= half) {
      w = w.substr(0, max_available - t.size());
    } else {
      w = w.substr(0, max_available - half);
      t = t.substr(0, half);
    }
  }
  std::string out;
  out.reserve(w.size() + t.size() + hash.size() + 2);
  out.append(w).append("-").append(t).append("-").append(hash);
  return out;
}

std::string pod_group_template_name(const Job& job) { return std::string(job.metadata.name) + "-pgt-0"; }

wl::Workload workload_for_job(const Job& job) {
  wl::Workload w;
  w.apiVersion = kWorkloadApiVersion;
  w.kind = "Workload";
  w.metadata.name = workload_name_for_job(job);
  w.metadata.namespace_ = job.metadata.namespace_;
  w.metadata.ownerReferences = std::vector<api::OwnerReference>{new_controller_ref(job.metadata, kJobApiVersion, kJobKind)};
  wl::TypedLocalObjectReference ref;
  ref.apiGroup = "batch";
  ref.kind = std::string(kJobKind);
  ref.name = std::string(job.metadata.name);
  w.spec.controllerRef = std::move(ref);
  wl::PodGroupTemplate t;
  t.name = pod_group_template_name(job);
  t.priorityClassName = job.spec.template_.spec.priorityClassName;
  const auto& s = job.spec.scheduling;
  // No spec.scheduling or no policy: basic (the controller's default); a gang without minCount:
  // parallelism, at least 1 (a suspended Job's is 0), as defaultMinCountForJob.
  if (s && s->schedulingPolicy && s->schedulingPolicy->gang)
    t.schedulingPolicy.gang.emplace().minCount =
        s->schedulingPolicy->gang->minCount.value_or(std::max<std::int32_t>(1, job.spec.parallelism.value_or(1)));
  else
    t.schedulingPolicy.basic.emplace();
  if (s && s->schedulingConstraints) {
    auto& c = t.schedulingConstraints.emplace();
    for (const auto& topology : s->schedulingConstraints->topology) c.topology.emplace_back().key = topology.key;
  }
  if (s && s->disruptionMode) {
    auto& d = t.disruptionMode.emplace();
    if (s->disruptionMode->single) d.single.emplace();
    if (s->disruptionMode->all) d.all.emplace();
  }
  // DRAWorkloadResourceClaims: the API server drops them unless the gate is on.
  if (s)
    for (const auto& claim : s->resourceClaims) {
      wl::PodGroupResourceClaim& c = t.resourceClaims.emplace_back();
      c.name = claim.name;
      c.resourceClaimName = claim.resourceClaimName;
      c.resourceClaimTemplateName = claim.resourceClaimTemplateName;
    }
  w.spec.podGroupTemplates.push_back(std::move(t));
  return w;
}

std::optional<pg::PodGroup> pod_group_for(const Job& job, const wl::Workload& workload, std::string_view template_name,
                                          bool link_workload_owner) {
  const wl::PodGroupTemplate* t = template_named(workload, template_name);
  if (t == nullptr) return std::nullopt;
  pg::PodGroup p;
  p.apiVersion = kWorkloadApiVersion;
  p.kind = "PodGroup";
  p.metadata.name = pod_group_name_for(std::string(workload.metadata.name), t->name);
  p.metadata.namespace_ = job.metadata.namespace_;
  std::vector<api::OwnerReference> owners{new_controller_ref(job.metadata, kJobApiVersion, kJobKind)};
  if (link_workload_owner) {
    // Not blocking: the Workload's deletion never waits for its PodGroups.
    api::OwnerReference by_workload;
    by_workload.apiVersion = std::string(kWorkloadApiVersion);
    by_workload.kind = "Workload";
    by_workload.name = std::string(workload.metadata.name);
    by_workload.uid = std::string(workload.metadata.uid);
    owners.push_back(std::move(by_workload));
  }
  p.metadata.ownerReferences = std::move(owners);
  pg::WorkloadReference ref;
  ref.workloadName = std::string(workload.metadata.name);
  ref.templateName = t->name;
  p.spec.workloadRef = std::move(ref);
  // podGroupSpecFromTemplate: the policy, constraints, disruption mode, priority class and
  // claims, as they are.
  p.spec.schedulingPolicy = t->schedulingPolicy;
  p.spec.schedulingConstraints = t->schedulingConstraints;
  p.spec.disruptionMode = t->disruptionMode;
  p.spec.priorityClassName = t->priorityClassName;
  p.spec.resourceClaims = t->resourceClaims;
  return p;
}

client::Result<JobPodGroup> ensure_workload_and_pod_group(client::RestClient& client, SchedulingObjects& objects,
                                                          const Job& job, bool new_job, Recorder& recorder,
                                                          const api::ObjectReference& job_ref) {
  const WorkloadManagement mode = workload_management(job);
  if (mode == WorkloadManagement::kNone) return JobPodGroup{};
  if (mode == WorkloadManagement::kPodGroupOnly)
    return get_or_create_delegated_pod_group(client, objects, job, new_job, recorder, job_ref);
  auto workload = get_or_create_workload(client, objects, job, new_job, recorder, job_ref);
  if (!workload) return workload.error();
  if (!*workload) return JobPodGroup{};
  auto group = get_or_create_pod_group(client, objects, job, **workload, new_job, recorder, job_ref);
  if (!group) return group.error();
  // Whatever the pods' state, so that a running gang can be resized.
  if (auto synced = sync_gang_min_count(client, job, **workload, group->get()); !synced) return synced.error();
  JobPodGroup out;
  if (*group) out.name = std::string((*group)->metadata.name);
  return out;
}

}  // namespace ksched::controllers
