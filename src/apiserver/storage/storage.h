// In-memory MVCC object store with one global revision (like etcd).
// Objects are kept as compact JSON strings plus the small index data selectors need, so lists and
// watches write bytes without re-encoding. A bounded history of change events serves watch
// resumption and consistent paginated lists at an older revision (by undoing newer events).
//
// With a durable log attached (durable_log.h) every change is appended to it under the write lock,
// and the store keeps two revisions: the newest change (`revision_`) and the newest the log has
// made durable (`published_`). Watchers, lists and the revision clients are told only ever see
// published changes, so no client acts on a change a crash could still take back.
#pragma once
#include <boost/json/fwd.hpp>
#include <atomic>
#include <cstdint>
#include <deque>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "api/fields.h"
#include "api/labels.h"
#include "util/result.h"

namespace ksched::apiserver {

class Watcher;
struct Event;

// Where a store with durability sends its changes (durable_log.h implements it): appended under the
// store's write lock, in revision order; the log calls Store::publish once they are durable.
class CommitLog {
 public:
  virtual ~CommitLog() = default;
  virtual void append(const Event& ev) = 0;  // must not block on I/O
  // Runs `fn` once `rv` is durable: at once if it is, else later from the log's own thread.
  virtual void when_durable(std::int64_t rv, std::function<void()> fn) = 0;
};

// A store kept in an external database (etcd_storage.h implements it for etcd): writes go there
// first, guarded by the object's revision, and come back through its watch (Store::apply_external),
// which is the only way changes enter the store. The database assigns revisions.
class ExternalStorage {
 public:
  virtual ~ExternalStorage() = default;
  struct Write {
    bool ok = false;
    std::int64_t revision = 0;    // ok: the write's revision
    std::int64_t current_rv = 0;  // not ok: the key's revision then (0: absent)
  };
  // `value` is the object's JSON without its resourceVersion; `expected_rv` 0: must not exist.
  // Throws StorageError when the database cannot be reached.
  virtual Write put(int resource, std::string_view ns, std::string_view name, std::string_view value,
                    std::int64_t expected_rv) = 0;
  // `expected_rv` 0: whatever the object's revision is.
  virtual Write remove(int resource, std::string_view ns, std::string_view name, std::int64_t expected_rv) = 0;
  // Returns once the store holds every change the database had when called (a consistent read).
  // Throws StorageError when it cannot tell.
  virtual void sync() = 0;
  // Waits up to `timeout` until the store holds revision `rv`; false if it does not by then.
  virtual bool reach(std::int64_t rv, std::chrono::milliseconds timeout) = 0;
};

// The external database failed a request (the HTTP layer answers 500 with its message).
class StorageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A write whose object is larger than Store::max_object_bytes(); nothing was changed. The HTTP
// layer answers as kube-apiserver does when etcd refuses the request for its size.
class ObjectTooLarge : public StorageError {
 public:
  ObjectTooLarge() : StorageError("etcdserver: request is too large") {}
};

// The index kept next to each stored object: labels, and the selectable field values of its
// resource; selectors are upstream's (api/labels.h, api/fields.h).
using Pairs = api::StringMap;
using LabelSelector = labels::Selector;
using FieldSelector = fields::Selector;

// Another encoding of a stored object, made on first use and then kept for the object's life (the
// object never changes). Thread-safe; a copy starts empty, since a copied object is about to change.
class EncodingCache {
 public:
  EncodingCache() = default;
  EncodingCache(const EncodingCache&) noexcept {}
  EncodingCache& operator=(const EncodingCache&) = delete;
  ~EncodingCache() { delete p_.load(std::memory_order_relaxed); }
  const std::string* get() const { return p_.load(std::memory_order_acquire); }
  // Keeps `s` unless another thread got there first; returns what is kept.
  const std::string* set(std::string s) const {
    auto* mine = new std::string(std::move(s));
    const std::string* expected = nullptr;
    if (p_.compare_exchange_strong(expected, mine, std::memory_order_acq_rel)) return mine;
    delete mine;
    return expected;
  }

 private:
  mutable std::atomic<const std::string*> p_{nullptr};
};

struct StoredObject {
  std::string json;  // compact JSON of the whole object, metadata.resourceVersion included
  EncodingCache protobuf;  // its protobuf message (apiserver/endpoints/protobuf.h), once a client asked for it
  std::string ns;
  std::string name;
  std::string uid;
  Pairs labels;
  fields::FieldSet fields;
  std::int64_t rv = 0;
  std::int64_t delete_deadline = 0;  // unix seconds of a pending graceful pod deletion, 0 = none
};
using ObjPtr = std::shared_ptr<const StoredObject>;

enum class EventType : char { Added = 'A', Modified = 'M', Deleted = 'D' };

struct Event {
  std::int64_t rv = 0;
  int resource = 0;
  EventType type = EventType::Added;
  ObjPtr obj;   // new state; for Deleted the last state stamped with the deletion revision
  ObjPtr prev;  // state before the change (null for Added)
};

// Key of an object inside one resource: "ns/name" or "name"; sorts like upstream's etcd keys.
std::string object_key(std::string_view ns, std::string_view name);

class Store {
 public:
  explicit Store(std::size_t history_limit);
  ~Store();

