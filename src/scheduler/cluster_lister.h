// framework::ClusterLister over informer listers. Each kind is optional: a kind whose informer
// was not created reads as empty (the scheduler only creates informers for what plugins need).
#pragma once
#include <memory>
#include <optional>

#include "api/types.h"
#include "informer/store.h"
#include "scheduler/framework/interface.h"

namespace ksched::scheduler {

class InformerClusterLister final : public framework::ClusterLister {
 public:
  template <class T>
  using L = std::optional<informer::Lister<T>>;

  L<api::Pod> pods;
  L<api::Namespace> namespaces;
  L<api::Service> services;
  L<api::ReplicationController> replicationControllers;
  L<api::ReplicaSet> replicaSets;
  L<api::StatefulSet> statefulSets;
  L<api::PodDisruptionBudget> pdbs;
  L<api::PersistentVolume> pvs;
  L<api::PersistentVolumeClaim> pvcs;
  L<api::StorageClass> storageClasses;
  L<api::CSINode> csiNodes;
  L<api::CSIDriver> csiDrivers;
  L<api::CSIStorageCapacity> csiStorageCapacities;

  std::shared_ptr<const api::Namespace> get_namespace(std::string_view name) const override;
  std::vector<std::shared_ptr<const api::Namespace>> list_namespaces() const override;
  std::vector<std::shared_ptr<const api::Service>> list_services(std::string_view ns) const override;
  std::vector<std::shared_ptr<const api::ReplicationController>> list_replication_controllers(
      std::string_view ns) const override;
  std::vector<std::shared_ptr<const api::ReplicaSet>> list_replica_sets(std::string_view ns) const override;
  std::vector<std::shared_ptr<const api::StatefulSet>> list_stateful_sets(std::string_view ns) const override;
  std::vector<std::shared_ptr<const api::PodDisruptionBudget>> list_pdbs(std::string_view ns) const override;
  std::shared_ptr<const api::PersistentVolume> get_pv(std::string_view name) const override;
  std::vector<std::shared_ptr<const api::PersistentVolume>> list_pvs() const override;
  std::shared_ptr<const api::PersistentVolumeClaim> get_pvc(std::string_view ns, std::string_view name) const override;
  std::shared_ptr<const api::StorageClass> get_storage_class(std::string_view name) const override;
  std::shared_ptr<const api::CSINode> get_csi_node(std::string_view name) const override;
  std::shared_ptr<const api::CSIDriver> get_csi_driver(std::string_view name) const override;
  std::vector<std::shared_ptr<const api::CSIStorageCapacity>> list_csi_storage_capacities() const override;
  framework::PodPtr get_pod(std::string_view ns, std::string_view name) const override;
};

}  // namespace ksched::scheduler
