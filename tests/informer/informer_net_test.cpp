// Informers against the embedded API server: convergence under random churn, relist after watch
// expiry, recovery across a server restart, per-object ordering of handler notifications.
#include <gtest/gtest.h>

#include <condition_variable>
#include <fstream>
#include <map>
#include <mutex>
#include <random>

#include "api/codec.h"
#include "api/core.h"
#include "informer/factory.h"
#include "net_testing/net_fixture.h"

using namespace ksched;
using namespace ksched::informer;
using namespace std::chrono_literals;
using ksched::testing::eventually;

namespace {

api::Pod make_pod(const std::string& ns, const std::string& name, int gen) {
  api::Pod p = ksched::testing::pause_pod(ns, name);
  p.metadata.labels.set("gen", std::to_string(gen));
  return p;
}

api::Node make_node(const std::string& name, int gen) {
  api::Node n = ksched::testing::bare_node(name);
  n.metadata.labels.set("gen", std::to_string(gen));
  return n;
}

// Per object: the sequence of resourceVersions the handler saw; and the live view.
template <class T>
struct Tracker : ResourceEventHandler<T> {
  std::mutex mu;
  std::map<std::string, std::string> live;
  std::map<std::string, std::int64_t> last_rv;
  int order_violations = 0;
  int adds = 0, updates = 0, deletes = 0, tombstones = 0;
  void see(const std::string& key, const std::string& rv) {
    auto v = std::stoll(rv);
    auto it = last_rv.find(key);
    if (it != last_rv.end() && v < it->second) ++order_violations;
    last_rv[key] = v;
  }
  void OnAdd(const Ptr<T>& o, bool) override {
    std::lock_guard l(mu);
    auto k = meta_namespace_key(*o);
    if (live.count(k)) ++order_violations;  // add of an object we believe exists
    see(k, o->metadata.resourceVersion);
    live[k] = o->metadata.resourceVersion;
    ++adds;
  }
  void OnUpdate(const Ptr<T>& a, const Ptr<T>& b) override {
    std::lock_guard l(mu);
    auto k = meta_namespace_key(*b);
    if (!live.count(k) || live[k] != a->metadata.resourceVersion) ++order_violations;
    see(k, b->metadata.resourceVersion);
    live[k] = b->metadata.resourceVersion;
    ++updates;
  }
  void OnDelete(const Deleted<T>& d) override {
    std::lock_guard l(mu);
    if (!live.count(d.key)) ++order_violations;  // delete of an object we never saw
    live.erase(d.key);
    ++deletes;
    tombstones += d.final_state_unknown;
  }
  std::map<std::string, std::string> view() {
    std::lock_guard l(mu);
    return live;
  }
};

template <class T>
std::map<std::string, std::string> server_view(client::RestClient& c) {
  auto l = c.list<T>("");
  EXPECT_TRUE(l.ok()) << l.error().to_string();
  std::map<std::string, std::string> out;
  if (!l.ok()) return out;
  for (auto& o : l->items) out[meta_namespace_key(o)] = o.metadata.resourceVersion;
  return out;
}

template <class T>
std::map<std::string, std::string> cache_view(const Lister<T>& l) {
  std::map<std::string, std::string> out;
  for (auto& o : l.list()) out[meta_namespace_key(*o)] = o->metadata.resourceVersion;
  return out;
}

// Random creates/updates/deletes of pods (3 namespaces) and nodes from `threads` writers.
void churn(client::RestClient& c, int ops, int threads, unsigned seed) {
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t) {
    ts.emplace_back([&c, ops, threads, t, seed] {
      std::mt19937 rng(seed + t);
      client::DeleteOptions grace0;
      grace0.gracePeriodSeconds = 0;
      for (int i = 0; i < ops / threads; ++i) {
        int kind = rng() % 4;  // 3/4 pods, 1/4 nodes
        int id = rng() % 60;
        int op = rng() % 3;
        std::string suffix = std::to_string(t) + "-" + std::to_string(id);
        if (kind < 3) {
          std::string ns = kind == 0 ? "default" : kind == 1 ? "kube-system" : "kube-public";
          if (op == 0) (void)c.create(make_pod(ns, "p" + suffix, i));
          else if (op == 1)
            (void)c.patch<api::Pod>(ns, "p" + suffix, client::PatchType::Merge,
                                    R"({"metadata":{"labels":{"gen":")" + std::to_string(i) + R"("}}})");
          else (void)c.remove<api::Pod>(ns, "p" + suffix, grace0);
        } else {
          if (op == 0) (void)c.create(make_node("n" + suffix, i));
          else if (op == 1)
            (void)c.patch<api::Node>("", "n" + suffix, client::PatchType::Merge,
                                     R"({"metadata":{"labels":{"gen":")" + std::to_string(i) + R"("}}})");
          else (void)c.remove<api::Node>("", "n" + suffix);
        }
      }
    });
  }
  for (auto& t : ts) t.join();
}

}  // namespace

