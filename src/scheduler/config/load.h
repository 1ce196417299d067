// Decoding KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) from YAML or JSON.
//
// Strict like upstream: unknown or duplicate fields fail with
//   strict decoding error: unknown field "profiles[0].foo"
// and plugin args are decoded per plugin (in-tree args types; anything else is kept as JSON in
// UnknownArgs). Type errors and YAML syntax errors carry the line and column.
#pragma once
#include <string>
#include <string_view>

#include "scheduler/config/types.h"
#include "util/result.h"

namespace ksched::scheduler::config {

// Decode and apply upstream defaulting; no validation.
util::Result<KubeSchedulerConfiguration> decode_config(std::string_view text);

// decode_config + validate (validation.h): what kube-scheduler does with --config.
util::Result<KubeSchedulerConfiguration> load_config(std::string_view text);

// load_config on the contents of a file.
util::Result<KubeSchedulerConfiguration> load_config_file(const std::string& path);

// Go's time.ParseDuration ("15s", "1m30s", "1.5h", "300ms", "-2s"); errors use Go's wording.
util::Result<Duration> parse_duration(std::string_view s);
// Go's time.Duration.String(): "15s", "1m30s", "2h0m0s", "1.5ms", "0s".


}  // namespace ksched::scheduler::config
