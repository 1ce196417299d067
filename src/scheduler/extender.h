// Scheduler extenders over HTTP(S) (upstream pkg/scheduler/extender.go, v1.32): each configured
// extender is a webhook that can filter and score nodes, bind pods and veto preemption candidates.
// Requests are JSON POSTs to <urlPrefix>/<verb> carrying the k8s.io/kube-scheduler/extender/v1
// wire types (ExtenderArgs, ExtenderFilterResult, HostPriorityList, ExtenderBindingArgs,
// ExtenderPreemptionArgs, ...). Only an HTTP 200 answer counts; anything else is an error.
#pragma once
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "scheduler/config/types.h"
#include "scheduler/framework/extender.h"

namespace ksched::client {
class Transport;
}

namespace ksched::scheduler {

class HTTPExtender final : public framework::Extender {
 public:
  // Reads the TLS material (files or inline data) and sets up the connection pool. With
  // enableHTTPS and no CA the server certificate is not verified (as upstream).
  static util::Result<std::shared_ptr<HTTPExtender>> create(const config::Extender& cfg);
  ~HTTPExtender() override;

  const std::string& name() const override { return url_prefix_; }
  util::Result<void> filter(const api::Pod& pod, const std::vector<framework::NodeInfoPtr>& nodes,
                            std::vector<framework::NodeInfoPtr>& feasible, framework::FailedNodesMap& failed,
                            framework::FailedNodesMap& failed_and_unresolvable) override;
  util::Result<void> prioritize(const api::Pod& pod, const std::vector<framework::NodeInfoPtr>& nodes,
                                std::vector<framework::HostPriority>& scores, std::int64_t& weight) override;
  util::Result<void> bind(const api::Pod& pod, const std::string& node) override;
  util::Result<framework::NodeToVictims> process_preemption(
      const api::Pod& pod, const framework::NodeToVictims& victims,
      const framework::NodeInfoLister& node_infos) override;

  bool is_binder() const override { return !bind_verb_.empty(); }
  bool is_filter() const override { return !filter_verb_.empty(); }
  bool is_prioritizer() const override { return !prioritize_verb_.empty(); }
  bool supports_preemption() const override { return !preempt_verb_.empty(); }
  bool is_ignorable() const override { return ignorable_; }
  bool is_interested(const api::Pod& pod) const override;

  std::chrono::milliseconds timeout() const { return timeout_; }

 private:
  HTTPExtender() = default;
  // POSTs `body` to <urlPrefix>/<verb>; the response body of a 200 answer.
  util::Result<std::string> send(const std::string& verb, std::string body);
  // ExtenderArgs for filter/prioritize.
  std::string extender_args(const api::Pod& pod, const std::vector<framework::NodeInfoPtr>& nodes) const;

  std::string url_prefix_;
  std::string path_prefix_;  // path part of url_prefix_ without the trailing '/'
  std::string filter_verb_, prioritize_verb_, preempt_verb_, bind_verb_;
  std::int64_t weight_ = 1;
  bool node_cache_capable_ = false;
  bool ignorable_ = false;
  std::set<std::string, std::less<>> managed_resources_;
  // httpTimeout 0 means upstream's default.
  std::chrono::milliseconds timeout_{
      std::chrono::duration_cast<std::chrono::milliseconds>(config::kDefaultExtenderTimeout)};
  std::shared_ptr<client::Transport> transport_;
};

// Upstream buildExtenders: one HTTPExtender per configured extender, in configuration order with
// the ignorable ones moved behind the others.
util::Result<std::vector<std::shared_ptr<framework::Extender>>> build_extenders(
    const std::vector<config::Extender>& extenders);

// Managed resources marked ignoredByScheduler become NodeResourcesFit's ignoredResources in every
// profile (replacing what the profile configured, as upstream). Fails when a profile has no
// NodeResourcesFit args (profiles must be defaulted).
util::Result<void> apply_extender_ignored_resources(const std::vector<config::Extender>& extenders,
                                                    std::vector<config::KubeSchedulerProfile>& profiles);

}  // namespace ksched::scheduler
