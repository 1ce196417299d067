// Builders for PV / PVC / StorageClass / CSINode objects used by the volume plugin tests.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "api/storage.h"
#include "api/volume.h"

namespace ksched::scheduler::testing::volume {

inline std::shared_ptr<api::PersistentVolumeClaim> pvc(std::string ns, std::string name, std::string volume_name = {},
                                                       std::optional<std::string> sc = std::nullopt,
                                                       std::vector<std::string> modes = {"ReadWriteOnce"}) {
  auto c = std::make_shared<api::PersistentVolumeClaim>();
  c->metadata.namespace_ = std::move(ns);
  c->metadata.name = std::move(name);
  c->metadata.uid = "uid-" + c->metadata.name;
  c->spec.volumeName = std::move(volume_name);
  c->spec.storageClassName = std::move(sc);
  c->spec.accessModes = std::move(modes);
  return c;
}

inline std::shared_ptr<api::PersistentVolume> pv(std::string name, std::vector<std::pair<std::string, std::string>> labels = {}) {
  auto v = std::make_shared<api::PersistentVolume>();
  v->metadata.name = std::move(name);
  for (auto& [k, val] : labels) v->metadata.labels.set(k, val);
  return v;
}

inline std::shared_ptr<api::StorageClass> storage_class(std::string name, std::optional<std::string> mode,
                                                        std::string provisioner = "csi.example.com") {
  auto sc = std::make_shared<api::StorageClass>();
  sc->metadata.name = std::move(name);
  sc->volumeBindingMode = std::move(mode);
  sc->provisioner = std::move(provisioner);
  return sc;
}

inline std::shared_ptr<api::CSINode> csi_node(std::string node, std::string driver, std::optional<std::int32_t> count) {
  auto n = std::make_shared<api::CSINode>();
  n->metadata.name = std::move(node);
  api::CSINodeDriver d;
  d.name = std::move(driver);
  if (count) {
    d.allocatable.emplace();
    d.allocatable->count = count;
  }
  n->spec.drivers.push_back(std::move(d));
  return n;
}

}  // namespace ksched::scheduler::testing::volume
