// Consumable capacity (DRAConsumableCapacity, alpha in v1.35): what one allocation of a device
// consumes of the device's capacities, and whether it still fits (upstream's
// structured/internal/experimental/consumable_capacity.go at v1.35, followed rule for rule).
//
// A request names amounts per capacity (`capacity.requests`, keyed by the capacity's name as the
// device spells it); each capacity of the device is consumed by
//   - no amount requested: the policy's default, else the whole capacity value;
//   - no requestPolicy: the amount requested;
//   - validRange with a min: at least min, rounded up to min + k*step (step in whole units);
//   - validValues: the first valid value not below the amount (or the amount when none is).
// The amount consumed must then keep to the policy (equal to the default, or within max and on a
// step; or one of the valid values), and what is consumed already plus this amount must not
// exceed the capacity value.
#pragma once
#include <string>

#include "api/resource.h"

namespace ksched::scheduler::dra {

// Upstream calculateConsumedCapacity: what one allocation consumes of `capacity`; `requested` is
// the amount the request names (null when it names none).
api::Quantity consumed_capacity(const api::Quantity* requested,
                                const api::resourcev1::DeviceCapacity& capacity);

// Upstream violatesPolicy: whether consuming `consumed` breaks the policy (null: no policy).
bool violates_policy(const api::Quantity& consumed, const api::resourcev1::CapacityRequestPolicy* policy);

// Upstream CmpRequestOverCapacity, without copying: whether `request` (null: none) fits the
// device's `capacities` on top of `allocated` (what allocated and in-flight claims' shares
// consume; null: nothing) and `allocating` (what this search picked so far; null: nothing).
// An error when the request names a capacity the device does not define (upstream: "some
// requested capacity has not been defined"; the allocator skips such a device).
enum class CapacityFit { Fits, DoesNotFit, Undefined };
CapacityFit request_fits_capacity(const api::resourcev1::CapacityRequirements* request,
                                  const api::resourcev1::CapacityMap& capacities,
                                  const api::ResourceList* allocated, const api::ResourceList* allocating);

// Upstream GetConsumedCapacityFromRequest: per capacity of the device, what the request consumes.
api::ResourceList consumed_capacities(const api::resourcev1::CapacityRequirements* request,
                                      const api::resourcev1::CapacityMap& capacities);

// A new share ID for an allocation of a multi-allocatable device: a random (version 4) UUID, as
// upstream's uuid.NewUUID gives.
std::string new_share_id();

}  // namespace ksched::scheduler::dra
