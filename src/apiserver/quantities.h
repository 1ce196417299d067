// Canonical resource.Quantity values in stored objects: every quantity field of a served kind is
// parsed on write and stored in upstream's canonical form ("0.5" -> "500m", "1024Mi" -> "1Gi",
// the JSON number 110 -> "110"), as decoding into upstream's typed objects does.
#pragma once
#include <boost/json/fwd.hpp>
#include <optional>
#include <string>

#include "apiserver/resources.h"

namespace ksched::apiserver {

// Rewrites the quantity fields of `obj` (a `r` object) in canonical form. Returns the parse
// error of the first malformed quantity (upstream's text), leaving `obj` partly rewritten.
std::optional<std::string> canonicalize_quantities(const ResourceInfo& r, boost::json::object& obj);

}  // namespace ksched::apiserver
