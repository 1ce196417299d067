// ResourceFor (resources.h) of the scheduling.k8s.io kinds the scheduler and the Job controller
// watch (api/scheduling.h).
#pragma once
#include "api/scheduling.h"
#include "client/resources.h"

namespace ksched::client {

template <>
struct ResourceFor<api::schedulingv1alpha1::Workload> {
  static constexpr ResourceInfo info{"scheduling.k8s.io", "v1alpha1", "workloads", "Workload", true};
};

// The Job controller's informer (gate WorkloadWithJob): v1beta1, which the server serves.
template <>
struct ResourceFor<api::schedulingv1beta1::Workload> {
  static constexpr ResourceInfo info{"scheduling.k8s.io", "v1beta1", "workloads", "Workload", true};
};

template <>
struct ResourceFor<api::schedulingv1beta1::PodGroup> {
  static constexpr ResourceInfo info{"scheduling.k8s.io", "v1beta1", "podgroups", "PodGroup", true};
};

template <>
struct ResourceFor<api::schedulingv1alpha3::CompositePodGroup> {
  static constexpr ResourceInfo info{"scheduling.k8s.io", "v1alpha3", "compositepodgroups", "CompositePodGroup", true};
};

}  // namespace ksched::client
