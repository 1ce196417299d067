#include "controllers/job/job_controller.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <boost/json.hpp>

#include "api/codec.h"
#include "api/helpers.h"
#include "controllers/informers.h"
#include "controllers/job/job_scheduling.h"
#include "util/log.h"

namespace ksched::controllers {

namespace json = boost::json;

namespace {

constexpr std::string_view kApiVersion = "batch/v1";
constexpr std::string_view kKind = "Job";
constexpr std::string_view kTrackingFinalizer = "batch.kubernetes.io/job-tracking";
constexpr std::string_view kIndexKey = "batch.kubernetes.io/job-completion-index";
constexpr std::string_view kIndexEnv = "JOB_COMPLETION_INDEX";
constexpr std::string_view kControllerName = "kubernetes.io/job-controller";
constexpr std::size_t kMaxUncountedPods = 500;

// SetDefaults_Job.
void apply_defaults(Job& j) {
  auto& s = j.spec;
  if (!s.completions && !s.parallelism) {
    s.completions = 1;
    s.parallelism = 1;
  }
  if (!s.parallelism) s.parallelism = 1;
  if (!s.backoffLimit) s.backoffLimit = s.backoffLimitPerIndex ? INT32_MAX : 6;
  if (!s.completionMode) s.completionMode = "NonIndexed";
  if (!s.suspend) s.suspend = false;
  if (!s.podReplacementPolicy) s.podReplacementPolicy = "TerminatingOrFailed";
}

bool has_tracking_finalizer(const api::Pod& p) {
  return std::find(p.metadata.finalizers.begin(), p.metadata.finalizers.end(), kTrackingFinalizer) !=
         p.metadata.finalizers.end();
}

bool is_indexed(const Job& j) { return j.spec.completionMode.value_or("NonIndexed") == "Indexed"; }
bool suspended(const Job& j) { return j.spec.suspend.value_or(false); }
bool only_replace_failed(const Job& j) { return j.spec.podReplacementPolicy.value_or("") == "Failed"; }

// A pod counted as failed: Failed, or (unless only Failed pods are replaced) deleted before it
// succeeded, as an orphaned pod may never reach Failed.
bool is_pod_failed(const api::Pod& p, const Job& j) {
  if (p.status.phase == "Failed") return true;
  if (only_replace_failed(j)) return false;
  return p.metadata.deletionTimestamp && p.status.phase != "Succeeded";
}

int completion_index(const api::Pod& p) {
  auto v = p.metadata.annotations.get(kIndexKey);
  int ix = -1;
  auto r = std::from_chars(v.data(), v.data() + v.size(), ix);
  if (v.empty() || r.ec != std::errc() || r.ptr != v.data() + v.size() || ix < 0) return -1;
  return ix;
}

const JobCondition* find_condition(const JobStatus& s, std::string_view type) {
  for (const auto& c : s.conditions)
    if (c.type == type) return &c;
  return nullptr;
}

bool is_true(const JobStatus& s, std::string_view type) {
  const auto* c = find_condition(s, type);
  return c && c->status == "True";
}

JobCondition new_condition(std::string_view type, std::string_view status, std::string_view reason,
                           std::string_view message, api::Time now) {
  JobCondition c;
  c.type = type;
  c.status = status;
  c.lastProbeTime = now;
  c.lastTransitionTime = now;
  c.reason = reason;
  c.message = message;
  return c;
}

// ensureJobConditionStatus: sets the condition, keeping its times when nothing changed.
bool ensure_condition(JobStatus& s, std::string_view type, std::string_view status, std::string_view reason,
                      std::string_view message, api::Time now) {
  for (auto& c : s.conditions) {
    if (c.type != type) continue;
    if (c.status == status && c.reason == reason && c.message == message) return false;
    if (c.status != status) c.lastTransitionTime = now;
    c.status = status;
    c.reason = reason;
    c.message = message;
    c.lastProbeTime = now;
    return true;
  }
  if (status == "False") return false;  // a missing condition is as good as False
  s.conditions.push_back(new_condition(type, status, reason, message, now));
  return true;
}

// Adds JOB_COMPLETION_INDEX (from the index annotation) to a container that has no such variable.
void add_index_env(api::Container& c) {
  json::object var{{"name", kIndexEnv},
                   {"valueFrom", json::object{{"fieldRef", json::object{{"fieldPath", "metadata.annotations['" +
                                                                                         std::string(kIndexKey) + "']"}}}}}};
  api::ExtraFields next;
  bool found = false;
  for (auto [k, raw] : c.extra.fields) {
    if (k != "env") {
      next.emplace_back(k, raw);
      continue;
    }
    found = true;
    json::error_code ec;
    auto env = json::parse(raw, ec);
    if (ec || !env.is_array()) {
      next.emplace_back(k, raw);
      continue;
    }
    bool has = false;
    for (const auto& e : env.get_array())
      if (e.is_object())
        if (auto* n = e.get_object().if_contains("name"); n && n->is_string() && n->get_string() == kIndexEnv) has = true;
    if (!has) env.get_array().push_back(var);
    next.emplace_back("env", json::serialize(env));
  }
  if (!found) next.emplace_back("env", json::serialize(json::array{var}));
  c.extra.fields = std::move(next);
}

}  // namespace

std::vector<std::pair<int, int>> parse_index_intervals(std::string_view s, int completions) {
  std::vector<std::pair<int, int>> out;
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t comma = s.find(',', i);
    std::string_view part = s.substr(i, comma == std::string_view::npos ? std::string_view::npos : comma - i);
    i = comma == std::string_view::npos ? s.size() : comma + 1;
    auto dash = part.find('-');
    int a = 0, b = 0;
    auto pa = part.substr(0, dash);
    if (std::from_chars(pa.data(), pa.data() + pa.size(), a).ec != std::errc()) continue;
    b = a;
    if (dash != std::string_view::npos) {
      auto pb = part.substr(dash + 1);
      if (std::from_chars(pb.data(), pb.data() + pb.size(), b).ec != std::errc()) continue;
    }
    if (a >= completions) continue;
    b = std::min(b, completions - 1);
    if (!out.empty() && out.back().second + 1 >= a) out.back().second = std::max(out.back().second, b);
    else out.emplace_back(a, b);
  }
  return out;
}

