// DurableLog: what the store held comes back after a restart (objects, their index data, pending
// graceful deletions, the revision), watchers see only durable changes, a torn tail is cut, damage
// before the tail refuses to start, snapshots let old segments go, and one directory has one user.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include "apiserver/storage/durable_log.h"
#include "apiserver/resources.h"
#include "apiserver/storage/storage.h"
#include "apiserver/storage/watch_hub.h"

namespace ksched::apiserver {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

int pods() { return find_resource("", "v1", "pods")->id; }
int nodes() { return find_resource("", "v1", "nodes")->id; }

json::object pod(const std::string& name, const std::string& node = "", const std::string& app = "a") {
  return json::object{
      {"kind", "Pod"},
      {"apiVersion", "v1"},
      {"metadata", json::object{{"name", name}, {"namespace", "default"}, {"labels", json::object{{"app", app}}}}},
      {"spec", json::object{{"nodeName", node}}}};
}

std::string fresh_dir(const std::string& name) {
  std::string d = ::testing::TempDir() + "/durable_log_" + name;
  fs::remove_all(d);
  return d;
}

std::unique_ptr<DurableLog> open_log(Store& s, const std::string& dir, std::size_t segment_bytes = 64 << 20) {
  auto l = DurableLog::open(s, DurableLog::Options{dir, segment_bytes});
  EXPECT_TRUE(l) << (l ? "" : l.error());
  return l ? std::move(*l) : nullptr;
}

// Blocks until `rv` is durable, through the same callback the HTTP layer uses.
void wait_durable(Store& s, std::int64_t rv) {
  std::promise<void> p;
  auto f = p.get_future();
  s.when_durable(rv, [&p] { p.set_value(); });
  ASSERT_EQ(f.wait_for(std::chrono::seconds(30)), std::future_status::ready);
}

std::int64_t create(Store& s, const std::string& name, const std::string& node = "", const std::string& app = "a") {
  auto o = pod(name, node, app);
  auto c = s.put(pods(), o, 0);
  EXPECT_EQ(c.status, Store::CommitStatus::Ok);
  return c.obj ? c.obj->rv : 0;
}

// A server's life on `dir`: n pods created, all durable, then shut down. Returns the last revision.
std::int64_t write_pods(const std::string& dir, const std::string& prefix, int n) {
  Store s(100);
  auto log = open_log(s, dir);
  if (!log) return 0;
  std::int64_t last = 0;
  for (int i = 0; i < n; ++i) last = create(s, prefix + std::to_string(i));
  wait_durable(s, last);
  return last;
}

std::string file_of(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind(prefix, 0) == 0) names.push_back(e.path().string());
  std::sort(names.begin(), names.end());
  return names.empty() ? "" : names.back();
}

// A log that holds everything until the test publishes it: what clients see in between.
class HeldLog : public CommitLog {
 public:
  void append(const Event& ev) override { appended.push_back(ev.rv); }
  void when_durable(std::int64_t rv, std::function<void()> fn) override { waiting.emplace_back(rv, std::move(fn)); }
  std::vector<std::int64_t> appended;
  std::vector<std::pair<std::int64_t, std::function<void()>>> waiting;
};