class InformerNet : public ksched::testing::ServerTest {};

TEST_F(InformerNet, StaysEqualToServerUnderTenThousandRandomWrites) {
  auto writer = new_client();
  churn(*writer, 1000, 4, 1);  // some state before the informers start (initial list)
  SharedInformerFactory factory(new_client());
  auto pods = factory.informer_for<api::Pod>();
  auto nodes = factory.informer_for<api::Node>();
  auto pt = std::make_shared<Tracker<api::Pod>>();
  auto nt = std::make_shared<Tracker<api::Node>>();
  pods->add_event_handler(pt);
  nodes->add_event_handler(nt);
  factory.start();
  auto synced = factory.wait_for_cache_sync(30s);
  for (auto& [name, ok] : synced) EXPECT_TRUE(ok) << name;
  churn(*writer, 10000, 4, 2);
  auto want_pods = server_view<api::Pod>(*writer);
  auto want_nodes = server_view<api::Node>(*writer);
  EXPECT_TRUE(eventually([&] { return cache_view(pods->lister()) == want_pods; }));
  EXPECT_TRUE(eventually([&] { return cache_view(nodes->lister()) == want_nodes; }));
  EXPECT_TRUE(eventually([&] { return pt->view() == want_pods && nt->view() == want_nodes; }));
  EXPECT_EQ(pt->order_violations, 0);
  EXPECT_EQ(nt->order_violations, 0);
  EXPECT_GT(pt->updates, 100);
  EXPECT_GT(pt->deletes, 100);
  EXPECT_EQ(pods->reflector_stats().relists_expired.load(), 0u);
  factory.shutdown();
}

TEST_F(InformerNet, WatchExpiryRelistsWithoutMissedOrPhantomObjects) {
  auto writer = new_client();
  churn(*writer, 400, 2, 3);
  InformerOptions<api::Pod> opts;
  opts.name = "pods";
  opts.reflector.min_watch_timeout_seconds = 1;  // watches end every 1-2 s and resume from the last RV
  opts.reflector.initial_backoff = 10ms;
  // A gate in front of the watch call: once closed, the reflector's next re-watch waits there while
  // the history it needs is written and compacted away, so that re-watch is certain to get 410.
  std::mutex gate_mu;
  std::condition_variable gate_cv;
  bool gate_closed = false, waiting_at_gate = false;
  auto lw = rest_list_watch(new_client(), client::ResourceFor<api::Pod>::info);
  auto inner_watch = lw.watch;
  lw.watch = [&, inner_watch](const client::ListOptions& o) {
    {
      std::unique_lock l(gate_mu);
      waiting_at_gate = gate_closed;
      gate_cv.notify_all();
      gate_cv.wait(l, [&] { return !gate_closed; });
      waiting_at_gate = false;
    }
    return inner_watch(o);
  };
  SharedIndexInformer<api::Pod> pods(std::move(lw), opts);
  auto pt = std::make_shared<Tracker<api::Pod>>();
  pods.add_event_handler(pt);
  pods.start();
  ASSERT_TRUE(eventually([&] { return pods.has_synced(); }));
  {
    std::unique_lock l(gate_mu);
    gate_closed = true;
    ASSERT_TRUE(gate_cv.wait_for(l, 30s, [&] { return waiting_at_gate; }));
  }
  // The reflector holds the revision its last watch ended at; move past it and forget the history.
  churn(*writer, 200, 1, 11);
  auto l = writer->list<api::Pod>("");
  ASSERT_TRUE(l.ok());
  server->compact(std::stoll(l->metadata.resourceVersion));
  EXPECT_EQ(pods.reflector_stats().relists_expired.load(), 0u);
  {
    std::lock_guard g(gate_mu);
    gate_closed = false;
  }
  gate_cv.notify_all();
  ASSERT_TRUE(eventually([&] { return pods.reflector_stats().relists_expired.load() >= 1; }, 30s));
  churn(*writer, 40, 1, 12);  // and the informer keeps following after the relist
  auto want = server_view<api::Pod>(*writer);
  EXPECT_TRUE(eventually([&] { return cache_view(pods.lister()) == want; }));
  EXPECT_TRUE(eventually([&] { return pt->view() == want; }));
  EXPECT_EQ(pt->order_violations, 0);
  EXPECT_GT(pt->deletes, 0);
  pods.stop();
}

