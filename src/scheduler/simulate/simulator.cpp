#include "scheduler/simulate/simulator.h"

#include <array>

#include <algorithm>
#include <boost/json.hpp>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "api/resource_claims.h"
#include "scheduler/dra/manager.h"
#include "scheduler/eventhandlers.h"
#include "scheduler/in_tree_registry.h"
#include "scheduler/scheduler.h"
#include "util/clock.h"

namespace ksched::scheduler::simulate {
namespace fw = framework;
namespace rv1 = api::resourcev1;
namespace {

using api::key_of;
using api::namespaced_key;

// The value at `key`, or an empty value (nullptr, "") when there is none.
template <class Map>
typename Map::mapped_type value_at(const Map& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? typename Map::mapped_type{} : it->second;
}

// The cluster as the scheduler's listers would see it. Pods change under binding threads.
class MemoryCluster final : public fw::ClusterLister {
 public:
  explicit MemoryCluster(const ClusterObjects& c) {
    for (const auto& o : c.namespaces) namespaces_[o->metadata.name] = o;
    for (const auto& o : c.pdbs) pdbs_.push_back(o);
    for (const auto& o : c.pvs) pvs_[o->metadata.name] = o;
    for (const auto& o : c.pvcs) pvcs_[key_of(*o)] = o;
    for (const auto& o : c.storageClasses) storage_classes_[o->metadata.name] = o;
    for (const auto& o : c.csiNodes) csi_nodes_[o->metadata.name] = o;
    for (const auto& o : c.csiDrivers) csi_drivers_[o->metadata.name] = o;
  }
  void set_pod(const fw::PodPtr& p) {
    std::lock_guard l(mu_);
    pods_[key_of(*p)] = p;
  }
  void remove_pod(const api::Pod& p) {
    std::lock_guard l(mu_);
    pods_.erase(key_of(p));
  }

  std::shared_ptr<const api::Namespace> get_namespace(std::string_view name) const override {
    return value_at(namespaces_, std::string(name));
  }
  std::vector<std::shared_ptr<const api::Namespace>> list_namespaces() const override {
    std::vector<std::shared_ptr<const api::Namespace>> out;
    for (const auto& [_, v] : namespaces_) out.push_back(v);
    return out;
  }
  // Services and workload controllers are read only by the (deprecated) SelectorSpread defaults;
  // a dump of the kinds the issue names does not carry them.
  std::vector<std::shared_ptr<const api::Service>> list_services(std::string_view) const override { return {}; }
  std::vector<std::shared_ptr<const api::ReplicationController>> list_replication_controllers(
      std::string_view) const override {
    return {};
  }
  std::vector<std::shared_ptr<const api::ReplicaSet>> list_replica_sets(std::string_view) const override { return {}; }
  std::vector<std::shared_ptr<const api::StatefulSet>> list_stateful_sets(std::string_view) const override { return {}; }
  std::vector<std::shared_ptr<const api::PodDisruptionBudget>> list_pdbs(std::string_view ns) const override {
    std::vector<std::shared_ptr<const api::PodDisruptionBudget>> out;
    for (const auto& p : pdbs_) {
      if (p->metadata.namespace_ == ns) out.push_back(p);
    }
    return out;
  }
  std::shared_ptr<const api::PersistentVolume> get_pv(std::string_view name) const override {
    return value_at(pvs_, std::string(name));
  }
  std::vector<std::shared_ptr<const api::PersistentVolume>> list_pvs() const override {
    std::vector<std::shared_ptr<const api::PersistentVolume>> out;
    for (const auto& [_, v] : pvs_) out.push_back(v);
    return out;
  }
  std::shared_ptr<const api::PersistentVolumeClaim> get_pvc(std::string_view ns, std::string_view name) const override {
    return value_at(pvcs_, namespaced_key(ns, name));
  }
  std::shared_ptr<const api::StorageClass> get_storage_class(std::string_view name) const override {
    return value_at(storage_classes_, std::string(name));
  }
  std::shared_ptr<const api::CSINode> get_csi_node(std::string_view name) const override {
    return value_at(csi_nodes_, std::string(name));
  }
  std::shared_ptr<const api::CSIDriver> get_csi_driver(std::string_view name) const override {
    return value_at(csi_drivers_, std::string(name));
  }
  std::vector<std::shared_ptr<const api::CSIStorageCapacity>> list_csi_storage_capacities() const override { return {}; }
  fw::PodPtr get_pod(std::string_view ns, std::string_view name) const override {
    std::lock_guard l(mu_);
    return value_at(pods_, namespaced_key(ns, name));
  }

