// Encoding a KubeSchedulerConfiguration back to kubescheduler.config.k8s.io/v1 YAML, as
// kube-scheduler --write-config-to prints it: keys sorted, every defaulted field, profiles with
// their (multiPoint) plugins and defaulted pluginConfig args including apiVersion/kind.
#pragma once
#include <string>

#include "scheduler/config/types.h"

namespace ksched::scheduler::config {

std::string write_config(const KubeSchedulerConfiguration& cfg);

// The same document as compact JSON (keys sorted), e.g. for a /configz body.
std::string write_config_json(const KubeSchedulerConfiguration& cfg);

// The args of one plugin as the v1 YAML object (with apiVersion/kind for in-tree args), "" for none.
std::string write_args(const std::string& plugin, const PluginArgs& args);

}  // namespace ksched::scheduler::config
