#include "scheduler/framework/runtime.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <limits>
#include <fmt/format.h>

#include "scheduler/config/expand.h"
#include "scheduler/framework/parallelizer.h"
#include "util/go_format.h"
#include "util/log.h"

namespace ksched::scheduler::framework {

using config::ExtensionPoint;

// ---------------------------------------------------------------- helpers

PluginArgs to_plugin_args(const config::PluginArgs& args) {
  PluginArgs out;
  std::visit(
      [&](const auto& a) {
        using A = std::decay_t<decltype(a)>;
        if constexpr (!std::is_same_v<A, std::monostate>) out.value = a;
      },
      args);
  return out;
}

namespace {

bool implements(ExtensionPoint ep, Plugin* p) {
  switch (ep) {
    case ExtensionPoint::PreEnqueue: return dynamic_cast<PreEnqueuePlugin*>(p) != nullptr;
    case ExtensionPoint::QueueSort: return dynamic_cast<QueueSortPlugin*>(p) != nullptr;
    case ExtensionPoint::PreFilter: return dynamic_cast<PreFilterPlugin*>(p) != nullptr;
    case ExtensionPoint::Filter: return dynamic_cast<FilterPlugin*>(p) != nullptr;
    case ExtensionPoint::PostFilter: return dynamic_cast<PostFilterPlugin*>(p) != nullptr;
    case ExtensionPoint::PreScore: return dynamic_cast<PreScorePlugin*>(p) != nullptr;
    case ExtensionPoint::Score: return dynamic_cast<ScorePlugin*>(p) != nullptr;
    case ExtensionPoint::Reserve: return dynamic_cast<ReservePlugin*>(p) != nullptr;
    case ExtensionPoint::Permit: return dynamic_cast<PermitPlugin*>(p) != nullptr;
    case ExtensionPoint::PreBind: return dynamic_cast<PreBindPlugin*>(p) != nullptr;
    case ExtensionPoint::Bind: return dynamic_cast<BindPlugin*>(p) != nullptr;
    case ExtensionPoint::PostBind: return dynamic_cast<PostBindPlugin*>(p) != nullptr;
    case ExtensionPoint::PlacementGenerate: return dynamic_cast<PlacementGeneratePlugin*>(p) != nullptr;
    case ExtensionPoint::PlacementScore: return dynamic_cast<PlacementScorePlugin*>(p) != nullptr;
    case ExtensionPoint::MultiPoint: return true;
  }
  return false;
}

const char* point_label(ExtensionPoint ep) {
  switch (ep) {
    case ExtensionPoint::PreEnqueue: return "PreEnqueue";
    case ExtensionPoint::QueueSort: return "QueueSort";
    case ExtensionPoint::PreFilter: return "PreFilter";
    case ExtensionPoint::Filter: return "Filter";
    case ExtensionPoint::PostFilter: return "PostFilter";
    case ExtensionPoint::PreScore: return "PreScore";
    case ExtensionPoint::Score: return "Score";
    case ExtensionPoint::Reserve: return "Reserve";
    case ExtensionPoint::Permit: return "Permit";
    case ExtensionPoint::PreBind: return "PreBind";
    case ExtensionPoint::Bind: return "Bind";
    case ExtensionPoint::PostBind: return "PostBind";
    case ExtensionPoint::PlacementGenerate: return "PlacementGenerate";
    case ExtensionPoint::PlacementScore: return "PlacementScore";
    case ExtensionPoint::MultiPoint: return "MultiPoint";
  }
  return "";
}

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

// Go's fmt %v of a []string: "[a b c]".
std::string go_list(const std::vector<std::string>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) out += " ";
    out += v[i];
  }
  return out + "]";
}

// Times plugin calls on sampled cycles (upstream samples 10 % for
// scheduler_plugin_execution_duration_seconds) with one clock read per call: in the node loops
// the end of one call is the start of the next (what lies between is a few loads), which halves
// the clock reads there. The plugin's name is asked only when recording.
class ChainedPluginTimer {
 public:
  ChainedPluginTimer(const FrameworkDeps& d, const CycleState& st)
      : ChainedPluginTimer(d, st.record_plugin_metrics && d.plugin_observer) {}
  ChainedPluginTimer(const FrameworkDeps& d, bool on) : deps_(d), on_(on) {
    if (on_) last_ = std::chrono::steady_clock::now();
  }
  bool on() const { return on_; }
  void observe(const Plugin& plugin, std::string_view point, const Status& s) {
    if (!on_) return;
    deps_.plugin_observer(plugin.name(), point, s, lap());
  }
  // Time since the last lap (or the start); on sampled cycles only.
  std::chrono::nanoseconds lap() {
    const auto now = std::chrono::steady_clock::now();
    const auto d = now - last_;
    last_ = now;
    return d;
  }

 private:
  const FrameworkDeps& deps_;
  const bool on_;
  std::chrono::steady_clock::time_point last_{};
};

// Runs one plugin call, timed on sampled cycles.
template <class F>
Status timed(const FrameworkDeps& d, const CycleState& st, const Plugin& plugin, std::string_view point, F&& f) {
  ChainedPluginTimer timer(d, st);
  Status s = f();
  timer.observe(plugin, point, s);
  return s;
}

class EmptyNodeInfoLister final : public NodeInfoLister, public StorageInfoLister {
 public:
  const std::vector<NodeInfoPtr>& list() const override { return empty_; }
  const std::vector<NodeInfoPtr>& have_pods_with_affinity_list() const override { return empty_; }
  const std::vector<NodeInfoPtr>& have_pods_with_required_anti_affinity_list() const override { return empty_; }
  NodeInfoPtr get(std::string_view) const override { return nullptr; }
  bool is_pvc_used_by_pods(std::string_view) const override { return false; }

 private:
  std::vector<NodeInfoPtr> empty_;
};
EmptyNodeInfoLister& empty_snapshot() {
  static EmptyNodeInfoLister e;
  return e;
}

class EmptyNominator final : public PodNominator {
 public:
  std::vector<PodInfoPtr> nominated_pods_for_node(std::string_view) const override { return {}; }
  bool has_nominated_pods() const override { return false; }
};

