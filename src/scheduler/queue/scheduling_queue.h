// PriorityQueue: the scheduling queue (upstream backend/queue/, v1.35: SchedulerQueueingHints GA,
// SchedulerPopFromBackoffQ beta and on).
//
//   activeQ            heap ordered by the profiles' QueueSort less(); Pop() blocks on it
//   backoffQ           two heaps ordered by backoff expiry (timestamp + initial·2^(count−1), capped,
//                      aligned to a 1 s window): pods a plugin rejected (ties broken by QueueSort)
//                      and pods that failed with an error. When activeQ is empty, Pop() takes the
//                      head of the first one without waiting for its backoff (PopFromBackoffQ).
//   unschedulablePods  map; also holds pods rejected by PreEnqueue ("gated")
//   in-flight          pods popped and not yet Done, plus the cluster events seen meanwhile, so a
//                      pod that fails can be requeued at once if an event during its cycle helps it
//
// PodGroups (with QueueOptions::pod_group_priority, i.e. GangScheduling): upstream's newest queue
// queues a PodGroup as one entity. Here the members stay queued one by one but share one
// framework::QueuedGroupInfo per PodGroup (made when the first member enters the queue, dropped
// with its last queued or in-flight member), so they sort as their group — the PodGroup's priority,
// the group's timestamp — and back off as it: one failed cycle is one count of the group's, and the
// members' backoff ends together. A member that arrives while its group is in a pod-group cycle
// (handed over by pop_group_members) is held apart, neither queued nor in flight, and re-enters
// with the group when the cycle's outcome is reported (pod_group_cycle_done): to activeQ if the
// group was placed, after the group's backoff if it failed (upstream's pendingPodGroupPods and
// AddAttemptedPodGroupIfNotPresent). A plain pod pays one null check in the sort and on add, and
// none elsewhere.
//
// Everything is guarded by one mutex; PreEnqueue plugins and queueing hints run under it.
// Time comes from util::Clock; the flush loops are public so tests call them with a fake clock,
// and run() drives them from a background thread in production.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

#include "scheduler/framework/interface.h"
#include "scheduler/queue/events.h"
#include "scheduler/queue/heap.h"
#include "scheduler/queue/nominator.h"
#include "util/clock.h"
#include "util/result.h"

