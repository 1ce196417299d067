// DeltaFIFO (client-go tools/cache/delta_fifo.go): a queue of keys, each with the ordered list of
// changes (deltas) seen for that object since it was last popped. A consumer pops all deltas of
// one object at a time. Replace() (relist) emits Replaced for every listed object and a Deleted
// tombstone (DeletedFinalStateUnknown) for every known object the list no longer contains.
#pragma once
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "informer/object.h"
#include "informer/store.h"

namespace ksched::informer {

enum class DeltaType { Added, Updated, Deleted, Replaced, Sync };

inline const char* to_string(DeltaType t) {
  switch (t) {
    case DeltaType::Added: return "Added";
    case DeltaType::Updated: return "Updated";
    case DeltaType::Deleted: return "Deleted";
    case DeltaType::Replaced: return "Replaced";
    case DeltaType::Sync: return "Sync";
  }
  return "?";
}

template <class T>
struct Delta {
  DeltaType type;
  Ptr<T> obj;
  bool final_state_unknown = false;  // obj is the last known state of a DeletedFinalStateUnknown
};

template <class T>
using Deltas = std::vector<Delta<T>>;

template <class T>
class DeltaFIFO {
 public:
  // process(key, deltas, is_in_initial_list) returns false to requeue the item.
  using ProcessFunc = std::function<bool(const std::string& key, const Deltas<T>&, bool)>;

  explicit DeltaFIFO(const KeyListerGetter<T>* known = nullptr, bool emit_replaced = true)
      : known_(known), emit_replaced_(emit_replaced) {}

  // Inline consumption (what SharedIndexInformer uses): with a consumer set, each producer call
  // (add, update, remove, replace, resync) processes everything queued, on the producing thread and
  // under the queue's lock, before it returns; pop() is not used then. The consumer must not block
  // and must not call back into this queue. One thread hand-off per event less than a consumer
  // thread costs, and no polling while a stream of events arrives.
  void set_consumer(ProcessFunc f) {
    std::lock_guard l(mu_);
    consumer_ = std::move(f);
    drain_locked();
  }

  void add(Ptr<T> obj) { enqueue(DeltaType::Added, std::move(obj)); }
  void update(Ptr<T> obj) { enqueue(DeltaType::Updated, std::move(obj)); }
  void remove(Ptr<T> obj) {
    auto key = meta_namespace_key(*obj);
    std::lock_guard l(mu_);
    populated_ = true;
    auto it = items_.find(key);
    if (it == items_.end() || it->second.empty()) {
      // Nothing queued: only emit when the cache knows the object (else it is a no-op).
      if (known_ ? !known_->get_by_key(key) : true) return;
    }
    queue_action_locked(key, Delta<T>{DeltaType::Deleted, std::move(obj)});
    drain_locked();
  }

  // Relist: every item becomes Replaced (or Sync), known-but-absent keys get a tombstone.
  void replace(std::vector<Ptr<T>> list) {
    std::lock_guard l(mu_);
    std::unordered_set<std::string> keys;
    keys.reserve(list.size());
    auto type = emit_replaced_ ? DeltaType::Replaced : DeltaType::Sync;
    for (auto& o : list) {
      auto key = meta_namespace_key(*o);
      keys.insert(key);
      queue_action_locked(key, Delta<T>{type, std::move(o)});
    }
    int queued_deletions = 0;
    // Items only in the queue (not yet in the cache) that the list lacks.
    for (auto& [key, deltas] : items_) {
      if (keys.count(key) || deltas.empty()) continue;
      const auto& newest = deltas.back();
      if (newest.type == DeltaType::Deleted) continue;
      ++queued_deletions;
      pending_.push_back({key, newest.obj});
    }
    if (known_) {
      for (const auto& key : known_->list_keys()) {
        if (keys.count(key)) continue;
        auto it = items_.find(key);
        if (it != items_.end() && !it->second.empty()) continue;  // handled above
        auto obj = known_->get_by_key(key);
        if (!obj) continue;
        ++queued_deletions;
        pending_.push_back({key, obj});
      }
    }
    for (auto& [key, obj] : pending_) queue_action_locked(key, Delta<T>{DeltaType::Deleted, std::move(obj), true});
    pending_.clear();
    if (!populated_) {
      populated_ = true;
      initial_population_count_ = static_cast<int>(list.size()) + queued_deletions;
    }
    cv_.notify_all();
    drain_locked();
  }

  // Sync deltas for every known object without pending deltas.
  void resync() {
    std::lock_guard l(mu_);
    if (!known_) return;
    for (const auto& key : known_->list_keys()) {
      auto it = items_.find(key);
      if (it != items_.end() && !it->second.empty()) continue;
      if (auto obj = known_->get_by_key(key)) queue_action_locked(key, Delta<T>{DeltaType::Sync, obj});
    }
    drain_locked();
  }

