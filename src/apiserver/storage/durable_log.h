// Crash-safe persistence for the embedded API server's store (`--data-dir`): a write-ahead log of
// every change, made durable by group commit, plus periodic snapshots that let old log segments go.
//
// Why an own log and not SQLite: the store already is the database (MVCC, one global revision,
// watch history, every object kept as its final JSON bytes). What it lacks is only durability of
// the change stream in revision order, which an append-only log gives with one sequential write and
// one fdatasync per batch of changes, whatever their number. A SQL engine would keep a second copy
// of every object in its own B-tree, index it, and cost a transaction per batch on top of its own
// journal, for queries the store never asks of it.
//
// Layout of DIR:
//   LOCK                        flock'ed while a server uses DIR (a second server refuses to start)
//   wal-<first rv, 16 hex>.log  segments: an 8-byte magic, then records
//   snap-<rv, 16 hex>.snap      every object at rv: magic, rv, Put records, an End record
// Records: wal_record.h.
//
// Durability: Store::put/remove append under the store's write lock (a memcpy, no I/O). One
// thread writes what has gathered, fdatasyncs, then publishes those revisions to the store (only
// now do watchers see them) and releases the answers the HTTP layer held for them.
// Recovery: newest valid snapshot, then every record after it. A torn or corrupt tail of the last
// segment (a crash mid-write) is cut with a warning: nothing in it was ever acknowledged. Damage
// anywhere else (an older segment, a gap in revisions) refuses to start instead of serving a store
// that silently lost acknowledged writes.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "apiserver/storage/storage.h"
#include "util/result.h"

namespace ksched::apiserver {

class DurableLog final : public CommitLog {
 public:
  struct Options {
    std::string dir;
    // A segment this large is closed and a snapshot taken, after which older segments go.
    std::size_t segment_bytes = std::size_t{64} << 20;
  };
  struct Recovery {
    std::int64_t revision = 0;        // the store's revision after recovery
    std::int64_t snapshot_revision = 0;
    std::size_t objects = 0;
    std::size_t records_replayed = 0;
    std::size_t torn_bytes_cut = 0;   // bytes cut from the tail of the last segment
  };
  struct Stats {
    std::uint64_t records = 0;
    std::uint64_t bytes = 0;
    std::uint64_t syncs = 0;
    std::uint64_t snapshots = 0;
    std::int64_t durable_revision = 0;
  };

  // Locks DIR (creating it), recovers its contents into `store` (which must be empty), attaches
  // itself to the store and starts the commit and snapshot threads.
  static util::Result<std::unique_ptr<DurableLog>> open(Store& store, Options opts);
  // Makes everything appended so far durable, then detaches from the store.
  ~DurableLog() override;
  DurableLog(const DurableLog&) = delete;
  DurableLog& operator=(const DurableLog&) = delete;

  const Recovery& recovery() const { return recovery_; }
  Stats stats() const;
  std::int64_t durable_revision() const;

  // Called by the store under its write lock, in revision order.
  void append(const Event& ev) override;
  // Runs `fn` once revision `rv` is durable: at once on this thread if it already is, else on the
  // commit thread (so `fn` must only hand work off). Never runs after drop_waiters().
  void when_durable(std::int64_t rv, std::function<void()> fn) override;
  // Forgets every pending callback without running it (their owners are shutting down).
  void drop_waiters();

 private:
  DurableLog(Store& store, Options opts);
  util::Result<void> recover();
  util::Result<void> open_segment(std::int64_t first_rv);
  void commit_loop();
  void snapshot_loop();
  util::Result<void> write_snapshot(const Store::State& state);
  void remove_obsolete(std::int64_t snapshot_rv);

  Store& store_;
  Options opts_;
  Recovery recovery_;
  int lock_fd_ = -1;
  int seg_fd_ = -1;            // commit thread only (after open)
  std::size_t seg_bytes_ = 0;  // commit thread only

  mutable std::mutex mu_;
  std::condition_variable cv_;          // commit thread: records to write, or stop
  std::condition_variable durable_cv_;  // snapshot thread: durable revision moved
  std::string pending_;                 // encoded records not yet written
  std::int64_t appended_ = 0;           // revision of the last appended record
  std::int64_t durable_ = 0;
  bool stop_ = false;
  bool snapshot_wanted_ = false;
  struct Waiter {
    std::int64_t rv;
    std::function<void()> fn;
  };
  std::vector<Waiter> waiters_;  // min-heap on rv
  Stats stats_;
  std::thread commit_thread_;
  std::thread snapshot_thread_;
};

}  // namespace ksched::apiserver
