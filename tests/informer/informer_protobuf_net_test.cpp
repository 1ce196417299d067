// Informers over application/vnd.kubernetes.protobuf against the embedded API server: the list and
// the watch are answered in protobuf (checked on the wire), the cache equals the server's state
// under churn, the watch-list's BOOKMARK frames end the initial state, and an expired watch's ERROR
// frame (a 410 Status in protobuf) makes the reflector relist.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>

#include "api/codec.h"
#include "api/core.h"
#include "api/protobuf_wire.h"
#include "informer/factory.h"
#include "net_testing/net_fixture.h"

using namespace ksched;
using namespace ksched::informer;
using namespace std::chrono_literals;
using ksched::testing::eventually;

namespace {

class InformerProtobuf : public ksched::testing::ServerTest {
 protected:
  std::shared_ptr<client::RestClient> protobuf_client() {
    client::RestConfig c = config;
    c.content_type = "application/vnd.kubernetes.protobuf";
    auto r = client::RestClient::create(c);
    EXPECT_TRUE(r.ok()) << r.error();
    return *r;
  }
  // The pods' ListWatch of a protobuf client, counting what the server answered in protobuf.
  ListWatch counted_list_watch() {
    auto lw = rest_list_watch(protobuf_client(), client::ResourceFor<api::Pod>::info, {}, {}, /*typed_protobuf=*/true);
    auto list = lw.list;
    lw.list = [this, list](const client::ListOptions& o) {
      auto r = list(o);
      if (r.ok()) (api::protobuf::has_magic(*r) ? protobuf_lists : json_lists)++;
      return r;
    };
    auto watch = lw.watch;
    lw.watch = [this, watch](const client::ListOptions& o) {
      auto r = watch(o);
      if (r.ok()) ((*r)->protobuf() ? protobuf_watches : json_watches)++;
      return r;
    };
    return lw;
  }
  void write_pods(client::RestClient& c, int n, const std::string& prefix) {
    for (int i = 0; i < n; ++i) {
      api::Pod p = ksched::testing::pause_pod("default", prefix + std::to_string(i));
      p.metadata.labels.set("i", std::to_string(i));
      ASSERT_TRUE(c.create(p).ok());
    }
  }
  std::map<std::string, std::string> server_pods(client::RestClient& c) {
    std::map<std::string, std::string> out;
    auto l = c.list<api::Pod>("");
    EXPECT_TRUE(l.ok());
    if (l.ok())
      for (auto& o : l->items) out[meta_namespace_key(o)] = o.metadata.resourceVersion;
    return out;
  }
  static std::map<std::string, std::string> cache_pods(const Lister<api::Pod>& l) {
    std::map<std::string, std::string> out;
    for (auto& o : l.list()) out[meta_namespace_key(*o)] = o->metadata.resourceVersion;
    return out;
  }
  std::atomic<int> protobuf_lists{0}, json_lists{0}, protobuf_watches{0}, json_watches{0};
};

TEST_F(InformerProtobuf, ListAndWatchInProtobufFollowTheServer) {
  auto writer = new_client();  // JSON
  write_pods(*writer, 20, "a");
  InformerOptions<api::Pod> opts;
  opts.name = "pods";
  SharedIndexInformer<api::Pod> pods(counted_list_watch(), opts);
  pods.start();
  ASSERT_TRUE(eventually([&] { return pods.has_synced(); }));
  EXPECT_EQ(pods.lister().list().size(), 20u);
  write_pods(*writer, 10, "b");
  client::DeleteOptions grace0;
  grace0.gracePeriodSeconds = 0;
  ASSERT_TRUE(writer->remove<api::Pod>("default", "a3", grace0).ok());
  ASSERT_TRUE(writer->patch<api::Pod>("default", "a4", client::PatchType::Merge, R"({"metadata":{"labels":{"i":"x"}}})").ok());
  auto want = server_pods(*writer);
  ASSERT_EQ(want.size(), 29u);
  EXPECT_TRUE(eventually([&] { return cache_pods(pods.lister()) == want; }));
  // What the cache holds came from protobuf and equals what a JSON client reads.
  auto cached = pods.lister().get("default/a4");
  ASSERT_TRUE(cached);
  auto fresh = writer->get<api::Pod>("default", "a4");
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(api::encode(*cached), api::encode(*fresh));
  EXPECT_GE(protobuf_lists.load(), 1);
  EXPECT_GE(protobuf_watches.load(), 1);
  EXPECT_EQ(json_lists.load(), 0);
  EXPECT_EQ(json_watches.load(), 0);
  pods.stop();
}

TEST_F(InformerProtobuf, WatchListEndsItsInitialStateWithABookmarkFrame) {
  auto writer = new_client();
  write_pods(*writer, 15, "w");
  InformerOptions<api::Pod> opts;
  opts.name = "pods";
  opts.reflector.use_watch_list = true;
  SharedIndexInformer<api::Pod> pods(counted_list_watch(), opts);
  pods.start();
  // has_synced only after the initial-events-end BOOKMARK, read from a protobuf frame.
  ASSERT_TRUE(eventually([&] { return pods.has_synced(); }));
  EXPECT_EQ(pods.lister().list().size(), 15u);
  EXPECT_EQ(pods.reflector_stats().lists.load(), 0u);
  EXPECT_GE(protobuf_watches.load(), 1);
  EXPECT_EQ(json_watches.load(), 0);
  pods.stop();
}

TEST_F(InformerProtobuf, ExpiredWatchsErrorFrameMakesTheReflectorRelist) {
  auto writer = new_client();
  write_pods(*writer, 10, "e");
  InformerOptions<api::Pod> opts;
  opts.name = "pods";
  opts.reflector.min_watch_timeout_seconds = 1;
  opts.reflector.initial_backoff = 10ms;
  // Hold the reflector's next re-watch while the history it needs is compacted away (see
  // InformerNet.WatchExpiryRelistsWithoutMissedOrPhantomObjects): the re-watch is then answered
  // with one ERROR frame holding a 410 Status.
  std::mutex gate_mu;
  std::condition_variable gate_cv;
  bool gate_closed = false, waiting_at_gate = false;
  auto lw = counted_list_watch();
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
  pods.start();
  ASSERT_TRUE(eventually([&] { return pods.has_synced(); }));
  {
    std::unique_lock l(gate_mu);
    gate_closed = true;
    ASSERT_TRUE(gate_cv.wait_for(l, 30s, [&] { return waiting_at_gate; }));
  }
  write_pods(*writer, 10, "f");
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
  auto want = server_pods(*writer);
  EXPECT_TRUE(eventually([&] { return cache_pods(pods.lister()) == want; }));
  EXPECT_GE(protobuf_lists.load(), 2);  // the first list and the relist
  EXPECT_EQ(json_lists.load(), 0);
  EXPECT_EQ(json_watches.load(), 0);
  pods.stop();
}

TEST_F(InformerProtobuf, KindsWithoutTablesAndJsonAnswersStayJson) {
  auto c = protobuf_client();
  // Pods have tables, so protobuf is asked for; a kind without tables, and a JSON client, ask for JSON.
  EXPECT_EQ(c->accept_for(client::ResourceFor<api::Pod>::info), "application/vnd.kubernetes.protobuf, */*");
  client::ResourceInfo custom{"example.com", "v1", "widgets", "Widget", true};
  EXPECT_EQ(c->accept_for(custom), "application/json");
  EXPECT_EQ(new_client()->accept_for(client::ResourceFor<api::Pod>::info), "application/json");
  // A ListWatch for a type without typed protobuf decoding (the default) asks for JSON.
  auto json_lw = rest_list_watch(c, client::ResourceFor<api::Pod>::info);
  auto json_list = json_lw.list(client::ListOptions{});
  ASSERT_TRUE(json_list.ok());
  EXPECT_FALSE(api::protobuf::has_magic(*json_list));
  // The writes of a protobuf client (protobuf bodies) are stored as the JSON client's are.
  api::Pod p = ksched::testing::pause_pod("default", "pb-write");
  ASSERT_TRUE(c->create(p).ok());
  auto got = new_client()->get<api::Pod>("default", "pb-write");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->spec.containers.size(), 1u);
  // Errors come back as protobuf Statuses and read as the JSON ones.
  auto missing = c->get<api::Pod>("default", "nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, 404);
  EXPECT_EQ(missing.error().message, "pods \"nope\" not found");
}

}  // namespace
