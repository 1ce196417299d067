// Event recorder against the embedded API server: events are written in the background, repeats
// become a series, the per-object rate limit and the bounded queue drop instead of blocking.
#include <gtest/gtest.h>

#include "api/codec.h"
#include "api/core.h"
#include "api/events.h"
#include "events/recorder.h"
#include "net_testing/net_fixture.h"

using namespace ksched;
using namespace std::chrono_literals;

namespace {

api::ObjectReference pod_ref(const std::string& name) {
  api::Pod p;
  p.metadata.namespace_ = "default";
  p.metadata.name = name;
  p.metadata.uid = "uid-" + name;
  p.metadata.resourceVersion = "7";
  return events::reference_for(p);
}

std::vector<api::eventsv1::Event> list_events(client::RestClient& c, const std::string& ns) {
  auto l = c.list<api::eventsv1::Event>(ns);
  EXPECT_TRUE(l.ok()) << l.error().to_string();
  return l.ok() ? l->items : std::vector<api::eventsv1::Event>{};
}

}  // namespace

class EventsNet : public ksched::testing::ServerTest {};

TEST_F(EventsNet, RecorderWritesEventsThatTheServerLists) {
  events::EventBroadcaster b(new_client());
  b.start_recording_to_sink();
  auto rec = b.new_recorder("default-scheduler");
  auto ref = pod_ref("web-0");
  rec->eventf(ref, nullptr, events::kNormal, "Scheduled", "Binding", "Successfully assigned {}/{} to {}", "default",
              "web-0", "node-a");
  api::ObjectReference node;
  node.kind = "Node";
  node.name = "node-a";
  node.apiVersion = "v1";
  rec->event(node, nullptr, events::kWarning, "NodeNotReady", "Check", "node is not ready");
  ASSERT_TRUE(b.wait_idle(10s));
  auto evs = list_events(*new_client(), "default");
  ASSERT_EQ(evs.size(), 2u);
  const api::eventsv1::Event* sched = nullptr;
  for (auto& e : evs)
    if (e.reason == "Scheduled") sched = &e;
  ASSERT_NE(sched, nullptr);
  EXPECT_EQ(sched->note, "Successfully assigned default/web-0 to node-a");
  EXPECT_EQ(sched->type, "Normal");
  EXPECT_EQ(sched->action, "Binding");
  EXPECT_EQ(sched->reportingController, "default-scheduler");
  EXPECT_EQ(sched->regarding.kind, "Pod");
  EXPECT_EQ(sched->regarding.uid, "uid-web-0");
  EXPECT_EQ(sched->metadata.name.rfind("web-0.", 0), 0u);
  EXPECT_TRUE(sched->eventTime.has_value());
  EXPECT_FALSE(sched->series.has_value());
  EXPECT_EQ(b.stats().created, 2u);
}

TEST_F(EventsNet, RepeatsAggregateIntoASeries) {
  events::EventBroadcaster b(new_client());
  b.start_recording_to_sink();
  auto rec = b.new_recorder("default-scheduler");
  auto ref = pod_ref("web-1");
  for (int i = 0; i < 5; ++i)
    rec->event(ref, nullptr, events::kWarning, "FailedScheduling", "Scheduling", "0/3 nodes are available");
  rec->event(ref, nullptr, events::kNormal, "Scheduled", "Binding", "assigned");  // different reason: new event
  ASSERT_TRUE(b.wait_idle(10s));
  auto evs = list_events(*new_client(), "default");
  ASSERT_EQ(evs.size(), 2u);
  for (auto& e : evs) {
    if (e.reason == "FailedScheduling") {
      ASSERT_TRUE(e.series.has_value());
      EXPECT_EQ(e.series->count, 5);
      EXPECT_TRUE(e.series->lastObservedTime.has_value());
    } else {
      EXPECT_FALSE(e.series.has_value());
    }
  }
  auto s = b.stats();
  EXPECT_EQ(s.created, 2u);
  EXPECT_EQ(s.patched, 4u);
}

// Events recorded before the writers start form one batch per writer: its new events are created
// together (pipelined), each repeat's series patch follows its create, and an event the server
// rejects fails alone, forgotten so that its repeat is created anew rather than patched.
TEST_F(EventsNet, ABatchCreatesItsEventsTogetherBeforeTheirSeriesPatches) {
  events::BroadcasterOptions o;
  o.sinks = 2;
  events::EventBroadcaster b(new_client(), o);
  auto rec = b.new_recorder("default-scheduler");
  for (int i = 0; i < 10; ++i)
    for (int rep = 0; rep < 2; ++rep)
      rec->event(pod_ref("batch-" + std::to_string(i)), nullptr, events::kWarning, "FailedScheduling", "Scheduling",
                 "0/3 nodes are available");
  api::ObjectReference elsewhere = pod_ref("lost");
  elsewhere.namespace_ = "no-such-namespace";
  rec->event(elsewhere, nullptr, events::kWarning, "FailedScheduling", "Scheduling", "x");
  rec->event(elsewhere, nullptr, events::kWarning, "FailedScheduling", "Scheduling", "x");
  b.start_recording_to_sink();
  ASSERT_TRUE(b.wait_idle(10s));
  auto s = b.stats();
  EXPECT_EQ(s.created, 10u);
  EXPECT_EQ(s.patched, 10u);
  EXPECT_EQ(s.failed, 2u);  // the repeat of the rejected event was tried as a new event, not patched
  auto evs = list_events(*new_client(), "default");
  ASSERT_EQ(evs.size(), 10u);
  for (const auto& e : evs) {
    ASSERT_TRUE(e.series.has_value()) << e.metadata.name;
    EXPECT_EQ(e.series->count, 2) << e.metadata.name;
  }
}