 private:
  std::map<std::string, std::shared_ptr<const api::Namespace>> namespaces_;
  std::vector<std::shared_ptr<const api::PodDisruptionBudget>> pdbs_;
  std::map<std::string, std::shared_ptr<const api::PersistentVolume>> pvs_;
  std::map<std::string, std::shared_ptr<const api::PersistentVolumeClaim>> pvcs_;
  std::map<std::string, std::shared_ptr<const api::StorageClass>> storage_classes_;
  std::map<std::string, std::shared_ptr<const api::CSINode>> csi_nodes_;
  std::map<std::string, std::shared_ptr<const api::CSIDriver>> csi_drivers_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, fw::PodPtr> pods_;
};

// The scheduler's writes, applied to the in-memory cluster. What an informer would then deliver
// is queued and handed to the scheduler by deliver(), on the simulation's thread between cycles
// (preemption writes from inside a cycle, where calling the handlers would re-enter it).
class SimulatedClient final : public fw::ClusterClient {
 public:
  explicit SimulatedClient(MemoryCluster& cluster) : cluster_(cluster) {}
  void attach(Scheduler* s) { sched_ = s; }

  // ResourceClaims, as the API server keeps them: resourceVersions count up from the highest of
  // the dump's, a write naming an older one is a conflict (409), and each write reaches the
  // scheduler as the claim informer's update would.
  void add_claim(std::shared_ptr<rv1::ResourceClaim> c) {
    std::lock_guard l(mu_);
    c->metadata.resourceVersion = std::to_string(++version_);
    claims_[namespaced_key(c->metadata.namespace_.view(), c->metadata.name.view())] = c;
    pending_.push_back([s = sched_, c = std::shared_ptr<const rv1::ResourceClaim>(c)] { on_dra_change(*s, nullptr, c); });
  }
  void start_versions_after(std::string_view rv) {
    std::uint64_t v = 0;
    for (char ch : rv) {
      if (ch < '0' || ch > '9') return;
      v = v * 10 + static_cast<std::uint64_t>(ch - '0');
    }
    std::lock_guard l(mu_);
    version_ = std::max(version_, v);
  }
  std::shared_ptr<const rv1::ResourceClaim> claim(std::string_view ns, std::string_view name) const {
    std::lock_guard l(mu_);
    return value_at(claims_, namespaced_key(ns, name));
  }
  std::vector<std::shared_ptr<const rv1::ResourceClaim>> claims() const {
    std::lock_guard l(mu_);
    std::vector<std::shared_ptr<const rv1::ResourceClaim>> out;
    for (const auto& [_, c] : claims_) out.push_back(c);
    return out;
  }
  ClaimAnswer get_resource_claim(std::string_view ns, std::string_view name) override {
    if (auto c = claim(ns, name)) return {c, {}, false};
    return {nullptr, fw::Status::error("resourceclaims.resource.k8s.io \"" + std::string(name) + "\" not found"), false};
  }
  ClaimAnswer update_resource_claim(const rv1::ResourceClaim& claim, bool status) override {
    std::lock_guard l(mu_);
    const std::string name(claim.metadata.name.view());
    auto it = claims_.find(namespaced_key(claim.metadata.namespace_.view(), name));
    if (it == claims_.end()) {
      return {nullptr, fw::Status::error("resourceclaims.resource.k8s.io \"" + name + "\" not found"), false};
    }
    if (claim.metadata.resourceVersion.view() != it->second->metadata.resourceVersion.view()) {
      return {nullptr,
              fw::Status::error("Operation cannot be fulfilled on resourceclaims.resource.k8s.io \"" + name +
                                "\": the object has been modified; please apply your changes to the latest version and "
                                "try again"),
              true};
    }
    // The status subresource changes the status alone; the object itself everything else.
    auto next = std::make_shared<rv1::ResourceClaim>(status ? *it->second : claim);
    next->status = status ? claim.status : it->second->status;
    next->metadata.resourceVersion = std::to_string(++version_);
    std::shared_ptr<const rv1::ResourceClaim> old = it->second, now = next;
    it->second = now;
    pending_.push_back([s = sched_, old, now] { on_dra_change(*s, old, now); });
    return {now, {}, false};
  }

