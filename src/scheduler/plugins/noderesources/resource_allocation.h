// Shared scoring machinery of NodeResourcesFit and NodeResourcesBalancedAllocation (upstream
// noderesources/resource_allocation.go): per configured resource, the node's allocatable and
// requested-after-placing-the-pod amounts, computed without allocating.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "scheduler/framework/types.h"

namespace ksched::scheduler::plugins::noderesources {

// upstream schedutil.IsScalarResourceName: extended, hugepages-*, kubernetes.io/-prefixed native,
// attachable-volumes-*.
bool is_scalar_resource_name(std::string_view name);
// upstream v1helper.IsExtendedResourceName: domain-prefixed, not *kubernetes.io/, not requests.*.
bool is_extended_resource_name(std::string_view name);

struct ScoredResource {
  enum class Kind { CPU, Memory, EphemeralStorage, Other };
  std::string name;
  std::int64_t weight = 1;
  Kind kind = Kind::Other;
  bool scalar = false;
};

std::vector<ScoredResource> make_scored_resources(const std::vector<std::pair<std::string, std::int64_t>>& specs);

// Pod request per resource in scheduler units (millicores for cpu). non_zero applies the scoring
// defaults (100m / 200Mi) to containers lacking cpu/memory requests.
std::vector<std::int64_t> pod_resource_requests(const api::Pod& pod, const std::vector<ScoredResource>& resources,
                                                bool non_zero);

// (allocatable, requested incl. the pod) for resource i; (0,0) means "leave this resource out".
// use_requested: node Requested for cpu/memory instead of NonZeroRequested.
inline void allocatable_and_requested(const framework::NodeInfo& ni, const ScoredResource& r, std::int64_t pod_request,
                                      bool use_requested, std::int64_t& alloc, std::int64_t& req) {
  alloc = 0;
  req = 0;
  if (pod_request == 0 && r.scalar) return;
  const framework::Resource& requested = use_requested ? ni.requested : ni.nonZeroRequested;
  switch (r.kind) {
    case ScoredResource::Kind::CPU:
      alloc = ni.allocatable.milliCPU;
      req = requested.milliCPU + pod_request;
      return;
    case ScoredResource::Kind::Memory:
      alloc = ni.allocatable.memory;
      req = requested.memory + pod_request;
      return;
    case ScoredResource::Kind::EphemeralStorage:
      alloc = ni.allocatable.ephemeralStorage;
      req = ni.requested.ephemeralStorage + pod_request;
      return;
    case ScoredResource::Kind::Other: {
      const std::int64_t* a = ni.allocatable.scalarResources.find(r.name);
      if (a == nullptr) return;
      const std::int64_t* used = ni.requested.scalarResources.find(r.name);
      alloc = *a;
      req = (used ? *used : 0) + pod_request;
      return;
    }
  }
}

}  // namespace ksched::scheduler::plugins::noderesources
