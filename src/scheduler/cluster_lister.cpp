#include "scheduler/cluster_lister.h"

namespace ksched::scheduler {

namespace {

template <class T>
std::vector<std::shared_ptr<const T>> in_namespace(const std::optional<informer::Lister<T>>& l, std::string_view ns) {
  if (!l) return {};
  // Filter rather than rely on a namespace index being registered on every informer.
  return l->list_if([&](const T& o) { return ns.empty() || o.metadata.namespace_ == ns; });
}

template <class T>
std::shared_ptr<const T> get_cluster(const std::optional<informer::Lister<T>>& l, std::string_view name) {
  return l ? l->get(std::string(name)) : nullptr;
}

template <class T>
std::vector<std::shared_ptr<const T>> all(const std::optional<informer::Lister<T>>& l) {
  return l ? l->list() : std::vector<std::shared_ptr<const T>>{};
}

}  // namespace

std::shared_ptr<const api::Namespace> InformerClusterLister::get_namespace(std::string_view name) const {
  return get_cluster(namespaces, name);
}
std::vector<std::shared_ptr<const api::Namespace>> InformerClusterLister::list_namespaces() const {
  return all(namespaces);
}
std::vector<std::shared_ptr<const api::Service>> InformerClusterLister::list_services(std::string_view ns) const {
  return in_namespace(services, ns);
}
std::vector<std::shared_ptr<const api::ReplicationController>> InformerClusterLister::list_replication_controllers(
    std::string_view ns) const {
  return in_namespace(replicationControllers, ns);
}
std::vector<std::shared_ptr<const api::ReplicaSet>> InformerClusterLister::list_replica_sets(std::string_view ns) const {
  return in_namespace(replicaSets, ns);
}
std::vector<std::shared_ptr<const api::StatefulSet>> InformerClusterLister::list_stateful_sets(
    std::string_view ns) const {
  return in_namespace(statefulSets, ns);
}
std::vector<std::shared_ptr<const api::PodDisruptionBudget>> InformerClusterLister::list_pdbs(
    std::string_view ns) const {
  return in_namespace(pdbs, ns);
}
std::shared_ptr<const api::PersistentVolume> InformerClusterLister::get_pv(std::string_view name) const {
  return get_cluster(pvs, name);
}
std::vector<std::shared_ptr<const api::PersistentVolume>> InformerClusterLister::list_pvs() const { return all(pvs); }
std::shared_ptr<const api::PersistentVolumeClaim> InformerClusterLister::get_pvc(std::string_view ns,
                                                                                 std::string_view name) const {
  return pvcs ? pvcs->get(std::string(ns), std::string(name)) : nullptr;
}
std::shared_ptr<const api::StorageClass> InformerClusterLister::get_storage_class(std::string_view name) const {
  return get_cluster(storageClasses, name);
}
std::shared_ptr<const api::CSINode> InformerClusterLister::get_csi_node(std::string_view name) const {
  return get_cluster(csiNodes, name);
}
std::shared_ptr<const api::CSIDriver> InformerClusterLister::get_csi_driver(std::string_view name) const {
  return get_cluster(csiDrivers, name);
}
std::vector<std::shared_ptr<const api::CSIStorageCapacity>> InformerClusterLister::list_csi_storage_capacities() const {
  return all(csiStorageCapacities);
}
framework::PodPtr InformerClusterLister::get_pod(std::string_view ns, std::string_view name) const {
  return pods ? pods->get(std::string(ns), std::string(name)) : nullptr;
}

}  // namespace ksched::scheduler
