#include "scheduler/dra/capacity.h"

#include <limits>

#include "util/uuid.h"

namespace ksched::scheduler::dra {

namespace resourceapi = api::resourcev1;

namespace {

// Upstream roundUpRange: below min, min; else with a step, min plus the next whole number of
// steps (in whole units: Value() rounds each up), as a BinarySI quantity.
api::Quantity round_up_range(const api::Quantity& requested,
                             const resourceapi::CapacityRequestPolicyRange& range) {
  const api::Quantity min = range.min.value_or(api::Quantity{});
  if (requested < min) return min;
  if (!range.step) return requested;
  const __int128 step = range.step->value();
  // Validation keeps step positive; a step of 0 would make upstream divide by zero.
  if (step <= 0) return requested;
  const __int128 added = static_cast<__int128>(requested.value()) - min.value();
  __int128 n = added / step;
  if (added % step != 0) ++n;
  __int128 v = static_cast<__int128>(min.value()) + step * n;
  if (v > std::numeric_limits<std::int64_t>::max()) v = std::numeric_limits<std::int64_t>::max();
  return api::Quantity::from_int(static_cast<std::int64_t>(v), api::Quantity::Format::BinarySI);
}

// Upstream roundUpValidValues: the first valid value (ascending, by validation) not below the
// amount; the amount itself when every valid value is smaller.
api::Quantity round_up_valid_values(const api::Quantity& requested, const std::vector<api::Quantity>& valid) {
  for (const auto& v : valid)
    if (requested <= v) return v;
  return requested;
}

bool violates_valid_range(const api::Quantity& consumed,
                          const resourceapi::CapacityRequestPolicyRange& range) {
  if (range.max && consumed > *range.max) return true;
  if (range.step) {
    const __int128 step = range.step->value();
    if (step <= 0) return false;
    const __int128 min = range.min ? range.min->value() : 0;
    if ((static_cast<__int128>(consumed.value()) - min) % step != 0) return true;
  }
  return false;
}

}  // namespace

api::Quantity consumed_capacity(const api::Quantity* requested, const resourceapi::DeviceCapacity& capacity) {
  const resourceapi::CapacityRequestPolicy* policy =
      capacity.requestPolicy ? &*capacity.requestPolicy : nullptr;
  if (requested == nullptr) {
    // Upstream fillEmptyRequest.
    if (policy != nullptr && policy->default_) return *policy->default_;
    return capacity.value;
  }
  if (policy == nullptr) return *requested;
  if (policy->validRange && policy->validRange->min) return round_up_range(*requested, *policy->validRange);
  // Upstream tests validValues != nil; an empty list leaves the amount as it is either way.
  if (!policy->validValues.empty()) return round_up_valid_values(*requested, policy->validValues);
  return *requested;
}

bool violates_policy(const api::Quantity& consumed, const resourceapi::CapacityRequestPolicy* policy) {
  if (policy == nullptr) return false;
  // Upstream compares the Quantity structs; equal values are what that comparison means to catch.
  if (policy->default_ && consumed == *policy->default_) return false;
  if (policy->validRange) return violates_valid_range(consumed, *policy->validRange);
  if (!policy->validValues.empty()) {
    for (const auto& v : policy->validValues)
      if (consumed == v) return false;
    return true;
  }
  return false;
}

CapacityFit request_fits_capacity(const resourceapi::CapacityRequirements* request,
                                  const resourceapi::CapacityMap& capacities,
                                  const api::ResourceList* allocated, const api::ResourceList* allocating) {
  if (request != nullptr) {
    for (const auto& [name, q] : request->requests)
      if (!capacities.contains(name)) return CapacityFit::Undefined;
  }
  for (const auto& [name, cap] : capacities) {
    const api::Quantity* requested = request != nullptr ? request->requests.find(name) : nullptr;
    api::Quantity total = consumed_capacity(requested, cap);
    if (violates_policy(total, cap.requestPolicy ? &*cap.requestPolicy : nullptr))
      return CapacityFit::DoesNotFit;
    if (allocated != nullptr)
      if (const auto* a = allocated->find(name)) total += *a;
    if (allocating != nullptr)
      if (const auto* a = allocating->find(name)) total += *a;
    if (total > cap.value) return CapacityFit::DoesNotFit;
  }
  return CapacityFit::Fits;
}

api::ResourceList consumed_capacities(const resourceapi::CapacityRequirements* request,
                                      const resourceapi::CapacityMap& capacities) {
  api::ResourceList out;
  out.reserve(capacities.size());
  for (const auto& [name, cap] : capacities) {
    const api::Quantity* requested = request != nullptr ? request->requests.find(name) : nullptr;
    out.set(name, consumed_capacity(requested, cap));
  }
  return out;
}

std::string new_share_id() { return util::new_uuid(); }

}  // namespace ksched::scheduler::dra
