#include "events/recorder.h"

#include <unistd.h>

#include <algorithm>
#include <map>

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
    : c_(std::move(c)), opts_(opts) {
  const int n = std::max(1, opts_.sinks);
  for (int i = 0; i < n; ++i) lanes_.push_back(std::make_unique<Lane>());
}

EventBroadcaster::~EventBroadcaster() { shutdown(); }

void EventBroadcaster::start_recording_to_sink() {
  std::lock_guard l(mu_);
  if (started_ || stopping_) return;
  started_ = true;
  for (std::size_t i = 0; i < lanes_.size(); ++i) {
    Lane& lane = *lanes_[i];
    lane.thread = std::thread([this, &lane, i] {
      util::set_thread_name(i == 0 ? std::string("events") : "events-" + std::to_string(i));
      worker(lane);
    });
  }
}

void EventBroadcaster::shutdown() {
  {
    std::lock_guard l(mu_);
    if (stopping_) return;
    stopping_ = true;
    for (auto& lane : lanes_) lane->cv.notify_all();
  }
  for (auto& lane : lanes_) {
    if (lane->thread.joinable()) lane->thread.join();
  }
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
  RecorderStats out = stats_;
  for (const auto& lane : lanes_) {
    out.series_tracked += lane->series_tracked;
    out.objects_tracked += lane->objects_tracked;
  }
  return out;
}

bool EventBroadcaster::wait_idle(std::chrono::milliseconds timeout) {
  std::unique_lock l(mu_);
  return idle_cv_.wait_for(l, timeout, [&] {
    return std::all_of(lanes_.begin(), lanes_.end(),
                       [](const auto& lane) { return lane->queue.empty() && !lane->busy && !lane->sweep_due; });
  });
}

void EventBroadcaster::enqueue(api::eventsv1::Event e) {
  Lane& lane = *lanes_[std::hash<std::string>{}(ref_key(e.regarding)) % lanes_.size()];
  std::lock_guard l(mu_);
  ++stats_.recorded;
  if (stopping_ || queued_ >= opts_.queue_size) {
    ++stats_.dropped_queue_full;
    return;
  }
  ++queued_;
  lane.queue.push_back(std::move(e));
  // A lingering writer is woken only by a full batch: one wake per batch, not per event.
  if (!lane.lingering || lane.queue.size() >= opts_.batch_target) lane.cv.notify_one();
}

void EventBroadcaster::worker(Lane& lane) {
  std::vector<api::eventsv1::Event> batch;
  for (;;) {
    bool sweep_now = false;
    {
      std::unique_lock l(mu_);
      lane.busy = false;
      lane.series_tracked = lane.cache.size();
      lane.objects_tracked = lane.limits.size();
      if (lane.queue.empty()) idle_cv_.notify_all();
      lane.cv.wait(l, [&] { return stopping_ || !lane.queue.empty() || lane.sweep_due; });
      if (lane.queue.empty() && !lane.sweep_due) return;  // stopping and drained
      if (!stopping_ && !lane.sweep_due && opts_.batch_delay.count() > 0 && lane.queue.size() < opts_.batch_target) {
        lane.lingering = true;
        lane.cv.wait_for(l, opts_.batch_delay, [&] { return stopping_ || lane.queue.size() >= opts_.batch_target; });
        lane.lingering = false;
      }
      // Take everything queued at once: one lock round trip per batch, not per event.
      batch.clear();
      batch.swap(lane.queue);
      queued_ -= batch.size();
      sweep_now = std::exchange(lane.sweep_due, false);
      lane.busy = true;
    }
    if (sweep_now) sweep(lane, opts_.clock->now());
    for (auto& e : batch) record_to_sink(lane, std::move(e));
    send_pending_creates(lane);
  }
}

