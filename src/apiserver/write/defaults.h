// Defaulting: the values upstream's SetDefaults_* functions fill in when an object is decoded, on
// every write (create, update, patch, status). Admission-time changes (tolerations, priority,
// RuntimeClass overhead) are not here but in admission.h.
#pragma once
#include <boost/json/fwd.hpp>

#include "apiserver/features.h"
#include "apiserver/resources.h"

namespace ksched::apiserver {

void apply_defaults(const ResourceInfo& r, boost::json::object& obj, const FeatureGates& gates = FeatureGates());

}  // namespace ksched::apiserver
