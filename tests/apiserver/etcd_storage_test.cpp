// The etcd storage mode against a real etcd (Debian's /usr/bin/etcd, started once for the suite on
// loopback ports, each test under its own key prefix): two stores on one etcd share objects and
// watches, writes conflict as the resourceVersion says, deletions reach watchers with their
// revision, a fresh server loads what etcd holds, foreign and damaged values are handled, and
// etcd's compaction answers an old watch with the revision it kept.
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>

#include "apiserver/storage/etcd_storage.h"
#include "apiserver/resources.h"
#include "apiserver/storage/storage.h"
#include "apiserver/storage/watch_hub.h"
#include "etcd/client.h"
#include "etcd/local_etcd.h"
#include "tls/certs.h"

namespace ksched::apiserver {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

int pods() { return find_resource("", "v1", "pods")->id; }
int nodes() { return find_resource("", "v1", "nodes")->id; }
int deployments() { return find_resource("apps", "v1", "deployments")->id; }

// One single-member etcd for the whole suite.
class EtcdStorageTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!etcd::LocalEtcd::installed()) return;
    dir_ = ::testing::TempDir() + "/etcd_storage_test." + std::to_string(::getpid());
    fs::remove_all(dir_);
    auto e = etcd::LocalEtcd::start(dir_);
    ASSERT_TRUE(e) << (e ? "" : e.error());
    etcd_ = std::move(*e);
  }
  static void TearDownTestSuite() {
    etcd_.reset();
    fs::remove_all(dir_);
  }
  void SetUp() override {
    if (!etcd_) GTEST_SKIP() << "etcd is not installed";
    prefix_ = std::string("/t/") + ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }

  EtcdStorage::Options options() const {
    EtcdStorage::Options o;
    o.etcd.endpoints = {etcd_->url()};
    o.prefix = prefix_;
    o.compaction_interval = 0ms;
    return o;
  }
  std::unique_ptr<EtcdStorage> open(Store& s) {
    auto r = EtcdStorage::open(s, options());
    EXPECT_TRUE(r) << (r ? "" : r.error());
    return r ? std::move(*r) : nullptr;
  }
  std::unique_ptr<etcd::Client> client() {
    auto c = etcd::Client::connect(options().etcd);
    EXPECT_TRUE(c);
    return c ? std::move(*c) : nullptr;
  }

  static inline std::unique_ptr<etcd::LocalEtcd> etcd_;
  static inline std::string dir_;
  std::string prefix_;
};

json::object pod(const std::string& name, const std::string& node = "") {
  return json::object{{"kind", "Pod"},
                      {"apiVersion", "v1"},
                      {"metadata", json::object{{"name", name}, {"namespace", "default"}, {"labels", json::object{{"app", "a"}}}}},
                      {"spec", json::object{{"nodeName", node}}}};
}

std::string rv_of(const ObjPtr& o) {
  auto v = json::parse(o->json);
  return std::string(v.at("metadata").at("resourceVersion").as_string());
}

// The revision the answer to this thread's last write waits for, and that wait, as the HTTP layer
// does it (Response::commit_rv, then Store::when_durable).
void wait_answer(Store& s) {
  std::int64_t rv = Store::take_thread_commit();
  ASSERT_GT(rv, 0);
  std::promise<void> p;
  auto f = p.get_future();
  s.when_durable(rv, [&p] { p.set_value(); });
  ASSERT_EQ(f.wait_for(20s), std::future_status::ready);
  EXPECT_GE(s.revision(), rv);
}

std::vector<WatchItem> drain_until(Watcher& w, std::size_t n) {
  std::vector<WatchItem> all;
  auto deadline = std::chrono::steady_clock::now() + 20s;
  while (all.size() < n && std::chrono::steady_clock::now() < deadline) {
    bool closed = false;
    auto items = w.drain(closed);
    all.insert(all.end(), items.begin(), items.end());
    if (closed) break;
    if (all.size() < n) std::this_thread::yield();
  }
  return all;
}

