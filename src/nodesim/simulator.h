// Kubelet stand-in for simulated nodes: a client of any API server that keeps nodes labelled
// type=simulated Ready (a low-rate Ready heartbeat), moves pods bound to them to Running through
// pods/status (conditions, podIP from a per-node range, hostIP, startTime, running container
// statuses), and completes graceful deletion of their pods (DELETE with gracePeriodSeconds=0).
// Work is keyed in a de-duplicating work queue served by a small worker pool, so thousands of
// pods per second never block the informers.
#pragma once
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "client/rest.h"

namespace ksched::nodesim {

struct Options {
  std::string node_selector = "type=simulated";  // label selector of the nodes this simulator runs
  int workers = 8;
  std::chrono::milliseconds heartbeat_period = std::chrono::seconds(40);
  std::string pod_cidr_prefix = "10.";  // node i gets 10.<hi>.<lo>.0/24 unless it has spec.podCIDR
};

struct Stats {
  std::uint64_t pods_started = 0;
  std::uint64_t pods_deleted = 0;
  std::uint64_t node_heartbeats = 0;
  std::uint64_t errors = 0;
};

class Simulator {
 public:
  Simulator(std::shared_ptr<client::RestClient> client, Options opts = {});
  ~Simulator();
  void start();
  void stop();
  // True once the node and pod caches synced.
  bool synced() const;
  Stats stats() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ksched::nodesim