TEST(InformerRestart, RecoversAfterServerRestartOnSamePort) {
  // A restarted server generates a new CA, so this test runs over plain HTTP with a fixed token.
  std::string token_file = ::testing::TempDir() + "/ksched-informer-tokens.csv";
  std::ofstream(token_file) << "restart-token,admin,admin-uid,\"system:masters\"\n";
  apiserver::Options o;
  o.tls = false;
  o.token_file = token_file;
  auto srv = std::make_unique<apiserver::Server>(o);
  ASSERT_TRUE(srv->start().ok());
  auto port = srv->port();
  client::RestConfig cfg;
  cfg.host = srv->url();
  cfg.bearer_token = "restart-token";
  cfg.qps = 0;
  cfg.timeout = 10s;
  auto c = *client::RestClient::create(cfg);
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(c->create(make_pod("default", "old" + std::to_string(i), i)).ok());

  InformerOptions<api::Pod> opts;
  opts.name = "pods";
  opts.reflector.initial_backoff = 20ms;
  opts.reflector.max_backoff = 200ms;
  SharedIndexInformer<api::Pod> pods(rest_list_watch(c, client::ResourceFor<api::Pod>::info), opts);
  auto pt = std::make_shared<Tracker<api::Pod>>();
  pods.add_event_handler(pt);
  pods.start();
  ASSERT_TRUE(eventually([&] { return pods.has_synced() && pods.lister().list().size() == 20; }));

  srv->stop();
  srv.reset();
  o.listen = "127.0.0.1:" + std::to_string(port);
  srv = std::make_unique<apiserver::Server>(o);
  auto started = srv->start();
  ASSERT_TRUE(started.ok()) << started.error();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(c->create(make_pod("default", "new" + std::to_string(i), i)).ok());
  auto want = server_view<api::Pod>(*c);
  ASSERT_EQ(want.size(), 5u);
  // The first relist asks for the old server's resourceVersion: 504 "Too large resource version"
  // with Retry-After 1, retried by the client like client-go (up to 10 times), then a fresh list.
  EXPECT_TRUE(eventually([&] { return cache_view(pods.lister()) == want; }));
  EXPECT_TRUE(eventually([&] { return pt->view() == want; }));
  EXPECT_EQ(pt->tombstones, 20);  // deletions seen only through the relist
  EXPECT_EQ(pt->order_violations, 0);
  pods.stop();
  srv->stop();
}

TEST_F(InformerNet, WatchListStreamsInitialStateWithoutList) {
  auto writer = new_client();
  for (int i = 0; i < 30; ++i) ASSERT_TRUE(writer->create(make_pod("default", "wl" + std::to_string(i), i)).ok());
  InformerOptions<api::Pod> opts;
  opts.name = "pods";
  opts.reflector.use_watch_list = true;
  SharedIndexInformer<api::Pod> pods(rest_list_watch(new_client(), client::ResourceFor<api::Pod>::info), opts);
  auto pt = std::make_shared<Tracker<api::Pod>>();
  auto reg = pods.add_event_handler(pt);
  pods.start();
  ASSERT_TRUE(eventually([&] { return reg->has_synced(); }));
  EXPECT_EQ(pods.lister().list().size(), 30u);
  EXPECT_EQ(pods.reflector_stats().lists.load(), 0u);  // the initial state came from the watch
  churn(*writer, 300, 2, 7);
  auto want = server_view<api::Pod>(*writer);
  EXPECT_TRUE(eventually([&] { return cache_view(pods.lister()) == want && pt->view() == want; }));
  EXPECT_EQ(pt->order_violations, 0);
  pods.stop();
}
