// ResourceFor (resources.h) of the resource.k8s.io kinds (api/resource.h), for the typed client
// calls and informers of the ResourceClaim controller, the simulated drivers and the scheduler.
#pragma once
#include "api/resource.h"
#include "client/resources.h"

namespace ksched::client {

template <>
struct ResourceFor<api::resourcev1::DeviceClass> {
  static constexpr ResourceInfo info{"resource.k8s.io", "v1", "deviceclasses", "DeviceClass", false};
};
template <>
struct ResourceFor<api::resourcev1::ResourceClaim> {
  static constexpr ResourceInfo info{"resource.k8s.io", "v1", "resourceclaims", "ResourceClaim", true};
};
template <>
struct ResourceFor<api::resourcev1::ResourceClaimTemplate> {
  static constexpr ResourceInfo info{"resource.k8s.io", "v1", "resourceclaimtemplates", "ResourceClaimTemplate", true};
};
template <>
struct ResourceFor<api::resourcev1::ResourceSlice> {
  static constexpr ResourceInfo info{"resource.k8s.io", "v1", "resourceslices", "ResourceSlice", false};
};
template <>
struct ResourceFor<api::resourcev1beta2::DeviceTaintRule> {
  static constexpr ResourceInfo info{"resource.k8s.io", "v1beta2", "devicetaintrules", "DeviceTaintRule", false};
};

}  // namespace ksched::client
