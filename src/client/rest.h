// RESTClient: verbs on any resource addressed by {group, version, resource, namespace, name,
// subresource}, JSON bodies, errors as the server's Status. Typed helpers decode through the api
// codec: client.get<api::Pod>("ns", "name"), client.list<api::Node>({}), client.bind(...).
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "api/codec.h"
#include "api/meta.h"
#include "api/protobuf_codec.h"
#include "client/config.h"
#include "client/error.h"
#include "client/resources.h"
#include "client/transport.h"
#include "client/watch.h"

namespace ksched::client {

struct ResourceRef {
  std::string group;  // "" = core (/api/v1)
  std::string version = "v1";
  std::string resource;
  std::string namespace_;  // "" = cluster scope or all namespaces
  std::string name;
  std::string subresource;
  // /api/v1/namespaces/ns/pods/name/status, /apis/coordination.k8s.io/v1/...
  std::string path() const;
  static ResourceRef of(const ResourceInfo& info, std::string_view ns = {}, std::string_view name = {},
                        std::string_view subresource = {});
};

struct ListOptions {
  std::string labelSelector;
  std::string fieldSelector;
  std::string resourceVersion;
  std::string resourceVersionMatch;  // NotOlderThan | Exact
  std::int64_t limit = 0;
  std::string continue_;
  std::int64_t timeoutSeconds = 0;
  bool allowWatchBookmarks = false;
  std::optional<bool> sendInitialEvents;
  std::string query(bool watch) const;  // "?watch=true&..." or "" / "?..."
};

struct DeleteOptions {
  std::optional<std::int64_t> gracePeriodSeconds;
  std::string propagationPolicy;  // Orphan | Background | Foreground
  std::string preconditionUID;
  std::string preconditionResourceVersion;
  bool dryRun = false;
  std::string body() const;
};

enum class PatchType { JSON, Merge, StrategicMerge, Apply };
std::string_view content_type(PatchType t);

class RestClient {
 public:
  static util::Result<std::shared_ptr<RestClient>> create(const RestConfig& cfg);
  explicit RestClient(std::shared_ptr<Transport> t)
      : t_(std::move(t)), binding_accept_(accept_for(ResourceInfo{"", "v1", "", "Status", false})) {}

  // Raw verbs: the response body on 2xx. `accept` is the Accept header (default
  // application/json); accept_for() asks for protobuf where the configuration prefers it, and the
  // body is then protobuf or JSON, whichever the server chose (api::protobuf::has_magic tells).
  // Write bodies are JSON text; with a configuration that prefers protobuf they are sent as
  // protobuf when their kind has tables, as client-go sends typed objects.
  Result<std::string> get(const ResourceRef& r, std::string_view query = {}, std::string_view accept = {});
  Result<std::string> list(const ResourceRef& r, const ListOptions& opts = {}, std::string_view accept = {});
  Result<std::string> create(const ResourceRef& r, std::string body, std::string_view query = {});
  // Creates several objects of one resource from one thread, pipelined on one connection
  // (Transport::round_trip_all); the results are in the bodies' order.
  std::vector<Result<std::string>> create_all(const ResourceRef& r, std::vector<std::string> bodies);
  Result<std::string> update(const ResourceRef& r, std::string body, std::string_view query = {});
  Result<std::string> patch(const ResourceRef& r, PatchType type, std::string body, std::string_view query = {});
  Result<std::string> remove(const ResourceRef& r, const DeleteOptions& opts = {});
  Result<std::string> delete_collection(const ResourceRef& r, const ListOptions& opts, const DeleteOptions& d = {});
  Result<std::unique_ptr<WatchStream>> watch(const ResourceRef& r, const ListOptions& opts, std::string_view accept = {});
  // The Accept header for answers holding `info`'s objects (its lists when `list`): the
  // configured types when the configuration prefers protobuf and the kind has protobuf tables
  // (client-go's "application/vnd.kubernetes.protobuf, */*"), else application/json.
  std::string accept_for(const ResourceInfo& info, bool list = false) const;
  // Any method/path (discovery, healthz, ...).
  Result<HttpResponse> raw(std::string method, std::string target, std::string body = {},
                           std::string content_type = {});

