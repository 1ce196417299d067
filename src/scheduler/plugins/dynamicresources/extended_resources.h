// Extended resources backed by DRA (DRAExtendedResource; upstream v1.35
// pkg/scheduler/framework/plugins/dynamicresources/extendeddynamicresources.go), the parts that
// need no plugin state: which claim of the API server is a pod's "special" claim, the in-memory
// claim PreFilter starts with, and the device requests (one per container and resource, upstream's
// names and counts) that Filter gives that claim for a node that does not advertise the resources.
//
// A DeviceClass backs an extended resource by its spec.extendedResourceName or by its implicit name
// "deviceclass.resource.kubernetes.io/<class>" (dra::Manager::class_for_extended_resource).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/core.h"
#include "api/resource.h"
#include "scheduler/dra/manager.h"

namespace ksched::scheduler::plugins::dynamicresources {

// The name of the special claim while it exists only in memory (not a valid object name, so that it
// cannot clash with a real claim); the API server gives it a name from its generateName in PreBind.
inline constexpr std::string_view kSpecialClaimInMemName = "<extended-resources>";

// Upstream findExtendedResourceClaim's test: the claim carries the annotation
// resource.kubernetes.io/extended-resource-claim "true" and the pod as its controller.
bool is_extended_resource_claim_of(const api::Pod& pod, const api::resourcev1::ResourceClaim& claim);

// The claim PreFilter starts with when the API server has none for the pod: named
// kSpecialClaimInMemName, generateName "<pod>-extended-resources-", a temporary uid `uid` (for the
// in-flight allocation), the pod as controlling owner, the annotation, and no requests yet.
std::shared_ptr<api::resourcev1::ResourceClaim> make_in_memory_claim(const api::Pod& pod, std::string uid);

// A random version 4 UUID (upstream uuid.NewUUID for the temporary uid).
std::string new_temporary_uid();

// Upstream createRequestsAndMappings: for each resource (name, quantity) in `resources` that maps
// to a class (by `class_of`), in name order, one ExactCount request per long-lived container
// (regular containers and sidecars) that requests it, named "container-<index>-request-<index of
// the resource among the container's sorted requests>" (the container index counts init
// containers first), plus one request for the largest amount a plain init container needs beyond
// what later long-lived containers' requests already give it; the requests sorted by name, and
// the container -> request mappings for the pod's status.
struct ExtendedResourceRequests {
  std::vector<api::resourcev1::DeviceRequest> requests;
  std::vector<api::ContainerExtendedResourceRequest> mappings;
};
ExtendedResourceRequests create_requests_and_mappings(
    const api::Pod& pod, const std::vector<std::pair<std::string, std::int64_t>>& resources,
    const std::function<dra::ClassPtr(std::string_view)>& class_of);

}  // namespace ksched::scheduler::plugins::dynamicresources
