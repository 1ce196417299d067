// The scheduling algorithm (upstream schedulePod and what it calls: findNodesThatFitPod,
// findNodesThatPassExtenders, prioritizeNodes, selectHost): from a pod to the node it should go
// to. It writes nothing to the cluster, the cache or the queue; the scheduling cycle assumes the
// pod on the node it names. It runs on the scheduling thread, one pod at a time, and keeps between
// pods only what makes the next one cheaper or fairer: the rotating start node of the Filter
// walk, the opportunistic batch (batch.h) and buffers whose capacity it reuses.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <random>
#include <string>
#include <vector>

#include "scheduler/batch.h"
#include "scheduler/cache/cache.h"
#include "scheduler/filter_pass.h"
#include "scheduler/framework/extender.h"
#include "scheduler/framework/runtime.h"
#include "scheduler/metrics.h"
#include "util/clock.h"

namespace ksched::scheduler {

inline constexpr const char* kErrNoNodesAvailable = "no nodes available to schedule pods";

// Upstream numFeasibleNodesToFind (min 100 nodes, adaptive percentage floor 5 %).
std::int32_t num_feasible_nodes_to_find(std::optional<std::int32_t> profile_pct, std::int32_t global_pct,
                                        std::int32_t num_all_nodes);

struct ScheduleResult {
  std::string suggestedHost;
  int evaluatedNodes = 0;
  int feasibleNodes = 0;
  // On failure: what the pod's nominated node becomes (PostFilter's choice, or cleared).
  std::optional<framework::NominatingInfo> nominatingInfo;
};

// Upstream's replaceable SchedulePod: fills `result.suggestedHost` and returns success, or
// returns why not, with `fit` set when no node fits (a FitError, which PostFilter may act on).
using SchedulePodFn = std::function<framework::Status(framework::Framework& fwk, framework::CycleState& state,
                                                      const api::Pod& pod, ScheduleResult& result,
                                                      std::optional<framework::FitError>& fit)>;

class SchedulingAlgorithm {
 public:
  // What the algorithm reads; every pointer must outlive it.
  struct Deps {
    cache::Cache* cache = nullptr;
    cache::Snapshot* snapshot = nullptr;  // updated from the cache at the start of each pod
    const framework::PodNominator* nominator = nullptr;
    const std::vector<std::shared_ptr<framework::Extender>>* extenders = nullptr;  // in call order
    util::Clock* clock = nullptr;
    metrics::SchedulerRecorder* metrics = nullptr;
    // The scheduler's random source: one draw per pod for the tie-break key (tie_break_rank).
    std::mt19937_64* rng = nullptr;
    std::int32_t percentage_of_nodes_to_score = 0;  // the configuration's; a profile's own wins
    bool opportunistic_batching = true;             // SchedulerOptions::opportunistic_batching
  };
  explicit SchedulingAlgorithm(Deps deps);

  // Upstream schedulePod: updates the snapshot, then PreFilter, Filter (nominated node first),
  // the extenders' filters, PreScore, Score and selectHost; or places the pod from the
  // opportunistic batch when its signature allows.
  framework::Status schedule_pod(framework::Framework& fwk, framework::CycleState& state, const api::Pod& pod,
                                 ScheduleResult& result, std::optional<framework::FitError>& fit);

  // The cycle of the last pod placed failed after all (Reserve, Permit, the cache): the next pod
  // takes the full path.
  void pod_failed(const framework::Framework& fwk) { clear_batch(fwk, OpportunisticBatch::Flush::PodFailed); }

  // The pod-group cycle's placement (TopologyAwareWorkloadScheduling): while set, schedule_pod
  // considers only the snapshot's nodes of these names (upstream AssumePlacement restricts the
  // snapshot), takes no batch and counts only them in its fit error. nullptr: every node. The
  // set must outlive its use; the pod-group cycle clears it before returning.
  // `nodes`, when given, are the placement's NodeInfos in the snapshot's order (a Placement's list):
  // each attempt then looks them up by name (the snapshot may hold newer copies) instead of
  // scanning the snapshot for the set's names.
  void set_placement(const std::set<std::string, std::less<>>* node_names,
                     const std::vector<framework::NodeInfoPtr>* nodes = nullptr) {
    placement_ = node_names;
    placement_order_ = node_names ? nodes : nullptr;
    placement_positions_.clear();
    placement_list_size_ = 0;
  }

