// Garbage collector (pkg/controller/garbagecollector): a graph of every object's ownerReferences,
// built from informers over every resource the server can list, watch and delete (events
// excepted). An object whose owners are all gone is deleted (background, or as its own finalizers
// say); an owner deleted in the foreground (finalizer foregroundDeletion) waits until its
// dependents that block it (blockOwnerDeletion) are gone, then loses the finalizer; an owner
// deleted with the orphan finalizer has its ownerReference removed from every dependent, then
// loses the finalizer.
#pragma once
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "controllers/controller.h"
#include "controllers/discovery.h"
#include "controllers/types.h"

namespace ksched::controllers {

class GarbageCollector final : public Controller {
 public:
  explicit GarbageCollector(const ControllerContext& ctx);
  ~GarbageCollector() override;
  void run(int workers) override;
  void stop() override;
  bool has_synced() const override;

  // The graph's size (tests).
  std::size_t graph_size() const;

 private:
  struct Identity {
    std::string api_version, kind, ns, name, uid;
  };
  struct Node {
    Identity id;
    std::vector<api::OwnerReference> owners;
    std::unordered_set<Node*> dependents;
    bool virtual_ = false;  // known only as someone's owner: not observed yet
    bool being_deleted = false;
    bool deleting_dependents = false;
  };

  template <class T>
  void monitor(std::shared_ptr<informer::SharedIndexInformer<T>> inf, const ApiResource& r, bool own);
  void observe(const ApiResource& r, const api::ObjectMeta& m, const api::ObjectMeta* old);
  void observe_deleted(const api::ObjectMeta& m);
  // Under mu_:
  Node* add_virtual_owner(const api::OwnerReference& ref, const std::string& ns);
  void remove_node(Node* n);

  util::Result<void> attempt_to_delete(const std::string& uid);
  util::Result<void> attempt_to_orphan(const std::string& uid);
  client::Result<void> process_deleting_dependents(const std::string& uid);
  // The object now (metadata), or nullopt when it is gone or is another object of the same name.
  client::Result<std::optional<ObjectMetadata>> get_latest(const Identity& id);
  client::Result<void> remove_finalizer(const Identity& id, std::string_view finalizer);

  ControllerContext ctx_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::unique_ptr<Node>> nodes_;  // by UID
  std::vector<std::function<bool()>> synced_;
  std::vector<std::shared_ptr<informer::InformerBase>> own_informers_;  // metadata monitors
  KeyWorkers delete_workers_;
  KeyWorkers orphan_workers_;
};

}  // namespace ksched::controllers
