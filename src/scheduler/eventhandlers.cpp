// Informer event handlers (upstream pkg/scheduler/eventhandlers.go, v1.32 with queueing hints):
// assigned pods and nodes feed the cache, unassigned pods of our profiles feed the queue, and
// every change that may help a rejected pod becomes a queue move with the matching ClusterEvent.
#include <string>

#include "scheduler/eventhandlers.h"
#include "scheduler/framework/plugin_helper.h"
#include "scheduler/plugins/nodename/nodename.h"
#include "scheduler/plugins/noderesources/fit.h"
#include "scheduler/plugins/nodeports/nodeports.h"
#include "scheduler/queue/events.h"
#include "scheduler/scheduler.h"
#include "util/log.h"

namespace ksched::scheduler {

using framework::ClusterEvent;
using framework::EventResource;

namespace {

std::string pod_key(const api::Pod& p) { return p.metadata.namespace_ + "/" + p.metadata.name; }

bool assigned(const api::Pod& p) { return !p.spec.nodeName.empty(); }

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
  return out;
}

void Scheduler::move_all(const ClusterEvent& e, std::shared_ptr<const void> old_obj, std::shared_ptr<const void> new_obj,
                         const queue::PreEnqueueCheck& pre_check) {
  const auto start = clock_->now();
  queue_->move_all_to_active_or_backoff_queue(e, std::move(old_obj), std::move(new_obj), pre_check);
  if (opts_.metrics) {
    opts_.metrics->eventHandlingDuration.with({e.label}).observe(metrics::seconds_since(start, clock_->now()));
  }
}

// ---------------------------------------------------------------- pods
// Two filtered handlers upstream: A (assigned pods → cache) and B (unassigned pods of our
// profiles → queue). An update crossing a filter becomes an add or a delete on that handler.

void Scheduler::on_pod_add(const framework::PodPtr& pod) {
  if (assigned(*pod)) {
    add_pod_to_cache(pod);
  } else if (responsible_for(*pod)) {
    add_pod_to_queue(pod);
  }
}

void Scheduler::on_pod_update(const framework::PodPtr& old_pod, const framework::PodPtr& new_pod) {
  const bool a_old = assigned(*old_pod), a_new = assigned(*new_pod);
  // Handler A.
  if (a_old && a_new) {
    update_pod_in_cache(old_pod, new_pod);
  } else if (!a_old && a_new) {
    add_pod_to_cache(new_pod);
  } else if (a_old && !a_new) {
    delete_pod_from_cache(old_pod);
  }
  // Handler B.
  const bool b_old = !a_old && responsible_for(*old_pod), b_new = !a_new && responsible_for(*new_pod);
  if (b_old && b_new) {
    update_pod_in_queue(old_pod, new_pod);
  } else if (!b_old && b_new) {
    add_pod_to_queue(new_pod);
  } else if (b_old && !b_new) {
    delete_pod_from_queue(old_pod);
  }
}

void Scheduler::on_pod_delete(const framework::PodPtr& pod) {
  if (assigned(*pod)) {
    delete_pod_from_cache(pod);
  } else if (responsible_for(*pod)) {
    delete_pod_from_queue(pod);
  }
}

void Scheduler::add_pod_to_cache(const framework::PodPtr& pod) {
  if (auto v = log::V(3); v.enabled()) v.info("Add event for scheduled pod", {{"pod", pod_key(*pod)}});
  if (auto r = cache_->add_pod(pod); !r.ok()) {
    log::error("Scheduler cache AddPod failed", {{"pod", pod_key(*pod)}, {"err", r.error()}});
  }
  if (opts_.queueingHints) {
    move_all(queue::event_assigned_pod_add(), nullptr, pod);
  } else {
    queue_->assigned_pod_added(pod);
  }
}

void Scheduler::update_pod_in_cache(const framework::PodPtr& old_pod, const framework::PodPtr& new_pod) {
  // A delete followed quickly by an add of a new pod with the same name can arrive as an update.
  if (old_pod->metadata.uid != new_pod->metadata.uid) {
    delete_pod_from_cache(old_pod);
    add_pod_to_cache(new_pod);
    return;
  }
  if (auto r = cache_->update_pod(old_pod, new_pod); !r.ok()) {
    log::error("Scheduler cache UpdatePod failed", {{"pod", pod_key(*old_pod)}, {"err", r.error()}});
  }
  for (const auto& e : queue::pod_scheduling_property_change(*new_pod, *old_pod)) {
    if (opts_.queueingHints) {
      move_all(e, old_pod, new_pod);
    } else {
      queue_->assigned_pod_updated(old_pod, new_pod, e);
    }
  }
}

void Scheduler::delete_pod_from_cache(const framework::PodPtr& pod) {
  log::V(3).info("Delete event for scheduled pod", {{"pod", pod_key(*pod)}});
  if (auto r = cache_->remove_pod(*pod); !r.ok()) {
    log::error("Scheduler cache RemovePod failed", {{"pod", pod_key(*pod)}, {"err", r.error()}});
  }
  move_all(queue::event_assigned_pod_delete(), pod, nullptr);
}

void Scheduler::add_pod_to_queue(const framework::PodPtr& pod) {
  if (auto v = log::V(3); v.enabled()) v.info("Add event for unscheduled pod", {{"pod", pod_key(*pod)}});
  queue_->add(pod);
}

void Scheduler::update_pod_in_queue(const framework::PodPtr& old_pod, const framework::PodPtr& new_pod) {
  // Equal resourceVersions: a resync, nothing changed.
  if (old_pod->metadata.resourceVersion == new_pod->metadata.resourceVersion) return;
  // The scheduler's own assume already accounts for this pod.
  if (cache_->is_assumed_pod(*new_pod)) return;
  queue_->update(old_pod, new_pod);
}

void Scheduler::delete_pod_from_queue(const framework::PodPtr& pod) {
  log::V(3).info("Delete event for unscheduled pod", {{"pod", pod_key(*pod)}});
  queue_->delete_pod(*pod);
  if (auto* fwk = profile(pod->spec.schedulerName)) {
    // A pod waiting on Permit is rejected; what it reserved is then free for others.
    if (fwk->get_waiting_pod(pod->metadata.uid)) {
      fwk->reject_waiting_pod(pod->metadata.uid);
      move_all(queue::event_assigned_pod_delete(), pod, nullptr);
    }
  }
}

// ---------------------------------------------------------------- nodes

queue::PreEnqueueCheck Scheduler::pre_check_for_node(const framework::NodeInfoPtr& node_info) const {
  // Queueing hints replace this check (upstream skips it when they are on).
  if (opts_.queueingHints || !node_info || node_info->node() == nullptr) return {};
  // Upstream AdmissionCheck (resources, required node affinity, node name, host ports), then the
  // NoSchedule taints. Preemption is not considered: a pod it would help is requeued eventually.
  return [node_info](const api::Pod& pod) {
    const api::Node& node = *node_info->node();
    if (!plugins::noderesources::fits(pod, *node_info).empty()) return false;
    if (!framework::required_node_affinity_matches(pod, node)) return false;
    if (!plugins::nodename::fits(pod, node)) return false;
    if (!plugins::nodeports::fits(pod, *node_info)) return false;
    return framework::find_matching_untolerated_taint(node.spec.taints, pod.spec.tolerations, [](const api::Taint& t) {
             return t.effect == framework::kTaintEffectNoSchedule;
           }) == nullptr;
  };
}

void Scheduler::on_node_add(const framework::NodePtr& node) {
  log::V(3).info("Add event for node", {{"node", node->metadata.name}});
  auto info = cache_->add_node(node);
  move_all(ev(EventResource::Node, framework::kAdd, "NodeAdd"), nullptr, node, pre_check_for_node(info));
}

void Scheduler::on_node_update(const framework::NodePtr& old_node, const framework::NodePtr& new_node) {
  log::V(4).info("Update event for node", {{"node", new_node->metadata.name}});
  auto info = cache_->update_node(old_node, new_node);
  const auto pre_check = pre_check_for_node(info);
  for (const auto& e : node_scheduling_property_change(*new_node, *old_node)) move_all(e, old_node, new_node, pre_check);
}

void Scheduler::on_node_delete(const framework::NodePtr& node) {
  log::V(3).info("Delete event for node", {{"node", node->metadata.name}});
  if (auto r = cache_->remove_node(*node); !r.ok()) {
    log::error("Scheduler cache RemoveNode failed", {{"node", node->metadata.name}, {"err", r.error()}});
  }
}

// ---------------------------------------------------------------- storage

void Scheduler::on_pv_add(std::shared_ptr<const api::PersistentVolume> pv) {
  move_all(ev(EventResource::PersistentVolume, framework::kAdd, "PvAdd"), nullptr, std::move(pv));
}
void Scheduler::on_pv_update(std::shared_ptr<const api::PersistentVolume> old_pv,
                             std::shared_ptr<const api::PersistentVolume> pv) {
  move_all(ev(EventResource::PersistentVolume, framework::kUpdate, "PvUpdate"), std::move(old_pv), std::move(pv));
}
void Scheduler::on_pvc_add(std::shared_ptr<const api::PersistentVolumeClaim> pvc) {
  move_all(ev(EventResource::PersistentVolumeClaim, framework::kAdd, "PvcAdd"), nullptr, std::move(pvc));
}
void Scheduler::on_pvc_update(std::shared_ptr<const api::PersistentVolumeClaim> old_pvc,
                              std::shared_ptr<const api::PersistentVolumeClaim> pvc) {
  move_all(ev(EventResource::PersistentVolumeClaim, framework::kUpdate, "PvcUpdate"), std::move(old_pvc),
           std::move(pvc));
}
void Scheduler::on_storage_class_add(std::shared_ptr<const api::StorageClass> sc) {
  move_all(ev(EventResource::StorageClass, framework::kAdd, "StorageClassAdd"), nullptr, std::move(sc));
}
void Scheduler::on_storage_class_update(std::shared_ptr<const api::StorageClass> old_sc,
                                        std::shared_ptr<const api::StorageClass> sc) {
  move_all(ev(EventResource::StorageClass, framework::kUpdate, "StorageClassUpdate"), std::move(old_sc),
           std::move(sc));
}
void Scheduler::on_csi_node_add(std::shared_ptr<const api::CSINode> n) {
  move_all(ev(EventResource::CSINode, framework::kAdd, "CSINodeAdd"), nullptr, std::move(n));
}
void Scheduler::on_csi_node_update(std::shared_ptr<const api::CSINode> old_n, std::shared_ptr<const api::CSINode> n) {
  move_all(ev(EventResource::CSINode, framework::kUpdate, "CSINodeUpdate"), std::move(old_n), std::move(n));
}
void Scheduler::on_csi_driver_add(std::shared_ptr<const api::CSIDriver> d) {
  move_all(ev(EventResource::CSIDriver, framework::kAdd, "CSIDriverAdd"), nullptr, std::move(d));
}
void Scheduler::on_csi_driver_update(std::shared_ptr<const api::CSIDriver> old_d, std::shared_ptr<const api::CSIDriver> d) {
  move_all(ev(EventResource::CSIDriver, framework::kUpdate, "CSIDriverUpdate"), std::move(old_d), std::move(d));
}
void Scheduler::on_csi_storage_capacity_add(std::shared_ptr<const api::CSIStorageCapacity> c) {
  move_all(ev(EventResource::CSIStorageCapacity, framework::kAdd, "CSIStorageCapacityAdd"), nullptr, std::move(c));
}
void Scheduler::on_csi_storage_capacity_update(std::shared_ptr<const api::CSIStorageCapacity> old_c,
                                               std::shared_ptr<const api::CSIStorageCapacity> c) {
  move_all(ev(EventResource::CSIStorageCapacity, framework::kUpdate, "CSIStorageCapacityUpdate"), std::move(old_c),
           std::move(c));
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

}  // namespace

std::vector<std::function<bool()>> add_all_event_handlers(Scheduler& sched, informer::SharedInformerFactory& f) {
  // One pod handler dispatches assigned pods to the cache and ours to the queue; nodes feed the
  // cache; storage and CSI objects only move queued pods.
  Scheduler* sc = &sched;
  auto noop = [](const auto&) {};
  return {
      add_handlers<api::Pod>(
          *scheduler_pod_informer(f), [sc](const auto& p) { sc->on_pod_add(p); },
          [sc](const auto& a, const auto& b) { sc->on_pod_update(a, b); }, [sc](const auto& p) { sc->on_pod_delete(p); }),
      add_handlers<api::Node>(
          *f.informer_for<api::Node>(), [sc](const auto& n) { sc->on_node_add(n); },
          [sc](const auto& a, const auto& b) { sc->on_node_update(a, b); }, [sc](const auto& n) { sc->on_node_delete(n); }),
      add_handlers<api::PersistentVolume>(
          *f.informer_for<api::PersistentVolume>(), [sc](const auto& o) { sc->on_pv_add(o); },
          [sc](const auto& a, const auto& b) { sc->on_pv_update(a, b); }, noop),
      add_handlers<api::PersistentVolumeClaim>(
          *f.informer_for<api::PersistentVolumeClaim>(), [sc](const auto& o) { sc->on_pvc_add(o); },
          [sc](const auto& a, const auto& b) { sc->on_pvc_update(a, b); }, noop),
      add_handlers<api::StorageClass>(
          *f.informer_for<api::StorageClass>(), [sc](const auto& o) { sc->on_storage_class_add(o); },
          [sc](const auto& a, const auto& b) { sc->on_storage_class_update(a, b); }, noop),
      add_handlers<api::CSINode>(
          *f.informer_for<api::CSINode>(), [sc](const auto& o) { sc->on_csi_node_add(o); },
          [sc](const auto& a, const auto& b) { sc->on_csi_node_update(a, b); }, noop),
      add_handlers<api::CSIDriver>(
          *f.informer_for<api::CSIDriver>(), [sc](const auto& o) { sc->on_csi_driver_add(o); },
          [sc](const auto& a, const auto& b) { sc->on_csi_driver_update(a, b); }, noop),
      add_handlers<api::CSIStorageCapacity>(
          *f.informer_for<api::CSIStorageCapacity>(), [sc](const auto& o) { sc->on_csi_storage_capacity_add(o); },
          [sc](const auto& a, const auto& b) { sc->on_csi_storage_capacity_update(a, b); }, noop),
  };
}

}  // namespace ksched::scheduler
