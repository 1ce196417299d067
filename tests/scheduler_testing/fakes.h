// In-memory fakes for scheduler tests: cluster lister, cluster client (records calls), an inline
// (serial) parallelizer, a snapshot built from pods + nodes, a nominator and a Handle tying them
// together. Header-only so every test binary can use them without linking extra libraries.
#pragma once
#include <algorithm>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "api/core.h"
#include "scheduler/cache/snapshot.h"
#include "scheduler/framework/async_tasks.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/types.h"

namespace ksched::scheduler::testing {

namespace fw = ::ksched::scheduler::framework;

// ---------------------------------------------------------------- lister
// Setters are templates over the pointer type so that this header does not need the complete API
// types (volume/storage/apps/policy) that interface.h only forward-declares.
class FakeClusterLister : public fw::ClusterLister {
 public:
  template <class P>
  void add_namespace(const P& ns) {
    namespaces_[ns->metadata.name] = ns;
  }
  template <class P>
  void add_service(const P& s) {
    services_[s->metadata.namespace_].push_back(s);
  }
  template <class P>
  void add_replication_controller(const P& rc) {
    rcs_[rc->metadata.namespace_].push_back(rc);
  }
  template <class P>
  void add_replica_set(const P& rs) {
    rss_[rs->metadata.namespace_].push_back(rs);
  }
  template <class P>
  void add_stateful_set(const P& ss) {
    sss_[ss->metadata.namespace_].push_back(ss);
  }
  template <class P>
  void add_pdb(const P& pdb) {
    pdbs_[pdb->metadata.namespace_].push_back(pdb);
  }
  template <class P>
  void add_pv(const P& pv) {
    pvs_[pv->metadata.name] = pv;
  }
  template <class P>
  void add_pvc(const P& pvc) {
    pvcs_[pvc->metadata.namespace_ + "/" + pvc->metadata.name] = pvc;
  }
  template <class P>
  void add_storage_class(const P& sc) {
    storage_classes_[sc->metadata.name] = sc;
  }
  template <class P>
  void add_csi_node(const P& n) {
    csi_nodes_[n->metadata.name] = n;
  }
  template <class P>
  void add_csi_driver(const P& d) {
    csi_drivers_[d->metadata.name] = d;
  }
  template <class P>
  void add_csi_storage_capacity(const P& c) {
    capacities_.push_back(c);
  }
  void add_pod(fw::PodPtr p) { pods_[p->metadata.namespace_ + "/" + p->metadata.name] = std::move(p); }
  void remove_pod(const std::string& ns, const std::string& name) { pods_.erase(ns + "/" + name); }

  std::shared_ptr<const api::Namespace> get_namespace(std::string_view name) const override {
    return find(namespaces_, std::string(name));
  }
  std::vector<std::shared_ptr<const api::Namespace>> list_namespaces() const override {
    std::vector<std::shared_ptr<const api::Namespace>> out;
    for (const auto& [_, v] : namespaces_) out.push_back(v);
    return out;
  }
  std::vector<std::shared_ptr<const api::Service>> list_services(std::string_view ns) const override {
    return find_list(services_, ns);
  }
  std::vector<std::shared_ptr<const api::ReplicationController>> list_replication_controllers(
      std::string_view ns) const override {
    return find_list(rcs_, ns);
  }
  std::vector<std::shared_ptr<const api::ReplicaSet>> list_replica_sets(std::string_view ns) const override {
    return find_list(rss_, ns);
  }
  std::vector<std::shared_ptr<const api::StatefulSet>> list_stateful_sets(std::string_view ns) const override {
    return find_list(sss_, ns);
  }
  std::vector<std::shared_ptr<const api::PodDisruptionBudget>> list_pdbs(std::string_view ns) const override {
    return find_list(pdbs_, ns);
  }
  std::shared_ptr<const api::PersistentVolume> get_pv(std::string_view name) const override {
    return find(pvs_, std::string(name));
  }
  std::vector<std::shared_ptr<const api::PersistentVolume>> list_pvs() const override {
    std::vector<std::shared_ptr<const api::PersistentVolume>> out;
    for (const auto& [_, v] : pvs_) out.push_back(v);
    return out;
  }
  std::shared_ptr<const api::PersistentVolumeClaim> get_pvc(std::string_view ns, std::string_view name) const override {
    return find(pvcs_, std::string(ns) + "/" + std::string(name));
  }
  std::shared_ptr<const api::StorageClass> get_storage_class(std::string_view name) const override {
    return find(storage_classes_, std::string(name));
  }
  std::shared_ptr<const api::CSINode> get_csi_node(std::string_view name) const override {
    return find(csi_nodes_, std::string(name));
  }
  std::shared_ptr<const api::CSIDriver> get_csi_driver(std::string_view name) const override {
    return find(csi_drivers_, std::string(name));
  }
  std::vector<std::shared_ptr<const api::CSIStorageCapacity>> list_csi_storage_capacities() const override {
    return capacities_;
  }
  fw::PodPtr get_pod(std::string_view ns, std::string_view name) const override {
    return find(pods_, std::string(ns) + "/" + std::string(name));
  }

