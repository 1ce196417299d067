// ControllerManager: kube-controller-manager's controllers in one process, clients of any API
// server. One shared informer factory feeds them all; each controller runs its own workers
// (upstream's default counts: ConcurrentDeploymentSyncs 5, ConcurrentRSSyncs 5, ...).
//
// Adding a controller: a folder under src/controllers with its class (a Controller built from a
// ControllerContext), and one line in controller_descriptors() (controller_manager.cpp).
#pragma once
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "client/rest.h"
#include "controllers/controller.h"
#include "util/clock.h"
#include "util/result.h"

namespace ksched::controllers {

struct ControllerDescriptor {
  std::string name;     // upstream's name, e.g. "deployment-controller"
  int default_workers;  // upstream's default --concurrent-*-syncs
  // Needs the server's discovery (the garbage collector, the namespace controller).
  bool needs_discovery = false;
  std::function<std::unique_ptr<Controller>(const ControllerContext&)> make;
};

// Every controller the manager knows, in start order.
const std::vector<ControllerDescriptor>& controller_descriptors();

struct ControllerManagerOptions {
  // As kube-controller-manager's --controllers: "*" enables every controller, "name" one, "-name"
  // disables one; later entries win.
  std::vector<std::string> controllers{"*"};
  std::map<std::string, int> workers;  // per controller name: overrides the default count
  // Informer resync (upstream's --min-resync-period 12h: each informer resyncs every 12 h to 24 h).
  std::chrono::milliseconds min_resync_period = std::chrono::hours(12);
  bool record_events = true;
  std::chrono::milliseconds cache_sync_timeout = std::chrono::seconds(60);
  const util::Clock* clock = &util::RealClock::instance();
  // --feature-gates, as given to every component: the controllers read the gates they act on
  // (features.h) and ignore the others. A gate on without its dependency is an error.
  std::map<std::string, bool> feature_gates;
};

class ControllerManager {
 public:
  // Builds the enabled controllers, starts the shared informers, waits for their caches and
  // starts the workers. An unknown controller name is an error.
  static util::Result<std::unique_ptr<ControllerManager>> start(std::shared_ptr<client::RestClient> c,
                                                                ControllerManagerOptions opts = {});
  ~ControllerManager();
  void stop();
  // Names of the controllers running.
  std::vector<std::string> running() const;
  // The shared informers' reflector counters, summed (tests: a relist after 410 Gone).
  InformerRegistry::Counts informer_counts() const;

  struct Impl;

 private:
  explicit ControllerManager(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Which of `names` the --controllers list enables (upstream's IsControllerEnabled); an entry
// naming no known controller is returned as an error.
util::Result<std::vector<std::string>> enabled_controllers(const std::vector<std::string>& spec);

}  // namespace ksched::controllers
