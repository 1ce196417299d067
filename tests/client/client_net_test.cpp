// RESTClient and watch streams against the embedded API server over TLS with token auth.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "api/codec.h"
#include "api/core.h"
#include "net_testing/net_fixture.h"

using namespace ksched;
using namespace std::chrono_literals;
using ksched::testing::eventually;

namespace {

api::Pod make_pod(const std::string& ns, const std::string& name) {
  api::Pod p;
  p.apiVersion = "v1";
  p.kind = "Pod";
  p.metadata.namespace_ = ns;
  p.metadata.name = name;
  p.metadata.labels.set("app", "web");
  api::Container c;
  c.name = "c";
  c.image = "registry.k8s.io/pause:3.9";
  p.spec.containers.push_back(c);
  return p;
}

api::Node make_node(const std::string& name) {
  api::Node n;
  n.apiVersion = "v1";
  n.kind = "Node";
  n.metadata.name = name;
  return n;
}

}  // namespace

class ClientNet : public ksched::testing::ServerTest {};

TEST_F(ClientNet, CrudWithStatusErrors) {
  auto c = new_client();
  auto created = c->create(make_pod("default", "web-0"));
  ASSERT_TRUE(created.ok()) << created.error().to_string();
  EXPECT_FALSE(created->metadata.uid.empty());
  EXPECT_FALSE(created->metadata.resourceVersion.empty());

  auto dup = c->create(make_pod("default", "web-0"));
  ASSERT_FALSE(dup.ok());
  EXPECT_TRUE(client::is_already_exists(dup.error())) << dup.error().to_string();

  auto got = c->get<api::Pod>("default", "web-0");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->metadata.uid, created->metadata.uid);

  auto stale = *got;
  auto upd = *got;
  upd.metadata.labels.set("tier", "1");
  auto u = c->update(upd);
  ASSERT_TRUE(u.ok()) << u.error().to_string();
  stale.metadata.labels.set("tier", "2");
  auto conflict = c->update(stale);
  ASSERT_FALSE(conflict.ok());
  EXPECT_TRUE(client::is_conflict(conflict.error())) << conflict.error().to_string();

  auto patched = c->patch<api::Pod>("default", "web-0", client::PatchType::Merge, R"({"metadata":{"labels":{"p":"x"}}})");
  ASSERT_TRUE(patched.ok()) << patched.error().to_string();
  EXPECT_EQ(patched->metadata.labels.get("p"), "x");

  auto missing = c->get<api::Pod>("default", "nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(client::is_not_found(missing.error()));
  EXPECT_NE(missing.error().message.find("not found"), std::string::npos);

  auto list = c->list<api::Pod>("default");
  ASSERT_TRUE(list.ok()) << list.error().to_string();
  EXPECT_EQ(list->items.size(), 1u);

  client::DeleteOptions d;
  d.gracePeriodSeconds = 0;
  ASSERT_TRUE(c->remove<api::Pod>("default", "web-0", d).ok());
  EXPECT_TRUE(client::is_not_found(c->get<api::Pod>("default", "web-0").error()));
}

// bind_all sends the bindings together and answers each in order: one to a missing pod fails
// alone, the others are bound.
TEST_F(ClientNet, BindAllAnswersEachBindingInOrder) {
  auto c = new_client();
  ASSERT_TRUE(c->create(make_node("node-b")).ok());
  auto p1 = c->create(make_pod("default", "batch-1"));
  auto p2 = c->create(make_pod("default", "batch-2"));
  ASSERT_TRUE(p1.ok());
  ASSERT_TRUE(p2.ok());
  auto res = c->bind_all({{"default", "batch-1", p1->metadata.uid, "node-b"},
                          {"default", "batch-missing", "", "node-b"},
                          {"default", "batch-2", p2->metadata.uid, "node-b"}});
  ASSERT_EQ(res.size(), 3u);
  EXPECT_TRUE(res[0].ok()) << res[0].error().to_string();
  ASSERT_FALSE(res[1].ok());
  EXPECT_TRUE(client::is_not_found(res[1].error())) << res[1].error().to_string();
  EXPECT_TRUE(res[2].ok()) << res[2].error().to_string();
  EXPECT_EQ(c->get<api::Pod>("default", "batch-1")->spec.nodeName, "node-b");
  EXPECT_EQ(c->get<api::Pod>("default", "batch-2")->spec.nodeName, "node-b");
}

