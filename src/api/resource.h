// resource.k8s.io (Dynamic Resource Allocation): v1 DeviceClass, ResourceClaim,
// ResourceClaimTemplate and ResourceSlice, complete as upstream's v1.35 k8s.io/api/resource/v1,
// and v1beta2 DeviceTaintRule (the newest version serving it).
//
// The scheduler's allocator watches every slice and every claim, so the members it reads are
// typed and the structs stay small: texts that repeat across slices and devices (driver names,
// class names, attribute strings) are ThinStrings, per-object names CompactStrings, usually absent
// sub-objects Boxed, and a device's attribute and capacity maps are copy-on-write FlatMaps that
// the codec interns by their JSON text: the same device model on 5,000 nodes holds one map.
// Member names are the JSON names; C++ keywords get a trailing underscore (`int_`, `default_`).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/core.h"
#include "api/meta.h"
#include "api/object.h"
#include "api/quantity.h"

namespace ksched::api::resourcev1 {

#define KSCHED_F(name) field(#name, &T::name)

// ---------------------------------------------------------------- constants (types.go)
inline constexpr std::string_view kGroup = "resource.k8s.io";
inline constexpr std::string_view kFinalizer = "resource.kubernetes.io/delete-protection";
inline constexpr std::string_view kExtendedResourceClaimAnnotation = "resource.kubernetes.io/extended-resource-claim";
inline constexpr std::string_view kAdminNamespaceLabelKey = "resource.kubernetes.io/admin-access";
inline constexpr std::size_t kDriverNameMaxLength = 63;
inline constexpr std::size_t kPoolNameMaxLength = 253;
inline constexpr std::size_t kResourceSliceMaxDevices = 128;
inline constexpr std::size_t kResourceSliceMaxDevicesWithTaintsOrConsumesCounters = 64;
inline constexpr std::size_t kResourceSliceMaxCounterSets = 8;
inline constexpr std::size_t kResourceSliceMaxCountersPerCounterSet = 32;
inline constexpr std::size_t kResourceSliceMaxDeviceCounterConsumptionsPerDevice = 2;
inline constexpr std::size_t kResourceSliceMaxCountersPerDeviceCounterConsumption = 32;
inline constexpr std::size_t kResourceSliceMaxAttributesAndCapacitiesPerDevice = 32;
inline constexpr std::size_t kBindingConditionsMaxSize = 4;
inline constexpr std::size_t kBindingFailureConditionsMaxSize = 4;
inline constexpr std::size_t kDeviceMaxDomainLength = 63;
inline constexpr std::size_t kDeviceMaxIDLength = 32;
inline constexpr std::size_t kDeviceAttributeMaxValueLength = 64;
inline constexpr std::size_t kDeviceTaintsMaxLength = 16;
inline constexpr std::size_t kAllocationResultsMaxSize = 32;
inline constexpr std::size_t kDeviceRequestsMaxSize = kAllocationResultsMaxSize;
inline constexpr std::size_t kDeviceConstraintsMaxSize = 32;
inline constexpr std::size_t kDeviceConfigMaxSize = 32;
inline constexpr std::size_t kDeviceSelectorsMaxSize = 32;
inline constexpr std::size_t kFirstAvailableDeviceRequestMaxSize = 8;
inline constexpr std::size_t kDeviceTolerationsMaxLength = 16;
inline constexpr std::uint64_t kCELSelectorExpressionMaxCost = 1000000;
inline constexpr std::size_t kCELSelectorExpressionMaxLength = 10 * 1024;
inline constexpr std::size_t kOpaqueParametersMaxLength = 10 * 1024;
inline constexpr std::size_t kResourceClaimReservedForMaxSize = 256;
inline constexpr std::size_t kAllocatedDeviceStatusMaxConditions = 8;
inline constexpr std::size_t kAllocatedDeviceStatusDataMaxLength = 10 * 1024;
inline constexpr std::size_t kNetworkDeviceDataMaxIPs = 16;
inline constexpr std::size_t kNetworkDeviceDataInterfaceNameMaxLength = 256;
inline constexpr std::size_t kNetworkDeviceDataHardwareAddressMaxLength = 128;
inline constexpr std::size_t kDeviceTaintRuleStatusMaxConditions = 8;

// ---------------------------------------------------------------- ResourceSlice
struct Counter {
  Quantity value;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<Counter>) {
  using T = Counter;
  return field_list(KSCHED_F(value));
}
using CounterMap = FlatMap<Counter, true>;

// A set of counters that devices of the slice's pool draw from (partitionable devices).
struct CounterSet {
  std::string name;
  CounterMap counters;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<CounterSet>) {
  using T = CounterSet;
  return field_list(KSCHED_F(name), KSCHED_F(counters));
}

struct ResourcePool {
  CompactString name;
  std::int64_t generation = 0;
  std::int64_t resourceSliceCount = 0;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ResourcePool>) {
  using T = ResourcePool;
  return field_list(KSCHED_F(name), KSCHED_F(generation), KSCHED_F(resourceSliceCount));
}

struct DeviceCounterConsumption {
  std::string counterSet;
  CounterMap counters;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DeviceCounterConsumption>) {
  using T = DeviceCounterConsumption;
  return field_list(KSCHED_F(counterSet), KSCHED_F(counters));
}

struct CapacityRequestPolicyRange {
  std::optional<Quantity> min;
  std::optional<Quantity> max;
  std::optional<Quantity> step;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<CapacityRequestPolicyRange>) {
  using T = CapacityRequestPolicyRange;
  return field_list(KSCHED_F(min), KSCHED_F(max), KSCHED_F(step));
}

struct CapacityRequestPolicy {
  std::optional<Quantity> default_;
  std::vector<Quantity> validValues;
  std::optional<CapacityRequestPolicyRange> validRange;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<CapacityRequestPolicy>) {
  using T = CapacityRequestPolicy;
  return field_list(field("default", &T::default_), KSCHED_F(validValues), KSCHED_F(validRange));
}

struct DeviceCapacity {
  Quantity value;
  Boxed<CapacityRequestPolicy> requestPolicy;  // consumable capacity only
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DeviceCapacity>) {
  using T = DeviceCapacity;
  return field_list(KSCHED_F(value), KSCHED_F(requestPolicy));
}

// Exactly one member is set (validation's rule); strings repeat across devices.
struct DeviceAttribute {
  std::optional<std::int64_t> int_;
  std::optional<bool> bool_;
  std::optional<ThinString> string;
  std::optional<ThinString> version;  // semver 2.0.0
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DeviceAttribute>) {
  using T = DeviceAttribute;
  return field_list(field("int", &T::int_), field("bool", &T::bool_), KSCHED_F(string), KSCHED_F(version));
}

// Keys are QualifiedNames: "<C identifier>" (the driver's domain implied) or "<domain>/<C identifier>".
using AttributeMap = FlatMap<DeviceAttribute, true>;
using CapacityMap = FlatMap<DeviceCapacity, true>;

struct DeviceTaint {
  std::string key;
  std::string value;
  ThinString effect;  // None | NoSchedule | NoExecute
  std::optional<Time> timeAdded;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DeviceTaint>) {
  using T = DeviceTaint;
  return field_list(KSCHED_F(key), KSCHED_F(value), KSCHED_F(effect), KSCHED_F(timeAdded));
}

struct Device {
  CompactString name;  // a DNS label, unique in the pool
  AttributeMap attributes;
  CapacityMap capacity;
  SharedVector<DeviceCounterConsumption> consumesCounters;
  // Per-device node selection (spec.perDeviceNodeSelection): exactly one of the three.
  Boxed<std::string> nodeName;
  Boxed<NodeSelector> nodeSelector;
  std::optional<bool> allNodes;
  SharedVector<DeviceTaint> taints;
  std::optional<bool> bindsToNode;
  SharedVector<std::string> bindingConditions;
  SharedVector<std::string> bindingFailureConditions;
  std::optional<bool> allowMultipleAllocations;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<Device>) {
  using T = Device;
  return field_list(KSCHED_F(name),          KSCHED_F(attributes),        KSCHED_F(capacity),
                    KSCHED_F(consumesCounters), KSCHED_F(nodeName),       KSCHED_F(nodeSelector),
                    KSCHED_F(allNodes),      KSCHED_F(taints),            KSCHED_F(bindsToNode),
                    KSCHED_F(bindingConditions), KSCHED_F(bindingFailureConditions),
                    KSCHED_F(allowMultipleAllocations));
}

struct ResourceSliceSpec {
  ThinString driver;
  ResourcePool pool;
  // Exactly one of nodeName, nodeSelector, allNodes, perDeviceNodeSelection.
  std::optional<std::string> nodeName;
  Boxed<NodeSelector> nodeSelector;
  std::optional<bool> allNodes;
  std::vector<Device> devices;
  std::optional<bool> perDeviceNodeSelection;
  std::vector<CounterSet> sharedCounters;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ResourceSliceSpec>) {
  using T = ResourceSliceSpec;
  return field_list(KSCHED_F(driver),  KSCHED_F(pool),    KSCHED_F(nodeName),
                    KSCHED_F(nodeSelector), KSCHED_F(allNodes), KSCHED_F(devices),
                    KSCHED_F(perDeviceNodeSelection), KSCHED_F(sharedCounters));
}

struct ResourceSlice {
  ThinString apiVersion;
  ThinString kind;
  ObjectMeta metadata;
  ResourceSliceSpec spec;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ResourceSlice>) {
  using T = ResourceSlice;
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec));
}

