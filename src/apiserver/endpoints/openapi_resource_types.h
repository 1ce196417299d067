// What the write path's typed decode needs to know about resource.k8s.io beyond the schemas
// generated from src/api/resource.h: those typed structs hold every field of upstream's v1.35
// resource/v1 types (and v1beta2 DeviceTaintRule), so their definitions are complete (a member
// they lack is an unknown field), the Go named types encoding/json names in a type error, and the
// struct the inlined DeviceConfiguration is promoted from. Private to openapi.cpp, after
// openapi_core_types.h (whose GoNamedType and EmbeddedField it uses).
#pragma once
#include <string_view>

namespace ksched::apiserver::openapi {

inline constexpr std::string_view kResourceCompleteDefinitions[] = {
    "io.k8s.api.resource.v1.AllocatedDeviceStatus",
    "io.k8s.api.resource.v1.AllocationResult",
    "io.k8s.api.resource.v1.CELDeviceSelector",
    "io.k8s.api.resource.v1.CapacityRequestPolicy",
    "io.k8s.api.resource.v1.CapacityRequestPolicyRange",
    "io.k8s.api.resource.v1.CapacityRequirements",
    "io.k8s.api.resource.v1.Counter",
    "io.k8s.api.resource.v1.CounterSet",
    "io.k8s.api.resource.v1.Device",
    "io.k8s.api.resource.v1.DeviceAllocationConfiguration",
    "io.k8s.api.resource.v1.DeviceAllocationResult",
    "io.k8s.api.resource.v1.DeviceAttribute",
    "io.k8s.api.resource.v1.DeviceCapacity",
    "io.k8s.api.resource.v1.DeviceClaim",
    "io.k8s.api.resource.v1.DeviceClaimConfiguration",
    "io.k8s.api.resource.v1.DeviceClass",
    "io.k8s.api.resource.v1.DeviceClassConfiguration",
    "io.k8s.api.resource.v1.DeviceClassSpec",
    "io.k8s.api.resource.v1.DeviceConstraint",
    "io.k8s.api.resource.v1.DeviceCounterConsumption",
    "io.k8s.api.resource.v1.DeviceRequest",
    "io.k8s.api.resource.v1.DeviceRequestAllocationResult",
    "io.k8s.api.resource.v1.DeviceSelector",
    "io.k8s.api.resource.v1.DeviceSubRequest",
    "io.k8s.api.resource.v1.DeviceTaint",
    "io.k8s.api.resource.v1.DeviceToleration",
    "io.k8s.api.resource.v1.ExactDeviceRequest",
    "io.k8s.api.resource.v1.NetworkDeviceData",
    "io.k8s.api.resource.v1.OpaqueDeviceConfiguration",
    "io.k8s.api.resource.v1.ResourceClaim",
    "io.k8s.api.resource.v1.ResourceClaimConsumerReference",
    "io.k8s.api.resource.v1.ResourceClaimSpec",
    "io.k8s.api.resource.v1.ResourceClaimStatus",
    "io.k8s.api.resource.v1.ResourceClaimTemplate",
    "io.k8s.api.resource.v1.ResourceClaimTemplateSpec",
    "io.k8s.api.resource.v1.ResourcePool",
    "io.k8s.api.resource.v1.ResourceSlice",
    "io.k8s.api.resource.v1.ResourceSliceSpec",
    "io.k8s.api.resource.v1beta2.DeviceTaint",
    "io.k8s.api.resource.v1beta2.DeviceTaintRule",
    "io.k8s.api.resource.v1beta2.DeviceTaintRuleSpec",
    "io.k8s.api.resource.v1beta2.DeviceTaintRuleStatus",
    "io.k8s.api.resource.v1beta2.DeviceTaintSelector",
    // scheduling.k8s.io/v1alpha1 (api/scheduling.h: every field of v1.35's types).
    "io.k8s.api.scheduling.v1alpha1.BasicSchedulingPolicy",
    "io.k8s.api.scheduling.v1alpha1.GangSchedulingPolicy",
    "io.k8s.api.scheduling.v1alpha1.PodGroup",
    "io.k8s.api.scheduling.v1alpha1.PodGroupPolicy",
    "io.k8s.api.scheduling.v1alpha1.TypedLocalObjectReference",
    "io.k8s.api.scheduling.v1alpha1.Workload",
    "io.k8s.api.scheduling.v1alpha1.WorkloadSpec",
};

inline constexpr GoNamedType kResourceGoNamedTypes[] = {
    {"io.k8s.api.resource.v1.Device", "attributes", "map[v1.QualifiedName]v1.DeviceAttribute"},
    {"io.k8s.api.resource.v1.Device", "capacity", "map[v1.QualifiedName]v1.DeviceCapacity"},
    {"io.k8s.api.resource.v1.DeviceTaint", "effect", "v1.DeviceTaintEffect"},
    {"io.k8s.api.resource.v1.DeviceToleration", "operator", "v1.DeviceTolerationOperator"},
    {"io.k8s.api.resource.v1.DeviceToleration", "effect", "v1.DeviceTaintEffect"},
    {"io.k8s.api.resource.v1.ExactDeviceRequest", "allocationMode", "v1.DeviceAllocationMode"},
    {"io.k8s.api.resource.v1.DeviceSubRequest", "allocationMode", "v1.DeviceAllocationMode"},
    {"io.k8s.api.resource.v1.CapacityRequirements", "requests", "map[v1.QualifiedName]resource.Quantity"},
    {"io.k8s.api.resource.v1.DeviceConstraint", "matchAttribute", "v1.FullyQualifiedName"},
    {"io.k8s.api.resource.v1.DeviceConstraint", "distinctAttribute", "v1.FullyQualifiedName"},
    {"io.k8s.api.resource.v1.DeviceAllocationConfiguration", "source", "v1.AllocationConfigSource"},
    {"io.k8s.api.resource.v1.ResourceClaimConsumerReference", "uid", "types.UID"},
    {"io.k8s.api.resource.v1.DeviceRequestAllocationResult", "shareID", "types.UID"},
    {"io.k8s.api.resource.v1.DeviceRequestAllocationResult", "consumedCapacity",
     "map[v1.QualifiedName]resource.Quantity"},
    {"io.k8s.api.resource.v1beta2.DeviceTaint", "effect", "v1beta2.DeviceTaintEffect"},
};

inline constexpr EmbeddedField kResourceEmbeddedFields[] = {
    {"io.k8s.api.resource.v1.DeviceClaimConfiguration", "opaque", "DeviceConfiguration"},
    {"io.k8s.api.resource.v1.DeviceAllocationConfiguration", "opaque", "DeviceConfiguration"},
    {"io.k8s.api.resource.v1.DeviceClassConfiguration", "opaque", "DeviceConfiguration"},
};

}  // namespace ksched::apiserver::openapi
