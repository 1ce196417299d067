// Opportunistic batching (KEP-5598, feature gate OpportunisticBatching): consecutive pods with the
// same scheduling signature reuse the previous cycle's filter verdicts and raw scores instead of
// filtering and scoring every node again.
//
// A signature promises that pods which share it get the same verdict and score from any node, and
// that placing one changes only the node it went to. So after a full cycle the batch keeps its
// feasible nodes with their raw scores; each later pod of the same signature re-filters and
// rescores only the nodes whose NodeInfo changed since (always the node the previous pod went to,
// plus any whose pods changed by informer events), then normalizes and weighs again over the
// whole list and takes the best. This is upstream's batching with the v1.37 rescoring of the last
// chosen node, so a node that still fits stays in the running.
//
// Placement is the one the full cycle would make over the same nodes, tie-break included (both
// pick among equal scores by the cycle's random key, see tie_break_rank). When the full cycle
// evaluated every node, that is exactly what the unbatched path chooses. When it sampled
// (percentageOfNodesToScore), the batch keeps choosing among the sampled nodes: it then ends after
// as many pods as it has nodes, so consecutive pods still move on to other nodes as the rotating
// sample would.
//
// The batch is dropped (and the next pod takes the full path) when: the signature or profile
// differs, the previous cycle failed, it is older than 500 ms, a node was added, removed or its
// Node object replaced, the affinity lists changed, the pods with (anti-)affinity of a changed
// node are not those it had, pods are nominated anywhere, extenders are configured or the pod
// itself is nominated (those take the full path).
#pragma once
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "scheduler/cache/snapshot.h"
#include "scheduler/framework/runtime.h"

namespace ksched::scheduler {

// Rank of a node among equal-best scores for a cycle's random key: the lowest rank wins. Each
// tied node is equally likely for a random key, and the choice does not depend on the order the
// nodes were evaluated in, so the batched and the full path pick the same node.
std::uint64_t tie_break_rank(std::string_view node_name, std::uint64_t key);
// The same from the name's hash (std::hash<std::string_view>), for callers that keep it.
std::uint64_t tie_break_rank_of_hash(std::uint64_t name_hash, std::uint64_t key);

// The node selectHost takes among n scored nodes: the highest total(i), and among equal totals
// the lowest rank(i) (tie_break_rank). Shared by the full cycle and the batch.
template <class Total, class Rank>
std::size_t best_node(std::size_t n, Total&& total, Rank&& rank) {
  std::size_t best = 0;
  std::uint64_t best_rank = rank(0);
  for (std::size_t i = 1; i < n; ++i) {
    if (total(i) < total(best)) continue;
    const std::uint64_t r = rank(i);
    if (total(i) > total(best) || r < best_rank) {
      best = i;
      best_rank = r;
    }
  }
  return best;
}

class OpportunisticBatch {
 public:
  static constexpr std::chrono::milliseconds kMaxAge{500};

  // Why the batch was dropped (scheduler_batch_cache_flushed_total's reason label).
  enum class Flush { Incompatible, PodFailed, Expired, ClusterChanged, EmptyList, LimitReached, NotBatchable };
  static const char* flush_reason(Flush f);

  // Takes in what the cycle's update_snapshot changed; drops the batch on structural changes and
  // remembers the changed nodes for the next place().
  void note_snapshot_delta(const cache::Snapshot::Delta& delta);

  // Whether the pod may be placed from the batch (same profile and signature, fresh enough).
  // Drops the batch when not; `flushed` then says why (nullopt when there was none).
  bool usable(const framework::Framework* fwk, const std::string& signature, std::chrono::steady_clock::time_point now,
              std::optional<Flush>& flushed);

  // Places the pod (PreFilter already run on `state`): re-filters and rescores the changed
  // nodes, then picks the best. Returns the node, or empty when the batch could not decide (it is
  // then dropped, `flushed` says why, and the caller runs the full cycle). Errors of plugins come
  // back in `err`.
  std::string place(framework::Framework& fwk, framework::CycleState& state, const api::Pod& pod,
                    std::uint64_t tie_key, std::optional<Flush>& flushed, framework::Status& err);

  // Starts a batch from a full cycle's result: its feasible nodes and their raw scores.
  // `complete` = every node of the cluster was evaluated.
  void start(const framework::Framework* fwk, std::string signature, std::vector<framework::NodeInfoPtr> nodes,
             framework::RawScores raw, bool complete, std::chrono::steady_clock::time_point now,
             const framework::NodeInfoLister& snapshot);

  // After a failed cycle, or when the pod was not batchable.
  void clear() { active_ = false; }
  bool active() const { return active_; }

 private:
  // XOR of the pods with (anti-)affinity on a node: their identity, not only their count.
  static std::uint64_t affinity_fingerprint(const framework::NodeInfo& ni);
  void drop(Flush why, std::optional<Flush>& flushed) {
    active_ = false;
    flushed = why;
  }

  bool active_ = false;
  const framework::Framework* fwk_ = nullptr;
  std::string signature_;
  std::vector<framework::NodeInfoPtr> nodes_;
  std::vector<std::uint64_t> name_hashes_;  // parallel to nodes_, for tie_break_rank; 0 = not yet
  framework::RawScores raw_;
  bool complete_ = false;
  std::size_t limit_ = 0;  // pods a sampled batch may place
  std::size_t used_ = 0;
  std::chrono::steady_clock::time_point created_;
  // Nodes with pods with (anti-)affinity when the batch started, and their fingerprints.
  std::unordered_map<const framework::NodeInfo*, std::uint64_t> affinity_;
  // Changed since the last place(); a node may repeat.
  std::vector<const framework::NodeInfo*> dirty_;
  const framework::NodeInfoLister* snapshot_ = nullptr;  // the scheduler's, from start()
  bool structural_ = false;
  std::vector<std::int64_t> totals_;  // reused
};

}  // namespace ksched::scheduler