TEST(StoreWithALog, ClientsSeeNothingUntilItIsPublished) {
  Store s(100);
  HeldLog log;
  s.set_log(&log);
  std::int64_t a = create(s, "a");
  s.publish(a);
  auto w = std::make_shared<Watcher>(pods(), "", labels::Selector{}, fields::Selector{}, 100);
  ASSERT_TRUE(s.watch(w, a, false, false));

  // Unpublished: a changed, b created, c created and deleted.
  auto cur = s.get(pods(), "default", "a");
  auto changed = pod("a", "node-1");
  ASSERT_EQ(s.put(pods(), changed, cur->rv).status, Store::CommitStatus::Ok);
  std::int64_t b = create(s, "b");
  create(s, "c");
  ASSERT_EQ(s.remove(pods(), "default", "c", 0).status, Store::CommitStatus::Ok);
  std::int64_t last = Store::take_thread_commit();
  EXPECT_EQ(log.appended, (std::vector<std::int64_t>{a, a + 1, b, b + 1, last}));

  EXPECT_EQ(s.revision(), a);
  bool closed = false;
  EXPECT_TRUE(w->drain(closed).empty());
  EXPECT_EQ(s.get_published(pods(), "default", "a")->rv, a);  // clients: the published state
  EXPECT_NE(s.get(pods(), "default", "a")->rv, a);            // writes: the newest
  EXPECT_FALSE(s.get_published(pods(), "default", "b"));
  auto l = s.list(pods(), {});
  ASSERT_TRUE(l);
  EXPECT_EQ(l->rv, a);
  ASSERT_EQ(l->items.size(), 1u);
  EXPECT_EQ(l->items[0]->rv, a);
  auto fresh = std::make_shared<Watcher>(pods(), "", labels::Selector{}, fields::Selector{}, 100);
  ASSERT_TRUE(s.watch(fresh, 0, true, true));
  auto initial = fresh->drain(closed);
  ASSERT_EQ(initial.size(), 2u);  // a as published, then the initial-events-end bookmark at a
  EXPECT_EQ(initial[0].obj->rv, a);
  EXPECT_EQ(initial[1].rv, a);
  bool ran = false;
  s.when_durable(b, [&] { ran = true; });
  EXPECT_FALSE(ran);
  ASSERT_EQ(log.waiting.size(), 1u);
  EXPECT_EQ(log.waiting[0].first, b);

  // Published up to b: the change to a and b's create, in order; c still unseen.
  s.publish(b);
  EXPECT_EQ(s.revision(), b);
  auto items = w->drain(closed);
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].kind, WatchItem::Kind::Modified);
  EXPECT_EQ(items[1].kind, WatchItem::Kind::Added);
  EXPECT_EQ(items[1].rv, b);
  EXPECT_EQ(fresh->drain(closed).size(), 2u);
  EXPECT_FALSE(s.get_published(pods(), "default", "c"));
  s.when_durable(b, [&] { ran = true; });
  EXPECT_TRUE(ran);  // already durable: at once

  s.publish(last);
  items = w->drain(closed);
  ASSERT_EQ(items.size(), 2u);  // c added, c deleted
  EXPECT_EQ(items[1].kind, WatchItem::Kind::Deleted);
  EXPECT_EQ(s.list(pods(), {})->items.size(), 2u);
  s.set_log(nullptr);
}

TEST(DurableLog, RestartRecoversObjectsIndexDeletionsAndRevision) {
  std::string dir = fresh_dir("recover");
  std::int64_t last = 0;
  std::string bound_json;
  {
    Store s(1000);
    auto log = open_log(s, dir);
    ASSERT_TRUE(log);
    EXPECT_EQ(log->recovery().revision, 0);
    for (int i = 0; i < 50; ++i) create(s, "p" + std::to_string(i), "", i % 2 ? "odd" : "even");
    auto cur = s.get(pods(), "default", "p7");
    auto o = pod("p7", "node-1", "odd");
    ASSERT_EQ(s.put(pods(), o, cur->rv).status, Store::CommitStatus::Ok);
    ASSERT_EQ(s.remove(pods(), "default", "p8", 0).status, Store::CommitStatus::Ok);
    cur = s.get(pods(), "default", "p9");
    auto g = pod("p9", "", "odd");
    ASSERT_EQ(s.put(pods(), g, cur->rv, /*delete_deadline=*/12345).status, Store::CommitStatus::Ok);
    json::object node{{"kind", "Node"}, {"apiVersion", "v1"}, {"metadata", json::object{{"name", "node-1"}}}};
    last = s.put(nodes(), node, 0).obj->rv;
    bound_json = s.get(pods(), "default", "p7")->json;
    wait_durable(s, last);
    EXPECT_EQ(log->durable_revision(), last);
  }
  Store s(1000);
  auto log = open_log(s, dir);
  ASSERT_TRUE(log);
  EXPECT_EQ(log->recovery().revision, last);
  EXPECT_EQ(s.revision(), last);
  EXPECT_EQ(s.count(pods()), 49u);
  EXPECT_EQ(s.count(nodes()), 1u);
  EXPECT_FALSE(s.get(pods(), "default", "p8"));
  EXPECT_EQ(s.get(pods(), "default", "p7")->json, bound_json);
  // The index data is rebuilt: selectors work on recovered objects.
  auto sel = labels::Selector::parse("app=even");
  ASSERT_TRUE(sel);
  Store::ListOptions lo;
  lo.labels = &*sel;
  auto l = s.list(pods(), lo);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->items.size(), 24u);  // 25 even, p8 deleted
  auto expired = s.expired_deletions(pods(), 20000);
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0]->name, "p9");
  // History starts at the recovered revision: older watches relist, newer writes follow on.
  auto w = std::make_shared<Watcher>(pods(), "", labels::Selector{}, fields::Selector{}, 100);
  EXPECT_FALSE(s.watch(w, last - 1, false, false));
  EXPECT_TRUE(s.watch(w, last, false, false));
  EXPECT_EQ(create(s, "after"), last + 1);
}

