// core/v1 and events.k8s.io/v1 Events are two views of one stored resource.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api_harness.h"
#include "apiserver/endpoints/handlers.h"
#include "apiserver/storage/watch_hub.h"
#include "util/clock.h"

namespace ksched::apiserver {
namespace {

namespace json = boost::json;

class EventsTest : public ApiHarness {
 protected:

  Response create_v1_event(const std::string& name) {
    return call("POST", "/apis/events.k8s.io/v1/namespaces/default/events",
                R"({"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":")" + name +
                    R"("},"eventTime":"2026-11-29T10:00:00.000000Z","reportingController":"default-scheduler",)"
                    R"("reportingInstance":"default-scheduler-host1","action":"Binding","reason":"Scheduled",)"
                    R"("regarding":{"kind":"Pod","namespace":"default","name":"web-0","uid":"u-1","apiVersion":"v1"},)"
                    R"("note":"Successfully assigned default/web-0 to node-1","type":"Normal"})");
  }

};

TEST_F(EventsTest, CreatedThroughEventsGroupIsACoreEvent) {
  auto c = create_v1_event("web-0.1");
  ASSERT_EQ(c.status, 201) << c.body;
  auto created = parse(c);
  EXPECT_EQ(created["apiVersion"], "events.k8s.io/v1");
  EXPECT_EQ(created["note"], "Successfully assigned default/web-0 to node-1");
  EXPECT_EQ(created["regarding"].as_object()["name"], "web-0");
  EXPECT_FALSE(created.contains("message"));
  // The answer to the create is converted from the object just stored; a read converts the stored
  // JSON. Both give the same object.
  auto gv1 = call("GET", "/apis/events.k8s.io/v1/namespaces/default/events/web-0.1");
  ASSERT_EQ(gv1.status, 200) << gv1.body;
  EXPECT_EQ(parse(gv1), created);

  auto g = call("GET", "/api/v1/namespaces/default/events/web-0.1");
  ASSERT_EQ(g.status, 200) << g.body;
  auto core = parse(g);
  EXPECT_EQ(core["apiVersion"], "v1");
  EXPECT_EQ(core["kind"], "Event");
  EXPECT_EQ(core["message"], "Successfully assigned default/web-0 to node-1");
  EXPECT_EQ(core["involvedObject"].as_object()["kind"], "Pod");
  EXPECT_EQ(core["involvedObject"].as_object()["name"], "web-0");
  EXPECT_EQ(core["reportingComponent"], "default-scheduler");
  EXPECT_EQ(core["reportingInstance"], "default-scheduler-host1");
  EXPECT_EQ(core["reason"], "Scheduled");
  EXPECT_EQ(core["action"], "Binding");
  EXPECT_EQ(core["eventTime"], "2026-11-29T10:00:00.000000Z");
  EXPECT_FALSE(core.contains("note"));
  EXPECT_FALSE(core.contains("regarding"));
  EXPECT_EQ(core["metadata"].as_object()["uid"], created["metadata"].as_object()["uid"]);

  // Core field selectors apply to events written through events.k8s.io.
  auto sel = [&](const std::string& q) {
    auto l = call("GET", "/api/v1/namespaces/default/events?fieldSelector=" + q);
    EXPECT_EQ(l.status, 200) << l.body;
    return parse(l)["items"].as_array().size();
  };
  EXPECT_EQ(sel("involvedObject.name%3Dweb-0"), 1u);
  EXPECT_EQ(sel("involvedObject.name%3Dweb-1"), 0u);
  EXPECT_EQ(sel("involvedObject.kind%3DPod,involvedObject.uid%3Du-1"), 1u);
  EXPECT_EQ(sel("involvedObject.namespace%3Ddefault"), 1u);
  EXPECT_EQ(sel("reason%3DScheduled,type%3DNormal"), 1u);
  EXPECT_EQ(sel("reason%3DFailedScheduling"), 0u);
  EXPECT_EQ(sel("reportingComponent%3Ddefault-scheduler"), 1u);
  EXPECT_EQ(sel("source%3Ddefault-scheduler"), 0u);  // no deprecatedSource: source stays empty as upstream

  // The kubectl table of core events shows the columns from the converted fields.
  auto t = call("GET", "/api/v1/namespaces/default/events", "", "application/json",
                "application/json;as=Table;v=v1;g=meta.k8s.io");
  ASSERT_EQ(t.status, 200) << t.body;
  auto cells = parse(t)["rows"].as_array()[0].as_object()["cells"].as_array();
  ASSERT_EQ(cells.size(), 5u);
  EXPECT_EQ(cells[1], "Normal");
  EXPECT_EQ(cells[2], "Scheduled");
  EXPECT_EQ(cells[3], "pod/web-0");
  EXPECT_EQ(cells[4], "Successfully assigned default/web-0 to node-1");

  // events.k8s.io tables have the same columns.
  auto t2 = call("GET", "/apis/events.k8s.io/v1/namespaces/default/events/web-0.1", "", "application/json",
                 "application/json;as=Table;v=v1;g=meta.k8s.io");
  ASSERT_EQ(t2.status, 200) << t2.body;
  auto cells2 = parse(t2)["rows"].as_array()[0].as_object()["cells"].as_array();
  ASSERT_EQ(cells2.size(), 5u);
  EXPECT_EQ(cells2[2], "Scheduled");
  EXPECT_EQ(cells2[3], "pod/web-0");
  EXPECT_EQ(cells2[4], "Successfully assigned default/web-0 to node-1");
}

