// Store: revision order, bounded history (410), watcher isolation, selector transitions and
// paginated lists that stay a consistent snapshot while writes happen.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "apiserver/resources.h"
#include "apiserver/storage/storage.h"
#include "apiserver/storage/watch_hub.h"

namespace ksched::apiserver {
namespace {

namespace json = boost::json;

int pods() { return find_resource("", "v1", "pods")->id; }

json::object pod(const std::string& name, const std::string& app = "a", const std::string& ns = "default") {
  return json::object{{"kind", "Pod"},
                      {"apiVersion", "v1"},
                      {"metadata", json::object{{"name", name}, {"namespace", ns}, {"labels", json::object{{"app", app}}}}},
                      {"spec", json::object{{"nodeName", ""}}}};
}

std::int64_t put_new(Store& s, const std::string& name, const std::string& app = "a") {
  auto o = pod(name, app);
  auto c = s.put(pods(), o, 0);
  EXPECT_EQ(c.status, Store::CommitStatus::Ok);
  return c.obj->rv;
}

std::int64_t relabel(Store& s, const std::string& name, const std::string& app) {
  auto cur = s.get(pods(), "default", name);
  auto o = pod(name, app);
  auto c = s.put(pods(), o, cur->rv);
  EXPECT_EQ(c.status, Store::CommitStatus::Ok);
  return c.obj->rv;
}

std::vector<WatchItem> drain(Watcher& w, bool* closed = nullptr) {
  bool c = false;
  auto items = w.drain(c);
  if (closed) *closed = c;
  return items;
}

TEST(Store, RevisionsIncreaseAndAreWrittenIntoObjects) {
  Store s(100);
  std::int64_t a = put_new(s, "a");
  std::int64_t b = put_new(s, "b");
  std::int64_t a2 = relabel(s, "a", "x");
  EXPECT_LT(a, b);
  EXPECT_LT(b, a2);
  EXPECT_EQ(s.revision(), a2);
  auto o = s.get(pods(), "default", "a");
  ASSERT_TRUE(o);
  EXPECT_NE(o->json.find("\"resourceVersion\":\"" + std::to_string(a2) + "\""), std::string::npos);
  auto l = s.list(pods(), {});
  ASSERT_TRUE(l);
  EXPECT_EQ(l->rv, a2);
  ASSERT_EQ(l->items.size(), 2u);
  EXPECT_EQ(l->items[0]->name, "a");
}

TEST(Store, StaleExpectedRevisionIsReportedAsChanged) {
  Store s(100);
  std::int64_t rv = put_new(s, "a");
  relabel(s, "a", "b");
  auto o = pod("a", "c");
  EXPECT_EQ(s.put(pods(), o, rv).status, Store::CommitStatus::Changed);
  auto dup = pod("a");
  EXPECT_EQ(s.put(pods(), dup, 0).status, Store::CommitStatus::AlreadyExists);
}

TEST(Store, WatchOutsideTheHistoryWindowIsTooOld) {
  Store s(5);
  for (int i = 0; i < 10; ++i) put_new(s, "p" + std::to_string(i));
  EXPECT_EQ(s.history_size(), 5u);
  auto w = std::make_shared<Watcher>(pods(), "", LabelSelector(), FieldSelector(), 100);
  auto r = s.watch(w, 1, false, false);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "too old resource version: 1 (6)");
  auto ok = std::make_shared<Watcher>(pods(), "", LabelSelector(), FieldSelector(), 100);
  ASSERT_TRUE(s.watch(ok, 5, false, false));
  auto items = drain(*ok);
  ASSERT_EQ(items.size(), 5u);
  EXPECT_EQ(items.front().rv, 6);
  EXPECT_EQ(items.back().rv, 10);
}

TEST(Store, CompactForcesExpiry) {
  Store s(100);
  for (int i = 0; i < 4; ++i) put_new(s, "p" + std::to_string(i));
  s.compact(3);
  auto w = std::make_shared<Watcher>(pods(), "", LabelSelector(), FieldSelector(), 100);
  EXPECT_FALSE(s.watch(w, 2, false, false));
  EXPECT_TRUE(s.watch(w, 3, false, false));
  Store::ListOptions lo;
  lo.at_rv = 2;
  EXPECT_FALSE(s.list(pods(), lo));
}

TEST(Store, SlowWatcherIsClosedWithoutAffectingOthers) {
  Store s(1000);
  auto slow = std::make_shared<Watcher>(pods(), "", LabelSelector(), FieldSelector(), 10);
  auto fast = std::make_shared<Watcher>(pods(), "", LabelSelector(), FieldSelector(), 10);
  ASSERT_TRUE(s.watch(slow, 0, false, false));
  ASSERT_TRUE(s.watch(fast, 0, false, false));
  std::size_t fast_seen = 0;
  for (int i = 0; i < 50; ++i) {
    put_new(s, "p" + std::to_string(i));
    fast_seen += drain(*fast).size();  // the fast consumer keeps up
  }
  EXPECT_EQ(fast_seen, 50u);
  EXPECT_FALSE(fast->closed());
  EXPECT_TRUE(slow->overflowed());
  bool closed = false;
  EXPECT_TRUE(drain(*slow, &closed).empty());  // its backlog was dropped, not kept growing
  EXPECT_TRUE(closed);
}

TEST(Store, SelectorTransitionsBecomeAddedAndDeleted) {
  Store s(100);
  auto sel = LabelSelector::parse("app=a");
  ASSERT_TRUE(sel);
  auto w = std::make_shared<Watcher>(pods(), "", *sel, FieldSelector(), 100);
  ASSERT_TRUE(s.watch(w, 0, false, false));
  put_new(s, "p", "b");                       // not matching: nothing
  EXPECT_TRUE(drain(*w).empty());
  std::int64_t in = relabel(s, "p", "a");     // starts matching: ADDED
  std::int64_t mod = relabel(s, "p", "a");    // still matching: MODIFIED
  std::int64_t out = relabel(s, "p", "c");    // stops matching: DELETED with the old content at the new RV
  auto items = drain(*w);
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].kind, WatchItem::Kind::Added);
  EXPECT_EQ(items[0].rv, in);
  EXPECT_EQ(items[1].kind, WatchItem::Kind::Modified);
  EXPECT_EQ(items[1].rv, mod);
  EXPECT_EQ(items[2].kind, WatchItem::Kind::Deleted);
  EXPECT_TRUE(items[2].restamp);
  EXPECT_EQ(items[2].rv, out);
  EXPECT_EQ(*items[2].obj->labels.find("app"), "a");
  auto last = pod("p", "c");
  ASSERT_EQ(s.remove(pods(), "default", "p", 0, &last).status, Store::CommitStatus::Ok);
  EXPECT_TRUE(drain(*w).empty());             // deleting a non-matching object: nothing
}

