// What upstream's pkg/controller/controller_utils.go gives every controller: expectations, pods
// from templates with their controller reference, batched creation (slow start) and deletion,
// adoption and release of objects by selector (ControllerRefManager), pod predicates and the
// order in which a controller deletes pods when it scales down.
#pragma once
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/core.h"
#include "api/labels.h"
#include "client/rest.h"
#include "controllers/types.h"
#include "informer/object.h"
#include "util/clock.h"

namespace ksched::controllers {

using informer::Ptr;

// ---------------------------------------------------------------- expectations
// ControllerExpectations with UID tracking of deletions (upstream's
// UIDTrackingControllerExpectations): a controller that created or deleted N objects waits until
// its informer has seen those N events before it acts on the same owner again, so a stale cache
// never makes it create or delete twice. Expectations older than five minutes are treated as
// satisfied (ExpectationsTimeout), so a lost event cannot stall an owner for ever.
class Expectations {
 public:
  explicit Expectations(const util::Clock& clock = util::RealClock::instance()) : clock_(clock) {}
  static constexpr std::chrono::minutes kTimeout{5};

  // True when the owner has no outstanding creations or deletions, or they expired.
  bool satisfied(const std::string& owner) const;
  void expect_creations(const std::string& owner, int n);
  // Both at once (SetExpectations).
  void expect(const std::string& owner, int creations, const std::vector<std::string>& deletion_keys);
  // Deletions of these object keys ("ns/name"): each is counted once when observed.
  void expect_deletions(const std::string& owner, const std::vector<std::string>& keys);
  void creation_observed(const std::string& owner);
  // The deletion of `key` was observed (or will not happen): counted if it was expected.
  void deletion_observed(const std::string& owner, const std::string& key);
  // Lowers the outstanding creations (creations that failed or were skipped).
  void lower_creations(const std::string& owner, int n);
  void forget(const std::string& owner);

 private:
  struct Record {
    int add = 0;
    int del = 0;
    std::set<std::string> deleting;
    util::Clock::time_point at{};
  };
  const util::Clock& clock_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Record> records_;
};

// ---------------------------------------------------------------- pods
// Active: neither Succeeded nor Failed, and not being deleted (controller.IsPodActive).
bool is_pod_active(const api::Pod& p);
// Being deleted and not yet terminal (controller.IsPodTerminating).
bool is_pod_terminating(const api::Pod& p);
bool is_pod_ready(const api::Pod& p);
// Ready for at least minReadySeconds (podutil.IsPodAvailable).
bool is_pod_available(const api::Pod& p, std::int32_t min_ready_seconds, api::Time now);

// The owner reference with controller=true, if any (metav1.GetControllerOf).
const api::OwnerReference* controller_of(const api::ObjectMeta& m);
bool same_owner_ref(const api::OwnerReference& a, const api::OwnerReference& b);
bool same_owner_refs(const std::vector<api::OwnerReference>& a, const std::vector<api::OwnerReference>& b);
// metav1.NewControllerRef: controller and blockOwnerDeletion true.
api::OwnerReference new_controller_ref(const api::ObjectMeta& owner, std::string_view api_version,
                                       std::string_view kind);

// A pod for `tmpl` owned by `ref` (GetPodFromTemplate): generateName "<owner name>-", the
// template's labels, annotations and finalizers, its spec.
api::Pod pod_from_template(const PodTemplateSpec& tmpl, std::string_view ns, std::string_view owner_name,
                           const api::OwnerReference* ref);

// Creates pods in batches of 1, 2, 4, ... (slowStartBatch with SlowStartInitialBatchSize 1), each
// batch pipelined on one connection; stops after the first batch with a failure. Returns the
// number created; `on_error` receives each failure, `on_created` each created pod's name.
int create_pods_slow_start(client::RestClient& c, std::vector<api::Pod> pods,
                           const std::function<void(const api::Pod&, const client::ApiError&)>& on_error,
                           const std::function<void(std::string_view name)>& on_created = {});

// Deletes the objects (pipelined); the result of each, in order. NotFound counts as done.
std::vector<client::Result<void>> delete_all(client::RestClient& c, const client::ResourceInfo& info,
                                             const std::vector<std::pair<std::string, std::string>>& ns_names,
                                             const client::DeleteOptions& opts = {});

// Sorts pods so that those to delete first come first (ActivePodsWithRanks): unassigned before
// assigned, Pending before Unknown before Running, not ready before ready, lower
// controller.kubernetes.io/pod-deletion-cost first, more colocated related pods first, ready for a
// shorter time first and newer first (both compared on a logarithmic scale of their age, ties by
// UID), more container restarts first.
void sort_pods_for_deletion(std::vector<Ptr<api::Pod>>& pods, const std::vector<Ptr<api::Pod>>& related,
                            api::Time now);

// ---------------------------------------------------------------- adoption
// What a controller claims (ControllerRefManager): of the candidates, those whose controller
// reference names the owner and that its selector still matches; orphans the selector matches are
// adopted (a patch adds the controller reference), owned ones it no longer matches are released
// (a patch removes it). Adoption needs `can_adopt` (a fresh read: the owner is not being
// deleted); it is asked at most once.
struct ClaimOwner {
  const api::ObjectMeta* meta;
  std::string api_version;
  std::string kind;
};
template <class T>
struct Claimed {
  std::vector<Ptr<T>> objects;
  std::optional<client::ApiError> error;  // the first adoption or release that failed
};
template <class T>
Claimed<T> claim_objects(client::RestClient& c, const ClaimOwner& owner, const labels::Selector& selector,
                         const std::vector<Ptr<T>>& candidates, const std::function<bool()>& can_adopt);

// The JSON of a strategic merge patch that adds (adopt) or removes (release) the controller
// reference of `owner` on an object with uid `uid`.
std::string adopt_patch(const ClaimOwner& owner, std::string_view uid);
std::string release_patch(std::string_view owner_uid, std::string_view uid);

// ---------------------------------------------------------------- misc
// The selector of a workload (nil selects nothing, as upstream).
labels::Selector selector_of(const std::optional<api::LabelSelector>& s);
// Upstream's ResyncPeriod: a period drawn from [base, 2*base) per controller.
std::chrono::milliseconds resync_period(std::chrono::milliseconds base);
api::ObjectReference object_reference(std::string_view api_version, std::string_view kind, const api::ObjectMeta& m);

}  // namespace ksched::controllers
