// core/v1's strategies (pkg/registry/core/<resource>/strategy.go) of the kinds moved into this
// shape: Namespace, Service, Endpoints, ReplicationController, PodTemplate, ConfigMap, Secret,
// ResourceQuota, LimitRange and PersistentVolumeClaim. Pod, Node and PersistentVolume have their
// rules in write/ and in this folder's pod files, called by the pipeline directly; strategy()
// answers null for them.
#pragma once
#include <string_view>

#include "apiserver/registry/strategy.h"

namespace ksched::apiserver::registry::core {

// The strategy of a resource of the group at `version`, or null.
const Strategy* strategy(std::string_view version, std::string_view plural);

}  // namespace ksched::apiserver::registry::core
