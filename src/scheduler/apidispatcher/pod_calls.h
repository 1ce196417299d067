// The scheduler's two API calls (upstream v1.35 framework/api_calls/pod_status_patch.go and
// pod_binding.go).
#pragma once
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "api/core.h"
#include "scheduler/apidispatcher/api_call.h"

namespace ksched::scheduler::apidispatcher {

// Sets one pod condition and/or status.nominatedNodeName. It is a no-op when the pod's status
// (as last seen: at creation, then each sync before execution) already has both. Merging an older
// patch keeps the older condition / nomination where this one has none.
class PodStatusPatchCall final : public ApiCall {
 public:
  // `nominated_node_name`: nullopt leaves it (upstream ModeNoop), a value sets it ("" clears).
  PodStatusPatchCall(const api::Pod& pod, std::optional<api::PodCondition> condition,
                     std::optional<std::string> nominated_node_name);

  CallType type() const override { return CallType::PodStatusPatch; }
  const std::string& uid() const override { return uid_; }
  framework::Status execute(framework::ClusterClient& client) override;
  framework::Status merge(const ApiCall& older) override;
  void sync(const api::Pod& pod) override;
  bool is_noop() const override;

  // What the call currently holds (tests).
  const std::optional<api::PodCondition>& condition() const { return condition_; }
  const std::optional<std::string>& nominated_node_name() const { return nominated_; }

 private:
  // The status fields the call compares against.
  struct SeenStatus {
    std::vector<api::PodCondition> conditions;
    std::string nominatedNodeName;
  };
  static SeenStatus seen_of(const api::Pod& pod);

  api::Pod target_;  // namespace, name and UID: what the client addresses
  std::string uid_;
  mutable std::mutex mu_;
  bool executed_ = false;  // execute() has started: sync() no longer refreshes seen_
  SeenStatus seen_;
  std::optional<api::PodCondition> condition_;
  std::optional<std::string> nominated_;
};

// POST pods/binding. Never a no-op; a newer binding of the same pod simply replaces it.
class PodBindingCall final : public ApiCall {
 public:
  PodBindingCall(const api::Pod& pod, std::string node_name);

  CallType type() const override { return CallType::PodBinding; }
  const std::string& uid() const override { return uid_; }
  framework::Status execute(framework::ClusterClient& client) override;
  framework::Status merge(const ApiCall&) override { return {}; }
  void sync(const api::Pod&) override {}
  bool is_noop() const override { return false; }

  // For a pipelined write of several bindings (Dispatcher).
  const api::Pod& target() const { return target_; }
  const std::string& node_name() const { return node_; }

 private:
  api::Pod target_;
  std::string uid_;
  std::string node_;
};

}  // namespace ksched::scheduler::apidispatcher
