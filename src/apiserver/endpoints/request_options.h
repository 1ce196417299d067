// The query parameters of the verbs, decoded and validated as upstream does before a handler
// acts: runtime.ParameterCodec decoding (a number that does not parse is 400 BadRequest with
// strconv's message) and the options' validation in apimachinery's meta/v1 and
// meta/internalversion (422 Invalid naming the options kind, every error at once).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/endpoints/handlers.h"
#include "apiserver/status.h"
#include "util/result.h"

namespace ksched::apiserver {

// Go's strconv.ParseInt(s, 10, 64), with its error text ("strconv.ParseInt: parsing \"x\":
// invalid syntax" or "...: value out of range").
util::Result<std::int64_t> parse_go_int64(std::string_view s);

// A query parameter decoded as upstream's int64 options (limit, timeoutSeconds,
// gracePeriodSeconds): absent = nullopt, unparsable = 400 BadRequest.
util::Result<std::optional<std::int64_t>, ApiError> query_int64(const Request& req, std::string_view key);

// Every value of a repeated query parameter (dryRun=All&dryRun=All), in order.
std::vector<std::string> query_values(const Request& req, std::string_view key);

// "<kind>.meta.k8s.io \"\" is invalid: ..." (apierrors.NewInvalid for an options kind).
ApiError options_invalid(std::string_view kind, std::vector<Cause> causes);

// The errors ValidateDryRun gives: each value must be "All".
void validate_dry_run(const std::vector<std::string>& dry_run, std::vector<Cause>& causes);

enum class WriteOptionsKind { Create, Update, Patch, ApplyPatch };

// CreateOptions, UpdateOptions, PatchOptions: dryRun and fieldManager; for a patch that is not
// server-side apply, `force` is forbidden. (fieldValidation is validated where its semantics are.)
std::optional<ApiError> check_write_options(const Request& req, WriteOptionsKind kind);

// ListOptions as ValidateListOptions sees them (WatchList on, as in v1.35): the numbers parse,
// resourceVersionMatch and sendInitialEvents are allowed only where upstream allows them.
std::optional<ApiError> check_list_options(const Request& req);

// TableOptions: includeObject is Metadata, Object, None or empty (400 otherwise).
std::optional<ApiError> check_table_options(const Request& req);

}  // namespace ksched::apiserver
