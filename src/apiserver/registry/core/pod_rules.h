// The pod strategy's defaulting and validation (pod_defaults.cpp, pod_validation.cpp), beside the
// pod spec rules they build on (validation_pod.cpp, shared with the pod templates of other kinds
// through pod_template.h).
#pragma once
#include <boost/json/fwd.hpp>

#include "apiserver/features.h"
#include "apiserver/write/validation_rules.h"

namespace ksched::apiserver::registry::core {

// SetDefaults_Pod, on every write of a pod: the pod spec's defaults (as a template's), requests
// from limits, the pod-level resources' defaults (PodLevelResources), service links, and under
// hostNetwork each port's hostPort.
void default_pod(boost::json::object& pod, const FeatureGates& gates);

// ValidatePodCreate (`create`) or ValidatePodUpdate's own part: the spec, on create what only a
// new pod is refused (ephemeral containers, a node name with scheduling gates).
void validate_pod(rules::Errors& e, const boost::json::object& pod, bool create);
// ValidatePodUpdate: what a spec write may change relative to `old` (images, activeDeadlineSeconds,
// added tolerations, removed scheduling gates, a gated pod's node selector).
void validate_pod_update(rules::Errors& e, const boost::json::object& pod, const boost::json::object& old);
// ValidatePodStatusUpdate beyond metadata: conditions, the nominated node, the immutable QoS class.
void validate_pod_status_update(rules::Errors& e, const boost::json::object& pod, const boost::json::object& old);

}  // namespace ksched::apiserver::registry::core
