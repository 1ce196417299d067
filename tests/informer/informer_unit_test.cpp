// Informer machinery without a network: Indexer, DeltaFIFO, Reflector and SharedIndexInformer over
// an in-memory list/watch source, and the work queues with a fake clock. Where behaviour depends on
// time passing (resync deadlines, watch durations) the informer runs on a FakeClock.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "informer/delta_fifo.h"
#include "informer/fake_api.h"
#include "informer/shared_informer.h"
#include "informer/store.h"
#include "informer/test_obj.h"
#include "informer/workqueue.h"
#include "util/clock.h"

using namespace ksched;
using namespace ksched::informer;
using ksched::testing::FakeApi;
using ksched::testing::obj;
using ksched::testing::TestObj;
using namespace std::chrono_literals;

namespace {

template <class Pred>
bool wait_until(Pred p, std::chrono::milliseconds timeout = 10s) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!p()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

std::vector<std::string> types(const Deltas<TestObj>& d) {
  std::vector<std::string> out;
  for (const auto& x : d) out.push_back(std::string(to_string(x.type)) + (x.final_state_unknown ? "(tombstone)" : ""));
  return out;
}

}  // namespace

TEST(Indexer, NamespaceAndCustomIndices) {
  Indexer<TestObj> idx;
  idx.add_indexers({{"node", [](const TestObj& o) { return std::vector<std::string>{o.node}; }}});
  idx.add(obj("a", "p1", "1", 0, "n1"));
  idx.add(obj("a", "p2", "2", 0, "n2"));
  idx.add(obj("b", "p3", "3", 0, "n1"));
  EXPECT_EQ(idx.size(), 3u);
  EXPECT_EQ(idx.by_index(kNamespaceIndex, "a").size(), 2u);
  EXPECT_EQ(idx.by_index("node", "n1").size(), 2u);
  idx.update(obj("b", "p3", "4", 0, "n2"));  // moves between index values
  EXPECT_EQ(idx.by_index("node", "n1").size(), 1u);
  EXPECT_EQ(idx.by_index("node", "n2").size(), 2u);
  idx.remove("a/p2");
  EXPECT_EQ(idx.by_index("node", "n2").size(), 1u);
  EXPECT_EQ(idx.get_by_key("b/p3")->metadata.resourceVersion, "4");
  EXPECT_EQ(idx.get_by_key("a/p2"), nullptr);
  idx.replace({obj("c", "x", "9", 0, "n3")});
  EXPECT_EQ(idx.size(), 1u);
  EXPECT_TRUE(idx.by_index("node", "n1").empty());
  EXPECT_EQ(idx.index_keys("node", "n3"), std::vector<std::string>{"c/x"});
  EXPECT_THROW(idx.by_index("nope", "x"), std::invalid_argument);
  Lister<TestObj> lister(std::make_shared<Indexer<TestObj>>());
  EXPECT_TRUE(lister.list().empty());
}

// The indices hold the addresses of the store's entries: they must stay right through rehashing,
// removals, re-adds and index moves (ASan would also catch a dangling entry).
TEST(Indexer, IndexKeysSurviveChurn) {
  Indexer<TestObj> idx;
  idx.add_indexers({{"node", [](const TestObj& o) { return std::vector<std::string>{o.node}; }}});
  std::map<std::string, std::set<std::string>> want;  // node -> keys
  std::map<std::string, std::string> node_of;        // key -> node
  auto put = [&](int i, const std::string& node) {
    std::string name = "pod-with-a-long-name-" + std::to_string(i);
    std::string key = "ns/" + name;
    if (auto it = node_of.find(key); it != node_of.end()) want[it->second].erase(key);
    idx.update(obj("ns", name, std::to_string(i), 0, node));
    want[node].insert(key);
    node_of[key] = node;
  };
  for (int i = 0; i < 2000; ++i) put(i, "n" + std::to_string(i % 7));
  for (int i = 0; i < 2000; i += 2) {
    idx.remove("ns/pod-with-a-long-name-" + std::to_string(i));
    want[node_of["ns/pod-with-a-long-name-" + std::to_string(i)]].erase("ns/pod-with-a-long-name-" + std::to_string(i));
    node_of.erase("ns/pod-with-a-long-name-" + std::to_string(i));
  }
  for (int i = 1; i < 2000; i += 3) put(i, "m" + std::to_string(i % 5));  // moves between values
  for (int i = 0; i < 2000; i += 4) put(i, "n" + std::to_string(i % 3));  // re-adds
  std::size_t total = 0;
  for (const auto& [node, keys] : want) {
    auto got = idx.index_keys("node", node);
    EXPECT_EQ(std::set<std::string>(got.begin(), got.end()), keys) << node;
    total += keys.size();
  }
  EXPECT_EQ(idx.size(), total);
  EXPECT_EQ(idx.by_index(kNamespaceIndex, "ns").size(), total);
}