  fw::Status bind(const api::Pod& pod, const std::string& node_name) override {
    auto current = cluster_.get_pod(pod.metadata.namespace_, pod.metadata.name);
    if (!current) return fw::Status::error("pods \"" + pod.metadata.name + "\" not found");
    auto bound = std::make_shared<api::Pod>(*current);
    bound->spec.nodeName = node_name;
    cluster_.set_pod(bound);
    std::lock_guard l(mu_);
    bound_[key_of(pod)] = node_name;
    pending_.push_back([s = sched_, current, bound] { s->on_pod_update(current, bound); });
    return {};
  }
  fw::Status delete_pod(const api::Pod& pod) override {
    auto current = cluster_.get_pod(pod.metadata.namespace_, pod.metadata.name);
    if (!current) return {};  // NotFound counts as success
    cluster_.remove_pod(pod);
    std::lock_guard l(mu_);
    const std::string k = key_of(pod);
    evicted_.push_back(k);
    bound_.erase(k);
    evicted_set_.insert(k);
    pending_.push_back([s = sched_, current] { s->on_pod_delete(current); });
    return {};
  }
  fw::Status patch_pod_status(const api::Pod& pod, const std::optional<api::PodCondition>& condition,
                              const std::optional<std::string>& nominated_node_name) override {
    auto current = cluster_.get_pod(pod.metadata.namespace_, pod.metadata.name);
    if (!current) return fw::Status::error("pods \"" + pod.metadata.name + "\" not found");
    auto patched = std::make_shared<api::Pod>(*current);
    if (nominated_node_name) patched->status.nominatedNodeName = *nominated_node_name;
    if (condition) {
      auto& conds = patched->status.conditions;
      auto it = std::find_if(conds.begin(), conds.end(), [&](const auto& c) { return c.type == condition->type; });
      if (it == conds.end()) {
        conds.push_back(*condition);
      } else {
        *it = *condition;
      }
    }
    cluster_.set_pod(patched);
    std::lock_guard l(mu_);
    if (nominated_node_name) nominated_[key_of(pod)] = *nominated_node_name;
    pending_.push_back([s = sched_, current, patched] { s->on_pod_update(current, patched); });
    return {};
  }
  void event(const api::Pod& regarding, const std::string&, const std::string& reason, const std::string&,
             const std::string& note) override {
    if (reason != "FailedScheduling") return;
    std::lock_guard l(mu_);
    reasons_[key_of(regarding)] = note;
  }

  // Hands what an informer would have seen to the scheduler; true when there was anything.
  bool deliver() {
    std::deque<std::function<void()>> batch;
    {
      std::lock_guard l(mu_);
      batch.swap(pending_);
    }
    for (auto& f : batch) f();
    return !batch.empty();
  }

  std::string bound_node(const std::string& key) const {
    std::lock_guard l(mu_);
    return value_at(bound_, key);
  }
  std::string reason(const std::string& key) const {
    std::lock_guard l(mu_);
    return value_at(reasons_, key);
  }
  std::string nominated(const std::string& key) const {
    std::lock_guard l(mu_);
    return value_at(nominated_, key);
  }
  bool was_evicted(const std::string& key) const {
    std::lock_guard l(mu_);
    return evicted_set_.count(key) != 0;
  }
  std::vector<std::string> evicted() const {
    std::lock_guard l(mu_);
    return evicted_;
  }

