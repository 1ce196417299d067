// Errors from API calls: the server's metav1.Status (code/reason/message) or a transport failure
// (code 0), plus client-go's apierrors-style predicates.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace ksched::client {

struct ApiError {
  int code = 0;             // HTTP status; 0 = transport error (connect/TLS/timeout/closed)
  std::string reason;       // NotFound, AlreadyExists, Conflict, Expired, Gone, Invalid, TooManyRequests, ...
  std::string message;      // the Status message or the transport error text
  std::string status_json;  // raw response body when it was a Status
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

// A value or an ApiError.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T v) : v_(std::in_place_index<0>, std::move(v)) {}       // NOLINT
  Result(ApiError e) : v_(std::in_place_index<1>, std::move(e)) {}  // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  const ApiError& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, ApiError> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(ApiError e) : e_(std::move(e)) {}  // NOLINT
  bool ok() const { return !e_; }
  explicit operator bool() const { return ok(); }
  const ApiError& error() const { return *e_; }

 private:
  std::optional<ApiError> e_;
};

}  // namespace ksched::client
