// SharedIndexInformer (client-go tools/cache/shared_informer.go): one Reflector + DeltaFIFO + Indexer
// per resource, shared by any number of event handlers. The reflector's thread also pops the FIFO
// (its inline consumer). Each handler has its own listener thread with an unbounded buffer, so a
// slow handler never blocks the reflector or the other handlers.
// Handlers see, per object and in order: OnAdd(obj, isInInitialList), OnUpdate(old, new),
// OnDelete(obj or DeletedFinalStateUnknown tombstone).
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "util/thread.h"
#include "informer/delta_fifo.h"
#include "informer/reflector.h"
#include "informer/store.h"
#include "util/clock.h"
#include "util/log.h"

namespace ksched::informer {

template <class T>
class ResourceEventHandler {
 public:
  virtual ~ResourceEventHandler() = default;
  virtual void OnAdd(const Ptr<T>& obj, bool is_in_initial_list) = 0;
  virtual void OnUpdate(const Ptr<T>& old_obj, const Ptr<T>& new_obj) = 0;
  virtual void OnDelete(const Deleted<T>& obj) = 0;
};

template <class T>
struct ResourceEventHandlerFuncs final : ResourceEventHandler<T> {
  std::function<void(const Ptr<T>&, bool)> add;
  std::function<void(const Ptr<T>&, const Ptr<T>&)> update;
  std::function<void(const Deleted<T>&)> del;
  void OnAdd(const Ptr<T>& o, bool initial) override {
    if (add) add(o, initial);
  }
  void OnUpdate(const Ptr<T>& a, const Ptr<T>& b) override {
    if (update) update(a, b);
  }
  void OnDelete(const Deleted<T>& d) override {
    if (del) del(d);
  }
};

// Upstream's FilteringResourceEventHandler: an update that enters the filter becomes an add, one
// that leaves it becomes a delete. Tombstones are passed to the filter with their last state.
template <class T>
struct FilteringResourceEventHandler final : ResourceEventHandler<T> {
  std::function<bool(const T&)> filter;
  std::shared_ptr<ResourceEventHandler<T>> handler;
  FilteringResourceEventHandler(std::function<bool(const T&)> f, std::shared_ptr<ResourceEventHandler<T>> h)
      : filter(std::move(f)), handler(std::move(h)) {}
  void OnAdd(const Ptr<T>& o, bool initial) override {
    if (filter(*o)) handler->OnAdd(o, initial);
  }
  void OnUpdate(const Ptr<T>& a, const Ptr<T>& b) override {
    bool ok_old = filter(*a), ok_new = filter(*b);
    if (ok_old && ok_new) handler->OnUpdate(a, b);
    else if (!ok_old && ok_new) handler->OnAdd(b, false);
    else if (ok_old && !ok_new) handler->OnDelete(Deleted<T>{a, false, meta_namespace_key(*a)});
  }
  void OnDelete(const Deleted<T>& d) override {
    if (d.obj && filter(*d.obj)) handler->OnDelete(d);
  }
};

template <class T>
struct Notification {
  enum Kind { Add, Update, Delete } kind;
  Ptr<T> old_obj;
  Ptr<T> obj;
  bool initial = false;
  bool final_state_unknown = false;
  std::string key;
};

// processorListener: an unbounded FIFO in front of one handler's thread.
template <class T>
class ProcessorListener : public std::enable_shared_from_this<ProcessorListener<T>> {
 public:
  ProcessorListener(std::shared_ptr<ResourceEventHandler<T>> h, std::chrono::milliseconds resync)
      : resync_period_(resync), handler_(std::move(h)) {}
  ~ProcessorListener() { stop(); }

  void start() {
    // The thread keeps the listener alive, so a handler may drop its registration while running.
    thread_ = std::thread([self = this->shared_from_this()] {
      util::set_thread_name("informer-handlr");
      self->run();
    });
    handler_thread_ = thread_.get_id();
  }
  void add(Notification<T> n) {
    std::lock_guard l(mu_);
    if (n.kind == Notification<T>::Add && n.initial) ++initial_pending_;
    pending_.push_back(std::move(n));
    // Same wake-up coalescing as DeltaFIFO: notify a sleeping handler thread at once, a polling
    // one only when the backlog grows.
    if (idle_ || pending_.size() == 256) cv_.notify_one();
  }
  void stop() {
    {
      std::lock_guard l(mu_);
      stopped_ = true;
      cv_.notify_all();
    }
    // Several threads may stop one listener (the informer's stop and a remove_event_handler racing
    // it): one joins, the others wait for that join. On the handler thread itself (a handler that
    // removes its own registration, or the last reference dropped there) the thread cannot be
    // joined: it is detached, unless another thread is joining it right now, which will finish.
    const bool on_handler_thread = handler_thread_ == std::this_thread::get_id();
    std::unique_lock j(join_mu_, std::defer_lock);
    if (on_handler_thread) {
      if (!j.try_lock()) return;
    } else {
      j.lock();
    }
    if (!thread_.joinable()) return;
    if (on_handler_thread) thread_.detach();
    else thread_.join();
  }
  // All initial-list adds handed to this listener were delivered.
  bool initial_delivered() const { return initial_pending_.load() == 0; }
  std::size_t backlog() const {
    std::lock_guard l(mu_);
    return pending_.size();
  }

