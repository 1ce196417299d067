// Controller history (pkg/controller/history and the DaemonSet/StatefulSet revision code): the
// ControllerRevisions that snapshot a workload's pod template, one per distinct template.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "controllers/types.h"
#include "informer/object.h"

namespace ksched::controllers::history {

inline constexpr std::string_view kControllerRevisionHashLabel = "controller.kubernetes.io/hash";

// The revision data of a workload: {"spec":{"template":<template with "$patch":"replace">}}, keys
// sorted at every level (what Go's encoding/json writes for the generic map upstream builds).
std::string template_patch(const PodTemplateSpec& tmpl);

// The revision holds this data (semantically: member order aside).
bool matches(const ControllerRevision& rev, std::string_view patch);

// history.NewControllerRevision: owned by the parent, the template's labels, named
// "<parent>-<hash of the data>" with the hash also in controller.kubernetes.io/hash.
ControllerRevision new_revision(const api::ObjectMeta& parent, std::string_view api_version, std::string_view kind,
                                const api::StringMap& template_labels, std::string data, std::int64_t revision,
                                std::optional<std::int32_t> collision_count);

std::int64_t max_revision(const std::vector<std::shared_ptr<const ControllerRevision>>& revs);

// Sorted by revision, then creation, then name (history.SortControllerRevisions).
void sort_revisions(std::vector<std::shared_ptr<const ControllerRevision>>& revs);

}  // namespace ksched::controllers::history
