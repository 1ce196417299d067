// The API server's etcd mode: etcd holds the objects, and each server's Store is a cache of it
// that serves every read and watch.
//
// - Writes are etcd transactions guarded by the key's mod revision (the object's resourceVersion),
//   so two servers on one etcd cannot overwrite each other's changes: the loser gets a conflict
//   and retries from the newer state, as upstream's GuaranteedUpdate does.
// - One etcd watch over the prefix, with progress notifications, feeds the Store
//   (Store::apply_external); a write's answer waits until the watch has brought its revision back,
//   so a client reads its own writes from the server that answered.
// - Keys: PREFIX/<plural>/<namespace>/<name> for the core group, PREFIX/<group>/<plural>/... for the
//   others; values are the objects' JSON without resourceVersion (etcd's mod revision is it).
// - Compaction without leases, as upstream's compactor: every interval the servers race a
//   transaction on PREFIX_compact_rev_key; the winner compacts etcd to the revision of the key's
//   previous write, an interval before, so one interval of history stays for watches to resume from.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "apiserver/storage/storage.h"
#include "etcd/client.h"
#include "util/result.h"

namespace ksched::etcd {
class Watch;
}

namespace ksched::apiserver {

class EtcdStorage : public ExternalStorage {
 public:
  struct Options {
    etcd::Options etcd;
    std::string prefix = "/registry";
    std::chrono::milliseconds compaction_interval{std::chrono::minutes(5)};  // 0 = never
  };
  // Connects, loads every object into `store` and starts following etcd's changes.
  static util::Result<std::unique_ptr<EtcdStorage>> open(Store& store, Options opts);
  ~EtcdStorage() override;  // stops following; the store keeps what it holds

  Write put(int resource, std::string_view ns, std::string_view name, std::string_view value,
            std::int64_t expected_rv) override;
  Write remove(int resource, std::string_view ns, std::string_view name, std::int64_t expected_rv) override;
  // etcd's current revision (a quorum read), then a wait until the watch has brought it; the watch
  // is asked for progress notifications meanwhile, since changes outside the prefix raise etcd's
  // revision without an event.
  void sync() override;
  bool reach(std::int64_t rv, std::chrono::milliseconds timeout) override;

  std::string key_of(int resource, std::string_view ns, std::string_view name) const;
  // False for a key that names no resource this server knows (left alone).
  bool parse_key(std::string_view key, Store::ExternalChange& into) const;
  std::int64_t loaded_revision() const { return loaded_revision_; }
  std::size_t loaded_objects() const { return loaded_objects_; }

 private:
  EtcdStorage(Store& store, Options opts, std::unique_ptr<etcd::Client> client);
  util::Result<std::int64_t> load();  // every object at one revision into the store
  void follow();                      // the watch thread
  void compact_periodically();        // the compactor thread
  bool pause(std::chrono::milliseconds d);  // false once stopping

  Store& store_;
  Options opts_;
  std::unique_ptr<etcd::Client> client_;
  std::string root_;  // prefix + "/"
  std::unordered_map<std::string, int> path_to_resource_;
  std::int64_t loaded_revision_ = 0;
  std::size_t loaded_objects_ = 0;
  std::int64_t next_revision_ = 0;  // the watch resumes here

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  etcd::Watch* watch_ = nullptr;  // the open stream, cancelled on stop
  std::thread follower_, compactor_;
};

}  // namespace ksched::apiserver
