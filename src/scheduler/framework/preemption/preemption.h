// Preemption Evaluator (upstream pkg/scheduler/framework/preemption, v1.35): eligibility,
// candidate search by parallel dry runs on cloned NodeInfo / CycleState, candidate selection
// (pickOneNodeForPreemption) and candidate preparation (victim DisruptionTarget condition +
// deletion, events, clearing lower-priority nominations). With SchedulerAsyncPreemption the
// preparation runs off the scheduling cycle (Handle::run_async) and the preemptor is reported as
// running its preemption until the last victim's deletion has started.
// The plugin-specific parts (victim selection, eligibility, candidate count) come from an
// Interface implemented by the PostFilter plugin (DefaultPreemption).
#pragma once
#include "api/helpers.h"
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "api/labels.h"
#include "api/policy.h"
#include "scheduler/framework/interface.h"

namespace ksched::scheduler::framework::preemption {

// Pods to evict on a node, most important first, with the number of PDB violations they cause.
struct Victims {
  std::vector<PodPtr> pods;
  std::int64_t numPDBViolations = 0;
};

struct Candidate {
  std::string name;  // node
  Victims victims;
};

// A PodDisruptionBudget with its selector parsed once.
struct PdbEntry {
  std::shared_ptr<const api::PodDisruptionBudget> pdb;
  labels::Selector selector;  // "nothing" when absent or invalid
};

// PDBs per namespace, fetched from the lister on first use (thread-safe: dry runs are parallel).
class PdbCache {
 public:
  explicit PdbCache(const ClusterLister& lister) : lister_(lister) {}
  const std::vector<PdbEntry>& in_namespace(const std::string& ns) const;

 private:
  const ClusterLister& lister_;
  mutable std::mutex mu_;
  mutable std::map<std::string, std::vector<PdbEntry>, std::less<>> by_ns_;
};

// Upstream filterPodsWithPDBViolation: splits pods (order kept) into those whose eviction would
// take a matching PDB below zero allowed disruptions and the rest. A pod listed in a PDB's
// disruptedPods does not consume its budget.
void split_by_pdb_violation(const std::vector<PodInfoPtr>& pods, const PdbCache& pdbs, std::vector<PodInfoPtr>& violating,
                            std::vector<PodInfoPtr>& non_violating);

// status.startTime in unix nanoseconds, or `now_nanos` when the pod has not started.
std::int64_t pod_start_time(const api::Pod& pod, std::int64_t now_nanos);
// Upstream util.MoreImportantPod: higher priority, then earlier start time.
bool more_important_pod(const api::Pod& a, const api::Pod& b, std::int64_t now_nanos);
std::int64_t now_unix_nanos();

using NodeScoreFunc = std::function<std::int64_t(const Candidate&)>;

// Upstream pickOneNodeForPreemption: each score function keeps the highest-scoring candidates;
// defaults (empty `score_funcs`): fewest PDB violations, lowest top victim priority, lowest sum of
// (priority + 2^31), fewest victims, latest earliest start time among top-priority victims; the
// first remaining candidate otherwise. Returns an index into `candidates` (-1 when empty).
int pick_one_node_for_preemption(const std::vector<Candidate>& candidates, std::vector<NodeScoreFunc> score_funcs,
                                 std::int64_t now_nanos);

// What a preemption PostFilter plugin supplies (upstream preemption.Interface).
class Interface {
 public:
  virtual ~Interface() = default;
  // Random offset into the potential nodes and how many candidates the dry run must find.
  virtual std::pair<int, int> get_offset_and_num_candidates(int num_nodes) = 0;
  // Empty string = eligible; otherwise the reason it is not.
  virtual std::string pod_eligible_to_preempt_others(const api::Pod& pod, const Status& nominated_node_status) = 0;
  // Called on a cloned NodeInfo and CycleState. On success `victims` is non-empty.
  virtual Status select_victims_on_node(CycleState& state, const api::Pod& pod, NodeInfo& node_info,
                                        const PdbCache& pdbs, std::vector<PodPtr>& victims, int& num_pdb_violations) = 0;
  // Score functions for pick_one_node_for_preemption; empty = upstream defaults.
  virtual std::vector<NodeScoreFunc> ordered_score_funcs(const std::vector<Candidate>&) { return {}; }
};

// Who preempts, as the victim's condition and event name it (upstream ExecutorPreemptor).
struct PreemptorRef {
  std::string_view kind;  // "pod" or "podgroup" (upstream's Type())
  std::string uid;
  std::string name;
  std::string schedulerName;
};

// Upstream Executor.PreemptPod: a victim waiting on Permit is rejected; any other gets the
// DisruptionTarget condition ("<scheduler>: preempting to accommodate a higher priority <kind>")
// and is deleted; then the event "Preempted by <kind> <uid> on node <where>".
Status preempt_victim(Handle& handle, const std::string& plugin_name, const PreemptorRef& preemptor,
                      const std::string& where, const api::Pod& victim);

inline constexpr std::string_view kNotHelpful = "Preemption is not helpful for scheduling";

class Evaluator {
 public:
  // enable_async: SchedulerAsyncPreemption.
  Evaluator(std::string plugin_name, Handle& handle, Interface& iface, bool enable_async = false);

