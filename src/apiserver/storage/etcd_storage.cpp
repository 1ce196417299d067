#include "apiserver/storage/etcd_storage.h"

#include "apiserver/resources.h"
#include "util/log.h"

namespace ksched::apiserver {

namespace {
constexpr std::int64_t kPageSize = 1000;

std::string resource_path(const ResourceInfo& r) { return r.group.empty() ? r.plural : r.group + "/" + r.plural; }
}  // namespace

EtcdStorage::EtcdStorage(Store& store, Options opts, std::unique_ptr<etcd::Client> client)
    : store_(store), opts_(std::move(opts)), client_(std::move(client)) {
  while (opts_.prefix.size() > 1 && opts_.prefix.back() == '/') opts_.prefix.pop_back();
  root_ = opts_.prefix == "/" ? "/" : opts_.prefix + "/";
  for (const auto& r : all_resources())
    if (!r.create_only && r.storage == r.id) path_to_resource_.emplace(resource_path(r), r.id);
}

util::Result<std::unique_ptr<EtcdStorage>> EtcdStorage::open(Store& store, Options opts) {
  if (opts.prefix.empty() || opts.prefix.front() != '/')
    return util::make_error("--etcd-prefix must start with '/', got \"" + opts.prefix + "\"");
  auto client = etcd::Client::connect(opts.etcd);
  if (!client) return util::make_error(client.error());
  std::unique_ptr<EtcdStorage> s(new EtcdStorage(store, std::move(opts), std::move(*client)));
  auto rev = s->load();
  if (!rev) return util::make_error(rev.error());
  s->loaded_revision_ = *rev;
  s->next_revision_ = *rev + 1;
  store.set_external(s.get());
  s->follower_ = std::thread([p = s.get()] { p->follow(); });
  if (s->opts_.compaction_interval.count() > 0) s->compactor_ = std::thread([p = s.get()] { p->compact_periodically(); });
  return s;
}

EtcdStorage::~EtcdStorage() {
  {
    std::lock_guard l(mu_);
    stopping_ = true;
    if (watch_) watch_->cancel();
  }
  cv_.notify_all();
  if (follower_.joinable()) follower_.join();
  if (compactor_.joinable()) compactor_.join();
  store_.set_external(nullptr);
}

std::string EtcdStorage::key_of(int resource, std::string_view ns, std::string_view name) const {
  std::string k = root_ + resource_path(resource_by_id(resource)) + "/";
  if (!ns.empty()) k.append(ns).append("/");
  k.append(name);
  return k;
}

bool EtcdStorage::parse_key(std::string_view key, Store::ExternalChange& into) const {
  if (!key.starts_with(root_)) return false;
  key.remove_prefix(root_.size());
  // "<plural>/..." or "<group>/<plural>/...": no core plural is also a group name.
  auto s1 = key.find('/');
  if (s1 == std::string_view::npos) return false;
  auto it = path_to_resource_.find(std::string(key.substr(0, s1)));
  std::string_view rest = key.substr(s1 + 1);
  if (it == path_to_resource_.end()) {
    auto s2 = rest.find('/');
    if (s2 == std::string_view::npos) return false;
    it = path_to_resource_.find(std::string(key.substr(0, s1 + 1 + s2)));
    if (it == path_to_resource_.end()) return false;
    rest = rest.substr(s2 + 1);
  }
  const auto& r = resource_by_id(it->second);
  into.resource = it->second;
  if (r.namespaced) {
    auto s = rest.find('/');
    if (s == std::string_view::npos || s == 0) return false;
    into.ns = std::string(rest.substr(0, s));
    rest = rest.substr(s + 1);
  } else {
    into.ns.clear();
  }
  if (rest.empty() || rest.find('/') != std::string_view::npos) return false;
  into.name = std::string(rest);
  return true;
}

ExternalStorage::Write EtcdStorage::put(int resource, std::string_view ns, std::string_view name, std::string_view value,
                                        std::int64_t expected_rv) {
  auto w = client_->put_if(key_of(resource, ns, name), value, expected_rv);
  if (!w) throw StorageError(w.error());
  return Write{w->succeeded, w->revision, w->current ? w->current->mod_revision : 0};
}

ExternalStorage::Write EtcdStorage::remove(int resource, std::string_view ns, std::string_view name,
                                           std::int64_t expected_rv) {
  auto w = client_->delete_if(key_of(resource, ns, name), expected_rv);
  if (!w) throw StorageError(w.error());
  return Write{w->succeeded, w->revision, w->current ? w->current->mod_revision : 0};
}

void EtcdStorage::sync() {
  auto rev = client_->current_revision();
  if (!rev) throw StorageError(rev.error());
  if (!reach(*rev, opts_.etcd.request_timeout))
    throw StorageError("the store's watch on etcd did not reach revision " + std::to_string(*rev));
}

bool EtcdStorage::reach(std::int64_t rv, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!store_.wait_for_revision(rv, std::chrono::milliseconds(50))) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    // etcd answers a progress request only once the watch has caught up, so it is asked again.
    std::lock_guard l(mu_);
    if (watch_) watch_->request_progress();
  }
  return true;
}