 private:
  template <class M>
  static typename M::mapped_type find(const M& m, const std::string& k) {
    auto it = m.find(k);
    return it == m.end() ? typename M::mapped_type{} : it->second;
  }
  template <class T>
  static std::vector<std::shared_ptr<const T>> find_list(
      const std::map<std::string, std::vector<std::shared_ptr<const T>>, std::less<>>& m, std::string_view ns) {
    auto it = m.find(ns);
    return it == m.end() ? std::vector<std::shared_ptr<const T>>{} : it->second;
  }

  std::map<std::string, std::shared_ptr<const api::Namespace>> namespaces_;
  std::map<std::string, std::vector<std::shared_ptr<const api::Service>>, std::less<>> services_;
  std::map<std::string, std::vector<std::shared_ptr<const api::ReplicationController>>, std::less<>> rcs_;
  std::map<std::string, std::vector<std::shared_ptr<const api::ReplicaSet>>, std::less<>> rss_;
  std::map<std::string, std::vector<std::shared_ptr<const api::StatefulSet>>, std::less<>> sss_;
  std::map<std::string, std::vector<std::shared_ptr<const api::PodDisruptionBudget>>, std::less<>> pdbs_;
  std::map<std::string, std::shared_ptr<const api::PersistentVolume>> pvs_;
  std::map<std::string, std::shared_ptr<const api::PersistentVolumeClaim>> pvcs_;
  std::map<std::string, std::shared_ptr<const api::StorageClass>> storage_classes_;
  std::map<std::string, std::shared_ptr<const api::CSINode>> csi_nodes_;
  std::map<std::string, std::shared_ptr<const api::CSIDriver>> csi_drivers_;
  std::vector<std::shared_ptr<const api::CSIStorageCapacity>> capacities_;
  std::map<std::string, fw::PodPtr> pods_;
};

// ---------------------------------------------------------------- client
// Records every write; each kind of call can be made to fail. Thread-safe (binding cycles and
// preemption call it from worker threads).
class FakeClusterClient : public fw::ClusterClient {
 public:
  struct Bind {
    std::string pod;  // "ns/name"
    std::string uid;
    std::string node;
  };
  struct Patch {
    std::string pod;
    std::optional<api::PodCondition> condition;
    std::optional<std::string> nominatedNodeName;
  };
  struct Event {
    std::string regarding;  // "ns/name"
    std::string type, reason, action, note;
  };

