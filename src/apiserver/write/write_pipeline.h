// The one path every write takes between decoding its body and storing the result, whatever the
// verb (create, update, the three patch types), the encoding (JSON, YAML, protobuf) or the
// subresource (status):
//
//   decode (apiVersion/kind, field types, canonical quantities, unknown and duplicate fields)
//   -> default -> mutating admission -> prepare -> validate (the metadata's rules, then the
//      kind's) -> validating admission
//
// Default, prepare and the kind's validation are the kind's strategy's (registry/strategy.h),
// so nothing here names a kind.
//
// The handlers own what is not about the object's content: names, UIDs, timestamps, generation,
// resourceVersion preconditions and the status/spec split of subresources (upstream's strategies).
#pragma once
#include <boost/json/fwd.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "apiserver/write/admission.h"
#include "apiserver/write/body_codec.h"
#include "apiserver/features.h"
#include "apiserver/resources.h"
#include "apiserver/status.h"
#include "apiserver/storage/storage.h"

namespace ksched::apiserver {

// What a write does with fields upstream's type does not have and with repeated keys
// (metav1.FieldValidation*): drop them silently, drop them with a warning each, or refuse.
enum class FieldValidation { Ignore, Warn, Strict };

// The fieldValidation query parameter: absent or "" is Warn, upstream's default. Another value is
// the 422 upstream answers (`options_kind`: "CreateOptions", "UpdateOptions" or "PatchOptions").
std::variant<FieldValidation, ApiError> parse_field_validation(const std::string* value,
                                                               std::string_view options_kind);

// The decode step: upstream's typed decode of a request body (or of a patch's result).
struct DecodeRequest {
  const ResourceInfo& resource;
  FieldValidation validation = FieldValidation::Warn;
  const std::vector<DuplicateKey>* duplicates = nullptr;  // the body's repeated keys (decode_body)
  std::vector<std::string>* warnings = nullptr;           // Warn: each unknown or repeated field
  // The raw body, for the summary upstream quotes when it cannot read the kind at all.
  std::string_view raw_body;
  // The object is a patch's result: errors are 422 Invalid on "patch", as upstream's patcher
  // reports a patched object it cannot decode, and the kind is not checked against the body's.
  bool patched = false;
  // Strict errors found before this decode (a merge patch's own repeated keys): reported first.
  const std::vector<std::string>* prior_strict = nullptr;
};

// Checks the object's apiVersion and kind against the resource written, then every field's type
// (and in canonical form every quantity, without the fields upstream's type lacks). Returns the
// Status upstream answers with: 400 BadRequest "Pod in version \"v1\" cannot be handled as a Pod:
// ...", or 422 for a patch's result.
std::optional<ApiError> decode_object(const DecodeRequest& d, boost::json::object& obj);

struct WriteRequest {
  const ResourceInfo& resource;
  WriteVerb verb;
  std::string_view subresource;  // "" or "status"
  std::string_view ns;
  const boost::json::object* old = nullptr;  // the stored object, on Update
  const FeatureGates* gates = nullptr;       // null: v1.35's defaults
  std::vector<std::string>* warnings = nullptr;  // Warning headers of an accepted write (strategies')
  std::int64_t now_unix = 0;  // the write's time (WriteContext::now_unix): timestamps a strategy sets
  const AdmissionPlugins* admission = nullptr;   // null: every plugin on
};

// Runs every step after decode on `obj`; returns the first error as the Status upstream answers with.
std::optional<ApiError> run_write_pipeline(const WriteRequest& w, boost::json::object& obj,
                                           const Store& store);

// The Warning headers upstream's recorder writes for a request's warnings: `299 - "text"` each,
// deduplicated, texts with control characters left out, shortened to 256 characters each once
// they total more than 4096.
std::vector<std::string> warning_headers(const std::vector<std::string>& warnings);

}  // namespace ksched::apiserver
