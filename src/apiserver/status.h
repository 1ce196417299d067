// API errors as upstream metav1.Status bodies (reason/code/message/details): api::StatusError, the
// model the client reads back, with the constructors the handlers share.
#pragma once
#include <string>

#include "api/status_error.h"

namespace ksched::apiserver {

using ApiError = api::StatusError;
using Cause = api::ErrorCause;

inline ApiError bad_request(std::string msg) { return ApiError{400, "BadRequest", std::move(msg)}; }
inline ApiError internal_error(std::string msg) { return ApiError{500, "InternalError", "Internal error occurred: " + msg}; }

}  // namespace ksched::apiserver