// The store keeps no key of its own: "ns/name" and cluster-scoped "name" are read from the
// objects, so lookups by key, listing keys and tombstone keys must agree with meta_namespace_key.
TEST(Indexer, KeysComeFromTheObjectsMetadata) {
  Indexer<TestObj> idx;
  idx.add(obj("", "node-a", "1"));       // cluster-scoped
  idx.add(obj("ns", "node-a", "2"));     // same name, namespaced: another object
  idx.add(obj("ns2", "p", "3"));
  EXPECT_EQ(idx.size(), 3u);
  EXPECT_EQ(idx.get_by_key("node-a")->metadata.resourceVersion, "1");
  EXPECT_EQ(idx.get_by_key("ns/node-a")->metadata.resourceVersion, "2");
  for (const char* missing : {"", "/", "ns/", "/node-a", "ns/node-a/x", "ns2", "p", "ns2/p/"})
    EXPECT_EQ(idx.get_by_key(missing), nullptr) << missing;
  auto keys = idx.list_keys();
  EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()), (std::set<std::string>{"node-a", "ns/node-a", "ns2/p"}));
  idx.update(obj("ns", "node-a", "4"));
  EXPECT_EQ(idx.size(), 3u);
  EXPECT_EQ(idx.get_by_key("ns/node-a")->metadata.resourceVersion, "4");
  EXPECT_EQ(idx.index_keys(kNamespaceIndex, "ns"), std::vector<std::string>{"ns/node-a"});
  EXPECT_EQ(idx.index_keys(kNamespaceIndex, ""), std::vector<std::string>{"node-a"});
  idx.remove("node-a");
  EXPECT_EQ(idx.get_by_key("node-a"), nullptr);
  EXPECT_NE(idx.get_by_key("ns/node-a"), nullptr);
  EXPECT_TRUE(idx.by_index(kNamespaceIndex, "").empty());
  idx.remove("ns/absent");  // unknown keys are ignored
  EXPECT_EQ(idx.size(), 2u);
}

// add_or_replace hands back the object it replaced (the informer's old object for OnUpdate), and
// replace() with a repeated key keeps the last one, as a map would.
TEST(Indexer, AddOrReplaceReturnsThePreviousObject) {
  Indexer<TestObj> idx;
  auto first = obj("a", "p", "1"), second = obj("a", "p", "2");
  EXPECT_EQ(idx.add_or_replace(first), nullptr);
  EXPECT_EQ(idx.add_or_replace(second), first);
  EXPECT_EQ(idx.get_by_key("a/p"), second);
  idx.replace({obj("b", "q", "1"), obj("b", "q", "7"), obj("b", "r", "1")});
  EXPECT_EQ(idx.size(), 2u);
  EXPECT_EQ(idx.get_by_key("b/q")->metadata.resourceVersion, "7");
  EXPECT_EQ(idx.by_index(kNamespaceIndex, "b").size(), 2u);
  EXPECT_TRUE(idx.by_index(kNamespaceIndex, "a").empty());
}

TEST(Indexer, SharedObjectsAreNotCopied) {
  auto idx = std::make_shared<Indexer<TestObj>>();
  auto o = obj("a", "p", "1");
  idx->add(o);
  Lister<TestObj> lister(idx);
  EXPECT_EQ(lister.get("a", "p").get(), o.get());
  EXPECT_EQ(lister.list_namespace("a").size(), 1u);
}

TEST(DeltaFIFO, AccumulatesDeltasPerKeyInOrder) {
  DeltaFIFO<TestObj> f;
  f.add(obj("ns", "a", "1"));
  f.add(obj("ns", "b", "2"));
  f.update(obj("ns", "a", "3"));
  f.remove(obj("ns", "a", "4"));
  EXPECT_EQ(f.list_keys(), (std::vector<std::string>{"ns/a", "ns/b"}));
  std::vector<std::pair<std::string, std::vector<std::string>>> got;
  auto collect = [&](const std::string& k, const Deltas<TestObj>& d, bool) {
    got.push_back({k, types(d)});
    return true;
  };
  ASSERT_TRUE(f.pop(collect));
  ASSERT_TRUE(f.pop(collect));
  EXPECT_EQ(got[0].first, "ns/a");
  EXPECT_EQ(got[0].second, (std::vector<std::string>{"Added", "Updated", "Deleted"}));
  EXPECT_EQ(got[1].second, (std::vector<std::string>{"Added"}));
}

