// Validation of objects about to be stored, with upstream's field paths, messages and the 422
// Invalid Status shape: the metadata every kind shares (names, labels, annotations); the kinds'
// own rules are their strategies' (registry/).
#pragma once
#include <boost/json/fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/resources.h"
#include "apiserver/status.h"

namespace ksched::apiserver {

// Validates an object about to be stored: the metadata's rules (ValidateObjectMeta, the name as
// the kind names it), then `kind_causes`, the kind's own, which its strategy found
// (registry/strategy.h: on create, on an update, or on a status write).
std::optional<ApiError> validate_write(const ResourceInfo& r, const boost::json::object& obj,
                                       std::vector<Cause> kind_causes = {});
// Builds the Invalid error "Kind \"name\" is invalid: ..." from causes.
ApiError invalid(const ResourceInfo& r, const std::string& name, std::vector<Cause> causes);

// Name checks: return the error message or "" when valid.
std::string check_dns1123_subdomain(const std::string& v);
std::string check_dns1123_label(const std::string& v);

}  // namespace ksched::apiserver
