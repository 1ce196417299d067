// Why a pod goes where it goes: one scheduling cycle for the pod against a scheduler's current
// snapshot, without reserving or binding, that keeps what the cycle normally throws away: every
// Filter plugin's verdict on every node (not just the first rejection) and every Score plugin's
// raw, normalized and weighted score on every feasible node. Runs the profile's own Framework and
// plugins: there is no second implementation of any rule here.
//
// Differences from a real cycle, by design: every node is filtered and every feasible node scored
// (a real cycle on a large cluster stops after percentageOfNodesToScore feasible nodes), and ties
// go to the node whose name sorts first (a real cycle breaks them at random).
#pragma once
#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/types.h"
#include "scheduler/framework/runtime.h"
#include "scheduler/scheduler.h"
#include "util/result.h"

namespace ksched::scheduler::explain {

// One plugin's answer: code is upstream's status code name ("Success", "Unschedulable",
// "UnschedulableAndUnresolvable", "Error", "Skip").
struct Verdict {
  std::string plugin;
  std::string code;
  std::string reason;  // the status message; empty on success
};

struct ScoreLine {
  std::string plugin;
  std::int64_t raw = 0;         // Score's result, before NormalizeScore
  std::int64_t normalized = 0;  // after NormalizeScore (raw when the plugin has none)
  std::int64_t weight = 1;
  std::int64_t weighted = 0;    // normalized * weight: what the total adds up
};

// What a node lacks for the pod (NodeResourcesFit's rejection, with its numbers): quantities in
// canonical form ("500m", "4", "1Gi").
struct Shortfall {
  std::string resource;     // "cpu", "memory", "pods", "nvidia.com/gpu", ...
  std::string requested;    // by the pod
  std::string used;         // by the pods already on the node (assumed ones included)
  std::string allocatable;  // the node's
};

struct NodeExplanation {
  std::string name;
  std::vector<Verdict> filters;  // every Filter plugin PreFilter did not skip, in run order
  // The rejection the scheduler itself records for this node (the first rejecting plugin, with
  // nominated pods taken into account) as "Plugin: reason"; empty when the node is feasible.
  std::string rejected;
  std::vector<Shortfall> shortfalls;  // set when NodeResourcesFit rejected the node
  // What else the status message leaves out: the untolerated taint ("dedicated=infra:NoSchedule")
  // when TaintToleration rejected the node.
  std::string detail;
  std::vector<ScoreLine> scores;  // feasible nodes: every Score plugin PreScore did not skip
  std::int64_t total = 0;
};

// A member of a pod group (v1.37's spec.schedulingGroup or v1.35's spec.workloadRef), with the GangScheduling gate on: the group's
// state as the scheduler holds it, because a gang member is placed only with its group.
struct PodGroupState {
  std::string workload, podGroup;  // the Workload and its pod group the pod names; for a PodGroup
                                   // object (schedulingGroup) workload is empty
  std::string policy;  // "gang", "basic", or why none: "no PodGroup", "no Workload", "no such pod group"
  std::int32_t minCount = 0;       // gang only
  std::size_t members = 0;         // pods of the group that exist (the quorum PreEnqueue counts)
  std::size_t bound = 0;           // of them, bound (spec.nodeName)
  std::size_t assumed = 0;         // of them, placed by the scheduler and still binding
};

// A gang's placement as the pod-group cycle would try it now (Scheduler::dry_run_pod_group: the
// cycle's own loop, members in queue order, each assumed so the next sees it, all undone after).
struct GangMember {
  std::string pod;     // namespace/name
  std::string node;    // where it would go; empty when it fits nowhere or was not tried
  bool tried = false;  // false: PlacementFeasible stopped the group before it
  std::string reason;  // why it fits nowhere (its FitError's message); set for listed members only
};
struct GangPlacement {
  std::int32_t minCount = 0;
  std::size_t scheduled = 0;  // members placed before the cycle (bound, or assumed and binding)
  std::size_t pending = 0;    // members the cycle would try
  std::size_t placed = 0;     // of them, placed
  std::size_t unplaced = 0;   // of them, tried and fitting nowhere
  bool wouldBind = false;     // PlacementFeasible accepts: the cycle would commit the group
  // PlacementFeasible's message when it does not (upstream's "minCount (4) cannot be satisfied:
  // 3 scheduled, 0 remaining"), or the error that stopped the group.
  std::string verdict;
  std::vector<std::pair<std::string, std::size_t>> perNode;  // placed members per node, natural order
  // Every pending member in the cycle's order (reason set only for the first few that fit nowhere).
  std::vector<GangMember> members;
  // The first member that cannot be placed: the one that blocks the group when it stays pending.
  std::string blocking;
  std::size_t placedBeforeBlocking = 0;  // members placed when it was tried (earlier cycles' included)
  std::string blockingWhy;  // its "0/N nodes are available: ..." with the members before it placed
  std::vector<NodeExplanation> blockingNodes;  // its rejected nodes, as explain() gives them
  std::string thisPod;      // where the explained pod would go in the cycle; empty if nowhere
};

struct Explanation {
  std::string pod;      // namespace/name
  std::string profile;  // schedulerName
  // Set when the pod is already bound: it is then explained as if it were pending now (its
  // spec.nodeName set aside), while the snapshot still counts it on this node.
  std::string boundTo;
  std::vector<Verdict> preFilter;
  std::vector<Verdict> preScore;
  // Feasible nodes by total (highest first, then name), then rejected nodes by name; names compare
  // naturally (node-2 before node-10).
  std::vector<NodeExplanation> nodes;
  std::size_t feasible = 0;
  std::string chosen;    // empty when no node fits
  std::string runnerUp;  // the best other feasible node, if any
  // One line: why `chosen` won (its margin over the runner-up, plugin by plugin), or upstream's
  // "0/N nodes are available: ..." when nothing fits.
  std::string summary;
  std::optional<PodGroupState> podGroup;
  std::optional<GangPlacement> gang;  // explain_with_group on a gang member whose quorum exists
};

// Runs the cycle on the framework's snapshot (Handle::snapshot_node_infos), which must be current
// and must not change meanwhile: call it where the scheduling loop is not running. Errors are the
// framework's (a plugin failing, not a node rejecting).
util::Result<Explanation> explain(framework::Framework& fwk, const api::Pod& pod);

// explain(), and for a member of a gang (GangScheduling gate) whose minCount members exist, the
// gang's placement as the pod-group cycle would try it now (Explanation::gang). The dry run assumes
// and forgets pods in `sched`'s cache: only on a scheduler whose loop is not running (the
// inspector), like explain().
util::Result<Explanation> explain_with_group(Scheduler& sched, framework::Framework& fwk, const api::Pod& pod);

// What the text form shows. By default: the best `top` feasible nodes' scores and the rejected
// nodes grouped by reason (and by their numbers), a few names per group; `nodes` adds every detail
// of the named nodes; `wide` lists every node with every plugin's verdict and score.
struct TextOptions {
  std::vector<std::string> nodes;
  std::size_t top = 3;
  bool wide = false;
};

// For people. Fails only when a node of `o.nodes` is not in the explanation.
util::Result<std::string> to_text(const Explanation& e, const TextOptions& o = {});

// Node names in the order people expect: runs of digits compare as numbers (node-2 < node-10).
bool natural_less(std::string_view a, std::string_view b);
// The same as one JSON object (field names as in the structs above, camelCase).
std::string to_json(const Explanation& e);
boost::json::object to_json_object(const Explanation& e);

}  // namespace ksched::scheduler::explain
