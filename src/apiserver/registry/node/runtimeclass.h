// node.k8s.io/v1 RuntimeClass validation: upstream's ValidateRuntimeClass (pkg/apis/node/validation)
// for the fields beyond metadata, with its field paths, reasons and messages.
#pragma once
#include <boost/json/fwd.hpp>
#include <vector>

#include "apiserver/status.h"

namespace ksched::apiserver {

// Causes for `handler` (a DNS-1123 label; absent counts as ""), `overhead.podFixed` (checked as
// container limits, so paths read `overhead.limits[<name>]`) and `scheduling` (nodeSelector label
// keys and values, tolerations as for pods, no duplicate tolerations). Metadata (name, labels,
// annotations) is validate_object's part. Empty when valid; wrap with invalid() for the 422.
std::vector<Cause> validate_runtime_class(const boost::json::object& rc);

// Update: the causes of validate_runtime_class plus `handler: field is immutable` when it changed.
std::vector<Cause> validate_runtime_class_update(const boost::json::object& rc, const boost::json::object& old);

}  // namespace ksched::apiserver
