#include "leaderelection/leader_elector.h"

#include <unistd.h>

#include <cstdio>
#include <random>

#include "api/codec.h"
#include "util/log.h"

namespace ksched::leaderelection {

namespace {

LeaderElectionRecord to_record(const api::Lease& l) {
  LeaderElectionRecord r;
  r.holderIdentity = l.spec.holderIdentity.value_or("");
  r.leaseDurationSeconds = l.spec.leaseDurationSeconds.value_or(0);
  r.acquireTimeNanos = l.spec.acquireTime ? l.spec.acquireTime->unixNanos : 0;
  r.renewTimeNanos = l.spec.renewTime ? l.spec.renewTime->unixNanos : 0;
  r.leaderTransitions = l.spec.leaseTransitions.value_or(0);
  return r;
}

void apply_record(api::LeaseSpec& s, const LeaderElectionRecord& r) {
  s.holderIdentity = r.holderIdentity;
  s.leaseDurationSeconds = r.leaseDurationSeconds;
  s.acquireTime = api::MicroTime{r.acquireTimeNanos};
  s.renewTime = api::MicroTime{r.renewTimeNanos};
  s.leaseTransitions = r.leaderTransitions;
}

std::int64_t unix_nanos(const util::Clock& c) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(c.wall_now().time_since_epoch()).count();
}

}  // namespace

client::Result<LeaderElectionRecord> LeaseLock::get() {
  auto l = c_->get<api::Lease>(ns_, name_);
  if (!l) return l.error();
  auto rec = to_record(*l);
  std::lock_guard g(mu_);
  last_ = std::move(*l);
  return rec;
}

client::Result<void> LeaseLock::create(const LeaderElectionRecord& r) {
  api::Lease l;
  l.apiVersion = "coordination.k8s.io/v1";
  l.kind = "Lease";
  l.metadata.name = name_;
  l.metadata.namespace_ = ns_;
  apply_record(l.spec, r);
  auto res = c_->create(l);
  if (!res) return res.error();
  std::lock_guard g(mu_);
  last_ = std::move(*res);
  return {};
}

client::Result<void> LeaseLock::update(const LeaderElectionRecord& r) {
  api::Lease l;
  {
    std::lock_guard g(mu_);
    if (!last_) {
      client::ApiError e;
      e.message = "lease not initialized, call get or create first";
      return e;
    }
    l = *last_;
  }
  apply_record(l.spec, r);
  auto res = c_->update(l);
  if (!res) return res.error();
  std::lock_guard g(mu_);
  last_ = std::move(*res);
  return {};
}

