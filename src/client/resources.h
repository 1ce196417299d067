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
struct ReplicaSet;
struct StatefulSet;
struct Deployment;
struct DaemonSet;
struct PodDisruptionBudget;
struct PersistentVolume;
struct PersistentVolumeClaim;
struct StorageClass;
struct CSINode;
struct CSIDriver;
struct CSIStorageCapacity;
struct PriorityClass;
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
template <>
struct ResourceFor<api::PersistentVolume> {
  static constexpr ResourceInfo info{"", "v1", "persistentvolumes", "PersistentVolume", false};
};
template <>
struct ResourceFor<api::PersistentVolumeClaim> {
  static constexpr ResourceInfo info{"", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true};
};
template <>
struct ResourceFor<api::ReplicaSet> {
  static constexpr ResourceInfo info{"apps", "v1", "replicasets", "ReplicaSet", true};
};
template <>
struct ResourceFor<api::StatefulSet> {
  static constexpr ResourceInfo info{"apps", "v1", "statefulsets", "StatefulSet", true};
};
template <>
struct ResourceFor<api::Deployment> {
  static constexpr ResourceInfo info{"apps", "v1", "deployments", "Deployment", true};
};
template <>
struct ResourceFor<api::DaemonSet> {
  static constexpr ResourceInfo info{"apps", "v1", "daemonsets", "DaemonSet", true};
};
template <>
struct ResourceFor<api::PodDisruptionBudget> {
  static constexpr ResourceInfo info{"policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", true};
};
template <>
struct ResourceFor<api::StorageClass> {
  static constexpr ResourceInfo info{"storage.k8s.io", "v1", "storageclasses", "StorageClass", false};
};
template <>
struct ResourceFor<api::CSINode> {
  static constexpr ResourceInfo info{"storage.k8s.io", "v1", "csinodes", "CSINode", false};
};
template <>
struct ResourceFor<api::CSIDriver> {
  static constexpr ResourceInfo info{"storage.k8s.io", "v1", "csidrivers", "CSIDriver", false};
};
template <>
struct ResourceFor<api::CSIStorageCapacity> {
  static constexpr ResourceInfo info{"storage.k8s.io", "v1", "csistoragecapacities", "CSIStorageCapacity", true};
};
template <>
struct ResourceFor<api::PriorityClass> {
  static constexpr ResourceInfo info{"scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", false};
};

}  // namespace ksched::client
