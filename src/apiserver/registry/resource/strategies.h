// resource.k8s.io's strategies (upstream's pkg/registry/resource/*/strategy.go): v1 DeviceClass,
// ResourceClaim (with its status strategy), ResourceClaimTemplate and ResourceSlice, and v1beta2
// DeviceTaintRule (with its status strategy). Feature-gated fields are all served (upstream v1.36
// defaults), so no strategy drops any.
#pragma once
#include <string_view>

#include "apiserver/registry/strategy.h"

namespace ksched::apiserver::registry::resource {

// The strategy of a resource of the group at `version`, or null.
const Strategy* strategy(std::string_view version, std::string_view plural);

}  // namespace ksched::apiserver::registry::resource
