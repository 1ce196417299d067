// Reflector (client-go tools/cache/reflector.go): keeps a DeltaFIFO in step with the server by a
// paginated LIST followed by a WATCH from the list's resourceVersion; relists when the watch falls
// out of the server's history (410 Expired), re-watches after a clean watch end, and backs off with
// jitter on errors (800 ms doubling to 30 s) so a server that is gone costs no hot loop. Time is read
// from util::Clock (tests drive resync and watch durations with FakeClock); the waits stay real.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>

#include "informer/delta_fifo.h"
#include "informer/list_watch.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/result.h"

namespace ksched::informer {

struct ReflectorOptions {
  std::string name = "reflector";       // for logs, e.g. "*v1.Pod"
  std::int64_t page_size = 500;
  std::chrono::milliseconds resync_period{0};
  std::function<bool()> should_resync;  // nullptr = always
  bool use_watch_list = false;          // sendInitialEvents streaming list instead of LIST
  std::chrono::milliseconds initial_backoff{800};
  std::chrono::milliseconds max_backoff{30000};
  std::int64_t min_watch_timeout_seconds = 300;  // watch timeoutSeconds drawn from [min, 2*min)
  api::DecodeOptions decode;  // e.g. dropManagedFields: trimmed while decoding, never copied
  const util::Clock* clock = &util::RealClock::instance();  // resync deadlines, watch/run durations
};

struct ReflectorStats {
  std::atomic<std::uint64_t> lists{0}, watches{0}, events{0}, relists_expired{0}, errors{0};
};

template <class T>
class Reflector {
 public:
  using Transform = std::function<void(T&)>;

  Reflector(ListWatch lw, DeltaFIFO<T>& store, ReflectorOptions opts = {}, Transform transform = {})
      : lw_(std::move(lw)), store_(store), opts_(std::move(opts)), transform_(std::move(transform)),
        rng_(std::random_device{}()) {}

  // Runs until stop(); blocking.
  void run() {
    std::thread resync;
    // The first resync deadline is taken here rather than in the thread, so it is fixed once run()
    // has begun (a test stepping a FakeClock after the first list cannot get ahead of it).
    if (opts_.resync_period.count() > 0)
      resync = std::thread([this, next = clock().now() + opts_.resync_period] { resync_loop(next); });
    auto backoff = opts_.initial_backoff;
    while (!stopped_.load()) {
      auto started = clock().now();
      util::Result<void> r = list_and_watch();
      if (stopped_.load()) break;
      if (r.ok()) continue;  // relist at once (the watch expired or the stream ended cleanly)
      ++stats_.errors;
      if (clock().now() - started > std::chrono::minutes(2)) backoff = opts_.initial_backoff;
      log::warning("Failed to watch", {{"reflector", opts_.name}, {"err", r.error()}});
      // Jitter 1.0: wait in [backoff, 2*backoff).
      std::uniform_real_distribution<double> jitter(1.0, 2.0);
      auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(backoff * jitter(rng_));
      sleep_for(wait);
      backoff = std::min(backoff * 2, opts_.max_backoff);
    }
    if (resync.joinable()) resync.join();
  }

  void stop() {
    stopped_.store(true);
    {
      std::lock_guard l(mu_);
      if (watch_) watch_->stop();
    }
    cv_.notify_all();
  }

  std::string last_sync_resource_version() const {
    std::lock_guard l(mu_);
    return last_rv_;
  }
  const ReflectorStats& stats() const { return stats_; }

