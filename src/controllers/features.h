// The feature gates the controller manager acts on. kube-controller-manager shares one gate
// registry with the other components; ksched's registry is v1.35's (scheduler/config/
// feature_gates.h), so the gates the controllers need from v1.36-v1.37 are listed here, with
// their upstream stage and default, and `ksched up` accepts them beside v1.35's.
#pragma once
#include <map>
#include <span>
#include <string>
#include <string_view>

#include "util/result.h"

namespace ksched::controllers {

// A gate the controllers know that v1.35's registry does not have.
struct ControllerGateSpec {
  std::string_view name;
  bool default_on;
  std::string_view stage;  // "Alpha", "Beta"
  std::string_view since;  // upstream version that introduced it at this stage
};

// WorkloadWithJob (KEP-5547, alpha in v1.36, off): the Job controller gives gang-shaped Jobs a
// Workload and a PodGroup, and their pods spec.schedulingGroup.
std::span<const ControllerGateSpec> controller_only_gates();
bool is_controller_only_gate(std::string_view name);

// `--feature-gates` text ("A=true,B=false") split for `ksched up`: the controller-only gates,
// parsed here (upstream's strconv.ParseBool values), and the other items as text, in their order,
// for v1.35's parser (scheduler::app::parse_feature_gates). Errors quote the whole `spec` as
// upstream's flag error does.
struct SplitFeatureGates {
  std::map<std::string, bool> controller_only;
  std::string rest;
};
util::Result<SplitFeatureGates> split_controller_only_gates(const std::string& spec);

// What the controllers read of the cluster's gates, resolved once at start.
struct ControllerFeatures {
  bool generic_workload = false;   // the scheduling.k8s.io Workload and PodGroup APIs are served
  bool workload_with_job = false;  // WorkloadWithJob
  // DRAWorkloadResourceClaims (KEP-5729; alpha in v1.36, beta and off in v1.37): the ResourceClaim
  // controller makes PodGroups' claims from templates and resolves members' claims to them.
  bool dra_workload_resource_claims = false;
};

// Resolves the gates the controllers act on from `--feature-gates` settings (names the
// controllers do not act on are ignored; their validity is the flag parser's business). A gate
// on whose dependency is off is upstream's dependency error: "WorkloadWithJob is enabled, but
// depends on features that are disabled: [GenericWorkload]" (DRAWorkloadResourceClaims likewise).
util::Result<ControllerFeatures> controller_features(const std::map<std::string, bool>& gates);

}  // namespace ksched::controllers
