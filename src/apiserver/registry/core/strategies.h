// core/v1's strategies (pkg/registry/core/<resource>/strategy.go): Pod (pod_strategy.cpp, with
// its defaults, validation and spec rules in pod_*.cpp and validation_pod.cpp), Node
// (node_strategy.cpp), PersistentVolume (persistent_volume_strategy.cpp), and in strategies.cpp
// Namespace, Service, Endpoints, ReplicationController, PodTemplate, ConfigMap, Secret,
// ResourceQuota, LimitRange and PersistentVolumeClaim. The other core kinds have no rules beyond
// metadata: strategy() answers null for them.
#pragma once
#include <string_view>

#include "apiserver/registry/strategy.h"

namespace ksched::apiserver::registry::core {

// The strategy of a resource of the group at `version`, or null.
const Strategy* strategy(std::string_view version, std::string_view plural);

// The strategies with files of their own.
const Strategy& pod_strategy();
const Strategy& node_strategy();
const Strategy& persistent_volume_strategy();

}  // namespace ksched::apiserver::registry::core