  // The newest revision clients may see: every change up to it is durable (memory mode: the newest).
  std::int64_t revision() const;
  // The revision of the resource's last change (0: none since the store was made), and an id no
  // other store in the process has: together they tell a cache built from the resource's objects
  // that nothing changed. Lock-free (one atomic load): callers may ask on every request.
  std::int64_t resource_revision(int resource) const;
  std::uint64_t id() const { return id_; }
  // The largest object JSON put() stores (0 = any); etcd's default request limit unless set.
  void set_max_object_bytes(std::size_t n) { max_object_bytes_ = n; }
  std::size_t max_object_bytes() const { return max_object_bytes_; }
  // The newest state, durable or not: what a write's read-modify-write must start from.
  ObjPtr get(int resource, std::string_view ns, std::string_view name) const;
  // The state at revision(): what a client's GET sees (only durable changes, like lists and watches).
  ObjPtr get_published(int resource, std::string_view ns, std::string_view name) const;
  // Every object of the resource at the newest state, durable or not, in key order (for caches
  // keyed by resource_revision(), which counts the same changes).
  std::vector<ObjPtr> current(int resource) const;

  enum class CommitStatus { Ok, Changed, AlreadyExists, NotFound };
  struct Commit {
    CommitStatus status = CommitStatus::Ok;
    ObjPtr obj;
  };
  // Writes `obj` (metadata.resourceVersion is set to the new revision). `expected_rv` is the
  // revision of the stored object the change was computed from; 0 means "must not exist".
  // Changed: the object moved on meanwhile (caller re-reads and retries or reports a conflict).
  // Throws ObjectTooLarge, changing nothing, when the object's JSON exceeds max_object_bytes().
  Commit put(int resource, boost::json::object& obj, std::int64_t expected_rv, std::int64_t delete_deadline = 0);
  // Removes the object; the DELETED event carries `last` (stamped with the deletion revision).
  Commit remove(int resource, std::string_view ns, std::string_view name, std::int64_t expected_rv,
                boost::json::object* last = nullptr);

  struct ListOptions {
    std::string_view ns;           // "" = all namespaces
    std::int64_t at_rv = 0;        // 0 = current revision
    std::string start_after;       // continue key (exclusive)
    std::size_t limit = 0;         // 0 = unlimited
    const LabelSelector* labels = nullptr;
    const FieldSelector* fields = nullptr;
  };
  struct ListResult {
    std::vector<ObjPtr> items;
    std::int64_t rv = 0;
    std::string next_key;  // non-empty when more items remain
    std::int64_t remaining = -1;
  };
  enum class ListError { None, TooOld };
  util::Result<ListResult> list(int resource, const ListOptions& opts) const;

  // Registers a watcher. initial=true: synthetic ADDED for the current state first (and the
  // initial-events-end bookmark when asked). Otherwise replays history after from_rv; fails with
  // the upstream "too old resource version" message when it is out of the window.
  util::Result<void> watch(const std::shared_ptr<Watcher>& w, std::int64_t from_rv, bool initial,
                           bool initial_end_bookmark);
  void unwatch(const Watcher* w);
  // Pushes a BOOKMARK with the current revision if the watcher has not seen it yet.
  void bookmark(Watcher& w);

  // ---- durability (durable_log.h drives these)
  // From now on every change is appended to `log` (nullptr: memory mode, changes publish at once).
  void set_log(CommitLog* log);
  // Makes every change up to `rv` visible: fans it out to watchers and moves revision() on.
  void publish(std::int64_t rv);
  // The revision of the last change this thread committed with a log attached (0: none since the
  // last call, or memory mode); the HTTP layer holds a write's answer until it is durable.
  static std::int64_t take_thread_commit();
  // Runs `fn` once every change up to `rv` is durable: at once when it already is (or without a
  // log), else from the log's commit thread, so `fn` must only hand work off.
  void when_durable(std::int64_t rv, std::function<void()> fn);
  // Recovery: objects as the log or a snapshot holds them, then the revision they end at. History
  // starts empty at that revision, so a watch from any older revision gets 410 and relists.
  util::Result<void> restore(int resource, std::string_view json, std::int64_t delete_deadline);
  void finish_restore(std::int64_t revision);
  // Every object at the newest revision (for a snapshot); the objects are immutable and shared.
  struct State {
    std::int64_t revision = 0;
    std::vector<std::pair<int, ObjPtr>> objects;
  };
  State state() const;