  fw::Status bind(const api::Pod& pod, const std::string& node_name) override {
    wait_for_binds_released();
    std::lock_guard l(mu_);
    return bind_locked(pod, node_name);
  }
  // Records how many bindings each call carried (bind: none recorded; bind_all: its size).
  std::vector<fw::Status> bind_all(const std::vector<Binding>& bindings) override {
    wait_for_binds_released();
    std::lock_guard l(mu_);
    bind_all_sizes_.push_back(bindings.size());
    std::vector<fw::Status> out;
    for (const auto& b : bindings) out.push_back(bind_locked(*b.pod, *b.node_name));
    return out;
  }
  // While held, bind and bind_all wait (to let bindings queue up behind them).
  void hold_binds() {
    std::lock_guard l(hold_mu_);
    held_ = true;
  }
  void release_binds() {
    {
      std::lock_guard l(hold_mu_);
      held_ = false;
    }
    hold_cv_.notify_all();
  }
  std::vector<std::size_t> bind_all_sizes() const {
    std::lock_guard l(mu_);
    return bind_all_sizes_;
  }
  // Until `n` bindings succeeded; false after `timeout`.
  bool wait_for_binds(std::size_t n, std::chrono::milliseconds timeout) {
    std::unique_lock l(mu_);
    return bound_cv_.wait_for(l, timeout, [&] { return binds_.size() >= n; });
  }
  fw::Status delete_pod(const api::Pod& pod) override {
    {
      std::unique_lock l(hold_mu_);
      ++delete_calls_;
      hold_cv_.notify_all();
      hold_cv_.wait(l, [&] { return !deletes_held_; });
    }
    std::lock_guard l(mu_);
    if (!delete_error.is_success()) return delete_error;
    deletes_.push_back(key(pod));
    return {};
  }
  // While held, delete_pod waits (an asynchronous preemption stays in flight).
  void hold_deletes() {
    std::lock_guard l(hold_mu_);
    deletes_held_ = true;
  }
  void release_deletes() {
    {
      std::lock_guard l(hold_mu_);
      deletes_held_ = false;
    }
    hold_cv_.notify_all();
  }
  // Until `n` delete_pod calls were made (held or not); false after `timeout`.
  bool wait_for_delete_calls(std::size_t n, std::chrono::milliseconds timeout) {
    std::unique_lock l(hold_mu_);
    return hold_cv_.wait_for(l, timeout, [&] { return delete_calls_ >= n; });
  }
  fw::Status patch_pod_status(const api::Pod& pod, const std::optional<api::PodCondition>& condition,
                              const std::optional<std::string>& nominated_node_name) override {
    std::lock_guard l(mu_);
    if (!patch_error.is_success()) return patch_error;
    patches_.push_back({key(pod), condition, nominated_node_name});
    return {};
  }
  void event(const api::Pod& regarding, const std::string& type, const std::string& reason,
             const std::string& action, const std::string& note) override {
    std::lock_guard l(mu_);
    events_.push_back({key(regarding), type, reason, action, note});
  }
  // PodGroup status patches: "ns/name" and the condition set.
  struct PodGroupPatch {
    std::string podGroup;
    api::Condition condition;
  };
  fw::Status patch_pod_group_status(std::string_view ns, std::string_view name,
                                    const api::Condition& condition) override {
    std::lock_guard l(mu_);
    pod_group_patches_.push_back({std::string(ns) + "/" + std::string(name), condition});
    return {};
  }
  std::vector<PodGroupPatch> pod_group_patches() const {
    std::lock_guard l(mu_);
    return pod_group_patches_;
  }
  // CompositePodGroup status patches, as PodGroups' ("ns/name" in podGroup).
  fw::Status patch_composite_pod_group_status(std::string_view ns, std::string_view name,
                                              const api::Condition& condition) override {
    std::lock_guard l(mu_);
    composite_patches_.push_back({std::string(ns) + "/" + std::string(name), condition});
    return {};
  }
  std::vector<PodGroupPatch> composite_patches() const {
    std::lock_guard l(mu_);
    return composite_patches_;
  }

  std::vector<Bind> binds() const {
    std::lock_guard l(mu_);
    return binds_;
  }
  // Without copying the list (benchmarks check it per pod).
  std::size_t bind_count() const {
    std::lock_guard l(mu_);
    return binds_.size();
  }
  std::vector<std::string> deletes() const {
    std::lock_guard l(mu_);
    return deletes_;
  }
  std::vector<Patch> patches() const {
    std::lock_guard l(mu_);
    return patches_;
  }
  std::vector<Event> events() const {
    std::lock_guard l(mu_);
    return events_;
  }
  // The nominatedNodeName the last status patch of `pod` ("ns/name") carrying one wrote; "" if none.
  std::string last_nomination(const std::string& pod) const {
    std::lock_guard l(mu_);
    std::string node;
    for (const auto& p : patches_) {
      if (p.pod == pod && p.nominatedNodeName) node = *p.nominatedNodeName;
    }
    return node;
  }
  // Whether an event with this note was recorded.
  bool has_event_note(const std::string& note) const {
    std::lock_guard l(mu_);
    return std::any_of(events_.begin(), events_.end(), [&](const Event& e) { return e.note == note; });
  }

  // Set before use (not synchronised with concurrent calls).
  fw::Status bind_error;
  std::set<std::string> fail_binds_of;  // pod names whose binding fails with bind_error
  fw::Status delete_error;
  fw::Status patch_error;

