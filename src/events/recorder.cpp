#include "events/recorder.h"

#include <unistd.h>

#include <algorithm>

#include <boost/json.hpp>

#include "api/codec.h"
#include "util/log.h"
#include "util/thread.h"

namespace ksched::events {

namespace {

std::int64_t unix_nanos(const util::Clock& c) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(c.wall_now().time_since_epoch()).count();
}

std::string micro_time(std::int64_t ns) {
  std::time_t secs = static_cast<std::time_t>(ns / 1000000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return fmt::format("{}.{:06d}Z", buf, (ns % 1000000000) / 1000);
}

std::string hostname() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) return "localhost";
  return host;
}

std::string ref_key(const api::ObjectReference& r) {
  return r.apiVersion + "|" + r.kind + "|" + r.namespace_ + "|" + r.name + "|" + r.uid;
}

}  // namespace

void EventRecorder::event(const api::ObjectReference& regarding, const api::ObjectReference* related,
                          std::string_view type, std::string_view reason, std::string_view action, std::string note) {
  api::eventsv1::Event e;
  e.apiVersion = "events.k8s.io/v1";
  e.kind = "Event";
  auto now = unix_nanos(*b_->opts_.clock);
  e.metadata.name = fmt::format("{}.{:x}", regarding.name, now);
  e.metadata.namespace_ = regarding.namespace_.empty() ? "default" : regarding.namespace_;
  e.eventTime = api::MicroTime{now};
  e.reportingController = controller_;
  e.reportingInstance = instance_;
  e.action = action;
  e.reason = reason;
  e.regarding = regarding;
  if (related) e.related = *related;
  // Notes are limited to 1 KiB by validation.
  if (note.size() > 1024) note.resize(1024);
  e.note = std::move(note);
  e.type = type;
  b_->enqueue(std::move(e));
}

EventBroadcaster::EventBroadcaster(std::shared_ptr<client::RestClient> c, BroadcasterOptions opts)
    : c_(std::move(c)), opts_(opts) {}

EventBroadcaster::~EventBroadcaster() { shutdown(); }

void EventBroadcaster::start_recording_to_sink() {
  std::lock_guard l(mu_);
  if (worker_.joinable() || stopping_) return;
  worker_ = std::thread([this] {
    util::set_thread_name("events");
    worker();
  });
}

void EventBroadcaster::shutdown() {
  {
    std::lock_guard l(mu_);
    if (stopping_) return;
    stopping_ = true;
    cv_.notify_all();
  }
  if (worker_.joinable()) worker_.join();
}

std::shared_ptr<EventRecorder> EventBroadcaster::new_recorder(std::string controller, std::string instance) {
  if (instance.empty()) instance = controller + "-" + hostname();
  auto r = std::shared_ptr<EventRecorder>(new EventRecorder(this, std::move(controller), std::move(instance)));
  std::lock_guard l(mu_);
  recorders_.push_back(r);
  return r;
}

RecorderStats EventBroadcaster::stats() const {
  std::lock_guard l(mu_);
  return stats_;
}

bool EventBroadcaster::wait_idle(std::chrono::milliseconds timeout) {
  std::unique_lock l(mu_);
  return idle_cv_.wait_for(l, timeout, [&] { return queue_.empty() && !busy_; });
}

void EventBroadcaster::enqueue(api::eventsv1::Event e) {
  std::lock_guard l(mu_);
  ++stats_.recorded;
  if (stopping_ || queue_.size() >= opts_.queue_size) {
    ++stats_.dropped_queue_full;
    return;
  }
  queue_.push_back(std::move(e));
  cv_.notify_one();
}

