// Which REST resource holds a C++ API type: group/version/resource, kind and scope, as client-go's
// typed clients know them.
#pragma once
#include <string_view>

namespace ksched::api {
struct Pod;
struct Node;
struct Namespace;
struct Service;
struct ReplicationController;
struct Event;
struct Binding;
struct Lease;
namespace eventsv1 {
struct Event;
}
}  // namespace ksched::api

namespace ksched::client {

struct ResourceInfo {
  std::string_view group;
  std::string_view version;
  std::string_view resource;
  std::string_view kind;
  bool namespaced;
};

// Specialise for every type used with the typed helpers (client.list<api::Pod>()) and informers.
template <class T>
struct ResourceFor;

template <>
struct ResourceFor<api::Pod> {
  static constexpr ResourceInfo info{"", "v1", "pods", "Pod", true};
};
template <>
struct ResourceFor<api::Node> {
  static constexpr ResourceInfo info{"", "v1", "nodes", "Node", false};
};
template <>
struct ResourceFor<api::Namespace> {
  static constexpr ResourceInfo info{"", "v1", "namespaces", "Namespace", false};
};
template <>
struct ResourceFor<api::Service> {
  static constexpr ResourceInfo info{"", "v1", "services", "Service", true};
};
template <>
struct ResourceFor<api::ReplicationController> {
  static constexpr ResourceInfo info{"", "v1", "replicationcontrollers", "ReplicationController", true};
};
template <>
struct ResourceFor<api::Event> {
  static constexpr ResourceInfo info{"", "v1", "events", "Event", true};
};

template <>
struct ResourceFor<api::Lease> {
  static constexpr ResourceInfo info{"coordination.k8s.io", "v1", "leases", "Lease", true};
};
template <>
struct ResourceFor<api::eventsv1::Event> {
  static constexpr ResourceInfo info{"events.k8s.io", "v1", "events", "Event", true};
};

}  // namespace ksched::client
