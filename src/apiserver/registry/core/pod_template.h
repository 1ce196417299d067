// What the strategies of the kinds with a pod template (registry/apps, registry/batch, and core's
// ReplicationController and PodTemplate) share with the pod rules still in write/: a template's
// defaults and validation, and a replica count's. Defined beside the pod rules they use
// (defaults.cpp, validation.cpp).
#pragma once
#include <boost/json/fwd.hpp>
#include <string>
#include <string_view>

#include "apiserver/write/validation_rules.h"

namespace ksched::apiserver {

// SetDefaults_PodSpec on the pod template parent[key] (its spec), when there is one.
void default_pod_template(boost::json::object* parent, std::string_view key);
// The pod spec rules of a template at `path` ("spec.template", "template"), when there is one.
void validate_pod_template(rules::Errors& e, const boost::json::object* tmpl, const std::string& path);
// spec.replicas, when set, is not negative (reported at `path`).
void validate_replicas(rules::Errors& e, const boost::json::object& spec, const std::string& path);

}  // namespace ksched::apiserver
