// Admission plugins, as kube-apiserver runs them by default for the kinds we serve:
// DefaultTolerationSeconds, Priority, RuntimeClass and PodTopologyLabels on pods, Priority on
// PriorityClasses and on new PodGroups (priorityClassName resolved to spec.priority).
// They read other objects (classes) from the store and answer 403 Forbidden as upstream does.
#pragma once
#include <boost/json/fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/features.h"
#include "apiserver/resources.h"
#include "apiserver/status.h"
#include "apiserver/storage/storage.h"
#include "apiserver/write/validation.h"
#include "util/result.h"

namespace ksched::apiserver {

enum class WriteVerb { Create, Update };

// Which of the admission plugins we run are on: all by default, as kube-apiserver's defaults.
// scheduler_perf's API server runs without Priority (upstream's integration harness disables
// ServiceAccount, TaintNodesByCondition, Priority, StorageObjectInUseProtection), so its
// templates set `spec.priority` without a PriorityClass.
struct AdmissionPlugins {
  bool priority = true;
  bool default_toleration_seconds = true;
  bool runtime_class = true;
  bool pod_topology_labels = true;
  // kube-apiserver's --disable-admission-plugins: any plugin name upstream knows may be given
  // (those we do not run change nothing); another is upstream's "... plugin \"X\" is unknown".
  static util::Result<AdmissionPlugins> with_disabled(const std::vector<std::string>& names);
};

// Mutating admission: may change `obj`. `old` is the stored object on Update.
std::optional<ApiError> admit_mutating(const ResourceInfo& r, WriteVerb verb, std::string_view ns,
                                       boost::json::object& obj, const boost::json::object* old, const Store& store,
                                       const FeatureGates& gates = FeatureGates(),
                                       const AdmissionPlugins& plugins = AdmissionPlugins());
// Validating admission: runs after validation, may only refuse.
std::optional<ApiError> admit_validating(const ResourceInfo& r, WriteVerb verb, const boost::json::object& obj,
                                         const Store& store, const AdmissionPlugins& plugins = AdmissionPlugins());

}  // namespace ksched::apiserver
