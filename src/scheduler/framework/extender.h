// What the scheduler and preemption need from a scheduler extender (upstream
// pkg/scheduler/framework/extender.go). The interface lives in the framework layer because
// preemption (framework/preemption) consults extenders through the Handle; the HTTP(S)
// implementation is scheduler/extender.h.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/framework/types.h"
#include "util/result.h"

namespace ksched::scheduler::framework {

// The name put into a pod's unschedulable plugins when extenders filtered nodes out, so that any
// cluster event requeues it (extenders register no events).
inline constexpr std::string_view kExtenderName = "Extender";

// Extender scores are in [0, kMaxExtenderPriority]; the scheduler scales them to MaxNodeScore.
inline constexpr std::int64_t kMaxExtenderPriority = 10;
inline constexpr std::int64_t kMinExtenderPriority = 0;

// Node name -> why the extender rejected it.
using FailedNodesMap = std::map<std::string, std::string>;

struct HostPriority {
  std::string host;
  std::int64_t score = 0;
};

// Pods to evict on a node for a preemption (upstream extenderv1.Victims).
struct ExtenderVictims {
  std::vector<PodPtr> pods;
  std::int64_t numPDBViolations = 0;
};
using NodeToVictims = std::map<std::string, ExtenderVictims>;

class Extender {
 public:
  virtual ~Extender() = default;
  // Unique name (the URL prefix for HTTP extenders), also the score entry's name.
  // Outlives the scheduling cycle (score entries keep a view of it).
  virtual const std::string& name() const = 0;

  // `feasible` gets the subset of `nodes` the extender accepts; the maps give reasons for the
  // rejected ones (nodes in `failed_and_unresolvable` cannot be helped by preemption).
  virtual util::Result<void> filter(const api::Pod& pod, const std::vector<NodeInfoPtr>& nodes,
                                    std::vector<NodeInfoPtr>& feasible, FailedNodesMap& failed,
                                    FailedNodesMap& failed_and_unresolvable) = 0;
  // Raw scores per host and the weight to apply to them.
  virtual util::Result<void> prioritize(const api::Pod& pod, const std::vector<NodeInfoPtr>& nodes,
                                        std::vector<HostPriority>& scores, std::int64_t& weight) = 0;
  // Binds the pod to the node instead of the framework's Bind plugins.
  virtual util::Result<void> bind(const api::Pod& pod, const std::string& node) = 0;
  // Returns the candidates (and victims) the extender agrees with; `node_infos` resolves victims
  // the extender names by UID.
  virtual util::Result<NodeToVictims> process_preemption(const api::Pod& pod, const NodeToVictims& victims,
                                                         const NodeInfoLister& node_infos) = 0;

  virtual bool is_binder() const = 0;
  virtual bool is_filter() const = 0;
  virtual bool is_prioritizer() const = 0;
  virtual bool supports_preemption() const = 0;
  // Errors from an ignorable extender are logged and skipped instead of failing the pod.
  virtual bool is_ignorable() const = 0;
  // Whether the extender cares about this pod (managedResources).
  virtual bool is_interested(const api::Pod& pod) const = 0;
};

}  // namespace ksched::scheduler::framework
