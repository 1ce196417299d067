// A client for etcd's v3 gRPC API, as the API server's etcd storage mode needs it: ranges over a
// key prefix, single-key writes guarded by the key's modification revision (a transaction), a
// prefix watch with progress notifications, and compaction. Generated protobuf types stay inside
// client.cpp; callers see plain structs.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace ksched::etcd {

struct Options {
  // Client URLs: http://host:port or https://host:port (all of one scheme). Requests go to any
  // reachable member; a member that dies is left for the others.
  std::vector<std::string> endpoints;
  std::string ca_file, cert_file, key_file;  // TLS: the CA to trust, and a client certificate
  std::chrono::milliseconds request_timeout{10000};
};

struct KeyValue {
  std::string key;
  std::string value;
  std::int64_t create_revision = 0;
  std::int64_t mod_revision = 0;
  std::int64_t version = 0;
};

struct WatchEvent {
  bool deleted = false;
  KeyValue kv;  // for a delete: the key and the deletion revision as mod_revision
};

// One message of a watch stream: events (in revision order), or a progress notification that
// says every change up to `revision` has been sent.
struct WatchBatch {
  std::int64_t revision = 0;
  std::vector<WatchEvent> events;
};

class Watch;

class Client {
 public:
  // Checks the options and makes the channel; no request is sent yet.
  static util::Result<std::unique_ptr<Client>> connect(const Options& opts);
  ~Client();

  struct Range {
    std::vector<KeyValue> kvs;
    std::int64_t revision = 0;  // the store's revision the range was read at
    bool more = false;
  };
  // Keys with `prefix`, from `start` (inclusive; "" = the prefix's first), at most `limit`
  // (0 = all), read at `revision` (0 = newest).
  util::Result<Range> range(std::string_view prefix, std::string_view start, std::int64_t limit,
                            std::int64_t revision);

  struct Write {
    bool succeeded = false;
    std::int64_t revision = 0;  // success: the write's revision; failure: the revision read at
    std::optional<KeyValue> current;  // failure: the key's state then (none: absent)
  };
  // Puts `value` if the key's mod revision is `expected` (0: the key must not exist).
  util::Result<Write> put_if(std::string_view key, std::string_view value, std::int64_t expected);
  // Deletes the key if its mod revision is `expected` (0: whatever it is, if it exists).
  util::Result<Write> delete_if(std::string_view key, std::int64_t expected);
  // Puts `value` if the key's version (its count of writes since creation) is `version`.
  util::Result<Write> put_if_version(std::string_view key, std::string_view value, std::int64_t version);
  util::Result<KeyValue> get(std::string_view key);  // all revisions 0 when absent
  // etcd's current revision, read through the cluster's quorum (linearizable).
  util::Result<std::int64_t> current_revision();
  // Compacts history up to `revision`; an already compacted revision is not an error.
  util::Result<void> compact(std::int64_t revision);

  // A watch over `prefix` from `start_revision` with progress notifications; it opens on the first
  // next(), so it can be cancelled from another thread before then.
  util::Result<std::unique_ptr<Watch>> watch(std::string_view prefix, std::int64_t start_revision);

  struct Impl;

 private:
  explicit Client(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

class Watch {
 public:
  ~Watch();
  enum class Status { Batch, Compacted, Failed };
  struct Next {
    Status status = Status::Failed;
    WatchBatch batch;                 // Batch
    std::int64_t compact_revision = 0;  // Compacted: the oldest revision still kept
    std::string error;                // Failed
  };
  // Blocks for the next message. After Compacted or Failed the stream is over.
  Next next();
  // Ends the stream from another thread; a blocked next() returns Failed.
  void cancel();
  // Asks etcd for a progress notification (from any thread, while next() runs in another); false
  // when the stream is not open.
  bool request_progress();

  struct Impl;
  explicit Watch(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

// The end of the key range holding every key that starts with `prefix`.
std::string prefix_end(std::string_view prefix);

}  // namespace ksched::etcd