std::string format_index_intervals(const std::vector<std::pair<int, int>>& intervals) {
  std::string out;
  for (const auto& [a, b] : intervals) {
    if (!out.empty()) out += ',';
    out += std::to_string(a);
    if (b > a) {
      out += b == a + 1 ? ',' : '-';
      out += std::to_string(b);
    }
  }
  return out;
}

namespace {

bool has_index(const std::vector<std::pair<int, int>>& v, int ix) {
  for (const auto& [a, b] : v)
    if (ix >= a && ix <= b) return true;
  return false;
}

std::vector<std::pair<int, int>> with_indexes(std::vector<std::pair<int, int>> v, const std::vector<int>& add) {
  for (int ix : add) v.emplace_back(ix, ix);
  std::sort(v.begin(), v.end());
  std::vector<std::pair<int, int>> out;
  for (const auto& iv : v) {
    if (!out.empty() && out.back().second + 1 >= iv.first) out.back().second = std::max(out.back().second, iv.second);
    else out.push_back(iv);
  }
  return out;
}

int total(const std::vector<std::pair<int, int>>& v) {
  int n = 0;
  for (const auto& [a, b] : v) n += b - a + 1;
  return n;
}

}  // namespace

struct JobController::SyncCtx {
  std::string key;
  Job job;
  std::vector<Ptr<api::Pod>> pods;
  std::vector<Ptr<api::Pod>> active;
  std::int32_t succeeded = 0, failed = 0, ready = 0, terminating = 0;
  std::set<std::string> uncounted_succeeded, uncounted_failed, expected_rm;
  std::optional<JobCondition> finished;
  std::vector<std::pair<int, int>> prev_succeeded_indexes, succeeded_indexes;
  bool satisfied = true;
  // isNewJob, taken before this sync sets startTime: only a Job that never started gets its
  // Workload and PodGroup created (WorkloadWithJob).
  bool new_job = false;
  api::Time now;
  api::ObjectReference ref;
  std::optional<client::ApiError> manage_error;
};

JobController::JobController(const ControllerContext& ctx)
    : ctx_(ctx), expectations_(*ctx.clock), recorder_(ctx.events, "job-controller"),
      workers_("job", [this](const std::string& k) { return sync(k); }, *ctx.clock),
      orphan_workers_("job-orphan", [this](const std::string& k) { return sync_orphan_pod(k); }, *ctx.clock) {
  job_informer_ = job_informer(ctx_);
  pod_informer_ = pod_informer(ctx_);
  auto jh = std::make_shared<informer::ResourceEventHandlerFuncs<Job>>();
  jh->add = [this](const Ptr<Job>& j, bool) { workers_.add(api::key_of(*j)); };
  jh->update = [this](const Ptr<Job>&, const Ptr<Job>& j) { workers_.add(api::key_of(*j)); };
  jh->del = [this](const informer::Deleted<Job>& d) {
    workers_.add(d.key);
    // Its pods' finalizers go: nobody will count them any more.
    if (d.obj)
      for (const auto& p : owned_by(pod_informer_->indexer(), d.obj->metadata.uid))
        if (has_tracking_finalizer(*p)) orphan_workers_.add(api::key_of(*p));
  };
  auto r1 = job_informer_->add_event_handler(jh);
  auto ph = std::make_shared<informer::ResourceEventHandlerFuncs<api::Pod>>();
  ph->add = [this](const Ptr<api::Pod>& p, bool) { on_pod_add(p); };
  ph->update = [this](const Ptr<api::Pod>& o, const Ptr<api::Pod>& c) { on_pod_update(o, c); };
  ph->del = [this](const informer::Deleted<api::Pod>& d) { on_pod_delete(d, true); };
  auto r2 = pod_informer_->add_event_handler(ph);
  synced_ = {[r1] { return r1->has_synced(); }, [r2] { return r2->has_synced(); }};
  if (ctx_.features.workload_with_job) add_scheduling_informers();
}

