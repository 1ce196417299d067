// Codec instantiations for resource.k8s.io (resource.h): the kinds, their lists and watch events,
// and the sub-objects clients read or write on their own (a claim's status, a slice's spec).
#include "api/codec_impl.h"
#include "api/resource.h"

KSCHED_CODEC_INSTANTIATE_KIND(::ksched::api::resourcev1::DeviceClass)
KSCHED_CODEC_INSTANTIATE_KIND(::ksched::api::resourcev1::ResourceClaim)
KSCHED_CODEC_INSTANTIATE_KIND(::ksched::api::resourcev1::ResourceClaimTemplate)
KSCHED_CODEC_INSTANTIATE_KIND(::ksched::api::resourcev1::ResourceSlice)
KSCHED_CODEC_INSTANTIATE_KIND(::ksched::api::resourcev1beta2::DeviceTaintRule)
KSCHED_CODEC_INSTANTIATE(::ksched::api::resourcev1::ResourceClaimStatus)
KSCHED_CODEC_INSTANTIATE(::ksched::api::resourcev1::ResourceSliceSpec)
KSCHED_CODEC_INSTANTIATE(::ksched::api::resourcev1::ResourceClaimSpec)
KSCHED_CODEC_INSTANTIATE(::ksched::api::resourcev1::Device)
