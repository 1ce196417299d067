#include "controllers/job/job_scheduling.h"

#include "api/codec.h"
#include "client/resources_scheduling.h"
#include "controllers/controller_utils.h"
#include "controllers/hash.h"

namespace ksched::controllers {

namespace wl = api::schedulingv1alpha1;
namespace pg = api::schedulingv1beta1;

namespace {

constexpr std::size_t kDNS1123SubdomainMaxLength = 253;
constexpr std::string_view kJobApiVersion = "batch/v1";
constexpr std::string_view kJobKind = "Job";
// The PodGroup's resource: the typed client helpers have no ResourceFor for it (the scheduler's
// client headers list only what it watches), so the controller names it here.
constexpr client::ResourceInfo kPodGroupResource{"scheduling.k8s.io", "v1beta1", "podgroups", "PodGroup", true};

std::string hash_digits(Fnv32a& h) { return safe_encode_string(std::to_string(h.sum())); }

client::Result<std::optional<wl::Workload>> get_workload(client::RestClient& c, std::string_view ns,
                                                         std::string_view name) {
  auto r = c.get<wl::Workload>(ns, name);
  if (r) return std::optional<wl::Workload>(std::move(*r));
  if (client::is_not_found(r.error())) return std::optional<wl::Workload>();
  return r.error();
}

client::Result<pg::PodGroup> decoded_pod_group(client::Result<std::string> body) {
  if (!body) return body.error();
  auto v = api::decode<pg::PodGroup>(*body);
  if (!v) {
    client::ApiError e;
    e.message = "unable to decode response: " + v.error();
    e.reason = "DecodeError";
    return e;
  }
  return std::move(*v);
}

client::Result<std::optional<pg::PodGroup>> get_pod_group(client::RestClient& c, std::string_view ns,
                                                          std::string_view name) {
  auto r = decoded_pod_group(c.get(client::ResourceRef::of(kPodGroupResource, ns, name)));
  if (r) return std::optional<pg::PodGroup>(std::move(*r));
  if (client::is_not_found(r.error())) return std::optional<pg::PodGroup>();
  return r.error();
}

// discoverWorkloadForJob, then createWorkloadForJob when there are no pods yet; AlreadyExists
// (another actor made it) is looked up again.
client::Result<std::optional<wl::Workload>> ensure_workload(client::RestClient& c, const Job& job, bool has_pods,
                                                            Recorder& recorder, const api::ObjectReference& job_ref) {
  const std::string ns(job.metadata.namespace_);
  const std::string name = workload_name_for_job(job);
  auto found = get_workload(c, ns, name);
  if (!found || *found || has_pods) return found;
  auto created = c.create(workload_for_job(job));
  if (created) {
    recorder.eventf(job_ref, events::kNormal, "WorkloadCreated", "Created Workload {} with gang scheduling (minCount={})",
                    created->metadata.name, job.spec.parallelism.value_or(0));
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
  const std::string name = pod_group_name_for(std::string(workload.metadata.name), workload.spec.podGroups[0].name);
  auto found = get_pod_group(c, ns, name);
  if (!found || *found || has_pods) return found;
  auto created = decoded_pod_group(
      c.create(client::ResourceRef::of(kPodGroupResource, ns), api::encode(pod_group_for(job, workload))));
  if (created) {
    recorder.eventf(job_ref, events::kNormal, "PodGroupCreated", "Created PodGroup {} for Workload {}",
                    created->metadata.name, workload.metadata.name);
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
  w.apiVersion = "scheduling.k8s.io/v1alpha1";
  w.kind = "Workload";
  w.metadata.name = workload_name_for_job(job);
  w.metadata.namespace_ = job.metadata.namespace_;
  w.metadata.ownerReferences = std::vector<api::OwnerReference>{new_controller_ref(job.metadata, kJobApiVersion, kJobKind)};
  wl::TypedLocalObjectReference ref;
  ref.apiGroup = "batch";
  ref.kind = std::string(kJobKind);
  ref.name = std::string(job.metadata.name);
  w.spec.controllerRef = std::move(ref);
  wl::PodGroup group;
  group.name = pod_group_template_name(job);
  group.policy.gang.emplace().minCount = job.spec.parallelism.value_or(0);
  w.spec.podGroups.push_back(std::move(group));
  return w;
}

pg::PodGroup pod_group_for(const Job& job, const wl::Workload& workload) {
  const auto& group = workload.spec.podGroups.at(0);
  pg::PodGroup p;
  p.apiVersion = "scheduling.k8s.io/v1beta1";
  p.kind = "PodGroup";
  p.metadata.name = pod_group_name_for(std::string(workload.metadata.name), group.name);
  p.metadata.namespace_ = job.metadata.namespace_;
  api::OwnerReference by_workload;
  by_workload.apiVersion = "scheduling.k8s.io/v1alpha1";
  by_workload.kind = "Workload";
  by_workload.name = std::string(workload.metadata.name);
  by_workload.uid = std::string(workload.metadata.uid);
  p.metadata.ownerReferences =
      std::vector<api::OwnerReference>{new_controller_ref(job.metadata, kJobApiVersion, kJobKind), std::move(by_workload)};
  pg::WorkloadReference ref;
  ref.workloadName = std::string(workload.metadata.name);
  ref.templateName = group.name;
  p.spec.workloadRef = std::move(ref);
  if (group.policy.gang) p.spec.schedulingPolicy.gang.emplace().minCount = group.policy.gang->minCount;
  else p.spec.schedulingPolicy.basic.emplace();
  return p;
}

client::Result<std::optional<std::string>> ensure_workload_and_pod_group(client::RestClient& client, const Job& job,
                                                                         bool has_pods, Recorder& recorder,
                                                                         const api::ObjectReference& job_ref) {
  if (!gang_scheduling_eligible(job)) return std::optional<std::string>();
  auto workload = ensure_workload(client, job, has_pods, recorder, job_ref);
  if (!workload) return workload.error();
  if (!*workload) return std::optional<std::string>();
  const auto& w = **workload;
  if (w.spec.podGroups.size() != 1) {
    recorder.eventf(job_ref, events::kWarning, "UnsupportedWorkloadStructure",
                    "Workload {} has {} PodGroupTemplates (expected 1), falling back to normal scheduling",
                    w.metadata.name, w.spec.podGroups.size());
    return std::optional<std::string>();
  }
  auto group = ensure_pod_group(client, job, w, has_pods, recorder, job_ref);
  if (!group) return group.error();
  if (!*group) return std::optional<std::string>();
  return std::optional<std::string>(std::string((*group)->metadata.name));
}

}  // namespace ksched::controllers
