// Validation of objects about to be stored, with upstream's field paths, messages and the 422
// Invalid Status shape: names, labels, annotations, required fields, and what an update may
// not change.
#pragma once
#include <boost/json/fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/resources.h"
#include "apiserver/status.h"

namespace ksched::apiserver {

// Validates an object about to be stored: the metadata's rules, then the kind's. A kind with a
// strategy (registry/strategy.h) brings its causes as `kind_causes`; for the core kinds not moved
// there yet (Pod, Node, PersistentVolume), this file has their
// rules on the new object whether it is created (`old` null) or updated, then on an update what
// the kind may not change relative to `old` (the pod spec fields). A write to the status
// subresource skips the rules of the parts it cannot change.
std::optional<ApiError> validate_write(const ResourceInfo& r, const boost::json::object& obj, const boost::json::object* old,
                                       std::string_view subresource, std::vector<Cause> kind_causes = {});
// Builds the Invalid error "Kind \"name\" is invalid: ..." from causes.
ApiError invalid(const ResourceInfo& r, const std::string& name, std::vector<Cause> causes);

// Name checks: return the error message or "" when valid.
std::string check_dns1123_subdomain(const std::string& v);
std::string check_dns1123_label(const std::string& v);

}  // namespace ksched::apiserver
