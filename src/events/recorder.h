// Event recording as client-go's k8s.io/client-go/tools/events: recorders hand events to a
// broadcaster that writes events.k8s.io/v1 Events in the background. Callers never block: the
// queue is bounded and drops (counted) when full. Repeats of an event (same regarding object,
// reason, action, type, reporting controller and related object) within the series window become
// a series: the first repeat PATCHes series {count: 2, lastObservedTime}, later ones bump the count.
// Each regarding object has a token bucket (burst 25, one per 5 min) against event storms.
// The worker drains the queue in batches; ended series and refilled buckets are swept at most once
// per sweep_interval, so the cost of an event does not grow with the number of objects seen.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "api/events.h"
#include "client/rate_limiter.h"
#include "client/rest.h"
#include "util/clock.h"

namespace ksched::events {

inline constexpr const char* kNormal = "Normal";
inline constexpr const char* kWarning = "Warning";

struct BroadcasterOptions {
  std::size_t queue_size = 1000;
  double per_object_qps = 1.0 / 300.0;
  int per_object_burst = 25;
  std::chrono::milliseconds series_window = std::chrono::minutes(6);
  // How often ended series and full per-object buckets are forgotten (memory only: a lookup
  // treats an ended series as ended whenever it happens).
  std::chrono::milliseconds sweep_interval = std::chrono::seconds(30);
  const util::Clock* clock = &util::RealClock::instance();
  // Writers working at once. Events about one object always go to the same writer, in order, so
  // a series is created before it is patched; objects are spread over the writers by hash. One,
  // as upstream's single recording goroutine: it pipelines its creates, so it keeps up with 10,000
  // Scheduled events a second, and more writers only made smaller batches (more sends and wakes).
  int sinks = 1;
  // How long a writer that woke for an event waits for more to share its write (unless
  // `batch_target` are queued first, or it is stopping). Events are read by people and tools, not
  // on any pod's path, so a few milliseconds cost nothing; writing each event alone at a thousand
  // a second cost the writer, its wake-ups and the server several times the CPU of batches.
  std::chrono::milliseconds batch_delay = std::chrono::milliseconds(10);
  std::size_t batch_target = 64;
};

struct RecorderStats {
  std::uint64_t recorded = 0;
  std::uint64_t created = 0;
  std::uint64_t patched = 0;
  std::uint64_t dropped_queue_full = 0;
  std::uint64_t dropped_rate_limited = 0;
  std::uint64_t failed = 0;
  // What the worker remembers after its last batch: open series, and objects whose bucket is
  // not full. Both shrink at each sweep.
  std::size_t series_tracked = 0;
  std::size_t objects_tracked = 0;
};

class EventBroadcaster;

class EventRecorder {
 public:
  // Records an event about `regarding` (and optionally `related`). Never blocks.
  void event(const api::ObjectReference& regarding, const api::ObjectReference* related, std::string_view type,
             std::string_view reason, std::string_view action, std::string note);
  template <class... Args>
  void eventf(const api::ObjectReference& regarding, const api::ObjectReference* related, std::string_view type,
              std::string_view reason, std::string_view action, fmt::format_string<Args...> f, Args&&... args) {
    event(regarding, related, type, reason, action, fmt::format(f, std::forward<Args>(args)...));
  }

 private:
  friend class EventBroadcaster;
  EventRecorder(EventBroadcaster* b, std::string controller, std::string instance)
      : b_(b), controller_(std::move(controller)), instance_(std::move(instance)) {}
  EventBroadcaster* b_;
  std::string controller_, instance_;
};

class EventBroadcaster {
 public:
  EventBroadcaster(std::shared_ptr<client::RestClient> c, BroadcasterOptions opts = {});
  ~EventBroadcaster();
  void start_recording_to_sink();
  // Writes what is queued, then stops the worker.
  void shutdown();
  // reporting_instance "" = "<controller>-<hostname>".
  std::shared_ptr<EventRecorder> new_recorder(std::string reporting_controller, std::string reporting_instance = {});
  RecorderStats stats() const;
  // True once the queue is empty and nothing is being written (for tests and shutdown).
  bool wait_idle(std::chrono::milliseconds timeout);

 private:
  friend class EventRecorder;
  struct Cached {
    std::string namespace_, name;  // of the event as created on the server
    std::int32_t count = 1;
    std::int64_t last_observed_ns = 0;
    util::Clock::time_point last_seen{};
    bool pending = false;  // its create is in the lane's unsent batch
  };
  // A create waiting to go out with the rest of the batch (Lane::pending_creates).
  struct PendingCreate {
    std::string series_key;
    std::string namespace_, name, reason;
    std::string body;
  };
  // One writer: its queue, and (its thread only) the series and per-object limits of the objects
  // hashed to it.
  struct Lane {
    std::vector<api::eventsv1::Event> queue;  // under mu_
    bool busy = false;                        // under mu_
    bool lingering = false;                   // under mu_: waiting out batch_delay (see enqueue)
    bool sweep_due = false;                   // under mu_: another lane swept, this one should too
    std::size_t series_tracked = 0, objects_tracked = 0;  // under mu_, after each batch
    std::condition_variable cv;
    std::thread thread;
    std::unordered_map<std::string, Cached> cache;
    std::unordered_map<std::string, std::unique_ptr<client::TokenBucket>> limits;  // per regarding object
    util::Clock::time_point last_sweep{};
    // New events of the batch being written: sent together (pipelined), before any patch of
    // their series.
    std::vector<PendingCreate> pending_creates;
  };
  void enqueue(api::eventsv1::Event e);
  void send_pending_creates(Lane& lane);
  void worker(Lane& lane);
  void record_to_sink(Lane& lane, api::eventsv1::Event e);
  void sweep(Lane& lane, util::Clock::time_point now);
  static std::string series_key(const api::eventsv1::Event& e);

  std::shared_ptr<client::RestClient> c_;
  BroadcasterOptions opts_;
  mutable std::mutex mu_;
  std::condition_variable idle_cv_;
  std::vector<std::unique_ptr<Lane>> lanes_;
  std::size_t queued_ = 0;  // over all lanes, bounded by queue_size
  bool stopping_ = false;
  bool started_ = false;
  RecorderStats stats_;
  std::vector<std::shared_ptr<EventRecorder>> recorders_;
};

// ObjectReference for an API object, e.g. reference_for(pod) -> {kind: Pod, apiVersion: v1, ...}.
template <class T>
api::ObjectReference reference_for(const T& obj) {
  const auto& info = client::ResourceFor<T>::info;
  api::ObjectReference r;
  r.kind = info.kind;
  r.apiVersion = info.group.empty() ? std::string(info.version) : std::string(info.group) + "/" + std::string(info.version);
  r.namespace_ = obj.metadata.namespace_;
  r.name = obj.metadata.name;
  r.uid = obj.metadata.uid;
  r.resourceVersion = obj.metadata.resourceVersion;
  return r;
}

}  // namespace ksched::events
