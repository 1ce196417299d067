// PATCH semantics: RFC 6902 JSON patch, RFC 7386 merge patch and strategic merge patch with the
// patch merge keys of the served types.
#pragma once
#include <boost/json/fwd.hpp>
#include <string_view>

#include "util/result.h"

namespace ksched::apiserver {

util::Result<void> apply_json_patch(boost::json::value& doc, const boost::json::value& patch);
void apply_merge_patch(boost::json::value& target, const boost::json::value& patch);
// `kind` selects kind-specific merge keys (e.g. Service ports merge by "port").
util::Result<void> apply_strategic_merge_patch(boost::json::value& target, const boost::json::value& patch,
                                               std::string_view kind);
// The patchMergeKey of list `field` (nullptr: the list is replaced whole) and whether a list of
// scalars merges (finalizers); the OpenAPI schemas advertise the same semantics.
const char* strategic_merge_key(std::string_view kind, std::string_view field);
bool strategic_merges_primitives(std::string_view field);

}  // namespace ksched::apiserver