 private:
  static std::string key(const api::Pod& p) { return p.metadata.namespace_ + "/" + p.metadata.name; }
  fw::Status bind_locked(const api::Pod& pod, const std::string& node_name) {
    if (!bind_error.is_success() && (fail_binds_of.empty() || fail_binds_of.count(pod.metadata.name))) {
      return bind_error;
    }
    binds_.push_back({key(pod), pod.metadata.uid, node_name});
    bound_cv_.notify_all();
    return {};
  }
  void wait_for_binds_released() {
    std::unique_lock l(hold_mu_);
    hold_cv_.wait(l, [&] { return !held_; });
  }
  std::mutex hold_mu_;
  std::condition_variable hold_cv_;
  bool held_ = false;
  bool deletes_held_ = false;
  std::size_t delete_calls_ = 0;
  std::vector<std::size_t> bind_all_sizes_;
  std::condition_variable bound_cv_;
  mutable std::mutex mu_;
  std::vector<Bind> binds_;
  std::vector<std::string> deletes_;
  std::vector<Patch> patches_;
  std::vector<PodGroupPatch> pod_group_patches_;
  std::vector<PodGroupPatch> composite_patches_;
  std::vector<Event> events_;
};

// ---------------------------------------------------------------- parallelizer
class InlineParallelizer : public fw::Parallelizer {
 public:
  void until(int n, const std::function<void(int)>& fn, const std::function<bool()>& stop = {}) override {
    for (int i = 0; i < n; ++i) {
      if (stop && stop()) return;
      fn(i);
    }
  }
  int parallelism() const override { return 1; }
};

// ---------------------------------------------------------------- snapshot
// The scheduler's own snapshot (upstream cache.NewSnapshot(pods, nodes)) built from pods and nodes
// given by value or by pointer; pods bound to unknown nodes are reachable by get() but not listed.
class FakeSnapshot : public fw::NodeInfoLister, public fw::StorageInfoLister {
 public:
  FakeSnapshot() = default;
  FakeSnapshot(const std::vector<fw::PodPtr>& pods, const std::vector<fw::NodePtr>& nodes) : snap_(pods, nodes) {}
  FakeSnapshot(const std::vector<api::Pod>& pods, const std::vector<api::Node>& nodes)
      : FakeSnapshot(to_ptrs(pods), to_ptrs(nodes)) {}

  const std::vector<fw::NodeInfoPtr>& list() const override { return snap_.list(); }
  const std::vector<fw::NodeInfoPtr>& have_pods_with_affinity_list() const override {
    return snap_.have_pods_with_affinity_list();
  }
  const std::vector<fw::NodeInfoPtr>& have_pods_with_required_anti_affinity_list() const override {
    return snap_.have_pods_with_required_anti_affinity_list();
  }
  fw::NodeInfoPtr get(std::string_view node_name) const override { return snap_.get(node_name); }
  bool is_pvc_used_by_pods(std::string_view key) const override { return snap_.is_pvc_used_by_pods(key); }
  Version version() const override { return snap_.version(); }
  bool hostnames_by_position() const override { return snap_.hostnames_by_position(); }
  bool changed_since(Version v, std::vector<const fw::NodeInfo*>& out) const override {
    return snap_.changed_since(v, out);
  }
  // For tests that drive the snapshot from a real cache (Cache::update_snapshot).
  cache::Snapshot& raw() { return snap_; }

 private:
  template <class T>
  static std::vector<std::shared_ptr<const T>> to_ptrs(const std::vector<T>& v) {
    std::vector<std::shared_ptr<const T>> out;
    out.reserve(v.size());
    for (const auto& x : v) out.push_back(std::make_shared<const T>(x));
    return out;
  }
  cache::Snapshot snap_;
};

// ---------------------------------------------------------------- nominator
class FakeNominator : public fw::PodNominator {
 public:
  void add(fw::PodInfoPtr p, const std::string& node) { by_node_[node].push_back(std::move(p)); }
  void clear() { by_node_.clear(); }
  std::vector<fw::PodInfoPtr> nominated_pods_for_node(std::string_view node_name) const override {
    auto it = by_node_.find(std::string(node_name));
    return it == by_node_.end() ? std::vector<fw::PodInfoPtr>{} : it->second;
  }

 private:
  std::map<std::string, std::vector<fw::PodInfoPtr>> by_node_;
};

// ---------------------------------------------------------------- handle
// A Handle over the fakes above. The run_* methods use `filter_plugins` / `pre_filter_plugins`
// (set them to exercise preemption-style callers); waiting pods are not supported.
class FakeHandle : public fw::Handle {
 public:
  FakeHandle() : snapshot_(std::make_shared<FakeSnapshot>()) {}

  void set_snapshot(std::shared_ptr<FakeSnapshot> s) { snapshot_ = std::move(s); }
  void set_snapshot(const std::vector<fw::PodPtr>& pods, const std::vector<fw::NodePtr>& nodes) {
    snapshot_ = std::make_shared<FakeSnapshot>(pods, nodes);
  }
  void set_snapshot(const std::vector<api::Pod>& pods, const std::vector<api::Node>& nodes) {
    snapshot_ = std::make_shared<FakeSnapshot>(pods, nodes);
  }
  FakeSnapshot& snapshot() { return *snapshot_; }

