// Admission: defaulting (pods as upstream's defaults + admission plugins) and validation of names,
// labels, annotations and required fields, with upstream's 422 Invalid shape.
#pragma once
#include <boost/json/fwd.hpp>
#include <functional>
#include <optional>
#include <string>

#include "apiserver/resources.h"
#include "apiserver/status.h"

namespace ksched::apiserver {

// Fills pod defaults (restartPolicy, dnsPolicy, schedulerName, container defaults, tolerations...).
void default_pod(boost::json::object& pod);
// Pod create resets status to Pending plus qosClass.
void reset_pod_status(boost::json::object& pod);
// Resolves spec.priorityClassName to spec.priority; `lookup` returns the class value or nullopt.
std::optional<ApiError> admit_priority(boost::json::object& pod,
                                       const std::function<std::optional<std::int64_t>(const std::string&)>& lookup);
// Validates an object about to be stored; returns a 422 Invalid (or nullopt).
std::optional<ApiError> validate_object(const ResourceInfo& r, const boost::json::object& obj, bool create);
// Builds the Invalid error "Kind \"name\" is invalid: ..." from causes.
ApiError invalid(const ResourceInfo& r, const std::string& name, std::vector<Cause> causes);

// Name checks: return the error message or "" when valid.
std::string check_dns1123_subdomain(const std::string& v);
std::string check_dns1123_label(const std::string& v);

}  // namespace ksched::apiserver
