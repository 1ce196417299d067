#include "scheduler/plugins/noderesources/resource_allocation.h"

namespace ksched::scheduler::plugins::noderesources {

bool is_extended_resource_name(std::string_view name) {
  if (name.find('/') == std::string_view::npos) return false;           // native, unprefixed
  if (name.find("kubernetes.io/") != std::string_view::npos) return false;  // prefixed native
  return !name.starts_with("requests.");
}

bool is_scalar_resource_name(std::string_view name) {
  if (name.starts_with("hugepages-") || name.starts_with("attachable-volumes-")) return true;
  if (name.find('/') == std::string_view::npos) return false;
  if (name.find("kubernetes.io/") != std::string_view::npos) return true;
  return is_extended_resource_name(name);
}

std::vector<ScoredResource> make_scored_resources(const std::vector<std::pair<std::string, std::int64_t>>& specs) {
  std::vector<ScoredResource> out;
  out.reserve(specs.size());
  for (const auto& [name, weight] : specs) {
    ScoredResource r;
    r.name = name;
    r.weight = weight == 0 ? 1 : weight;  // upstream defaulting: unset weight means 1
    if (name == "cpu") {
      r.kind = ScoredResource::Kind::CPU;
    } else if (name == "memory") {
      r.kind = ScoredResource::Kind::Memory;
    } else if (name == "ephemeral-storage") {
      r.kind = ScoredResource::Kind::EphemeralStorage;
    }
    r.scalar = is_scalar_resource_name(name);
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<std::int64_t> pod_resource_requests(const api::Pod& pod, const std::vector<ScoredResource>& resources,
                                                bool non_zero) {
  const framework::Resource req = framework::compute_pod_requests(pod, non_zero);
  std::vector<std::int64_t> out;
  out.reserve(resources.size());
  for (const auto& r : resources) out.push_back(req.get(r.name));
  return out;
}

}  // namespace ksched::scheduler::plugins::noderesources