TEST(DurableLog, WatchersAndListsSeeOnlyDurableChanges) {
  std::string dir = fresh_dir("visible");
  Store s(100000);
  auto log = open_log(s, dir);
  ASSERT_TRUE(log);
  auto w = std::make_shared<Watcher>(pods(), "", labels::Selector{}, fields::Selector{}, 100000);
  ASSERT_TRUE(s.watch(w, 0, false, false));
  std::thread writer([&] {
    for (int i = 0; i < 2000; ++i) create(s, "w" + std::to_string(i));
  });
  std::size_t seen = 0;
  std::int64_t prev = 0;
  while (seen < 2000) {
    bool closed = false;
    auto items = w->drain(closed);
    ASSERT_FALSE(closed);
    // Read after the drain: the log's durable revision only grows, so it must cover every item.
    std::int64_t durable = log->durable_revision();
    for (const auto& it : items) {
      EXPECT_LE(it.rv, durable);
      EXPECT_EQ(it.rv, prev + 1);
      prev = it.rv;
    }
    seen += items.size();
    auto l = s.list(pods(), {});
    ASSERT_TRUE(l);
    EXPECT_LE(l->rv, log->durable_revision());
    if (items.empty()) std::this_thread::yield();
  }
  writer.join();
  EXPECT_EQ(prev, 2000);  // every create seen once, in revision order
}

TEST(DurableLog, TornTailIsCutAndEverythingBeforeItSurvives) {
  std::string dir = fresh_dir("torn");
  std::int64_t last = write_pods(dir, "t", 10);
  ASSERT_EQ(last, 10);
  std::string seg = file_of(dir, "wal-");
  ASSERT_FALSE(seg.empty());
  auto size = fs::file_size(seg);
  // A crash in the middle of the last record's write: its frame is cut short.
  fs::resize_file(seg, size - 7);
  {
    Store s(100);
    auto log = open_log(s, dir);
    ASSERT_TRUE(log);
    EXPECT_GT(log->recovery().torn_bytes_cut, 0u);
    EXPECT_EQ(s.revision(), last - 1);
    EXPECT_EQ(s.count(pods()), 9u);
    EXPECT_FALSE(s.get(pods(), "default", "t9"));
    // Appends follow the good records: the next revision reuses the lost one, and it lasts.
    last = create(s, "t9-again");
    EXPECT_EQ(last, 10);
    wait_durable(s, last);
  }
  // Garbage after good records (a torn write of a later batch) is cut the same way.
  {
    std::ofstream(seg, std::ios::app | std::ios::binary) << std::string("\x40\x00\x00\x00garbage", 11);
  }
  Store s(100);
  auto log = open_log(s, dir);
  ASSERT_TRUE(log);
  EXPECT_EQ(log->recovery().torn_bytes_cut, 11u);
  EXPECT_EQ(s.revision(), 10);
  EXPECT_TRUE(s.get(pods(), "default", "t9-again"));
}

