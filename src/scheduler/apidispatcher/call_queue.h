// The dispatcher's queue of API calls (upstream backend/api_dispatcher/call_queue.go): at most one
// call per object (by UID), queued in FIFO order of objects; a new call for an object that has one
// is skipped, overwrites or merges by relevance and type (ApiCall's contract); a call for an
// object whose previous call is in flight waits and is queued again when that one is finalized.
// Thread-safe; pop() blocks until a call is ready or the queue is closed.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "scheduler/apidispatcher/api_call.h"

namespace ksched::scheduler::apidispatcher {

class CallQueue {
 public:
  // Told every change of the number of queued (not yet popped) calls of a type, under the
  // queue's lock (scheduler_pending_async_api_calls).
  using PendingObserver = std::function<void(CallType, int delta)>;
  explicit CallQueue(PendingObserver pending = {});
  ~CallQueue();

  // A call's result receiver: the first result is delivered, later ones are dropped.
  struct Finish {
    explicit Finish(OnFinish f) : fn(std::move(f)) {}
    void send(const CallResult& r);
    OnFinish fn;
    std::atomic<bool> sent{false};
  };
  // A popped call: run it, then finalize() it (always, or the object is blocked for good).
  struct Popped {
    std::shared_ptr<ApiCall> call;
    std::shared_ptr<Finish> finish;
    std::uint64_t id = 0;
    explicit operator bool() const { return call != nullptr; }
  };

  // Queues the call. Returns the result it was refused with (Skipped: a more relevant call is
  // queued, or it changes nothing; Failed: a merge error), also sent to on_finish; nullopt when
  // queued. A call it displaces from the queue gets Overwritten.
  std::optional<CallResult> add(std::shared_ptr<ApiCall> call, OnFinish on_finish);
  // The next object's call, marked in flight; an empty Popped once closed.
  Popped pop();
  // pop(), then, while the calls next in line are also of the first one's type and `batchable`
  // says yes to that type, up to `max` of them without waiting (one pipelined write for many
  // bindings). Empty once closed.
  std::vector<Popped> pop_batch(std::size_t max, bool (*batchable)(CallType));
  // Ends a popped call: sends `result` to its on_finish (dropped if it was already told it was
  // overwritten), forgets it, and queues the object again if a newer call arrived meanwhile.
  void finalize(const Popped& popped, const CallResult& result);
  // Lets the object's queued call see the informer's newest copy; drops it if that made it a no-op.
  void sync(const api::Pod& pod);
  // Wakes pop() for good; every call still queued gets Closed.
  void close();

  std::size_t size() const;  // objects with a queued or in-flight call
  // "" when the bookkeeping is consistent (each queued object once in order, queued entries
  // counted, no object both queued and in flight), else what is wrong (tests).
  std::string check_invariants() const;
  // Until no call is queued or in flight (tests, an orderly stop); false after `timeout`.
  bool wait_idle(std::chrono::milliseconds timeout);

 private:
  struct Entry {
    std::shared_ptr<ApiCall> call;
    std::shared_ptr<Finish> finish;  // shared with a Popped: the entry may be replaced in flight
    std::uint64_t id = 0;
    bool queued = false;  // its UID is in order_ (counted as pending)
  };
  void pending(CallType t, int delta) {
    if (pending_) pending_(t, delta);
  }
  // Drops an entry that is not in flight (its UID leaves order_ if queued).
  Popped pop_locked();
  void erase_pending_locked(std::unordered_map<std::string, Entry>::iterator it);

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable idle_cv_;  // notified when calls_ becomes empty
  bool closed_ = false;
  std::uint64_t next_id_ = 1;
  std::unordered_map<std::string, Entry> calls_;
  std::unordered_map<std::string, std::uint64_t> in_flight_;  // UID -> popped call's id
  std::deque<std::string> order_;
  PendingObserver pending_;
};

}  // namespace ksched::scheduler::apidispatcher
