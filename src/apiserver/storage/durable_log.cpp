#include "apiserver/storage/durable_log.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <unordered_map>

#include "apiserver/resources.h"
#include "apiserver/storage/wal_record.h"
#include "util/log.h"
#include "util/thread.h"

namespace ksched::apiserver {

namespace fs = std::filesystem;

namespace {

using wal::Record;
using wal::RecordType;

std::string errno_text() { return std::strerror(errno); }

// The resource as the log names it, stable across releases (ids are not).
const std::string& resource_key(int id) {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const auto& r : all_resources()) k.push_back(r.group + "/" + r.plural);
    return k;
  }();
  return keys[static_cast<std::size_t>(id)];
}
int resource_id(std::string_view key) {
  static const std::unordered_map<std::string, int> ids = [] {
    std::unordered_map<std::string, int> m;
    // Only the tables objects are kept in: another version or a view of a resource shares its key.
    for (const auto& r : all_resources())
      if (r.storage == r.id) m.emplace(r.group + "/" + r.plural, r.id);
    return m;
  }();
  auto it = ids.find(std::string(key));
  return it == ids.end() ? -1 : it->second;
}

// A stored object's record: Put with its JSON, or Delete (the key is all recovery needs).
void append_object(std::string& out, RecordType type, std::int64_t rv, int resource, const StoredObject& o) {
  Record r;
  r.type = type;
  r.rv = rv;
  r.resource = resource_key(resource);
  r.ns = o.ns;
  r.name = o.name;
  if (type == RecordType::Put) {
    r.delete_deadline = o.delete_deadline;
    r.json = o.json;
  }
  wal::append_record(out, r);
}

util::Result<std::string> read_file(const fs::path& p) {
  int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return util::make_error("cannot open " + p.string() + ": " + errno_text());
  std::string data;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::string e = errno_text();
      ::close(fd);
      return util::make_error("cannot read " + p.string() + ": " + e);
    }
    if (n == 0) break;
    data.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return data;
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool sync_dir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

// A failed write or sync leaves the log's state unknown: no later write may be acknowledged on top
// of it, so the server stops (as etcd and PostgreSQL do) rather than answer as if it were durable.
[[noreturn]] void fatal(const std::string& what) {
  log::error("durable log: " + what + "; stopping the server so that no write is acknowledged without being durable");
  std::fflush(nullptr);
  std::_Exit(70);
}

std::string hex16(std::int64_t v) {
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
  return b;
}

