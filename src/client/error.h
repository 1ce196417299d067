// Errors from API calls: the server's metav1.Status (code/reason/message) or a transport failure
// (code 0), plus client-go's apierrors-style predicates.
#pragma once
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace ksched::client {

struct ApiError {
  int code = 0;             // HTTP status; 0 = transport error (connect/TLS/timeout/closed)
  std::string reason;       // NotFound, AlreadyExists, Conflict, Expired, Gone, Invalid, TooManyRequests, ...
  std::string message;      // the Status message or the transport error text
  std::string status_json;  // raw response body when it was a Status
  std::vector<std::string> cause_types;  // details.causes[].reason (metav1.CauseType)
  int retry_after_seconds = 0;

  std::string to_string() const {
    if (code == 0) return message;
    return message.empty() ? "the server responded with status " + std::to_string(code) + (reason.empty() ? "" : " (" + reason + ")")
                           : message;
  }
};

inline bool is_not_found(const ApiError& e) { return e.code == 404 || e.reason == "NotFound"; }
inline bool is_conflict(const ApiError& e) { return e.code == 409 && e.reason != "AlreadyExists"; }
inline bool is_already_exists(const ApiError& e) { return e.reason == "AlreadyExists"; }
inline bool is_gone(const ApiError& e) { return e.code == 410 || e.reason == "Expired" || e.reason == "Gone"; }
inline bool is_invalid(const ApiError& e) { return e.code == 422 || e.reason == "Invalid"; }
inline bool is_too_many_requests(const ApiError& e) { return e.code == 429; }
inline bool is_forbidden(const ApiError& e) { return e.code == 403; }
inline bool is_unauthorized(const ApiError& e) { return e.code == 401; }
inline bool is_server_error(const ApiError& e) { return e.code >= 500; }
inline bool is_transport(const ApiError& e) { return e.code == 0; }
inline bool has_status_cause(const ApiError& e, std::string_view type) {
  return std::find(e.cause_types.begin(), e.cause_types.end(), type) != e.cause_types.end();
}
// apierrors.IsTooLargeResourceVersion: a read at a resourceVersion the server has not reached yet
// (after a restart from older storage, or a lagging cache). Servers before v1.19 set no cause and
// are recognised by the message, as upstream does.
inline bool is_too_large_resource_version(const ApiError& e) {
  return has_status_cause(e, "ResourceVersionTooLarge") ||
         (e.code == 504 && e.message.find("Too large resource version") != std::string::npos);
}

// A value or an ApiError: the one Result type (util/result.h) with the client's error.
template <class T>
using Result = util::Result<T, ApiError>;

}  // namespace ksched::client
