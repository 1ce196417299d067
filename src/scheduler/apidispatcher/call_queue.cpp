#include "scheduler/apidispatcher/call_queue.h"

#include <algorithm>
#include <vector>

#include "api/core.h"

namespace ksched::scheduler::apidispatcher {

void CallQueue::Finish::send(const CallResult& r) {
  if (fn && !sent.exchange(true)) fn(r);
}

CallQueue::CallQueue(PendingObserver pending) : pending_(std::move(pending)) {}

CallQueue::~CallQueue() { close(); }

void CallQueue::erase_pending_locked(std::unordered_map<std::string, Entry>::iterator it) {
  if (it->second.queued) {
    order_.erase(std::find(order_.begin(), order_.end(), it->first));
    pending(it->second.call->type(), -1);
  }
  calls_.erase(it);
  if (calls_.empty()) idle_cv_.notify_all();
}

std::optional<CallResult> CallQueue::add(std::shared_ptr<ApiCall> call, OnFinish on_finish) {
  auto finish = std::make_shared<Finish>(std::move(on_finish));
  std::shared_ptr<Finish> displaced;  // told Overwritten once the lock is released
  const char* displaced_why = "";
  std::optional<CallResult> refused;
  {
    std::lock_guard lk(mu_);
    if (closed_) {
      refused = CallResult{CallResult::Kind::Closed, framework::Status::error("the API call dispatcher is closed")};
    } else {
      const std::string& uid = call->uid();
      auto it = calls_.find(uid);
      auto fl = in_flight_.find(uid);
      const bool in_flight = fl != in_flight_.end();
      if (it != calls_.end()) {
        Entry& old = it->second;
        // The entry is the in-flight call itself, or one waiting behind it / queued.
        const bool old_is_running = in_flight && fl->second == old.id;
        if (relevance(call->type()) < relevance(old.call->type())) {
          refused = CallResult::skipped("a more relevant call is already enqueued for this object");
        } else if (old.call->type() != call->type()) {
          // A running call finishes with its own result; a waiting one is superseded. (Upstream
          // tells neither when a call for the object is in flight; ksched tells the superseded one.)
          if (!old_is_running) {
            displaced = old.finish;
            displaced_why = "a more relevant call was enqueued for this object";
          }
        } else if (framework::Status st = call->merge(*old.call); !st.is_success()) {
          refused = CallResult{CallResult::Kind::Failed,
                               framework::Status::error("failed to merge API calls: " + st.message())};
        } else if (!old_is_running) {
          // Upstream also tells a running call it was overwritten, which ends a binder's wait
          // before its binding is done; ksched lets the running call report its own result.
          displaced = old.finish;
          displaced_why = "a call of the same type was enqueued for this object";
        }
      }
      if (!refused) {
        if (call->is_noop() && !in_flight) {
          if (it != calls_.end()) erase_pending_locked(it);
          refused = CallResult::skipped("call does not need to be executed because it has no effect");
        } else if (it != calls_.end()) {
          Entry& e = it->second;
          if (e.queued) {
            pending(e.call->type(), -1);
            pending(call->type(), +1);
          }
          // Not queued: the object's call is in flight; finalize() queues this one.
          e.call = std::move(call);
          e.finish = finish;
          e.id = next_id_++;
        } else {
          std::string key = uid;
          const CallType t = call->type();
          calls_.emplace(key, Entry{std::move(call), finish, next_id_++, true});
          order_.push_back(std::move(key));
          pending(t, +1);
          cv_.notify_one();
        }
      }
    }
  }
  if (displaced) {
    displaced->send(CallResult::overwritten(displaced_why));
  }
  if (refused) finish->send(*refused);
  return refused;
}

CallQueue::Popped CallQueue::pop() {
  std::unique_lock lk(mu_);
  cv_.wait(lk, [&] { return closed_ || !order_.empty(); });
  if (closed_) return {};
  return pop_locked();
}

std::vector<CallQueue::Popped> CallQueue::pop_batch(std::size_t max, bool (*batchable)(CallType)) {
  std::vector<Popped> out;
  std::unique_lock lk(mu_);
  cv_.wait(lk, [&] { return closed_ || !order_.empty(); });
  if (closed_) return out;
  out.push_back(pop_locked());
  const CallType t = out.front().call->type();
  if (!batchable(t)) return out;
  while (out.size() < max && !order_.empty() && calls_.at(order_.front()).call->type() == t) {
    out.push_back(pop_locked());
  }
  return out;
}

CallQueue::Popped CallQueue::pop_locked() {
  std::string uid = std::move(order_.front());
  order_.pop_front();
  Entry& e = calls_.at(uid);
  e.queued = false;
  pending(e.call->type(), -1);
  in_flight_[uid] = e.id;
  return {e.call, e.finish, e.id};
}

void CallQueue::finalize(const Popped& popped, const CallResult& result) {
  std::shared_ptr<Finish> closed_out;
  {
    std::lock_guard lk(mu_);
    const std::string& uid = popped.call->uid();
    in_flight_.erase(uid);
    auto it = calls_.find(uid);
    if (it != calls_.end()) {
      if (it->second.id == popped.id) {
        calls_.erase(it);
      } else if (closed_) {
        closed_out = it->second.finish;
        calls_.erase(it);
      } else {
        // A newer call arrived while this one ran: its turn now.
        it->second.queued = true;
        order_.push_back(uid);
        pending(it->second.call->type(), +1);
        cv_.notify_one();
      }
      if (calls_.empty()) idle_cv_.notify_all();
    }
  }
  popped.finish->send(result);
  if (closed_out) closed_out->send({CallResult::Kind::Closed, framework::Status::error("the API call dispatcher is closed")});
}

void CallQueue::sync(const api::Pod& pod) {
  std::shared_ptr<Finish> dropped;
  {
    std::lock_guard lk(mu_);
    auto it = calls_.find(pod.metadata.uid);
    if (it == calls_.end()) return;
    it->second.call->sync(pod);
    if (it->second.call->is_noop() && !in_flight_.contains(it->first)) {
      dropped = it->second.finish;
      erase_pending_locked(it);
    }
  }
  if (dropped) dropped->send(CallResult::skipped("call does not need to be executed because after sync it has no effect"));
}

void CallQueue::close() {
  std::vector<std::shared_ptr<Finish>> dropped;
  {
    std::lock_guard lk(mu_);
    if (closed_) return;
    closed_ = true;
    for (auto it = calls_.begin(); it != calls_.end();) {
      if (in_flight_.contains(it->first)) {  // finalize() tells a newer call waiting behind it
        ++it;
        continue;
      }
      dropped.push_back(it->second.finish);
      if (it->second.queued) pending(it->second.call->type(), -1);
      it = calls_.erase(it);
    }
    order_.clear();
    if (calls_.empty()) idle_cv_.notify_all();
  }
  cv_.notify_all();
  for (auto& f : dropped) f->send({CallResult::Kind::Closed, framework::Status::error("the API call dispatcher is closed")});
}

bool CallQueue::wait_idle(std::chrono::milliseconds timeout) {
  std::unique_lock lk(mu_);
  return idle_cv_.wait_for(lk, timeout, [&] { return calls_.empty(); });
}

std::string CallQueue::check_invariants() const {
  std::lock_guard lk(mu_);
  std::unordered_map<std::string, int> seen;
  for (const auto& uid : order_) {
    if (++seen[uid] > 1) return uid + " is queued twice";
    auto it = calls_.find(uid);
    if (it == calls_.end()) return uid + " is queued without a call";
    if (!it->second.queued) return uid + " is queued but its call is not marked queued";
    if (in_flight_.contains(uid)) return uid + " is queued while in flight";
  }
  for (const auto& [uid, e] : calls_) {
    if (e.queued && !seen.contains(uid)) return uid + " is marked queued but not in the order";
  }
  for (const auto& [uid, id] : in_flight_) {
    if (!calls_.contains(uid)) return uid + " is in flight without a call";
  }
  return "";
}

std::size_t CallQueue::size() const {
  std::lock_guard lk(mu_);
  return calls_.size();
}

}  // namespace ksched::scheduler::apidispatcher