  // Decodes one watch line into the store (the ingest path: codec + DeltaFIFO). An ERROR event is
  // the server's Status (client::is_gone: the watch expired, relist); a line that does not decode
  // is an InternalError, as client-go's stream watcher reports it.
  client::Result<void> handle_event(const client::RawWatchEvent& ev) {
    ++stats_.events;
    std::string_view obj_json = watch_event_object(ev.json, scratch_);
    if (ev.type == "ERROR") return client::ApiError::from_response(500, obj_json);
    auto obj = std::make_shared<T>();
    if (auto r = ObjectCodec<T>::decode_into(*obj, obj_json, opts_.decode); !r) {
      return client::ApiError{.code = 500, .reason = "InternalError",
                              .message = "unable to decode " + ev.type + " event: " + r.error()};
    }
    std::string rv = obj->metadata.resourceVersion;
    if (ev.type == "BOOKMARK") {
      if (in_watch_list_ && obj->metadata.annotations.get("k8s.io/initial-events-end") == "true") {
        store_.replace(std::move(watch_list_items_));
        watch_list_items_.clear();
        in_watch_list_ = false;
      }
      set_rv(std::move(rv));
      return {};
    }
    if (transform_) transform_(*obj);
    Ptr<T> p = std::move(obj);
    if (in_watch_list_) {
      if (ev.type == "ADDED") watch_list_items_.push_back(std::move(p));
      set_rv(std::move(rv));
      return {};
    }
    if (ev.type == "ADDED") store_.add(std::move(p));
    else if (ev.type == "MODIFIED") store_.update(std::move(p));
    else if (ev.type == "DELETED") store_.remove(std::move(p));
    else return {};  // unknown type: skipped
    set_rv(std::move(rv));
    return {};
  }

 private:
  void set_rv(std::string rv) {
    if (rv.empty()) return;
    std::lock_guard l(mu_);
    last_rv_ = std::move(rv);
  }

  const util::Clock& clock() const { return opts_.clock ? *opts_.clock : util::RealClock::instance(); }

  // Waits in real time (until stop()).
  void sleep_for(util::Clock::duration d) {
    std::unique_lock l(mu_);
    cv_.wait_for(l, d, [&] { return stopped_.load(); });
  }

  // Resyncs every resync_period on the clock, the next deadline counted from the time this one was
  // seen to pass. Nothing wakes a wait when a FakeClock is stepped, so any clock but the real one is
  // re-read every 10 ms.
  void resync_loop(util::Clock::time_point next) {
    const bool real = &clock() == &util::RealClock::instance();
    while (!stopped_.load()) {
      auto now = clock().now();
      if (now < next) {
        auto left = next - now;
        sleep_for(real ? left : std::min<util::Clock::duration>(left, std::chrono::milliseconds(10)));
        continue;
      }
      next = now + opts_.resync_period;
      if (!opts_.should_resync || opts_.should_resync()) store_.resync();
    }
  }

  // One paginated LIST into the store.
  util::Result<void> do_list() {
    client::ListOptions o;
    {
      std::lock_guard l(mu_);
      o.resourceVersion = rv_unavailable_ ? "" : (last_rv_.empty() ? "0" : last_rv_);
    }
    o.limit = opts_.page_size;
    if (lw_.tweak) lw_.tweak(o);
    std::vector<Ptr<T>> items;
    std::string rv;
    for (;;) {
      ++stats_.lists;
      auto r = lw_.list(o);
      if (!r) {
        // Expired, or newer than the server has (a restored/restarted server): list the latest.
        if ((client::is_gone(r.error()) || client::is_too_large_resource_version(r.error())) &&
            !o.resourceVersion.empty() && o.resourceVersion != "0") {
          std::lock_guard l(mu_);
          rv_unavailable_ = true;  // relist from the latest state
        }
        return util::make_error("failed to list " + opts_.name + ": " + r.error().to_string());
      }
      auto list = ObjectCodec<T>::decode_list(*r, opts_.decode);
      if (!list) return util::make_error("failed to decode list of " + opts_.name + ": " + list.error());
      items.reserve(items.size() + list->items.size());
      for (auto& it : list->items) {
        if (transform_) transform_(it);
        items.push_back(std::make_shared<const T>(std::move(it)));
      }
      rv = std::move(list->resourceVersion);
      if (list->continue_.empty()) break;
      o.continue_ = std::move(list->continue_);
      o.resourceVersion.clear();
    }
    store_.replace(std::move(items));
    std::lock_guard l(mu_);
    last_rv_ = rv;
    rv_unavailable_ = false;
    return {};
  }