TEST_F(EtcdStorageTest, KeysNameResourceNamespaceAndName) {
  Store s(1000);
  auto st = open(s);
  ASSERT_TRUE(st);
  EXPECT_EQ(st->key_of(pods(), "default", "p"), prefix_ + "/pods/default/p");
  EXPECT_EQ(st->key_of(nodes(), "", "n1"), prefix_ + "/nodes/n1");
  EXPECT_EQ(st->key_of(deployments(), "ns", "d"), prefix_ + "/apps/deployments/ns/d");
  for (auto [res, ns, name] : {std::tuple{pods(), "default", "p"}, std::tuple{nodes(), "", "n1"},
                               std::tuple{deployments(), "ns", "d"}}) {
    Store::ExternalChange c;
    ASSERT_TRUE(st->parse_key(st->key_of(res, ns, name), c));
    EXPECT_EQ(c.resource, res);
    EXPECT_EQ(c.ns, ns);
    EXPECT_EQ(c.name, name);
  }
  Store::ExternalChange c;
  EXPECT_FALSE(st->parse_key(prefix_ + "/unknown/x", c));
  EXPECT_FALSE(st->parse_key(prefix_ + "/pods/only-namespace", c));
  EXPECT_FALSE(st->parse_key(prefix_ + "/nodes/a/b", c));
  EXPECT_FALSE(st->parse_key("/elsewhere/pods/default/p", c));
}

TEST_F(EtcdStorageTest, TwoStoresShareObjectsWatchesAndConflicts) {
  Store a(1000), b(1000);
  auto sa = open(a);
  auto sb = open(b);
  ASSERT_TRUE(sa && sb);
  auto wb = std::make_shared<Watcher>(pods(), "", labels::Selector{}, fields::Selector{}, 100);
  ASSERT_TRUE(b.watch(wb, b.revision(), false, false));

  auto o = pod("p1");
  auto c = a.put(pods(), o, 0);
  ASSERT_EQ(c.status, Store::CommitStatus::Ok);
  wait_answer(a);
  ASSERT_TRUE(a.get(pods(), "default", "p1"));  // read-your-writes on the answering server
  EXPECT_EQ(a.get(pods(), "default", "p1")->rv, c.obj->rv);
  EXPECT_EQ(rv_of(c.obj), std::to_string(c.obj->rv));

  auto seen = drain_until(*wb, 1);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].kind, WatchItem::Kind::Added);
  EXPECT_EQ(seen[0].obj->rv, c.obj->rv);  // the same revision on both servers
  ASSERT_TRUE(seen[0].obj->labels.find("app"));
  EXPECT_EQ(*seen[0].obj->labels.find("app"), "a");

  // The same name created through the other server: etcd says it exists.
  auto dup = pod("p1");
  EXPECT_EQ(b.put(pods(), dup, 0).status, Store::CommitStatus::AlreadyExists);

  // B updates; A, still writing from the revision it read first, conflicts, and its store then
  // holds B's change, so a retry starts from it.
  auto bound = pod("p1", "n1");
  auto cb = b.put(pods(), bound, c.obj->rv);
  ASSERT_EQ(cb.status, Store::CommitStatus::Ok);
  // A change outside the prefix moves etcd's revision past anything the watch will bring; the
  // conflict must still resolve from the key's own revision.
  auto c2 = client();
  ASSERT_TRUE(c2);
  auto outside = c2->put_if(prefix_ + "_elsewhere", "x", 0);
  ASSERT_TRUE(outside && outside->succeeded);
  auto stale = pod("p1", "n2");
  auto ca = a.put(pods(), stale, c.obj->rv);
  EXPECT_EQ(ca.status, Store::CommitStatus::Changed);
  ASSERT_TRUE(ca.obj);
  EXPECT_EQ(ca.obj->rv, cb.obj->rv);
  EXPECT_EQ(a.get(pods(), "default", "p1")->rv, cb.obj->rv);

  // Deleting what was never there, or with an old revision.
  EXPECT_EQ(a.remove(pods(), "default", "nope", 0).status, Store::CommitStatus::NotFound);
  EXPECT_EQ(a.remove(pods(), "default", "p1", c.obj->rv).status, Store::CommitStatus::Changed);

  auto d = a.remove(pods(), "default", "p1", cb.obj->rv);
  ASSERT_EQ(d.status, Store::CommitStatus::Ok);
  std::int64_t deleted_at = Store::take_thread_commit();
  ASSERT_TRUE(b.wait_for_revision(deleted_at, 20s));
  EXPECT_FALSE(b.get(pods(), "default", "p1"));
  auto rest = drain_until(*wb, 2);
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[0].kind, WatchItem::Kind::Modified);
  EXPECT_EQ(rest[1].kind, WatchItem::Kind::Deleted);
  // A DELETED object carries the deletion's revision, as upstream's watch sends it.
  EXPECT_EQ(rest[1].obj->rv, deleted_at);
  EXPECT_EQ(rv_of(rest[1].obj), std::to_string(deleted_at));
}