TEST(DeltaFIFO, ConsecutiveDeletesCollapse) {
  Indexer<TestObj> known;
  known.add(obj("ns", "a", "1"));
  DeltaFIFO<TestObj> f(&known);
  f.remove(obj("ns", "a", "2"));
  f.remove(obj("ns", "a", "3"));
  auto d = f.get_by_key("ns/a");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].obj->metadata.resourceVersion, "2");
  // A tombstone followed by a real deletion: the real one wins.
  DeltaFIFO<TestObj> g(&known);
  g.replace({});  // known ns/a missing from the list -> tombstone
  g.remove(obj("ns", "a", "5"));
  auto e = g.get_by_key("ns/a");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_FALSE(e[0].final_state_unknown);
  EXPECT_EQ(e[0].obj->metadata.resourceVersion, "5");
}

TEST(DeltaFIFO, DeleteOfUnknownKeyIsANoop) {
  Indexer<TestObj> known;
  DeltaFIFO<TestObj> f(&known);
  f.remove(obj("ns", "ghost", "1"));
  EXPECT_EQ(f.size(), 0u);
}

TEST(DeltaFIFO, ReplaceEmitsReplacedAndTombstonesAndTracksInitialPopulation) {
  Indexer<TestObj> known;
  known.add(obj("ns", "old", "1"));
  known.add(obj("ns", "kept", "2"));
  DeltaFIFO<TestObj> f(&known);
  EXPECT_FALSE(f.has_synced());
  f.replace({obj("ns", "kept", "2"), obj("ns", "new", "3")});
  EXPECT_EQ(types(f.get_by_key("ns/kept")), (std::vector<std::string>{"Replaced"}));
  EXPECT_EQ(types(f.get_by_key("ns/new")), (std::vector<std::string>{"Replaced"}));
  auto tomb = f.get_by_key("ns/old");
  EXPECT_EQ(types(tomb), (std::vector<std::string>{"Deleted(tombstone)"}));
  EXPECT_EQ(tomb[0].obj->metadata.resourceVersion, "1");  // last known state
  int initial = 0;
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(f.has_synced());
    ASSERT_TRUE(f.pop([&](const std::string&, const Deltas<TestObj>&, bool in_initial) {
      initial += in_initial;
      return true;
    }));
  }
  EXPECT_EQ(initial, 3);
  EXPECT_TRUE(f.has_synced());
}

TEST(DeltaFIFO, ReplaceTombstonesQueuedButUnlistedObjects) {
  Indexer<TestObj> known;
  DeltaFIFO<TestObj> f(&known);
  f.add(obj("ns", "transient", "1"));  // queued, never reached the cache
  f.replace({});
  EXPECT_EQ(types(f.get_by_key("ns/transient")), (std::vector<std::string>{"Added", "Deleted(tombstone)"}));
}

TEST(DeltaFIFO, PopRequeuesOnFailureAndCloseUnblocks) {
  DeltaFIFO<TestObj> f;
  f.add(obj("ns", "a", "1"));
  ASSERT_TRUE(f.pop([](const std::string&, const Deltas<TestObj>&, bool) { return false; }));
  EXPECT_EQ(f.size(), 1u);
  std::thread t([&] { f.close(); });
  int calls = 0;
  ASSERT_TRUE(f.pop([&](const std::string&, const Deltas<TestObj>&, bool) { return ++calls, true; }));
  EXPECT_FALSE(f.pop([&](const std::string&, const Deltas<TestObj>&, bool) { return ++calls, true; }));
  t.join();
  EXPECT_EQ(calls, 1);
}

// The inline consumer (what SharedIndexInformer runs, in place of client-go's processLoop
// goroutine): each producer call has processed everything queued by the time it returns, on the
// producer's thread, with the initial-list accounting pop() keeps.
TEST(DeltaFIFO, InlineConsumerProcessesOnTheProducersThreadBeforeTheCallReturns) {
  Indexer<TestObj> known;
  DeltaFIFO<TestObj> f(&known);
  // The first list, queued before a consumer exists: processed when it is set.
  f.replace({obj("ns", "early", "1"), obj("ns", "listed", "1")});
  EXPECT_FALSE(f.has_synced());
  std::vector<std::string> seen;
  std::vector<std::thread::id> threads;
  int initial = 0;
  f.set_consumer([&](const std::string& key, const Deltas<TestObj>& d, bool in_initial) {
    seen.push_back(key + ":" + types(d).back());
    threads.push_back(std::this_thread::get_id());
    initial += in_initial;
    known.add(d.back().obj);
    return true;
  });
  EXPECT_EQ(initial, 2);
  EXPECT_TRUE(f.has_synced());
  EXPECT_EQ(f.size(), 0u);
  f.add(obj("ns", "new", "2"));
  EXPECT_EQ(seen.back(), "ns/new:Added");  // before add returned
  f.update(obj("ns", "listed", "3"));
  f.remove(obj("ns", "early", "3"));
  EXPECT_EQ(seen, (std::vector<std::string>{"ns/early:Replaced", "ns/listed:Replaced", "ns/new:Added",
                                            "ns/listed:Updated", "ns/early:Deleted"}));
  EXPECT_EQ(initial, 2);
  for (const auto& t : threads) EXPECT_EQ(t, std::this_thread::get_id());
  EXPECT_EQ(f.size(), 0u);
}

