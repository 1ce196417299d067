#include "scheduler/scheduler.h"

#include <algorithm>

#include "scheduler/extender.h"
#include "scheduler/framework/parallelizer.h"
#include "util/log.h"
#include "util/thread.h"

namespace ksched::scheduler {

std::string truncate_message(const std::string& msg) {
  if (msg.size() <= kNoteLengthLimit) return msg;
  static constexpr std::string_view kSuffix = " ...";
  return msg.substr(0, kNoteLengthLimit - kSuffix.size()) + std::string(kSuffix);
}

std::int32_t num_feasible_nodes_to_find(std::optional<std::int32_t> profile_pct, std::int32_t global_pct,
                                        std::int32_t num_all_nodes) {
  constexpr std::int32_t kMinFeasibleNodesToFind = 100;
  constexpr std::int32_t kMinFeasibleNodesPercentageToFind = 5;
  if (num_all_nodes < kMinFeasibleNodesToFind) return num_all_nodes;
  std::int32_t pct = profile_pct ? *profile_pct : global_pct;
  if (pct == 0) {
    pct = 50 - num_all_nodes / 125;
    if (pct < kMinFeasibleNodesPercentageToFind) pct = kMinFeasibleNodesPercentageToFind;
  }
  std::int32_t n = static_cast<std::int32_t>(static_cast<std::int64_t>(num_all_nodes) * pct / 100);
  return std::max(n, kMinFeasibleNodesToFind);
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

// Fixed worker pool for binding cycles; tracks work in flight so tests can wait for quiescence.
// A job that may wait (Permit, a PreBind with work to do, a custom binder) runs alone on any free
// worker, as upstream gives each binding cycle its own goroutine. Batchable jobs are run by at most
// kBatchRunners workers at a time, each taking every queued one (up to kMaxBatch) and running them
// together (Scheduler::run_bindings): while a batch is on the wire the next one gathers, so a burst
// of bindings costs a write per batch instead of a request and a thread hand-off per pod.
class Scheduler::BindingPool {
 public:
  static constexpr std::size_t kMaxBatch = 64;
  static constexpr int kBatchRunners = 2;
  BindingPool(int workers, std::function<void(std::vector<BindingJob>&)> run) : run_(std::move(run)) {
    for (int i = 0; i < std::max(1, workers); ++i) threads_.emplace_back([this] {
      util::set_thread_name("sched-bind");
      loop();
    });
  }
  ~BindingPool() { shutdown(); }
  void submit(BindingJob job) {
    std::lock_guard l(mu_);
    ++in_flight_;
    if (job.batchable) {
      batchable_.push_back(std::move(job));
      // A runner busy with a batch takes this one next; a worker already woken takes it too.
      if (batch_runners_ + batch_wakes_ >= kBatchRunners) return;
      ++batch_wakes_;
    } else {
      alone_.push_back(std::move(job));
    }
    cv_.notify_one();
  }
  bool wait_idle(std::chrono::milliseconds timeout) {
    std::unique_lock l(mu_);
    return idle_cv_.wait_for(l, timeout, [&] { return in_flight_ == 0; });
  }
  void shutdown() {
    {
      std::lock_guard l(mu_);
      if (stopping_) return;
      stopping_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }

 private:
  bool batch_ready() const { return !batchable_.empty() && batch_runners_ < kBatchRunners; }
  void loop() {
    std::vector<BindingJob> batch;
    bool running_batch = false;
    for (;;) {
      batch.clear();
      {
        std::unique_lock l(mu_);
        if (running_batch) {
          --batch_runners_;
          running_batch = false;
        }
        cv_.wait(l, [&] { return stopping_ || !alone_.empty() || batch_ready(); });
        if (batch_wakes_ > 0) --batch_wakes_;
        // Drain queued bindings before stopping: each holds an assumed pod.
        if (!alone_.empty()) {
          batch.push_back(std::move(alone_.front()));
          alone_.pop_front();
        } else if (batch_ready()) {
          ++batch_runners_;
          running_batch = true;
          while (!batchable_.empty() && batch.size() < kMaxBatch) {
            batch.push_back(std::move(batchable_.front()));
            batchable_.pop_front();
          }
        } else {
          return;  // stopping, nothing left that this worker may take
        }
        // Batchable jobs left that a runner may start on (more than a batch, or this worker was
        // woken for them but took a job that runs alone): wake one.
        if (batch_ready() && batch_wakes_ == 0) {
          ++batch_wakes_;
          cv_.notify_one();
        }
      }
      run_(batch);
      {
        std::lock_guard l(mu_);
        in_flight_ -= static_cast<int>(batch.size());
        if (in_flight_ == 0) idle_cv_.notify_all();
      }
    }
  }
  std::function<void(std::vector<BindingJob>&)> run_;
  std::mutex mu_;
  std::condition_variable cv_, idle_cv_;
  std::deque<BindingJob> alone_, batchable_;
  int batch_runners_ = 0;  // workers running a batch now
  int batch_wakes_ = 0;    // notifications for batchable jobs not yet taken up
  int in_flight_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

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
  percentage_of_nodes_to_score_ = cfg.percentageOfNodesToScore.value_or(0);
  if (cfg.profiles.empty()) return util::make_error("at least one profile is required");

  nominator_proxy_ = std::make_unique<NominatorProxy>();
  cache_ = std::make_unique<cache::Cache>(std::chrono::nanoseconds(0), *clock_);
  snapshot_ = std::make_unique<cache::Snapshot>();
  auto parallelizer = opts_.parallelizer;
  if (!parallelizer) parallelizer = std::make_shared<framework::ThreadPoolParallelizer>(cfg.parallelism);

  auto extenders = build_extenders(cfg.extenders);
  if (!extenders.ok()) return util::make_error("couldn't build extenders: " + extenders.error());
  extenders_ = std::move(*extenders);
  std::vector<config::KubeSchedulerProfile> profiles = cfg.profiles;
  if (auto r = apply_extender_ignored_resources(cfg.extenders, profiles); !r.ok()) {
    return util::make_error(r.error());
  }

  std::string queue_sort_name;
  if (auto* m = opts_.metrics) {
    extension_point_durations_ =
        std::make_unique<metrics::ChildCache<metrics::HistogramChild, 3>>(m->frameworkExtensionPointDuration);
  }
  for (const auto& prof : profiles) {
    framework::FrameworkDeps deps;
    deps.client = client_;
    deps.lister = lister_;
    deps.nominator = nominator_proxy_.get();
    deps.nodeInfos = snapshot_.get();
    deps.storageInfos = snapshot_.get();
    deps.parallelism = cfg.parallelism;
    deps.parallelizer = parallelizer;
    deps.clock = clock_;
    deps.extenders = extenders_;
    deps.quickRejection = opts_.quickRejection;
    if (auto* m = opts_.metrics) {
      // Sampled cycles only (CycleState::record_plugin_metrics, 10 %), but there once per node per
      // plugin: the children are found by the labels' addresses (the plugins' names live as long
      // as this profile's framework, which owns the observer).
      auto durations = std::make_shared<metrics::ChildCache<metrics::HistogramChild, 3>>(m->pluginExecutionDuration);
      deps.pluginObserver = [durations](std::string_view plugin, std::string_view point, const framework::Status& st,
                                        std::chrono::nanoseconds d) {
        durations->with({plugin, point, framework::code_name(st.code())})
            .observe(std::chrono::duration<double>(d).count());
      };
      deps.pluginDurationBounds = m->pluginExecutionDuration.bounds();  // Filter's: flushed below
      deps.filterTimingStride = opts_.filterTimingStride;
      deps.preemptionVictimsObserver = [m](std::size_t victims) {
        m->preemptionVictims.get().observe(double(victims));
      };
    }
    auto fwk = framework::Framework::create(prof, registry, deps);
    if (!fwk.ok()) return util::make_error("initializing profile for scheduler name " + prof.schedulerName + ": " + fwk.error());
    if (profiles_.count(prof.schedulerName)) return util::make_error("duplicate profile with scheduler name " + prof.schedulerName);
    if (!(*fwk)->queue_sort_plugin()) return util::make_error("profile " + prof.schedulerName + " has no QueueSort plugin");
    std::string qs(((*fwk)->queue_sort_plugin())->name());
    if (queue_sort_name.empty()) {
      queue_sort_name = qs;
    } else if (qs != queue_sort_name) {
      return util::make_error("using different QueueSort plugins in profiles is not supported");
    }
    profiles_.emplace(prof.schedulerName, std::move(*fwk));
  }

  if (auto* m = opts_.metrics) {
    evaluations_collector_ = m->registry.add_collector([this, m] {
      for (const auto& [name, fwk] : profiles_) {
        for (const auto& e : fwk->plugin_evaluations()) {
          m->pluginEvaluationTotal.with({e.plugin, e.extensionPoint, name}).set_total(double(e.count));
        }
        fwk->flush_filter_durations([m](std::string_view plugin, framework::Code code,
                                        std::span<const std::uint64_t> buckets, std::uint64_t count, double sum) {
          m->pluginExecutionDuration.with({plugin, std::string_view("Filter"), std::string_view(framework::code_name(code))})
              .add(buckets, count, sum);
        });
      }
    });
  }

  queue::QueueOptions qo;
  qo.clock = clock_;
  qo.podInitialBackoff = std::chrono::seconds(cfg.podInitialBackoffSeconds);
  qo.podMaxBackoff = std::chrono::seconds(cfg.podMaxBackoffSeconds);
  qo.podMaxInUnschedulablePodsDuration = opts_.podMaxInUnschedulablePodsDuration;
  qo.queueingHintsEnabled = opts_.queueingHints;
  framework::Framework* first = profiles_.begin()->second.get();
  qo.less = [first](const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) {
    return first->queue_sort_less(a, b);
  };
  for (const auto& [name, fwk] : profiles_) {
    qo.preEnqueuePlugins[name] = fwk->pre_enqueue_plugins();
    qo.pluginEvents[name] = fwk->events_to_register();
    // Extenders register no events: a pod they rejected is retried on any event (upstream's
    // defaultEnqueueExtension for ExtenderName).
    if (!extenders_.empty()) {
      qo.pluginEvents[name][std::string(framework::kExtenderName)] = {framework::ClusterEventWithHint{
          framework::ClusterEvent{framework::EventResource::WildCard, framework::kAll, "WildCardEvent"}, {}}};
    }
  }
  if (opts_.metrics) {
    queue_metrics_ = std::make_unique<metrics::QueueMetricsAdapter>(*opts_.metrics);
    qo.metrics = queue_metrics_.get();
  }
  const framework::ClusterLister* lister = lister_;
  qo.podLookup = [lister](std::string_view ns, std::string_view name) { return lister->get_pod(ns, name); };
  queue_ = std::make_unique<queue::PriorityQueue>(std::move(qo));
  nominator_proxy_->q = queue_.get();
  binding_pool_ = std::make_unique<BindingPool>(opts_.bindingWorkers,
                                                [this](std::vector<BindingJob>& jobs) { run_bindings(jobs); });
  return {};
}

Scheduler::~Scheduler() {
  stop();
  if (evaluations_collector_ && opts_.metrics) opts_.metrics->registry.remove_collector(evaluations_collector_);
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
  // Binding workers may be parked in WaitOnPermit; release them instead of waiting for timeouts.
  for (auto& [name, fwk] : profiles_) {
    std::vector<std::string> uids;
    fwk->iterate_over_waiting_pods([&](framework::WaitingPod& wp) { uids.push_back(wp.pod().metadata.uid); });
    for (const auto& uid : uids) fwk->reject_waiting_pod(uid);
  }
  if (binding_pool_) binding_pool_->shutdown();
}

util::Result<void> Scheduler::refresh_snapshot() { return cache_->update_snapshot(*snapshot_); }

void Scheduler::submit_binding(BindingJob job) { binding_pool_->submit(std::move(job)); }

bool Scheduler::wait_for_bindings(std::chrono::milliseconds timeout) { return binding_pool_->wait_idle(timeout); }

void Scheduler::observe_extension_point(std::string_view point, const framework::Status& s, std::string_view profile,
                                        std::chrono::steady_clock::time_point since) {
  if (!opts_.metrics) return;
  extension_point_durations_->with({point, framework::code_name(s.code()), profile})
      .observe(metrics::seconds_since(since, clock_->now()));
}

}  // namespace ksched::scheduler
