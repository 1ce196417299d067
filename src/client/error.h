// Errors from API calls: api::StatusError, the server's metav1.Status (code/reason/message) or a
// transport failure (code 0), with apierrors-style predicates. The client names them in its own
// namespace so that callers write client::is_not_found(e) beside client::Result.
#pragma once
#include "api/status_error.h"
#include "util/result.h"

namespace ksched::client {

using ApiError = api::StatusError;

using api::has_status_cause;
using api::is_already_exists;
using api::is_conflict;
using api::is_forbidden;
using api::is_gone;
using api::is_invalid;
using api::is_not_found;
using api::is_server_error;
using api::is_timeout;
using api::is_too_large_resource_version;
using api::is_too_many_requests;
using api::is_transport;
using api::is_unauthorized;

// A value or an ApiError: the one Result type (util/result.h) with the client's error.
template <class T>
using Result = util::Result<T, ApiError>;

}  // namespace ksched::client