// A consumer asking for a requeue is not retried at once (that would spin in the producer's
// call): the item waits for the next producer call, in order behind what was queued first.
TEST(DeltaFIFO, InlineConsumerRequeueWaitsForTheNextProducerCall) {
  DeltaFIFO<TestObj> f;
  int calls = 0;
  bool fail = true;
  f.set_consumer([&](const std::string&, const Deltas<TestObj>&, bool) {
    ++calls;
    return !fail;
  });
  f.add(obj("ns", "a", "1"));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(f.size(), 1u);  // requeued
  fail = false;
  f.add(obj("ns", "b", "1"));
  EXPECT_EQ(calls, 3);  // a again, then b
  EXPECT_EQ(f.size(), 0u);
  f.close();
  f.add(obj("ns", "c", "1"));  // closed: queued, no longer consumed
  EXPECT_EQ(calls, 3);
}

TEST(DeltaFIFO, ResyncSkipsKeysWithPendingDeltas) {
  Indexer<TestObj> known;
  known.add(obj("ns", "a", "1"));
  known.add(obj("ns", "b", "1"));
  DeltaFIFO<TestObj> f(&known);
  f.update(obj("ns", "a", "2"));
  f.resync();
  EXPECT_EQ(types(f.get_by_key("ns/a")), (std::vector<std::string>{"Updated"}));
  EXPECT_EQ(types(f.get_by_key("ns/b")), (std::vector<std::string>{"Sync"}));
}

namespace {

// Records handler calls per object: "add(rv)", "update(rv->rv)", "delete(rv)".
struct Recorder : ResourceEventHandler<TestObj> {
  std::mutex mu;
  std::map<std::string, std::vector<std::string>> per_key;
  std::map<std::string, std::string> live;  // key -> rv, as the handler sees the world
  int initial_adds = 0, tombstones = 0;
  void OnAdd(const Ptr<TestObj>& o, bool initial) override {
    std::lock_guard l(mu);
    auto k = meta_namespace_key(*o);
    per_key[k].push_back("add(" + o->metadata.resourceVersion + ")");
    live[k] = o->metadata.resourceVersion;
    initial_adds += initial;
  }
  void OnUpdate(const Ptr<TestObj>& a, const Ptr<TestObj>& b) override {
    std::lock_guard l(mu);
    auto k = meta_namespace_key(*b);
    per_key[k].push_back("update(" + a->metadata.resourceVersion + "->" + b->metadata.resourceVersion + ")");
    live[k] = b->metadata.resourceVersion;
  }
  void OnDelete(const Deleted<TestObj>& d) override {
    std::lock_guard l(mu);
    per_key[d.key].push_back("delete(" + d.obj->metadata.resourceVersion + ")");
    live.erase(d.key);
    tombstones += d.final_state_unknown;
  }
  std::map<std::string, std::string> snapshot() {
    std::lock_guard l(mu);
    return live;
  }
};

std::map<std::string, std::string> rvs(const std::map<std::string, TestObj>& s) {
  std::map<std::string, std::string> out;
  for (auto& [k, v] : s) out[k] = v.metadata.resourceVersion;
  return out;
}

std::map<std::string, std::string> rvs(const Lister<TestObj>& l) {
  std::map<std::string, std::string> out;
  for (auto& o : l.list()) out[meta_namespace_key(*o)] = o->metadata.resourceVersion;
  return out;
}

InformerOptions<TestObj> fast_options(std::int64_t page = 2) {
  InformerOptions<TestObj> o;
  o.name = "testobjs";
  o.reflector.page_size = page;
  o.reflector.initial_backoff = 5ms;
  o.reflector.max_backoff = 50ms;
  return o;
}

TestObj make(std::string ns, std::string name, int value) {
  TestObj o;
  o.metadata.namespace_ = std::move(ns);
  o.metadata.name = std::move(name);
  o.value = value;
  return o;
}

}  // namespace