 private:
  MemoryCluster& cluster_;
  Scheduler* sched_ = nullptr;
  mutable std::mutex mu_;
  std::deque<std::function<void()>> pending_;
  std::unordered_map<std::string, std::string> bound_, reasons_, nominated_;
  std::unordered_set<std::string> evicted_set_;
  std::vector<std::string> evicted_;
  std::map<std::string, std::shared_ptr<const rv1::ResourceClaim>> claims_;  // by namespace/name
  std::uint64_t version_ = 0;
};

// What admission and defaulting would have done to a pod created through the API server.
util::Result<fw::PodPtr> admit(const api::Pod& given, std::size_t index, const ClusterObjects& cluster) {
  auto p = std::make_shared<api::Pod>(given);
  if (p->metadata.namespace_.empty()) p->metadata.namespace_ = "default";
  if (p->metadata.name.empty()) {
    if (p->metadata.generateName.empty()) return util::make_error("pod " + std::to_string(index) + ": no name or generateName");
    p->metadata.name = p->metadata.generateName + "sim" + std::to_string(index);
  }
  if (p->metadata.uid.empty()) p->metadata.uid = "simulated-" + std::to_string(index);
  if (p->spec.schedulerName.empty()) p->spec.schedulerName = "default-scheduler";
  if (!p->spec.priority) {
    const api::PriorityClass* pc = nullptr;
    for (const auto& c : cluster.priorityClasses) {
      if (p->spec.priorityClassName.empty() ? c->globalDefault : c->metadata.name == p->spec.priorityClassName) {
        pc = c.get();
        break;
      }
    }
    if (pc == nullptr && !p->spec.priorityClassName.empty() && p->spec.priorityClassName != "system-cluster-critical" &&
        p->spec.priorityClassName != "system-node-critical") {
      // The Priority admission plugin's refusal, as `kubectl create` would print it.
      return util::make_error("pods \"" + std::string(p->metadata.name) + "\" is forbidden: no PriorityClass with name " +
                              std::string(p->spec.priorityClassName) + " was found");
    }
    if (pc != nullptr) {
      p->spec.priority = pc->value;
      if (!p->spec.preemptionPolicy && pc->preemptionPolicy) p->spec.preemptionPolicy = *pc->preemptionPolicy;
    } else if (p->spec.priorityClassName == "system-node-critical") {
      p->spec.priority = 2000001000;
    } else if (p->spec.priorityClassName == "system-cluster-critical") {
      p->spec.priority = 2000000000;
    } else {
      p->spec.priority = 0;
    }
  }
  return fw::PodPtr(std::move(p));
}

// What the ResourceClaim controller would do for a new pod: a claim from each template the pod
// names, recorded in the pod's status.resourceClaimStatuses. The API server's random name suffix
// is drawn from its alphabet by a counter, so that names repeat from run to run. Returns the
// controller's error for a template that does not exist ("" when all were made); the pod is still
// created, and the scheduler keeps it waiting for the claim, as it would.
std::string make_claims_from_templates(api::Pod& pod, const ClusterObjects& cluster, SimulatedClient& client,
                                       std::uint64_t& claims_made) {
  std::string error;
  std::vector<api::PodResourceClaimStatus> statuses;
  for (const auto& pc : pod.spec.resourceClaims) {
    if (!pc.resourceClaimTemplateName) continue;
    const rv1::ResourceClaimTemplate* tmpl = nullptr;
    for (const auto& t : cluster.resourceClaimTemplates) {
      if (t->metadata.name.view() == *pc.resourceClaimTemplateName &&
          t->metadata.namespace_.view() == pod.metadata.namespace_.view()) {
        tmpl = t.get();
        break;
      }
    }
    if (tmpl == nullptr) {
      if (error.empty()) {
        const std::string& t = *pc.resourceClaimTemplateName;
        error = "resource claim template \"" + t + "\": resourceclaimtemplate.resource.k8s.io \"" + t + "\" not found";
      }
      continue;
    }
    auto claim = std::make_shared<rv1::ResourceClaim>(api::claim_from_template(pod, pc.name, *tmpl));
    static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
    std::string name(claim->metadata.generateName.view());
    for (std::uint64_t n = claims_made++, i = 0; i < 5; ++i, n /= kAlphabet.size()) name += kAlphabet[n % kAlphabet.size()];
    claim->metadata.name = name;
    claim->metadata.uid = "simulated-claim-" + std::to_string(claims_made);
    api::PodResourceClaimStatus st;
    st.name = pc.name;
    st.resourceClaimName = name;
    statuses.push_back(std::move(st));
    client.add_claim(std::move(claim));
  }
  if (!statuses.empty()) pod.status.resourceClaimStatuses = std::move(statuses);
  return error;
}

// The devices a pod's claims were allocated, as "driver/pool/device".
std::vector<std::string> allocated_devices(const api::Pod& pod, const SimulatedClient& client) {
  std::vector<std::string> out;
  for (const auto& pc : pod.spec.resourceClaims) {
    auto name = dra::pod_claim_name(pod, pc);
    if (!name || !name->name) continue;
    auto claim = client.claim(pod.metadata.namespace_.view(), *name->name);
    if (!claim || !claim->status.allocation) continue;
    for (const auto& d : claim->status.allocation->devices.results) {
      out.push_back(std::string(d.driver.view()) + "/" + std::string(d.pool.view()) + "/" + std::string(d.device.view()));
    }
  }
  return out;
}

// Devices per node: those of the node's own ResourceSlices, and how many of them allocated claims
// hold (node-less slices belong to no one node and are left out).
void count_devices(const ClusterObjects& cluster, const std::vector<std::shared_ptr<const rv1::ResourceClaim>>& claims,
                   std::vector<NodeUsage>& nodes) {
  std::map<std::string, std::string> node_of;  // "driver/pool/device" -> node
  std::map<std::string, std::int64_t> total;
  for (const auto& s : cluster.resourceSlices) {
    if (!s->spec.nodeName) continue;
    for (const auto& d : s->spec.devices) {
      node_of[std::string(s->spec.driver.view()) + "/" + std::string(s->spec.pool.name.view()) + "/" +
              std::string(d.name.view())] = *s->spec.nodeName;
      ++total[*s->spec.nodeName];
    }
  }
  if (node_of.empty()) return;
  std::map<std::string, std::int64_t> used;
  std::unordered_set<std::string> seen;  // a device shared by several claims counts once
  for (const auto& c : claims) {
    if (!c->status.allocation) continue;
    for (const auto& d : c->status.allocation->devices.results) {
      if (d.adminAccess.value_or(false)) continue;  // admin access holds no device
      const std::string id =
          std::string(d.driver.view()) + "/" + std::string(d.pool.view()) + "/" + std::string(d.device.view());
      auto it = node_of.find(id);
      if (it != node_of.end() && seen.insert(id).second) ++used[it->second];
    }
  }
  for (auto& n : nodes) {
    n.devices = value_at(used, n.name);
    n.devicesTotal = value_at(total, n.name);
  }
}

std::string pre_enqueue_reason(Scheduler& s, const api::Pod& pod) {
  auto it = s.profiles().find(std::string(pod.spec.schedulerName.view()));
  if (it == s.profiles().end()) return {};
  const auto status = it->second->run_pre_enqueue_plugins(pod);
  return status.is_success() ? std::string() : status.message();
}

// Each gang with an unbound member and its quorum present, tried once more as the pod-group
// cycle would (a dry run: nothing is kept), for the member that blocks it.
std::vector<PendingGang> pending_gangs(Scheduler& s, const std::vector<std::shared_ptr<const api::Pod>>& pods,
                                       const std::vector<Placement>& placements) {
  std::vector<PendingGang> out;
  podgroup::Manager* groups = s.pod_group_manager();
  if (groups == nullptr) return out;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < pods.size() && i < placements.size(); ++i) {
    const auto& p = pods[i];
    if (!p || !podgroup::has_group(*p) || !placements[i].node.empty() || placements[i].evicted) continue;
    const podgroup::Policy policy = groups->policy(*p);
    if (policy.kind != podgroup::Policy::Kind::Gang) continue;
    const std::string key = podgroup::group_key(*p);
    if (!seen.insert(key).second) continue;
    if (groups->all_pods_count(key) < static_cast<std::size_t>(policy.minCount)) continue;  // PreEnqueue holds it
    framework::Framework* fwk = s.profile(p->spec.schedulerName);
    if (fwk == nullptr || !s.refresh_snapshot().ok()) continue;
    auto run = s.dry_run_pod_group(*fwk, *p);
    if (!run.ok()) continue;
    PendingGang g;
    // A PodGroup is "<namespace>/<name>" (its group key), a Workload's group "<ns>/<workload>/<podGroup>".
    g.group = podgroup::pod_group_name(*p) ? key
                                           : p->metadata.namespace_ + "/" + p->spec.workloadRef->name + "/" +
                                                 p->spec.workloadRef->podGroup;
    g.minCount = policy.minCount;
    g.placed = static_cast<std::size_t>(run->scheduled);
    for (const auto& m : run->members) {
      if (!m.node.empty()) {
        ++g.placed;
      } else if (m.tried && g.blocking.empty()) {
        g.blocking = key_of(*m.pod);
        g.why = m.status.message();
      }
    }
    g.verdict = !run->error.is_success() ? run->error.message() : run->feasible.message();
    if (run->feasible.is_success() && run->error.is_success()) continue;  // would be placed now
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<NodeUsage> usage(Scheduler& s) {
  std::vector<NodeUsage> out;
  if (!s.refresh_snapshot().ok() || s.profiles().empty()) return out;
  for (const auto& ni : s.profiles().begin()->second->snapshot_node_infos().list()) {
    if (ni->node() == nullptr) continue;
    NodeUsage u;
    u.name = std::string(ni->name_view());
    u.milliCPU = ni->requested.milliCPU;
    u.milliCPUAllocatable = ni->allocatable.milliCPU;
    u.memory = ni->requested.memory;
    u.memoryAllocatable = ni->allocatable.memory;
    u.pods = static_cast<std::int64_t>(ni->pods.size());
    u.podsAllocatable = ni->allocatable.allowedPodNumber;
    out.push_back(std::move(u));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

}  // namespace

util::Result<Report> simulate(const ClusterObjects& cluster, const std::vector<std::shared_ptr<const api::Pod>>& pods,
                              const SimulateOptions& opts) {
  // Every given pod keeps its place in the report; a refused one (null here) is never scheduled.
  std::vector<fw::PodPtr> admitted;
  std::vector<std::pair<std::string, std::string>> refused;  // (namespace/name, admission's message)
  admitted.reserve(pods.size());
  for (std::size_t i = 0; i < pods.size(); ++i) {
    if (pods[i]->metadata.name.empty() && pods[i]->metadata.generateName.empty()) {
      return util::make_error("pod " + std::to_string(i + 1) + " of the given pods: no name or generateName");
    }
    auto p = admit(*pods[i], i, cluster);
    if (!p) {
      const auto& m = pods[i]->metadata;
      refused.emplace_back((m.namespace_.empty() ? std::string("default") : std::string(m.namespace_)) + "/" +
                               (m.name.empty() ? std::string(m.generateName) : std::string(m.name)),
                           p.error());
      admitted.push_back(nullptr);
      continue;
    }
    admitted.push_back(std::move(*p));
  }

  MemoryCluster mem(cluster);
  SimulatedClient client(mem);
  util::FakeClock clock;
  SchedulerOptions so;
  so.clock = &clock;
  so.seed = opts.seed;
  so.plugin_metrics_sample_percent = 0;
  auto cfg = opts.cfg;
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  cfg.parallelism = opts.parallelism > 0 ? opts.parallelism : std::min(cfg.parallelism, hw);
  auto created = Scheduler::create(cfg, new_in_tree_registry(), client, mem, so);
  if (!created) return util::make_error(created.error());
  auto& sched = **created;
  client.attach(&sched);

  Report r;
  r.nodes = cluster.nodes.size();
  for (const auto& n : cluster.nodes) sched.on_node_add(n);
  // resource.k8s.io objects first, as informers that synced before the pods would have them.
  for (const auto& c : cluster.deviceClasses) on_dra_change(sched, nullptr, c);
  for (const auto& sl : cluster.resourceSlices) on_dra_change(sched, nullptr, sl);
  for (const auto& c : cluster.resourceClaims) client.start_versions_after(c->metadata.resourceVersion.view());
  for (const auto& c : cluster.resourceClaims) client.add_claim(std::make_shared<rv1::ResourceClaim>(*c));
  client.deliver();
  // Workloads before pods too (read only with GangScheduling, as kube-scheduler's informer).
  // A Workload of a pods file without a namespace lands in "default", as `kubectl apply` puts it.
  for (const auto& w : cluster.workloads) {
    if (!w->metadata.namespace_.empty()) {
      sched.on_workload_add(w);
      continue;
    }
    auto defaulted = std::make_shared<api::schedulingv1alpha1::Workload>(*w);
    defaulted->metadata.namespace_ = "default";
    sched.on_workload_add(std::move(defaulted));
  }
  for (const auto& pg : cluster.podGroups) {
    if (!pg->metadata.namespace_.empty()) {
      sched.on_pod_group_add(pg);
      continue;
    }
    auto defaulted = std::make_shared<api::schedulingv1beta1::PodGroup>(*pg);
    defaulted->metadata.namespace_ = "default";
    sched.on_pod_group_add(std::move(defaulted));
  }
  for (const auto& p : cluster.pods) {
    if (p->spec.nodeName.empty()) {
      ++r.pendingPodsIgnored;
      continue;
    }
    if (p->status.phase == "Succeeded" || p->status.phase == "Failed") continue;
    mem.set_pod(p);
    sched.on_pod_add(p);
    ++r.existingPods;
  }
  r.before = usage(sched);
  count_devices(cluster, client.claims(), r.before);

  // Cycles until nothing is runnable; then backoff served on the simulated clock, as long as a
  // pod waits there (a preemptor whose victims are gone).
  auto run_until_idle = [&] {
    for (int round = 0; round < 16; ++round) {
      // An asynchronous preemption's evictions are waited for, so their events are delivered with
      // the cycle's own.
      while (sched.schedule_one_if_pending()) {
        sched.wait_for_preemptions();
        client.deliver();
      }
      client.deliver();
      const auto c = sched.queue().counts();
      if (c.backoff == 0 && c.active == 0) return;
      clock.step(std::chrono::seconds(11));  // past the longest backoff (podMaxBackoff 10 s)
      sched.queue().flush_backoff_q_completed();
    }
  };

  const auto start = std::chrono::steady_clock::now();
  std::uint64_t claims_made = 0;
  std::map<std::string, std::string> claim_errors;  // pod -> the ResourceClaim controller's error
  for (auto& p : admitted) {
    if (!p) continue;
    if (!p->spec.resourceClaims.empty()) {
      auto with_claims = std::make_shared<api::Pod>(*p);
      if (auto err = make_claims_from_templates(*with_claims, cluster, client, claims_made); !err.empty()) {
        claim_errors[key_of(*p)] = std::move(err);
      }
      p = std::move(with_claims);
      client.deliver();
    }
    mem.set_pod(p);
    sched.on_pod_add(p);
    run_until_idle();
  }
  sched.wait_for_bindings(std::chrono::minutes(1));
  client.deliver();
  run_until_idle();
  sched.wait_for_bindings(std::chrono::minutes(1));
  client.deliver();
  r.scheduleTime = std::chrono::steady_clock::now() - start;
  sched.stop();

  std::size_t next_refused = 0;
  for (const auto& p : admitted) {
    Placement pl;
    if (!p) {
      pl.pod = refused[next_refused].first;
      pl.reason = refused[next_refused++].second;
      pl.notAdmitted = true;
      r.placements.push_back(std::move(pl));
      continue;
    }
    pl.pod = key_of(*p);
    pl.node = client.bound_node(pl.pod);
    pl.evicted = client.was_evicted(pl.pod);
    if (pl.node.empty() && !pl.evicted) {
      pl.reason = client.reason(pl.pod);
      // A pod whose claim could not be made never reaches a cycle: the controller's error says why.
      if (pl.reason.empty()) pl.reason = value_at(claim_errors, pl.pod);
      // Nor does a pod a PreEnqueue plugin holds back (a gang short of its quorum, a scheduling
      // gate): that plugin's message, as the queue logs it.
      if (pl.reason.empty()) pl.reason = pre_enqueue_reason(sched, *p);
    }
    if (!pl.node.empty()) pl.devices = allocated_devices(*p, client);
    pl.nominatedNode = client.nominated(pl.pod);
    if (!pl.node.empty()) ++r.scheduled;
    r.placements.push_back(std::move(pl));
  }
  r.evicted = client.evicted();
  r.pendingGangs = pending_gangs(sched, admitted, r.placements);
  r.after = usage(sched);
  count_devices(cluster, client.claims(), r.after);
  return r;
}

namespace {

std::string percent(std::int64_t used, std::int64_t of) {
  if (of <= 0) return "-";
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100.0 * static_cast<double>(used) / static_cast<double>(of));
  return buf;
}

}  // namespace

std::string to_text(const Report& r) {
  std::string out;
  const double secs = std::chrono::duration<double>(r.scheduleTime).count();
  auto count = [](std::size_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); };
  out += "Cluster: " + count(r.nodes, "node", "nodes") + ", " + count(r.existingPods, "bound pod", "bound pods");
  if (r.pendingPodsIgnored != 0) {
    out += " (" + count(r.pendingPodsIgnored, "unbound pod", "unbound pods") + " of the dump left out: only the given pods are scheduled)";
  }
  out += "\n";
  // A rate over a handful of pods measures timer noise, not the scheduler: it is shown from
  // kMinPodsForRate pods on (the JSON report always has it).
  constexpr std::size_t kMinPodsForRate = 100;
  char took[96];
  if (secs < 1.0) {
    std::snprintf(took, sizeof took, "%.1f ms", secs * 1000.0);
  } else {
    std::snprintf(took, sizeof took, "%.2f s", secs);
  }
  out += "Scheduled " + std::to_string(r.scheduled) + " of " + count(r.placements.size(), "pod", "pods") + " in " + took;
  if (r.placements.size() >= kMinPodsForRate && secs > 0) {
    char rate[48];
    std::snprintf(rate, sizeof rate, " (%.0f pods/s)", static_cast<double>(r.placements.size()) / secs);
    out += rate;
  }
  out += "; " + std::to_string(r.evicted.size()) + " preempted\n\nPlacements:\n";
  std::size_t pod_width = 0;
  for (const auto& p : r.placements) pod_width = std::max(pod_width, p.pod.size());
  for (const auto& p : r.placements) {
    out += "  " + p.pod + std::string(pod_width - p.pod.size() + 2, ' ');
    if (!p.node.empty()) {
      out += "-> " + p.node;
    } else if (p.evicted) {
      out += "placed, then preempted";
    } else if (p.notAdmitted) {
      out += "not admitted: " + p.reason;
    } else {
      out += "unschedulable: " + (p.reason.empty() ? std::string("(no reason recorded)") : p.reason);
    }
    if (!p.nominatedNode.empty() && p.node != p.nominatedNode) out += "  (nominated " + p.nominatedNode + ")";
    if (!p.devices.empty()) {
      out += "  devices:";
      for (const auto& d : p.devices) out += " " + d;
    }
    out += "\n";
  }
  if (!r.pendingGangs.empty()) {
    out += "\nPending gangs (the pod-group cycle tried once more):\n";
    for (const auto& g : r.pendingGangs) {
      out += "  " + g.group + ": " + std::to_string(g.placed) + " of minCount " + std::to_string(g.minCount) + " placed";
      if (!g.verdict.empty()) out += " (" + g.verdict + ")";
      out += "\n";
      if (!g.blocking.empty()) out += "    blocking member " + g.blocking + ": " + g.why + "\n";
    }
  }
  if (!r.evicted.empty()) {
    out += "\nPreempted:\n";
    for (const auto& v : r.evicted) out += "  " + v + "\n";
  }
  // Utilization as an aligned table: one row per node, "before -> after" per column; a DEVICES
  // column when some node has DRA devices of its own.
  const bool with_devices =
      std::any_of(r.after.begin(), r.after.end(), [](const NodeUsage& u) { return u.devicesTotal > 0; });
  std::vector<std::array<std::string, 5>> rows;
  rows.push_back({"NODE", "CPU", "MEMORY", "PODS", with_devices ? "DEVICES" : ""});
  for (std::size_t i = 0; i < r.after.size(); ++i) {
    const auto& a = r.after[i];
    const NodeUsage* b = i < r.before.size() && r.before[i].name == a.name ? &r.before[i] : nullptr;
    auto pair = [&](std::int64_t before, std::int64_t after, std::int64_t of) {
      return (b ? percent(before, of) : std::string("-")) + " -> " + percent(after, of);
    };
    auto counts = [&](std::int64_t before, std::int64_t after, std::int64_t of) {
      return (b ? std::to_string(before) : std::string("-")) + " -> " + std::to_string(after) + "/" + std::to_string(of);
    };
    rows.push_back({a.name, pair(b ? b->milliCPU : 0, a.milliCPU, a.milliCPUAllocatable),
                    pair(b ? b->memory : 0, a.memory, a.memoryAllocatable),
                    counts(b ? b->pods : 0, a.pods, a.podsAllocatable),
                    with_devices ? counts(b ? b->devices : 0, a.devices, a.devicesTotal) : ""});
  }
  std::array<std::size_t, 5> width{};
  const std::size_t columns = with_devices ? 5 : 4;
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < columns; ++c) width[c] = std::max(width[c], row[c].size());
  }
  out += "\nUtilization (requested / allocatable), before -> after:\n";
  for (const auto& row : rows) {
    std::string line = " ";
    for (std::size_t c = 0; c < columns; ++c) {
      line += " " + row[c];
      if (c + 1 < columns) line += std::string(width[c] - row[c].size() + 2, ' ');
    }
    out += line + "\n";
  }
  return out;
}

