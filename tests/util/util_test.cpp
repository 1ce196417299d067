#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <set>

#include "api/core.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/result.h"
#include "util/stop_signal.h"
#include "util/go_format.h"
#include "util/utf8.h"
#include "util/uuid.h"

using namespace ksched;

TEST(Result, HoldsValueOrError) {
  util::Result<int> ok = 3;
  util::Result<int> bad = util::make_error("boom");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 3);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "boom");
}

TEST(FakeClock, MovesOnlyWhenStepped) {
  util::FakeClock c;
  auto t0 = c.now();
  EXPECT_EQ(c.now(), t0);
  c.step(std::chrono::seconds(5));
  EXPECT_EQ(c.now() - t0, std::chrono::seconds(5));
}

TEST(Log, QuoteEscapes) {
  EXPECT_EQ(log::quote("a\"b\n"), "\"a\\\"b\\n\"");
}

TEST(StringMap, SortedSetFindErase) {
  api::StringMap m{{"b", "2"}, {"a", "1"}};
  EXPECT_EQ(m.begin()->first, "a");
  EXPECT_EQ(m.get("b"), "2");
  m.set("b", "3");
  EXPECT_EQ(m.get("b"), "3");
  EXPECT_TRUE(m.erase("a"));
  EXPECT_FALSE(m.contains("a"));
  EXPECT_EQ(m.size(), 1u);
}

// UTF-8 validation as Go's: overlong forms, surrogates and bytes past U+10FFFF are invalid.
TEST(Utf8, ValidatesAndReplacesLikeGo) {
  using ksched::util::is_valid_utf8;
  using ksched::util::to_valid_utf8;
  EXPECT_TRUE(is_valid_utf8("plain"));
  EXPECT_TRUE(is_valid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
  EXPECT_FALSE(is_valid_utf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // > U+10FFFF
  EXPECT_FALSE(is_valid_utf8("\xE2\x82"));          // truncated
  EXPECT_EQ(to_valid_utf8("a\xFF" "b"), "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(to_valid_utf8("ok"), "ok");
}

// time.Duration.String() and %q, as upstream's messages print them.
TEST(GoFormat, DurationsAndQuotes) {
  using namespace std::chrono;
  using ksched::util::go_duration;
  EXPECT_EQ(go_duration(nanoseconds(0)), "0s");
  EXPECT_EQ(go_duration(seconds(15)), "15s");
  EXPECT_EQ(go_duration(seconds(90)), "1m30s");
  EXPECT_EQ(go_duration(minutes(15)), "15m0s");
  EXPECT_EQ(go_duration(hours(2)), "2h0m0s");
  EXPECT_EQ(go_duration(hours(1) + seconds(1)), "1h0m1s");
  EXPECT_EQ(go_duration(milliseconds(1500)), "1.5s");
  EXPECT_EQ(go_duration(milliseconds(100)), "100ms");
  EXPECT_EQ(go_duration(microseconds(1500)), "1.5ms");
  EXPECT_EQ(go_duration(microseconds(3)), "3\xC2\xB5s");
  EXPECT_EQ(go_duration(nanoseconds(7)), "7ns");
  EXPECT_EQ(go_duration(seconds(-2)), "-2s");
  using ksched::util::go_quote;
  EXPECT_EQ(go_quote("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(go_quote("tab\tnl\n\x01\x7f"), R"("tab\tnl\n\x01\x7f")");
  EXPECT_EQ(go_quote("caf\xC3\xA9"), "\"caf\xC3\xA9\"");
}

namespace ksched::util {
namespace {

// RFC 4122 version 4: the version nibble 4, the variant bits 10, 32 hex digits in 8-4-4-4-12.
TEST(Uuid, FormatSetsVersionAndVariantAndKeepsTheRandomBits) {
  EXPECT_EQ(format_uuid_v4(0, 0), "00000000-0000-4000-8000-000000000000");
  EXPECT_EQ(format_uuid_v4(~0ULL, ~0ULL), "ffffffff-ffff-4fff-bfff-ffffffffffff");
  // Bytes in little-endian order of each half, as the generator fills them.
  EXPECT_EQ(format_uuid_v4(0x0807060504030201ULL, 0x100f0e0d0c0b0a09ULL), "01020304-0506-4708-890a-0b0c0d0e0f10");
}

TEST(Uuid, NewOnesDiffer) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string u = new_uuid();
    ASSERT_EQ(u.size(), 36u);
    EXPECT_EQ(u[14], '4');
    EXPECT_NE(std::string("89ab").find(u[19]), std::string::npos) << u;
    seen.insert(u);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

}  // namespace
}  // namespace ksched::util

namespace ksched::util {
namespace {

// A wait runs its full time while no stop is asked for, and every wait, pending or later, returns
// true once one is (a binding-cycle wait of bindingTimeout = 600 s would otherwise hold a stop).
TEST(StopSignal, WakesPendingAndLaterWaitsOnceRequested) {
  StopSignal stop;
  EXPECT_FALSE(stop.stop_requested());
  EXPECT_FALSE(stop.wait_for(std::chrono::milliseconds(1)));
  auto waiter = std::async(std::launch::async, [&] { return stop.wait_for(std::chrono::seconds(600)); });
  stop.request_stop();
  ASSERT_EQ(waiter.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_TRUE(waiter.get());
  EXPECT_TRUE(stop.stop_requested());
  EXPECT_TRUE(stop.wait_for(std::chrono::seconds(600)));
}

}  // namespace
}  // namespace ksched::util
