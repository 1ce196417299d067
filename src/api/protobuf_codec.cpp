// Typed protobuf decoding: instantiations for every kind, and the watch event frame.
#include "api/protobuf_codec_impl.h"
#include "api/types.h"

namespace ksched::api::protobuf {

namespace detail {
Ctx& thread_ctx() {
  thread_local Ctx ctx = [] {
    Ctx c;
    c.managed_fields = sch::registry().message("ObjectMeta").find("managedFields");
    return c;
  }();
  return ctx;
}
}  // namespace detail

namespace {
struct WatchNumbers {
  std::uint32_t type, object, raw;
};
const WatchNumbers& watch_numbers() {
  static const WatchNumbers n = [] {
    const auto& w = schema::registry().message("WatchEvent");
    // The object is a runtime.RawExtension, whose bytes are its field 1 (schema::Kind::RawJson).
    return WatchNumbers{w.number("type"), w.number("object"), 1};
  }();
  return n;
}
}  // namespace

util::Result<WatchEventFrame> read_watch_event(std::string_view frame) {
  const auto& n = watch_numbers();
  WatchEventFrame ev;
  try {
    wire::Reader r(frame);
    while (!r.done()) {
      wire::Tag t = r.tag();
      if (t.number == n.type) {
        wire::expect(t, wire::kLen);
        ev.type = r.len();
      } else if (t.number == n.object) {
        wire::expect(t, wire::kLen);
        wire::Reader raw(r.len());
        while (!raw.done()) {
          wire::Tag u = raw.tag();
          if (u.number == n.raw && u.wire == wire::kLen) ev.object = raw.len();
          else raw.skip(u.wire);
        }
      } else {
        r.skip(t.wire);
      }
    }
  } catch (const wire::Error& e) {
    return util::make_error("unable to decode watch event: " + e.message);
  }
  if (ev.type.empty()) return util::make_error("unable to decode watch event: no type");
  return ev;
}

std::size_t watch_event_size(std::string_view type, std::string_view api_version, std::string_view kind,
                             std::size_t raw_size) {
  std::size_t env = envelope_size(api_version, kind, raw_size);
  return wire::len_field_size(type.size()) + wire::len_field_size(wire::len_field_size(env));
}

void put_watch_event(std::string& out, std::string_view type, std::string_view api_version, std::string_view kind,
                     std::string_view raw) {
  const auto& n = watch_numbers();
  std::size_t env = envelope_size(api_version, kind, raw.size());
  wire::put_len(out, n.type, type);
  wire::put_tag(out, n.object, wire::kLen);
  wire::put_varint(out, wire::len_field_size(env));
  wire::put_tag(out, n.raw, wire::kLen);
  wire::put_varint(out, env);
  put_envelope(out, api_version, kind, raw);
}

}  // namespace ksched::api::protobuf

using namespace ksched::api;

KSCHED_PROTOBUF_INSTANTIATE_KIND(Pod)
KSCHED_PROTOBUF_INSTANTIATE_KIND(Node)
KSCHED_PROTOBUF_INSTANTIATE_KIND(Namespace)
KSCHED_PROTOBUF_INSTANTIATE_KIND(Service)
KSCHED_PROTOBUF_INSTANTIATE_KIND(ReplicationController)
KSCHED_PROTOBUF_INSTANTIATE_KIND(Event)
KSCHED_PROTOBUF_INSTANTIATE(Binding)
KSCHED_PROTOBUF_INSTANTIATE_KIND(PersistentVolume)
KSCHED_PROTOBUF_INSTANTIATE_KIND(PersistentVolumeClaim)
KSCHED_PROTOBUF_INSTANTIATE_KIND(StorageClass)
KSCHED_PROTOBUF_INSTANTIATE_KIND(CSINode)
KSCHED_PROTOBUF_INSTANTIATE_KIND(CSIDriver)
KSCHED_PROTOBUF_INSTANTIATE_KIND(CSIStorageCapacity)
KSCHED_PROTOBUF_INSTANTIATE_KIND(ReplicaSet)
KSCHED_PROTOBUF_INSTANTIATE_KIND(StatefulSet)
KSCHED_PROTOBUF_INSTANTIATE_KIND(Deployment)
KSCHED_PROTOBUF_INSTANTIATE_KIND(DaemonSet)
KSCHED_PROTOBUF_INSTANTIATE_KIND(PodDisruptionBudget)
KSCHED_PROTOBUF_INSTANTIATE_KIND(PriorityClass)
KSCHED_PROTOBUF_INSTANTIATE_KIND(RuntimeClass)
KSCHED_PROTOBUF_INSTANTIATE_KIND(Lease)
KSCHED_PROTOBUF_INSTANTIATE_KIND(eventsv1::Event)
