#include "controllers/resourceclaim/resource_claim.h"

#include <algorithm>
#include <boost/json.hpp>

#include "api/codec.h"
#include "api/helpers.h"
#include "api/resource_claims.h"
#include "client/resources_dra.h"
#include "client/resources_scheduling.h"
#include "controllers/controller_utils.h"
#include "controllers/informers.h"
#include "util/log.h"

namespace ksched::controllers {

namespace rv1 = api::resourcev1;

namespace {

constexpr std::string_view kPodPrefix = "pod:";
constexpr std::string_view kPodGroupPrefix = "podgroup:";
constexpr std::string_view kClaimPrefix = "claim:";
constexpr std::string_view kSchedulingGroup = "scheduling.k8s.io";
constexpr std::string_view kPodGroupApiVersion = "scheduling.k8s.io/v1beta1";
using PodGroup = api::schedulingv1beta1::PodGroup;
constexpr std::size_t kMaxDeletedPods = 500;  // upstream's maxUIDCacheEntries

// resourceclaim.Name: the claim a pod claim refers to. `found` false: made from a template and
// not recorded in the pod's status yet (ErrClaimNotFound); a recorded name that is absent (null)
// means no claim is needed.
struct ClaimName {
  bool found = false;
  std::optional<std::string> name;
  bool check_owner = false;
};

ClaimName claim_name(const api::Pod& pod, const api::PodResourceClaim& pc) {
  if (pc.resourceClaimName) return {true, *pc.resourceClaimName, false};
  if (pc.resourceClaimTemplateName) {
    if (pod.status.resourceClaimStatuses)
      for (const auto& s : *pod.status.resourceClaimStatuses)
        if (s.name == pc.name) return {true, s.resourceClaimName, true};
    return {false, std::nullopt, false};
  }
  return {false, std::nullopt, false};
}

// The PodGroup's entry the pod claim equals (the same name and the same claim or template): the
// pod then uses the PodGroup's claim (KEP-5729). Null when none.
const api::schedulingv1beta1::PodGroupResourceClaim* group_claim_for(const PodGroup* group,
                                                                     const api::PodResourceClaim& pc) {
  if (group == nullptr) return nullptr;
  for (const auto& c : group->spec.resourceClaims)
    if (c.name == pc.name && c.resourceClaimName == pc.resourceClaimName &&
        c.resourceClaimTemplateName == pc.resourceClaimTemplateName)
      return &c;
  return nullptr;
}

// The claim the PodGroup's status records for its entry `name`: nullopt while none is recorded;
// a recorded entry without a name means none is needed.
std::optional<std::optional<std::string>> group_status_claim(const PodGroup& group, std::string_view name) {
  for (const auto& s : group.status.resourceClaimStatuses)
    if (s.name == name) return s.resourceClaimName;
  return std::nullopt;
}

// resourceclaim.IsForPod: the claim is in the pod's namespace and the pod controls it; or, for a
// pod claim equal to one of its PodGroup's, the PodGroup does.
bool is_for_pod(const api::Pod& pod, const PodGroup* group, const api::PodResourceClaim& pc,
                const rv1::ResourceClaim& claim) {
  if (claim.metadata.namespace_ != pod.metadata.namespace_) return false;
  const api::OwnerReference* ref = controller_of(claim.metadata);
  if (!ref) return false;
  if (ref->uid == pod.metadata.uid) return true;
  return group_claim_for(group, pc) && ref->uid == group->metadata.uid;
}

// The consumer a scheduled pod's use of the claim puts in reservedFor: its PodGroup for a claim
// shared with the group, else the pod.
rv1::ResourceClaimConsumerReference consumer_of(const api::Pod& pod, const PodGroup* group,
                                                const api::PodResourceClaim& pc) {
  rv1::ResourceClaimConsumerReference ref;
  if (group_claim_for(group, pc)) {
    ref.apiGroup = std::string(kSchedulingGroup);
    ref.resource = "podgroups";
    ref.name = group->metadata.name;
    ref.uid = group->metadata.uid;
  } else {
    ref.resource = "pods";
    ref.name = pod.metadata.name;
    ref.uid = pod.metadata.uid;
  }
  return ref;
}

bool reserved_for(const rv1::ResourceClaim& claim, std::string_view uid) {
  for (const auto& r : claim.status.reservedFor)
    if (r.uid == uid) return true;
  return false;
}

std::string not_for_pod(const api::Pod& pod, const rv1::ResourceClaim& claim) {
  return "ResourceClaim " + std::string(claim.metadata.namespace_) + "/" + std::string(claim.metadata.name) +
         " was not created for pod " + std::string(pod.metadata.namespace_) + "/" + std::string(pod.metadata.name) +
         " (pod is not owner)";
}


// isPodDone: none of the containers run or ever will.
bool pod_done(const api::Pod& pod) {
  return api::pod_is_terminal(pod) || (pod.metadata.deletionTimestamp && pod.spec.nodeName.empty());
}

// The pod a claim was made for (its controlling owner of kind v1 Pod).
const api::OwnerReference* owning_pod(const rv1::ResourceClaim& claim) {
  for (const auto& o : claim.metadata.ownerReferences)
    if (o.controller.value_or(false) && o.apiVersion == "v1" && o.kind == "Pod") return &o;
  return nullptr;
}

util::Error error_of(std::string msg) { return util::Error{std::move(msg)}; }

}  // namespace

ResourceClaimController::ResourceClaimController(const ControllerContext& ctx)
    : ctx_(ctx), recorder_(ctx.events, "resource_claim"),
      workers_("resource-claim", [this](const std::string& k) { return sync(k); }, *ctx.clock) {
  pods_ = pod_informer(ctx_);
  claims_ = resource_claim_informer(ctx_);
  templates_ = resource_claim_template_informer(ctx_);
  const bool groups = ctx_.features.generic_workload && ctx_.features.dra_workload_resource_claims;
  if (groups) pod_groups_ = pod_group_informer(ctx_);

  // Pods by the claims they use, so that a claim's change reaches its pods.
  pods_->indexer().add_indexers({{kPodResourceClaimIndex, [](const api::Pod& p) {
                                    std::vector<std::string> keys;
                                    for (const auto& pc : p.spec.resourceClaims) {
                                      ClaimName n = claim_name(p, pc);
                                      if (n.found && n.name)
                                        keys.push_back(std::string(p.metadata.namespace_) + "/" + *n.name);
                                    }
                                    return keys;
                                  }}});
  if (groups)
    pods_->indexer().add_indexers({{kPodByPodGroupIndex, [](const api::Pod& p) {
                                      std::vector<std::string> keys;
                                      const auto& g = p.spec.schedulingGroup;
                                      if (!p.spec.resourceClaims.empty() && g && g->podGroupName)
                                        keys.push_back(std::string(p.metadata.namespace_) + "/" + *g->podGroupName);
                                      return keys;
                                    }}});

  auto ph = std::make_shared<informer::ResourceEventHandlerFuncs<api::Pod>>();
  ph->add = [this](const Ptr<api::Pod>& p, bool) { enqueue_pod(*p, false); };
  ph->update = [this](const Ptr<api::Pod>&, const Ptr<api::Pod>& cur) { enqueue_pod(*cur, false); };
  ph->del = [this](const informer::Deleted<api::Pod>& d) {
    if (d.obj) enqueue_pod(*d.obj, true);
  };
  auto pr = pods_->add_event_handler(ph);
  synced_.push_back([pr] { return pr->has_synced(); });

  auto ch = std::make_shared<informer::ResourceEventHandlerFuncs<Claim>>();
  ch->add = [this](const Ptr<Claim>& c, bool) { enqueue_claim(*c, false); };
  ch->update = [this](const Ptr<Claim>&, const Ptr<Claim>& cur) { enqueue_claim(*cur, false); };
  ch->del = [this](const informer::Deleted<Claim>& d) {
    if (d.obj) enqueue_claim(*d.obj, true);
  };
  auto cr = claims_->add_event_handler(ch);
  synced_.push_back([cr] { return cr->has_synced(); });

  // Templates have no handler upstream; their informer must have synced before pods are synced.
  auto tr = templates_->add_event_handler(std::make_shared<informer::ResourceEventHandlerFuncs<Template>>());
  synced_.push_back([tr] { return tr->has_synced(); });

  if (groups) {
    auto gh = std::make_shared<informer::ResourceEventHandlerFuncs<PodGroup>>();
    gh->add = [this](const Ptr<PodGroup>& g, bool) { enqueue_pod_group(*g, false); };
    gh->update = [this](const Ptr<PodGroup>&, const Ptr<PodGroup>& cur) { enqueue_pod_group(*cur, false); };
    gh->del = [this](const informer::Deleted<PodGroup>& d) {
      if (d.obj) enqueue_pod_group(*d.obj, true);
    };
    auto gr = pod_groups_->add_event_handler(gh);
    synced_.push_back([gr] { return gr->has_synced(); });
  }
}

ResourceClaimController::~ResourceClaimController() { stop(); }

void ResourceClaimController::run(int workers) { workers_.start(workers); }
void ResourceClaimController::stop() { workers_.stop(); }
bool ResourceClaimController::has_synced() const {
  for (const auto& s : synced_)
    if (!s()) return false;
  return true;
}

Ptr<ResourceClaimController::Claim> ResourceClaimController::cached_claim(const std::string& ns,
                                                                          const std::string& name) const {
  if (auto c = claims_->lister().get(ns, name)) return c;
  std::lock_guard l(created_mu_);
  auto it = created_.find(ns + "/" + name);
  return it == created_.end() ? nullptr : it->second;
}

Ptr<ResourceClaimController::PodGroup> ResourceClaimController::pod_group_of(const api::Pod& pod) const {
  if (!pod_groups_) return nullptr;
  const auto& g = pod.spec.schedulingGroup;
  if (!g || !g->podGroupName) return nullptr;
  return pod_groups_->lister().get(std::string(pod.metadata.namespace_), *g->podGroupName);
}

void ResourceClaimController::remember_deleted(std::string uid) {
  std::lock_guard l(deleted_mu_);
  if (deleted_consumers_.insert(uid).second) {
    deleted_order_.push_back(std::move(uid));
    if (deleted_order_.size() > kMaxDeletedPods) {
      deleted_consumers_.erase(deleted_order_.front());
      deleted_order_.pop_front();
    }
  }
}

bool ResourceClaimController::consumer_deleted(std::string_view uid) const {
  std::lock_guard l(deleted_mu_);
  return deleted_consumers_.count(std::string(uid)) != 0;
}

void ResourceClaimController::enqueue_pod(const api::Pod& pod, bool deleted) {
  if (pod.spec.resourceClaims.empty()) return;
  std::string ns(pod.metadata.namespace_);
  if (deleted) remember_deleted(std::string(pod.metadata.uid));
  // A pod that is gone, done, or deleted before it was scheduled releases its reservations.
  bool needs_claims = !deleted && !api::pod_is_terminal(pod) &&
                      !(pod.metadata.deletionTimestamp && pod.spec.nodeName.empty());
  if (!needs_claims)
    for (const auto& pc : pod.spec.resourceClaims) {
      ClaimName n = claim_name(pod, pc);
      if (n.found && n.name) workers_.add(std::string(kClaimPrefix) + ns + "/" + *n.name);
    }
  if (!deleted && pod_needs_work(pod)) workers_.add(std::string(kPodPrefix) + ns + "/" + std::string(pod.metadata.name));
}

void ResourceClaimController::enqueue_pod_group(const PodGroup& group, bool deleted) {
  const std::string ns(group.metadata.namespace_);
  if (deleted) {
    // Its reservations go: the claims it holds are synced (upstream's deletedObjects for the
    // PodGroup's UID).
    remember_deleted(std::string(group.metadata.uid));
    for (const auto& c : group.spec.resourceClaims)
      if (c.resourceClaimName) workers_.add(std::string(kClaimPrefix) + ns + "/" + *c.resourceClaimName);
    for (const auto& st : group.status.resourceClaimStatuses)
      if (st.resourceClaimName) workers_.add(std::string(kClaimPrefix) + ns + "/" + *st.resourceClaimName);
    return;
  }
  if (group.spec.resourceClaims.empty()) return;
  workers_.add(std::string(kPodGroupPrefix) + ns + "/" + std::string(group.metadata.name));
  // Its members may now find the group's claims in its status.
  for (const auto& pod : pods_->indexer().by_index(kPodByPodGroupIndex, ns + "/" + std::string(group.metadata.name)))
    enqueue_pod(*pod, false);
}

bool ResourceClaimController::pod_needs_work(const api::Pod& pod) const {
  if (pod.metadata.deletionTimestamp) return false;
  std::string ns(pod.metadata.namespace_);
  const auto group = pod_group_of(pod);
  for (const auto& pc : pod.spec.resourceClaims) {
    ClaimName n = claim_name(pod, pc);
    if (!n.found) return true;    // a claim to make from a template (or an API this does not know)
    if (!n.name) return false;    // no claim needed
    auto claim = cached_claim(ns, *n.name);
    if (!claim) return pc.resourceClaimTemplateName.has_value();  // else the user must create it
    if (n.check_owner && !is_for_pod(pod, group.get(), pc, *claim)) return false;
    if (pod.spec.nodeName.empty()) continue;
    // To reserve, for the pod or its PodGroup.
    if (claim->status.allocation && !reserved_for(*claim, consumer_of(pod, group.get(), pc).uid.view())) return true;
  }
  return false;
}

void ResourceClaimController::enqueue_claim(const Claim& claim, bool deleted) {
  std::string key = std::string(claim.metadata.namespace_) + "/" + std::string(claim.metadata.name);
  if (!deleted) {
    // Claims with reservations of pods that may be gone, and claims not needed any more.
    workers_.add(std::string(kClaimPrefix) + key);
  } else {
    std::lock_guard l(created_mu_);
    forget_created_locked(key);
  }
  for (const auto& pod : pods_->indexer().by_index(kPodResourceClaimIndex, key)) enqueue_pod(*pod, false);
  // A PodGroup whose claim went is synced: it makes the claim again.
  if (deleted && pod_groups_)
    if (const api::OwnerReference* owner = controller_of(claim.metadata); owner && owner->kind == "PodGroup")
      workers_.add(std::string(kPodGroupPrefix) + std::string(claim.metadata.namespace_) + "/" + owner->name);
}

util::Result<void> ResourceClaimController::sync(const std::string& key) {
  std::string_view k = key;
  enum { kPod, kGroup, kClaim } kind;
  if (k.starts_with(kPodPrefix)) {
    kind = kPod;
    k.remove_prefix(kPodPrefix.size());
  } else if (k.starts_with(kPodGroupPrefix)) {
    kind = kGroup;
    k.remove_prefix(kPodGroupPrefix.size());
  } else if (k.starts_with(kClaimPrefix)) {
    kind = kClaim;
    k.remove_prefix(kClaimPrefix.size());
  } else {
    return error_of("unexpected key: " + key);
  }
  auto slash = k.find('/');
  if (slash == std::string_view::npos) return error_of("unexpected key format: " + key);
  std::string ns(k.substr(0, slash)), name(k.substr(slash + 1));
  switch (kind) {
    case kPod: return sync_pod(ns, name);
    case kGroup: return sync_pod_group(ns, name);
    case kClaim: break;
  }
  return sync_claim(ns, name);
}

util::Result<void> ResourceClaimController::sync_pod(const std::string& ns, const std::string& name) {
  auto pod = pods_->lister().get(ns, name);
  if (!pod || pod->metadata.deletionTimestamp) return {};
  // The pod's PodGroup (DRAWorkloadResourceClaims): upstream needs it known before it makes any of
  // a grouped pod's claims.
  informer::Ptr<PodGroup> group;
  if (pod_groups_ && pod->spec.schedulingGroup && pod->spec.schedulingGroup->podGroupName) {
    group = pod_group_of(*pod);
    if (!group) {
      bool waiting = false;
      for (const auto& pc : pod->spec.resourceClaims) waiting = waiting || !claim_name(*pod, pc).found;
      if (waiting)
        return error_of("podgroup.scheduling.k8s.io \"" + *pod->spec.schedulingGroup->podGroupName + "\" not found");
    }
  }
  std::map<std::string, std::string> made;
  for (const auto& pc : pod->spec.resourceClaims) {
    if (auto r = handle_claim(*pod, group.get(), pc, made); !r) {
      recorder_.eventf(object_reference("v1", "Pod", pod->metadata), "Warning", "FailedResourceClaimCreation",
                       "PodResourceClaim {}: {}", pc.name, r.error());
      return error_of("pod " + ns + "/" + name + ", PodResourceClaim " + pc.name + ": " + r.error());
    }
  }
  if (!made.empty()) {
    // The pod's claims in status, the new ones added (only this controller writes them).
    boost::json::array statuses;
    std::set<std::string> written;
    if (pod->status.resourceClaimStatuses)
      for (const auto& s : *pod->status.resourceClaimStatuses) {
        auto it = made.find(s.name);
        boost::json::object o{{"name", s.name}};
        if (it != made.end())
          o["resourceClaimName"] = it->second;
        else if (s.resourceClaimName)
          o["resourceClaimName"] = *s.resourceClaimName;
        statuses.push_back(std::move(o));
        written.insert(s.name);
      }
    for (const auto& [pc, claim] : made)
      if (!written.count(pc)) statuses.push_back(boost::json::object{{"name", pc}, {"resourceClaimName", claim}});
    boost::json::object patch{{"status", boost::json::object{{"resourceClaimStatuses", std::move(statuses)}}}};
    auto r = ctx_.client->patch<api::Pod>(ns, name, client::PatchType::Merge, boost::json::serialize(patch), "status");
    if (!r) return error_of("update pod " + ns + "/" + name + " ResourceClaimStatuses: " + r.error().message);
    pod = std::make_shared<const api::Pod>(std::move(*r));
  }
  if (pod->spec.nodeName.empty()) return {};  // the scheduler reserves
  for (const auto& pc : pod->spec.resourceClaims) {
    ClaimName n = claim_name(*pod, pc);
    if (!n.found) {
      // A claim shared with the PodGroup that the group has not got yet: nothing to reserve.
      if (group_claim_for(group.get(), pc)) continue;
      return error_of(std::string("pod \"") + ns + "/" + name + "\": ResourceClaim not created yet");
    }
    if (!n.name) continue;
    auto claim = cached_claim(ns, *n.name);
    if (!claim) return {};
    if (n.check_owner && !is_for_pod(*pod, group.get(), pc, *claim)) return error_of(not_for_pod(*pod, *claim));
    rv1::ResourceClaimConsumerReference ref = consumer_of(*pod, group.get(), pc);
    if (claim->status.allocation && !reserved_for(*claim, ref.uid.view())) {
      Claim next = *claim;
      next.status.reservedFor.push_back(std::move(ref));
      if (auto r = ctx_.client->update_status(next); !r)
        return error_of("reserve claim " + ns + "/" + *n.name + " for pod: " + r.error().message);
    }
  }
  return {};
}

Ptr<ResourceClaimController::Claim> ResourceClaimController::claim_made_for(std::string_view owner_uid,
                                                                            std::string_view claim_name) const {
  auto matches = [&](const Claim& c) {
    const std::string* a = c.metadata.annotations.find(api::kPodClaimNameAnnotation);
    return a && *a == claim_name;
  };
  for (const auto& c : owned_by(claims_->indexer(), owner_uid))
    if (matches(*c)) return c;
  std::lock_guard l(created_mu_);
  auto [first, last] = created_by_owner_.equal_range(std::string(owner_uid));
  for (auto it = first; it != last; ++it)
    if (matches(*it->second)) return it->second;
  return nullptr;
}

void ResourceClaimController::forget_created_locked(const std::string& key) {
  auto it = created_.find(key);
  if (it == created_.end()) return;
  if (const api::OwnerReference* ref = controller_of(it->second->metadata)) {
    auto [first, last] = created_by_owner_.equal_range(std::string(ref->uid));
    for (auto o = first; o != last; ++o)
      if (o->second == it->second) {
        created_by_owner_.erase(o);
        break;
      }
  }
  created_.erase(it);
}

util::Result<Ptr<ResourceClaimController::Claim>> ResourceClaimController::make_claim(
    const api::ObjectMeta& owner, std::string_view api_version, std::string_view kind, std::string_view claim_name,
    const std::string& template_name) {
  const std::string ns(owner.namespace_);
  // A claim made before whose name never reached the owner's status (a failed status write).
  if (auto claim = claim_made_for(owner.uid.view(), claim_name)) return claim;
  auto tmpl = templates_->lister().get(ns, template_name);
  if (!tmpl)
    return error_of("resource claim template \"" + template_name + "\": resourceclaimtemplate.resource.k8s.io \"" +
                    template_name + "\" not found");
  Claim c = api::claim_from_template(owner, api_version, kind, claim_name, *tmpl);
  auto r = ctx_.client->create(c);
  if (!r) return error_of("create ResourceClaim : " + r.error().message);
  log::V(4).info("Created ResourceClaim", {{"claim", ns + "/" + std::string(r->metadata.name)},
                                           {"owner", std::string(kind) + " " + ns + "/" + std::string(owner.name)}});
  auto claim = std::make_shared<const Claim>(std::move(*r));
  std::lock_guard l(created_mu_);
  const std::string key = ns + "/" + std::string(claim->metadata.name);
  forget_created_locked(key);
  created_[key] = claim;
  if (const api::OwnerReference* ref = controller_of(claim->metadata))
    created_by_owner_.emplace(std::string(ref->uid), claim);
  return Ptr<Claim>(claim);
}

util::Result<void> ResourceClaimController::handle_claim(const api::Pod& pod, const PodGroup* group,
                                                         const api::PodResourceClaim& pc,
                                                         std::map<std::string, std::string>& made) {
  std::string ns(pod.metadata.namespace_);
  ClaimName n = claim_name(pod, pc);
  if (n.found) {
    if (!n.name) return {};  // no claim needed
    if (!pc.resourceClaimTemplateName) return {};  // the user's own claim
    // Recorded in the pod's status: normally there; made again if it was deleted by accident.
    if (auto claim = cached_claim(ns, *n.name); claim && (!n.check_owner || is_for_pod(pod, group, pc, *claim)))
      return {};
  } else if (!pc.resourceClaimTemplateName) {
    return error_of(std::string("checking for claim before creating it: pod \"") + ns + "/" +
                    std::string(pod.metadata.name) + "\", spec.resourceClaim \"" + pc.name +
                    "\": none of the supported fields are set");
  }
  // The PodGroup's claim (DRAWorkloadResourceClaims): the pod makes none; it records the group's
  // once the group's status has it (the PodGroup's sync makes it).
  if (group_claim_for(group, pc)) {
    auto recorded = group_status_claim(*group, pc.name);
    if (!recorded || !*recorded) return {};
    if (!n.found || n.name != **recorded) made[pc.name] = **recorded;
    return {};
  }
  auto claim = make_claim(pod.metadata, "v1", "Pod", pc.name, *pc.resourceClaimTemplateName);
  if (!claim) return error_of(claim.error());
  made[pc.name] = std::string((*claim)->metadata.name);
  return {};
}

util::Result<void> ResourceClaimController::sync_pod_group(const std::string& ns, const std::string& name) {
  if (!pod_groups_) return {};
  auto group = pod_groups_->lister().get(ns, name);
  if (!group || group->metadata.deletionTimestamp) return {};
  // Each template entry's claim: the recorded one when it still exists and is the group's, else
  // found or made (upstream's handleClaim for a PodGroup).
  std::map<std::string, std::string> made;
  for (const auto& c : group->spec.resourceClaims) {
    if (!c.resourceClaimTemplateName) continue;
    if (auto recorded = group_status_claim(*group, c.name)) {
      if (!*recorded) continue;  // none needed
      auto claim = cached_claim(ns, **recorded);
      const api::OwnerReference* owner = claim ? controller_of(claim->metadata) : nullptr;
      if (owner && owner->uid == group->metadata.uid) continue;
    }
    auto claim = make_claim(group->metadata, kPodGroupApiVersion, "PodGroup", c.name, *c.resourceClaimTemplateName);
    if (!claim) {
      recorder_.eventf(object_reference(kPodGroupApiVersion, "PodGroup", group->metadata), "Warning",
                       "FailedResourceClaimCreation", "PodGroupResourceClaim {}: {}", c.name, claim.error());
      return error_of("podgroup " + ns + "/" + name + ", PodGroupResourceClaim " + c.name + ": " + claim.error());
    }
    made[c.name] = std::string((*claim)->metadata.name);
  }
  if (made.empty()) return {};
  // The group's statuses, the new names in (only this controller writes them).
  boost::json::array statuses;
  std::set<std::string> written;
  for (const auto& s : group->status.resourceClaimStatuses) {
    boost::json::object o{{"name", s.name}};
    if (auto it = made.find(s.name); it != made.end())
      o["resourceClaimName"] = it->second;
    else if (s.resourceClaimName)
      o["resourceClaimName"] = *s.resourceClaimName;
    statuses.push_back(std::move(o));
    written.insert(s.name);
  }
  for (const auto& [claim_name, claim] : made)
    if (!written.count(claim_name)) statuses.push_back(boost::json::object{{"name", claim_name}, {"resourceClaimName", claim}});
  boost::json::object patch{{"status", boost::json::object{{"resourceClaimStatuses", std::move(statuses)}}}};
  auto r = ctx_.client->patch<PodGroup>(ns, name, client::PatchType::Merge, boost::json::serialize(patch), "status");
  if (!r) return error_of("update podgroup " + ns + "/" + name + " ResourceClaimStatuses: " + r.error().message);
  return {};
}

util::Result<void> ResourceClaimController::sync_claim(const std::string& ns, const std::string& name) {
  auto claim = claims_->lister().get(ns, name);
  if (!claim) return {};
  {
    std::lock_guard l(created_mu_);
    forget_created_locked(ns + "/" + name);  // the informer has it now
  }
  std::vector<rv1::ResourceClaimConsumerReference> valid;
  for (const auto& r : claim->status.reservedFor) {
    bool keep = true;
    if (r.apiGroup == kSchedulingGroup && r.resource == "podgroups") {
      // A PodGroup's reservation (DRAWorkloadResourceClaims): kept while the PodGroup exists; left
      // alone with the gate off, as upstream.
      if (pod_groups_) {
        if (consumer_deleted(r.uid.view())) {
          keep = false;
        } else if (auto group = pod_groups_->lister().get(ns, std::string(r.name))) {
          keep = group->metadata.uid == r.uid;
        } else {
          auto live = ctx_.client->get<PodGroup>(ns, r.name);
          if (!live && !client::is_not_found(live.error())) return error_of(live.error().message);
          keep = live && live->metadata.uid == r.uid;
        }
      }
    } else if (!r.apiGroup.empty() || r.resource != "pods") {
      // Some other consumer: not this controller's to judge (upstream keeps it).
    } else if (consumer_deleted(r.uid.view())) {
      keep = false;
    } else if (auto pod = pods_->lister().get(ns, std::string(r.name))) {
      keep = pod->metadata.uid == r.uid && !pod_done(*pod);
    } else {
      // Not in the cache (yet?): only the server can say it is gone.
      auto live = ctx_.client->get<api::Pod>(ns, r.name);
      if (!live && !client::is_not_found(live.error())) return error_of(live.error().message);
      keep = live && live->metadata.uid == r.uid;
    }
    if (keep) valid.push_back(r);
  }
  const auto& fins = claim->metadata.finalizers;
  auto has_finalizer = [](const Claim& c) {
    const auto& f = c.metadata.finalizers;
    return std::find(f.begin(), f.end(), rv1::kFinalizer) != f.end();
  };
  auto without_finalizer = [&](Claim c) -> client::Result<Claim> {
    std::vector<std::string> kept;
    for (const auto& f : c.metadata.finalizers)
      if (f != rv1::kFinalizer) kept.push_back(f);
    c.metadata.finalizers = std::move(kept);
    return ctx_.client->update(c);
  };
  bool finalizer = std::find(fins.begin(), fins.end(), rv1::kFinalizer) != fins.end();
  if (valid.size() < claim->status.reservedFor.size()) {
    // Deallocate as soon as the last user is gone, so the next one allocates afresh.
    Claim next = *claim;
    next.status.reservedFor = valid;
    if (valid.empty() && finalizer) next.status.allocation.reset();
    auto updated = ctx_.client->update_status(next);
    if (!updated) return error_of(updated.error().message);
    if (has_finalizer(*updated) && !updated->status.allocation)
      if (auto r = without_finalizer(std::move(*updated)); !r) return error_of(r.error().message);
  } else if (finalizer && claim->metadata.deletionTimestamp && valid.empty()) {
    Claim next = *claim;
    if (next.status.allocation) {
      next.status.allocation.reset();
      auto updated = ctx_.client->update_status(next);
      if (!updated) return error_of(updated.error().message);
      next = std::move(*updated);
    }
    if (auto r = without_finalizer(std::move(next)); !r) return error_of(r.error().message);
  }
  if (valid.empty()) {
    // A claim made for a pod that will not run is deleted (the garbage collector would only act
    // once the pod itself is gone).
    if (const api::OwnerReference* owner = owning_pod(*claim)) {
      if (auto pod = pods_->lister().get(ns, owner->name); pod && (pod->metadata.uid != owner->uid || pod_done(*pod))) {
        auto r = ctx_.client->remove<Claim>(ns, name);
        if (!r && !client::is_not_found(r.error())) return error_of("delete claim " + ns + "/" + name + ": " + r.error().message);
      }
    }
  }
  return {};
}

}  // namespace ksched::controllers
