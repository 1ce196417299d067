// PATCH semantics: RFC 6902 JSON patch, RFC 7386 merge patch and strategic merge patch with the
// patch merge keys of the served types.
#pragma once
#include <boost/json/fwd.hpp>
#include <cstddef>
#include <string_view>

#include "util/result.h"

namespace ksched::apiserver {

// Upstream's bounds on a JSON patch (k8s.io/apiserver handlers/patch.go and server.Config's
// JSONPatchMaxCopyBytes, evanphx/json-patch's AccumulatedCopySizeLimit): at most 10,000
// operations (413 before any is applied), and the values its `copy` operations duplicate may add
// up to 3 MiB of JSON (the operation that passes it fails the patch), so that a patch cannot
// double an object again and again.
inline constexpr std::size_t kMaxJsonPatchOperations = 10000;
inline constexpr std::size_t kJsonPatchMaxCopyBytes = std::size_t{3} << 20;

// Applies an RFC 6902 patch; `max_copy_bytes` 0 = no bound on what copies add.
util::Result<void> apply_json_patch(boost::json::value& doc, const boost::json::value& patch,
                                    std::size_t max_copy_bytes = kJsonPatchMaxCopyBytes);
void apply_merge_patch(boost::json::value& target, const boost::json::value& patch);
// `kind` selects kind-specific merge keys (e.g. Service ports merge by "port").
util::Result<void> apply_strategic_merge_patch(boost::json::value& target, const boost::json::value& patch,
                                               std::string_view kind);
// The patchMergeKey of list `field` (nullptr: the list is replaced whole) and whether a list of
// scalars merges (finalizers); the OpenAPI schemas advertise the same semantics.
const char* strategic_merge_key(std::string_view kind, std::string_view field);
bool strategic_merges_primitives(std::string_view field);

}  // namespace ksched::apiserver