namespace ksched::scheduler::queue {

using QueuedPodInfoPtr = std::shared_ptr<framework::QueuedPodInfo>;

// Metric hooks (the scheduler wires them to its Prometheus registry). Defaults do nothing.
class QueueMetricsRecorder {
 public:
  virtual ~QueueMetricsRecorder() = default;
  // scheduler_queue_incoming_pods_total{queue="active|backoff|unschedulable", event}
  virtual void incoming_pod(std::string_view /*queue*/, std::string_view /*event*/) {}
  // scheduler_pending_pods{queue="active|backoff|unschedulable|gated"} = value
  virtual void pending_pods(std::string_view /*queue*/, std::int64_t /*value*/) {}
  // scheduler_unschedulable_pods{plugin, profile} += delta
  virtual void unschedulable_reason(std::string_view /*plugin*/, std::string_view /*profile*/, int /*delta*/) {}
  // scheduler_inflight_events{event} += delta: the cluster events kept for pods in flight, and the
  // in-flight pods themselves ("PodPopped").
  virtual void in_flight_events(std::string_view /*event*/, int /*delta*/) {}
  // scheduler_queueing_hint_execution_duration_seconds{plugin, event, hint="Queue|QueueSkip"}
  virtual void queueing_hint(std::string_view /*plugin*/, std::string_view /*event*/, std::string_view /*hint*/,
                             double /*seconds*/) {}
};

// plugin name -> the events it registered (with hints).
using PluginEventMap = std::map<std::string, std::vector<framework::ClusterEventWithHint>>;

// An index of the unschedulable pods by the objects they wait on, for one plugin's hints on one kind
// of object (DynamicResources: a claim event concerns the pods that name the claim; GangScheduling:
// a pod event concerns the pods of the added pod's group). Upstream's queue asks every unschedulable
// pod's hints on every event; with thousands of pods waiting that walk is most of the scheduler's
// CPU, so the queue asks, for an event the index narrows, only the pods the index cannot rule out.
//
// Contract: for an event that a registration on `resource` would match, and whose key_of_event is a
// key, every hint `plugin` registered answers Skip for a pod whose keys_of_pod lacks that key.
// The queue then leaves out a pod only when upstream would ask it `plugin`'s hints alone: the pod
// has rejector plugins (unschedulable or pending), its profile is known, and none of its rejectors
// but `plugin` registered an event that such an event could match. Any other pod is asked as before.
struct UnschedulablePodIndex {
  framework::EventResource resource{};
  std::string plugin;
  // Appends the keys the pod waits on (e.g. "ns/claim" for each claim it names).
  std::function<void(const api::Pod&, std::vector<std::string>&)> keys_of_pod;
  // The one key the event concerns, or nullopt when it may concern any pod (e.g. a deallocation).
  std::function<std::optional<std::string>(const std::shared_ptr<const void>& old_obj,
                                           const std::shared_ptr<const void>& new_obj)>
      key_of_event;
};

struct QueueOptions {
  util::Clock* clock = &util::RealClock::instance();
  std::chrono::nanoseconds pod_initial_backoff = std::chrono::seconds(1);
  std::chrono::nanoseconds pod_max_backoff = std::chrono::seconds(10);
  std::chrono::nanoseconds pod_max_in_unschedulable_pods_duration = std::chrono::minutes(5);
  bool pop_from_backoff_q = true;      // SchedulerPopFromBackoffQ (beta, on since v1.33)
  // QueueSort less(); empty = PrioritySort semantics (higher priority, then earlier timestamp).
  std::function<bool(const framework::QueuedPodInfo&, const framework::QueuedPodInfo&)> less;
  // profile (schedulerName) -> PreEnqueue plugins in order.
  std::map<std::string, std::vector<std::shared_ptr<framework::PreEnqueuePlugin>>> pre_enqueue_plugins;
  // profile (schedulerName) -> plugin -> registered events.
  std::map<std::string, PluginEventMap> plugin_events;
  QueueMetricsRecorder* metrics = nullptr;  // not owned; may be null
  Nominator::PodLookup pod_lookup;           // informer lookup for the nominator; may be empty
  std::vector<UnschedulablePodIndex> unschedulable_indexes;  // none: every event walks every pod
  // The priority of the PodGroup (namespace, name) that a pod's spec.schedulingGroup.podGroupName
  // names: its spec.priority, 0 when unset, nullopt while the PodGroup is not known. Set, pods
  // naming a PodGroup are ordered and backed off as their group (above); empty, as pods. Runs under
  // the queue's lock.
  std::function<std::optional<std::int32_t>(std::string_view ns, std::string_view name)> pod_group_priority;
};

// Where a requeued pod ended up.
enum class QueueName { Active, Backoff, Unschedulable };

// Which unschedulable pods a move considers (upstream PreEnqueueCheck); empty = all. Since the
// hints are GA only the binding cycle's failure uses one, to leave the failed pod itself out.
using PreEnqueueCheck = std::function<bool(const api::Pod&)>;

class PriorityQueue final : public framework::PodNominator {
 public:
  explicit PriorityQueue(QueueOptions opts);
  ~PriorityQueue() override;
  PriorityQueue(const PriorityQueue&) = delete;
  PriorityQueue& operator=(const PriorityQueue&) = delete;

  // New unscheduled pod: PreEnqueue plugins, then activeQ or (gated) unschedulablePods.
  void add(framework::PodPtr pod);
  void update(framework::PodPtr old_pod, framework::PodPtr new_pod);
  void delete_pod(const api::Pod& pod);
  // Moves pods found in unschedulablePods/backoffQ to activeQ (ForceActivate).
  void activate(const std::vector<framework::PodPtr>& pods);

