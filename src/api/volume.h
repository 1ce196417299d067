// core/v1 PersistentVolume and PersistentVolumeClaim: what volume binding, zone and limit
// checks read. Other volume sources (nfs, hostPath, local, ...) stay in `extra`.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/core.h"

namespace ksched::api {

#define KSCHED_F(name) field(#name, &T::name)

struct CSIPersistentVolumeSource {
  std::string driver;
  std::string volumeHandle;
  bool readOnly = false;
  std::string fsType;
  StringMap volumeAttributes;
  Presence present;
  Extra extra;  // secret refs
};
constexpr auto describe(type_tag<CSIPersistentVolumeSource>) {
  using T = CSIPersistentVolumeSource;
  return field_list(KSCHED_F(driver), KSCHED_F(volumeHandle), KSCHED_F(readOnly), KSCHED_F(fsType),
                    KSCHED_F(volumeAttributes));
}

struct VolumeNodeAffinity {
  std::optional<NodeSelector> required;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<VolumeNodeAffinity>) {
  using T = VolumeNodeAffinity;
  return field_list(KSCHED_F(required));
}

struct PersistentVolumeSpec {
  ResourceList capacity;
  Boxed<GCEPersistentDiskVolumeSource> gcePersistentDisk;  // in-tree sources: rare, boxed
  Boxed<AWSElasticBlockStoreVolumeSource> awsElasticBlockStore;
  Boxed<ISCSIVolumeSource> iscsi;
  Boxed<RBDVolumeSource> rbd;
  std::optional<CSIPersistentVolumeSource> csi;
  std::vector<std::string> accessModes;  // ReadWriteOnce, ReadOnlyMany, ReadWriteMany, ReadWriteOncePod
  std::optional<ObjectReference> claimRef;
  std::string persistentVolumeReclaimPolicy;  // Retain | Delete | Recycle
  std::string storageClassName;
  std::vector<std::string> mountOptions;
  std::optional<std::string> volumeMode;  // Filesystem | Block
  std::optional<VolumeNodeAffinity> nodeAffinity;
  Presence present;
  Extra extra;  // other volume sources, volumeAttributesClassName
};
constexpr auto describe(type_tag<PersistentVolumeSpec>) {
  using T = PersistentVolumeSpec;
  return field_list(KSCHED_F(capacity),     KSCHED_F(gcePersistentDisk),
                    KSCHED_F(awsElasticBlockStore), KSCHED_F(iscsi),
                    KSCHED_F(rbd),          KSCHED_F(csi),
                    KSCHED_F(accessModes),  KSCHED_F(claimRef),
                    KSCHED_F(persistentVolumeReclaimPolicy), KSCHED_F(storageClassName),
                    KSCHED_F(mountOptions), KSCHED_F(volumeMode),
                    KSCHED_F(nodeAffinity));
}

struct PersistentVolumeStatus {
  std::string phase;  // Pending, Available, Bound, Released, Failed
  std::string message;
  std::string reason;
  std::optional<Time> lastPhaseTransitionTime;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PersistentVolumeStatus>) {
  using T = PersistentVolumeStatus;
  return field_list(KSCHED_F(phase), KSCHED_F(message), KSCHED_F(reason), KSCHED_F(lastPhaseTransitionTime));
}

struct PersistentVolume {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  PersistentVolumeSpec spec;
  PersistentVolumeStatus status;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PersistentVolume>) {
  using T = PersistentVolume;
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec), KSCHED_F(status));
}

struct PersistentVolumeClaimSpec {
  std::vector<std::string> accessModes;
  std::optional<LabelSelector> selector;
  ResourceRequirements resources;  // VolumeResourceRequirements: limits/requests
  std::string volumeName;
  std::optional<std::string> storageClassName;  // nil = default class, "" = no class
  std::optional<std::string> volumeMode;
  Presence present;
  Extra extra;  // dataSource, dataSourceRef, volumeAttributesClassName
};
constexpr auto describe(type_tag<PersistentVolumeClaimSpec>) {
  using T = PersistentVolumeClaimSpec;
  return field_list(KSCHED_F(accessModes), KSCHED_F(selector),         KSCHED_F(resources),
                    KSCHED_F(volumeName),  KSCHED_F(storageClassName), KSCHED_F(volumeMode));
}

struct PersistentVolumeClaimStatus {
  std::string phase;  // Pending, Bound, Lost
  std::vector<std::string> accessModes;
  ResourceList capacity;
  Presence present;
  Extra extra;  // conditions, allocatedResources, ...
};
constexpr auto describe(type_tag<PersistentVolumeClaimStatus>) {
  using T = PersistentVolumeClaimStatus;
  return field_list(KSCHED_F(phase), KSCHED_F(accessModes), KSCHED_F(capacity));
}

struct PersistentVolumeClaim {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  PersistentVolumeClaimSpec spec;
  PersistentVolumeClaimStatus status;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<PersistentVolumeClaim>) {
  using T = PersistentVolumeClaim;
  return field_list(KSCHED_F(apiVersion), KSCHED_F(kind), KSCHED_F(metadata), KSCHED_F(spec), KSCHED_F(status));
}

#undef KSCHED_F

}  // namespace ksched::api