class EmptyLister final : public ClusterLister {
 public:
  std::shared_ptr<const api::Namespace> get_namespace(std::string_view) const override { return nullptr; }
  std::vector<std::shared_ptr<const api::Namespace>> list_namespaces() const override { return {}; }
  std::vector<std::shared_ptr<const api::Service>> list_services(std::string_view) const override { return {}; }
  std::vector<std::shared_ptr<const api::ReplicationController>> list_replication_controllers(
      std::string_view) const override {
    return {};
  }
  std::vector<std::shared_ptr<const api::ReplicaSet>> list_replica_sets(std::string_view) const override {
    return {};
  }
  std::vector<std::shared_ptr<const api::StatefulSet>> list_stateful_sets(std::string_view) const override {
    return {};
  }
  std::vector<std::shared_ptr<const api::PodDisruptionBudget>> list_pdbs(std::string_view) const override {
    return {};
  }
  std::shared_ptr<const api::PersistentVolume> get_pv(std::string_view) const override { return nullptr; }
  std::vector<std::shared_ptr<const api::PersistentVolume>> list_pvs() const override { return {}; }
  std::shared_ptr<const api::PersistentVolumeClaim> get_pvc(std::string_view, std::string_view) const override {
    return nullptr;
  }
  std::shared_ptr<const api::StorageClass> get_storage_class(std::string_view) const override { return nullptr; }
  std::shared_ptr<const api::CSINode> get_csi_node(std::string_view) const override { return nullptr; }
  std::shared_ptr<const api::CSIDriver> get_csi_driver(std::string_view) const override { return nullptr; }
  std::vector<std::shared_ptr<const api::CSIStorageCapacity>> list_csi_storage_capacities() const override {
    return {};
  }
  PodPtr get_pod(std::string_view, std::string_view) const override { return nullptr; }
};

class NoClient final : public ClusterClient {
 public:
  Status bind(const api::Pod&, const std::string&) override { return Status::error("no cluster client configured"); }
  Status delete_pod(const api::Pod&) override { return Status::error("no cluster client configured"); }
  Status patch_pod_status(const api::Pod&, const std::optional<api::PodCondition>&,
                          const std::optional<std::string>&) override {
    return Status::error("no cluster client configured");
  }
  void event(const api::Pod&, const std::string&, const std::string&, const std::string&,
             const std::string&) override {}
};

}  // namespace

// ---------------------------------------------------------------- waiting pods

class Framework::WaitingPodImpl final : public WaitingPod {
 public:
  WaitingPodImpl(const api::Pod& pod, const std::map<std::string, std::chrono::nanoseconds>& waits,
                 const util::Clock& clock)
      : pod_(pod), clock_(clock) {
    auto now = clock_.now();
    for (const auto& [plugin, d] : waits) {
      pending_[plugin] = {now + std::chrono::duration_cast<util::Clock::duration>(d), d};
    }
  }
  const api::Pod& pod() const override { return pod_; }
  std::vector<std::string> pending_plugins() const override {
    std::lock_guard l(mu_);
    std::vector<std::string> out;
    for (const auto& [p, _] : pending_) out.push_back(p);
    return out;
  }
  void allow(const std::string& plugin) override {
    {
      std::lock_guard l(mu_);
      pending_.erase(plugin);
      if (!pending_.empty() || result_) return;
      result_ = Status::success();
    }
    cv_.notify_all();
  }
  void reject(const std::string& plugin, const std::string& msg) override {
    {
      std::lock_guard l(mu_);
      if (result_) return;  // the first outcome wins, as upstream's 1-buffered channel
      result_ = Status(Code::Unschedulable, msg).with_plugin(plugin);
    }
    cv_.notify_all();
  }
  // Blocks until allowed, rejected or a plugin's wait time passes on the clock. The clock may be
  // fake, so waits are sliced and the deadline is re-read each time.
  Status wait() {
    std::unique_lock l(mu_);
    for (;;) {
      if (result_) return *result_;
      auto now = clock_.now();
      auto earliest = util::Clock::time_point::max();
      for (const auto& [plugin, pw] : pending_) {
        if (pw.deadline <= now) {
          result_ = Status(Code::Unschedulable, "rejected due to timeout after waiting " +
                                                    util::go_duration(pw.wait) + " at plugin " + plugin)
                        .with_plugin(plugin);
          return *result_;
        }
        earliest = std::min(earliest, pw.deadline);
      }
      auto slice = std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::milliseconds(10));
      if (earliest != util::Clock::time_point::max()) slice = std::min(slice, earliest - now);
      cv_.wait_for(l, slice);
    }
  }

 private:
  struct PendingWait {
    util::Clock::time_point deadline;
    std::chrono::nanoseconds wait;
  };
  api::Pod pod_;
  const util::Clock& clock_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, PendingWait> pending_;
  std::optional<Status> result_;
};

// ---------------------------------------------------------------- construction

Framework::~Framework() { async_.wait(); }

util::Result<std::unique_ptr<Framework>> Framework::create(const config::KubeSchedulerProfile& profile,
                                                           const Registry& registry, FrameworkDeps deps) {
  std::unique_ptr<Framework> f(new Framework());
  f->deps_ = std::move(deps);
  f->node_infos_ = f->deps_.node_infos;
  f->storage_infos_ = f->deps_.storage_infos;
  f->clock_ = f->deps_.clock ? f->deps_.clock : &util::RealClock::instance();
  f->parallelizer_ = f->deps_.parallelizer ? f->deps_.parallelizer
                                           : std::make_shared<ThreadPoolParallelizer>(f->deps_.parallelism);
  if (auto r = f->init(profile, registry); !r) return util::make_error(r.error());
  return f;
}

