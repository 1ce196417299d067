// core/v1 Event <-> events.k8s.io/v1 Event. Both endpoints are views of the same stored objects
// (kept in core/v1 form, as kube-apiserver stores them), so each request on events.k8s.io converts
// on the way in and on the way out.
#pragma once
#include <boost/json/fwd.hpp>
#include <string>
#include <string_view>

#include "apiserver/resources.h"

namespace ksched::apiserver {

// Whether `r` is a view stored under another resource (events.k8s.io/v1 events).
bool is_event_view(const ResourceInfo& r);
// The resource whose table holds `r`'s objects.
int storage_id(const ResourceInfo& r);

boost::json::object event_core_to_v1(const boost::json::object& core);
boost::json::object event_v1_to_core(const boost::json::object& ev);

// Converts stored JSON into `r`'s representation (identity for non-view resources).
std::string to_view(const ResourceInfo& r, std::string_view stored);
// The same for an object just written, given both forms of it: a view is converted from the
// object, without parsing the JSON again, and takes its values (the object is left emptied).
std::string to_view(const ResourceInfo& r, boost::json::object&& stored_obj, std::string_view stored_json);
// Converts an object in `r`'s representation into the stored one (in place; no-op otherwise).
void to_storage(const ResourceInfo& r, boost::json::object& obj);
// Converts a stored object into `r`'s representation (in place; no-op otherwise).
void from_storage(const ResourceInfo& r, boost::json::object& obj);

}  // namespace ksched::apiserver