void JobController::add_scheduling_informers() {
  workload_informer_ = workload_informer(ctx_);
  pod_group_informer_ = pod_group_informer(ctx_);
  scheduling_objects_ =
      std::make_unique<SchedulingObjects>(workload_informer_->indexer(), pod_group_informer_->indexer(), *ctx_.clock);
  using Workload = api::schedulingv1beta1::Workload;
  using PodGroup = api::schedulingv1beta1::PodGroup;
  // Once the cache holds an object (or knows it gone), it answers for it: the created copy goes.
  auto wh = std::make_shared<informer::ResourceEventHandlerFuncs<Workload>>();
  auto on_workload = [this](const Workload& w) {
    scheduling_objects_->workload_observed(informer::meta_namespace_key(w));
    enqueue_owning_job(w.metadata);
    enqueue_delegated_jobs(w);
  };
  wh->add = [on_workload](const Ptr<Workload>& w, bool) { on_workload(*w); };
  wh->update = [on_workload](const Ptr<Workload>&, const Ptr<Workload>& w) { on_workload(*w); };
  wh->del = [this](const informer::Deleted<Workload>& d) {
    scheduling_objects_->workload_observed(d.key);
    if (d.obj) {
      enqueue_owning_job(d.obj->metadata);
      enqueue_delegated_jobs(*d.obj);
    }
  };
  auto r3 = workload_informer_->add_event_handler(wh);
  auto ph = std::make_shared<informer::ResourceEventHandlerFuncs<PodGroup>>();
  ph->add = [this](const Ptr<PodGroup>& p, bool) {
    scheduling_objects_->pod_group_observed(informer::meta_namespace_key(*p));
    enqueue_owning_job(p->metadata);
  };
  ph->update = [this](const Ptr<PodGroup>&, const Ptr<PodGroup>& p) {
    scheduling_objects_->pod_group_observed(informer::meta_namespace_key(*p));
    enqueue_owning_job(p->metadata);
  };
  ph->del = [this](const informer::Deleted<PodGroup>& d) {
    scheduling_objects_->pod_group_observed(d.key);
    if (d.obj) enqueue_owning_job(d.obj->metadata);
  };
  auto r4 = pod_group_informer_->add_event_handler(ph);
  synced_.push_back([r3] { return r3->has_synced(); });
  synced_.push_back([r4] { return r4->has_synced(); });
}

void JobController::enqueue_owning_job(const api::ObjectMeta& meta) {
  // The first reference to a batch/v1 Job, controller or not, as upstream.
  for (const auto& ref : meta.ownerReferences)
    if (ref.kind == kKind && ref.apiVersion == kApiVersion) {
      workers_.add(std::string(meta.namespace_) + "/" + ref.name);
      return;
    }
}

void JobController::enqueue_delegated_jobs(const api::schedulingv1beta1::Workload& w) {
  const auto& ref = w.spec.controllerRef;
  if (!ref || ref->name.empty()) return;
  for (const auto& key : job_informer_->indexer().index_keys(
           kJobByDelegatingParentIndex, controller_ref_index_key(ref->apiGroup, ref->kind, w.metadata.namespace_, ref->name)))
    workers_.add(key);
}

JobController::~JobController() { stop(); }
void JobController::run(int workers) {
  workers_.start(workers);
  orphan_workers_.start(1);
}
void JobController::stop() {
  workers_.stop();
  orphan_workers_.stop();
}
bool JobController::has_synced() const {
  return std::all_of(synced_.begin(), synced_.end(), [](const auto& f) { return f(); });
}

Ptr<Job> JobController::resolve_controller(const std::string& ns, const api::OwnerReference& ref) const {
  if (ref.kind != kKind) return nullptr;
  auto j = job_informer_->lister().get(ns, ref.name);
  if (!j || j->metadata.uid != ref.uid) return nullptr;
  return j;
}

// Pod events are batched: a Job whose pods change together syncs once a second at most.
void JobController::enqueue_batched(const Job& j) { workers_.add_after(api::key_of(j), kSyncJobBatchPeriod); }

void JobController::on_pod_add(const Ptr<api::Pod>& p) {
  if (p->metadata.deletionTimestamp) {
    on_pod_delete(informer::Deleted<api::Pod>{p, false, api::key_of(*p)}, false);
    return;
  }
  const auto* ref = controller_of(p->metadata);
  auto job = ref ? resolve_controller(std::string(p->metadata.namespace_), *ref) : nullptr;
  if (!job) {
    if (has_tracking_finalizer(*p)) orphan_workers_.add(api::key_of(*p));
    return;
  }
  expectations_.creation_observed(api::key_of(*job));
  enqueue_batched(*job);
}