util::Result<void> Framework::init(const config::KubeSchedulerProfile& profile, const Registry& registry) {
  profile_name_ = profile.schedulerName;
  percentage_of_nodes_to_score_ = profile.percentageOfNodesToScore;
  const auto& plugins = profile.plugins;

  std::set<std::string> needed;
  for (auto ep : config::kSpecificExtensionPoints) {
    for (const auto& p : plugins.at(ep).enabled) needed.insert(p.name);
  }
  for (const auto& p : plugins.multiPoint.enabled) needed.insert(p.name);

  for (const auto& [name, factory] : registry.all()) {
    if (!needed.count(name)) continue;
    PluginArgs args;
    if (const auto* raw = profile.raw_args_for(name)) args = to_plugin_args(*raw);
    auto p = factory(args, *this);
    if (!p) return util::make_error("initializing plugin " + quoted(name) + ": " + p.error());
    if (!p.value()) return util::make_error("initializing plugin " + quoted(name) + ": factory returned no plugin");
    plugins_[name] = std::move(p.value());
  }

  // Per extension point: names in run order, and the Score weights (config::expand_plugins, the
  // one implementation of upstream's plugin lists and multiPoint expansion), over the plugins
  // instantiated above.
  auto capabilities = [this](std::string_view name) -> std::optional<std::vector<ExtensionPoint>> {
    auto it = plugins_.find(name);
    if (it == plugins_.end()) return std::nullopt;
    std::vector<ExtensionPoint> eps;
    for (auto ep : config::kSpecificExtensionPoints) {
      if (implements(ep, it->second.get())) eps.push_back(ep);
    }
    return eps;
  };
  auto expanded = config::expand_plugins(profile, capabilities);
  if (!expanded) return util::make_error(expanded.error());

  auto fill = [&](ExtensionPoint ep, auto& vec) {
    using Ptr = typename std::decay_t<decltype(vec)>::value_type;
    using T = typename Ptr::element_type;
    for (const auto& n : expanded->at(ep)) vec.push_back(std::dynamic_pointer_cast<T>(plugins_.at(n)));
  };
  fill(ExtensionPoint::PreEnqueue, pre_enqueue_);
  for (const auto& [name, p] : plugins_) {
    if (auto pf = std::dynamic_pointer_cast<PlacementFeasiblePlugin>(p)) placement_feasible_.push_back(std::move(pf));
  }
  std::vector<std::shared_ptr<QueueSortPlugin>> qs;
  fill(ExtensionPoint::QueueSort, qs);
  fill(ExtensionPoint::PreFilter, pre_filter_);
  fill(ExtensionPoint::Filter, filter_);
  for (const auto& p : filter_) filter_names_.push_back(&intern_plugin_name(p->name()));
  fill(ExtensionPoint::PostFilter, post_filter_);
  fill(ExtensionPoint::PreScore, pre_score_);
  fill(ExtensionPoint::Score, score_);
  fill(ExtensionPoint::Reserve, reserve_);
  fill(ExtensionPoint::Permit, permit_);
  fill(ExtensionPoint::PreBind, pre_bind_);
  fill(ExtensionPoint::Bind, bind_);
  fill(ExtensionPoint::PostBind, post_bind_);
  fill(ExtensionPoint::PlacementGenerate, placement_generate_);
  fill(ExtensionPoint::PlacementScore, placement_score_);
  for (const auto& p : placement_score_) {
    std::int64_t w = 1;
    for (const auto& [n, pw] : expanded->placement_score_weights)
      if (n == p->name()) w = pw;
    placement_score_weights_.push_back(w);
  }

  queue_sort_ = qs.front();  // expand_plugins checked: exactly one
  score_weights_.insert(expanded->score_weights.begin(), expanded->score_weights.end());
  for (const auto& s : score_) {
    auto it = score_weights_.find(std::string(s->name()));
    score_weight_by_index_.push_back(it == score_weights_.end() ? 1 : it->second);
  }
  evaluations_ = std::make_unique<EvaluationCounter>(pre_filter_.size() + filter_.size() + pre_score_.size() +
                                                     score_.size());
  if (!deps_.plugin_duration_bounds.empty() && deps_.plugin_observer) {
    filter_durations_ = std::make_unique<FilterDurations>(deps_.plugin_duration_bounds, filter_.size());
  }

  signs_pods_ = true;
  auto add_signer = [&](const auto& plugins) {
    for (const auto& p : plugins) {
      const auto* signer = dynamic_cast<const SignPlugin*>(p.get());
      if (!signer) {
        signs_pods_ = false;
        continue;
      }
      if (std::find(signers_.begin(), signers_.end(), signer) == signers_.end()) signers_.push_back(signer);
    }
  };
  add_signer(pre_filter_);
  add_signer(filter_);
  add_signer(pre_score_);
  add_signer(score_);
  return {};
}

std::optional<std::string> Framework::sign_pod(const api::Pod& pod) const {
  if (!signs_pods_) return std::nullopt;
  PodSignature sig;
  for (const auto* s : signers_) {
    s->sign_pod(pod, sig);
    if (!sig.signable()) return std::nullopt;
  }
  return sig.take();
}

void Framework::flush_filter_durations(const FilterDurationsFn& fn) {
  if (!filter_durations_) return;
  filter_durations_->flush([&](std::size_t plugin, Code code, std::span<const std::uint64_t> buckets,
                               std::uint64_t count, double sum) { fn(filter_[plugin]->name(), code, buckets, count, sum); });
}

std::vector<Framework::PluginEvaluations> Framework::plugin_evaluations() const {
  std::vector<PluginEvaluations> out;
  if (!evaluations_) return out;
  auto totals = evaluations_->totals();
  std::size_t slot = 0;
  auto add = [&](const char* point, const auto& plugins) {
    for (const auto& p : plugins) out.push_back({std::string(p->name()), point, totals[slot++]});
  };
  add("PreFilter", pre_filter_);
  add("Filter", filter_);
  add("PreScore", pre_score_);
  add("Score", score_);
  return out;
}

std::map<std::string, std::vector<std::string>> Framework::list_plugins() const {
  std::map<std::string, std::vector<std::string>> out;
  auto add = [&](ExtensionPoint ep, const auto& vec) {
    if (vec.empty()) return;
    auto& names = out[point_label(ep)];
    for (const auto& p : vec) names.emplace_back(p->name());
  };
  add(ExtensionPoint::PreEnqueue, pre_enqueue_);
  add(ExtensionPoint::QueueSort, std::vector<std::shared_ptr<QueueSortPlugin>>{queue_sort_});
  add(ExtensionPoint::PreFilter, pre_filter_);
  add(ExtensionPoint::Filter, filter_);
  add(ExtensionPoint::PostFilter, post_filter_);
  add(ExtensionPoint::PreScore, pre_score_);
  add(ExtensionPoint::Score, score_);
  add(ExtensionPoint::Reserve, reserve_);
  add(ExtensionPoint::Permit, permit_);
  add(ExtensionPoint::PreBind, pre_bind_);
  add(ExtensionPoint::Bind, bind_);
  add(ExtensionPoint::PostBind, post_bind_);
  return out;
}

