// Serving a resource at several versions (or as a view of another resource): what the handlers
// call on the way in and out. A resource whose ResourceInfo has no `conversion` (every resource
// but a few) is stored as served: each function is then one null check and hands the stored JSON
// on untouched, so the write and watch paths of pods pay nothing for this.
//
// A converted resource keeps its objects in its storage version's table (`storage_id`). A write
// is decoded, defaulted, admitted and validated in the request's version (the version's own
// strategy, as upstream's declarative validation runs on the versioned type) against the stored
// object converted to that version, then converted to the storage version and stored. Reads,
// lists, watch events and tables convert each stored object to the request's version; an object
// already in that version (the storage version's readers) is passed on without parsing it.
#pragma once
#include <boost/json/fwd.hpp>
#include <string>
#include <string_view>

#include "apiserver/resources.h"

namespace ksched::apiserver {

// Whether `r`'s objects go through a conversion (false for almost every resource).
inline bool is_converted(const ResourceInfo& r) { return r.conversion != nullptr; }
// The resource whose table holds `r`'s objects.
inline int storage_id(const ResourceInfo& r) { return r.storage; }

// Stored JSON in `r`'s version (a copy of it when no conversion is needed).
std::string to_view(const ResourceInfo& r, std::string_view stored);
// The same for an object just written, given both forms of it: a converted resource converts the
// object, without parsing the JSON again, and takes its values (the object is left emptied).
std::string to_view(const ResourceInfo& r, boost::json::object&& stored_obj, std::string_view stored_json);
// An object in `r`'s version into the storage version (in place; no-op when unconverted).
void to_storage(const ResourceInfo& r, boost::json::object& obj);
// A stored object into `r`'s version (in place; no-op when unconverted).
void from_storage(const ResourceInfo& r, boost::json::object& obj);

}  // namespace ksched::apiserver
