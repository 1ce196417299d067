#include "controllers/informers.h"

#include "client/resources_dra.h"
#include "client/resources_scheduling.h"
#include "controllers/job/job_scheduling.h"
#include "controllers/controller_utils.h"

namespace ksched::controllers {

namespace {

template <class T>
std::shared_ptr<informer::SharedIndexInformer<T>> registered(const ControllerContext& ctx,
                                                             std::shared_ptr<informer::SharedIndexInformer<T>> inf) {
  if (ctx.registry) {
    auto* raw = inf.get();  // the factory keeps it alive as long as the registry is read
    ctx.registry->add(inf->name(), [raw]() -> const informer::ReflectorStats& { return raw->reflector_stats(); });
  }
  return inf;
}

template <class T>
std::vector<std::string> controller_uid(const T& o) {
  if (const auto* r = controller_of(o.metadata)) return {r->uid};
  return {orphan_index_key(o.metadata.namespace_)};
}

template <class T>
std::shared_ptr<informer::SharedIndexInformer<T>> with_controller_index(const ControllerContext& ctx) {
  informer::InformerOptions<T> o;
  o.reflector.decode.dropManagedFields = true;
  o.indexers[kControllerUIDIndex] = controller_uid<T>;
  return registered(ctx, ctx.informers->informer_for<T>(std::move(o)));
}

}  // namespace

std::shared_ptr<informer::SharedIndexInformer<api::Pod>> pod_informer(const ControllerContext& ctx) {
  informer::InformerOptions<api::Pod> o;
  o.reflector.decode.dropManagedFields = true;
  o.indexers[kControllerUIDIndex] = controller_uid<api::Pod>;
  o.indexers[kNodeNameIndex] = [](const api::Pod& p) {
    return p.spec.nodeName.empty() ? std::vector<std::string>{} : std::vector<std::string>{std::string(p.spec.nodeName)};
  };
  return registered(ctx, ctx.informers->informer_for<api::Pod>(std::move(o)));
}

std::shared_ptr<informer::SharedIndexInformer<api::Node>> node_informer(const ControllerContext& ctx) {
  informer::InformerOptions<api::Node> o;
  o.reflector.decode.dropManagedFields = true;
  return registered(ctx, ctx.informers->informer_for<api::Node>(std::move(o)));
}

std::shared_ptr<informer::SharedIndexInformer<ReplicaSet>> replica_set_informer(const ControllerContext& ctx) {
  return with_controller_index<ReplicaSet>(ctx);
}
std::shared_ptr<informer::SharedIndexInformer<Deployment>> deployment_informer(const ControllerContext& ctx) {
  informer::InformerOptions<Deployment> o;
  o.reflector.decode.dropManagedFields = true;
  return registered(ctx, ctx.informers->informer_for<Deployment>(std::move(o)));
}
std::shared_ptr<informer::SharedIndexInformer<DaemonSet>> daemon_set_informer(const ControllerContext& ctx) {
  informer::InformerOptions<DaemonSet> o;
  o.reflector.decode.dropManagedFields = true;
  return registered(ctx, ctx.informers->informer_for<DaemonSet>(std::move(o)));
}
std::shared_ptr<informer::SharedIndexInformer<StatefulSet>> stateful_set_informer(const ControllerContext& ctx) {
  informer::InformerOptions<StatefulSet> o;
  o.reflector.decode.dropManagedFields = true;
  return registered(ctx, ctx.informers->informer_for<StatefulSet>(std::move(o)));
}
std::shared_ptr<informer::SharedIndexInformer<ControllerRevision>> controller_revision_informer(
    const ControllerContext& ctx) {
  return with_controller_index<ControllerRevision>(ctx);
}
std::shared_ptr<informer::SharedIndexInformer<Job>> job_informer(const ControllerContext& ctx) {
  informer::InformerOptions<Job> o;
  o.reflector.decode.dropManagedFields = true;
  // Built whatever the gate: most Jobs have no value (a map lookup each), and the informer's
  // options are fixed by its first request.
  o.indexers[kJobByDelegatingParentIndex] = [](const Job& j) -> std::vector<std::string> {
    if (!j.metadata.annotations.contains(kGroupTemplateNameAnnotation)) return {};
    const api::OwnerReference* parent = controller_of(j.metadata);
    if (parent == nullptr) return {};
    auto group = api_group_of(parent->apiVersion);
    if (!group) return {};
    return {controller_ref_index_key(*group, parent->kind, j.metadata.namespace_, parent->name)};
  };
  return registered(ctx, ctx.informers->informer_for<Job>(std::move(o)));
}

std::string controller_ref_index_key(std::string_view api_group, std::string_view kind, std::string_view ns,
                                     std::string_view name) {
  std::string out;
  out.reserve(api_group.size() + kind.size() + ns.size() + name.size() + 3);
  out.append(api_group).append("/").append(kind).append("/").append(ns).append("/").append(name);
  return out;
}

std::string workload_ref_index_key(std::string_view ns, std::string_view workload_name) {
  std::string out;
  out.reserve(ns.size() + workload_name.size() + 1);
  out.append(ns).append("/").append(workload_name);
  return out;
}

std::optional<std::string_view> api_group_of(std::string_view api_version) {
  auto slash = api_version.find('/');
  if (slash == std::string_view::npos) return std::string_view();
  if (api_version.find('/', slash + 1) != std::string_view::npos) return std::nullopt;
  return api_version.substr(0, slash);
}

std::vector<std::string> workload_controller_ref_values(const api::schedulingv1beta1::Workload& w) {
  const auto& ref = w.spec.controllerRef;
  if (!ref || ref->name.empty()) return {};
  return {controller_ref_index_key(ref->apiGroup, ref->kind, w.metadata.namespace_, ref->name)};
}

std::vector<std::string> pod_group_workload_values(const api::schedulingv1beta1::PodGroup& p) {
  const auto& ref = p.spec.workloadRef;
  if (!ref || ref->workloadName.empty()) return {};
  return {workload_ref_index_key(p.metadata.namespace_, ref->workloadName)};
}

std::shared_ptr<informer::SharedIndexInformer<api::schedulingv1beta1::Workload>> workload_informer(
    const ControllerContext& ctx) {
  informer::InformerOptions<api::schedulingv1beta1::Workload> o;
  o.reflector.decode.dropManagedFields = true;
  o.indexers[kWorkloadByControllerRefIndex] = workload_controller_ref_values;
  return registered(ctx, ctx.informers->informer_for<api::schedulingv1beta1::Workload>(std::move(o)));
}

std::shared_ptr<informer::SharedIndexInformer<api::schedulingv1beta1::PodGroup>> pod_group_informer(
    const ControllerContext& ctx) {
  informer::InformerOptions<api::schedulingv1beta1::PodGroup> o;
  o.reflector.decode.dropManagedFields = true;
  o.indexers[kPodGroupByWorkloadIndex] = pod_group_workload_values;
  return registered(ctx, ctx.informers->informer_for<api::schedulingv1beta1::PodGroup>(std::move(o)));
}

std::shared_ptr<informer::SharedIndexInformer<api::resourcev1::ResourceClaim>> resource_claim_informer(
    const ControllerContext& ctx) {
  return with_controller_index<api::resourcev1::ResourceClaim>(ctx);
}
std::shared_ptr<informer::SharedIndexInformer<api::resourcev1::ResourceClaimTemplate>>
resource_claim_template_informer(const ControllerContext& ctx) {
  informer::InformerOptions<api::resourcev1::ResourceClaimTemplate> o;
  o.reflector.decode.dropManagedFields = true;
  return registered(ctx, ctx.informers->informer_for<api::resourcev1::ResourceClaimTemplate>(std::move(o)));
}

}  // namespace ksched::controllers