TEST_F(EtcdStorageTest, AConsistentReadSeesEveryAcknowledgedWriteOfAnyServer) {
  Store a(1000), b(1000);
  auto sa = open(a);
  auto sb = open(b);
  ASSERT_TRUE(sa && sb);
  for (int i = 0; i < 20; ++i) {
    auto o = pod("r" + std::to_string(i));
    auto c = a.put(pods(), o, 0);
    ASSERT_EQ(c.status, Store::CommitStatus::Ok);
    wait_answer(a);  // acknowledged by A
    b.sync_for_read();
    auto got = b.get_published(pods(), "default", "r" + std::to_string(i));
    ASSERT_TRUE(got) << i;
    EXPECT_EQ(got->rv, c.obj->rv);
    auto d = a.remove(pods(), "default", "r" + std::to_string(i), c.obj->rv);
    ASSERT_EQ(d.status, Store::CommitStatus::Ok);
    wait_answer(a);
    b.sync_for_read();
    EXPECT_FALSE(b.get_published(pods(), "default", "r" + std::to_string(i))) << i;
  }
  // The newest change is outside the prefix: no event will come for it, a progress notification does.
  auto c = client();
  ASSERT_TRUE(c);
  auto outside = c->put_if(prefix_ + "_elsewhere", "x", 0);
  ASSERT_TRUE(outside && outside->succeeded);
  b.sync_for_read();
  EXPECT_GE(b.revision(), outside->revision);
  // A revision seen elsewhere is caught up with.
  EXPECT_TRUE(a.catch_up(outside->revision, 20s));
}

TEST_F(EtcdStorageTest, AFreshServerLoadsWhatEtcdHoldsAndResumesWatchesFromThere) {
  std::int64_t rv = 0;
  {
    Store a(1000);
    auto sa = open(a);
    ASSERT_TRUE(sa);
    auto o = pod("keep", "n1");
    auto& meta = o["metadata"].as_object();
    meta["deletionTimestamp"] = "2030-01-01T00:00:00Z";
    meta["deletionGracePeriodSeconds"] = 30;
    auto c = a.put(pods(), o, 0, 1893456000);
    ASSERT_EQ(c.status, Store::CommitStatus::Ok);
    rv = c.obj->rv;
    wait_answer(a);
  }
  Store b(1000);
  auto sb = open(b);
  ASSERT_TRUE(sb);
  EXPECT_EQ(sb->loaded_objects(), 1u);
  auto got = b.get(pods(), "default", "keep");
  ASSERT_TRUE(got);
  EXPECT_EQ(got->rv, rv);
  EXPECT_EQ(rv_of(got), std::to_string(rv));
  // The pending graceful deletion is known again (its deadline is the deletionTimestamp).
  EXPECT_EQ(b.expired_deletions(pods(), 1893456000).size(), 1u);
  EXPECT_TRUE(b.expired_deletions(pods(), 1893455999).empty());
  // History starts at the load: an older revision is gone, the loaded one resumes.
  auto w_old = std::make_shared<Watcher>(pods(), "", labels::Selector{}, fields::Selector{}, 100);
  EXPECT_FALSE(b.watch(w_old, sb->loaded_revision() - 1, false, false));
  auto w = std::make_shared<Watcher>(pods(), "", labels::Selector{}, fields::Selector{}, 100);
  EXPECT_TRUE(b.watch(w, sb->loaded_revision(), false, false));
}

