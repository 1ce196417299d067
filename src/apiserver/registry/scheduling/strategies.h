// scheduling.k8s.io's strategies: v1 PriorityClass (pkg/registry/scheduling/priorityclass),
// v1alpha1 Workload (upstream v1.35's pkg/registry/scheduling/workload/strategy.go) and v1beta1
// PodGroup (v1.37's pkg/registry/scheduling/podgroup/strategy.go), served only while the
// GenericWorkload gate is on (resources.cpp), and v1alpha3 CompositePodGroup (v1.37's
// pkg/registry/scheduling/compositepodgroup/strategy.go), served only with GenericWorkload and
// CompositePodGroup. A Workload has no status subresource and no generation in v1.35; a PodGroup
// and a CompositePodGroup have a status subresource and no generation.
#pragma once
#include <string_view>

#include "apiserver/registry/strategy.h"

namespace ksched::apiserver::registry::scheduling {

// The strategy of a resource of the group at `version`, or null.
const Strategy* strategy(std::string_view version, std::string_view plural);

}  // namespace ksched::apiserver::registry::scheduling
