#include "apiserver/features.h"

#include <string>

namespace ksched::apiserver {

util::Result<FeatureGates> FeatureGates::parse(std::string_view spec) { return parse(spec, FeatureGates{}); }

namespace {

struct Gate {
  std::string_view name;
  bool FeatureGates::*flag;
};
constexpr Gate kGates[] = {
    {"ClearingNominatedNodeNameAfterBinding", &FeatureGates::ClearingNominatedNodeNameAfterBinding},
    {"CompositePodGroup", &FeatureGates::CompositePodGroup},
    {"ContainerStopSignals", &FeatureGates::ContainerStopSignals},
    {"DRAWorkloadResourceClaims", &FeatureGates::DRAWorkloadResourceClaims},
    {"GangScheduling", &FeatureGates::GangScheduling},
    {"GenericWorkload", &FeatureGates::GenericWorkload},
    {"MatchLabelKeysInPodTopologySpread", &FeatureGates::MatchLabelKeysInPodTopologySpread},
    {"MatchLabelKeysInPodTopologySpreadSelectorMerge", &FeatureGates::MatchLabelKeysInPodTopologySpreadSelectorMerge},
    {"NodeDeclaredFeatures", &FeatureGates::NodeDeclaredFeatures},
    {"PodGroupPreemptionPolicy", &FeatureGates::PodGroupPreemptionPolicy},
    {"PodLevelResources", &FeatureGates::PodLevelResources},
    {"PodTopologyLabelsAdmission", &FeatureGates::PodTopologyLabelsAdmission},
    {"TopologyAwareWorkloadScheduling", &FeatureGates::TopologyAwareWorkloadScheduling},
    {"WorkloadWithJob", &FeatureGates::WorkloadWithJob},
};

}  // namespace

bool FeatureGates::enabled(std::string_view name) const {
  for (const auto& g : kGates)
    if (g.name == name) return this->*(g.flag);
  return false;
}

util::Result<FeatureGates> FeatureGates::parse(std::string_view spec, const FeatureGates& base) {
  auto trim = [](std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
  };
  FeatureGates out = base;
  while (!spec.empty()) {
    std::size_t comma = spec.find(',');
    std::string_view item = trim(spec.substr(0, comma));
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
    if (item.empty()) continue;
    std::size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      return util::make_error("missing bool value for " + std::string(item));
    std::string_view name = trim(item.substr(0, eq)), value = trim(item.substr(eq + 1));
    bool on;
    // strconv.ParseBool's spellings.
    if (value == "1" || value == "t" || value == "T" || value == "true" || value == "TRUE" || value == "True")
      on = true;
    else if (value == "0" || value == "f" || value == "F" || value == "false" || value == "FALSE" || value == "False")
      on = false;
    else
      return util::make_error("invalid value of " + std::string(name) + "=" + std::string(value) +
                              ", err: strconv.ParseBool: parsing \"" + std::string(value) + "\": invalid syntax");
    const Gate* g = nullptr;
    for (const auto& k : kGates)
      if (k.name == name) g = &k;
    if (!g) return util::make_error("unrecognized feature gate: " + std::string(name));
    out.*(g->flag) = on;
  }
  // The dependencies kube_features.go declares, checked as component-base does once all are set.
  if (out.GangScheduling && !out.GenericWorkload)
    return util::make_error("GangScheduling is enabled, but depends on features that are disabled: [GenericWorkload]");
  if (out.TopologyAwareWorkloadScheduling && !out.GenericWorkload)
    return util::make_error(
        "TopologyAwareWorkloadScheduling is enabled, but depends on features that are disabled: [GenericWorkload]");
  if (out.DRAWorkloadResourceClaims && !out.GenericWorkload)
    return util::make_error(
        "DRAWorkloadResourceClaims is enabled, but depends on features that are disabled: [GenericWorkload]");
  if (out.WorkloadWithJob && !out.GenericWorkload)
    return util::make_error("WorkloadWithJob is enabled, but depends on features that are disabled: [GenericWorkload]");
  return out;
}

}  // namespace ksched::apiserver
