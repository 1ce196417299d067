// The input of a DRA selector: one device of a ResourceSlice, as views. The structured allocator
// fills a Device from the slice's device without copying (the strings stay in the slice) and may
// reuse the arrays between devices.
//
// Semantics as upstream's DRA CEL environment (k8s.io/dynamic-resource-allocation/cel):
//   device.driver                      the driver name
//   device.allowMultipleAllocations    false when the device does not say
//   device.attributes[domain].id       an attribute "domain/id", or "id" when the driver is
//                                      the domain (unqualified names take the driver's domain)
//   device.capacity[domain].id         a capacity, likewise; a kubernetes.Quantity
// An unknown domain gives an empty map; an unknown id in a domain is the error "no such key: id".
#pragma once
#include <cstdint>
#include <span>
#include <string_view>

#include "api/quantity.h"

namespace ksched::cel {

struct DeviceAttribute {
  enum class Kind : std::uint8_t { Bool, Int, String, Version };
  std::string_view name;  // qualified name as in the ResourceSlice: "model" or "example.com/model"
  Kind kind = Kind::String;
  bool bool_value = false;
  std::int64_t int_value = 0;
  std::string_view string_value;  // String and Version (a semantic version, parsed when read)
};

struct DeviceCapacity {
  std::string_view name;
  const api::Quantity* value = nullptr;
};

struct Device {
  std::string_view driver;
  std::span<const DeviceAttribute> attributes;
  std::span<const DeviceCapacity> capacity;
  bool allow_multiple_allocations = false;
};

}  // namespace ksched::cel