void EventBroadcaster::worker() {
  std::vector<api::eventsv1::Event> batch;
  for (;;) {
    {
      std::unique_lock l(mu_);
      busy_ = false;
      stats_.series_tracked = cache_.size();
      stats_.objects_tracked = limits_.size();
      if (queue_.empty()) idle_cv_.notify_all();
      cv_.wait(l, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      // Take everything queued at once: one lock round trip per batch, not per event.
      batch.clear();
      batch.swap(queue_);
      busy_ = true;
    }
    for (auto& e : batch) record_to_sink(std::move(e));
  }
}

std::string EventBroadcaster::series_key(const api::eventsv1::Event& e) {
  std::string k = e.action + "|" + e.reason + "|" + e.type + "|" + e.reportingController + "|" + e.reportingInstance +
                  "|" + ref_key(e.regarding);
  if (e.related) k += "|" + ref_key(*e.related);
  return k;
}

void EventBroadcaster::sweep(util::Clock::time_point now) {
  last_sweep_ = now;
  // Series not observed within the window have ended (upstream's finishSeries).
  std::erase_if(cache_, [&](const auto& kv) { return now - kv.second.last_seen > opts_.series_window; });
  // A bucket that has refilled to its burst is the same as no bucket: forget it.
  const double burst = std::max(1, opts_.per_object_burst);
  std::erase_if(limits_, [&](const auto& kv) { return kv.second->tokens() >= burst; });
}

void EventBroadcaster::record_to_sink(api::eventsv1::Event e) {
  auto& clock = *opts_.clock;
  auto now = clock.now();
  if (now - last_sweep_ >= opts_.sweep_interval) sweep(now);
  // Per regarding object spam protection.
  auto& bucket = limits_[ref_key(e.regarding)];
  if (!bucket) bucket = std::make_unique<client::TokenBucket>(opts_.per_object_qps, opts_.per_object_burst, clock);
  if (!bucket->try_accept()) {
    std::lock_guard l(mu_);
    ++stats_.dropped_rate_limited;
    return;
  }
  auto key = series_key(e);
  auto it = cache_.find(key);
  if (it != cache_.end() && now - it->second.last_seen > opts_.series_window) {
    cache_.erase(it);  // that series ended: this is a new event
    it = cache_.end();
  }
  if (it != cache_.end()) {
    auto& c = it->second;
    c.count = c.count < 2 ? 2 : c.count + 1;
    c.last_observed_ns = e.eventTime ? e.eventTime->unixNanos : unix_nanos(clock);
    c.last_seen = now;
    boost::json::object series{{"count", c.count}, {"lastObservedTime", micro_time(c.last_observed_ns)}};
    auto body = boost::json::serialize(boost::json::object{{"series", series}});
    auto ref = client::ResourceRef::of(client::ResourceFor<api::eventsv1::Event>::info, c.namespace_, c.name);
    auto r = c_->patch(ref, client::PatchType::StrategicMerge, body);
    if (r) {
      std::lock_guard l(mu_);
      ++stats_.patched;
      return;
    }
    if (!client::is_not_found(r.error())) {
      log::error("Unable to write event (may retry after sleeping)", {{"event", c.name}, {"err", r.error().to_string()}});
      std::lock_guard l(mu_);
      ++stats_.failed;
      return;
    }
    cache_.erase(it);  // the event was deleted on the server: start over with a new one
  }
  // The server's copy is not decoded: a later patch needs only the name, which is ours.
  auto created = c_->create(client::ResourceRef::of(client::ResourceFor<api::eventsv1::Event>::info, e.metadata.namespace_),
                            api::encode(e));
  if (!created) {
    log::error("Server rejected event (will not retry!)", {{"event", e.metadata.name}, {"reason", e.reason},
                                                          {"err", created.error().to_string()}});
    std::lock_guard l(mu_);
    ++stats_.failed;
    return;
  }
  Cached c;
  c.namespace_ = e.metadata.namespace_;
  c.name = e.metadata.name;
  c.last_observed_ns = e.eventTime ? e.eventTime->unixNanos : 0;
  c.last_seen = now;
  cache_.insert_or_assign(std::move(key), std::move(c));
  std::lock_guard l(mu_);
  ++stats_.created;
}

}  // namespace ksched::events
