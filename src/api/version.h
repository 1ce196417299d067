// The Kubernetes release ksched follows: its object model, API server and scheduler behave as
// upstream v1.35.4 does (plus what went beta or GA in v1.36 and v1.37). The API server's /version
// and `kube-scheduler --version` report it, and the simulated kubelets their nodeInfo; change it
// here only, when the baseline moves.
#pragma once
#include <string_view>

namespace ksched::api {

inline constexpr std::string_view kKubernetesVersion = "v1.35.4";
inline constexpr std::string_view kKubernetesMajor = "1";
inline constexpr std::string_view kKubernetesMinor = "35";
// The oldest minor version a v1.35 kube-apiserver stays compatible with (its /version reports
// minCompatibilityMinor as the binary's minor version minus one).
inline constexpr std::string_view kKubernetesMinCompatibilityMinor = "34";

}  // namespace ksched::api
