#include "api/resource_claims.h"

namespace ksched::api {

std::string claim_generate_name(std::string_view pod, std::string_view pod_claim) {
  std::string name = std::string(pod) + "-" + std::string(pod_claim) + "-";
  constexpr std::size_t kMaxBase = 57;  // a hyphen and 5 random characters fit in 63
  if (name.size() > kMaxBase) {
    // Shorten both parts in proportion, so the pod claim's name is not cut off entirely.
    const std::size_t total = name.size();
    name = std::string(pod.substr(0, pod.size() * kMaxBase / total)) + "-" +
           std::string(pod_claim.substr(0, pod_claim.size() * kMaxBase / total));
  }
  return name;
}

resourcev1::ResourceClaim claim_from_template(const Pod& pod, std::string_view pod_claim,
                                              const resourcev1::ResourceClaimTemplate& tmpl) {
  return claim_from_template(pod.metadata, "v1", "Pod", pod_claim, tmpl);
}

resourcev1::ResourceClaim claim_from_template(const ObjectMeta& owner_meta, std::string_view owner_api_version,
                                              std::string_view owner_kind, std::string_view claim,
                                              const resourcev1::ResourceClaimTemplate& tmpl) {
  resourcev1::ResourceClaim c;
  c.metadata.generateName = claim_generate_name(owner_meta.name, claim);
  c.metadata.namespace_ = owner_meta.namespace_;
  OwnerReference owner;
  owner.apiVersion = std::string(owner_api_version);
  owner.kind = std::string(owner_kind);
  owner.name = owner_meta.name;
  owner.uid = owner_meta.uid;
  owner.controller = true;
  owner.blockOwnerDeletion = true;
  c.metadata.ownerReferences = std::vector<OwnerReference>{std::move(owner)};
  c.metadata.annotations = tmpl.spec.metadata.annotations;
  c.metadata.annotations.set(std::string(kPodClaimNameAnnotation), std::string(claim));
  c.metadata.labels = tmpl.spec.metadata.labels;
  c.spec = tmpl.spec.spec;
  return c;
}

}  // namespace ksched::api
