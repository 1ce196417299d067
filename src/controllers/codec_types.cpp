// Codec instantiations for the controllers' workload types (types.h).
#include "api/codec_impl.h"
#include "controllers/types.h"

using namespace ksched::controllers;

KSCHED_CODEC_INSTANTIATE_KIND(Deployment)
KSCHED_CODEC_INSTANTIATE_KIND(ReplicaSet)
KSCHED_CODEC_INSTANTIATE_KIND(DaemonSet)
KSCHED_CODEC_INSTANTIATE_KIND(StatefulSet)
KSCHED_CODEC_INSTANTIATE_KIND(ControllerRevision)
KSCHED_CODEC_INSTANTIATE_KIND(Job)
KSCHED_CODEC_INSTANTIATE(PodTemplateSpec)
KSCHED_CODEC_INSTANTIATE(DeploymentStatus)
KSCHED_CODEC_INSTANTIATE(ReplicaSetStatus)
KSCHED_CODEC_INSTANTIATE(DaemonSetStatus)
KSCHED_CODEC_INSTANTIATE(StatefulSetStatus)
KSCHED_CODEC_INSTANTIATE(JobStatus)
