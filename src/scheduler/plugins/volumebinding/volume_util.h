// Small helpers shared by the volume plugins (upstream storage/volume helpers): storage class of a
// claim/volume, generic ephemeral claim names, and the lister not-found texts. Header-only so
// VolumeZone, VolumeRestrictions and NodeVolumeLimits can use them without linking this plugin.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "api/core.h"
#include "api/helpers.h"
#include "api/storage.h"
#include "api/volume.h"

namespace ksched::scheduler::plugins::volumebinding {

inline constexpr std::string_view kBetaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class";
inline constexpr std::string_view kAnnBindCompleted = "pv.kubernetes.io/bind-completed";
inline constexpr std::string_view kAnnBoundByController = "pv.kubernetes.io/bound-by-controller";
inline constexpr std::string_view kAnnSelectedNode = "volume.kubernetes.io/selected-node";
inline constexpr std::string_view kNotSupportedProvisioner = "kubernetes.io/no-provisioner";
inline constexpr std::string_view kVolumeBindingWaitForFirstConsumer = "WaitForFirstConsumer";
inline constexpr std::string_view kReadWriteOncePod = "ReadWriteOncePod";

// GetPersistentVolumeClaimClass: beta annotation, else spec.storageClassName, else "".
inline std::string pvc_storage_class(const api::PersistentVolumeClaim& pvc) {
  if (const auto* a = pvc.metadata.annotations.find(kBetaStorageClassAnnotation)) return *a;
  return pvc.spec.storageClassName.value_or("");
}
// GetPersistentVolumeClass: beta annotation, else spec.storageClassName.
inline std::string pv_storage_class(const api::PersistentVolume& pv) {
  if (const auto* a = pv.metadata.annotations.find(kBetaStorageClassAnnotation)) return *a;
  return pv.spec.storageClassName;
}

// The claim a pod volume uses: persistentVolumeClaim.claimName, or "<pod>-<volume>" for a generic
// ephemeral volume; nullopt for other volume kinds.
inline std::optional<std::string> volume_claim_name(const api::Pod& pod, const api::Volume& v, bool* ephemeral = nullptr) {
  if (ephemeral) *ephemeral = false;
  if (v.persistentVolumeClaim) return v.persistentVolumeClaim->claimName;
  if (v.ephemeral) {
    if (ephemeral) *ephemeral = true;
    return pod.metadata.name + "-" + v.name;
  }
  return std::nullopt;
}

// Upstream ephemeral.VolumeIsForPod: the claim must be controlled by the pod. Empty = OK.
inline std::string ephemeral_volume_owner_error(const api::Pod& pod, const api::PersistentVolumeClaim& pvc) {
  for (const auto& o : pvc.metadata.ownerReferences) {
    if (o.controller.value_or(false) && o.uid == pod.metadata.uid) return {};
  }
  return "PVC " + api::key_of(pvc) + " was not created for pod " +
         api::key_of(pod) + " (pod is not owner)";
}

inline bool contains_access_mode(const std::vector<std::string>& modes, std::string_view mode) {
  for (const auto& m : modes) {
    if (m == mode) return true;
  }
  return false;
}

// apierrors NotFound texts as the listers produce them.
inline std::string pvc_not_found(std::string_view name) {
  return "persistentvolumeclaim \"" + std::string(name) + "\" not found";
}
inline std::string pv_not_found(std::string_view name) {
  return "persistentvolume \"" + std::string(name) + "\" not found";
}
inline std::string storage_class_not_found(std::string_view name) {
  return "storageclass.storage.k8s.io \"" + std::string(name) + "\" not found";
}

}  // namespace ksched::scheduler::plugins::volumebinding
