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
  explicit RestClient(std::shared_ptr<Transport> t) : t_(std::move(t)) {}

  // Raw verbs: the response body on 2xx.
  Result<std::string> get(const ResourceRef& r, std::string_view query = {});
  Result<std::string> list(const ResourceRef& r, const ListOptions& opts = {});
  Result<std::string> create(const ResourceRef& r, std::string body, std::string_view query = {});
  // Creates several objects of one resource from one thread, pipelined on one connection
  // (Transport::round_trip_all); the results are in the bodies' order.
  std::vector<Result<std::string>> create_all(const ResourceRef& r, std::vector<std::string> bodies);
  Result<std::string> update(const ResourceRef& r, std::string body, std::string_view query = {});
  Result<std::string> patch(const ResourceRef& r, PatchType type, std::string body, std::string_view query = {});
  Result<std::string> remove(const ResourceRef& r, const DeleteOptions& opts = {});
  Result<std::string> delete_collection(const ResourceRef& r, const ListOptions& opts, const DeleteOptions& d = {});
  Result<std::unique_ptr<WatchStream>> watch(const ResourceRef& r, const ListOptions& opts);
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
    return decoded<T>(get(ResourceRef::of(ResourceFor<T>::info, ns, name)));
  }
  template <class T>
  Result<api::List<T>> list(std::string_view ns, const ListOptions& opts = {}) {
    return decoded<api::List<T>>(list(ResourceRef::of(ResourceFor<T>::info, ns), opts));
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
    auto v = api::decode<T>(*body);
    if (!v) {
      ApiError e;
      e.message = "unable to decode response: " + v.error();
      e.code = 0;
      e.reason = "DecodeError";
      return e;
    }
    return std::move(*v);
  }
  static Result<std::string> body_of(Result<HttpResponse> res);
  Result<std::string> call(std::string method, const ResourceRef& r, std::string query, std::string body,
                           std::string content_type, bool pipelined = false);
  std::shared_ptr<Transport> t_;
};

// Percent-encodes a query parameter value.
std::string url_escape(std::string_view s);

}  // namespace ksched::client
