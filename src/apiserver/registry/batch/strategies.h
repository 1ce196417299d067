// batch/v1's strategies (pkg/registry/batch/{job,cronjob}/strategy.go): Job and CronJob, each with
// its status subresource. Their pod templates (a CronJob's under spec.jobTemplate.spec) are
// defaulted and validated as pods' specs (registry/core/pod_template.h).
#pragma once
#include <string_view>

#include "apiserver/registry/strategy.h"

namespace ksched::apiserver::registry::batch {

// The strategy of a resource of the group at `version`, or null.
const Strategy* strategy(std::string_view version, std::string_view plural);

}  // namespace ksched::apiserver::registry::batch
