#include "scheduler/scheduler.h"

#include "scheduler/config/features.h"
#include "scheduler/extender.h"
#include "scheduler/framework/parallelizer.h"
#include "scheduler/plugins/dynamicresources/dynamicresources.h"
#include "scheduler/plugins/gangscheduling/gangscheduling.h"
#include "util/thread.h"

namespace ksched::scheduler {

std::string truncate_message(const std::string& msg) {
  if (msg.size() <= kNoteLengthLimit) return msg;
  static constexpr std::string_view kSuffix = " ...";
  return msg.substr(0, kNoteLengthLimit - kSuffix.size()) + std::string(kSuffix);
}

// Forwards the frameworks' nominator queries to the queue, which is built after them.
class Scheduler::NominatorProxy final : public framework::PodNominator {
 public:
  std::vector<framework::PodInfoPtr> nominated_pods_for_node(std::string_view node_name) const override {
    return q ? q->nominated_pods_for_node(node_name) : std::vector<framework::PodInfoPtr>{};
  }
  bool has_nominated_pods() const override { return q && q->has_nominated_pods(); }
  queue::PriorityQueue* q = nullptr;
};

Scheduler::Scheduler() = default;

util::Result<std::unique_ptr<Scheduler>> Scheduler::create(const config::KubeSchedulerConfiguration& cfg,
                                                           const framework::Registry& registry,
                                                           framework::ClusterClient& client,
                                                           const framework::ClusterLister& lister,
                                                           SchedulerOptions opts) {
  std::unique_ptr<Scheduler> s(new Scheduler());
  s->opts_ = std::move(opts);
  s->client_ = &client;
  s->lister_ = &lister;
  auto r = s->init(cfg, registry);
  if (!r.ok()) return util::make_error(r.error());
  return s;
}

util::Result<void> Scheduler::init(const config::KubeSchedulerConfiguration& cfg, const framework::Registry& registry) {
  clock_ = opts_.clock ? opts_.clock : &util::RealClock::instance();
  rng_.seed(opts_.seed ? opts_.seed : std::random_device{}());
  if (cfg.profiles.empty()) return util::make_error("at least one profile is required");
  metrics_ = std::make_unique<metrics::SchedulerRecorder>(opts_.metrics);
  if (config::features().schedulerAsyncAPICalls) init_api_dispatcher(cfg.parallelism);
  nominator_proxy_ = std::make_unique<NominatorProxy>();
  cache_ = std::make_unique<cache::Cache>(std::chrono::nanoseconds(0), *clock_);
  snapshot_ = std::make_unique<cache::Snapshot>();
  dra_ = std::make_unique<dra::Manager>();
  if (config::features().gangScheduling) {
    pod_groups_ = std::make_unique<podgroup::Manager>(/*hierarchies=*/config::features().compositePodGroup);
  }

  auto extenders = build_extenders(cfg.extenders);
  if (!extenders.ok()) return util::make_error("couldn't build extenders: " + extenders.error());
  extenders_ = std::move(*extenders);
  if (auto r = init_profiles(cfg, registry); !r.ok()) return r;
  init_queue(cfg);
  init_pod_handler();

  algorithm_ = std::make_unique<SchedulingAlgorithm>(SchedulingAlgorithm::Deps{
      .cache = cache_.get(),
      .snapshot = snapshot_.get(),
      .nominator = nominator_proxy_.get(),
      .extenders = &extenders_,
      .clock = clock_,
      .metrics = metrics_.get(),
      .rng = &rng_,
      .percentage_of_nodes_to_score = cfg.percentageOfNodesToScore.value_or(0),
      .opportunistic_batching = opts_.opportunistic_batching,
  });
  schedule_pod_ = opts_.schedule_pod;
  if (!schedule_pod_) {
    schedule_pod_ = [a = algorithm_.get()](framework::Framework& fwk, framework::CycleState& state,
                                           const api::Pod& pod, ScheduleResult& result,
                                           std::optional<framework::FitError>& fit) {
      return a->schedule_pod(fwk, state, pod, result, fit);
    };
  }
  binding_cycle_ = std::make_unique<BindingCycle>(BindingCycle::Deps{
      .cache = cache_.get(),
      .queue = queue_.get(),
      .client = client_,
      .extenders = &extenders_,
      .clock = clock_,
      .metrics = metrics_.get(),
      .on_failure =
          [this](framework::Framework& fwk, const queue::QueuedPodInfoPtr& pinfo, const framework::Status& status,
                 const std::optional<framework::FitError>& fit,
                 const std::optional<framework::NominatingInfo>& nominating,
                 std::chrono::steady_clock::time_point start) {
            handle_scheduling_failure(fwk, pinfo, status, fit, nominating, start);
          },
      .nominated_node_name_for_expectation = config::features().nominatedNodeNameForExpectation,
  });
  binding_pool_ = std::make_unique<BindingPool>(
      opts_.binding_workers, [c = binding_cycle_.get()](std::vector<BindingJob>& jobs) { c->run(jobs); });
  return {};
}

// Upstream scheduler.go New: with SchedulerAsyncAPICalls the dispatcher is built over the client
// and every binding and status patch of the scheduler goes through it.
void Scheduler::init_api_dispatcher(int parallelism) {
  metrics::SchedulerMetrics& m = metrics_->set();
  apidispatcher::Dispatcher::Observer obs;
  if (m.asyncAPIPendingCalls) {
    obs.pending = [g = m.asyncAPIPendingCalls](apidispatcher::CallType t, int delta) {
      g->with({apidispatcher::call_type_name(t)}).add(double(delta));
    };
  }
  if (m.asyncAPICallsTotal && m.asyncAPICallDuration) {
    obs.executed = [&m](apidispatcher::CallType t, bool ok, double seconds) {
      const std::string_view result = ok ? "success" : "error";
      m.asyncAPICallsTotal->with({apidispatcher::call_type_name(t), result}).inc();
      m.asyncAPICallDuration->with({apidispatcher::call_type_name(t), result}).observe(seconds);
    };
  }
  api_dispatcher_ = std::make_unique<apidispatcher::Dispatcher>(*client_, parallelism, std::move(obs));
  async_client_ = std::make_unique<apidispatcher::AsyncClusterClient>(*client_, *api_dispatcher_);
  client_ = async_client_.get();
}

util::Result<void> Scheduler::init_profiles(const config::KubeSchedulerConfiguration& cfg,
                                            const framework::Registry& registry) {
  std::vector<config::KubeSchedulerProfile> profiles = cfg.profiles;
  if (auto r = apply_extender_ignored_resources(cfg.extenders, profiles); !r.ok()) {
    return util::make_error(r.error());
  }
  auto parallelizer = opts_.parallelizer;
  if (!parallelizer) parallelizer = std::make_shared<framework::ThreadPoolParallelizer>(cfg.parallelism);
  metrics::SchedulerMetrics& m = metrics_->set();
  std::string queue_sort_name;
  for (const auto& prof : profiles) {
    framework::FrameworkDeps deps;
    deps.client = client_;
    deps.lister = lister_;
    deps.nominator = nominator_proxy_.get();
    deps.node_infos = snapshot_.get();
    deps.storage_infos = snapshot_.get();
    deps.parallelism = cfg.parallelism;
    deps.parallelizer = parallelizer;
    deps.clock = clock_;
    deps.extenders = extenders_;
    deps.dra = dra_.get();
    deps.pod_groups = pod_groups_.get();
    deps.stop = &binding_stop_;
    deps.quick_rejection = opts_.quick_rejection;
    // Sampled cycles only (CycleState::record_plugin_metrics, 10 %), but there once per node per
    // plugin: the children are found by the labels' addresses (the plugins' names live as long
    // as this profile's framework, which owns the observer).
    auto durations = std::make_shared<metrics::ChildCache<metrics::HistogramChild, 3>>(m.pluginExecutionDuration);
    deps.plugin_observer = [durations](std::string_view plugin, std::string_view point, const framework::Status& st,
                                      std::chrono::nanoseconds d) {
      durations->with({plugin, point, framework::code_name(st.code())}).observe(std::chrono::duration<double>(d).count());
    };
    deps.plugin_duration_bounds = m.pluginExecutionDuration.bounds();  // Filter's: flushed by the collector
    deps.filter_timing_stride = opts_.filter_timing_stride;
    deps.preemption_victims_observer = [&m](std::size_t victims) { m.preemptionVictims.get().observe(double(victims)); };
    deps.preemption_goroutine_observer = [&m](std::string_view result, double seconds) {
      if (m.preemptionGoroutinesDuration) m.preemptionGoroutinesDuration->with({result}).observe(seconds);
      if (m.preemptionGoroutinesExecution) m.preemptionGoroutinesExecution->with({result}).inc();
    };
    // The queue is built after the profiles; asynchronous preemptions start only once pods are popped.
    deps.activate = [this](const std::vector<framework::PodPtr>& pods) {
      if (queue_) queue_->activate(pods);
    };
    auto fwk = framework::Framework::create(prof, registry, deps);
    if (!fwk.ok()) {
      return util::make_error("initializing profile for scheduler name " + prof.schedulerName + ": " + fwk.error());
    }
    if (profiles_.count(prof.schedulerName)) {
      return util::make_error("duplicate profile with scheduler name " + prof.schedulerName);
    }
    if (!(*fwk)->queue_sort_plugin()) return util::make_error("profile " + prof.schedulerName + " has no QueueSort plugin");
    std::string qs(((*fwk)->queue_sort_plugin())->name());
    if (queue_sort_name.empty()) {
      queue_sort_name = qs;
    } else if (qs != queue_sort_name) {
      return util::make_error("using different QueueSort plugins in profiles is not supported");
    }
    if ((*fwk)->plugin(config::names::DynamicResources)) uses_dra_ = true;
    profiles_.emplace(prof.schedulerName, std::move(*fwk));
  }

  evaluations_collector_ = m.registry.add_collector([this, &m] {
    // Upstream's counter is process-wide; DynamicResources counts into the process's tally, shown
    // per status once it has counted one (as a Go CounterVec shows a series once incremented).
    if (m.resourceClaimCreatesTotal) {
      const auto& creates = plugins::dynamicresources::resource_claim_creates();
      if (auto n = creates.success.load(std::memory_order_relaxed))
        m.resourceClaimCreatesTotal->with({"success"}).set_total(double(n));
      if (auto n = creates.failure.load(std::memory_order_relaxed))
        m.resourceClaimCreatesTotal->with({"failure"}).set_total(double(n));
    }
    for (const auto& [name, fwk] : profiles_) {
      for (const auto& e : fwk->plugin_evaluations()) {
        m.pluginEvaluationTotal.with({e.plugin, e.extensionPoint, name}).set_total(double(e.count));
      }
      fwk->flush_filter_durations([&m](std::string_view plugin, framework::Code code,
                                       std::span<const std::uint64_t> buckets, std::uint64_t count, double sum) {
        m.pluginExecutionDuration.with({plugin, std::string_view("Filter"), std::string_view(framework::code_name(code))})
            .add(buckets, count, sum);
      });
    }
  });
  return {};
}

void Scheduler::init_queue(const config::KubeSchedulerConfiguration& cfg) {
  queue::QueueOptions qo;
  qo.clock = clock_;
  qo.pod_initial_backoff = std::chrono::seconds(cfg.podInitialBackoffSeconds);
  qo.pod_max_backoff = std::chrono::seconds(cfg.podMaxBackoffSeconds);
  qo.pod_max_in_unschedulable_pods_duration = opts_.pod_max_in_unschedulable_pods_duration;
  qo.pop_from_backoff_q = opts_.pop_from_backoff_q;
  framework::Framework* first = profiles_.begin()->second.get();
  qo.less = [first](const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) {
    return first->queue_sort_less(a, b);
  };
  for (const auto& [name, fwk] : profiles_) {
    qo.pre_enqueue_plugins[name] = fwk->pre_enqueue_plugins();
    qo.plugin_events[name] = fwk->events_to_register();
    // Extenders register no events: a pod they rejected is retried on any event (upstream's
    // defaultEnqueueExtension for ExtenderName).
    if (!extenders_.empty()) {
      qo.plugin_events[name][std::string(framework::kExtenderName)] = {framework::ClusterEventWithHint{
          framework::ClusterEvent{framework::EventResource::WildCard, framework::kAll, "WildCardEvent"}, {}}};
    }
  }
  // Claim events ask only the pods that name the claim, pod events only the pods of the event pod's
  // group, Workload and PodGroup events only the pods naming that object (each index's hint's own rule), when
  // some profile runs the plugin.
  const auto runs = [&](std::string_view plugin) {
    for (const auto& [name, plugins] : qo.plugin_events)
      if (plugins.count(std::string(plugin))) return true;
    return false;
  };
  if (runs(plugins::dynamicresources::kName)) {
    qo.unschedulable_indexes.push_back(queue::UnschedulablePodIndex{
        framework::EventResource::ResourceClaim, std::string(plugins::dynamicresources::kName),
        plugins::dynamicresources::claim_keys_of_pod, plugins::dynamicresources::claim_key_of_event});
  }
  // With CompositePodGroup a pod or PodGroup event concerns every pod of the event group's tree,
  // whose root can change as objects arrive, so those two indexes (keyed by the pod's own group)
  // are not used: every waiting pod's hint is asked.
  const bool hierarchies = pod_groups_ && pod_groups_->hierarchies();
  if (runs(plugins::gangscheduling::kName) && !hierarchies) {
    qo.unschedulable_indexes.push_back(queue::UnschedulablePodIndex{
        framework::EventResource::Pod, std::string(plugins::gangscheduling::kName),
        plugins::gangscheduling::group_keys_of_pod,
        [groups = pod_groups_.get()](const std::shared_ptr<const void>& old_obj, const std::shared_ptr<const void>& new_obj)
            -> std::optional<std::string> {
          // No pod-group state (cannot happen with the plugin in a profile): rule nothing out.
          if (groups == nullptr) return std::nullopt;
          return plugins::gangscheduling::group_key_of_event(*groups, old_obj, new_obj);
        }});
    qo.unschedulable_indexes.push_back(queue::UnschedulablePodIndex{
        framework::EventResource::Workload, std::string(plugins::gangscheduling::kName),
        plugins::gangscheduling::workload_keys_of_pod, plugins::gangscheduling::workload_key_of_event});
    qo.unschedulable_indexes.push_back(queue::UnschedulablePodIndex{
        framework::EventResource::PodGroup, std::string(plugins::gangscheduling::kName),
        plugins::gangscheduling::pod_group_keys_of_pod, plugins::gangscheduling::pod_group_key_of_event});
  } else if (runs(plugins::gangscheduling::kName)) {
    qo.unschedulable_indexes.push_back(queue::UnschedulablePodIndex{
        framework::EventResource::Workload, std::string(plugins::gangscheduling::kName),
        plugins::gangscheduling::workload_keys_of_pod, plugins::gangscheduling::workload_key_of_event});
  }
  // With GangScheduling a PodGroup's members are ordered and backed off as their group, by the
  // PodGroup's own priority (upstream's newest queue; docs/architecture.md "The queue and gangs").
  if (pod_groups_) {
    qo.pod_group_priority = [groups = pod_groups_.get()](std::string_view ns, std::string_view name) {
      return groups->pod_group_priority(ns, name);
    };
  }
  queue_metrics_ = std::make_unique<metrics::QueueMetricsAdapter>(metrics_->set());
  qo.metrics = queue_metrics_.get();
  const framework::ClusterLister* lister = lister_;
  qo.pod_lookup = [lister](std::string_view ns, std::string_view name) { return lister->get_pod(ns, name); };
  queue_ = std::make_unique<queue::PriorityQueue>(std::move(qo));
  nominator_proxy_->q = queue_.get();
}

Scheduler::~Scheduler() {
  stop();
  if (evaluations_collector_) metrics_->set().registry.remove_collector(evaluations_collector_);
}

framework::Framework* Scheduler::profile(std::string_view scheduler_name) const {
  auto it = profiles_.find(scheduler_name);
  return it == profiles_.end() ? nullptr : it->second.get();
}

void Scheduler::run() {
  if (running_.exchange(true)) return;
  queue_->run();
  cache_->start_cleanup();
  sched_thread_ = std::thread([this] {
    util::set_thread_name("sched-loop");
    while (schedule_one()) {
    }
  });
}

void Scheduler::stop() {
  if (queue_) queue_->close();
  if (sched_thread_.joinable()) sched_thread_.join();
  // Asynchronous preemptions still evicting: they use the queue (activate) and the client.
  wait_for_preemptions();
  // Binding workers may be parked in WaitOnPermit; release them instead of waiting for timeouts.
  for (auto& [name, fwk] : profiles_) {
    std::vector<std::string> uids;
    fwk->iterate_over_waiting_pods([&](framework::WaitingPod& wp) { uids.push_back(wp.pod().metadata.uid); });
    for (const auto& uid : uids) fwk->reject_waiting_pod(uid);
  }
  // PreBinds waiting (for devices' binding conditions, for volumes to bind) end now: upstream
  // cancels the binding cycles' context; instead of after bindingTimeout.
  binding_stop_.request_stop();
  if (dra_) dra_->stop_waits();
  if (binding_pool_) binding_pool_->shutdown();
  // After the binding workers: they wait on their bindings' calls.
  if (api_dispatcher_) api_dispatcher_->close();
}

util::Result<void> Scheduler::refresh_snapshot() { return cache_->update_snapshot(*snapshot_); }

bool Scheduler::wait_for_bindings(std::chrono::milliseconds timeout) { return binding_pool_->wait_idle(timeout); }

void Scheduler::wait_for_preemptions() {
  for (auto& [name, fwk] : profiles_) fwk->wait_for_async();
}

}  // namespace ksched::scheduler