// ---------------------------------------------------------------- ResourceClaim spec
struct CELDeviceSelector {
  std::string expression;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<CELDeviceSelector>) {
  using T = CELDeviceSelector;
  return field_list(KSCHED_F(expression));
}

struct DeviceSelector {
  std::optional<CELDeviceSelector> cel;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DeviceSelector>) {
  using T = DeviceSelector;
  return field_list(KSCHED_F(cel));
}

struct DeviceToleration {
  std::string key;
  ThinString operator_;  // Equal (default) | Exists
  std::string value;
  ThinString effect;  // "" (all) | None | NoSchedule | NoExecute
  std::optional<std::int64_t> tolerationSeconds;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DeviceToleration>) {
  using T = DeviceToleration;
  return field_list(KSCHED_F(key), field("operator", &T::operator_), KSCHED_F(value), KSCHED_F(effect),
                    KSCHED_F(tolerationSeconds));
}

struct CapacityRequirements {
  ResourceList requests;  // keys are QualifiedNames
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<CapacityRequirements>) {
  using T = CapacityRequirements;
  return field_list(KSCHED_F(requests));
}

struct ExactDeviceRequest {
  ThinString deviceClassName;
  std::vector<DeviceSelector> selectors;
  ThinString allocationMode;  // ExactCount (default) | All
  std::int64_t count = 0;     // defaulted to 1 for ExactCount
  std::optional<bool> adminAccess;
  std::vector<DeviceToleration> tolerations;
  Boxed<CapacityRequirements> capacity;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ExactDeviceRequest>) {
  using T = ExactDeviceRequest;
  return field_list(KSCHED_F(deviceClassName), KSCHED_F(selectors),   KSCHED_F(allocationMode), KSCHED_F(count),
                    KSCHED_F(adminAccess),     KSCHED_F(tolerations), KSCHED_F(capacity));
}

