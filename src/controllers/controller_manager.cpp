#include "controllers/controller_manager.h"

#include <algorithm>
#include <thread>

#include "controllers/controller_utils.h"
#include "controllers/discovery.h"
#include "controllers/daemon/daemon_set.h"
#include "controllers/deployment/deployment_controller.h"
#include "controllers/garbagecollector/garbage_collector.h"
#include "controllers/job/job_controller.h"
#include "controllers/namespace/namespace_controller.h"
#include "controllers/replicaset/replica_set.h"
#include "controllers/resourceclaim/resource_claim.h"
#include "controllers/statefulset/stateful_set.h"
#include "informer/factory.h"
#include "util/log.h"

namespace ksched::controllers {

const std::vector<ControllerDescriptor>& controller_descriptors() {
  static const std::vector<ControllerDescriptor> all = {
      {"deployment-controller", 5, false,
       [](const ControllerContext& c) { return std::make_unique<DeploymentController>(c); }},
      {"replicaset-controller", 5, false,
       [](const ControllerContext& c) { return std::make_unique<ReplicaSetController>(c); }},
      {"daemonset-controller", 2, false,
       [](const ControllerContext& c) { return std::make_unique<DaemonSetController>(c); }},
      {"job-controller", 5, false,
       [](const ControllerContext& c) { return std::make_unique<JobController>(c); }},
      {"statefulset-controller", 5, false,
       [](const ControllerContext& c) { return std::make_unique<StatefulSetController>(c); }},
      // --concurrent-resourceclaim-syncs: 50 (upstream needed them at 1,000 nodes; they mostly idle).
      {"resourceclaim-controller", 50, false,
       [](const ControllerContext& c) { return std::make_unique<ResourceClaimController>(c); }},
      {"namespace-controller", 10, true,
       [](const ControllerContext& c) { return std::make_unique<NamespaceController>(c); }},
      {"garbage-collector-controller", 20, true,
       [](const ControllerContext& c) { return std::make_unique<GarbageCollector>(c); }},
  };
  return all;
}

util::Result<std::vector<std::string>> enabled_controllers(const std::vector<std::string>& spec) {
  std::vector<std::string> out;
  const auto& all = controller_descriptors();
  auto known = [&](std::string_view n) {
    return std::any_of(all.begin(), all.end(), [&](const ControllerDescriptor& d) { return d.name == n; });
  };
  for (const auto& s : spec)
    if (s != "*" && !known(s.starts_with("-") ? std::string_view(s).substr(1) : std::string_view(s)))
      return util::make_error("\"" + s + "\" is not in the list of known controllers");
  for (const auto& d : all) {
    bool on = false;
    for (const auto& s : spec) {
      if (s == "*") on = true;
      else if (s == d.name) on = true;
      else if (s == "-" + d.name) on = false;
    }
    if (on) out.push_back(d.name);
  }
  return out;
}

struct ControllerManager::Impl {
  ControllerManagerOptions opts;
  std::shared_ptr<client::RestClient> client;
  std::unique_ptr<informer::SharedInformerFactory> factory;
  std::unique_ptr<events::EventBroadcaster> events;
  std::unique_ptr<Discovery> discovery;
  InformerRegistry registry;
  std::vector<std::pair<std::string, std::unique_ptr<Controller>>> controllers;
  bool stopped = false;
  // The informers' handler threads call into the controllers: stop them before the controllers go.
  ~Impl() {
    for (auto& [name, ctl] : controllers) ctl->stop();
    if (factory) factory->shutdown();
  }
};

ControllerManager::ControllerManager(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ControllerManager::~ControllerManager() { stop(); }

util::Result<std::unique_ptr<ControllerManager>> ControllerManager::start(std::shared_ptr<client::RestClient> c,
                                                                           ControllerManagerOptions opts) {
  auto names = enabled_controllers(opts.controllers);
  if (!names) return util::make_error(names.error());
  auto features = controller_features(opts.feature_gates);
  if (!features) return util::make_error(features.error());
  auto im = std::make_unique<Impl>();
  im->opts = opts;
  im->client = c;
  im->factory = std::make_unique<informer::SharedInformerFactory>(c, resync_period(opts.min_resync_period), "",
                                                                   *opts.clock);
  if (opts.record_events) {
    im->events = std::make_unique<events::EventBroadcaster>(c);
    im->events->start_recording_to_sink();
  }
  ControllerContext ctx;
  ctx.client = c;
  ctx.informers = im->factory.get();
  ctx.events = im->events.get();
  ctx.clock = opts.clock;
  ctx.registry = &im->registry;
  ctx.features = *features;
  for (const auto& d : controller_descriptors()) {
    if (std::find(names->begin(), names->end(), d.name) == names->end()) continue;
    if (d.needs_discovery && !im->discovery) {
      auto disc = Discovery::discover(*c);
      if (!disc) return util::make_error("discovering the server's resources: " + disc.error().to_string());
      im->discovery = std::make_unique<Discovery>(std::move(*disc));
      ctx.discovery = im->discovery.get();
    }
    im->controllers.emplace_back(d.name, d.make(ctx));
  }
  im->factory->start();
  auto synced = im->factory->wait_for_cache_sync(opts.cache_sync_timeout);
  for (const auto& [name, ok] : synced)
    if (!ok) return util::make_error("timed out waiting for the " + name + " informer to sync");
  // The controllers' own handlers must have seen the initial lists too (they fill expectations
  // and queues), as upstream's WaitForNamedCacheSync waits for each handler registration.
  auto deadline = opts.clock->now() + opts.cache_sync_timeout;
  for (auto& [name, ctl] : im->controllers) {
    while (!ctl->has_synced()) {
      if (opts.clock->now() > deadline) return util::make_error("timed out waiting for " + name + " to sync");
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  for (auto& [name, ctl] : im->controllers) {
    int workers = 1;
    for (const auto& d : controller_descriptors())
      if (d.name == name) workers = d.default_workers;
    if (auto it = opts.workers.find(name); it != opts.workers.end()) workers = it->second;
    ctl->run(workers);
    log::info("Started controller", {{"controller", name}, {"workers", workers}});
  }
  return std::unique_ptr<ControllerManager>(new ControllerManager(std::move(im)));
}

void ControllerManager::stop() {
  if (!impl_ || impl_->stopped) return;
  impl_->stopped = true;
  for (auto it = impl_->controllers.rbegin(); it != impl_->controllers.rend(); ++it) it->second->stop();
  impl_->factory->shutdown();
  if (impl_->events) impl_->events->shutdown();
}

std::vector<std::string> ControllerManager::running() const {
  std::vector<std::string> out;
  for (const auto& [name, c] : impl_->controllers) out.push_back(name);
  return out;
}

InformerRegistry::Counts ControllerManager::informer_counts() const { return impl_->registry.totals(); }

}  // namespace ksched::controllers
