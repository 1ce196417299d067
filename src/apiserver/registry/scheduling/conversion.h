// scheduling.k8s.io Workload between v1alpha1 (v1.35: spec.podGroups[{name, policy}]) and v1beta1
// (v1.37: spec.podGroupTemplates[{name, schedulingPolicy, ...}]), stored at v1beta1.
//
// Upstream has no such conversion: v1.36 replaced v1alpha1's Workload by v1alpha2 and v1.37 added
// v1beta1, each converting through the internal type; ksched keeps serving v1alpha1 (its v1.35
// base, which its scheduler reads) beside v1beta1, so this maps the two as conversion-gen would
// through that internal type: a pod group is a template (name; policy = schedulingPolicy, same
// basic/gang union), controllerRef is the same. What v1alpha1 lacks (a template's
// schedulingConstraints, resourceClaims, disruptionMode, priorityClassName, priority,
// preemptionPolicy; compositePodGroupTemplates) is not shown at v1alpha1 and is lost when the
// object is written through v1alpha1, as upstream loses fields an older version lacks unless it
// keeps them in an annotation (it keeps none for the Workload).
#pragma once
#include "apiserver/resources.h"

namespace ksched::apiserver::registry::scheduling {

// Stored at scheduling.k8s.io/v1beta1; converts an object of either version to the other.
const Conversion& workload_conversion();

}  // namespace ksched::apiserver::registry::scheduling
