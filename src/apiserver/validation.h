// Validation of objects about to be stored, with upstream's field paths, messages and the 422
// Invalid Status shape: names, labels, annotations, required fields, and what an update may
// not change.
#pragma once
#include <boost/json/fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "apiserver/resources.h"
#include "apiserver/status.h"

namespace ksched::apiserver {

// Validates an object about to be created (create = true) or the new state of an update.
std::optional<ApiError> validate_object(const ResourceInfo& r, const boost::json::object& obj, bool create);
// Validates an update: the object itself, then what the kind forbids changing relative to `old`
// (pod spec fields, PriorityClass value and preemptionPolicy).
std::optional<ApiError> validate_update(const ResourceInfo& r, const boost::json::object& obj,
                                        const boost::json::object& old);
// Builds the Invalid error "Kind \"name\" is invalid: ..." from causes.
ApiError invalid(const ResourceInfo& r, const std::string& name, std::vector<Cause> causes);

// Name checks: return the error message or "" when valid.
std::string check_dns1123_subdomain(const std::string& v);
std::string check_dns1123_label(const std::string& v);

}  // namespace ksched::apiserver
