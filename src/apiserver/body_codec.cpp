#include "apiserver/body_codec.h"

#include <boost/json.hpp>
#include <cctype>
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

constexpr std::string_view kAccepted = "application/json, application/yaml, application/vnd.kubernetes.protobuf";

}  // namespace

std::variant<BodyEncoding, ApiError> body_encoding(std::string_view content_type) {
  std::string_view media = content_type.substr(0, content_type.find(';'));
  while (!media.empty() && (media.front() == ' ' || media.front() == '\t')) media.remove_prefix(1);
  while (!media.empty() && (media.back() == ' ' || media.back() == '\t')) media.remove_suffix(1);
  if (media.empty()) return BodyEncoding::Json;
  std::string lower(media);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "application/json") return BodyEncoding::Json;
  if (lower == "application/yaml") return BodyEncoding::Yaml;
  if (lower == "application/vnd.kubernetes.protobuf") return BodyEncoding::Protobuf;
  return unsupported(kAccepted);
}

std::variant<json::object, ApiError> decode_body(std::string_view content_type, std::string_view body) {
  auto encoding = body_encoding(content_type);
  if (auto* e = std::get_if<ApiError>(&encoding)) return std::move(*e);
  std::string converted;
  std::string_view text = body;
  if (std::get<BodyEncoding>(encoding) == BodyEncoding::Protobuf) {
    // Protobuf bodies (kube-scheduler, kubectl create) become JSON once, up front.
    auto j = protobuf::to_json(body);
    if (!j) return unsupported(cat(cat(kAccepted, ": "), j.error()));
    converted = std::move(*j);
    text = converted;
  }
  json::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec && std::get<BodyEncoding>(encoding) == BodyEncoding::Yaml) {
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