  // Resync bookkeeping (guarded by the processor's lock).
  std::chrono::milliseconds resync_period_;
  util::Clock::time_point next_resync_{};
  bool syncing_ = false;

 private:
  void run() {
    std::deque<Notification<T>> batch;
    for (;;) {
      {
        std::unique_lock l(mu_);
        while (!stopped_ && pending_.empty()) {
          if (busy_) {
            cv_.wait_for(l, std::chrono::milliseconds(1));
            if (pending_.empty()) busy_ = false;
          } else {
            idle_ = true;
            cv_.wait(l);
            idle_ = false;
            busy_ = true;
          }
        }
        if (stopped_) return;
        batch.swap(pending_);
      }
      for (auto& n : batch) {
        if (stopped_.load(std::memory_order_relaxed)) return;
        deliver(n);
      }
      batch.clear();
    }
  }

  void deliver(const Notification<T>& n) {
    try {
      switch (n.kind) {
        case Notification<T>::Add: handler_->OnAdd(n.obj, n.initial); break;
        case Notification<T>::Update: handler_->OnUpdate(n.old_obj, n.obj); break;
        case Notification<T>::Delete: handler_->OnDelete(Deleted<T>{n.obj, n.final_state_unknown, n.key}); break;
      }
    } catch (const std::exception& e) {
      log::error("Observed a panic in an event handler", {{"err", e.what()}});
    }
    if (n.kind == Notification<T>::Add && n.initial) --initial_pending_;
  }

  std::shared_ptr<ResourceEventHandler<T>> handler_;
  std::thread::id handler_thread_;  // set by start(), before anyone can stop
  std::mutex join_mu_;              // held while thread_ is joined or detached
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Notification<T>> pending_;
  std::atomic<int> initial_pending_{0};
  std::atomic<bool> stopped_{false};
  bool idle_ = false, busy_ = false;
  std::thread thread_;
};

class InformerBase {
 public:
  virtual ~InformerBase() = default;
  virtual void start() = 0;
  virtual void stop() = 0;
  virtual bool has_synced() const = 0;
  virtual bool started() const = 0;
  virtual std::string name() const = 0;
};

template <class T>
struct InformerOptions {
  std::string name = "informer";
  std::chrono::milliseconds default_resync{0};
  std::function<void(T&)> transform;  // e.g. drop managedFields
  std::map<std::string, IndexFunc<T>> indexers;
  ReflectorOptions reflector;
  // The informer's one clock, as upstream passes it down: listener resync deadlines, and it replaces
  // reflector.clock.
  const util::Clock* clock = &util::RealClock::instance();
};

template <class T>
class SharedIndexInformer final : public InformerBase {
 public:
  class Registration {
   public:
    bool has_synced() const { return informer_->has_synced() && listener_->initial_delivered(); }

   private:
    friend class SharedIndexInformer;
    Registration(const SharedIndexInformer* inf, std::shared_ptr<ProcessorListener<T>> l)
        : informer_(inf), listener_(std::move(l)) {}
    const SharedIndexInformer* informer_;
    std::shared_ptr<ProcessorListener<T>> listener_;
  };

  SharedIndexInformer(ListWatch lw, InformerOptions<T> opts = {})
      : opts_(std::move(opts)), indexer_(std::make_shared<Indexer<T>>()), fifo_(indexer_.get(), true) {
    if (!opts_.indexers.empty()) indexer_->add_indexers(opts_.indexers);
    auto ropts = opts_.reflector;
    ropts.name = opts_.name;
    ropts.should_resync = [this] { return should_resync(); };
    ropts.clock = &clock();
    resync_check_period_ = opts_.default_resync;
    ropts.resync_period = resync_check_period_;
    reflector_ = std::make_unique<Reflector<T>>(std::move(lw), fifo_, ropts, opts_.transform);
  }
  ~SharedIndexInformer() override { stop(); }