  // pods/binding: POST {"kind":"Binding",...,"target":{"kind":"Node","name":node}}, pipelined
  // with the bindings other threads send meanwhile (Transport::round_trip).
  Result<void> bind(std::string_view ns, std::string_view pod, std::string_view uid, std::string_view node);
  // Several bindings from one thread, pipelined on one connection (Transport::round_trip_all);
  // the results are in the same order.
  struct BindingTarget {
    std::string_view ns, pod, uid, node;
  };
  std::vector<Result<void>> bind_all(const std::vector<BindingTarget>& bindings);

  // Typed helpers.
  template <class T>
  Result<T> get(std::string_view ns, std::string_view name) {
    const auto& info = ResourceFor<T>::info;
    return decoded<T>(get(ResourceRef::of(info, ns, name), {}, typed_accept<T>(info)));
  }
  template <class T>
  Result<api::List<T>> list(std::string_view ns, const ListOptions& opts = {}) {
    const auto& info = ResourceFor<T>::info;
    return decoded<api::List<T>>(list(ResourceRef::of(info, ns), opts, typed_accept<T>(info, true)));
  }
  template <class T>
  Result<T> create(const T& obj) {
    return decoded<T>(create(ResourceRef::of(ResourceFor<T>::info, obj.metadata.namespace_), api::encode(obj)));
  }
  template <class T>
  Result<T> update(const T& obj) {
    return decoded<T>(update(ResourceRef::of(ResourceFor<T>::info, obj.metadata.namespace_, obj.metadata.name),
                             api::encode(obj)));
  }
  template <class T>
  Result<T> update_status(const T& obj) {
    return decoded<T>(update(
        ResourceRef::of(ResourceFor<T>::info, obj.metadata.namespace_, obj.metadata.name, "status"), api::encode(obj)));
  }
  template <class T>
  Result<T> patch(std::string_view ns, std::string_view name, PatchType type, std::string body,
                  std::string_view subresource = {}) {
    return decoded<T>(patch(ResourceRef::of(ResourceFor<T>::info, ns, name, subresource), type, std::move(body)));
  }
  template <class T>
  Result<void> remove(std::string_view ns, std::string_view name, const DeleteOptions& opts = {}) {
    auto r = remove(ResourceRef::of(ResourceFor<T>::info, ns, name), opts);
    if (!r) return r.error();
    return {};
  }

  Transport& transport() { return *t_; }
  const RestConfig& config() const { return t_->config(); }

 private:
  template <class T>
  static Result<T> decoded(Result<std::string> body) {
    if (!body) return body.error();
    util::Result<T> v = util::make_error(std::string("protobuf answer for a type read as JSON only"));
    if (!api::protobuf::has_magic(*body)) v = api::decode<T>(*body);
    else if constexpr (api::protobuf::kTypedDecoding<T>) v = api::protobuf::decode<T>(*body);
    if (!v) {
      ApiError e;
      e.message = "unable to decode response: " + v.error();
      e.code = 0;
      e.reason = "DecodeError";
      return e;
    }
    return std::move(*v);
  }
  // Protobuf is asked for only for types with typed protobuf decoding (api::protobuf::kTypedDecoding).
  template <class T>
  std::string typed_accept(const ResourceInfo& info, bool list = false) const {
    if constexpr (api::protobuf::kTypedDecoding<T>) return accept_for(info, list);
    else return {};
  }
  static Result<std::string> body_of(Result<HttpResponse> res);
  Result<std::string> call(std::string method, const ResourceRef& r, std::string query, std::string body,
                           std::string content_type, bool pipelined = false, std::string_view accept = {});
  // A JSON write body as protobuf when the configuration prefers it and its kind has tables.
  void encode_body(std::string& body, std::string& content_type) const;
  // Bindings are answered with a Status.
  const std::string& binding_accept() const { return binding_accept_; }
  std::shared_ptr<Transport> t_;
  std::string binding_accept_;
};

// Percent-encodes a query parameter value.
std::string url_escape(std::string_view s);

}  // namespace ksched::client