TEST_F(EventsTest, CreatedThroughCoreIsVisibleInEventsGroup) {
  auto c = call("POST", "/api/v1/namespaces/default/events",
                R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"web-0.2"},)"
                R"("involvedObject":{"kind":"Pod","namespace":"default","name":"web-0"},"reason":"FailedScheduling",)"
                R"("message":"0/3 nodes are available","type":"Warning","count":3,)"
                R"("firstTimestamp":"2026-11-29T10:00:00Z","lastTimestamp":"2026-11-29T10:05:00Z",)"
                R"("source":{"component":"default-scheduler","host":"h1"}})");
  ASSERT_EQ(c.status, 201) << c.body;

  auto l = call("GET", "/apis/events.k8s.io/v1/namespaces/default/events");
  ASSERT_EQ(l.status, 200) << l.body;
  auto list = parse(l);
  EXPECT_EQ(list["apiVersion"], "events.k8s.io/v1");
  ASSERT_EQ(list["items"].as_array().size(), 1u);
  auto ev = list["items"].as_array()[0].as_object();
  EXPECT_FALSE(ev.contains("apiVersion"));  // typed list items carry no type meta
  EXPECT_EQ(ev["note"], "0/3 nodes are available");
  EXPECT_EQ(ev["regarding"].as_object()["name"], "web-0");
  EXPECT_EQ(ev["deprecatedCount"], 3);
  EXPECT_EQ(ev["deprecatedFirstTimestamp"], "2026-11-29T10:00:00Z");
  EXPECT_EQ(ev["deprecatedLastTimestamp"], "2026-11-29T10:05:00Z");
  EXPECT_EQ(ev["deprecatedSource"].as_object()["component"], "default-scheduler");
  // Only source is set: the reporter is named from it.
  EXPECT_EQ(ev["reportingController"], "default-scheduler");
  EXPECT_EQ(ev["reportingInstance"], "h1");
  EXPECT_FALSE(ev.contains("message"));
  EXPECT_FALSE(ev.contains("count"));

  auto g = call("GET", "/apis/events.k8s.io/v1/namespaces/default/events/web-0.2");
  ASSERT_EQ(g.status, 200) << g.body;
  EXPECT_EQ(parse(g)["reason"], "FailedScheduling");

  // Core field selector on source works for core-created events.
  auto s = call("GET", "/api/v1/events?fieldSelector=source%3Ddefault-scheduler");
  ASSERT_EQ(s.status, 200);
  EXPECT_EQ(parse(s)["items"].as_array().size(), 1u);

  auto d = call("DELETE", "/apis/events.k8s.io/v1/namespaces/default/events/web-0.2");
  ASSERT_EQ(d.status, 200) << d.body;
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/events/web-0.2").status, 404);
}

