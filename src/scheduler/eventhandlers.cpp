// Informer event handlers (upstream pkg/scheduler/eventhandlers.go, v1.35: queueing hints are GA):
// assigned pods and nodes feed the cache, unassigned pods of our profiles feed the queue, and
// every change that may help a rejected pod becomes a queue move with the matching ClusterEvent.
#include <string>

#include "api/helpers.h"
#include "client/resources_dra.h"
#include "client/resources_scheduling.h"
#include "scheduler/config/features.h"
#include "scheduler/eventhandlers.h"
#include "scheduler/framework/plugin_helper.h"
#include "scheduler/queue/events.h"
#include "scheduler/scheduler.h"
#include "util/log.h"

namespace ksched::scheduler {

using framework::ClusterEvent;
using framework::EventResource;

namespace {

std::map<std::string, std::string> condition_statuses(const api::Node& n) {
  std::map<std::string, std::string> m;
  for (const auto& c : n.status.conditions) m[c.type] = c.status;
  return m;
}

ClusterEvent ev(EventResource r, std::uint32_t action, const char* label) { return queue::make_event(r, action, label); }

}  // namespace

std::vector<ClusterEvent> node_scheduling_property_change(const api::Node& new_node, const api::Node& old_node) {
  std::vector<ClusterEvent> out;
  // Becoming schedulable only; cordoning cannot help anyone.
  if (new_node.spec.unschedulable != old_node.spec.unschedulable && !new_node.spec.unschedulable)
    out.push_back(ev(EventResource::Node, framework::kUpdateNodeTaint, "NodeSpecUnschedulableChange"));
  if (!(new_node.status.allocatable == old_node.status.allocatable))
    out.push_back(ev(EventResource::Node, framework::kUpdateNodeAllocatable, "NodeAllocatableChange"));
  if (!(new_node.metadata.labels == old_node.metadata.labels))
    out.push_back(ev(EventResource::Node, framework::kUpdateNodeLabel, "NodeLabelChange"));
  if (!framework::taints_equal(new_node.spec.taints, old_node.spec.taints))
    out.push_back(ev(EventResource::Node, framework::kUpdateNodeTaint, "NodeTaintChange"));
  if (condition_statuses(new_node) != condition_statuses(old_node))
    out.push_back(ev(EventResource::Node, framework::kUpdateNodeCondition, "NodeConditionChange"));
  if (!(new_node.metadata.annotations == old_node.metadata.annotations))
    out.push_back(ev(EventResource::Node, framework::kUpdateNodeAnnotation, "NodeAnnotationChange"));
  // Upstream looks at declared features only with their gate on.
  if (config::features().nodeDeclaredFeatures && new_node.status.declaredFeatures != old_node.status.declaredFeatures)
    out.push_back(ev(EventResource::Node, framework::kUpdateNodeDeclaredFeature, "NodeDeclaredFeatureChange"));
  return out;
}

void Scheduler::requeue_on(const ClusterEvent& e, std::shared_ptr<const void> old_obj,
                           std::shared_ptr<const void> new_obj) {
  const auto start = clock_->now();
  queue_->move_all_to_active_or_backoff_queue(e, std::move(old_obj), std::move(new_obj));
  metrics_->set().eventHandlingDuration.with({e.label}).observe(metrics::seconds_since(start, clock_->now()));
}

// ---------------------------------------------------------------- pods
// Upstream's two filtered handlers: A (assigned pods → cache) and B (unassigned pods of our
// profiles → queue), one after the other on the informer's listener thread.

namespace {

// With GangScheduling, pods of a pod group are registered in the pod-group state first (upstream
// v1.35: the WorkloadManager before the cache or the queue), so PreEnqueue counts the pod itself.
class BothPodHandlers final : public informer::ResourceEventHandler<api::Pod> {
 public:
  BothPodHandlers(std::shared_ptr<ResourceEventHandler<api::Pod>> a, std::shared_ptr<ResourceEventHandler<api::Pod>> b,
                  podgroup::Manager* groups)
      : a_(std::move(a)), b_(std::move(b)), groups_(groups) {}
  void OnAdd(const informer::Ptr<api::Pod>& o, bool initial) override {
    if (groups_ && podgroup::has_group(*o)) groups_->on_pod_add(o);
    a_->OnAdd(o, initial);
    b_->OnAdd(o, initial);
  }
  void OnUpdate(const informer::Ptr<api::Pod>& old_obj, const informer::Ptr<api::Pod>& new_obj) override {
    if (groups_ && (podgroup::has_group(*new_obj) || podgroup::has_group(*old_obj))) {
      groups_->on_pod_update(old_obj, new_obj);
    }
    a_->OnUpdate(old_obj, new_obj);
    b_->OnUpdate(old_obj, new_obj);
  }
  void OnDelete(const informer::Deleted<api::Pod>& d) override {
    if (groups_ && d.obj && podgroup::has_group(*d.obj)) groups_->on_pod_delete(d.obj);
    a_->OnDelete(d);
    b_->OnDelete(d);
  }

