// The one path every write takes between decoding its body and storing the result, whatever the
// verb (create, update, the three patch types), the encoding (JSON, YAML, protobuf) or the
// subresource (status):
//
//   check field types -> canonicalise quantities -> default -> mutating admission -> prepare (create: reset status)
//   -> validate -> validating admission
//
// The handlers own what is not about the object's content: names, UIDs, timestamps, generation,
// resourceVersion preconditions and the status/spec split of subresources (upstream's strategies).
#pragma once
#include <boost/json/fwd.hpp>
#include <optional>
#include <string_view>

#include "apiserver/admission.h"
#include "apiserver/resources.h"
#include "apiserver/status.h"
#include "apiserver/storage.h"

namespace ksched::apiserver {

struct WriteRequest {
  const ResourceInfo& resource;
  WriteVerb verb;
  std::string_view subresource;             // "" or "status"
  std::string_view ns;
  const boost::json::object* old = nullptr;  // the stored object, on Update
};

// Runs every step on `obj`; returns the first error as the Status upstream answers with.
std::optional<ApiError> run_write_pipeline(const WriteRequest& w, boost::json::object& obj, const Store& store);

}  // namespace ksched::apiserver