TEST_F(EtcdStorageTest, ValuesWrittenByOthersAreDecodedAndDamagedOnesSkipped) {
  Store s(1000);
  auto st = open(s);
  ASSERT_TRUE(st);
  auto c = client();
  ASSERT_TRUE(c);
  // Another writer (etcdctl, a second cluster version): JSON without a resourceVersion.
  auto w = c->put_if(prefix_ + "/nodes/foreign", R"({"kind":"Node","apiVersion":"v1","metadata":{"name":"foreign"}})", 0);
  ASSERT_TRUE(w && w->succeeded);
  auto bad = c->put_if(prefix_ + "/nodes/damaged", "not json", 0);
  ASSERT_TRUE(bad && bad->succeeded);
  ASSERT_TRUE(s.wait_for_revision(bad->revision, 20s));
  auto n = s.get(nodes(), "", "foreign");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->rv, w->revision);
  EXPECT_EQ(rv_of(n), std::to_string(w->revision));
  EXPECT_FALSE(s.get(nodes(), "", "damaged"));
  EXPECT_EQ(s.count(nodes()), 1u);
}

TEST_F(EtcdStorageTest, CompactionAnswersAnOlderWatchWithTheRevisionKept) {
  auto c = client();
  ASSERT_TRUE(c);
  auto first = c->put_if(prefix_ + "/k", "1", 0);
  ASSERT_TRUE(first && first->succeeded);
  auto second = c->put_if(prefix_ + "/k", "2", first->revision);
  ASSERT_TRUE(second && second->succeeded);
  ASSERT_TRUE(c->compact(second->revision));
  ASSERT_TRUE(c->compact(second->revision));  // again: not an error
  auto w = c->watch(prefix_ + "/", first->revision);
  ASSERT_TRUE(w);
  auto n = (*w)->next();
  EXPECT_EQ(n.status, etcd::Watch::Status::Compacted);
  EXPECT_EQ(n.compact_revision, second->revision);
  // From the kept revision on, the stream delivers.
  auto w2 = c->watch(prefix_ + "/", second->revision);
  ASSERT_TRUE(w2);
  auto m = (*w2)->next();
  ASSERT_EQ(m.status, etcd::Watch::Status::Batch);
  ASSERT_EQ(m.batch.events.size(), 1u);
  EXPECT_EQ(m.batch.events[0].kv.value, "2");
}

