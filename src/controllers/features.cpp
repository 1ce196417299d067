#include "controllers/features.h"

#include <algorithm>
#include <array>
#include <sstream>

namespace ksched::controllers {

namespace {

constexpr std::array kControllerOnlyGates{
    ControllerGateSpec{"WorkloadWithJob", false, "Alpha", "1.36"},
};

// Set explicitly, else by AllAlpha (both gates read here are alpha in ksched's registry), else off.
bool alpha_enabled(const std::map<std::string, bool>& gates, std::string_view name) {
  if (auto it = gates.find(std::string(name)); it != gates.end()) return it->second;
  auto all = gates.find("AllAlpha");
  return all != gates.end() && all->second;
}

}  // namespace

std::span<const ControllerGateSpec> controller_only_gates() { return kControllerOnlyGates; }

bool is_controller_only_gate(std::string_view name) {
  return std::any_of(kControllerOnlyGates.begin(), kControllerOnlyGates.end(),
                     [&](const ControllerGateSpec& g) { return g.name == name; });
}

util::Result<SplitFeatureGates> split_controller_only_gates(const std::string& spec) {
  SplitFeatureGates out;
  std::stringstream ss(spec);
  std::string item;
  auto trim = [](std::string_view t) {
    const auto first = t.find_first_not_of(" \t\n\r\v\f");
    if (first == std::string_view::npos) return std::string();
    return std::string(t.substr(first, t.find_last_not_of(" \t\n\r\v\f") - first + 1));
  };
  while (std::getline(ss, item, ',')) {
    const auto eq = item.find('=');
    const std::string name = trim(std::string_view(item).substr(0, eq == std::string::npos ? item.size() : eq));
    if (eq == std::string::npos || !is_controller_only_gate(name)) {
      if (!item.empty()) out.rest += (out.rest.empty() ? "" : ",") + item;
      continue;
    }
    const std::string v = trim(std::string_view(item).substr(eq + 1));
    if (v == "true" || v == "1" || v == "t" || v == "T" || v == "TRUE" || v == "True") {
      out.controller_only[name] = true;
    } else if (v == "false" || v == "0" || v == "f" || v == "F" || v == "FALSE" || v == "False") {
      out.controller_only[name] = false;
    } else {
      return util::make_error("invalid argument \"" + spec + "\" for \"--feature-gates\" flag: invalid value of " + name +
                              "=" + v + ", err: strconv.ParseBool: parsing \"" + v + "\": invalid syntax");
    }
  }
  return out;
}

util::Result<ControllerFeatures> controller_features(const std::map<std::string, bool>& gates) {
  ControllerFeatures f;
  // GenericWorkload: alpha and off in v1.35 (beta and still off in v1.37).
  f.generic_workload = alpha_enabled(gates, "GenericWorkload");
  f.workload_with_job = alpha_enabled(gates, "WorkloadWithJob");
  if (f.workload_with_job && !f.generic_workload)
    return util::make_error("WorkloadWithJob is enabled, but depends on features that are disabled: [GenericWorkload]");
  f.dra_workload_resource_claims = alpha_enabled(gates, "DRAWorkloadResourceClaims");
  if (f.dra_workload_resource_claims && !f.generic_workload)
    return util::make_error(
        "DRAWorkloadResourceClaims is enabled, but depends on features that are disabled: [GenericWorkload]");
  return f;
}

}  // namespace ksched::controllers