 private:
  // The nodes this pod may go to: the snapshot's, or the placement's among them.
  const std::vector<framework::NodeInfoPtr>& candidate_nodes();
  // PreFilter and the Filter passes; `evaluated` is the number of nodes looked at.
  framework::Status find_nodes_that_fit_pod(framework::Framework& fwk, framework::CycleState& state,
                                            const api::Pod& pod, framework::Diagnosis& diagnosis,
                                            std::vector<framework::NodeInfoPtr>& feasible, int& evaluated);
  // One Filter pass over `nodes` from the rotating start node, looking for as many feasible
  // nodes as are worth scoring.
  framework::Status find_nodes_that_pass_filters(FilterPass& pass, framework::Framework& fwk,
                                                 const std::vector<framework::NodeInfoPtr>& nodes,
                                                 std::vector<framework::NodeInfoPtr>& feasible);
  // Sequential: each interested extender filters what the previous ones left.
  framework::Status find_nodes_that_pass_extenders(const api::Pod& pod, framework::NodeToStatus& statuses,
                                                   std::vector<framework::NodeInfoPtr>& feasible);
  framework::Status prioritize_nodes(framework::Framework& fwk, framework::CycleState& state, const api::Pod& pod,
                                     const std::vector<framework::NodeInfoPtr>& feasible,
                                     std::vector<framework::NodePluginScores>& out, framework::RawScores* raw);
  // The extenders' prioritize scores, scaled, weighted and added to the plugins' totals.
  void add_extender_scores(const api::Pod& pod, const std::vector<framework::NodeInfoPtr>& feasible,
                           std::vector<framework::NodePluginScores>& out);
  // Best total; among equal totals the lowest tie_break_rank for the pod's key. scores[i] is
  // feasible[i]'s, whose NodeInfo keeps its name's hash.
  std::string select_host(const std::vector<framework::NodePluginScores>& scores,
                          const std::vector<framework::NodeInfoPtr>& feasible) const;
  bool has_extender_filters() const;
  bool has_scoring(const framework::Framework& fwk) const;

  // Opportunistic batching: the pod's signature when it may take part (nullopt otherwise), and
  // an attempt to place it from the current batch (no suggested host: the full path runs).
  std::optional<std::string> batch_signature(const framework::Framework& fwk, const api::Pod& pod) const;
  framework::Status place_from_batch(framework::Framework& fwk, framework::CycleState& state, const api::Pod& pod,
                                     const std::string& signature, ScheduleResult& result);
  void record_batch_flush(const framework::Framework& fwk, std::optional<OpportunisticBatch::Flush> flushed);
  void clear_batch(const framework::Framework& fwk, OpportunisticBatch::Flush why);

  void observe(std::string_view point, const framework::Status& s, const framework::Framework& fwk,
               std::chrono::steady_clock::time_point since) {
    deps_.metrics->extension_point(point, s, fwk.profile_name(), since, deps_.clock->now());
  }
  const std::vector<std::shared_ptr<framework::Extender>>& extenders() const { return *deps_.extenders; }

  Deps deps_;
  std::size_t next_start_node_index_ = 0;
  std::uint64_t tie_key_ = 0;  // drawn once per pod, see tie_break_rank
  OpportunisticBatch batch_;
  RejectionSlots rejections_;
  framework::RawScores raw_scores_;
  // Per-node score rows, kept between pods so that each row's vector keeps its capacity.
  std::vector<framework::NodePluginScores> scores_;
  const std::set<std::string, std::less<>>* placement_ = nullptr;
  std::vector<framework::NodeInfoPtr> placement_nodes_;  // candidate_nodes() while placement_ is set
  // Where the placement's nodes are in the snapshot's list (found once per set_placement): the
  // positions hold while no node is added or removed, which candidate_nodes() checks by name.
  std::vector<std::size_t> placement_positions_;
  const std::vector<framework::NodeInfoPtr>* placement_order_ = nullptr;
  std::size_t placement_list_size_ = 0;
};

}  // namespace ksched::scheduler