  const fw::NodeInfoLister& snapshot_node_infos() const override { return *snapshot_; }
  const fw::StorageInfoLister& snapshot_storage_infos() const override { return *snapshot_; }
  fw::ClusterClient& client() override { return client_; }
  const fw::ClusterLister& lister() const override { return lister_; }
  fw::Parallelizer& parallelizer() override { return parallelizer_; }
  const fw::PodNominator& nominator() const override { return nominator_; }
  std::string_view profile_name() const override { return profile_; }

  std::shared_ptr<fw::WaitingPod> get_waiting_pod(std::string_view) override { return nullptr; }
  void iterate_over_waiting_pods(const std::function<void(fw::WaitingPod&)>&) override {}
  void reject_waiting_pod(std::string_view) override {}

  fw::Status run_pre_filter_extension_add_pod(fw::CycleState& state, const api::Pod& pod_to_schedule,
                                              const fw::PodInfoPtr& pod_to_add, const fw::NodeInfo& ni) override {
    for (const auto& p : pre_filter_plugins) {
      if (state.skip_filter_plugins.count(p->name())) continue;
      auto* ext = p->pre_filter_extensions();
      if (!ext) continue;
      auto s = ext->add_pod(state, pod_to_schedule, pod_to_add, ni);
      if (!s.is_success()) return s;
    }
    return {};
  }
  fw::Status run_pre_filter_extension_remove_pod(fw::CycleState& state, const api::Pod& pod_to_schedule,
                                                 const fw::PodInfoPtr& pod_to_remove,
                                                 const fw::NodeInfo& ni) override {
    for (const auto& p : pre_filter_plugins) {
      if (state.skip_filter_plugins.count(p->name())) continue;
      auto* ext = p->pre_filter_extensions();
      if (!ext) continue;
      auto s = ext->remove_pod(state, pod_to_schedule, pod_to_remove, ni);
      if (!s.is_success()) return s;
    }
    return {};
  }
  fw::Status run_filter_plugins(const fw::CycleState& state, const api::Pod& pod, const fw::NodeInfo& ni) override {
    for (const auto& p : filter_plugins) {
      if (state.skip_filter_plugins.count(p->name())) continue;
      auto s = p->filter(state, pod, ni);
      if (!s.is_success()) {
        if (!s.is_rejected()) s = fw::Status::error(s.message());
        return s.with_plugin(std::string(p->name()));
      }
    }
    return {};
  }
  // No nominated-pod pass: equivalent to run_filter_plugins.
  fw::Status run_filter_plugins_with_nominated_pods(fw::CycleState& state, const api::Pod& pod,
                                                    const fw::NodeInfo& ni) override {
    return run_filter_plugins(state, pod, ni);
  }

  // Work started with run_async runs on threads of its own, as in the Framework; tests wait for it
  // with wait_for_async() before they look at what it did.
  void run_async(std::function<void()> fn) override { async_.run(std::move(fn)); }
  void wait_for_async() { async_.wait(); }
  void activate(const std::vector<fw::PodPtr>& pods) override {
    std::lock_guard l(activated_mu_);
    for (const auto& p : pods) activated_.push_back(p->metadata.name);
  }
  std::vector<std::string> activated() const {
    std::lock_guard l(activated_mu_);
    return activated_;
  }
  void record_preemption_goroutine(std::string_view result, double) override {
    std::lock_guard l(activated_mu_);
    goroutine_results_.emplace_back(result);
  }
  std::vector<std::string> goroutine_results() const {
    std::lock_guard l(activated_mu_);
    return goroutine_results_;
  }

  FakeClusterClient& fake_client() { return client_; }
  FakeClusterLister& fake_lister() { return lister_; }
  FakeNominator& fake_nominator() { return nominator_; }
  void set_profile_name(std::string p) { profile_ = std::move(p); }

  std::vector<std::shared_ptr<fw::PreFilterPlugin>> pre_filter_plugins;
  std::vector<std::shared_ptr<fw::FilterPlugin>> filter_plugins;

 private:
  std::shared_ptr<FakeSnapshot> snapshot_;
  FakeClusterClient client_;
  FakeClusterLister lister_;
  InlineParallelizer parallelizer_;
  FakeNominator nominator_;
  std::string profile_ = "default-scheduler";
  mutable std::mutex activated_mu_;
  std::vector<std::string> activated_;
  std::vector<std::string> goroutine_results_;
  // Last: its threads use the fakes above.
  fw::AsyncTasks async_;
};

}  // namespace ksched::scheduler::testing
