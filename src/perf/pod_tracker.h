// Watches every pod of one API server (list, then watch from that revision; relists when the
// watch expires) and keeps per-namespace counts: pods alive, bound (spec.nodeName set), attempted
// (a PodScheduled condition, or scheduling gates), and bound at any time (monotonic, so deleted
// preemption victims still count as scheduled once).
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "client/rest.h"

namespace ksched::perf {

struct NamespaceCounts {
  long live = 0;
  long live_bound = 0;
  long live_attempted = 0;  // bound or attempted
  long ever_bound = 0;
  std::chrono::steady_clock::time_point last_bound{};
};

class PodTracker {
 public:
  explicit PodTracker(std::shared_ptr<client::RestClient> client) : client_(std::move(client)) {}
  ~PodTracker() { stop(); }
  util::Result<void> start();  // returns after the initial list
  void stop();

  NamespaceCounts counts(const std::string& ns) const;
  std::vector<std::string> live_pods(const std::string& ns) const;  // names
  std::string watch_error() const;
  // From now on, remember when each pod of `ns` was first seen (created) and first seen bound
  // (gang workloads report each gang's placement from them); arrivals() and bindings() return them
  // as (pod name, time), in the order seen.
  void log_bindings(const std::string& ns);
  std::vector<std::pair<std::string, std::chrono::steady_clock::time_point>> bindings(const std::string& ns) const;
  std::vector<std::pair<std::string, std::chrono::steady_clock::time_point>> arrivals(const std::string& ns) const;
  // Waits until notified of a change or `until`, whichever comes first.
  void wait_change(std::chrono::steady_clock::time_point until) const;

  // Applies one watch event line / one list item (exposed for tests).
  void apply_event_line(std::string_view line);

 private:
  struct PodState {
    bool bound = false;
    bool attempted = false;
  };
  void apply(std::string_view type, std::string_view ns, std::string_view name, bool bound, bool attempted,
             std::string_view rv);
  util::Result<void> relist();
  void run();

  std::shared_ptr<client::RestClient> client_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::unordered_map<std::string, PodState> pods_;  // ns/name
  std::map<std::string, NamespaceCounts> ns_;
  std::map<std::string, std::vector<std::pair<std::string, std::chrono::steady_clock::time_point>>, std::less<>>
      binding_log_, arrival_log_;
  std::string rv_;
  std::string error_;
  std::atomic<bool> stop_{false};
  std::mutex watch_mu_;
  std::unique_ptr<client::WatchStream> watch_;
  std::thread thread_;
};

}  // namespace ksched::perf