util::Result<std::int64_t> EtcdStorage::load() {
  std::vector<Store::ExternalChange> objects;
  std::int64_t at = 0;
  std::string start;
  while (true) {
    auto page = client_->range(root_, start, kPageSize, at);
    if (!page) return util::make_error(page.error());
    if (at == 0) at = page->revision;  // every later page reads the same revision
    for (auto& kv : page->kvs) {
      Store::ExternalChange c;
      if (!parse_key(kv.key, c)) continue;
      c.rv = kv.mod_revision;
      c.value = std::move(kv.value);
      objects.push_back(std::move(c));
    }
    if (!page->more || page->kvs.empty()) break;
    start = page->kvs.back().key + std::string(1, '\0');
  }
  loaded_objects_ = objects.size();
  if (auto r = store_.reset_external(objects, at); !r) return util::make_error(r.error());
  return at;
}

bool EtcdStorage::pause(std::chrono::milliseconds d) {
  std::unique_lock l(mu_);
  cv_.wait_for(l, d, [&] { return stopping_; });
  return !stopping_;
}

void EtcdStorage::follow() {
  auto backoff = std::chrono::milliseconds(100);
  while (true) {
    {
      std::lock_guard l(mu_);
      if (stopping_) return;
    }
    auto opened = client_->watch(root_, next_revision_);
    if (!opened) {
      log::warning("etcd watch could not start; retrying", {{"err", opened.error()}, {"from", next_revision_}});
      if (!pause(backoff)) return;
      backoff = std::min(backoff * 2, std::chrono::milliseconds(5000));
      continue;
    }
    std::unique_ptr<etcd::Watch> w = std::move(*opened);
    {
      std::lock_guard l(mu_);
      if (stopping_) return;
      watch_ = w.get();
    }
    bool relist = false;
    while (true) {
      auto n = w->next();
      if (n.status == etcd::Watch::Status::Batch) {
        backoff = std::chrono::milliseconds(100);
        std::vector<Store::ExternalChange> changes;
        changes.reserve(n.batch.events.size());
        std::int64_t upto = 0;
        for (auto& ev : n.batch.events) {
          upto = std::max(upto, ev.kv.mod_revision);
          Store::ExternalChange c;
          if (!parse_key(ev.kv.key, c)) continue;
          c.rv = ev.kv.mod_revision;
          c.deleted = ev.deleted;
          c.value = std::move(ev.kv.value);
          changes.push_back(std::move(c));
        }
        // Events carry their own revisions; only an empty message (a progress notification)
        // says that everything up to the header's revision has been sent.
        if (n.batch.events.empty()) upto = n.batch.revision;
        for (const auto& bad : store_.apply_external(changes, upto))
          log::error("skipping a value etcd holds that is not an object", {{"object", bad}});
        next_revision_ = std::max(next_revision_, upto + 1);
        continue;
      }
      if (n.status == etcd::Watch::Status::Compacted) {
        log::warning("etcd compacted past this server's watch; reloading every object",
                  {{"from", next_revision_}, {"compactedTo", n.compact_revision}});
        relist = true;
      } else {
        std::lock_guard l(mu_);
        if (!stopping_)
          log::warning("etcd watch ended; resuming", {{"err", n.error}, {"from", next_revision_}});
      }
      break;
    }
    {
      std::lock_guard l(mu_);
      watch_ = nullptr;
      if (stopping_) return;
    }
    w.reset();
    if (relist) {
      auto rev = load();
      if (!rev) {
        log::warning("etcd reload failed; retrying", {{"err", rev.error()}});
        if (!pause(backoff)) return;
        continue;
      }
      next_revision_ = *rev + 1;
      continue;
    }
    if (!pause(backoff)) return;
    backoff = std::min(backoff * 2, std::chrono::milliseconds(5000));
  }
}

void EtcdStorage::compact_periodically() {
  const std::string key = opts_.prefix + "_compact_rev_key";
  std::int64_t version = 0;  // the compaction key's version as this server last saw it
  std::int64_t last = 0;     // the revision of the key's last write, by whichever server
  while (pause(opts_.compaction_interval)) {
    // The write that wins this interval compacts to the previous interval's write; the value says
    // which revision that was.
    auto w = client_->put_if_version(key, std::to_string(last), version);
    if (!w) {
      log::warning("etcd compaction skipped", {{"err", w.error()}});
      continue;
    }
    if (!w->succeeded) {
      // Another server won this interval: follow it.
      version = w->current ? w->current->version : 0;
      last = w->current ? w->current->mod_revision : 0;
      continue;
    }
    ++version;
    if (last > 0) {
      if (auto r = client_->compact(last); !r)
        log::warning("etcd compaction failed", {{"err", r.error()}, {"revision", last}});
      else
        log::info("etcd compacted", {{"revision", last}});
    }
    last = w->revision;
  }
}

}  // namespace ksched::apiserver