TEST(SharedIndexInformer, PaginatedListThenWatchInOrder) {
  FakeApi api;
  for (int i = 0; i < 5; ++i) api.apply("ADDED", make("ns", "p" + std::to_string(i), i));
  SharedIndexInformer<TestObj> inf(api.list_watch(), fast_options(2));
  auto rec = std::make_shared<Recorder>();
  auto reg = inf.add_event_handler(rec);
  inf.start();
  ASSERT_TRUE(wait_until([&] { return reg->has_synced(); }));
  EXPECT_GE(api.lists(), 3);  // 5 items in pages of 2
  EXPECT_EQ(rec->initial_adds, 5);
  ASSERT_TRUE(wait_until([&] { return api.open_watches() == 1; }));
  api.apply("MODIFIED", make("ns", "p1", 10));
  api.apply("MODIFIED", make("ns", "p1", 11));
  api.apply("DELETED", make("ns", "p1", 11));
  api.apply("ADDED", make("ns", "p9", 9));
  ASSERT_TRUE(wait_until([&] { return rec->snapshot() == rvs(api.state()); }));
  EXPECT_EQ(rvs(inf.lister()), rvs(api.state()));
  std::lock_guard l(rec->mu);
  EXPECT_EQ(rec->per_key["ns/p1"], (std::vector<std::string>{"add(102)", "update(102->106)", "update(106->107)",
                                                              "delete(108)"}));
}

TEST(SharedIndexInformer, ExpiredWatchRelistsWithReplacedAndTombstones) {
  FakeApi api;
  for (int i = 0; i < 4; ++i) api.apply("ADDED", make("ns", "p" + std::to_string(i), i));
  SharedIndexInformer<TestObj> inf(api.list_watch(), fast_options(3));
  auto rec = std::make_shared<Recorder>();
  inf.add_event_handler(rec);
  inf.start();
  ASSERT_TRUE(wait_until([&] { return inf.has_synced() && api.open_watches() == 1; }));
  // Changes the informer misses: the watch is cut, and its relist waits until they are made and
  // history is compacted.
  api.hold_lists(true);
  api.compact_and_expire();
  api.apply("DELETED", make("ns", "p0", 0));
  api.apply("MODIFIED", make("ns", "p1", 50));
  api.apply("ADDED", make("ns", "p7", 7));
  api.compact_and_expire();
  api.hold_lists(false);
  ASSERT_TRUE(wait_until([&] { return rec->snapshot() == rvs(api.state()) && rvs(inf.lister()) == rvs(api.state()); }));
  EXPECT_GE(inf.reflector_stats().relists_expired.load(), 1u);
  std::lock_guard l(rec->mu);
  EXPECT_EQ(rec->tombstones, 1);
  EXPECT_EQ(rec->per_key["ns/p0"].back(), "delete(101)");  // tombstone carries the last known state
  EXPECT_EQ(rec->per_key["ns/p2"].size(), 1u);  // unchanged objects: Replaced with same RV is not an update
}

TEST(SharedIndexInformer, ListFailuresBackOffAndRecover) {
  FakeApi api;
  api.apply("ADDED", make("ns", "a", 1));
  api.fail_next_lists(3);
  SharedIndexInformer<TestObj> inf(api.list_watch(), fast_options());
  inf.start();
  ASSERT_TRUE(wait_until([&] { return inf.has_synced(); }));
  EXPECT_EQ(inf.reflector_stats().errors.load(), 3u);
  EXPECT_EQ(inf.lister().list().size(), 1u);
}

TEST(SharedIndexInformer, CleanWatchEndRewatchesWithoutRelist) {
  FakeApi api;
  api.apply("ADDED", make("ns", "a", 1));
  SharedIndexInformer<TestObj> inf(api.list_watch(), fast_options());
  inf.start();
  ASSERT_TRUE(wait_until([&] { return inf.has_synced() && api.open_watches() == 1; }));
  int lists = api.lists();
  api.apply("MODIFIED", make("ns", "a", 2));
  ASSERT_TRUE(wait_until([&] { return inf.lister().get("ns", "a")->value == 2; }));
  api.close_watches();
  ASSERT_TRUE(wait_until([&] { return api.open_watches() == 1; }));
  api.apply("MODIFIED", make("ns", "a", 3));
  ASSERT_TRUE(wait_until([&] { return inf.lister().get("ns", "a")->value == 3; }));
  EXPECT_EQ(api.lists(), lists);
}

