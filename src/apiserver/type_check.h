// The typed half of decoding: upstream decodes a body into Go structs, so a known field with the
// wrong JSON type is a 400 before anything else runs. We keep bodies as JSON, and check each
// field the kind's schema knows (openapi.h: generated from our typed structs) the same way,
// with encoding/json's message. Fields the schema does not model pass unchecked.
#pragma once
#include <boost/json/fwd.hpp>
#include <optional>
#include <string>

#include "apiserver/resources.h"

namespace ksched::apiserver {

// "json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type
// v1.Container", or nullopt when every known field has an acceptable type.
std::optional<std::string> check_field_types(const ResourceInfo& r, const boost::json::object& obj);

}  // namespace ksched::apiserver