std::string new_identity() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "localhost");
  std::random_device rd;
  std::mt19937_64 g(rd());
  std::uniform_int_distribution<std::uint64_t> d;
  std::uint64_t a = d(g), b = d(g);
  a = (a & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  b = (b & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // variant 10
  char uuid[40];
  std::snprintf(uuid, sizeof uuid, "%08x-%04x-%04x-%04x-%012llx", unsigned(a >> 32), unsigned((a >> 16) & 0xffff),
                unsigned(a & 0xffff), unsigned(b >> 48), static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return std::string(host) + "_" + uuid;
}

util::Result<std::unique_ptr<LeaderElector>> LeaderElector::create(Config cfg) {
  if (cfg.lease_duration <= cfg.renew_deadline)
    return util::make_error("leaseDuration must be greater than renewDeadline");
  if (cfg.renew_deadline.count() <= 1.2 * double(cfg.retry_period.count()))
    return util::make_error("renewDeadline must be greater than retryPeriod*JitterFactor");
  if (cfg.lease_duration.count() < 1) return util::make_error("leaseDuration must be greater than zero");
  if (cfg.renew_deadline.count() < 1) return util::make_error("renewDeadline must be greater than zero");
  if (cfg.retry_period.count() < 1) return util::make_error("retryPeriod must be greater than zero");
  if (!cfg.callbacks.on_started_leading) return util::make_error("OnStartedLeading callback must not be nil");
  if (!cfg.callbacks.on_stopped_leading) return util::make_error("OnStoppedLeading callback must not be nil");
  if (!cfg.lock) return util::make_error("Lock must not be nil.");
  if (cfg.lock->identity().empty()) return util::make_error("Lock identity is empty");
  return std::unique_ptr<LeaderElector>(new LeaderElector(std::move(cfg)));
}

LeaderElector::~LeaderElector() { stop(); }

std::chrono::milliseconds LeaderElector::jittered(std::chrono::milliseconds d, double factor) {
  thread_local std::mt19937_64 g(std::random_device{}());
  std::uniform_real_distribution<double> u(0.0, factor);
  return std::chrono::milliseconds(static_cast<std::int64_t>(double(d.count()) * (1.0 + u(g))));
}

bool LeaderElector::wait(std::chrono::milliseconds d) {
  std::unique_lock l(mu_);
  cv_.wait_for(l, d, [&] { return stopped_.load(); });
  return !stopped_.load();
}

bool LeaderElector::try_acquire_or_renew() {
  const auto& clock = *cfg_.clock;
  const auto& id = cfg_.lock->identity();
  std::int64_t now_ns = unix_nanos(clock);
  LeaderElectionRecord desired;
  desired.holderIdentity = id;
  desired.leaseDurationSeconds = static_cast<int>(
      std::max<std::int64_t>(1, std::chrono::duration_cast<std::chrono::seconds>(cfg_.lease_duration).count()));
  desired.renewTimeNanos = now_ns;
  desired.acquireTimeNanos = now_ns;

  auto cur = cfg_.lock->get();
  if (!cur) {
    if (!client::is_not_found(cur.error())) {
      log::error("error retrieving resource lock", {{"lock", cfg_.lock->describe()}, {"err", cur.error().to_string()}});
      return false;
    }
    if (auto c = cfg_.lock->create(desired); !c) {
      log::error("error initially creating leader election record", {{"err", c.error().to_string()}});
      return false;
    }
    std::lock_guard l(mu_);
    observed_ = desired;
    observed_time_ = clock.now();
    return true;
  }
  auto now = clock.now();
  {
    std::lock_guard l(mu_);
    if (!(observed_ == *cur)) {
      observed_ = *cur;
      observed_time_ = now;
    }
    // Another holder's lease is valid until leaseDuration after we saw it change.
    auto held_for = std::chrono::seconds(cur->leaseDurationSeconds);
    if (!cur->holderIdentity.empty() && cur->holderIdentity != id && observed_time_ + held_for > now) {
      log::V(4).info("lock is held by another and has not yet expired", {{"holder", cur->holderIdentity}});
      return false;
    }
  }
  if (cur->holderIdentity == id) {
    desired.acquireTimeNanos = cur->acquireTimeNanos;
    desired.leaderTransitions = cur->leaderTransitions;
  } else {
    desired.leaderTransitions = cur->leaderTransitions + 1;
  }
  if (auto u = cfg_.lock->update(desired); !u) {
    log::error("Failed to update lock", {{"err", u.error().to_string()}});
    return false;
  }
  std::lock_guard l(mu_);
  observed_ = desired;
  observed_time_ = clock.now();
  return true;
}

void LeaderElector::release() {
  std::lock_guard l(mu_);
  if (observed_.holderIdentity != cfg_.lock->identity()) return;
  LeaderElectionRecord r;
  r.leaseDurationSeconds = 1;
  r.leaderTransitions = observed_.leaderTransitions;
  r.acquireTimeNanos = r.renewTimeNanos = unix_nanos(*cfg_.clock);
  if (auto u = cfg_.lock->update(r); !u) {
    log::error("Failed to release lock", {{"err", u.error().to_string()}});
    return;
  }
  observed_ = r;
  observed_time_ = cfg_.clock->now();
}

void LeaderElector::run() {
  auto report_leader = [&] {
    std::string holder;
    {
      std::lock_guard l(mu_);
      holder = observed_.holderIdentity;
      if (holder == reported_leader_) return;
      reported_leader_ = holder;
    }
    if (cfg_.callbacks.on_new_leader && !holder.empty()) cfg_.callbacks.on_new_leader(holder);
  };
  log::info("attempting to acquire leader lease...", {{"lock", cfg_.lock->describe()}});
  // Acquire.
  for (;;) {
    if (stopped_.load()) return;
    bool ok = try_acquire_or_renew();
    report_leader();
    if (ok) break;
    if (!wait(jittered(cfg_.retry_period, 1.2))) return;
  }
  log::info("successfully acquired lease", {{"lock", cfg_.lock->describe()}});
  leading_.store(true);
  std::jthread leading([this](std::stop_token st) { cfg_.callbacks.on_started_leading(st); });
  // Renew until a renewal does not succeed within renewDeadline, or stop().
  for (;;) {
    if (!wait(cfg_.retry_period)) break;
    auto deadline = cfg_.clock->now() + cfg_.renew_deadline;
    bool renewed = false;
    for (;;) {
      if (stopped_.load()) break;
      if (try_acquire_or_renew()) {
        renewed = true;
        break;
      }
      if (cfg_.clock->now() + cfg_.retry_period > deadline) break;
      if (!wait(cfg_.retry_period)) break;
    }
    report_leader();
    if (!renewed) {
      if (!stopped_.load()) log::info("failed to renew lease", {{"lock", cfg_.lock->describe()}});
      break;
    }
  }
  leading_.store(false);
  if (stopped_.load() && cfg_.release_on_cancel) release();
  leading.request_stop();
  cfg_.callbacks.on_stopped_leading();
  leading.join();
}

void LeaderElector::stop() {
  stopped_.store(true);
  std::lock_guard l(mu_);
  cv_.notify_all();
}

bool LeaderElector::is_leader() const {
  std::lock_guard l(mu_);
  return leading_.load() && observed_.holderIdentity == cfg_.lock->identity();
}

std::string LeaderElector::get_leader() const {
  std::lock_guard l(mu_);
  return observed_.holderIdentity;
}

util::Result<void> LeaderElector::check(std::chrono::milliseconds max_tolerable_expired) const {
  if (!is_leader()) return {};
  std::lock_guard l(mu_);
  if (cfg_.clock->now() > observed_time_ + cfg_.lease_duration + max_tolerable_expired)
    return util::make_error("failed election to renew leadership on lease " + cfg_.lock->describe());
  return {};
}

}  // namespace ksched::leaderelection
