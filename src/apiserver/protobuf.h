// Protobuf request bodies (application/vnd.kubernetes.protobuf) turned into the JSON the rest of
// the server already understands. Clients that default to protobuf (kubectl create <type>,
// kube-scheduler's bindings, leases and events) treat a 415 as fatal, so the handler converts the
// body once and then proceeds exactly as for JSON.
//
// Deliberately free of Boost.Beast and util/log so the fuzz build can compile it on its own.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace ksched::apiserver::protobuf {

inline constexpr std::string_view kContentType = "application/vnd.kubernetes.protobuf";

// Decodes `k8s\0` + runtime.Unknown{typeMeta, raw} into the object's JSON form: kind/apiVersion
// from the envelope, JSON field names, and absent fields rendered the way Go's encoding/json
// renders the decoded Go struct (omitempty, null times, `{}` for non-pointer structs).
// Errors name the kind, the field path and the problem (unknown kind, unknown field number, wrong
// wire type, truncation, ...).
util::Result<std::string> to_json(std::string_view body);

// True for the protobuf media type, parameters ignored (`;stream=watch` is still protobuf).
bool is_protobuf(std::string_view content_type);

// "apiVersion/kind" pairs (e.g. "apps/v1/Deployment") the decoder knows, sorted. For tests/docs.
std::vector<std::string> supported_kinds();

}  // namespace ksched::apiserver::protobuf
