// Per-watcher bounded event queues fed by the store's fan-out. A watcher that falls too far
// behind is closed (its client relists), so writers never stall and memory stays bounded.
#pragma once
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "apiserver/storage/storage.h"

namespace ksched::apiserver {

struct WatchItem {
  enum class Kind { Added, Modified, Deleted, Bookmark, InitialEnd, Error };
  Kind kind = Kind::Added;
  ObjPtr obj;
  std::int64_t rv = 0;       // Bookmark/InitialEnd revision; for a transition DELETED the new revision
  bool restamp = false;      // obj must be sent with resourceVersion = rv
  std::string text;          // Error: the Status JSON
};

class Watcher {
 public:
  Watcher(int resource, std::string ns, LabelSelector labels, FieldSelector fields, std::size_t max_pending)
      : resource_(resource), ns_(std::move(ns)), labels_(std::move(labels)), fields_(std::move(fields)),
        max_pending_(max_pending) {}

  int resource() const { return resource_; }
  bool matches(const StoredObject& o) const {
    return (ns_.empty() || o.ns == ns_) && labels_.matches(o.labels) && fields_.matches(o.fields);
  }
  // Called by the store under its write lock: translates the change into what this watcher sees
  // (selector transitions become ADDED/DELETED).
  void offer(const Event& ev);
  void push(WatchItem item);
  // Takes everything queued. `closed` tells the consumer to end the stream after these items.
  std::vector<WatchItem> drain(bool& closed);
  void close();                 // consumer side or server stop
  bool closed() const { return closed_.load(); }
  bool overflowed() const { return overflowed_.load(); }
  std::int64_t last_rv() const { return last_rv_.load(); }
  void set_notify(std::function<void()> fn);
  void raise_limit(std::size_t extra) { max_pending_ += extra; }

 private:
  int resource_;
  std::string ns_;
  LabelSelector labels_;
  FieldSelector fields_;
  std::size_t max_pending_;
  std::mutex mu_;
  std::deque<WatchItem> queue_;
  std::function<void()> notify_;
  std::atomic<bool> closed_{false};
  std::atomic<bool> overflowed_{false};
  std::atomic<std::int64_t> last_rv_{0};
};

}  // namespace ksched::apiserver