TEST(SharedIndexInformer, LateHandlerGetsSyntheticInitialAddsAndCanBeRemoved) {
  FakeApi api;
  for (int i = 0; i < 3; ++i) api.apply("ADDED", make("ns", "p" + std::to_string(i), i));
  SharedIndexInformer<TestObj> inf(api.list_watch(), fast_options());
  inf.start();
  ASSERT_TRUE(wait_until([&] { return inf.has_synced(); }));
  auto late = std::make_shared<Recorder>();
  auto reg = inf.add_event_handler(late);
  ASSERT_TRUE(wait_until([&] { return reg->has_synced(); }));
  EXPECT_EQ(late->initial_adds, 3);
  inf.remove_event_handler(reg);
  ASSERT_TRUE(wait_until([&] { return api.open_watches() == 1; }));
  api.apply("ADDED", make("ns", "after", 1));
  ASSERT_TRUE(wait_until([&] { return inf.lister().get("ns", "after") != nullptr; }));
  std::lock_guard l(late->mu);
  EXPECT_EQ(late->per_key.count("ns/after"), 0u);
}

// Stopping one listener from several threads at once (the informer's stop racing a
// remove_event_handler) joins its thread once; a handler may also remove its own registration while
// another thread stops it. Each round would join one std::thread twice without the listener's own
// join lock (a crash or std::system_error, and a TSan report).
TEST(ProcessorListener, ConcurrentStopsJoinOnceAndAHandlerMayStopItself) {
  for (int round = 0; round < 200; ++round) {
    // Shared with the handler thread, which a self-stop detaches and may outlive this round.
    struct Seen {
      std::shared_ptr<ProcessorListener<TestObj>> listener;
      std::atomic<bool> in_handler{false}, self_stopped{false};
    };
    auto seen = std::make_shared<Seen>();
    auto h = std::make_shared<ResourceEventHandlerFuncs<TestObj>>();
    h->add = [seen](const Ptr<TestObj>&, bool) {
      seen->in_handler = true;
      seen->listener->stop();  // from the handler thread: must neither deadlock nor join itself
      seen->self_stopped = true;
    };
    auto l = std::make_shared<ProcessorListener<TestObj>>(h, std::chrono::milliseconds(0));
    seen->listener = l;
    l->start();
    if (round % 2 == 0) {
      l->add(Notification<TestObj>{Notification<TestObj>::Add, nullptr,
                                   std::make_shared<const TestObj>(make("ns", "a", 1)), false});
      ASSERT_TRUE(wait_until([&] { return seen->in_handler.load(); }));
    }
    std::thread a([&] { l->stop(); });
    std::thread b([&] { l->stop(); });
    a.join();
    b.join();
    if (round % 2 == 0) {
      ASSERT_TRUE(wait_until([&] { return seen->self_stopped.load(); }));
    }
    seen->listener.reset();  // the cycle seen -> listener -> handler -> seen
  }
}

TEST(SharedIndexInformer, SlowHandlerDoesNotBlockOthers) {
  FakeApi api;
  SharedIndexInformer<TestObj> inf(api.list_watch(), fast_options());
  std::mutex gate;
  gate.lock();
  auto slow = std::make_shared<ResourceEventHandlerFuncs<TestObj>>();
  slow->add = [&](const Ptr<TestObj>&, bool) { std::lock_guard l(gate); };
  auto fast = std::make_shared<Recorder>();
  inf.add_event_handler(slow);
  inf.add_event_handler(fast);
  inf.start();
  ASSERT_TRUE(wait_until([&] { return inf.has_synced() && api.open_watches() == 1; }));
  for (int i = 0; i < 200; ++i) api.apply("ADDED", make("ns", "p" + std::to_string(i), i));
  ASSERT_TRUE(wait_until([&] { return fast->snapshot().size() == 200; }));
  gate.unlock();
}

// Listener resyncs fall due by the informer's clock: with a resync check every hour, a 1 h listener
// gets its Sync updates once the clock passes 1 h, a 2 h listener not until 2 h.
TEST(SharedIndexInformer, ListenerResyncsAreDueByTheClock) {
  FakeApi api;
  api.apply("ADDED", make("ns", "a", 1));
  util::FakeClock clock;
  auto o = fast_options();
  o.clock = &clock;
  o.default_resync = 1h;  // also the reflector's resync check period
  SharedIndexInformer<TestObj> inf(api.list_watch(), o);
  auto hourly = std::make_shared<Recorder>(), two_hourly = std::make_shared<Recorder>();
  auto r1 = inf.add_event_handler(hourly);
  auto r2 = inf.add_event_handler(two_hourly, 2h);
  inf.start();
  ASSERT_TRUE(wait_until([&] { return r1->has_synced() && r2->has_synced(); }));
  auto seen = [](Recorder& r, const std::string& key) {
    std::lock_guard l(r.mu);
    return r.per_key[key];
  };
  using Calls = std::vector<std::string>;
  clock.step(1h);
  ASSERT_TRUE(wait_until([&] { return seen(*hourly, "ns/a") == Calls{"add(101)", "update(101->101)"}; }));
  // Had the 2 h listener been due in that resync, its Sync update would reach it before a change made
  // now: the FIFO and each listener keep their order.
  api.apply("ADDED", make("ns", "marker", 1));
  ASSERT_TRUE(wait_until([&] { return !seen(*two_hourly, "ns/marker").empty(); }));
  EXPECT_EQ(seen(*two_hourly, "ns/a"), Calls{"add(101)"});
  clock.step(1h);
  ASSERT_TRUE(wait_until([&] { return seen(*two_hourly, "ns/a").size() == 2; }));
  EXPECT_EQ(seen(*two_hourly, "ns/a"), (Calls{"add(101)", "update(101->101)"}));
  EXPECT_TRUE(wait_until([&] {
    return seen(*hourly, "ns/a") == Calls{"add(101)", "update(101->101)", "update(101->101)"};
  }));
}