TEST_F(EventsTest, SeriesPatchThroughEventsGroupShowsInCoreView) {
  ASSERT_EQ(create_v1_event("web-0.3").status, 201);
  auto p = call("PATCH", "/apis/events.k8s.io/v1/namespaces/default/events/web-0.3",
                R"({"series":{"count":4,"lastObservedTime":"2026-11-29T10:07:00.000000Z"}})",
                "application/merge-patch+json");
  ASSERT_EQ(p.status, 200) << p.body;
  auto patched = parse(p);
  EXPECT_EQ(patched["apiVersion"], "events.k8s.io/v1");
  EXPECT_EQ(patched["series"].as_object()["count"], 4);
  EXPECT_EQ(patched["note"], "Successfully assigned default/web-0 to node-1");

  auto core = parse(call("GET", "/api/v1/namespaces/default/events/web-0.3"));
  EXPECT_EQ(core["series"].as_object()["count"], 4);
  EXPECT_EQ(core["series"].as_object()["lastObservedTime"], "2026-11-29T10:07:00.000000Z");
  EXPECT_EQ(core["message"], "Successfully assigned default/web-0 to node-1");

  // A core update is visible through events.k8s.io.
  auto cp = call("PATCH", "/api/v1/namespaces/default/events/web-0.3", R"({"count":7,"message":"again"})",
                 "application/merge-patch+json");
  ASSERT_EQ(cp.status, 200) << cp.body;
  auto ev = parse(call("GET", "/apis/events.k8s.io/v1/namespaces/default/events/web-0.3"));
  EXPECT_EQ(ev["deprecatedCount"], 7);
  EXPECT_EQ(ev["note"], "again");
}

TEST_F(EventsTest, WatchOnEitherEndpointSeesTheOther) {
  auto wcore = call("GET", "/api/v1/namespaces/default/events?watch=1&fieldSelector=involvedObject.name%3Dweb-0");
  ASSERT_TRUE(wcore.watcher) << wcore.body;
  auto wev = call("GET", "/apis/events.k8s.io/v1/namespaces/default/events?watch=1");
  ASSERT_TRUE(wev.watcher) << wev.body;
  ASSERT_EQ(create_v1_event("web-0.4").status, 201);

  auto next_line = [&](Response& w) -> std::string {
    for (int i = 0; i < 1; ++i) {  // the store fans out synchronously on write
      bool closed = false;
      auto items = w.watcher->drain(closed);
      for (const auto& it : items) {
        bool cols = false;
        if (it.kind == WatchItem::Kind::Added)
          return api_.format_watch_item(*w.watch_resource, it, false, IncludeObject::Metadata, cols);
      }
    }
    return "";
  };
  auto core_line = next_line(wcore);
  ASSERT_FALSE(core_line.empty());
  auto co = json::parse(core_line).as_object()["object"].as_object();
  EXPECT_EQ(co["apiVersion"], "v1");
  EXPECT_EQ(co["message"], "Successfully assigned default/web-0 to node-1");
  auto ev_line = next_line(wev);
  ASSERT_FALSE(ev_line.empty());
  auto eo = json::parse(ev_line).as_object()["object"].as_object();
  EXPECT_EQ(eo["apiVersion"], "events.k8s.io/v1");
  EXPECT_EQ(eo["note"], "Successfully assigned default/web-0 to node-1");
  EXPECT_EQ(eo["regarding"].as_object()["name"], "web-0");
}

}  // namespace
}  // namespace ksched::apiserver