// --etcd-cafile/--etcd-certfile/--etcd-keyfile: etcd that serves only TLS clients with a
// certificate from its CA.
TEST(EtcdTls, TheStoreWorksOverMutualTlsAndAClientWithoutACertificateIsRefused) {
  if (!etcd::LocalEtcd::installed()) GTEST_SKIP() << "etcd is not installed";
  std::string dir = ::testing::TempDir() + "/etcd_tls_test." + std::to_string(::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto ca = tls::generate_ca("etcd-test-ca");
  ASSERT_TRUE(ca);
  auto pair = tls::generate_signed(*ca, "etcd", {"localhost"}, {"127.0.0.1"});
  ASSERT_TRUE(pair);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + "/" + name) << text;
    return dir + "/" + name;
  };
  etcd::LocalEtcd::Tls files{write("ca.crt", ca->cert_pem), write("etcd.crt", pair->cert_pem),
                             write("etcd.key", pair->key_pem)};
  auto e = etcd::LocalEtcd::start(dir, &files);
  ASSERT_TRUE(e) << (e ? "" : e.error());
  EXPECT_EQ((*e)->url().rfind("https://", 0), 0u);

  EtcdStorage::Options o;
  o.etcd.endpoints = {(*e)->url()};
  o.etcd.ca_file = files.ca_file;
  o.etcd.cert_file = files.cert_file;
  o.etcd.key_file = files.key_file;
  o.compaction_interval = 0ms;
  Store s(100);
  auto st = EtcdStorage::open(s, o);
  ASSERT_TRUE(st) << (st ? "" : st.error());
  auto p = pod("tls");
  ASSERT_EQ(s.put(pods(), p, 0).status, Store::CommitStatus::Ok);
  wait_answer(s);
  EXPECT_TRUE(s.get(pods(), "default", "tls"));

  // Trusting the CA is not enough: etcd asks for a client certificate.
  o.etcd.cert_file.clear();
  o.etcd.key_file.clear();
  o.etcd.request_timeout = 2s;
  Store other(100);
  auto refused = EtcdStorage::open(other, o);
  EXPECT_FALSE(refused);
  st->reset();
  e->reset();
  fs::remove_all(dir);
}

TEST_F(EtcdStorageTest, TwoServersCompactEtcdWithoutALeaseOneIntervalBehind) {
  auto o = options();
  o.compaction_interval = 100ms;
  Store a(1000), b(1000);
  auto sa = EtcdStorage::open(a, o);
  auto sb = EtcdStorage::open(b, o);
  ASSERT_TRUE(sa && sb);
  auto c = client();
  ASSERT_TRUE(c);
  auto p = pod("c");
  auto first = a.put(pods(), p, 0);
  ASSERT_EQ(first.status, Store::CommitStatus::Ok);
  wait_answer(a);
  // Every tick writes the compaction key, so etcd's revision moves on by itself; poll until a
  // watch from the pod's revision is told that history before it is gone.
  std::int64_t compacted = 0;
  auto deadline = std::chrono::steady_clock::now() + 20s;
  while (compacted == 0 && std::chrono::steady_clock::now() < deadline) {
    auto w = c->watch(prefix_ + "/", first.obj->rv);
    ASSERT_TRUE(w);
    auto n = (*w)->next();
    if (n.status == etcd::Watch::Status::Compacted) compacted = n.compact_revision;
  }
  ASSERT_GT(compacted, first.obj->rv);
  // The compaction key holds a revision one interval newer than what was compacted.
  auto key = c->get(prefix_ + "_compact_rev_key");
  ASSERT_TRUE(key);
  EXPECT_GE(key->version, 2);
  EXPECT_GE(std::stoll(key->value), compacted);
  // The servers go on serving and following etcd.
  auto q = pod("after");
  ASSERT_EQ(b.put(pods(), q, 0).status, Store::CommitStatus::Ok);
  wait_answer(b);
  a.sync_for_read();
  EXPECT_TRUE(a.get(pods(), "default", "after"));
}

TEST(EtcdClient, RejectsBadEndpointsWithTheFlagsName) {
  auto r = etcd::Client::connect(etcd::Options{{"127.0.0.1:2379"}, "", "", "", 1s});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("--etcd-servers"), std::string::npos);
  r = etcd::Client::connect(etcd::Options{{"http://127.0.0.1:1", "https://127.0.0.1:2"}, "", "", "", 1s});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("mixes"), std::string::npos);
  r = etcd::Client::connect(etcd::Options{{"http://127.0.0.1:1"}, "", "/nonexistent/cert", "", 1s});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("go together"), std::string::npos);
  EXPECT_EQ(etcd::prefix_end("/registry/"), "/registry0");
}

}  // namespace
}  // namespace ksched::apiserver
