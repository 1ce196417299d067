// One Filter pass of a scheduling attempt (upstream findNodesThatPassFilters): the Filter plugins
// over a list of nodes, from a start index, in parallel, until enough nodes passed.
//
// A pod that finds a node never reads why the others were rejected, so the pass keeps each
// rejection in a slot by position (RejectionSlots, no shared counter or lock per node) and turns
// them into the Diagnosis only when asked (record). A node passed over by the cycle's quick
// rejection (FilterPlugin::quick_reject) has no status yet; its Filter plugins run when a
// diagnosis needs it. A FilterPass lives for one attempt: it refers to the attempt's framework,
// state, pod and node list, which must outlive it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "scheduler/framework/runtime.h"

namespace ksched::scheduler {

// Storage for the rejections of Filter passes, reused from one pass to the next so that a pass
// allocates nothing per node. A slot is current when its pass equals the pass's number.
class RejectionSlots {
 public:
  struct Slot {
    std::uint64_t pass = 0;
    framework::Status status;
    bool quick = false;  // passed over by a quick rejection: no status yet
  };

 private:
  friend class FilterPass;
  std::vector<Slot> slots_;
  std::uint64_t pass_ = 0;
};

class FilterPass {
 public:
  // `nodes` is visited from `start` (modulo its size); `by_position` says it is the snapshot's own
  // list, so quick rejections may answer by list position.
  FilterPass(framework::Framework& fwk, framework::CycleState& state, const api::Pod& pod,
             const std::vector<framework::NodeInfoPtr>& nodes, std::size_t start, bool by_position,
             RejectionSlots& slots);
  FilterPass(const FilterPass&) = delete;
  FilterPass& operator=(const FilterPass&) = delete;

  // Runs the pass until `to_find` nodes passed or every node was visited, appending the nodes
  // that passed to `feasible` in the order found. When no node passed, every quickly rejected
  // node gets its exact status before this returns, so an Error one of its plugins returns ends
  // the attempt as the plain walk would have. An Error ends the pass (its rejections then say
  // nothing and are not recorded).
  framework::Status run(int to_find, std::vector<framework::NodeInfoPtr>& feasible);

  // Nodes rejected by the pass and not yet moved into a diagnosis.
  std::size_t unrecorded() const { return recorded_ ? 0 : count_; }
  // Moves the rejections into `diagnosis`, in node order, as a serial walk would have recorded
  // them; afterwards unrecorded() is 0. Does nothing the second time.
  void record(framework::Diagnosis& diagnosis);

 private:
  // What the pool's threads share during run().
  struct Walk;
  // Visits [begin, end) of the walk; false once the walk should stop.
  bool visit(int begin, int end, Walk& w);
  // No node passed: the quickly rejected ones get their exact statuses now.
  void resolve_quick_rejections(Walk& w);
  // Keeps the first Error of the walk, which ends it.
  void fail(Walk& w, const framework::Status& s);
  // The status of a quickly rejected node at visit `i`, from its Filter plugins run in order.
  framework::Status exact_rejection(std::size_t i);
  const framework::NodeInfoPtr& node_at(std::size_t i) const { return nodes_[(start_ + i) % nodes_.size()]; }

  framework::Framework& fwk_;
  framework::CycleState& state_;
  const api::Pod& pod_;
  const std::vector<framework::NodeInfoPtr>& nodes_;
  const std::size_t start_;
  const bool by_position_;
  RejectionSlots& slots_;
  const std::uint64_t pass_;
  std::size_t count_ = 0;    // rejected nodes
  std::size_t scanned_ = 0;  // visits below this may hold a rejection
  bool recorded_ = false;
};

}  // namespace ksched::scheduler
