// The decode step of every write: a request body in JSON, YAML or protobuf becomes one JSON
// object (the pipeline's input), or the Status upstream answers for an undecodable body.
#pragma once
#include <boost/json/object.hpp>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "apiserver/status.h"

namespace ksched::apiserver {

enum class BodyEncoding { Json, Yaml, Protobuf };

// The encoding a request body's Content-Type names, as upstream negotiates the input serializer
// (no Content-Type is JSON; parameters such as charset are ignored), or 415 UnsupportedMediaType
// listing the accepted types for any other (text/plain, application/xml, CBOR, ...).
std::variant<BodyEncoding, ApiError> body_encoding(std::string_view content_type);

// A key met more than once in one JSON object of a body (the last value is the one kept, as Go's
// decoder keeps it). `object_path` is the object's path as upstream's strict decoder writes it:
// "" for the body, "metadata.labels", "spec.containers[0]".
struct DuplicateKey {
  std::string object_path;
  std::string key;
};

// The decoded object, or 415 UnsupportedMediaType (see body_encoding; broken protobuf) / 400 BadRequest.
// With `duplicates`, the JSON body's repeated keys are added to it (YAML and protobuf bodies
// report none).
std::variant<boost::json::object, ApiError> decode_body(std::string_view content_type, std::string_view body,
                                                        std::vector<DuplicateKey>* duplicates = nullptr);

// Parses JSON text as json::parse does, also finding repeated keys (`duplicates` may be null:
// then they are only dropped). Costs one hash per key over json::parse; the paths are worked out
// in a second pass over the text only when a repeat was seen.
boost::json::value parse_json(std::string_view text, boost::json::error_code& ec,
                              std::vector<DuplicateKey>* duplicates);

}  // namespace ksched::apiserver
