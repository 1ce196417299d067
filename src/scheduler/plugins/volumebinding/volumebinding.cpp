#include "scheduler/plugins/volumebinding/volumebinding.h"

#include <algorithm>
#include <set>

#include "api/labels.h"
#include "scheduler/framework/plugin_helper.h"
#include "scheduler/plugins/volumebinding/volume_util.h"

namespace ksched::scheduler::plugins::volumebinding {

using framework::ClusterEvent;
using framework::ClusterEventWithHint;
using framework::QueueingHint;
using framework::Status;

namespace {

constexpr std::string_view kStateKey = "VolumeBinding";
constexpr std::string_view kVolumeAvailable = "Available";
constexpr std::string_view kClaimLost = "Lost";
constexpr std::string_view kHostnameLabel = "kubernetes.io/hostname";
constexpr std::string_view kMigratedPluginsAnnotation = "storage.alpha.kubernetes.io/migrated-plugins";

api::Quantity storage_of(const api::ResourceList& rl) {
  const auto* q = rl.find("storage");
  return q ? *q : api::Quantity();
}

bool fully_bound(const api::PersistentVolumeClaim& pvc) {
  return !pvc.spec.volumeName.empty() && pvc.metadata.annotations.contains(kAnnBindCompleted);
}

bool bound_to_claim(const api::PersistentVolume& pv, const api::PersistentVolumeClaim& claim) {
  const auto& ref = pv.spec.claimRef;
  if (!ref) return false;
  if (ref->name != claim.metadata.name || ref->namespace_ != claim.metadata.namespace_) return false;
  return ref->uid.empty() || ref->uid == claim.metadata.uid;
}

// PV node affinity (upstream CheckNodeAffinity): none → matches everything.
struct PVAffinity {
  bool constrained = false;
  framework::NodeSelectorMatcher matcher;
  explicit PVAffinity(const api::PersistentVolume& pv) {
    if (pv.spec.nodeAffinity && pv.spec.nodeAffinity->required) {
      constrained = true;
      matcher = framework::NodeSelectorMatcher(*pv.spec.nodeAffinity->required);
    }
  }
  // Labels only, as upstream CheckNodeAffinity builds a nameless node: matchFields are skipped.
  bool matches(const api::StringMap& node_labels) const { return !constrained || matcher.matches(node_labels); }
};

struct CandidatePV {
  PVPtr pv;
  PVAffinity affinity;
  api::Quantity capacity;
};

struct BoundClaim {
  PVCPtr pvc;
  PVPtr pv;  // nullptr: bound to a PV that does not exist
  std::optional<PVAffinity> affinity;
};

// What provisioning a claim on a node needs, resolved once per cycle (upstream checkVolumeProvisions).
struct ProvisionInfo {
  std::string error;  // returned as an Error when this claim must be provisioned
  bool unsupported = false;
  std::vector<std::vector<labels::Requirement>> allowedTopologies;  // valid terms; empty list = any node
  bool restrictedTopology = false;
  bool checkCapacity = false;
  std::vector<labels::Selector> capacityTopologies;  // capacities of the class large enough for the claim
};

struct UnboundClaim {
  PVCPtr pvc;
  std::string storageClass;
  api::Quantity request;
  std::optional<std::string> selectedNode;
  std::optional<labels::Selector> selector;  // claim's PV label selector
  std::string selectorError;
  ProvisionInfo provision;
};

struct StateData final : framework::StateData {
  bool noPVCs = false;
  std::vector<BoundClaim> bound;
  std::vector<UnboundClaim> unbound;  // WaitForFirstConsumer claims, smallest request first
  std::map<std::string, std::vector<CandidatePV>, std::less<>> pvsByClass;
  // Set by Reserve for the chosen node.
  bool allBound = false;
  std::string reservedNode;
  std::optional<PodVolumes> podVolumes;
  api::StringMap nodeLabels;
  std::shared_ptr<framework::StateData> clone() const override { return std::make_shared<StateData>(*this); }
};

bool match_topology_terms(const ProvisionInfo& p, const api::StringMap& labels) {
  if (!p.restrictedTopology) return true;
  for (const auto& term : p.allowedTopologies) {
    bool all = true;
    for (const auto& r : term) {
      if (!r.matches(labels)) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}

ProvisionInfo provision_info(const framework::ClusterLister& lister, const api::PersistentVolumeClaim& claim) {
  ProvisionInfo p;
  const std::string class_name = pvc_storage_class(claim);
  if (class_name.empty()) {
    p.error = "no class for claim \"" + api::key_of(claim) + "\"";
    return p;
  }
  auto sc = lister.get_storage_class(class_name);
  if (!sc) {
    p.error = "failed to find storage class \"" + class_name + "\"";
    return p;
  }
  if (sc->provisioner.empty() || sc->provisioner == kNotSupportedProvisioner) {
    p.unsupported = true;
    return p;
  }
  if (!sc->allowedTopologies.empty()) {
    p.restrictedTopology = true;
    for (const auto& term : sc->allowedTopologies) {
      if (term.matchLabelExpressions.empty()) continue;  // selects nothing
      std::vector<labels::Requirement> reqs;
      bool valid = true;
      for (const auto& e : term.matchLabelExpressions) {
        if (e.values.empty()) valid = false;
        labels::Requirement r;
        r.key = e.key;
        r.op = labels::Operator::In;
        r.values = e.values;
        reqs.push_back(std::move(r));
      }
      if (valid) p.allowedTopologies.push_back(std::move(reqs));
    }
  }
  // Capacity is only checked for CSI drivers that opted in (CSIDriver.spec.storageCapacity).
  const auto* request = claim.spec.resources.requests.find("storage");
  if (request == nullptr) return p;
  auto driver = lister.get_csi_driver(sc->provisioner);
  if (!driver || !driver->spec.storageCapacity.value_or(false)) return p;
  p.checkCapacity = true;
  const std::int64_t size = request->value();
  for (const auto& cap : lister.list_csi_storage_capacities()) {
    if (cap->storageClassName != sc->metadata.name) continue;
    const auto& limit = cap->maximumVolumeSize ? cap->maximumVolumeSize : cap->capacity;
    if (!limit || limit->value() < size) continue;
    if (!cap->nodeTopology) continue;  // unavailable everywhere
    auto sel = labels::from_label_selector(&*cap->nodeTopology);
    if (!sel.ok()) continue;
    p.capacityTopologies.push_back(std::move(sel.value()));
  }
  return p;
}

// Upstream FindMatchingVolume for the scheduler path (node given, delayed binding).
const CandidatePV* find_matching_volume(const UnboundClaim& c, const std::vector<CandidatePV>* pvs,
                                        const api::StringMap& node_labels, const std::set<std::string_view>& chosen) {
  if (pvs == nullptr) return nullptr;
  const auto& claim = *c.pvc;
  const CandidatePV* smallest = nullptr;
  // Unset volumeMode means Filesystem on both sides.
  const std::string_view want_mode = claim.spec.volumeMode ? std::string_view(*claim.spec.volumeMode) : "Filesystem";
  for (const auto& cand : *pvs) {
    const auto& pv = *cand.pv;
    if (chosen.count(pv.metadata.name)) continue;
    if (pv.spec.claimRef && !bound_to_claim(pv, claim)) continue;
    if (cand.capacity < c.request) continue;
    if ((pv.spec.volumeMode ? std::string_view(*pv.spec.volumeMode) : "Filesystem") != want_mode) continue;
    if (pv.metadata.deletionTimestamp) continue;
    const bool affinity_ok = cand.affinity.matches(node_labels);
    if (bound_to_claim(pv, claim)) {
      // Pre-bound to this claim: it is the only candidate.
      return affinity_ok ? &cand : nullptr;
    }
    if (pv.status.phase != kVolumeAvailable) continue;
    if (c.selector && !c.selector->matches(pv.metadata.labels)) continue;
    if (pv_storage_class(pv) != c.storageClass) continue;
    if (!affinity_ok) continue;
    bool modes_ok = true;
    for (const auto& m : claim.spec.accessModes) {
      if (!contains_access_mode(pv.spec.accessModes, m)) {
        modes_ok = false;
        break;
      }
    }
    if (!modes_ok) continue;
    if (smallest == nullptr || smallest->capacity > cand.capacity) smallest = &cand;
  }
  return smallest;
}

// Upstream FindPodVolumes for one node. Returns an error status, or success with `reasons`.
Status find_pod_volumes(const StateData& s, const api::StringMap& node_labels, std::string_view node_name,
                        PodVolumes* out, std::vector<std::string>& reasons) {
  bool unbound_ok = true, bound_ok = true, sufficient = true, pvs_found = true;
  for (const auto& b : s.bound) {
    if (!b.pv) {
      pvs_found = false;
      break;
    }
    if (!b.affinity->matches(node_labels)) {
      bound_ok = false;
      break;
    }
  }
  if (!s.unbound.empty()) {
    std::vector<const UnboundClaim*> to_provision, to_match;
    for (const auto& c : s.unbound) {
      if (c.selectedNode) {
        if (*c.selectedNode != node_name) {
          unbound_ok = false;  // provisioning already started for another node
          goto done;
        }
        to_provision.push_back(&c);
      } else {
        to_match.push_back(&c);
      }
    }
    if (!to_match.empty()) {
      std::set<std::string_view> chosen;
      bool found_all = true;
      for (const auto* c : to_match) {
        if (!c->selectorError.empty()) return Status::error(c->selectorError);
        auto it = s.pvsByClass.find(c->storageClass);
        const auto* pv = find_matching_volume(*c, it == s.pvsByClass.end() ? nullptr : &it->second, node_labels, chosen);
        if (pv == nullptr) {
          to_provision.push_back(c);
          found_all = false;
          continue;
        }
        chosen.insert(pv->pv->metadata.name);
        if (out) out->staticBindings.push_back(BindingInfo{pv->pv, c->pvc});
      }
      unbound_ok = found_all;
    }
    if (!to_provision.empty()) {
      // Dynamic provisioning can satisfy claims without a matching PV.
      for (const auto* c : to_provision) {
        const auto& p = c->provision;
        if (!p.error.empty()) return Status::error(p.error);
        if (p.unsupported || !match_topology_terms(p, node_labels)) {
          unbound_ok = false;
          if (out) out->dynamicProvisions.clear();
          goto done;
        }
        if (p.checkCapacity) {
          bool ok = false;
          for (const auto& sel : p.capacityTopologies) {
            if (sel.matches(node_labels)) {
              ok = true;
              break;
            }
          }
          if (!ok) {
            unbound_ok = true;
            sufficient = false;
            if (out) out->dynamicProvisions.clear();
            goto done;
          }
        }
        if (out) out->dynamicProvisions.push_back(c->pvc);
      }
      unbound_ok = true;
    }
  }
done:
  if (!bound_ok) reasons.emplace_back(kErrReasonNodeConflict);
  if (!unbound_ok) reasons.emplace_back(kErrReasonBindConflict);
  if (!sufficient) reasons.emplace_back(kErrReasonNotEnoughSpace);
  if (!pvs_found) reasons.emplace_back(kErrReasonPVNotExist);
  return {};
}

// Upstream GetBindVolumeToClaim: the PV with claimRef set (and bound-by-controller) if needed.
std::pair<PVPtr, bool> bind_volume_to_claim(const PVPtr& pv, const api::PersistentVolumeClaim& claim) {
  auto clone = std::make_shared<api::PersistentVolume>(*pv);
  bool dirty = false;
  const bool set_bound_by_controller = !bound_to_claim(*pv, claim);
  const auto& ref = pv->spec.claimRef;
  if (!ref || ref->name != claim.metadata.name || ref->namespace_ != claim.metadata.namespace_ ||
      ref->uid != claim.metadata.uid) {
    api::ObjectReference r;
    r.kind = "PersistentVolumeClaim";
    r.apiVersion = "v1";
    r.namespace_ = claim.metadata.namespace_;
    r.name = claim.metadata.name;
    r.uid = claim.metadata.uid;
    r.resourceVersion = claim.metadata.resourceVersion;
    clone->spec.claimRef = std::move(r);
    dirty = true;
  }
  if (set_bound_by_controller && !clone->metadata.annotations.contains(kAnnBoundByController)) {
    clone->metadata.annotations.set(std::string(kAnnBoundByController), "yes");
    dirty = true;
  }
  return {std::move(clone), dirty};
}

bool pod_uses_claim(const api::Pod& pod, const api::PersistentVolumeClaim& pvc) {
  if (pvc.metadata.namespace_ != pod.metadata.namespace_) return false;
  for (const auto& v : pod.spec.volumes) {
    auto name = volume_claim_name(pod, v);
    if (name && *name == pvc.metadata.name) return true;
  }
  return false;
}

}  // namespace

// ---------------------------------------------------------------- AssumeCache

PVPtr AssumeCache::overlay_pv(PVPtr informer) {
  auto it = pvs_.find(informer->metadata.name);
  if (it == pvs_.end()) return informer;
  if (informer->metadata.resourceVersion != it->second.second) {
    pvs_.erase(it);  // the informer caught up (or the object changed): it wins
    return informer;
  }
  return it->second.first;
}

PVPtr AssumeCache::get_pv(const framework::ClusterLister& lister, std::string_view name) {
  auto pv = lister.get_pv(name);
  std::lock_guard l(mu_);
  if (!pv) {
    pvs_.erase(std::string(name));
    return nullptr;
  }
  return overlay_pv(std::move(pv));
}

PVCPtr AssumeCache::get_pvc(const framework::ClusterLister& lister, std::string_view ns, std::string_view name) {
  auto pvc = lister.get_pvc(ns, name);
  const std::string key = std::string(ns) + "/" + std::string(name);
  std::lock_guard l(mu_);
  auto it = pvcs_.find(key);
  if (!pvc) {
    if (it != pvcs_.end()) pvcs_.erase(it);
    return nullptr;
  }
  if (it == pvcs_.end()) return pvc;
  if (pvc->metadata.resourceVersion != it->second.second) {
    pvcs_.erase(it);
    return pvc;
  }
  return it->second.first;
}

std::vector<PVPtr> AssumeCache::list_pvs(const framework::ClusterLister& lister) {
  auto pvs = lister.list_pvs();
  std::lock_guard l(mu_);
  for (auto& pv : pvs) pv = overlay_pv(pv);
  return pvs;
}

void AssumeCache::assume_pv(PVPtr pv, std::string base_resource_version) {
  std::string key = pv->metadata.name;  // before pv is moved from
  std::lock_guard l(mu_);
  pvs_[std::move(key)] = {std::move(pv), std::move(base_resource_version)};
}

void AssumeCache::assume_pvc(PVCPtr pvc, std::string base_resource_version) {
  std::string key = api::key_of(*pvc);
  std::lock_guard l(mu_);
  pvcs_[std::move(key)] = {std::move(pvc), std::move(base_resource_version)};
}

void AssumeCache::restore_pv(const std::string& name) {
  std::lock_guard l(mu_);
  pvs_.erase(name);
}

void AssumeCache::restore_pvc(const std::string& ns, const std::string& name) {
  std::lock_guard l(mu_);
  pvcs_.erase(ns + "/" + name);
}

// ---------------------------------------------------------------- plugin

VolumeBinding::VolumeBinding(framework::Handle& handle, const config::VolumeBindingArgs& args)
    : handle_(handle),
      bindTimeout_(args.bindTimeoutSeconds),
      clock_(&util::RealClock::instance()),
      sleep_([this](std::chrono::milliseconds d) { return handle_.stop_signal().wait_for(d); }) {}

Status VolumeBinding::pre_filter(framework::CycleState& state, const api::Pod& pod,
                                 const std::vector<framework::NodeInfoPtr>&, framework::PreFilterResult& result) {
  const auto& lister = handle_.lister();
  auto s = std::make_shared<StateData>();
  // Every claim must exist, not be lost or terminating, and (ephemeral) belong to the pod.
  std::vector<PVCPtr> claims;
  for (const auto& v : pod.spec.volumes) {
    bool ephemeral = false;
    auto name = volume_claim_name(pod, v, &ephemeral);
    if (!name) continue;
    auto pvc = cache_.get_pvc(lister, pod.metadata.namespace_, *name);
    if (!pvc) {
      if (ephemeral) {
        return Status::unresolvable("waiting for ephemeral volume controller to create the persistentvolumeclaim \"" +
                                    *name + "\"");
      }
      return Status::unresolvable(pvc_not_found(*name));
    }
    if (pvc->status.phase == kClaimLost) {
      return Status::unresolvable("persistentvolumeclaim \"" + pvc->metadata.name +
                                  "\" bound to non-existent persistentvolume \"" + pvc->spec.volumeName + "\"");
    }
    if (pvc->metadata.deletionTimestamp) {
      return Status::unresolvable("persistentvolumeclaim \"" + pvc->metadata.name + "\" is being deleted");
    }
    if (ephemeral) {
      auto err = ephemeral_volume_owner_error(pod, *pvc);
      if (!err.empty()) return Status::unresolvable(std::move(err));
    }
    claims.push_back(std::move(pvc));
  }
  if (claims.empty()) {
    s->noPVCs = true;
    state.write(std::string(kStateKey), std::move(s));
    return Status::skip();
  }

  bool unbound_immediate = false;
  std::set<std::string> classes;
  for (const auto& pvc : claims) {
    if (fully_bound(*pvc)) {
      BoundClaim b;
      b.pvc = pvc;
      b.pv = cache_.get_pv(lister, pvc->spec.volumeName);
      if (b.pv) b.affinity.emplace(*b.pv);
      s->bound.push_back(std::move(b));
      continue;
    }
    // IsDelayBindingMode: WaitForFirstConsumer class; a missing class counts as Immediate.
    bool delay = false;
    const std::string class_name = pvc_storage_class(*pvc);
    if (!class_name.empty()) {
      if (auto sc = lister.get_storage_class(class_name)) {
        if (!sc->volumeBindingMode) {
          return Status::error("VolumeBindingMode not set for StorageClass \"" + class_name + "\"");
        }
        delay = *sc->volumeBindingMode == kVolumeBindingWaitForFirstConsumer;
      }
    }
    // Pre-bound claims (volumeName set, not yet completed) are the PV controller's job.
    if (!delay || !pvc->spec.volumeName.empty()) {
      unbound_immediate = true;
      continue;
    }
    UnboundClaim c;
    c.pvc = pvc;
    c.storageClass = class_name;
    c.request = storage_of(pvc->spec.resources.requests);
    if (const auto* sel = pvc->metadata.annotations.find(kAnnSelectedNode)) c.selectedNode = *sel;
    if (pvc->spec.selector) {
      auto sel = labels::from_label_selector(&*pvc->spec.selector);
      if (sel.ok()) {
        c.selector = std::move(sel.value());
      } else {
        c.selectorError = "error creating internal label selector for claim: " + api::key_of(*pvc) + ": " + sel.error();
      }
    }
    c.provision = provision_info(lister, *pvc);
    classes.insert(class_name);
    s->unbound.push_back(std::move(c));
  }
  if (unbound_immediate) return Status::unresolvable(std::string(kErrReasonUnboundImmediate));

  // Smallest request first, so each claim gets the smallest PV that fits.
  std::stable_sort(s->unbound.begin(), s->unbound.end(),
                   [](const UnboundClaim& a, const UnboundClaim& b) { return a.request < b.request; });
  if (!classes.empty()) {
    for (const auto& pv : cache_.list_pvs(lister)) {
      const std::string cls = pv_storage_class(*pv);
      if (!classes.count(cls)) continue;
      s->pvsByClass[cls].push_back(CandidatePV{pv, PVAffinity(*pv), storage_of(pv->spec.capacity)});
    }
  }

  // Bound local PVs pinned to hostnames narrow the candidate nodes.
  std::optional<std::set<std::string>> eligible;
  for (const auto& b : s->bound) {
    if (!b.pv) {
      eligible.reset();
      break;
    }
    const auto& na = b.pv->spec.nodeAffinity;
    if (!na || !na->required) continue;
    std::set<std::string> names;
    for (const auto& term : na->required->nodeSelectorTerms) {
      std::optional<std::set<std::string>> term_names;
      for (const auto& e : term.matchExpressions) {
        if (e.key != kHostnameLabel || e.operator_ != "In") continue;
        std::set<std::string> vals(e.values.begin(), e.values.end());
        if (!term_names) {
          term_names = std::move(vals);
        } else {
          std::set<std::string> both;
          std::set_intersection(term_names->begin(), term_names->end(), vals.begin(), vals.end(),
                                std::inserter(both, both.begin()));
          term_names = std::move(both);
        }
      }
      if (term_names) names.insert(term_names->begin(), term_names->end());
    }
    if (names.empty()) continue;
    if (!eligible) {
      eligible = std::move(names);
    } else {
      std::set<std::string> both;
      std::set_intersection(eligible->begin(), eligible->end(), names.begin(), names.end(),
                            std::inserter(both, both.begin()));
      eligible = std::move(both);
    }
  }
  if (eligible) result.nodeNames = std::move(*eligible);
  state.write(std::string(kStateKey), std::move(s));
  return {};
}

Status VolumeBinding::filter(const framework::CycleState& state, const api::Pod&, const framework::NodeInfo& node_info) {
  const auto* s = state.read<StateData>(kStateKey);
  if (s == nullptr) return Status::error("error reading \"VolumeBinding\" from cycleState: not found");
  if (s->noPVCs) return {};
  const api::Node* node = node_info.node();
  if (node == nullptr) return Status::error("node not found");
  std::vector<std::string> reasons;
  auto st = find_pod_volumes(*s, node->metadata.labels, node->metadata.name, nullptr, reasons);
  if (!st.is_success()) return st;
  if (reasons.empty()) return {};
  return Status(framework::Code::UnschedulableAndUnresolvable, std::move(reasons));
}

Status VolumeBinding::pre_score(framework::CycleState&, const api::Pod&, const std::vector<framework::NodeInfoPtr>&) {
  return Status::skip();
}

Status VolumeBinding::score(const framework::CycleState&, const api::Pod&, const framework::NodeInfo&,
                            std::int64_t& score) {
  score = 0;
  return {};
}

Status VolumeBinding::reserve(framework::CycleState& state, const api::Pod& pod, const std::string& node_name) {
  auto* s = state.read<StateData>(kStateKey);
  if (s == nullptr) return Status::error("error reading \"VolumeBinding\" from cycleState: not found");
  s->podVolumes.reset();
  s->reservedNode = node_name;
  if (s->noPVCs) {
    s->allBound = true;
    return {};
  }
  auto ni = handle_.snapshot_node_infos().get(node_name);
  if (!ni || ni->node() == nullptr) return Status::error("node \"" + node_name + "\" not found");
  s->nodeLabels = ni->node()->metadata.labels;

  // Recomputed for the chosen node (Filter keeps no per-node results, so it stays read-only).
  PodVolumes volumes;
  std::vector<std::string> reasons;
  auto st = find_pod_volumes(*s, s->nodeLabels, node_name, &volumes, reasons);
  if (!st.is_success()) return st;
  if (!reasons.empty()) return Status::error("volumes no longer fit node \"" + node_name + "\"");

  // All claims already bound: nothing to assume or write.
  bool all_bound = true;
  const auto& lister = handle_.lister();
  for (const auto& v : pod.spec.volumes) {
    auto name = volume_claim_name(pod, v);
    if (!name) continue;
    auto pvc = cache_.get_pvc(lister, pod.metadata.namespace_, *name);
    if (!pvc || !fully_bound(*pvc)) {
      all_bound = false;
      break;
    }
  }
  if (all_bound) {
    s->allBound = true;
    return {};
  }

  PodVolumes assumed;
  for (const auto& b : volumes.staticBindings) {
    auto [pv, dirty] = bind_volume_to_claim(b.pv, *b.pvc);
    if (dirty) cache_.assume_pv(pv, b.pv->metadata.resourceVersion);
    assumed.staticBindings.push_back(BindingInfo{pv, b.pvc});
  }
  for (const auto& claim : volumes.dynamicProvisions) {
    auto clone = std::make_shared<api::PersistentVolumeClaim>(*claim);
    clone->metadata.annotations.set(std::string(kAnnSelectedNode), node_name);
    cache_.assume_pvc(clone, claim->metadata.resourceVersion);
    assumed.dynamicProvisions.push_back(std::move(clone));
  }
  s->allBound = false;
  s->podVolumes = std::move(assumed);
  return {};
}

void VolumeBinding::unreserve(framework::CycleState& state, const api::Pod&, const std::string&) {
  auto* s = state.read<StateData>(kStateKey);
  if (s == nullptr || !s->podVolumes) return;
  for (const auto& b : s->podVolumes->staticBindings) cache_.restore_pv(b.pv->metadata.name);
  for (const auto& c : s->podVolumes->dynamicProvisions) cache_.restore_pvc(c->metadata.namespace_, c->metadata.name);
}

bool VolumeBinding::pre_bind_is_quick(const framework::CycleState& state, const api::Pod&) const {
  const auto* s = state.read<StateData>(kStateKey);
  return s == nullptr || s->allBound;
}

Status VolumeBinding::pre_bind_pre_flight(const framework::CycleState& state, const api::Pod&,
                                          const std::string& node_name) {
  const auto* s = state.read<StateData>(kStateKey);
  if (s == nullptr) return Status::error("error reading \"VolumeBinding\" from cycleState: not found");
  if (s->allBound) return Status::skip();
  if (!s->podVolumes || s->reservedNode != node_name) {
    return Status::error("no pod volumes found for node \"" + node_name + "\"");
  }
  return {};
}

Status VolumeBinding::pre_bind(framework::CycleState& state, const api::Pod& pod, const std::string& node_name) {
  const auto* s = state.read<StateData>(kStateKey);
  if (s == nullptr) return Status::error("error reading \"VolumeBinding\" from cycleState: not found");
  if (s->allBound) return {};
  if (!s->podVolumes || s->reservedNode != node_name) {
    return Status::error("no pod volumes found for node \"" + node_name + "\"");
  }
  const auto& volumes = *s->podVolumes;
  auto& client = handle_.client();
  for (const auto& b : volumes.staticBindings) {
    auto st = client.update_pv(*b.pv);
    if (!st.is_success()) return Status::error(st.message());
  }
  for (const auto& c : volumes.dynamicProvisions) {
    auto st = client.update_pvc(*c);
    if (!st.is_success()) return Status::error(st.message());
  }

  const auto& lister = handle_.lister();
  // Upstream checkBindings: done when every claim is fully bound; errors mean "reschedule".
  auto check = [&](std::string& err) -> bool {
    if (!lister.get_pod(pod.metadata.namespace_, pod.metadata.name)) {
      err = "pod does not exist any more: pods \"" + pod.metadata.name + "\" not found";
      return false;
    }
    for (const auto& b : volumes.staticBindings) {
      auto pv = lister.get_pv(b.pv->metadata.name);
      if (!pv) {
        err = "failed to check binding: " + pv_not_found(b.pv->metadata.name);
        return false;
      }
      auto pvc = lister.get_pvc(b.pvc->metadata.namespace_, b.pvc->metadata.name);
      if (!pvc) {
        err = "failed to check binding: " + pvc_not_found(b.pvc->metadata.name);
        return false;
      }
      // Our write has not reached the informer yet.
      if (pv->metadata.resourceVersion == b.pv->metadata.resourceVersion) return false;
      if (!PVAffinity(*pv).matches(s->nodeLabels)) {
        err = "pv \"" + pv->metadata.name + "\" node affinity doesn't match node \"" + node_name +
              "\": no matching NodeSelectorTerms";
        return false;
      }
      if (!pv->spec.claimRef || pv->spec.claimRef->uid.empty()) {
        err = "ClaimRef got reset for pv \"" + pv->metadata.name + "\"";
        return false;
      }
      if (!fully_bound(*pvc)) return false;
    }
    for (const auto& c : volumes.dynamicProvisions) {
      auto pvc = lister.get_pvc(c->metadata.namespace_, c->metadata.name);
      if (!pvc) {
        err = "failed to check provisioning pvc: " + pvc_not_found(c->metadata.name);
        return false;
      }
      if (pvc->metadata.resourceVersion == c->metadata.resourceVersion) return false;
      const auto* selected = pvc->metadata.annotations.find(kAnnSelectedNode);
      if (pvc->metadata.annotations.empty()) {
        err = "selectedNode annotation reset for PVC \"" + pvc->metadata.name + "\"";
        return false;
      }
      // The provisioner removes the annotation to ask for another node.
      if (selected == nullptr || *selected != node_name) {
        err = "provisioning failed for PVC \"" + pvc->metadata.name + "\"";
        return false;
      }
      if (!pvc->spec.volumeName.empty()) {
        auto pv = lister.get_pv(pvc->spec.volumeName);
        if (!pv) {
          err = "failed to get pv \"" + pvc->spec.volumeName + "\" from cache: " + pv_not_found(pvc->spec.volumeName);
          return false;
        }
        if (!PVAffinity(*pv).matches(s->nodeLabels)) {
          err = "pv \"" + pv->metadata.name + "\" node affinity doesn't match node \"" + node_name +
                "\": no matching NodeSelectorTerms";
          return false;
        }
      }
      if (!fully_bound(*pvc)) return false;
    }
    return true;
  };

  const auto deadline = clock_->now() + bindTimeout_;
  while (true) {
    // PollUntilContextTimeout on the binding cycle's context: a stopping scheduler cancels it.
    if (sleep_(std::chrono::seconds(1))) return Status::error("binding volumes: context canceled");
    std::string err;
    if (check(err)) return {};
    if (!err.empty()) return Status::error("binding volumes: " + err);
    if (clock_->now() >= deadline) return Status::error("binding volumes: context deadline exceeded");
  }
}

std::vector<ClusterEventWithHint> VolumeBinding::events_to_register() const {
  using R = framework::EventResource;
  std::vector<ClusterEventWithHint> out;
  ClusterEventWithHint sc;
  sc.event = ClusterEvent{R::StorageClass, framework::kAdd | framework::kUpdate, {}};
  sc.hint = [](const api::Pod&, const std::shared_ptr<const void>& oldObj, const std::shared_ptr<const void>& newObj) {
    const auto* old_sc = static_cast<const api::StorageClass*>(oldObj.get());
    const auto* new_sc = static_cast<const api::StorageClass*>(newObj.get());
    if (new_sc == nullptr) return QueueingHint::Skip;
    if (old_sc == nullptr) return QueueingHint::Queue;
    // Only allowedTopologies can change the outcome of an update.
    const auto& a = old_sc->allowedTopologies;
    const auto& b = new_sc->allowedTopologies;
    bool same = a.size() == b.size();
    for (std::size_t i = 0; same && i < a.size(); ++i) {
      const auto& ea = a[i].matchLabelExpressions;
      const auto& eb = b[i].matchLabelExpressions;
      same = ea.size() == eb.size();
      for (std::size_t j = 0; same && j < ea.size(); ++j) same = ea[j].key == eb[j].key && ea[j].values == eb[j].values;
    }
    return same ? QueueingHint::Skip : QueueingHint::Queue;
  };
  out.push_back(std::move(sc));

  ClusterEventWithHint pvc;
  pvc.event = ClusterEvent{R::PersistentVolumeClaim, framework::kAdd | framework::kUpdate, {}};
  pvc.hint = [](const api::Pod& pod, const std::shared_ptr<const void>&, const std::shared_ptr<const void>& newObj) {
    const auto* claim = static_cast<const api::PersistentVolumeClaim*>(newObj.get());
    return (claim && pod_uses_claim(pod, *claim)) ? QueueingHint::Queue : QueueingHint::Skip;
  };
  out.push_back(std::move(pvc));

  ClusterEventWithHint pv;
  pv.event = ClusterEvent{R::PersistentVolume, framework::kAdd | framework::kUpdate, {}};
  out.push_back(std::move(pv));

  ClusterEventWithHint node;
  node.event = ClusterEvent{R::Node, framework::kAdd | framework::kUpdateNodeLabel, {}};
  out.push_back(std::move(node));

  ClusterEventWithHint csi_node;
  csi_node.event = ClusterEvent{R::CSINode, framework::kAdd | framework::kUpdate, {}};
  csi_node.hint = [](const api::Pod&, const std::shared_ptr<const void>& oldObj, const std::shared_ptr<const void>& newObj) {
    const auto* old_n = static_cast<const api::CSINode*>(oldObj.get());
    const auto* new_n = static_cast<const api::CSINode*>(newObj.get());
    if (new_n == nullptr) return QueueingHint::Skip;
    if (old_n == nullptr) return QueueingHint::Queue;
    // In-tree → CSI translation depends only on the migrated-plugins annotation.
    return old_n->metadata.annotations.get(kMigratedPluginsAnnotation) ==
                   new_n->metadata.annotations.get(kMigratedPluginsAnnotation)
               ? QueueingHint::Skip
               : QueueingHint::Queue;
  };
  out.push_back(std::move(csi_node));

  ClusterEventWithHint driver;
  driver.event = ClusterEvent{R::CSIDriver, framework::kUpdate, {}};
  driver.hint = [](const api::Pod&, const std::shared_ptr<const void>& oldObj, const std::shared_ptr<const void>& newObj) {
    const auto* old_d = static_cast<const api::CSIDriver*>(oldObj.get());
    const auto* new_d = static_cast<const api::CSIDriver*>(newObj.get());
    if (old_d == nullptr || new_d == nullptr) return QueueingHint::Skip;
    // Turning capacity tracking off removes a reason for rejection.
    const bool was = old_d->spec.storageCapacity.value_or(false);
    const bool is = new_d->spec.storageCapacity.value_or(false);
    return (was && !is) ? QueueingHint::Queue : QueueingHint::Skip;
  };
  out.push_back(std::move(driver));

  ClusterEventWithHint capacity;
  capacity.event = ClusterEvent{R::CSIStorageCapacity, framework::kAdd | framework::kUpdate, {}};
  capacity.hint = [](const api::Pod&, const std::shared_ptr<const void>& oldObj, const std::shared_ptr<const void>& newObj) {
    const auto* old_c = static_cast<const api::CSIStorageCapacity*>(oldObj.get());
    const auto* new_c = static_cast<const api::CSIStorageCapacity*>(newObj.get());
    if (new_c == nullptr) return QueueingHint::Skip;
    if (old_c == nullptr) return QueueingHint::Queue;
    auto bigger = [](const std::optional<api::Quantity>& before, const std::optional<api::Quantity>& after) {
      if (!after) return false;
      return !before || *after > *before;
    };
    if (bigger(old_c->capacity, new_c->capacity) || bigger(old_c->maximumVolumeSize, new_c->maximumVolumeSize)) {
      return QueueingHint::Queue;
    }
    return old_c->storageClassName == new_c->storageClassName ? QueueingHint::Skip : QueueingHint::Queue;
  };
  out.push_back(std::move(capacity));
  return out;
}

util::Result<std::shared_ptr<framework::Plugin>> make_volume_binding(const framework::PluginArgs& args,
                                                                     framework::Handle& handle) {
  const auto* a = args.as<config::VolumeBindingArgs>();
  return std::shared_ptr<framework::Plugin>(
      std::make_shared<VolumeBinding>(handle, a ? *a : config::VolumeBindingArgs{}));
}

void VolumeBinding::sign_pod(const api::Pod& pod, framework::PodSignature& sig) const {
  framework::sign_volumes(pod, sig);
}

}  // namespace ksched::scheduler::plugins::volumebinding