std::shared_ptr<Plugin> Framework::plugin(std::string_view name) const {
  auto it = plugins_.find(name);
  return it == plugins_.end() ? nullptr : it->second;
}

std::map<std::string, std::vector<ClusterEventWithHint>> Framework::events_to_register() const {
  std::set<std::string> rejectors;
  auto collect = [&](const auto& vec) {
    for (const auto& p : vec) rejectors.emplace(p->name());
  };
  collect(pre_enqueue_);
  collect(pre_filter_);
  collect(filter_);
  collect(reserve_);
  collect(permit_);
  std::map<std::string, std::vector<ClusterEventWithHint>> out;
  for (const auto& name : rejectors) {
    auto p = plugins_.at(name);
    if (auto* ext = dynamic_cast<EnqueueExtensions*>(p.get())) {
      out[name] = ext->events_to_register();
    } else {
      out[name] = {ClusterEventWithHint{ClusterEvent{EventResource::WildCard, kAll, "WildCardEvent"}, {}}};
    }
  }
  return out;
}

// ---------------------------------------------------------------- Handle

const NodeInfoLister& Framework::snapshot_node_infos() const {
  return node_infos_ ? *node_infos_ : static_cast<const NodeInfoLister&>(empty_snapshot());
}
const StorageInfoLister& Framework::snapshot_storage_infos() const {
  return storage_infos_ ? *storage_infos_ : static_cast<const StorageInfoLister&>(empty_snapshot());
}
ClusterClient& Framework::client() {
  static NoClient none;
  return deps_.client ? *deps_.client : none;
}
const ClusterLister& Framework::lister() const {
  static EmptyLister none;
  return deps_.lister ? *deps_.lister : none;
}
const PodNominator& Framework::nominator() const {
  static EmptyNominator none;
  return deps_.nominator ? *deps_.nominator : none;
}

std::shared_ptr<WaitingPod> Framework::get_waiting_pod(std::string_view uid) {
  std::lock_guard l(waiting_mu_);
  auto it = waiting_pods_.find(uid);
  return it == waiting_pods_.end() ? nullptr : it->second;
}

void Framework::iterate_over_waiting_pods(const std::function<void(WaitingPod&)>& fn) {
  std::vector<std::shared_ptr<WaitingPodImpl>> pods;
  {
    std::lock_guard l(waiting_mu_);
    for (const auto& [_, wp] : waiting_pods_) pods.push_back(wp);
  }
  for (const auto& wp : pods) fn(*wp);
}

void Framework::reject_waiting_pod(std::string_view uid) {
  if (auto wp = get_waiting_pod(uid)) wp->reject("", "removed");
}

// ---------------------------------------------------------------- extension points

Status Framework::run_placement_feasible_plugins(const api::Pod& member, const PlacementProgress& progress) {
  Status wait;
  for (const auto& p : placement_feasible_) {
    Status s = p->placement_feasible(member, progress);
    if (s.is_success()) continue;
    if (s.is_wait()) {
      if (wait.is_success()) wait = std::move(s).with_plugin(p->name());
      continue;
    }
    return std::move(s).with_plugin(p->name());
  }
  return wait;
}

Status Framework::run_placement_generate_plugins(const PodGroupInfo& group, const Placement& root,
                                                 std::vector<Placement>& out) {
  out.clear();
  out.push_back(root);
  std::vector<Placement> next;
  for (const auto& p : placement_generate_) {
    next.clear();
    for (const auto& parent : out) {
      Status s = p->generate_placements(group, parent, next);
      if (!s.is_success()) {
        if (!s.is_rejected()) {
          s = Status::error("running PlacementGenerate plugin " + quoted(p->name()) + ": " + s.message());
        }
        return std::move(s).with_plugin(p->name());
      }
    }
    out.swap(next);
  }
  return {};
}

Status Framework::run_placement_score_plugins(const PodGroupInfo& group,
                                              const std::vector<PodGroupAssignments>& assignments,
                                              std::vector<std::int64_t>& totals) {
  totals.assign(assignments.size(), 0);
  std::vector<PlacementScore> scores(assignments.size());
  for (std::size_t pi = 0; pi < placement_score_.size(); ++pi) {
    auto& p = placement_score_[pi];
    for (std::size_t i = 0; i < assignments.size(); ++i) {
      scores[i] = PlacementScore{assignments[i].placement, 0};
      Status s = p->score_placement(group, assignments[i], scores[i].score);
      if (!s.is_success()) {
        return Status::error("plugin " + quoted(p->name()) + " failed with: " + s.message()).with_plugin(p->name());
      }
    }
    if (p->has_normalize_placement_score()) {
      Status s = p->normalize_placement_score(group, scores);
      if (!s.is_success()) {
        return Status::error("plugin " + quoted(p->name()) + " failed with: " + s.message()).with_plugin(p->name());
      }
    }
    for (std::size_t i = 0; i < assignments.size(); ++i) totals[i] += scores[i].score * placement_score_weights_[pi];
  }
  return {};
}

Status Framework::run_pre_enqueue_plugins(const api::Pod& pod) {
  for (const auto& p : pre_enqueue_) {
    Status s = p->pre_enqueue(pod);
    if (s.is_success()) continue;
    if (!s.is_rejected()) {
      s = Status::error("running PreEnqueue plugin " + quoted(p->name()) + ": " + s.message());
    }
    return std::move(s).with_plugin(p->name());
  }
  return {};
}

Status prefilter_result_rejection(const std::set<std::string>& plugins_with_nodes) {
  return Status(Code::UnschedulableAndUnresolvable,
                "node(s) didn't satisfy plugin(s) " +
                    go_list(std::vector<std::string>(plugins_with_nodes.begin(), plugins_with_nodes.end())));
}

