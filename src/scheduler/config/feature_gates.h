// kube-scheduler's feature gates as v1.35.4 registers them (upstream pkg/features/kube_features.go,
// the generic API server's, client-go's and component-base's logging gates; each at its v1.35 state)
// and upstream's rules for `--feature-gates` (component-base/featuregate): an unknown name is an
// error, a gate locked to its default (GA or deprecated and locked) cannot be set the other way,
// setting a GA or deprecated gate is warned about, AllAlpha/AllBeta set every alpha/beta gate not
// named explicitly.
#pragma once
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace ksched::scheduler::config {

enum class FeatureStage { Alpha, Beta, GA, Deprecated };

struct FeatureSpec {
  std::string_view name;
  bool default_on;
  FeatureStage stage;
  bool locked;  // LockToDefault
};

// Every gate, sorted by name (AllAlpha and AllBeta included).
std::span<const FeatureSpec> feature_gates_v135();
const FeatureSpec* find_feature_gate(std::string_view name);

// Checks explicit settings as upstream's featureGate.Set does. The error is upstream's text
// ("unrecognized feature gate: X", "cannot set feature gate X to false, feature is locked to
// true"); on success, the warnings upstream logs for GA and deprecated gates.
util::Result<std::vector<std::string>> check_feature_gates(const std::map<std::string, bool>& set);

// Whether `name` is on: set explicitly, else by AllAlpha/AllBeta for alpha/beta gates, else its
// default. Unknown names are off.
bool feature_enabled(const std::map<std::string, bool>& set, std::string_view name);

// The `--feature-gates` help's "Options are:" lines (alpha and beta gates, sorted).
std::vector<std::string> feature_gate_help_lines();

}  // namespace ksched::scheduler::config