// Files named PREFIX<16 hex>SUFFIX in `dir`, with their numbers, in ascending order.
std::vector<std::pair<std::int64_t, fs::path>> numbered(const std::string& dir, std::string_view prefix,
                                                        std::string_view suffix) {
  std::vector<std::pair<std::int64_t, fs::path>> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string n = e.path().filename().string();
    if (n.size() != prefix.size() + 16 + suffix.size() || n.compare(0, prefix.size(), prefix) != 0 ||
        n.compare(n.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    try {
      out.emplace_back(static_cast<std::int64_t>(std::stoull(n.substr(prefix.size(), 16), nullptr, 16)), e.path());
    } catch (...) {
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

DurableLog::DurableLog(Store& store, Options opts) : store_(store), opts_(std::move(opts)) {}

util::Result<std::unique_ptr<DurableLog>> DurableLog::open(Store& store, Options opts) {
  if (opts.dir.empty()) return util::make_error("durable log: no data directory");
  std::error_code ec;
  fs::create_directories(opts.dir, ec);
  if (ec) return util::make_error("cannot create data directory " + opts.dir + ": " + ec.message());
  std::unique_ptr<DurableLog> log(new DurableLog(store, std::move(opts)));
  std::string lock = log->opts_.dir + "/LOCK";
  log->lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (log->lock_fd_ < 0) return util::make_error("cannot open " + lock + ": " + errno_text());
  if (::flock(log->lock_fd_, LOCK_EX | LOCK_NB) != 0)
    return util::make_error("data directory " + log->opts_.dir + " is in use by another server (" + lock + " is locked)");
  if (auto r = log->recover(); !r) return util::make_error(r.error());
  store.set_log(log.get());
  log->commit_thread_ = std::thread([p = log.get()] {
    util::set_thread_name("wal-commit");
    p->commit_loop();
  });
  log->snapshot_thread_ = std::thread([p = log.get()] {
    util::set_thread_name("wal-snapshot");
    p->snapshot_loop();
  });
  return log;
}

DurableLog::~DurableLog() {
  {
    std::lock_guard l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  durable_cv_.notify_all();
  if (commit_thread_.joinable()) commit_thread_.join();
  if (snapshot_thread_.joinable()) snapshot_thread_.join();
  store_.set_log(nullptr);
  if (seg_fd_ >= 0) ::close(seg_fd_);
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock
}

util::Result<void> DurableLog::recover() {
  const std::string& dir = opts_.dir;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".tmp") fs::remove(e.path(), ec);  // a snapshot that never completed

  // Final state of every key: the newest snapshot that reads whole, then the log after it.
  struct Entry {
    int resource;
    std::string json;
    std::int64_t deadline;
  };
  std::unordered_map<std::string, Entry> state;
  auto state_key = [](std::string_view res, std::string_view ns, std::string_view name) {
    std::string k;
    k.reserve(res.size() + ns.size() + name.size() + 2);
    k.append(res).push_back('\0');
    k.append(ns).push_back('\0');
    k.append(name);
    return k;
  };
  auto apply = [&](const Record& r, const std::string& where) -> util::Result<void> {
    int id = resource_id(r.resource);
    if (id < 0) return util::make_error(where + ": unknown resource \"" + std::string(r.resource) + "\"");
    std::string k = state_key(r.resource, r.ns, r.name);
    if (r.type == RecordType::Delete)
      state.erase(k);
    else
      state[k] = Entry{id, std::string(r.json), r.delete_deadline};
    return {};
  };

  std::int64_t rv = 0;
  auto snapshots = numbered(dir, "snap-", ".snap");
  for (auto it = snapshots.rbegin(); it != snapshots.rend(); ++it) {
    auto data = read_file(it->second);
    if (!data) return util::make_error(data.error());
    bool ok = data->compare(0, wal::kSnapshotMagic.size(), wal::kSnapshotMagic) == 0;
    wal::Reader rd(*data, wal::kSnapshotMagic.size());
    Record r;
    bool ended = false;
    state.clear();
    while (ok && rd.next(r)) {
      if (r.type == RecordType::End) {
        ended = rd.pos() == data->size() && r.rv == it->first;
        break;
      }
      if (auto a = apply(r, it->second.string()); !a) return a;
    }
    if (ok && ended) {
      rv = it->first;
      recovery_.snapshot_revision = rv;
      break;
    }
    state.clear();
    log::warning("durable log: snapshot is damaged; using an older one and more of the log",
                 {{"file", it->second.string()}});
  }

  auto segments = numbered(dir, "wal-", ".log");
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const auto& [first, path] = segments[i];
    bool last = i + 1 == segments.size();
    auto data = read_file(path);
    if (!data) return util::make_error(data.error());
    std::size_t good = 0;
    bool damaged = false;
    if (data->size() < wal::kSegmentMagic.size() || data->compare(0, wal::kSegmentMagic.size(), wal::kSegmentMagic) != 0) {
      damaged = true;
    } else {
      wal::Reader rd(*data, wal::kSegmentMagic.size());
      Record r;
      while (rd.next(r)) {
        if (r.type == RecordType::End || (r.rv > rv && r.rv != rv + 1)) {
          return util::make_error("durable log: " + path.string() + " skips from revision " + std::to_string(rv) +
                                  " to " + std::to_string(r.rv) + "; refusing to serve a store with a hole in it");
        }
        if (r.rv <= rv) continue;  // already in the snapshot
        if (auto a = apply(r, path.string()); !a) return a;
        rv = r.rv;
        ++recovery_.records_replayed;
      }
      good = rd.pos();
      damaged = rd.damaged();
    }
    if (!damaged) continue;
    if (!last)
      return util::make_error("durable log: " + path.string() + " is damaged at byte " + std::to_string(good) +
                              " and later segments follow it; refusing to serve a store that lost acknowledged writes");
    // A crash mid-write: the tail was never acknowledged. Cut it so that appends follow good data.
    std::size_t cut = data->size() - good;
    if (good < wal::kSegmentMagic.size()) {
      fs::remove(path, ec);
      segments.pop_back();
    } else if (::truncate(path.c_str(), static_cast<off_t>(good)) != 0) {
      return util::make_error("cannot cut the damaged tail of " + path.string() + ": " + errno_text());
    }
    recovery_.torn_bytes_cut = cut;
    log::warning("durable log: cut a torn tail (a write the crash interrupted, never acknowledged)",
                 {{"file", path.string()}, {"offset", static_cast<std::int64_t>(good)},
                  {"bytes", static_cast<std::int64_t>(cut)}, {"revision", rv}});
  }

  for (auto& [k, e] : state) {
    if (auto r = store_.restore(e.resource, e.json, e.deadline); !r)
      return util::make_error("durable log: a stored " + resource_key(e.resource) + " object: " + r.error());
  }
  store_.finish_restore(rv);
  recovery_.revision = rv;
  recovery_.objects = state.size();
  appended_ = durable_ = rv;
  stats_.durable_revision = rv;

  // Appends continue in the last segment when there is one, else in a new one.
  if (!segments.empty()) {
    const auto& path = segments.back().second;
    seg_fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (seg_fd_ < 0) return util::make_error("cannot open " + path.string() + ": " + errno_text());
    struct stat st {};
    if (::fstat(seg_fd_, &st) == 0) seg_bytes_ = static_cast<std::size_t>(st.st_size);
    return {};
  }
  return open_segment(rv + 1);
}

util::Result<void> DurableLog::open_segment(std::int64_t first_rv) {
  std::string path = opts_.dir + "/wal-" + hex16(first_rv) + ".log";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return util::make_error("cannot create " + path + ": " + errno_text());
  if (!write_all(fd, wal::kSegmentMagic) || ::fdatasync(fd) != 0 || !sync_dir(opts_.dir)) {
    std::string e = errno_text();
    ::close(fd);
    return util::make_error("cannot start " + path + ": " + e);
  }
  if (seg_fd_ >= 0) ::close(seg_fd_);
  seg_fd_ = fd;
  seg_bytes_ = wal::kSegmentMagic.size();
  return {};
}

void DurableLog::append(const Event& ev) {
  const StoredObject* o = ev.obj.get();
  std::lock_guard l(mu_);
  append_object(pending_, ev.type == EventType::Deleted ? RecordType::Delete : RecordType::Put, ev.rv, ev.resource, *o);
  appended_ = ev.rv;
  cv_.notify_one();
}

std::int64_t DurableLog::durable_revision() const {
  std::lock_guard l(mu_);
  return durable_;
}

DurableLog::Stats DurableLog::stats() const {
  std::lock_guard l(mu_);
  return stats_;
}

void DurableLog::when_durable(std::int64_t rv, std::function<void()> fn) {
  {
    std::lock_guard l(mu_);
    if (rv > durable_) {
      waiters_.push_back(Waiter{rv, std::move(fn)});
      std::push_heap(waiters_.begin(), waiters_.end(), [](const Waiter& a, const Waiter& b) { return a.rv > b.rv; });
      return;
    }
  }
  fn();
}

void DurableLog::drop_waiters() {
  std::vector<Waiter> dropped;
  {
    std::lock_guard l(mu_);
    dropped.swap(waiters_);
  }
}

void DurableLog::commit_loop() {
  std::string batch;
  for (;;) {
    std::int64_t upto = 0;
    {
      std::unique_lock l(mu_);
      cv_.wait(l, [&] { return !pending_.empty() || stop_; });
      if (pending_.empty()) return;  // stopping with everything durable
      batch.swap(pending_);
      upto = appended_;
    }
    if (!write_all(seg_fd_, batch)) fatal("cannot write the log: " + errno_text());
    if (::fdatasync(seg_fd_) != 0) fatal("cannot sync the log: " + errno_text());
    seg_bytes_ += batch.size();
    std::size_t written = batch.size();
    batch.clear();
    if (batch.capacity() > (std::size_t{16} << 20)) batch.shrink_to_fit();

    // Durable now; visible only now: watchers, lists and the answers held for these writes.
    {
      std::lock_guard l(mu_);
      durable_ = upto;
    }
    store_.publish(upto);
    std::vector<std::function<void()>> ready;
    {
      std::lock_guard l(mu_);
      ++stats_.syncs;
      stats_.bytes += written;
      stats_.durable_revision = upto;
      auto later = [](const Waiter& a, const Waiter& b) { return a.rv > b.rv; };
      while (!waiters_.empty() && waiters_.front().rv <= upto) {
        std::pop_heap(waiters_.begin(), waiters_.end(), later);
        ready.push_back(std::move(waiters_.back().fn));
        waiters_.pop_back();
      }
    }
    durable_cv_.notify_all();
    for (auto& fn : ready) fn();

    if (seg_bytes_ >= opts_.segment_bytes) {
      if (auto r = open_segment(upto + 1); !r) fatal(r.error());
      {
        std::lock_guard l(mu_);
        snapshot_wanted_ = true;
      }
      durable_cv_.notify_all();
    }
  }
}

void DurableLog::snapshot_loop() {
  for (;;) {
    {
      std::unique_lock l(mu_);
      durable_cv_.wait(l, [&] { return snapshot_wanted_ || stop_; });
      if (stop_) return;
      snapshot_wanted_ = false;
    }
    // The objects are immutable and shared: taking them costs pointers, not copies.
    Store::State state = store_.state();
    {
      // A snapshot is never ahead of the log: what it holds is durable there first.
      std::unique_lock l(mu_);
      durable_cv_.wait(l, [&] { return durable_ >= state.revision || stop_; });
      if (stop_ && durable_ < state.revision) return;
    }
    if (auto r = write_snapshot(state); !r) {
      log::warning("durable log: snapshot failed; the log keeps every segment until one succeeds",
                   {{"err", r.error()}});
      continue;
    }
    remove_obsolete(state.revision);
    std::lock_guard l(mu_);
    ++stats_.snapshots;
  }
}

util::Result<void> DurableLog::write_snapshot(const Store::State& state) {
  std::string final_path = opts_.dir + "/snap-" + hex16(state.revision) + ".snap";
  std::string tmp = final_path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return util::make_error("cannot create " + tmp + ": " + errno_text());
  std::string buf(wal::kSnapshotMagic);
  bool ok = true;
  for (const auto& [res, o] : state.objects) {
    append_object(buf, RecordType::Put, o->rv, res, *o);
    if (buf.size() >= (std::size_t{4} << 20)) {
      ok = ok && write_all(fd, buf);
      buf.clear();
    }
  }
  Record end;
  end.type = RecordType::End;
  end.rv = state.revision;
  wal::append_record(buf, end);
  ok = ok && write_all(fd, buf) && ::fsync(fd) == 0;
  std::string e = errno_text();
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), final_path.c_str()) != 0 || !sync_dir(opts_.dir)) {
    std::error_code ec;
    fs::remove(tmp, ec);
    return util::make_error("cannot write " + final_path + ": " + e);
  }
  return {};
}

void DurableLog::remove_obsolete(std::int64_t snapshot_rv) {
  std::error_code ec;
  for (const auto& [rv, path] : numbered(opts_.dir, "snap-", ".snap"))
    if (rv < snapshot_rv) fs::remove(path, ec);
  // A segment may go once the next one starts at or before the snapshot's revision + 1: all of
  // its records are then in the snapshot. The newest segment (being appended to) always stays.
  auto segments = numbered(opts_.dir, "wal-", ".log");
  for (std::size_t i = 0; i + 1 < segments.size(); ++i)
    if (segments[i + 1].first <= snapshot_rv + 1) fs::remove(segments[i].second, ec);
  sync_dir(opts_.dir);
}

}  // namespace ksched::apiserver
