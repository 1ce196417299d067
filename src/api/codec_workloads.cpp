// Codec instantiations for apps, policy, scheduling, node, coordination and events.k8s.io types.
#include "api/apps.h"
#include "api/codec_impl.h"
#include "api/coordination.h"
#include "api/events.h"
#include "api/node.h"
#include "api/policy.h"
#include "api/scheduling.h"

using namespace ksched::api;

KSCHED_CODEC_INSTANTIATE_KIND(ReplicaSet)
KSCHED_CODEC_INSTANTIATE_KIND(StatefulSet)
KSCHED_CODEC_INSTANTIATE_KIND(Deployment)
KSCHED_CODEC_INSTANTIATE_KIND(DaemonSet)
KSCHED_CODEC_INSTANTIATE_KIND(PodDisruptionBudget)
KSCHED_CODEC_INSTANTIATE_KIND(PriorityClass)
KSCHED_CODEC_INSTANTIATE_KIND(schedulingv1alpha1::Workload)
KSCHED_CODEC_INSTANTIATE_KIND(schedulingv1beta1::Workload)
KSCHED_CODEC_INSTANTIATE_KIND(schedulingv1beta1::PodGroup)
KSCHED_CODEC_INSTANTIATE_KIND(schedulingv1alpha3::CompositePodGroup)
KSCHED_CODEC_INSTANTIATE_KIND(RuntimeClass)
KSCHED_CODEC_INSTANTIATE_KIND(Lease)
KSCHED_CODEC_INSTANTIATE_KIND(eventsv1::Event)
KSCHED_CODEC_INSTANTIATE(PodDisruptionBudgetStatus)
KSCHED_CODEC_INSTANTIATE(LeaseSpec)
