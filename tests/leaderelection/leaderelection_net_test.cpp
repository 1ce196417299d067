// Leader election on a Lease in the embedded API server: one leader at a time, takeover after the
// leader stops renewing, release on cancel, healthz watchdog.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "api/coordination.h"
#include "leaderelection/leader_elector.h"
#include "net_testing/net_fixture.h"

using namespace ksched;
using namespace ksched::leaderelection;
using namespace std::chrono_literals;
using ksched::testing::eventually;

namespace {

struct Timeline {
  std::mutex mu;
  std::atomic<int> leaders{0};
  std::atomic<int> max_leaders{0};
  std::vector<std::string> terms;  // identities in the order they started leading
  std::vector<std::string> new_leader_seen;
};

std::unique_ptr<LeaderElector> make_elector(std::shared_ptr<client::RestClient> c, const std::string& id, Timeline& tl,
                                            bool release = false) {
  Config cfg;
  cfg.lock = std::make_shared<LeaseLock>(c, "kube-system", "kube-scheduler", id);
  cfg.lease_duration = 2000ms;
  cfg.renew_deadline = 1500ms;
  cfg.retry_period = 300ms;
  cfg.release_on_cancel = release;
  cfg.callbacks.on_started_leading = [&tl, id](std::stop_token) {
    int n = ++tl.leaders;
    int m = tl.max_leaders.load();
    while (n > m && !tl.max_leaders.compare_exchange_weak(m, n)) {
    }
    std::lock_guard l(tl.mu);
    tl.terms.push_back(id);
  };
  cfg.callbacks.on_stopped_leading = [&tl] { --tl.leaders; };
  cfg.callbacks.on_new_leader = [&tl](const std::string& who) {
    std::lock_guard l(tl.mu);
    tl.new_leader_seen.push_back(who);
  };
  auto e = LeaderElector::create(std::move(cfg));
  EXPECT_TRUE(e.ok()) << e.error();
  return std::move(*e);
}

}  // namespace

class LeaderElectionNet : public ksched::testing::ServerTest {};

TEST_F(LeaderElectionNet, OneLeaderAndTakeoverAfterLeaderStopsRenewing) {
  Timeline tl;
  auto a = make_elector(new_client(), "host-a_1", tl);
  auto b = make_elector(new_client(), "host-b_2", tl);
  std::thread ta([&] { a->run(); });
  std::thread tb([&] { b->run(); });
  ASSERT_TRUE(eventually([&] { return a->is_leader() || b->is_leader(); }, 10s));
  auto* leader = a->is_leader() ? a.get() : b.get();
  auto* follower = leader == a.get() ? b.get() : a.get();
  auto& leader_thread = leader == a.get() ? ta : tb;
  ASSERT_TRUE(eventually([&] { return follower->get_leader() == leader->config().lock->identity(); }, 10s));
  EXPECT_FALSE(follower->is_leader());
  // The leader stops renewing (without releasing); the follower must wait for the lease to expire.
  auto stopped_at = std::chrono::steady_clock::now();
  leader->stop();
  leader_thread.join();
  ASSERT_TRUE(eventually([&] { return follower->is_leader(); }, 15s));
  EXPECT_GE(std::chrono::steady_clock::now() - stopped_at, 1500ms);  // not before the lease could expire
  follower->stop();
  (leader == a.get() ? tb : ta).join();
  EXPECT_EQ(tl.max_leaders.load(), 1);
  EXPECT_EQ(tl.leaders.load(), 0);
  std::lock_guard l(tl.mu);
  ASSERT_EQ(tl.terms.size(), 2u);
  EXPECT_NE(tl.terms[0], tl.terms[1]);
  auto lease = new_client()->get<api::Lease>("kube-system", "kube-scheduler");
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ(lease->spec.holderIdentity.value_or(""), tl.terms[1]);
  EXPECT_EQ(lease->spec.leaseTransitions.value_or(-1), 1);
  EXPECT_EQ(lease->spec.leaseDurationSeconds.value_or(0), 2);
}

TEST_F(LeaderElectionNet, ReleaseOnCancelHandsOverQuickly) {
  Timeline tl;
  auto a = make_elector(new_client(), "host-a_1", tl, /*release=*/true);
  std::thread ta([&] { a->run(); });
  ASSERT_TRUE(eventually([&] { return a->is_leader(); }, 10s));
  a->stop();
  ta.join();
  auto lease = new_client()->get<api::Lease>("kube-system", "kube-scheduler");
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ(lease->spec.holderIdentity.value_or("x"), "");
  EXPECT_EQ(lease->spec.leaseDurationSeconds.value_or(0), 1);
  auto b = make_elector(new_client(), "host-b_2", tl);
  auto t0 = std::chrono::steady_clock::now();
  std::thread tb([&] { b->run(); });
  ASSERT_TRUE(eventually([&] { return b->is_leader(); }, 10s));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1500ms);  // an empty holder is free at once
  b->stop();
  tb.join();
}

TEST_F(LeaderElectionNet, HealthzFailsWhenLeaseNotRenewed) {
  util::FakeClock clock;
  Config cfg;
  cfg.lock = std::make_shared<LeaseLock>(new_client(), "kube-system", "hz", new_identity());
  cfg.clock = &clock;
  cfg.callbacks.on_started_leading = [](std::stop_token) {};
  cfg.callbacks.on_stopped_leading = [] {};
  auto e = LeaderElector::create(cfg);
  ASSERT_TRUE(e.ok());
  auto& el = **e;
  std::thread t([&] { el.run(); });
  ASSERT_TRUE(eventually([&] { return el.is_leader(); }, 10s));
  EXPECT_TRUE(el.check(20s).ok());
  clock.step(15s + 20s + 1s);  // renewals run every 2 s of real time; none happened on the fake clock
  auto c = el.check(20s);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error(), "failed election to renew leadership on lease kube-system/hz");
  el.stop();
  t.join();
}

TEST(LeaderElectionConfig, ValidatesDurationsAndIdentity) {
  Config cfg;
  cfg.lock = std::make_shared<LeaseLock>(nullptr, "ns", "n", "id");
  cfg.callbacks.on_started_leading = [](std::stop_token) {};
  cfg.callbacks.on_stopped_leading = [] {};
  cfg.lease_duration = 10s;
  cfg.renew_deadline = 10s;
  EXPECT_EQ(LeaderElector::create(cfg).error(), "leaseDuration must be greater than renewDeadline");
  cfg.lease_duration = 15s;
  cfg.renew_deadline = 2s;
  cfg.retry_period = 2s;
  EXPECT_EQ(LeaderElector::create(cfg).error(), "renewDeadline must be greater than retryPeriod*JitterFactor");
  cfg.renew_deadline = 10s;
  EXPECT_TRUE(LeaderElector::create(cfg).ok());
  auto id = new_identity();
  EXPECT_NE(id.find('_'), std::string::npos);
  EXPECT_EQ(id.size() - id.find('_') - 1, 36u);
}
