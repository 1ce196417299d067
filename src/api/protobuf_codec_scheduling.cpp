// Typed protobuf decoding for scheduling.k8s.io (scheduling.h): v1alpha1 Workload, v1beta1 Workload
// and PodGroup, v1alpha3 CompositePodGroup, and their lists (the kinds kTypedDecoding names), so the scheduler's Workload and
// PodGroup informers read protobuf like its pod informer.
#include "api/protobuf_codec_impl.h"
#include "api/scheduling.h"

KSCHED_PROTOBUF_INSTANTIATE_KIND(::ksched::api::schedulingv1alpha1::Workload)
KSCHED_PROTOBUF_INSTANTIATE_KIND(::ksched::api::schedulingv1beta1::Workload)
KSCHED_PROTOBUF_INSTANTIATE_KIND(::ksched::api::schedulingv1beta1::PodGroup)
KSCHED_PROTOBUF_INSTANTIATE_KIND(::ksched::api::schedulingv1alpha3::CompositePodGroup)