struct DeviceSubRequest {
  ThinString name;
  ThinString deviceClassName;
  std::vector<DeviceSelector> selectors;
  ThinString allocationMode;
  std::int64_t count = 0;
  std::vector<DeviceToleration> tolerations;
  Boxed<CapacityRequirements> capacity;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DeviceSubRequest>) {
  using T = DeviceSubRequest;
  return field_list(KSCHED_F(name),  KSCHED_F(deviceClassName), KSCHED_F(selectors), KSCHED_F(allocationMode),
                    KSCHED_F(count), KSCHED_F(tolerations),     KSCHED_F(capacity));
}

// Exactly one of `exactly` and `firstAvailable`.
struct DeviceRequest {
  ThinString name;
  Boxed<ExactDeviceRequest> exactly;
  std::vector<DeviceSubRequest> firstAvailable;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DeviceRequest>) {
  using T = DeviceRequest;
  return field_list(KSCHED_F(name), KSCHED_F(exactly), KSCHED_F(firstAvailable));
}

struct DeviceConstraint {
  std::vector<std::string> requests;
  std::optional<std::string> matchAttribute;     // a FullyQualifiedName
  std::optional<std::string> distinctAttribute;  // a FullyQualifiedName
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DeviceConstraint>) {
  using T = DeviceConstraint;
  return field_list(KSCHED_F(requests), KSCHED_F(matchAttribute), KSCHED_F(distinctAttribute));
}

struct OpaqueDeviceConfiguration {
  std::string driver;
  RawJson parameters;  // any JSON object, passed to the driver verbatim
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<OpaqueDeviceConfiguration>) {
  using T = OpaqueDeviceConfiguration;
  return field_list(KSCHED_F(driver), KSCHED_F(parameters));
}

