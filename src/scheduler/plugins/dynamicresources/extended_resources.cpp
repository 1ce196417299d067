#include "scheduler/plugins/dynamicresources/extended_resources.h"

#include <algorithm>
#include <optional>
#include <set>
#include <span>

#include "util/uuid.h"

namespace ksched::scheduler::plugins::dynamicresources {

namespace resourceapi = api::resourcev1;

bool is_extended_resource_claim_of(const api::Pod& pod, const resourceapi::ResourceClaim& claim) {
  if (claim.metadata.annotations.get(resourceapi::kExtendedResourceClaimAnnotation) != "true") return false;
  for (const auto& owner : claim.metadata.ownerReferences.vec()) {
    if (owner.name == pod.metadata.name.view() && owner.controller.value_or(false) &&
        owner.uid == pod.metadata.uid.view())
      return true;
  }
  return false;
}

std::shared_ptr<resourceapi::ResourceClaim> make_in_memory_claim(const api::Pod& pod, std::string uid) {
  auto c = std::make_shared<resourceapi::ResourceClaim>();
  c->metadata.namespace_ = pod.metadata.namespace_.view();
  c->metadata.name = kSpecialClaimInMemName;
  c->metadata.uid = uid;
  c->metadata.generateName = std::string(pod.metadata.name.view()) + "-extended-resources-";
  api::OwnerReference owner;
  owner.apiVersion = "v1";
  owner.kind = "Pod";
  owner.name = std::string(pod.metadata.name.view());
  owner.uid = std::string(pod.metadata.uid.view());
  owner.controller = true;
  c->metadata.ownerReferences = std::vector<api::OwnerReference>{std::move(owner)};
  c->metadata.annotations.set(std::string(resourceapi::kExtendedResourceClaimAnnotation), "true");
  return c;
}

std::string new_temporary_uid() { return util::new_uuid(); }

namespace {

// Upstream createResourceRequestAndMappings for one container and resource: the requests of
// later long-lived containers it may reuse (`reusable`, entries may be null) are taken first; a
// request of its own asks for the rest. Returns whether it made a request (into `out`).
bool container_request(std::size_t index, const api::Container& container, std::string_view resource,
                       std::string_view class_name,
                       std::span<const std::optional<resourceapi::DeviceRequest>> reusable,
                       resourceapi::DeviceRequest& out,
                       std::vector<api::ContainerExtendedResourceRequest>& mappings) {
  const auto& requests = container.resources.requests;
  const api::Quantity* q = requests.find(resource);
  if (q == nullptr) return false;
  // Quantity.AsInt64: only whole numbers count.
  const std::int64_t want = q->value();
  if (want == 0 || q->milli_value() != want * 1000) return false;
  std::int64_t sum = 0;
  for (const auto& r : reusable) {
    if (!r) continue;
    sum += r->exactly->count;
    mappings.push_back(api::ContainerExtendedResourceRequest{
        std::string(container.name.view()), std::string(resource), std::string(r->name.view()), {}, {}});
    if (sum >= want) return false;
  }
  // The resource's index among the container's requests, by name (the list is kept sorted).
  std::size_t resource_index = 0;
  for (const auto& [name, _] : requests) {
    if (name == resource) break;
    ++resource_index;
  }
  const std::string name =
      "container-" + std::to_string(index) + "-request-" + std::to_string(resource_index);
  out = resourceapi::DeviceRequest{};
  out.name = name;
  resourceapi::ExactDeviceRequest exact;
  exact.deviceClassName = class_name;
  exact.allocationMode = "ExactCount";
  exact.count = want - sum;
  out.exactly = exact;
  mappings.push_back(api::ContainerExtendedResourceRequest{
      std::string(container.name.view()), std::string(resource), name, {}, {}});
  return true;
}

}  // namespace

ExtendedResourceRequests create_requests_and_mappings(
    const api::Pod& pod, const std::vector<std::pair<std::string, std::int64_t>>& resources,
    const std::function<dra::ClassPtr(std::string_view)>& class_of) {
  std::vector<const api::Container*> containers;
  containers.reserve(pod.spec.initContainers.size() + pod.spec.containers.size());
  for (const auto& c : pod.spec.initContainers) containers.push_back(&c);
  for (const auto& c : pod.spec.containers) containers.push_back(&c);
  const std::size_t num_init = pod.spec.initContainers.size();
  // Upstream partitionContainerIndices: plain init containers run before the others, one at a time.
  std::vector<std::size_t> long_lived, short_lived;
  for (std::size_t i = 0; i < containers.size(); ++i) {
    const bool sidecar = containers[i]->restartPolicy && *containers[i]->restartPolicy == "Always";
    (i < num_init && !sidecar ? short_lived : long_lived).push_back(i);
  }

  ExtendedResourceRequests out;
  std::vector<std::pair<std::string, std::int64_t>> sorted = resources;
  std::sort(sorted.begin(), sorted.end());
  for (const auto& [resource, quantity] : sorted) {
    (void)quantity;
    const auto cls = class_of(resource);
    if (!cls) continue;
    const std::string_view class_name = cls->metadata.name.view();
    std::vector<api::ContainerExtendedResourceRequest> long_mappings, short_mappings;
    // One slot per container: the request a long-lived container made for this resource.
    std::vector<std::optional<resourceapi::DeviceRequest>> long_requests(containers.size());
    for (std::size_t i : long_lived) {
      resourceapi::DeviceRequest r;
      if (container_request(i, *containers[i], resource, class_name, {}, r, long_mappings))
        long_requests[i] = std::move(r);
    }
    // The largest request of a plain init container serves all of them (they run one at a time).
    std::optional<resourceapi::DeviceRequest> max_short;
    std::set<std::string> short_names;
    for (std::size_t i : short_lived) {
      resourceapi::DeviceRequest r;
      const std::span<const std::optional<resourceapi::DeviceRequest>> later(long_requests.data() + i,
                                                                             long_requests.size() - i);
      if (!container_request(i, *containers[i], resource, class_name, later, r, short_mappings)) continue;
      short_names.insert(std::string(r.name.view()));
      if (!max_short || max_short->exactly->count < r.exactly->count) max_short = std::move(r);
    }
    if (max_short && short_names.size() > 1) {
      short_names.erase(std::string(max_short->name.view()));
      for (auto& m : short_mappings) {
        if (short_names.contains(m.requestName)) m.requestName = std::string(max_short->name.view());
      }
    }
    if (max_short) out.requests.push_back(std::move(*max_short));
    for (auto& r : long_requests) {
      if (r) out.requests.push_back(std::move(*r));
    }
    out.mappings.insert(out.mappings.end(), long_mappings.begin(), long_mappings.end());
    out.mappings.insert(out.mappings.end(), short_mappings.begin(), short_mappings.end());
  }
  std::stable_sort(out.requests.begin(), out.requests.end(),
                   [](const auto& a, const auto& b) { return a.name.view() < b.name.view(); });
  return out;
}

}  // namespace ksched::scheduler::plugins::dynamicresources
