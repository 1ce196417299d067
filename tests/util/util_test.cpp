#include <gtest/gtest.h>

#include "api/core.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/result.h"

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