// DeviceClaimConfiguration with its inlined DeviceConfiguration.
struct DeviceClaimConfiguration {
  std::vector<std::string> requests;
  std::optional<OpaqueDeviceConfiguration> opaque;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DeviceClaimConfiguration>) {
  using T = DeviceClaimConfiguration;
  return field_list(KSCHED_F(requests), KSCHED_F(opaque));
}

struct DeviceClaim {
  std::vector<DeviceRequest> requests;
  std::vector<DeviceConstraint> constraints;
  std::vector<DeviceClaimConfiguration> config;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DeviceClaim>) {
  using T = DeviceClaim;
  return field_list(KSCHED_F(requests), KSCHED_F(constraints), KSCHED_F(config));
}

struct ResourceClaimSpec {
  DeviceClaim devices;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ResourceClaimSpec>) {
  using T = ResourceClaimSpec;
  return field_list(KSCHED_F(devices));
}

// ---------------------------------------------------------------- ResourceClaim status
struct ResourceClaimConsumerReference {
  std::string apiGroup;
  std::string resource;  // "pods"
  CompactString name;
  CompactString uid;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ResourceClaimConsumerReference>) {
  using T = ResourceClaimConsumerReference;
  return field_list(KSCHED_F(apiGroup), KSCHED_F(resource), KSCHED_F(name), KSCHED_F(uid));
}

struct DeviceRequestAllocationResult {
  ThinString request;  // "<request>" or "<request>/<subrequest>"
  ThinString driver;
  CompactString pool;
  CompactString device;
  std::optional<bool> adminAccess;
  std::vector<DeviceToleration> tolerations;
  SharedVector<std::string> bindingConditions;
  SharedVector<std::string> bindingFailureConditions;
  std::optional<std::string> shareID;
  ResourceList consumedCapacity;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DeviceRequestAllocationResult>) {
  using T = DeviceRequestAllocationResult;
  return field_list(KSCHED_F(request),     KSCHED_F(driver),           KSCHED_F(pool),
                    KSCHED_F(device),      KSCHED_F(adminAccess),      KSCHED_F(tolerations),
                    KSCHED_F(bindingConditions), KSCHED_F(bindingFailureConditions), KSCHED_F(shareID),
                    KSCHED_F(consumedCapacity));
}

// DeviceAllocationConfiguration with its inlined DeviceConfiguration.
struct DeviceAllocationConfiguration {
  ThinString source;  // FromClass | FromClaim
  std::vector<std::string> requests;
  std::optional<OpaqueDeviceConfiguration> opaque;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DeviceAllocationConfiguration>) {
  using T = DeviceAllocationConfiguration;
  return field_list(KSCHED_F(source), KSCHED_F(requests), KSCHED_F(opaque));
}

struct DeviceAllocationResult {
  std::vector<DeviceRequestAllocationResult> results;
  std::vector<DeviceAllocationConfiguration> config;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DeviceAllocationResult>) {
  using T = DeviceAllocationResult;
  return field_list(KSCHED_F(results), KSCHED_F(config));
}

struct AllocationResult {
  DeviceAllocationResult devices;
  Boxed<NodeSelector> nodeSelector;
  std::optional<Time> allocationTimestamp;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<AllocationResult>) {
  using T = AllocationResult;
  return field_list(KSCHED_F(devices), KSCHED_F(nodeSelector), KSCHED_F(allocationTimestamp));
}

struct NetworkDeviceData {
  std::string interfaceName;
  std::vector<std::string> ips;
  std::string hardwareAddress;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<NetworkDeviceData>) {
  using T = NetworkDeviceData;
  return field_list(KSCHED_F(interfaceName), KSCHED_F(ips), KSCHED_F(hardwareAddress));
}

struct AllocatedDeviceStatus {
  std::string driver;
  std::string pool;
  std::string device;
  std::optional<std::string> shareID;
  std::vector<Condition> conditions;
  std::optional<RawJson> data;
  std::optional<NetworkDeviceData> networkData;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<AllocatedDeviceStatus>) {
  using T = AllocatedDeviceStatus;
  return field_list(KSCHED_F(driver),     KSCHED_F(pool), KSCHED_F(device),     KSCHED_F(shareID),
                    KSCHED_F(conditions), KSCHED_F(data), KSCHED_F(networkData));
}