  std::shared_ptr<Registration> add_event_handler(std::shared_ptr<ResourceEventHandler<T>> h,
                                                  std::chrono::milliseconds resync = std::chrono::milliseconds(-1)) {
    if (resync.count() < 0) resync = opts_.default_resync;
    if (resync.count() > 0 && resync < std::chrono::seconds(1)) resync = std::chrono::seconds(1);
    auto l = std::make_shared<ProcessorListener<T>>(std::move(h), resync);
    std::lock_guard block(block_deltas_);
    l->next_resync_ = clock().now() + resync;
    listeners_.push_back(l);
    l->start();
    if (started_.load()) {
      // Late registration: replay the cache as initial adds.
      for (auto& o : indexer_->list()) l->add(Notification<T>{Notification<T>::Add, nullptr, o, true});
    }
    return std::shared_ptr<Registration>(new Registration(this, l));
  }

  void remove_event_handler(const std::shared_ptr<Registration>& r) {
    std::shared_ptr<ProcessorListener<T>> l;
    {
      std::lock_guard block(block_deltas_);
      auto it = std::find(listeners_.begin(), listeners_.end(), r->listener_);
      if (it == listeners_.end()) return;
      l = *it;
      listeners_.erase(it);
    }
    l->stop();
  }

  void start() override {
    if (started_.exchange(true)) return;
    // The deltas are processed on the reflector's thread as it queues them (store update, then a
    // notification per listener, neither blocking): a thread in between cost a wake-up per event.
    fifo_.set_consumer([this](const std::string& key, const Deltas<T>& d, bool initial) {
      process(key, d, initial);
      return true;
    });
    reflector_thread_ = std::thread([this] {
      util::set_thread_name("reflector-" + name());
      reflector_->run();
    });
  }

  void stop() override {
    if (stopped_.exchange(true)) return;
    reflector_->stop();
    if (reflector_thread_.joinable()) reflector_thread_.join();
    fifo_.close();
    std::vector<std::shared_ptr<ProcessorListener<T>>> ls;
    {
      std::lock_guard block(block_deltas_);
      ls = listeners_;
    }
    for (auto& l : ls) l->stop();
  }

  bool has_synced() const override { return fifo_.has_synced(); }
  bool started() const override { return started_.load(); }
  std::string name() const override { return opts_.name; }

  Lister<T> lister() const { return Lister<T>(indexer_); }
  Indexer<T>& indexer() { return *indexer_; }
  std::shared_ptr<Indexer<T>> indexer_ptr() const { return indexer_; }
  std::string last_sync_resource_version() const { return reflector_->last_sync_resource_version(); }
  const ReflectorStats& reflector_stats() const { return reflector_->stats(); }
  Reflector<T>& reflector() { return *reflector_; }
  DeltaFIFO<T>& fifo() { return fifo_; }

  // The per-delta logic of upstream's processDeltas, usable without a running reflector.
  void process(const std::string& key, const Deltas<T>& deltas, bool initial) {
    std::lock_guard block(block_deltas_);
    for (const auto& d : deltas) {
      switch (d.type) {
        case DeltaType::Sync:
        case DeltaType::Replaced:
        case DeltaType::Added:
        case DeltaType::Updated: {
          auto old = indexer_->add_or_replace(d.obj);
          if (old) {
            bool is_sync = d.type == DeltaType::Sync ||
                           (d.type == DeltaType::Replaced &&
                            old->metadata.resourceVersion == d.obj->metadata.resourceVersion);
            for (auto& l : listeners_) {
              if (is_sync && !l->syncing_) continue;
              l->add(Notification<T>{Notification<T>::Update, old, d.obj});
            }
          } else {
            for (auto& l : listeners_) l->add(Notification<T>{Notification<T>::Add, nullptr, d.obj, initial});
          }
          break;
        }
        case DeltaType::Deleted: {
          indexer_->remove(key);
          for (auto& l : listeners_)
            l->add(Notification<T>{Notification<T>::Delete, nullptr, d.obj, false, d.final_state_unknown, key});
          break;
        }
      }
    }
  }

 private:
  const util::Clock& clock() const { return opts_.clock ? *opts_.clock : util::RealClock::instance(); }

  // Marks listeners whose resync period elapsed; true when any is due.
  bool should_resync() {
    std::lock_guard block(block_deltas_);
    auto now = clock().now();
    bool any = false;
    for (auto& l : listeners_) {
      l->syncing_ = false;
      if (l->resync_period_.count() > 0 && now >= l->next_resync_) {
        l->syncing_ = true;
        l->next_resync_ = now + l->resync_period_;
        any = true;
      }
    }
    return any;
  }

  InformerOptions<T> opts_;
  std::shared_ptr<Indexer<T>> indexer_;
  DeltaFIFO<T> fifo_;
  std::unique_ptr<Reflector<T>> reflector_;
  std::chrono::milliseconds resync_check_period_{0};
  mutable std::mutex block_deltas_;
  std::vector<std::shared_ptr<ProcessorListener<T>>> listeners_;
  std::atomic<bool> started_{false}, stopped_{false};
  std::thread reflector_thread_;
};

}  // namespace ksched::informer