namespace {

// A list/watch source whose watches end cleanly, with no events, when the test releases them. A
// watch counts as being read once the reflector blocks reading it, by which time it has noted when
// the watch began.
class HeldWatches {
 public:
  ListWatch list_watch() {
    ListWatch lw;
    lw.list = [this](const client::ListOptions&) -> client::Result<std::string> {
      ++lists_;
      return ksched::testing::list_body({}, "5");
    };
    lw.watch = [this](const client::ListOptions&) -> client::Result<std::unique_ptr<client::WatchStream>> {
      return std::make_unique<client::WatchStream>(std::make_unique<Stream>(*this));
    };
    return lw;
  }
  // Waits until the reflector is reading its n-th watch.
  bool wait_reading(int n) {
    std::unique_lock l(mu_);
    return cv_.wait_for(l, 10s, [&] { return reading_ >= n; });
  }
  // Ends the watch being read.
  void release() {
    std::lock_guard l(mu_);
    ++released_;
    cv_.notify_all();
  }
  int lists() const { return lists_.load(); }

 private:
  class Stream final : public client::ResponseStream {
   public:
    explicit Stream(HeldWatches& w) : w_(w) {}
    int status() const override { return 200; }
    std::string header(std::string_view) const override { return {}; }
    bool read(std::string&) override {
      std::unique_lock l(w_.mu_);
      int n = ++w_.reading_;
      w_.cv_.notify_all();
      w_.cv_.wait(l, [&] { return stopped_ || w_.released_ >= n; });
      return false;
    }
    void stop() override {
      std::lock_guard l(w_.mu_);
      stopped_ = true;
      w_.cv_.notify_all();
    }
    bool stopped() const override {
      std::lock_guard l(w_.mu_);
      return stopped_;
    }
    std::string error() const override { return {}; }

   private:
    HeldWatches& w_;
    bool stopped_ = false;
  };

  mutable std::mutex mu_;
  std::condition_variable cv_;
  int reading_ = 0, released_ = 0;
  std::atomic<int> lists_{0};
};

// Runs a reflector on its own thread until the end of the scope.
struct RunningReflector {
  Reflector<TestObj>& r;
  std::thread t{[this] { r.run(); }};
  ~RunningReflector() {
    r.stop();
    t.join();
  }
};

}  // namespace

// A watch that ends with no events is an unexpected close (error, backoff, relist) if it lasted under a
// second, and a normal end (re-watch from the last resourceVersion) otherwise, as the clock measures.
TEST(Reflector, WatchDurationIsMeasuredOnTheClock) {
  HeldWatches api;
  util::FakeClock clock;
  DeltaFIFO<TestObj> fifo;
  ReflectorOptions o;
  o.initial_backoff = o.max_backoff = 1ms;
  o.clock = &clock;
  Reflector<TestObj> r(api.list_watch(), fifo, o);
  RunningReflector running{r};
  ASSERT_TRUE(api.wait_reading(1));
  EXPECT_EQ(api.lists(), 1);
  api.release();  // no time passed on the clock
  ASSERT_TRUE(api.wait_reading(2));
  EXPECT_EQ(r.stats().errors.load(), 1u);
  EXPECT_EQ(api.lists(), 2);
  clock.step(999ms);
  api.release();
  ASSERT_TRUE(api.wait_reading(3));
  EXPECT_EQ(r.stats().errors.load(), 2u);
  EXPECT_EQ(api.lists(), 3);
  clock.step(1s);
  api.release();
  ASSERT_TRUE(api.wait_reading(4));
  EXPECT_EQ(r.stats().errors.load(), 2u);
  EXPECT_EQ(api.lists(), 3);
  EXPECT_EQ(r.stats().watches.load(), 4u);
}