void JobController::on_pod_update(const Ptr<api::Pod>& old, const Ptr<api::Pod>& cur) {
  if (old->metadata.resourceVersion == cur->metadata.resourceVersion) return;
  if (cur->metadata.deletionTimestamp) {
    on_pod_delete(informer::Deleted<api::Pod>{cur, false, api::key_of(*cur)}, false);
    return;
  }
  const auto* ref = controller_of(cur->metadata);
  auto job = ref ? resolve_controller(std::string(cur->metadata.namespace_), *ref) : nullptr;
  if (!job) {
    if (has_tracking_finalizer(*cur)) orphan_workers_.add(api::key_of(*cur));
    return;
  }
  if (has_tracking_finalizer(*old) && !has_tracking_finalizer(*cur)) {
    std::lock_guard l(mu_);
    removing_finalizer_[api::key_of(*job)].erase(std::string(cur->metadata.uid));
  }
  enqueue_batched(*job);
}

void JobController::on_pod_delete(const informer::Deleted<api::Pod>& d, bool final) {
  if (!d.obj) return;
  const auto* ref = controller_of(d.obj->metadata);
  auto job = ref ? resolve_controller(std::string(d.obj->metadata.namespace_), *ref) : nullptr;
  if (!job) {
    if (!final && has_tracking_finalizer(*d.obj)) orphan_workers_.add(api::key_of(*d.obj));
    return;
  }
  auto key = api::key_of(*job);
  expectations_.deletion_observed(key, api::key_of(*d.obj));
  if (final) {
    std::lock_guard l(mu_);
    removing_finalizer_[key].erase(std::string(d.obj->metadata.uid));
  }
  enqueue_batched(*job);
}

util::Result<void> JobController::sync_orphan_pod(const std::string& key) {
  auto [ns, name] = api::split_key(key);
  auto p = pod_informer_->lister().get(std::string(ns), std::string(name));
  if (!p || !has_tracking_finalizer(*p)) return {};
  if (const auto* ref = controller_of(p->metadata)) {
    auto job = resolve_controller(std::string(ns), *ref);
    // Its Job still runs: the Job counts it and removes the finalizer itself.
    if (job && !is_true(job->status, "Complete") && !is_true(job->status, "Failed")) return {};
  }
  std::optional<client::ApiError> err;
  remove_finalizers({p}, err);
  if (err) return sync_error(*err);
  return {};
}

std::set<std::string> JobController::remove_finalizers(const std::vector<Ptr<api::Pod>>& pods,
                                                       std::optional<client::ApiError>& err) {
  std::set<std::string> removed;
  if (pods.empty()) return removed;
  std::vector<client::HttpRequest> reqs(pods.size());
  std::string body = json::serialize(json::object{
      {"metadata", json::object{{"$deleteFromPrimitiveList/finalizers", json::array{kTrackingFinalizer}}}}});
  for (std::size_t i = 0; i < pods.size(); ++i) {
    reqs[i].method = "PATCH";
    reqs[i].target = client::ResourceRef::of(client::ResourceFor<api::Pod>::info, pods[i]->metadata.namespace_,
                                             pods[i]->metadata.name)
                         .path();
    reqs[i].body = body;
    reqs[i].content_type = std::string(client::content_type(client::PatchType::StrategicMerge));
  }
  auto answers = ctx_.client->transport().round_trip_all(reqs);
  for (std::size_t i = 0; i < answers.size(); ++i) {
    const auto& a = answers[i];
    if (a && ((a->status >= 200 && a->status < 300) || a->status == 404)) {
      removed.insert(std::string(pods[i]->metadata.uid));
    } else if (!err) {
      err = a ? client::ApiError::from_response(a->status, a->body) : a.error();
    }
  }
  return removed;
}

// ---------------------------------------------------------------- sync

