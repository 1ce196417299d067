#include "apiserver/body_codec.h"

#include <boost/json.hpp>
#include <string>

#include "api/yaml_json.h"
#include "apiserver/protobuf.h"

namespace ksched::apiserver {

namespace json = boost::json;

namespace {

// Appends instead of operator+ chains, which GCC 12 misreports under -Warray-bounds.
std::string cat(std::string_view a, std::string_view b) {
  std::string out;
  out.reserve(a.size() + b.size());
  out.append(a).append(b);
  return out;
}

ApiError unsupported(std::string_view accepted) {
  return ApiError{415, "UnsupportedMediaType",
                  cat("the body of the request was in an unknown format - accepted media types include: ", accepted)};
}

}  // namespace

std::variant<json::object, ApiError> decode_body(std::string_view content_type, std::string_view body) {
  std::string converted;
  std::string_view text = body;
  if (protobuf::is_protobuf(content_type)) {
    // Protobuf bodies (kube-scheduler, kubectl create) become JSON once, up front.
    auto j = protobuf::to_json(body);
    if (!j) return unsupported(cat("application/json, application/yaml, application/vnd.kubernetes.protobuf: ", j.error()));
    converted = std::move(*j);
    text = converted;
  } else if (content_type.starts_with("application/cbor")) {
    return unsupported("application/json, application/yaml");
  }
  json::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec && content_type.starts_with("application/yaml")) {
    // YAML bodies: the same conversion (and scalar rules) as every other YAML we read.
    auto y = api::yaml_text_to_json(body);
    if (!y) return bad_request(cat("error converting YAML to JSON: ", y.error()));
    v = std::move(*y);
  } else if (ec) {
    return bad_request(cat("couldn't get version/kind; json parse error: ", ec.message()));
  }
  if (!v.is_object())
    return bad_request(cat(cat("json: cannot unmarshal ", v.is_array() ? "array" : "value"), " into Go value of type struct"));
  return std::move(v.get_object());
}

}  // namespace ksched::apiserver
