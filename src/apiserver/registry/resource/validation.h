// resource.k8s.io's validation rules (upstream's pkg/apis/resource/validation, v1.35 with what
// went beta in v1.36: partitionable devices, device taints, consumable capacity, binding
// conditions), with its field paths, reasons and messages. The objects come from the typed decode
// (every field has its JSON type); metadata is the pipeline's part.
#pragma once
#include <boost/json/fwd.hpp>
#include <functional>

#include "apiserver/write/validation_rules.h"

namespace ksched::apiserver::registry::resource {

using rules::Errors;
using rules::Path;

// ResourceClaimSpec under `path` ("spec" of a claim, "spec.spec" of a template). `stored`: the
// selectors were valid when stored and are not compiled again.
void claim_spec(Errors& e, const boost::json::object& spec, const Path& path, bool stored);
// A claim template's spec: its metadata (ValidateTemplateObjectMeta) and the claim spec.
void claim_template_spec(Errors& e, const boost::json::object& spec, const Path& path);
// validateResourceClaimStatusUpdate: reservedFor, device statuses, the allocation (immutable once
// set; validated when new).
void claim_status_update(Errors& e, const boost::json::object& claim, const boost::json::object& old);
// DeviceClassSpec; `old` (an update) lets unchanged selectors and configs count as stored.
void device_class_spec(Errors& e, const boost::json::object& spec, const boost::json::object* old, const Path& path);
// ResourceSliceSpec; `old` (an update) adds the immutable fields and skips unchanged capacities
// and taints.
void slice_spec(Errors& e, const boost::json::object& spec, const boost::json::object* old, const Path& path);
// DeviceTaintRuleSpec (v1beta2).
void taint_rule_spec(Errors& e, const boost::json::object& spec, const boost::json::object* old, const Path& path);
// metav1 ValidateConditions (and the list's maximum, when `max` > 0).
void conditions(Errors& e, const boost::json::array& cs, const Path& path, std::size_t max);
// AuthorizedForAdmin's check: the first request (or allocation result) asking for admin access
// needs the `resource.kubernetes.io/admin-access: "true"` label on the namespace;
// `ns_labels` is asked (the namespace read) only when some entry asks for admin access.
void admin_access(Errors& e, const boost::json::array* requests_or_results, const Path& path,
                  const std::function<const boost::json::object*()>& ns_labels, bool results);

// What the pipeline's CEL step says about one selector expression (the CEL engine's compile with
// upstream's environment and cost limit); empty when it compiles. Until src/cel is linked, only
// the length limit is checked.
void selector_expression(Errors& e, std::string_view expression, const Path& path, bool stored);

}  // namespace ksched::apiserver::registry::resource