TEST(Store, InitialEventsThenBookmark) {
  Store s(100);
  put_new(s, "a");
  put_new(s, "b", "z");
  auto sel = LabelSelector::parse("app=a");
  auto w = std::make_shared<Watcher>(pods(), "", *sel, FieldSelector(), 100);
  ASSERT_TRUE(s.watch(w, 0, true, true));
  auto items = drain(*w);
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].kind, WatchItem::Kind::Added);
  EXPECT_EQ(items[0].obj->name, "a");
  EXPECT_EQ(items[1].kind, WatchItem::Kind::InitialEnd);
  EXPECT_EQ(items[1].rv, s.revision());
}

TEST(Store, PaginationIsASnapshotWhileWritesHappen) {
  Store s(1000);
  for (int i = 0; i < 10; ++i) put_new(s, "p" + std::to_string(i));
  Store::ListOptions lo;
  lo.limit = 4;
  auto first = s.list(pods(), lo);
  ASSERT_TRUE(first);
  ASSERT_EQ(first->items.size(), 4u);
  ASSERT_FALSE(first->next_key.empty());
  EXPECT_EQ(first->remaining, 6);
  // Writes between pages: a delete, an update, a create.
  auto last = pod("p5");
  ASSERT_EQ(s.remove(pods(), "default", "p5", 0, &last).status, Store::CommitStatus::Ok);
  relabel(s, "p6", "changed");
  put_new(s, "p55");
  std::vector<std::string> names;
  for (const auto& o : first->items) names.push_back(o->name);
  Store::ListOptions next = lo;
  next.at_rv = first->rv;
  next.start_after = first->next_key;
  while (true) {
    auto page = s.list(pods(), next);
    ASSERT_TRUE(page);
    EXPECT_EQ(page->rv, first->rv);
    for (const auto& o : page->items) {
      names.push_back(o->name);
      if (o->name == "p6") {
        EXPECT_EQ(*o->labels.find("app"), "a");  // old content
      }
    }
    if (page->next_key.empty()) break;
    next.start_after = page->next_key;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9"}));
}

TEST(Selectors, LabelGrammar) {
  Pairs labels{{"app", "web"}, {"tier", "fe"}, {"v", "7"}};
  auto t = [&](const char* s) {
    auto sel = LabelSelector::parse(s);
    EXPECT_TRUE(sel) << s << ": " << (sel ? "" : sel.error());
    return sel && sel->matches(labels);
  };
  EXPECT_TRUE(t("app=web"));
  EXPECT_TRUE(t("app==web,tier!=db"));
  EXPECT_TRUE(t("app in (web, api)"));
  EXPECT_FALSE(t("app notin (web)"));
  EXPECT_TRUE(t("tier,!legacy"));
  EXPECT_TRUE(t("v>5"));
  EXPECT_FALSE(t("v<5"));
  EXPECT_TRUE(t(""));
  auto bad = LabelSelector::parse("app in b");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("unable to parse requirement"), std::string::npos);
}

