// core/v1's rules of the kinds whose strategies are in registry/core/strategies.cpp (upstream's
// pkg/apis/core/validation): ResourceQuota, LimitRange, PersistentVolumeClaim, ConfigMap and
// Secret, with upstream's field paths, reasons and messages. Metadata is the pipeline's part.
#pragma once
#include <boost/json/fwd.hpp>
#include <initializer_list>
#include <string>
#include <string_view>

#include "apiserver/write/validation_rules.h"

namespace ksched::apiserver::registry::core {

using rules::Errors;

// ValidateResourceQuota: the quota names and quantities of spec.hard (not on a status write) and
// of status.hard and status.used.
void resource_quota(Errors& e, const boost::json::object& rq, bool status_only);
// ValidateLimitRange: type names, resource names, and the order of min, defaults and max.
void limit_range(Errors& e, const boost::json::object& lr);
// ValidatePersistentVolumeClaimSpec's access modes, selector, storage request and volume mode.
void pvc_spec(Errors& e, const boost::json::object& spec, const std::string& path);
// ValidateConfigMap: data and binaryData keys, no key in both, at most 1 MiB in all.
void config_map(Errors& e, const boost::json::object& cm);
// ValidateSecret: data keys and size, and the keys each type requires.
void secret(Errors& e, const boost::json::object& s);
// ValidateConfigMapUpdate / ValidateSecretUpdate: an immutable object keeps its data.
void immutable_data(Errors& e, const boost::json::object& obj, const boost::json::object& old,
                    std::initializer_list<std::string_view> fields);

}  // namespace ksched::apiserver::registry::core
