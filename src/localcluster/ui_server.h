// The local cluster's web page (`ksched up`): nodes with their load and pods, pending pods with the
// scheduler's reason, and for any pod its explanation table (src/scheduler/explain). Plain HTML and
// JavaScript compiled into the binary, no external assets; plain HTTP on a loopback address, for
// the person running the cluster.
//
// Data comes from a scheduler of its own that never schedules (informers and cache only, the path
// `ksched explain` takes), so explaining a pod never touches the running scheduler's loop.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "client/config.h"
#include "util/result.h"

namespace ksched::localcluster {

class UiServer {
 public:
  // `listen` is host:port (port 0 picks a free one); `rest` reaches the cluster's API server.
  static util::Result<std::unique_ptr<UiServer>> start(const std::string& listen, const client::RestConfig& rest);
  ~UiServer();
  void stop();
  std::string url() const;  // http://host:port/

  // What the page fetches, for tests: GET path?query -> (status, body).
  struct Response {
    int status;
    std::string content_type;
    std::string body;
  };
  Response handle(const std::string& path, const std::string& query);

  struct Impl;

 private:
  explicit UiServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ksched::localcluster
