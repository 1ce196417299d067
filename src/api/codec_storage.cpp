// Codec instantiations for PersistentVolume(Claim) and storage.k8s.io types.
#include "api/codec_impl.h"
#include "api/storage.h"
#include "api/volume.h"

using namespace ksched::api;

KSCHED_CODEC_INSTANTIATE_KIND(PersistentVolume)
KSCHED_CODEC_INSTANTIATE_KIND(PersistentVolumeClaim)
KSCHED_CODEC_INSTANTIATE_KIND(StorageClass)
KSCHED_CODEC_INSTANTIATE_KIND(CSINode)
KSCHED_CODEC_INSTANTIATE_KIND(CSIDriver)
KSCHED_CODEC_INSTANTIATE_KIND(CSIStorageCapacity)
KSCHED_CODEC_INSTANTIATE(PersistentVolumeClaimStatus)
KSCHED_CODEC_INSTANTIATE(PersistentVolumeStatus)