TEST_F(ClientNet, BindingAndStatusSubresource) {
  auto c = new_client();
  ASSERT_TRUE(c->create(make_node("node-a")).ok());
  auto p = c->create(make_pod("default", "web-1"));
  ASSERT_TRUE(p.ok());
  auto b = c->bind("default", "web-1", p->metadata.uid, "node-a");
  ASSERT_TRUE(b.ok()) << b.error().to_string();
  auto again = c->bind("default", "web-1", p->metadata.uid, "node-a");
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(client::is_conflict(again.error())) << again.error().to_string();
  // The UID goes with the binding as a precondition: another pod's is refused.
  ASSERT_TRUE(c->create(make_pod("default", "web-2")).ok());
  auto stale = c->bind("default", "web-2", "0a0a0a0a-0000-4000-8000-000000000000", "node-a");
  ASSERT_FALSE(stale.ok());
  EXPECT_TRUE(client::is_conflict(stale.error())) << stale.error().to_string();
  EXPECT_EQ(c->get<api::Pod>("default", "web-2")->spec.nodeName, "");
  auto got = c->get<api::Pod>("default", "web-1");
  EXPECT_EQ(got->spec.nodeName, "node-a");
  auto st = *got;
  st.status.phase = "Running";
  auto u = c->update_status(st);
  ASSERT_TRUE(u.ok()) << u.error().to_string();
  EXPECT_EQ(u->status.phase, "Running");
}

TEST_F(ClientNet, BadTokenIsUnauthorizedAndWrongCAFailsTls) {
  auto cfg = config;
  cfg.bearer_token = "wrong";
  auto c = *client::RestClient::create(cfg);
  auto r = c->list<api::Pod>("");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(client::is_unauthorized(r.error())) << r.error().to_string();

  auto notrust = config;
  notrust.ca_pem.clear();  // system roots do not know the generated CA
  auto c2 = *client::RestClient::create(notrust);
  auto r2 = c2->list<api::Pod>("");
  ASSERT_FALSE(r2.ok());
  EXPECT_TRUE(client::is_transport(r2.error()));
  EXPECT_NE(r2.error().message.find("handshake"), std::string::npos) << r2.error().message;
}

TEST_F(ClientNet, ConcurrentCallersShareThePool) {
  auto c = new_client();
  std::atomic<int> ok{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 8; ++t)
    ts.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i)
        if (c->create(make_pod("default", "p-" + std::to_string(t) + "-" + std::to_string(i))).ok()) ++ok;
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(ok.load(), 200);
  EXPECT_LE(c->transport().stats().connections_opened, 8u);
  auto list = c->list<api::Pod>("default");
  EXPECT_EQ(list->items.size(), 200u);
}

// Pipelined writes (HTTP/1.1 pipelining over TLS, answered in batches by the server): every
// caller gets the answer to its own request, whatever batch it travelled in, and every write lands.
TEST_F(ClientNet, PipelinedWritesFromManyThreadsGetTheirOwnAnswers) {
  auto cfg = config;
  cfg.pipeline_writes = true;
  auto c = client::RestClient::create(cfg);
  ASSERT_TRUE(c.ok()) << c.error();
  auto& client = **c;
  ASSERT_TRUE(client.create(ksched::testing::bare_node("n1")).ok());
  constexpr int kThreads = 12, kEach = 30;
  std::atomic<int> mismatched{0}, failed{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        std::string name = "pp-" + std::to_string(t) + "-" + std::to_string(i);
        auto created = client.create(make_pod("default", name));
        if (!created.ok()) {
          ++failed;
          continue;
        }
        if (created->metadata.name != name) ++mismatched;
        auto bound = client.bind("default", name, created->metadata.uid, "n1");
        if (!bound.ok()) ++failed;
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(mismatched.load(), 0);
  auto stats = client.transport().stats();
  EXPECT_EQ(stats.pipelined_requests, 1u + 2u * kThreads * kEach);
  // At most two batches are on the wire at once, each on its own pooled connection: twelve
  // threads sending alone would have opened twelve.
  EXPECT_LE(stats.connections_opened, 2u);
  auto list = client.list<api::Pod>("default");
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->items.size(), static_cast<std::size_t>(kThreads * kEach));
  for (const auto& p : list->items) EXPECT_EQ(p.spec.nodeName, "n1") << p.metadata.name;
}

