// meta/v1: ObjectMeta, ListMeta, Status, LabelSelector, OwnerReference, Condition.
// Member names are the JSON names (a Kubernetes reader finds `metadata.ownerReferences` as
// `metadata.ownerReferences`); C++ keywords get a trailing underscore (`namespace_`).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/object.h"

namespace ksched::api {

struct OwnerReference {
  std::string apiVersion;
  std::string kind;
  std::string name;
  std::string uid;
  std::optional<bool> controller;
  std::optional<bool> blockOwnerDeletion;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<OwnerReference>) {
  using T = OwnerReference;
  return field_list(field("apiVersion", &T::apiVersion), field("kind", &T::kind), field("name", &T::name),
                    field("uid", &T::uid), field("controller", &T::controller),
                    field("blockOwnerDeletion", &T::blockOwnerDeletion));
}

struct ObjectMeta {
  CompactString name;
  ThinString generateName;  // shared by a workload's replicas
  CompactString namespace_;
  CompactString uid;
  CompactString resourceVersion;
  std::int64_t generation = 0;
  OptionalTime creationTimestamp;
  OptionalTime deletionTimestamp;
  Boxed<std::int64_t> deletionGracePeriodSeconds;  // set only while deleting: 8 bytes
  StringMap labels;
  StringMap annotations;
  SharedVector<OwnerReference> ownerReferences;  // copy on write: replicas share one
  SharedVector<std::string> finalizers;  // usually empty: 8 bytes
  RawJson managedFields;  // opaque: kept verbatim, never interpreted
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ObjectMeta>) {
  using T = ObjectMeta;
  return field_list(field("name", &T::name),
                    field("generateName", &T::generateName),
                    field("namespace", &T::namespace_),
                    field("uid", &T::uid),
                    field("resourceVersion", &T::resourceVersion),
                    field("generation", &T::generation),
                    field("creationTimestamp", &T::creationTimestamp),
                    field("deletionTimestamp", &T::deletionTimestamp),
                    field("deletionGracePeriodSeconds", &T::deletionGracePeriodSeconds),
                    field("labels", &T::labels),
                    field("annotations", &T::annotations),
                    field("ownerReferences", &T::ownerReferences),
                    field("finalizers", &T::finalizers),
                    field("managedFields", &T::managedFields));
}

struct ListMeta {
  std::string resourceVersion;
  std::string continue_;
  std::optional<std::int64_t> remainingItemCount;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<ListMeta>) {
  using T = ListMeta;
  return field_list(field("resourceVersion", &T::resourceVersion), field("continue", &T::continue_),
                    field("remainingItemCount", &T::remainingItemCount));
}

struct LabelSelectorRequirement {
  std::string key;
  std::string operator_;  // In, NotIn, Exists, DoesNotExist
  std::vector<std::string> values;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<LabelSelectorRequirement>) {
  using T = LabelSelectorRequirement;
  return field_list(field("key", &T::key), field("operator", &T::operator_), field("values", &T::values));
}

// metav1.LabelSelector. An absent selector (std::optional empty) selects nothing; an empty one
// selects everything (upstream's LabelSelectorAsSelector).
struct LabelSelector {
  StringMap matchLabels;
  std::vector<LabelSelectorRequirement> matchExpressions;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<LabelSelector>) {
  using T = LabelSelector;
  return field_list(field("matchLabels", &T::matchLabels), field("matchExpressions", &T::matchExpressions));
}

struct StatusCause {
  std::string reason;
  std::string message;
  std::string field_;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<StatusCause>) {
  using T = StatusCause;
  return field_list(field("reason", &T::reason), field("message", &T::message), field("field", &T::field_));
}

struct StatusDetails {
  std::string name;
  std::string group;
  std::string kind;
  std::string uid;
  std::vector<StatusCause> causes;
  std::optional<std::int32_t> retryAfterSeconds;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<StatusDetails>) {
  using T = StatusDetails;
  return field_list(field("name", &T::name),   field("group", &T::group),   field("kind", &T::kind),
                    field("uid", &T::uid),     field("causes", &T::causes),
                    field("retryAfterSeconds", &T::retryAfterSeconds));
}

// The error (and success) body of every API call: kind Status, apiVersion v1.
struct Status {
  std::string apiVersion;
  std::string kind;
  ListMeta metadata;
  std::string status;  // Success | Failure
  std::string message;
  std::string reason;  // NotFound, AlreadyExists, Conflict, Invalid, Expired, ...
  std::optional<StatusDetails> details;
  std::int32_t code = 0;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<Status>) {
  using T = Status;
  return field_list(field("apiVersion", &T::apiVersion), field("kind", &T::kind),
                    field("metadata", &T::metadata),     field("status", &T::status),
                    field("message", &T::message),       field("reason", &T::reason),
                    field("details", &T::details),       field("code", &T::code));
}

// metav1.Condition (used by events and newer APIs; core/v1 has its own PodCondition/NodeCondition).
struct Condition {
  std::string type;
  std::string status;
  std::int64_t observedGeneration = 0;
  std::optional<Time> lastTransitionTime;
  std::string reason;
  std::string message;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<Condition>) {
  using T = Condition;
  return field_list(field("type", &T::type),
                    field("status", &T::status),
                    field("observedGeneration", &T::observedGeneration),
                    field("lastTransitionTime", &T::lastTransitionTime),
                    field("reason", &T::reason),
                    field("message", &T::message));
}

// List<T>: the envelope of every list response (PodList, NodeList, ...).
template <class T>
struct List {
  std::string apiVersion;
  std::string kind;
  ListMeta metadata;
  std::vector<T> items;
  Presence present;
  Extra extra;
};
template <class T>
constexpr auto describe(type_tag<List<T>>) {
  using L = List<T>;
  return field_list(field("apiVersion", &L::apiVersion), field("kind", &L::kind), field("metadata", &L::metadata),
                    field("items", &L::items));
}

// A watch event as sent on the wire: {"type": "ADDED", "object": {...}}.
template <class T>
struct WatchEvent {
  std::string type;  // ADDED, MODIFIED, DELETED, BOOKMARK, ERROR
  T object;          // for ERROR the object is a Status; decode it with WatchEvent<Status>
  Presence present;
  Extra extra;
};
template <class T>
constexpr auto describe(type_tag<WatchEvent<T>>) {
  using W = WatchEvent<T>;
  return field_list(field("type", &W::type), field("object", &W::object));
}

}  // namespace ksched::api
