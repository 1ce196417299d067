// What upstream's pod registry strategy does to a pod beyond defaulting and validation
// (pkg/registry/core/pod/strategy.go, the pod binding storage and the PodTopologyLabels admission
// plugin), on the JSON the server stores. The pod strategy (core::pod_strategy(), in
// pod_strategy.cpp) calls the PrepareFor* steps; the handlers use the QoS class and topology labels
// (bindings). The handlers own metadata.generation; these own the rest of each PrepareFor*.
#pragma once
#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <string_view>

#include "apiserver/features.h"

namespace ksched::apiserver {

// ComputePodQOS (pkg/apis/core/helper/qos): the pod-level resources when set (PodLevelResources),
// else every container's and init container's cpu and memory above zero, summed; Guaranteed when
// every container limits both and the summed requests equal the summed limits.
std::string compute_pod_qos(const boost::json::object& spec, const FeatureGates& gates);

// podStrategy.PrepareForCreate: the status is the server's (phase Pending and the QoS class, the
// client's own qosClass kept as GetPodQOS reads it before the reset), disabled fields dropped,
// the SchedulingGated condition while gates remain (`now_unix`: its lastTransitionTime), and the
// matchLabelKeys/mismatchLabelKeys of pod (anti-)affinity terms and topology spread constraints
// merged into their label selectors from the pod's labels.
void prepare_pod_create(boost::json::object& pod, const FeatureGates& gates, std::int64_t now_unix);

// podStrategy.PrepareForUpdate of a spec write (the status is the stored one already): disabled
// fields dropped unless the stored pod uses them.
void prepare_pod_update(boost::json::object& pod, const boost::json::object& old, const FeatureGates& gates);

// podStatusStrategy.PrepareForUpdate: ownerReferences stay as stored, an empty qosClass is the
// stored one, and an observedGeneration the write leaves unset (0) keeps the stored one, in the
// status and in each condition (matched by type, in order).
void prepare_pod_status_update(boost::json::object& pod, const boost::json::object& old);

// PodTopologyLabels admission: the node's topology.kubernetes.io/zone and region labels.
boost::json::object topology_labels(const boost::json::object& node);

}  // namespace ksched::apiserver