struct ResourceClaimStatus {
  Boxed<AllocationResult> allocation;
  std::vector<ResourceClaimConsumerReference> reservedFor;
  std::vector<AllocatedDeviceStatus> devices;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ResourceClaimStatus>) {
  using T = ResourceClaimStatus;
  return field_list(KSCHED_F(allocation), KSCHED_F(reservedFor), KSCHED_F(devices));
}

struct ResourceClaim {
  ThinString apiVersion;
  ThinString kind;
  ObjectMeta metadata;
  ResourceClaimSpec spec;
  ResourceClaimStatus status;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ResourceClaim>) {
  using T = ResourceClaim;
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec), KSCHED_F(status));
}

// ---------------------------------------------------------------- ResourceClaimTemplate
struct ResourceClaimTemplateSpec {
  ObjectMeta metadata;  // copied into each claim made from the template
  ResourceClaimSpec spec;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ResourceClaimTemplateSpec>) {
  using T = ResourceClaimTemplateSpec;
  return field_list(KSCHED_F(metadata), KSCHED_F(spec));
}

struct ResourceClaimTemplate {
  ThinString apiVersion;
  ThinString kind;
  ObjectMeta metadata;
  ResourceClaimTemplateSpec spec;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ResourceClaimTemplate>) {
  using T = ResourceClaimTemplate;
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec));
}

// ---------------------------------------------------------------- DeviceClass
// DeviceClassConfiguration with its inlined DeviceConfiguration.
struct DeviceClassConfiguration {
  std::optional<OpaqueDeviceConfiguration> opaque;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DeviceClassConfiguration>) {
  using T = DeviceClassConfiguration;
  return field_list(KSCHED_F(opaque));
}

struct DeviceClassSpec {
  std::vector<DeviceSelector> selectors;
  std::vector<DeviceClassConfiguration> config;
  std::optional<std::string> extendedResourceName;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DeviceClassSpec>) {
  using T = DeviceClassSpec;
  return field_list(KSCHED_F(selectors), KSCHED_F(config), KSCHED_F(extendedResourceName));
}

struct DeviceClass {
  ThinString apiVersion;
  ThinString kind;
  ObjectMeta metadata;
  DeviceClassSpec spec;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DeviceClass>) {
  using T = DeviceClass;
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec));
}

#undef KSCHED_F

}  // namespace ksched::api::resourcev1

// ---------------------------------------------------------------- v1beta2 DeviceTaintRule
namespace ksched::api::resourcev1beta2 {

#define KSCHED_F(name) field(#name, &T::name)

// The same fields as resourcev1::DeviceTaint; a type of its own because its schema is another
// version's definition (io.k8s.api.resource.v1beta2.DeviceTaint).
struct DeviceTaint {
  std::string key;
  std::string value;
  std::string effect;  // None | NoSchedule | NoExecute
  std::optional<Time> timeAdded;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DeviceTaint>) {
  using T = DeviceTaint;
  return field_list(KSCHED_F(key), KSCHED_F(value), KSCHED_F(effect), KSCHED_F(timeAdded));
}

// Which devices a rule taints; every criterion set must match, an empty selector matches all.
struct DeviceTaintSelector {
  std::optional<std::string> driver;
  std::optional<std::string> pool;
  std::optional<std::string> device;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DeviceTaintSelector>) {
  using T = DeviceTaintSelector;
  return field_list(KSCHED_F(driver), KSCHED_F(pool), KSCHED_F(device));
}

struct DeviceTaintRuleSpec {
  std::optional<DeviceTaintSelector> deviceSelector;
  DeviceTaint taint;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DeviceTaintRuleSpec>) {
  using T = DeviceTaintRuleSpec;
  return field_list(KSCHED_F(deviceSelector), KSCHED_F(taint));
}

struct DeviceTaintRuleStatus {
  std::vector<Condition> conditions;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DeviceTaintRuleStatus>) {
  using T = DeviceTaintRuleStatus;
  return field_list(KSCHED_F(conditions));
}

struct DeviceTaintRule {
  ThinString apiVersion;
  ThinString kind;
  ObjectMeta metadata;
  DeviceTaintRuleSpec spec;
  DeviceTaintRuleStatus status;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<DeviceTaintRule>) {
  using T = DeviceTaintRule;
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec), KSCHED_F(status));
}

#undef KSCHED_F

}  // namespace ksched::api::resourcev1beta2