  // ---- external storage (etcd_storage.h drives these)
  // From now on writes go to `ext` and only apply_external changes the store (nullptr: local).
  void set_external(ExternalStorage* ext);
  struct ExternalChange {
    int resource = 0;
    std::string ns, name;
    std::int64_t rv = 0;
    bool deleted = false;
    std::string value;  // a put's JSON, without resourceVersion
  };
  // Applies changes the database's watch delivered, in revision order, then moves revision() on
  // to `revision` (a watch's progress notification may move it without changes). A value that is
  // not a whole object is left out; the returned lines say which, for the caller to log.
  std::vector<std::string> apply_external(std::vector<ExternalChange>& changes, std::int64_t revision);
  // Replaces every object with the database's state at `revision` (start-up, or a relist after the
  // watch fell behind compaction). History starts over there; open watches are closed, so their
  // clients resume from their last revision and get 410 Gone if it is older.
  util::Result<void> reset_external(std::vector<ExternalChange>& objects, std::int64_t revision);
  // Blocks until revision() reaches `rv`; false after `timeout`.
  bool wait_for_revision(std::int64_t rv, std::chrono::milliseconds timeout);
  // External mode: a read that names no resourceVersion must see every change acknowledged before
  // it, by any server (upstream's quorum GET and consistent list); waits until the store holds
  // them. Nothing to do otherwise: the store is the database.
  void sync_for_read();
  // External mode: waits up to `timeout` for revision() to reach `rv`, which a client may have
  // seen from another server; true when it has.
  bool catch_up(std::int64_t rv, std::chrono::milliseconds timeout);

  void compact(std::int64_t revision);
  std::int64_t compacted_revision() const;
  std::size_t history_size() const;
  std::size_t count(int resource) const;
  // Pods whose graceful deletion deadline has passed (ns, name, rv).
  std::vector<ObjPtr> expired_deletions(int resource, std::int64_t now_unix) const;

 private:
  struct Table {
    std::map<std::string, ObjPtr, std::less<>> objects;
    std::vector<std::shared_ptr<Watcher>> watchers;
    std::map<std::string, std::int64_t, std::less<>> pending_deletions;  // key -> deadline
    // Revision of the last event (record); written under the write lock, read without it.
    std::atomic<std::int64_t> last_change{0};
  };
  void record(Event ev);  // appends history and fans out; caller holds the write lock
  void fan_out(const Event& ev);
  // The objects of `resource` changed after `at` (key -> state at `at`, null = absent then).
  std::map<std::string, ObjPtr, std::less<>> undo_after(int resource, std::int64_t at) const;
  Table& table(int resource) const { return tables_[static_cast<std::size_t>(resource)]; }
  // Keeps the reaper's list of pending graceful deletions in step with a stored object.
  static void track_deletion(Table& t, const std::string& key, const StoredObject& now, const ObjPtr& prev);
  // The first history event newer than `rv` (history may skip revisions in external mode).
  std::size_t history_index_after(std::int64_t rv) const;
  Commit put_external(int resource, std::shared_ptr<StoredObject> obj, std::size_t marker_pos,
                      boost::json::object& json, std::int64_t expected_rv);
  Commit write_conflict(int resource, std::string_view ns, std::string_view name, std::int64_t expected_rv,
                        const ExternalStorage::Write& w);
  void set_published(std::int64_t rv);  // external mode: caller holds the write lock
  void run_due_waiters();               // external mode: without the lock

  mutable std::shared_mutex mu_;
  mutable std::vector<Table> tables_;
  std::deque<Event> history_;
  std::size_t history_limit_;
  std::size_t max_object_bytes_ = std::size_t{3} << 19;
  std::int64_t revision_ = 0;
  std::int64_t published_ = 0;  // == revision_ without a log
  CommitLog* log_ = nullptr;
  std::int64_t compacted_ = 0;  // every event with rv > compacted_ is in history_
  ExternalStorage* external_ = nullptr;
  // External mode: objects this server wrote, by revision, until the watch brings them back (the
  // store then keeps this object instead of decoding the database's copy).
  std::map<std::int64_t, std::pair<int, ObjPtr>> own_writes_;
  std::multimap<std::int64_t, std::function<void()>> waiters_;  // external mode: when_durable
  std::mutex applied_mu_;
  std::condition_variable applied_cv_;
  const std::uint64_t id_;
};

}  // namespace ksched::apiserver
