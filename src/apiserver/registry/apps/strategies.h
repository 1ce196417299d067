// apps/v1's strategies (pkg/registry/apps/{deployment,replicaset,statefulset,daemonset}/strategy.go):
// Deployment, ReplicaSet, StatefulSet and DaemonSet, each with its status (and, but for DaemonSet,
// its scale) subresource. Their pod templates are defaulted and validated as pods' specs
// (registry/core/pod_template.h).
#pragma once
#include <string_view>

#include "apiserver/registry/strategy.h"

namespace ksched::apiserver::registry::apps {

// The strategy of a resource of the group at `version`, or null.
const Strategy* strategy(std::string_view version, std::string_view plural);

}  // namespace ksched::apiserver::registry::apps
