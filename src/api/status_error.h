// StatusError: the one model of a failed API call, as metav1.Status carries it. The API server
// writes it (to_json), the client reads it back from a response (from_response), and both ask it
// the same typed questions (is_not_found, is_gone, ...), as client-go's apierrors package does.
// api::Status (meta.h) stays the wire type for decoding a Status inside other objects (watch ERROR).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace ksched::api {

// One entry of details.causes.
struct ErrorCause {
  std::string reason;  // metav1.CauseType: FieldValueInvalid, FieldValueRequired, ResourceVersionTooLarge, ...
  std::string message;
  std::string field;
};

struct StatusError {
  int code = 0;        // HTTP status; 0 = a transport error on the client (connect, TLS, timeout, closed)
  std::string reason;  // metav1.StatusReason: NotFound, AlreadyExists, Conflict, Invalid, Expired, ...
  std::string message;
  std::string name;   // details.name
  std::string group;  // details.group
  std::string kind;   // details.kind
  std::string uid;    // details.uid
  std::vector<ErrorCause> causes;
  int retry_after_seconds = 0;  // details.retryAfterSeconds, or the Retry-After header on the client
  bool from_status = false;     // the client read a Status body (not plain text, not a transport error)

  // The Status body the server writes. Messages and details may quote client input (a 403 names
  // the resource of the URL): invalid UTF-8 becomes U+FFFD, as Go's encoder writes it.
  std::string to_json() const;
  // What a user reads: the Status message, or a description of the HTTP status when it had none.
  std::string to_string() const;
  // A non-2xx response (or a watch ERROR event's object): the Status in the body, else a reason
  // from the HTTP status and the body's text as the message, as client-go's newUnstructuredResponseError.
  static StatusError from_response(int status, std::string_view body, int retry_after_seconds = 0);
  static StatusError transport(std::string message) { return StatusError{.code = 0, .message = std::move(message)}; }
};

// Typed reasons (apierrors.IsNotFound, ...). A reason, when the server sent one, decides; the
// HTTP code stands in for servers and proxies that sent none.
inline bool is_not_found(const StatusError& e) { return e.code == 404 || e.reason == "NotFound"; }
inline bool is_conflict(const StatusError& e) { return e.code == 409 && e.reason != "AlreadyExists"; }
inline bool is_already_exists(const StatusError& e) { return e.reason == "AlreadyExists"; }
// ResourceExpired (410 Expired) and Gone alike: the caller must relist.
inline bool is_gone(const StatusError& e) { return e.code == 410 || e.reason == "Expired" || e.reason == "Gone"; }
inline bool is_invalid(const StatusError& e) { return e.code == 422 || e.reason == "Invalid"; }
inline bool is_too_many_requests(const StatusError& e) { return e.code == 429; }
inline bool is_forbidden(const StatusError& e) { return e.code == 403; }
inline bool is_unauthorized(const StatusError& e) { return e.code == 401; }
inline bool is_server_error(const StatusError& e) { return e.code >= 500; }
inline bool is_transport(const StatusError& e) { return e.code == 0; }
// The server's StatusReasonTimeout, or a client-side deadline (a transport error the client marks
// with the same reason).
inline bool is_timeout(const StatusError& e) { return e.reason == "Timeout"; }
bool has_status_cause(const StatusError& e, std::string_view type);
// apierrors.IsTooLargeResourceVersion: a read at a resourceVersion the server has not reached yet
// (after a restart from older storage, or a lagging cache). Servers before v1.19 set no cause and
// are recognised by the message, as upstream does.
bool is_too_large_resource_version(const StatusError& e);

}  // namespace ksched::api