  // Blocks until a pod is available or the queue is closed (nullptr). Increments the scheduling
  // cycle and the pod's attempts and marks it in flight.
  QueuedPodInfoPtr pop();
  // Non-blocking variant (nullptr when activeQ is empty).
  QueuedPodInfoPtr try_pop();
  // The pod-group cycle's hand-over (upstream v1.36+ queue: a group's pending pods are popped
  // together): removes every queued member of the groups `groups` names (podgroup::group_key
  // values; a tree's cycle names each of its PodGroups) that `in_group` accepts, wherever it waits
  // (activeQ, both backoff heaps and unschedulablePods, but not a pod PreEnqueue gates), and marks
  // each popped and in flight, as pop() does. The members are found through the queue's index of
  // members by group: the cost is theirs, not the queue's size. Called right after pop() returned
  // `first`; `in_group` runs under the queue's lock.
  // From here until pod_group_cycle_done(first) the group (first's PodGroup record, if it has one)
  // is in its cycle, and members added meanwhile are held. One group at a time: a later call
  // replaces the group in its cycle (upstream's last popped entity).
  std::vector<QueuedPodInfoPtr> pop_group_members(const QueuedPodInfoPtr& first, const std::vector<std::string>& groups,
                                                  const std::function<bool(const api::Pod&)>& in_group);
  // The pod-group cycle that pop_group_members(first, ...) began is over, after its members were
  // requeued or sent to binding. The members held meanwhile re-enter the queue: to activeQ when the
  // group was placed (they are tried next, beside the members placed), else as members of a failed
  // group (backoffQ until the group's backoff ends, then activeQ). Upstream
  // AddAttemptedPodGroupIfNotPresent. No-op for a pod without a PodGroup record.
  void pod_group_cycle_done(const QueuedPodInfoPtr& first, bool placed);
  // The pod's scheduling attempt is over (bound, or about to be requeued): forget in-flight data.
  void done(std::string_view uid);

  // Requeues a pod whose attempt failed: the events seen while it was in flight decide where it
  // goes. Fails if the pod is already queued. The cycle is upstream's parameter; the in-flight
  // record has replaced its use (the move-request cycle of the hints-off path).
  util::Result<void> add_unschedulable_if_not_present(const QueuedPodInfoPtr& pinfo, std::int64_t pod_scheduling_cycle);
  std::int64_t scheduling_cycle() const;

  // A cluster event happened: move unschedulable pods that may now fit (queueing hints decide;
  // they are GA and always on in v1.35).
  void move_all_to_active_or_backoff_queue(const framework::ClusterEvent& event, std::shared_ptr<const void> old_obj,
                                           std::shared_ptr<const void> new_obj, const PreEnqueueCheck& pre_check = {});

  // Backoff-completed pods → activeQ. Called every 1 s by run().
  void flush_backoff_q_completed();
  // Pods stuck in unschedulablePods longer than the max duration → moved. Every 30 s by run().
  void flush_unschedulable_pods_leftover();

  // Starts the background flushers (real time). close() stops them and wakes pop().
  void run();
  void close();

  // Nominator.
  Nominator& nominator() { return nominator_; }
  std::vector<framework::PodInfoPtr> nominated_pods_for_node(std::string_view node_name) const override {
    return nominator_.nominated_pods_for_node(node_name);
  }
  bool has_nominated_pods() const override { return nominator_.has_nominated_pods(); }

  // Introspection (tests, debugging, /debug endpoints).
  struct Counts {
    // held: members waiting for their group's cycle to end (upstream's "pending" pods).
    std::size_t active = 0, backoff = 0, unschedulable = 0, gated = 0, inFlight = 0, held = 0;
  };
  Counts counts() const;
  std::optional<QueueName> where(const api::Pod& pod) const;
  // Copy of the queued info (nullptr when not queued).
  std::shared_ptr<const framework::QueuedPodInfo> get(const api::Pod& pod) const;
  // Pods in all queues (active, backoff, unschedulable) and held — for cache/debug comparison.
  std::vector<framework::PodPtr> pending_pods() const;
  // The members held while their group is in its cycle (upstream PendingPodGroupPods).
  std::vector<framework::PodPtr> pending_pod_group_pods() const;
  std::string pending_pods_summary() const;
  // The queued members of the group (a podgroup::group_key), by pod key: what pop_group_members
  // would consider. For tests of the index.
  std::vector<std::string> queued_group_members(const std::string& group) const;
  // initial·2^(count−1) capped at the maximum, for the pod's unschedulable or error count.
  std::chrono::nanoseconds backoff_duration(const framework::QueuedPodInfo& pinfo) const;
  // When the pod's backoff ends (cached in the pod's info until it is requeued again); for a
  // PodGroup member, its group's (counted and cached in the group's record).
  util::Clock::time_point backoff_expiry(framework::QueuedPodInfo& p) const;

 private:
  struct UnschedEntry;
  enum class Strategy { Skip, AfterBackoff, Immediately };

  struct InFlightEvent {
    framework::ClusterEvent event;
    std::shared_ptr<const void> oldObj, newObj;
  };
  struct InFlightPodMarker {
    std::string uid;
  };
  using InFlightEntry = std::variant<InFlightPodMarker, InFlightEvent>;