  // Blocks until an item is ready or the queue is closed (returns false).
  bool pop(const ProcessFunc& process) {
    std::unique_lock l(mu_);
    wait_for_items(l);
    if (queue_.empty()) return false;
    pop_front_locked(process);
    return true;
  }

  bool has_synced() const {
    std::lock_guard l(mu_);
    return populated_ && initial_population_count_ == 0;
  }
  bool is_closed() const {
    std::lock_guard l(mu_);
    return closed_;
  }
  void close() {
    std::lock_guard l(mu_);
    closed_ = true;
    cv_.notify_all();
  }
  std::vector<std::string> list_keys() const {
    std::lock_guard l(mu_);
    return {queue_.begin(), queue_.end()};
  }
  Deltas<T> get_by_key(const std::string& key) const {
    std::lock_guard l(mu_);
    auto it = items_.find(key);
    return it == items_.end() ? Deltas<T>{} : it->second;
  }
  std::size_t size() const {
    std::lock_guard l(mu_);
    return queue_.size();
  }

 private:
  void enqueue(DeltaType type, Ptr<T> obj) {
    auto key = meta_namespace_key(*obj);
    std::lock_guard l(mu_);
    populated_ = true;
    queue_action_locked(key, Delta<T>{type, std::move(obj)});
    drain_locked();
  }

  // Pops the front key and processes its deltas. Processing happens under the lock, as upstream's,
  // so that has_synced() reflects processed items. False when `process` asked for a requeue.
  bool pop_front_locked(const ProcessFunc& process) {
    std::string key = std::move(queue_.front());
    queue_.pop_front();
    bool initial = initial_population_count_ > 0;
    auto it = items_.find(key);
    if (it == items_.end()) {
      if (initial) --initial_population_count_;
      return true;
    }
    Deltas<T> deltas = std::move(it->second);
    items_.erase(it);
    bool ok = process(key, deltas, initial);
    if (initial) --initial_population_count_;
    if (!ok && !items_.count(key)) {
      items_.emplace(key, std::move(deltas));
      queue_.push_back(key);
    }
    return ok;
  }

  // The inline consumer's turn; a requeued item waits for the next producer call (retrying it at
  // once would spin).
  void drain_locked() {
    if (!consumer_ || closed_) return;
    while (!queue_.empty())
      if (!pop_front_locked(consumer_)) break;
  }

  void queue_action_locked(const std::string& key, Delta<T> d) {
    auto [it, inserted] = items_.try_emplace(key);
    auto& deltas = it->second;
    bool was_empty = deltas.empty();
    deltas.push_back(std::move(d));
    dedup(deltas);
    // A key already queued keeps its place; popped keys are erased from items_, so re-adding
    // them lands at the back.
    if (inserted || was_empty) {
      queue_.push_back(key);
      wake_consumer_locked();
    }
  }

  // Wake-up coalescing: an idle consumer sleeps until notified; a consumer that just drained a
  // busy queue polls every kBusyPoll instead, so a steady stream costs one wake-up per batch rather
  // than one per item. Producers notify an idle consumer at once and a polling one only when the
  // backlog grows large. Latency added under load: at most kBusyPoll.
  static constexpr auto kBusyPoll = std::chrono::milliseconds(1);
  static constexpr std::size_t kWakeBacklog = 256;
  void wait_for_items(std::unique_lock<std::mutex>& l) {
    while (!closed_ && queue_.empty()) {
      if (busy_) {
        cv_.wait_for(l, kBusyPoll);
        if (queue_.empty()) busy_ = false;  // the stream went quiet: sleep until notified
      } else {
        idle_ = true;
        cv_.wait(l);
        idle_ = false;
        busy_ = true;
      }
    }
  }
  void wake_consumer_locked() {
    if (idle_ || queue_.size() == kWakeBacklog) cv_.notify_one();
  }

  // Two trailing deletions collapse into one (upstream's isDeletionDup): the earlier one is kept
  // unless it is a tombstone, whose state is less reliable than an observed deletion.
  static void dedup(Deltas<T>& d) {
    auto n = d.size();
    if (n < 2) return;
    auto& newer = d[n - 1];
    auto& older = d[n - 2];
    if (newer.type != DeltaType::Deleted || older.type != DeltaType::Deleted) return;
    if (older.final_state_unknown) older = std::move(newer);
    d.pop_back();
  }

  const KeyListerGetter<T>* known_;
  bool emit_replaced_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::unordered_map<std::string, Deltas<T>> items_;
  std::deque<std::string> queue_;
  std::vector<std::pair<std::string, Ptr<T>>> pending_;
  bool populated_ = false;
  int initial_population_count_ = 0;
  bool closed_ = false;
  ProcessFunc consumer_;  // set: inline consumption (set_consumer)
  bool idle_ = false;  // a consumer sleeps until notified
  bool busy_ = false;  // the consumer polls (see wait_for_items)
};

}  // namespace ksched::informer
