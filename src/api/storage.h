// storage.k8s.io/v1: StorageClass, CSINode, CSIDriver, CSIStorageCapacity.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"
#include "api/quantity.h"

namespace ksched::api {

#define KSCHED_F(name) field(#name, &T::name)

struct TopologySelectorLabelRequirement {
  std::string key;
  std::vector<std::string> values;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<TopologySelectorLabelRequirement>) {
  using T = TopologySelectorLabelRequirement;
  return field_list(KSCHED_F(key), KSCHED_F(values));
}

struct TopologySelectorTerm {
  std::vector<TopologySelectorLabelRequirement> matchLabelExpressions;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<TopologySelectorTerm>) {
  using T = TopologySelectorTerm;
  return field_list(KSCHED_F(matchLabelExpressions));
}

struct StorageClass {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  std::string provisioner;
  StringMap parameters;
  std::optional<std::string> reclaimPolicy;
  std::vector<std::string> mountOptions;
  std::optional<bool> allowVolumeExpansion;
  std::optional<std::string> volumeBindingMode;  // Immediate | WaitForFirstConsumer
  std::vector<TopologySelectorTerm> allowedTopologies;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<StorageClass>) {
  using T = StorageClass;
  return field_list(KSCHED_F(apiVersion),   KSCHED_F(kind),         KSCHED_F(metadata),
                    KSCHED_F(provisioner),  KSCHED_F(parameters),   KSCHED_F(reclaimPolicy),
                    KSCHED_F(mountOptions), KSCHED_F(allowVolumeExpansion), KSCHED_F(volumeBindingMode),
                    KSCHED_F(allowedTopologies));
}

struct VolumeNodeResources {
  std::optional<std::int32_t> count;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<VolumeNodeResources>) {
  using T = VolumeNodeResources;
  return field_list(KSCHED_F(count));
}

struct CSINodeDriver {
  std::string name;
  std::string nodeID;
  std::vector<std::string> topologyKeys;
  std::optional<VolumeNodeResources> allocatable;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<CSINodeDriver>) {
  using T = CSINodeDriver;
  return field_list(KSCHED_F(name), KSCHED_F(nodeID), KSCHED_F(topologyKeys), KSCHED_F(allocatable));
}

struct CSINodeSpec {
  std::vector<CSINodeDriver> drivers;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<CSINodeSpec>) {
  using T = CSINodeSpec;
  return field_list(KSCHED_F(drivers));
}

struct CSINode {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  CSINodeSpec spec;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<CSINode>) {
  using T = CSINode;
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec));
}

struct CSIDriverSpec {
  std::optional<bool> attachRequired;
  std::optional<bool> podInfoOnMount;
  std::optional<bool> storageCapacity;
  std::optional<std::string> fsGroupPolicy;
  std::vector<std::string> volumeLifecycleModes;
  Presence present;
  Extra extra;  // tokenRequests, requiresRepublish, seLinuxMount
};
constexpr auto describe(type_tag<CSIDriverSpec>) {
  using T = CSIDriverSpec;
  return field_list(KSCHED_F(attachRequired), KSCHED_F(podInfoOnMount), KSCHED_F(storageCapacity),
                    KSCHED_F(fsGroupPolicy), KSCHED_F(volumeLifecycleModes));
}

struct CSIDriver {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  CSIDriverSpec spec;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<CSIDriver>) {
  using T = CSIDriver;
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec));
}

struct CSIStorageCapacity {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  std::optional<LabelSelector> nodeTopology;
  std::string storageClassName;
  std::optional<Quantity> capacity;
  std::optional<Quantity> maximumVolumeSize;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<CSIStorageCapacity>) {
  using T = CSIStorageCapacity;
  return field_list(KSCHED_F(apiVersion),       KSCHED_F(kind),     KSCHED_F(metadata),
                    KSCHED_F(nodeTopology),     KSCHED_F(storageClassName), KSCHED_F(capacity),
                    KSCHED_F(maximumVolumeSize));
}

#undef KSCHED_F

}  // namespace ksched::api
