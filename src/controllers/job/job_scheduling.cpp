#include "controllers/job/job_scheduling.h"

#include <algorithm>

#include "api/codec.h"
#include "controllers/controller_utils.h"
#include "controllers/hash.h"

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

client::Result<std::optional<wl::Workload>> get_workload(client::RestClient& c, std::string_view ns,
                                                         std::string_view name) {
  return get_named<wl::Workload>(c, kWorkloadResource, ns, name);
}

client::Result<std::optional<pg::PodGroup>> get_pod_group(client::RestClient& c, std::string_view ns,
                                                          std::string_view name) {
  return get_named<pg::PodGroup>(c, kPodGroupResource, ns, name);
}

// The JSON of a Job's resourceClaims, as the Workload template's and the PodGroup's
// resourceClaims (the same members: name, resourceClaimName, resourceClaimTemplateName).
std::string resource_claims_json(const std::vector<WorkloadPodGroupResourceClaim>& claims) {
  std::string out = "[";
  for (const auto& claim : claims) {
    if (out.size() > 1) out += ',';
    api::encode_to(out, claim);
  }
  out += ']';
  return out;
}

// The value of a member kept in `extra`, or empty.
std::string_view extra_member(const api::Extra& extra, std::string_view key) {
  for (auto [k, raw] : extra.fields)
    if (k == key) return raw;
  return {};
}

// discoverWorkloadForJob, then createWorkloadForJob when there are no pods yet; AlreadyExists
// (another actor made it) is looked up again.
client::Result<std::optional<wl::Workload>> ensure_workload(client::RestClient& c, const Job& job, bool has_pods,
                                                            Recorder& recorder, const api::ObjectReference& job_ref) {
  const std::string ns(job.metadata.namespace_);
  const std::string name = workload_name_for_job(job);
  auto found = get_workload(c, ns, name);
  if (!found || *found || has_pods) return found;
  auto created = decoded<wl::Workload>(
      c.create(client::ResourceRef::of(kWorkloadResource, ns), api::encode(workload_for_job(job))));
  if (created) {
    recorder.eventf(job_ref, events::kNormal, "WorkloadCreated", "Created Workload {} for Job {}",
                    created->metadata.name, job.metadata.name);
    return std::optional<wl::Workload>(std::move(*created));
  }
  if (!client::is_already_exists(created.error())) return created.error();
  auto again = get_workload(c, ns, name);
  if (again && !*again) {
    client::ApiError e;
    e.message = "Workload for Job " + ns + "/" + std::string(job.metadata.name) + " not found after AlreadyExists";
    return e;
  }
  return again;
}

client::Result<std::optional<pg::PodGroup>> ensure_pod_group(client::RestClient& c, const Job& job,
                                                             const wl::Workload& workload, bool has_pods,
                                                             Recorder& recorder, const api::ObjectReference& job_ref) {
  const std::string ns(job.metadata.namespace_);
  const std::string name =
      pod_group_name_for(std::string(workload.metadata.name), workload.spec.podGroupTemplates[0].name);
  auto found = get_pod_group(c, ns, name);
  if (!found || *found || has_pods) return found;
  auto created = decoded<pg::PodGroup>(
      c.create(client::ResourceRef::of(kPodGroupResource, ns), api::encode(pod_group_for(job, workload))));
  if (created) {
    recorder.eventf(job_ref, events::kNormal, "PodGroupCreated", "Created PodGroup {} for Job {}",
                    created->metadata.name, job.metadata.name);
    return std::optional<pg::PodGroup>(std::move(*created));
  }
  if (!client::is_already_exists(created.error())) return created.error();
  auto again = get_pod_group(c, ns, name);
  if (again && !*again) {
    client::ApiError e;
    e.message = "PodGroup for Workload " + ns + "/" + std::string(workload.metadata.name) +
                " not found after AlreadyExists";
    return e;
  }
  return again;
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

bool controlled_by_job(const api::ObjectMeta& meta, const Job& job) {
  const api::OwnerReference* owner = controller_of(meta);
  return owner != nullptr && owner->uid == job.metadata.uid;
}

// syncGangMinCount (elastic scaling): a gang Job whose minCount changed passes it on to the
// Workload's template and the PodGroup this controller made for it (controller ownerRef to the
// Job); only minCount, which is all the API lets change.
client::Result<void> sync_gang_min_count(client::RestClient& c, const Job& job, const wl::Workload& workload,
                                         const pg::PodGroup& group) {
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
  if (controlled_by_job(group.metadata, job) && group.spec.schedulingPolicy.gang &&
      group.spec.schedulingPolicy.gang->minCount != gang->minCount) {
    auto r = update_min_count<pg::PodGroup>(c, kPodGroupResource, ns, std::string(group.metadata.name), gang->minCount,
                                            [](pg::PodGroup& p) -> std::int32_t* {
                                              if (!p.spec.schedulingPolicy.gang) return nullptr;
                                              return &p.spec.schedulingPolicy.gang->minCount;
                                            });
    if (!r) return r.error();
  }
  return {};
}

}  // namespace

