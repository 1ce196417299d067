// ListerWatcher: how a Reflector lists and watches one resource, plus the decoding of list bodies
// and watch event lines into typed objects (the codec step of the ingest path).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/codec.h"
#include "api/meta.h"
#include "api/protobuf_codec.h"
#include "client/rest.h"
#include "client/watch.h"
#include "informer/object.h"

namespace ksched::informer {

template <class T>
struct ListResult {
  std::vector<T> items;
  std::string resourceVersion;
  std::string continue_;
};

// Typed decoding, specialisable per type (tests use small hand-written types). The bytes are JSON
// or a protobuf body (`k8s\0` prefix), whichever the server answered.
template <class T>
struct ObjectCodec {
  static util::Result<T> decode(std::string_view bytes, const api::DecodeOptions& o = {}) {
    if (api::protobuf::has_magic(bytes)) return api::protobuf::decode<T>(bytes, o);
    return api::decode<T>(bytes, o);
  }
  // Into a fresh heap object: the watch path shares it at once, so decoding in place saves moving
  // the whole struct twice.
  static util::Result<void> decode_into(T& out, std::string_view bytes, const api::DecodeOptions& o = {}) {
    if (api::protobuf::has_magic(bytes)) return api::protobuf::decode_into<T>(out, bytes, o);
    return api::decode_into<T>(out, bytes, o);
  }
  static util::Result<ListResult<T>> decode_list(std::string_view bytes, const api::DecodeOptions& o = {}) {
    auto l = api::protobuf::has_magic(bytes) ? api::protobuf::decode<api::List<T>>(bytes, o)
                                             : api::decode<api::List<T>>(bytes, o);
    if (!l) return util::make_error(l.error());
    return ListResult<T>{std::move(l->items), std::move(l->metadata.resourceVersion), std::move(l->metadata.continue_)};
  }
};

// The object of a watch event (client::RawWatchEvent::json): the raw "object" member of a JSON line
// (fast path for the server's member order), or the `k8s\0` body a protobuf WatchEvent holds.
std::string_view watch_event_object(std::string_view event, std::string& scratch);

struct ListWatch {
  std::function<client::Result<std::string>(const client::ListOptions&)> list;
  std::function<client::Result<std::unique_ptr<client::WatchStream>>(const client::ListOptions&)> watch;
  // Applied to every list/watch request (field/label selectors of filtered informers).
  std::function<void(client::ListOptions&)> tweak;
};

// ListWatch over a RESTClient for resource `info` in namespace `ns` ("" = all namespaces), asking
// for protobuf where the client's configuration prefers it (RestClient::accept_for).
ListWatch rest_list_watch(std::shared_ptr<client::RestClient> c, const client::ResourceInfo& info,
                          std::string ns = {}, std::function<void(client::ListOptions&)> tweak = {});

}  // namespace ksched::informer
