// The decode step of every write: a request body in JSON, YAML or protobuf becomes one JSON
// object (the pipeline's input), or the Status upstream answers for an undecodable body.
#pragma once
#include <boost/json/object.hpp>
#include <string_view>
#include <variant>

#include "apiserver/status.h"

namespace ksched::apiserver {

enum class BodyEncoding { Json, Yaml, Protobuf };

// The encoding a request body's Content-Type names, as upstream negotiates the input serializer
// (no Content-Type is JSON; parameters such as charset are ignored), or 415 UnsupportedMediaType
// listing the accepted types for any other (text/plain, application/xml, CBOR, ...).
std::variant<BodyEncoding, ApiError> body_encoding(std::string_view content_type);

// The decoded object, or 415 UnsupportedMediaType (see body_encoding; broken protobuf) / 400 BadRequest.
std::variant<boost::json::object, ApiError> decode_body(std::string_view content_type, std::string_view body);

}  // namespace ksched::apiserver
