#include "api/status_error.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>

#include "api/protobuf_json.h"
#include "util/utf8.h"

namespace ksched::api {

std::string StatusError::to_json() const {
  auto text = [](const std::string& s) { return util::to_valid_utf8(s); };
  boost::json::object o{{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", boost::json::object()},
                        {"status", "Failure"}, {"message", text(message)}};
  if (!reason.empty()) o["reason"] = reason;
  if (!name.empty() || !kind.empty() || !causes.empty() || retry_after_seconds) {
    boost::json::object d;
    if (!name.empty()) d["name"] = text(name);
    if (!group.empty()) d["group"] = text(group);
    if (!kind.empty()) d["kind"] = text(kind);
    if (!uid.empty()) d["uid"] = text(uid);
    if (!causes.empty()) {
      boost::json::array a;
      for (const auto& c : causes)
        a.push_back(boost::json::object{{"reason", c.reason}, {"message", text(c.message)}, {"field", text(c.field)}});
      d["causes"] = std::move(a);
    }
    if (retry_after_seconds) d["retryAfterSeconds"] = retry_after_seconds;
    o["details"] = std::move(d);
  }
  o["code"] = code;
  return boost::json::serialize(o);
}

std::string StatusError::to_string() const {
  if (code == 0 || !message.empty()) return message;
  return "the server responded with status " + std::to_string(code) + (reason.empty() ? "" : " (" + reason + ")");
}

namespace {

std::string string_member(const boost::json::object& o, std::string_view key) {
  auto it = o.find(key);
  return it != o.end() && it->value().is_string() ? std::string(it->value().as_string()) : std::string();
}

// The reason client-go assigns to a response that carried no Status.
const char* reason_for_code(int status) {
  switch (status) {
    case 400: return "BadRequest";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "NotFound";
    case 405: return "MethodNotAllowed";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 415: return "UnsupportedMediaType";
    case 422: return "Invalid";
    case 429: return "TooManyRequests";
    case 500: return "InternalError";
    case 503: return "ServiceUnavailable";
    case 504: return "Timeout";
    default: return "";
  }
}

}  // namespace

StatusError StatusError::from_response(int status, std::string_view body, int retry_after_seconds) {
  StatusError e;
  e.code = status;
  e.retry_after_seconds = retry_after_seconds;
  // A client that asked for protobuf gets the Status in protobuf.
  std::string converted;
  if (protobuf::has_magic(body)) {
    if (auto j = protobuf::to_json(body, protobuf::UnknownFields::Skip)) converted = std::move(*j);
  }
  boost::system::error_code ec;
  auto v = boost::json::parse(converted.empty() ? body : std::string_view(converted), ec);
  if (!ec && v.is_object() && string_member(v.as_object(), "kind") == "Status") {
    const auto& o = v.as_object();
    e.from_status = true;
    e.reason = string_member(o, "reason");
    e.message = string_member(o, "message");
    if (auto it = o.find("code"); it != o.end() && it->value().is_int64()) e.code = int(it->value().as_int64());
    if (auto it = o.find("details"); it != o.end() && it->value().is_object()) {
      const auto& d = it->value().as_object();
      e.name = string_member(d, "name");
      e.group = string_member(d, "group");
      e.kind = string_member(d, "kind");
      e.uid = string_member(d, "uid");
      if (auto r = d.find("retryAfterSeconds"); r != d.end() && r->value().is_int64() && !e.retry_after_seconds)
        e.retry_after_seconds = int(r->value().as_int64());
      if (auto c = d.find("causes"); c != d.end() && c->value().is_array()) {
        for (const auto& cause : c->value().as_array()) {
          if (!cause.is_object()) continue;
          const auto& co = cause.as_object();
          e.causes.push_back({string_member(co, "reason"), string_member(co, "message"), string_member(co, "field")});
        }
      }
    }
  }
  // A Status without a reason takes it from its own code, which may differ from the HTTP status.
  if (e.reason.empty()) e.reason = reason_for_code(e.code);
  if (e.message.empty()) {
    // At most 512 bytes of the body, cut between characters and with invalid bytes replaced, so
    // that the message is valid UTF-8 and reads back unchanged from the Status we encode.
    std::size_t cut = 0;
    while (cut < body.size()) {
      std::size_t n = std::max<std::size_t>(util::utf8_sequence_length(body, cut), 1);
      if (cut + n > 512) break;
      cut += n;
    }
    std::string b = util::to_valid_utf8(body.substr(0, cut));
    while (!b.empty() && std::isspace(static_cast<unsigned char>(b.back()))) b.pop_back();
    e.message = "the server responded with status " + std::to_string(status) + (b.empty() ? "" : ": " + b);
  }
  return e;
}

bool has_status_cause(const StatusError& e, std::string_view type) {
  return std::any_of(e.causes.begin(), e.causes.end(), [&](const ErrorCause& c) { return c.reason == type; });
}

bool is_too_large_resource_version(const StatusError& e) {
  return has_status_cause(e, "ResourceVersionTooLarge") ||
         (e.code == 504 && e.message.find("Too large resource version") != std::string::npos);
}

}  // namespace ksched::api