Status Framework::run_pre_filter_plugins(CycleState& state, const api::Pod& pod, PreFilterResult& result,
                                         std::set<std::string>& plugins_with_nodes) {
  result = PreFilterResult{};
  plugins_with_nodes.clear();  // printed sorted, as upstream's sets.List
  std::set<std::string, std::less<>> skip;
  Status ret;
  const auto& nodes = snapshot_node_infos().list();
  for (const auto& p : pre_filter_) {
    PreFilterResult r;
    Status s = timed(deps_, state, *p, "PreFilter", [&] { return p->pre_filter(state, pod, nodes, r); });
    if (s.is_skip()) {
      skip.emplace(p->name());
      continue;
    }
    EvaluationCounter::bump(evaluations_->local(), pre_filter_slot(&p - pre_filter_.data()));
    if (!s.is_success()) {
      s.with_plugin(p->name());
      if (s.code() == Code::Unschedulable) {
        ret = s;  // keep running: preemption needs every PreFilter's state
        continue;
      }
      plugins_with_nodes.clear();  // the plugin's own verdict is the reason, not the node sets
      if (s.code() == Code::UnschedulableAndUnresolvable) return s;
      return Status::error("running PreFilter plugin " + quoted(p->name()) + ": " + s.message())
          .with_plugin(p->name());
    }
    if (!r.all_nodes()) plugins_with_nodes.emplace(p->name());
    result = result.merge(r);
    if (!result.all_nodes() && result.nodeNames->empty()) {
      std::vector<std::string> sorted(plugins_with_nodes.begin(), plugins_with_nodes.end());
      std::string msg = sorted.size() == 1 ? "node(s) didn't satisfy plugin " + sorted.front()
                                           : "node(s) didn't satisfy plugin(s) " + go_list(sorted) + " simultaneously";
      return Status(Code::UnschedulableAndUnresolvable, msg);
    }
  }
  state.skip_filter_plugins = std::move(skip);
  state.run_filters.clear();
  for (std::size_t i = 0; i < filter_.size(); ++i) {
    if (state.skip_filter_plugins.count(filter_[i]->name()) == 0) state.run_filters.push_back(static_cast<std::uint16_t>(i));
  }
  state.run_filters_skip_size = state.skip_filter_plugins.size();
  return ret;
}

Status Framework::run_filter_plugins(const CycleState& state, const api::Pod& pod, const NodeInfo& node_info) {
  if (state.run_filters_skip_size == state.skip_filter_plugins.size()) {
    return run_filter_plugins_at(state, pod, node_info, state.run_filters.data(), state.run_filters.size());
  }
  // Skips changed since PreFilter, or no PreFilter ran (a rare path): the plugins to run, from the set.
  std::vector<std::uint16_t> positions;
  for (std::size_t i = 0; i < filter_.size(); ++i) {
    if (state.skip_filter_plugins.empty() || state.skip_filter_plugins.count(filter_[i]->name()) == 0) {
      positions.push_back(static_cast<std::uint16_t>(i));
    }
  }
  return run_filter_plugins_at(state, pod, node_info, positions.data(), positions.size());
}

Framework::QuickRejecter Framework::quick_rejecter(const CycleState& state, const api::Pod& pod) const {
  if (!deps_.quick_rejection || state.run_filters_skip_size != state.skip_filter_plugins.size()) return {};
  for (const std::uint16_t i : state.run_filters) {
    const auto& p = filter_[i];
    if (QuickReject q = p->quick_reject(state, pod)) return {q, i};
    if (p->filter_error_depends_on_node()) break;
  }
  return {};
}

Status Framework::run_filter_plugins_at(const CycleState& state, const api::Pod& pod, const NodeInfo& node_info,
                                        const std::uint16_t* positions, std::size_t count) {
  auto* evals = evaluations_->local();
  // Sampled cycles time one node visit in filterTimingStride, each observation standing for that
  // many visits (FrameworkDeps::filter_timing_stride).
  bool timed = state.record_plugin_metrics && deps_.plugin_observer;
  std::uint64_t weight = 1;
  if (timed && filter_durations_ && deps_.filter_timing_stride > 1) {
    weight = static_cast<std::uint64_t>(deps_.filter_timing_stride);
    timed = filter_timing_visits_.fetch_add(1, std::memory_order_relaxed) % weight == 0;
  }
  ChainedPluginTimer timer(deps_, timed);
  // Sampled cycles with bulk counting: each call's time goes into this thread's buckets.
  FilterDurations* durations = timer.on() ? filter_durations_.get() : nullptr;
  auto* duration_cells = durations != nullptr ? durations->local() : nullptr;
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t i = positions[k];
    const auto& p = filter_[i];
    EvaluationCounter::bump(evals, filter_slot(i));
    Status s = p->filter(state, pod, node_info);
    if (timer.on()) {  // tested here: 90 % of cycles then make no call at all
      if (durations != nullptr && FilterDurations::counts(s.code())) {
        durations->observe(duration_cells, i, s.code(), timer.lap(), weight);
      } else {
        timer.observe(*p, "Filter", s);
      }
    }
    if (s.is_success()) continue;
    if (!s.is_rejected()) s = Status::error("running " + quoted(p->name()) + " filter plugin: " + s.message());
    s.with_interned_plugin(*filter_names_[i]);
    return s;
  }
  return {};
}

Status Framework::run_pre_filter_extension_add_pod(CycleState& state, const api::Pod& pod_to_schedule,
                                                   const PodInfoPtr& pod_to_add, const NodeInfo& node_info) {
  for (const auto& p : pre_filter_) {
    auto* ext = p->pre_filter_extensions();
    if (!ext || state.skip_filter_plugins.count(p->name())) continue;
    Status s = timed(deps_, state, *p, "PreFilterExtensionAddPod",
                     [&] { return ext->add_pod(state, pod_to_schedule, pod_to_add, node_info); });
    if (!s.is_success()) {
      return Status::error("running AddPod on PreFilter plugin " + quoted(p->name()) + ": " + s.message());
    }
  }
  return {};
}

