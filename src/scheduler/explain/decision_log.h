// The scheduler's last decisions, explained: a bounded log filled from the scheduling loop
// (SchedulerOptions::cycle_observer) and read by its /debug/explain endpoint. Off unless the
// scheduler runs with --explain-cache-size N.
//
// Each entry costs a second pass of the cycle's Filter and Score over every node, on the
// scheduling thread: a debugging aid, not for a cluster at full rate. Memory is bounded by N and
// by what an entry keeps: every node's verdict (the rejecting plugin and reason, or its total),
// but per-plugin scores only for the best kTopScored nodes and per-plugin Filter verdicts for none
// (`ksched explain` gives those in full).
#pragma once
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <string>

#include "scheduler/explain/explain.h"

namespace ksched::scheduler::explain {

class DecisionLog {
 public:
  static constexpr std::size_t kTopScored = 10;
  explicit DecisionLog(std::size_t capacity) : capacity_(capacity) {}

  // From the scheduling thread, with the cycle's snapshot; `node` is where the cycle put the pod.
  void record(framework::Framework& fwk, const api::Pod& pod, const std::string& node);

  // {"decisions":[{"pod","node","summary","time"}...]}, newest first.
  std::string list_json() const;
  // The newest full entry for namespace/name, as JSON; nullopt when none is kept.
  std::optional<std::string> get_json(std::string_view pod) const;
  std::size_t size() const;

 private:
  struct Entry {
    std::string pod, node, summary, time, json;
  };
  std::size_t capacity_;
  mutable std::mutex mu_;
  std::deque<Entry> entries_;  // oldest first
};

}  // namespace ksched::scheduler::explain