// Creates the batch's new events, pipelined on one connection (per namespace, in order). A
// rejected one is forgotten, so that its next repeat starts a new event.
void EventBroadcaster::send_pending_creates(Lane& lane) {
  auto& pending = lane.pending_creates;
  if (pending.empty()) return;
  std::map<std::string_view, std::vector<std::size_t>> by_namespace;
  for (std::size_t i = 0; i < pending.size(); ++i) by_namespace[pending[i].namespace_].push_back(i);
  std::uint64_t created = 0, failed = 0;
  for (const auto& [ns, idx] : by_namespace) {
    std::vector<std::string> bodies;
    bodies.reserve(idx.size());
    for (std::size_t i : idx) bodies.push_back(std::move(pending[i].body));
    auto results = c_->create_all(client::ResourceRef::of(client::ResourceFor<api::eventsv1::Event>::info, ns),
                                  std::move(bodies));
    for (std::size_t k = 0; k < idx.size(); ++k) {
      auto& p = pending[idx[k]];
      auto it = lane.cache.find(p.series_key);
      if (results[k]) {
        ++created;
        if (it != lane.cache.end()) it->second.pending = false;
        continue;
      }
      ++failed;
      log::error("Server rejected event (will not retry!)",
                 {{"event", p.name}, {"reason", p.reason}, {"err", results[k].error().to_string()}});
      if (it != lane.cache.end() && it->second.name == p.name) lane.cache.erase(it);
    }
  }
  pending.clear();
  std::lock_guard l(mu_);
  stats_.created += created;
  stats_.failed += failed;
}

std::string EventBroadcaster::series_key(const api::eventsv1::Event& e) {
  std::string k = e.action + "|" + e.reason + "|" + e.type + "|" + e.reportingController + "|" + e.reportingInstance +
                  "|" + ref_key(e.regarding);
  if (e.related) k += "|" + ref_key(*e.related);
  return k;
}

void EventBroadcaster::sweep(Lane& lane, util::Clock::time_point now) {
  lane.last_sweep = now;
  // Series not observed within the window have ended (upstream's finishSeries).
  std::erase_if(lane.cache, [&](const auto& kv) { return now - kv.second.last_seen > opts_.series_window; });
  // A bucket that has refilled to its burst is the same as no bucket: forget it.
  const double burst = std::max(1, opts_.per_object_burst);
  std::erase_if(lane.limits, [&](const auto& kv) { return kv.second->tokens() >= burst; });
}

void EventBroadcaster::record_to_sink(Lane& lane, api::eventsv1::Event e) {
  auto& clock = *opts_.clock;
  auto now = clock.now();
  if (now - lane.last_sweep >= opts_.sweep_interval) {
    sweep(lane, now);
    // Lanes that see no event would keep what they remember: have them sweep too.
    std::lock_guard l(mu_);
    for (auto& other : lanes_) {
      if (other.get() == &lane) continue;
      other->sweep_due = true;
      other->cv.notify_one();
    }
  }
  auto& cache = lane.cache;
  // Per regarding object spam protection.
  auto& bucket = lane.limits[ref_key(e.regarding)];
  if (!bucket) bucket = std::make_unique<client::TokenBucket>(opts_.per_object_qps, opts_.per_object_burst, clock);
  if (!bucket->try_accept()) {
    std::lock_guard l(mu_);
    ++stats_.dropped_rate_limited;
    return;
  }
  auto key = series_key(e);
  auto it = cache.find(key);
  if (it != cache.end() && now - it->second.last_seen > opts_.series_window) {
    cache.erase(it);  // that series ended: this is a new event
    it = cache.end();
  }
  if (it != cache.end() && it->second.pending) {
    // A repeat of an event not yet created: send the creates first, the patch follows them.
    send_pending_creates(lane);
    it = cache.find(key);
  }
  if (it != cache.end()) {
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
    cache.erase(it);  // the event was deleted on the server: start over with a new one
  }
  // Created with the rest of the batch (send_pending_creates). The server's copy is not decoded:
  // a later patch needs only the name, which is ours.
  Cached c;
  c.namespace_ = e.metadata.namespace_;
  c.name = e.metadata.name;
  c.last_observed_ns = e.eventTime ? e.eventTime->unixNanos : 0;
  c.last_seen = now;
  c.pending = true;
  lane.pending_creates.push_back(PendingCreate{key, e.metadata.namespace_, e.metadata.name, e.reason, api::encode(e)});
  cache.insert_or_assign(std::move(key), std::move(c));
}

}  // namespace ksched::events