util::Result<void> JobController::sync(const std::string& key) {
  auto [ns, name] = api::split_key(key);
  auto cached = job_informer_->lister().get(std::string(ns), std::string(name));
  if (!cached) {
    expectations_.forget(key);
    std::lock_guard l(mu_);
    removing_finalizer_.erase(key);
    backoff_.erase(key);
    return {};
  }
  if (cached->spec.managedBy && *cached->spec.managedBy != kControllerName) return {};
  SyncCtx c;
  c.key = key;
  c.job = *cached;
  apply_defaults(c.job);
  c.now = api::now(*ctx_.clock);
  c.ref = object_reference(kApiVersion, kKind, c.job.metadata);
  Job& job = c.job;
  if (is_true(job.status, "Complete") || is_true(job.status, "Failed")) {
    std::lock_guard l(mu_);
    backoff_.erase(key);
    return {};
  }
  if (*job.spec.completionMode != "NonIndexed" && *job.spec.completionMode != "Indexed") {
    recorder_.eventf(c.ref, events::kWarning, "UnknownCompletionMode", "Skipped Job sync because completion mode is unknown");
    return {};
  }
  if (!job.status.uncountedTerminatedPods) job.status.uncountedTerminatedPods.emplace();
  for (const auto& u : job.status.uncountedTerminatedPods->succeeded) c.uncounted_succeeded.insert(u);
  for (const auto& u : job.status.uncountedTerminatedPods->failed) c.uncounted_failed.insert(u);
  {
    std::lock_guard l(mu_);
    c.expected_rm = removing_finalizer_[key];
  }
  // Expectations first: a pod created after this check waits for the next sync.
  c.satisfied = expectations_.satisfied(key);

  ClaimOwner owner{&job.metadata, std::string(kApiVersion), std::string(kKind)};
  auto claimed = claim_objects<api::Pod>(*ctx_.client, owner, selector_of(job.spec.selector),
                                         owned_or_orphans(pod_informer_->indexer(), job.metadata), [&] {
                                           auto fresh = ctx_.client->get<Job>(ns, name);
                                           return fresh && fresh->metadata.uid == job.metadata.uid &&
                                                  !fresh->metadata.deletionTimestamp;
                                         });
  if (claimed.error) return sync_error(*claimed.error);
  c.pods = std::move(claimed.objects);
  c.new_job = is_new_job(job, !c.pods.empty());
  for (const auto& p : c.pods) {
    if (is_pod_active(*p)) {
      c.active.push_back(p);
      if (is_pod_ready(*p)) ++c.ready;
    }
    if (is_pod_terminating(*p)) ++c.terminating;
  }
  std::int32_t active = static_cast<std::int32_t>(c.active.size());
  int new_succeeded = 0, new_failed = 0;
  for (const auto& p : c.pods) {
    std::string uid(p->metadata.uid);
    if (!has_tracking_finalizer(*p) || c.expected_rm.count(uid) || c.uncounted_succeeded.count(uid) ||
        c.uncounted_failed.count(uid))
      continue;
    if (p->status.phase == "Succeeded") ++new_succeeded;
    else if (is_pod_failed(*p, job)) ++new_failed;
  }
  c.succeeded = job.status.succeeded + new_succeeded + static_cast<std::int32_t>(c.uncounted_succeeded.size());
  c.failed = job.status.failed + new_failed + static_cast<std::int32_t>(c.uncounted_failed.size());
  if (!job.status.startTime && !suspended(job)) job.status.startTime = c.now;
  {
    std::lock_guard l(mu_);
    auto& b = backoff_[key];
    if (new_succeeded > 0) b.failures_after_success = 0;
    if (new_failed > 0) {
      b.failures_after_success += new_failed;
      b.last_failure = ctx_.clock->now();
    }
  }

  // Terminal conditions already decided: their final form.
  if (const auto* scm = find_condition(job.status, "SuccessCriteriaMet"); scm && scm->status == "True")
    c.finished = new_condition("Complete", "True", scm->reason, scm->message, c.now);
  if (!c.finished)
    if (const auto* ft = find_condition(job.status, "FailureTarget"); ft && ft->status == "True")
      c.finished = new_condition("Failed", "True", ft->reason, ft->message, c.now);
  if (!c.finished) {
    bool past_on_failure = false;
    if (job.spec.template_.spec.restartPolicy == "OnFailure") {
      std::int32_t restarts = 0;
      for (const auto& p : c.pods)
        if (p->status.phase == "Running" || p->status.phase == "Pending") {
          for (const auto& s : p->status.initContainerStatuses) restarts += s.restartCount;
          for (const auto& s : p->status.containerStatuses) restarts += s.restartCount;
        }
      past_on_failure = *job.spec.backoffLimit == 0 ? restarts > 0 : restarts >= *job.spec.backoffLimit;
    }
    if (c.failed > *job.spec.backoffLimit || past_on_failure) {
      c.finished = new_condition("FailureTarget", "True", "BackoffLimitExceeded",
                                 "Job has reached the specified backoff limit", c.now);
    } else if (job.spec.activeDeadlineSeconds && !suspended(job) && job.status.startTime) {
      std::int64_t deadline = job.status.startTime->unixNanos + *job.spec.activeDeadlineSeconds * 1'000'000'000;
      if (c.now.unixNanos >= deadline)
        c.finished = new_condition("FailureTarget", "True", "DeadlineExceeded",
                                   "Job was active longer than specified deadline", c.now);
      else
        workers_.add_after(key, std::chrono::nanoseconds(deadline - c.now.unixNanos));
    }
  }
  if (is_indexed(job)) {
    int completions = job.spec.completions.value_or(0);
    c.prev_succeeded_indexes = parse_index_intervals(job.status.completedIndexes, completions);
    std::vector<int> fresh;
    for (const auto& p : c.pods) {
      int ix = completion_index(*p);
      if (p->status.phase == "Succeeded" && ix >= 0 && ix < completions && has_tracking_finalizer(*p)) fresh.push_back(ix);
    }
    c.succeeded_indexes = with_indexes(c.prev_succeeded_indexes, fresh);
    c.succeeded = total(c.succeeded_indexes);
  }

  bool suspend_changed = false;
  if (c.finished) {
    // The Job is over: its active pods go (their finalizers stay until they are counted).
    std::vector<std::pair<std::string, std::string>> names;
    for (const auto& p : c.active) names.emplace_back(std::string(p->metadata.namespace_), std::string(p->metadata.name));
    auto results = delete_all(*ctx_.client, client::ResourceFor<api::Pod>::info, names);
    std::int32_t deleted = 0, deleted_ready = 0;
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (!results[i]) {
        if (!c.manage_error) c.manage_error = results[i].error();
        continue;
      }
      ++deleted;
      if (is_pod_ready(*c.active[i])) ++deleted_ready;
    }
    if (deleted != active || !c.satisfied) c.finished.reset();  // pods or finalizers may remain
    active -= deleted;
    c.terminating += deleted;
    c.ready -= deleted_ready;
  } else {
    bool managed = false;
    if (c.satisfied && !job.metadata.deletionTimestamp) {
      auto r = manage(c);
      if (r) active = *r;
      else c.manage_error = r.error();
      if (!r) active = static_cast<std::int32_t>(c.active.size());
      managed = true;
    }
    bool complete = job.spec.completions ? (c.succeeded >= *job.spec.completions && active == 0)
                                         : (c.succeeded > 0 && active == 0);
    if (complete) {
      c.finished = new_condition("SuccessCriteriaMet", "True", "CompletionsReached",
                                 "Reached expected number of succeeded pods", c.now);
    } else if (managed) {
      if (suspended(job)) {
        if (ensure_condition(job.status, "Suspended", "True", "JobSuspended", "Job suspended", c.now)) {
          suspend_changed = true;
          recorder_.eventf(c.ref, events::kNormal, "Suspended", "Job suspended");
        }
      } else if (ensure_condition(job.status, "Suspended", "False", "JobResumed", "Job resumed", c.now)) {
        suspend_changed = true;
        recorder_.eventf(c.ref, events::kNormal, "Resumed", "Job resumed");
        job.status.startTime = c.now;  // activeDeadlineSeconds counts from the resumption
      }
    }
  }
  bool needs_update = suspend_changed || active != job.status.active || job.status.ready != c.ready ||
                      job.status.terminating != c.terminating;
  job.status.active = active;
  job.status.ready = c.ready;
  job.status.terminating = c.terminating;
  if (auto r = track_status(c, needs_update); !r) return util::make_error("tracking status: " + r.error().to_string());
  if (c.manage_error) return sync_error(*c.manage_error);
  return {};
}