TEST(DurableLog, DamageBeforeTheLastSegmentRefusesToStart) {
  std::string dir = fresh_dir("damaged");
  std::int64_t last = write_pods(dir, "d", 10);
  ASSERT_EQ(last, 10);
  std::string seg = file_of(dir, "wal-");
  // A later (empty) segment follows, so the damage below is not a torn tail.
  {
    char name[64];
    std::snprintf(name, sizeof name, "/wal-%016llx.log", static_cast<unsigned long long>(last + 1));
    std::ofstream(dir + name, std::ios::binary) << "KSWAL001";
  }
  {
    std::fstream f(seg, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(40);
    f.put('\x7f');
  }
  Store s(100);
  auto log = DurableLog::open(s, DurableLog::Options{dir, 64 << 20});
  ASSERT_FALSE(log);
  EXPECT_NE(log.error().find("damaged"), std::string::npos) << log.error();
  EXPECT_NE(log.error().find("refusing"), std::string::npos) << log.error();
}

TEST(DurableLog, SnapshotsLetOldSegmentsGoAndRecoveryUsesThem) {
  std::string dir = fresh_dir("snapshot");
  std::int64_t last = 0;
  {
    Store s(100000);
    auto log = open_log(s, dir, 16 << 10);
    ASSERT_TRUE(log);
    for (int i = 0; i < 600; ++i) {
      last = create(s, "s" + std::to_string(i));
      if (i % 50 == 49) wait_durable(s, last);  // batches, so that segments fill and rotate
    }
    for (int i = 0; i < 600; i += 3) {
      ASSERT_EQ(s.remove(pods(), "default", "s" + std::to_string(i), 0).status, Store::CommitStatus::Ok);
      last = Store::take_thread_commit();  // the deletion's own revision
    }
    EXPECT_EQ(last, 800);
    wait_durable(s, last);
    // The snapshot thread works on its own; wait (bounded) for it to have made one.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (log->stats().snapshots == 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    ASSERT_GT(log->stats().snapshots, 0u);
  }
  EXPECT_FALSE(file_of(dir, "snap-").empty());
  std::size_t segments = 0;
  for (const auto& e : fs::directory_iterator(dir)) segments += e.path().filename().string().rfind("wal-", 0) == 0;
  EXPECT_LT(segments, 10u);  // 600 creates of ~200 bytes fill many 16 KiB segments; most are gone
  Store s(100);
  auto log = open_log(s, dir);
  ASSERT_TRUE(log);
  EXPECT_GT(log->recovery().snapshot_revision, 0);
  EXPECT_EQ(s.revision(), last);
  EXPECT_EQ(s.count(pods()), 400u);
  EXPECT_FALSE(s.get(pods(), "default", "s3"));
  EXPECT_TRUE(s.get(pods(), "default", "s4"));
}

TEST(DurableLog, OneDirectoryServesOneStore) {
  std::string dir = fresh_dir("lock");
  Store a(100), b(100);
  auto first = open_log(a, dir);
  ASSERT_TRUE(first);
  auto second = DurableLog::open(b, DurableLog::Options{dir, 64 << 20});
  ASSERT_FALSE(second);
  EXPECT_NE(second.error().find("in use by another server"), std::string::npos) << second.error();
  first.reset();
  EXPECT_TRUE(DurableLog::open(b, DurableLog::Options{dir, 64 << 20}));
}

}  // namespace
}  // namespace ksched::apiserver

namespace ksched::apiserver {
namespace {

// A resource served at several versions shares one key in the log (group/plural): a Workload
// written to its storage version's table (v1beta1; apiserver/conversion.h) comes back there, not
// in the v1alpha1 line's, which holds nothing.
TEST(DurableLog, AResourceServedAtTwoVersionsRecoversIntoItsStorageTable) {
  const int beta = find_resource("scheduling.k8s.io", "v1beta1", "workloads")->id;
  const int alpha = find_resource("scheduling.k8s.io", "v1alpha1", "workloads")->id;
  ASSERT_NE(beta, alpha);
  std::string dir = fresh_dir("versions");
  std::int64_t last = 0;
  {
    Store s(100);
    auto log = open_log(s, dir);
    ASSERT_TRUE(log);
    json::object w{{"kind", "Workload"},
                   {"apiVersion", "scheduling.k8s.io/v1beta1"},
                   {"metadata", json::object{{"name", "w"}, {"namespace", "default"}}},
                   {"spec", json::object{{"podGroupTemplates", json::array()}}}};
    last = s.put(beta, w, 0).obj->rv;
    wait_durable(s, last);
  }
  Store s(100);
  auto log = open_log(s, dir);
  ASSERT_TRUE(log);
  EXPECT_EQ(s.revision(), last);
  EXPECT_EQ(s.count(beta), 1u);
  EXPECT_EQ(s.count(alpha), 0u);
}

}  // namespace
}  // namespace ksched::apiserver
