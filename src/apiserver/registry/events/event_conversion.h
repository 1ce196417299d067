// core/v1 Event <-> events.k8s.io/v1 Event. Both endpoints are views of the same stored objects
// (kept in core/v1 form, as kube-apiserver stores them): events.k8s.io/v1's ResourceInfo carries
// event_conversion(), so each request on it converts on the way in and on the way out
// (apiserver/conversion.h).
#pragma once
#include <boost/json/fwd.hpp>

#include "apiserver/resources.h"

namespace ksched::apiserver {

boost::json::object event_core_to_v1(const boost::json::object& core);
boost::json::object event_v1_to_core(const boost::json::object& ev);

// Stored as core/v1 events; converts to "v1" or "events.k8s.io/v1".
const Conversion& event_conversion();

}  // namespace ksched::apiserver
