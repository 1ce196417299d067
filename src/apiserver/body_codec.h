// The decode step of every write: a request body in JSON, YAML or protobuf becomes one JSON
// object (the pipeline's input), or the Status upstream answers for an undecodable body.
#pragma once
#include <boost/json/object.hpp>
#include <string_view>
#include <variant>

#include "apiserver/status.h"

namespace ksched::apiserver {

// The decoded object, or 415 UnsupportedMediaType (CBOR, broken protobuf) / 400 BadRequest.
std::variant<boost::json::object, ApiError> decode_body(std::string_view content_type, std::string_view body);

}  // namespace ksched::apiserver
