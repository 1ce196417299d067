// Protobuf decoding straight into the typed structs (the client's side of
// application/vnd.kubernetes.protobuf): each described member is read from its field on the wire
// (numbers from protobuf_schema.h, matched to members by JSON name), with no JSON in between. The
// result equals what the JSON codec (codec.h) gives for the JSON Go would write for the same
// object: members Go's encoding/json would write are `present`, fields the struct does not model
// are rendered as JSON into `extra`, shared members (labels, tolerations, ...) are interned by
// their wire bytes as the JSON codec interns them by their text. Field numbers a struct's message
// does not know (a newer server) are skipped, as Go's decoder skips them.
#pragma once
#include <string>
#include <string_view>

#include "api/codec.h"
#include "api/protobuf_wire.h"
#include "util/result.h"

namespace ksched::api {
template <class T>
struct List;
struct Pod;
struct Node;
struct Namespace;
struct Service;
struct ReplicationController;
struct Event;
struct Binding;
struct PersistentVolume;
struct PersistentVolumeClaim;
struct StorageClass;
struct CSINode;
struct CSIDriver;
struct CSIStorageCapacity;
struct ReplicaSet;
struct StatefulSet;
struct Deployment;
struct DaemonSet;
struct PodDisruptionBudget;
struct PriorityClass;
struct RuntimeClass;
struct Lease;
namespace eventsv1 {
struct Event;
}
namespace resourcev1 {
struct DeviceClass;
struct ResourceClaim;
struct ResourceClaimTemplate;
struct ResourceSlice;
}  // namespace resourcev1
namespace resourcev1beta2 {
struct DeviceTaintRule;
}  // namespace resourcev1beta2
namespace schedulingv1alpha1 {
struct Workload;
}  // namespace schedulingv1alpha1
namespace schedulingv1beta1 {
struct Workload;
struct PodGroup;
}  // namespace schedulingv1beta1
namespace schedulingv1alpha3 {
struct CompositePodGroup;
}  // namespace schedulingv1alpha3
}  // namespace ksched::api

namespace ksched::api::protobuf {

// Whether decode_into<T> exists (protobuf_codec.cpp instantiates it for these types and their
// lists). Typed callers (RestClient, informer::ObjectCodec) ask for protobuf only for such T and read
// any other type as JSON, so types of other layers (the controllers' own structs) need nothing here.
template <class T>
inline constexpr bool kTypedDecoding = false;
#define KSCHED_PROTOBUF_TYPED(T)                          \
  template <>                                             \
  inline constexpr bool kTypedDecoding<T> = true;         \
  template <>                                             \
  inline constexpr bool kTypedDecoding<api::List<T>> = true;
KSCHED_PROTOBUF_TYPED(Pod)
KSCHED_PROTOBUF_TYPED(Node)
KSCHED_PROTOBUF_TYPED(Namespace)
KSCHED_PROTOBUF_TYPED(Service)
KSCHED_PROTOBUF_TYPED(ReplicationController)
KSCHED_PROTOBUF_TYPED(Event)
KSCHED_PROTOBUF_TYPED(PersistentVolume)
KSCHED_PROTOBUF_TYPED(PersistentVolumeClaim)
KSCHED_PROTOBUF_TYPED(StorageClass)
KSCHED_PROTOBUF_TYPED(CSINode)
KSCHED_PROTOBUF_TYPED(CSIDriver)
KSCHED_PROTOBUF_TYPED(CSIStorageCapacity)
KSCHED_PROTOBUF_TYPED(ReplicaSet)
KSCHED_PROTOBUF_TYPED(StatefulSet)
KSCHED_PROTOBUF_TYPED(Deployment)
KSCHED_PROTOBUF_TYPED(DaemonSet)
KSCHED_PROTOBUF_TYPED(PodDisruptionBudget)
KSCHED_PROTOBUF_TYPED(PriorityClass)
KSCHED_PROTOBUF_TYPED(RuntimeClass)
KSCHED_PROTOBUF_TYPED(Lease)
KSCHED_PROTOBUF_TYPED(eventsv1::Event)
KSCHED_PROTOBUF_TYPED(resourcev1::DeviceClass)  // protobuf_codec_resource.cpp
KSCHED_PROTOBUF_TYPED(resourcev1::ResourceClaim)
KSCHED_PROTOBUF_TYPED(resourcev1::ResourceClaimTemplate)
KSCHED_PROTOBUF_TYPED(resourcev1::ResourceSlice)
KSCHED_PROTOBUF_TYPED(resourcev1beta2::DeviceTaintRule)
KSCHED_PROTOBUF_TYPED(schedulingv1alpha1::Workload)  // protobuf_codec_scheduling.cpp
KSCHED_PROTOBUF_TYPED(schedulingv1beta1::Workload)
KSCHED_PROTOBUF_TYPED(schedulingv1beta1::PodGroup)
KSCHED_PROTOBUF_TYPED(schedulingv1alpha3::CompositePodGroup)
#undef KSCHED_PROTOBUF_TYPED
template <>
inline constexpr bool kTypedDecoding<Binding> = true;

// A whole body (`k8s\0` envelope) of a kind, or of a list (T = List<Kind>). Errors name the field
// path, or the kind when the body holds another kind than T can take.
template <class T>
util::Result<void> decode_into(T& out, std::string_view body, const DecodeOptions& opts = {});
template <class T>
util::Result<T> decode(std::string_view body, const DecodeOptions& opts = {}) {
  T out{};
  auto r = protobuf::decode_into<T>(out, body, opts);
  if (!r) return util::make_error(r.error());
  return out;
}

// One frame of a protobuf watch stream: a metav1.WatchEvent (no envelope, as upstream's raw
// serializer writes it) whose object is a whole body with its envelope.
struct WatchEventFrame {
  std::string_view type;    // ADDED, MODIFIED, DELETED, BOOKMARK, ERROR
  std::string_view object;  // `k8s\0` + runtime.Unknown
};
util::Result<WatchEventFrame> read_watch_event(std::string_view frame);
// Appends a WatchEvent frame's payload (the caller writes the 4-byte length in front): type and
// the object's envelope around `raw` (the object's message bytes).
void put_watch_event(std::string& out, std::string_view type, std::string_view api_version, std::string_view kind,
                     std::string_view raw);
std::size_t watch_event_size(std::string_view type, std::string_view api_version, std::string_view kind,
                             std::size_t raw_size);

}  // namespace ksched::api::protobuf
