// Nominator: pods nominated to nodes by preemption (or carrying status.nominatedNodeName), so that
// lower-priority pods do not take the space a preemptor freed (upstream queue/nominator.go).
// Thread-safe: Filter calls nominated_pods_for_node concurrently with queue updates.
#pragma once
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "scheduler/framework/interface.h"

namespace ksched::scheduler::queue {

class Nominator final : public framework::PodNominator {
 public:
  // Looks a pod up in the informer cache (nullptr when gone); empty = no check.
  using PodLookup = std::function<framework::PodPtr(std::string_view ns, std::string_view name)>;

  explicit Nominator(PodLookup lookup = {}) : lookup_(std::move(lookup)) {}

  // Override info wins; otherwise status.nominatedNodeName. Ignored when neither names a node,
  // or when the informer's copy is gone or already bound.
  void add_nominated_pod(const framework::PodInfoPtr& pi, const std::optional<framework::NominatingInfo>& info);
  void delete_nominated_pod_if_exists(const api::Pod& pod);
  // Keeps an in-memory nomination when neither version carries nominatedNodeName.
  void update_nominated_pod(const api::Pod& old_pod, const framework::PodInfoPtr& new_pi);

  std::vector<framework::PodInfoPtr> nominated_pods_for_node(std::string_view node_name) const override;
  bool has_nominated_pods() const override { return count_.load(std::memory_order_acquire) != 0; }
  // "" when not nominated.
  std::string nominated_node_of(std::string_view uid) const;
  std::size_t size() const;

 private:
  void add_locked(const framework::PodInfoPtr& pi, const std::optional<framework::NominatingInfo>& info);
  void delete_locked(const api::Pod& pod);

  PodLookup lookup_;
  mutable std::mutex mu_;
  std::map<std::string, std::vector<framework::PodInfoPtr>, std::less<>> by_node_;
  std::unordered_map<std::string, std::string> node_of_uid_;
  // node_of_uid_.size(), readable without the lock: Filter asks once per node per cycle, and almost
  // always nothing is nominated anywhere.
  std::atomic<std::size_t> count_{0};
};

}  // namespace ksched::scheduler::queue
