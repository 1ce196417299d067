// Upstream validation of KubeSchedulerConfiguration and in-tree plugin args
// (pkg/scheduler/apis/config/validation). Each error is one field-path string as upstream's
// field.Error prints it, e.g.
//   profiles[0].pluginConfig[1].args.defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf)
// and validate() joins them like an apimachinery Aggregate ("msg" or "[msg1, msg2]").
#pragma once
#include <string>
#include <vector>

#include "scheduler/config/types.h"
#include "util/result.h"

namespace ksched::scheduler::config {

std::vector<std::string> validation_errors(const KubeSchedulerConfiguration& cfg);
util::Result<void> validate(const KubeSchedulerConfiguration& cfg);

// "msg" for one error, "[a, b]" for several (duplicates dropped), "" for none.
std::string aggregate_errors(const std::vector<std::string>& errs);

// Per-args validation; `path` is the args' field path ("" for messages relative to the args,
// as a plugin constructor reports them). One overload per in-tree args type.
std::vector<std::string> validate_args(const PluginArgs& args, const std::string& path);
std::vector<std::string> validate_plugin_args(const DefaultPreemptionArgs& a, const std::string& path);
std::vector<std::string> validate_plugin_args(const InterPodAffinityArgs& a, const std::string& path);
std::vector<std::string> validate_plugin_args(const NodeAffinityArgs& a, const std::string& path);
std::vector<std::string> validate_plugin_args(const NodeResourcesBalancedAllocationArgs& a, const std::string& path);
std::vector<std::string> validate_plugin_args(const NodeResourcesFitArgs& a, const std::string& path);
std::vector<std::string> validate_plugin_args(const PodTopologySpreadArgs& a, const std::string& path);
std::vector<std::string> validate_plugin_args(const VolumeBindingArgs& a, const std::string& path);

}  // namespace ksched::scheduler::config