client::Result<std::int32_t> JobController::manage(SyncCtx& c) {
  Job& job = c.job;
  std::int32_t active = static_cast<std::int32_t>(c.active.size());
  std::int32_t parallelism = *job.spec.parallelism;
  auto delete_pods = [&](const std::vector<Ptr<api::Pod>>& victims) -> client::Result<std::int32_t> {
    std::vector<std::string> keys;
    for (const auto& p : victims) keys.push_back(api::key_of(*p));
    expectations_.expect_deletions(c.key, keys);
    std::optional<client::ApiError> err;
    remove_finalizers(victims, err);
    std::vector<std::pair<std::string, std::string>> names;
    for (const auto& p : victims) names.emplace_back(std::string(p->metadata.namespace_), std::string(p->metadata.name));
    auto results = delete_all(*ctx_.client, client::ResourceFor<api::Pod>::info, names);
    std::int32_t removed = 0;
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (results[i]) {
        ++removed;
        if (is_pod_ready(*victims[i])) --c.ready;
        recorder_.eventf(c.ref, events::kNormal, "SuccessfulDelete", "Deleted pod: {}", names[i].second);
      } else {
        expectations_.deletion_observed(c.key, keys[i]);
        if (!err) err = results[i].error();
      }
    }
    if (err) return *err;
    return active - removed;
  };
  if (suspended(job)) return delete_pods(c.active);

  std::int32_t want = 0;
  if (!job.spec.completions) {
    want = c.succeeded > 0 ? active : parallelism;
  } else {
    want = std::clamp(*job.spec.completions - c.succeeded, 0, parallelism);
  }
  std::int32_t rm = std::max(0, active - want);
  if (rm > 0) {
    // activePodsForRemoval: Indexed Jobs drop duplicates of an index and indexes out of range first.
    std::vector<Ptr<api::Pod>> first, rest;
    if (is_indexed(job)) {
      std::set<int> seen;
      for (const auto& p : c.active) {
        int ix = completion_index(*p);
        if (ix < 0 || ix >= job.spec.completions.value_or(0) || !seen.insert(ix).second) first.push_back(p);
        else rest.push_back(p);
      }
    } else {
      rest = c.active;
    }
    sort_pods_for_deletion(rest, {}, c.now);
    first.insert(first.end(), rest.begin(), rest.end());
    first.resize(static_cast<std::size_t>(std::min<std::int32_t>(rm, kMaxPodCreateDeletePerSync)));
    return delete_pods(first);
  }
  std::int32_t terminating = only_replace_failed(job) ? c.terminating : 0;
  std::int32_t diff = want - terminating - active;
  if (diff <= 0) return active;
  {
    // Replacements of failed pods wait: 10 s, doubling per failure since the last success, at most 10 min.
    std::lock_guard l(mu_);
    auto& b = backoff_[c.key];
    if (b.failures_after_success > 0) {
      auto wait = std::chrono::duration_cast<util::Clock::duration>(kDefaultPodFailureBackoff) *
                  (1LL << std::min(b.failures_after_success - 1, 20));
      wait = std::min<util::Clock::duration>(wait, kMaxPodFailureBackoff);
      auto left = b.last_failure + wait - ctx_.clock->now();
      if (left > util::Clock::duration::zero()) {
        workers_.add_after(c.key, left);
        return active;
      }
    }
  }
  diff = std::min(diff, kMaxPodCreateDeletePerSync);
  std::vector<int> indexes;
  if (is_indexed(job)) {
    // firstPendingIndexes: the lowest indexes neither succeeded nor running.
    std::set<int> running;
    for (const auto& p : c.active) running.insert(completion_index(*p));
    for (int ix = 0; ix < job.spec.completions.value_or(0) && static_cast<std::int32_t>(indexes.size()) < diff; ++ix)
      if (!has_index(c.succeeded_indexes, ix) && !running.count(ix)) indexes.push_back(ix);
    diff = static_cast<std::int32_t>(indexes.size());
    if (diff == 0) return active;
  }
  // WorkloadWithJob: the Workload and PodGroup come before the pods that join them
  // (upstream syncJob's ensureWorkloadAndPodGroup). Asked only when pods are to be made: the
  // objects are found by their references to the Job, so a later sync finds the same group.
  std::optional<std::string> pod_group;
  if (scheduling_objects_) {
    auto g = ensure_workload_and_pod_group(*ctx_.client, *scheduling_objects_, job, c.new_job, recorder_, c.ref);
    if (!g) return g.error();
    // A delegated Job's parent Workload is not there yet: its event requeues the Job. The Job
    // stays new (isNewJob) meanwhile: no startTime is written for a Job that made no pods.
    if (g->wait_for_parent) {
      job.status.startTime.reset();
      return active;
    }
    pod_group = std::move(g->name);
  }
  expectations_.expect_creations(c.key, diff);
  PodTemplateSpec tmpl = job.spec.template_;
  if (pod_group) {
    api::PodSchedulingGroup group;
    group.podGroupName = std::move(*pod_group);
    tmpl.spec.schedulingGroup = std::move(group);
  }
  if (std::find(tmpl.metadata.finalizers.begin(), tmpl.metadata.finalizers.end(), kTrackingFinalizer) ==
      tmpl.metadata.finalizers.end())
    tmpl.metadata.finalizers.push_back(std::string(kTrackingFinalizer));
  if (is_indexed(job)) {
    for (auto& ct : tmpl.spec.containers) add_index_env(ct);
    for (auto& ct : tmpl.spec.initContainers) add_index_env(ct);
  }
  auto ref = new_controller_ref(job.metadata, kApiVersion, kKind);
  std::vector<api::Pod> pods;
  for (std::int32_t i = 0; i < diff; ++i) {
    api::Pod p = pod_from_template(tmpl, job.metadata.namespace_, job.metadata.name, &ref);
    if (!indexes.empty()) {
      int ix = indexes[static_cast<std::size_t>(i)];
      std::string ixs = std::to_string(ix);
      p.metadata.annotations.set(std::string(kIndexKey), ixs);
      p.metadata.labels.set(std::string(kIndexKey), ixs);
      std::string suffix = "-" + ixs + "-";
      std::string prefix(job.metadata.name);
      if (prefix.size() + suffix.size() > 58) prefix.resize(58 - suffix.size());
      p.metadata.generateName = prefix + suffix;
      // spec.hostname (unmodelled): "<job>-<index>" unless the template sets one.
      bool has_hostname = false;
      for (auto [k, raw] : p.spec.extra.fields) has_hostname = has_hostname || k == "hostname";
      if (!has_hostname) {
        std::string v;
        api::detail::append_json_string(v, std::string(job.metadata.name) + "-" + ixs);
        p.spec.extra.fields.emplace_back("hostname", v);
      }
    }
    pods.push_back(std::move(p));
  }
  std::optional<client::ApiError> first_error;
  int created = create_pods_slow_start(
      *ctx_.client, std::move(pods),
      [&](const api::Pod&, const client::ApiError& e) {
        if (client::has_status_cause(e, "NamespaceTerminating")) return;
        recorder_.eventf(c.ref, events::kWarning, "FailedCreate", "Error creating: {}", e.message);
        if (!first_error) first_error = e;
      },
      [&](std::string_view pod) { recorder_.eventf(c.ref, events::kNormal, "SuccessfulCreate", "Created pod: {}", pod); });
  if (int skipped = diff - created; skipped > 0) expectations_.lower_creations(c.key, skipped);
  if (first_error) return *first_error;
  return active + created;
}

