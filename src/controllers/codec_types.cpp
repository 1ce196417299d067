// Codec instantiations for the controllers' workload types (types.h). The names are qualified:
// inside ksched::api the unqualified Deployment would be api::Deployment.
#include "api/codec_impl.h"
#include "controllers/types.h"

KSCHED_CODEC_INSTANTIATE_KIND(::ksched::controllers::Deployment)
KSCHED_CODEC_INSTANTIATE_KIND(::ksched::controllers::ReplicaSet)
KSCHED_CODEC_INSTANTIATE_KIND(::ksched::controllers::DaemonSet)
KSCHED_CODEC_INSTANTIATE_KIND(::ksched::controllers::StatefulSet)
KSCHED_CODEC_INSTANTIATE_KIND(::ksched::controllers::ControllerRevision)
KSCHED_CODEC_INSTANTIATE_KIND(::ksched::controllers::Job)
KSCHED_CODEC_INSTANTIATE(::ksched::controllers::PodTemplateSpec)
KSCHED_CODEC_INSTANTIATE(::ksched::controllers::DeploymentStatus)
KSCHED_CODEC_INSTANTIATE(::ksched::controllers::ReplicaSetStatus)
KSCHED_CODEC_INSTANTIATE(::ksched::controllers::DaemonSetStatus)
KSCHED_CODEC_INSTANTIATE(::ksched::controllers::StatefulSetStatus)
KSCHED_CODEC_INSTANTIATE(::ksched::controllers::JobStatus)
KSCHED_CODEC_INSTANTIATE(::ksched::controllers::WorkloadPodGroupResourceClaim)
