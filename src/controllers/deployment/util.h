// Deployment helpers (pkg/controller/deployment/util): annotations, conditions, the rolling update
// arithmetic (maxSurge/maxUnavailable fenceposts, proportions) and replica set orderings.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/object.h"
#include "controllers/types.h"
#include "informer/object.h"

namespace ksched::controllers::deployment {

using informer::Ptr;
using RSPtr = std::shared_ptr<ReplicaSet>;  // mutable copies while a sync works on them

inline constexpr std::string_view kRevisionAnnotation = "deployment.kubernetes.io/revision";
inline constexpr std::string_view kRevisionHistoryAnnotation = "deployment.kubernetes.io/revision-history";
inline constexpr std::string_view kDesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas";
inline constexpr std::string_view kMaxReplicasAnnotation = "deployment.kubernetes.io/max-replicas";
inline constexpr std::string_view kDefaultUniqueLabelKey = "pod-template-hash";
inline constexpr std::size_t kMaxRevHistoryLengthInChars = 2000;

// Condition reasons (deploymentutil).
inline constexpr std::string_view kReplicaSetUpdatedReason = "ReplicaSetUpdated";
inline constexpr std::string_view kFailedRSCreateReason = "ReplicaSetCreateError";
inline constexpr std::string_view kNewReplicaSetReason = "NewReplicaSetCreated";
inline constexpr std::string_view kFoundNewRSReason = "FoundNewReplicaSet";
inline constexpr std::string_view kNewRSAvailableReason = "NewReplicaSetAvailable";
inline constexpr std::string_view kTimedOutReason = "ProgressDeadlineExceeded";
inline constexpr std::string_view kPausedDeployReason = "DeploymentPaused";
inline constexpr std::string_view kResumedDeployReason = "DeploymentResumed";
inline constexpr std::string_view kMinimumReplicasAvailable = "MinimumReplicasAvailable";
inline constexpr std::string_view kMinimumReplicasUnavailable = "MinimumReplicasUnavailable";

// SetDefaults_Deployment on a copy, for a server that did not default: replicas 1, RollingUpdate
// with maxUnavailable and maxSurge 25%, revisionHistoryLimit 10, progressDeadlineSeconds 600.
void apply_defaults(Deployment& d);

std::int32_t replicas(const Deployment& d);  // spec.replicas (defaulted: never absent)
std::int32_t replicas(const ReplicaSet& rs);
bool is_rolling_update(const Deployment& d);
bool has_progress_deadline(const Deployment& d);
bool has_revision_history_limit(const Deployment& d);

// ResolveFenceposts: maxSurge rounded up, maxUnavailable down, and 1 unavailable when both are 0.
std::pair<std::int32_t, std::int32_t> resolve_fenceposts(const Deployment& d);
std::int32_t max_surge(const Deployment& d);
std::int32_t max_unavailable(const Deployment& d);

// ---- conditions
DeploymentCondition new_condition(std::string_view type, std::string_view status, std::string_view reason,
                                  std::string message, api::Time now);
const DeploymentCondition* get_condition(const DeploymentStatus& s, std::string_view type);
// SetDeploymentCondition: an equal status and reason changes nothing; an equal status keeps the
// transition time.
void set_condition(DeploymentStatus& s, DeploymentCondition c);
void remove_condition(DeploymentStatus& s, std::string_view type);

// ---- annotations
std::int64_t revision_of(const ReplicaSet& rs);  // 0 when absent or not a number
std::int64_t max_revision(const std::vector<RSPtr>& rss);
bool set_deployment_revision(Deployment& d, std::string_view revision);
bool set_new_replica_set_annotations(const Deployment& d, ReplicaSet& rs, const std::string& new_revision, bool exists);
bool set_replicas_annotations(ReplicaSet& rs, std::int32_t desired, std::int32_t max);
bool replicas_annotations_need_update(const ReplicaSet& rs, std::int32_t desired, std::int32_t max);
std::optional<std::int32_t> desired_replicas_annotation(const ReplicaSet& rs);

// ---- replica sets
// Same template once the pod-template-hash label is ignored (EqualIgnoreHash; nil and empty
// lists and maps compare equal, as apimachinery's semantic equality).
bool equal_ignore_hash(const PodTemplateSpec& a, const PodTemplateSpec& b);
// The oldest ReplicaSet whose template equals the Deployment's (FindNewReplicaSet).
RSPtr find_new_replica_set(const Deployment& d, std::vector<RSPtr> rss);
// All but the new one (FindOldReplicaSets' second result).
std::vector<RSPtr> find_old_replica_sets(const Deployment& d, const std::vector<RSPtr>& rss, const RSPtr& new_rs);
std::vector<RSPtr> filter_active(const std::vector<RSPtr>& rss);  // spec.replicas > 0
RSPtr find_active_or_latest(const RSPtr& new_rs, std::vector<RSPtr> old_rss);
bool is_saturated(const Deployment& d, const RSPtr& rs);

std::int32_t sum_spec_replicas(const std::vector<RSPtr>& rss);
std::int32_t sum_status_replicas(const std::vector<RSPtr>& rss);
std::int32_t sum_ready_replicas(const std::vector<RSPtr>& rss);
std::int32_t sum_available_replicas(const std::vector<RSPtr>& rss);

// NewRSNewReplicas: how far the new ReplicaSet may grow now.
std::int32_t new_rs_new_replicas(const Deployment& d, const std::vector<RSPtr>& all, const ReplicaSet& new_rs);
// GetReplicaSetProportion.
std::int32_t replica_set_proportion(const ReplicaSet& rs, const Deployment& d, std::int32_t to_add,
                                    std::int32_t added);

bool deployment_complete(const Deployment& d, const DeploymentStatus& s);
bool deployment_progressing(const Deployment& d, const DeploymentStatus& s);
bool deployment_timed_out(const Deployment& d, const DeploymentStatus& s, api::Time now);

// Orderings (controller.ReplicaSetsBy*).
void sort_by_creation(std::vector<RSPtr>& v);          // oldest first, ties by name
void sort_by_size_older(std::vector<RSPtr>& v);        // larger first, ties older first
void sort_by_size_newer(std::vector<RSPtr>& v);        // larger first, ties newer first
void sort_by_revision(std::vector<RSPtr>& v);          // lower revision first, ties by creation

}  // namespace ksched::controllers::deployment
