// Namespace controller (pkg/controller/namespace): a namespace being deleted (Terminating, with
// the "kubernetes" finalizer in spec.finalizers) has every namespaced object deleted
// (deletecollection per resource, background propagation), is checked again until nothing is
// left, then loses the finalizer through namespaces/<name>/finalize, upon which the API server
// removes it. Its status carries upstream's deletion conditions (NamespaceContentRemaining,
// NamespaceFinalizersRemaining, ...).
#pragma once
#include <memory>
#include <string>

#include "controllers/controller.h"
#include "controllers/discovery.h"

namespace ksched::controllers {

class NamespaceController final : public Controller {
 public:
  explicit NamespaceController(const ControllerContext& ctx);
  ~NamespaceController() override;
  void run(int workers) override;
  void stop() override;
  bool has_synced() const override;

  util::Result<void> sync(const std::string& name);

 private:
  // Deletes the namespace's content and updates its conditions; the seconds until it may be gone
  // (graceful pods, finalizers), 0 when nothing is left.
  client::Result<std::int64_t> delete_all_content(const std::string& ns);

  ControllerContext ctx_;
  std::shared_ptr<informer::SharedIndexInformer<api::Namespace>> ns_informer_;
  std::shared_ptr<informer::SharedIndexInformer<api::Pod>> pod_informer_;
  std::vector<std::function<bool()>> synced_;
  KeyWorkers workers_;
};

}  // namespace ksched::controllers