  // A list (or a watch-list) and the watches that follow it. Success means "list again now"
  // (the watch expired, or watch-list turned out unsupported); an error is retried after backoff.
  util::Result<void> list_and_watch() {
    if (opts_.use_watch_list && !watch_list_unsupported_) {
      in_watch_list_ = true;
      watch_list_items_.clear();
    } else if (auto listed = do_list(); !listed.ok()) {
      // From a resourceVersion the server no longer has: at once from the latest state (one
      // immediate attempt, then backoff).
      if (!rv_unavailable_) return listed;
      if (auto relisted = do_list(); !relisted.ok()) return relisted;
    }
    for (;;) {
      if (stopped_.load()) return {};
      client::ListOptions o;
      o.resourceVersion = last_sync_resource_version();
      o.allowWatchBookmarks = true;
      std::uniform_int_distribution<std::int64_t> dist(opts_.min_watch_timeout_seconds,
                                                       2 * opts_.min_watch_timeout_seconds - 1);
      o.timeoutSeconds = dist(rng_);
      if (in_watch_list_) {
        o.sendInitialEvents = true;
        o.resourceVersionMatch = "NotOlderThan";
        o.resourceVersion.clear();
      }
      if (lw_.tweak) lw_.tweak(o);
      ++stats_.watches;
      auto w = lw_.watch(o);
      if (!w) {
        const auto& e = w.error();
        if (in_watch_list_ && client::is_invalid(e)) {
          log::info("Watch-list is not supported by the server; falling back to LIST", {{"reflector", opts_.name}});
          watch_list_unsupported_ = true;
          in_watch_list_ = false;
          return {};
        }
        if (client::is_gone(e)) {
          ++stats_.relists_expired;
          return {};
        }
        return util::make_error("failed to watch " + opts_.name + ": " + e.to_string());
      }
      std::shared_ptr<client::WatchStream> stream(std::move(*w));
      {
        std::lock_guard l(mu_);
        watch_ = stream;
        if (stopped_.load()) stream->stop();
      }
      auto started = clock().now();
      std::uint64_t n = 0;
      client::RawWatchEvent ev;
      std::optional<client::ApiError> failure;
      while (stream->next(ev)) {
        ++n;
        if (auto r = handle_event(ev); !r) {
          failure = r.error();
          break;
        }
      }
      {
        std::lock_guard l(mu_);
        watch_.reset();
      }
      stream->stop();
      if (stopped_.load()) return {};
      if (failure && client::is_gone(*failure)) {
        ++stats_.relists_expired;
        log::V(2).info("Watch closed: too old resource version; relisting", {{"reflector", opts_.name}});
        in_watch_list_ = false;
        return {};
      }
      if (failure) {
        // The server's ERROR events carry a Status; a line that did not decode does not.
        return util::make_error(!failure->from_status ? failure->message : "watch error: " + failure->to_string());
      }
      auto serr = stream->error();
      if (!serr.empty()) return util::make_error("watch of " + opts_.name + " ended with: " + serr);
      if (in_watch_list_) return util::make_error("watch-list stream ended before the initial events");
      if (n == 0 && clock().now() - started < std::chrono::seconds(1))
        return util::make_error("very short watch: " + opts_.name +
                                ": Unexpected watch close - watch lasted less than a second and no items received");
      // Clean end (server timeout): watch again from the last resourceVersion, no relist.
    }
  }

  ListWatch lw_;
  DeltaFIFO<T>& store_;
  ReflectorOptions opts_;
  Transform transform_;
  std::mt19937_64 rng_;
  std::atomic<bool> stopped_{false};
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::string last_rv_;
  bool rv_unavailable_ = false;
  bool watch_list_unsupported_ = false;
  bool in_watch_list_ = false;
  std::vector<Ptr<T>> watch_list_items_;
  std::shared_ptr<client::WatchStream> watch_;
  std::string scratch_;
  ReflectorStats stats_;
};

}  // namespace ksched::informer
