// Wiring the scheduler to its informers (upstream's addAllEventHandlers in
// pkg/scheduler/eventhandlers.go); the handlers themselves are Scheduler's on_* methods.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "api/core.h"
#include "api/resource.h"
#include "api/storage.h"
#include "api/volume.h"
#include "informer/factory.h"
#include "scheduler/scheduler.h"

namespace ksched::scheduler {

// The scheduler's pod informer: all namespaces, only non-terminal pods, managedFields dropped
// (upstream trims them with a transform; here the decoder skips them, so they are never copied).
inline constexpr const char* kNonTerminalPodsSelector = "status.phase!=Succeeded,status.phase!=Failed";
std::shared_ptr<informer::SharedIndexInformer<api::Pod>> scheduler_pod_informer(informer::SharedInformerFactory& f);

// Registers the scheduler's handlers on the pod, node, volume and CSI informers of `f` (creating
// them if needed) and returns one has-synced check per registration, for /readyz and the start.
std::vector<std::function<bool()>> add_all_event_handlers(Scheduler& sched, informer::SharedInformerFactory& f);
// The DeviceClass, ResourceSlice and ResourceClaim handlers alone (add_all_event_handlers adds them
// when a profile enables DynamicResources).
std::vector<std::function<bool()>> add_dra_event_handlers(Scheduler& sched, informer::SharedInformerFactory& f);

// One resource.k8s.io change handed to the scheduler as those handlers hand it (for a caller with
// no informers, e.g. ksched simulate): the DRA state first, then a move of the queued pods it may
// help. `old_obj` null: an add; `new_obj` null: a delete. Call it where the informer would: never
// from inside a scheduling cycle.
void on_dra_change(Scheduler& sched, const std::shared_ptr<const api::resourcev1::DeviceClass>& old_obj,
                   const std::shared_ptr<const api::resourcev1::DeviceClass>& new_obj);
void on_dra_change(Scheduler& sched, const std::shared_ptr<const api::resourcev1::ResourceSlice>& old_obj,
                   const std::shared_ptr<const api::resourcev1::ResourceSlice>& new_obj);
void on_dra_change(Scheduler& sched, const std::shared_ptr<const api::resourcev1::ResourceClaim>& old_obj,
                   const std::shared_ptr<const api::resourcev1::ResourceClaim>& new_obj);

}  // namespace ksched::scheduler
