#include <gtest/gtest.h>

#include "api/core.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/result.h"
#include "util/utf8.h"

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
