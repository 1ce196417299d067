// Typed protobuf decoding for resource.k8s.io (resource.h): v1 DeviceClass, ResourceClaim,
// ResourceClaimTemplate and ResourceSlice, v1beta2 DeviceTaintRule, and their lists (the kinds
// kTypedDecoding names).
#include "api/protobuf_codec_impl.h"
#include "api/resource.h"

KSCHED_PROTOBUF_INSTANTIATE_KIND(::ksched::api::resourcev1::DeviceClass)
KSCHED_PROTOBUF_INSTANTIATE_KIND(::ksched::api::resourcev1::ResourceClaim)
KSCHED_PROTOBUF_INSTANTIATE_KIND(::ksched::api::resourcev1::ResourceClaimTemplate)
KSCHED_PROTOBUF_INSTANTIATE_KIND(::ksched::api::resourcev1::ResourceSlice)
KSCHED_PROTOBUF_INSTANTIATE_KIND(::ksched::api::resourcev1beta2::DeviceTaintRule)
