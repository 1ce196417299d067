// scheduling.k8s.io/v1alpha1 Workloads (and v1beta1 PodGroups) for gang tests: one gang pod group "workers" of minCount,
// and optionally a basic group "driver" beside it.
#pragma once
#include <memory>
#include <string>

#include "api/scheduling.h"

namespace ksched::scheduler::testing {

inline std::shared_ptr<const api::schedulingv1alpha1::Workload> MakeGangWorkload(const std::string& name, int min_count,
                                                                                 bool with_basic_driver = false) {
  namespace s1 = api::schedulingv1alpha1;
  auto w = std::make_shared<s1::Workload>();
  w->metadata.name = name;
  w->metadata.namespace_ = "default";
  s1::PodGroup gang;
  gang.name = "workers";
  gang.policy.gang.emplace().minCount = min_count;
  w->spec.podGroups.push_back(gang);
  if (with_basic_driver) {
    s1::PodGroup basic;
    basic.name = "driver";
    basic.policy.basic.emplace();
    w->spec.podGroups.push_back(basic);
  }
  return w;
}

// A scheduling.k8s.io/v1beta1 PodGroup in "default": a gang of min_count, or basic when min_count is 0.
inline std::shared_ptr<const api::schedulingv1beta1::PodGroup> MakePodGroup(const std::string& name, int min_count,
                                                                            const std::string& uid = "") {
  auto pg = std::make_shared<api::schedulingv1beta1::PodGroup>();
  pg->metadata.name = name;
  pg->metadata.namespace_ = "default";
  pg->metadata.uid = uid.empty() ? "uid-" + name : uid;
  if (min_count > 0) {
    pg->spec.schedulingPolicy.gang.emplace().minCount = min_count;
  } else {
    pg->spec.schedulingPolicy.basic.emplace();
  }
  return pg;
}

}  // namespace ksched::scheduler::testing
