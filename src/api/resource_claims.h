// The claim a pod gets from a ResourceClaimTemplate, as kube-controller-manager's ResourceClaim
// controller makes it (upstream pkg/controller/resourceclaim/controller.go, handleClaim): shared by
// that controller and by `ksched simulate`, which stands in for it offline.
#pragma once
#include <string>
#include <string_view>

#include "api/core.h"
#include "api/resource.h"

namespace ksched::api {

// Upstream's annotation on a claim made from a template: the pod claim's name.
inline constexpr std::string_view kPodClaimNameAnnotation = "resource.kubernetes.io/pod-claim-name";

// generateName of the claim: "<pod>-<pod claim>-", both parts shortened in proportion when longer
// than 57 characters, so that the API server's 5 random characters still fit in 63.
std::string claim_generate_name(std::string_view pod, std::string_view pod_claim);

// The claim to create for `pod_claim` of `pod` from `tmpl`: generateName as above, the pod's
// namespace, the pod as controlling owner (blockOwnerDeletion), the template's labels and
// annotations plus kPodClaimNameAnnotation, the template's spec. No name: the API server draws it.
resourcev1::ResourceClaim claim_from_template(const Pod& pod, std::string_view pod_claim,
                                              const resourcev1::ResourceClaimTemplate& tmpl);
// The same for another owner (DRAWorkloadResourceClaims: a PodGroup, `claim` one of its
// spec.resourceClaims): generateName "<owner>-<claim>-", the owner (of that apiVersion and kind)
// as controller, the annotation naming `claim`, as upstream's controller makes a PodGroup's claim.
resourcev1::ResourceClaim claim_from_template(const ObjectMeta& owner, std::string_view owner_api_version,
                                              std::string_view owner_kind, std::string_view claim,
                                              const resourcev1::ResourceClaimTemplate& tmpl);

}  // namespace ksched::api