  // Requires mu_ (a PodGroup member is given its group's record).
  QueuedPodInfoPtr new_queued_pod_info(framework::PodPtr pod);
  std::chrono::nanoseconds backoff_duration_for(int consecutive_errors, int unschedulable) const;
  // PodGroups (all require mu_): the member's record, found or made; the PodGroup's priority looked
  // up again (true if it changed); the heaps' order restored after a group's record changed.
  void attach_group_locked(framework::QueuedPodInfo& p);
  bool refresh_group_priority_locked(const framework::QueuedPodInfo& p);
  void refix_group_locked(const framework::QueuedGroupInfo* g);
  // A member failed its cycle: the first such requeue since the group was popped counts the
  // group's attempt and restarts its timestamp.
  void record_group_failure_locked(const framework::QueuedPodInfo& p);
  // Holds a new member whose group is in its cycle (true), or leaves it to be queued (false).
  bool hold_if_group_in_cycle_locked(const QueuedPodInfoPtr& p);
  // Where the pod (by namespace and name) is held: its group's list and its index there; the list
  // is null when the pod is not held. A plain pod is never looked up.
  std::pair<std::vector<QueuedPodInfoPtr>*, std::size_t> find_held_locked(const api::Pod& pod);
  util::Clock::time_point align_to_window(util::Clock::time_point t) const;
  bool is_backing_off(framework::QueuedPodInfo& p) const;

  // All *_locked functions require mu_.
  bool run_pre_enqueue_locked(framework::QueuedPodInfo& p);
  bool move_to_active_locked(const QueuedPodInfoPtr& p, std::string_view event, bool from_backoff_q = false);
  // Into the backoff heap its failure kind selects; with PopFromBackoffQ the PreEnqueue plugins
  // run first and a gated pod is parked in unschedulablePods instead (false).
  bool move_to_backoff_locked(const QueuedPodInfoPtr& p, std::string_view event);
  const QueuedPodInfoPtr* backoff_get_locked(const std::string& key) const;
  void backoff_erase_locked(const std::string& key);
  bool has_pod_to_pop_locked() const;
  void unschedulable_put_locked(const QueuedPodInfoPtr& p);
  void unschedulable_erase_locked(const std::string& key);
  // Files the entry in every index (after its pod or its rejectors changed), or takes it out of
  // them (before it leaves).
  void index_unschedulable_locked(const std::string& key, UnschedEntry& e);
  void unindex_unschedulable_locked(const std::string& key, UnschedEntry& e);
  // The unschedulable pods an event can move: the pods an index cannot rule out, or nullopt for all.
  std::optional<std::vector<QueuedPodInfoPtr>> narrowed_candidates_locked(const framework::ClusterEvent& e,
                                                                         const std::shared_ptr<const void>& old_obj,
                                                                         const std::shared_ptr<const void>& new_obj);
  QueueName requeue_via_hint_locked(const QueuedPodInfoPtr& p, Strategy s, std::string_view event);
  Strategy is_pod_worth_requeuing_locked(const framework::QueuedPodInfo& p, const framework::ClusterEvent& e,
                                         const std::shared_ptr<const void>& old_obj,
                                         const std::shared_ptr<const void>& new_obj);
  Strategy hint_for_in_flight_pod_locked(const framework::QueuedPodInfo& p);
  bool is_event_of_interest_locked(const framework::ClusterEvent& e) const;
  void move_pods_locked(const std::vector<QueuedPodInfoPtr>& pods, const framework::ClusterEvent& e,
                        const std::shared_ptr<const void>& old_obj, const std::shared_ptr<const void>& new_obj);
  void record_event_if_any_in_flight_locked(const framework::ClusterEvent& e, const std::shared_ptr<const void>& o,
                                            const std::shared_ptr<const void>& n);
  bool record_events_if_pod_in_flight_locked(const api::Pod& pod, const std::vector<framework::ClusterEvent>& events,
                                             const std::shared_ptr<const void>& o, const std::shared_ptr<const void>& n);
  void done_locked(const std::string& uid);
  // The members index (queued_members_): a pod filed when it enters a queue (again: a no-op),
  // taken out when it leaves every queue (popped or deleted). A plain pod costs two null checks.
  void index_member_locked(const QueuedPodInfoPtr& p);
  void unindex_member_locked(const api::Pod& pod);
  QueuedPodInfoPtr pop_locked();
  void mark_popped_locked(const QueuedPodInfoPtr& p);
  void report_locked();
  void unschedulable_reason_locked(const framework::QueuedPodInfo& p, int delta);

