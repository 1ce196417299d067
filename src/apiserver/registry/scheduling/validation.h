// scheduling.k8s.io's rules: PriorityClass (upstream's ValidatePriorityClass and its update),
// v1beta1 PodGroup (v1.37's declarative rules, the +k8s: tags of
// staging/src/k8s.io/api/scheduling/v1beta1/types.go, with apimachinery's standard messages), and
// v1alpha1 Workload (upstream v1.35's pkg/apis/scheduling/validation, before
// v1.36 added declarative validation and changed some messages), with its field paths, reasons and
// messages. The objects come from the typed decode (every field has its JSON type);
// metadata is the pipeline's part. A value upstream renders as its internal Go struct (a
// duplicate pod group, an immutable list) is rendered as its JSON.
#pragma once
#include <boost/json/fwd.hpp>

#include "apiserver/write/validation_rules.h"

namespace ksched::apiserver::registry::scheduling {

using rules::Errors;
using rules::Path;

// ValidatePriorityClass: "system-" names are the two built-in classes, user values stay at or
// below 1e9, and the preemption policy is one of two.
void priority_class(Errors& e, const boost::json::object& pc);
// ValidatePriorityClassUpdate: value and preemptionPolicy may not change.
void priority_class_update(Errors& e, const boost::json::object& pc, const boost::json::object& old);

// validateWorkloadSpec: the controller reference and the pod groups (1..8, unique DNS-label
// names, exactly one policy each, a gang's minCount above 0). An update validates the new spec so
// too, then workload_spec_update.
void workload_spec(Errors& e, const boost::json::object& spec, const Path& path);
// validateWorkloadSpecUpdate: a controller reference once set and the pod groups are immutable.
// (v1.35 names these two fields from the root: "controllerRef", "podGroups".)
void workload_spec_update(Errors& e, const boost::json::object& spec, const boost::json::object& old);

// v1beta1 PodGroup, create: workloadRef (both names required, a DNS subdomain and a DNS label),
// resourceClaims (at most 4, unique DNS-label names, exactly one of the claim's or the template's
// name, a DNS subdomain; a Workload's templates have the same rule),
// schedulingPolicy (a union of basic and gang; a gang's minCount required and at least 1),
// disruptionMode (a union of single and all), priorityClassName (a DNS subdomain), priority (at
// most 1e9), preemptionPolicy (forbidden unless the PodGroupPreemptionPolicy gate is on, then
// Never or PreemptLowerPriority).
void pod_group_spec(Errors& e, const boost::json::object& spec, const Path& path,
                    bool pod_group_preemption_policy = false);
// v1beta1 PodGroup, update: the new spec as on create, then what may not change: workloadRef,
// the policy's kind (basic immutable, gang neither set nor cleared; minCount may change),
// resourceClaims, disruptionMode, priorityClassName, priority, preemptionPolicy.
void pod_group_spec_update(Errors& e, const boost::json::object& spec, const boost::json::object& old,
                           const Path& path);
// v1beta1 Workload (v1.37's +k8s: tags), create: controllerRef as v1alpha1's; podGroupTemplates
// and compositePodGroupTemplates a union (the latter forbidden unless the CompositePodGroup gate
// is on), each list at most 8 with unique names, each template's name (required DNS label) and
// the rules a PodGroup's (or a CompositePodGroup's) spec has for schedulingPolicy,
// disruptionMode, priorityClassName, priority and preemptionPolicy, recursively through composite
// templates. Then the handwritten rules of pkg/apis/scheduling/validation's ValidateWorkloadSpec:
// a template name in no two lists, a composite tree at most WorkloadMaxTreeDepth deep, one
// priority configuration across all templates, every composite template with a child.
void workload_v1beta1_spec(Errors& e, const boost::json::object& spec, const Path& path,
                           bool pod_group_preemption_policy = false, bool composite_pod_group = false);
// v1beta1 Workload, update: controllerRef immutable, no template added or removed (by name) in
// any list at any level, and each template's fields immutable but a gang's minCount.
void workload_v1beta1_spec_update(Errors& e, const boost::json::object& spec, const boost::json::object& old,
                                  const Path& path);
// v1alpha3 CompositePodGroup (v1.37's +k8s: tags), create: parentCompositePodGroupName a DNS
// subdomain, workloadRef required (both names), schedulingPolicy a union of basic and
// gang{minGroupCount >= 1}, schedulingConstraints, disruptionMode, priorityClassName, priority
// and preemptionPolicy as a PodGroup's.
void composite_pod_group_spec(Errors& e, const boost::json::object& spec, const Path& path,
                              bool pod_group_preemption_policy = false);
// v1alpha3 CompositePodGroup, update: every spec field immutable.
void composite_pod_group_spec_update(Errors& e, const boost::json::object& spec, const boost::json::object& old,
                                     const Path& path);
// v1beta1 PodGroup and v1alpha3 CompositePodGroup, status write: the conditions (metav1
// ValidateConditions, unique types); a PodGroup's resourceClaimStatuses each name an entry of its
// `spec`'s resourceClaims (validatePodGroupResourceClaimStatuses). `spec` null: a CompositePodGroup.
void pod_group_status(Errors& e, const boost::json::object& status, const Path& path,
                      const boost::json::object* spec = nullptr);

}  // namespace ksched::apiserver::registry::scheduling