 private:
  std::shared_ptr<ResourceEventHandler<api::Pod>> a_, b_;
  podgroup::Manager* groups_;
};

}  // namespace

void Scheduler::init_pod_handler() {
  auto to_cache = std::make_shared<informer::ResourceEventHandlerFuncs<api::Pod>>();
  to_cache->add = [this](const framework::PodPtr& p, bool) { add_pod_to_cache(p); };
  to_cache->update = [this](const framework::PodPtr& a, const framework::PodPtr& b) { update_pod_in_cache(a, b); };
  to_cache->del = [this](const informer::Deleted<api::Pod>& d) { delete_pod_from_cache(d.obj); };
  auto to_queue = std::make_shared<informer::ResourceEventHandlerFuncs<api::Pod>>();
  to_queue->add = [this](const framework::PodPtr& p, bool) { add_pod_to_queue(p); };
  to_queue->update = [this](const framework::PodPtr& a, const framework::PodPtr& b) { update_pod_in_queue(a, b); };
  to_queue->del = [this](const informer::Deleted<api::Pod>& d) { delete_pod_from_queue(d.obj); };
  using Filtering = informer::FilteringResourceEventHandler<api::Pod>;
  pod_handler_ = std::make_shared<BothPodHandlers>(
      std::make_shared<Filtering>([](const api::Pod& p) { return api::pod_is_assigned(p); }, std::move(to_cache)),
      std::make_shared<Filtering>([this](const api::Pod& p) { return !api::pod_is_assigned(p) && responsible_for(p); },
                                  std::move(to_queue)),
      pod_groups_.get());
}

void Scheduler::on_pod_add(const framework::PodPtr& pod) { pod_handler_->OnAdd(pod, false); }

void Scheduler::on_pod_update(const framework::PodPtr& old_pod, const framework::PodPtr& new_pod) {
  pod_handler_->OnUpdate(old_pod, new_pod);
}

void Scheduler::on_pod_delete(const framework::PodPtr& pod) {
  pod_handler_->OnDelete(informer::Deleted<api::Pod>{pod, false, api::key_of(*pod)});
}

void Scheduler::add_pod_to_cache(const framework::PodPtr& pod) {
  if (auto v = log::V(3); v.enabled()) v.info("Add event for scheduled pod", {{"pod", api::key_of(*pod)}});
  if (auto r = cache_->add_pod(pod); !r.ok()) {
    log::error("Scheduler cache AddPod failed", {{"pod", api::key_of(*pod)}, {"err", r.error()}});
  }
  requeue_on(queue::event_assigned_pod_add(), nullptr, pod);
}

void Scheduler::update_pod_in_cache(const framework::PodPtr& old_pod, const framework::PodPtr& new_pod) {
  // A delete followed quickly by an add of a new pod with the same name can arrive as an update.
  if (old_pod->metadata.uid != new_pod->metadata.uid) {
    delete_pod_from_cache(old_pod);
    add_pod_to_cache(new_pod);
    return;
  }
  // Upstream syncPodWithDispatcher: a queued status patch sees the pod's newest status.
  if (api_dispatcher_) api_dispatcher_->sync_object(*new_pod);
  if (auto r = cache_->update_pod(old_pod, new_pod); !r.ok()) {
    log::error("Scheduler cache UpdatePod failed", {{"pod", api::key_of(*old_pod)}, {"err", r.error()}});
  }
  for (const auto& e : queue::pod_scheduling_property_change(*new_pod, *old_pod)) requeue_on(e, old_pod, new_pod);
}

void Scheduler::delete_pod_from_cache(const framework::PodPtr& pod) {
  log::V(3).info("Delete event for scheduled pod", {{"pod", api::key_of(*pod)}});
  if (auto r = cache_->remove_pod(*pod); !r.ok()) {
    log::error("Scheduler cache RemovePod failed", {{"pod", api::key_of(*pod)}, {"err", r.error()}});
  }
  requeue_on(queue::event_assigned_pod_delete(), pod, nullptr);
}

void Scheduler::add_pod_to_queue(const framework::PodPtr& pod) {
  if (auto v = log::V(3); v.enabled()) v.info("Add event for unscheduled pod", {{"pod", api::key_of(*pod)}});
  queue_->add(pod);
  // Upstream v1.35 with GangScheduling: a new pod may complete a gang whose members PreEnqueue holds.
  if (pod_groups_) requeue_on(queue::make_event(EventResource::UnscheduledPod, framework::kAdd, "UnscheduledPodAdd"), nullptr, pod);
}

void Scheduler::on_workload_add(const std::shared_ptr<const api::schedulingv1alpha1::Workload>& w) {
  if (!pod_groups_) return;
  pod_groups_->on_workload_add(w);
  requeue_on(ev(EventResource::Workload, framework::kAdd, "WorkloadAdd"), nullptr, w);
}

void Scheduler::on_workload_update(const std::shared_ptr<const api::schedulingv1alpha1::Workload>& old_w,
                                   const std::shared_ptr<const api::schedulingv1alpha1::Workload>& new_w) {
  if (!pod_groups_) return;
  pod_groups_->on_workload_update(new_w);
  requeue_on(ev(EventResource::Workload, framework::kUpdateOther, "WorkloadUpdate"), old_w, new_w);
}

void Scheduler::on_workload_delete(const std::shared_ptr<const api::schedulingv1alpha1::Workload>& w) {
  if (pod_groups_) pod_groups_->on_workload_delete(w);
}

void Scheduler::on_pod_group_add(const std::shared_ptr<const api::schedulingv1beta1::PodGroup>& pg) {
  if (!pod_groups_) return;
  pod_groups_->on_pod_group_add(pg);
  requeue_on(ev(EventResource::PodGroup, framework::kAdd, "PodGroupAdd"), nullptr, pg);
}

void Scheduler::on_pod_group_update(const std::shared_ptr<const api::schedulingv1beta1::PodGroup>& old_pg,
                                    const std::shared_ptr<const api::schedulingv1beta1::PodGroup>& new_pg) {
  if (!pod_groups_) return;
  pod_groups_->on_pod_group_update(new_pg);
  requeue_on(ev(EventResource::PodGroup, framework::kUpdateOther, "PodGroupUpdate"), old_pg, new_pg);
}

void Scheduler::on_pod_group_delete(const std::shared_ptr<const api::schedulingv1beta1::PodGroup>& pg) {
  if (pod_groups_) pod_groups_->on_pod_group_delete(pg);
}

void Scheduler::on_composite_pod_group_add(const std::shared_ptr<const api::schedulingv1alpha3::CompositePodGroup>& cpg) {
  if (!pod_groups_) return;
  pod_groups_->on_composite_add(cpg);
  requeue_on(ev(EventResource::CompositePodGroup, framework::kAdd, "CompositePodGroupAdd"), nullptr, cpg);
}

void Scheduler::on_composite_pod_group_update(
    const std::shared_ptr<const api::schedulingv1alpha3::CompositePodGroup>& old_cpg,
    const std::shared_ptr<const api::schedulingv1alpha3::CompositePodGroup>& new_cpg) {
  if (!pod_groups_) return;
  pod_groups_->on_composite_update(new_cpg);
  requeue_on(ev(EventResource::CompositePodGroup, framework::kUpdateOther, "CompositePodGroupUpdate"), old_cpg, new_cpg);
}

void Scheduler::on_composite_pod_group_delete(const std::shared_ptr<const api::schedulingv1alpha3::CompositePodGroup>& cpg) {
  if (pod_groups_) pod_groups_->on_composite_delete(cpg);
}

void Scheduler::update_pod_in_queue(const framework::PodPtr& old_pod, const framework::PodPtr& new_pod) {
  // Equal resourceVersions: a resync, nothing changed.
  if (old_pod->metadata.resourceVersion == new_pod->metadata.resourceVersion) return;
  if (api_dispatcher_) api_dispatcher_->sync_object(*new_pod);
  // The scheduler's own assume already accounts for this pod.
  if (cache_->is_assumed_pod(*new_pod)) return;
  queue_->update(old_pod, new_pod);
}

void Scheduler::delete_pod_from_queue(const framework::PodPtr& pod) {
  log::V(3).info("Delete event for unscheduled pod", {{"pod", api::key_of(*pod)}});
  queue_->delete_pod(*pod);
  if (auto* fwk = profile(pod->spec.schedulerName)) {
    // A pod waiting on Permit is rejected; what it reserved is then free for others.
    if (fwk->get_waiting_pod(pod->metadata.uid)) {
      fwk->reject_waiting_pod(pod->metadata.uid);
      requeue_on(queue::event_assigned_pod_delete(), pod, nullptr);
    }
  }
}

// ---------------------------------------------------------------- nodes

void Scheduler::on_node_add(const framework::NodePtr& node) {
  log::V(3).info("Add event for node", {{"node", node->metadata.name}});
  cache_->add_node(node);
  requeue_on(ev(EventResource::Node, framework::kAdd, "NodeAdd"), nullptr, node);
}

void Scheduler::on_node_update(const framework::NodePtr& old_node, const framework::NodePtr& new_node) {
  log::V(4).info("Update event for node", {{"node", new_node->metadata.name}});
  cache_->update_node(old_node, new_node);
  for (const auto& e : node_scheduling_property_change(*new_node, *old_node)) requeue_on(e, old_node, new_node);
}

void Scheduler::on_node_delete(const framework::NodePtr& node) {
  log::V(3).info("Delete event for node", {{"node", node->metadata.name}});
  if (auto r = cache_->remove_node(*node); !r.ok()) {
    log::error("Scheduler cache RemoveNode failed", {{"node", node->metadata.name}, {"err", r.error()}});
  }
}

// ---------------------------------------------------------------- wiring to the informers

std::shared_ptr<informer::SharedIndexInformer<api::Pod>> scheduler_pod_informer(informer::SharedInformerFactory& f) {
  informer::InformerOptions<api::Pod> o;
  o.reflector.decode.dropManagedFields = true;
  return f.informer_for<api::Pod>(std::move(o),
                                  [](client::ListOptions& lo) { lo.fieldSelector = kNonTerminalPodsSelector; },
                                  "scheduler");
}

namespace {

// Wires one informer's add/update/delete to three callbacks of the scheduler.
template <class T, class Add, class Update, class Delete>
std::function<bool()> add_handlers(informer::SharedIndexInformer<T>& inf, Add add, Update update, Delete del) {
  auto h = std::make_shared<informer::ResourceEventHandlerFuncs<T>>();
  h->add = [add](const informer::Ptr<T>& o, bool) { add(o); };
  h->update = [update](const informer::Ptr<T>& a, const informer::Ptr<T>& b) { update(a, b); };
  h->del = [del](const informer::Deleted<T>& d) {
    if (d.obj) del(d.obj);
  };
  auto reg = inf.add_event_handler(h);
  return [reg] { return reg->has_synced(); };
}

// Storage and CSI objects: their adds and updates only move queued pods, as the cluster events
// `add` and `update` of `resource` (their deletes help no pod).
template <class T>
std::function<bool()> add_queue_move_handlers(Scheduler& sched, informer::SharedInformerFactory& f,
                                              EventResource resource, const char* add, const char* update) {
  return add_handlers<T>(
      *f.informer_for<T>(),
      [&sched, e = ev(resource, framework::kAdd, add)](const informer::Ptr<T>& o) { sched.requeue_on(e, nullptr, o); },
      [&sched, e = ev(resource, framework::kUpdate, update)](const informer::Ptr<T>& a, const informer::Ptr<T>& b) {
        sched.requeue_on(e, a, b);
      },
      [](const informer::Ptr<T>&) {});
}

// resource.k8s.io objects reach the scheduler through on_dra_change, as informer handlers.
template <class T>
std::function<bool()> add_dra_handlers(Scheduler& sched, informer::SharedInformerFactory& f) {
  // The scheduler never reads managedFields; slices are many and large, so they are not kept.
  informer::InformerOptions<T> o;
  o.reflector.decode.dropManagedFields = true;
  return add_handlers<T>(
      *f.informer_for<T>(std::move(o)), [&sched](const informer::Ptr<T>& o) { on_dra_change(sched, nullptr, o); },
      [&sched](const informer::Ptr<T>& a, const informer::Ptr<T>& b) { on_dra_change(sched, a, b); },
      [&sched](const informer::Ptr<T>& o) { on_dra_change(sched, o, nullptr); });
}

// The DRA state first, then a move of the queued pods the change may help (upstream: the assume
// cache's and the informers' handlers); a delete helps no pod.
template <class T, class Methods>
void feed_and_requeue(Scheduler& sched, const std::shared_ptr<const T>& old_obj, const std::shared_ptr<const T>& new_obj,
                      const ClusterEvent& added, const ClusterEvent& updated, Methods feed) {
  auto& m = sched.dra_manager();
  if (!new_obj) {
    if (old_obj) feed.del(m, old_obj);
    return;
  }
  if (old_obj) {
    feed.update(m, old_obj, new_obj);
    sched.requeue_on(updated, old_obj, new_obj);
  } else {
    feed.add(m, new_obj);
    sched.requeue_on(added, nullptr, new_obj);
  }
}

// The manager's three feeding methods of one kind.
template <class A, class U, class D>
struct Feed {
  A add;
  U update;
  D del;
};
template <class A, class U, class D>
Feed(A, U, D) -> Feed<A, U, D>;

}  // namespace

void on_dra_change(Scheduler& sched, const std::shared_ptr<const api::resourcev1::DeviceClass>& old_obj,
                   const std::shared_ptr<const api::resourcev1::DeviceClass>& new_obj) {
  static const ClusterEvent added = ev(EventResource::DeviceClass, framework::kAdd, "DeviceClassAdd");
  static const ClusterEvent updated = ev(EventResource::DeviceClass, framework::kUpdate, "DeviceClassUpdate");
  feed_and_requeue(sched, old_obj, new_obj, added, updated,
                   Feed{[](dra::Manager& m, const auto& o) { m.on_class_add(o); },
                        [](dra::Manager& m, const auto& a, const auto& b) { m.on_class_update(a, b); },
                        [](dra::Manager& m, const auto& o) { m.on_class_delete(o); }});
}
void on_dra_change(Scheduler& sched, const std::shared_ptr<const api::resourcev1::ResourceSlice>& old_obj,
                   const std::shared_ptr<const api::resourcev1::ResourceSlice>& new_obj) {
  static const ClusterEvent added = ev(EventResource::ResourceSlice, framework::kAdd, "ResourceSliceAdd");
  static const ClusterEvent updated = ev(EventResource::ResourceSlice, framework::kUpdate, "ResourceSliceUpdate");
  feed_and_requeue(sched, old_obj, new_obj, added, updated,
                   Feed{[](dra::Manager& m, const auto& o) { m.on_slice_add(o); },
                        [](dra::Manager& m, const auto& a, const auto& b) { m.on_slice_update(a, b); },
                        [](dra::Manager& m, const auto& o) { m.on_slice_delete(o); }});
}
void on_dra_change(Scheduler& sched, const std::shared_ptr<const api::resourcev1::ResourceClaim>& old_obj,
                   const std::shared_ptr<const api::resourcev1::ResourceClaim>& new_obj) {
  static const ClusterEvent added = ev(EventResource::ResourceClaim, framework::kAdd, "ResourceClaimAdd");
  static const ClusterEvent updated = ev(EventResource::ResourceClaim, framework::kUpdate, "ResourceClaimUpdate");
  feed_and_requeue(sched, old_obj, new_obj, added, updated,
                   Feed{[](dra::Manager& m, const auto& o) { m.on_claim_add(o); },
                        [](dra::Manager& m, const auto& a, const auto& b) { m.on_claim_update(a, b); },
                        [](dra::Manager& m, const auto& o) { m.on_claim_delete(o); }});
}

std::vector<std::function<bool()>> add_dra_event_handlers(Scheduler& sched, informer::SharedInformerFactory& f) {
  namespace r = api::resourcev1;
  return {add_dra_handlers<r::DeviceClass>(sched, f), add_dra_handlers<r::ResourceSlice>(sched, f),
          add_dra_handlers<r::ResourceClaim>(sched, f)};
}

std::vector<std::function<bool()>> add_all_event_handlers(Scheduler& sched, informer::SharedInformerFactory& f) {
  // Pods go to the scheduler's two filtered handlers; nodes feed the cache; storage and CSI
  // objects only move queued pods; resource.k8s.io objects, when a profile uses DRA, feed the
  // DRA state and move queued pods.
  Scheduler* sc = &sched;
  auto pods = scheduler_pod_informer(f)->add_event_handler(sched.pod_event_handler());
  std::vector<std::function<bool()>> synced = {
      [pods] { return pods->has_synced(); },
      add_handlers<api::Node>(
          *f.informer_for<api::Node>(), [sc](const auto& n) { sc->on_node_add(n); },
          [sc](const auto& a, const auto& b) { sc->on_node_update(a, b); }, [sc](const auto& n) { sc->on_node_delete(n); }),
      add_queue_move_handlers<api::PersistentVolume>(sched, f, EventResource::PersistentVolume, "PvAdd", "PvUpdate"),
      add_queue_move_handlers<api::PersistentVolumeClaim>(sched, f, EventResource::PersistentVolumeClaim, "PvcAdd",
                                                          "PvcUpdate"),
      add_queue_move_handlers<api::StorageClass>(sched, f, EventResource::StorageClass, "StorageClassAdd",
                                                 "StorageClassUpdate"),
      add_queue_move_handlers<api::CSINode>(sched, f, EventResource::CSINode, "CSINodeAdd", "CSINodeUpdate"),
      add_queue_move_handlers<api::CSIDriver>(sched, f, EventResource::CSIDriver, "CSIDriverAdd", "CSIDriverUpdate"),
      add_queue_move_handlers<api::CSIStorageCapacity>(sched, f, EventResource::CSIStorageCapacity,
                                                       "CSIStorageCapacityAdd", "CSIStorageCapacityUpdate"),
  };
  if (sched.uses_dra()) {
    for (auto& s : add_dra_event_handlers(sched, f)) synced.push_back(std::move(s));
  }
  // Upstream registers the Workload (v1.35) and PodGroup (v1.36+) informers with GenericWorkload;
  // they feed only GangScheduling's state here, which exists with its gate. The API server must
  // serve both (ksched's does with GenericWorkload).
  if (sched.pod_group_manager() != nullptr) {
    namespace s1 = api::schedulingv1alpha1;
    namespace sb1 = api::schedulingv1beta1;
    synced.push_back(add_handlers<s1::Workload>(
        *f.informer_for<s1::Workload>(), [sc](const auto& w) { sc->on_workload_add(w); },
        [sc](const auto& a, const auto& b) { sc->on_workload_update(a, b); },
        [sc](const auto& w) { sc->on_workload_delete(w); }));
    synced.push_back(add_handlers<sb1::PodGroup>(
        *f.informer_for<sb1::PodGroup>(), [sc](const auto& pg) { sc->on_pod_group_add(pg); },
        [sc](const auto& a, const auto& b) { sc->on_pod_group_update(a, b); },
        [sc](const auto& pg) { sc->on_pod_group_delete(pg); }));
    // v1.37 (gate CompositePodGroup): the API server must serve scheduling.k8s.io/v1alpha3
    // compositepodgroups (ksched's does with GenericWorkload and CompositePodGroup).
    if (sched.pod_group_manager()->hierarchies()) {
      namespace sa3 = api::schedulingv1alpha3;
      synced.push_back(add_handlers<sa3::CompositePodGroup>(
          *f.informer_for<sa3::CompositePodGroup>(), [sc](const auto& c) { sc->on_composite_pod_group_add(c); },
          [sc](const auto& a, const auto& b) { sc->on_composite_pod_group_update(a, b); },
          [sc](const auto& c) { sc->on_composite_pod_group_delete(c); }));
    }
  }
  return synced;
}

}  // namespace ksched::scheduler
