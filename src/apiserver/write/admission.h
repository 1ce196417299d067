// Admission plugins, as kube-apiserver runs them by default for the kinds we serve:
// DefaultTolerationSeconds, Priority, RuntimeClass and PodTopologyLabels on pods, Priority on
// PriorityClasses.
// They read other objects (classes) from the store and answer 403 Forbidden as upstream does.
#pragma once
#include <boost/json/fwd.hpp>
#include <optional>
#include <string_view>

#include "apiserver/features.h"
#include "apiserver/resources.h"
#include "apiserver/status.h"
#include "apiserver/storage/storage.h"
#include "apiserver/write/validation.h"

namespace ksched::apiserver {

enum class WriteVerb { Create, Update };

// Mutating admission: may change `obj`. `old` is the stored object on Update.
std::optional<ApiError> admit_mutating(const ResourceInfo& r, WriteVerb verb, std::string_view ns,
                                       boost::json::object& obj, const boost::json::object* old, const Store& store,
                                       const FeatureGates& gates = FeatureGates());
// Validating admission: runs after validation, may only refuse.
std::optional<ApiError> admit_validating(const ResourceInfo& r, WriteVerb verb, const boost::json::object& obj,
                                         const Store& store);

}  // namespace ksched::apiserver