TEST(FilteringHandler, UpdatesCrossingTheFilterBecomeAddsAndDeletes) {
  auto rec = std::make_shared<Recorder>();
  FilteringResourceEventHandler<TestObj> h([](const TestObj& o) { return !o.node.empty(); }, rec);
  auto unbound = obj("ns", "p", "1");
  auto bound = obj("ns", "p", "2", 0, "n1");
  h.OnAdd(unbound, true);
  h.OnUpdate(unbound, bound);
  h.OnUpdate(bound, obj("ns", "p", "3", 0, "n1"));
  h.OnUpdate(obj("ns", "p", "3", 0, "n1"), obj("ns", "p", "4"));
  EXPECT_EQ(rec->per_key["ns/p"], (std::vector<std::string>{"add(2)", "update(2->3)", "delete(3)"}));
}

TEST(WorkQueue, DedupsAndNeverHandsOutAnItemTwiceConcurrently) {
  WorkQueue<std::string> q;
  q.add("a");
  q.add("a");
  q.add("b");
  EXPECT_EQ(q.len(), 2u);
  auto a = q.get();
  ASSERT_TRUE(a);
  EXPECT_EQ(*a, "a");
  q.add("a");  // while processing: becomes dirty, not queued
  EXPECT_EQ(q.len(), 1u);
  EXPECT_EQ(*q.get(), "b");
  q.done("a");  // re-queued now
  EXPECT_EQ(q.len(), 1u);
  EXPECT_EQ(*q.get(), "a");
  q.shut_down();
  EXPECT_FALSE(q.get());
}

TEST(WorkQueue, DelayingQueueUsesTheClock) {
  util::FakeClock clock;
  DelayingQueue<std::string> q(clock);
  q.add_after("later", 10s);
  q.add_after("sooner", 1s);
  q.add_after("later", 20s);  // the earlier deadline is kept
  EXPECT_EQ(q.waiting(), 2u);
  EXPECT_EQ(q.len(), 0u);
  clock.step(1s);
  EXPECT_EQ(*q.get(), "sooner");
  EXPECT_EQ(q.len(), 0u);
  clock.step(9s);
  EXPECT_EQ(*q.get(), "later");
}

TEST(WorkQueue, RateLimiters) {
  ItemExponentialFailureRateLimiter<std::string> exp(5ms, 1s);
  EXPECT_EQ(exp.when("x"), 5ms);
  EXPECT_EQ(exp.when("x"), 10ms);
  EXPECT_EQ(exp.when("x"), 20ms);
  EXPECT_EQ(exp.num_requeues("x"), 3);
  for (int i = 0; i < 20; ++i) (void)exp.when("x");
  EXPECT_EQ(exp.when("x"), 1s);
  exp.forget("x");
  EXPECT_EQ(exp.when("x"), 5ms);

  util::FakeClock clock;
  auto rl = default_controller_rate_limiter<std::string>(clock);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(rl->when("k" + std::to_string(i)), 5ms);
  EXPECT_EQ(rl->when("overflow"), 100ms);  // bucket of 100 exhausted at 10 qps

  RateLimitingQueue<std::string> q(std::make_unique<ItemExponentialFailureRateLimiter<std::string>>(1s, 60s), clock);
  q.add_rate_limited("item");
  EXPECT_EQ(q.len(), 0u);
  clock.step(1s);
  EXPECT_EQ(*q.get(), "item");
  q.done("item");
  EXPECT_EQ(q.num_requeues("item"), 1);
  q.forget("item");
  EXPECT_EQ(q.num_requeues("item"), 0);
}

TEST(SharedIndexInformer, HandlerMayRemoveItselfFromACallback) {
  FakeApi api;
  api.apply("ADDED", make("ns", "a", 1));
  SharedIndexInformer<TestObj> inf(api.list_watch(), fast_options());
  std::shared_ptr<SharedIndexInformer<TestObj>::Registration> reg;
  std::mutex mu;
  std::atomic<int> calls{0};
  auto h = std::make_shared<ResourceEventHandlerFuncs<TestObj>>();
  h->add = [&](const Ptr<TestObj>&, bool) {
    std::lock_guard l(mu);
    ++calls;
    if (reg) {
      inf.remove_event_handler(reg);
      reg.reset();  // drops the last outside reference to the listener
    }
  };
  {
    std::lock_guard l(mu);
    reg = inf.add_event_handler(h);
  }
  inf.start();
  ASSERT_TRUE(wait_until([&] { return calls.load() == 1; }));
  ASSERT_TRUE(wait_until([&] { return api.open_watches() == 1; }));
  api.apply("ADDED", make("ns", "b", 2));
  ASSERT_TRUE(wait_until([&] { return inf.lister().get("ns", "b") != nullptr; }));
  inf.stop();
  EXPECT_EQ(calls.load(), 1);
}
