// A single-member etcd (Debian's /usr/bin/etcd) started on free loopback ports in a directory of
// its own, for benchmarks and tests that need a real etcd; stopped (SIGTERM, then reaped) when
// destroyed. Its own output goes to DIR/etcd.log.
#pragma once
#include <sys/types.h>

#include <memory>
#include <string>

#include "util/result.h"

namespace ksched::etcd {

class LocalEtcd {
 public:
  static constexpr const char* kBinary = "/usr/bin/etcd";
  static bool installed();
  // PEM files for serving clients over TLS and requiring their certificates (signed by ca_file).
  struct Tls {
    std::string ca_file, cert_file, key_file;
  };
  // Starts etcd with its data in DIR/data and waits (up to 30 s) until it answers. With `tls`, its
  // client URL is https:// and clients must present a certificate signed by the CA; the readiness
  // check uses `tls`'s own pair.
  static util::Result<std::unique_ptr<LocalEtcd>> start(const std::string& dir, const Tls* tls = nullptr);
  ~LocalEtcd();
  LocalEtcd(const LocalEtcd&) = delete;
  LocalEtcd& operator=(const LocalEtcd&) = delete;

  const std::string& url() const { return url_; }  // http(s)://127.0.0.1:PORT
  pid_t pid() const { return pid_; }
  // CPU seconds (user + system) the etcd process has used so far.
  double cpu_seconds() const;

 private:
  LocalEtcd() = default;
  pid_t pid_ = 0;
  std::string url_;
};

}  // namespace ksched::etcd
