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
    if (api::protobuf::has_magic(bytes)) {
      if constexpr (api::protobuf::kTypedDecoding<T>) return api::protobuf::decode<T>(bytes, o);
      else return no_protobuf();
    }
    return api::decode<T>(bytes, o);
  }
  // Into a fresh heap object: the watch path shares it at once, so decoding in place saves moving
  // the whole struct twice.
  static util::Result<void> decode_into(T& out, std::string_view bytes, const api::DecodeOptions& o = {}) {
    if (api::protobuf::has_magic(bytes)) {
      if constexpr (api::protobuf::kTypedDecoding<T>) return api::protobuf::decode_into<T>(out, bytes, o);
      else return no_protobuf();
    }
    return api::decode_into<T>(out, bytes, o);
  }
  static util::Result<ListResult<T>> decode_list(std::string_view bytes, const api::DecodeOptions& o = {}) {
    util::Result<api::List<T>> l = util::make_error(std::string());
    if (!api::protobuf::has_magic(bytes)) l = api::decode<api::List<T>>(bytes, o);
    else if constexpr (api::protobuf::kTypedDecoding<T>) l = api::protobuf::decode<api::List<T>>(bytes, o);
    else return no_protobuf();
    if (!l) return util::make_error(l.error());
    return ListResult<T>{std::move(l->items), std::move(l->metadata.resourceVersion), std::move(l->metadata.continue_)};
  }

 private:
  // Only a ListWatch built with typed_protobuf asks for protobuf (rest_list_watch).
  static util::Error no_protobuf() { return util::make_error("protobuf answer for a type read as JSON only"); }
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

// ListWatch over a RESTClient for resource `info` in namespace `ns` ("" = all namespaces). With
// `typed_protobuf` (the informer's type has typed protobuf decoding: api::protobuf::kTypedDecoding,
// as SharedInformerFactory passes it) it asks for protobuf where the client's configuration prefers
// it (RestClient::accept_for); otherwise for JSON.
ListWatch rest_list_watch(std::shared_ptr<client::RestClient> c, const client::ResourceInfo& info,
                          std::string ns = {}, std::function<void(client::ListOptions&)> tweak = {},
                          bool typed_protobuf = false);

}  // namespace ksched::informer
