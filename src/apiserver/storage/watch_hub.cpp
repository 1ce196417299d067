#include "apiserver/storage/watch_hub.h"

namespace ksched::apiserver {

void Watcher::offer(const Event& ev) {
  if (closed_.load()) return;
  bool was = ev.prev && matches(*ev.prev);
  if (ev.type == EventType::Deleted) {
    if (was) push(WatchItem{WatchItem::Kind::Deleted, ev.obj, ev.rv});
    return;
  }
  bool now = matches(*ev.obj);
  if (now && was) {
    push(WatchItem{WatchItem::Kind::Modified, ev.obj, ev.rv});
  } else if (now) {
    push(WatchItem{WatchItem::Kind::Added, ev.obj, ev.rv});
  } else if (was) {
    // Stopped matching: the client sees the old content deleted at the new revision.
    push(WatchItem{WatchItem::Kind::Deleted, ev.prev, ev.rv, true});
  }
}

void Watcher::push(WatchItem item) {
  std::lock_guard l(mu_);
  if (closed_.load()) return;
  if (queue_.size() >= max_pending_) {
    overflowed_ = true;
    closed_ = true;
    queue_.clear();
  } else {
    if (item.rv > last_rv_.load()) last_rv_ = item.rv;
    queue_.push_back(std::move(item));
  }
  // Called under mu_ so set_notify(nullptr) cannot race with it; the callback only schedules work.
  if (notify_) notify_();
}

std::vector<WatchItem> Watcher::drain(bool& closed) {
  std::lock_guard l(mu_);
  std::vector<WatchItem> out(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
  queue_.clear();
  closed = closed_.load();
  return out;
}

void Watcher::close() {
  std::lock_guard l(mu_);
  closed_ = true;
  if (notify_) notify_();
}

void Watcher::set_notify(std::function<void()> fn) {
  std::lock_guard l(mu_);
  notify_ = std::move(fn);
}


}  // namespace ksched::apiserver