bool gang_scheduling_eligible(const Job& job) {
  const auto& s = job.spec;
  if (!s.parallelism || *s.parallelism <= 1) return false;
  if (s.completionMode.value_or("NonIndexed") != "Indexed") return false;
  // All pods must run at once for a gang to make sense.
  if (!s.completions || *s.completions != *s.parallelism) return false;
  // A template that names its own PodGroup opts out.
  if (s.template_.spec.schedulingGroup) return false;
  return true;
}

bool manages_workload(const Job& job) {
  if (!job.spec.scheduling) return gang_scheduling_eligible(job);
  // Pods wired to a PodGroup of the user's own (BYO): nothing to manage.
  if (job.spec.template_.spec.schedulingGroup) return false;
  // A parent controller (CronJob, JobSet, ...) owns the workload.
  for (const auto& ref : job.metadata.ownerReferences)
    if (ref.controller.value_or(false)) return false;
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

std::string pod_group_template_name(const Job& job) { return std::string(job.metadata.name) + "-worker-0"; }

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
  if (!job.spec.scheduling) {
    // v1.36: a gang-shaped Job is one gang of all its pods.
    t.schedulingPolicy.gang.emplace().minCount = job.spec.parallelism.value_or(0);
  } else {
    const auto& s = *job.spec.scheduling;
    // No policy: basic (the controller's default); a gang without minCount: parallelism, at
    // least 1 (a suspended Job's is 0), as defaultMinCountForJob.
    if (s.schedulingPolicy && s.schedulingPolicy->gang)
      t.schedulingPolicy.gang.emplace().minCount =
          s.schedulingPolicy->gang->minCount.value_or(std::max<std::int32_t>(1, job.spec.parallelism.value_or(1)));
    else
      t.schedulingPolicy.basic.emplace();
    if (s.schedulingConstraints) {
      auto& c = t.schedulingConstraints.emplace();
      for (const auto& topology : s.schedulingConstraints->topology) c.topology.emplace_back().key = topology.key;
    }
    if (s.disruptionMode) {
      auto& d = t.disruptionMode.emplace();
      if (s.disruptionMode->single) d.single.emplace();
      if (s.disruptionMode->all) d.all.emplace();
    }
    // Not typed in api::schedulingv1beta1 (gate DRAWorkloadResourceClaims): written as a member
    // of the template's `extra`, which the codec writes out.
    if (!s.resourceClaims.empty()) t.extra.fields.emplace_back("resourceClaims", resource_claims_json(s.resourceClaims));
  }
  w.spec.podGroupTemplates.push_back(std::move(t));
  return w;
}

pg::PodGroup pod_group_for(const Job& job, const wl::Workload& workload) {
  const auto& t = workload.spec.podGroupTemplates.at(0);
  pg::PodGroup p;
  p.apiVersion = kWorkloadApiVersion;
  p.kind = "PodGroup";
  p.metadata.name = pod_group_name_for(std::string(workload.metadata.name), t.name);
  p.metadata.namespace_ = job.metadata.namespace_;
  api::OwnerReference by_workload;
  by_workload.apiVersion = std::string(kWorkloadApiVersion);
  by_workload.kind = "Workload";
  by_workload.name = std::string(workload.metadata.name);
  by_workload.uid = std::string(workload.metadata.uid);
  p.metadata.ownerReferences =
      std::vector<api::OwnerReference>{new_controller_ref(job.metadata, kJobApiVersion, kJobKind), std::move(by_workload)};
  pg::WorkloadReference ref;
  ref.workloadName = std::string(workload.metadata.name);
  ref.templateName = t.name;
  p.spec.workloadRef = std::move(ref);
  // podGroupSpecFromTemplate: the policy, constraints, disruption mode and claims, as they are.
  p.spec.schedulingPolicy = t.schedulingPolicy;
  p.spec.schedulingConstraints = t.schedulingConstraints;
  p.spec.disruptionMode = t.disruptionMode;
  if (auto claims = extra_member(t.extra, "resourceClaims"); !claims.empty())
    p.spec.extra.fields.emplace_back("resourceClaims", claims);
  return p;
}

client::Result<std::optional<std::string>> ensure_workload_and_pod_group(client::RestClient& client, const Job& job,
                                                                         bool has_pods, Recorder& recorder,
                                                                         const api::ObjectReference& job_ref) {
  if (!manages_workload(job)) return std::optional<std::string>();
  auto workload = ensure_workload(client, job, has_pods, recorder, job_ref);
  if (!workload) return workload.error();
  if (!*workload) return std::optional<std::string>();
  const auto& w = **workload;
  if (w.spec.podGroupTemplates.size() != 1) {
    recorder.eventf(job_ref, events::kWarning, "UnsupportedWorkloadStructure",
                    "Workload {} has {} PodGroupTemplates (expected 1), falling back to normal scheduling",
                    w.metadata.name, w.spec.podGroupTemplates.size());
    return std::optional<std::string>();
  }
  auto group = ensure_pod_group(client, job, w, has_pods, recorder, job_ref);
  if (!group) return group.error();
  if (!*group) return std::optional<std::string>();
  // Whatever the pods' state, so that a running gang can be resized.
  if (auto synced = sync_gang_min_count(client, job, w, **group); !synced) return synced.error();
  return std::optional<std::string>(std::string((*group)->metadata.name));
}

}  // namespace ksched::controllers
