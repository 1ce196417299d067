#include <gtest/gtest.h>

#include "api/helpers.h"
#include "util/clock.h"

using namespace ksched::api;

TEST(Rfc3339, FormatAndParse) {
  EXPECT_EQ(format_rfc3339(Time{0}), "1970-01-01T00:00:00Z");
  EXPECT_EQ(format_rfc3339(Time{1704164645LL * 1000000000LL + 999}), "2024-01-02T03:04:05Z");
  EXPECT_EQ(format_rfc3339(MicroTime{1704164645LL * 1000000000LL + 123456789}), "2024-01-02T03:04:05.123456Z");
  EXPECT_EQ(format_rfc3339(MicroTime{-1}), "1969-12-31T23:59:59.999999Z");
  EXPECT_EQ(parse_rfc3339("2024-02-29T23:59:59Z")->unixNanos, 1709251199LL * 1000000000LL);
  EXPECT_EQ(parse_rfc3339("2024-01-02T03:04:05.5Z")->unixNanos, 1704164645LL * 1000000000LL + 500000000);
  EXPECT_EQ(parse_rfc3339("2024-01-02T04:04:05+01:00")->unixNanos, 1704164645LL * 1000000000LL);
  EXPECT_EQ(parse_rfc3339_micro("2024-01-02T03:04:05.123456Z")->unixNanos,
            1704164645LL * 1000000000LL + 123456000);
  for (const char* bad : {"", "2024-01-02", "2024-01-02T03:04:05", "2023-02-29T00:00:00Z", "2024-01-02T24:00:00Z",
                          "2024-01-02T03:04:05.Z", "2024-01-02T03:04:05Zx", "2024-01-02 03:04:05Z"}) {
    EXPECT_FALSE(parse_rfc3339(bad).ok()) << bad;
  }
  EXPECT_EQ(parse_rfc3339("x").error(), "parsing time \"x\" as RFC 3339: invalid timestamp");
}

TEST(Rfc3339, NowFromFakeClockTruncates) {
  ksched::util::FakeClock clock;
  clock.step(std::chrono::milliseconds(1500));
  Time t = now(clock);
  MicroTime m = micro_now(clock);
  EXPECT_EQ(t.unixNanos % 1000000000, 0);
  EXPECT_EQ(m.unixNanos - t.unixNanos, 500000000);
  EXPECT_EQ(to_time(to_time_point(t)), t);
}

TEST(Keys, NamespacedKeys) {
  ObjectMeta m;
  m.name = "p";
  EXPECT_EQ(namespaced_key(m), "p");
  m.namespace_ = "ns";
  EXPECT_EQ(namespaced_key(m), "ns/p");
  Pod pod;
  pod.metadata = m;
  EXPECT_EQ(key_of(pod), "ns/p");
  EXPECT_EQ(split_key("ns/p"), (std::pair<std::string_view, std::string_view>{"ns", "p"}));
  EXPECT_EQ(split_key("n1"), (std::pair<std::string_view, std::string_view>{"", "n1"}));
}

TEST(PodHelpers, TerminalAndConditions) {
  Pod pod;
  EXPECT_FALSE(pod_is_terminal(pod));
  pod.status.phase = "Succeeded";
  EXPECT_TRUE(pod_is_terminal(pod));
  pod.status.phase = "Failed";
  EXPECT_TRUE(pod_is_terminal(pod));
  pod.status.phase = "Running";
  EXPECT_FALSE(pod_is_terminal(pod));

  PodStatus st;
  PodCondition c;
  c.type = "PodScheduled";
  c.status = "False";
  c.reason = "Unschedulable";
  c.message = "0/3 nodes are available";
  EXPECT_TRUE(update_pod_condition(st, c, Time{100}));
  ASSERT_NE(find_pod_condition(st, "PodScheduled"), nullptr);
  EXPECT_EQ(find_pod_condition(st, "PodScheduled")->lastTransitionTime, Time{100});
  // Same status and message: nothing changes, transition time kept.
  EXPECT_FALSE(update_pod_condition(st, c, Time{200}));
  EXPECT_EQ(find_pod_condition(st, "PodScheduled")->lastTransitionTime, Time{100});
  // New message, same status: changed, transition time still kept.
  c.message = "0/4 nodes are available";
  EXPECT_TRUE(update_pod_condition(st, c, Time{300}));
  EXPECT_EQ(find_pod_condition(st, "PodScheduled")->lastTransitionTime, Time{100});
  // Status flips: transition time moves.
  c.status = "True";
  c.reason.clear();
  c.message.clear();
  EXPECT_TRUE(update_pod_condition(st, c, Time{400}));
  EXPECT_EQ(find_pod_condition(st, "PodScheduled")->lastTransitionTime, Time{400});
  EXPECT_EQ(st.conditions.size(), 1u);
  EXPECT_EQ(find_pod_condition(st, "Ready"), nullptr);
}

TEST(IntOrStringHelpers, ScaledValue) {
  auto i = IntOrString::from_int(3);
  auto p = IntOrString::from_string("50%");
  auto odd = IntOrString::from_string("33%");
  EXPECT_EQ(*scaled_value_from_int_or_percent(&i, 10, true), 3);
  EXPECT_EQ(*scaled_value_from_int_or_percent(&p, 5, true), 3);
  EXPECT_EQ(*scaled_value_from_int_or_percent(&p, 5, false), 2);
  EXPECT_EQ(*scaled_value_from_int_or_percent(&odd, 10, true), 4);
  EXPECT_EQ(*scaled_value_from_int_or_percent(&odd, 10, false), 3);
  auto bad = IntOrString::from_string("50");
  EXPECT_EQ(scaled_value_from_int_or_percent(&bad, 10, true).error(),
            "invalid value for IntOrString: invalid type: string is not a percentage");
  auto bad2 = IntOrString::from_string("5x%");
  EXPECT_EQ(scaled_value_from_int_or_percent(&bad2, 10, true).error(),
            "invalid value for IntOrString: invalid value \"5x%\": strconv.Atoi: parsing \"5x\": invalid syntax");
  EXPECT_FALSE(scaled_value_from_int_or_percent(nullptr, 10, true).ok());
}

TEST(NodeHelpers, ConditionAndPriority) {
  NodeStatus st;
  NodeCondition ready;
  ready.type = "Ready";
  ready.status = "True";
  st.conditions.push_back(ready);
  ASSERT_NE(find_node_condition(st, "Ready"), nullptr);
  EXPECT_EQ(find_node_condition(st, "Ready")->status, "True");
  EXPECT_EQ(find_node_condition(st, "DiskPressure"), nullptr);
  Pod p;
  EXPECT_EQ(pod_priority(p), 0);
  p.spec.priority = 100;
  EXPECT_EQ(pod_priority(p), 100);
}