TEST(Selectors, FieldSelectorsAndSupportedFields) {
  auto sel = FieldSelector::parse("status.phase!=Succeeded,status.phase!=Failed");
  ASSERT_TRUE(sel);
  EXPECT_TRUE(sel->matches({{"status.phase", "Pending"}}));
  EXPECT_FALSE(sel->matches({{"status.phase", "Failed"}}));
  auto bad = FieldSelector::parse("foo");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "invalid selector: 'foo'; can't understand 'foo'");
  const auto& p = *find_resource("", "v1", "pods");
  EXPECT_TRUE(check_field_selector_field(p, "spec.nodeName"));
  EXPECT_EQ(check_field_selector_field(p, "foo").error(), "field label not supported: foo");
  const auto& cm = *find_resource("", "v1", "configmaps");
  EXPECT_EQ(check_field_selector_field(cm, "data.x").error(),
            "\"data.x\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"");
}

// The selectable fields of a stored object: upstream's pod field set, with spec.host reading
// spec.nodeName, status.podIPs joined, and absent booleans reading "false".
TEST(Selectors, PodFieldsAreExtractedFromTheObject) {
  const auto& pods = *find_resource("", "v1", "pods");
  auto pod = json::parse(R"({"metadata":{"name":"p","namespace":"ns"},
      "spec":{"nodeName":"n1","schedulerName":"default-scheduler","restartPolicy":"Always"},
      "status":{"phase":"Running","podIP":"10.0.0.1","podIPs":[{"ip":"10.0.0.1"},{"ip":"fd00::1"}]}})")
                 .as_object();
  auto f = extract_fields(pods, pod);
  EXPECT_EQ(f.get("metadata.name"), "p");
  EXPECT_EQ(f.get("metadata.namespace"), "ns");
  EXPECT_EQ(f.get("spec.nodeName"), "n1");
  EXPECT_EQ(f.get("spec.host"), "n1");
  EXPECT_EQ(f.get("spec.schedulerName"), "default-scheduler");
  EXPECT_EQ(f.get("spec.restartPolicy"), "Always");
  EXPECT_EQ(f.get("spec.hostNetwork"), "false");
  EXPECT_EQ(f.get("status.phase"), "Running");
  EXPECT_EQ(f.get("status.podIPs"), "10.0.0.1,fd00::1");
  EXPECT_EQ(f.get("status.nominatedNodeName"), "");
  EXPECT_EQ(f.get("spec.unknown", "absent"), "absent");
  auto sel = FieldSelector::parse("spec.nodeName=n1,status.phase!=Failed,metadata.namespace=ns");
  ASSERT_TRUE(sel);
  EXPECT_TRUE(sel->matches(f));
  // Objects of one resource share the field names; each has its own values.
  auto other = json::parse(R"({"metadata":{"name":"q","namespace":"ns"},"spec":{"hostNetwork":true}})").as_object();
  auto g = extract_fields(pods, other);
  EXPECT_EQ(g.get("metadata.name"), "q");
  EXPECT_EQ(g.get("spec.hostNetwork"), "true");
  EXPECT_EQ(g.get("spec.nodeName"), "");
  EXPECT_FALSE(sel->matches(g));
  EXPECT_EQ(f.get("metadata.name"), "p");
}

TEST(Selectors, FieldSetGivenAsPairsKeepsTheLastValueOfAName) {
  fields::FieldSet f{{"b", "1"}, {"a", "2"}, {"b", "3"}};
  EXPECT_EQ(f.size(), 2u);
  EXPECT_EQ(f.get("a"), "2");
  EXPECT_EQ(f.get("b"), "3");
  EXPECT_EQ(fields::FieldSet{}.get("a", "none"), "none");
}

}  // namespace
}  // namespace ksched::apiserver