  // Upstream Evaluator.Preempt. `result` is left Noop unless a nomination is to be set or cleared.
  Status preempt(CycleState& state, const api::Pod& pod, const NodeToStatus& m, PostFilterResult& result);

  // Nodes whose filter status is Unschedulable (explicit, or the absent-node status), in snapshot order.
  std::vector<NodeInfoPtr> potential_nodes(const NodeToStatus& m) const;

  // Dry runs on potential_nodes[(offset + i) % n]; stops once a PDB-clean candidate exists and
  // `num_candidates` were found. Non-violating candidates come first. Node statuses of failed
  // dry runs are recorded in `statuses`; Error statuses are also joined into `error`.
  std::vector<Candidate> dry_run_preemption(CycleState& state, const api::Pod& pod,
                                            const std::vector<NodeInfoPtr>& potential_nodes, const PdbCache& pdbs,
                                            int offset, int num_candidates, NodeToStatus& statuses,
                                            std::string& error);

  // Upstream SelectCandidate; nullptr when there are none.
  const Candidate* select_candidate(const std::vector<Candidate>& candidates);

  // Evicts the victims (in parallel) and clears lower-priority nominations on the node.
  Status prepare_candidate(const Candidate& c, const api::Pod& pod);
  // The same off the scheduling cycle (upstream prepareCandidateAsync): the nominations first,
  // then every victim but the last in parallel, then the last. Until the last victim's deletion
  // has started the preemptor is "running preemption"; if any call fails it is activated, since
  // no event may come to move it.
  void prepare_candidate_async(const Candidate& c, const PodPtr& pod);
  // Upstream IsPodRunningPreemption: the pod's asynchronous preemption has not yet started
  // deleting its last victim (a victim gone from the lister, or being deleted, counts as started).
  bool is_pod_running_preemption(std::string_view pod_uid) const;
  bool async_enabled() const { return async_; }

  // Makes the API calls preempting one victim (replaceable in tests).
  std::function<Status(const Candidate& c, const api::Pod& preemptor, const api::Pod& victim)> preempt_pod;
  // Called with the number of victims of each prepared candidate (scheduler_preemption_victims).
  std::function<void(std::size_t victims)> observe_victims;

  Handle& handle() { return handle_; }
  const std::string& plugin_name() const { return plugin_name_; }

 private:
  Status default_preempt_pod(const Candidate& c, const api::Pod& preemptor, const api::Pod& victim);
  // Clears status.nominatedNodeName of the lower-priority pods nominated to `node`; false if a
  // patch failed.
  bool clear_lower_priority_nominations(const std::string& node, const api::Pod& pod, const char* what);

  std::string plugin_name_;
  Handle& handle_;
  Interface& iface_;
  bool async_;

  struct PendingVictim {
    std::string namespace_, name;
  };
  mutable std::mutex mu_;
  std::set<std::string, std::less<>> preempting_;              // preemptor uids
  std::map<std::string, PendingVictim, std::less<>> last_victims_pending_;  // preemptor uid -> victim
};

}  // namespace ksched::scheduler::framework::preemption
