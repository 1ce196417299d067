// What every controller shares: the context it is built with (upstream's ControllerContext), the
// interface the ControllerManager runs, and the work queue of object keys with its workers.
#pragma once
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "client/rest.h"
#include "controllers/features.h"
#include "events/recorder.h"
#include "informer/factory.h"
#include "informer/workqueue.h"
#include "util/clock.h"
#include "util/result.h"

namespace ksched::controllers {

class Discovery;

// The shared informers the controllers asked for, by name, with their reflectors' counters (lists,
// watches, relists after 410 Gone): the manager reports them.
class InformerRegistry {
 public:
  void add(const std::string& name, std::function<const informer::ReflectorStats&()> stats);
  struct Counts {
    std::uint64_t lists = 0, watches = 0, relists_expired = 0, errors = 0;
  };
  Counts totals() const;
  std::vector<std::string> names() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::function<const informer::ReflectorStats&()>> stats_;
};

struct ControllerContext {
  std::shared_ptr<client::RestClient> client;
  // One factory for every controller of the manager: one informer per kind, shared.
  informer::SharedInformerFactory* informers = nullptr;
  // Events about the objects controlled (nullptr: none are recorded).
  events::EventBroadcaster* events = nullptr;
  const util::Clock* clock = &util::RealClock::instance();
  // The resources the server serves (garbage collector, namespace controller); fetched by the
  // manager once at start.
  const Discovery* discovery = nullptr;
  InformerRegistry* registry = nullptr;
  // The gates the controllers act on (features.h), resolved by the manager.
  ControllerFeatures features;
};

class Controller {
 public:
  virtual ~Controller() = default;
  // Starts `workers` workers. The manager calls it once the shared informers have synced.
  virtual void run(int workers) = 0;
  // Stops the workers (each finishes the item in hand) and returns once they have.
  virtual void stop() = 0;
  // True once the controller's own event handlers have seen their informers' initial lists.
  virtual bool has_synced() const { return true; }
};

// A rate-limited queue of object keys ("namespace/name") and the workers that sync them, as each
// upstream controller runs its workqueue: a key is never synced by two workers at once; a sync
// that fails is retried with the controller rate limiter's backoff (per key 5 ms doubling to
// 1000 s, overall 10 qps / burst 100), up to `max_retries` times (negative: without end).
class KeyWorkers {
 public:
  using Sync = std::function<util::Result<void>(const std::string& key)>;
  KeyWorkers(std::string name, Sync sync, const util::Clock& clock = util::RealClock::instance(),
             int max_retries = -1);
  ~KeyWorkers();
  KeyWorkers(const KeyWorkers&) = delete;
  KeyWorkers& operator=(const KeyWorkers&) = delete;

  void add(const std::string& key) { queue_.add(key); }
  void add_after(const std::string& key, util::Clock::duration d) { queue_.add_after(key, d); }
  void add_rate_limited(const std::string& key) { queue_.add_rate_limited(key); }
  void start(int workers);
  void stop();
  std::size_t len() const { return queue_.len(); }

 private:
  void work();
  std::string name_;
  Sync sync_;
  int max_retries_;
  informer::RateLimitingQueue<std::string> queue_;
  std::vector<std::thread> threads_;
};

// Converts a client error into the message a failed sync logs.
inline util::Error sync_error(const client::ApiError& e) { return util::Error{e.to_string()}; }

}  // namespace ksched::controllers
