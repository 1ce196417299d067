#include "apiserver/storage/storage.h"

#include <algorithm>
#include <atomic>
#include <utility>

#include <boost/json.hpp>
#include <mutex>

#include "apiserver/resources.h"
#include "apiserver/timeutil.h"
#include "apiserver/storage/watch_hub.h"

namespace ksched::apiserver {

namespace json = boost::json;

namespace {
// Serialized in place of metadata.resourceVersion outside the lock; the real revision is spliced
// in under the lock. Control characters are always escaped, so this text cannot occur otherwise.
constexpr std::string_view kRvMarker = "\"\\u0001rv\\u0001\"";

std::string str_of(const json::object& o, std::string_view k) {
  auto* v = o.if_contains(k);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

struct Prepared {
  std::shared_ptr<StoredObject> obj;
  std::size_t marker_pos = std::string::npos;
};

// The index data kept beside an object's JSON: its key, uid, labels and selectable fields.
void index_object(int resource, const json::object& obj, const json::object& meta, StoredObject& so) {
  so.ns = str_of(meta, "namespace");
  so.name = str_of(meta, "name");
  so.uid = str_of(meta, "uid");
  so.labels = extract_labels(obj);
  so.fields = extract_fields(resource_by_id(resource), obj);
}

Prepared prepare(int resource, json::object& obj) {
  Prepared p;
  auto so = std::make_shared<StoredObject>();
  json::object& meta = obj["metadata"].is_object() ? obj["metadata"].get_object() : obj["metadata"].emplace_object();
  meta["resourceVersion"] = "\x01rv\x01";
  index_object(resource, obj, meta, *so);
  so->json = json::serialize(obj);
  p.marker_pos = so->json.find(kRvMarker);
  p.obj = std::move(so);
  return p;
}

// External mode: an object as the database holds it (JSON without resourceVersion), made whole.
util::Result<ObjPtr> decode_external(int resource, std::string_view text, std::int64_t rv) {
  json::value v;
  std::error_code ec;
  v = json::parse(text, ec);
  if (ec || !v.is_object()) return util::make_error("stored value is not a JSON object");
  json::object& obj = v.get_object();
  auto* meta = obj.if_contains("metadata");
  if (!meta || !meta->is_object()) return util::make_error("stored object has no metadata");
  auto& m = meta->get_object();
  m["resourceVersion"] = std::to_string(rv);
  auto so = std::make_shared<StoredObject>();
  index_object(resource, obj, m, *so);
  so->json = json::serialize(obj);
  so->rv = rv;
  // A pod's pending graceful deletion (the reaper's deadline) is its deletionTimestamp.
  const auto& r = resource_by_id(resource);
  auto* grace = m.if_contains("deletionGracePeriodSeconds");
  auto* ts = m.if_contains("deletionTimestamp");
  if (r.group.empty() && r.plural == "pods" && grace && grace->is_int64() && grace->get_int64() > 0 && ts &&
      ts->is_string())
    if (auto t = parse_rfc3339(ts->get_string())) so->delete_deadline = std::max<std::int64_t>(*t, 1);
  return ObjPtr(std::move(so));
}

// The last state of a deleted object, stamped with the deletion's revision (as upstream's watch
// reports a DELETED object).
ObjPtr restamped(const ObjPtr& prev, std::int64_t rv) {
  json::value v = json::parse(prev->json);
  auto& m = v.get_object()["metadata"].get_object();
  m["resourceVersion"] = std::to_string(rv);
  auto so = std::make_shared<StoredObject>(*prev);
  so->json = json::serialize(v);
  so->rv = rv;
  return so;
}

void splice_rv(Prepared& p, std::int64_t rv, json::object& obj) {
  std::string num = "\"" + std::to_string(rv) + "\"";
  if (p.marker_pos != std::string::npos) p.obj->json.replace(p.marker_pos, kRvMarker.size(), num);
  p.obj->rv = rv;
  obj["metadata"].get_object()["resourceVersion"] = std::to_string(rv);
}

}  // namespace

std::string object_key(std::string_view ns, std::string_view name) {
  if (ns.empty()) return std::string(name);
  std::string k;
  k.reserve(ns.size() + name.size() + 1);
  k.append(ns).append("/").append(name);
  return k;
}

namespace {
std::atomic<std::uint64_t> next_store_id{1};
thread_local std::int64_t thread_commit = 0;
}

std::int64_t Store::take_thread_commit() { return std::exchange(thread_commit, 0); }

Store::Store(std::size_t history_limit)
    : tables_(all_resources().size()), history_limit_(history_limit), id_(next_store_id.fetch_add(1)) {}

std::int64_t Store::resource_revision(int resource) const {
  return table(resource).last_change.load(std::memory_order_acquire);
}

std::vector<ObjPtr> Store::current(int resource) const {
  std::shared_lock l(mu_);
  const auto& objs = table(resource).objects;
  std::vector<ObjPtr> out;
  out.reserve(objs.size());
  for (const auto& kv : objs) out.push_back(kv.second);
  return out;
}

Store::~Store() {
  std::unique_lock l(mu_);
  for (auto& t : tables_)
    for (auto& w : t.watchers) w->close();
}

std::int64_t Store::revision() const {
  std::shared_lock l(mu_);
  return published_;
}

std::int64_t Store::compacted_revision() const {
  std::shared_lock l(mu_);
  return compacted_;
}

std::size_t Store::history_size() const {
  std::shared_lock l(mu_);
  return history_.size();
}

std::size_t Store::count(int resource) const {
  std::shared_lock l(mu_);
  return table(resource).objects.size();
}

ObjPtr Store::get(int resource, std::string_view ns, std::string_view name) const {
  std::string key = object_key(ns, name);
  std::shared_lock l(mu_);
  auto& t = table(resource);
  auto it = t.objects.find(key);
  return it == t.objects.end() ? nullptr : it->second;
}

ObjPtr Store::get_published(int resource, std::string_view ns, std::string_view name) const {
  std::string key = object_key(ns, name);
  std::shared_lock l(mu_);
  if (published_ < revision_) {
    // Unpublished changes (a group commit's worth at most) are undone as lists undo them.
    auto overrides = undo_after(resource, published_);
    if (auto o = overrides.find(key); o != overrides.end()) return o->second;
  }
  auto& t = table(resource);
  auto it = t.objects.find(key);
  return it == t.objects.end() ? nullptr : it->second;
}

Store::Commit Store::put(int resource, json::object& obj, std::int64_t expected_rv, std::int64_t delete_deadline) {
  Prepared p = prepare(resource, obj);
  if (max_object_bytes_ && p.obj->json.size() > max_object_bytes_) throw ObjectTooLarge();
  p.obj->delete_deadline = delete_deadline;
  if (external_) return put_external(resource, std::move(p.obj), p.marker_pos, obj, expected_rv);
  std::string key = object_key(p.obj->ns, p.obj->name);
  std::unique_lock l(mu_);
  auto& t = table(resource);
  auto it = t.objects.find(key);
  if (expected_rv == 0) {
    if (it != t.objects.end()) return {CommitStatus::AlreadyExists, it->second};
  } else {
    if (it == t.objects.end()) return {CommitStatus::NotFound, nullptr};
    if (it->second->rv != expected_rv) return {CommitStatus::Changed, it->second};
  }
  std::int64_t rv = ++revision_;
  splice_rv(p, rv, obj);
  ObjPtr stored = p.obj;
  ObjPtr prev;
  if (it == t.objects.end()) {
    t.objects.emplace(key, stored);
  } else {
    prev = it->second;
    it->second = stored;
  }
  track_deletion(t, key, *stored, prev);
  record(Event{rv, resource, prev ? EventType::Modified : EventType::Added, stored, prev});
  return {CommitStatus::Ok, stored};
}

Store::Commit Store::remove(int resource, std::string_view ns, std::string_view name, std::int64_t expected_rv,
                            json::object* last) {
  Prepared p;
  if (last) p = prepare(resource, *last);
  if (external_) {
    ObjPtr prev = get(resource, ns, name);
    auto w = external_->remove(resource, ns, name, expected_rv);
    if (!w.ok) return write_conflict(resource, ns, name, expected_rv, w);
    thread_commit = w.revision;
    if (last) {
      splice_rv(p, w.revision, *last);
      return {CommitStatus::Ok, p.obj};
    }
    if (prev) return {CommitStatus::Ok, prev};
    // Deleted in the database before this server's watch brought the object: all that is known.
    auto so = std::make_shared<StoredObject>();
    so->ns = std::string(ns);
    so->name = std::string(name);
    so->rv = w.revision;
    json::object meta{{"name", so->name}, {"resourceVersion", std::to_string(w.revision)}};
    if (!ns.empty()) meta["namespace"] = so->ns;
    so->json = json::serialize(json::object{{"metadata", std::move(meta)}});
    return {CommitStatus::Ok, so};
  }
  std::string key = object_key(ns, name);
  std::unique_lock l(mu_);
  auto& t = table(resource);
  auto it = t.objects.find(key);
  if (it == t.objects.end()) return {CommitStatus::NotFound, nullptr};
  if (expected_rv != 0 && it->second->rv != expected_rv) return {CommitStatus::Changed, it->second};
  std::int64_t rv = ++revision_;
  ObjPtr prev = it->second;
  ObjPtr final_state;
  if (last) {
    splice_rv(p, rv, *last);
    final_state = p.obj;
  } else {
    final_state = prev;
  }
  t.objects.erase(it);
  t.pending_deletions.erase(key);
  record(Event{rv, resource, EventType::Deleted, final_state, prev});
  return {CommitStatus::Ok, final_state};
}

void Store::record(Event ev) {
  table(ev.resource).last_change.store(ev.rv, std::memory_order_release);
  if (log_) {
    thread_commit = ev.rv;
    log_->append(ev);
  } else {
    fan_out(ev);
    published_ = ev.rv;
  }
  history_.push_back(std::move(ev));
  // Unpublished events stay: publish() still has to hand them to the watchers.
  while (history_.size() > history_limit_ && history_.front().rv <= published_) {
    compacted_ = history_.front().rv;
    history_.pop_front();
  }
}

void Store::fan_out(const Event& ev) {
  auto& t = table(ev.resource);
  for (std::size_t i = 0; i < t.watchers.size();) {
    if (t.watchers[i]->closed()) {
      t.watchers[i] = t.watchers.back();
      t.watchers.pop_back();
      continue;
    }
    t.watchers[i]->offer(ev);
    ++i;
  }
}

void Store::set_log(CommitLog* log) {
  std::unique_lock l(mu_);
  log_ = log;
  // Changes appended before a detach have no one left to publish them.
  if (!log_) {
    for (const auto& ev : history_)
      if (ev.rv > published_) fan_out(ev);
    published_ = revision_;
  }
}

void Store::when_durable(std::int64_t rv, std::function<void()> fn) {
  if (external_) {
    {
      std::unique_lock l(mu_);
      if (rv > published_) {
        waiters_.emplace(rv, std::move(fn));
        return;
      }
    }
    return fn();
  }
  CommitLog* log = nullptr;
  {
    std::shared_lock l(mu_);
    if (rv > published_) log = log_;
  }
  if (!log) return fn();
  log->when_durable(rv, std::move(fn));
}

void Store::publish(std::int64_t rv) {
  std::unique_lock l(mu_);
  rv = std::min(rv, revision_);
  if (rv <= published_) return;
  // Nothing unpublished is dropped from history.
  for (std::size_t i = history_index_after(published_); i < history_.size() && history_[i].rv <= rv; ++i) fan_out(history_[i]);
  published_ = rv;
  while (history_.size() > history_limit_ && history_.front().rv <= published_) {
    compacted_ = history_.front().rv;
    history_.pop_front();
  }
}

util::Result<void> Store::restore(int resource, std::string_view text, std::int64_t delete_deadline) {
  json::value v;
  try {
    v = json::parse(text);
  } catch (const std::exception& e) {
    return util::make_error(std::string("object is not JSON: ") + e.what());
  }
  if (!v.is_object()) return util::make_error("object is not a JSON object");
  json::object& obj = v.get_object();
  auto so = std::make_shared<StoredObject>();
  auto* meta = obj.if_contains("metadata");
  if (!meta || !meta->is_object()) return util::make_error("object has no metadata");
  index_object(resource, obj, meta->get_object(), *so);
  std::string rv_text = str_of(meta->get_object(), "resourceVersion");
  try {
    so->rv = std::stoll(rv_text);
  } catch (...) {
    return util::make_error("object " + so->name + " has no resourceVersion");
  }
  so->json = std::string(text);
  so->delete_deadline = delete_deadline;
  std::string key = object_key(so->ns, so->name);
  std::unique_lock l(mu_);
  auto& t = table(resource);
  if (delete_deadline)
    t.pending_deletions[key] = delete_deadline;
  else
    t.pending_deletions.erase(key);
  t.last_change.store(std::max(t.last_change.load(std::memory_order_relaxed), so->rv), std::memory_order_release);
  t.objects[key] = std::move(so);
  return {};
}

void Store::finish_restore(std::int64_t revision) {
  std::unique_lock l(mu_);
  history_.clear();
  revision_ = published_ = compacted_ = revision;
}

Store::State Store::state() const {
  std::shared_lock l(mu_);
  State s;
  s.revision = revision_;
  for (std::size_t r = 0; r < tables_.size(); ++r)
    for (const auto& [k, o] : tables_[r].objects) s.objects.emplace_back(static_cast<int>(r), o);
  return s;
}

std::map<std::string, ObjPtr, std::less<>> Store::undo_after(int resource, std::int64_t at) const {
  std::map<std::string, ObjPtr, std::less<>> overrides;
  for (auto it = history_.rbegin(); it != history_.rend() && it->rv > at; ++it) {
    if (it->resource != resource) continue;
    const auto& o = it->prev ? it->prev : it->obj;
    overrides[object_key(o->ns, o->name)] = it->prev;
  }
  return overrides;
}

util::Result<Store::ListResult> Store::list(int resource, const ListOptions& opts) const {
  std::shared_lock l(mu_);
  auto& t = table(resource);
  ListResult res;
  std::int64_t at = opts.at_rv && opts.at_rv < published_ ? opts.at_rv : published_;
  if (at < compacted_) return util::make_error("too old");
  res.rv = at;
  // State at `at` = current state with every newer event undone.
  std::map<std::string, ObjPtr, std::less<>> overrides;
  if (at < revision_) overrides = undo_after(resource, at);
  std::string prefix = opts.ns.empty() ? std::string() : std::string(opts.ns) + "/";
  auto in_range = [&](const std::string& k) { return prefix.empty() || k.compare(0, prefix.size(), prefix) == 0; };
  auto start = [&](const auto& m) {
    auto it = m.lower_bound(prefix);
    if (!opts.start_after.empty() && opts.start_after >= prefix) it = m.upper_bound(opts.start_after);
    return it;
  };
  const auto& objs = t.objects;
  const auto& ovs = overrides;
  auto a = start(objs), ae = objs.end();
  auto b = start(ovs), be = ovs.end();
  bool full = false;
  std::string last_key;
  while (true) {
    bool a_ok = a != ae && in_range(a->first);
    bool b_ok = b != be && in_range(b->first);
    if (!a_ok && !b_ok) break;
    const std::string* key;
    ObjPtr obj;
    if (b_ok && (!a_ok || b->first <= a->first)) {
      if (a_ok && a->first == b->first) ++a;
      key = &b->first;
      obj = b->second;
      ++b;
    } else {
      key = &a->first;
      obj = a->second;
      ++a;
    }
    if (!obj) continue;
    if (opts.labels && !opts.labels->matches(obj->labels)) continue;
    if (opts.fields && !opts.fields->matches(obj->fields)) continue;
    if (full) {
      res.next_key = last_key;
      break;
    }
    res.items.push_back(std::move(obj));
    if (opts.limit && res.items.size() >= opts.limit) {
      full = true;
      last_key = *key;
    }
  }
  if (!res.next_key.empty() && !opts.labels && !opts.fields && overrides.empty()) {
    // Without selectors the remainder is countable cheaply.
    std::size_t total = 0;
    for (auto it = t.objects.upper_bound(res.next_key); it != t.objects.end() && in_range(it->first); ++it) ++total;
    res.remaining = static_cast<std::int64_t>(total);
  }
  return res;
}

util::Result<void> Store::watch(const std::shared_ptr<Watcher>& w, std::int64_t from_rv, bool initial,
                                bool initial_end_bookmark) {
  std::unique_lock l(mu_);
  auto& t = table(w->resource());
  if (initial) {
    // The state at the published revision: newer changes reach the watcher when published.
    auto overrides = published_ < revision_ ? undo_after(w->resource(), published_)
                                            : std::map<std::string, ObjPtr, std::less<>>{};
    auto added = [&](const ObjPtr& o) {
      if (!o || !w->matches(*o)) return;
      w->raise_limit(1);
      w->push(WatchItem{WatchItem::Kind::Added, o, o->rv});
    };
    for (const auto& [k, o] : t.objects)
      if (!overrides.count(k)) added(o);
    for (const auto& [k, o] : overrides) added(o);
    if (initial_end_bookmark) w->push(WatchItem{WatchItem::Kind::InitialEnd, nullptr, published_});
  } else {
    if (from_rv < compacted_)
      return util::make_error("too old resource version: " + std::to_string(from_rv) + " (" +
                              std::to_string(compacted_ + 1) + ")");
    for (std::size_t i = history_index_after(from_rv); i < history_.size() && history_[i].rv <= published_; ++i) {
      if (history_[i].resource != w->resource()) continue;
      w->offer(history_[i]);
    }
  }
  t.watchers.push_back(w);
  return {};
}

void Store::unwatch(const Watcher* w) {
  std::unique_lock l(mu_);
  for (auto& t : tables_) {
    for (std::size_t i = 0; i < t.watchers.size(); ++i) {
      if (t.watchers[i].get() == w) {
        t.watchers[i] = t.watchers.back();
        t.watchers.pop_back();
        return;
      }
    }
  }
}

void Store::bookmark(Watcher& w) {
  std::shared_lock l(mu_);
  if (published_ > w.last_rv()) w.push(WatchItem{WatchItem::Kind::Bookmark, nullptr, published_});
}

void Store::compact(std::int64_t revision) {
  std::unique_lock l(mu_);
  revision = std::min(revision, published_);
  while (!history_.empty() && history_.front().rv <= revision) {
    compacted_ = history_.front().rv;
    history_.pop_front();
  }
  if (history_.empty() && revision > compacted_) compacted_ = revision;
}

std::vector<ObjPtr> Store::expired_deletions(int resource, std::int64_t now_unix) const {
  std::vector<ObjPtr> out;
  std::shared_lock l(mu_);
  auto& t = table(resource);
  for (const auto& [k, deadline] : t.pending_deletions) {
    if (deadline > now_unix) continue;
    auto it = t.objects.find(k);
    if (it != t.objects.end()) out.push_back(it->second);
  }
  return out;
}

}  // namespace ksched::apiserver

namespace ksched::apiserver {

void Store::track_deletion(Table& t, const std::string& key, const StoredObject& now, const ObjPtr& prev) {
  if (now.delete_deadline)
    t.pending_deletions[key] = now.delete_deadline;
  else if (prev && prev->delete_deadline)
    t.pending_deletions.erase(key);
}

std::size_t Store::history_index_after(std::int64_t rv) const {
  auto it = std::upper_bound(history_.begin(), history_.end(), rv,
                             [](std::int64_t v, const Event& e) { return v < e.rv; });
  return static_cast<std::size_t>(it - history_.begin());
}

// ---------------------------------------------------------------- external mode

void Store::set_external(ExternalStorage* ext) {
  std::multimap<std::int64_t, std::function<void()>> dropped;
  {
    std::unique_lock l(mu_);
    external_ = ext;
    if (!ext) dropped.swap(waiters_);  // their answers have no one left to wait for
  }
}

Store::Commit Store::put_external(int resource, std::shared_ptr<StoredObject> obj, std::size_t marker_pos,
                                  json::object& json, std::int64_t expected_rv) {
  // The database keeps the object without a resourceVersion: its revision is the key's own.
  std::string value = obj->json;
  if (marker_pos != std::string::npos) value.replace(marker_pos, kRvMarker.size(), "\"\"");
  auto w = external_->put(resource, obj->ns, obj->name, value, expected_rv);
  if (!w.ok) return write_conflict(resource, obj->ns, obj->name, expected_rv, w);
  Prepared p{obj, marker_pos};
  splice_rv(p, w.revision, json);
  {
    std::unique_lock l(mu_);
    // The watch brings the change back; until then the answer waits (thread_commit).
    if (w.revision > published_) own_writes_[w.revision] = {resource, obj};
  }
  thread_commit = w.revision;
  return {CommitStatus::Ok, std::move(obj)};
}

Store::Commit Store::write_conflict(int resource, std::string_view ns, std::string_view name, std::int64_t expected_rv,
                                    const ExternalStorage::Write& w) {
  if (w.current_rv == 0) return {CommitStatus::NotFound, nullptr};
  // Callers re-read the store and retry, so it must first hold the state the database compared
  // with. (Not the revision the database answered at: that may be a change outside the watched
  // prefix, which the watch never brings.)
  if (!wait_for_revision(w.current_rv, std::chrono::seconds(10)))
    throw StorageError("the store's watch on the database is behind revision " + std::to_string(w.current_rv));
  ObjPtr cur = get(resource, ns, name);
  if (expected_rv == 0) return {CommitStatus::AlreadyExists, cur};
  return {CommitStatus::Changed, cur};
}

void Store::set_published(std::int64_t rv) {
  if (rv > published_) revision_ = published_ = rv;
}

void Store::run_due_waiters() {
  std::vector<std::function<void()>> due;
  {
    std::unique_lock l(mu_);
    auto end = waiters_.upper_bound(published_);
    for (auto it = waiters_.begin(); it != end; ++it) due.push_back(std::move(it->second));
    waiters_.erase(waiters_.begin(), end);
  }
  for (auto& fn : due) fn();
  std::lock_guard l(applied_mu_);
  applied_cv_.notify_all();
}

std::vector<std::string> Store::apply_external(std::vector<ExternalChange>& changes, std::int64_t revision) {
  std::vector<std::string> skipped;
  // Objects this server wrote are kept as they were sent; the rest are decoded outside the lock.
  std::vector<ObjPtr> objs(changes.size());
  {
    std::unique_lock l(mu_);
    for (std::size_t i = 0; i < changes.size(); ++i) {
      const auto& c = changes[i];
      auto it = own_writes_.find(c.rv);
      if (c.deleted || it == own_writes_.end()) continue;
      const auto& [res, o] = it->second;
      if (res == c.resource && o->ns == c.ns && o->name == c.name) objs[i] = o;
      own_writes_.erase(it);
    }
  }
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const auto& c = changes[i];
    if (c.deleted || objs[i]) continue;
    auto o = decode_external(c.resource, c.value, c.rv);
    if (!o) {
      // Not ours to repair: another writer put it there. Leaving it out is all that is safe.
      skipped.push_back(resource_by_id(c.resource).plural + " " + object_key(c.ns, c.name) + " at revision " +
                        std::to_string(c.rv) + ": " + o.error());
      continue;
    }
    objs[i] = std::move(*o);
  }
  {
    std::unique_lock l(mu_);
    for (std::size_t i = 0; i < changes.size(); ++i) {
      const auto& c = changes[i];
      if (c.rv < published_) continue;  // already applied
      auto& t = table(c.resource);
      std::string key = object_key(c.ns, c.name);
      auto it = t.objects.find(key);
      if (c.deleted) {
        if (it == t.objects.end()) {
          set_published(c.rv);
          continue;
        }
        ObjPtr prev = it->second;
        t.objects.erase(it);
        t.pending_deletions.erase(key);
        revision_ = c.rv;
        record(Event{c.rv, c.resource, EventType::Deleted, restamped(prev, c.rv), prev});
        continue;
      }
      if (!objs[i]) {
        set_published(c.rv);
        continue;
      }
      ObjPtr prev;
      if (it == t.objects.end()) {
        t.objects.emplace(key, objs[i]);
      } else {
        prev = it->second;
        it->second = objs[i];
      }
      track_deletion(t, key, *objs[i], prev);
      revision_ = c.rv;
      record(Event{c.rv, c.resource, prev ? EventType::Modified : EventType::Added, objs[i], prev});
    }
    set_published(revision);
    own_writes_.erase(own_writes_.begin(), own_writes_.upper_bound(published_));
  }
  run_due_waiters();
  return skipped;
}

util::Result<void> Store::reset_external(std::vector<ExternalChange>& objects, std::int64_t revision) {
  std::vector<ObjPtr> decoded;
  decoded.reserve(objects.size());
  for (const auto& c : objects) {
    auto o = decode_external(c.resource, c.value, c.rv);
    if (!o)
      return util::make_error("the database's " + resource_by_id(c.resource).plural + " object " +
                              object_key(c.ns, c.name) + ": " + o.error());
    decoded.push_back(std::move(*o));
  }
  {
    std::unique_lock l(mu_);
    for (auto& t : tables_) {
      t.objects.clear();
      t.pending_deletions.clear();
      for (auto& w : t.watchers) w->close();
      t.watchers.clear();
      t.last_change.store(revision, std::memory_order_release);  // caches built from the old state must rebuild
    }
    for (std::size_t i = 0; i < objects.size(); ++i) {
      auto& t = table(objects[i].resource);
      std::string key = object_key(decoded[i]->ns, decoded[i]->name);
      if (decoded[i]->delete_deadline) t.pending_deletions[key] = decoded[i]->delete_deadline;
      t.objects[key] = std::move(decoded[i]);
    }
    history_.clear();
    own_writes_.clear();
    revision_ = published_ = compacted_ = revision;
  }
  run_due_waiters();
  return {};
}

void Store::sync_for_read() {
  if (external_) external_->sync();
}

bool Store::catch_up(std::int64_t rv, std::chrono::milliseconds timeout) {
  if (!external_) return revision() >= rv;
  return external_->reach(rv, timeout);
}

bool Store::wait_for_revision(std::int64_t rv, std::chrono::milliseconds timeout) {
  std::unique_lock l(applied_mu_);
  return applied_cv_.wait_for(l, timeout, [&] { return revision() >= rv; });
}

}  // namespace ksched::apiserver
