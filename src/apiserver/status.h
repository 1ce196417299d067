// API errors as upstream metav1.Status bodies (reason/code/message/details).
#pragma once
#include <boost/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "util/utf8.h"

namespace ksched::apiserver {

struct Cause {
  std::string reason;  // FieldValueInvalid, FieldValueRequired, ...
  std::string message;
  std::string field;
};

struct ApiError {
  int code = 500;
  std::string reason;  // "" = no reason (plain 500)
  std::string message;
  std::string name;    // details.name
  std::string group;   // details.group
  std::string kind;    // details.kind
  std::string uid;
  std::vector<Cause> causes;
  int retry_after = 0;

  // Messages may quote client input: invalid UTF-8 becomes U+FFFD, as Go's encoder writes it.
  std::string to_json() const {
    auto text = [](const std::string& s) { return util::to_valid_utf8(s); };
    boost::json::object o{{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", boost::json::object()},
                          {"status", "Failure"}, {"message", text(message)}};
    if (!reason.empty()) o["reason"] = reason;
    if (!name.empty() || !kind.empty() || !causes.empty() || retry_after) {
      boost::json::object d;
      if (!name.empty()) d["name"] = text(name);
      if (!group.empty()) d["group"] = group;
      if (!kind.empty()) d["kind"] = kind;
      if (!uid.empty()) d["uid"] = uid;
      if (!causes.empty()) {
        boost::json::array a;
        for (const auto& c : causes) a.push_back(boost::json::object{{"reason", c.reason}, {"message", text(c.message)}, {"field", text(c.field)}});
        d["causes"] = std::move(a);
      }
      if (retry_after) d["retryAfterSeconds"] = retry_after;
      o["details"] = std::move(d);
    }
    o["code"] = code;
    return boost::json::serialize(o);
  }
};

inline ApiError bad_request(std::string msg) { return ApiError{400, "BadRequest", std::move(msg)}; }
inline ApiError internal_error(std::string msg) { return ApiError{500, "InternalError", "Internal error occurred: " + msg}; }

}  // namespace ksched::apiserver
