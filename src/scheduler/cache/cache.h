// Scheduler cache (upstream backend/cache/cache.go): NodeInfo per node with the pods bound or
// assumed there, assumed-pod bookkeeping with optional expiry, image states, the zone node tree,
// and incremental snapshots. Thread-safe: informer handlers and the scheduling/binding threads
// call it concurrently.
#pragma once
#include <chrono>
#include <condition_variable>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>

#include "scheduler/cache/node_tree.h"
#include "scheduler/cache/snapshot.h"
#include "scheduler/framework/types.h"
#include "util/clock.h"
#include "util/result.h"

namespace ksched::scheduler::cache {

class Cache {
 public:
  // ttl 0: assumed pods never expire (upstream's default durationToExpireAssumedPod).
  explicit Cache(std::chrono::nanoseconds ttl = std::chrono::nanoseconds(0),
                 const util::Clock& clock = util::RealClock::instance());
  ~Cache();
  Cache(const Cache&) = delete;
  Cache& operator=(const Cache&) = delete;

  // ---- pods (keyed by uid). The pod must carry spec.nodeName.
  util::Result<void> assume_pod(framework::PodPtr pod);
  util::Result<void> assume_pod(framework::PodInfoPtr pod_info);
  // Binding finished: the assumed pod may now expire (deadline = now + ttl).
  util::Result<void> finish_binding(const api::Pod& pod);
  // Drops an assumed pod (binding failed).
  util::Result<void> forget_pod(const api::Pod& pod);
  // Informer add of a bound pod: confirms an assumed pod (relocating it if it landed elsewhere)
  // or re-adds an expired one.
  util::Result<void> add_pod(framework::PodPtr pod);
  util::Result<void> update_pod(const framework::PodPtr& old_pod, framework::PodPtr new_pod);
  util::Result<void> remove_pod(const api::Pod& pod);
  bool is_assumed_pod(const api::Pod& pod) const;
  // The cached copy, or an error when absent.
  util::Result<framework::PodPtr> get_pod(const api::Pod& pod) const;

  // ---- nodes. add/update return a copy of the resulting NodeInfo.
  framework::NodeInfoPtr add_node(framework::NodePtr node);
  framework::NodeInfoPtr update_node(const framework::NodePtr& old_node, framework::NodePtr new_node);
  util::Result<void> remove_node(const api::Node& node);

  // Brings `snapshot` up to date with every NodeInfo changed since its generation.
  util::Result<void> update_snapshot(Snapshot& snapshot);

  // Removes assumed pods whose binding finished and whose deadline passed (ttl > 0 only).
  void cleanup_expired_assumed_pods();
  // Runs cleanup_expired_assumed_pods every `period` on a background thread until destruction.
  void start_cleanup(std::chrono::milliseconds period = std::chrono::seconds(1));

  int node_count() const;  // nodes in the tree (with a Node object)
  int pod_count() const;
  int assumed_pod_count() const;
  std::map<std::string, framework::ImageStateSummary> image_states() const;
  std::vector<std::string> node_tree_order() const;

  // Debugging dump (upstream cache.Dump): copies of every NodeInfo and the assumed pod keys.
  struct Dump {
    std::map<std::string, framework::NodeInfoPtr> nodes;
    std::set<std::string> assumedPods;
  };
  Dump dump() const;
  std::string dump_string() const;

 private:
  struct PodState {
    framework::PodInfoPtr podInfo;
    std::optional<util::Clock::time_point> deadline;
    bool bindingFinished = false;
    bool assumed = false;  // assumed, not yet confirmed by the informer (upstream's assumedPods)
  };
  // Pod states are found by the pod's UID as it is, without copying it into a key string.
  struct UidHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  struct ImageState {
    std::int64_t size = 0;
    std::set<std::string> nodes;
  };
  struct Item {
    std::string name;
    framework::NodeInfoPtr info;
  };
  using List = std::list<Item>;

  util::Result<void> add_pod_locked(framework::PodInfoPtr pi, bool assumed);
  util::Result<void> remove_pod_locked(const api::Pod& pod);
  util::Result<void> update_pod_locked(const api::Pod& old_pod, framework::PodPtr new_pod);
  List::iterator node_item(const std::string& name);  // creates an empty NodeInfo when absent
  void move_to_head(List::iterator it);
  void remove_from_list(const std::string& name);
  void add_node_image_states(const api::Node& node, framework::NodeInfo& ni);
  void remove_node_image_states(const api::Node* node);
  void rebuild_snapshot_lists(Snapshot& snapshot, bool update_all) const;
  // A node that entered or left the affinity lists (its pods with affinity or required
  // anti-affinity went from none to some or back) since the last update: only such nodes move.
  struct AffinityFlip {
    framework::NodeInfoPtr node;
    bool affinity = false;
    bool anti = false;
  };
  static void update_snapshot_affinity_lists(Snapshot& snapshot, const std::vector<AffinityFlip>& flips);
  // Sets the snapshot's hostnames_by_position: whether no two of its nodes share a hostname label.
  static void check_snapshot_hostnames(Snapshot& snapshot);

  const std::chrono::nanoseconds ttl_;
  const util::Clock& clock_;
  mutable std::mutex mu_;
  List list_;  // most recently changed first
  std::unordered_map<std::string, List::iterator> nodes_;
  NodeTree tree_;
  std::unordered_map<std::string, PodState, UidHash, std::equal_to<>> pod_states_;
  std::size_t assumed_count_ = 0;  // pod_states_ entries with `assumed`
  std::map<std::string, ImageState> image_states_;

  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::thread cleanup_thread_;
};

}  // namespace ksched::scheduler::cache