std::string to_json(const Report& r) {
  namespace json = boost::json;
  json::array placements;
  for (const auto& p : r.placements) {
    json::object o{{"pod", p.pod}, {"node", p.node}};
    if (!p.reason.empty()) o["reason"] = p.reason;
    if (!p.nominatedNode.empty()) o["nominatedNode"] = p.nominatedNode;
    if (p.evicted) o["evicted"] = true;
    if (p.notAdmitted) o["notAdmitted"] = true;
    if (!p.devices.empty()) {
      json::array devices;
      for (const auto& d : p.devices) devices.push_back(json::string(d));
      o["devices"] = std::move(devices);
    }
    placements.push_back(std::move(o));
  }
  auto usage_json = [](const std::vector<NodeUsage>& us) {
    json::array a;
    for (const auto& u : us) {
      json::object o{{"node", u.name},
                     {"milliCPU", u.milliCPU},
                     {"milliCPUAllocatable", u.milliCPUAllocatable},
                     {"memory", u.memory},
                     {"memoryAllocatable", u.memoryAllocatable},
                     {"pods", u.pods},
                     {"podsAllocatable", u.podsAllocatable}};
      if (u.devicesTotal > 0) {
        o["devices"] = u.devices;
        o["devicesTotal"] = u.devicesTotal;
      }
      a.push_back(std::move(o));
    }
    return a;
  };
  json::array evicted;
  for (const auto& v : r.evicted) evicted.push_back(json::string(v));
  json::array gangs;
  for (const auto& g : r.pendingGangs) {
    gangs.push_back(json::object{{"group", g.group},
                                 {"minCount", g.minCount},
                                 {"placed", g.placed},
                                 {"blocking", g.blocking},
                                 {"why", g.why},
                                 {"verdict", g.verdict}});
  }
  const double secs = std::chrono::duration<double>(r.scheduleTime).count();
  json::object root{{"nodes", r.nodes},
                    {"existingPods", r.existingPods},
                    {"pendingPodsIgnored", r.pendingPodsIgnored},
                    {"scheduled", r.scheduled},
                    {"scheduleSeconds", secs},
                    {"podsPerSecond", secs > 0 ? static_cast<double>(r.placements.size()) / secs : 0.0},
                    {"placements", std::move(placements)},
                    {"evicted", std::move(evicted)},
                    {"pendingGangs", std::move(gangs)},
                    {"before", usage_json(r.before)},
                    {"after", usage_json(r.after)}};
  return json::serialize(root) + "\n";
}

}  // namespace ksched::scheduler::simulate