Status Framework::run_pre_filter_extension_remove_pod(CycleState& state, const api::Pod& pod_to_schedule,
                                                      const PodInfoPtr& pod_to_remove, const NodeInfo& node_info) {
  for (const auto& p : pre_filter_) {
    auto* ext = p->pre_filter_extensions();
    if (!ext || state.skip_filter_plugins.count(p->name())) continue;
    Status s = timed(deps_, state, *p, "PreFilterExtensionRemovePod",
                     [&] { return ext->remove_pod(state, pod_to_schedule, pod_to_remove, node_info); });
    if (!s.is_success()) {
      return Status::error("running RemovePod on PreFilter plugin " + quoted(p->name()) + ": " + s.message());
    }
  }
  return {};
}

Status Framework::run_filter_plugins_with_nominated_pods(CycleState& state, const api::Pod& pod,
                                                         const NodeInfo& node_info) {
  // Pass 1 adds nominated pods of equal or higher priority (they may take resources or satisfy
  // affinity); pass 2, only when pass 1 passed and added pods, checks without them (they may
  // not actually land here, e.g. anti-affinity they would satisfy).
  std::vector<PodInfoPtr> nominated;
  if (node_info.node() && nominator().has_nominated_pods()) {
    nominated = nominator().nominated_pods_for_node(node_info.name());
  }
  std::shared_ptr<NodeInfo> ni_with;
  std::unique_ptr<CycleState> state_with;
  for (const auto& pi : nominated) {
    if (api::pod_priority(*pi->pod) < api::pod_priority(pod) || pi->pod->metadata.uid == pod.metadata.uid) continue;
    if (!ni_with) {
      ni_with = node_info.clone();
      state_with = state.clone();
    }
    ni_with->add_pod(pi);
    Status s = run_pre_filter_extension_add_pod(*state_with, pod, pi, *ni_with);
    if (!s.is_success()) return Status::error(s.message());
  }
  if (!ni_with) return run_filter_plugins(state, pod, node_info);
  Status s = run_filter_plugins(*state_with, pod, *ni_with);
  if (!s.is_success()) return s;
  return run_filter_plugins(state, pod, node_info);
}

Status Framework::run_post_filter_plugins(CycleState& state, const api::Pod& pod, const NodeToStatus& filtered,
                                          PostFilterResult& result) {
  std::vector<std::string> reasons;
  std::string rejector;
  std::optional<PostFilterResult> last_meaningful;
  for (const auto& p : post_filter_) {
    PostFilterResult r;
    Status s = timed(deps_, state, *p, "PostFilter", [&] { return p->post_filter(state, pod, filtered, r); });
    if (s.is_success()) {
      result = r;
      return s;
    }
    if (s.code() == Code::UnschedulableAndUnresolvable) {
      result = r;
      return std::move(s).with_plugin(p->name());
    }
    if (!s.is_rejected()) return Status::error(s.message()).with_plugin(p->name());
    if (r.nominatingInfo.mode != NominatingInfo::Mode::Noop) last_meaningful = r;
    reasons.insert(reasons.end(), s.reasons().begin(), s.reasons().end());
    if (rejector.empty()) rejector = std::string(p->name());
  }
  result = last_meaningful.value_or(PostFilterResult{});
  return Status(Code::Unschedulable, std::move(reasons)).with_plugin(rejector);
}

Status Framework::run_pre_score_plugins(CycleState& state, const api::Pod& pod,
                                        const std::vector<NodeInfoPtr>& nodes) {
  std::set<std::string, std::less<>> skip;
  for (const auto& p : pre_score_) {
    Status s = timed(deps_, state, *p, "PreScore", [&] { return p->pre_score(state, pod, nodes); });
    if (s.is_skip()) {
      skip.emplace(p->name());
      continue;
    }
    EvaluationCounter::bump(evaluations_->local(), pre_score_slot(&p - pre_score_.data()));
    if (!s.is_success()) return Status::error("running PreScore plugin " + quoted(p->name()) + ": " + s.message());
  }
  for (const auto& p : score_)
    if (p->scores_nothing(state, pod)) skip.emplace(p->name());
  state.skip_score_plugins = std::move(skip);
  return {};
}

std::vector<std::size_t> Framework::active_score_plugins(const CycleState& state) const {
  std::vector<std::size_t> out;
  out.reserve(score_.size());
  for (std::size_t i = 0; i < score_.size(); ++i) {
    if (!state.skip_score_plugins.count(score_[i]->name())) out.push_back(i);
  }
  return out;
}

namespace {
std::string invalid_score_message(std::string_view plugin, std::int64_t s) {
  return fmt::format("plugin {} returns an invalid score {}, it should in the range of [{}, {}] after normalizing",
                     quoted(plugin), s, kMinNodeScore, kMaxNodeScore);
}
}  // namespace

Status Framework::run_score_plugins_raw(const CycleState& state, const api::Pod& pod,
                                        const std::vector<NodeInfoPtr>& nodes, RawScores& raw, std::size_t first) {
  auto* evals = evaluations_->local();
  for (std::size_t k = 0; k < raw.plugins.size(); ++k) {
    const std::size_t idx = raw.plugins[k];
    ScorePlugin& p = *score_[idx];
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      EvaluationCounter::bump(evals, score_slot(idx));
      std::int64_t s = 0;
      Status st = timed(deps_, state, p, "Score", [&] { return p.score(state, pod, *nodes[i], s); });
      if (!st.is_success()) {
        return Status::error("running Score plugins: plugin " + quoted(p.name()) + " failed with: " + st.message());
      }
      raw.rows[k][first + i] = s;
    }
  }
  return {};
}

