// scheduling.k8s.io/v1alpha1 Workloads for gang tests: one gang pod group "workers" of minCount,
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

}  // namespace ksched::scheduler::testing