TEST_F(EventsNet, SeriesEndsAfterTheWindowAndRateLimitDrops) {
  util::FakeClock clock;
  events::BroadcasterOptions o;
  o.clock = &clock;
  o.per_object_burst = 3;
  events::EventBroadcaster b(new_client(), o);
  b.start_recording_to_sink();
  auto rec = b.new_recorder("default-scheduler");
  auto ref = pod_ref("web-2");
  rec->event(ref, nullptr, events::kWarning, "FailedScheduling", "Scheduling", "x");
  ASSERT_TRUE(b.wait_idle(10s));
  clock.step(7min);  // past the 6 min series window; also refills 1.4 tokens
  rec->event(ref, nullptr, events::kWarning, "FailedScheduling", "Scheduling", "x");
  ASSERT_TRUE(b.wait_idle(10s));
  EXPECT_EQ(b.stats().created, 2u);  // a new event, not a series patch
  for (int i = 0; i < 10; ++i) rec->event(ref, nullptr, events::kWarning, "FailedScheduling", "Scheduling", "x");
  ASSERT_TRUE(b.wait_idle(10s));
  auto s = b.stats();
  EXPECT_GT(s.dropped_rate_limited, 0u);
  EXPECT_EQ(s.created + s.patched + s.dropped_rate_limited, 12u);
}

TEST_F(EventsNet, EndedSeriesAndRefilledBucketsAreForgotten) {
  util::FakeClock clock;
  events::BroadcasterOptions o;
  o.clock = &clock;
  o.sweep_interval = 1min;
  events::EventBroadcaster b(new_client(), o);
  b.start_recording_to_sink();
  auto rec = b.new_recorder("default-scheduler");
  for (int i = 0; i < 40; ++i) rec->event(pod_ref("p" + std::to_string(i)), nullptr, events::kNormal, "Scheduled", "Binding", "x");
  ASSERT_TRUE(b.wait_idle(10s));
  EXPECT_EQ(b.stats().series_tracked, 40u);
  EXPECT_EQ(b.stats().objects_tracked, 40u);
  clock.step(7min);  // past the series window, and each bucket has refilled its one token
  rec->event(pod_ref("late"), nullptr, events::kNormal, "Scheduled", "Binding", "x");
  ASSERT_TRUE(b.wait_idle(10s));
  auto s = b.stats();
  EXPECT_EQ(s.created, 41u);
  EXPECT_EQ(s.series_tracked, 1u);
  EXPECT_EQ(s.objects_tracked, 1u);
}

// A writer woken by an event waits (batch_delay, here far longer than the test) for others to
// share its write: a full batch (batch_target) goes out at once, and shutdown writes what waits.
TEST_F(EventsNet, AWriterWaitsForAFullBatchAndShutdownWritesThePartialOne) {
  events::BroadcasterOptions o;
  o.batch_delay = std::chrono::hours(1);
  o.batch_target = 4;
  events::EventBroadcaster b(new_client(), o);
  b.start_recording_to_sink();
  auto rec = b.new_recorder("default-scheduler");
  for (int i = 0; i < 3; ++i) rec->event(pod_ref("wait-" + std::to_string(i)), nullptr, events::kNormal, "Scheduled", "Binding", "x");
  EXPECT_FALSE(b.wait_idle(0ms));
  EXPECT_EQ(b.stats().created, 0u);
  rec->event(pod_ref("wait-3"), nullptr, events::kNormal, "Scheduled", "Binding", "x");
  ASSERT_TRUE(b.wait_idle(10s));
  EXPECT_EQ(b.stats().created, 4u);
  EXPECT_EQ(list_events(*new_client(), "default").size(), 4u);
  rec->event(pod_ref("wait-4"), nullptr, events::kNormal, "Scheduled", "Binding", "x");
  b.shutdown();
  EXPECT_EQ(b.stats().created, 5u);
  EXPECT_EQ(list_events(*new_client(), "default").size(), 5u);
}

TEST(EventsQueue, FullQueueDropsWithoutBlocking) {
  client::RestConfig cfg;
  cfg.host = "http://127.0.0.1:1";  // never started: nothing is sent
  events::BroadcasterOptions o;
  o.queue_size = 10;
  events::EventBroadcaster b(*client::RestClient::create(cfg), o);
  auto rec = b.new_recorder("c");
  for (int i = 0; i < 100; ++i) rec->event(pod_ref("p"), nullptr, events::kNormal, "R", "A", "n");
  auto s = b.stats();
  EXPECT_EQ(s.recorded, 100u);
  EXPECT_EQ(s.dropped_queue_full, 90u);
}