Status Framework::weigh_raw_scores(const CycleState& state, const api::Pod& pod, const std::vector<NodeInfoPtr>& nodes,
                                   const RawScores& raw, std::vector<std::int64_t>& totals) {
  const std::size_t n = nodes.size();
  totals.assign(n, 0);
  thread_local NodeScoreList list;
  for (std::size_t k = 0; k < raw.plugins.size(); ++k) {
    ScorePlugin& p = *score_[raw.plugins[k]];
    const std::int64_t w = score_weight_by_index_[raw.plugins[k]];
    const auto& row = raw.rows[k];
    if (!p.has_normalize_score()) {
      for (std::size_t i = 0; i < n; ++i) {
        if (row[i] > kMaxNodeScore || row[i] < kMinNodeScore) {
          return Status::error("applying score defaultWeights on Score plugins: " +
                               invalid_score_message(p.name(), row[i]));
        }
        totals[i] += row[i] * w;
      }
      continue;
    }
    list.resize(n);
    for (std::size_t i = 0; i < n; ++i) list[i] = NodeScore{nodes[i]->name_view(), row[i]};
    Status st = timed(deps_, state, p, "ScoreExtensionNormalize", [&] { return p.normalize_score(state, pod, list); });
    if (!st.is_success()) {
      return Status::error("running Normalize on Score plugins: plugin " + quoted(p.name()) +
                           " failed with: " + st.message());
    }
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t s = list[i].score;
      if (s > kMaxNodeScore || s < kMinNodeScore) {
        return Status::error("applying score defaultWeights on Score plugins: " + invalid_score_message(p.name(), s));
      }
      totals[i] += s * w;
    }
  }
  return {};
}

Status Framework::run_score_plugins(const CycleState& state, const api::Pod& pod,
                                    const std::vector<NodeInfoPtr>& nodes, std::vector<NodePluginScores>& out,
                                    RawScores* raw) {
  const int n = static_cast<int>(nodes.size());
  std::vector<ScorePlugin*> active;
  std::vector<std::int64_t> weights;
  std::vector<std::size_t> slots;
  active.reserve(score_.size());
  for (std::size_t i = 0; i < score_.size(); ++i) {
    if (state.skip_score_plugins.count(score_[i]->name())) continue;
    active.push_back(score_[i].get());
    weights.push_back(score_weight_by_index_[i]);
    slots.push_back(score_slot(i));
  }
  const int np = static_cast<int>(active.size());
  std::vector<char> normalizes(np);
  for (int k = 0; k < np; ++k) normalizes[k] = active[k]->has_normalize_score();
  // Reused by the next cycle on this thread: np * n rows are too large to allocate per pod
  // (glibc consolidates its heap on every free of 64 KiB or more).
  // A named reference: the lambdas below run on worker threads, where the bare thread_local
  // name would mean their own (empty) instance. Every row is written before it is read.
  thread_local std::vector<NodeScoreList> per_plugin_rows;
  std::vector<NodeScoreList>& per_plugin = per_plugin_rows;
  if (per_plugin.size() < static_cast<std::size_t>(np)) per_plugin.resize(np);
  for (int k = 0; k < np; ++k) per_plugin[k].resize(n);

  std::mutex err_mu;
  std::string first_error;
  std::atomic<bool> failed{false};
  auto fail = [&](std::string e) {
    std::lock_guard l(err_mu);
    if (first_error.empty()) first_error = std::move(e);
    failed.store(true, std::memory_order_relaxed);
  };
  std::function<bool()> stop = [&] { return failed.load(std::memory_order_relaxed); };

  if (np > 0) {
    parallelizer_->until(
        n,
        [&](int i) {
          const NodeInfo& ni = *nodes[i];
          auto* evals = evaluations_->local();
          ChainedPluginTimer timer(deps_, state);
          for (int k = 0; k < np; ++k) {
            EvaluationCounter::bump(evals, slots[k]);
            std::int64_t s = 0;
            Status st = active[k]->score(state, pod, ni, s);
            timer.observe(*active[k], "Score", st);
            if (!st.is_success()) {
              fail("plugin " + quoted(active[k]->name()) + " failed with: " + st.message());
              return;
            }
            // Names are only read by NormalizeScore; skip the copy otherwise.
            if (normalizes[k]) per_plugin[k][i].name = ni.name_view();
            per_plugin[k][i].score = s;
          }
        },
        stop);
    if (failed) return Status::error("running Score plugins: " + first_error);
  }

  if (raw) {
    raw->plugins = active_score_plugins(state);
    raw->rows.resize(np);
    for (int k = 0; k < np; ++k) {
      raw->rows[k].resize(n);
      for (int i = 0; i < n; ++i) raw->rows[k][i] = per_plugin[k][i].score;
    }
  }

  // Normalizing and weighting are a few operations per node: on the calling thread, since waking
  // the pool for them costs more than they do (upstream runs them in parallel; the result is the same).
  for (int k = 0; k < np && !failed; ++k) {
    if (!active[k]->has_normalize_score()) continue;
    Status st = timed(deps_, state, *active[k], "ScoreExtensionNormalize",
                      [&] { return active[k]->normalize_score(state, pod, per_plugin[k]); });
    if (!st.is_success()) fail("plugin " + quoted(active[k]->name()) + " failed with: " + st.message());
  }
  if (failed) return Status::error("running Normalize on Score plugins: " + first_error);

  out.resize(n);
  for (int i = 0; i < n && !failed; ++i) {
    NodePluginScores& nps = out[i];
    nps.name = nodes[i]->name_view();
    nps.scores.resize(np);
    nps.totalScore = 0;
    for (int k = 0; k < np; ++k) {
      std::int64_t s = per_plugin[k][i].score;
      if (s > kMaxNodeScore || s < kMinNodeScore) {
        fail(invalid_score_message(active[k]->name(), s));
        break;
      }
      std::int64_t w = s * weights[k];
      nps.scores[k].first = active[k]->name();
      nps.scores[k].second = w;
      nps.totalScore += w;
    }
  }
  if (failed) return Status::error("applying score defaultWeights on Score plugins: " + first_error);
  return {};
}

Status Framework::run_reserve_plugins_reserve(CycleState& state, const api::Pod& pod, const std::string& node) {
  for (const auto& p : reserve_) {
    Status s = timed(deps_, state, *p, "Reserve", [&] { return p->reserve(state, pod, node); });
    if (s.is_success()) continue;
    if (s.is_rejected()) return std::move(s).with_plugin(p->name());
    return Status::error("running Reserve plugin " + quoted(p->name()) + ": " + s.message());
  }
  return {};
}

void Framework::run_reserve_plugins_unreserve(CycleState& state, const api::Pod& pod, const std::string& node) {
  for (auto it = reserve_.rbegin(); it != reserve_.rend(); ++it) {
    (void)timed(deps_, state, **it, "Unreserve", [&] {
      (*it)->unreserve(state, pod, node);
      return Status();
    });
  }
}

