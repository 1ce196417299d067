// Leader election on a coordination.k8s.io/v1 Lease (client-go tools/leaderelection): acquire by
// creating or taking over an expired lease, renew every retryPeriod, lose leadership when a renewal
// does not succeed within renewDeadline. Another holder's lease counts as valid while
// (local time we last saw it change) + leaseDuration > now, so clocks need not agree.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <stop_token>
#include <thread>

#include "api/coordination.h"
#include "client/rest.h"
#include "util/clock.h"

namespace ksched::leaderelection {

struct LeaderElectionRecord {
  std::string holderIdentity;
  int leaseDurationSeconds = 0;
  std::int64_t acquireTimeNanos = 0;  // unix nanoseconds (MicroTime)
  std::int64_t renewTimeNanos = 0;
  int leaderTransitions = 0;
  bool operator==(const LeaderElectionRecord&) const = default;
};

// resourcelock.LeaseLock: GET, POST on 404, PUT of the last returned object (its resourceVersion is
// the precondition, so a concurrent writer gets 409).
class LeaseLock {
 public:
  LeaseLock(std::shared_ptr<client::RestClient> c, std::string ns, std::string name, std::string identity)
      : c_(std::move(c)), ns_(std::move(ns)), name_(std::move(name)), identity_(std::move(identity)) {}
  client::Result<LeaderElectionRecord> get();
  client::Result<void> create(const LeaderElectionRecord& r);
  client::Result<void> update(const LeaderElectionRecord& r);
  const std::string& identity() const { return identity_; }
  std::string describe() const { return ns_ + "/" + name_; }

 private:
  std::shared_ptr<client::RestClient> c_;
  std::string ns_, name_, identity_;
  std::mutex mu_;
  std::optional<api::Lease> last_;
};

struct Callbacks {
  // Runs on its own thread while leading; the token is stopped when leadership ends (like the
  // context upstream passes), and the callback must then return.
  std::function<void(std::stop_token)> on_started_leading;
  std::function<void()> on_stopped_leading;
  std::function<void(const std::string&)> on_new_leader;
};

struct Config {
  std::shared_ptr<LeaseLock> lock;
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
  Callbacks callbacks;
  bool release_on_cancel = false;
  std::string name;
  const util::Clock* clock = &util::RealClock::instance();
};

// "<hostname>_<uuid>" like kube-scheduler's identity.
std::string new_identity();

class LeaderElector {
 public:
  // Validates leaseDuration > renewDeadline > 1.2 * retryPeriod (upstream's rules and messages).
  static util::Result<std::unique_ptr<LeaderElector>> create(Config cfg);
  ~LeaderElector();

  // Blocks: acquires, leads until renewal fails or stop() is called, then returns.
  void run();
  // Cancels run() (releases the lease first when release_on_cancel).
  void stop();
  bool is_leader() const;
  std::string get_leader() const;
  // Healthz watchdog: an error when leading but the lease was not renewed within
  // leaseDuration + max_tolerable_expired.
  util::Result<void> check(std::chrono::milliseconds max_tolerable_expired = std::chrono::seconds(20)) const;
  const Config& config() const { return cfg_; }

 private:
  explicit LeaderElector(Config cfg) : cfg_(std::move(cfg)) {}
  bool try_acquire_or_renew();
  void release();
  bool wait(std::chrono::milliseconds d);  // false if stopped
  std::chrono::milliseconds jittered(std::chrono::milliseconds d, double factor);

  Config cfg_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<bool> stopped_{false};
  LeaderElectionRecord observed_;
  util::Clock::time_point observed_time_{};
  std::string reported_leader_;
  std::atomic<bool> leading_{false};
};

}  // namespace ksched::leaderelection
