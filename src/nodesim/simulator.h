// Kubelet stand-in for simulated nodes: a client of any API server that does for the nodes
// labelled type=simulated what their kubelets would.
//  - Nodes: the kubelet's labels (kubernetes.io/hostname, kubernetes.io/os, kubernetes.io/arch,
//    and topology.kubernetes.io/zone and region when configured; labels the node template already
//    sets are kept), the Ready condition (at start, then every heartbeat_period), and a Lease in
//    kube-node-lease per node renewed every 10 s for 40 s, owned by its Node.
//  - Pods bound to them: Running with IPs, conditions and running container statuses; then, for
//    pods whose restartPolicy is not Always, Succeeded (exit code 0) or Failed after their run time.
//    The run time is the `nodesim.ksched.io/run-seconds` annotation, else the N of a `sleep N` in
//    a container's command or args (`sleep infinity`: never), else default_run_time; the exit code
//    is the `nodesim.ksched.io/exit-code` annotation, else the N of an `exit N` in the command or
//    args, 1 for a command `false`, else 0. An OnFailure pod whose container exits non-zero is
//    restarted in place (restartCount + 1) and runs again. restartPolicy Always pods run until
//    deleted.
//  - Dynamic Resource Allocation (dra_driver.h): each node's simulated drivers publish its devices
//    as ResourceSlices (created, updated at a new pool generation, deleted as the configuration or
//    someone else's edits require), and a pod with resourceClaims starts only once each claim is
//    allocated and reserved for it and its devices' drivers run on the node (the kubelet's
//    NodePrepareResources); until then it stays Pending, as ContainerCreating.
//  - Graceful deletion: a pod with a deletionTimestamp is stopped and deleted with grace period 0
//    (uid precondition), as the kubelet's status manager does.
// It scales by batching: every status write, deletion, label patch and lease renewal goes out in
// pipelined batches (Transport::round_trip_all) from a few writer threads; run times are one heap
// on one timer thread. No thread per pod or per node.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/core.h"
#include "client/rest.h"
#include "nodesim/dra_driver.h"

namespace ksched::nodesim {

inline constexpr std::string_view kRunSecondsAnnotation = "nodesim.ksched.io/run-seconds";
inline constexpr std::string_view kExitCodeAnnotation = "nodesim.ksched.io/exit-code";

struct Options {
  std::string node_selector = "type=simulated";  // label selector of the nodes this simulator runs
  int workers = 2;  // writer threads; each sends what is queued in pipelined batches
  // How often each node's Ready condition is written again (the kubelet's
  // nodeStatusReportFrequency with leases on: 5 min); the Lease is the heartbeat in between.
  std::chrono::milliseconds heartbeat_period = std::chrono::minutes(5);
  std::chrono::milliseconds lease_renew_interval = std::chrono::seconds(10);
  std::int32_t lease_duration_seconds = 40;
  std::string pod_cidr_prefix = "10.";  // node i gets 10.<hi>.<lo>.0/24 unless it has spec.podCIDR
  // topology.kubernetes.io/zone of nodes whose template sets none: the node numbered i (the
  // number its name ends with, or a hash of the name) gets zones[i % size]. Empty: no zone label.
  std::vector<std::string> zones;
  std::string region;  // topology.kubernetes.io/region of nodes without one ("" = none)
  // Run time of a pod that may finish (restartPolicy Never or OnFailure) but names none.
  std::chrono::milliseconds default_run_time = std::chrono::seconds(1);
  // The DRA drivers every node runs (a node's nodesim.ksched.io/dra-devices annotation replaces
  // them on that node). Empty: none, and no ResourceSlices are published.
  std::vector<DraDriverSpec> dra_drivers;
};

struct Stats {
  std::uint64_t pods_started = 0;
  std::uint64_t pods_succeeded = 0;
  std::uint64_t pods_failed = 0;
  std::uint64_t container_restarts = 0;
  std::uint64_t pods_deleted = 0;
  std::uint64_t node_heartbeats = 0;
  std::uint64_t node_labels = 0;
  std::uint64_t lease_renewals = 0;
  std::uint64_t slices_published = 0;  // ResourceSlices created or updated
  std::uint64_t slices_deleted = 0;
  std::uint64_t claims_prepared = 0;   // claims prepared for a pod before it started
  std::uint64_t binding_conditions_set = 0;  // claims whose devices' binding conditions were set True
  std::uint64_t attach_failures = 0;  // devices whose failure condition was set True (attachFailures)
  std::uint64_t requests = 0;  // HTTP requests sent
  std::uint64_t batches = 0;   // pipelined batches they went out in
  std::uint64_t errors = 0;
};

// What a pod asks of its simulated run (see the header comment): the run time (nullopt: never
// ends) and the exit code.
struct PodRun {
  std::optional<std::chrono::milliseconds> run_time;
  int exit_code = 0;
};
PodRun pod_run(const api::Pod& pod, std::chrono::milliseconds default_run_time);

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