  QueueOptions opts_;
  util::Clock& clock_;
  Nominator nominator_;

  mutable std::mutex mu_;
  std::condition_variable cond_;
  bool closed_ = false;
  std::int64_t scheduling_cycle_ = 0;

  KeyedHeap<QueuedPodInfoPtr> active_;
  KeyedHeap<QueuedPodInfoPtr> backoff_;        // rejected by a plugin
  KeyedHeap<QueuedPodInfoPtr> error_backoff_;  // failed without a rejecting plugin
  // One pod's place in one index: filed under its keys, or among the pods the index cannot narrow.
  struct IndexSlot {
    bool narrowed = false;
    std::vector<std::string> keys;  // when narrowed
  };
  struct UnschedEntry {
    QueuedPodInfoPtr p;
    bool gated;  // as counted in gated_count_ when inserted
    std::vector<IndexSlot> slots;  // one per opts_.unschedulable_indexes
  };
  std::unordered_map<std::string, UnschedEntry> unschedulable_;
  std::size_t gated_count_ = 0;
  // What each of opts_.unschedulable_indexes holds over unschedulable_.
  struct IndexState {
    // key -> the unschedulable pods (keys) the index narrows that wait on it.
    std::unordered_map<std::string, std::vector<std::string>> by_key;
    // The unschedulable pods it cannot narrow: asked on every one of its events.
    std::unordered_set<std::string> others;
    // profile -> the plugins other than the index's whose registrations an event of its resource
    // may match (a pod rejected by one of them is not narrowed).
    std::map<std::string, std::set<std::string>, std::less<>> answering;
  };
  std::vector<IndexState> indexes_;

  // PodGroup key ("<ns>/<name>") -> its record while a member holds it; expired entries are swept
  // when the map has doubled since the last sweep.
  std::unordered_map<std::string, std::weak_ptr<framework::QueuedGroupInfo>> groups_;
  std::uint64_t group_seq_ = 0;
  std::size_t groups_sweep_at_ = 64;
  // The group whose pod-group cycle runs (pop_group_members to pod_group_cycle_done), as upstream's
  // last popped entity: the scheduler runs one cycle at a time.
  std::shared_ptr<framework::QueuedGroupInfo> in_cycle_group_;
  // PodGroup key -> the members that arrived while the group was in its cycle, in arrival order
  // (upstream pendingPodGroupMemberPods). Empty but while a group's cycle runs.
  std::unordered_map<std::string, std::vector<QueuedPodInfoPtr>> held_;
  std::size_t held_count_ = 0;
  // Group key (podgroup::group_key: a PodGroup or a Workload's pod group) -> pod key -> the member,
  // for every member in activeQ, a backoff heap or unschedulablePods (gated too), so that
  // pop_group_members finds a group's members without walking the queues. Upstream keeps its
  // queued members by pod group likewise (podGroupMemberPods, backend/queue/pod_group_member_pods.go
  // at kubernetes/kubernetes 4b6edafc). Ordered by pod key, so a cycle's members come in one order.
  std::unordered_map<std::string, std::map<std::string, QueuedPodInfoPtr>> queued_members_;

  std::list<InFlightEntry> in_flight_events_;
  std::unordered_map<std::string, std::list<InFlightEntry>::iterator> in_flight_pods_;

  // Last values reported to metrics (avoid redundant gauge writes).
  Counts reported_{};
  bool reported_once_ = false;

  std::mutex run_mu_;
  std::condition_variable run_cv_;
  bool stop_ = false;
  std::thread flusher_;
};
// Reports a pod-group cycle's outcome to the queue (pod_group_cycle_done) on every exit of the cycle
// that called pop_group_members(first, ...); set `placed` once the group is placed.
class PodGroupCycleReport {
 public:
  PodGroupCycleReport(PriorityQueue& q, const QueuedPodInfoPtr& first) : q_(q), first_(first) {}
  PodGroupCycleReport(const PodGroupCycleReport&) = delete;
  PodGroupCycleReport& operator=(const PodGroupCycleReport&) = delete;
  ~PodGroupCycleReport() { q_.pod_group_cycle_done(first_, placed); }
  bool placed = false;

 private:
  PriorityQueue& q_;
  const QueuedPodInfoPtr& first_;
};

}  // namespace ksched::scheduler::queue
