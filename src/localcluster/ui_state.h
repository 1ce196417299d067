// What the web page shows, kept from watch events: every node (labels, taints, allocatable, Ready,
// cordoned, its DRA devices and who holds them) and every pod the scheduler counts (not terminal: its node or none, its requests as
// the scheduler computes them, the scheduler's PodScheduled=False reason), each held as the small
// JSON record the page reads.
//
// The page gets one snapshot, then deltas. A delta carries, for every object changed since the
// previous one, its current record or its deletion: changes are coalesced per object, so a burst
// of updates to one pod costs one entry, and an update that leaves the record as it was (a status
// heartbeat, a Ready flip of a container) costs nothing. Thread-safe.
#pragma once
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ksched::api {
struct Node;
struct Pod;
namespace resourcev1 {
struct ResourceSlice;
struct ResourceClaim;
}  // namespace resourcev1
}  // namespace ksched::api

namespace ksched::localcluster {

class UiState {
 public:
  void set_node(const api::Node& node);
  void remove_node(std::string_view name);
  void set_pod(const api::Pod& pod);  // a terminal pod is removed: the scheduler counts it no more
  void remove_pod(std::string_view key);  // namespace/name
  // DRA: a node's record lists the devices of the ResourceSlices that name it ("driver/pool/device")
  // and, for each, the allocated claim that holds it and the pod it is reserved for. A change here
  // re-sends the records of the nodes it touches.
  void set_slice(const api::resourcev1::ResourceSlice& slice);
  void remove_slice(std::string_view name);
  void set_claim(const api::resourcev1::ResourceClaim& claim);
  void remove_claim(std::string_view key);  // namespace/name

  // {"rev":R,"nodes":[node...],"pods":[pod...]}: the state now. Changes not yet taken are in it and
  // come again in the next delta (records are whole, so applying one twice is harmless).
  std::string snapshot() const;
  // {"rev":R+1,"nodes":[...],"deletedNodes":[name...],"pods":[...],"deletedPods":[key...]}: the
  // changes since the previous call; nullopt when there were none. encode=false drops them unread
  // (nobody is watching) and returns nullopt.
  std::optional<std::string> take_delta(bool encode = true);
  std::uint64_t revision() const;
  std::size_t node_count() const;
  std::size_t pod_count() const;

  // The records, for tests and the snapshot: a node
  //   {"name","labels":{..},"taints":[{"key","value","effect"}],"cpu":milli,"memory":bytes,"pods":n,
  //    "ready":bool,"unschedulable":bool}
  // with, when the node has devices of its own, "devices":[{"name","claim","pod"}] (claim and pod
  // only for a device in use), and a pod (empty strings and zero priority left out)
  //   {"key":"ns/name","node","cpu":milli,"memory":bytes,"phase","priority","nominated","group","reason","message"}
  // where "group" is the pod group a gang member is placed with: a PodGroup's "ns/name"
  // (spec.schedulingGroup), else a Workload's "ns/workload/podGroup[/replicaKey]" (spec.workloadRef).
  static std::string node_record(const api::Node& node);
  static std::string pod_record(const api::Pod& pod);

 private:
  // A slice's devices leave `node` (those no other slice of the node names).
  void forget_slice_devices_locked(const std::string& node, const std::vector<std::string>& devices);
  // A node's record as sent: its own fields, then its devices when it has some.
  std::string node_record_locked(const std::string& name, const std::string& base) const;
  void append_nodes_locked(std::string& out, const std::unordered_set<std::string>* only,
                           std::unordered_set<std::string>* deleted) const;

  struct Holder {
    std::string claim, pod;  // namespace/name; pod empty when the claim is reserved for none
  };
  struct ClaimDevices {
    std::vector<std::string> devices;
    Holder holder;
  };

  mutable std::mutex mu_;
  std::unordered_map<std::string, std::string> nodes_, pods_;  // name / key -> record (nodes: without devices)
  std::unordered_set<std::string> dirty_nodes_, dirty_pods_;
  std::unordered_map<std::string, std::pair<std::string, std::vector<std::string>>> slices_;  // name -> node, devices
  std::unordered_map<std::string, std::map<std::string, int>> node_devices_;  // node -> device -> slices naming it
  std::unordered_map<std::string, std::string> device_node_;                  // device -> node
  std::unordered_map<std::string, ClaimDevices> claims_;                      // claim key -> what it holds
  std::unordered_map<std::string, Holder> holders_;                           // device -> its claim and pod
  std::uint64_t rev_ = 0;
};

}  // namespace ksched::localcluster
