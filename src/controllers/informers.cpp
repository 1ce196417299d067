#include "controllers/informers.h"

#include "client/resources_dra.h"
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
  return registered(ctx, ctx.informers->informer_for<Job>(std::move(o)));
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