// create_all: one result per body, in order; a failing object fails alone.
TEST_F(ClientNet, CreateAllReportsEachObjectsOwnResult) {
  auto c = new_client();
  ASSERT_TRUE(c->create(make_pod("default", "taken")).ok());
  std::vector<std::string> bodies;
  for (const char* name : {"ca-0", "taken", "ca-2"}) bodies.push_back(api::encode(make_pod("default", name)));
  bodies.push_back("{not json");
  auto res = c->create_all(client::ResourceRef{.resource = "pods", .namespace_ = "default"}, std::move(bodies));
  ASSERT_EQ(res.size(), 4u);
  ASSERT_TRUE(res[0].ok());
  EXPECT_NE(res[0]->find(R"("name":"ca-0")"), std::string::npos);
  ASSERT_FALSE(res[1].ok());
  EXPECT_TRUE(client::is_already_exists(res[1].error()));
  ASSERT_TRUE(res[2].ok());
  EXPECT_NE(res[2]->find(R"("name":"ca-2")"), std::string::npos);
  ASSERT_FALSE(res[3].ok());
  EXPECT_EQ(res[3].error().code, 400);
  EXPECT_EQ(c->list<api::Pod>("default")->items.size(), 3u);
}

TEST_F(ClientNet, WatchStreamsEventsAndStopsFromAnotherThread) {
  auto c = new_client();
  auto list = c->list(client::ResourceRef{"", "v1", "pods", "default", "", ""});
  ASSERT_TRUE(list.ok());
  auto l = api::decode<api::List<api::Pod>>(*list);
  client::ListOptions o;
  o.resourceVersion = l->metadata.resourceVersion;
  o.timeoutSeconds = 300;
  auto w = c->watch(client::ResourceRef{"", "v1", "pods", "default", "", ""}, o);
  ASSERT_TRUE(w.ok()) << w.error().to_string();
  std::shared_ptr<client::WatchStream> ws(std::move(*w));
  std::mutex mu;
  std::vector<std::string> seen;
  std::thread reader([&] {
    client::RawWatchEvent ev;
    while (ws->next(ev)) {
      std::lock_guard g(mu);
      seen.push_back(ev.type);
    }
  });
  ASSERT_TRUE(c->create(make_pod("default", "w1")).ok());
  ASSERT_TRUE(c->patch<api::Pod>("default", "w1", client::PatchType::Merge, R"({"metadata":{"labels":{"x":"y"}}})").ok());
  client::DeleteOptions d;
  d.gracePeriodSeconds = 0;
  ASSERT_TRUE(c->remove<api::Pod>("default", "w1", d).ok());
  EXPECT_TRUE(eventually([&] {
    std::lock_guard g(mu);
    return seen.size() >= 4;
  }));
  // Stop from this thread while the reader is blocked in a read: it must return.
  ws->stop();
  reader.join();
  std::lock_guard g(mu);
  // A pod delete, even with grace 0, first writes its deletionTimestamp (MODIFIED), as upstream's.
  EXPECT_EQ(seen, (std::vector<std::string>{"ADDED", "MODIFIED", "MODIFIED", "DELETED"}));
}

TEST_F(ClientNet, WatchFromCompactedVersionReportsExpired) {
  auto c = new_client();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(c->create(make_pod("default", "e" + std::to_string(i))).ok());
  auto l = c->list<api::Pod>("default");
  auto rv = std::stoll(l->metadata.resourceVersion);
  server->compact(rv);
  client::ListOptions o;
  o.resourceVersion = "1";
  auto w = c->watch(client::ResourceRef{"", "v1", "pods", "", "", ""}, o);
  if (!w.ok()) {
    EXPECT_TRUE(client::is_gone(w.error())) << w.error().to_string();
    return;
  }
  client::RawWatchEvent ev;
  ASSERT_TRUE((*w)->next(ev));
  EXPECT_EQ(ev.type, "ERROR");
  EXPECT_NE(ev.json.find("410"), std::string::npos);
}