Status Framework::run_permit_plugins(CycleState& state, const api::Pod& pod, const std::string& node) {
  std::map<std::string, std::chrono::nanoseconds> waits;
  for (const auto& p : permit_) {
    std::chrono::milliseconds timeout{0};
    Status s = timed(deps_, state, *p, "Permit", [&] { return p->permit(state, pod, node, timeout); });
    if (s.is_success()) continue;
    if (s.is_rejected()) return std::move(s).with_plugin(p->name());
    if (s.is_wait()) {
      waits[std::string(p->name())] = std::min<std::chrono::nanoseconds>(timeout, kMaxPermitTimeout);
      continue;
    }
    return Status::error("running Permit plugin " + quoted(p->name()) + ": " + s.message())
        .with_plugin(p->name());
  }
  if (waits.empty()) return {};
  auto wp = std::make_shared<WaitingPodImpl>(pod, waits, *clock_);
  {
    std::lock_guard l(waiting_mu_);
    waiting_pods_[pod.metadata.uid] = wp;
  }
  return Status(Code::Wait, "one or more plugins asked to wait and no plugin rejected pod " + quoted(pod.metadata.name));
}

Status Framework::wait_on_permit(const api::Pod& pod) {
  std::shared_ptr<WaitingPodImpl> wp;
  {
    std::lock_guard l(waiting_mu_);
    auto it = waiting_pods_.find(pod.metadata.uid);
    if (it == waiting_pods_.end()) return {};
    wp = it->second;
  }
  Status s = wp->wait();
  {
    std::lock_guard l(waiting_mu_);
    auto it = waiting_pods_.find(pod.metadata.uid);
    if (it != waiting_pods_.end() && it->second == wp) waiting_pods_.erase(it);
  }
  if (s.is_success() || s.is_rejected()) return s;
  std::string plugin = s.plugin();
  return Status::error("waiting on permit for pod: " + s.message()).with_plugin(plugin);
}

Status Framework::run_pre_bind_pre_flights(CycleState& state, const api::Pod& pod, const std::string& node) {
  Status out = Status::skip();
  state.skip_pre_bind_plugins = 0;
  for (std::size_t i = 0; i < pre_bind_.size(); ++i) {
    const auto& p = pre_bind_[i];
    Status s = timed(deps_, state, *p, "PreBindPreFlight", [&] { return p->pre_bind_pre_flight(state, pod, node); });
    if (s.code() == Code::Error) {
      log::error("Plugin failed", {{"plugin", std::string(p->name())}, {"pod", api::key_of(pod)}, {"node", node}});
      return Status::error("running PreBindPreFlight " + quoted(p->name()) + ": " + s.message());
    }
    if (s.is_success()) {
      out = Status();
    } else if (s.is_skip()) {
      if (i < 64) state.skip_pre_bind_plugins |= std::uint64_t{1} << i;
    } else {
      return Status::error("PreBindPreFlight " + std::string(p->name()) + " returned \"" + code_name(s.code()) +
                           "\", which is unsupported. It is supposed to return Success, Skip, or Error status");
    }
  }
  return out;
}

Status Framework::run_pre_bind_plugins(CycleState& state, const api::Pod& pod, const std::string& node) {
  for (std::size_t i = 0; i < pre_bind_.size(); ++i) {
    if (i < 64 && (state.skip_pre_bind_plugins >> i & 1)) continue;  // its pre-flight said Skip
    const auto& p = pre_bind_[i];
    Status s = timed(deps_, state, *p, "PreBind", [&] { return p->pre_bind(state, pod, node); });
    if (s.is_success()) continue;
    if (s.is_rejected()) return std::move(s).with_plugin(p->name());
    return Status::error("running PreBind plugin " + quoted(p->name()) + ": " + s.message());
  }
  return {};
}

void Framework::run_bind_plugins(std::span<const BindItem> items, std::span<Status> out) {
  std::fill(out.begin(), out.end(), Status::skip());
  // The items still unbound: all of them, then those every plugin so far skipped.
  std::vector<std::size_t> left(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) left[i] = i;
  std::vector<BindItem> batch;
  std::vector<Status> answers;
  std::vector<ChainedPluginTimer> timers;
  for (const auto& p : bind_) {
    if (left.empty()) break;
    batch.clear();
    timers.clear();
    for (std::size_t i : left) {
      batch.push_back(items[i]);
      timers.emplace_back(deps_, *items[i].state);
    }
    answers.assign(batch.size(), Status());
    p->bind_all(batch, answers);
    std::size_t skipped = 0;
    for (std::size_t k = 0; k < left.size(); ++k) {
      Status& s = answers[k];
      timers[k].observe(*p, "Bind", s);
      const std::size_t i = left[k];
      if (s.is_skip()) {
        out[i] = std::move(s);  // what the last plugin said, if no later one binds it
        left[skipped++] = i;
      } else if (s.is_success()) {
        out[i] = std::move(s);
      } else if (s.is_rejected()) {
        out[i] = std::move(s).with_plugin(p->name());
      } else {
        out[i] = Status::error("running Bind plugin " + quoted(p->name()) + ": " + s.message());
      }
    }
    left.resize(skipped);
  }
}

Status Framework::run_bind_plugins(CycleState& state, const api::Pod& pod, const std::string& node) {
  const BindItem item{&state, &pod, &node};
  Status out;
  run_bind_plugins(std::span<const BindItem>(&item, 1), std::span<Status>(&out, 1));
  return out;
}

bool Framework::binds_in_batches(const CycleState& state, const api::Pod& pod) const {
  if (bind_.empty()) return false;
  for (const auto& p : bind_) {
    if (!p->binds_in_batches()) return false;
  }
  for (const auto& p : pre_bind_) {
    if (!p->pre_bind_is_quick(state, pod)) return false;
  }
  return true;
}

void Framework::run_post_bind_plugins(CycleState& state, const api::Pod& pod, const std::string& node) {
  for (const auto& p : post_bind_) {
    (void)timed(deps_, state, *p, "PostBind", [&] {
      p->post_bind(state, pod, node);
      return Status();
    });
  }
}

}  // namespace ksched::scheduler::framework
