// The local cluster's web page (`ksched up`), live: nodes with their labels, taints, allocatable and
// requested resources, pending pods with the scheduler's reason, and for any pod its explanation
// table (src/scheduler/explain). Plain HTML and JavaScript compiled into the binary (ui_page.h), no
// external assets; plain HTTP on a loopback address, for the person running the cluster.
//
//   GET /             the page
//   GET /api/events   Server-Sent Events: `snapshot` (every node and pod), then `delta` (what changed,
//                     coalesced over 200 ms; see UiState); a page too far behind is dropped and its
//                     EventSource reconnects to a fresh snapshot
//   GET /api/cluster  the snapshot alone, as JSON
//   GET /api/explain?pod=namespace/name   one scheduling cycle for the pod, explained, not bound
//
// The view comes from the server's own informers (nodes, pods) feeding a UiState. Explanations come
// from a scheduler of its own that never schedules (informers and cache only, the path
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