client::Result<void> JobController::write_status(SyncCtx& c) {
  auto r = ctx_.client->update_status(c.job);
  if (!r) return r.error();
  c.job.metadata.resourceVersion = r->metadata.resourceVersion;
  return {};
}

client::Result<void> JobController::track_status(SyncCtx& c, bool needs_flush) {
  Job& job = c.job;
  auto& uncounted = *job.status.uncountedTerminatedPods;
  std::vector<Ptr<api::Pod>> to_remove;
  std::vector<int> new_indexes;
  bool success_finish = c.finished && (c.finished->type == "SuccessCriteriaMet" || c.finished->type == "Complete");
  for (const auto& p : c.pods) {
    std::string uid(p->metadata.uid);
    if (!has_tracking_finalizer(*p) || c.expected_rm.count(uid)) continue;
    bool failed = is_pod_failed(*p, job);
    if (api::pod_is_terminal(*p) || failed || c.finished || job.metadata.deletionTimestamp) to_remove.push_back(p);
    if (p->status.phase == "Succeeded" && !c.uncounted_failed.count(uid)) {
      if (is_indexed(job)) {
        int ix = completion_index(*p);
        if (ix >= 0 && ix < job.spec.completions.value_or(0) && !has_index(c.prev_succeeded_indexes, ix)) {
          new_indexes.push_back(ix);
          needs_flush = true;
        }
      } else if (!c.uncounted_succeeded.count(uid)) {
        uncounted.succeeded.push_back(uid);
        c.uncounted_succeeded.insert(uid);
        needs_flush = true;
      }
    } else if (failed || (c.finished && !success_finish)) {
      // Once the Job failed, every pod not yet counted is a failed one.
      int ix = completion_index(*p);
      bool in_range = !is_indexed(job) || (ix >= 0 && ix < job.spec.completions.value_or(0));
      if (!c.uncounted_failed.count(uid) && in_range) {
        uncounted.failed.push_back(uid);
        c.uncounted_failed.insert(uid);
        needs_flush = true;
      }
    }
    if (new_indexes.size() + uncounted.succeeded.size() + uncounted.failed.size() >= kMaxUncountedPods) break;
  }
  if (is_indexed(job)) {
    c.succeeded_indexes = with_indexes(c.prev_succeeded_indexes, new_indexes);
    std::string s = format_index_intervals(c.succeeded_indexes);
    if (s != job.status.completedIndexes) needs_flush = true;
    job.status.succeeded = total(c.succeeded_indexes);
    job.status.completedIndexes = s;
  }
  if (c.finished && c.finished->type == "FailureTarget") {
    job.status.conditions.push_back(*c.finished);
    needs_flush = true;
    c.finished = new_condition("Failed", "True", c.finished->reason, c.finished->message, c.now);
  }
  if (c.finished && c.finished->type == "SuccessCriteriaMet") {
    if (!find_condition(job.status, "SuccessCriteriaMet")) {
      job.status.conditions.push_back(*c.finished);
      needs_flush = true;
    }
    c.finished = new_condition("Complete", "True", c.finished->reason, c.finished->message, c.now);
  }

  // flushUncountedAndRemoveFinalizers: first record which pods are about to be counted, then let
  // them go, then count those that went: a pod is counted once whatever fails in between.
  if (needs_flush) {
    if (auto r = write_status(c); !r) return r;
    needs_flush = false;
  }
  std::optional<client::ApiError> rm_err;
  if (!to_remove.empty()) {
    {
      std::lock_guard l(mu_);
      for (const auto& p : to_remove) removing_finalizer_[c.key].insert(std::string(p->metadata.uid));
    }
    auto removed = remove_finalizers(to_remove, rm_err);
    std::lock_guard l(mu_);
    for (const auto& p : to_remove)
      if (!removed.count(std::string(p->metadata.uid))) removing_finalizer_[c.key].erase(std::string(p->metadata.uid));
  }
  std::set<std::string> with_finalizer;
  {
    std::lock_guard l(mu_);
    const auto& removing = removing_finalizer_[c.key];
    for (const auto& p : c.pods)
      if (has_tracking_finalizer(*p) && !removing.count(std::string(p->metadata.uid)))
        with_finalizer.insert(std::string(p->metadata.uid));
  }
  auto count = [&](std::vector<std::string>& list, std::int32_t& counter) {
    auto keep = std::remove_if(list.begin(), list.end(), [&](const std::string& u) {
      if (with_finalizer.count(u)) return false;
      if (!is_indexed(job) || &counter == &job.status.failed) ++counter;
      return true;
    });
    if (keep != list.end()) needs_flush = true;
    list.erase(keep, list.end());
  };
  count(uncounted.succeeded, job.status.succeeded);
  count(uncounted.failed, job.status.failed);
  if (rm_err) {
    if (needs_flush) (void)write_status(c);
    return *rm_err;
  }
  // enactJobFinished: the terminal condition once nothing is uncounted or terminating.
  bool finished = false;
  if (c.finished && uncounted.succeeded.empty() && uncounted.failed.empty() && c.terminating == 0) {
    ensure_condition(job.status, c.finished->type, c.finished->status, c.finished->reason, c.finished->message, c.now);
    if (c.finished->type == "Complete") job.status.completionTime = c.now;
    finished = true;
    needs_flush = true;
  }
  if (needs_flush)
    if (auto r = write_status(c); !r) return r;
  if (finished) {
    if (c.finished->type == "Complete") recorder_.eventf(c.ref, events::kNormal, "Completed", "Job completed");
    else recorder_.eventf(c.ref, events::kWarning, c.finished->reason, "{}", c.finished->message);
  }
  return {};
}

}  // namespace ksched::controllers
